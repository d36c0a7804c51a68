#!/bin/sh
# Guest side of `make xfstests`: run xfstests' ./check on ext4, xfs and
# ext2 mounted with -o dax. The xfstests tree is the host's, built there
# and seen read-only through the 9p root; it is copied to /tmp (31 MB)
# because tests run programs of it as the user fsgqa, who cannot reach the
# default tree under /root (check itself runs fine from the read-only
# tree). Results go to /mnt/out/results/FS (RESULT_BASE), check's output
# also to the console.
# TEST_DEV is the "ext4" namespace and SCRATCH_DEV the "xfs" one (16 GiB
# each), whatever the file system; TEST_DEV gets a default mkfs here,
# xfstests makes the scratch file systems itself.
# /mnt/out/xfstests.conf (from scripts/run-xfstests.sh) sets XFSTESTS (the
# tree), FSTYPES, TESTS (check's arguments), QUICK and QUICK_BUDGET.
XFSTESTS='' FSTYPES='' TESTS='' QUICK=0 QUICK_BUDGET=1800
# shellcheck source=/dev/null
. /mnt/out/xfstests.conf
sh /mnt/repo/guest/setup-pmem.sh > /tmp/pmem.txt || exit 1
cat /tmp/pmem.txt
test_dev=$(awk '$2 == "ext4" { print $3 }' /tmp/pmem.txt)
scratch_dev=$(awk '$2 == "xfs" { print $3 }' /tmp/pmem.txt)
echo "xfstests: $(cat /proc/version)"
echo "xfstests: TEST_DEV=$test_dev SCRATCH_DEV=$scratch_dev"
mkdir -p /mnt/test /mnt/scratch /tmp/xfstests
tar -C "$XFSTESTS" --exclude=./.git -cf - . | tar -C /tmp/xfstests -xf - || exit 1
chmod 755 /tmp/xfstests

# check RUN FS COMMAND...: one ./check run, results in /mnt/out/results/RUN
check() {
	run=$1 fstyp=$2
	shift 2
	res=/mnt/out/results/$run
	mkdir -p "$res"
	cat > "/tmp/$run.config" <<-EOF
	export FSTYP=$fstyp
	export TEST_DEV=$test_dev TEST_DIR=/mnt/test
	export SCRATCH_DEV=$scratch_dev SCRATCH_MNT=/mnt/scratch
	export MOUNT_OPTIONS="-o dax" TEST_FS_MOUNT_OPTS="-o dax"
	export RESULT_BASE=$res
	EOF
	echo "xfstests: begin $run: $*"
	start=$(cut -d. -f1 /proc/uptime)
	# the exit status of the pipe is tee's
	(cd /tmp/xfstests && HOST_OPTIONS=/tmp/$run.config "$@" 2>&1) | tee "$res/check.out"
	echo "xfstests: end $run after $(($(cut -d. -f1 /proc/uptime) - start)) s"
	umount /mnt/test /mnt/scratch 2>/dev/null
}

for fs in $FSTYPES; do
	case "$fs" in
	xfs) mkfs.xfs -q -f "$test_dev" ;;
	*) "mkfs.$fs" -q -F "$test_dev" ;;
	esac
	# shellcheck disable=SC2086
	check "$fs" "$fs" ./check $TESTS
	[ "$QUICK" = 1 ] || continue
	# -g quick less what ran above, until the budget is spent (check
	# still writes its summary to check.log when timeout stops it)
	for t in $TESTS; do echo "$t"; done | grep / > /tmp/exclude
	check "$fs-quick" "$fs" timeout "$QUICK_BUDGET" ./check -g quick -x dax -E /tmp/exclude
done
echo "hugedax-xfstests: done"
