# hugedax: build the patched 6.1.192 kernel, boot it in QEMU on emulated
# pmem, and run the demo and the tests there. See README.md.
CACHE   ?= $(HOME)/.cache/hugedax
KSRC    ?= $(CACHE)/linux
DEBUG   ?= 0
ifeq ($(DEBUG),1)
KOUT    ?= $(CACHE)/build-debug
VARIANT := debug
# KASAN, lockdep and page poisoning under emulation: give each guest longer
export TIMEOUT ?= 14400
OUT     ?= $(CURDIR)/out/debug
else
KOUT    ?= $(CACHE)/build
VARIANT :=
endif
OUT     ?= $(CURDIR)/out
# STOCK=1: the pristine 6.1.192 tree (a worktree at "base"), same config
STOCK   ?= 0
ifeq ($(STOCK),1)
KSRC    := $(CACHE)/linux.stock
KOUT    := $(CACHE)/build-stock
OUT     := $(OUT)/stock
endif
KERNEL  := $(KOUT)/arch/x86/boot/bzImage
export HUGEDAX_CACHE := $(CACHE)
# make test ONLY="a_test b_test stress": run just these in the main boot
export ONLY
# make xfstests XFSTESTS=/path/to/checkout QUICK=1 (see run-xfstests.sh)
export XFSTESTS QUICK
# make growth KERNELS=patched: boot only the patched kernel
export KERNELS
# make latency LATENCY_REPS=N LATENCY_OPS="msync truncate"
export LATENCY_REPS LATENCY_OPS

.PHONY: all setup tree kernel testbin test demo stress persist shell check check-series cover export clean

all: test

setup:
	scripts/setup-host.sh

tree: setup
ifeq ($(STOCK),1)
	scripts/tree.sh $(CACHE)/linux
	[ -d $(KSRC) ] || git -C $(CACHE)/linux worktree add -q --detach $(KSRC) base
else
	scripts/tree.sh $(KSRC)
endif

kernel: tree
	scripts/build-kernel.sh $(KSRC) $(KOUT) $(VARIANT)

testbin: tree
	$(MAKE) -s -C tests O=$(OUT)/bin KSRC=$(KSRC)

test: kernel testbin
	scripts/run-tests.sh $(KERNEL) $(OUT)/test

demo: kernel testbin
	scripts/run-demo.sh $(KERNEL) $(OUT)/demo

# page sizes side by side: the patched and the stock kernel booted once
# each, same guest layout; table, CSV and plot in $(OUT)/bench. The stock
# kernel is built first: a build beside the patched guest skews its times
# (xfs-sized read 1.45x device-dax instead of 1.01x in one such run).
.PHONY: bench
bench: kernel testbin
	$(MAKE) kernel STOCK=1
	scripts/run-bench.sh $(KERNEL) $(CACHE)/build-stock/arch/x86/boot/bzImage $(OUT)/bench

# page sizes of new DAX files on aged file systems, patched against stock
.PHONY: age
age: kernel testbin
	$(MAKE) kernel STOCK=1
	scripts/run-age.sh $(KERNEL) $(CACHE)/build-stock/arch/x86/boot/bzImage $(OUT)/age

# page sizes of DAX files by how they were written (appends, cp, concurrent
# appenders, fallocate, write faults, PMDK pools) on several mkfs layouts,
# patched against stock; KERNELS=patched skips the stock kernel
.PHONY: growth
growth: kernel testbin
ifneq ($(KERNELS),patched)
	$(MAKE) kernel STOCK=1
endif
	scripts/setup-host.sh libpmemobj-dev
	$(MAKE) -s -C tests O=$(OUT)/bin KSRC=$(KSRC) $(OUT)/bin/pmdk_probe
	scripts/run-growth.sh $(KERNEL) $(CACHE)/build-stock/arch/x86/boot/bzImage $(OUT)/growth

