#!/bin/sh
# Guest side of `make irqsoff DEBUG=1`: the longest interrupts-off stretch
# while DAX inserts and invalidates PMD and PUD entries (tests/dax_irqsoff.c),
# on fresh default-mkfs ext4 and xfs.  Needs CONFIG_IRQSOFF_TRACER.
EXT4_MKFS_OPTS="" XFS_MKFS_OPTS="" sh /mnt/repo/guest/setup-pmem.sh mkfs > /dev/null
for fs in ext4 xfs; do
	echo "hugedax-irqsoff: $fs"
	/mnt/out/bin/dax_irqsoff /mnt/$fs
	echo "hugedax-irqsoff: $fs status $?"
done
echo "hugedax-test: dmesg begin"
dmesg
echo "hugedax-test: dmesg end"
echo "hugedax-test: done"
