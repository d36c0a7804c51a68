/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dax_checks.h - assertions shared by the hugedax guest tests.  Include it
 * after kselftest_harness.h: the helpers use its EXPECT and ASSERT macros.
 */
#ifndef HUGEDAX_DAX_CHECKS_H
#define HUGEDAX_DAX_CHECKS_H

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "dax_probe.h"

/*
 * Faults a measurement may report beyond the expected number.  The counters
 * are per process, so a page that the measuring code itself touches for the
 * first time inside the window is counted too: a stack page still shared
 * copy-on-write with the harness parent after fork(), or a text page of the
 * touch loop not yet mapped in this child.  calibrate_minflt() warms those
 * up and subtracts the constant cost of the probe, so in practice the slack
 * is unused; two such pages are tolerated, anything more is a real extra
 * fault.  There is no slack below: fewer faults than expected is a failure.
 */
#define FAULT_SLACK	2

/* Generous: the guest runs under slow emulation. */
#define TIMEOUT_LONG	600	/* 1 GiB of zeroing, clearing or faulting */
#define TIMEOUT_SHORT	300

/*
 * The 6.1 harness still runs the test body after SKIP() in FIXTURE_SETUP,
 * so every body starts with this.
 */
#define RETURN_IF_SKIPPED() do { if (_metadata->skip) return; } while (0)

static inline const char *env_or(const char *name, const char *def)
{
	const char *v = getenv(name);

	return v && *v ? v : def;
}

/* Different every run: stale data from an earlier run must not match. */
static inline uint64_t new_seed(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ((uint64_t)getpid() << 40) ^ ((uint64_t)ts.tv_sec << 20) ^
	       (uint64_t)ts.tv_nsec;
}

static inline void expect_faults(struct __test_metadata *_metadata, const char *what,
			  const struct fault_count *fc, long want)
{
	long got = fc->min + fc->maj;

	TH_LOG("%s: %ld faults (%ld minor, %ld major, calibration %ld), want %ld",
	       what, got, fc->min, fc->maj, fc->calib, want);
	EXPECT_LE(want, got);
	EXPECT_GE(want + FAULT_SLACK, got);
}

static inline void expect_levels(struct __test_metadata *_metadata, const void *p,
			  size_t len, unsigned long pte, unsigned long pmd,
			  unsigned long pud)
{
	struct ptdump_sizes sz;
	int ret, err;

	ret = ptdump_levels((unsigned long)p, len, &sz);
	err = errno;
	ASSERT_EQ(0, ret) {
		TH_LOG("cannot read the page table dump: %s (needs debugfs at /sys/kernel/debug, CONFIG_PTDUMP_DEBUGFS)",
		       strerror(err));
	}
	TH_LOG("page tables of %p+%#zx: pte %#lx pmd %#lx pud %#lx not present %#lx",
	       p, len, sz.pte, sz.pmd, sz.pud, sz.absent);
	EXPECT_EQ(pte, sz.pte);
	EXPECT_EQ(pmd, sz.pmd);
	EXPECT_EQ(pud, sz.pud);
	EXPECT_EQ(0UL, sz.upper);
}

/*
 * Map [off, off + len) of @fd read-only at an address @misalign bytes past
 * a multiple of @align, read one word per 4 KiB, and expect @faults faults
 * and the bytes mapped by PTEs, PMDs and PUDs given; if @seed, the data
 * must be its pattern, read through the mapping.
 */
static inline void expect_read_mapping(struct __test_metadata *_metadata,
				       const char *what, int fd, off_t off,
				       size_t len, size_t align,
				       size_t misalign, long faults,
				       unsigned long pte, unsigned long pmd,
				       unsigned long pud, const uint64_t *seed)
{
	struct fault_count fc;
	size_t bad = 0;
	char *p;

	p = map_aligned(len, align, PROT_READ, MAP_SHARED, fd, off, misalign);
	ASSERT_NE(MAP_FAILED, p);
	fault_begin(&fc, calibrate_minflt());
	touch_read(p, len, SZ_4K);
	fault_end(&fc);
	expect_faults(_metadata, what, &fc, faults);
	expect_levels(_metadata, p, len, pte, pmd, pud);
	if (seed)
		EXPECT_EQ(0, check_pattern(p, len, 8, *seed, off, &bad))
			TH_LOG("%s: wrong data at %#zx", what, bad);
	munmap(p, len);
}

/*
 * The first GiB of @fd, appended with the pattern of @seed, maps one PUD
 * at a 1 GiB-aligned address (1 fault, the page-table dump) and reads
 * back.  Negative control: mapped 2 MiB off a GiB boundary, the same
 * blocks take 511 faults, all PMDs.
 */
static inline void check_gib_maps_a_pud(struct __test_metadata *_metadata,
					int fd, uint64_t seed)
{
	expect_read_mapping(_metadata, "appended GiB, 1 GiB aligned", fd, 0,
			    SZ_1G, SZ_1G, 0, 1, 0, 0, SZ_1G, &seed);
	expect_read_mapping(_metadata, "appended GiB, 2 MiB off", fd, SZ_2M,
			    SZ_1G - SZ_2M, SZ_1G, SZ_2M, 511, 0,
			    SZ_1G - SZ_2M, 0, NULL);
}

/*
 * Read [p, p + 1 GiB) again, one word per 4 KiB: how many faults did that
 * take?  0 if a PUD (or whatever mapped it) is still there.
 */
