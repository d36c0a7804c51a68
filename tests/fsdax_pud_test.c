// SPDX-License-Identifier: GPL-2.0
/*
 * 1 GiB (PUD) mappings of DAX files on xfs.
 *
 * Runs on a default mkfs.xfs of the 16 GiB namespace (4 GiB allocation
 * groups; guest/test-job.sh remakes it before this test): the stripe
 * recipe used for the 2 MiB tests makes 1 GiB groups, whose headers leave
 * no room for a 1 GiB extent.
 *
 * The fault path maps a PUD where the file has a 1 GiB-aligned, 1 GiB-long
 * extent.  Until the allocator aligns large files by itself, the fixture
 * makes that layout: on the fresh filesystem it allocates a pad file that
 * ends at a 1 GiB boundary of the device, then fills a 2 GiB file with
 * pwrite() (which lands right after the pad), and checks with FIEMAP that
 * both GiBs of the file are 1 GiB-aligned extents; a layout that is not is
 * reported as such, not as a fault-path failure.
 *
 * Page sizes are checked with fault counts, the dax_pud_fault_done /
 * dax_pmd_fault_done tracepoints and the kernel's page table dump.  Data
 * is a non-zero position-dependent pattern, checked through the mapping
 * and with pread().
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
#include <sys/wait.h>

#include "dax_probe.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"
#include "dax_checks.h"

#define FILE_SIZE	(2 * SZ_1G)
#define FILE_SEED	0x5eed0f11e5ULL

static const char *const events[] = {
	"fs_dax/dax_pud_fault_done",
	"fs_dax/dax_pmd_fault_done",
	"fs_dax/dax_pmd_load_hole",
	NULL,
};


/*
 * The 2 GiB data file, shared by the tests (made once: filling 2 GiB
 * under emulation takes a while).  Tests that write restore the pattern.
 */
static int open_data_file(struct __test_metadata *_metadata, const char *dir)
{
	char data[256], pad[256];
	uint64_t phys;
	struct stat st;
	int fd, pfd;
	long chunks;

	snprintf(data, sizeof(data), "%s/hugedax.pud.data", dir);
	snprintf(pad, sizeof(pad), "%s/hugedax.pud.pad", dir);
	fd = open(data, O_RDWR);
	if (fd >= 0 && !fstat(fd, &st) && st.st_size == (off_t)FILE_SIZE)
		return fd;
	if (fd >= 0)
		close(fd);

	/* pad the allocation up to the next 1 GiB boundary of the device */
	pfd = open(pad, O_RDWR | O_CREAT | O_TRUNC, 0644);
	EXPECT_LE(0, pfd);
	if (pfd < 0)
		return -1;
	EXPECT_EQ(0, write_file_pattern(pfd, 0, SZ_2M, 1));
	EXPECT_EQ(0, fiemap_first_physical(pfd, &phys));
	/* extend it so that it ends at the next 1 GiB boundary */
	EXPECT_EQ(0, fallocate(pfd, 0, 0, SZ_1G - (phys & (SZ_1G - 1))));
	close(pfd);

	fd = open(data, O_RDWR | O_CREAT | O_TRUNC, 0644);
	EXPECT_LE(0, fd);
	if (fd < 0)
		return -1;
	EXPECT_EQ(0, write_file_pattern(fd, 0, FILE_SIZE, FILE_SEED));
	EXPECT_EQ(0, fsync(fd));
	chunks = fiemap_aligned_chunks(fd, 0, FILE_SIZE, SZ_1G);
	EXPECT_EQ(2, chunks) {
		TH_LOG("test set-up: the file is not laid out in 1 GiB-aligned extents (pad at %#llx)",
		       (unsigned long long)phys);
	}
	return fd;
}

FIXTURE(xfs_pud) {
	int fd;
	char *p;
	size_t len;
};

