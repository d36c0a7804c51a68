// SPDX-License-Identifier: GPL-2.0
/*
 * 1 GiB (PUD) and 2 MiB (PMD) mappings of DAX files on ext4 made with
 * default mkfs.ext4 options (the job makes a fresh filesystem on the
 * 16 GiB namespace: 128 MiB block groups, flex_bg metadata every 2 GiB,
 * backup superblocks, the journal; no stride).
 *
 * ext4 can map a PUD only if ext4_iomap_begin() merges the physically
 * contiguous extents (at most 128 MiB each) of a 1 GiB chunk into one
 * mapping, and the allocator places that chunk on a 1 GiB-aligned run of
 * free block groups.  Files the kernel knows will cover a whole GiB are
 * placed that way: sized by ftruncate() before pwrite(), filled by write
 * faults, fallocated.  A file that grows by 2 MiB appends from empty only
 * becomes eligible from its second GiB on (i_size >= 1 GiB); its first
 * GiB still gets 2 MiB alignment.
 *
 * Needs the ext4 patches of branch hugedax-ext4 ("ext4: map DAX blocks
 * across extent boundaries in ext4_iomap_begin", "ext4: place DAX file
 * data for PMD and PUD mappings", "ext4: reserve journal credits for a
 * whole PUD in DAX write faults").  Run by guest/ext4-job.sh, which makes
 * the filesystem with default options (guest/test-job.sh uses stride=512
 * for ext4).  On stock 6.1 every test fails (no PUD tracepoint; the
 * survey test then counts PMDs only).
 *
 * Page sizes are checked with fault counts, the dax_pud_fault_done /
 * dax_pmd_fault_done tracepoints and the kernel's page table dump; layout
 * with FIEMAP.  Data is a non-zero position-dependent pattern, read back
 * with pread().
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/ioctl.h>
#include <sys/statvfs.h>
#include <sys/uio.h>
#include <linux/fiemap.h>
#include <linux/fs.h>

#include "dax_probe.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"
#include "dax_checks.h"

static const char *const events[] = {
	"fs_dax/dax_pud_fault_done",
	"fs_dax/dax_pmd_fault_done",
	"fs_dax/dax_pmd_load_hole",
	NULL,
};

/* For kernels without the PUD tracepoints (stock 6.1): PMD ones only. */
static const char *const pmd_events[] = {
	"fs_dax/dax_pmd_fault_done",
	"fs_dax/dax_pmd_load_hole",
	NULL,
};

static const char *const *survey_events(void)
{
	if (access("/sys/kernel/tracing/events/fs_dax/dax_pud_fault_done",
		   F_OK))
		return pmd_events;
	return events;
}

enum fill { FILL_PRESIZED_PWRITE, FILL_APPEND_PWRITE, FILL_FAULT,
	    FILL_FALLOCATE };

static const char *const fill_name[] = {
	"ftruncate+pwrite", "pwrite", "write faults", "fallocate+write faults",
};

FIXTURE(ext4_pud) {
	int fd;
	char path[256];
	char *p;
	size_t len;
};

#define MAX_FILLERS	32

/* the ext4 sysfs reserved_clusters a test changed, and its old value */
static char resv_path[300];
static long resv_old = -1;

static void restore_reserved_clusters(void)
{
	if (resv_old >= 0)
		knob_swap(resv_path, resv_old);
	resv_old = -1;
}

static void filler_path(char *buf, size_t n, int i)
{
	snprintf(buf, n, "%s/hugedax.ext4fill.%d",
		 env_or("HUGEDAX_EXT4", "/mnt/ext4"), i);
}

/* a timed-out run (SIGKILL, no teardown) may have left its fillers */
static void remove_fillers(void)
{
	char path[300];
	int i;

	for (i = 0; i < MAX_FILLERS; i++) {
		filler_path(path, sizeof(path), i);
		unlink(path);
	}
}

