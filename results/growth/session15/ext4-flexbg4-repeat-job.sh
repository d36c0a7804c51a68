#!/bin/sh
# Repeat the growth job's file rows on mkfs.ext4 -G 4, with mballoc
# tracing; keep FIEMAP and the trace of any row with a misaligned chunk.
# As session 13's job, plus the growth job's --small 1000 step after each mkfs,
# and a time budget (ITER_MAX iterations or BUDGET seconds)
bin=/mnt/out/bin
sh /mnt/repo/guest/setup-pmem.sh >/dev/null
dev=/dev/$(ndctl list -N | jq -r 'if type == "array" then .[] else . end | select(.name == "ext4") | .blockdev')
mkdir -p /mnt/g
T=/sys/kernel/tracing
echo 65536 > $T/buffer_size_kb
d=/mnt/g
n=0
row() {
  n=$((n + 1))
  echo > $T/trace
  echo 1 > $T/events/ext4/ext4_mballoc_alloc/enable
  echo 1 > $T/events/ext4/ext4_request_blocks/enable
  echo 1 > $T/events/ext4/ext4_allocate_blocks/enable
  "$@" > /tmp/rows
  echo 0 > $T/events/ext4/enable
  sed "s/^/tr-row: $iter $n /" /tmp/rows
  if awk -F'\t' '{split($9, a, "/"); if (a[1] != a[2]) bad = 1} END {exit !bad}' /tmp/rows; then
    for f in "$d"/f "$d"/c/*; do
      [ -f "$f" ] || continue
      echo "tr-file: $iter $n $f $(ls -i "$f")"
      filefrag -v -b4096 "$f" | sed "s/^/tr-frag: $iter $n /"
    done
    cp $T/trace /mnt/out/trace-$iter-$n.txt
  fi
}
iter=0
start=$(date +%s)
while [ $iter -lt "${ITER_MAX:-30}" ] && [ $(($(date +%s) - start)) -lt "${BUDGET:-3000}" ]; do
  iter=$((iter + 1))
  umount /mnt/g 2>/dev/null
  mkfs.ext4 -q -F -G 4 "$dev"
  mount -o dax "$dev" /mnt/g
  "$bin/dax_alloc_probe" --small 1000 "$d/small" | sed "s/^/tr-small: $iter /"
  rm -rf "$d/small"; sync
  for mib in 1024 2048; do
    for fill in append4k append64k append1m append4m reopen64k cp fallocate; do
      row "$bin/dax_alloc_probe" "$fill" "$mib" "$d/f" read
      rm -f "$d/f"; sync
    done
    row "$bin/dax_alloc_probe" fault "$mib" "$d/f"
    rm -f "$d/f"; sync
    row "$bin/dax_alloc_probe" --concurrent 4 256k "$mib" "$d/c" read
    rm -rf "$d/c"; sync
  done
done
umount /mnt/g
echo "tr-iterations: $iter"
echo "hugedax-growth: done"
