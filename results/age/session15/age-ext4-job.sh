#!/bin/sh
# Record of the bisect job of the fifteenth session: guest/age-job.sh with
# two changes, the file systems from AGE_FS (default ext4 only) and filefrag
# of each concurrent appender before it is removed; see README.md here.
# Guest side of `make age`. On each file system (default mkfs): the space
# 1,000 files of 4 KiB take on it fresh (tests/dax_alloc_probe --small);
# then aging with tests/dax_age (interleaved growth to 70% used, then about
# half the files deleted) and its free space; then new DAX files of several
# sizes and fills made with tests/dax_alloc_probe (one after the other,
# then four appended at once), and the page sizes they got. Rows:
# "age-row: FS <dax_alloc_probe row>", each after "age-free: FS N", the
# aligned GiBs wholly free before it; the concurrent rows also after
# "age-free2m: FS N", the aligned 2 MiB runs free before them. The aging
# runs 4 writer processes at once.
here=/mnt/repo/guest
bin=/mnt/out/bin
seed=${AGE_SEED:-1}
fill=${AGE_FILL:-70}
# processes that age the file system at once (tests/dax_age WRITERS)
writers=4
set -e
EXT4_MKFS_OPTS="" XFS_MKFS_OPTS="" sh "$here/setup-pmem.sh" mkfs
set +e
echo "age: kernel $(uname -r) seed $seed fill $fill%"
# FILL MiB pairs; ext2 has no fallocate, and its 4 GiB namespace and 2 MiB
# ceiling make 1 GiB files pointless there
big="pwrite1g 1024 fault 1024 append1m 1024 append64k 1024"
common="pwrite2m 256 fault 256 pwrite64k 64 pwrite2m 64"
# "age-free: FS N": how many aligned GiBs are wholly free right now (after
# a sync): on ext4 runs of 8 entirely free block groups starting at a
# multiple of 8 (128 MiB groups), on xfs 1 GiB-aligned stretches of its
# free extents (the namespace's data starts 1 GiB aligned); ext2 has no
# such runs (its groups hold metadata every 128 MiB): 0
free_gibs() {
	sync
	case $1 in
	ext4)
		dumpe2fs "$3" 2>/dev/null | awk '
			/^Group [0-9]+:/ { g = $2 + 0; n = g > n ? g : n }
			/ free blocks,/ { if ($1 + 0 == 32768) free[g] = 1 }
			END { c = 0
			      for (i = 0; i + 8 <= n + 1; i += 8) {
				ok = 1
				for (j = i; j < i + 8; j++) if (!free[j]) ok = 0
				c += ok }
			      print c }'
		;;
	xfs)
		agblocks=$(xfs_info "$2" | sed -n 's/.*agsize=\([0-9]*\) blks.*/\1/p')
		gib=$((1073741824 / $(stat -f -c %S "$2")))
		xfs_spaceman -c "freesp -d" "$2" | awk -v ag="$agblocks" -v gib="$gib" '
			NF == 3 && $1 ~ /^[0-9]+$/ {
				s = $1 * ag + $2; e = s + $3
				a = int((s + gib - 1) / gib) * gib
				while (a + gib <= e) { c++; a += gib } }
			END { print c + 0 }'
		;;
	*) echo 0 ;;
	esac | sed "s/^/age-free: $1 /"
}
# "age-free2m: FS N": how many 2 MiB-aligned, 2 MiB runs of blocks are
# free right now (ext4, ext2: the free ranges dumpe2fs lists; xfs: its free
# extents), the most chunks that can still map a PMD
free_pmds() {
	sync
	case $1 in
	xfs)
		agblocks=$(xfs_info "$2" | sed -n 's/.*agsize=\([0-9]*\) blks.*/\1/p')
		xfs_spaceman -c "freesp -d" "$2" | awk -v ag="$agblocks" '
			NF == 3 && $1 ~ /^[0-9]+$/ { print $1 * ag + $2, $1 * ag + $2 + $3 - 1 }'
		;;
	*)
		dumpe2fs "$3" 2>/dev/null | sed -n 's/^ *Free blocks: //p' |
			tr ',' '\n' | awk 'NF { n = split($1, r, "-"); print r[1], r[n] }'
		;;
	esac | awk -v pmd=$((2097152 / $(stat -f -c %S "$2"))) '
		{ a = int(($1 + pmd - 1) / pmd) * pmd
		  while (a + pmd - 1 <= $2) { c++; a += pmd } }
		END { print c + 0 }' | sed "s/^/age-free2m: $1 /"
}
for fs in ${AGE_FS:-ext4}; do
	dir=/mnt/$fs
	dev=$(findmnt -n -o SOURCE "$dir")
	# on the fresh file system: the space 1,000 files of 4 KiB take
	"$bin/dax_alloc_probe" --small 1000 "$dir/small" | sed "s/^/age: $fs /"
	rm -rf "$dir/small"
	"$bin/dax_age" "$dir/age" "$seed" "$fill" "$writers" |
		sed "s/^age: /age: $fs /"
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
		free_gibs "$fs" "$dir" "$dev"
		row=$("$bin/dax_alloc_probe" "$1" "$2" "$dir/probe.$i") ||
			echo "age: $fs probe $1 $2 failed"
		[ -n "$row" ] && echo "age-row: $fs $row"
		i=$((i + 1))
		shift 2
	done
	# four files appended at once, 256 KiB writes, 1 GiB each (ext2: 64 MiB)
	mib=1024
	[ "$fs" = ext2 ] && mib=64
	free_gibs "$fs" "$dir" "$dev"
	free_pmds "$fs" "$dir" "$dev"
	"$bin/dax_alloc_probe" --concurrent 4 256k "$mib" "$dir/concurrent" |
		sed "s/^/age-row: $fs /"
	for f in "$dir"/concurrent/*; do
		filefrag -v -b4096 "$f" | sed "s|^|age-frag: $(basename "$f") |"
	done
	rm -rf "$dir/concurrent"
	df -k "$dir" | tail -1 | sed "s/^/age: $fs df: /"
done
echo "hugedax-age: done"
echo "hugedax-age: done"
