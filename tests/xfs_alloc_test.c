// SPDX-License-Identifier: GPL-2.0
/*
 * Huge-page-friendly allocation for DAX files on xfs with default mkfs.
 *
 * Runs on a default mkfs.xfs of the 16 GiB namespace (4 GiB allocation
 * groups, no stripe unit, no extent size hint), like fsdax_pud_test.  Each
 * variant creates a file one way (fallocate, pwrite in pieces of some size,
 * or write faults into a sparse file), maps it at an address aligned to the
 * largest page size the file can use and writes one word per 4 KiB page.
 * The page sizes are checked with fault counts (getrusage), the
 * dax_pmd_fault_done / dax_pud_fault_done tracepoints (fallbacks) and the
 * kernel's page table dump.
 *
 * Small files must stay small: 1,000 files of 4 KiB each take one block.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include "dax_probe.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"
#include "dax_checks.h"

static const char *const events[] = {
	"fs_dax/dax_pud_fault_done",
	"fs_dax/dax_pmd_fault_done",
	NULL,
};

/* pwrite() [0, len) in pieces of @piece bytes, the pattern of @seed */
static int write_pieces(int fd, size_t len, size_t piece, uint64_t seed)
{
	char *buf = malloc(piece);
	size_t off;

	if (!buf)
		return -1;
	for (off = 0; off < len; off += piece) {
		fill_pattern(buf, piece, seed, off);
		if (pwrite(fd, buf, piece, off) != (ssize_t)piece)
			break;
	}
	free(buf);
	return off < len ? -1 : 0;
}

FIXTURE(xfs_alloc) {
	int fd;
	char *p;
	char path[256];
	uint64_t seed;
};

FIXTURE_VARIANT(xfs_alloc) {
	const char *fill;	/* fallocate, fault, or pwrite */
	size_t len;		/* file size */
	size_t piece;		/* pwrite piece size */
	long faults;		/* at most this many (plus FAULT_SLACK) */
	unsigned long pte;	/* exactly this many bytes mapped by PTEs */
	unsigned long pud;	/* at least this many bytes mapped by PUDs */
	long pmd_fallbacks;	/* at most this many */
	long pud_fallbacks;	/* at most this many */
};

/*
 * 64 MiB: 32 PMDs, none falls back.  The first fault in each 1 GiB range
 * the mapping touches (two if it straddles a boundary) tries a PUD, which
 * falls back (vma_too_small).
 */
FIXTURE_VARIANT_ADD(xfs_alloc, fallocate_64m) {
	.fill = "fallocate", .len = 64 * SZ_1M, .faults = 32,
	.pud_fallbacks = 2,
};

FIXTURE_VARIANT_ADD(xfs_alloc, pwrite_2m_64m) {
	.fill = "pwrite", .len = 64 * SZ_1M, .piece = SZ_2M, .faults = 32,
	.pud_fallbacks = 2,
};

FIXTURE_VARIANT_ADD(xfs_alloc, pwrite_4m_64m) {
	.fill = "pwrite", .len = 64 * SZ_1M, .piece = 4 * SZ_1M, .faults = 32,
	.pud_fallbacks = 2,
};

FIXTURE_VARIANT_ADD(xfs_alloc, fault_64m) {
	.fill = "fault", .len = 64 * SZ_1M, .faults = 32,
	.pud_fallbacks = 2,
};

/*
 * Small appends: allocations within the first 2 MiB of a file are not
 * rounded up (small files stay small), so that chunk is unaligned and maps
 * with 512 PTEs; every later chunk is allocated whole and aligned.
 */
FIXTURE_VARIANT_ADD(xfs_alloc, pwrite_64k_64m) {
	.fill = "pwrite", .len = 64 * SZ_1M, .piece = 64 * 1024,
	.faults = 512 + 31, .pte = SZ_2M, .pmd_fallbacks = 1,
	.pud_fallbacks = 2,
};

/* 2 GiB: two PUDs */
FIXTURE_VARIANT_ADD(xfs_alloc, fallocate_2g) {
	.fill = "fallocate", .len = 2 * SZ_1G, .faults = 2, .pud = 2 * SZ_1G,
};

FIXTURE_VARIANT_ADD(xfs_alloc, pwrite_1g_2g) {
	.fill = "pwrite", .len = 2 * SZ_1G, .piece = SZ_1G, .faults = 2,
	.pud = 2 * SZ_1G,
};

