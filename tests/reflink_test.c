// SPDX-License-Identifier: GPL-2.0
/*
 * Reflinked DAX files on xfs (default mkfs.xfs: reflink=1, mounted -o dax).
 *
 * Part 1, no mappings: zeroing part of a block that is shared with another
 * file must copy the block first (copy on write) and put the copy in the
 * file.  Hole punch, FALLOC_FL_ZERO_RANGE and truncate to an offset inside a
 * block all zero such partial blocks.  Stock 6.1 zeroes a fresh copy-on-
 * write block and never remaps it, so the file keeps the old, shared data
 * (xfstests generic/127 under fsx).  Access order of each test: pwrite the
 * source, FICLONE it, the operation on the clone, pread both, remount,
 * pread both again.
 *
 * Part 2, mappings of 4 KiB, 2 MiB and 1 GiB pages: the source file is
 * sized with ftruncate() and written through a MAP_SHARED mapping (write
 * faults into a sparse file), msync()ed and cloned.  A mapping of the clone
 * is read (read faults on shared blocks), then written one word per 64 KiB
 * (write faults on shared blocks: copy on write, of 4 KiB whatever the
 * mapping's page size: FIEMAP and the page table dump check it), msync()ed.
 * The clone must
 * read the source's data where it was not written and the new data where it
 * was; the source must be unchanged; both after a remount too.  The page
 * sizes of the source mapping are checked with the page table dump and
 * with fault counts; the kernel log must stay clean (the harness judges
 * the console: a WARNING in dax_associate_entry was the symptom here).
 *
 * Data is a non-zero position-dependent pattern with a seed per file and
 * per write, so stale data from the other file or an earlier run cannot
 * pass.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/falloc.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "dax_probe.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"
#include "dax_checks.h"

#define SMALL_SIZE	0x10000UL	/* 64 KiB: 16 blocks */
#define COW_STEP	0x10000UL	/* one write per 64 KiB of a mapping */

/* Source of the mount at @dir into @dev.  0 or -1. */
static int mount_source(const char *dir, char *dev, size_t n)
{
	char src[256], mnt[256];
	FILE *f = fopen("/proc/mounts", "r");
	int ret = -1;

	if (!f)
		return -1;
	while (fscanf(f, "%255s %255s %*s %*s %*d %*d", src, mnt) == 2) {
		if (!strcmp(mnt, dir)) {
			snprintf(dev, n, "%s", src);
			ret = 0;
		}
	}
	fclose(f);
	return ret;
}

/* Unmount and mount @dir again with -o dax: what reads back is on media. */
static int remount(const char *dir)
{
	char dev[256];

	if (mount_source(dir, dev, sizeof(dev)))
		return -1;
	sync();
	if (umount(dir))
		return -1;
	return mount(dev, dir, "xfs", 0, "dax");
}

/* Bytes of [0, len) of @fd in extents not marked shared (FIEMAP), or -1. */
static long long unshared_bytes(int fd, off_t len)
{
	enum { NR = 256 };
	struct fiemap *fm = calloc(1, sizeof(*fm) +
				   NR * sizeof(struct fiemap_extent));
	long long total = 0;
	off_t pos = 0;
	unsigned int i;

	if (!fm)
		return -1;
	while (pos < len) {
		fm->fm_start = pos;
		fm->fm_length = len - pos;
		fm->fm_flags = FIEMAP_FLAG_SYNC;
		fm->fm_extent_count = NR;
		if (ioctl(fd, FS_IOC_FIEMAP, fm)) {
			free(fm);
			return -1;
		}
		if (!fm->fm_mapped_extents)
			break;
		for (i = 0; i < fm->fm_mapped_extents; i++) {
			struct fiemap_extent *fe = &fm->fm_extents[i];

			if (!(fe->fe_flags & FIEMAP_EXTENT_SHARED))
				total += fe->fe_length;
			pos = fe->fe_logical + fe->fe_length;
			if (fe->fe_flags & FIEMAP_EXTENT_LAST)
				pos = len;
		}
	}
	free(fm);
	return total;
}

