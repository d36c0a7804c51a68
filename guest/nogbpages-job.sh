#!/bin/sh
# Guest side of the second boot of `make test`, on a CPU without 1 GiB
# pages (-cpu max,pdpe1gb=off): device-dax at 1 GiB must fail with SIGBUS.
sh /mnt/repo/guest/setup-pmem.sh > /dev/null
HUGEDAX_DEVDAX=$(sh /mnt/repo/guest/setup-pmem.sh | sed -n 's/^pmem: devdax \([^ ]*\) .*/\1/p')
export HUGEDAX_DEVDAX
echo "hugedax-test: begin nogbpages_test"
/mnt/out/bin/nogbpages_test
echo "hugedax-test: end nogbpages_test status $?"
echo "hugedax-test: dmesg begin"
dmesg
echo "hugedax-test: dmesg end"
echo "hugedax-test: done"
