#!/bin/sh
# First boot of `make move-reset`: a fresh ext4 and xfs; tests/move_reset_test
# grows a file past 64 MiB (on xfs with HUGEDAX_MOVE_KIND=head-xfs, on xfs
# without reflink with head-xfs-noreflink, on ext4 without a journal with
# head-nojournal; or,
# with HUGEDAX_MOVE_KIND=collapse or collapse-xfs, runs
# daxpages --collapse on a file) and resets the guest (sysrq b) during
# that, with the seed and kind in /mnt/out/move-reset.conf.
# shellcheck disable=SC1091 # written by run-move-reset.sh
. /mnt/out/move-reset.conf
ext4_opts="" xfs_opts=""
[ "$HUGEDAX_MOVE_KIND" = head-nojournal ] && ext4_opts="-O ^has_journal"
[ "$HUGEDAX_MOVE_KIND" = head-xfs-noreflink ] && xfs_opts="-m reflink=0"
EXT4_MKFS_OPTS=$ext4_opts XFS_MKFS_OPTS=$xfs_opts sh /mnt/repo/guest/setup-pmem.sh mkfs >/dev/null
echo "hugedax-test: begin move_reset_test (write)"
HUGEDAX_MOVE_RESET=write HUGEDAX_MOVE_SEED=$HUGEDAX_MOVE_SEED \
	HUGEDAX_MOVE_KIND=$HUGEDAX_MOVE_KIND \
	/mnt/out/bin/move_reset_test
echo "hugedax-test: end move_reset_test (write) status $? (the reset did not come)"
echo b > /proc/sysrq-trigger