/* Is every byte of [off, off + len) of @fd zero? */
static int file_range_zero(int fd, off_t off, size_t len, off_t *bad)
{
	char buf[4096];
	size_t done, n, i;

	for (done = 0; done < len; done += n) {
		n = len - done < sizeof(buf) ? len - done : sizeof(buf);
		if (pread(fd, buf, n, off + done) != (ssize_t)n)
			return -1;
		for (i = 0; i < n; i++) {
			if (buf[i]) {
				*bad = off + done + i;
				return -1;
			}
		}
	}
	return 0;
}

/*
 * The pattern at byte granularity: check_file_pattern() checks words, and
 * the operations here start and end inside words.
 */
static int file_bytes_match(int fd, off_t off, size_t len, uint64_t seed,
			    off_t *bad)
{
	off_t start = off & ~7L, end = (off + len + 7) & ~7L, o;
	size_t n = end - start;
	uint64_t *buf = malloc(n);
	int ret = 0;

	if (!buf || pread(fd, buf, n, start) != (ssize_t)n) {
		free(buf);
		return -1;
	}
	for (o = off; o < (off_t)(off + len); o++) {
		uint64_t w = pattern_word(seed, o & ~7L);

		if (((char *)buf)[o - start] != ((char *)&w)[o & 7]) {
			*bad = o;
			ret = -1;
			break;
		}
	}
	free(buf);
	return ret;
}

/* A source and a clone target on the xfs mount, and a seed per run. */
struct pair {
	char dir[128];
	char src[256], dst[256];
	int sfd, dfd;
	uint64_t seed;
};

/*
 * Make both files empty and check that they can be reflinked: 0, or 1 if
 * the file system cannot (the caller skips).
 */
static int pair_setup(struct __test_metadata *_metadata, struct pair *pr,
		      const char *tag)
{
	char fstype[32];
	int dax = 0, ret;

	pr->sfd = pr->dfd = -1;
	snprintf(pr->dir, sizeof(pr->dir), "%s",
		 env_or("HUGEDAX_XFS", "/mnt/xfs"));
	snprintf(pr->src, sizeof(pr->src), "%s/hugedax.%s.src", pr->dir, tag);
	snprintf(pr->dst, sizeof(pr->dst), "%s/hugedax.%s.dst", pr->dir, tag);
	pr->seed = new_seed();
	ASSERT_EQ(0, mount_of(pr->dir, fstype, sizeof(fstype), &dax));
	ASSERT_STREQ("xfs", fstype);
	ASSERT_TRUE(dax);
	unlink(pr->src);
	unlink(pr->dst);
	sync();		/* freed aligned space is reusable once committed */
	pr->sfd = open(pr->src, O_RDWR | O_CREAT | O_TRUNC, 0644);
	ASSERT_LE(0, pr->sfd);
	pr->dfd = open(pr->dst, O_RDWR | O_CREAT | O_TRUNC, 0644);
	ASSERT_LE(0, pr->dfd);
	ASSERT_EQ(1, file_is_dax(pr->sfd));
	/* an empty clone tells whether the file system can reflink at all */
	ret = ioctl(pr->dfd, FICLONE, pr->sfd);
	if (ret && (errno == EOPNOTSUPP || errno == EINVAL))
		return 1;
	ASSERT_EQ(0, ret);
	return 0;
}

static void pair_teardown(struct pair *pr)
{
	if (pr->sfd >= 0)
		close(pr->sfd);
	if (pr->dfd >= 0)
		close(pr->dfd);
	unlink(pr->src);
	unlink(pr->dst);
}

FIXTURE(reflink) {
	struct pair pr;
};

FIXTURE_SETUP(reflink)
{
	if (geteuid())
		SKIP(return, "needs root");
	if (pair_setup(_metadata, &self->pr, "reflink"))
		SKIP(return, "no reflink on %s (mkfs.xfs -m reflink=0?)",
		     self->pr.dir);
}

FIXTURE_TEARDOWN(reflink)
{
	pair_teardown(&self->pr);
}

