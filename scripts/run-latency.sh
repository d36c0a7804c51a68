#!/bin/bash
# Host side of `make latency`: boot the patched kernel once with
# guest/latency-job.sh, then write OUTDIR/latency.md (per operation and
# file system: p50/p99/max at each page size, the PUD:PMD and PUD:PTE
# ratios of the p50s, and the bytes zeroed, flushed or copied) and
# OUTDIR/latency.png. Times are guest times under TCG emulation: compare
# within the run only.
# usage: run-latency.sh BZIMAGE OUTDIR
set -euo pipefail
kernel=$1 outdir=$2
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$outdir"
rm -f "$outdir/latency.csv"
printf "LATENCY_REPS='%s'\nLATENCY_OPS='%s'\n" "${LATENCY_REPS:-5}" \
	"${LATENCY_OPS:-}" > "$outdir/latency.conf"
rm -rf "${outdir:?}/bin" && cp -r "$(cd "$outdir/.." && pwd)/bin" "$outdir/bin"
trouble=0
"$here/scripts/run-guest.sh" "$kernel" "$here/guest/latency-job.sh" "$outdir" >/dev/null || true
tr -d '\r' < "$outdir/console.log" > "$outdir/console.txt"
grep -q '^hugedax-latency: done' "$outdir/console.txt" || {
	echo "latency: the guest did not finish (see $outdir/console.log)"
	trouble=1
}
if grep -n -E 'WARNING: CPU|BUG:|Oops|bad pud|bad pmd' "$outdir/console.txt"; then
	echo "latency: the kernel log shows trouble"
	trouble=1
fi
"$here/scripts/latency-report.sh" "$outdir" || trouble=1
exit "$trouble"
