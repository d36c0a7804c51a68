#!/bin/bash
# Host side of `make persist`: boot once to write through huge DAX mappings
# and reset the guest without unmounting (guest/persist-write-job.sh), boot
# again on the same pmem backing files to check every byte
# (guest/persist-verify-job.sh), then judge both boots.
# usage: run-persist.sh KERNEL OUTDIR
set -euo pipefail
kernel=$1 outdir=$2
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$outdir"
bin=$(cd "$outdir/.." && pwd)/bin
for phase in write verify; do
	mkdir -p "$outdir/$phase"
	rm -f "$outdir/$phase"/*.log "$outdir/$phase"/persist-*.txt
	rm -rf "${outdir:?}/$phase/bin" && cp -r "$bin" "$outdir/$phase/bin"
done
"$here/scripts/run-guest.sh" "$kernel" "$here/guest/persist-write-job.sh" \
	"$outdir/write" >/dev/null || true
# the seeds the first boot wrote with
cp "$outdir/write"/persist-*.txt "$outdir/verify/" 2>/dev/null || true
"$here/scripts/run-guest.sh" "$kernel" "$here/guest/persist-verify-job.sh" \
	"$outdir/verify" >/dev/null || true
# the write boot's own log (with its dmesg) is complete; its console may
# lose the tail
exec "$here/scripts/judge-console.sh" "$outdir/write/write.log" \
	"$outdir/verify/console.log"