FIXTURE_VARIANT_ADD(xfs_alloc, fault_2g) {
	.fill = "fault", .len = 2 * SZ_1G, .faults = 2, .pud = 2 * SZ_1G,
};

/*
 * 4 MiB pieces: the first GiB starts wherever the file's first 2 MiB-aligned
 * space is (PMDs, one PUD fallback), the second starts on a 1 GiB boundary.
 */
FIXTURE_VARIANT_ADD(xfs_alloc, pwrite_4m_2g) {
	.fill = "pwrite", .len = 2 * SZ_1G, .piece = 4 * SZ_1M,
	.faults = 1 + 512, .pud = SZ_1G,
	.pud_fallbacks = 1,
};

FIXTURE_SETUP(xfs_alloc)
{
	const char *dir = env_or("HUGEDAX_XFS", "/mnt/xfs");
	char fstype[32];
	int dax = 0, ret = 0;

	self->fd = -1;
	self->p = MAP_FAILED;
	self->seed = new_seed();
	if (geteuid())
		SKIP(return, "needs root");
	ASSERT_EQ(0, mount_of(dir, fstype, sizeof(fstype), &dax));
	ASSERT_STREQ("xfs", fstype);
	ASSERT_TRUE(dax);
	snprintf(self->path, sizeof(self->path), "%s/hugedax.alloc.%s",
		 dir, variant->fill);
	self->fd = open(self->path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	ASSERT_LE(0, self->fd);
	if (!strcmp(variant->fill, "fallocate"))
		ret = fallocate(self->fd, 0, 0, variant->len);
	else if (!strcmp(variant->fill, "fault"))
		ret = ftruncate(self->fd, variant->len);
	else
		ret = write_pieces(self->fd, variant->len, variant->piece,
				   self->seed);
	ASSERT_EQ(0, ret) {
		TH_LOG("%s: %s", variant->fill, strerror(errno));
	}
	self->p = map_aligned(variant->len,
			      variant->len >= SZ_1G ? SZ_1G : SZ_2M,
			      PROT_READ | PROT_WRITE, MAP_SHARED, self->fd, 0, 0);
	ASSERT_NE(MAP_FAILED, self->p);
}

FIXTURE_TEARDOWN(xfs_alloc)
{
	if (self->p != MAP_FAILED)
		munmap(self->p, variant->len);
	if (self->fd >= 0) {
		close(self->fd);
		unlink(self->path);
		sync();	/* the freed space must not stay busy for the next */
	}
}

TEST_F_TIMEOUT(xfs_alloc, huge_pages, TIMEOUT_LONG)
{
	struct ptdump_sizes sz;
	struct fault_count fc;
	long pmd_fb, pud_fb, aligned;

	RETURN_IF_SKIPPED();
	traced_touch(_metadata, events, &fc, self->p, variant->len, SZ_4K,
		     true, self->seed, 0);
	pmd_fb = trace_count_reason("dax_pmd_fault_done", "FALLBACK", NULL);
	pud_fb = trace_count_reason("dax_pud_fault_done", "FALLBACK", NULL);
	aligned = fiemap_aligned_chunks(self->fd, 0, variant->len, SZ_2M);
	TH_LOG("%s %zu MiB: %ld of %zu 2 MiB chunks aligned, %ld PMD and %ld PUD fallbacks",
	       variant->fill, variant->len / SZ_1M, aligned,
	       variant->len / SZ_2M, pmd_fb, pud_fb);
	TH_LOG("%ld faults (%ld minor, %ld major), want at most %ld",
	       fc.min + fc.maj, fc.min, fc.maj, variant->faults);
	EXPECT_GE(variant->faults + FAULT_SLACK, fc.min + fc.maj);
	EXPECT_LE((long)(variant->len / (variant->len >= SZ_1G ? SZ_1G : SZ_2M)),
		  fc.min + fc.maj);
	EXPECT_GE(variant->pmd_fallbacks, pmd_fb);
	EXPECT_GE(variant->pud_fallbacks, pud_fb);
	ASSERT_EQ(0, ptdump_levels((unsigned long)self->p, variant->len, &sz));
	TH_LOG("page tables: pte %#lx pmd %#lx pud %#lx", sz.pte, sz.pmd,
	       sz.pud);
	EXPECT_EQ(variant->pte, sz.pte);
	EXPECT_LE(variant->pud, sz.pud);
	EXPECT_EQ(variant->len, sz.pte + sz.pmd + sz.pud);
	/* the data went where the mapping says */
	EXPECT_EQ(0, check_pattern(self->p, variant->len, SZ_4K, self->seed,
				   0, NULL));
}

static long used_kib(const char *dir)
{
	struct statvfs s;

	if (statvfs(dir, &s))
		return -1;
	return (long)((s.f_blocks - s.f_bfree) * (s.f_frsize / 1024));
}

/*
 * 1,000 files of 4 KiB: each has exactly one block, and the file system
 * grows by the data plus inodes and directory blocks, far below 2 MiB per
 * file.
 */
TEST(small_files_stay_small)
{
	const char *base = env_or("HUGEDAX_XFS", "/mnt/xfs");
	char dir[256], path[512], buf[4096];
	long before, after, i, odd = 0;
	struct stat st;

	if (geteuid())
		SKIP(return, "needs root");
	snprintf(dir, sizeof(dir), "%s/hugedax.small", base);
	ASSERT_TRUE(!mkdir(dir, 0755) || errno == EEXIST);
	sync();
	before = used_kib(dir);
	memset(buf, 0x5a, sizeof(buf));
	for (i = 0; i < 1000; i++) {
		int fd;

		snprintf(path, sizeof(path), "%s/f%ld", dir, i);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		ASSERT_LE(0, fd);
		ASSERT_EQ((ssize_t)sizeof(buf), write(fd, buf, sizeof(buf)));
		ASSERT_EQ(0, fstat(fd, &st));
		if (st.st_blocks != 8)
			odd++;
		close(fd);
	}
	sync();
	after = used_kib(dir);
	TH_LOG("1000 x 4 KiB: %ld KiB used, %ld files with other than 8 sectors",
	       after - before, odd);
	EXPECT_EQ(0, odd);
	/* 4000 KiB of data, + 10%, + 1 MiB for inodes and directory */
	EXPECT_GE(4000 * 11 / 10 + 1024, after - before);
	for (i = 0; i < 1000; i++) {
		snprintf(path, sizeof(path), "%s/f%ld", dir, i);
		unlink(path);
	}
	rmdir(dir);
}

/*
 * A write whose rounded allocation the extents around move back: 4 KiB at
 * block 1015 of a new file (too small for an implicit hint), then 4 KiB
 * at block 1000 (the file is now over 2 MiB, so its 2 MiB hint rounds the
 * write to blocks 512-1023, and the extent at 1015 moves that back to
 * 503-1014).  Both writes must succeed and read back, and the filesystem
 * must stay up: a new file can still be written.  The allocation must
 * start at the chunk boundary, block 512 (FIEMAP): it once ended there
 * instead, short of the write, and a second allocation had to cover the
 * write, leaving a stray 9 blocks before the chunk.  What the allocation
 * covers around the write must read as zeroes (blocks 512 and 1005).
 * Access order: pwrite() twice, pread().
 */
/* 0 if the 4 KiB at @off read as zeroes, else -1 */
static int block_is_zero(int fd, off_t off)
{
	static const char zero[SZ_4K];
	char buf[SZ_4K];

	if (pread(fd, buf, sizeof(buf), off) != (ssize_t)sizeof(buf))
		return -1;
	return memcmp(buf, zero, sizeof(buf)) ? -1 : 0;
}

TEST(write_behind_an_extent_covers_itself)
{
	const char *dir = env_or("HUGEDAX_XFS", "/mnt/xfs");
	char path[256], other[256], extents[1024];
	uint64_t seed = new_seed();
	off_t where = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/behind.%d", dir, (int)getpid());
	snprintf(other, sizeof(other), "%s/behind.%d.after", dir,
		 (int)getpid());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, write_file_pattern(fd, 1015 * SZ_4K, SZ_4K, seed));
	EXPECT_EQ(0, write_file_pattern(fd, 1000 * SZ_4K, SZ_4K, seed))
		TH_LOG("the second write: %s", strerror(errno));
	EXPECT_EQ(0, check_file_pattern(fd, 1000 * SZ_4K, SZ_4K, 8, seed,
					&where));
	EXPECT_EQ(0, check_file_pattern(fd, 1015 * SZ_4K, SZ_4K, 8, seed,
					&where));
	EXPECT_EQ(0, block_is_zero(fd, 512 * SZ_4K));
	EXPECT_EQ(0, block_is_zero(fd, 1005 * SZ_4K));
	EXPECT_EQ(0, fsync(fd));
	ASSERT_EQ(0, fiemap_describe(fd, extents, sizeof(extents)));
	TH_LOG("extents %s", extents);
	EXPECT_EQ(512 * SZ_4K, strtoull(extents, NULL, 0));
	close(fd);
	fd = open(other, O_RDWR | O_CREAT | O_TRUNC, 0644);
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, write_file_pattern(fd, 0, SZ_4K, seed))
		TH_LOG("the filesystem after: %s", strerror(errno));
	close(fd);
	unlink(other);
	unlink(path);
}

