// SPDX-License-Identifier: GPL-2.0
/*
 * 1 GiB (PUD) mappings of DAX files on xfs and ext4, and what the memory
 * operations a user can apply to such a mapping do to it.
 *
 * Runs on default mkfs.xfs and mkfs.ext4 filesystems of the 16 GiB
 * namespace (guest/test-job.sh remakes the xfs before this test).  The
 * shared 2 GiB data file is sized with ftruncate() and then filled with
 * pwrite(); the series places it in two 1 GiB-aligned runs of blocks by
 * itself, which FIEMAP checks once when the file is made.
 *
 * Page sizes are checked with two signals each: fault counts (getrusage)
 * and the kernel's page table dump, plus the dax_pud_fault_done /
 * dax_pmd_fault_done tracepoints where a fault path is the subject.  Data
 * is a non-zero position-dependent pattern, checked through the mapping
 * and with pread(), so that an entry pointing at the wrong place, or a
 * PUD leaf read as a PMD table, cannot pass.  Every test that expects a
 * PUD to survive an operation reads the whole range again and counts the
 * faults that takes; control_remap_refaults shows that this count does see
 * a PUD that was dropped.
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
#include <sys/uio.h>
#include <sys/wait.h>
#include <sys/ioctl.h>
#include <linux/fiemap.h>
#include <linux/fs.h>

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

FIXTURE(fs_pud) {
	int fd;
	char *p;
	size_t len;
	char dir[128];
	char scratch[256];	/* a test's own file, unlinked in teardown */
	long writeback;		/* dirty_writeback_centisecs to restore */
};

FIXTURE_VARIANT(fs_pud) {
	const char *fstype;
	const char *env;
	const char *dir;
};

FIXTURE_VARIANT_ADD(fs_pud, xfs) {
	.fstype = "xfs", .env = "HUGEDAX_XFS", .dir = "/mnt/xfs",
};

FIXTURE_VARIANT_ADD(fs_pud, ext4) {
	.fstype = "ext4", .env = "HUGEDAX_EXT4", .dir = "/mnt/ext4",
};

/*
 * The 2 GiB data file, shared by the tests (made once: filling 2 GiB
 * under emulation takes a while).  Tests that write restore the pattern.
 */
static int open_data_file(struct __test_metadata *_metadata, const char *dir)
{
	char data[256];
	struct stat st;
	long chunks;
	int fd;

	snprintf(data, sizeof(data), "%s/hugedax.pud.data", dir);
	fd = open(data, O_RDWR);
	if (fd >= 0 && !fstat(fd, &st) && st.st_size == (off_t)FILE_SIZE)
		return fd;
	if (fd >= 0)
		close(fd);

	sync();		/* see open_scratch() */
	fd = open(data, O_RDWR | O_CREAT | O_TRUNC, 0644);
	EXPECT_LE(0, fd);
	if (fd < 0)
		return -1;
	EXPECT_EQ(0, ftruncate(fd, FILE_SIZE));
	EXPECT_EQ(0, write_file_pattern(fd, 0, FILE_SIZE, FILE_SEED));
	EXPECT_EQ(0, fsync(fd));
	chunks = fiemap_aligned_chunks(fd, 0, FILE_SIZE, SZ_1G);
	EXPECT_EQ(2, chunks) {
		TH_LOG("the data file is not laid out in 1 GiB-aligned runs of blocks");
	}
	return fd;
}

FIXTURE_SETUP(fs_pud)
{
	char fstype[32];
	int dax = 0;

	self->fd = -1;
	self->p = MAP_FAILED;
	self->scratch[0] = 0;
	self->writeback = -1;
	snprintf(self->dir, sizeof(self->dir), "%s",
		 env_or(variant->env, variant->dir));
	if (geteuid())
		SKIP(return, "needs root");
	ASSERT_EQ(0, mount_of(self->dir, fstype, sizeof(fstype), &dax));
	ASSERT_STREQ(variant->fstype, fstype);
	ASSERT_TRUE(dax);
	self->fd = open_data_file(_metadata, self->dir);
	ASSERT_LE(0, self->fd);
	/*
	 * The tests count the faults a re-read takes after an operation on
	 * a mapped PUD.  Writeback of the entries an earlier test dirtied
	 * would unmap the PUD at a moment of the flusher's choosing: clean
	 * the file now and hold periodic writeback off until teardown
	 * (msync_then_access_refaults_once covers writeback itself).
	 */
	ASSERT_EQ(0, fsync(self->fd));
	self->writeback = writeback_pause();
	ASSERT_LE(0, self->writeback);
}

FIXTURE_TEARDOWN(fs_pud)
{
	if (self->writeback >= 0)
		writeback_resume(self->writeback);
	if (self->p != MAP_FAILED)
		munmap(self->p, self->len);
	if (self->fd >= 0)
		close(self->fd);
	if (self->scratch[0])
		unlink(self->scratch);
}

