#!/bin/bash
# Turn the guests' bench.csv files into the report of `make bench`.
# usage: bench-report.sh OUTDIR
# Reads OUTDIR/patched/bench.csv and OUTDIR/stock/bench.csv (tests/dax_bench
# rows); writes OUTDIR/bench.csv (the same with a kernel column), bench.md
# (tables; times as ratios to the best of the device-dax 1G rows of the
# same boot) and bench.png (faults and page-table bytes per GiB, log scale).
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
echo "# make bench, $(date -u +%Y-%m-%d)"
echo
echo "Kernels (uname -rv): patched (the series) $(release patched); stock (pristine 6.1.192, same config) $(release stock)."
echo
cat <<'EOF'
Each row maps 1 GiB of a file or device MAP_SHARED and touches it one
8-byte word per 4 KiB. The data was written before anything was timed
(pwrite into a growing file; "-sized" rows ftruncate the file to 1 GiB
first; through a mapping for device-dax and hugetlbfs), which also
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
function pair(k, f) {
	return sprintf("%s / %s", (k, "patched", f) in S ? S[k, "patched", f] : "-",
		       (k, "stock", f) in S ? S[k, "stock", f] : "-")
}
function nproc(pt, ms, r) {
	return pt == "" ? "-" : sprintf("%s, %s", human(pt), ratio(ms, r))
}
# the reference: device-dax 1G, the best of its rows (first and last)
NR == FNR {
	if ($2 != "devdax-1G" || $3 != "1G" || $4 ~ /^error/)
		next
	for (i = 9; i <= 19; i++)
		if (!(($1, i) in ref) || (i < 19 ? $i < ref[$1, i] : $i > ref[$1, i]))
			ref[$1, i] = $i
	kern[$1]
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
	k = $2 " | " $3
	if (!(k in seen)) {
		seen[k]
		order[++nk] = k
	}
	S[k, $1, "pages"] = $4
	S[k, $1, "faults"] = $5
	S[k, $1, "pt"] = sprintf("%.0f", $7)
	S[k, $1, "proj"] = human($7 * 6144 * 10000)
	S[k, $1, "read"] = ratio($9, ref[$1, 9])
}
END {
	print "## Summary (patched / stock)"
	print ""
	print "| config | address | pages | faults/GiB | page-table B/GiB at scale | 10,000 x 6 TiB | first read, x device-dax 1G |"
	print "| --- | --- | --- | ---: | ---: | ---: | ---: |"
	for (i = 1; i <= nk; i++)
		printf "| %s | %s | %s | %s | %s | %s |\n", order[i],
		       pair(order[i], "pages"), pair(order[i], "faults"),
		       pair(order[i], "pt"), pair(order[i], "proj"),
		       pair(order[i], "read")
	print ""
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
	print "Device-dax 1G, absolute (the best of its first and last row):"
	print ""
	for (k in kern)
		printf "- %s: first read %s ms, first write %s ms, random read %s ns, N = 1, 8, 64: %s, %s, %s ms, %s cycles/s\n", k, ref[k, 9], ref[k, 10], ref[k, 12], ref[k, 14], ref[k, 16], ref[k, 18], ref[k, 19]
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
set terminal pngcairo noenhanced size 1400,800 font "sans,10"
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
