#!/bin/sh
# Guest side of `make latency`: tests/dax_latency on fresh default ext4 and
# xfs, at each page size (a 1 GiB-aligned mapping, one 2 MiB past it, one
# 4 KiB past a 2 MiB boundary), with device-dax and hugetlbfs (1 GiB pages)
# as anchors for the first store. Rows go to /mnt/out/latency.csv.
# LATENCY_REPS and LATENCY_OPS in /mnt/out/latency.conf: repetitions
# (default 5) and operations (default all).
here=/mnt/repo/guest
bin=/mnt/out/bin
out=/mnt/out/latency.csv
# shellcheck disable=SC1091 # written by run-latency.sh
[ -f /mnt/out/latency.conf ] && . /mnt/out/latency.conf
reps=${LATENCY_REPS:-5}
ops=${LATENCY_OPS:-first-write sparse-write mapsync msync truncate reader writer fsyncer mover cow}
set -e
EXT4_MKFS_OPTS="" XFS_MKFS_OPTS="" sh "$here/setup-pmem.sh" mkfs >/dev/null
devdax=$(cut -d' ' -f2 /mnt/devdax-path)
set +e
mkdir -p /mnt/huge
mount -t hugetlbfs -o pagesize=1G none /mnt/huge
# no periodic writeback: it would write back (and write-protect) dirty
# entries at times of its own, inside or outside what is timed
echo 0 > /proc/sys/vm/dirty_writeback_centisecs
"$bin/dax_latency" --header > "$out"
row() {
	"$bin/dax_latency" "$@" | tee -a "$out" | sed 's/^/latency: /'
}
case " $ops " in *" first-write "*)
	row devdax "$devdax" first-write 1G "$reps"
	row hugetlbfs /mnt/huge/lat first-write 1G 2 ;;
esac
for fs in ext4 xfs; do
	for op in $ops; do
		# reflink: xfs only
		[ "$op" = cow ] && [ "$fs" != xfs ] && continue
		# fsyncer and mover map nothing: one row
		pages=1G,2M,4K
		case "$op" in fsyncer|mover) pages=1G ;; esac
		row "$fs" "/mnt/$fs/lat" "$op" "$pages" "$reps"
	done
done
echo 500 > /proc/sys/vm/dirty_writeback_centisecs
echo "hugedax-latency: done"
