// SPDX-License-Identifier: GPL-2.0
/*
 * Which page sizes do DAX mappings get?  With the series:
 *
 *   fs-dax (ext4, xfs)  2 MiB PMDs here: ext4 extents hold at most 128 MiB,
 *                       and the xfs stripe recipe (su=2m) makes 1 GiB
 *                       allocation groups (1 GiB: fsdax_pud_test.c)
 *   fs-dax (ext2)       2 MiB PMDs (ext2 aligns DAX allocations; PMD is its
 *                       ceiling: block groups are 128 MiB)
 *   device-dax          1 GiB PUDs when the device is 1 GiB aligned
 *   hugetlbfs 1 GiB     1 GiB PUDs (positive control for the PUD signal)
 *
 * Every page size claim is checked with two independent signals: the
 * number of page faults (getrusage) and either the fs_dax tracepoints
 * (fs-dax) or the kernel page table dump (device-dax, hugetlb).  The page
 * table dump is added as a further signal wherever it is cheap.  Every
 * positive result has a negative control that differs in one thing only.
 *
 * Fault counts are minor + major faults: a DAX PTE fault that allocates or
 * converts blocks is accounted as a major fault, PMD and PUD faults never.
 *
 * Runs in the hugedax QEMU guest as root; see the Makefile for the expected
 * guest setup.  Never reads smaps, pagemap or mincore() of a PUD mapping:
 * on 6.1 that splits (zaps) it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "dax_probe.h"

/*
 * The 6.1 harness has unused parameters (its SIGALRM handler and the
 * wrapper every TEST() expands to), which -Wextra -Werror rejects.
 */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"
#include "dax_checks.h"

#ifndef MAP_HUGE_1GB
#define MAP_HUGE_1GB	(30 << 26)	/* log2(1 GiB) << MAP_HUGE_SHIFT */
#endif

/*
 * ext4 keeps unwritten extents at most 32767 blocks long, so one 1 GiB
 * fallocate() leaves extent boundaries in the middle of 2 MiB pieces.
 * 32 MiB requests (8192 blocks: a multiple of the 2 MiB stripe and a
 * buddy order) keep every boundary and start 2 MiB aligned.
 */
#define FALLOC_CHUNK	(32 * SZ_1M)

#define PMDS_PER_1G	(SZ_1G / SZ_2M)

static const char *const dax_events[] = {
	"fs_dax/dax_pmd_fault_done",
	"fs_dax/dax_pmd_load_hole",
	"fs_dax/dax_pte_fault_done",
	NULL,
};

static uint64_t pread_word(struct __test_metadata *_metadata, int fd,
			   off_t off)
{
	uint64_t w = 0;
	ssize_t ret;
	int err;

	ret = pread(fd, &w, sizeof(w), off);
	err = errno;
	ASSERT_EQ((ssize_t)sizeof(w), ret) {
		TH_LOG("pread at %#lx: %s", (unsigned long)off, strerror(err));
	}
	return w;
}


/*
 * A PMD needs the 2 MiB piece to be 2 MiB aligned on the device as well.
 * Check that up front, so that a file system layout problem (mkfs options,
 * extent size hint) is reported as such and not as a fault path failure.
 */
static void assert_pmd_layout(struct __test_metadata *_metadata, int fd,
			      off_t off, off_t len)
{
	long want = len / SZ_2M;
	long got = fiemap_aligned_chunks(fd, off, len, SZ_2M);
	int err = errno;

	ASSERT_LE(0L, got) {
		TH_LOG("FIEMAP: %s", strerror(err));
	}
	ASSERT_EQ(want, got) {
		TH_LOG("only %ld of %ld 2 MiB pieces of the file are 2 MiB aligned on the device (FIEMAP): file system layout, not the fault path",
		       got, want);
	}
}

/* ---- fs-dax files ---- */

struct dax_file {
	const char *dir;
	char path[PATH_MAX];
	int fd;
	void *map;
	size_t len;
};

