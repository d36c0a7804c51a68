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
	# Mount option tokens are named Opt_* in every filesystem, and
	# checkpatch cannot learn enum members, so it takes each new one, and
	# each line of them a patch touches, for CamelCase: drop just those.
	out=$(cd "$src" && perl scripts/checkpatch.pl --strict --terse \
		--ignore UNKNOWN_COMMIT_ID "$here/patches/$p" 2>&1 |
		grep -v 'CHECK: Avoid CamelCase: <Opt_[a-z0-9_]*>$')
	# --terse prints nothing, or a "total:" line, for a clean patch
	if echo "$out" | grep -Eq ': (ERROR|WARNING|CHECK):|total: [1-9]|, [1-9][0-9]* warnings'; then
		bad=$((bad + 1))
		printf '%s:\n%s\n' "$p" "$out"
	fi
done < "$here/patches/series"
echo "check: $n patches, $bad with checkpatch findings"
[ "$bad" = 0 ]
