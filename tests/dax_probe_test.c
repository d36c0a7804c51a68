// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the pure dax_probe helpers.  Needs no DAX, no tracefs and
 * no debugfs, so it runs on the build host as well as in the guest.
 */
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "dax_probe.h"

/*
 * The 6.1 harness has unused parameters (its SIGALRM handler and the
 * wrapper every TEST() expands to), which -Wextra -Werror rejects.
 */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"

/*
 * One range line the way arch/x86/mm/dump_pagetables.c prints it:
 * "0x%016lx-0x%016lx   %9lu%c " then 30 columns of protection flags (all
 * blank when not present) and the level name.
 */
static void ptdump_fmt(char *buf, size_t n, unsigned long start,
		       unsigned long end, int present, int rw, int pse,
		       const char *level)
{
	static const char units[] = "BKMGTPE";
	unsigned long delta = end - start;
	const char *unit = units;
	char prot[64];

	while (!(delta & 1023) && unit[1]) {
		delta >>= 10;
		unit++;
	}
	/* USR, RW/ro, PWT, PCD, PSE, PAT, GLB, NX: 30 columns either way */
	if (present)
		snprintf(prot, sizeof(prot), "USR %s         %s         NX ",
			 rw ? "RW" : "ro", pse ? "PSE" : "   ");
	else
		snprintf(prot, sizeof(prot), "%30s", "");
	snprintf(buf, n, "0x%016lx-0x%016lx   %9lu%c %s%s\n",
		 start, end, delta, *unit, prot, level);
}

struct parsed {
	int ret;
	unsigned long start, end;
	int present, level;
};

static struct parsed parse(const char *line)
{
	struct parsed p = { .present = -1, .level = -1 };

	p.ret = ptdump_parse_line(line, &p.start, &p.end, &p.present,
				  &p.level);
	return p;
}

TEST(ptdump_parse_line_pte_present)
{
	char line[256];
	struct parsed p;

	ptdump_fmt(line, sizeof(line), 0x7f4c3a000000UL, 0x7f4c3a003000UL,
		   1, 1, 0, "pte");
	p = parse(line);
	ASSERT_EQ(0, p.ret) TH_LOG("%s", line);
	EXPECT_EQ(0x7f4c3a000000UL, p.start);
	EXPECT_EQ(0x7f4c3a003000UL, p.end);
	EXPECT_EQ(1, p.present);
	EXPECT_EQ(PT_PTE, p.level);
}

TEST(ptdump_parse_line_pmd_present_readonly)
{
	char line[256];
	struct parsed p;

	ptdump_fmt(line, sizeof(line), 0x7f4c00200000UL, 0x7f4c00600000UL,
		   1, 0, 1, "pmd");
	p = parse(line);
	ASSERT_EQ(0, p.ret) TH_LOG("%s", line);
	EXPECT_EQ(0x7f4c00200000UL, p.start);
	EXPECT_EQ(0x7f4c00600000UL, p.end);
	EXPECT_EQ(1, p.present);
	EXPECT_EQ(PT_PMD, p.level);
}

TEST(ptdump_parse_line_pud_present)
{
	/* spacing as in a real dump; the parser does not depend on it */
	const char *line = "0x00007f4c00000000-0x00007f4c40000000           1G     USR RW  PSE  NX pud\n";
	struct parsed p = parse(line);

	ASSERT_EQ(0, p.ret);
	EXPECT_EQ(0x7f4c00000000UL, p.start);
	EXPECT_EQ(0x7f4c40000000UL, p.end);
	EXPECT_EQ(1, p.present);
	EXPECT_EQ(PT_PUD, p.level);
}