FIXTURE_SETUP(ext4_pud)
{
	char fstype[32];
	int dax = 0;
	const char *dir = env_or("HUGEDAX_EXT4", "/mnt/ext4");

	self->fd = -1;
	self->p = MAP_FAILED;
	if (geteuid())
		SKIP(return, "needs root");
	ASSERT_EQ(0, mount_of(dir, fstype, sizeof(fstype), &dax));
	ASSERT_STREQ("ext4", fstype);
	ASSERT_TRUE(dax);
	snprintf(self->path, sizeof(self->path), "%s/hugedax.ext4pud", dir);
	unlink(self->path);
	remove_fillers();
	/* blocks of deleted files are reusable once the journal commits */
	sync();
	self->fd = open(self->path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(1, file_is_dax(self->fd));
}

FIXTURE_TEARDOWN(ext4_pud)
{
	if (self->p != MAP_FAILED)
		munmap(self->p, self->len);
	if (self->fd >= 0)
		close(self->fd);
	unlink(self->path);
	/* what pud_fault_without_aligned_room_allocates_nothing filled */
	remove_fillers();
	restore_reserved_clusters();
	sync();
}

static unsigned long long free_bytes(int fd)
{
	struct statvfs st;

	if (fsync(fd) || fstatvfs(fd, &st))
		return 0;
	return (unsigned long long)st.f_bfree * st.f_frsize;
}

/*
 * Map the file's first GiB at a 1 GiB-aligned address and store one word
 * at @off in it: the free space it took (*taken) and the DAX fault
 * counters (*d) around the store.
 */
static void store_into_gib(struct __test_metadata *_metadata,
			   FIXTURE_DATA(ext4_pud) *self, size_t off,
			   uint64_t word, unsigned long long *taken,
			   struct dax_vmstat *d)
{
	struct dax_vmstat before, after;
	unsigned long long free0;

	self->len = SZ_1G;
	self->p = map_aligned(SZ_1G, SZ_1G, PROT_READ | PROT_WRITE, MAP_SHARED,
			      self->fd, 0, 0);
	ASSERT_NE(MAP_FAILED, self->p);
	free0 = free_bytes(self->fd);
	ASSERT_EQ(0, dax_vmstat_read(&before));
	*(volatile uint64_t *)(self->p + off) = word;
	ASSERT_EQ(0, dax_vmstat_read(&after));
	*taken = free0 - free_bytes(self->fd);
	dax_vmstat_delta(d, &before, &after);
	TH_LOG("%llu KiB taken; pud %ld fallback %ld, pmd %ld", *taken >> 10,
	       d->pud, d->pud_fallback, d->pmd);
}

/*
 * Give the file @len bytes of pattern @seed the way @how says.  For the
 * fault-filled kinds nothing is written here: the caller's write faults
 * write the data (pattern @seed too).
 */
static void fill_file(struct __test_metadata *_metadata, int fd, size_t len,
		      enum fill how, uint64_t seed)
{
	switch (how) {
	case FILL_PRESIZED_PWRITE:
		ASSERT_EQ(0, ftruncate(fd, len));
		ASSERT_EQ(0, write_file_pattern(fd, 0, len, seed)) {
			TH_LOG("pwrite of %zu MiB: %s", len >> 20,
			       strerror(errno));
		}
		break;
	case FILL_APPEND_PWRITE:
		ASSERT_EQ(0, write_file_pattern(fd, 0, len, seed)) {
			TH_LOG("pwrite of %zu MiB: %s", len >> 20,
			       strerror(errno));
		}
		break;
	case FILL_FAULT:
		ASSERT_EQ(0, ftruncate(fd, len));
		break;
	case FILL_FALLOCATE:
		ASSERT_EQ(0, fallocate(fd, 0, 0, len));
		break;
	}
	ASSERT_EQ(0, fsync(fd));
}

static void expect_file_data(struct __test_metadata *_metadata, int fd,
			     size_t len, uint64_t seed)
{
	off_t bad = 0;

	EXPECT_EQ(0, check_file_pattern(fd, 0, len, SZ_1M, seed, &bad)) {
		TH_LOG("file data differs at %#llx", (unsigned long long)bad);
	}
}

/*
 * A 2 GiB file filled @how, mapped with a plain mmap(NULL, 2 GiB) and
 * written one word per 4 KiB: two PUD faults, two dax_pud_fault_done
 * NOPAGE, no PMD fault, 2 GiB of PUDs in the page-table dump, data back
 * with pread().  FIEMAP (a third, layout signal) says both GiBs are
 * 1 GiB-aligned runs of contiguous blocks.
 */
static void two_puds(struct __test_metadata *_metadata,
		     FIXTURE_DATA(ext4_pud) *self, enum fill how)
{
	size_t len = 2 * SZ_1G;
	uint64_t seed = new_seed();
	struct fault_count fc;
	bool written = how == FILL_PRESIZED_PWRITE;

	fill_file(_metadata, self->fd, len, how, seed);
	if (written)
		EXPECT_EQ(2L, fiemap_aligned_chunks(self->fd, 0, len, SZ_1G));

	self->len = len;
	self->p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED,
		       self->fd, 0);
	ASSERT_NE(MAP_FAILED, self->p);
	EXPECT_EQ(0UL, (unsigned long)self->p & (SZ_1G - 1));

	traced_touch(_metadata, events, &fc, self->p, len, SZ_4K, true, seed, 0);

	TH_LOG("%s: pud NOPAGE %ld FALLBACK %ld, pmd NOPAGE %ld FALLBACK %ld",
	       fill_name[how], trace_count("dax_pud_fault_done", "NOPAGE"),
	       trace_count("dax_pud_fault_done", "FALLBACK"),
	       trace_count("dax_pmd_fault_done", "NOPAGE"),
	       trace_count("dax_pmd_fault_done", "FALLBACK"));
	expect_faults(_metadata, fill_name[how], &fc, 2);
	EXPECT_EQ(2L, trace_count("dax_pud_fault_done", "NOPAGE"));
	EXPECT_EQ(0L, trace_count("dax_pud_fault_done", "FALLBACK"));
	EXPECT_EQ(0L, trace_count("dax_pmd_fault_done", NULL));
	expect_levels(_metadata, self->p, len, 0, 0, len);

	munmap(self->p, self->len);
	self->p = MAP_FAILED;
	EXPECT_EQ(2L, fiemap_aligned_chunks(self->fd, 0, len, SZ_1G));
	expect_file_data(_metadata, self->fd, len, seed);
}

