#!/bin/bash
# Host side of the pstore/dax check: for ext4 and xfs, boot once to register
# a record file with pstore/dax and panic (guest/pstore-crash-job.sh), then
# again on the same pmem backing files to find the panic's record through
# pstore and in the file (guest/pstore-verify-job.sh), then judge the
# second boots' consoles. The first boots' consoles are checked in the
# second boots (tests/pstore_dax_test: first_boot_panicked).
# usage: run-pstore.sh KERNEL OUTDIR
# environment: PSTORE_JUDGE=0 leaves the judging to the caller
# (scripts/run-tests.sh judges these boots with its own)
set -euo pipefail
kernel=$1 outdir=$2
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$outdir"
bin=$(cd "$outdir/.." && pwd)/bin
logs=()
for fs in ext4 xfs; do
	marker=$(( (RANDOM << 15 | RANDOM) + 1 ))
	for phase in crash verify; do
		dir=$outdir/$fs-$phase
		mkdir -p "$dir"
		rm -f "$dir"/console.log*
		rm -rf "${dir:?}/bin" && cp -r "$bin" "$dir/bin"
		printf 'PSTORE_FS=%s\nPSTORE_MARKER=%s\n' "$fs" "$marker" > "$dir/pstore.conf"
	done
	"$here/scripts/run-guest.sh" "$kernel" "$here/guest/pstore-crash-job.sh" \
		"$outdir/$fs-crash" >/dev/null || true
	tr -d '\r' < "$outdir/$fs-crash/console.log" > "$outdir/$fs-verify/crash-console.log"
	"$here/scripts/run-guest.sh" "$kernel" "$here/guest/pstore-verify-job.sh" \
		"$outdir/$fs-verify" >/dev/null || true
	logs+=("$outdir/$fs-verify/console.log")
done
[ "${PSTORE_JUDGE:-1}" = 0 ] && exit 0
exec "$here/scripts/judge-console.sh" "${logs[@]}"
