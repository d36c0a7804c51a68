#!/bin/bash
# Host side of `make demo`: boot the guest with guest/demo-job.sh and print
# the table it measured.
# usage: run-demo.sh KERNEL OUTDIR
set -euo pipefail
kernel=$1 outdir=$2
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$outdir"
bin=$(cd "$outdir/.." && pwd)/bin
rm -f "$outdir/demo.tsv"
rm -rf "${outdir:?}/bin" && cp -r "$bin" "$outdir/bin"
"$here/scripts/run-guest.sh" "$kernel" "$here/guest/demo-job.sh" "$outdir" >/dev/null || true
if [ ! -s "$outdir/demo.tsv" ]; then
	echo "demo: the guest produced no results; see $outdir/console.log" >&2
	exit 1
fi
echo "One 1 GiB file per filesystem (default mkfs), mapped MAP_SHARED at a"
echo "1 GiB-aligned address, written one word per 4 KiB (kernel $(cat "$outdir/kernel-release"))."
echo "Page sizes from the kernel's page table dump, faults from getrusage,"
echo "page-table memory from VmPTE. Filled by: one fallocate() of 1 GiB;"
echo "ftruncate() to 1 GiB, then pwrite() (\"sized\"); pwrite() into a growing"
echo "file, whose first GiB is placed before the file is known to be large."
echo
column -t -s $'\t' "$outdir/demo.tsv"
