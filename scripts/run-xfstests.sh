#!/bin/bash
# Host side of `make xfstests`: build xfstests outside this repository
# (scripts/xfstests-prepare.sh), boot the stock and the patched kernel once
# each with guest/xfstests-job.sh (ext4, xfs and ext2 with -o dax), then
# write OUTDIR/summary.txt: per file system and kernel the tests that
# passed, failed and did not run, a REGRESSION line for each test that
# passes on stock and fails patched, and kernel warnings on the consoles.
# usage: run-xfstests.sh PATCHED_BZIMAGE STOCK_BZIMAGE OUTDIR
# environment:
#   XFSTESTS      the xfstests checkout (default $HUGEDAX_CACHE/xfstests,
#                 cloned if missing)
#   QUICK=1       also -g quick, for at most QUICK_BUDGET s (default 1800)
#                 per file system
#   FSTYPES       default "ext4 xfs ext2"; KERNELS default "stock patched"
#                 (the summary also takes a kernel's results that an
#                 earlier run left in OUTDIR)
#   XFSTESTS_ARGS ./check's arguments instead of the default list below
#   PMEMDIR       pmem backing files (default $HUGEDAX_CACHE/pmem-xfstests,
#                 so that `make test` guests need not wait for these boots)
#   TIMEOUT       seconds per boot (default 4 h, plus the QUICK budgets)
# Exits non-zero on a regression, a guest that did not finish, or a kernel
# warning on the patched kernel's console.
set -euo pipefail
patched=$1 stock=$2 outdir=$3
here=$(cd "$(dirname "$0")/.." && pwd)
cache=${HUGEDAX_CACHE:-$HOME/.cache/hugedax}
xfstests=${XFSTESTS:-$cache/xfstests}
fstypes=${FSTYPES:-ext4 xfs ext2} kernels=${KERNELS:-stock patched}
quick=${QUICK:-0} budget=${QUICK_BUDGET:-1800}
tests=${XFSTESTS_ARGS:-"-g dax generic/029 generic/030 generic/080 generic/127 generic/344 generic/346 generic/469"}
export PMEMDIR=${PMEMDIR:-$cache/pmem-xfstests}
nfs=$(wc -w <<< "$fstypes")
export TIMEOUT=${TIMEOUT:-$((14400 + (quick == 1 ? nfs * budget : 0)))}

