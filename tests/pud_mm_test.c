// SPDX-License-Identifier: GPL-2.0
/*
 * What mm operations do to a 1 GiB (PUD) DAX mapping.
 *
 * Device-dax with 1 GiB alignment is the only way to get a huge PUD on a
 * stock 6.1 kernel, so these tests use it.  Each test maps 1 GiB, writes a
 * position-dependent pattern one word per 4 KiB (one PUD fault), does the
 * operation under test, and then checks with two signals that the PUD is
 * still there (or is gone where it must be): the number of faults a second
 * pass over the whole range takes (0 if the PUD survived, 1 if it was
 * zapped and faulted in again) and the kernel's page table dump.  The data
 * is checked after every step.
 *
 * On stock 6.1: mprotect() and mremap() print "bad pud" and clear the
 * entry without a TLB flush; reading smaps, pagemap or calling mincore()
 * zaps the mapping (and reports it as not present).
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

FIXTURE(devdax_pud) {
	int fd;
	char *p;
	size_t len;
	uint64_t seed;
};

FIXTURE_SETUP(devdax_pud)
{
	const char *path = env_or("HUGEDAX_DEVDAX", "/dev/dax3.0");
	struct fault_count fc;
	long calib;
	int err;

	self->fd = -1;
	self->p = MAP_FAILED;
	self->len = SZ_1G;
	if (geteuid())
		SKIP(return, "needs root");
	self->fd = open(path, O_RDWR | O_CLOEXEC);
	err = errno;
	ASSERT_LE(0, self->fd) {
		TH_LOG("open %s: %s", path, strerror(err));
	}
	self->p = mmap(NULL, SZ_1G, PROT_READ | PROT_WRITE, MAP_SHARED,
		       self->fd, 0);
	ASSERT_NE(MAP_FAILED, self->p);
	ASSERT_EQ(0UL, (unsigned long)self->p & (SZ_1G - 1));

	/* access order: write one word per 4 KiB, low to high */
	self->seed = new_seed();
	calib = calibrate_minflt();
	fault_begin(&fc, calib);
	touch_write(self->p, SZ_1G, SZ_4K, self->seed, 0);
	fault_end(&fc);
	expect_faults(_metadata, "write 1 GiB", &fc, 1);
	expect_levels(_metadata, self->p, SZ_1G, 0, 0, SZ_1G);
}

FIXTURE_TEARDOWN(devdax_pud)
{
	if (self->p != MAP_FAILED)
		munmap(self->p, self->len);
	if (self->fd >= 0)
		close(self->fd);
}

static void expect_data(struct __test_metadata *_metadata, const char *p,
			uint64_t seed)
{
	size_t bad = 0;

	EXPECT_EQ(0, check_pattern(p, SZ_1G, SZ_4K, seed, 0, &bad)) {
		TH_LOG("data differs at offset %#zx", bad);
	}
}

/*
 * Negative control for every test below: munmap and map again really does
 * cost one fault, and the dump shows no PUD before that fault.
 */
TEST_F_TIMEOUT(devdax_pud, control_remap_refaults, TIMEOUT_LONG)
{
	RETURN_IF_SKIPPED();
	ASSERT_EQ(0, munmap(self->p, SZ_1G));
	self->p = mmap(self->p, SZ_1G, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_FIXED, self->fd, 0);
	ASSERT_NE(MAP_FAILED, self->p);
	expect_levels(_metadata, self->p, SZ_1G, 0, 0, 0);
	EXPECT_EQ(1, refault_count(_metadata, self->p, "after munmap+mmap"));
	expect_levels(_metadata, self->p, SZ_1G, 0, 0, SZ_1G);
	expect_data(_metadata, self->p, self->seed);
}

/*
 * mprotect() of the whole 1 GiB changes the PUD in place: reading takes no
 * fault, a write (in a child) gets SIGSEGV.  PROT_NONE zaps it (a
 * PROT_NONE PUD would not be present to get_user_pages()).  A forced read
 * through /proc/self/mem then fails cleanly: a 1 GiB-aligned device-dax
 * has no smaller page to map, and no PUD goes into an inaccessible VMA
 * (kernels before that fix spun until the child's alarm, 128 + SIGALRM).
 * After mprotect() back to read-write one fault maps the PUD again.
 */
TEST_F_TIMEOUT(devdax_pud, mprotect_keeps_pud, TIMEOUT_LONG)
{
	long refaults;

	RETURN_IF_SKIPPED();
	ASSERT_EQ(0, mprotect(self->p, SZ_1G, PROT_READ));
	expect_levels(_metadata, self->p, SZ_1G, 0, 0, SZ_1G);
	EXPECT_EQ(0, refault_count(_metadata, self->p, "after PROT_READ"));
	EXPECT_EQ(SIGSEGV, access_in_child(self->p + 8, 1));
	expect_data(_metadata, self->p, self->seed);

	ASSERT_EQ(0, mprotect(self->p, SZ_1G, PROT_NONE));
	expect_levels(_metadata, self->p, SZ_1G, 0, 0, 0);
	EXPECT_EQ(2, forced_read_in_child(self->p + SZ_2M,
					  pattern_word(self->seed, SZ_2M), 60));
	ASSERT_EQ(0, mprotect(self->p, SZ_1G, PROT_READ | PROT_WRITE));
	/*
	 * One PUD fault; the forced read above forked, so a first write to
	 * a stack page of this process may add a copy-on-write fault.
	 */
	refaults = refault_count(_metadata, self->p, "after PROT_NONE and back");
	EXPECT_LE(1, refaults);
	EXPECT_GE(1 + FAULT_SLACK, refaults);
	expect_levels(_metadata, self->p, SZ_1G, 0, 0, SZ_1G);
	self->seed++;
	touch_write(self->p, SZ_1G, SZ_4K, self->seed, 0);
	expect_data(_metadata, self->p, self->seed);
}