/* Sized by ftruncate(), then written with 2 MiB pwrite()s. */
TEST_F_TIMEOUT(ext4_pud, presized_pwrite_file_maps_puds, TIMEOUT_LONG)
{
	RETURN_IF_SKIPPED();
	two_puds(_metadata, self, FILL_PRESIZED_PWRITE);
}

/* A sparse file written through the mapping: allocating PUD faults. */
TEST_F_TIMEOUT(ext4_pud, fault_filled_file_maps_puds, TIMEOUT_LONG)
{
	RETURN_IF_SKIPPED();
	two_puds(_metadata, self, FILL_FAULT);
}

/*
 * Fallocated (unwritten extents of at most 32767 blocks), then written
 * through the mapping: each PUD write fault converts and zeroes the whole
 * GiB, across the unwritten extents.
 */
TEST_F_TIMEOUT(ext4_pud, fallocated_file_written_maps_puds, TIMEOUT_LONG)
{
	RETURN_IF_SKIPPED();
	two_puds(_metadata, self, FILL_FALLOCATE);
}

/*
 * Negative control: the same kind of file mapped 2 MiB past a 1 GiB
 * boundary.  Address and file offset disagree modulo 1 GiB, so no PUD
 * fault succeeds, and 2 MiB PMDs map the range (512 faults).
 */
TEST_F_TIMEOUT(ext4_pud, misaligned_address_falls_back_to_pmds, TIMEOUT_LONG)
{
	uint64_t seed = new_seed();
	struct fault_count fc;

	RETURN_IF_SKIPPED();
	fill_file(_metadata, self->fd, SZ_1G, FILL_PRESIZED_PWRITE, seed);
	self->len = SZ_1G;
	self->p = map_aligned(SZ_1G, SZ_1G, PROT_READ | PROT_WRITE, MAP_SHARED,
			      self->fd, 0, SZ_2M);
	ASSERT_NE(MAP_FAILED, self->p);
	traced_touch(_metadata, events, &fc, self->p, SZ_1G, SZ_4K, false, 0, 0);

	expect_faults(_metadata, "read 1 GiB misaligned", &fc, 512);
	EXPECT_EQ(0L, trace_count("dax_pud_fault_done", "NOPAGE"));
	EXPECT_EQ(512L, trace_count("dax_pmd_fault_done", "NOPAGE"));
	EXPECT_EQ(0L, trace_count("dax_pmd_fault_done", "FALLBACK"));
	expect_levels(_metadata, self->p, SZ_1G, 0, SZ_1G, 0);
	EXPECT_EQ(0, check_pattern(self->p, SZ_1G, SZ_4K, seed, 0, NULL));
}