/* fallocate() @path in pieces of @piece bytes until ENOSPC; 0 or -1 */
static uint64_t free_bytes(const char *dir)
{
	struct statvfs sv;

	return statvfs(dir, &sv) ? 0 : (uint64_t)sv.f_bavail * sv.f_frsize;
}

/*
 * The implicit DAX extent size hint only places data.  In a file of 1 GiB
 * or more, it rounds an allocation in a hole to the hole's aligned GiB;
 * where less than that is free, a 4 KiB write into the hole and a store
 * into it through a mapping must still succeed, allocating just their
 * range, and read back, rather than fail with ENOSPC and SIGBUS on a
 * filesystem that has the space they need.  The filler that takes the
 * space is a DAX file too, fallocated in 64 MiB steps: each step must
 * succeed while more than 320 MiB are free (the rounding to its hint's
 * GiB once reserved up to 2 GiB a step).  Control: with the space
 * really gone, the write fails with ENOSPC and the store gets SIGBUS.
 * Access order: a 2 GiB sparse file, 4 KiB written at 0; a filler takes
 * all but about 256 MiB; pwrite() 4 KiB at 1.5 GiB; a store of 4 KiB at
 * 1.25 GiB through a 1 GiB-aligned shared mapping; reads; the filler
 * takes the rest; pwrite() at 1.75 GiB and a store at 1.125 GiB.
 */
