#!/bin/sh
# ext4 with default mkfs options: ext4_pud_test (PUD and PMD layout of
# DAX files), the space 1,000 files of 4 KiB take, e2fsck afterwards.
# usage: scripts/run-guest.sh BZIMAGE guest/ext4-job.sh OUTDIR, with the
# test binaries in OUTDIR/bin (tests/Makefile O=OUTDIR/bin).
here=/mnt/repo/guest
bin=/mnt/out/bin
EXT4_MKFS_OPTS="" sh "$here/setup-pmem.sh" mkfs
dev=$(findmnt -n -o SOURCE /mnt/ext4)
echo "ext4job: kernel $(uname -r) dev $dev"
dumpe2fs -h "$dev" 2>/dev/null | grep -E "^(Block count|Blocks per group|Flex block group size|Journal size|Filesystem features)"
# 1,000 files of 4 KiB
sync
b=$(df -B1 --output=used /mnt/ext4 | tail -1)
mkdir /mnt/ext4/small
i=0
while [ $i -lt 1000 ]; do
	head -c 4096 /dev/zero | tr '\0' 'a' > /mnt/ext4/small/f$i
	i=$((i + 1))
done
sync
a=$(df -B1 --output=used /mnt/ext4 | tail -1)
echo "ext4job: small files: used before $b after $a delta $((a - b)) bytes"
echo "ext4job: small files: $(du -s --block-size=1 /mnt/ext4/small | cut -f1) bytes by du"
rm -rf /mnt/ext4/small
sync
if [ "${SKIP_TESTS:-0}" = 0 ] && [ -x "$bin/ext4_pud_test" ]; then
	echo "hugedax-test: begin ext4_pud_test"
	"$bin/ext4_pud_test"
	echo "hugedax-test: end ext4_pud_test status $?"
fi
umount /mnt/ext4
e2fsck -fn "$dev" 2>&1 | tail -3
echo "hugedax-test: dmesg begin"
dmesg | grep -iE "ext4|warn|bug|oops|bad p" | tail -40
echo "hugedax-test: dmesg end"
echo "hugedax-test: done"
