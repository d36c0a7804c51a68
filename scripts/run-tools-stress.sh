#!/bin/bash
# Host side of `make tools-stress`: boot the guest with guest/tools-job.sh
# (stress-ng and fio with verification on the DAX mounts), then judge the
# console: every run passed, no kernel warning.
# usage: run-tools-stress.sh KERNEL OUTDIR
set -euo pipefail
kernel=$1 outdir=$2
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$outdir"
rm -f "$outdir/console.log"
"$here/scripts/run-guest.sh" "$kernel" "$here/guest/tools-job.sh" "$outdir" >/dev/null || true
tr -d '\r' < "$outdir/console.log" | grep -E '^(not )?ok [0-9]+ |^tools: ' || true
exec "$here/scripts/judge-console.sh" "$outdir/console.log"
