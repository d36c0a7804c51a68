#!/bin/bash
# Count TAP results in a guest console log and look for kernel trouble.
# usage: judge-console.sh CONSOLE_LOG
set -uo pipefail
log=$1
tr -d '\r' < "$log" > "$log.txt"
log=$log.txt

# the harness prints "ok N name" / "not ok N name" (and "# SKIP" on skips)
grep -E '^(not )?ok [0-9]+ ' "$log" | grep -v -- '# SKIP' > "$log.results" || true
grep -E '^ok [0-9]+ .*# SKIP' "$log" > "$log.skipped" || true
passed=$(grep -c '^ok ' "$log.results")
failed=$(grep -c '^not ok ' "$log.results")
skipped=$(wc -l < "$log.skipped")

trouble=0
if ! grep -q '^hugedax-test: done' "$log"; then
	echo "judge: the guest did not finish the tests (see $1)"
	trouble=1
fi
if grep -n -E 'WARNING: CPU|BUG:|Oops|bad pud|bad pmd' "$log"; then
	echo "judge: the kernel log shows trouble (see $1)"
	trouble=1
fi
grep '^not ok ' "$log.results" | sed 's/^/judge: failed: /'
[ "$skipped" = 0 ] || sed 's/^/judge: skipped: /' "$log.skipped"

if [ "$skipped" = 0 ]; then
	echo "$passed passed, $failed failed"
else
	echo "$passed passed, $failed failed, $skipped skipped"
fi
[ "$failed" = 0 ] && [ "$trouble" = 0 ] && [ "$passed" -gt 0 ]
