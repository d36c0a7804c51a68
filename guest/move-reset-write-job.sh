#!/bin/sh
# First boot of `make move-reset`: a fresh ext4 and xfs; tests/move_reset_test
# grows a file past 64 MiB (on xfs with HUGEDAX_MOVE_KIND=head-xfs; or,
# with HUGEDAX_MOVE_KIND=collapse or collapse-xfs, runs
# daxpages --collapse on a file) and resets the guest (sysrq b) during
# that, with the seed and kind in /mnt/out/move-reset.conf.
# shellcheck disable=SC1091 # written by run-move-reset.sh
. /mnt/out/move-reset.conf
EXT4_MKFS_OPTS="" XFS_MKFS_OPTS="" sh /mnt/repo/guest/setup-pmem.sh mkfs >/dev/null
echo "hugedax-test: begin move_reset_test (write)"
HUGEDAX_MOVE_RESET=write HUGEDAX_MOVE_SEED=$HUGEDAX_MOVE_SEED \
	HUGEDAX_MOVE_KIND=$HUGEDAX_MOVE_KIND \
	/mnt/out/bin/move_reset_test
echo "hugedax-test: end move_reset_test (write) status $? (the reset did not come)"
echo b > /proc/sysrq-trigger
