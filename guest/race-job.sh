#!/bin/sh
# Guest side of `make race`: fresh filesystems (default mkfs), then
# tests/race_stress on the targets and for the time scripts/run-race.sh
# wrote to /mnt/out/race.conf. The boot runs under multi-threaded TCG: no
# tracepoints, kprobes or ftrace here (enabling them patches kernel text,
# and a guest once died of an int3 trap doing so under MTTCG).
# shellcheck source=/dev/null
[ -f /mnt/out/race.conf ] && . /mnt/out/race.conf
EXT4_MKFS_OPTS="" XFS_MKFS_OPTS="" sh /mnt/repo/guest/setup-pmem.sh mkfs
HUGEDAX_DEVDAX=$(cut -d' ' -f2 /mnt/devdax-path)
export HUGEDAX_DEVDAX RACE_SEED RACE_SECONDS RACE_ROUND RACE_FS RACE_PROCS RACE_THREADS RACE_REUSE
echo "hugedax-test: $(nproc) CPUs; vmstat: $(grep '^dax_' /proc/vmstat | tr '\n' ' ')"
echo "hugedax-test: begin race_stress"
start=$(cut -d. -f1 /proc/uptime)
/mnt/out/bin/race_stress
rc=$?
echo "hugedax-test: end race_stress status $rc after $(($(cut -d. -f1 /proc/uptime) - start)) s"
echo "hugedax-test: vmstat: $(grep '^dax_' /proc/vmstat | tr '\n' ' ')"
echo "hugedax-test: dmesg begin"
dmesg
echo "hugedax-test: dmesg end"
echo "hugedax-test: done"