TEST(ptdump_parse_line_not_present)
{
	static const struct {
		unsigned long start, end;
		const char *name;
		int level;
	} cases[] = {
		{ 0x7f4c3a003000UL, 0x7f4c3a200000UL, "pte", PT_PTE },
		{ 0x7f4c00600000UL, 0x7f4c40000000UL, "pmd", PT_PMD },
		{ 0x7f4c40000000UL, 0x7f8000000000UL, "pud", PT_PUD },
		{ 0x0000000000000000UL, 0x0000008000000000UL, "pgd", PT_PGD },
	};
	char line[256];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct parsed p;

		ptdump_fmt(line, sizeof(line), cases[i].start, cases[i].end,
			   0, 0, 0, cases[i].name);
		p = parse(line);
		ASSERT_EQ(0, p.ret) TH_LOG("%s", line);
		EXPECT_EQ(cases[i].start, p.start);
		EXPECT_EQ(cases[i].end, p.end);
		EXPECT_EQ(0, p.present) TH_LOG("%s", line);
		EXPECT_EQ(cases[i].level, p.level);
	}
}

TEST(ptdump_parse_line_wraps_at_top_of_memory)
{
	char line[256];
	struct parsed p;

	ptdump_fmt(line, sizeof(line), 0xffffffffff600000UL, 0, 0, 0, 0,
		   "pmd");
	p = parse(line);
	ASSERT_EQ(0, p.ret) TH_LOG("%s", line);
	EXPECT_EQ(0xffffffffff600000UL, p.start);
	EXPECT_EQ(0UL, p.end);
}

TEST(ptdump_parse_line_rejects_other_lines)
{
	static const char *const lines[] = {
		"---[ User Space ]---\n",
		"---[ Kernel Space ]---\n",
		"... 131067 entries skipped ... \n",
		"",
		"\n",
		/* size column disagrees with the range */
		"0x00007f4c00000000-0x00007f4c40000000           2M     USR RW  PSE  NX pmd\n",
		/* no level */
		"0x00007f4c00000000-0x00007f4c40000000           1G     USR RW  PSE  NX\n",
		/* unknown level */
		"0x00007f4c00000000-0x00007f4c40000000           1G     USR RW  PSE  NX pux\n",
		/* truncated */
		"0x00007f4c00000000-0x00007f4c4000",
		"0x00007f4c00000000-0x00007f4c40000000           1",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(lines); i++)
		EXPECT_EQ(-1, parse(lines[i]).ret) TH_LOG("accepted line %zu", i);
}

TEST(ptdump_account_clips_to_window)
{
	const unsigned long a = 0x7f0000000000UL;
	struct ptdump_sizes s;

	memset(&s, 0, sizeof(s));
	/* window [a + 4K, a + 4K + 64M) */
	ptdump_account(&s, a + SZ_4K, 64 * SZ_1M, a, a + SZ_2M, 1, PT_PTE);
	ptdump_account(&s, a + SZ_4K, 64 * SZ_1M, a + SZ_2M, a + SZ_1G, 1,
		       PT_PMD);
	ptdump_account(&s, a + SZ_4K, 64 * SZ_1M, a + SZ_1G, a + 2 * SZ_1G,
		       1, PT_PUD);
	ptdump_account(&s, a + SZ_4K, 64 * SZ_1M, 0, a, 1, PT_PTE);
	EXPECT_EQ(SZ_2M - SZ_4K, s.pte);
	EXPECT_EQ(64 * SZ_1M - (SZ_2M - SZ_4K), s.pmd);
	EXPECT_EQ(0UL, s.pud);
	EXPECT_EQ(0UL, s.absent);

	memset(&s, 0, sizeof(s));
	ptdump_account(&s, a, SZ_1G, a, a + SZ_1G, 0, PT_PUD);
	ptdump_account(&s, a, SZ_1G, a - SZ_1G, 0, 1, PT_PGD);
	EXPECT_EQ(SZ_1G, s.absent);
	EXPECT_EQ(SZ_1G, s.upper);
	EXPECT_EQ(0UL, s.pte + s.pmd + s.pud);
}

