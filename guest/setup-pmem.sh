#!/bin/sh
# Give each emulated DIMM its namespace (once; labels keep them across
# boots) and print where each one is. run-guest.sh adds the DIMMs in the
# order ext4, xfs, ext2, devdax: nmem0..nmem3 (region numbers differ).
# usage: setup-pmem.sh        (namespaces only)
#        setup-pmem.sh mkfs   (also make fresh filesystems and mount them)
#        setup-pmem.sh mount  (mount the filesystems already there, as an
#                              earlier boot left them: e2fsck -fy for ext2,
#                              log replay at mount for ext4 and xfs)
set -eu
modes="fsdax fsdax fsdax devdax"
names="ext4 xfs ext2 devdax"

nth() { echo "$2" | cut -d' ' -f"$(($1 + 1))"; }

i=0
for name in $names; do
	mode=$(nth $i "$modes")
	region=$(ndctl list -R -d "nmem$i" | jq -r '(if type == "array" then .[0] else . end).dev')
	[ -n "$region" ] || { echo "pmem: no region for nmem$i" >&2; exit 1; }
	if ! ndctl list -r "$region" -N | grep -q "\"name\":\"$name\""; then
		# a new backing file has an empty label area: initialise it so
		# that the namespace is label-based and survives reboots
		ndctl disable-region "$region" >/dev/null 2>&1
		ndctl init-labels -f "nmem$i" >/dev/null 2>&1 || true
		ndctl enable-region "$region" >/dev/null 2>&1
		ndctl destroy-namespace -f -r "$region" all >/dev/null 2>&1 || true
		# whole GiBs of the region (minus its label area); with -a 1G the
		# data start is 1 GiB aligned and the struct pages (--map=dev)
		# live in the first GiB
		size=$(ndctl list -R -r "$region" | jq '(if type == "array" then .[0] else . end).size')
		size=$((size / 1073741824 * 1073741824))
		ndctl create-namespace -r "$region" -m "$mode" -a 1G --map=dev \
			-s "$size" -n "$name" >/dev/null
	fi
	i=$((i + 1))
done

# device nodes by name
for name in $names; do
	json=$(ndctl list -N | jq "if type == \"array\" then .[] else . end | select(.name == \"$name\")")
	dev=$(echo "$json" | jq -r '.blockdev // .chardev')
	echo "pmem: $name /dev/$dev $(echo "$json" | jq -r '.size') bytes"
	eval "dev_$name=/dev/$dev"
done

# shellcheck disable=SC2154
if [ "${1:-}" = mount ]; then
	mkdir -p /mnt/ext4 /mnt/xfs /mnt/ext2
	rc=0
	e2fsck -fy "$dev_ext2" || rc=$?
	echo "pmem: e2fsck -fy ext2: exit status $rc"
	mount -o dax "$dev_ext4" /mnt/ext4
	mount -o dax "$dev_xfs" /mnt/xfs
	mount -t ext2 -o dax "$dev_ext2" /mnt/ext2
	echo "devdax: $dev_devdax" > /mnt/devdax-path
	exit 0
fi
[ "${1:-}" = mkfs ] || exit 0
# dev_* are set by the eval above; the *_MKFS_OPTS are option lists that
# must be split into words
# shellcheck disable=SC2154,SC2086
{
	mkdir -p /mnt/ext4 /mnt/xfs /mnt/ext2
	mkfs.ext4 -q -F ${EXT4_MKFS_OPTS:-} "$dev_ext4"
	mount -o dax "$dev_ext4" /mnt/ext4
	mkfs.xfs -q -f ${XFS_MKFS_OPTS:-} "$dev_xfs"
	mount -o dax "$dev_xfs" /mnt/xfs
	mkfs.ext2 -q -F ${EXT2_MKFS_OPTS:-} "$dev_ext2"
	mount -t ext2 -o dax "$dev_ext2" /mnt/ext2
	echo "devdax: $dev_devdax" > /mnt/devdax-path
}