static void map_file(struct __test_metadata *_metadata,
		     FIXTURE_DATA(fs_pud) *self, size_t len, int flags,
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

/*
 * The first GiB of the data file, shared, at a 1 GiB-aligned address.
 * Access order: read one word per 4 KiB (the data is written): one PUD.
 */
static void map_one_pud(struct __test_metadata *_metadata,
			FIXTURE_DATA(fs_pud) *self)
{
	struct fault_count fc;

	map_file(_metadata, self, SZ_1G, MAP_SHARED, 0);
	fault_begin(&fc, calibrate_minflt());
	touch_read(self->p, SZ_1G, SZ_4K);
	fault_end(&fc);
	expect_faults(_metadata, "read 1 GiB", &fc, 1);
	expect_levels(_metadata, self->p, SZ_1G, 0, 0, SZ_1G);
}

/*
 * Open (create) the test's own file @name in the filesystem under test.
 * sync() first: ext4 and xfs reuse the blocks of a file deleted by an
 * earlier test (the aligned GiBs this one needs) only once the journal or
 * log has committed the deletion.
 */
static int open_scratch(struct __test_metadata *_metadata,
			FIXTURE_DATA(fs_pud) *self, const char *name)
{
	int fd;

	sync();
	snprintf(self->scratch, sizeof(self->scratch), "%s/%s", self->dir,
		 name);
	fd = open(self->scratch, O_RDWR | O_CREAT | O_TRUNC, 0644);
	EXPECT_LE(0, fd);
	return fd;
}

static void expect_data(struct __test_metadata *_metadata, const char *p,
			size_t len, uint64_t seed, off_t file_off)
{
	size_t bad = 0;

	EXPECT_EQ(0, check_pattern(p, len, SZ_4K, seed, file_off, &bad)) {
		TH_LOG("mapping differs at offset %#zx", bad);
	}
}

static void expect_file_data(struct __test_metadata *_metadata, int fd,
			     uint64_t seed)
{
	off_t bad = 0;

	EXPECT_EQ(0, check_file_pattern(fd, 0, FILE_SIZE, SZ_1M, seed, &bad)) {
		TH_LOG("file data differs at %#llx", (unsigned long long)bad);
	}
}

/* Words of w[0, len) that differ from pattern @seed at @file_off. */
static size_t count_wrong(const void *p, size_t len, uint64_t seed,
			  off_t file_off)
{
	const uint64_t *w = p;
	size_t i, wrong = 0;

	for (i = 0; i < len / 8; i++)
		wrong += w[i] != pattern_word(seed, file_off + 8 * i);
	return wrong;
}

/*
 * A plain mmap(NULL, 2 GiB) gets a 1 GiB-aligned address.  Access order:
 * write one word per 4 KiB over data that pwrite() wrote: two PUD faults.
 * The data reads back with pread() after munmap().
 */
TEST_F_TIMEOUT(fs_pud, plain_mmap_write_maps_puds, TIMEOUT_LONG)
{
	uint64_t seed = new_seed();
	struct fault_count fc;
	off_t bad = 0;

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
	EXPECT_EQ(0, check_file_pattern(self->fd, 0, FILE_SIZE, SZ_4K, seed,
					&bad)) {
		TH_LOG("pread differs at %#llx", (unsigned long long)bad);
	}
	ASSERT_EQ(0, write_file_pattern(self->fd, 0, FILE_SIZE, FILE_SEED));
}

/*
 * Negative control: the same file mapped 2 MiB past a 1 GiB boundary.
 * Address and file offset disagree modulo 1 GiB, so the PUD fault falls
 * back and 2 MiB PMDs map the range.  Access order: read.
 */
TEST_F_TIMEOUT(fs_pud, misaligned_address_falls_back_to_pmds, TIMEOUT_LONG)
{
	struct fault_count fc;

	RETURN_IF_SKIPPED();
	map_file(_metadata, self, SZ_1G, MAP_SHARED, SZ_2M);
	traced_touch(_metadata, events, &fc, self->p, SZ_1G, SZ_4K, false, 0, 0);

	expect_faults(_metadata, "read 1 GiB misaligned", &fc, 512);
	EXPECT_EQ(0L, trace_count("dax_pud_fault_done", "NOPAGE"));
	EXPECT_EQ(512L, trace_count("dax_pmd_fault_done", "NOPAGE"));
	expect_levels(_metadata, self->p, SZ_1G, 0, SZ_1G, 0);
	expect_data(_metadata, self->p, SZ_1G, FILE_SEED, 0);
}

/* A VMA shorter than 1 GiB cannot hold a PUD: PMDs. */
TEST_F_TIMEOUT(fs_pud, short_vma_falls_back_to_pmds, TIMEOUT_LONG)
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
 * Negative control for the tests that expect a PUD to survive: munmap()
 * and mmap() again really costs one fault, and the dump shows no PUD
 * before it.
 */
TEST_F_TIMEOUT(fs_pud, control_remap_refaults, TIMEOUT_LONG)
{
	RETURN_IF_SKIPPED();
	map_one_pud(_metadata, self);
	ASSERT_EQ(0, munmap(self->p, SZ_1G));
	self->p = mmap(self->p, SZ_1G, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_FIXED, self->fd, 0);
	ASSERT_NE(MAP_FAILED, self->p);
	expect_levels(_metadata, self->p, SZ_1G, 0, 0, 0);
	EXPECT_EQ(1, refault_count(_metadata, self->p, "after munmap+mmap"));
	expect_levels(_metadata, self->p, SZ_1G, 0, 0, SZ_1G);
	expect_data(_metadata, self->p, SZ_1G, FILE_SEED, 0);
}

/*
 * MAP_PRIVATE: a read maps the PUD, a write copies only 4 KiB (the PUD is
 * split, the file keeps its data, the mapping shows the new word).
 */
TEST_F_TIMEOUT(fs_pud, private_write_copies_4k, TIMEOUT_LONG)
{
	struct fault_count fc;
	uint64_t *w;

	RETURN_IF_SKIPPED();
	map_file(_metadata, self, SZ_1G, MAP_PRIVATE, 0);
	fault_begin(&fc, calibrate_minflt());
	touch_read(self->p, SZ_1G, SZ_4K);
	fault_end(&fc);
	expect_faults(_metadata, "read 1 GiB private", &fc, 1);
	expect_levels(_metadata, self->p, SZ_1G, 0, 0, SZ_1G);

	w = (uint64_t *)(self->p + 3 * SZ_4K + 8);
	*w = 0x1234567812345678ULL;
	EXPECT_EQ(4L, smaps_kb((unsigned long)self->p, "Anonymous:"));
	EXPECT_EQ(0x1234567812345678ULL, *w);
	EXPECT_EQ(pattern_word(FILE_SEED, 3 * SZ_4K), *(w - 1));
	expect_data(_metadata, self->p + SZ_2M, SZ_1G - SZ_2M, FILE_SEED, SZ_2M);
	expect_file_data(_metadata, self->fd, FILE_SEED);
}

/*
 * mprotect() of the whole 1 GiB changes the PUD in place: no fault to
 * read, SIGSEGV for a write (in a child).  PROT_NONE removes access and
 * zaps the PUD (a PROT_NONE PUD would not be present to
 * get_user_pages()): a forced read through /proc/self/mem still works,
 * and after read-write one fault maps the PUD again.
 */
TEST_F_TIMEOUT(fs_pud, mprotect_whole_pud_keeps_pud, TIMEOUT_LONG)
{
	long refaults;

	RETURN_IF_SKIPPED();
	map_one_pud(_metadata, self);
	ASSERT_EQ(0, mprotect(self->p, SZ_1G, PROT_READ));
	expect_levels(_metadata, self->p, SZ_1G, 0, 0, SZ_1G);
	EXPECT_EQ(0, refault_count(_metadata, self->p, "after PROT_READ"));
	EXPECT_EQ(SIGSEGV, access_in_child(self->p + 8, 1));

	ASSERT_EQ(0, mprotect(self->p, SZ_1G, PROT_NONE));
	expect_levels(_metadata, self->p, SZ_1G, 0, 0, 0);
	EXPECT_EQ(SIGSEGV, access_in_child(self->p + SZ_2M, 0));
	EXPECT_EQ(0, forced_read_in_child(self->p + SZ_2M,
					  pattern_word(FILE_SEED, SZ_2M), 60));
	ASSERT_EQ(0, mprotect(self->p, SZ_1G, PROT_READ | PROT_WRITE));
	/*
	 * One PUD fault; the forced read above forked, so a first write to
	 * a stack page of this process may add a copy-on-write fault.
	 */
	refaults = refault_count(_metadata, self->p, "after PROT_NONE and back");
	EXPECT_LE(1, refaults);
	EXPECT_GE(1 + FAULT_SLACK, refaults);
	expect_levels(_metadata, self->p, SZ_1G, 0, 0, SZ_1G);
	expect_data(_metadata, self->p, SZ_1G, FILE_SEED, 0);
	expect_file_data(_metadata, self->fd, FILE_SEED);
}

/*
 * mprotect() of one 4 KiB page inside a PUD splits the VMA inside it: the
 * PUD must be split (zapped), never read as a PMD table.  Every word of
 * the mapping keeps its value (all are non-zero), the page is read-only.
 */
TEST_F_TIMEOUT(fs_pud, mprotect_inside_pud_keeps_data, TIMEOUT_LONG)
{
	RETURN_IF_SKIPPED();
	map_one_pud(_metadata, self);

	ASSERT_EQ(0, mprotect(self->p + 3 * SZ_4K, SZ_4K, PROT_READ));
	/* a PMD split through the PUD would clear words of the first page */
	EXPECT_EQ(0, check_pattern(self->p, SZ_2M, 8, FILE_SEED, 0, NULL));
	expect_data(_metadata, self->p, SZ_1G, FILE_SEED, 0);
	EXPECT_EQ(SIGSEGV, access_in_child(self->p + 3 * SZ_4K, 1));
	EXPECT_EQ(0, access_in_child(self->p + 4 * SZ_4K + 8, 1));
	EXPECT_EQ(1, self->p[4 * SZ_4K + 8]);
	/* put the pattern back */
	ASSERT_EQ(0, write_file_pattern(self->fd, 0, SZ_2M, FILE_SEED));
	expect_file_data(_metadata, self->fd, FILE_SEED);
}

/* munmap() of 2 MiB inside a PUD leaves the rest mapped and intact. */
TEST_F_TIMEOUT(fs_pud, munmap_inside_pud_keeps_data, TIMEOUT_LONG)
{
	RETURN_IF_SKIPPED();
	map_one_pud(_metadata, self);

	ASSERT_EQ(0, munmap(self->p + 10 * SZ_2M, SZ_2M));
	EXPECT_EQ(0, check_pattern(self->p, 10 * SZ_2M, 8, FILE_SEED, 0, NULL));
	expect_data(_metadata, self->p + 11 * SZ_2M, SZ_1G - 11 * SZ_2M,
		    FILE_SEED, 11 * SZ_2M);
	EXPECT_EQ(SIGSEGV, access_in_child(self->p + 10 * SZ_2M + SZ_4K, 0));
	expect_file_data(_metadata, self->fd, FILE_SEED);
}

/*
 * mremap() of the whole 1 GiB to another 1 GiB-aligned address moves the
 * PUD: the data is there at once, with no fault.
 */
TEST_F_TIMEOUT(fs_pud, mremap_moves_pud, TIMEOUT_LONG)
{
	char *q, *dst;

	RETURN_IF_SKIPPED();
	map_one_pud(_metadata, self);
	/* a 1 GiB-aligned destination that is not the source */
	dst = map_aligned(SZ_1G, SZ_1G, PROT_NONE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0, 0);
	ASSERT_NE(MAP_FAILED, dst);
	q = mremap(self->p, SZ_1G, SZ_1G, MREMAP_MAYMOVE | MREMAP_FIXED, dst);
	ASSERT_EQ(dst, q);
	self->p = q;
	expect_levels(_metadata, q, SZ_1G, 0, 0, SZ_1G);
	EXPECT_EQ(0, refault_count(_metadata, q, "after mremap"));
	expect_data(_metadata, q, SZ_1G, FILE_SEED, 0);
}

/*
 * fork(): the child of a shared mapping sees the data and its writes
 * reach the file and the parent's mapping; the parent's PUD stays.
 */
TEST_F_TIMEOUT(fs_pud, fork_child_writes_shared_pud, TIMEOUT_LONG)
{
	uint64_t seed = new_seed();
	off_t bad = 0;
	int status;
	pid_t pid;

	RETURN_IF_SKIPPED();
	map_one_pud(_metadata, self);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (check_pattern(self->p, SZ_1G, SZ_4K, FILE_SEED, 0, NULL))
			_exit(1);
		touch_write(self->p, SZ_1G, SZ_4K, seed, 0);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	expect_levels(_metadata, self->p, SZ_1G, 0, 0, SZ_1G);
	EXPECT_EQ(0, refault_count(_metadata, self->p, "parent after fork"));
	expect_data(_metadata, self->p, SZ_1G, seed, 0);
	EXPECT_EQ(0, check_file_pattern(self->fd, 0, SZ_1G, SZ_4K, seed, &bad)) {
		TH_LOG("pread differs at %#llx", (unsigned long long)bad);
	}
	ASSERT_EQ(0, write_file_pattern(self->fd, 0, SZ_1G, FILE_SEED));
}

/*
 * MADV_DONTNEED of 4 KiB inside the PUD drops the whole PUD (the file
 * keeps the data); the next access maps it again with one fault.
 */
TEST_F_TIMEOUT(fs_pud, madv_dontneed_4k_refaults_pud, TIMEOUT_LONG)
{
	RETURN_IF_SKIPPED();
	map_one_pud(_metadata, self);
	ASSERT_EQ(0, madvise(self->p + 5 * SZ_4K, SZ_4K, MADV_DONTNEED));
	expect_levels(_metadata, self->p, SZ_1G, 0, 0, 0);
	EXPECT_EQ(1, refault_count(_metadata, self->p, "after MADV_DONTNEED"));
	expect_levels(_metadata, self->p, SZ_1G, 0, 0, SZ_1G);
	expect_data(_metadata, self->p, SZ_1G, FILE_SEED, 0);
}

/*
 * msync() writes back a PUD entry and write-protects the PUD in place: a
 * read afterwards takes no fault, a write one fault (at PUD level), which
 * dirties the entry again, so the next msync() writes it back again and
 * one after that, with nothing written in between, does not.
 */
TEST_F_TIMEOUT(fs_pud, msync_write_protects_pud, TIMEOUT_LONG)
{
	static const char *const wb_events[] = {
		"fs_dax/dax_writeback_one",
		NULL,
	};
	uint64_t seed = new_seed();
	struct fault_count fc;

	RETURN_IF_SKIPPED();
	map_file(_metadata, self, SZ_1G, MAP_SHARED, 0);
	touch_write(self->p, SZ_1G, SZ_4K, FILE_SEED, 0);
	expect_levels(_metadata, self->p, SZ_1G, 0, 0, SZ_1G);
	start_tracing(_metadata, wb_events);
	ASSERT_EQ(0, msync(self->p, SZ_1G, MS_SYNC));
	stop_tracing(_metadata);
	EXPECT_EQ(1L, trace_count("dax_writeback_one", NULL));
	expect_levels(_metadata, self->p, SZ_1G, 0, 0, SZ_1G);
	EXPECT_EQ(0, refault_count(_metadata, self->p, "read after msync"));

	traced_touch(_metadata, events, &fc, self->p, SZ_1G, SZ_4K, true,
		     seed, 0);
	expect_faults(_metadata, "write after msync", &fc, 1);
	EXPECT_EQ(1L, trace_count("dax_pud_fault_done", "NOPAGE"));
	EXPECT_EQ(0L, trace_count("dax_pmd_fault_done", NULL));
	expect_levels(_metadata, self->p, SZ_1G, 0, 0, SZ_1G);

	start_tracing(_metadata, wb_events);
	ASSERT_EQ(0, msync(self->p, SZ_1G, MS_SYNC));
	stop_tracing(_metadata);
	EXPECT_EQ(1L, trace_count("dax_writeback_one", NULL));
	start_tracing(_metadata, wb_events);
	ASSERT_EQ(0, msync(self->p, SZ_1G, MS_SYNC));
	stop_tracing(_metadata);
	EXPECT_EQ(0L, trace_count("dax_writeback_one", NULL));

	expect_data(_metadata, self->p, SZ_1G, seed, 0);
	ASSERT_EQ(0, write_file_pattern(self->fd, 0, SZ_1G, FILE_SEED));
	expect_file_data(_metadata, self->fd, FILE_SEED);
}

/*
 * Reading /proc/self/smaps, many times, leaves the PUD alone, and smaps
 * reports it as 1 GiB of DaxPudMapped.
 */
TEST_F_TIMEOUT(fs_pud, smaps_read_keeps_pud, TIMEOUT_LONG)
{
	struct dax_kb kb;

	RETURN_IF_SKIPPED();
	map_one_pud(_metadata, self);
	ASSERT_EQ(0, smaps_read_all(100));
	/* DAX pages are not in Rss; the series' smaps fields count them */
	ASSERT_EQ(0, smaps_dax((unsigned long)self->p, &kb));
	EXPECT_EQ(1048576L, kb.pud);
	EXPECT_EQ(0L, kb.pmd);
	EXPECT_EQ(0L, kb.pte);
	expect_levels(_metadata, self->p, SZ_1G, 0, 0, SZ_1G);
	EXPECT_EQ(0, refault_count(_metadata, self->p, "after 100 smaps reads"));
	expect_data(_metadata, self->p, SZ_1G, FILE_SEED, 0);
}

/* mincore() reports every page resident and leaves the PUD alone. */
TEST_F_TIMEOUT(fs_pud, mincore_reports_resident, TIMEOUT_LONG)
{
	RETURN_IF_SKIPPED();
	map_one_pud(_metadata, self);
	EXPECT_EQ((long)(SZ_1G / SZ_4K), mincore_resident(self->p, SZ_1G));
	expect_levels(_metadata, self->p, SZ_1G, 0, 0, SZ_1G);
	EXPECT_EQ(0, refault_count(_metadata, self->p, "after mincore"));
	expect_data(_metadata, self->p, SZ_1G, FILE_SEED, 0);
}

/*
 * /proc/self/pagemap shows every page present and file-backed, with
 * consecutive pfns, and leaves the PUD alone.
 */
TEST_F_TIMEOUT(fs_pud, pagemap_reports_present, TIMEOUT_LONG)
{
	size_t n = SZ_1G / SZ_4K;
	struct pagemap_stats pm;

	RETURN_IF_SKIPPED();
	map_one_pud(_metadata, self);
	ASSERT_EQ(0, pagemap_scan(self->p, SZ_1G, &pm));
	EXPECT_EQ(n, pm.present);
	EXPECT_EQ(n, pm.file);
	EXPECT_EQ(n - 1, pm.contiguous);
	expect_levels(_metadata, self->p, SZ_1G, 0, 0, SZ_1G);
	EXPECT_EQ(0, refault_count(_metadata, self->p, "after pagemap"));
	expect_data(_metadata, self->p, SZ_1G, FILE_SEED, 0);
}

/*
 * O_DIRECT read(2) and write(2) with a buffer inside the PUD mapping.  On
 * a DAX file O_DIRECT is served like any read or write (the kernel copies
 * to or from the user buffer, faulting it if needed, without the page
 * cache): the copies are right and the PUD stays.
 */
TEST_F_TIMEOUT(fs_pud, o_direct_io_through_pud, TIMEOUT_LONG)
{
	uint64_t seed = new_seed();
	void *buf = malloc(SZ_2M);
	int sfd;

	RETURN_IF_SKIPPED();
	map_one_pud(_metadata, self);
	sfd = open_scratch(_metadata, self, "hugedax.pud.direct");
	ASSERT_LE(0, sfd);
	close(sfd);
	sfd = open(self->scratch, O_RDWR | O_DIRECT);
	ASSERT_LE(0, sfd);

	/* mapping -> scratch file: the scratch file holds the data file's */
	ASSERT_EQ((ssize_t)SZ_2M, pwrite(sfd, self->p + 7 * SZ_2M, SZ_2M, 0));
	/* word by word: the pattern of offset 14 MiB is now at offset 0 */
	ASSERT_NE(NULL, buf);
	ASSERT_EQ((ssize_t)SZ_2M, pread(sfd, buf, SZ_2M, 0));
	EXPECT_EQ(0UL, count_wrong(buf, SZ_2M, FILE_SEED, 7 * SZ_2M));
	free(buf);

	/* scratch file -> mapping: a new pattern lands in the data file */
	ASSERT_EQ(0, write_file_pattern(sfd, 0, SZ_2M, seed));
	ASSERT_EQ((ssize_t)SZ_2M, pread(sfd, self->p + 9 * SZ_2M, SZ_2M, 0));
	expect_levels(_metadata, self->p, SZ_1G, 0, 0, SZ_1G);
	EXPECT_EQ(0, refault_count(_metadata, self->p, "after O_DIRECT"));
	EXPECT_EQ(0UL, count_wrong(self->p + 9 * SZ_2M, SZ_2M, seed, 0));
	close(sfd);
	expect_data(_metadata, self->p, 9 * SZ_2M, FILE_SEED, 0);
	expect_data(_metadata, self->p + 10 * SZ_2M, SZ_1G - 10 * SZ_2M,
		    FILE_SEED, 10 * SZ_2M);
	ASSERT_EQ(0, write_file_pattern(self->fd, 9 * SZ_2M, SZ_2M, FILE_SEED));
	expect_file_data(_metadata, self->fd, FILE_SEED);
}

/*
 * process_vm_readv() and process_vm_writev() pin the pages of the PUD
 * mapping through get_user_pages (follow_devmap_pud): the copies are right
 * and the PUD stays.
 */
TEST_F_TIMEOUT(fs_pud, process_vm_rw_through_pud, TIMEOUT_LONG)
{
	uint64_t seed = new_seed();
	struct iovec local, remote;
	uint64_t *buf = malloc(SZ_2M);

	RETURN_IF_SKIPPED();
	ASSERT_NE(NULL, buf);
	map_one_pud(_metadata, self);

	local.iov_base = buf;
	local.iov_len = SZ_2M;
	remote.iov_base = self->p + SZ_1G - SZ_2M - SZ_4K;
	remote.iov_len = SZ_2M;
	ASSERT_EQ((ssize_t)SZ_2M,
		  process_vm_readv(getpid(), &local, 1, &remote, 1, 0));
	EXPECT_EQ(0UL, count_wrong(buf, SZ_2M, FILE_SEED,
				   SZ_1G - SZ_2M - SZ_4K));

	fill_pattern(buf, SZ_2M, seed, 0);
	remote.iov_base = self->p + 3 * SZ_2M + SZ_4K;
	ASSERT_EQ((ssize_t)SZ_2M,
		  process_vm_writev(getpid(), &local, 1, &remote, 1, 0));
	free(buf);
	expect_levels(_metadata, self->p, SZ_1G, 0, 0, SZ_1G);
	EXPECT_EQ(0, refault_count(_metadata, self->p, "after process_vm_rw"));
	EXPECT_EQ(0UL, count_wrong(self->p + 3 * SZ_2M + SZ_4K, SZ_2M, seed, 0));
	expect_data(_metadata, self->p, 3 * SZ_2M + SZ_4K, FILE_SEED, 0);
	ASSERT_EQ(0, write_file_pattern(self->fd, 0, 8 * SZ_2M, FILE_SEED));
	expect_file_data(_metadata, self->fd, FILE_SEED);
}

/*
 * MAP_SYNC: write faults into a sparse 1 GiB file allocate its blocks; the
 * fault commits the metadata (dax_finish_sync_fault) before it maps the
 * 1 GiB entry writable.  One fault, one PUD, the tracepoint says the PUD
 * fault needed the sync; the data reads back with pread().
 */
TEST_F_TIMEOUT(fs_pud, map_sync_write_fault_maps_pud, TIMEOUT_LONG)
{
	uint64_t seed = new_seed();
	struct fault_count fc;
	off_t bad = 0;
	int sfd;

	RETURN_IF_SKIPPED();
	sfd = open_scratch(_metadata, self, "hugedax.pud.sync");
	ASSERT_LE(0, sfd);
	ASSERT_EQ(0, ftruncate(sfd, SZ_1G));
	close(self->fd);
	self->fd = sfd;
	self->len = SZ_1G;
	self->p = map_aligned(SZ_1G, SZ_1G, PROT_READ | PROT_WRITE,
			      MAP_SHARED_VALIDATE | MAP_SYNC, sfd, 0, 0);
	ASSERT_NE(MAP_FAILED, self->p);

	traced_touch(_metadata, events, &fc, self->p, SZ_1G, SZ_4K, true, seed, 0);
	TH_LOG("pud NOPAGE %ld NEEDDSYNC %ld FALLBACK %ld, pmd %ld",
	       trace_count("dax_pud_fault_done", "NOPAGE"),
	       trace_count("dax_pud_fault_done", "NEEDDSYNC"),
	       trace_count("dax_pud_fault_done", "FALLBACK"),
	       trace_count("dax_pmd_fault_done", NULL));
	expect_faults(_metadata, "MAP_SYNC write 1 GiB", &fc, 1);
	EXPECT_EQ(1L, trace_count("dax_pud_fault_done", "NEEDDSYNC"));
	EXPECT_EQ(0L, trace_count("dax_pmd_fault_done", NULL));
	expect_levels(_metadata, self->p, SZ_1G, 0, 0, SZ_1G);
	EXPECT_EQ(1L, fiemap_aligned_chunks(sfd, 0, SZ_1G, SZ_1G));
	EXPECT_EQ(0, check_file_pattern(sfd, 0, SZ_1G, SZ_4K, seed, &bad)) {
		TH_LOG("pread differs at %#llx", (unsigned long long)bad);
	}
}

/*
 * Negative control for MAP_SYNC: the same writes without MAP_SYNC need no
 * sync (the tracepoint says NOPAGE, not NEEDDSYNC).
 */
TEST_F_TIMEOUT(fs_pud, shared_write_fault_needs_no_sync, TIMEOUT_LONG)
{
	struct fault_count fc;
	int sfd;

	RETURN_IF_SKIPPED();
	sfd = open_scratch(_metadata, self, "hugedax.pud.nosync");
	ASSERT_LE(0, sfd);
	ASSERT_EQ(0, ftruncate(sfd, SZ_1G));
	close(self->fd);
	self->fd = sfd;
	map_file(_metadata, self, SZ_1G, MAP_SHARED, 0);
	traced_touch(_metadata, events, &fc, self->p, SZ_1G, SZ_4K, true, 7, 0);
	expect_faults(_metadata, "write 1 GiB", &fc, 1);
	EXPECT_EQ(0L, trace_count("dax_pud_fault_done", "NEEDDSYNC"));
	EXPECT_EQ(1L, trace_count("dax_pud_fault_done", "NOPAGE"));
	expect_levels(_metadata, self->p, SZ_1G, 0, 0, SZ_1G);
}

/*
 * ftruncate() to 512 MiB under a mapped PUD unmaps it: the part beyond
 * the new end raises SIGBUS, the part before it keeps its data and is
 * mapped again with PMDs (a PUD cannot reach past EOF).  Growing the file
 * again gives zeros there, never the old data.
 */
TEST_F_TIMEOUT(fs_pud, truncate_while_mapped, TIMEOUT_LONG)
{
	uint64_t seed = new_seed();
	struct fault_count fc;
	int sfd;

	RETURN_IF_SKIPPED();
	sfd = open_scratch(_metadata, self, "hugedax.pud.trunc");
	ASSERT_LE(0, sfd);
	ASSERT_EQ(0, ftruncate(sfd, SZ_1G));
	ASSERT_EQ(0, write_file_pattern(sfd, 0, SZ_1G, seed));
	close(self->fd);
	self->fd = sfd;
	map_one_pud(_metadata, self);
	expect_data(_metadata, self->p, SZ_1G, seed, 0);

	ASSERT_EQ(0, ftruncate(sfd, SZ_1G / 2));
	expect_levels(_metadata, self->p, SZ_1G, 0, 0, 0);
	EXPECT_EQ(SIGBUS, access_in_child(self->p + SZ_1G / 2, 0));
	EXPECT_EQ(SIGBUS, access_in_child(self->p + SZ_1G - 8, 0));
	EXPECT_EQ(0, access_in_child(self->p + SZ_1G / 2 - 8, 0));

	traced_touch(_metadata, events, &fc, self->p, SZ_1G / 2, SZ_4K, false, 0, 0);
	expect_faults(_metadata, "read the remaining 512 MiB", &fc, 256);
	EXPECT_EQ(0L, trace_count("dax_pud_fault_done", "NOPAGE"));
	EXPECT_EQ(256L, trace_count("dax_pmd_fault_done", "NOPAGE"));
	expect_levels(_metadata, self->p, SZ_1G, 0, SZ_1G / 2, 0);
	expect_data(_metadata, self->p, SZ_1G / 2, seed, 0);

	ASSERT_EQ(0, ftruncate(sfd, SZ_1G));
	EXPECT_EQ(0ULL, touch_read(self->p + SZ_1G / 2, SZ_1G / 2, SZ_4K));
	EXPECT_EQ(0ULL, touch_read(self->p + SZ_1G / 2, SZ_2M, 8));
	expect_data(_metadata, self->p, SZ_1G / 2, seed, 0);
}

/*
 * A truncate to a size inside a huge entry removes the whole entry, dirty
 * mark and all.  If the entry was written through the mapping, the
 * truncate must write it back first (dax_writeback_one during ftruncate),
 * or no later fsync() flushes the data below the new size from the CPU
 * caches.  For a dirty PUD, then a dirty PMD; control: a truncate inside
 * PMDs that msync() cleaned writes nothing back.  Access order: pwrite the
 * file, write one word per 4 KiB through the mapping (one PUD, dirty);
 * after the truncates, read and write the rest again (PMDs).
 */
TEST_F_TIMEOUT(fs_pud, truncate_inside_dirty_entry_writes_it_back,
	       TIMEOUT_LONG)
{
	static const char *const wb_events[] = {
		"fs_dax/dax_writeback_one",
		NULL,
	};
	uint64_t seed = new_seed(), seed2 = new_seed();
	int sfd;

	RETURN_IF_SKIPPED();
	sfd = open_scratch(_metadata, self, "hugedax.pud.trunc-wb");
	ASSERT_LE(0, sfd);
	ASSERT_EQ(0, ftruncate(sfd, SZ_1G));
	ASSERT_EQ(0, write_file_pattern(sfd, 0, SZ_1G, FILE_SEED));
	ASSERT_EQ(0, fsync(sfd));
	close(self->fd);
	self->fd = sfd;
	map_file(_metadata, self, SZ_1G, MAP_SHARED, 0);
	touch_write(self->p, SZ_1G, SZ_4K, seed, 0);
	expect_levels(_metadata, self->p, SZ_1G, 0, 0, SZ_1G);

	/* a dirty PUD cut at 512 MiB + 4 KiB */
	start_tracing(_metadata, wb_events);
	ASSERT_EQ(0, ftruncate(sfd, SZ_1G / 2 + SZ_4K));
	stop_tracing(_metadata);
	EXPECT_LE(1L, trace_count("dax_writeback_one", NULL));
	expect_data(_metadata, self->p, SZ_1G / 2, seed, 0);

	/* control: clean PMDs cut at 256 MiB + 4 KiB */
	touch_write(self->p, SZ_1G / 2, SZ_4K, seed2, 0);
	expect_levels(_metadata, self->p, SZ_1G / 2, 0, SZ_1G / 2, 0);
	ASSERT_EQ(0, msync(self->p, SZ_1G / 2, MS_SYNC));
	start_tracing(_metadata, wb_events);
	ASSERT_EQ(0, ftruncate(sfd, SZ_1G / 4 + SZ_4K));
	stop_tracing(_metadata);
	EXPECT_EQ(0L, trace_count("dax_writeback_one", NULL));

	/* a dirty PMD cut at 128 MiB + 4 KiB */
	touch_write(self->p, SZ_1G / 4, SZ_4K, seed, 0);
	start_tracing(_metadata, wb_events);
	ASSERT_EQ(0, ftruncate(sfd, SZ_1G / 8 + SZ_4K));
	stop_tracing(_metadata);
	EXPECT_LE(1L, trace_count("dax_writeback_one", NULL));
	expect_data(_metadata, self->p, SZ_1G / 8, seed, 0);
}

/*
 * Reading a fallocated, never written range: no huge zero PUD exists, so
 * the PUD fault falls back and PMD faults map the huge zero page.
 */
TEST_F_TIMEOUT(fs_pud, read_unwritten_maps_pmd_zero_pages, TIMEOUT_LONG)
{
	struct fault_count fc;
	int fd;

	RETURN_IF_SKIPPED();
	fd = open_scratch(_metadata, self, "hugedax.pud.unwritten");
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, fallocate(fd, 0, 0, SZ_1G));
	close(self->fd);
	self->fd = fd;
	map_file(_metadata, self, SZ_1G, MAP_SHARED, 0);

	traced_touch(_metadata, events, &fc, self->p, SZ_1G, SZ_4K, false, 0, 0);

	expect_faults(_metadata, "read 1 GiB unwritten", &fc, 512);
	EXPECT_EQ(0L, trace_count("dax_pud_fault_done", "NOPAGE"));
	EXPECT_LE(1L, trace_count("dax_pud_fault_done", "FALLBACK"));
	EXPECT_EQ(512L, trace_count("dax_pmd_load_hole", NULL));
	expect_levels(_metadata, self->p, SZ_1G, 0, SZ_1G, 0);
	EXPECT_EQ((uint64_t)0, touch_read(self->p, SZ_1G, SZ_4K));
}