static inline long refault_count(struct __test_metadata *_metadata,
				 const char *p, const char *what)
{
	struct fault_count fc;

	fault_begin(&fc, calibrate_minflt());
	touch_read(p, SZ_1G, SZ_4K);
	fault_end(&fc);
	TH_LOG("%s: reading 1 GiB again took %ld faults", what,
	       fc.min + fc.maj);
	return fc.min + fc.maj;
}

/* Trace @events (NULL-terminated) of this process until stop_tracing(). */
static inline void start_tracing(struct __test_metadata *_metadata,
				 const char *const events[])
{
	int ret = trace_start(events);
	int err = errno;

	ASSERT_EQ(0, ret) {
		TH_LOG("cannot trace fs_dax events: %s (needs tracefs at /sys/kernel/tracing)",
		       strerror(err));
	}
}

static inline void stop_tracing(struct __test_metadata *_metadata)
{
	ASSERT_EQ(0, trace_stop());
}

/*
 * Touch one word every @step bytes of [p, p + len): write the pattern of
 * @seed at @file_off if @write, else read.  Count the faults that takes in
 * @fc, with @events traced.
 */
static inline void traced_touch(struct __test_metadata *_metadata,
				const char *const events[],
				struct fault_count *fc, void *p, size_t len,
				size_t step, bool write, uint64_t seed,
				off_t file_off)
{
	long calib = calibrate_minflt();

	start_tracing(_metadata, events);
	fault_begin(fc, calib);
	if (write)
		touch_write(p, len, step, seed, file_off);
	else
		touch_read(p, len, step);
	fault_end(fc);
	stop_tracing(_metadata);
}

/*
 * The move of a growing file's head must keep what a mapping stores while
 * it happens.  A child stores round numbers into word 1 of every page of
 * the file's first 60 MiB (@path, written with the pattern of @seed here)
 * through a shared mapping, over and over, and records in shared memory
 * the last round it stored in each page; meanwhile this appends past
 * 64 MiB, which moves the head.  Afterwards every page must read the
 * child's last round (pread), every other word the pattern, and the head
 * must sit on a GiB boundary (FIEMAP).  The control is the check itself:
 * with a lost store, a page reads an older round.
 */
#define MOVE_HEAD	(60 * SZ_1M)
#define MOVE_GROWN	(128 * SZ_1M)

static inline uint64_t round_word(uint64_t round, size_t page)
{
	return round << 32 | page;
}

static inline void check_move_keeps_stores(struct __test_metadata *_metadata,
						 const char *path, uint64_t seed)
{
	size_t pages = MOVE_HEAD / SZ_4K, i, lost = 0, bad = 0;
	volatile uint64_t *last;
	uint64_t phys, word;
	off_t where = 0;
	int fd, status;
	char *p;
	pid_t pid;

	ASSERT_EQ(0, append_file_pattern(path, MOVE_HEAD, SZ_1M,
					 seed));
	fd = open(path, O_RDWR);
	ASSERT_LE(0, fd);
	p = mmap(NULL, MOVE_HEAD, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	/* last[0]: rounds finished; last[1]: stop; then one per page */
	last = mmap(NULL, (pages + 2) * 8, PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, last);

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		uint64_t round;

		for (round = 1; !last[1]; round++) {
			for (i = 0; i < pages; i++) {
				((volatile uint64_t *)(p + i * SZ_4K))[1] =
					round_word(round, i);
				last[2 + i] = round;
			}
			last[0] = round;
		}
		_exit(0);
	}
	while (last[0] < 1)
		usleep(1000);
	/* grow past 64 MiB while the child stores */
	ASSERT_EQ(0, write_file_pattern(fd, MOVE_HEAD, MOVE_GROWN - MOVE_HEAD, seed));
	word = last[0];
	while (last[0] < word + 2)
		usleep(1000);
	last[1] = 1;
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	TH_LOG("the child stored %lu rounds", (unsigned long)last[0]);
	munmap(p, MOVE_HEAD);

	for (i = 0; i < pages; i++) {
		ASSERT_EQ(8, pread(fd, &word, 8, i * SZ_4K + 8));
		if (word != round_word(last[2 + i], i) && !lost++)
			TH_LOG("page %zu reads round %lu, the child stored %lu",
			       i, (unsigned long)(word >> 32),
			       (unsigned long)last[2 + i]);
	}
	EXPECT_EQ(0UL, lost);
	/* the rest of each page, and the appended part, hold the pattern */
	for (i = 0; i < pages; i++) {
		char buf[SZ_4K];

		ASSERT_EQ((ssize_t)SZ_4K, pread(fd, buf, SZ_4K, i * SZ_4K));
		*(uint64_t *)(buf + 8) = pattern_word(seed, i * SZ_4K + 8);
		if (check_pattern(buf, SZ_4K, 8, seed, i * SZ_4K, &bad))
			break;
	}
	EXPECT_EQ(pages, i) TH_LOG("wrong data at %#zx", i * SZ_4K + bad);
	EXPECT_EQ(0, check_file_pattern(fd, MOVE_HEAD, MOVE_GROWN - MOVE_HEAD, 8, seed,
					&where))
		TH_LOG("wrong data at %#llx", (long long)where);
	ASSERT_EQ(0, fiemap_first_physical(fd, &phys));
	TH_LOG("the head is at device offset %#llx", (unsigned long long)phys);
	EXPECT_EQ(0UL, phys & (SZ_1G - 1));
	munmap((void *)last, (pages + 2) * 8);
	close(fd);
}

#endif /* HUGEDAX_DAX_CHECKS_H */