FIXTURE_SETUP(xfs_pud)
{
	char fstype[32];
	int dax = 0;
	const char *dir = env_or("HUGEDAX_XFS", "/mnt/xfs");

	self->fd = -1;
	self->p = MAP_FAILED;
	if (geteuid())
		SKIP(return, "needs root");
	ASSERT_EQ(0, mount_of(dir, fstype, sizeof(fstype), &dax));
	ASSERT_STREQ("xfs", fstype);
	ASSERT_TRUE(dax);
	self->fd = open_data_file(_metadata, dir);
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(xfs_pud)
{
	if (self->p != MAP_FAILED)
		munmap(self->p, self->len);
	if (self->fd >= 0)
		close(self->fd);
}

static void map_file(struct __test_metadata *_metadata,
		     FIXTURE_DATA(xfs_pud) *self, size_t len, int flags,
		     size_t misalign)
{
	self->len = len;
	if (misalign == (size_t)-1)
		self->p = mmap(NULL, len, PROT_READ | PROT_WRITE, flags,
			       self->fd, 0);
	else
		self->p = map_aligned(len, SZ_1G, PROT_READ | PROT_WRITE, flags,
				      self->fd, 0, misalign);
	ASSERT_NE(MAP_FAILED, self->p);
}

static void expect_file_data(struct __test_metadata *_metadata, int fd,
			     uint64_t seed)
{
	off_t bad = 0;

	EXPECT_EQ(0, check_file_pattern(fd, 0, FILE_SIZE, SZ_1M, seed, &bad)) {
		TH_LOG("file data differs at %#llx", (unsigned long long)bad);
	}
}

/*
 * A plain mmap(NULL, 2 GiB) gets a 1 GiB-aligned address.  Access order:
 * write one word per 4 KiB over data that pwrite() wrote: two PUD faults.
 * The data reads back with pread() after munmap().
 */
TEST_F_TIMEOUT(xfs_pud, plain_mmap_write_maps_puds, TIMEOUT_LONG)
{
	uint64_t seed = new_seed();
	struct fault_count fc;

	RETURN_IF_SKIPPED();
	map_file(_metadata, self, FILE_SIZE, MAP_SHARED, (size_t)-1);
	EXPECT_EQ(0UL, (unsigned long)self->p & (SZ_1G - 1));

	traced_touch(_metadata, events, &fc, self->p, FILE_SIZE, SZ_4K, true, seed, 0);

	expect_faults(_metadata, "write 2 GiB", &fc, 2);
	EXPECT_EQ(2L, trace_count("dax_pud_fault_done", "NOPAGE"));
	EXPECT_EQ(0L, trace_count("dax_pud_fault_done", "FALLBACK"));
	EXPECT_EQ(0L, trace_count("dax_pmd_fault_done", NULL));
	expect_levels(_metadata, self->p, FILE_SIZE, 0, 0, FILE_SIZE);

	munmap(self->p, self->len);
	self->p = MAP_FAILED;
	{
		off_t bad = 0;

		EXPECT_EQ(0, check_file_pattern(self->fd, 0, FILE_SIZE, SZ_4K,
						seed, &bad)) {
			TH_LOG("pread differs at %#llx",
			       (unsigned long long)bad);
		}
	}
	ASSERT_EQ(0, write_file_pattern(self->fd, 0, FILE_SIZE, FILE_SEED));
}

/*
 * Negative control: the same file mapped 2 MiB past a 1 GiB boundary.
 * Address and file offset disagree modulo 1 GiB, so the PUD fault falls
 * back and 2 MiB PMDs map the range.  Access order: read.
 */
TEST_F_TIMEOUT(xfs_pud, misaligned_address_falls_back_to_pmds, TIMEOUT_LONG)
{
	struct fault_count fc;

	RETURN_IF_SKIPPED();
	map_file(_metadata, self, SZ_1G, MAP_SHARED, SZ_2M);
	traced_touch(_metadata, events, &fc, self->p, SZ_1G, SZ_4K, false, 0, 0);

	expect_faults(_metadata, "read 1 GiB misaligned", &fc, 512);
	EXPECT_EQ(0L, trace_count("dax_pud_fault_done", "NOPAGE"));
	EXPECT_EQ(512L, trace_count("dax_pmd_fault_done", "NOPAGE"));
	expect_levels(_metadata, self->p, SZ_1G, 0, SZ_1G, 0);
	EXPECT_EQ(0, check_pattern(self->p, SZ_1G, SZ_4K, FILE_SEED, 0, NULL));
}

/* A VMA shorter than 1 GiB cannot hold a PUD: PMDs. */
TEST_F_TIMEOUT(xfs_pud, short_vma_falls_back_to_pmds, TIMEOUT_LONG)
{
	size_t len = SZ_1G - SZ_2M;
	struct fault_count fc;

	RETURN_IF_SKIPPED();
	map_file(_metadata, self, len, MAP_SHARED, 0);
	traced_touch(_metadata, events, &fc, self->p, len, SZ_4K, false, 0, 0);

	expect_faults(_metadata, "read 1022 MiB", &fc, 511);
	EXPECT_EQ(0L, trace_count("dax_pud_fault_done", "NOPAGE"));
	expect_levels(_metadata, self->p, len, 0, len, 0);
}

/*
 * MAP_PRIVATE: a read maps the PUD, a write copies only 4 KiB (the PUD is
 * split, the file keeps its data, the mapping shows the new word).
 */
TEST_F_TIMEOUT(xfs_pud, private_write_copies_4k, TIMEOUT_LONG)
{
	struct fault_count fc;
	uint64_t *w;
	long calib;

	RETURN_IF_SKIPPED();
	map_file(_metadata, self, SZ_1G, MAP_PRIVATE, 0);
	calib = calibrate_minflt();
	fault_begin(&fc, calib);
	touch_read(self->p, SZ_1G, SZ_4K);
	fault_end(&fc);
	expect_faults(_metadata, "read 1 GiB private", &fc, 1);
	expect_levels(_metadata, self->p, SZ_1G, 0, 0, SZ_1G);

	w = (uint64_t *)(self->p + 3 * SZ_4K + 8);
	*w = 0x1234567812345678ULL;
	EXPECT_EQ(4L, smaps_kb((unsigned long)self->p, "Anonymous:"));
	EXPECT_EQ(0x1234567812345678ULL, *w);
	EXPECT_EQ(pattern_word(FILE_SEED, 3 * SZ_4K), *(w - 1));
	EXPECT_EQ(0, check_pattern(self->p + SZ_2M, SZ_1G - SZ_2M, SZ_4K,
				   FILE_SEED, SZ_2M, NULL));
	expect_file_data(_metadata, self->fd, FILE_SEED);
}

/*
 * mprotect() of one 4 KiB page inside a PUD splits the VMA inside it: the
 * PUD must be split (zapped), never read as a PMD table.  Every word of
 * the mapping keeps its value (all are non-zero), the page is read-only.
 */
TEST_F_TIMEOUT(xfs_pud, mprotect_inside_pud_keeps_data, TIMEOUT_LONG)
{
	int status;
	pid_t pid;

	RETURN_IF_SKIPPED();
	map_file(_metadata, self, SZ_1G, MAP_SHARED, 0);
	touch_read(self->p, SZ_1G, SZ_4K);
	expect_levels(_metadata, self->p, SZ_1G, 0, 0, SZ_1G);

	ASSERT_EQ(0, mprotect(self->p + 3 * SZ_4K, SZ_4K, PROT_READ));
	/* a PMD split through the PUD would clear words of the first page */
	EXPECT_EQ(0, check_pattern(self->p, SZ_2M, 8, FILE_SEED, 0, NULL));
	EXPECT_EQ(0, check_pattern(self->p, SZ_1G, SZ_4K, FILE_SEED, 0, NULL));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		self->p[3 * SZ_4K] = 1;
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV);
	expect_file_data(_metadata, self->fd, FILE_SEED);
}