/*
 * A 1 GiB scratch file written with pwrite() (pattern @seed), and a small
 * shared mapping of its first @pages pages, written through with @seed2
 * before anything else maps the file, as PMDK writes a pool's header
 * through a 4 KiB mapping of its own: the file's first entries are dirty
 * 4 KiB ones.  The scratch file becomes self->fd.  Returns the small
 * mapping, or NULL.
 */
static char *small_entries_first(struct __test_metadata *_metadata,
				 FIXTURE_DATA(fs_pud) *self, size_t pages,
				 uint64_t seed, uint64_t seed2)
{
	char *small;
	int fd;

	fd = open_scratch(_metadata, self, "hugedax.pud.small");
	if (fd < 0)
		return NULL;
	close(self->fd);
	self->fd = fd;
	EXPECT_EQ(0, ftruncate(fd, SZ_1G));
	EXPECT_EQ(0, write_file_pattern(fd, 0, SZ_1G, seed));
	EXPECT_EQ(0, fsync(fd));
	EXPECT_EQ(1L, fiemap_aligned_chunks(fd, 0, SZ_1G, SZ_1G));
	small = mmap(NULL, pages * SZ_4K, PROT_READ | PROT_WRITE, MAP_SHARED,
		     fd, 0);
	EXPECT_NE(MAP_FAILED, small);
	if (small == MAP_FAILED)
		return NULL;
	fill_pattern(small, pages * SZ_4K, seed2, 0);
	return small;
}

