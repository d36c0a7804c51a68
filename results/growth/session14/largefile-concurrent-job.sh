#!/bin/sh
# concurrent 1 GiB appenders on mkfs.ext4 -T largefile after the growth job's 1 GiB rows
# (PAUSE seconds before the concurrent row); FIEMAP of every appender's file
bin=/mnt/out/bin
sh /mnt/repo/guest/setup-pmem.sh >/dev/null
dev=/dev/$(ndctl list -N | jq -r 'if type == "array" then .[] else . end | select(.name == "ext4") | .blockdev')
mkdir -p /mnt/g
d=/mnt/g
iter=0
while [ $iter -lt 3 ]; do
  iter=$((iter + 1))
  umount /mnt/g 2>/dev/null
  mkfs.ext4 -q -F -T largefile "$dev"
  mount -o dax "$dev" /mnt/g
  "$bin/dax_alloc_probe" --small 1000 "$d/small" > /dev/null
  rm -rf "$d/small"; sync
  for fill in append4k append64k append1m append4m reopen64k cp fallocate fault; do
    mode="read"
    [ "$fill" = fault ] && mode="write"
    "$bin/dax_alloc_probe" "$fill" 1024 "$d/f" "$mode" | sed "s/^/lf-pre: $iter /"
    rm -f "$d/f"; sync
  done
  sleep "${PAUSE:-0}"
  # entirely free GiBs (8 consecutive free groups from a multiple of 8)
  awk -v it=$iter 'NR > 1 { sub(/^#/, "", $1); sub(/:$/, "", $1); g = $1 + 0; f = $3 + 0; if (f == 32768) free[g] = 1 }
    END { s = ""; for (i = 0; i < 128; i += 8) { ok = 1; for (j = 0; j < 8; j++) if (!free[i + j]) ok = 0; if (ok) s = s " " i / 8 }; print "lf-freegib: " it s }' "/proc/fs/ext4/$(basename "$dev")/mb_groups"
  "$bin/dax_alloc_probe" --concurrent 4 256k 1024 "$d/c" read > /tmp/rows
  sed "s/^/lf-row: $iter /" /tmp/rows
  for f in "$d"/c/*; do
    echo "lf-file: $iter $f"
    filefrag -v -b4096 "$f" | head -12 | sed "s/^/lf-frag: $iter /"
  done
  rm -rf "$d/c"; sync
done
umount /mnt/g
echo "hugedax-growth: done"