/* Make the source, SMALL_SIZE of pattern, and clone it whole. */
static void clone_small(struct __test_metadata *_metadata,
			FIXTURE_DATA(reflink) *self)
{
	ASSERT_EQ(0, write_file_pattern(self->pr.sfd, 0, SMALL_SIZE, self->pr.seed));
	ASSERT_EQ(0, fsync(self->pr.sfd));
	ASSERT_EQ(0, ioctl(self->pr.dfd, FICLONE, self->pr.sfd));
}

/* Reopen both files after a remount. */
static void remount_and_reopen(struct __test_metadata *_metadata,
			       FIXTURE_DATA(reflink) *self)
{
	close(self->pr.sfd);
	close(self->pr.dfd);
	self->pr.sfd = self->pr.dfd = -1;
	ASSERT_EQ(0, remount(self->pr.dir)) {
		TH_LOG("remount %s: %s", self->pr.dir, strerror(errno));
	}
	self->pr.sfd = open(self->pr.src, O_RDWR);
	ASSERT_LE(0, self->pr.sfd);
	self->pr.dfd = open(self->pr.dst, O_RDWR);
	ASSERT_LE(0, self->pr.dfd);
}

/*
 * The clone reads zeros in [zoff, zoff + zlen) and the source's pattern
 * elsewhere in [0, size); the source is all pattern.
 */
static void check_zeroed(struct __test_metadata *_metadata,
			 FIXTURE_DATA(reflink) *self, off_t zoff, size_t zlen,
			 off_t size)
{
	off_t bad = -1;

	EXPECT_EQ(0, file_bytes_match(self->pr.dfd, 0, zoff, self->pr.seed, &bad))
		TH_LOG("clone: head differs from the source at %#lx", (long)bad);
	bad = -1;
	EXPECT_EQ(0, file_range_zero(self->pr.dfd, zoff, zlen, &bad))
		TH_LOG("clone: byte %#lx of the zeroed range %#lx+%#zx is not zero (stale shared data)",
		       (long)bad, (long)zoff, zlen);
	bad = -1;
	EXPECT_EQ(0, file_bytes_match(self->pr.dfd, zoff + zlen,
				      size - (zoff + zlen), self->pr.seed, &bad))
		TH_LOG("clone: tail differs from the source at %#lx", (long)bad);
	bad = -1;
	EXPECT_EQ(0, file_bytes_match(self->pr.sfd, 0, SMALL_SIZE, self->pr.seed,
				      &bad))
		TH_LOG("source changed at %#lx", (long)bad);
}

/* generic/127's failure: a punch that starts and ends inside blocks */
TEST_F(reflink, punch_partial_blocks)
{
	const off_t off = 0x27b2;
	const size_t len = 0x5592 - 0x27b2;

	RETURN_IF_SKIPPED();
	clone_small(_metadata, self);
	ASSERT_EQ(0, fallocate(self->pr.dfd, FALLOC_FL_PUNCH_HOLE |
			       FALLOC_FL_KEEP_SIZE, off, len));
	check_zeroed(_metadata, self, off, len, SMALL_SIZE);
	remount_and_reopen(_metadata, self);
	check_zeroed(_metadata, self, off, len, SMALL_SIZE);
}

TEST_F(reflink, zero_range_partial_blocks)
{
	const off_t off = 0x1801;
	const size_t len = 0x3333;

	RETURN_IF_SKIPPED();
	clone_small(_metadata, self);
	ASSERT_EQ(0, fallocate(self->pr.dfd, FALLOC_FL_ZERO_RANGE, off, len));
	check_zeroed(_metadata, self, off, len, SMALL_SIZE);
	remount_and_reopen(_metadata, self);
	check_zeroed(_metadata, self, off, len, SMALL_SIZE);
}

