#!/bin/bash
# Report of `make latency` from OUTDIR/latency.csv (run-latency.sh):
# OUTDIR/latency.md, OUTDIR/latency.dat and OUTDIR/latency.png.
# usage: latency-report.sh OUTDIR
set -euo pipefail
outdir=$1
csv=$outdir/latency.csv
[ -s "$csv" ] || exit 1
{
	echo "# Latency of single DAX operations by page size"
	echo
	echo "Made by \`make latency\` ($(date -u +%Y-%m-%d)), $(sed -n 's/^LATENCY_REPS=//p' "$outdir/latency.conf" | tr -d "'") repetitions per cell, one boot"
	echo "of the patched kernel under TCG: guest times, not hardware times; compare"
	echo "within this table. Page: the mapping's alignment (1G, 2M past a GiB, 4K"
	echo "past 2 MiB); mapped: what the page-table dump saw. bytes: zeroed"
	echo "(first-write, sparse-write, mapsync, reader: written per FIEMAP),"
	echo "written back (msync: dax_writeback_one), unshared (cow). reader: the"
	echo "per-access times of another process read-faulting the file's second"
	echo "GiB while the first store into its first GiB zeroes it; writer: the"
	echo "same with write faults, each of which converts its block. fsyncer:"
	echo "another process making, writing, fsync()ing and removing 4 KiB files"
	echo "while one write(2) of 1 GiB fills a new file: its time per file."
	echo "mover: the same while a 4 MiB append takes a file grown by 1 MiB"
	echo "appends from 62 MiB past 64 MiB, which moves its head (ext4)."
	echo
	echo "| fs | op | page | mapped | p50 us | p99 us | max us | bytes | note |"
	echo "| --- | --- | --- | --- | ---: | ---: | ---: | ---: | --- |"
	tail -n +2 "$csv" | awk -F, '{ printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $6, $7, $8, $9, $10 }'
	echo
	echo "Ratios of the p50s, PUD (1G) to PMD (2M) and to PTE (4K):"
	echo
	echo "| fs | op | 1G:2M | 1G:4K |"
	echo "| --- | --- | ---: | ---: |"
	tail -n +2 "$csv" | awk -F, '
	{ k = $1 " | " $2; v[k, $3] = $6; if (!(k in seen)) { seen[k] = 1; order[++n] = k } }
	END {
		for (i = 1; i <= n; i++) {
			k = order[i]
			if (!((k, "1G") in v) || !((k, "2M") in v)) continue
			a = v[k, "1G"]; b = v[k, "2M"]; c = ((k, "4K") in v) ? v[k, "4K"] : 0
			printf "| %s | %.1f | %s |\n", k, (b > 0) ? a / b : 0, (c > 0) ? sprintf("%.1f", a / c) : "-"
		}
	}'
	echo
	echo "The other process during the first store (reader, writer) or the write"
	echo "(fsyncer, mover): its longest single access or file against the store's or"
	echo "the write's p50 (note), in percent:"
	echo
	echo "| fs | op | page | longest access us | store p50 us | ratio % |"
	echo "| --- | --- | --- | ---: | ---: | ---: |"
	tail -n +2 "$csv" | awk -F, '($2 == "reader" || $2 == "writer" || $2 == "fsyncer" || $2 == "mover") && $10 ~ /writer_p50_us=/ {
		w = $10; sub(/.*writer_p50_us=/, "", w); w += 0
		printf "| %s | %s | %s | %s | %s | %.1f |\n", $1, $2, $3, $8, w, (w > 0) ? 100 * $8 / w : 0
	}'
} > "$outdir/latency.md"
# one line per file system and operation: p50 at 1G, 2M, 4K ("?" if none)
tail -n +2 "$csv" | awk -F, '
{ k = $1 "/" $2; v[k, $3] = $6; if (!(k in seen)) { seen[k] = 1; order[++n] = k } }
END {
	for (i = 1; i <= n; i++) {
		k = order[i]; printf "%s", k
		split("1G 2M 4K", p, " ")
		for (j = 1; j <= 3; j++)
			printf " %s", ((k, p[j]) in v) ? v[k, p[j]] : "?"
		print ""
	}
}' > "$outdir/latency.dat"
gnuplot <<GP || echo "latency: no plot (gnuplot failed)"
set terminal pngcairo noenhanced size 1400,700 font "sans,11"
set output "$outdir/latency.png"
set datafile missing "?"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set logscale y
set ylabel "p50 latency, us (log scale)"
set xtics rotate by -30
set key top left
set title "DAX operations by page size (patched kernel, TCG guest time: compare within the plot)"
plot "$outdir/latency.dat" using 2:xtic(1) title "1G (PUD)", "" using 3 title "2M (PMD)", "" using 4 title "4K (PTE)"
GP
cat "$outdir/latency.md"
