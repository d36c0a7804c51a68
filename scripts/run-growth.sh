#!/bin/bash
# Host side of `make growth`: boot the patched and the stock kernel once
# each with guest/growth-job.sh (the same write patterns on the same mkfs
# layouts), then write OUTDIR/growth.md: faults and page sizes of each file,
# stock against patched. KERNELS="patched" skips the stock boot (its
# columns then show "-"); GROWTH_LAYOUTS picks layouts, GROWTH_PARTS the
# parts (small, files, pmdk; see guest/growth-job.sh).
# usage: run-growth.sh PATCHED_BZIMAGE STOCK_BZIMAGE OUTDIR
set -euo pipefail
patched=$1 stock=$2 outdir=$3
here=$(cd "$(dirname "$0")/.." && pwd)
trouble=0
for kernel in patched stock; do
	mkdir -p "$outdir/$kernel"
	printf "GROWTH_LAYOUTS='%s'\nGROWTH_PARTS='%s'\n" "${GROWTH_LAYOUTS:-}" \
		"${GROWTH_PARTS:-}" > "$outdir/$kernel/growth.conf"
done
"$here/scripts/boot-patched-and-stock.sh" growth "$here/guest/growth-job.sh" \
	"$patched" "$stock" "$outdir" || trouble=1

# "growth-row: LAYOUT fill MiB faults pmd-ok pmd-fb pud-ok pud-fb pages 2M 1G KiB"
rows() {
	local f=$outdir/$1/console.txt
	if [ -f "$f" ]; then
		grep -h '^growth-row: ' "$f" | sed 's/^growth-row: //; s/ /\t/'
	fi
}
{
	echo "# DAX page sizes by how a file was written"
	echo
	echo "Made by \`make growth\` ($(date -u +%Y-%m-%d)): a fresh file system of each"
	echo "layout on the guest's 16 GiB namespace; each file made by"
	echo "\`tests/dax_alloc_probe\`, mapped 1 GiB aligned, and read one word per"
	echo "4 KiB (the fault fill writes instead). faults: getrusage; pages: the"
	echo "kernel's page-table dump; pmd-fb: fs_dax PMD fault fallbacks. concurrent4"
	echo "rows are one per file of 4 appenders running at once."
	echo
	grep -h '^growth: .* small ' "$outdir"/*/console.txt 2>/dev/null |
		sed 's/^/    /' || true
	echo
	echo "| layout | file | MiB | stock: faults | stock: pages | patched: faults | patched: pages | patched: pmd-fb |"
	echo "| --- | --- | ---: | ---: | --- | ---: | --- | ---: |"
	# key: layout/fill/MiB/n-th such row; patched rows in job order
	awk -F'\t' '
	{ k = $1 "/" $2 "/" $3 "/" (++n[FILENAME, $1 "/" $2 "/" $3]) }
	FILENAME == ARGV[1] { sf[k] = $4; sp[k] = $9; next }
	{
		printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3,
			(k in sf) ? sf[k] : "-", (k in sp) ? sp[k] : "-", $4, $9, $6
	}' <(rows stock) <(rows patched)
	echo
	echo "PMDK pools (\`tests/pmdk_probe\`: pmemobj_create, then one byte per 4 KiB"
	echo "past the first 64 KiB through the pool's mapping):"
	echo
	echo "| kernel | layout | MiB | base aligned | faults (create + writes) | pages | fallback reasons | each GiB |"
	echo "| --- | --- | ---: | --- | ---: | --- | --- | --- |"
	for kernel in stock patched; do
		[ -f "$outdir/$kernel/console.txt" ] || continue
		grep -h '^growth-pmdk: ' "$outdir/$kernel/console.txt" |
		awk -F'\t' -v k="$kernel" '{
			split($1, f, " ")
			printf "| %s | %s | %s | %s | %d | %s | %s | %s |\n", k, f[2], $2, $3, $4 + $5, $10, $11, ($12 == "") ? "-" : $12
		}'
	done
} > "$outdir/growth.md"
echo "growth: table in $outdir/growth.md"
exit "$trouble"
