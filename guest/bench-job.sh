#!/bin/sh
# Guest side of `make bench`: run tests/dax_bench on each configuration
# below, each file system freshly made with its recipe; rows go to
# /mnt/out/bench.csv. Add a configuration by adding a line. device-dax 1G,
# the reference for times, runs first and last (the report takes the best).
here=/mnt/repo/guest
bin=/mnt/out/bin
out=/mnt/out/bench.csv

# config       mkfs     path              fill    addresses (largest first)
configs='
devdax-1G      -        devdax            touch   1G
ext2           default  /mnt/ext2/bench   pwrite  1G,2M,4K
ext4           default  /mnt/ext4/bench   pwrite  1G,2M
ext4-sized     default  /mnt/ext4/bench   sized   1G,2M
ext4-stride    aligned  /mnt/ext4/bench   pwrite  1G,2M,4K
xfs            default  /mnt/xfs/bench    pwrite  1G,2M
xfs-sized      default  /mnt/xfs/bench    sized   1G,2M
xfs-padded     default  /mnt/xfs/bench    padded  1G,2M
xfs-su2m       aligned  /mnt/xfs/bench    pwrite  1G,2M
hugetlbfs-1G   -        /mnt/huge/bench   touch   1G
tmpfs-huge     -        /mnt/tmpfs/bench  pwrite  1G,2M
devdax-2M      -        devdax2m          touch   1G
devdax-1G      -        devdax            touch   1G
'

ns_json() {
	ndctl list -N | jq "if type == \"array\" then .[] else . end | select(.name == \"$1\")"
}

# a fresh file system for PATH made with RECIPE, mounted with DAX (ext4
# without background inode table zeroing, which would compete for the CPU)
remake() {
	mnt=$(dirname "$1")
	name=$(basename "$mnt")
	dev=$(awk -v n="$name" '$2 == n { print $3 }' /tmp/pmem)
	umount "$mnt" 2>/dev/null
	mkdir -p "$mnt"
	case "$name:$2" in
	ext2:default) mkfs.ext2 -q -F "$dev" && mount -t ext2 -o dax "$dev" "$mnt" ;;
	ext4:default) mkfs.ext4 -q -F "$dev" && mount -o dax,noinit_itable "$dev" "$mnt" ;;
	ext4:aligned) mkfs.ext4 -q -F -E stride=512 "$dev" &&
		mount -o dax,noinit_itable "$dev" "$mnt" ;;
	xfs:default) mkfs.xfs -q -f "$dev" && mount -o dax "$dev" "$mnt" ;;
	xfs:aligned) mkfs.xfs -q -f -d su=2m,sw=1 "$dev" && mount -o dax "$dev" "$mnt" &&
		xfs_io -c "extsize 2m" "$mnt" ;;
	*) echo "bench: no recipe $2 for $mnt"; return 1 ;;
	esac
}

# the device-dax namespace with 1 GiB (devdax) or 2 MiB (devdax2m)
# alignment: reconfigured in place; should this boot not get to switch it
# back, setup-pmem.sh remakes "devdax" on the next one
devdax() {
	ns=$(ns_json devdax; ns_json devdax2m)
	dev=$(echo "$ns" | jq -r .dev)
	if [ "$(echo "$ns" | jq -r .name)" != "$1" ]; then
		align=1G
		[ "$1" = devdax2m ] && align=2M
		ndctl create-namespace -f -e "$dev" -m devdax -a "$align" \
			--map=dev -n "$1" >/dev/null || return 1
	fi
	echo "/dev/$(ns_json "$1" | jq -r .chardev)"
}

sh "$here/setup-pmem.sh" > /tmp/pmem || { echo "bench: pmem setup failed"; exit 1; }
mkdir -p /mnt/huge /mnt/tmpfs
mount -t hugetlbfs -o pagesize=1G none /mnt/huge
mount -t tmpfs -o huge=always,size=1100M tmpfs /mnt/tmpfs
uname -rv > /mnt/out/kernel-release
"$bin/dax_bench" --header > "$out"
echo "$configs" | while read -r config mkfs path fill addrs; do
	[ -n "$config" ] || continue
	start=$(date +%s)
	case "$path" in
	devdax*) path=$(devdax "$path" </dev/null) ;;
	*) [ "$mkfs" = - ] || remake "$path" "$mkfs" </dev/null ;;
	esac || { echo "$config,-,error: set-up failed" >> "$out"; continue; }
	"$bin/dax_bench" "$config" "$path" "$fill" "$addrs" >> "$out" </dev/null
	case "$path" in /mnt/*) rm -f "$path" "$path.pad" ;; esac
	echo "bench: $config $(($(date +%s) - start)) s"
done
devdax devdax >/dev/null
echo "hugedax-bench: done"
