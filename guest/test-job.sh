#!/bin/sh
# Guest side of `make test`: fresh filesystems on the pmem namespaces, then
# every test binary in /mnt/out/../bin, TAP on the console.
here=/mnt/repo/guest
bin=/mnt/out/bin
set -e
# default mkfs options everywhere: the series places DAX file data for
# huge pages by itself (no stride, stripe unit or extent size hint)
EXT4_MKFS_OPTS="" XFS_MKFS_OPTS="" sh "$here/setup-pmem.sh" mkfs
HUGEDAX_DEVDAX=$(cut -d' ' -f2 /mnt/devdax-path)
export HUGEDAX_DEVDAX
set +e
for t in "$bin"/*_test; do
	case "$t" in
	*/nogbpages_test)
		continue	# its own boot: guest/nogbpages-job.sh
		;;
	*/dax_smaps_test|*/fsdax_pud_test|*/xfs_alloc_test|*/ext4_pud_test)
		# Each gets a fresh xfs, so that the aligned free GiBs these
		# tests count on are free.  Not a fresh ext4: dax_smaps_test
		# keeps a file over a block it marked bad on that device, and
		# the device's bad block list outlives a mkfs.
		dev=$(findmnt -n -o SOURCE /mnt/xfs)
		umount /mnt/xfs && mkfs.xfs -q -f "$dev" && mount -o dax "$dev" /mnt/xfs
		;;
	esac
	echo "hugedax-test: begin $(basename "$t")"
	"$t"
	echo "hugedax-test: end $(basename "$t") status $?"
	# its 2 GiB data file would hold two of ext4's few free aligned GiBs
	rm -f /mnt/ext4/hugedax.pud.*
done
# the short, fixed stress set with data verification (guest/stress-short.sh)
sh "$here/stress-short.sh"
echo "hugedax-test: dmesg begin"
dmesg
echo "hugedax-test: dmesg end"
echo "hugedax-test: done"
