#!/bin/sh
# Run tests/dax_stress on the mounted DAX filesystems and device-dax: every
# seed in SEEDS on every target in FS, OPS operations each, the whole file
# checked CHECKS times per run. Expects the layout guest/setup-pmem.sh
# mkfs makes (/mnt/ext4, /mnt/xfs, /mnt/ext2, /mnt/devdax-path).
# environment: SEEDS OPS CHECKS FS; per target OPS_EXT4 OPS_XFS OPS_EXT2
# OPS_DEVDAX (default OPS) and the file sizes SIZE_EXT4 SIZE_XFS
# SIZE_EXT2 SIZE_DEVDAX (xfs gets -P -K: the file starts on a 1 GiB
# boundary and its first GiB stays in one piece, so PUDs can map it)
bin=/mnt/out/bin
dax=$(cut -d' ' -f2 /mnt/devdax-path)
status=0
for fs in ${FS:-ext2 ext4 xfs devdax}; do
	extra='' ops=${OPS:-10000}
	case "$fs" in
	ext4) target=/mnt/ext4/stress size=${SIZE_EXT4:-2560M} ops=${OPS_EXT4:-$ops} ;;
	xfs) target=/mnt/xfs/stress size=${SIZE_XFS:-2560M} ops=${OPS_XFS:-$ops}
		extra="-P -K" ;;
	ext2) target=/mnt/ext2/stress size=${SIZE_EXT2:-1G} ops=${OPS_EXT2:-$ops} ;;
	devdax) target=$dax size=${SIZE_DEVDAX:-4G} ops=${OPS_DEVDAX:-$ops} ;;
	*) echo "stress: unknown target $fs" >&2; exit 2 ;;
	esac
	for seed in ${SEEDS:-1}; do
		echo "hugedax-test: begin dax_stress $fs seed $seed"
		# $extra is a list of options
		# shellcheck disable=SC2086
		"$bin/dax_stress" -T -s "$seed" -n "$ops" -S "$size" \
			-c $((ops / ${CHECKS:-10} + 1)) $extra "$target"
		rc=$?
		echo "hugedax-test: end dax_stress $fs seed $seed status $rc"
		[ "$rc" = 0 ] || status=1
	done
	case "$target" in /mnt/*) rm -f "$target" "$target.pad" ;; esac
done
exit "$status"