/*
 * Map @len bytes of a file filled @how at a 1 GiB-aligned address, write
 * one word per 4 KiB, and check that no PMD fault fell back: every 2 MiB
 * is a PMD or part of a PUD.  Returns the number of PUDs mapped.
 */
static long no_pmd_fallback(struct __test_metadata *_metadata,
			    FIXTURE_DATA(ext4_pud) *self, size_t len,
			    enum fill how)
{
	uint64_t seed = new_seed();
	struct fault_count fc;
	long puds, pmds, pmd_fb;

	ASSERT_EQ(0, ftruncate(self->fd, 0)) {
		return -1;
	}
	fill_file(_metadata, self->fd, len, how, seed);
	self->len = len;
	self->p = map_aligned(len, SZ_1G, PROT_READ | PROT_WRITE, MAP_SHARED,
			      self->fd, 0, 0);
	EXPECT_NE(MAP_FAILED, self->p);
	if (self->p == MAP_FAILED)
		return -1;
	traced_touch(_metadata, survey_events(), &fc, self->p, len, SZ_4K,
		     true, seed, 0);
	puds = survey_events() == events ?
	       trace_count("dax_pud_fault_done", "NOPAGE") : 0;
	pmds = trace_count("dax_pmd_fault_done", "NOPAGE");
	pmd_fb = trace_count("dax_pmd_fault_done", "FALLBACK");
	TH_LOG("%4zu MiB %-24s faults %ld, pud NOPAGE %ld, pmd NOPAGE %ld FALLBACK %ld, aligned 2M chunks %ld/%zu, 1G chunks %ld",
	       len / SZ_1M, fill_name[how], fc.min + fc.maj, puds, pmds,
	       pmd_fb, fiemap_aligned_chunks(self->fd, 0, len, SZ_2M),
	       len / SZ_2M, fiemap_aligned_chunks(self->fd, 0, len, SZ_1G));
	EXPECT_EQ(0L, pmd_fb);
	/* the two signals agree: one fault per PUD and per PMD */
	EXPECT_EQ((long)(len / SZ_2M), puds * 512 + pmds);
	EXPECT_LE(puds + pmds, fc.min + fc.maj);
	EXPECT_GE(puds + pmds + FAULT_SLACK, fc.min + fc.maj);
	munmap(self->p, self->len);
	self->p = MAP_FAILED;
	expect_file_data(_metadata, self->fd, len, seed);
	return puds;
}

/* Files from 64 MiB to 2 GiB, every way of filling them: no fallback. */
TEST_F_TIMEOUT(ext4_pud, no_pmd_fallback_64m_to_2g, 3 * TIMEOUT_LONG)
{
	static const size_t sizes[] = { SZ_64M, 256 * SZ_1M, SZ_1G,
					2 * SZ_1G };
	unsigned int i, how;

	RETURN_IF_SKIPPED();
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		for (how = 0; how <= FILL_FALLOCATE; how++) {
			long puds = no_pmd_fallback(_metadata, self, sizes[i],
						    how);

			if (how != FILL_APPEND_PWRITE) {
				/* known to cover its GiBs: all are PUDs */
				EXPECT_EQ((long)(sizes[i] / SZ_1G), puds);
			} else if (sizes[i] > SZ_1G) {
				/* appends: from the second GiB on */
				EXPECT_LE((long)(sizes[i] / SZ_1G) - 1, puds);
			}
		}
	}
}

/*
 * Once no free, aligned GiB is left, a write fault into a sparse 1 GiB
 * file falls back to a PMD before allocating: it takes a few MiB, not the
 * GiB that a PUD fault would allocate and zero for nothing.  Signals: free
 * space, the dax_pud_fault_fallback and dax_pmd_fault counters, and the
 * page-table dump.  Control: with one aligned GiB given back, the same
 * fault maps a PUD and takes the whole GiB.  Access: one word written at
 * the start of the mapping, nothing read first.
 */
