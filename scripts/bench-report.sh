#!/bin/bash
# Turn the guests' bench.csv files into the report of `make bench`.
# usage: bench-report.sh OUTDIR
# Reads OUTDIR/patched/bench.csv and OUTDIR/stock/bench.csv (tests/dax_bench
# rows); writes OUTDIR/bench.csv (the same with a kernel column), bench.md
# (tables, times as ratios to device-dax 1G of the same boot) and bench.png
# (faults and page-table bytes per GiB, log scale).
set -euo pipefail
outdir=$1
csv=$outdir/bench.csv md=$outdir/bench.md
kernels=()
for k in patched stock; do
	[ -s "$outdir/$k/bench.csv" ] && kernels+=("$k")
done
[ "${#kernels[@]}" -gt 0 ] || { echo "bench: no results in $outdir" >&2; exit 1; }

head -1 "$outdir/${kernels[0]}/bench.csv" | sed 's/^/kernel,/' > "$csv"
for k in "${kernels[@]}"; do
	tail -n +2 "$outdir/$k/bench.csv" | sed "s/^/$k,/" >> "$csv"
done
release() { cat "$outdir/$1/kernel-release" 2>/dev/null || echo "?"; }

{
echo "# make bench: $(date -u +%Y-%m-%d), patched $(release patched), stock $(release stock)"
echo
cat <<'EOF'
Each row maps 1 GiB of a file or device MAP_SHARED and touches it one
8-byte word per 4 KiB. The data was written before anything was timed
(pwrite, or through a mapping for device-dax and hugetlbfs), which also
faulted the emulated pmem in on the host once; no fault zeroes data.
Address: 1G = 1 GiB-aligned (the largest page the file allows), 2M and 4K =
misaligned for anything larger (1 GiB + 2 MiB, 2 MiB + 4 KiB): the page size
forced down by alignment alone. Pages: what the page-table dump shows.

The guest runs under QEMU TCG emulation: times reflect the kernel's work,
not the hardware TLB. They are ratios to device-dax 1G measured in the same
boot (lower is better). Faults and page-table bytes are exact counts.

EOF
awk -F, '
function human(b,   u, i) {
	split("B KiB MiB GiB TiB PiB", u, " ")
	for (i = 1; b >= 1024 && i < 6; i++)
		b /= 1024
	return i == 1 ? sprintf("%d B", b) : sprintf("%.1f %s", b, u[i])
}
function ratio(v, r) {
	return (v == "" || r + 0 == 0) ? "-" : sprintf("%.2f", v / r)
}
function nproc(pt, ms, r) {
	return pt == "" ? "-" : sprintf("%s, %s", human(pt), ratio(ms, r))
}
NR == FNR {
	if ($2 == "devdax-1G" && $3 == "1G" && $4 !~ /^error/)
		for (i = 9; i <= 19; i++)
			ref[$1, i] = $i
	next
}
FNR == 1 { next }
$4 ~ /^error/ {
	err[++nerr] = sprintf("| %s | %s | %s | %s |", $1, $2, $3, $4)
	next
}
{
	key = sprintf("| %s | %s | %s | %s", $1, $2, $3, $4)
	mem[++n] = sprintf("%s | %d | %d | %.0f | %s |", key, $5, $6, $7,
			   human($7 * 6144 * 10000))
	cyc = $19 + 0 ? ref[$1, 19] / $19 : 0
	tim[n] = sprintf("%s | %s | %s | %s | %s | %s | %s | %s |", key,
			 ratio($9, ref[$1, 9]), ratio($10, ref[$1, 10]),
			 ratio($12, ref[$1, 12]), nproc($13, $14, ref[$1, 14]),
			 nproc($15, $16, ref[$1, 16]), nproc($17, $18, ref[$1, 18]),
			 cyc ? sprintf("%.2f", cyc) : "-")
	if ($2 == "devdax-1G" && $3 == "1G")
		refs[$1] = sprintf("%s: first read %s ms, first write %s ms, random read %s ns, N = 1, 8, 64: %s, %s, %s ms, %s cycles/s", $1, $9, $10, $12, $14, $16, $18, $19)
}
END {
	print "## Page faults and page tables"
	print ""
	print "Page tables: VmPTE growth for the 1 GiB mapping, alone in its 512 GiB region (so it includes one PUD table page); \"at scale\": per GiB of 32 (2 MiB pages) or 512 (1 GiB pages) such mappings side by side, which share the upper tables as a large mapping does. The last column projects that to 10,000 processes each mapping 6 TiB (6144 GiB)."
	print ""
	print "| kernel | config | address | pages | faults/GiB | page-table B/GiB (1 GiB) | B/GiB at scale | 10,000 x 6 TiB |"
	print "| --- | --- | --- | --- | ---: | ---: | ---: | ---: |"
	for (i = 1; i <= n; i++)
		print mem[i]
	print ""
	print "## Times, as ratios to device-dax 1G of the same kernel"
	print ""
	print "First read / first write: first touch of a fresh mapping, read first, then write on a second mapping. Random: 2^20 random 8-byte reads across the populated mapping. N: processes sharing one mapping, each reading all of it: their page tables in total, and the wall time from releasing them to reaping them (not run for N = 64 at 4 KiB). Cycle: mmap + touch + munmap of 1 GiB."
	print ""
	print "| kernel | config | address | pages | first read | first write | random read | N = 1 | N = 8 | N = 64 | cycle |"
	print "| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
	for (i = 1; i <= n; i++)
		print tim[i]
	print ""
	print "Device-dax 1G, absolute:"
	print ""
	for (k in refs)
		print "- " refs[k]
	if (nerr) {
		print ""
		print "Configurations that failed:"
		print ""
		print "| kernel | config | address | error |"
		print "| --- | --- | --- | --- |"
		for (i = 1; i <= nerr; i++)
			print err[i]
	}
}' "$csv" "$csv"
} > "$md"

# the plot: faults and page-table bytes per GiB (at scale) for each row
awk -F, 'FNR > 1 && $4 !~ /^error/ { printf "%s %s @%s: %s,%s,%s\n", $1, $2, $3, $4, $5, $7 }' \
	"$csv" > "$outdir/plot.dat"
gnuplot <<EOF
set terminal pngcairo size 1400,800 font "sans,10"
set output "$outdir/bench.png"
set datafile separator ","
set title "1 GiB mapped: page faults and page-table bytes per GiB (log scale)"
set style data histograms
set style histogram clustered gap 1
set style fill solid border -1
set logscale y
set yrange [0.5:*]
set grid ytics
set xtics rotate by -50 scale 0
set bmargin 12
set rmargin 8
set key top right
plot "$outdir/plot.dat" using 2:xtic(1) title "faults per GiB", \
	"" using 3 title "page-table bytes per GiB (at scale)"
EOF
echo "bench: $md, $csv, $outdir/bench.png"
