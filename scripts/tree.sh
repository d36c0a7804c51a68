#!/bin/bash
# Keep the kernel tree at "pristine 6.1.192 + patches/series".
# usage: tree.sh SRC         bring SRC (a git repository) to the series
#        tree.sh SRC stock   bring SRC to the pristine tree
# SRC is created from /usr/src/linux-source-6.1.tar.xz on first use; its
# commit "base" is the pristine tree. The series is applied with git am in a
# scratch worktree (SRC.am) and SRC is then moved to the result with
# git checkout, which rewrites only files whose content differs, so make
# recompiles only what the changed patches touch.
set -euo pipefail
src=$1 want=${2:-series}
here=$(cd "$(dirname "$0")/.." && pwd)
tarball=/usr/src/linux-source-6.1.tar.xz
g() { git -C "$src" -c user.name=hugedax -c user.email=hugedax@localhost "$@"; }

if ! g rev-parse -q --verify base >/dev/null 2>&1; then
	echo "tree: unpacking $tarball into $src"
	rm -rf "$src" && mkdir -p "$src"
	tar xJf "$tarball" -C "$src" --strip-components=1
	g init -q -b base
	# Debian's top-level .gitignore ignores everything (/*): add -f
	g add -f . >/dev/null
	g commit -q -m "Linux 6.1.192 (Debian linux-source-6.1 6.1.192-3)"
fi

if [ "$want" = stock ]; then
	target=$(g rev-parse base)
else
	am=$src.am
	[ -d "$am" ] || g worktree add -q --detach "$am" base
	git -C "$am" am --abort >/dev/null 2>&1 || true
	git -C "$am" reset -q --hard base
	while read -r p; do
		case "$p" in ''|'#'*) continue ;; esac
		git -C "$am" -c user.name=hugedax -c user.email=hugedax@localhost \
			am -q --committer-date-is-author-date "$here/patches/$p" ||
			{ echo "tree: $p does not apply" >&2; exit 1; }
	done < "$here/patches/series"
	target=$(git -C "$am" rev-parse HEAD)
fi

if [ "$(g rev-parse 'HEAD^{tree}')" = "$(g rev-parse "$target^{tree}")" ]; then
	exit 0
fi
if [ -n "$(g status --porcelain --untracked-files=no)" ]; then
	echo "tree: $src has uncommitted changes; commit them and run make export" >&2
	exit 1
fi
echo "tree: moving $src to $(g log -1 --format='%h %s' "$target")"
g checkout -q --detach "$target"
