#!/bin/bash
# Configure and build a kernel from a source tree into an output directory.
# usage: build-kernel.sh SRC OUT [debug]
# Only objects whose sources changed are rebuilt; the config is regenerated
# only when a fragment or the tree's Kconfig files changed.
set -euo pipefail
src=$1 out=$2 variant=${3:-}
here=$(cd "$(dirname "$0")/.." && pwd)
frags=("$src/kernel/configs/kvm_guest.config" "$here/kernel/hugedax.config")
[ "$variant" = debug ] && frags+=("$here/kernel/debug.config")

mkdir -p "$out"
# one kernel build at a time on this machine (2 cores): wait for any other
exec 8>"$(dirname "$out")/.build.lock"
flock 8
stamp="$out/.hugedax-fragments"
# the fragments and the tree's Kconfig files: a build of an older commit
# in the same OUT drops the options that commit's Kconfig lacks, and a
# later build must ask for them again
want=$({ cat "${frags[@]}"; find "$src" -name 'Kconfig*' -type f -print0 |
	sort -z | xargs -0 cat; } | sha256sum)
if [ ! -f "$out/.config" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
	make -s -C "$src" O="$out" x86_64_defconfig
	"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "${frags[@]}" >/dev/null
	make -s -C "$src" O="$out" olddefconfig
	# Every option we asked for must have survived olddefconfig (a later
	# fragment overrides an earlier one: the last setting of each counts).
	missing=0
	while read -r line; do
		case "$line" in CONFIG_*=n) opt=${line%%=*}; grep -q "^$opt=" "$out/.config" && { echo "config: $opt still set" >&2; missing=1; }; continue ;; CONFIG_*) ;; *) continue ;; esac
		grep -qx "$line" "$out/.config" && continue
		# options the series adds are not in the stock tree's Kconfig
		opt=${line%%=*}
		grep -rqx --include='Kconfig*' "config ${opt#CONFIG_}" "$src" || continue
		echo "config: $line not in final .config" >&2; missing=1
	done < <(cat "${frags[@]:1}" | awk -F= '/^CONFIG_/ { last[$1] = $0; order[n++] = $1 }
		END { for (i = 0; i < n; i++) if (!seen[order[i]]++) print last[order[i]] }')
	[ "$missing" = 0 ] || exit 1
	echo "$want" > "$stamp"
fi
make -s -C "$src" O="$out" -j"$(nproc)" bzImage
echo "kernel: $out/arch/x86/boot/bzImage"