/*
 * The whole file, shared, at a 1 GiB-aligned address: read one word per
 * 4 KiB with the fault tracepoints on.
 */
static void map_and_read_traced(struct __test_metadata *_metadata,
				FIXTURE_DATA(fs_pud) *self,
				struct fault_count *fc)
{
	self->len = SZ_1G;
	self->p = map_aligned(SZ_1G, SZ_1G, PROT_READ | PROT_WRITE, MAP_SHARED,
			      self->fd, 0, 0);
	ASSERT_NE(MAP_FAILED, self->p);
	traced_touch(_metadata, events, fc, self->p, SZ_1G, SZ_4K, false, 0, 0);
}

/*
 * A 4 KiB entry that a small mapping faulted first gives way to the PUD:
 * the PUD fault unmaps it, writes back its dirty lines and replaces it.
 * Access order: pwrite() the file; write page 0 through a 4 KiB mapping;
 * read one word per 4 KiB of the whole file through a 1 GiB-aligned
 * mapping (one PUD fault); then write page 0 through the small mapping
 * again, which must reach the same blocks the PUD maps.
 */
TEST_F_TIMEOUT(fs_pud, small_entry_gives_way_to_pud, TIMEOUT_LONG)
{
	uint64_t seed = new_seed(), seed2 = new_seed(), seed3 = new_seed();
	struct fault_count fc;
	off_t bad = 0;
	char *small;

	RETURN_IF_SKIPPED();
	small = small_entries_first(_metadata, self, 1, seed, seed2);
	ASSERT_NE(NULL, small);

	map_and_read_traced(_metadata, self, &fc);
	TH_LOG("pud NOPAGE %ld FALLBACK %ld, pmd %ld",
	       trace_count("dax_pud_fault_done", "NOPAGE"),
	       trace_count("dax_pud_fault_done", "FALLBACK"),
	       trace_count("dax_pmd_fault_done", NULL));
	expect_faults(_metadata, "read 1 GiB", &fc, 1);
	EXPECT_EQ(1L, trace_count("dax_pud_fault_done", "NOPAGE"));
	EXPECT_EQ(0L, trace_count("dax_pud_fault_done", "FALLBACK"));
	EXPECT_EQ(0L, trace_count("dax_pmd_fault_done", NULL));
	expect_levels(_metadata, self->p, SZ_1G, 0, 0, SZ_1G);

	/* the PUD shows what the small mapping wrote, and the rest */
	EXPECT_EQ(0UL, count_wrong(self->p, SZ_4K, seed2, 0));
	expect_data(_metadata, self->p + SZ_4K, SZ_1G - SZ_4K, seed, SZ_4K);
	/* the small mapping refaults into the PUD's blocks */
	EXPECT_EQ(0UL, count_wrong(small, SZ_4K, seed2, 0));
	fill_pattern(small, SZ_4K, seed3, 0);
	EXPECT_EQ(0UL, count_wrong(self->p, SZ_4K, seed3, 0));
	EXPECT_EQ(0, msync(small, SZ_4K, MS_SYNC));
	munmap(small, SZ_4K);
	EXPECT_EQ(0, check_file_pattern(self->fd, 0, SZ_4K, 8, seed3, &bad)) {
		TH_LOG("pread differs at %#llx", (unsigned long long)bad);
	}
	EXPECT_EQ(0, check_file_pattern(self->fd, SZ_4K, SZ_1G - SZ_4K, SZ_4K,
					seed, &bad)) {
		TH_LOG("pread differs at %#llx", (unsigned long long)bad);
	}
}

