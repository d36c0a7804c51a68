#!/bin/bash
# scripts/checkpatch.pl --strict on every patch in patches/series.
# usage: check-patches.sh SRC
set -uo pipefail
src=$1
here=$(cd "$(dirname "$0")/.." && pwd)
bad=0 n=0
while read -r p; do
	case "$p" in ''|'#'*) continue ;; esac
	n=$((n + 1))
	# The tree is a tarball in git without upstream history, so the ids
	# in Fixes: tags cannot be looked up here (UNKNOWN_COMMIT_ID).
	out=$(cd "$src" && perl scripts/checkpatch.pl --strict --terse \
		--ignore UNKNOWN_COMMIT_ID "$here/patches/$p" 2>&1)
	# --terse prints nothing, or a "total:" line, for a clean patch
	if [ -n "$out" ] && ! echo "$out" | grep -q 'total: 0 errors, 0 warnings, 0 checks'; then
		bad=$((bad + 1))
		printf '%s:\n%s\n' "$p" "$out"
	fi
done < "$here/patches/series"
echo "check: $n patches, $bad with checkpatch findings"
[ "$bad" = 0 ]