TEST(trace_line_match_event_and_result)
{
	const char *done = "  dax_fault_test-123     [001] .....    42.000001: dax_pmd_fault_done: dev 259:0 ino 0xc shared WRITE|ALLOW_RETRY|KILLABLE|USER address 0x7f4c00000000 vm_start 0x7f4c00000000 vm_end 0x7f4c40000000 pgoff 0x0 max_pgoff 0x40000 NOPAGE\n";
	const char *fallback = "  dax_fault_test-123     [001] .....    42.000002: dax_pmd_fault_done: dev 259:0 ino 0xc shared WRITE|USER address 0x7f4c00001000 vm_start 0x7f4c00001000 vm_end 0x7f4c04001000 pgoff 0x0 max_pgoff 0x4000 FALLBACK\n";
	const char *start = "  dax_fault_test-123     [001] .....    42.000000: dax_pmd_fault: dev 259:0 ino 0xc shared WRITE|USER address 0x7f4c00000000 vm_start 0x7f4c00000000 vm_end 0x7f4c40000000 pgoff 0x0 max_pgoff 0x40000 \n";
	const char *pte = "  dax_fault_test-123     [001] .....    42.000003: dax_pte_fault_done: dev 259:0 ino 0xc shared WRITE|USER address 0x7f4c00001000 pgoff 0x0 MAJOR|NOPAGE\n";

	EXPECT_EQ(1, trace_line_match(done, "dax_pmd_fault_done", NULL));
	EXPECT_EQ(1, trace_line_match(done, "dax_pmd_fault_done", "NOPAGE"));
	EXPECT_EQ(0, trace_line_match(done, "dax_pmd_fault_done", "FALLBACK"));
	EXPECT_EQ(0, trace_line_match(done, "dax_pmd_fault", NULL));
	EXPECT_EQ(1, trace_line_match(fallback, "dax_pmd_fault_done",
				      "FALLBACK"));
	EXPECT_EQ(0, trace_line_match(fallback, "dax_pmd_fault_done",
				      "NOPAGE"));
	EXPECT_EQ(1, trace_line_match(start, "dax_pmd_fault", NULL));
	EXPECT_EQ(0, trace_line_match(start, "dax_pmd_fault_done", NULL));
	EXPECT_EQ(1, trace_line_match(pte, "dax_pte_fault_done", NULL));
	EXPECT_EQ(0, trace_line_match(pte, "dax_pte_fault_done", "NOPAGE"));
	EXPECT_EQ(0, trace_line_match("# tracer: nop\n", "nop", NULL));
	EXPECT_EQ(0, trace_line_match("#  dax_pmd_fault_done: x NOPAGE\n",
				      "dax_pmd_fault_done", NULL));
}

/* With the fallback reasons the done events end in "RESULT reason NAME". */
TEST(trace_line_fields_result_and_reason)
{
	const char *pud = "  dax_smaps_test-77      [000] .....    12.5: dax_pud_fault_done: dev 259:2 ino 0x83 shared WRITE|ALLOW_RETRY|KILLABLE|USER address 0x7f0040000000 vm_start 0x7f0040000000 vm_end 0x7f0040800000 pgoff 0x0 max_pgoff 0x800 FALLBACK reason vma_too_small\n";
	const char *pmd = "  dax_smaps_test-77      [000] .....    12.6: dax_pmd_fault_done: dev 259:2 ino 0x83 shared WRITE|ALLOW_RETRY|KILLABLE|USER address 0x7f0040000000 vm_start 0x7f0040000000 vm_end 0x7f0040800000 pgoff 0x0 max_pgoff 0x800 NOPAGE reason none\n";

	EXPECT_EQ(1, trace_line_fields(pud, "dax_pud_fault_done", "FALLBACK",
				       "vma_too_small"));
	EXPECT_EQ(1, trace_line_fields(pud, "dax_pud_fault_done", NULL,
				       "vma_too_small"));
	EXPECT_EQ(1, trace_line_fields(pud, "dax_pud_fault_done", "FALLBACK",
				       NULL));
	EXPECT_EQ(0, trace_line_fields(pud, "dax_pud_fault_done", "FALLBACK",
				       "cow"));
	EXPECT_EQ(0, trace_line_fields(pud, "dax_pud_fault_done", "NOPAGE",
				       NULL));
	EXPECT_EQ(0, trace_line_fields(pud, "dax_pmd_fault_done", NULL, NULL));
	/* the old matcher still finds the result before the reason */
	EXPECT_EQ(1, trace_line_match(pud, "dax_pud_fault_done", "FALLBACK"));
	EXPECT_EQ(1, trace_line_match(pmd, "dax_pmd_fault_done", "NOPAGE"));
	EXPECT_EQ(0, trace_line_match(pmd, "dax_pmd_fault_done", "none"));
	EXPECT_EQ(1, trace_line_fields(pmd, "dax_pmd_fault_done", "NOPAGE",
				       "none"));
	/* a line without a reason matches no reason */
	EXPECT_EQ(0, trace_line_fields("  t-1 [000] ..... 1.0: dax_pmd_fault_done: dev 1:2 NOPAGE\n",
				       "dax_pmd_fault_done", NULL, "none"));
}

