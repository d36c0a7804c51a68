#!/bin/sh
# Second boot of `make persist`: the filesystems as the reset left them
# (e2fsck for ext2, log replay for ext4 and xfs), every byte checked.
sh /mnt/repo/guest/setup-pmem.sh mount
echo "hugedax-test: begin dax_persist (verify)"
HUGEDAX_PERSIST="verify" /mnt/out/bin/dax_persist
echo "hugedax-test: end dax_persist (verify) status $?"
echo "hugedax-test: dmesg begin"
dmesg
echo "hugedax-test: dmesg end"
echo "hugedax-test: done"
