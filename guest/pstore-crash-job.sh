#!/bin/sh
# First boot of the pstore/dax check (scripts/run-pstore.sh): fresh
# filesystems, a 1 MiB record file and a neighbour on ext4 and xfs, the one
# on $PSTORE_FS registered with pstore/dax, a marker in the kernel log, and
# a panic. The second boot (guest/pstore-verify-job.sh) looks for it.
# shellcheck source=/dev/null
. /mnt/out/pstore.conf
export PSTORE_MARKER
EXT4_MKFS_OPTS="" XFS_MKFS_OPTS="" sh /mnt/repo/guest/setup-pmem.sh mkfs
/mnt/out/bin/pstore_dax_test prepare || exit 1
# as at boot under systemd: pstore/zone reads the file's old records, and
# only then writes anything but a panic record to it
mount -t pstore none /sys/fs/pstore
echo "/mnt/$PSTORE_FS/hugedax.pstore" > /sys/module/pstore_dax/parameters/file || exit 1
echo "hugedax-pstore: marker $PSTORE_MARKER" > /dev/kmsg
echo "hugedax-test: crashing"
# panic=-1 reboots at once, and QEMU runs with -no-reboot: the guest ends
echo c > /proc/sysrq-trigger
