#!/bin/bash
# Does every patch of the series build on its own? At each commit of the
# series (in a separate worktree, so the main build tree is not touched),
# compile every object whose source the series changes, with warnings
# treated as failures. A full link is done only at the top (make kernel).
# usage: check-series-builds.sh SRC CONFIG
set -uo pipefail
src=$1 config=$2
wt=$src.check out=$src.check-build
[ -d "$wt" ] || git -C "$src" worktree add -q --detach "$wt" base
mkdir -p "$out"
cmp -s "$config" "$out/.config" || { cp "$config" "$out/.config"; make -s -C "$wt" O="$out" olddefconfig; }
objs=$(git -C "$src" diff --name-only base HEAD -- '*.c' | sed 's/\.c$/.o/' | tr '\n' ' ')
bad=0
for c in $(git -C "$src" rev-list --reverse base..HEAD); do
	git -C "$wt" checkout -q --detach "$c"
	# shellcheck disable=SC2086 # a list of objects
	if log=$(make -s -C "$wt" O="$out" -j"$(nproc)" $objs 2>&1) && ! grep -q 'warning:' <<<"$log"; then
		echo "builds:  $(git -C "$src" log -1 --format=%s "$c")"
	else
		echo "FAILS:   $(git -C "$src" log -1 --format=%s "$c")"
		echo "$log" | tail -5
		bad=$((bad + 1))
	fi
done
echo "check-series: $bad commits fail to build"
[ "$bad" = 0 ]
