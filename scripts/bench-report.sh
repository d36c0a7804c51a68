#!/bin/bash
# Turn the guests' bench.csv files into the report of `make bench`.
# usage: bench-report.sh OUTDIR
# Reads OUTDIR/patched/bench.csv and OUTDIR/stock/bench.csv (tests/dax_bench
# rows); writes OUTDIR/bench.csv (the same with a kernel column), bench.md
# (tables; times as ratios to the best of the device-dax 1G rows of the
# same boot) and bench.png (faults per GiB, stock against patched, grouped
# by file system, log scale).
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

# the plot: faults per GiB at a 1 GiB-aligned address, stock and patched
# side by side for each configuration, grouped by file system (ext2, ext4,
# xfs, ...), then the references (device-dax, hugetlbfs, tmpfs); log scale.
# plot.dat: x, faults, pages, kernel (0 stock, 1 patched); plot.gp: the x
# tics, group names and separators, which depend on the rows present.
plot() {
	awk -F, -v dat="$outdir/plot.dat" -v gp="$outdir/plot.gp" '
	function is_ref(g) { return g ~ /^(devdax|hugetlbfs|tmpfs)$/ }
	FNR == 1 || $3 != "1G" || $4 ~ /^error/ || ($1, $2) in row { next }
	{
		row[$1, $2] = $5 "," $4
		g = $2
		sub(/-.*/, "", g)
		if (!($2 in grp)) {
			grp[$2] = g
			conf[g, ++nc[g]] = $2
		}
		if (!(g in seen)) {
			seen[g]
			order[++ng] = g
		}
	}
	END {
		# file systems first, then the references, each in CSV order
		n = 0
		for (ref = 0; ref <= 1; ref++)
			for (i = 1; i <= ng; i++)
				if (is_ref(order[i]) == ref)
					sorted[++n] = order[i]
		printf "" > dat
		printf "set xtics (" > gp
		x = 0
		sep = ""
		for (i = 1; i <= n; i++) {
			g = sorted[i]
			if (i > 1) {
				x += 1.5
				sepx[i] = x - 2
			}
			first = x
			for (j = 1; j <= nc[g]; j++) {
				c = conf[g, j]
				v = c
				sub(/^[^-]*-?/, "", v)
				if (v == "")
					v = "grown"
				for (k = 0; k <= 1; k++) {
					kern = k ? "patched" : "stock"
					if ((kern, c) in row) {
						split(row[kern, c], f, ",")
						printf "%.2f %s %s %d\n", x + (k ? 0.45 : -0.45), f[1], f[2], k > dat
					}
				}
				printf "%s\"%s\" %.2f", sep, v, x > gp
				sep = ", "
				x += 2.5
			}
			mid[i] = (first + x - 2.5) / 2
		}
		print ")" > gp
		printf "set xrange [-1.5:%.2f]\n", x - 1 > gp
		for (i = 1; i <= n; i++) {
			name = sorted[i] == "devdax" ? "device-dax" : sorted[i]
			printf "set label \"%s\" at %.2f, graph -0.1 center font \",13\"\n", name, mid[i] > gp
			if (i == 1)
				continue
			dash = is_ref(sorted[i]) && !is_ref(sorted[i - 1]) ? "dt 1" : "dt 3"
			printf "set arrow from %.2f, graph -0.13 to %.2f, graph 1 nohead %s lc \"gray50\"\n", sepx[i], sepx[i], dash > gp
		}
	}' "$csv"
	gnuplot <<EOF
set terminal pngcairo noenhanced size 1400,700 font "sans,11"
set output "$outdir/bench.png"
set title "Page faults to map 1 GiB (1 GiB-aligned address, one word per 4 KiB; fewer faults = bigger pages; log scale)\nOn each bar: the page sizes the page-table dump shows"
set logscale y
set yrange [0.5:3e6]
set ytics ("1" 1, "8" 8, "64" 64, "512" 512, "4096" 4096, "32768" 32768, "262144" 262144)
set ylabel "faults per GiB"
set ytics nomirror
set grid ytics lc "gray80"
set xtics scale 0 nomirror
set bmargin 7
set rmargin 16
set key top left opaque box
set style fill solid 0.9 border -1
set boxwidth 0.9 absolute
set label "1 GiB pages" at graph 1.01, first 1 left
set label "2 MiB pages" at graph 1.01, first 512 left
set label "4 KiB pages" at graph 1.01, first 262144 left
set label "default mkfs; grown: pwrite into a growing file; sized: ftruncate to 1 GiB first; padded: the file starts on a 1 GiB boundary; stride, su2m: mkfs aligned to 2 MiB" at screen 0.5, screen 0.03 center
load "$outdir/plot.gp"
plot "$outdir/plot.dat" using (\$4 == 0 ? \$1 : 1/0):2 with boxes lc "#e08a2c" title "stock 6.1.192", \
	"" using (\$4 == 1 ? \$1 : 1/0):2 with boxes lc "#2c6fbb" title "patched", \
	"" using 1:(\$2 * 1.6):3 with labels center notitle
EOF
}
plot
echo "bench: $md, $csv, $outdir/bench.png"
