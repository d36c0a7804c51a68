#!/bin/bash
# Host side of `make optout`: boot the patched and the stock kernel with
# guest/optout-job.sh, then compare, per file system and file, the
# physical extents and the page sizes of the patched kernel with
# dax_align=off (mount option, and sysfs) against stock. They must match;
# the patched default must not (else the comparison shows nothing).
# Writes OUTDIR/optout.md; exit status 1 if an "off" mode differs from stock.
# usage: run-optout.sh PATCHED_BZIMAGE STOCK_BZIMAGE OUTDIR
set -euo pipefail
patched=$1 stock=$2 outdir=$3
here=$(cd "$(dirname "$0")/.." && pwd)
trouble=0
"$here/scripts/boot-patched-and-stock.sh" optout "$here/guest/optout-job.sh" \
	"$patched" "$stock" "$outdir" || trouble=1

# "MODE FS FILE what": extents, and the page sizes, aligned chunks and
# space of each dax_alloc_probe row (its fault and trace counts differ by
# design: stock has no PUD tracepoint)
facts() {
	grep -h -E '^optout-(row|extents): ' "$outdir"/*/console.txt |
	awk '$1 == "optout-extents:" { print $2, $3, $4, "extents", $5; next }
	     $4 == "small" { print $2, $3, "small", "KiB", $6; next }
	     { print $2, $3, $4, "pages", $11, $12, $13, $14 }'
}
facts > "$outdir/facts.txt"
compare() {	# MODE: lines of MODE that differ from stock
	diff <(grep "^stock " "$outdir/facts.txt" | cut -d' ' -f2-) \
		<(grep "^$1 " "$outdir/facts.txt" | cut -d' ' -f2-) |
		grep -c '^>' || true
}
{
	echo "# dax_align=off against stock"
	echo
	echo "Made by \`make optout\` ($(date -u +%Y-%m-%d)); per file system (ext4, xfs,"
	echo "ext2, fresh default mkfs on the 16 GiB namespace) the files of"
	echo "guest/optout-job.sh, and for each its physical extents (filefrag) and"
	echo "page sizes (page-table dump), FIEMAP-aligned chunks and space used."
	echo
	echo "| patched mode | facts | differing from stock |"
	echo "| --- | ---: | ---: |"
	for mode in default mount sysfs; do
		echo "| $mode | $(grep -c "^$mode " "$outdir/facts.txt" || true) | $(compare "$mode") |"
	done
	echo
	echo "stock: $(grep -c '^stock ' "$outdir/facts.txt" || true) facts."
	echo "\"mount\" is the mount option dax_align=off, \"sysfs\" is"
	echo "/sys/kernel/mm/transparent_hugepage/dax_align = off, \"default\" is"
	echo "neither (the patched placement). Details: facts.txt."
} > "$outdir/optout.md"
cat "$outdir/optout.md"
n=$(grep -c '^stock ' "$outdir/facts.txt" || true)
for mode in mount sysfs; do
	if [ "$n" = 0 ] || [ "$(compare "$mode")" != 0 ] ||
	   [ "$(grep -c "^$mode " "$outdir/facts.txt" || true)" != "$n" ]; then
		echo "optout: $mode differs from stock"
		trouble=1
	fi
done
if [ "$(compare default)" = 0 ]; then
	echo "optout: the patched default matches stock too: the comparison shows nothing"
	trouble=1
fi
exit "$trouble"