static void dax_file_setup(struct __test_metadata *_metadata,
			   struct dax_file *f, const char *fstype,
			   const char *env, const char *def)
{
	char type[64] = "";
	int dax = 0, ret, err;

	f->fd = -1;
	f->map = MAP_FAILED;
	if (geteuid())
		SKIP(return, "needs root");
	f->dir = env_or(env, def);
	ret = mount_of(f->dir, type, sizeof(type), &dax);
	ASSERT_EQ(0, ret) {
		TH_LOG("%s is not a mount point (override with %s)",
		       f->dir, env);
	}
	ASSERT_STREQ(fstype, type);
	ASSERT_EQ(1, dax) {
		TH_LOG("%s is not mounted with -o dax", f->dir);
	}

	snprintf(f->path, sizeof(f->path), "%s/hugedax.%s.%d",
		 f->dir, _metadata->name, getpid());
	f->fd = open(f->path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	err = errno;
	ASSERT_LE(0, f->fd) {
		TH_LOG("create %s: %s", f->path, strerror(err));
	}
	ret = file_is_dax(f->fd);
	if (ret != 1)
		unlink(f->path);	/* no teardown after a failed setup */
	ASSERT_EQ(1, ret) {
		TH_LOG("%s is not in DAX mode", f->path);
	}
}

static void dax_file_teardown(struct dax_file *f)
{
	trace_stop();
	if (f->map != MAP_FAILED)
		munmap(f->map, f->len);
	if (f->fd >= 0)
		close(f->fd);
	if (f->path[0])
		unlink(f->path);
}

static char *dax_file_map(struct __test_metadata *_metadata,
			  struct dax_file *f, size_t len, size_t align,
			  int flags, size_t misalign)
{
	int err;

	f->len = len;
	f->map = map_aligned(len, align, PROT_READ | PROT_WRITE, flags,
			     f->fd, 0, misalign);
	err = errno;
	ASSERT_NE(MAP_FAILED, f->map) {
		TH_LOG("mmap %zu bytes of %s: %s", len, f->path,
		       strerror(err));
	}
	return f->map;
}

static void dax_file_unmap(struct dax_file *f)
{
	if (f->map != MAP_FAILED)
		munmap(f->map, f->len);
	f->map = MAP_FAILED;
}

FIXTURE(fsdax) {
	struct dax_file f;
};

FIXTURE_VARIANT(fsdax) {
	const char *fstype;
	const char *env;
	const char *dir;
};

/* default mkfs.ext4; mount -o dax */
FIXTURE_VARIANT_ADD(fsdax, ext4) {
	.fstype = "ext4",
	.env = "HUGEDAX_EXT4",
	.dir = "/mnt/ext4",
};

/* default mkfs.xfs; mount -o dax */
FIXTURE_VARIANT_ADD(fsdax, xfs) {
	.fstype = "xfs",
	.env = "HUGEDAX_XFS",
	.dir = "/mnt/xfs",
};

FIXTURE_SETUP(fsdax)
{
	dax_file_setup(_metadata, &self->f, variant->fstype, variant->env,
		       variant->dir);
}

FIXTURE_TEARDOWN(fsdax)
{
	dax_file_teardown(&self->f);
}

/*
 * Access order: fallocate 1 GiB (never written), map it MAP_SHARED at a
 * 1 GiB-aligned address, write one word per 4 KiB from low to high
 * addresses.  The first write into each 2 MiB is a PMD write fault that
 * converts the unwritten extent, zeroing it inside the fault; the other
 * 511 writes into that 2 MiB hit the now writable PMD and do not fault.
 * Then unmap and read a sample back with pread().
 */
TEST_F_TIMEOUT(fsdax, shared_write_1g_aligned_maps_pmds, TIMEOUT_LONG)
{
	int fd = self->f.fd;
	uint64_t seed = new_seed();
	struct fault_count fc;
	off_t bad = 0;
	size_t i;
	char *p;

	RETURN_IF_SKIPPED();
	ASSERT_EQ(0, falloc_chunked(fd, SZ_1G, FALLOC_CHUNK));
	assert_pmd_layout(_metadata, fd, 0, SZ_1G);
	p = dax_file_map(_metadata, &self->f, SZ_1G, SZ_1G, MAP_SHARED, 0);

	traced_touch(_metadata, dax_events, &fc, p, SZ_1G, SZ_4K, true, seed, 0);

	expect_faults(_metadata, "write 1 GiB", &fc, PMDS_PER_1G);
	EXPECT_EQ((long)PMDS_PER_1G, trace_count("dax_pmd_fault_done", "NOPAGE"));
	EXPECT_EQ(0L, trace_count("dax_pmd_fault_done", "FALLBACK"));
	EXPECT_EQ(0L, trace_count("dax_pmd_load_hole", NULL));
	EXPECT_EQ(0L, trace_count("dax_pte_fault_done", NULL));
	expect_levels(_metadata, p, SZ_1G, 0, SZ_1G, 0);

	dax_file_unmap(&self->f);

	/*
	 * Data written through the mapping reads back with read(2): one
	 * written word per 2 MiB (a different page each time), the unwritten
	 * word next to it (zeroed by the fault), and every written word of
	 * the first and the last 2 MiB.
	 */
	for (i = 0; i < PMDS_PER_1G; i++) {
		off_t off = i * SZ_2M + (i * 37 % (SZ_2M / SZ_4K)) * SZ_4K;

		ASSERT_EQ(pattern_word(seed, off), pread_word(_metadata, fd, off)) {
			TH_LOG("file offset %#lx", (unsigned long)off);
		}
		ASSERT_EQ((uint64_t)0, pread_word(_metadata, fd, off + 8)) {
			TH_LOG("file offset %#lx", (unsigned long)off + 8);
		}
	}
	EXPECT_EQ(0, check_file_pattern(fd, 0, SZ_2M, SZ_4K, seed, &bad)) {
		TH_LOG("file offset %#lx", (unsigned long)bad);
	}
	EXPECT_EQ(0, check_file_pattern(fd, SZ_1G - SZ_2M, SZ_2M, SZ_4K, seed,
					&bad)) {
		TH_LOG("file offset %#lx", (unsigned long)bad);
	}
}

/*
 * Negative control for shared_write_1g_aligned_maps_pmds, differing only
 * in the mapping address: the same kind of file (fallocated, PMD-capable
 * layout) mapped at a 1 GiB-aligned address + 4 KiB, so virtual address
 * and file offset disagree modulo 2 MiB and no PMD can map it.  Access
 * order: write one word per 4 KiB over 64 MiB, low to high.  The first
 * fault in each 2 MiB of address space tries a PMD, which falls back;
 * every 4 KiB then takes its own PTE fault.
 */
TEST_F_TIMEOUT(fsdax, shared_write_misaligned_maps_ptes, TIMEOUT_SHORT)
{
	const size_t len = 64 * SZ_1M;
	const long pages = len / SZ_4K;
	/* 2 MiB pieces of address space the range touches: 33 */
	const long regions = len / SZ_2M + 1;
	int fd = self->f.fd;
	uint64_t seed = new_seed();
	struct fault_count fc;
	off_t bad = 0;
	long fallback;
	char *p;

	RETURN_IF_SKIPPED();
	ASSERT_EQ(0, falloc_chunked(fd, len, FALLOC_CHUNK));
	assert_pmd_layout(_metadata, fd, 0, len);
	p = dax_file_map(_metadata, &self->f, len, SZ_1G, MAP_SHARED, SZ_4K);
	ASSERT_EQ(SZ_4K, (unsigned long)p & (SZ_2M - 1));

	traced_touch(_metadata, dax_events, &fc, p, len, SZ_4K, true, seed, 0);

	expect_faults(_metadata, "write 64 MiB misaligned", &fc, pages);
	EXPECT_EQ(0L, trace_count("dax_pmd_fault_done", "NOPAGE"));
	fallback = trace_count("dax_pmd_fault_done", "FALLBACK");
	EXPECT_LT(0L, fallback);
	EXPECT_GE(regions, fallback);
	EXPECT_EQ(pages, trace_count("dax_pte_fault_done", NULL));
	expect_levels(_metadata, p, len, len, 0, 0);

	dax_file_unmap(&self->f);
	EXPECT_EQ(0, check_file_pattern(fd, 0, len, SZ_4K, seed, &bad)) {
		TH_LOG("file offset %#lx", (unsigned long)bad);
	}
}

/*
 * MAP_PRIVATE of a file holding a pattern (written with pwrite).  Access
 * order: read one word per 4 KiB of the first 2 MiB (one PMD read fault
 * mapping the file read-only), then write one word at 3 * 4 KiB + 8.  The
 * write is offered to ->huge_fault, which falls back because a private
 * write must copy; the PMD is split (zapped) and the write copies just the
 * one 4 KiB page.  Then read every other word of the 2 MiB (PTE read
 * faults of the file).
 */
TEST_F_TIMEOUT(fsdax, private_write_copies_one_4k_page, TIMEOUT_SHORT)
{
	const size_t len = 2 * SZ_2M;
	const size_t woff = 3 * SZ_4K + 8;
	int fd = self->f.fd;
	uint64_t seed = new_seed(), mark;
	struct fault_count fc;
	size_t bad = 0;
	long calib;
	char *p;

	RETURN_IF_SKIPPED();
	ASSERT_EQ(0, write_file_pattern(fd, 0, len, seed));
	assert_pmd_layout(_metadata, fd, 0, SZ_2M);
	p = dax_file_map(_metadata, &self->f, len, SZ_2M, MAP_PRIVATE, 0);

	traced_touch(_metadata, dax_events, &fc, p, SZ_2M, SZ_4K, false, 0, 0);

	expect_faults(_metadata, "read 2 MiB private", &fc, 1);
	EXPECT_EQ(1L, trace_count("dax_pmd_fault_done", "NOPAGE"));
	EXPECT_EQ(0L, trace_count("dax_pmd_fault_done", "FALLBACK"));
	expect_levels(_metadata, p, SZ_2M, 0, SZ_2M, 0);
	EXPECT_EQ(0, check_pattern(p, SZ_2M, 8, seed, 0, &bad)) {
		TH_LOG("mapping differs from the file at %#zx", bad);
	}

	mark = pattern_word(seed + 1, woff);
	ASSERT_NE(pattern_word(seed, woff), mark);
	calib = calibrate_minflt();
	start_tracing(_metadata, dax_events);
	fault_begin(&fc, calib);
	*(volatile uint64_t *)(p + woff) = mark;
	fault_end(&fc);
	stop_tracing(_metadata);

	TH_LOG("write 1 word private: %ld faults (%ld minor, %ld major)",
	       fc.min + fc.maj, fc.min, fc.maj);
	EXPECT_LE(1L, fc.min + fc.maj);
	EXPECT_GE(3L, fc.min + fc.maj);
	EXPECT_EQ(1L, trace_count("dax_pmd_fault_done", "FALLBACK"));
	EXPECT_EQ(0L, trace_count("dax_pmd_fault_done", "NOPAGE"));

	/* The file is unchanged, the mapping shows the new word ... */
	EXPECT_EQ(pattern_word(seed, woff), pread_word(_metadata, fd, woff));
	EXPECT_EQ(mark, *(volatile uint64_t *)(p + woff));
	/* ... and every other word of the 2 MiB still shows the file. */
	EXPECT_EQ(0, check_pattern(p, woff, 8, seed, 0, &bad)) {
		TH_LOG("mapping differs from the file at %#zx", bad);
	}
	EXPECT_EQ(0, check_pattern(p + woff + 8, SZ_2M - woff - 8, 8, seed,
				   woff + 8, &bad)) {
		TH_LOG("mapping differs from the file at %#zx", woff + 8 + bad);
	}
	/* Exactly one 4 KiB page was copied. */
	EXPECT_EQ(4L, smaps_kb((unsigned long)p, "Anonymous:"));
	expect_levels(_metadata, p, SZ_2M, SZ_2M, 0, 0);
}

/*
 * Negative control for shared_write_1g_aligned_maps_pmds, differing only
 * in MADV_NOHUGEPAGE: a PMD-capable fallocated file mapped MAP_SHARED at a
 * 1 GiB-aligned address.  Access order: madvise, then write one word per
 * 4 KiB over 64 MiB, low to high.  No PMD is even tried.
 */
TEST_F_TIMEOUT(fsdax, nohugepage_shared_write_maps_ptes, TIMEOUT_SHORT)
{
	const size_t len = 64 * SZ_1M;
	const long pages = len / SZ_4K;
	int fd = self->f.fd;
	uint64_t seed = new_seed();
	struct fault_count fc;
	off_t bad = 0;
	char *p;

	RETURN_IF_SKIPPED();
	ASSERT_EQ(0, falloc_chunked(fd, len, FALLOC_CHUNK));
	assert_pmd_layout(_metadata, fd, 0, len);
	p = dax_file_map(_metadata, &self->f, len, SZ_1G, MAP_SHARED, 0);
	ASSERT_EQ(0, madvise(p, len, MADV_NOHUGEPAGE));

	traced_touch(_metadata, dax_events, &fc, p, len, SZ_4K, true, seed, 0);

	expect_faults(_metadata, "write 64 MiB nohugepage", &fc, pages);
	EXPECT_EQ(0L, trace_count("dax_pmd_fault_done", NULL));
	EXPECT_EQ(pages, trace_count("dax_pte_fault_done", NULL));
	expect_levels(_metadata, p, len, len, 0, 0);

	dax_file_unmap(&self->f);
	EXPECT_EQ(0, check_file_pattern(fd, 0, len, SZ_4K, seed, &bad)) {
		TH_LOG("file offset %#lx", (unsigned long)bad);
	}
}

/*
 * MADV_COLD and MADV_PAGEOUT find nothing to reclaim in a DAX mapping: its
 * PMDs stay (the page-table dump still shows them and reading everything
 * again takes no fault) and the data is intact.  Stock 6.1 took a DAX PMD
 * for a bad page table there, logged "bad pmd" and cleared it (found by
 * stress-ng's file-backed mmap stressor, `make tools-stress`).  Access
 * order: pwrite 16 MiB, map, read one word per 4 KiB, advise, read again.
 */
TEST_F_TIMEOUT(fsdax, madv_cold_pageout_keep_pmds, TIMEOUT_SHORT)
{
	static const int advice[] = { MADV_COLD, MADV_PAGEOUT };
	const size_t len = 16 * SZ_1M;
	uint64_t seed = new_seed();
	struct fault_count fc;
	unsigned int i;
	char *p;

	RETURN_IF_SKIPPED();
	ASSERT_EQ(0, write_file_pattern(self->f.fd, 0, len, seed));
	p = dax_file_map(_metadata, &self->f, len, SZ_2M, MAP_SHARED, 0);
	fault_begin(&fc, calibrate_minflt());
	touch_read(p, len, SZ_4K);
	fault_end(&fc);
	expect_faults(_metadata, "read 16 MiB", &fc, len / SZ_2M);
	expect_levels(_metadata, p, len, 0, len, 0);

	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, madvise(p, len, advice[i]));
		expect_levels(_metadata, p, len, 0, len, 0);
		fault_begin(&fc, calibrate_minflt());
		touch_read(p, len, SZ_4K);
		fault_end(&fc);
		TH_LOG("advice %d: reading again took %ld faults", advice[i],
		       fc.min + fc.maj);
		EXPECT_GE(FAULT_SLACK, fc.min + fc.maj);
	}
	EXPECT_EQ(0, check_pattern(p, len, SZ_4K, seed, 0, NULL));
}

