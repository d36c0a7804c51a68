#!/bin/bash
# Write the commits on top of "base" in the kernel tree to patches/ as
# git format-patch files, and patches/series in order.
# usage: export-patches.sh SRC
set -euo pipefail
src=$1
here=$(cd "$(dirname "$0")/.." && pwd)
rm -f "$here"/patches/*.patch
git -C "$src" format-patch -q --no-signature --zero-commit -N -o "$here/patches" base..HEAD
{
	sed -n '/^#/p' "$here/patches/series"
	for f in "$here"/patches/*.patch; do
		if [ -e "$f" ]; then basename "$f"; fi
	done
} > "$here/patches/series.new"
mv "$here/patches/series.new" "$here/patches/series"
echo "export: $(grep -vc '^#' "$here/patches/series") patches"
