#!/bin/sh
# First boot of `make persist`: fresh filesystems, tests/dax_persist writes
# through PMD and PUD mappings (MAP_SYNC; msync on ext2), then the guest is
# reset at once: no unmount, no sync. Output goes to /mnt/out/write.log
# (written through to the host), since the console may lose its tail.
log=/mnt/out/write.log
# default mkfs: the series places DAX file data for huge pages by itself
EXT4_MKFS_OPTS="" XFS_MKFS_OPTS="" sh /mnt/repo/guest/setup-pmem.sh mkfs > "$log" 2>&1
{
	echo "hugedax-test: begin dax_persist (write)"
	HUGEDAX_PERSIST="write" /mnt/out/bin/dax_persist
	echo "hugedax-test: end dax_persist (write) status $?"
	echo "hugedax-test: dmesg begin"
	dmesg
	echo "hugedax-test: dmesg end"
	echo "hugedax-test: done"
} >> "$log" 2>&1
# "b": reboot now, without syncing or unmounting (QEMU runs -no-reboot)
echo b > /proc/sysrq-trigger
sleep 10
