#!/bin/bash
# Does every patch of the series build on its own? At each commit of the
# series (in a separate worktree, so the main build tree is not touched),
# compile every object whose source the series changes, with warnings
# treated as failures, for x86_64 (the config `make kernel` uses) and for
# arm64 with 4 KiB pages and with 64 KiB pages and 42-bit addresses (two
# page-table levels: the PMD is folded). A full link is done only at the top
# (make kernel).
# usage: check-series-builds.sh SRC CONFIG
# environment: TARGETS (default "x86_64 arm64-4k arm64-64k")
#              FROM=N: start at the Nth commit of the series (after a change
#              to it; the commits before it are not built)
set -uo pipefail
src=$1 config=$2
here=$(cd "$(dirname "$0")/.." && pwd)
targets=${TARGETS:-x86_64 arm64-4k arm64-64k}
wt=$src.check
[ -d "$wt" ] || git -C "$src" worktree add -q --detach "$wt" base
git -C "$wt" checkout -q --detach base
case " $targets " in *" arm64-"*)
	"$here/scripts/setup-host.sh" gcc-aarch64-linux-gnu || exit 1 ;;
esac

# configure TARGET: its output directory, configured at base
configure() {
	local t=$1 out=$src.check-build
	local frags=("$here/kernel/arm64.config" "$here/kernel/check.config")
	local want
	case "$t" in
	x86_64)
		# the config of `make kernel`, plus what builds every object
		mkdir -p "$out"
		frags=("$here/kernel/check.config")
		want=$(cat "$config" "${frags[@]}" | sha256sum)
		[ "$(cat "$out/.hugedax-fragments" 2>/dev/null)" = "$want" ] && return
		cp "$config" "$out/.config"
		;;
	arm64-64k) frags+=("$here/kernel/arm64-64k.config") ;;
	esac
	if [ "$t" != x86_64 ]; then
		out=$src.check-build-$t
		mkdir -p "$out"
		want=$(cat "${frags[@]}" | sha256sum)
		[ "$(cat "$out/.hugedax-fragments" 2>/dev/null)" = "$want" ] && return
		make -s -C "$wt" O="$out" "${cross[@]}" defconfig
	fi
	"$wt/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "${frags[@]}" >/dev/null
	make -s -C "$wt" O="$out" "${cross[@]}" olddefconfig
	local line
	while read -r line; do
		grep -qx "$line" "$out/.config" || { echo "check-series: $t: $line not in .config" >&2; return 1; }
	done < <(grep -h '^CONFIG_.*=y' "${frags[@]}")
	echo "$want" > "$out/.hugedax-fragments"
}
outdir() { case "$1" in x86_64) echo "$src.check-build" ;; *) echo "$src.check-build-$1" ;; esac; }
crossargs() { case "$1" in arm64-*) echo "ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-" ;; esac; }

for t in $targets; do
	read -ra cross <<< "$(crossargs "$t")"
	configure "$t" || exit 1
done
# every .c the series changes (none is under arch/)
objs=$(git -C "$src" diff --name-only base HEAD -- '*.c' | sed 's/\.c$/.o/' | tr '\n' ' ')
bad=0 n=0
for c in $(git -C "$src" rev-list --reverse base..HEAD); do
	n=$((n + 1))
	if [ "$n" -lt "${FROM:-1}" ]; then continue; fi
	git -C "$wt" checkout -q --detach "$c"
	# the objects whose sources exist at this commit (the series adds files)
	now=""
	for o in $objs; do
		if [ -f "$wt/${o%.o}.c" ]; then now+="$o "; fi
	done
	for t in $targets; do
		read -ra cross <<< "$(crossargs "$t")"
		# shellcheck disable=SC2086 # a list of objects
		if log=$(make -s -C "$wt" O="$(outdir "$t")" "${cross[@]}" -j"$(nproc)" $now 2>&1) &&
			! grep -q 'warning:' <<<"$log"; then
			echo "builds:  $t  $(git -C "$src" log -1 --format=%s "$c")"
		else
			echo "FAILS:   $t  $(git -C "$src" log -1 --format=%s "$c")"
			echo "$log" | tail -5
			bad=$((bad + 1))
		fi
	done
done
echo "check-series: $bad builds of commits ${FROM:-1}-$n fail ($targets)"
[ "$bad" = 0 ]