FIXTURE(nearly_full) {
	char path[256];
	char filler[256];
};

FIXTURE_SETUP(nearly_full)
{
	const char *dir = env_or("HUGEDAX_XFS", "/mnt/xfs");

	snprintf(self->path, sizeof(self->path), "%s/full.%d", dir,
		 (int)getpid());
	snprintf(self->filler, sizeof(self->filler), "%s/full.%d.filler",
		 dir, (int)getpid());
}

/* the filler must not stay behind to fill the filesystem for others */
FIXTURE_TEARDOWN(nearly_full)
{
	unlink(self->filler);
	unlink(self->path);
	sync();
}

TEST_F_TIMEOUT(nearly_full, allocates_just_the_range, TIMEOUT_LONG)
{
	const char *dir = env_or("HUGEDAX_XFS", "/mnt/xfs");
	const char *path = self->path, *filler = self->filler;
	uint64_t seed = new_seed();
	off_t where = 0, off, len;
	char *buf, *p;
	size_t i;
	int fd, ffd, sig;

	buf = malloc(SZ_4K);
	ASSERT_NE(NULL, buf);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ftruncate(fd, 2 * (off_t)SZ_1G));
	ASSERT_EQ(0, write_file_pattern(fd, 0, SZ_4K, seed));

	/* leave about 256 MiB: less than a GiB, much more than 4 KiB */
	ffd = open(filler, O_RDWR | O_CREAT, 0644);
	ASSERT_LE(0, ffd);
	for (off = 0; (i = free_bytes(dir)) > 320 * SZ_1M; off += len) {
		len = 64 * SZ_1M;
		ASSERT_EQ(0, fallocate(ffd, 0, off, len))
			TH_LOG("filler at %lld MiB, %zu MiB free: %s",
			       (long long)(off >> 20), i >> 20,
			       strerror(errno));
	}
	close(ffd);
	TH_LOG("free before the writes: %llu MiB",
	       (unsigned long long)(free_bytes(dir) >> 20));
	ASSERT_GT((uint64_t)SZ_1G, free_bytes(dir));

	fill_pattern(buf, SZ_4K, seed, SZ_1G + (512 * SZ_1M));
	EXPECT_EQ((ssize_t)SZ_4K, pwrite(fd, buf, SZ_4K, SZ_1G + (512 * SZ_1M)))
		TH_LOG("pwrite into a hole: %s", strerror(errno));
	p = map_aligned(2 * (size_t)SZ_1G, SZ_1G, PROT_READ | PROT_WRITE,
			MAP_SHARED, fd, 0, 0);
	ASSERT_NE(MAP_FAILED, p);
	fill_pattern(p + SZ_1G + (256 * SZ_1M), SZ_4K, seed, SZ_1G + (256 * SZ_1M));
	ASSERT_EQ(0, msync(p + SZ_1G + (256 * SZ_1M), SZ_4K, MS_SYNC));
	TH_LOG("free after them: %llu MiB",
	       (unsigned long long)(free_bytes(dir) >> 20));
	EXPECT_EQ(0, check_file_pattern(fd, SZ_1G + (512 * SZ_1M), SZ_4K, 8, seed,
					&where))
		TH_LOG("wrong data at %#llx", (long long)where);
	EXPECT_EQ(0, check_file_pattern(fd, SZ_1G + (256 * SZ_1M), SZ_4K, 8, seed,
					&where))
		TH_LOG("wrong data at %#llx", (long long)where);
	EXPECT_EQ(0, check_file_pattern(fd, 0, SZ_4K, 8, seed, &where));

	/* control: nothing left */
	ASSERT_EQ(0, fallocate_until_full(filler, SZ_1M));
	ASSERT_EQ(0, fallocate_until_full(filler, SZ_4K));
	TH_LOG("free when full: %llu KiB",
	       (unsigned long long)(free_bytes(dir) >> 10));
	errno = 0;
	EXPECT_EQ(-1, pwrite(fd, buf, SZ_4K, SZ_1G + (512 * SZ_1M) + (256 * SZ_1M)));
	EXPECT_EQ(ENOSPC, errno);
	sig = access_in_child(p + SZ_1G + (128 * SZ_1M), 1);
	EXPECT_EQ(SIGBUS, sig);
	munmap(p, 2 * (size_t)SZ_1G);
	close(fd);
	free(buf);
}

