#!/bin/sh
# Guest side of `make demo`: default mkfs on each filesystem, one 1 GiB file
# per filesystem and way of filling it, each mapped at a
# 1 GiB-aligned address and written one word per 4 KiB; plus device-dax.
here=/mnt/repo/guest
bin=/mnt/out/bin
sh "$here/setup-pmem.sh" mkfs >/dev/null || { echo "demo: pmem setup failed"; exit 1; }
devdax=$(cut -d' ' -f2 /mnt/devdax-path)
uname -r > /mnt/out/kernel-release
{
	"$bin/dax_demo" --header
	for fs in ext2 ext4 xfs; do
		# fallocate: one call for 1 GiB; sized+pwrite: ftruncate to
		# 1 GiB, then pwrite; pwrite: into a growing file
		fills="fallocate sized+pwrite pwrite"
		[ "$fs" = ext2 ] && fills=pwrite	# ext2 has no fallocate
		for fill in $fills; do
			"$bin/dax_demo" "$fs" "$fill" "/mnt/$fs/demo-$fill"
			rm -f "/mnt/$fs/demo-$fill" "/mnt/$fs/demo-$fill.pad"
		done
	done
	"$bin/dax_demo" device-dax - "$devdax"
} > /mnt/out/demo.tsv
echo "hugedax-demo: done"
