#!/bin/sh
# Guest job for the observability work (issue 5): dax_smaps_test, then the
# daxpages tool on commands and on a running process.  xfs gets default
# mkfs (4 GiB allocation groups: 1 GiB extents possible).
# Host side: scripts/run-guest.sh KERNEL guest/obs-job.sh OUTDIR, with the
# binaries (dax_smaps_test, daxpages, dax_demo) in OUTDIR/bin.
here=/mnt/repo/guest
bin=/mnt/out/bin
set -e
EXT4_MKFS_OPTS="" XFS_MKFS_OPTS="" sh "$here/setup-pmem.sh" mkfs
HUGEDAX_DEVDAX=$(cut -d' ' -f2 /mnt/devdax-path)
export HUGEDAX_DEVDAX
set +e
echo "hugedax-test: begin dax_smaps_test"
"$bin/dax_smaps_test"
echo "hugedax-test: end dax_smaps_test status $?"

# touch.py PATH MIB [SECONDS]: map PATH, write a byte per 4 KiB, stay
# mapped for SECONDS, exit without unmapping
printf '%s\n' 'import mmap, os, sys, time' \
	'fd = os.open(sys.argv[1], os.O_RDWR)' \
	'n = int(sys.argv[2]) << 20' \
	'm = mmap.mmap(fd, n)' \
	'for i in range(0, n, 4096):' \
	'    m[i] = 1' \
	'print("ready", flush=True)' \
	'time.sleep(int(sys.argv[3]) if len(sys.argv) > 3 else 0)' \
	'os._exit(0)' > /tmp/touch.py
echo "obs: daxpages -t -- CMD on xfs (1 GiB-aligned file), ext4, device-dax"
"$bin/dax_demo" xfs sized+pwrite /mnt/xfs/demo
"$bin/daxpages" -t -- python3 /tmp/touch.py /mnt/xfs/demo 1024
echo "obs: exit $?"
"$bin/daxpages" -t -- "$bin/dax_demo" ext4 fallocate /mnt/ext4/demo
echo "obs: exit $?"
"$bin/daxpages" -t -- python3 /tmp/touch.py /mnt/ext4/demo 1024
echo "obs: exit $?"
"$bin/daxpages" -- python3 /tmp/touch.py "$HUGEDAX_DEVDAX" 1024
echo "obs: exit $?"
echo "obs: daxpages PID, a process holding 16 MiB of /mnt/ext2/held"
"$bin/dax_demo" ext2 pwrite /mnt/ext2/held > /dev/null
python3 /tmp/touch.py /mnt/ext2/held 16 60 > /tmp/held.out &
held=$!
while ! grep -q ready /tmp/held.out 2>/dev/null; do sleep 1; done
"$bin/daxpages" "$held"
echo "obs: exit $?"
kill "$held"
echo "obs: failure modes"
"$bin/daxpages" -- /nonexistent
echo "obs: exit $? (want 127)"
"$bin/daxpages" 999999
echo "obs: exit $? (want 1)"
echo "hugedax-test: dmesg begin"
dmesg
echo "hugedax-test: dmesg end"
echo "hugedax-test: done"