/*
 * The rest of the GiB that xfs keeps beyond EOF for a growing DAX file is
 * freed before a write of that file fails for space: the scan that frees
 * such blocks at ENOSPC passes over a file whose IOLOCK is held, and the
 * write holds it.  Access order: append 128 MiB to the file in 1 MiB
 * writes (its head moves to a free GiB, and the rest of that GiB is kept
 * for it beyond EOF: st_blocks); a filler fallocates all but about 8 MiB
 * of the free space in one call, below ENOSPC, so that no scan runs; then
 * one pwrite() of 16 MiB at 2 GiB into the same file, more than is free
 * but less than its kept blocks.  It must write all 16 MiB, read back, and
 * the kept blocks must be gone (st_blocks), the first 128 MiB intact.  On
 * the kernel without the retry, the pwrite() fails with ENOSPC.  Control:
 * once the filler takes the rest, another 16 MiB at 3 GiB fail with
 * ENOSPC, as there is nothing left to free.
 */
TEST_F_TIMEOUT(nearly_full, write_frees_its_kept_run, TIMEOUT_LONG)
{
	const char *dir = env_or("HUGEDAX_XFS", "/mnt/xfs");
	uint64_t seed = new_seed(), left;
	long long kept_before, kept_after;
	off_t where = 0, off, len;
	struct stat st;
	char *buf;
	int fd, ffd;

	if (geteuid())
		SKIP(return, "needs root");
	ASSERT_EQ(0, append_file_pattern(self->path, 128 * SZ_1M, SZ_1M, seed));
	fd = open(self->path, O_RDWR);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, fstat(fd, &st));
	kept_before = st.st_blocks * 512LL - st.st_size;
	TH_LOG("after the appends: %lld MiB kept beyond EOF",
	       kept_before >> 20);
	if (kept_before < (256LL << 20)) {
		close(fd);
		SKIP(return, "no run kept beyond EOF (no free aligned GiB?)");
	}

	ffd = open(self->filler, O_RDWR | O_CREAT, 0644);
	ASSERT_LE(0, ffd);
	for (off = 0; (left = free_bytes(dir)) > 12 * SZ_1M; off += len) {
		len = (left - 8 * SZ_1M) & ~((uint64_t)SZ_1M - 1);
		ASSERT_EQ(0, fallocate(ffd, 0, off, len))
			TH_LOG("filler of %lld MiB: %s", (long long)(len >> 20),
			       strerror(errno));
	}
	close(ffd);
	ASSERT_EQ(0, fstat(fd, &st));
	TH_LOG("free before the write: %llu KiB, still kept: %lld MiB",
	       (unsigned long long)(free_bytes(dir) >> 10),
	       (st.st_blocks * 512LL - st.st_size) >> 20);
	ASSERT_LT((256LL << 20), st.st_blocks * 512LL - st.st_size);

	buf = malloc(16 * SZ_1M);
	ASSERT_NE(NULL, buf);
	fill_pattern(buf, 16 * SZ_1M, seed, 2 * (off_t)SZ_1G);
	errno = 0;
	EXPECT_EQ((ssize_t)(16 * SZ_1M),
		  pwrite(fd, buf, 16 * SZ_1M, 2 * (off_t)SZ_1G))
		TH_LOG("pwrite past the kept run: %s", strerror(errno));
	ASSERT_EQ(0, fstat(fd, &st));
	kept_after = st.st_blocks * 512LL - (144LL << 20);
	TH_LOG("allocated besides the data after it: %lld MiB, free %llu KiB",
	       kept_after >> 20, (unsigned long long)(free_bytes(dir) >> 10));
	EXPECT_GT((64LL << 20), kept_after);
	EXPECT_EQ(0, check_file_pattern(fd, 2 * (off_t)SZ_1G, 16 * SZ_1M, 8,
					seed, &where))
		TH_LOG("wrong data at %#llx", (long long)where);
	EXPECT_EQ(0, check_file_pattern(fd, 0, 128 * SZ_1M, 8, seed, &where))
		TH_LOG("wrong data at %#llx", (long long)where);

	/* control: nothing left to free */
	ASSERT_EQ(0, fallocate_until_full(self->filler, SZ_1M));
	ASSERT_EQ(0, fallocate_until_full(self->filler, SZ_4K));
	errno = 0;
	EXPECT_EQ(-1, pwrite(fd, buf, 16 * SZ_1M, 3 * (off_t)SZ_1G));
	EXPECT_EQ(ENOSPC, errno);
	free(buf);
	close(fd);
}

