#!/bin/sh
# The -G 4 repeat job's file rows, counting for each row the allocations
# mballoc searched for with the PMD alignment hint (ext4_mballoc_alloc with
# HINT_ALIGN_PMD) and how many of them it answered off a 2 MiB boundary,
# at which criterion and after how many groups.  Also the population of
# mballoc's optimized-scan lists (mb_structs_summary) against the number
# of groups, 20 s after each mount.
bin=/mnt/out/bin
sh /mnt/repo/guest/setup-pmem.sh >/dev/null
dev=/dev/$(ndctl list -N | jq -r 'if type == "array" then .[] else . end | select(.name == "ext4") | .blockdev')
name=${dev#/dev/}
mkdir -p /mnt/g
T=/sys/kernel/tracing
echo 65536 > $T/buffer_size_kb
d=/mnt/g
n=0
lists() {
  # not mb_groups: reading it builds the buddy of every group
  ngroups=$(dumpe2fs -h "$dev" 2>/dev/null | awk -F: '/^Block count/ {b = $2} /^Blocks per group/ {g = $2} END {print int((b + g - 1) / g)}')
  listed=$(awk '/max_free_order_lists:/ {on = 1; next} /avg_fragment_size_lists/ {on = 0} on && /list_order_/ {s += $2} END {print s + 0}' /proc/fs/ext4/"$name"/mb_structs_summary)
  echo "tr-lists: $iter $1 groups $ngroups in-largest-free-order-lists $listed"
}
row() {
  n=$((n + 1))
  echo > $T/trace
  echo 1 > $T/events/ext4/ext4_mballoc_alloc/enable
  "$@" > /tmp/rows
  echo 0 > $T/events/ext4/enable
  sed "s/^/tr-row: $iter $n /" /tmp/rows
  grep 'ext4_mballoc_alloc:.*HINT_ALIGN_PMD' $T/trace | awk -v it="$iter" -v n="$n" '
    { for (i = 1; i <= NF; i++) {
        if ($i == "result") split($(i + 1), r, "[/@]")
        if ($i == "grps") g = $(i + 1)
        if ($i == "cr") c = $(i + 1) } 
      t++; if (r[2] % 512) { u++; cr[c]++; if (g > mg) mg = g } }
    END { printf "tr-ap: %s %s aligned-requests %d unaligned %d", it, n, t, u
          for (k in cr) printf " cr%s=%d", k, cr[k]
          printf " max-groups %d\n", mg }'
  if awk -F'\t' '{split($9, a, "/"); if (a[1] != a[2]) bad = 1} END {exit !bad}' /tmp/rows; then
    lists "miss-$n"
    cp $T/trace /mnt/out/trace-$iter-$n.txt
  fi
}
iter=0
start=$(date +%s)
while [ $iter -lt "${ITER_MAX:-2}" ] && [ $(($(date +%s) - start)) -lt "${BUDGET:-2200}" ]; do
  iter=$((iter + 1))
  umount /mnt/g 2>/dev/null
  mkfs.ext4 -q -F -G 4 "$dev"
  mount -o dax "$dev" /mnt/g
  lists mount
  sleep 20
  lists mount+20s
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
