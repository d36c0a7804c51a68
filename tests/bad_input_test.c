// SPDX-License-Identifier: GPL-2.0
/*
 * Bad input against huge DAX mappings gets a clear outcome (a smaller page
 * size, SIGBUS, EACCES or EROFS), never a kernel warning, and no data is
 * lost: misaligned address hints, MAP_FIXED over a mapped PUD, a file that
 * ends inside the last GiB of its mapping, and a read-only mount.
 *
 * Runs on the ext4 and xfs DAX mounts of the guest (default mkfs).  Each
 * test uses its own 1 GiB file, sized by ftruncate() and written with
 * pwrite() (placed for a PUD by the series; FIEMAP checks it), with a
 * non-zero position-dependent pattern.  Page sizes from fault counts and
 * the kernel's page table dump; the guest's kernel log is checked for
 * warnings by the host (scripts/judge-console.sh).
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
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "dax_probe.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"
#include "dax_checks.h"

FIXTURE(bad) {
	int fd;
	char *p;
	size_t len;
	char path[256];
	uint64_t seed;
	char ro[64];		/* read-only bind mount, if a test made one */
};

FIXTURE_VARIANT(bad) {
	const char *fstype;
	const char *env;
	const char *dir;
};

FIXTURE_VARIANT_ADD(bad, ext4) {
	.fstype = "ext4", .env = "HUGEDAX_EXT4", .dir = "/mnt/ext4",
};

FIXTURE_VARIANT_ADD(bad, xfs) {
	.fstype = "xfs", .env = "HUGEDAX_XFS", .dir = "/mnt/xfs",
};

FIXTURE_SETUP(bad)
{
	const char *dir = env_or(variant->env, variant->dir);
	char fstype[32];
	int dax = 0;

	self->fd = -1;
	self->p = MAP_FAILED;
	self->ro[0] = 0;
	self->seed = new_seed();
	snprintf(self->path, sizeof(self->path), "%s/hugedax.bad", dir);
	if (geteuid())
		SKIP(return, "needs root");
	ASSERT_EQ(0, mount_of(dir, fstype, sizeof(fstype), &dax));
	ASSERT_STREQ(variant->fstype, fstype);
	ASSERT_TRUE(dax);
	/* the previous test's file is free for reuse once this commits */
	sync();
	self->fd = open(self->path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, ftruncate(self->fd, SZ_1G));
	ASSERT_EQ(0, write_file_pattern(self->fd, 0, SZ_1G, self->seed));
	ASSERT_EQ(0, fsync(self->fd));
	EXPECT_EQ(1L, fiemap_aligned_chunks(self->fd, 0, SZ_1G, SZ_1G));
}

FIXTURE_TEARDOWN(bad)
{
	if (self->p != MAP_FAILED)
		munmap(self->p, self->len);
	if (self->fd >= 0)
		close(self->fd);
	if (self->ro[0]) {
		umount(self->ro);
		rmdir(self->ro);
	}
	unlink(self->path);
}

static void expect_file_intact(struct __test_metadata *_metadata, int fd,
			       size_t len, uint64_t seed)
{
	off_t bad = 0;

	EXPECT_EQ(0, check_file_pattern(fd, 0, len, SZ_4K, seed, &bad)) {
		TH_LOG("file data differs at %#llx", (unsigned long long)bad);
	}
}

/*
 * An address hint 4 KiB past a 1 GiB boundary: the kernel may take the
 * hint (then address and offset disagree modulo 2 MiB and 4 KiB pages map
 * it) or place the mapping itself (then it is aligned and huge).  Either
 * way the page sizes match the address the caller got, and the data is
 * right.  Access order: read one word per 4 KiB.
 */
