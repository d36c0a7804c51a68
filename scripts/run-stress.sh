#!/bin/bash
# Host side of `make stress`: boot the guest with guest/stress-job.sh, which
# runs tests/dax_stress on ext2, ext4, xfs and device-dax, then judge the
# console (every run "ok", no kernel warning) and print the rates.
# usage: run-stress.sh KERNEL OUTDIR
# environment: SEEDS (default "1"), OPS per run (default 20000), CHECKS
# (full-file checks per run, default 10), FS (default "ext2 ext4 xfs devdax"),
# TIMEOUT for the guest (default 4 hours: 20000 operations take an estimated
# 15-25 minutes per target here, from runs of 1500-2000 operations)
set -euo pipefail
kernel=$1 outdir=$2
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$outdir"
bin=$(cd "$outdir/.." && pwd)/bin
rm -f "$outdir/console.log"
rm -rf "${outdir:?}/bin" && cp -r "$bin" "$outdir/bin"
cat > "$outdir/stress.conf" <<CONF
SEEDS="${SEEDS:-1}"
OPS=${OPS:-20000}
CHECKS=${CHECKS:-10}
FS="${FS:-ext2 ext4 xfs devdax}"
CONF
TIMEOUT=${TIMEOUT:-14400} "$here/scripts/run-guest.sh" "$kernel" \
	"$here/guest/stress-job.sh" "$outdir" >/dev/null || true
tr -d '\r' < "$outdir/console.log" |
	grep -E '^hugedax-test: begin dax_stress|^# .*(ops/s|tracepoints|page table dump|1 GiB-aligned|FAIL)' || true
exec "$here/scripts/judge-console.sh" "$outdir/console.log"