# latency of single operations (first write fault, msync, truncate, COW,
# a concurrent reader) at each page size, with device-dax and hugetlbfs
# anchors; table and plot in $(OUT)/latency (LATENCY_REPS, default 5)
.PHONY: latency
latency: kernel testbin
	scripts/run-latency.sh $(KERNEL) $(OUT)/latency

# does dax_align=off (mount option, sysfs) give the stock kernel's
# placement and page sizes? The same files on both kernels, compared
.PHONY: optout
optout: kernel testbin
	$(MAKE) kernel STOCK=1
	scripts/run-optout.sh $(KERNEL) $(CACHE)/build-stock/arch/x86/boot/bzImage $(OUT)/optout

# xfstests -g dax and a few mmap tests on ext4, xfs, ext2 with -o dax,
# stock against patched kernel; xfstests is cloned and built outside this
# repository (XFSTESTS=checkout, default $(CACHE)/xfstests); QUICK=1 adds
# -g quick. Summary in $(OUT)/xfstests/summary.txt.
.PHONY: xfstests
xfstests: kernel
	$(MAKE) kernel STOCK=1
	scripts/run-xfstests.sh $(KERNEL) $(CACHE)/build-stock/arch/x86/boot/bzImage $(OUT)/xfstests

# seeded model-based mmap stress on ext2, ext4, xfs, device-dax (SEEDS, OPS)
stress: kernel testbin
	scripts/run-stress.sh $(KERNEL) $(OUT)/stress

# processes and threads racing on the same DAX files, under multi-threaded
# TCG (RACE_MINUTES per target, SEED, RACE_FS; see scripts/run-race.sh)
.PHONY: race
race: kernel testbin
	scripts/run-race.sh $(KERNEL) $(OUT)/race

# Debian's stress-ng and fio, with verification, on the DAX mounts
.PHONY: tools-stress
tools-stress: kernel
	scripts/run-tools-stress.sh $(KERNEL) $(OUT)/tools-stress

# interrupts-off time of PMD and PUD faults and invalidations (DEBUG=1:
# its kernel has the irqsoff tracer)
.PHONY: irqsoff
irqsoff: kernel testbin
	scripts/run-irqsoff.sh $(KERNEL) $(OUT)/irqsoff

# write through huge mappings, reset the guest, check every byte next boot
persist: kernel testbin
	scripts/run-persist.sh $(KERNEL) $(OUT)/persist

# pstore/dax: panic with a record file registered on ext4, then on xfs, and
# read the record back after each reboot (also part of make test)
.PHONY: pstore
pstore: kernel testbin
	scripts/run-pstore.sh $(KERNEL) $(OUT)/pstore

# reset the guest while ext4 (KIND=head-xfs: xfs) moves the head of a
# growing DAX file (SEEDS="1 2 ..."), or with KIND=collapse (collapse-xfs)
# while daxpages --collapse moves an ext4 (xfs) file, check the data,
# e2fsck and xfs_repair next boot
.PHONY: move-reset
move-reset: kernel testbin
	scripts/run-move-reset.sh $(KERNEL) $(OUT)/move-reset

# an interactive guest: the same layout as the tests, a shell on the console
shell: kernel testbin
	GUEST_STDIN=/dev/stdin scripts/run-guest.sh $(KERNEL) guest/shell-job.sh $(OUT)/shell

# checkpatch --strict on every patch of the series
check: tree
	scripts/check-patches.sh $(KSRC)

# every patch builds on its own: compile what the series touches at each commit
check-series: kernel
	scripts/check-series-builds.sh $(KSRC) $(KOUT)/.config

# a cover letter per destination series (patches/covers: groups, blurbs)
cover: tree
	scripts/cover-letters.sh $(KSRC)

# re-export patches/ from the commits on top of "base" in $(KSRC)
export:
	scripts/export-patches.sh $(KSRC)

clean:
	rm -rf $(OUT)
