#!/bin/bash
# Host side of `make bench`: boot the patched and the stock kernel once
# each with guest/bench-job.sh (same guest layout), then write the report.
# usage: run-bench.sh PATCHED_BZIMAGE STOCK_BZIMAGE OUTDIR
# OUTDIR gets patched/ and stock/ (console, bench.csv) and, from
# bench-report.sh, bench.csv, bench.md and bench.png.
set -euo pipefail
patched=$1 stock=$2 outdir=$3
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$outdir"
bin=$(cd "$outdir/.." && pwd)/bin
trouble=0
for kernel in patched stock; do
	dir=$outdir/$kernel
	mkdir -p "$dir"
	rm -f "$dir/bench.csv" "$dir/console.log"
	rm -rf "${dir:?}/bin" && cp -r "$bin" "$dir/bin"
	image=$patched
	[ "$kernel" = stock ] && image=$stock
	start=$(date +%s)
	"$here/scripts/run-guest.sh" "$image" \
		"$here/guest/bench-job.sh" "$dir" >/dev/null || true
	echo "bench: $kernel boot took $(($(date +%s) - start)) s"
	tr -d '\r' < "$dir/console.log" > "$dir/console.txt"
	grep -h '^bench: ' "$dir/console.txt" || true
	if ! grep -q '^hugedax-bench: done' "$dir/console.txt"; then
		echo "bench: the $kernel guest did not finish (see $dir/console.log)"
		trouble=1
	fi
	if grep -n -E 'WARNING: CPU|BUG:|Oops|bad pud|bad pmd' "$dir/console.txt"; then
		echo "bench: the $kernel kernel log shows trouble (see $dir/console.log)"
		trouble=1
	fi
done
"$here/scripts/bench-report.sh" "$outdir"
exit "$trouble"
