#!/bin/sh
# Second boot of the pstore/dax check: the filesystems as the panic left
# them, the same file registered again, pstore mounted, then
# tests/pstore_dax_test. TAP on the console.
# shellcheck source=/dev/null
. /mnt/out/pstore.conf
export PSTORE_FS PSTORE_MARKER
sh /mnt/repo/guest/setup-pmem.sh mount
mount -t pstore none /sys/fs/pstore
echo "/mnt/$PSTORE_FS/hugedax.pstore" > /sys/module/pstore_dax/parameters/file
echo "hugedax-test: begin pstore_dax_test ($PSTORE_FS)"
PSTORE_CRASH_LOG=/mnt/out/crash-console.log /mnt/out/bin/pstore_dax_test
echo "hugedax-test: end pstore_dax_test ($PSTORE_FS) status $?"
echo > /sys/module/pstore_dax/parameters/file
echo "hugedax-test: dmesg begin"
dmesg
echo "hugedax-test: dmesg end"
echo "hugedax-test: done"
