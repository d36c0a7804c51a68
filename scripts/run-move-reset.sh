#!/bin/bash
# Host side of `make move-reset`: for each seed, boot once to grow a DAX
# file on ext4 past 64 MiB, which moves its head (KIND=head-xfs: on xfs;
# head-xfs-noreflink: on xfs without reflink; head-nojournal: on ext4
# made without a journal;
# KIND=collapse: to run daxpages --collapse on an ext4 file that maps at
# 4 KiB; collapse-xfs: on an xfs one), and reset the guest a
# seed-chosen delay into that (guest/move-reset-write-job.sh), then
# boot again on the same pmem backing files to check the data and e2fsck
# the file system (guest/move-reset-verify-job.sh); then judge both boots.
# usage: run-move-reset.sh KERNEL OUTDIR
# environment: SEEDS (default "1 2 3 4 5 6"); KIND (head, head-xfs,
# head-xfs-noreflink, head-nojournal, collapse or collapse-xfs, default
# head);
# MOVE_RESET_JUDGE=0 leaves
# the judging to the caller (scripts/run-tests.sh)
set -euo pipefail
kernel=$1 outdir=$2
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$outdir"
bin=$(cd "$outdir/.." && pwd)/bin
logs=()
for seed in ${SEEDS:-1 2 3 4 5 6}; do
	for phase in write verify; do
		dir=$outdir/$seed-$phase
		mkdir -p "$dir"
		rm -f "$dir"/console.log* "$dir"/move-reset.txt
		rm -rf "${dir:?}/bin" && cp -r "$bin" "$dir/bin"
		printf 'HUGEDAX_MOVE_SEED=%s\nHUGEDAX_MOVE_KIND=%s\n' "$seed" \
			"${KIND:-head}" > "$dir/move-reset.conf"
	done
	"$here/scripts/run-guest.sh" "$kernel" "$here/guest/move-reset-write-job.sh" \
		"$outdir/$seed-write" >/dev/null || true
	# the seed the first boot wrote with, and what it printed
	cp "$outdir/$seed-write/move-reset.txt" "$outdir/$seed-verify/" 2>/dev/null || true
	tr -d '\r' < "$outdir/$seed-write/console.log" |
		grep -a 'seed .*reset' || true
	"$here/scripts/run-guest.sh" "$kernel" "$here/guest/move-reset-verify-job.sh" \
		"$outdir/$seed-verify" >/dev/null || true
	tr -d '\r' < "$outdir/$seed-verify/console.log" |
		grep -a -E 'seed .*(head at|ranges aligned)|appended part|ok 10[01]' || true
	logs+=("$outdir/$seed-verify/console.log")
done
[ "${MOVE_RESET_JUDGE:-1}" = 0 ] && exit 0
exec "$here/scripts/judge-console.sh" "${logs[@]}"
