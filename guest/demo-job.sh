#!/bin/sh
# Guest side of `make demo`: default mkfs on each filesystem, one 1 GiB file
# per filesystem (fallocated, and filled with pwrite), each mapped at a
# 1 GiB-aligned address and written one word per 4 KiB; plus device-dax.
here=/mnt/repo/guest
bin=/mnt/out/bin
sh "$here/setup-pmem.sh" mkfs >/dev/null || { echo "demo: pmem setup failed"; exit 1; }
devdax=$(cut -d' ' -f2 /mnt/devdax-path)
uname -r > /mnt/out/kernel-release
{
	"$bin/dax_demo" --header
	for fs in ext2 ext4 xfs; do
		fills="fallocate pwrite"
		[ "$fs" = ext2 ] && fills=pwrite	# ext2 has no fallocate
		# 1 GiB extents: only xfs so far (ext4 extents hold 128 MiB)
		[ "$fs" = xfs ] && fills="$fills padded+pwrite"
		for fill in $fills; do
			"$bin/dax_demo" "$fs" "$fill" "/mnt/$fs/demo-$fill"
			rm -f "/mnt/$fs/demo-$fill" "/mnt/$fs/demo-$fill.pad"
		done
	done
	"$bin/dax_demo" device-dax - "$devdax"
} > /mnt/out/demo.tsv
echo "hugedax-demo: done"