/* munmap() of 2 MiB inside a PUD leaves the rest mapped and intact. */
TEST_F_TIMEOUT(xfs_pud, munmap_inside_pud_keeps_data, TIMEOUT_LONG)
{
	RETURN_IF_SKIPPED();
	map_file(_metadata, self, SZ_1G, MAP_SHARED, 0);
	touch_read(self->p, SZ_1G, SZ_4K);
	expect_levels(_metadata, self->p, SZ_1G, 0, 0, SZ_1G);

	ASSERT_EQ(0, munmap(self->p + 10 * SZ_2M, SZ_2M));
	EXPECT_EQ(0, check_pattern(self->p, 10 * SZ_2M, 8, FILE_SEED, 0, NULL));
	EXPECT_EQ(0, check_pattern(self->p + 11 * SZ_2M, SZ_1G - 11 * SZ_2M,
				   SZ_4K, FILE_SEED, 11 * SZ_2M, NULL));
	expect_file_data(_metadata, self->fd, FILE_SEED);
}

/*
 * msync() writes back a PUD entry by unmapping the PUD (it cannot be
 * write-protected in place): the next access faults once, data intact.
 */
TEST_F_TIMEOUT(xfs_pud, msync_then_access_refaults_once, TIMEOUT_LONG)
{
	struct fault_count fc;
	long calib;

	RETURN_IF_SKIPPED();
	map_file(_metadata, self, SZ_1G, MAP_SHARED, 0);
	touch_write(self->p, SZ_1G, SZ_4K, FILE_SEED, 0);
	expect_levels(_metadata, self->p, SZ_1G, 0, 0, SZ_1G);
	ASSERT_EQ(0, msync(self->p, SZ_1G, MS_SYNC));

	calib = calibrate_minflt();
	fault_begin(&fc, calib);
	touch_write(self->p, SZ_1G, SZ_4K, FILE_SEED, 0);
	fault_end(&fc);
	expect_faults(_metadata, "write after msync", &fc, 1);
	expect_levels(_metadata, self->p, SZ_1G, 0, 0, SZ_1G);
	expect_file_data(_metadata, self->fd, FILE_SEED);
}