TEST_F_TIMEOUT(ext4_pud, pud_fault_without_aligned_room_allocates_nothing,
	       3 * TIMEOUT_LONG)
{
	unsigned long long taken;
	struct dax_vmstat d;
	char path[300];
	long aligned = 1;
	int i, fd;

	/* take every free, aligned GiB: fallocate until one is not aligned */
	for (i = 0; i < MAX_FILLERS && aligned == 1; i++) {
		filler_path(path, sizeof(path), i);
		fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
		ASSERT_LE(0, fd);
		if (fallocate(fd, 0, 0, SZ_1G)) {
			close(fd);
			break;
		}
		aligned = fiemap_aligned_chunks(fd, 0, SZ_1G, SZ_1G);
		close(fd);
	}
	TH_LOG("%d fillers, the last %s", i,
	       aligned == 1 ? "aligned" : "not aligned: no aligned GiB left");
	ASSERT_LE(0L, aligned);
	/* more aligned GiBs, or less space, than a default 16 GiB ext4 */
	if (aligned == 1)
		SKIP(return, "aligned GiBs still free after %d fillers", i);
	ASSERT_LT(1, i);
	sync();

	ASSERT_EQ(0, ftruncate(self->fd, SZ_1G));
	store_into_gib(_metadata, self, 0, 0x5a5a5a5a5a5a5a5aULL, &taken, &d);
	EXPECT_GT(8ULL << 20, taken);
	EXPECT_EQ(1L, d.pud_fallback);
	EXPECT_EQ(0L, d.pud);
	EXPECT_EQ(1L, d.pmd);
	expect_levels(_metadata, self->p, SZ_2M, 0, SZ_2M, 0);
	munmap(self->p, self->len);
	self->p = MAP_FAILED;

	/* control: give the first filler's aligned GiB back */
	filler_path(path, sizeof(path), 0);
	ASSERT_EQ(0, unlink(path));
	ASSERT_EQ(0, ftruncate(self->fd, 0));
	sync();
	ASSERT_EQ(0, ftruncate(self->fd, SZ_1G));
	store_into_gib(_metadata, self, 0, 0xa5a5a5a5a5a5a5a5ULL, &taken, &d);
	EXPECT_LE(SZ_1G, taken);
	EXPECT_EQ(1L, d.pud);
	EXPECT_EQ(0L, d.pud_fallback);
	expect_levels(_metadata, self->p, SZ_1G, 0, 0, SZ_1G);
}

/*
 * A write(2) from a written block into a hole right after it, whose new
 * block continues the written one on the device: ext4 maps both with one
 * iomap (ext4_iomap_dax_extend()).  DAX tears down the mappings of what a
 * write's iomap calls new, to drop the zero pages mapped over holes; the
 * written block must not be called new, or its mappings go too (and the
 * DAX entries that tell truncate a page is pinned).  Access order: write
 * 8 KiB, size 16 KiB, read-fault all 4 pages (2 data, 2 zero pages), then
 * pwrite() pages 1-2.  Two signals: /proc/self/pagemap and minor faults.
 * Control: page 2, the hole, must be torn down and read the new data.
 */