/*
 * Negative control: a huge fault replaces at most 16 smaller entries.
 * With 17 in the first 2 MiB, neither the PUD nor that PMD replaces
 * them: the first 2 MiB maps with PTEs, the rest with PMDs.  Access
 * order as in small_entry_gives_way_to_pud, with 17 small pages.
 */
TEST_F_TIMEOUT(fs_pud, many_small_entries_keep_their_size, TIMEOUT_LONG)
{
	uint64_t seed = new_seed(), seed2 = new_seed();
	struct fault_count fc;
	char *small;

	RETURN_IF_SKIPPED();
	small = small_entries_first(_metadata, self, 17, seed, seed2);
	ASSERT_NE(NULL, small);

	map_and_read_traced(_metadata, self, &fc);
	expect_faults(_metadata, "read 1 GiB", &fc, 512 + 511);
	EXPECT_EQ(1L, trace_count_reason("dax_pud_fault_done", "FALLBACK",
					 "conflict"));
	EXPECT_EQ(1L, trace_count_reason("dax_pmd_fault_done", "FALLBACK",
					 "conflict"));
	expect_levels(_metadata, self->p, SZ_1G, SZ_2M, SZ_1G - SZ_2M, 0);
	EXPECT_EQ(0UL, count_wrong(self->p, 17 * SZ_4K, seed2, 0));
	expect_data(_metadata, self->p + 17 * SZ_4K, SZ_1G - 17 * SZ_4K, seed,
		    17 * SZ_4K);
	munmap(small, 17 * SZ_4K);
}

