#!/bin/bash
# Host side of `make test`: boot the guest with guest/test-job.sh, and once
# more on a CPU without 1 GiB pages with guest/nogbpages-job.sh, then judge
# the consoles: TAP results of every test binary, plus the kernel log.
# usage: run-tests.sh KERNEL OUTDIR
# environment: ONLY, a list of test binaries to run (default all; "stress"
# names the short stress set; the nogbpages boot runs only for
# nogbpages_test, the pstore/dax boots only for pstore_dax_test, the
# move-reset and collapse-reset boots only for move_reset_test),
# e.g. for DEBUG=1 or a quick edit-build-test loop; TIMEOUT for the main
# boot (default 3600 s)
# Ends with "N passed, N failed" and exits non-zero if a test failed, the
# guest did not finish, or the kernel warned.
set -euo pipefail
kernel=$1 outdir=$2
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$outdir"
bin=$(cd "$outdir/.." && pwd)/bin
rm -f "$outdir/console.log"
rm -rf "${outdir:?}/bin" && cp -r "$bin" "$outdir/bin"
# ONLY="name ...": just these test binaries ("stress": the short stress set)
printf 'ONLY="%s"\n' "${ONLY:-}" > "$outdir/test.conf"
# the main boot takes 15-20 minutes on a quiet 2-core machine; leave room
# for a busy one (run-guest.sh's own default is 30 minutes)
TIMEOUT=${TIMEOUT:-3600} \
	"$here/scripts/run-guest.sh" "$kernel" "$here/guest/test-job.sh" "$outdir" >/dev/null || true
logs=("$outdir/console.log")
# ONLY="name ...": the extra boots run only for the tests they serve
wanted() { case " ${ONLY:-$1} " in *" $1 "*) return 0 ;; esac; return 1; }
# a second, short boot on a CPU without 1 GiB pages
if wanted nogbpages_test; then
	mkdir -p "$outdir/nogbpages"
	rm -rf "${outdir:?}/nogbpages/bin" && cp -r "$bin" "$outdir/nogbpages/bin"
	CPU=max,pdpe1gb=off "$here/scripts/run-guest.sh" "$kernel" \
		"$here/guest/nogbpages-job.sh" "$outdir/nogbpages" >/dev/null || true
	logs+=("$outdir/nogbpages/console.log")
fi
# pstore/dax: a panic on ext4 and on xfs, each read back in a second boot
if wanted pstore_dax_test; then
	mkdir -p "$outdir/pstore"
	rm -rf "${outdir:?}/pstore/bin" && cp -r "$bin" "$outdir/pstore/bin"
	PSTORE_JUDGE=0 "$here/scripts/run-pstore.sh" "$kernel" "$outdir/pstore"
	logs+=("$outdir/pstore/ext4-verify/console.log" "$outdir/pstore/xfs-verify/console.log")
fi
# a reset while ext4 moves the head of a growing file, two seeds
if wanted move_reset_test; then
	# each seed is a directory: none left from an earlier, interrupted run
	rm -rf "${outdir:?}/move-reset" && mkdir -p "$outdir/move-reset"
	cp -r "$bin" "$outdir/move-reset/bin"
	SEEDS="$((RANDOM + 1)) $((RANDOM + 1))" MOVE_RESET_JUDGE=0 \
		"$here/scripts/run-move-reset.sh" "$kernel" "$outdir/move-reset"
	logs+=("$outdir"/move-reset/*-verify/console.log)
	# one seed while xfs moves a head, with and without reflink, one while
	# ext4 without a journal does, and while daxpages --collapse moves a
	# file, a seed on ext4 and on xfs
	for kind in head-xfs head-xfs-noreflink head-nojournal collapse collapse-xfs; do
		rm -rf "${outdir:?}/$kind-reset" && mkdir -p "$outdir/$kind-reset"
		cp -r "$bin" "$outdir/$kind-reset/bin"
		KIND=$kind SEEDS="$((RANDOM + 1))" MOVE_RESET_JUDGE=0 \
			"$here/scripts/run-move-reset.sh" "$kernel" "$outdir/$kind-reset"
		logs+=("$outdir/$kind-reset"/*-verify/console.log)
	done
fi
exec "$here/scripts/judge-console.sh" "${logs[@]}"
