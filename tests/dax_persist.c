// SPDX-License-Identifier: GPL-2.0
/*
 * Data written through huge DAX mappings survives a power cut.
 *
 * Two boots (scripts/run-persist.sh).  HUGEDAX_PERSIST=write: each variant
 * makes a file, maps it at its huge page size and writes a fresh pattern
 * over all of it, through MAP_SYNC on ext4 and xfs (no msync, no fsync of
 * the file) and with MAP_SHARED + msync(MS_SYNC) on ext2, which has no
 * MAP_SYNC (checked: EOPNOTSUPP).  The page size is checked with the fault
 * count, the page table dump and the fs_dax fault-done tracepoints.  The
 * seed goes to $HUGEDAX_PERSIST_DIR/persist-VARIANT.txt; right after, the
 * guest is reset without unmounting.  HUGEDAX_PERSIST=verify (next boot,
 * after e2fsck of ext2 and log replay of ext4/xfs at mount): every byte
 * is checked, with pread and through a mapping; negative control: the
 * pattern the file held before the write, and a pattern of another seed,
 * must not match.
 *
 * ext4 variants rely on the series placing DAX file data (default
 * mkfs.ext4; the 1 GiB file gets eight free, aligned block groups).  xfs
 * variants pad the allocation so the file starts on a 1 GiB boundary of
 * the device (default mkfs.xfs, 4 GiB groups; the pad tolerates a file
 * that is aligned anyway).
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

#include "dax_probe.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"
#include "dax_checks.h"

enum fill { HOLES, FALLOCATE, PWRITE };

static const char *const events[] = {
	"fs_dax/dax_pmd_fault_done",
	"fs_dax/dax_pud_fault_done",
	NULL,
};

FIXTURE(persist) {
	char path[256], state[256];
	int fd;
};

FIXTURE_VARIANT(persist) {
	const char *name, *env, *dir;
	size_t huge, len;
	int map_sync;		/* MAP_SYNC, else msync */
	int pad;		/* start on a 1 GiB boundary of the device */
	enum fill fill;		/* what the file holds before the write */
};

/* fallocated: the first write fault allocates, and MAP_SYNC commits it */
FIXTURE_VARIANT_ADD(persist, ext4_pmd) {
	.name = "ext4_pmd", .env = "HUGEDAX_EXT4", .dir = "/mnt/ext4", .huge = SZ_2M,
	.len = 64 * SZ_1M, .map_sync = 1, .fill = FALLOCATE,
};

/* fallocated 1 GiB: one PUD write fault converts (and zeroes) it all */
FIXTURE_VARIANT_ADD(persist, ext4_pud) {
	.name = "ext4_pud", .env = "HUGEDAX_EXT4", .dir = "/mnt/ext4", .huge = SZ_1G,
	.len = SZ_1G, .map_sync = 1, .fill = FALLOCATE,
};

/* pwrite, no fsync: the inode is dirty, so the faults are synchronous */
FIXTURE_VARIANT_ADD(persist, xfs_pmd) {
	.name = "xfs_pmd", .env = "HUGEDAX_XFS", .dir = "/mnt/xfs", .huge = SZ_2M,
	.len = 64 * SZ_1M, .map_sync = 1, .pad = 1, .fill = PWRITE,
};

FIXTURE_VARIANT_ADD(persist, xfs_pud) {
	.name = "xfs_pud", .env = "HUGEDAX_XFS", .dir = "/mnt/xfs", .huge = SZ_1G,
	.len = SZ_1G, .map_sync = 1, .pad = 1, .fill = PWRITE,
};

/* holes: ext2 allocates aligned 2 MiB chunks at fault time */
FIXTURE_VARIANT_ADD(persist, ext2_pmd) {
	.name = "ext2_pmd", .env = "HUGEDAX_EXT2", .dir = "/mnt/ext2", .huge = SZ_2M,
	.len = 64 * SZ_1M, .map_sync = 0, .fill = HOLES,
};

static int writing(void)
{
	return !strcmp(env_or("HUGEDAX_PERSIST", "verify"), "write");
}

FIXTURE_SETUP(persist)
{
	const char *dir = env_or(variant->env, variant->dir);

	snprintf(self->path, sizeof(self->path), "%s/persist.%s", dir,
		 variant->name);
	snprintf(self->state, sizeof(self->state), "%s/persist-%s.txt",
		 env_or("HUGEDAX_PERSIST_DIR", "/mnt/out"), variant->name);
	self->fd = -1;
}

FIXTURE_TEARDOWN(persist)
{
	if (self->fd >= 0)
		close(self->fd);
}

static void pad_to_gib(struct __test_metadata *_metadata, const char *path)
{
	char pad[280];
	uint64_t phys;
	int pfd;

	snprintf(pad, sizeof(pad), "%s.pad", path);
	pfd = open(pad, O_RDWR | O_CREAT | O_TRUNC, 0644);
	ASSERT_LE(0, pfd);
	ASSERT_EQ(0, write_file_pattern(pfd, 0, SZ_2M, 1));
	ASSERT_EQ(0, fiemap_first_physical(pfd, &phys));
	ASSERT_EQ(0, fallocate(pfd, 0, 0, SZ_1G - (phys & (SZ_1G - 1))));
	ASSERT_EQ(0, fsync(pfd));
	close(pfd);
}

static void sync_dir(struct __test_metadata *_metadata, const char *path)
{
	char dir[256], *slash;
	int dfd;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	ASSERT_NE(NULL, slash);
	*slash = '\0';
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	ASSERT_LE(0, dfd);
	ASSERT_EQ(0, fsync(dfd));
	close(dfd);
}

