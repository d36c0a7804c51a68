#!/bin/sh
# Guest side of `make tools-stress`: Debian's stress-ng (file-backed mmap,
# msync, madvise, mincore stressors) and fio (mmap and libpmem engines on
# files, dev-dax on device-dax), all with data verification, against the
# DAX mounts (default mkfs). One TAP line per run for scripts/judge-console.sh.
# SECONDS_EACH (default 20) bounds each stress-ng run.
here=/mnt/repo/guest
each=${SECONDS_EACH:-20}
EXT4_MKFS_OPTS="" XFS_MKFS_OPTS="" sh "$here/setup-pmem.sh" mkfs >/dev/null ||
	{ echo "tools: pmem setup failed"; exit 1; }
dax=$(cut -d' ' -f2 /mnt/devdax-path)
n=0
# run NAME CMD...: one TAP line from CMD's exit status
run() {
	name=$1
	shift
	n=$((n + 1))
	echo "tools: $name: $*"
	if "$@"; then
		echo "ok $n $name"
	else
		echo "not ok $n $name (exit status $?)"
	fi
}
echo "hugedax-test: begin tools"
for fs in ext4 xfs ext2; do
	d=/mnt/$fs/tools
	mkdir -p "$d"
	run "stress-ng mmap file $fs" stress-ng --temp-path "$d" --mmap 2 \
		--mmap-file --mmap-bytes 64M --mmap-mprotect --verify \
		--timeout "${each}s" --metrics-brief
	run "stress-ng msync $fs" stress-ng --temp-path "$d" --msync 2 \
		--msync-bytes 64M --verify --timeout "${each}s" --metrics-brief
	run "stress-ng madvise $fs" stress-ng --temp-path "$d" --madvise 2 \
		--timeout "${each}s" --metrics-brief
	run "stress-ng mincore $fs" stress-ng --temp-path "$d" --mincore 2 \
		--timeout "${each}s" --metrics-brief
	run "fio mmap $fs" fio --name=mmap --directory="$d" --ioengine=mmap \
		--rw=randwrite --bsrange=4k-2m --size=256m --numjobs=2 \
		--verify=crc32c --verify_fatal=1 --verify_state_save=0 \
		--group_reporting
	# libpmem treats a file as pmem only if MAP_SYNC works: not on ext2
	[ "$fs" = ext2 ] ||
	run "fio libpmem $fs" fio --name=pmem --directory="$d" \
		--ioengine=libpmem --rw=randwrite --bs=2m --size=256m \
		--verify=crc32c --verify_fatal=1 --verify_state_save=0 \
		--group_reporting
	rm -rf "$d"
done
run "fio dev-dax" fio --name=devdax --filename="$dax" --ioengine=dev-dax \
	--rw=randwrite --bs=2m --size=1g --verify=crc32c --verify_fatal=1 \
	--verify_state_save=0
echo "1..$n"
echo "hugedax-test: end tools"
echo "hugedax-test: dmesg begin"
dmesg
echo "hugedax-test: dmesg end"
echo "hugedax-test: done"
