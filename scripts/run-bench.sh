#!/bin/bash
# Host side of `make bench`: boot the patched and the stock kernel once
# each with guest/bench-job.sh (same guest layout), then write the report.
# usage: run-bench.sh PATCHED_BZIMAGE STOCK_BZIMAGE OUTDIR
# OUTDIR gets patched/ and stock/ (console, bench.csv) and, from
# bench-report.sh, bench.csv, bench.md and bench.png.
set -euo pipefail
patched=$1 stock=$2 outdir=$3
here=$(cd "$(dirname "$0")/.." && pwd)
trouble=0
rm -f "$outdir"/patched/bench.csv "$outdir"/stock/bench.csv
"$here/scripts/boot-patched-and-stock.sh" bench "$here/guest/bench-job.sh" \
	"$patched" "$stock" "$outdir" || trouble=1
"$here/scripts/bench-report.sh" "$outdir"
exit "$trouble"