/* truncate into a shared block, then extend: the tail must read zero */
TEST_F(reflink, truncate_into_shared_block)
{
	const off_t eof = 0x37b2;

	RETURN_IF_SKIPPED();
	clone_small(_metadata, self);
	ASSERT_EQ(0, ftruncate(self->pr.dfd, eof));
	ASSERT_EQ(0, ftruncate(self->pr.dfd, SMALL_SIZE));
	check_zeroed(_metadata, self, eof, SMALL_SIZE - eof, SMALL_SIZE);
	remount_and_reopen(_metadata, self);
	check_zeroed(_metadata, self, eof, SMALL_SIZE - eof, SMALL_SIZE);
}

/*
 * FIDEDUPERANGE of ranges whose data differ only in the source's second
 * extent: the kernel must say they differ and share nothing.  The source is
 * written in two pieces with a write to another file between them, so that
 * its blocks form two extents; stock 6.1 compared only the source's first
 * extent and shared the rest (xfstests generic/127).  Then the same data:
 * shared.  Access order: pwrite both files, fsync, dedupe, pread, FIEMAP.
 */
TEST_F(reflink, dedupe_compares_every_extent)
{
	struct file_dedupe_range *fdr = calloc(1, sizeof(*fdr) +
					       sizeof(struct file_dedupe_range_info));
	const size_t half = SMALL_SIZE / 2;
	char other[300];
	off_t bad = -1;
	int ofd;

	RETURN_IF_SKIPPED();
	ASSERT_NE(NULL, fdr);
	snprintf(other, sizeof(other), "%s.other", self->pr.src);
	ofd = open(other, O_RDWR | O_CREAT | O_TRUNC, 0644);
	ASSERT_LE(0, ofd);
	ASSERT_EQ(0, write_file_pattern(self->pr.sfd, 0, half, self->pr.seed));
	ASSERT_EQ(0, fsync(self->pr.sfd));
	ASSERT_EQ(0, write_file_pattern(ofd, 0, SZ_4K, self->pr.seed + 7));
	ASSERT_EQ(0, fsync(ofd));
	ASSERT_EQ(0, write_file_pattern(self->pr.sfd, half, half,
					self->pr.seed));
	ASSERT_EQ(0, fsync(self->pr.sfd));
	close(ofd);
	unlink(other);
	/* the clone target: the same first half, a different second half */
	ASSERT_EQ(0, write_file_pattern(self->pr.dfd, 0, half, self->pr.seed));
	ASSERT_EQ(0, write_file_pattern(self->pr.dfd, half, half,
					self->pr.seed + 1));
	ASSERT_EQ(0, fsync(self->pr.dfd));

	fdr->src_offset = 0;
	fdr->src_length = SMALL_SIZE;
	fdr->dest_count = 1;
	fdr->info[0].dest_fd = self->pr.dfd;
	fdr->info[0].dest_offset = 0;
	ASSERT_EQ(0, ioctl(self->pr.sfd, FIDEDUPERANGE, fdr));
	EXPECT_EQ(FILE_DEDUPE_RANGE_DIFFERS, fdr->info[0].status);
	EXPECT_EQ(0ULL, fdr->info[0].bytes_deduped);
	EXPECT_EQ(0, file_bytes_match(self->pr.dfd, half, half,
				      self->pr.seed + 1, &bad))
		TH_LOG("the clone target took the source's data at %#lx",
		       (long)bad);
	EXPECT_EQ((long long)SMALL_SIZE, unshared_bytes(self->pr.dfd,
							SMALL_SIZE));

	/* positive control: the same data is shared */
	ASSERT_EQ(0, write_file_pattern(self->pr.dfd, half, half,
					self->pr.seed));
	ASSERT_EQ(0, fsync(self->pr.dfd));
	fdr->info[0].status = 0;
	ASSERT_EQ(0, ioctl(self->pr.sfd, FIDEDUPERANGE, fdr));
	EXPECT_EQ(FILE_DEDUPE_RANGE_SAME, fdr->info[0].status);
	EXPECT_EQ((unsigned long long)SMALL_SIZE, fdr->info[0].bytes_deduped);
	EXPECT_EQ(0LL, unshared_bytes(self->pr.dfd, SMALL_SIZE));
	EXPECT_EQ(0, file_bytes_match(self->pr.dfd, 0, SMALL_SIZE,
				      self->pr.seed, &bad));
	free(fdr);
}