/*
 * Aged free space.  A filler file takes all the space; then, in every GiB
 * of the device that the filler covers from 4 KiB past its start to
 * 768 MiB, that range is punched out: runs of 768 MiB - 4 KiB, none on a
 * 2 MiB boundary and none holding an aligned GiB.  Variants:
 *  - no_gib: just that.  A 1 GiB file still gets a PMD for every 2 MiB:
 *    the allocation falls back from GiB to 2 MiB alignment, not to none
 *    (which placed it at the start of a run, 4 KiB pages only).  Control:
 *    FIEMAP shows no chunk of the file on a GiB boundary, no PUD mapped.
 *  - no_gib_written_deep: as no_gib, but the file's first write is a
 *    pwrite() of 4 KiB at 900 MiB + 4 KiB, before the write faults.  Its
 *    allocation (2 MiB-aligned, ~766 MiB: a run's aligned part) cannot
 *    reach that offset from the GiB's start; it must be placed by whole
 *    2 MiB (from 258 MiB), not so that it ends at the write (off by
 *    8 KiB, which left ~383 chunks at 4 KiB).
 *  - one_exact_gib: first, one whole aligned GiB the filler covers is
 *    punched, a free extent of exactly 1 GiB (the longest anywhere).  The
 *    file must get it and map one PUD: xfs's usual check wants 1 GiB plus
 *    the alignment less a block in one free extent (alignfit).  Control:
 *    no_gib, the same file without that GiB, maps no PUD.
 * Access order: a sparse 1 GiB file (ftruncate), mapped at a 1 GiB-aligned
 * address, written one word per 4 KiB (write faults), then read back.
 * Signals: faults, the page table dump, PMD fallbacks (none), FIEMAP.
 */
#define HOLE_START	SZ_4K
#define HOLE_END	(768 * SZ_1M)

FIXTURE(aged_xfs) {
	char path[256];
	char filler[256];
	int fd;
	char *p;
};

FIXTURE_VARIANT(aged_xfs) {
	bool exact_gib;
	off_t first_write;	/* a 4 KiB pwrite() before the faults */
};

FIXTURE_VARIANT_ADD(aged_xfs, no_gib) {
	.exact_gib = false,
};