TEST_F(ext4_pud, append_keeps_mappings_of_written_blocks)
{
	const uint64_t old_seed = 0x3c3c3c3c3c3c3c3cULL;
	const uint64_t new_seed = 0xc3c3c3c3c3c3c3c3ULL;
	struct pagemap_stats pm1, pm2;
	char buf[8192];
	uint64_t b1, b2;
	long before;
	size_t bad;
	int i;

	fill_pattern(buf, sizeof(buf), old_seed, 0);
	ASSERT_EQ((ssize_t)sizeof(buf), pwrite(self->fd, buf, sizeof(buf), 0));
	ASSERT_EQ(0, ftruncate(self->fd, 16384));
	self->len = 16384;
	self->p = mmap(NULL, self->len, PROT_READ, MAP_SHARED, self->fd, 0);
	ASSERT_NE(MAP_FAILED, self->p);
	for (i = 0; i < 4; i++)
		(void)*(volatile uint64_t *)(self->p + i * 4096);
	ASSERT_EQ(0, pagemap_scan(self->p + 4096, 4096, &pm1));
	ASSERT_EQ(0, pagemap_scan(self->p + 8192, 4096, &pm2));
	ASSERT_EQ(1UL, pm1.present);
	ASSERT_EQ(1UL, pm2.present);

	fill_pattern(buf, sizeof(buf), new_seed, 4096);
	ASSERT_EQ((ssize_t)sizeof(buf),
		  pwrite(self->fd, buf, sizeof(buf), 4096));
	ASSERT_EQ(0, pagemap_scan(self->p + 4096, 4096, &pm1));
	ASSERT_EQ(0, pagemap_scan(self->p + 8192, 4096, &pm2));
	b1 = fiemap_physical_at(self->fd, 4096);
	b2 = fiemap_physical_at(self->fd, 8192);
	TH_LOG("block 1 at %#llx, block 2 at %#llx; page 1 %s, page 2 %s",
	       (unsigned long long)b1, (unsigned long long)b2,
	       pm1.present ? "mapped" : "unmapped",
	       pm2.present ? "mapped" : "unmapped");
	ASSERT_NE(0ULL, b1);
	if (b2 != b1 + 4096)
		SKIP(return, "the new block does not continue the written one");
	EXPECT_EQ(1UL, pm1.present);
	EXPECT_EQ(0UL, pm2.present);
	before = minflt_now();
	EXPECT_EQ(0, check_pattern(self->p + 4096, 8192, 8, new_seed, 4096,
				   &bad));
	EXPECT_EQ(0, check_pattern(self->p, 4096, 8, old_seed, 0, &bad));
	/* the hole's page faults again, the written block's does not */
	EXPECT_EQ(1, minflt_now() - before);
}

/* @len bytes from 0, in one pwritev() of 16 MiB pieces of pattern @seed */
static ssize_t one_write(int fd, off_t off, size_t len, uint64_t seed,
			 char *buf)
{
	struct iovec iov[64];
	size_t i, n = len / SZ_16M;

	if (len % SZ_16M || n > 64)
		return -1;
	for (i = 0; i < n; i++) {
		fill_pattern(buf + i * SZ_16M, SZ_16M, seed, off + i * SZ_16M);
		iov[i].iov_base = buf + i * SZ_16M;
		iov[i].iov_len = SZ_16M;
	}
	return pwritev(fd, iov, n, off);
}

/* every word of p[0, len) zero?  -1 and the first bad offset if not */
static int all_zero(const char *p, size_t len, size_t step, size_t *bad)
{
	size_t i;

	for (i = 0; i < len; i += step)
		if (*(const volatile uint64_t *)(p + i)) {
			*bad = i;
			return -1;
		}
	return 0;
}

/*
 * A write(2) that maps more than 16 MiB at once allocates its blocks
 * unwritten, then zeroes and converts them outside its journal handle
 * (ext4_iomap_dax_convert()); they must still count as new, so that the
 * zero pages mapped over them go.  Access order: size the file to
 * 128 MiB (a hole), fallocate [64, 128) MiB (unwritten), map it all and
 * read one word per 4 KiB (zero pages over both), then one pwritev() of
 * 96 MiB at 16 MiB.  The mapping and pread() must read the new data
 * there (two signals); control: [0, 16) and [112, 128) MiB, not written,
 * read zero both ways.  Then a pwrite() of 48 MiB at 128 MiB after
 * ftruncate(176 MiB), whose source ends after 32 MiB (PROT_NONE): it
 * writes 32 MiB, and the rest of the range reads zero, not what the
 * blocks held before.
 */