/* Reading /proc/self/smaps, many times, leaves the PUD alone. */
TEST_F_TIMEOUT(devdax_pud, smaps_read_keeps_pud, TIMEOUT_LONG)
{
	RETURN_IF_SKIPPED();
	ASSERT_EQ(0, smaps_read_all(100));
	expect_levels(_metadata, self->p, SZ_1G, 0, 0, SZ_1G);
	EXPECT_EQ(0, refault_count(_metadata, self->p, "after 100 smaps reads"));
	expect_data(_metadata, self->p, self->seed);
}

/* mincore() reports every page resident and leaves the PUD alone. */
TEST_F_TIMEOUT(devdax_pud, mincore_reports_resident, TIMEOUT_LONG)
{
	RETURN_IF_SKIPPED();
	EXPECT_EQ((long)(SZ_1G / SZ_4K), mincore_resident(self->p, SZ_1G));
	expect_levels(_metadata, self->p, SZ_1G, 0, 0, SZ_1G);
	EXPECT_EQ(0, refault_count(_metadata, self->p, "after mincore"));
	expect_data(_metadata, self->p, self->seed);
}

/*
 * /proc/self/pagemap shows every page present and file-backed, with
 * consecutive pfns, and leaves the PUD alone.
 */
TEST_F_TIMEOUT(devdax_pud, pagemap_reports_present, TIMEOUT_LONG)
{
	size_t n = SZ_1G / SZ_4K;
	struct pagemap_stats pm;

	RETURN_IF_SKIPPED();
	ASSERT_EQ(0, pagemap_scan(self->p, SZ_1G, &pm));
	TH_LOG("first pfn %#llx", (unsigned long long)pm.first_pfn);
	EXPECT_EQ(n, pm.present);
	EXPECT_EQ(n, pm.file);
	EXPECT_EQ(n - 1, pm.contiguous);
	expect_levels(_metadata, self->p, SZ_1G, 0, 0, SZ_1G);
	EXPECT_EQ(0, refault_count(_metadata, self->p, "after pagemap"));
	expect_data(_metadata, self->p, self->seed);
}

/*
 * mremap() of the whole 1 GiB to another 1 GiB-aligned address moves the
 * PUD: the data is there at once, with no fault.
 */
TEST_F_TIMEOUT(devdax_pud, mremap_moves_pud, TIMEOUT_LONG)
{
	char *q, *dst;

	RETURN_IF_SKIPPED();
	/* a 1 GiB-aligned destination that is not the source */
	dst = map_aligned(SZ_1G, SZ_1G, PROT_NONE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0, 0);
	ASSERT_NE(MAP_FAILED, dst);
	q = mremap(self->p, SZ_1G, SZ_1G, MREMAP_MAYMOVE | MREMAP_FIXED, dst);
	ASSERT_EQ(dst, q);
	self->p = q;
	expect_levels(_metadata, q, SZ_1G, 0, 0, SZ_1G);
	EXPECT_EQ(0, refault_count(_metadata, q, "after mremap"));
	expect_data(_metadata, q, self->seed);
}

/*
 * fork(): the child of a shared mapping sees the same data (it faults the
 * PUD in itself), and the parent's PUD stays.
 */
TEST_F_TIMEOUT(devdax_pud, fork_child_sees_data, TIMEOUT_LONG)
{
	size_t bad = 0;
	int status;
	pid_t pid;

	RETURN_IF_SKIPPED();
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(check_pattern(self->p, SZ_1G, SZ_4K, self->seed, 0, &bad) ?
		      1 : 0);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	expect_levels(_metadata, self->p, SZ_1G, 0, 0, SZ_1G);
	EXPECT_EQ(0, refault_count(_metadata, self->p, "parent after fork"));
}

/*
 * MADV_DONTNEED of 4 KiB inside the PUD drops the whole PUD (the device
 * keeps the data); the next access maps it again with one fault.
 */
TEST_F_TIMEOUT(devdax_pud, madv_dontneed_4k_refaults_pud, TIMEOUT_LONG)
{
	RETURN_IF_SKIPPED();
	ASSERT_EQ(0, madvise(self->p + 5 * SZ_4K, SZ_4K, MADV_DONTNEED));
	expect_levels(_metadata, self->p, SZ_1G, 0, 0, 0);
	EXPECT_EQ(1, refault_count(_metadata, self->p, "after MADV_DONTNEED"));
	expect_levels(_metadata, self->p, SZ_1G, 0, 0, SZ_1G);
	expect_data(_metadata, self->p, self->seed);
}

TEST_HARNESS_MAIN