/*
 * Negative control for the checks above: a clone nobody zeroed fails the
 * zero check at the first byte of the range.
 */
TEST_F(reflink, control_untouched_clone_is_not_zero)
{
	off_t bad = -1;

	RETURN_IF_SKIPPED();
	clone_small(_metadata, self);
	EXPECT_EQ(-1, file_range_zero(self->pr.dfd, 0x27b2, 0x100, &bad));
	EXPECT_EQ(0x27b2, bad);
	EXPECT_EQ(0, file_bytes_match(self->pr.dfd, 0, SMALL_SIZE, self->pr.seed,
				      &bad));
	EXPECT_EQ(-1, file_bytes_match(self->pr.dfd, 0, SMALL_SIZE,
				       self->pr.seed + 1, &bad));
}

/* Mapped clones at each page size. */
FIXTURE(reflink_map) {
	struct pair pr;
	char *p;
	long writeback;
};

FIXTURE_VARIANT(reflink_map) {
	size_t size;		/* file size */
	size_t align;		/* mapping alignment */
	unsigned long pte, pmd, pud;	/* source mapping, bytes per level */
};

FIXTURE_VARIANT_ADD(reflink_map, pte) {
	.size = SMALL_SIZE, .align = SZ_2M, .pte = SMALL_SIZE,
};

FIXTURE_VARIANT_ADD(reflink_map, pmd) {
	.size = 32 * SZ_2M, .align = SZ_2M, .pmd = 32 * SZ_2M,
};

FIXTURE_VARIANT_ADD(reflink_map, pud) {
	.size = SZ_1G, .align = SZ_1G, .pud = SZ_1G,
};

FIXTURE_SETUP(reflink_map)
{
	self->p = MAP_FAILED;
	self->writeback = -1;
	if (geteuid())
		SKIP(return, "needs root");
	if (pair_setup(_metadata, &self->pr, "reflink_map"))
		SKIP(return, "no reflink on %s", self->pr.dir);
	/* the flusher must not write-protect mappings behind our back */
	self->writeback = writeback_pause();
	ASSERT_LE(0, self->writeback);
}

FIXTURE_TEARDOWN(reflink_map)
{
	if (self->p != MAP_FAILED)
		munmap(self->p, variant->size);
	if (self->writeback >= 0)
		writeback_resume(self->writeback);
	pair_teardown(&self->pr);
}

/* The clone: seed2 at every COW_STEP, the source's seed elsewhere. */
static void check_clone(struct __test_metadata *_metadata, int fd,
			size_t size, uint64_t seed, uint64_t seed2)
{
	uint64_t w[2];
	off_t o;
	long wrong_new = 0, wrong_old = 0;

	for (o = 0; o < (off_t)size; o += COW_STEP) {
		ASSERT_EQ((ssize_t)sizeof(w), pread(fd, w, sizeof(w), o));
		wrong_new += w[0] != pattern_word(seed2, o);
		wrong_old += w[1] != pattern_word(seed, o + 8);
	}
	EXPECT_EQ(0, wrong_new) TH_LOG("%ld written words lost", wrong_new);
	EXPECT_EQ(0, wrong_old) TH_LOG("%ld unwritten words wrong", wrong_old);
}

