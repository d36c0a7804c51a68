#!/bin/sh
# Guest side of `make optout`: does dax_align=off give stock placement and
# page sizes? On each of ext4, xfs and ext2, a fresh file system on the
# 16 GiB namespace gets the same files, made one after another on CPU 0
# (ext4 keeps small-file preallocations per CPU) and none removed (freed
# blocks return to ext4 only once the journal commits, at a time of its
# own): 200 small files in the root directory, then files written by
# appends of 64 KiB and 1 MiB, pwrite of 2 MiB pieces, fallocate, and
# write faults into a sized file (tests/dax_alloc_probe, each mapped 1 GiB
# or 2 MiB aligned and read, or for the last written, one word per 4 KiB).
# Then the physical extents of every file.
# On the patched kernel three times: MODE "default", "mount" (mount option
# dax_align=off) and "sysfs" (transparent_hugepage/dax_align=off); on a
# kernel without the setting once, MODE "stock".
# Rows: "optout-row: MODE FS <dax_alloc_probe row>",
#       "optout-extents: MODE FS FILE phys:len,phys:len,..." (4 KiB blocks)
bin=/mnt/out/bin
# ext2 starts a file at a colour of its group picked by the writer's pid
export HUGEDAX_PID_COLOUR=5
here=/mnt/repo/guest
knob=/sys/kernel/mm/transparent_hugepage/dax_align
set -e
sh "$here/setup-pmem.sh" >/dev/null
set +e
dev=$(ndctl list -N | jq -r 'if type == "array" then .[] else . end | select(.name == "ext4") | .blockdev')
dev=/dev/$dev
d=/mnt/optout
mkdir -p $d
echo "optout: kernel $(uname -r) device $dev"

# the same UUID and directory hash seed in every mkfs: ext4 and ext2 pick
# groups by them; and no directories (the Orlov allocator spreads new
# top-level directories at random)
uuid=4f1a2b3c-5d6e-4f70-8192-a3b4c5d6e7f8
modes=stock
[ -f $knob ] && modes="default mount sysfs"

# physical extents of FILE as "start:len,..." in 4 KiB blocks
extents() {
	filefrag -e -b4096 "$1" | awk -F'[ :.]+' '
		/^ *[0-9]+: / { printf "%s%s:%s", sep, $5, $7; sep = "," }
		END { print "" }'
}

for mode in $modes; do
	for fs in ext4 xfs ext2; do
		umount $d 2>/dev/null
		opts=dax
		[ "$mode" = mount ] && opts=dax,dax_align=off
		[ -f $knob ] && echo pud > $knob
		[ "$mode" = sysfs ] && echo off > $knob
		case $fs in
		ext4) mkfs.ext4 -q -F -U $uuid -E hash_seed=$uuid "$dev" && mount -o $opts "$dev" $d ;;
		xfs) mkfs.xfs -q -f -m uuid=$uuid "$dev" && mount -o $opts "$dev" $d ;;
		ext2) mkfs.ext2 -q -F -U $uuid -E hash_seed=$uuid "$dev" && mount -t ext2 -o $opts "$dev" $d ;;
		esac || { echo "optout: $mode $fs: mkfs or mount failed"; continue; }
		grep " $d " /proc/mounts | sed "s/^/optout: $mode $fs mount: /"
		taskset -c 0 "$bin/dax_alloc_probe" --small 200 $d |
			sed "s/^/optout-row: $mode $fs /"
		for f in append64k:256:read append1m:1024:read \
			pwrite2m:512:read fallocate:1024:read fault:1024:write; do
			fill=${f%%:*} access=${f##*:} mib=${f#*:}
			taskset -c 0 "$bin/dax_alloc_probe" "$fill" "${mib%:*}" \
				"$d/$fill" "$access" | sed "s/^/optout-row: $mode $fs /"
		done
		for f in $d/f0 $d/f199 $d/append64k $d/append1m \
			$d/pwrite2m $d/fallocate $d/fault; do
			echo "optout-extents: $mode $fs ${f#"$d"/} $(extents "$f")"
		done
		umount $d
	done
done
[ -f $knob ] && echo pud > $knob
echo "hugedax-optout: done"
