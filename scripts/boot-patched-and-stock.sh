#!/bin/bash
# Boot the patched and the stock kernel once each with the same guest job
# and layout (used by `make bench` and `make age`). Each boot gets
# OUTDIR/patched and OUTDIR/stock (the test binaries, console.log and
# console.txt); the job's "TAG: " lines are echoed; a guest that did not
# print "hugedax-TAG: done", or a kernel log with a warning, is reported
# and makes the exit status 1. KERNELS="patched" (or "stock") boots just one.
# usage: boot-patched-and-stock.sh TAG JOB PATCHED_BZIMAGE STOCK_BZIMAGE OUTDIR
set -euo pipefail
tag=$1 job=$2 patched=$3 stock=$4 outdir=$5
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$outdir"
bin=$(cd "$outdir/.." && pwd)/bin
trouble=0
for kernel in ${KERNELS:-patched stock}; do
	dir=$outdir/$kernel
	mkdir -p "$dir"
	rm -f "$dir/console.log"
	rm -rf "${dir:?}/bin" && cp -r "$bin" "$dir/bin"
	image=$patched
	[ "$kernel" = stock ] && image=$stock
	start=$(date +%s)
	"$here/scripts/run-guest.sh" "$image" "$job" "$dir" >/dev/null || true
	echo "$tag: $kernel boot took $(($(date +%s) - start)) s"
	tr -d '\r' < "$dir/console.log" > "$dir/console.txt"
	grep -h "^$tag: " "$dir/console.txt" || true
	if ! grep -q "^hugedax-$tag: done" "$dir/console.txt"; then
		echo "$tag: the $kernel guest did not finish (see $dir/console.log)"
		trouble=1
	fi
	if grep -n -E 'WARNING: CPU|BUG:|Oops|bad pud|bad pmd' "$dir/console.txt"; then
		echo "$tag: the $kernel kernel log shows trouble (see $dir/console.log)"
		trouble=1
	fi
done
exit "$trouble"