/*
 * Negative control: a pinned page keeps its entry.  vmsplice() holds a
 * reference to the small mapping's page in a pipe, as O_DIRECT or RDMA
 * would hold it: the PUD and the first PMD fall back (conflict), and the
 * data stays where it is.  (The 4 KiB entries the fallback leaves keep the
 * first 2 MiB at 4 KiB afterwards too: there are more than 16 of them.)
 */
TEST_F_TIMEOUT(fs_pud, pinned_small_entry_keeps_its_size, TIMEOUT_LONG)
{
	uint64_t seed = new_seed(), seed2 = new_seed();
	struct iovec iov;
	struct fault_count fc;
	char *small, *buf;
	int pipefd[2];

	RETURN_IF_SKIPPED();
	small = small_entries_first(_metadata, self, 1, seed, seed2);
	ASSERT_NE(NULL, small);
	ASSERT_EQ(0, pipe(pipefd));
	iov = (struct iovec){ .iov_base = small, .iov_len = SZ_4K };
	ASSERT_EQ((ssize_t)SZ_4K, vmsplice(pipefd[1], &iov, 1, 0));

	map_and_read_traced(_metadata, self, &fc);
	expect_faults(_metadata, "read 1 GiB, page 0 pinned", &fc, 512 + 511);
	EXPECT_EQ(1L, trace_count_reason("dax_pud_fault_done", "FALLBACK",
					 "conflict"));
	EXPECT_EQ(1L, trace_count_reason("dax_pmd_fault_done", "FALLBACK",
					 "conflict"));
	expect_levels(_metadata, self->p, SZ_1G, SZ_2M, SZ_1G - SZ_2M, 0);
	EXPECT_EQ(0UL, count_wrong(self->p, SZ_4K, seed2, 0));

	/* the pipe holds the page's data */
	buf = malloc(SZ_4K);
	ASSERT_NE(NULL, buf);
	EXPECT_EQ((ssize_t)SZ_4K, read(pipefd[0], buf, SZ_4K));
	EXPECT_EQ(0UL, count_wrong(buf, SZ_4K, seed2, 0));
	free(buf);
	close(pipefd[0]);
	close(pipefd[1]);
	munmap(small, SZ_4K);
}

/*
 * The whole scratch file, shared, at a 1 GiB-aligned address: write one
 * word per 4 KiB (pattern @seed) with the fault tracepoints on, which must
 * take one PUD fault and map one PUD.
 */
static void write_gib_maps_one_pud(struct __test_metadata *_metadata,
				   FIXTURE_DATA(fs_pud) *self, uint64_t seed,
				   const char *what)
{
	struct fault_count fc;

	self->len = SZ_1G;
	self->p = map_aligned(SZ_1G, SZ_1G, PROT_READ | PROT_WRITE, MAP_SHARED,
			      self->fd, 0, 0);
	ASSERT_NE(MAP_FAILED, self->p);
	traced_touch(_metadata, events, &fc, self->p, SZ_1G, SZ_4K, true,
		     seed, 0);
	expect_faults(_metadata, what, &fc, 1);
	EXPECT_EQ(1L, trace_count("dax_pud_fault_done", "NOPAGE"));
	EXPECT_EQ(0L, trace_count("dax_pud_fault_done", "FALLBACK"));
	expect_levels(_metadata, self->p, SZ_1G, 0, 0, SZ_1G);
}

/*
 * A fallocated 1 GiB scratch file whose first page is written (pattern
 * @seed) through a 4 KiB mapping of its own, as PMDK writes a pool
 * header: FIEMAP must show one written block, then unwritten blocks right
 * after it on the device.  The scratch file becomes self->fd.
 */
static void written_head_file(struct __test_metadata *_metadata,
			      FIXTURE_DATA(fs_pud) *self, uint64_t seed)
{
	struct {
		struct fiemap fm;
		struct fiemap_extent fe[2];
	} x = { .fm = { .fm_length = SZ_1G, .fm_flags = FIEMAP_FLAG_SYNC,
			.fm_extent_count = 2 } };
	struct fiemap_extent *fe = x.fm.fm_extents;
	char *small;
	int fd;

	fd = open_scratch(_metadata, self, "hugedax.pud.head");
	ASSERT_LE(0, fd);
	close(self->fd);
	self->fd = fd;
	ASSERT_EQ(0, fallocate(fd, 0, 0, SZ_1G));
	small = mmap(NULL, SZ_4K, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, small);
	fill_pattern(small, SZ_4K, seed, 0);
	ASSERT_EQ(0, msync(small, SZ_4K, MS_SYNC));
	munmap(small, SZ_4K);
	ASSERT_EQ(0, ioctl(fd, FS_IOC_FIEMAP, &x.fm));
	TH_LOG("%u extents: %#llx+%#llx flags %#x, %#llx+%#llx flags %#x",
	       x.fm.fm_mapped_extents,
	       (unsigned long long)fe[0].fe_physical,
	       (unsigned long long)fe[0].fe_length, fe[0].fe_flags,
	       (unsigned long long)fe[1].fe_physical,
	       (unsigned long long)fe[1].fe_length, fe[1].fe_flags);
	ASSERT_EQ(2U, x.fm.fm_mapped_extents);
	EXPECT_EQ((unsigned long long)SZ_4K,
		  (unsigned long long)fe[0].fe_length);
	EXPECT_EQ(0U, fe[0].fe_flags & FIEMAP_EXTENT_UNWRITTEN);
	EXPECT_NE(0U, fe[1].fe_flags & FIEMAP_EXTENT_UNWRITTEN);
	EXPECT_EQ(fe[0].fe_physical + SZ_4K, fe[1].fe_physical);
	EXPECT_EQ(1L, fiemap_aligned_chunks(fd, 0, SZ_1G, SZ_1G));
}