TEST_F_TIMEOUT(ext4_pud, large_write_replaces_zero_pages, TIMEOUT_LONG)
{
	const uint64_t seed = new_seed();
	size_t bad = 0;
	off_t fbad = 0;
	ssize_t got;
	char *buf;

	buf = mmap(NULL, SZ_128M, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, buf);
	ASSERT_EQ(0, ftruncate(self->fd, SZ_128M));
	ASSERT_EQ(0, fallocate(self->fd, 0, SZ_64M, SZ_64M));
	self->len = SZ_128M;
	self->p = map_aligned(SZ_128M, SZ_2M, PROT_READ, MAP_SHARED,
			      self->fd, 0, 0);
	ASSERT_NE(MAP_FAILED, self->p);
	ASSERT_EQ(0, all_zero(self->p, SZ_128M, SZ_4K, &bad));

	got = one_write(self->fd, SZ_16M, 96UL << 20, seed, buf);
	ASSERT_EQ((ssize_t)(96UL << 20), got);
	EXPECT_EQ(0, check_pattern(self->p + SZ_16M, 96UL << 20, SZ_4K, seed,
				   SZ_16M, &bad))
		TH_LOG("mapping: old data at %#zx", SZ_16M + bad);
	EXPECT_EQ(0, check_file_pattern(self->fd, SZ_16M, 96UL << 20, SZ_4K,
					seed, &fbad))
		TH_LOG("pread: wrong data at %#llx", (unsigned long long)fbad);
	EXPECT_EQ(0, all_zero(self->p, SZ_16M, SZ_4K, &bad))
		TH_LOG("mapping: not zero at %#zx", bad);
	EXPECT_EQ(0, all_zero(self->p + (112UL << 20), SZ_16M, SZ_4K, &bad))
		TH_LOG("mapping: not zero at %#zx", (112UL << 20) + bad);
	ASSERT_EQ((ssize_t)SZ_16M, pread(self->fd, buf, SZ_16M, 0));
	EXPECT_EQ(0, all_zero(buf, SZ_16M, 8, &bad));
	ASSERT_EQ((ssize_t)SZ_16M, pread(self->fd, buf, SZ_16M, 112UL << 20));
	EXPECT_EQ(0, all_zero(buf, SZ_16M, 8, &bad));

	/* a short write: its source faults after 32 MiB */
	ASSERT_EQ(0, ftruncate(self->fd, 176UL << 20));
	fill_pattern(buf, 32UL << 20, seed + 1, SZ_128M);
	ASSERT_EQ(0, mprotect(buf + (32UL << 20), SZ_16M, PROT_NONE));
	got = pwrite(self->fd, buf, 48UL << 20, SZ_128M);
	TH_LOG("short write: %zd of %lu bytes", got, 48UL << 20);
	ASSERT_EQ((ssize_t)(32UL << 20), got);
	EXPECT_EQ(0, check_file_pattern(self->fd, SZ_128M, 32UL << 20, SZ_4K,
					seed + 1, &fbad));
	ASSERT_EQ((ssize_t)SZ_16M, pread(self->fd, buf, SZ_16M, 160UL << 20));
	EXPECT_EQ(0, all_zero(buf, SZ_16M, 8, &bad))
		TH_LOG("not written, not zero at %#zx", (160UL << 20) + bad);
	munmap(buf, SZ_128M);
}

/*
 * One write(2) of 1 GiB into an empty file: mballoc sees all of it, and it
 * lands on an aligned GiB although its blocks are zeroed and converted
 * after the handle.  Two signals: one fault and a PUD in the page-table
 * dump through a 1 GiB-aligned mapping (FIEMAP: one aligned GiB), data
 * through it.  Control: the same file mapped 2 MiB off, 511 PMD faults.
 */
TEST_F_TIMEOUT(ext4_pud, single_gib_write_maps_a_pud, TIMEOUT_LONG)
{
	const uint64_t seed = new_seed();
	char *buf;

	buf = mmap(NULL, SZ_1G, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, buf);
	ASSERT_EQ((ssize_t)SZ_1G, one_write(self->fd, 0, SZ_1G, seed, buf));
	munmap(buf, SZ_1G);
	ASSERT_EQ(0, fsync(self->fd));
	EXPECT_EQ(1L, fiemap_aligned_chunks(self->fd, 0, SZ_1G, SZ_1G));
	expect_read_mapping(_metadata, "one 1 GiB write, 1 GiB aligned",
			    self->fd, 0, SZ_1G, SZ_1G, 0, 1, 0, 0, SZ_1G, &seed);
	expect_read_mapping(_metadata, "one 1 GiB write, 2 MiB off", self->fd,
			    SZ_2M, SZ_1G - SZ_2M, SZ_1G, SZ_2M, 511, 0,
			    SZ_1G - SZ_2M, 0, &seed);
}

/*
 * Leave the file system @avail bytes that allocations may take, by
 * raising ext4's reserved_clusters (which binds root too), and return the
 * free bytes counted before; 0 on error.
 */
