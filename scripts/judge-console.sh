#!/bin/bash
# Count TAP results in guest console logs and look for kernel trouble.
# usage: judge-console.sh CONSOLE_LOG...
# Every log must show its guest finishing ("hugedax-test: done"); the last
# line is "N passed, N failed" over all of them.
set -uo pipefail
passed=0 failed=0 skipped=0 trouble=0
for raw in "$@"; do
	log=$raw.txt
	tr -d '\r' < "$raw" > "$log" 2>/dev/null || : > "$log"
	# the harness prints "ok N name" / "not ok N name" ("# SKIP" on skips)
	grep -E '^(not )?ok [0-9]+ ' "$log" | grep -v -- '# SKIP' > "$log.results"
	grep -E '^ok [0-9]+ .*# SKIP' "$log" > "$log.skipped"
	passed=$((passed + $(grep -c '^ok ' "$log.results")))
	failed=$((failed + $(grep -c '^not ok ' "$log.results")))
	skipped=$((skipped + $(wc -l < "$log.skipped")))

	if ! grep -q '^hugedax-test: done' "$log"; then
		echo "judge: the guest did not finish the tests (see $raw)"
		trouble=1
	fi
	if grep -n -E 'WARNING: CPU|BUG:|kernel BUG at|Oops|bad pud|bad pmd' "$log"; then
		echo "judge: the kernel log shows trouble (see $raw)"
		trouble=1
	fi
	grep '^not ok ' "$log.results" | sed 's/^/judge: failed: /'
	sed 's/^/judge: skipped: /' "$log.skipped"
done

if [ "$skipped" = 0 ]; then
	echo "$passed passed, $failed failed"
else
	echo "$passed passed, $failed failed, $skipped skipped"
fi
[ "$failed" = 0 ] && [ "$trouble" = 0 ] && [ "$passed" -gt 0 ]