TEST_F_TIMEOUT(bad, misaligned_hint_gets_matching_pages, TIMEOUT_LONG)
{
	size_t len = 64 * SZ_1M;
	struct fault_count fc;
	char *base, *hint;

	RETURN_IF_SKIPPED();
	base = map_aligned(SZ_1G, SZ_1G, PROT_NONE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0, 0);
	ASSERT_NE(MAP_FAILED, base);
	hint = base + SZ_4K;
	ASSERT_EQ(0, munmap(base, SZ_1G));

	self->len = len;
	self->p = mmap(hint, len, PROT_READ | PROT_WRITE, MAP_SHARED,
		       self->fd, 0);
	ASSERT_NE(MAP_FAILED, self->p);
	fault_begin(&fc, calibrate_minflt());
	touch_read(self->p, len, SZ_4K);
	fault_end(&fc);
	TH_LOG("hint %p, got %p", hint, self->p);
	if (((unsigned long)self->p & (SZ_2M - 1)) == 0) {
		expect_faults(_metadata, "read 64 MiB, aligned", &fc, len / SZ_2M);
		expect_levels(_metadata, self->p, len, 0, len, 0);
	} else {
		expect_faults(_metadata, "read 64 MiB, misaligned", &fc,
			      len / SZ_4K);
		expect_levels(_metadata, self->p, len, len, 0, 0);
	}
	EXPECT_EQ(0, check_pattern(self->p, len, SZ_4K, self->seed, 0, NULL));
}

/*
 * A file offset that is not a multiple of 2 MiB, at a 1 GiB-aligned
 * address: no huge page can map it; 4 KiB pages do, with the right data.
 */
TEST_F_TIMEOUT(bad, misaligned_offset_maps_4k, TIMEOUT_LONG)
{
	size_t len = 16 * SZ_1M;
	struct fault_count fc;

	RETURN_IF_SKIPPED();
	self->len = len;
	self->p = map_aligned(len, SZ_1G, PROT_READ | PROT_WRITE, MAP_SHARED,
			      self->fd, SZ_4K, 0);
	ASSERT_NE(MAP_FAILED, self->p);
	fault_begin(&fc, calibrate_minflt());
	touch_read(self->p, len, SZ_4K);
	fault_end(&fc);
	expect_faults(_metadata, "read 16 MiB at offset 4 KiB", &fc, len / SZ_4K);
	expect_levels(_metadata, self->p, len, len, 0, 0);
	EXPECT_EQ(0, check_pattern(self->p, len, SZ_4K, self->seed, SZ_4K, NULL));
}

/*
 * MAP_FIXED over 2 MiB in the middle of a mapped PUD: the new mapping
 * replaces that piece (the PUD is split), the rest of the old one keeps
 * its data, and the file is not touched.  Then anonymous memory over
 * another piece: zeros there.
 */
