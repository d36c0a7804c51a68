#!/bin/bash
# Boot a kernel in QEMU on emulated persistent memory and run one guest job.
# usage: run-guest.sh KERNEL JOB OUTDIR
#   KERNEL  bzImage to boot
#   JOB     shell script the guest runs as root, then powers off; it is
#           copied to OUTDIR/job.sh
#   OUTDIR  host directory the guest sees, writable, at /mnt/out; the serial
#           console is saved there as console.log
# The guest sees this repository read-only at /mnt/repo, wherever it is on
# the host (the host's /tmp, say, is hidden under the guest's own tmpfs).
# environment:
#   HUGEDAX_CACHE  where the pmem backing files live (default ~/.cache/hugedax)
#   PMEMDIR        the backing files' directory (default $HUGEDAX_CACHE/pmem);
#                  guests on different ones do not wait for each other
#   ACCEL=tcg|kvm  tcg by default (KVM guests did not boot in time here)
#   PMEM=nvdimm|legacy  nvdimm: ACPI NFIT DIMMs (default); legacy: an extra
#                  memmap=4G!… e820 range in RAM, for tools that want it
#   TIMEOUT        seconds before the guest is killed (default 1800)
#   CPU            QEMU -cpu model under TCG (default max; it has pdpe1gb)
#   SMP            guest CPUs (default 2)
#   MTTCG=1        multi-threaded TCG (-accel tcg,thread=multi): the vCPUs
#                  really run in parallel; default single-threaded. Keep
#                  tracepoints, kprobes and ftrace off in such a boot: a
#                  guest died in an int3 trap once when enabling tracepoints
#                  patched kernel text under MTTCG
#   FRESH_PMEM=1   recreate the backing files (all data lost)
set -euo pipefail
kernel=$1 job=$2 outdir=$3
here=$(cd "$(dirname "$0")/.." && pwd)
cache=${HUGEDAX_CACHE:-$HOME/.cache/hugedax}
accel=${ACCEL:-tcg} pmem_mode=${PMEM:-nvdimm} timeout=${TIMEOUT:-1800}
smp=${SMP:-2} tcg_thread=single
[ "${MTTCG:-0}" = 1 ] && tcg_thread=multi
pmemdir=${PMEMDIR:-$cache/pmem}

# name:size of each DIMM, in slot order; the guest's setup-pmem.sh knows them
# by this order. 18G gives a 16 GiB fsdax namespace with 1 GiB alignment and
# struct pages stored on the device; 6G gives 4 GiB.
dimms="ext4:18G xfs:18G ext2:6G devdax:6G"

mkdir -p "$pmemdir" "$outdir"
# one guest at a time on these backing files: wait for any other one
exec 9>"$pmemdir/.lock"
flock 9
[ "$(realpath "$job")" = "$(realpath "$outdir")/job.sh" ] || cp "$job" "$outdir/job.sh"
[ "${FRESH_PMEM:-0}" = 1 ] && rm -f "$pmemdir"/*.img
args=()
ram=6G maxmem=6G slot=0
cmdline="console=ttyS0 loglevel=5 panic=-1 root=root rootfstype=9p"
cmdline+=" rootflags=trans=virtio,version=9p2000.L,msize=262144,cache=loose ro"
cmdline+=" init=$here/guest/init hugedax.job=/mnt/out/job.sh"
cmdline+=" hugepagesz=1G hugepages=2"
# pstore/dax (when a job registers a file): record emergency restarts too,
# not just oopses and panics. This also keeps the word the console judge
# looks for out of pstore/zone's "registered ... kmsg(<max reason>,...)" line.
cmdline+=" pstore_blk.max_reason=3"
if [ "$pmem_mode" = nvdimm ]; then
	total=6
	for d in $dimms; do
		name=${d%%:*} size=${d#*:}
		img=$pmemdir/$name.img
		[ -f "$img" ] || truncate -s "$size" "$img"
		args+=(-object "memory-backend-file,id=pm$slot,share=on,mem-path=$img,size=$size,align=1G"
		       -device "nvdimm,id=nv$slot,memdev=pm$slot,label-size=128K")
		total=$((total + ${size%G}))
		slot=$((slot + 1))
	done
	maxmem=$((total + 1))G
	machine=pc,nvdimm=on
else
	# 4 GiB of RAM at 4 GiB..8 GiB becomes a legacy pmem region
	ram=9G
	machine=pc
	cmdline+=' memmap=4G!4G'
fi

mem=$ram
[ "$slot" = 0 ] || mem="$ram,slots=$((slot + 1)),maxmem=$maxmem"

if [ "$accel" = kvm ]; then
	accel_args=(-accel kvm -cpu "${CPU:-host}")
else
	accel_args=(-accel "tcg,thread=$tcg_thread" -cpu "${CPU:-max}")
fi

echo "run-guest: booting $kernel ($accel, $pmem_mode, $smp CPUs), job $job" >&2
set +e
timeout --foreground -k 10 "$timeout" qemu-system-x86_64 \
	-machine "$machine" "${accel_args[@]}" -smp "$smp" \
	-m "$mem" \
	"${args[@]}" \
	-fsdev local,id=root,path=/,security_model=none,readonly=on,multidevs=remap \
	-device virtio-9p-pci,fsdev=root,mount_tag=root \
	-fsdev "local,id=repo,path=$here,security_model=none,readonly=on" \
	-device virtio-9p-pci,fsdev=repo,mount_tag=repo \
	-fsdev "local,id=out,path=$(realpath "$outdir"),security_model=none" \
	-device virtio-9p-pci,fsdev=out,mount_tag=out \
	-kernel "$kernel" -append "$cmdline" \
	-display none -serial stdio -monitor none -no-reboot <"${GUEST_STDIN:-/dev/null}" \
	| tee "$outdir/console.log"
rc=${PIPESTATUS[0]}
set -e
[ "$rc" = 0 ] || echo "run-guest: qemu exited with $rc" >&2
exit "$rc"