static void do_write(struct __test_metadata *_metadata,
		     FIXTURE_DATA(persist) *self,
		     const FIXTURE_VARIANT(persist) *variant)
{
	uint64_t seed = new_seed(), old = seed ^ 0x0ddba11;
	size_t n = variant->len / variant->huge;
	struct fault_count fc;
	FILE *f;
	void *p;

	unlink(self->path);
	if (variant->pad)
		pad_to_gib(_metadata, self->path);
	self->fd = open(self->path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	ASSERT_LE(0, self->fd);
	switch (variant->fill) {
	case HOLES:
		ASSERT_EQ(0, ftruncate(self->fd, variant->len));
		break;
	case FALLOCATE:
		ASSERT_EQ(0, fallocate(self->fd, 0, 0, variant->len));
		break;
	case PWRITE:
		ASSERT_EQ(0, write_file_pattern(self->fd, 0, variant->len, old));
		break;
	}
	if (variant->huge == SZ_1G)
		ASSERT_EQ((long)n, fiemap_aligned_chunks(self->fd, 0,
							 variant->len, SZ_1G));
	/* the name must survive; the data is what is tested */
	sync_dir(_metadata, self->path);

	f = fopen(self->state, "w");
	ASSERT_NE(NULL, f);
	fprintf(f, "%llu %llu %zu\n", (unsigned long long)seed,
		(unsigned long long)old, variant->len);
	ASSERT_EQ(0, fflush(f));
	ASSERT_EQ(0, fsync(fileno(f)));
	fclose(f);

	/* negative control: no MAP_SYNC where it is not supported */
	p = map_aligned(variant->len, variant->huge, PROT_READ | PROT_WRITE,
			MAP_SHARED_VALIDATE | MAP_SYNC, self->fd, 0, 0);
	if (!variant->map_sync) {
		EXPECT_EQ(MAP_FAILED, p);
		EXPECT_EQ(EOPNOTSUPP, errno);
		p = map_aligned(variant->len, variant->huge,
				PROT_READ | PROT_WRITE, MAP_SHARED, self->fd,
				0, 0);
	}
	ASSERT_NE(MAP_FAILED, p) {
		TH_LOG("mmap: %s", strerror(errno));
	}
	/* one word per 4 KiB faults it in; then all of it */
	traced_touch(_metadata, events, &fc, p, variant->len, SZ_4K, true,
		     seed, 0);
	fill_pattern(p, variant->len, seed, 0);
	if (variant->huge == SZ_1G) {
		expect_faults(_metadata, "PUD write faults", &fc, n);
		EXPECT_EQ((long)n, trace_count("dax_pud_fault_done", NULL));
		EXPECT_EQ(0, trace_count("dax_pud_fault_done", "FALLBACK"));
		expect_levels(_metadata, p, variant->len, 0, 0, variant->len);
	} else {
		expect_faults(_metadata, "PMD write faults", &fc, n);
		EXPECT_EQ((long)n, trace_count("dax_pmd_fault_done", NULL));
		EXPECT_EQ(0, trace_count("dax_pmd_fault_done", "FALLBACK"));
		expect_levels(_metadata, p, variant->len, 0, variant->len, 0);
	}
	if (!variant->map_sync)
		ASSERT_EQ(0, msync(p, variant->len, MS_SYNC));
	/* left mapped: the guest is reset right after */
	TH_LOG("%s: %zu MiB written with seed %llu through %s", self->path,
	       variant->len >> 20, (unsigned long long)seed,
	       variant->map_sync ? "MAP_SYNC" : "MAP_SHARED + msync");
}

static void do_verify(struct __test_metadata *_metadata,
		      FIXTURE_DATA(persist) *self,
		      const FIXTURE_VARIANT(persist) *variant)
{
	unsigned long long seed, old;
	size_t len, bad;
	struct stat st;
	off_t fbad;
	FILE *f;
	void *p;

	f = fopen(self->state, "r");
	ASSERT_NE(NULL, f) {
		TH_LOG("no %s: the write boot did not get here", self->state);
	}
	ASSERT_EQ(3, fscanf(f, "%llu %llu %zu", &seed, &old, &len));
	fclose(f);
	self->fd = open(self->path, O_RDONLY);
	ASSERT_LE(0, self->fd) {
		TH_LOG("%s: %s", self->path, strerror(errno));
	}
	ASSERT_EQ(0, fstat(self->fd, &st));
	ASSERT_EQ((off_t)len, st.st_size);
	EXPECT_EQ(0, check_file_pattern(self->fd, 0, len, 8, seed, &fbad)) {
		TH_LOG("pread: first bad word at file offset %#llx",
		       (unsigned long long)fbad);
	}
	p = map_aligned(len, variant->huge, PROT_READ, MAP_SHARED, self->fd,
			0, 0);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(0, check_pattern(p, len, 8, seed, 0, &bad)) {
		TH_LOG("mapping: first bad word at offset %#zx", bad);
	}
	/* negative controls: the old contents, another seed */
	EXPECT_EQ(-1, check_pattern(p, len, SZ_2M, old, 0, &bad));
	EXPECT_EQ(-1, check_pattern(p, len, SZ_2M, seed + 1, 0, &bad));
	munmap(p, len);
	TH_LOG("%s: %zu MiB, seed %llu: every byte as written", self->path,
	       len >> 20, seed);
}

TEST_F_TIMEOUT(persist, every_byte, TIMEOUT_LONG)
{
	if (writing())
		do_write(_metadata, self, variant);
	else
		do_verify(_metadata, self, variant);
}

TEST_HARNESS_MAIN
