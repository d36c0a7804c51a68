#!/bin/bash
# Host side of `make age`: boot the patched and the stock kernel once each
# with guest/age-job.sh (the same aging workload on the same layout), then
# write OUTDIR/age.md: what page sizes new DAX files got on the aged file
# systems, stock against patched.
# usage: run-age.sh PATCHED_BZIMAGE STOCK_BZIMAGE OUTDIR
set -euo pipefail
patched=$1 stock=$2 outdir=$3
here=$(cd "$(dirname "$0")/.." && pwd)
trouble=0
"$here/scripts/boot-patched-and-stock.sh" age "$here/guest/age-job.sh" \
	"$patched" "$stock" "$outdir" || trouble=1

# "age-row: FS fill MiB faults pmd-ok pmd-fb pud-ok pud-fb pages 2M 1G KiB"
# pages: "Ax1G+Bx2M+Cx4K" or "none"
{
	echo "# DAX page sizes on aged file systems"
	echo
	echo "Made by \`make age\` ($(date -u +%Y-%m-%d)). Each file system: default mkfs on the"
	echo "guest's namespace (ext4, xfs 16 GiB; ext2 4 GiB), aged by \`tests/dax_age\` (16"
	echo "files grown round-robin by 64 KiB pwrites to sizes log-uniform in 4 KiB..32 MiB,"
	echo "by 4 processes at once, until 70% is used; then about half the"
	echo "files, chosen by seed 1, deleted), then"
	echo "new files made one after the other by \`tests/dax_alloc_probe\`, then four"
	echo "appended at once in 256 KiB writes (rows concurrent4-256k, one per file), each"
	echo "mapped at an address aligned to 1 GiB (files of 1 GiB) or 2 MiB, and written"
	echo "one word per 4 KiB. Page sizes from the kernel's"
	echo "page-table dump; faults from getrusage."
	echo
	echo "| fs | file | stock: pages | stock: faults | patched: pages | patched: faults |"
	echo "| --- | --- | --- | --- | --- | --- |"
	paste <(grep -h '^age-row: ' "$outdir/stock/console.txt") \
	      <(grep -h '^age-row: ' "$outdir/patched/console.txt") |
	awk -F'\t' '{
		split($1, s, " "); split($12, p, " ")
		printf "| %s | %s %s MiB | %s | %s | %s | %s |\n", s[2], s[3], $2, $8, $3, $19, $14
	}'
	echo
	echo "Share of the new files' bytes mapped by each page size:"
	echo
	echo "| fs | kernel | MiB | 1 GiB | 2 MiB | 4 KiB | faults |"
	echo "| --- | --- | --- | --- | --- | --- | --- |"
	for kernel in stock patched; do
		grep -h '^age-row: ' "$outdir/$kernel/console.txt" |
		awk -F'\t' -v k="$kernel" '
		function bytes(pages, unit,   n, i, part, m) {
			n = split(pages, part, "+")
			for (i = 1; i <= n; i++)
				if (part[i] ~ ("x" unit "$")) { split(part[i], m, "x"); return m[1] }
			return 0
		}
		{
			split($1, f, " "); fs = f[2]
			if (!(fs in mib)) order[++nfs] = fs
			mib[fs] += $2; faults[fs] += $3
			g[fs] += bytes($8, "1G") * 1024; m[fs] += bytes($8, "2M") * 2
			s[fs] += bytes($8, "4K") / 256
		}
		END {
			for (i = 1; i <= nfs; i++) {
				fs = order[i]
				printf "| %s | %s | %d | %.1f%% | %.1f%% | %.1f%% | %d |\n", fs, k, mib[fs],
					100 * g[fs] / mib[fs], 100 * m[fs] / mib[fs], 100 * s[fs] / mib[fs], faults[fs]
			}
		}'
	done | sort -s -t'|' -k2,2
	echo
	echo "Whole GiBs of the new files of 1 GiB and more, and those that had a"
	echo "free aligned GiB to go to (age-free before each file; the four"
	echo "concurrent files share one count): how many map by PUD."
	echo
	echo "| fs | kernel | whole GiBs | with a free aligned GiB | mapped by PUD | PUD share of those |"
	echo "| --- | --- | --- | --- | --- | --- |"
	for kernel in stock patched; do
		grep -h -e '^age-free: ' -e '^age-row: ' "$outdir/$kernel/console.txt" |
		awk -F'\t' -v k="$kernel" '
		/^age-free: / { split($0, a, " "); free[a[2]] = a[3]; next }
		{
			split($1, f, " "); fs = f[2]
			if ($2 < 1024) next
			if (!(fs in whole)) order[++nfs] = fs
			n = int($2 / 1024); e = free[fs] < n ? free[fs] : n
			free[fs] -= e
			p = 0
			if ($8 ~ /^[0-9]+x1G/) { split($8, m, "x"); p = m[1] + 0 }
			whole[fs] += n; elig[fs] += e; pud[fs] += p
			got[fs] += p < e ? p : e
		}
		END {
			for (i = 1; i <= nfs; i++) {
				fs = order[i]
				printf "| %s | %s | %d | %d | %d | %s |\n", fs, k, whole[fs],
					elig[fs], pud[fs],
					elig[fs] ? sprintf("%.0f%%", 100 * got[fs] / elig[fs]) : "-"
			}
		}'
	done | sort -s -t'|' -k2,2
	echo
	echo "The four concurrent appenders: the 2 MiB chunks they need, the aligned,"
	echo "free 2 MiB runs there were before them (age-free2m), and the chunks"
	echo "they mapped by a PMD or within a PUD."
	echo
	echo "| fs | kernel | chunks needed | aligned 2 MiB free | mapped huge |"
	echo "| --- | --- | --- | --- | --- |"
	for kernel in stock patched; do
		grep -h -e '^age-free2m: ' -e '^age-row: [a-z0-9]* concurrent' \
			"$outdir/$kernel/console.txt" |
		awk -F'\t' -v k="$kernel" '
		/^age-free2m: / { split($0, a, " "); free[a[2]] = a[3]; next }
		{
			split($1, f, " "); fs = f[2]
			if (!(fs in need)) order[++nfs] = fs
			need[fs] += $2 / 2
			split($8, part, "+")
			for (i in part) {
				split(part[i], m, "x")
				if (m[2] == "1G") huge[fs] += m[1] * 512
				if (m[2] == "2M") huge[fs] += m[1]
			}
		}
		END {
			for (i = 1; i <= nfs; i++) {
				fs = order[i]
				printf "| %s | %s | %d | %d | %d |\n", fs, k, need[fs],
					free[fs], huge[fs]
			}
		}'
	done | sort -s -t'|' -k2,2
	echo
	echo "Space 1,000 files of 4 KiB take on the fresh file system (growth of used"
	echo "space, KiB):"
	echo
	echo "| fs | stock | patched |"
	echo "| --- | --- | --- |"
	join <(grep -h '^age: [a-z0-9]* small' "$outdir/stock/console.txt" | awk '{ print $2, $5 }' | sort) \
	     <(grep -h '^age: [a-z0-9]* small' "$outdir/patched/console.txt" | awk '{ print $2, $5 }' | sort) |
	awk '{ printf "| %s | %s | %s |\n", $1, $2, $3 }'
	echo
	echo "Used space after aging and after the new files (df, KiB):"
	echo
	echo '```'
	grep -h -e '^age: [a-z0-9]* \(fill\|punch\|df\)' "$outdir/stock/console.txt" | sed 's/^/stock   /'
	grep -h -e '^age: [a-z0-9]* \(fill\|punch\|df\)' "$outdir/patched/console.txt" | sed 's/^/patched /'
	echo '```'
} > "$outdir/age.md"
echo "age: report in $outdir/age.md"
exit "$trouble"