/*
 * Reading a fallocated, never written range maps the huge zero page.
 * Access order: read one word per 4 KiB of the first 2 MiB of a MAP_SHARED
 * mapping (one PMD read fault loading the zero PMD), then write one word
 * per 4 KiB of the same 2 MiB (one PMD write fault replacing the zero PMD
 * by the zeroed, now written blocks).
 */
TEST_F_TIMEOUT(fsdax, read_unwritten_maps_huge_zero_page, TIMEOUT_SHORT)
{
	const size_t len = 2 * SZ_2M;
	int fd = self->f.fd;
	uint64_t seed = new_seed();
	struct fault_count fc;
	off_t bad = 0;
	char *p;

	RETURN_IF_SKIPPED();
	ASSERT_EQ(0, falloc_chunked(fd, len, FALLOC_CHUNK));
	assert_pmd_layout(_metadata, fd, 0, len);
	p = dax_file_map(_metadata, &self->f, len, SZ_2M, MAP_SHARED, 0);

	traced_touch(_metadata, dax_events, &fc, p, SZ_2M, SZ_4K, false, 0, 0);

	expect_faults(_metadata, "read 2 MiB unwritten", &fc, 1);
	EXPECT_EQ(1L, trace_count("dax_pmd_load_hole", NULL));
	EXPECT_EQ(1L, trace_count("dax_pmd_fault_done", "NOPAGE"));
	expect_levels(_metadata, p, SZ_2M, 0, SZ_2M, 0);
	EXPECT_EQ((uint64_t)0, touch_read(p, SZ_2M, 8));

	traced_touch(_metadata, dax_events, &fc, p, SZ_2M, SZ_4K, true, seed, 0);

	expect_faults(_metadata, "write 2 MiB over the zero PMD", &fc, 1);
	EXPECT_EQ(0L, trace_count("dax_pmd_load_hole", NULL));
	EXPECT_EQ(1L, trace_count("dax_pmd_fault_done", "NOPAGE"));
	expect_levels(_metadata, p, SZ_2M, 0, SZ_2M, 0);

	dax_file_unmap(&self->f);
	EXPECT_EQ(0, check_file_pattern(fd, 0, SZ_2M, SZ_4K, seed, &bad)) {
		TH_LOG("file offset %#lx", (unsigned long)bad);
	}
}