TEST_F_TIMEOUT(reflink_map, write_clone_through_mapping, TIMEOUT_LONG)
{
	const size_t size = variant->size;
	uint64_t seed2 = self->pr.seed ^ 0x5a5a5a5a00000000ULL;
	struct fault_count fc;
	size_t bad = 0;
	off_t fbad = -1;
	char desc[64];
	struct ptdump_sizes sz;

	RETURN_IF_SKIPPED();
	/* the source: write faults into a sized, sparse file */
	ASSERT_EQ(0, ftruncate(self->pr.sfd, size));
	self->p = map_aligned(size, variant->align, PROT_READ | PROT_WRITE,
			      MAP_SHARED, self->pr.sfd, 0, 0);
	ASSERT_NE(MAP_FAILED, self->p);
	fault_begin(&fc, calibrate_minflt());
	touch_write(self->p, size, SZ_4K, self->pr.seed, 0);
	fault_end(&fc);
	expect_faults(_metadata, "source write faults", &fc,
		      variant->pud ? size / SZ_1G :
		      variant->pmd ? size / SZ_2M : size / SZ_4K);
	expect_levels(_metadata, self->p, size, variant->pte, variant->pmd,
		      variant->pud);
	fill_pattern(self->p, size, self->pr.seed, 0);
	ASSERT_EQ(0, msync(self->p, size, MS_SYNC));
	ASSERT_EQ(0, munmap(self->p, size));
	self->p = MAP_FAILED;

	/* the clone: read it through a mapping, then write every 64 KiB */
	ASSERT_EQ(0, ioctl(self->pr.dfd, FICLONE, self->pr.sfd));
	self->p = map_aligned(size, variant->align, PROT_READ | PROT_WRITE,
			      MAP_SHARED, self->pr.dfd, 0, 0);
	ASSERT_NE(MAP_FAILED, self->p);
	EXPECT_EQ(0, check_pattern(self->p, size, SZ_4K, self->pr.seed, 0, &bad))
		TH_LOG("clone mapping differs from the source at %#zx", bad);
	ASSERT_EQ(0, ptdump_levels((unsigned long)self->p, size, &sz));
	ptdump_describe(desc, sizeof(desc), &sz, 1);
	TH_LOG("clone after reading: %s", desc);
	EXPECT_EQ(0LL, unshared_bytes(self->pr.dfd, size));
	touch_write(self->p, size, COW_STEP, seed2, 0);
	ASSERT_EQ(0, msync(self->p, size, MS_SYNC));
	ASSERT_EQ(0, ptdump_levels((unsigned long)self->p, size, &sz));
	ptdump_describe(desc, sizeof(desc), &sz, 1);
	TH_LOG("clone after writing every 64 KiB: %s", desc);
	/*
	 * Copy on write 4 KiB at a time, whatever the mapping: each store
	 * copied one page (FIEMAP: only those pages left the shared extents)
	 * and maps it with a PTE (page table dump: no huge entry is left over
	 * the written range, which would map shared blocks writable; with
	 * 4 KiB pages, the pages read before stay mapped).
	 */
	EXPECT_EQ((long long)(size / COW_STEP * SZ_4K),
		  unshared_bytes(self->pr.dfd, size));
	EXPECT_EQ(variant->pte ? size : size / COW_STEP * SZ_4K, sz.pte);
	EXPECT_EQ(0UL, sz.pmd);
	EXPECT_EQ(0UL, sz.pud);
	check_clone(_metadata, self->pr.dfd, size, self->pr.seed, seed2);
	EXPECT_EQ(0, check_file_pattern(self->pr.sfd, 0, size, SZ_4K, self->pr.seed,
					&fbad))
		TH_LOG("source changed at %#lx", (long)fbad);
	ASSERT_EQ(0, munmap(self->p, size));
	self->p = MAP_FAILED;

	/* on media: both again after a remount */
	close(self->pr.sfd);
	close(self->pr.dfd);
	self->pr.sfd = self->pr.dfd = -1;
	ASSERT_EQ(0, remount(self->pr.dir));
	self->pr.sfd = open(self->pr.src, O_RDWR);
	ASSERT_LE(0, self->pr.sfd);
	self->pr.dfd = open(self->pr.dst, O_RDWR);
	ASSERT_LE(0, self->pr.dfd);
	check_clone(_metadata, self->pr.dfd, size, self->pr.seed, seed2);
	fbad = -1;
	EXPECT_EQ(0, check_file_pattern(self->pr.sfd, 0, size, SZ_4K, self->pr.seed,
					&fbad))
		TH_LOG("source changed at %#lx after remount", (long)fbad);
}

TEST_HARNESS_MAIN
