#!/bin/sh
# Guest side of `make stress`: fresh filesystems (default mkfs: the series
# places DAX file data for huge pages by itself), then guest/stress-run.sh
# with the settings scripts/run-stress.sh wrote to /mnt/out/stress.conf.
# shellcheck source=/dev/null
[ -f /mnt/out/stress.conf ] && . /mnt/out/stress.conf
export SEEDS OPS CHECKS FS
EXT4_MKFS_OPTS="" XFS_MKFS_OPTS="" sh /mnt/repo/guest/setup-pmem.sh mkfs
sh /mnt/repo/guest/stress-run.sh
echo "hugedax-test: dmesg begin"
dmesg
echo "hugedax-test: dmesg end"
echo "hugedax-test: done"
