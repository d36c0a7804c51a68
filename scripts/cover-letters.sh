#!/bin/bash
# Write a cover letter for each destination series of patches/series
# (patches/covers/groups: name, first and last patch number, title) from
# its blurb (patches/covers/NAME.blurb), with the shortlog and diffstat of
# its commits in SRC, the kernel tree at the whole series (make cover).
# usage: cover-letters.sh SRC
set -euo pipefail
src=$1
here=$(cd "$(dirname "$0")/.." && pwd)
covers=$here/patches/covers
mapfile -t commits < <(git -C "$src" rev-list --reverse base..HEAD)
total=$(grep -vc '^#' "$here/patches/series")
[ "${#commits[@]}" = "$total" ] || {
	echo "cover: $src has ${#commits[@]} commits, patches/series $total" >&2
	exit 1
}
while read -r name first last title; do
	case "$name" in ''|'#'*) continue ;; esac
	a=${commits[$((10#$first - 1))]} b=${commits[$((10#$last - 1))]}
	n=$((10#$last - 10#$first + 1))
	{
		echo "Subject: [PATCH 0/$n] $title"
		echo
		cat "$covers/$name.blurb"
		echo
		echo "Patches $first to $last of patches/series."
		echo
		git -C "$src" shortlog --no-merges "$a^..$b"
		git -C "$src" diff --stat=72 "$a^" "$b"
		echo
		echo "-- "
		echo "hugedax, against Linux 6.1.192 (Debian linux-source-6.1 6.1.192-3)"
	} > "$covers/$name.cover"
	echo "cover: $name ($n patches)"
done < "$covers/groups"