/*
 * The rest of a range that starts written and goes on unwritten is
 * converted by a PUD write fault.  Access order: the written head (see
 * written_head_file()); then write one word per 4 KiB through a
 * 1 GiB-aligned mapping: one PUD fault.  The head keeps its data, the
 * converted rest reads zeros where it was not written.
 */
TEST_F_TIMEOUT(fs_pud, pud_write_converts_unwritten_rest, TIMEOUT_LONG)
{
	uint64_t seed = new_seed(), seed2 = new_seed();
	const uint64_t *w;
	size_t off, nonzero = 0;

	RETURN_IF_SKIPPED();
	written_head_file(_metadata, self, seed);
	write_gib_maps_one_pud(_metadata, self, seed2, "write 1 GiB");
	ASSERT_NE(MAP_FAILED, self->p);
	/* word 0 of each page is new; the head's other words are kept */
	EXPECT_EQ(1UL, count_wrong(self->p, SZ_4K, seed, 0));
	for (off = SZ_4K; off < SZ_1G; off += SZ_4K) {
		w = (const uint64_t *)(self->p + off);
		nonzero += w[0] != pattern_word(seed2, off) || w[1] || w[511];
	}
	EXPECT_EQ(0UL, nonzero);
}

/*
 * A fallocated 1 GiB scratch file with a page written by pwrite() (pattern
 * @seed) at each of @offs: the written blocks split the unwritten extent
 * into pieces, on one run of blocks.  The scratch file becomes self->fd.
 */
static void pwritten_pieces_file(struct __test_metadata *_metadata,
				 FIXTURE_DATA(fs_pud) *self,
				 const off_t *offs, size_t n, uint64_t seed)
{
	char desc[512];
	size_t i;
	int fd;

	fd = open_scratch(_metadata, self, "hugedax.pud.pieces");
	ASSERT_LE(0, fd);
	close(self->fd);
	self->fd = fd;
	ASSERT_EQ(0, fallocate(fd, 0, 0, SZ_1G));
	for (i = 0; i < n; i++)
		ASSERT_EQ(0, write_file_pattern(fd, offs[i], SZ_4K, seed));
	ASSERT_EQ(0, fsync(fd));
	fiemap_describe(fd, desc, sizeof(desc));
	TH_LOG("extents: %s", desc);
	ASSERT_EQ(1L, fiemap_aligned_chunks(fd, 0, SZ_1G, SZ_1G));
}

/*
 * Word 0 of each page of [off, off + len) of the mapping @p (file offset
 * @off) holds @seed2's pattern; the other words hold @seed's in the pages
 * at @offs and zero elsewhere.  Returns the pages that differ.
 */
static size_t count_pieces_wrong(const char *p, off_t off, size_t len,
				 const off_t *offs, size_t n, uint64_t seed,
				 uint64_t seed2)
{
	size_t wrong = 0, i, w;

	for (size_t pg = 0; pg < len; pg += SZ_4K) {
		const uint64_t *words = (const uint64_t *)(p + pg);
		bool written = false;

		for (i = 0; i < n; i++)
			written |= offs[i] == off + (off_t)pg;
		for (w = 1; w < SZ_4K / 8; w++)
			if (words[w] != (written ?
			    pattern_word(seed, off + pg + w * 8) : 0))
				break;
		wrong += words[0] != pattern_word(seed2, off + pg) ||
			 w < SZ_4K / 8;
	}
	return wrong;
}

/*
 * A huge write fault converts every unwritten piece of its range, not just
 * the first, when pages written by pwrite() split it: in the first 2 MiB
 * below (from 2 MiB), unwritten, 4 KiB written, unwritten; in the second,
 * written, unwritten, written, unwritten; for the PUD, written at 0 and
 * 512 MiB.  Access order: the pieces file (pwritten_pieces_file()), then
 * one word per 4 KiB written through a mapping of 4 MiB from file offset
 * 2 MiB, 2 MiB-aligned (PMD faults: the mapping is too short for a PUD),
 * or of the whole GiB, 1 GiB-aligned.  Signals: faults, the page-table
 * dump, the fault tracepoints; the pages written before keep their data,
 * the rest read zeros.  Negative control: a read fault converts nothing
 * (read_leaves_pieces_to_ptes below).
 */
TEST_F_TIMEOUT(fs_pud, pmd_write_converts_every_piece, TIMEOUT_LONG)
{
	const off_t offs[] = { SZ_2M + SZ_4K, 2 * SZ_2M, 2 * SZ_2M + SZ_1M };
	uint64_t seed = new_seed(), seed2 = new_seed();
	struct fault_count fc;

	RETURN_IF_SKIPPED();
	pwritten_pieces_file(_metadata, self, offs, 3, seed);
	self->len = 2 * SZ_2M;
	self->p = map_aligned(self->len, SZ_2M, PROT_READ | PROT_WRITE,
			      MAP_SHARED, self->fd, SZ_2M, 0);
	ASSERT_NE(MAP_FAILED, self->p);
	traced_touch(_metadata, events, &fc, self->p, self->len, SZ_4K, true,
		     seed2, SZ_2M);
	expect_faults(_metadata, "write 4 MiB of pieces", &fc, 2);
	EXPECT_EQ(2L, trace_count("dax_pmd_fault_done", "NOPAGE"));
	EXPECT_EQ(0L, trace_count("dax_pmd_fault_done", "FALLBACK"));
	expect_levels(_metadata, self->p, self->len, 0, self->len, 0);
	EXPECT_EQ(0UL, count_pieces_wrong(self->p, SZ_2M, self->len, offs, 3,
					  seed, seed2));
}

TEST_F_TIMEOUT(fs_pud, pud_write_converts_every_piece, TIMEOUT_LONG)
{
	const off_t offs[] = { 0, 512 * SZ_1M };
	uint64_t seed = new_seed(), seed2 = new_seed();

	RETURN_IF_SKIPPED();
	pwritten_pieces_file(_metadata, self, offs, 2, seed);
	write_gib_maps_one_pud(_metadata, self, seed2, "write 1 GiB of pieces");
	ASSERT_NE(MAP_FAILED, self->p);
	EXPECT_EQ(0UL, count_pieces_wrong(self->p, 0, SZ_1G, offs, 2, seed,
					  seed2));
}

/*
 * Negative control for the two above: a read fault converts nothing, and a
 * PMD over pieces of different states cannot be mapped, so the first
 * 2 MiB range maps 4 KiB pages: 512 faults (the written page maps its
 * block, the unwritten ones zero pages).  Access order: the pieces file of
 * pmd_write_converts_every_piece, then one word per 4 KiB read through the
 * same mapping.
 */
TEST_F_TIMEOUT(fs_pud, read_leaves_pieces_to_ptes, TIMEOUT_LONG)
{
	const off_t offs[] = { SZ_2M + SZ_4K };
	uint64_t seed = new_seed();
	struct fault_count fc;

	RETURN_IF_SKIPPED();
	pwritten_pieces_file(_metadata, self, offs, 1, seed);
	self->len = SZ_2M;
	self->p = map_aligned(self->len, SZ_2M, PROT_READ | PROT_WRITE,
			      MAP_SHARED, self->fd, SZ_2M, 0);
	ASSERT_NE(MAP_FAILED, self->p);
	traced_touch(_metadata, events, &fc, self->p, self->len, SZ_4K, false,
		     0, 0);
	expect_faults(_metadata, "read 2 MiB of pieces", &fc, 512);
	EXPECT_EQ(1L, trace_count("dax_pmd_fault_done", "FALLBACK"));
	expect_levels(_metadata, self->p, self->len, self->len, 0, 0);
	EXPECT_EQ(pattern_word(seed, SZ_2M + SZ_4K + 8),
		  *(uint64_t *)(self->p + SZ_4K + 8));
	EXPECT_EQ(0ULL, *(uint64_t *)(self->p + 8));
}