static unsigned long long leave_available(int fd, const char *dir,
					  unsigned long long avail)
{
	unsigned long long free0 = free_bytes(fd);
	char dev[64];
	long old;

	block_dev_name(dir, dev, sizeof(dev));
	if (!dev[0] || free0 <= avail)
		return 0;
	snprintf(resv_path, sizeof(resv_path),
		 "/sys/fs/ext4/%s/reserved_clusters", dev);
	/* in clusters: 4 KiB blocks, no bigalloc (default mkfs) */
	old = knob_swap(resv_path, (long)((free0 - avail) >> 12));
	if (old < 0)
		return 0;
	if (resv_old < 0)
		resv_old = old;
	return free0;
}

/*
 * A 1 GiB write fault over a chunk that is written except for a hole
 * needs space for the hole, not for the GiB: with 64 MiB left to
 * allocate, a store into an 8 MiB hole of an aligned, fallocated GiB
 * fills the hole and maps a PUD.  Signals: the dax_pud_fault and
 * dax_pud_fault_fallback counters and the page-table dump; FIEMAP: the
 * GiB is one aligned run again.  Control: a 128 MiB hole, more than is
 * left, falls back to a PMD that takes 2 MiB, and the first store's word
 * stays.  Access order: fallocate, punch, sync, then one store each
 * through a 1 GiB-aligned mapping, nothing read first.
 */
TEST_F_TIMEOUT(ext4_pud, pud_fault_charges_only_the_hole, TIMEOUT_LONG)
{
	const char *dir = env_or("HUGEDAX_EXT4", "/mnt/ext4");
	const uint64_t w1 = 0x1234567887654321ULL, w2 = 0x0f1e2d3c4b5a6978ULL;
	unsigned long long taken;
	struct dax_vmstat d;
	uint64_t got = 0;

	RETURN_IF_SKIPPED();
	ASSERT_EQ(0, fallocate(self->fd, 0, 0, SZ_1G));
	if (fiemap_aligned_chunks(self->fd, 0, SZ_1G, SZ_1G) != 1)
		SKIP(return, "no aligned GiB for the file");
	ASSERT_EQ(0, fallocate(self->fd, FALLOC_FL_PUNCH_HOLE |
			       FALLOC_FL_KEEP_SIZE, SZ_1G / 2, 8 * SZ_1M));
	sync();
	ASSERT_NE(0ULL, leave_available(self->fd, dir, SZ_64M));

	store_into_gib(_metadata, self, SZ_1G / 2, w1, &taken, &d);
	EXPECT_EQ(1L, d.pud);
	EXPECT_EQ(0L, d.pud_fallback);
	EXPECT_EQ(0L, d.pmd);
	EXPECT_LE(8ULL * SZ_1M, taken);
	EXPECT_GT(16ULL * SZ_1M, taken);
	expect_levels(_metadata, self->p, SZ_1G, 0, 0, SZ_1G);
	munmap(self->p, self->len);
	self->p = MAP_FAILED;
	EXPECT_EQ(1L, fiemap_aligned_chunks(self->fd, 0, SZ_1G, SZ_1G));

	/* control: a hole larger than what is left */
	restore_reserved_clusters();
	ASSERT_EQ(0, fallocate(self->fd, FALLOC_FL_PUNCH_HOLE |
			       FALLOC_FL_KEEP_SIZE, 0, SZ_128M));
	sync();
	ASSERT_NE(0ULL, leave_available(self->fd, dir, SZ_64M));
	store_into_gib(_metadata, self, 0, w2, &taken, &d);
	EXPECT_EQ(0L, d.pud);
	EXPECT_EQ(1L, d.pud_fallback);
	EXPECT_EQ(1L, d.pmd);
	EXPECT_GT(8ULL * SZ_1M, taken);
	expect_levels(_metadata, self->p, SZ_2M, 0, SZ_2M, 0);
	restore_reserved_clusters();

	ASSERT_EQ((ssize_t)sizeof(got), pread(self->fd, &got, sizeof(got),
					      SZ_1G / 2));
	EXPECT_EQ(w1, got);
	ASSERT_EQ((ssize_t)sizeof(got), pread(self->fd, &got, sizeof(got), 0));
	EXPECT_EQ(w2, got);
}

TEST_HARNESS_MAIN