static const char smaps_sample[] =
	"00400000-00401000 r-xp 00000000 fd:00 12 /bin/x\n"
	"Size:                  4 kB\n"
	"DaxPteMapped:          0 kB\n"
	"DaxPmdMapped:          0 kB\n"
	"DaxPudMapped:          0 kB\n"
	"7f0040000000-7f0080000000 rw-s 00000000 103:02 131 /mnt/xfs/data file\n"
	"Size:            1048576 kB\n"
	"FilePmdMapped:         0 kB\n"
	"DaxPteMapped:          8 kB\n"
	"DaxPmdMapped:       2048 kB\n"
	"DaxPudMapped:    1048576 kB\n"
	"VmFlags: rd wr sh mr mw me ms\n"
	"7ffc00000000-7ffc00021000 rw-p 00000000 00:00 0 [stack]\n"
	"DaxPteMapped:          0 kB\n"
	"DaxPmdMapped:          0 kB\n"
	"DaxPudMapped:          4 kB\n";

TEST(smaps_dax_parse_vma_and_all)
{
	struct dax_kb kb;
	FILE *f;

	f = fmemopen((void *)smaps_sample, sizeof(smaps_sample) - 1, "r");
	ASSERT_NE(NULL, f);
	ASSERT_EQ(0, smaps_dax_parse(f, 0x7f0040000000UL, 0, &kb));
	EXPECT_EQ(8L, kb.pte);
	EXPECT_EQ(2048L, kb.pmd);
	EXPECT_EQ(1048576L, kb.pud);
	rewind(f);
	ASSERT_EQ(0, smaps_dax_parse(f, 0, 1, &kb));
	EXPECT_EQ(1048580L, kb.pud);
	rewind(f);
	EXPECT_EQ(-1, smaps_dax_parse(f, 0x1000, 0, &kb));
	EXPECT_EQ(ENOENT, errno);
	fclose(f);
}

TEST(smaps_dax_parse_kernel_without_fields)
{
	static const char old[] =
		"7f0040000000-7f0080000000 rw-s 00000000 103:02 131 /d\n"
		"FilePmdMapped:         0 kB\n"
		"Shared_Hugetlb:        0 kB\n";
	struct dax_kb kb;
	FILE *f = fmemopen((void *)old, sizeof(old) - 1, "r");

	ASSERT_NE(NULL, f);
	EXPECT_EQ(-1, smaps_dax_parse(f, 0x7f0040000000UL, 0, &kb));
	EXPECT_EQ(ENOTSUP, errno);
	fclose(f);
}

