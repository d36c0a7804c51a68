#!/bin/sh
# Guest side of `make growth`: the page sizes DAX files get by how they were
# written, on each mkfs layout. Per layout, a fresh file system on the
# 16 GiB namespace; first the space 1,000 files of 4 KiB take, then files
# of 1 GiB and 2 GiB made by appends of 4 KiB, 64 KiB, 1 MiB and 4 MiB
# (and of 64 KiB with an open and close around each), by
# cp(1), by 4 processes appending 256 KiB at a time each to its own file,
# by fallocate and by write faults into a sized file
# (tests/dax_alloc_probe), each mapped 1 GiB aligned and read one word
# per 4 KiB (written, for the fault fill); then PMDK pools of 1, 2 and
# 4 GiB (tests/pmdk_probe, if built). Each file is removed after its row.
# Rows: "growth-row: LAYOUT <dax_alloc_probe row>", "growth-pmdk: ...".
# GROWTH_LAYOUTS in /mnt/out/growth.conf picks layouts by name (default:
# all below), GROWTH_PARTS the parts: small, files, pmdk (default: all).
bin=/mnt/out/bin
here=/mnt/repo/guest
# shellcheck disable=SC1091 # written by run-growth.sh
[ -f /mnt/out/growth.conf ] && . /mnt/out/growth.conf
# GROWTH_LAYOUTS=matrix: every layout below
all="ext4 ext4-noflexbg ext4-packed ext4-nojournal ext4-flexbg4 ext4-flexbg64
ext4-inode4k ext4-largefile xfs xfs-su2m xfs-ag2 xfs-ag64 xfs-rmapbt
xfs-noreflink"
layouts=${GROWTH_LAYOUTS:-ext4 ext4-noflexbg ext4-packed xfs xfs-su2m}
[ "$layouts" = matrix ] && layouts=$all
parts=" ${GROWTH_PARTS:-small files pmdk} "
set -e
sh "$here/setup-pmem.sh" >/dev/null
set +e
dev=$(ndctl list -N | jq -r 'if type == "array" then .[] else . end | select(.name == "ext4") | .blockdev')
dev=/dev/$dev
mkdir -p /mnt/growth
echo "growth: kernel $(uname -r) device $dev"

mkfs_layout() {
	case $1 in
	ext4) mkfs.ext4 -q -F "$dev" ;;
	ext4-noflexbg) mkfs.ext4 -q -F -O ^flex_bg "$dev" ;;
	ext4-packed) mkfs.ext4 -q -F -O sparse_super2 \
		-E num_backup_sb=0,packed_meta_blocks=1 "$dev" ;;
	ext4-nojournal) mkfs.ext4 -q -F -O ^has_journal "$dev" ;;
	ext4-flexbg4) mkfs.ext4 -q -F -G 4 "$dev" ;;
	ext4-flexbg64) mkfs.ext4 -q -F -G 64 "$dev" ;;
	ext4-inode4k) mkfs.ext4 -q -F -i 4096 "$dev" ;;
	ext4-largefile) mkfs.ext4 -q -F -T largefile "$dev" ;;
	xfs) mkfs.xfs -q -f "$dev" ;;
	xfs-su2m) mkfs.xfs -q -f -d su=2m,sw=1 "$dev" ;;
	xfs-ag2) mkfs.xfs -q -f -d agcount=2 "$dev" ;;
	xfs-ag64) mkfs.xfs -q -f -d agcount=64 "$dev" ;;
	xfs-rmapbt) mkfs.xfs -q -f -m rmapbt=1 "$dev" ;;
	xfs-noreflink) mkfs.xfs -q -f -m reflink=0 "$dev" ;;
	*) return 1 ;;
	esac
}

for layout in $layouts; do
	umount /mnt/growth 2>/dev/null
	if ! mkfs_layout "$layout" || ! mount -o dax "$dev" /mnt/growth; then
		echo "growth: $layout: mkfs or mount failed"
		continue
	fi
	d=/mnt/growth
	case $layout in
	xfs*) xfs_info "$d" | grep -o 'agcount=[0-9]*, agsize=[0-9]* blks\|sunit=[0-9]*' |
		tr '\n' ' ' | sed "s/^/growth: $layout geometry: /; s/$/\n/" ;;
	*) dumpe2fs -h "$dev" 2>/dev/null |
		grep -E '^(Filesystem features|Flex block group size|Blocks per group)' |
		sed "s/^/growth: $layout geometry: /" ;;
	esac
	case $parts in *" small "*)
		"$bin/dax_alloc_probe" --small 1000 "$d/small" |
			sed "s/^/growth: $layout /"
		rm -rf "$d/small" ;;
	esac
	for mib in 1024 2048; do
		case $parts in *" files "*) ;; *) break ;; esac
		for fill in append4k append64k append1m append4m reopen64k cp fallocate; do
			"$bin/dax_alloc_probe" "$fill" "$mib" "$d/f" read |
				sed "s/^/growth-row: $layout /"
			rm -f "$d/f"
			# ext4 reuses freed blocks once the freeing commits:
			# each row starts on the same free space
			sync
		done
		"$bin/dax_alloc_probe" fault "$mib" "$d/f" |
			sed "s/^/growth-row: $layout /"
		rm -f "$d/f"
		sync
		"$bin/dax_alloc_probe" --concurrent 4 256k "$mib" "$d/c" read |
			sed "s/^/growth-row: $layout /"
		rm -rf "$d/c"
		sync
	done
	# a PMDK pool, as an application makes it (tests/pmdk_probe.c)
	for mib in 1024 2048 4096; do
		case $parts in *" pmdk "*) ;; *) break ;; esac
		[ -x "$bin/pmdk_probe" ] || break
		"$bin/pmdk_probe" "$mib" "$d/pool" | sed "s/^/growth-pmdk: $layout /"
		rm -f "$d/pool"
		sync	# its blocks are free for the next pool once committed
	done
done
umount /mnt/growth
echo "hugedax-test: dmesg begin"
dmesg
echo "hugedax-test: dmesg end"
echo "hugedax-growth: done"
