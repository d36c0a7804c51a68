#!/bin/bash
# Host side of `make race`: boot the guest under multi-threaded TCG (MTTCG=1,
# SMP=4: the guest's CPUs really run in parallel) with guest/race-job.sh,
# which runs tests/race_stress (processes and threads racing on the same
# DAX files) on each target, then judge the console: every test "ok", no
# kernel warning. Prints the seed, the per-round operation counts and any
# violation.
# usage: run-race.sh KERNEL OUTDIR
# environment: RACE_MINUTES per target (default 3), SEED (default: the
# clock), RACE_FS (default "ext4 xfs devdax"; ext4 also runs the negative
# control), RACE_ROUND seconds (30), RACE_PROCS (4), RACE_THREADS (2),
# SMP (4), TIMEOUT for the guest (default from the minutes), RACE_REUSE=1
# (file 0 made anew every round on the old one's blocks: see race_stress.c)
set -euo pipefail
kernel=$1 outdir=$2
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$outdir"
bin=$(cd "$outdir/.." && pwd)/bin
rm -f "$outdir/console.log"
rm -rf "${outdir:?}/bin" && cp -r "$bin" "$outdir/bin"
minutes=${RACE_MINUTES:-3} seed=${SEED:-$(date +%s)}
targets=${RACE_FS:-ext4 xfs devdax}
n=$(wc -w <<< "$targets")
cat > "$outdir/race.conf" <<CONF
RACE_SEED=$seed
RACE_SECONDS=$((minutes * 60))
RACE_ROUND=${RACE_ROUND:-30}
RACE_FS="$targets"
RACE_PROCS=${RACE_PROCS:-4}
RACE_THREADS=${RACE_THREADS:-2}
RACE_REUSE=${RACE_REUSE:-0}
CONF
echo "run-race: seed $seed, $minutes min on each of: $targets"
MTTCG=1 SMP=${SMP:-4} TIMEOUT=${TIMEOUT:-$((minutes * 60 * n * 3 + 1800))} \
	"$here/scripts/run-guest.sh" "$kernel" "$here/guest/race-job.sh" \
	"$outdir" >/dev/null || true
tr -d '\r' < "$outdir/console.log" |
	grep -E '^(# (race|.* round|.* total|  |VIOLATION|FAIL|negative)|hugedax-test: .*(CPUs|status))' || true
# judge-console.sh looks for "BUG:"; a BUG_ON() prints "kernel BUG at"
bug=0
if tr -d '\r' < "$outdir/console.log" | grep -n -E 'kernel BUG at|general protection fault'; then
	echo "run-race: the kernel log shows a BUG (see $outdir/console.log)"
	bug=1
fi
"$here/scripts/judge-console.sh" "$outdir/console.log" && [ "$bug" = 0 ]