/*
 * Negative control: a read fault converts nothing, so the PUD falls back
 * with "extent" (one written block, then unwritten ones) and no PUD maps.
 * Access order: the written head, then read one word per 4 KiB.
 */
TEST_F_TIMEOUT(fs_pud, pud_read_of_written_head_falls_back, TIMEOUT_LONG)
{
	uint64_t seed = new_seed();
	struct fault_count fc;

	RETURN_IF_SKIPPED();
	written_head_file(_metadata, self, seed);
	map_and_read_traced(_metadata, self, &fc);
	EXPECT_LE(1L, trace_count_reason("dax_pud_fault_done", "FALLBACK",
					 "extent"));
	EXPECT_EQ(0L, trace_count("dax_pud_fault_done", "NOPAGE"));
	expect_levels(_metadata, self->p, SZ_1G, SZ_2M, SZ_1G - SZ_2M, 0);
	EXPECT_EQ(0UL, count_wrong(self->p, SZ_4K, seed, 0));
}

/* ---- the first write fault of a GiB zeroes it: other writers go on ---- */

#define RACE_BLOCKS	256

/* The child's i-th block: one per 4 MiB, never a GiB's block 0. */
static off_t race_offset(off_t base, int i)
{
	return base + (off_t)i * (SZ_1G / RACE_BLOCKS) + SZ_4K * (1 + i % 7);
}

struct zero_race {
	volatile int go;
	double t0, t1;			/* the parent's store */
	double start[RACE_BLOCKS], end[RACE_BLOCKS];	/* the child's writes */
};

/*
 * A fallocated scratch file of @size; its first GiB mapped at a 1 GiB
 * aligned address (self->p).  A child pwrite()s 4 KiB blocks of pattern
 * @seed at race_offset(@base, i), from the last one backwards, each a
 * first write (which converts its block), while the parent's one store
 * at offset 0 makes the PUD fault that zeroes and converts the first GiB.
 * Returns how many of the child's writes started and ended within the
 * store, and the longest write in *@longest.
 */
static int zero_race(struct __test_metadata *_metadata,
		     FIXTURE_DATA(fs_pud) *self, off_t size, off_t base,
		     uint64_t seed, double *longest)
{
	struct zero_race *r;
	int sfd, status, i, inside = 0;
	pid_t pid;

	sfd = open_scratch(_metadata, self, "hugedax.pud.race");
	EXPECT_LE(0, sfd);
	if (sfd < 0)
		return -1;
	EXPECT_EQ(0, fallocate(sfd, 0, 0, size));
	close(self->fd);
	self->fd = sfd;
	self->len = SZ_1G;
	self->p = map_aligned(SZ_1G, SZ_1G, PROT_READ | PROT_WRITE, MAP_SHARED,
			      sfd, 0, 0);
	r = mmap(NULL, sizeof(*r), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	EXPECT_NE(MAP_FAILED, self->p);
	EXPECT_NE(MAP_FAILED, r);
	if (self->p == MAP_FAILED || r == MAP_FAILED)
		return -1;

	pid = fork();
	EXPECT_LE(0, pid);
	if (!pid) {
		static uint64_t blk[SZ_4K / 8];

		r->go = 1;
		for (i = RACE_BLOCKS - 1; i >= 0; i--) {
			off_t off = race_offset(base, i);

			fill_pattern(blk, SZ_4K, seed, off);
			r->start[i] = now_us();
			if (pwrite(sfd, blk, SZ_4K, off) != SZ_4K)
				_exit(1);
			r->end[i] = now_us();
		}
		_exit(0);
	}
	while (pid > 0 && !r->go)
		;
	r->t0 = now_us();
	*(volatile uint64_t *)self->p = pattern_word(seed, 0);
	r->t1 = now_us();
	EXPECT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));

	*longest = 0;
	for (i = 0; i < RACE_BLOCKS; i++) {
		inside += r->start[i] > r->t0 && r->end[i] < r->t1;
		if (r->end[i] - r->start[i] > *longest)
			*longest = r->end[i] - r->start[i];
	}
	TH_LOG("the store took %.1f ms; %d of %d writes ran inside it, the longest write took %.1f ms",
	       (r->t1 - r->t0) / 1e3, inside, RACE_BLOCKS, *longest / 1e3);
	munmap((void *)r, sizeof(*r));
	return inside;
}

/*
 * The child's blocks hold its pattern (pread), and the rest of the first
 * GiB reads as zeroes through the mapping, but for the parent's word.
 */
static void expect_race_data(struct __test_metadata *_metadata,
			     FIXTURE_DATA(fs_pud) *self, off_t base,
			     uint64_t seed)
{
	size_t dirty = 0;
	off_t off, bad = 0;
	int i;

	for (i = 0; i < RACE_BLOCKS; i++) {
		off = race_offset(base, i);
		EXPECT_EQ(0, check_file_pattern(self->fd, off, SZ_4K, 8, seed,
						&bad)) {
			TH_LOG("pread of block %#llx differs at %#llx",
			       (unsigned long long)off, (unsigned long long)bad);
		}
	}
	EXPECT_EQ(pattern_word(seed, 0), *(uint64_t *)self->p);
	for (off = 0, i = 0; off < (off_t)SZ_1G; off += SZ_4K) {
		const uint64_t *w = (const uint64_t *)(self->p + off);

		if (i < RACE_BLOCKS && off == race_offset(base, i) - base) {
			i++;
			if (!base) {
				EXPECT_EQ(0UL, count_wrong(w, SZ_4K, seed,
							   off));
				continue;
			}
		}
		dirty += (off ? w[0] : 0) || w[1] || w[511];
	}
	EXPECT_EQ(0UL, dirty);
}

/*
 * The first store into a fallocated GiB makes one PUD fault zero and
 * convert it, and the kernel holds no lock for the length of that which
 * writers of other parts of the file need: a child's first writes into
 * the file's second GiB (each converts its block) start and end while
 * the store is zeroing the first.  Negative control: before the zeroing
 * was moved out of the transaction (xfs) or the handle (ext4), none did.
 * Then one PUD maps the first GiB (no fault to read it again, and the
 * page-table dump), and all data is in place.  Access order: the child's
 * pwrite()s and the parent's one store run at once, then reads.
 */
TEST_F_TIMEOUT(fs_pud, zeroing_fault_lets_other_writers_in, TIMEOUT_LONG)
{
	uint64_t seed = new_seed();
	double longest;

	RETURN_IF_SKIPPED();
	EXPECT_LT(0, zero_race(_metadata, self, 2 * SZ_1G, SZ_1G, seed,
			       &longest));
	ASSERT_NE(MAP_FAILED, self->p);
	EXPECT_EQ(0L, refault_count(_metadata, self->p, "after the race"));
	expect_levels(_metadata, self->p, SZ_1G, 0, 0, SZ_1G);
	expect_race_data(_metadata, self, SZ_1G, seed);
	EXPECT_EQ(2L, fiemap_aligned_chunks(self->fd, 0, 2 * SZ_1G, SZ_1G));
}

/*
 * The same with the child writing into the GiB that the store zeroes.
 * On ext4 the zeroing runs before the fault takes the GiB's DAX entry,
 * so these writes convert and fill their blocks while it runs; on xfs
 * each waits for the entry once it has converted its block.  Either way
 * the zeroing must not overwrite any of them: it zeroes only blocks it
 * finds unwritten under the lock that conversions take exclusively.  A
 * child write after the fault unmaps the PUD (write(2) into new blocks
 * does), so the GiB is read once more: at most one fault, and a PUD.
 */
TEST_F_TIMEOUT(fs_pud, zeroing_fault_keeps_concurrent_writes, TIMEOUT_LONG)
{
	uint64_t seed = new_seed();
	double longest;

	RETURN_IF_SKIPPED();
	EXPECT_LE(0, zero_race(_metadata, self, SZ_1G, 0, seed, &longest));
	ASSERT_NE(MAP_FAILED, self->p);
	EXPECT_GE(1L, refault_count(_metadata, self->p, "after the race"));
	expect_levels(_metadata, self->p, SZ_1G, 0, 0, SZ_1G);
	expect_race_data(_metadata, self, 0, seed);
	EXPECT_EQ(1L, fiemap_aligned_chunks(self->fd, 0, SZ_1G, SZ_1G));
}

TEST_HARNESS_MAIN
