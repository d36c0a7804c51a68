#!/bin/sh
# `make shell`: the pmem namespaces set up, filesystems left alone, a shell.
sh /mnt/repo/guest/setup-pmem.sh || true
echo "hugedax-guest: namespaces ready; make filesystems with: sh /mnt/repo/guest/setup-pmem.sh mkfs"
setsid sh -c 'exec sh </dev/ttyS0 >/dev/ttyS0 2>&1'
