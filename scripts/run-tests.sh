#!/bin/bash
# Host side of `make test`: boot the guest with guest/test-job.sh, then
# judge the console: TAP results of every test binary, plus the kernel log.
# usage: run-tests.sh KERNEL OUTDIR
# Ends with "N passed, N failed" and exits non-zero if a test failed, the
# guest did not finish, or the kernel warned.
set -euo pipefail
kernel=$1 outdir=$2
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$outdir"
bin=$(cd "$outdir/.." && pwd)/bin
rm -f "$outdir/console.log"
rm -rf "${outdir:?}/bin" && cp -r "$bin" "$outdir/bin"
"$here/scripts/run-guest.sh" "$kernel" "$here/guest/test-job.sh" "$outdir" >/dev/null || true
exec "$here/scripts/judge-console.sh" "$outdir/console.log"
