#!/bin/sh
# Guest side of `make test`: fresh filesystems on the pmem namespaces, then
# every test binary in /mnt/out/../bin, TAP on the console.
here=/mnt/repo/guest
bin=/mnt/out/bin
set -e
EXT4_MKFS_OPTS="-E stride=512" XFS_MKFS_OPTS="-d su=2m,sw=1" \
	sh "$here/setup-pmem.sh" mkfs
xfs_io -c "extsize 2m" /mnt/xfs
HUGEDAX_DEVDAX=$(cut -d' ' -f2 /mnt/devdax-path)
export HUGEDAX_DEVDAX
set +e
for t in "$bin"/*_test; do
	case "$t" in
	*/nogbpages_test)
		continue	# its own boot: guest/nogbpages-job.sh
		;;
	*/dax_smaps_test|*/fsdax_pud_test)
		# 1 GiB extents need AGs larger than 1 GiB: default mkfs.xfs
		# (4 GiB AGs on 16 GiB); the stripe recipe above makes 1 GiB AGs.
		# Each gets a fresh one, so the space after its pad file is free.
		dev=$(findmnt -n -o SOURCE /mnt/xfs)
		umount /mnt/xfs && mkfs.xfs -q -f "$dev" && mount -o dax "$dev" /mnt/xfs
		;;
	esac
	echo "hugedax-test: begin $(basename "$t")"
	"$t"
	echo "hugedax-test: end $(basename "$t") status $?"
done
echo "hugedax-test: dmesg begin"
dmesg
echo "hugedax-test: dmesg end"
echo "hugedax-test: done"