mkdir -p "$outdir"
"$here/scripts/xfstests-prepare.sh" "$xfstests" | tee "$outdir/prepare.log"
xfstests=$(realpath "$xfstests")
case "$xfstests/" in
/tmp/*|/run/*|/mnt/*|/var/tmp/*|/dev/*|/proc/*|/sys/*)
	echo "xfstests: the guest mounts its own $xfstests; put the checkout elsewhere" >&2
	exit 1 ;;
esac

for kernel in $kernels; do
	image=$patched
	[ "$kernel" = stock ] && image=$stock
	dir=$outdir/$kernel
	rm -rf "${dir:?}"
	mkdir -p "$dir"
	# boot a copy: a rebuild during the run must not change what we report
	cp "$image" "$dir/bzImage"
	cat > "$dir/xfstests.conf" <<-EOF
	XFSTESTS='$xfstests'
	FSTYPES='$fstypes'
	TESTS='$tests'
	QUICK='$quick'
	QUICK_BUDGET='$budget'
	EOF
	echo "xfstests: booting the $kernel kernel ($image), console in $dir/console.log"
	start=$(date +%s)
	"$here/scripts/run-guest.sh" "$dir/bzImage" "$here/guest/xfstests-job.sh" "$dir" >/dev/null || true
	echo "$(($(date +%s) - start))" > "$dir/seconds"
	tr -d '\r' < "$dir/console.log" > "$dir/console.txt"
	grep '^xfstests: end ' "$dir/console.txt" || true
done

# the summary covers both kernels if OUTDIR has both, from this run or an
# earlier one (KERNELS=patched after KERNELS=stock, say)
kernels=$(for k in stock patched; do [ ! -f "$outdir/$k/console.txt" ] || echo "$k"; done | paste -sd' ')
# words of the check summary line "PREFIX: a b c" in FILE, one a line
words() { sed -n "s|^$1: ||p" "$2" | tr ' ' '\n' | grep . | sort -u || true; }
trouble=0
{
	echo "make xfstests, $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "xfstests: $(tail -n1 "$outdir/prepare.log" | sed 's/^xfstests: //')"
	echo "each file system: ./check $tests"
	[ "$quick" = 1 ] && echo "then: timeout $budget ./check -g quick -x dax -E <the tests named above>"
	echo "TEST_DEV and SCRATCH_DEV: two 16 GiB fsdax namespaces; default mkfs;" \
		"MOUNT_OPTIONS and TEST_FS_MOUNT_OPTS -o dax"
	for kernel in $kernels; do
		dir=$outdir/$kernel
		echo "$kernel kernel: $(sed -n 's/^xfstests: Linux version /Linux version /p' "$dir/console.txt" | head -n1)"
		echo "  bzImage sha256 $(sha256sum < "$dir/bzImage" | cut -c1-16), boot took $(cat "$dir/seconds") s," \
			"ended $(date -u -r "$dir/console.txt" '+%Y-%m-%d %H:%M UTC')"
		grep -q '^hugedax-xfstests: done' "$dir/console.txt" ||
			{ echo "  TROUBLE: the guest did not finish (see $dir/console.log)"; trouble=1; }
		if grep -q -E 'WARNING: CPU|BUG:|Oops|bad pud|bad pmd' "$dir/console.txt"; then
			echo "  kernel log: $(grep -c -E 'WARNING: CPU|BUG:|Oops|bad pud|bad pmd' "$dir/console.txt") lines with a warning:"
			grep -n -E 'WARNING: CPU|BUG:|Oops|bad pud|bad pmd' "$dir/console.txt" | head -n 20 | sed 's/^/    /'
			# the stock kernel's warnings are not ours to fix
			[ "$kernel" = stock ] || { echo "  TROUBLE: a warning on the $kernel kernel"; trouble=1; }
		else
			echo "  kernel log: no WARNING, BUG, Oops, bad pud, bad pmd"
		fi
	done
	for fs in $fstypes; do
		runs=$fs
		[ "$quick" = 1 ] && runs+=" $fs-quick"
		for run in $runs; do
			echo
			for kernel in $kernels; do
				# check.log, not check.out: check writes its summary there
				# even when the QUICK budget's timeout ends it
				log=$outdir/$kernel/results/$run/check.log
				[ -f "$log" ] || log=/dev/null
				l=$outdir/$kernel/$run
				words Ran "$log" > "$l.ran"
				words Failures "$log" > "$l.fail"
				words 'Not run' "$log" > "$l.notrun"
				# the test running when the timeout hit is the last one Ran
				: > "$l.stopped"
				grep -q '^Interrupted!' "$log" &&
					sed -n 's/^Ran: .* //p' "$log" | tail -n1 > "$l.stopped"
				# "Ran" includes the tests that did not run
				sort -u "$l.fail" "$l.notrun" "$l.stopped" | comm -23 "$l.ran" - > "$l.pass"
				secs=$(sed -n "s|^xfstests: end $run after \([0-9]*\) s|\1|p" "$outdir/$kernel/console.txt")
				echo "$run $kernel: $(wc -l < "$l.pass") passed, $(wc -l < "$l.fail") failed," \
					"$(wc -l < "$l.notrun") not run, ${secs:-?} s"
				grep -q -e '^Passed all' -e '^Failed [0-9]* of' "$log" || {
					echo "  INCOMPLETE: no summary from ./check"
					case "$kernel-$run" in patched-*-quick) ;; patched-*) trouble=1 ;; esac
				}
				for r in pass fail notrun stopped; do
					[ "$r" = stopped ] && [ ! -s "$l.stopped" ] && continue
					echo "  $r: $(paste -sd" " "$l.$r")"
				done
			done
			[ "$kernels" = "stock patched" ] || continue
			for t in $(comm -12 "$outdir/stock/$run.pass" "$outdir/patched/$run.fail"); do
				echo "REGRESSION: $run $t passes on stock, fails on patched"
				trouble=1
			done
			for t in $(comm -12 "$outdir/stock/$run.pass" "$outdir/patched/$run.notrun"); do
				echo "note: $run $t passes on stock, not run on patched"
			done
		done
	done
	echo
	echo "why tests did not run (quick runs: see KERNEL/notrun-reasons.txt):"
	for kernel in $kernels; do
		# xfstests writes the reason to RESULT_BASE/TEST.notrun
		(cd "$outdir/$kernel/results" 2>/dev/null &&
		 find . -name '*.notrun' | sort | while read -r f; do
			echo "${f#./}: $(cat "$f")"
		 done) > "$outdir/$kernel/notrun-reasons.txt" || true
		grep -v -e '-quick/' "$outdir/$kernel/notrun-reasons.txt" | sed "s/^/  $kernel /" || true
	done
} > "$outdir/summary.txt"
cat "$outdir/summary.txt"
exit "$trouble"
