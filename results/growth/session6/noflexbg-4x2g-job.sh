#!/bin/sh
sh /mnt/repo/guest/setup-pmem.sh >/dev/null 2>&1
dev=$(findmnt -n -o SOURCE /mnt/ext4 2>/dev/null)
[ -n "$dev" ] && umount /mnt/ext4
[ -z "$dev" ] && dev=/dev/pmem0
mkfs.ext4 -q -F ${MKFS_OPTS:--O ^flex_bg} "$dev"
mkdir -p /mnt/g && mount -o dax "$dev" /mnt/g
t=/sys/kernel/tracing
echo 1 > $t/events/ext4/ext4_mballoc_alloc/enable
echo 1 > $t/events/ext4/ext4_mb_new_inode_pa/enable
echo 1 > $t/events/ext4/ext4_mb_release_inode_pa/enable
echo 1 > $t/events/ext4/ext4_discard_preallocations/enable
echo 65536 > $t/buffer_size_kb
mkdir -p /mnt/g/d
/mnt/out/bin/dax_alloc_probe --concurrent 4 256k 2048 /mnt/g/d
cat $t/trace > /mnt/out/trace.txt
ls -li /mnt/g/d
for f in /mnt/g/d/*; do echo "== $f"; filefrag -v "$f"; done > /mnt/out/frag.txt
sync
echo cc-done