FIXTURE_VARIANT_ADD(aged_xfs, no_gib_written_deep) {
	.exact_gib = false,
	.first_write = 900 * SZ_1M + SZ_4K,
};

FIXTURE_VARIANT_ADD(aged_xfs, one_exact_gib) {
	.exact_gib = true,
};

FIXTURE_SETUP(aged_xfs)
{
	const char *dir = env_or("HUGEDAX_XFS", "/mnt/xfs");

	self->fd = -1;
	self->p = MAP_FAILED;
	snprintf(self->path, sizeof(self->path), "%s/aged.%d", dir,
		 (int)getpid());
	snprintf(self->filler, sizeof(self->filler), "%s/aged.%d.filler",
		 dir, (int)getpid());
	if (geteuid())
		SKIP(return, "needs root");
}

FIXTURE_TEARDOWN(aged_xfs)
{
	if (self->p != MAP_FAILED)
		munmap(self->p, SZ_1G);
	if (self->fd >= 0)
		close(self->fd);
	unlink(self->filler);
	unlink(self->path);
	sync();
}

TEST_F_TIMEOUT(aged_xfs, fault_fill_1g, TIMEOUT_LONG)
{
	const char *dir = env_or("HUGEDAX_XFS", "/mnt/xfs");
	bool pud = variant->exact_gib;
	uint64_t seed = new_seed();
	struct fault_count fc;
	long pmd_fb, on_gib, on_2m;
	int ffd, punched, exact = 0;
	char desc[512];

	RETURN_IF_SKIPPED();
	ASSERT_EQ(0, fallocate_until_full(self->filler, 64 * SZ_1M));
	ASSERT_EQ(0, fallocate_until_full(self->filler, SZ_2M));
	ffd = open(self->filler, O_RDWR);
	ASSERT_LE(0, ffd);
	if (pud)
		exact = punch_device_runs(ffd, SZ_1G, 0, SZ_1G, 1);
	punched = punch_device_runs(ffd, SZ_1G, HOLE_START, HOLE_END, 0);
	close(ffd);
	/* the log commits the frees, so that they are not busy */
	sync();
	TH_LOG("%d whole GiBs and %d runs of 768 MiB - 4 KiB punched, %llu MiB free",
	       exact, punched, (unsigned long long)(free_bytes(dir) >> 20));
	ASSERT_EQ(pud ? 1 : 0, exact);
	ASSERT_LE(4, punched);

	self->fd = open(self->path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, ftruncate(self->fd, SZ_1G));
	if (variant->first_write) {
		char page[SZ_4K];

		memset(page, 0x5a, sizeof(page));
		ASSERT_EQ((ssize_t)SZ_4K, pwrite(self->fd, page, SZ_4K,
						 variant->first_write));
		fiemap_describe(self->fd, desc, sizeof(desc));
		TH_LOG("after the pwrite(): %s", desc);
	}
	self->p = map_aligned(SZ_1G, SZ_1G, PROT_READ | PROT_WRITE,
			      MAP_SHARED, self->fd, 0, 0);
	ASSERT_NE(MAP_FAILED, self->p);
	traced_touch(_metadata, events, &fc, self->p, SZ_1G, SZ_4K, true,
		     seed, 0);
	pmd_fb = trace_count_reason("dax_pmd_fault_done", "FALLBACK", NULL);
	on_gib = fiemap_aligned_chunks(self->fd, 0, SZ_1G, SZ_1G);
	on_2m = fiemap_aligned_chunks(self->fd, 0, SZ_1G, SZ_2M);
	fiemap_describe(self->fd, desc, sizeof(desc));
	TH_LOG("extents: %s", desc);
	TH_LOG("%ld PMD fallbacks, %ld GiB and %ld of 512 2 MiB chunks aligned",
	       pmd_fb, on_gib, on_2m);
	EXPECT_EQ(pud ? 1 : 0, on_gib);
	EXPECT_EQ(512, on_2m);
	expect_faults(_metadata, "write faults over 1 GiB", &fc, pud ? 1 : 512);
	expect_levels(_metadata, self->p, SZ_1G, 0, pud ? 0 : SZ_1G,
		      pud ? SZ_1G : 0);
	EXPECT_EQ(0, pmd_fb);
	EXPECT_EQ(0, check_pattern(self->p, SZ_1G, SZ_4K, seed, 0, NULL));
}

TEST_HARNESS_MAIN
