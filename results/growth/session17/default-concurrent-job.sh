#!/bin/sh
# concurrent 1 GiB appenders on default mkfs.ext4 after the growth job's 1 GiB rows
# (PAUSE seconds before the concurrent row); FIEMAP of every appender's file
bin=/mnt/out/bin
sh /mnt/repo/guest/setup-pmem.sh >/dev/null
dev=/dev/$(ndctl list -N | jq -r 'if type == "array" then .[] else . end | select(.name == "ext4") | .blockdev')
mkdir -p /mnt/g
d=/mnt/g
iter=0
while [ $iter -lt "${ROUNDS:-3}" ]; do
  iter=$((iter + 1))
  umount /mnt/g 2>/dev/null
  mkfs.ext4 -q -F "$dev"
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
  # entirely free GiBs (8 consecutive free groups from a multiple of 8),
  # from dumpe2fs after a sync: reading mb_groups would build every
  # group's buddy and put it on mballoc's lists
  sync
  dumpe2fs "$dev" 2>/dev/null | awk -v it=$iter '/^Group [0-9]+:/ { g = $2 + 0 } / free blocks, / { if ($1 + 0 == 32768) free[g] = 1 }
    END { s = ""; for (i = 0; i < 128; i += 8) { ok = 1; for (j = 0; j < 8; j++) if (!free[i + j]) ok = 0; if (ok) s = s " " i / 8 }; print "lf-freegib: " it s }'
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