TEST(dax_vmstat_parse_counters)
{
	static const char vm[] =
		"thp_fault_fallback 7\ndax_pmd_fault 512\n"
		"dax_pmd_fault_fallback 3\ndax_pud_fault 2\n"
		"dax_pud_fault_fallback 9\nballoon_inflate 0\n";
	static const char old[] = "thp_fault_fallback 7\nthp_swpout 0\n";
	struct dax_vmstat a, b, d;
	FILE *f = fmemopen((void *)vm, sizeof(vm) - 1, "r");

	ASSERT_NE(NULL, f);
	ASSERT_EQ(0, dax_vmstat_parse(f, &a));
	fclose(f);
	EXPECT_EQ(512L, a.pmd);
	EXPECT_EQ(3L, a.pmd_fallback);
	EXPECT_EQ(2L, a.pud);
	EXPECT_EQ(9L, a.pud_fallback);
	b = a;
	b.pmd += 5;
	b.pud_fallback += 1;
	dax_vmstat_delta(&d, &a, &b);
	EXPECT_EQ(5L, d.pmd);
	EXPECT_EQ(0L, d.pmd_fallback);
	EXPECT_EQ(0L, d.pud);
	EXPECT_EQ(1L, d.pud_fallback);

	f = fmemopen((void *)old, sizeof(old) - 1, "r");
	ASSERT_NE(NULL, f);
	EXPECT_EQ(-1, dax_vmstat_parse(f, &a));
	EXPECT_EQ(ENOTSUP, errno);
	fclose(f);
}

TEST(pattern_fill_check_touch)
{
	const size_t len = 64 * SZ_4K;
	uint64_t *w;
	size_t bad = 0, i;
	char *p;

	p = malloc(len);
	ASSERT_NE(NULL, p);
	w = (uint64_t *)p;

	fill_pattern(p, len, 42, 1 << 20);
	for (i = 0; i < len / 8; i++)
		ASSERT_NE((uint64_t)0, w[i]);
	EXPECT_EQ(0, check_pattern(p, len, 8, 42, 1 << 20, NULL));
	/* position dependent: a shifted file offset does not match */
	EXPECT_EQ(-1, check_pattern(p, len, 8, 42, (1 << 20) + 8, NULL));
	/* seed dependent */
	EXPECT_EQ(-1, check_pattern(p, len, 8, 43, 1 << 20, NULL));

	w[3 * SZ_4K / 8 + 1] ^= 1;
	EXPECT_EQ(-1, check_pattern(p, len, 8, 42, 1 << 20, &bad));
	EXPECT_EQ(3 * SZ_4K + 8, bad);
	/* a check at 4 KiB steps does not look at that word */
	EXPECT_EQ(0, check_pattern(p, len, SZ_4K, 42, 1 << 20, NULL));

	memset(p, 0, len);
	touch_write(p, len, SZ_4K, 7, 0);
	EXPECT_EQ(0, check_pattern(p, len, SZ_4K, 7, 0, NULL));
	EXPECT_EQ((uint64_t)0, w[1]);
	EXPECT_NE((uint64_t)0, touch_read(p, len, SZ_4K));
	EXPECT_EQ((uint64_t)0, touch_read(p + 8, len - 8, SZ_4K));
	free(p);
}

TEST(file_pattern_roundtrip)
{
	char path[] = "/tmp/dax_probe_test.XXXXXX";
	off_t bad = 0;
	uint64_t w;
	long n;
	int fd;

	fd = mkstemp(path);
	ASSERT_LE(0, fd);
	unlink(path);
	ASSERT_EQ(0, write_file_pattern(fd, 0, 2 * SZ_2M + SZ_4K, 9));
	EXPECT_EQ(0, check_file_pattern(fd, 0, 2 * SZ_2M + SZ_4K, 8, 9, NULL));
	EXPECT_EQ(0, check_file_pattern(fd, 8, 2 * SZ_2M, SZ_4K, 9, NULL));
	w = 0;
	ASSERT_EQ(8, pwrite(fd, &w, 8, SZ_2M + SZ_4K));
	EXPECT_EQ(-1, check_file_pattern(fd, 0, 2 * SZ_2M, SZ_4K, 9, &bad));
	EXPECT_EQ((off_t)(SZ_2M + SZ_4K), bad);

	/* FIEMAP arithmetic only; a tmpfs /tmp has no FIEMAP */
	n = fiemap_aligned_chunks(fd, 0, 2 * SZ_2M, SZ_2M);
	if (n < 0)
		TH_LOG("no FIEMAP here: %s", strerror(errno));
	else
		EXPECT_GE(2L, n);
	close(fd);
}