TEST_F_TIMEOUT(bad, map_fixed_over_pud, TIMEOUT_LONG)
{
	char *q, *z;

	RETURN_IF_SKIPPED();
	self->len = SZ_1G;
	self->p = map_aligned(SZ_1G, SZ_1G, PROT_READ | PROT_WRITE, MAP_SHARED,
			      self->fd, 0, 0);
	ASSERT_NE(MAP_FAILED, self->p);
	touch_read(self->p, SZ_1G, SZ_4K);
	expect_levels(_metadata, self->p, SZ_1G, 0, 0, SZ_1G);

	/* the file's own last 2 MiB, over its 3rd 2 MiB */
	q = mmap(self->p + 2 * SZ_2M, SZ_2M, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_FIXED, self->fd, SZ_1G - SZ_2M);
	ASSERT_EQ(self->p + 2 * SZ_2M, q);
	z = mmap(self->p + 5 * SZ_2M + SZ_4K, SZ_4K, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	ASSERT_EQ(self->p + 5 * SZ_2M + SZ_4K, z);

	EXPECT_EQ(0, check_pattern(self->p, 2 * SZ_2M, 8, self->seed, 0, NULL));
	EXPECT_EQ(0, check_pattern(q, SZ_2M, 8, self->seed, SZ_1G - SZ_2M, NULL));
	EXPECT_EQ(0, check_pattern(self->p + 3 * SZ_2M, 2 * SZ_2M + SZ_4K, 8,
				   self->seed, 3 * SZ_2M, NULL));
	EXPECT_EQ(0ULL, touch_read(z, SZ_4K, 8));
	EXPECT_EQ(0, check_pattern(z + SZ_4K, SZ_1G - 5 * SZ_2M - 2 * SZ_4K,
				   SZ_4K, self->seed, 5 * SZ_2M + 2 * SZ_4K,
				   NULL));
	expect_file_intact(_metadata, self->fd, SZ_1G, self->seed);
}

/*
 * A file that ends 2 MiB before the end of its 1 GiB mapping: a PUD would
 * reach past EOF, so PMDs map the file and the rest raises SIGBUS.
 */
TEST_F_TIMEOUT(bad, file_shorter_than_mapping, TIMEOUT_LONG)
{
	struct fault_count fc;

	RETURN_IF_SKIPPED();
	ASSERT_EQ(0, ftruncate(self->fd, SZ_1G - SZ_2M));
	self->len = SZ_1G;
	self->p = map_aligned(SZ_1G, SZ_1G, PROT_READ | PROT_WRITE, MAP_SHARED,
			      self->fd, 0, 0);
	ASSERT_NE(MAP_FAILED, self->p);
	fault_begin(&fc, calibrate_minflt());
	touch_read(self->p, SZ_1G - SZ_2M, SZ_4K);
	fault_end(&fc);
	expect_faults(_metadata, "read the 1022 MiB of the file", &fc, 511);
	expect_levels(_metadata, self->p, SZ_1G, 0, SZ_1G - SZ_2M, 0);
	EXPECT_EQ(SIGBUS, access_in_child(self->p + SZ_1G - SZ_2M, 0));
	EXPECT_EQ(SIGBUS, access_in_child(self->p + SZ_1G - 8, 1));
	expect_file_intact(_metadata, self->fd, SZ_1G - SZ_2M, self->seed);
}

/*
 * Through a read-only bind mount: opening for writing fails with EROFS, a
 * shared writable mapping with EACCES, and so does making a read-only
 * shared mapping writable; reading maps the PUD; a private write copies
 * 4 KiB and leaves the file alone.
 */
TEST_F_TIMEOUT(bad, read_only_mount, TIMEOUT_LONG)
{
	const char *dir = env_or(variant->env, variant->dir);
	char path[128];
	struct fault_count fc;
	int fd;

	RETURN_IF_SKIPPED();
	snprintf(self->ro, sizeof(self->ro), "/tmp/hugedax-ro.%d", getpid());
	ASSERT_EQ(0, mkdir(self->ro, 0755));
	ASSERT_EQ(0, mount(dir, self->ro, NULL, MS_BIND, NULL));
	ASSERT_EQ(0, mount(NULL, self->ro, NULL,
			   MS_REMOUNT | MS_BIND | MS_RDONLY, NULL));
	snprintf(path, sizeof(path), "%s/hugedax.bad", self->ro);

	EXPECT_EQ(-1, open(path, O_RDWR));
	EXPECT_EQ(EROFS, errno);
	fd = open(path, O_RDONLY);
	ASSERT_LE(0, fd);
	close(self->fd);
	self->fd = fd;

	EXPECT_EQ(MAP_FAILED, map_aligned(SZ_1G, SZ_1G, PROT_READ | PROT_WRITE,
					  MAP_SHARED, fd, 0, 0));
	EXPECT_EQ(EACCES, errno);

	self->len = SZ_1G;
	self->p = map_aligned(SZ_1G, SZ_1G, PROT_READ, MAP_SHARED, fd, 0, 0);
	ASSERT_NE(MAP_FAILED, self->p);
	fault_begin(&fc, calibrate_minflt());
	touch_read(self->p, SZ_1G, SZ_4K);
	fault_end(&fc);
	expect_faults(_metadata, "read 1 GiB read-only", &fc, 1);
	expect_levels(_metadata, self->p, SZ_1G, 0, 0, SZ_1G);
	EXPECT_EQ(-1, mprotect(self->p, SZ_1G, PROT_READ | PROT_WRITE));
	EXPECT_EQ(EACCES, errno);
	EXPECT_EQ(SIGSEGV, access_in_child(self->p + SZ_2M, 1));
	munmap(self->p, SZ_1G);

	self->p = map_aligned(SZ_1G, SZ_1G, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE, fd, 0, 0);
	ASSERT_NE(MAP_FAILED, self->p);
	touch_read(self->p, SZ_1G, SZ_4K);
	self->p[SZ_2M + 16] = 0x55;
	EXPECT_EQ(4L, smaps_kb((unsigned long)self->p, "Anonymous:"));
	EXPECT_EQ(0x55, self->p[SZ_2M + 16]);
	expect_file_intact(_metadata, fd, SZ_1G, self->seed);
}

TEST_HARNESS_MAIN
