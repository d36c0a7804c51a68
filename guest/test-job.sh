#!/bin/sh
# Guest side of `make test`: fresh filesystems on the pmem namespaces, then
# every test binary in /mnt/out/bin (or those named in ONLY, from
# /mnt/out/test.conf), the short stress set, and last the per-inode DAX
# test on ext4 and xfs remounted with -o dax=inode. TAP on the console.
here=/mnt/repo/guest
bin=/mnt/out/bin
ONLY=
# shellcheck source=/dev/null
[ -f /mnt/out/test.conf ] && . /mnt/out/test.conf
set -e
# default mkfs options everywhere: the series places DAX file data for
# huge pages by itself (no stride, stripe unit or extent size hint)
EXT4_MKFS_OPTS="" XFS_MKFS_OPTS="" sh "$here/setup-pmem.sh" mkfs
HUGEDAX_DEVDAX=$(cut -d' ' -f2 /mnt/devdax-path)
export HUGEDAX_DEVDAX
set +e
# tests that count refaults pause periodic writeback; put it back should
# one die before its teardown
writeback=$(cat /proc/sys/vm/dirty_writeback_centisecs)
wanted() {
	[ -z "$ONLY" ] && return 0
	case " $ONLY " in *" $1 "*) return 0 ;; esac
	return 1
}
for t in "$bin"/*_test; do
	name=$(basename "$t")
	case "$name" in
	nogbpages_test|dax_inode_test|pstore_dax_test|move_reset_test)
		# their own set-up: below, guest/nogbpages-job.sh,
		# guest/pstore-*-job.sh and guest/move-reset-*-job.sh
		continue
		;;
	esac
	wanted "$name" || continue
	case "$name" in
	dax_smaps_test|fsdax_pud_test|xfs_alloc_test|ext4_pud_test|bad_input_test|reflink_test|growth_test|pmdk_test|dax_align_test|dax_kmap_test)
		# Each gets a fresh xfs, so that the aligned free GiBs these
		# tests count on are free.  Not a fresh ext4: dax_smaps_test
		# keeps a file over a block it marked bad on that device, and
		# the device's bad block list outlives a mkfs.
		dev=$(findmnt -n -o SOURCE /mnt/xfs)
		umount /mnt/xfs && mkfs.xfs -q -f "$dev" && mount -o dax "$dev" /mnt/xfs
		;;
	esac
	scratch=
	if [ "$name" = layout_move_test ]; then
		# it makes its own file systems on the xfs namespace
		scratch=$(findmnt -n -o SOURCE /mnt/xfs)
		umount /mnt/xfs
	fi
	echo "hugedax-test: begin $name"
	start=$(cut -d. -f1 /proc/uptime)
	HUGEDAX_SCRATCH_DEV=$scratch "$t"
	rc=$?
	if [ -n "$scratch" ]; then
		mkfs.xfs -q -f "$scratch" && mount -o dax "$scratch" /mnt/xfs
	fi
	echo "hugedax-test: end $name status $rc after $(($(cut -d. -f1 /proc/uptime) - start)) s"
	echo "$writeback" > /proc/sys/vm/dirty_writeback_centisecs
	# its 2 GiB data file would hold two of ext4's few free aligned GiBs
	rm -f /mnt/ext4/hugedax.pud.*
done
# a short race set: processes and threads on the same files (the long one,
# with real parallelism under multi-threaded TCG, is `make race`); a new
# seed each run, printed with the counts and on any failure
if wanted race_stress; then
	echo "hugedax-test: begin race_stress"
	start=$(cut -d. -f1 /proc/uptime)
	RACE_SECONDS=20 RACE_ROUND=10 RACE_FS="ext4 xfs devdax" "$bin/race_stress"
	echo "hugedax-test: end race_stress status $? after $(($(cut -d. -f1 /proc/uptime) - start)) s"
fi
# the short, fixed stress set with data verification (guest/stress-short.sh)
wanted stress && sh "$here/stress-short.sh"
# DAX and page-cache files on one file system: remount with dax=inode
if wanted dax_inode_test; then
	for fs in ext4 xfs; do
		dev=$(findmnt -n -o SOURCE /mnt/$fs)
		umount /mnt/$fs && mount -o dax=inode "$dev" /mnt/$fs
	done
	echo "hugedax-test: begin dax_inode_test"
	"$bin/dax_inode_test"
	echo "hugedax-test: end dax_inode_test status $?"
fi
echo "hugedax-test: dmesg begin"
dmesg
echo "hugedax-test: dmesg end"
echo "hugedax-test: done"