TEST(map_aligned_anonymous)
{
	const size_t len = 8 * SZ_4K;
	unsigned char vec;
	char *p;

	p = map_aligned(len, SZ_2M, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0, 3 * SZ_4K);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(3 * SZ_4K, (unsigned long)p & (SZ_2M - 1));
	p[0] = 1;
	p[len - 1] = 1;
	/* the rest of the reservation is gone on both sides */
	EXPECT_EQ(-1, mincore(p - SZ_4K, SZ_4K, &vec));
	EXPECT_EQ(ENOMEM, errno);
	EXPECT_EQ(-1, mincore(p + len, SZ_4K, &vec));
	EXPECT_EQ(ENOMEM, errno);
	munmap(p, len);

	EXPECT_EQ(MAP_FAILED, map_aligned(len, 3 * SZ_4K, PROT_READ,
					  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0,
					  0));
}

/*
 * The mincore, pagemap and child-access helpers on anonymous memory: 16
 * pages of which the first 8 are touched; a PROT_NONE page faults.
 */
TEST(residency_helpers_anonymous)
{
	const size_t len = 16 * SZ_4K;
	struct pagemap_stats pm;
	char *p;

	p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, p);
	memset(p, 1, len / 2);
	EXPECT_EQ(8L, mincore_resident(p, len));
	ASSERT_EQ(0, pagemap_scan(p, len, &pm));
	EXPECT_EQ(8UL, pm.present);
	EXPECT_EQ(0UL, pm.file);
	EXPECT_EQ(0, smaps_read_all(2));

	EXPECT_EQ(0, access_in_child(p + len - 1, 1));
	EXPECT_EQ(0, p[len - 1]);	/* the child's copy, not ours */
	ASSERT_EQ(0, mprotect(p, SZ_4K, PROT_NONE));
	EXPECT_EQ(SIGSEGV, access_in_child(p, 0));
	munmap(p, len);
}

/* The probe itself: 64 anonymous 4 KiB write faults count as 64. */
TEST(fault_count_anonymous_4k)
{
	const size_t len = 64 * SZ_4K;
	struct fault_count fc;
	long calib, got;
	char *p;

	p = map_aligned(len, SZ_2M, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0, 0);
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, madvise(p, len, MADV_NOHUGEPAGE));
	calib = calibrate_minflt();
	EXPECT_LE(0L, calib);
	fault_begin(&fc, calib);
	touch_write(p, len, SZ_4K, 1, 0);
	got = fault_end(&fc);
	TH_LOG("%ld faults (%ld minor, %ld major, calibration %ld)", got,
	       fc.min, fc.maj, calib);
	EXPECT_LE(64L, got);
	EXPECT_GE(66L, got);
	/* touching them again costs nothing */
	fault_begin(&fc, calib);
	touch_write(p, len, SZ_4K, 2, 0);
	EXPECT_GE(2L, fault_end(&fc));
	munmap(p, len);
}

TEST(mount_of_proc)
{
	char type[64] = "";
	int dax = -1;

	ASSERT_EQ(0, mount_of("/proc", type, sizeof(type), &dax));
	EXPECT_STREQ("proc", type);
	EXPECT_EQ(0, dax);
	EXPECT_EQ(-1, mount_of("/proc/self", type, sizeof(type), &dax));
	EXPECT_EQ(-1, mount_of("/nonexistent/hugedax", type, sizeof(type),
			       &dax));
}

TEST_HARNESS_MAIN