/*
 * Reading a fallocated, never written range: no huge zero PUD exists, so
 * the PUD fault falls back and PMD faults map the huge zero page.
 */
TEST_F_TIMEOUT(xfs_pud, read_unwritten_maps_pmd_zero_pages, TIMEOUT_LONG)
{
	const char *dir = env_or("HUGEDAX_XFS", "/mnt/xfs");
	struct fault_count fc;
	char path[256];
	int fd;

	RETURN_IF_SKIPPED();
	snprintf(path, sizeof(path), "%s/hugedax.pud.unwritten", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, fallocate(fd, 0, 0, SZ_1G));
	close(self->fd);
	self->fd = fd;
	map_file(_metadata, self, SZ_1G, MAP_SHARED, 0);

	traced_touch(_metadata, events, &fc, self->p, SZ_1G, SZ_4K, false, 0, 0);
	unlink(path);

	expect_faults(_metadata, "read 1 GiB unwritten", &fc, 512);
	EXPECT_EQ(0L, trace_count("dax_pud_fault_done", "NOPAGE"));
	EXPECT_LE(1L, trace_count("dax_pud_fault_done", "FALLBACK"));
	EXPECT_EQ(512L, trace_count("dax_pmd_load_hole", NULL));
	expect_levels(_metadata, self->p, SZ_1G, 0, SZ_1G, 0);
	EXPECT_EQ((uint64_t)0, touch_read(self->p, SZ_1G, SZ_4K));
}

TEST_HARNESS_MAIN