/*
 * A 4096-byte file mapped with 8192 bytes.  Access order: read and write
 * the first page, then write the second page, which lies past EOF: SIGBUS.
 * The file is unlinked first, as teardown does not run after the signal.
 * touch_before_eof_no_sigbus shows that the first page alone is fine.
 */
TEST_F_SIGNAL(fsdax, touch_past_eof_sigbus, SIGBUS)
{
	const struct rlimit no_core = { 0, 0 };
	int fd = self->f.fd;
	uint64_t seed = new_seed();
	char *p;

	RETURN_IF_SKIPPED();
	ASSERT_EQ(0, setrlimit(RLIMIT_CORE, &no_core));
	ASSERT_EQ(0, write_file_pattern(fd, 0, SZ_4K, seed));
	p = mmap(NULL, 2 * SZ_4K, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	unlink(self->f.path);
	self->f.path[0] = '\0';

	ASSERT_EQ(0, check_pattern(p, SZ_4K, 8, seed, 0, NULL));
	touch_write(p, SZ_4K, 512, seed + 1, 0);
	*(volatile uint64_t *)(p + SZ_4K) = 1;
	TH_LOG("writing past EOF did not raise SIGBUS");
}

/* Access order: read, then write, every word of the page before EOF. */
TEST_F(fsdax, touch_before_eof_no_sigbus)
{
	int fd = self->f.fd;
	uint64_t seed = new_seed();
	char *p;

	RETURN_IF_SKIPPED();
	ASSERT_EQ(0, write_file_pattern(fd, 0, SZ_4K, seed));
	p = mmap(NULL, 2 * SZ_4K, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	self->f.map = p;
	self->f.len = 2 * SZ_4K;

	EXPECT_EQ(0, check_pattern(p, SZ_4K, 8, seed, 0, NULL));
	fill_pattern(p, SZ_4K, seed + 1, 0);
	EXPECT_EQ(0, check_file_pattern(fd, 0, SZ_4K, 8, seed + 1, NULL));
}

/* ---- ext2: DAX without ->huge_fault ---- */

FIXTURE(ext2dax) {
	struct dax_file f;
};

/* mkfs.ext2; mount -t ext2 -o dax */
FIXTURE_SETUP(ext2dax)
{
	dax_file_setup(_metadata, &self->f, "ext2", "HUGEDAX_EXT2",
		       "/mnt/ext2");
}

FIXTURE_TEARDOWN(ext2dax)
{
	dax_file_teardown(&self->f);
}

/*
 * ext2 with default mkfs: a file filled with 2 MiB pwrite()s gets 2 MiB
 * aligned, contiguous blocks, so a 2 MiB-aligned shared mapping takes one
 * PMD fault per 2 MiB.  @misalign 4 KiB is the negative control: address
 * and file offset disagree modulo 2 MiB, so every 4 KiB takes a PTE fault.
 * Access order: pwrite 16 MiB, map, write one word per 4 KiB, low to high;
 * then unmap and read everything back with pread().
 */
static void ext2_pwrite_then_map(struct __test_metadata *_metadata,
				 struct dax_file *f, size_t misalign)
{
	const size_t len = 16 * SZ_1M;
	int fd = f->fd;
	uint64_t seed = new_seed(), seed2 = seed + 1;
	struct fault_count fc;
	off_t bad = 0;
	char *p;

	ASSERT_EQ(0, write_file_pattern(fd, 0, len, seed));
	p = dax_file_map(_metadata, f, len, SZ_2M, MAP_SHARED, misalign);

	traced_touch(_metadata, dax_events, &fc, p, len, SZ_4K, true, seed2, 0);

	if (misalign) {
		expect_faults(_metadata, "ext2 write 16 MiB misaligned", &fc,
			      len / SZ_4K);
		EXPECT_EQ(0L, trace_count("dax_pmd_fault_done", "NOPAGE"));
		expect_levels(_metadata, p, len, len, 0, 0);
	} else {
		EXPECT_EQ((long)(len / SZ_2M),
			  fiemap_aligned_chunks(fd, 0, len, SZ_2M));
		expect_faults(_metadata, "ext2 write 16 MiB", &fc, len / SZ_2M);
		EXPECT_EQ((long)(len / SZ_2M),
			  trace_count("dax_pmd_fault_done", "NOPAGE"));
		EXPECT_EQ(0L, trace_count("dax_pmd_fault_done", "FALLBACK"));
		expect_levels(_metadata, p, len, 0, len, 0);
	}

	dax_file_unmap(f);
	/* The words written through the mapping ... */
	EXPECT_EQ(0, check_file_pattern(fd, 0, len, SZ_4K, seed2, &bad)) {
		TH_LOG("file offset %#lx", (unsigned long)bad);
	}
	/* ... and the pwrite() pattern next to each of them. */
	EXPECT_EQ(0, check_file_pattern(fd, 8, len - 8, SZ_4K, seed, &bad)) {
		TH_LOG("file offset %#lx", (unsigned long)bad);
	}
}

TEST_F_TIMEOUT(ext2dax, pwrite_filled_maps_pmds, TIMEOUT_SHORT)
{
	RETURN_IF_SKIPPED();
	ext2_pwrite_then_map(_metadata, &self->f, 0);
}

TEST_F_TIMEOUT(ext2dax, misaligned_maps_ptes, TIMEOUT_SHORT)
{
	RETURN_IF_SKIPPED();
	ext2_pwrite_then_map(_metadata, &self->f, SZ_4K);
}

/*
 * Write faults into a sparse file: each PMD write fault allocates an
 * aligned 2 MiB run and zeroes it.  Access order: ftruncate to 16 MiB,
 * map, write one word per 4 KiB, low to high.
 */
TEST_F_TIMEOUT(ext2dax, fault_filled_maps_pmds, TIMEOUT_SHORT)
{
	const size_t len = 16 * SZ_1M;
	uint64_t seed = new_seed();
	struct fault_count fc;
	off_t bad = 0;
	char *p;

	RETURN_IF_SKIPPED();
	ASSERT_EQ(0, ftruncate(self->f.fd, len));
	p = dax_file_map(_metadata, &self->f, len, SZ_2M, MAP_SHARED, 0);

	traced_touch(_metadata, dax_events, &fc, p, len, SZ_4K, true, seed, 0);

	expect_faults(_metadata, "ext2 fault-fill 16 MiB", &fc, len / SZ_2M);
	EXPECT_EQ((long)(len / SZ_2M),
		  trace_count("dax_pmd_fault_done", "NOPAGE"));
	expect_levels(_metadata, p, len, 0, len, 0);
	dax_file_unmap(&self->f);
	EXPECT_EQ(0, check_file_pattern(self->f.fd, 0, len, SZ_4K, seed,
					&bad)) {
		TH_LOG("file offset %#lx", (unsigned long)bad);
	}
}

/*
 * ext2 files from 64 MiB to 2 GiB, grown by 2 MiB pwrite()s, sized by
 * ftruncate() and then written with pwrite(), or filled by write faults
 * into the sparse file: every 2 MiB is a PMD, none falls back, 512 faults
 * per GiB.  Access order: fill, map at a 2 MiB-aligned address, write one
 * word per 4 KiB, low to high; pread() checks the data afterwards.  The
 * misaligned tests above are the negative control.
 */
TEST_F_TIMEOUT(ext2dax, no_pmd_fallback_64m_to_2g, 3 * TIMEOUT_LONG)
{
	static const size_t sizes[] = { 64 * SZ_1M, 256 * SZ_1M, SZ_1G,
					2 * SZ_1G };
	static const char *const fill[] = { "pwrite", "ftruncate+pwrite",
					    "write faults" };
	unsigned int i, how;

	RETURN_IF_SKIPPED();
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		for (how = 0; how < 3; how++) {
			size_t len = sizes[i];
			uint64_t seed = new_seed();
			struct fault_count fc;
			off_t bad = 0;
			char *p;

			ASSERT_EQ(0, ftruncate(self->f.fd, 0));
			if (how > 0)
				ASSERT_EQ(0, ftruncate(self->f.fd, len));
			if (how < 2)
				ASSERT_EQ(0, write_file_pattern(self->f.fd, 0,
								len, seed));
			p = dax_file_map(_metadata, &self->f, len, SZ_2M,
					 MAP_SHARED, 0);
			traced_touch(_metadata, dax_events, &fc, p, len, SZ_4K,
				     true, seed, 0);
			TH_LOG("ext2 %4zu MiB %-16s: %ld faults, pmd NOPAGE %ld FALLBACK %ld",
			       len / SZ_1M, fill[how], fc.min + fc.maj,
			       trace_count("dax_pmd_fault_done", "NOPAGE"),
			       trace_count("dax_pmd_fault_done", "FALLBACK"));
			expect_faults(_metadata, fill[how], &fc, len / SZ_2M);
			EXPECT_EQ((long)(len / SZ_2M),
				  trace_count("dax_pmd_fault_done", "NOPAGE"));
			EXPECT_EQ(0L, trace_count("dax_pmd_fault_done",
						  "FALLBACK"));
			expect_levels(_metadata, p, len, 0, len, 0);
			dax_file_unmap(&self->f);
			EXPECT_EQ(0, check_file_pattern(self->f.fd, 0, len,
							SZ_1M, seed, &bad)) {
				TH_LOG("file offset %#lx", (unsigned long)bad);
			}
		}
	}
	ASSERT_EQ(0, ftruncate(self->f.fd, 0));
}

/* ---- device-dax, hugetlbfs and anonymous memory ---- */

FIXTURE(mem) {
	int fd;
	void *map;
	size_t len;
};

FIXTURE_SETUP(mem)
{
	self->fd = -1;
	self->map = MAP_FAILED;
	if (geteuid())
		SKIP(return, "needs root");
}

FIXTURE_TEARDOWN(mem)
{
	if (self->map != MAP_FAILED)
		munmap(self->map, self->len);
	if (self->fd >= 0)
		close(self->fd);
}

/*
 * Device-dax with 1 GiB alignment.  Access order: map 1 GiB MAP_SHARED
 * (device-dax picks a 1 GiB-aligned address itself), write one word per
 * 4 KiB, low to high: one PUD fault.  Then unmap, map again read-only and
 * read the words back: one PUD fault again.
 */
TEST_F_TIMEOUT(mem, devdax_write_1g_maps_one_pud, TIMEOUT_LONG)
{
	const char *path = env_or("HUGEDAX_DEVDAX", "/dev/dax3.0");
	uint64_t seed = new_seed();
	struct fault_count fc;
	struct stat st;
	size_t bad = 0;
	long calib;
	int err;
	char *p;

	RETURN_IF_SKIPPED();
	self->fd = open(path, O_RDWR | O_CLOEXEC);
	err = errno;
	ASSERT_LE(0, self->fd) {
		TH_LOG("open %s: %s (override with HUGEDAX_DEVDAX)", path,
		       strerror(err));
	}
	ASSERT_EQ(0, fstat(self->fd, &st));
	ASSERT_TRUE(S_ISCHR(st.st_mode));

	self->len = SZ_1G;
	self->map = mmap(NULL, SZ_1G, PROT_READ | PROT_WRITE, MAP_SHARED,
			 self->fd, 0);
	err = errno;
	ASSERT_NE(MAP_FAILED, self->map) {
		TH_LOG("mmap 1 GiB of %s: %s", path, strerror(err));
	}
	p = self->map;
	ASSERT_EQ(0UL, (unsigned long)p & (SZ_1G - 1));

	calib = calibrate_minflt();
	fault_begin(&fc, calib);
	touch_write(p, SZ_1G, SZ_4K, seed, 0);
	fault_end(&fc);

	expect_faults(_metadata, "device-dax write 1 GiB", &fc, 1);
	expect_levels(_metadata, p, SZ_1G, 0, 0, SZ_1G);
	EXPECT_EQ(0, check_pattern(p, SZ_1G, SZ_4K, seed, 0, &bad)) {
		TH_LOG("offset %#zx", bad);
	}

	munmap(self->map, self->len);
	self->map = mmap(NULL, SZ_1G, PROT_READ, MAP_SHARED, self->fd, 0);
	ASSERT_NE(MAP_FAILED, self->map);
	p = self->map;
	ASSERT_EQ(0UL, (unsigned long)p & (SZ_1G - 1));

	calib = calibrate_minflt();
	fault_begin(&fc, calib);
	touch_read(p, SZ_1G, SZ_4K);
	fault_end(&fc);

	expect_faults(_metadata, "device-dax read 1 GiB again", &fc, 1);
	expect_levels(_metadata, p, SZ_1G, 0, 0, SZ_1G);
	EXPECT_EQ(0, check_pattern(p, SZ_1G, SZ_4K, seed, 0, &bad)) {
		TH_LOG("offset %#zx", bad);
	}
}

/*
 * Positive control for the PUD signals: anonymous 1 GiB hugetlb memory
 * (two pages reserved at boot with hugepagesz=1G hugepages=2).  Access
 * order: write one word per 4 KiB, low to high: one fault.
 */
TEST_F_TIMEOUT(mem, hugetlb_1g_write_maps_one_pud, TIMEOUT_LONG)
{
	uint64_t seed = new_seed();
	struct fault_count fc;
	size_t bad = 0;
	long calib;
	int err;
	char *p;

	RETURN_IF_SKIPPED();
	self->len = SZ_1G;
	self->map = mmap(NULL, SZ_1G, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB |
			 MAP_HUGE_1GB, -1, 0);
	err = errno;
	ASSERT_NE(MAP_FAILED, self->map) {
		TH_LOG("mmap 1 GiB hugetlb: %s (boot with hugepagesz=1G hugepages=2)",
		       strerror(err));
	}
	p = self->map;
	ASSERT_EQ(0UL, (unsigned long)p & (SZ_1G - 1));

	calib = calibrate_minflt();
	fault_begin(&fc, calib);
	touch_write(p, SZ_1G, SZ_4K, seed, 0);
	fault_end(&fc);

	expect_faults(_metadata, "hugetlb write 1 GiB", &fc, 1);
	expect_levels(_metadata, p, SZ_1G, 0, 0, SZ_1G);
	EXPECT_EQ(0, check_pattern(p, SZ_1G, SZ_4K, seed, 0, &bad)) {
		TH_LOG("offset %#zx", bad);
	}
}

/*
 * Negative control for the page table dump and the fault counter:
 * anonymous memory with MADV_NOHUGEPAGE at a 2 MiB-aligned address.
 * Access order: write one word per 4 KiB of 64 MiB, low to high.
 */
TEST_F_TIMEOUT(mem, anon_nohugepage_maps_ptes, TIMEOUT_SHORT)
{
	const size_t len = 64 * SZ_1M;
	uint64_t seed = new_seed();
	struct fault_count fc;
	long calib;
	char *p;

	RETURN_IF_SKIPPED();
	self->len = len;
	self->map = map_aligned(len, SZ_2M, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0, 0);
	ASSERT_NE(MAP_FAILED, self->map);
	p = self->map;
	ASSERT_EQ(0, madvise(p, len, MADV_NOHUGEPAGE));

	calib = calibrate_minflt();
	fault_begin(&fc, calib);
	touch_write(p, len, SZ_4K, seed, 0);
	fault_end(&fc);

	expect_faults(_metadata, "anonymous write 64 MiB", &fc, len / SZ_4K);
	expect_levels(_metadata, p, len, len, 0, 0);
	EXPECT_EQ(0, check_pattern(p, len, SZ_4K, seed, 0, NULL));
}

TEST_HARNESS_MAIN
