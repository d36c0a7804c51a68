#!/bin/sh
# Guest side of `make age`. On each file system (default mkfs): the space
# 1,000 files of 4 KiB take on it fresh (tests/dax_alloc_probe --small);
# then aging with tests/dax_age (interleaved growth to 70% used, then about
# half the files deleted) and its free space; then new DAX files of several
# sizes and fills made with tests/dax_alloc_probe (one after the other,
# then four appended at once), and the page sizes they got. Rows:
# "age-row: FS <dax_alloc_probe row>".
here=/mnt/repo/guest
bin=/mnt/out/bin
seed=${AGE_SEED:-1}
fill=${AGE_FILL:-70}
set -e
EXT4_MKFS_OPTS="" XFS_MKFS_OPTS="" sh "$here/setup-pmem.sh" mkfs
set +e
echo "age: kernel $(uname -r) seed $seed fill $fill%"
# FILL MiB pairs; ext2 has no fallocate, and its 4 GiB namespace and 2 MiB
# ceiling make 1 GiB files pointless there
big="pwrite1g 1024 fault 1024 append1m 1024 append64k 1024"
common="pwrite2m 256 fault 256 pwrite64k 64 pwrite2m 64"
for fs in ext4 xfs ext2; do
	dir=/mnt/$fs
	dev=$(findmnt -n -o SOURCE "$dir")
	# on the fresh file system: the space 1,000 files of 4 KiB take
	"$bin/dax_alloc_probe" --small 1000 "$dir/small" | sed "s/^/age: $fs /"
	rm -rf "$dir/small"
	"$bin/dax_age" "$dir/age" "$seed" "$fill" | sed "s/^age: /age: $fs /"
	case $fs in
	xfs)
		xfs_spaceman -c "freesp -s" "$dir" | sed "s/^/age: $fs freesp: /"
		;;
	*)
		sync
		e2freefrag "$dev" | sed -n '/HISTOGRAM/,$p' | sed "s/^/age: $fs freefrag: /"
		;;
	esac
	specs="$common fallocate 256 $big"
	[ "$fs" = ext2 ] && specs=$common
	i=0
	# shellcheck disable=SC2086 # a list of words
	set -- $specs
	while [ $# -ge 2 ]; do
		row=$("$bin/dax_alloc_probe" "$1" "$2" "$dir/probe.$i") ||
			echo "age: $fs probe $1 $2 failed"
		[ -n "$row" ] && echo "age-row: $fs $row"
		i=$((i + 1))
		shift 2
	done
	# four files appended at once, 256 KiB writes, 1 GiB each (ext2: 64 MiB)
	mib=1024
	[ "$fs" = ext2 ] && mib=64
	"$bin/dax_alloc_probe" --concurrent 4 256k "$mib" "$dir/concurrent" |
		sed "s/^/age-row: $fs /"
	rm -rf "$dir/concurrent"
	df -k "$dir" | tail -1 | sed "s/^/age: $fs df: /"
done
echo "hugedax-test: dmesg begin"
dmesg
echo "hugedax-test: dmesg end"
echo "hugedax-age: done"
