#!/bin/bash
# Host side of `make irqsoff`: boot the (DEBUG=1) kernel once with
# guest/irqsoff-job.sh and print its table; fails if a run failed or the
# kernel warned.
# usage: run-irqsoff.sh KERNEL OUTDIR
set -euo pipefail
kernel=$1 outdir=$2
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$outdir"
bin=$(cd "$outdir/.." && pwd)/bin
rm -rf "${outdir:?}/bin" && cp -r "$bin" "$outdir/bin"
"$here/scripts/run-guest.sh" "$kernel" "$here/guest/irqsoff-job.sh" "$outdir" >/dev/null || true
tr -d '\r' < "$outdir/console.log" | grep -E '^(hugedax-irqsoff|pmd |pud |  fault|  invalidate)' | tee "$outdir/irqsoff.txt"
! grep -q 'status [1-9]' "$outdir/irqsoff.txt" &&
	! grep -q -E 'WARNING: CPU|BUG:|Oops|bad pud|bad pmd' "$outdir/console.log" &&
	grep -q '^hugedax-test: done' "$outdir/console.log"
