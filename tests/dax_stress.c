// SPDX-License-Identifier: GPL-2.0
/*
 * dax_stress - seeded, model-based stress of DAX file mappings, after fsx.
 *
 * One file (or a device-dax device) and a model of its contents: a sorted
 * list of extents, each saying which write generation wrote it.  The byte
 * at file offset x of generation g is a byte of pattern_at(g, x + delta)
 * (delta follows data moved by collapse/insert range); it is never zero and
 * depends on the offset, so a page-table entry pointing at the wrong place,
 * stale data and a lost write all differ from the model.  Bytes outside
 * every extent are zero (holes); device-dax starts "unknown" (not checked).
 *
 * Random operations: mappings at 4 KiB, 2 MiB and 1 GiB alignment (also
 * MAP_SYNC), writes and reads through them, pread/pwrite, O_DIRECT,
 * truncate, fallocate (allocate, punch, zero, collapse, insert), fork with
 * a write in the child, mprotect, mremap, partial munmap, MADV_DONTNEED,
 * msync, and threads faulting one range together.  The range an operation
 * touched is checked after it (through another path where there is one),
 * the whole file every -c operations and at the end.  On a mismatch it
 * prints the seed, the first differing offsets and the last operations,
 * and fails.  Device-dax gets the mapping operations only, at its 1 GiB
 * alignment; it takes MAP_SYNC, and msync(MS_SYNC) is EINVAL there (no
 * fsync method, stock 6.1 too).  MAP_SYNC is expected to work on DAX files
 * of ext4 and xfs and to fail with EOPNOTSUPP elsewhere (ext2, non-DAX).
 *
 * usage: dax_stress [-s seed] [-n ops] [-S max size] [-c check every]
 *                   [-t threads] [-P] [-K] [-T] [-X op] PATH
 *   -P  xfs: pad the allocation so the file starts on a 1 GiB boundary of
 *       the device (until the allocator aligns large files itself)
 *   -K  keep the first GiB: no truncate below it, no punch, zero, collapse
 *       or insert in it, so 1 GiB mappings of it can stay PUDs
 *   -T  count fs_dax PMD/PUD fault tracepoints and sample the page table
 *       dump (guest only): shows which page sizes the run exercised
 *   -X  negative control: change a byte behind the model's back at that
 *       operation (or the first one after it with a mapping); the test
 *       passes only if the run then fails
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/falloc.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>

#include "dax_probe.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"

#define GEN_UNKNOWN	UINT32_MAX
#define MAXMAP		6
#define MAXIO		(8 * SZ_1M)	/* longest random length */
#define BUFLEN		(MAXIO + 2 * SZ_2M)	/* rounded out to 2 MiB */
#define LOGLEN		256
#define NMAXTHREADS	8

static struct {
	uint64_t seed;
	unsigned long ops;
	uint64_t maxsize;
	unsigned long check_every;
	int threads;
	int pad;
	int keep;		/* -K: no truncate/punch/zero/shift below 1 GiB */
	int trace;
	unsigned long inject;	/* -X: corrupt one byte at this op (+1) */
	const char *path;
} opt = {
	.seed = 1, .ops = 10000, .maxsize = 5 * SZ_1G / 2,
	.check_every = 2000, .threads = 3,
};

/* ---- log and failure ---- */

static char oplog[LOGLEN][160];
static unsigned long nlog, opno;

static void logop(const char *fmt, ...)
{
	char *s = oplog[nlog++ % LOGLEN];
	va_list ap;
	int n;

	n = snprintf(s, sizeof(oplog[0]), "#%lu ", opno);
	va_start(ap, fmt);
	vsnprintf(s + n, sizeof(oplog[0]) - n, fmt, ap);
	va_end(ap);
}

static void dump_log(void)
{
	unsigned long i = nlog > LOGLEN ? nlog - LOGLEN : 0;

	fprintf(stderr, "# seed %" PRIu64 ", last %lu log lines (repeat: dax_stress -s %" PRIu64 " -n %lu -S %" PRIu64 " -c %lu -t %d%s%s %s):\n",
		opt.seed, nlog - i, opt.seed, opno + 1, opt.maxsize,
		opt.check_every, opt.threads, opt.pad ? " -P" : "",
		opt.keep ? " -K" : "", opt.path);
	for (; i < nlog; i++)
		fprintf(stderr, "#   %s\n", oplog[i % LOGLEN]);
}

static void __attribute__((noreturn, format(printf, 1, 2))) fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "# FAIL seed %" PRIu64 " op %lu: ", opt.seed, opno);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	dump_log();
	exit(1);
}

static void on_signal(int sig)
{
	fprintf(stderr, "# FAIL seed %" PRIu64 " op %lu: signal %d (%s)\n",
		opt.seed, opno, sig, strsignal(sig));
	dump_log();
	_exit(1);
}

/* ---- random numbers ---- */

static uint64_t rng_state;

static uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t rnd(void)
{
	rng_state += 0x9e3779b97f4a7c15ULL;
	return mix64(rng_state);
}

static uint64_t below(uint64_t n)
{
	return n ? rnd() % n : 0;
}

static uint64_t min64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static uint64_t max64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/* ---- data pattern ---- */

static uint64_t gen_key(uint32_t gen)
{
	return mix64(opt.seed * 0xd1b54a32d192ed03ULL + gen);
}

/* every byte non-zero; position and generation dependent */
static inline uint64_t pat_word(uint64_t key, uint64_t x)
{
	return (((x >> 3) * 0x9e3779b97f4a7c15ULL) ^ key) | 0x0101010101010101ULL;
}

static inline uint8_t pat_byte(uint64_t key, uint64_t x)
{
	return pat_word(key, x) >> (8 * (x & 7));
}

/* p[0, len) = the bytes of generation gen at file offsets x + delta... */
static void pat_fill(uint8_t *p, uint64_t x, uint64_t len, uint32_t gen,
		     uint64_t delta)
{
	uint64_t key = gen_key(gen), y = x + delta, i = 0, w;

	for (; i < len && ((y + i) & 7); i++)
		p[i] = pat_byte(key, y + i);
	for (; i + 8 <= len; i += 8) {
		w = pat_word(key, y + i);
		memcpy(p + i, &w, 8);
	}
	for (; i < len; i++)
		p[i] = pat_byte(key, y + i);
}

/* 0 if p[0, len) holds generation gen (0: zeros) at x + delta */
static int pat_cmp(const uint8_t *p, uint64_t x, uint64_t len, uint32_t gen,
		   uint64_t delta)
{
	uint64_t key = gen_key(gen), y = x + delta, i = 0, w;

	if (gen == 0) {
		for (; i < len && ((uintptr_t)(p + i) & 7); i++)
			if (p[i])
				return -1;
		for (; i + 8 <= len; i += 8)
			if (*(const uint64_t *)(p + i))
				return -1;
		for (; i < len; i++)
			if (p[i])
				return -1;
		return 0;
	}
	for (; i < len && ((y + i) & 7); i++)
		if (p[i] != pat_byte(key, y + i))
			return -1;
	for (; i + 8 <= len; i += 8) {
		memcpy(&w, p + i, 8);
		if (w != pat_word(key, y + i))
			return -1;
	}
	for (; i < len; i++)
		if (p[i] != pat_byte(key, y + i))
			return -1;
	return 0;
}

/* ---- the model: sorted, disjoint extents; the rest is zero ---- */

struct ext {
	uint64_t start, end, delta;
	uint32_t gen;
};

static struct ext *ev;
static size_t en, ecap;
static uint64_t msize;		/* file size */
static uint32_t lastgen;

/* index of the first extent that ends after off */
static size_t ext_find(uint64_t off)
{
	size_t lo = 0, hi = en;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (ev[mid].end <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void ext_insert(size_t i, struct ext e)
{
	if (en == ecap) {
		ecap = ecap ? 2 * ecap : 1024;
		ev = realloc(ev, ecap * sizeof(*ev));
		if (!ev)
			fail("out of memory for the model");
	}
	memmove(ev + i + 1, ev + i, (en - i) * sizeof(*ev));
	ev[i] = e;
	en++;
}

/* split the extent containing off (if any) so that one starts at off */
static void ext_split(uint64_t off)
{
	size_t i = ext_find(off);
	struct ext t;

	if (i < en && ev[i].start < off) {
		t = ev[i];
		ev[i].end = off;
		t.start = off;
		ext_insert(i + 1, t);
	}
}

/* forget [start, end): it reads as zeros */
static void model_zero(uint64_t start, uint64_t end)
{
	size_t i, j;

	if (start >= end)
		return;
	ext_split(start);
	ext_split(end);
	i = ext_find(start);
	for (j = i; j < en && ev[j].end <= end; j++)
		;
	memmove(ev + i, ev + j, (en - j) * sizeof(*ev));
	en -= j - i;
}

static void model_set(uint64_t start, uint64_t end, uint32_t gen)
{
	struct ext e = { start, end, 0, gen };

	model_zero(start, end);
	if (gen)
		ext_insert(ext_find(start), e);
}

static void model_truncate(uint64_t size)
{
	model_zero(size, max64(size, msize));
	msize = size;
}

static void model_collapse(uint64_t off, uint64_t len)
{
	size_t i;

	model_zero(off, off + len);
	for (i = ext_find(off); i < en; i++) {
		ev[i].start -= len;
		ev[i].end -= len;
		ev[i].delta += len;
	}
	msize -= len;
}

static void model_insert(uint64_t off, uint64_t len)
{
	size_t i;

	ext_split(off);
	for (i = ext_find(off); i < en; i++) {
		ev[i].start += len;
		ev[i].end += len;
		ev[i].delta -= len;
	}
	msize += len;
}

/* what the model says about file offset x: generation and delta */
static uint32_t model_at(uint64_t x, uint64_t *delta)
{
	size_t i = ext_find(x);

	*delta = 0;
	if (i < en && ev[i].start <= x) {
		*delta = ev[i].delta;
		return ev[i].gen;
	}
	return 0;
}

static void diagnose(const uint8_t *p, uint64_t off, uint64_t len);

static void report_mismatch(const uint8_t *p, uint64_t off, uint64_t len,
			    const char *via)
{
	uint64_t x, delta, nbad = 0;
	uint32_t gen;
	uint8_t want;

	fprintf(stderr, "# mismatch in [%#" PRIx64 ", %#" PRIx64 ") read %s (file size %#" PRIx64 "):\n",
		off, off + len, via, msize);
	for (x = off; x < off + len; x++) {
		gen = model_at(x, &delta);
		if (gen == GEN_UNKNOWN)
			continue;
		want = gen ? pat_byte(gen_key(gen), x + delta) : 0;
		if (p[x - off] == want)
			continue;
		if (nbad++ < 8)
			fprintf(stderr, "#   offset %#" PRIx64 ": %#04x, want %#04x (generation %" PRIu32 ", delta %#" PRIx64 ")\n",
				x, p[x - off], want, gen, delta);
	}
	fprintf(stderr, "#   %" PRIu64 " bytes differ\n", nbad);
	diagnose(p, off, len);
	fail("data mismatch read %s at [%#" PRIx64 ", %#" PRIx64 ")", via, off,
	     off + len);
}

/* p[0, len) holds file range [off, off + len): compare with the model */
static int model_cmp(const uint8_t *p, uint64_t off, uint64_t len)
{
	uint64_t pos = off, end = off + len, segend, delta;
	size_t i = ext_find(off);
	uint32_t gen;

	while (pos < end) {
		if (i < en && ev[i].start <= pos) {
			gen = ev[i].gen;
			delta = ev[i].delta;
			segend = min64(ev[i].end, end);
			i++;
		} else {
			gen = 0;
			delta = 0;
			segend = i < en ? min64(ev[i].start, end) : end;
		}
		if (gen != GEN_UNKNOWN &&
		    pat_cmp(p + (pos - off), pos, segend - pos, gen, delta))
			return -1;
		pos = segend;
	}
	return 0;
}

static void check_mem(const uint8_t *p, uint64_t off, uint64_t len,
		      const char *via)
{
	if (model_cmp(p, off, len))
		report_mismatch(p, off, len, via);
}

/* ---- the object under test ---- */

struct map {
	uint8_t *addr;
	uint64_t len, off;
	int sync;
};

static int fd = -1, dfd = -1;	/* dfd: O_DIRECT, or -1 */
static int devdax, sync_ok, can_falloc = 1;
static struct map maps[MAXMAP];
static int nmaps;
static uint8_t *buf;		/* BUFLEN bytes, 2 MiB aligned */
static uint64_t nsync_mapped, nsync_refused;

static const char *const trace_events[] = {
	"fs_dax/dax_pmd_fault_done",
	"fs_dax/dax_pud_fault_done",
	NULL,
};
static long tr_pmd_ok, tr_pmd_fb, tr_pud_ok, tr_pud_fb;
/* the fallback reasons of the fs_dax fault-done events, where the kernel has them */
static const char *const reasons[] = {
	"misaligned_address", "misaligned_offset", "vma_too_small",
	"beyond_eof", "cow", "extent", "pfn", "conflict", "hole", "disabled",
};
#define NREASONS	(sizeof(reasons) / sizeof(reasons[0]))
static long tr_pmd_why[NREASONS], tr_pud_why[NREASONS];
static struct ptdump_sizes pt_max;

static void check_file(uint64_t off, uint64_t len)
{
	uint64_t done = 0, n;
	ssize_t r;

	if (devdax)
		return;
	off = min64(off, msize);
	len = min64(len, msize - off);
	while (done < len) {
		n = min64(len - done, MAXIO);
		r = pread(fd, buf, n, off + done);
		if (r != (ssize_t)n)
			fail("pread(%#" PRIx64 ", %#" PRIx64 ") = %zd (%s), file size %#" PRIx64,
			     off + done, n, r, r < 0 ? strerror(errno) : "short",
			     msize);
		check_mem(buf, off + done, n, "with pread");
		done += n;
	}
}

/*
 * After a mismatch: what pread and every mapping say about the first bad
 * byte, and how the page tables map it there.
 */
static void diagnose(const uint8_t *p, uint64_t off, uint64_t len)
{
	uint64_t x, delta, a;
	struct ptdump_sizes sz;
	uint32_t gen;
	uint8_t want, b;
	int i;

	for (x = off; x < off + len; x++) {
		gen = model_at(x, &delta);
		want = gen ? pat_byte(gen_key(gen), x + delta) : 0;
		if (gen != GEN_UNKNOWN && p[x - off] != want)
			break;
	}
	if (x == off + len)
		return;
	if (!devdax && pread(fd, &b, 1, x) == 1)
		fprintf(stderr, "#   pread at %#" PRIx64 ": %#04x\n", x, b);
	for (i = 0; i < nmaps; i++) {
		if (x < maps[i].off || x >= maps[i].off + maps[i].len)
			continue;
		a = (uintptr_t)maps[i].addr + (x - maps[i].off);
		memset(&sz, 0, sizeof(sz));
		ptdump_levels(a & ~(SZ_4K - 1), SZ_4K, &sz);
		fprintf(stderr, "#   map %d (%p, file %#" PRIx64 "+%#" PRIx64 "%s): %#04x, page table: %s\n",
			i, maps[i].addr, maps[i].off, maps[i].len,
			maps[i].sync ? ", MAP_SYNC" : "",
			*(volatile uint8_t *)a, sz.pud ? "PUD" : sz.pmd ? "PMD" :
			sz.pte ? "PTE" : "not present (or no dump)");
	}
}

/* the part of mapping m that lies inside the file: [*lo, *hi) */
static int map_window(const struct map *m, uint64_t *lo, uint64_t *hi)
{
	*lo = m->off;
	*hi = min64(m->off + m->len, msize);
	return *hi > *lo ? 0 : -1;
}

/* a few words of every mapping, and their 2 MiB neighbours */
static void check_maps_sampled(int nsamples)
{
	uint64_t lo, hi, x, len;
	int i, k;

	for (i = 0; i < nmaps; i++) {
		if (map_window(&maps[i], &lo, &hi))
			continue;
		for (k = 0; k < nsamples; k++) {
			x = lo + below(hi - lo);
			len = min64(64, hi - x);
			check_mem(maps[i].addr + (x - maps[i].off), x, len,
				  "through a mapping (sample)");
		}
	}
}

static uint64_t fs_size_now(void)
{
	struct stat st;

	if (fstat(fd, &st))
		fail("fstat: %s", strerror(errno));
	return st.st_size;
}

static void trace_collect(void)
{
	long a, b, c, d;
	size_t i;

	if (!opt.trace)
		return;
	a = trace_count("dax_pmd_fault_done", "NOPAGE");
	b = trace_count("dax_pmd_fault_done", "FALLBACK");
	c = trace_count("dax_pud_fault_done", "NOPAGE");
	d = trace_count("dax_pud_fault_done", "FALLBACK");
	if (a < 0 || b < 0 || c < 0 || d < 0)
		printf("# trace: events lost or unreadable\n");
	else {
		tr_pmd_ok += a;
		tr_pmd_fb += b;
		tr_pud_ok += c;
		tr_pud_fb += d;
	}
	for (i = 0; i < NREASONS; i++) {
		a = trace_count_reason("dax_pmd_fault_done", "FALLBACK", reasons[i]);
		c = trace_count_reason("dax_pud_fault_done", "FALLBACK", reasons[i]);
		tr_pmd_why[i] += a > 0 ? a : 0;
		tr_pud_why[i] += c > 0 ? c : 0;
	}
	if (trace_start(trace_events))
		printf("# trace: cannot restart: %s\n", strerror(errno));
}

static void ptdump_sample(void)
{
	struct ptdump_sizes s, sum = { 0 };
	int i;

	if (!opt.trace)
		return;
	for (i = 0; i < nmaps; i++) {
		memset(&s, 0, sizeof(s));
		if (ptdump_levels((unsigned long)maps[i].addr, maps[i].len, &s))
			return;
		sum.pte += s.pte;
		sum.pmd += s.pmd;
		sum.pud += s.pud;
	}
	pt_max.pte = max64(pt_max.pte, sum.pte);
	pt_max.pmd = max64(pt_max.pmd, sum.pmd);
	pt_max.pud = max64(pt_max.pud, sum.pud);
}

/* the whole file, with pread and through a temporary mapping */
static void check_all(void)
{
	uint64_t len, off;
	uint8_t *p;
	int i;

	logop("check all (size %#" PRIx64 ")", msize);
	ptdump_sample();
	if (!devdax) {
		if (fs_size_now() != msize)
			fail("file size %#" PRIx64 ", model %#" PRIx64,
			     fs_size_now(), msize);
		check_file(0, msize);
	} else {
		/* device-dax: the parts the run wrote, through a new mapping */
		p = map_aligned(msize, SZ_1G, PROT_READ, MAP_SHARED, fd, 0, 0);
		if (p == MAP_FAILED)
			fail("mmap of the whole device: %s", strerror(errno));
		for (i = 0; (size_t)i < en; i++) {
			if (ev[i].gen == GEN_UNKNOWN)
				continue;
			off = ev[i].start;
			len = ev[i].end - off;
			check_mem(p + off, off, len, "through a new mapping");
		}
		munmap(p, msize);
	}
	for (i = 0; i < nmaps; i++) {
		uint64_t lo, hi;

		if (map_window(&maps[i], &lo, &hi))
			continue;
		/* one word per 64 KiB, at a random place in it */
		for (off = lo; off < hi; off += 0x10000) {
			uint64_t x = min64(off + below(0x10000), hi - 1);

			check_mem(maps[i].addr + (x - maps[i].off), x, 1,
				  "through a mapping (scan)");
		}
	}
	trace_collect();
}

/* ---- ranges ---- */

static uint64_t rnd_len(uint64_t max)
{
	uint64_t c = below(100), l;

	/* mostly small: under emulation the bytes moved set the rate */
	if (c < 50)
		l = 1 + below(64);
	else if (c < 85)
		l = 1 + below(0x4000);
	else if (c < 97)
		l = 1 + below(SZ_1M / 2);
	else
		l = 1 + below(MAXIO);
	return min64(l, max);
}

/* a byte range inside [lo, hi); sometimes whole 2 MiB pages */
static int pick_range(uint64_t lo, uint64_t hi, uint64_t *off, uint64_t *len)
{
	uint64_t a, b;

	if (hi <= lo)
		return -1;
	*len = rnd_len(hi - lo);
	*off = lo + below(hi - lo - *len + 1);
	if (!devdax && below(20) == 0) {
		a = max64(*off & ~(SZ_2M - 1), lo);
		b = min64((*off + *len + SZ_2M - 1) & ~(SZ_2M - 1), hi);
		*off = a;
		*len = b - a;
	}
	return 0;
}

static uint64_t page_down(uint64_t x, uint64_t a)
{
	return x & ~(a - 1);
}

/* a page-aligned sub-range [*s, *e) of mapping m, in units of gran */
static int pick_sub(const struct map *m, uint64_t gran, uint64_t *s, uint64_t *e)
{
	uint64_t n = m->len / gran, a, b;

	if (!n)
		return -1;
	a = below(n);
	b = a + 1 + below(min64(n - a, below(3) ? 16 : n - a));
	*s = a * gran;
	*e = b * gran;
	return 0;
}

/* ---- operations ---- */

static void unmap_slot(int i)
{
	munmap(maps[i].addr, maps[i].len);
	maps[i] = maps[--nmaps];
}

static void op_map(void)
{
	uint64_t align, misalign = 0, off, len, room;
	int flags = MAP_SHARED, sync = 0, c;
	struct map *m;
	void *p;

	if (nmaps == MAXMAP)
		unmap_slot(below(nmaps));
	room = devdax ? msize : opt.maxsize;
	c = below(10);
	if (devdax || (c < 3 && room >= SZ_1G)) {
		align = SZ_1G;
		off = below(room / SZ_1G) * SZ_1G;
		len = (1 + below((room - off) / SZ_1G)) * SZ_1G;
		if (!devdax)
			len = min64(len, 2 * SZ_1G);
	} else if (c < 7) {
		align = SZ_2M;
		off = below(room / SZ_2M) * SZ_2M;
		len = (1 + below(64)) * SZ_2M;
	} else {
		/* 4 KiB: an address 4 KiB off any 2 MiB boundary */
		align = SZ_2M;
		misalign = (1 + below(511)) * SZ_4K;
		off = below(room / SZ_4K) * SZ_4K;
		len = (1 + below(4096)) * SZ_4K;
	}
	if (below(5) == 0) {
		flags = MAP_SHARED_VALIDATE | MAP_SYNC;
		sync = 1;
	}
	logop("mmap off %#" PRIx64 " len %#" PRIx64 " align %#" PRIx64 "+%#" PRIx64 "%s",
	      off, len, align, misalign, sync ? " MAP_SYNC" : "");
	p = map_aligned(len, align, PROT_READ | PROT_WRITE, flags, fd, off,
			misalign);
	if (sync && !sync_ok) {
		if (p != MAP_FAILED)
			fail("MAP_SYNC mapping succeeded where it is not supported");
		if (errno != EOPNOTSUPP)
			fail("MAP_SYNC: %s, want EOPNOTSUPP", strerror(errno));
		nsync_refused++;
		return;
	}
	if (p == MAP_FAILED)
		fail("mmap: %s", strerror(errno));
	nsync_mapped += sync;
	m = &maps[nmaps++];
	m->addr = p;
	m->off = off;
	m->len = len;
	m->sync = sync;
}

static int pick_map(void)
{
	if (!nmaps)
		op_map();
	return nmaps ? (int)below(nmaps) : -1;
}

static void op_mwrite(void)
{
	uint64_t lo, hi, off, len;
	int i = pick_map();

	if (i < 0 || map_window(&maps[i], &lo, &hi) ||
	    pick_range(lo, hi, &off, &len))
		return;
	lastgen++;
	logop("map write %d [%#" PRIx64 ", +%#" PRIx64 ") gen %" PRIu32, i, off,
	      len, lastgen);
	pat_fill(maps[i].addr + (off - maps[i].off), off, len, lastgen, 0);
	model_set(off, off + len, lastgen);
	if (devdax)
		check_mem(maps[i].addr + (off - maps[i].off), off, len,
			  "through the mapping written");
	else
		check_file(off, len);
	check_maps_sampled(2);
}

static void op_mread(void)
{
	uint64_t lo, hi, off, len;
	int i = pick_map();

	if (i < 0 || map_window(&maps[i], &lo, &hi) ||
	    pick_range(lo, hi, &off, &len))
		return;
	logop("map read %d [%#" PRIx64 ", +%#" PRIx64 ")", i, off, len);
	check_mem(maps[i].addr + (off - maps[i].off), off, len,
		  "through a mapping");
}

/* check [off, off + len) through every mapping that covers it */
static void check_through_maps(uint64_t off, uint64_t len)
{
	uint64_t lo, hi, a, b;
	int i;

	for (i = 0; i < nmaps; i++) {
		if (map_window(&maps[i], &lo, &hi))
			continue;
		a = max64(lo, off);
		b = min64(hi, off + len);
		if (a < b)
			check_mem(maps[i].addr + (a - maps[i].off), a, b - a,
				  "through a mapping after I/O");
	}
}

static void op_pwrite(int direct)
{
	uint64_t off, len, end;
	int f = direct ? dfd : fd;
	ssize_t r;

	if (direct && f < 0)
		return;
	end = min64(msize + SZ_2M, opt.maxsize);
	if (pick_range(0, end, &off, &len))
		return;
	if (direct) {
		off = page_down(off, SZ_4K);
		len = (len + SZ_4K - 1) & ~(SZ_4K - 1);
		if (off + len > opt.maxsize)
			return;
	}
	lastgen++;
	logop("%s [%#" PRIx64 ", +%#" PRIx64 ") gen %" PRIu32,
	      direct ? "O_DIRECT write" : "pwrite", off, len, lastgen);
	pat_fill(buf, off, len, lastgen, 0);
	r = pwrite(f, buf, len, off);
	if (r != (ssize_t)len)
		fail("pwrite: %zd (%s)", r, r < 0 ? strerror(errno) : "short");
	if (off > msize)
		model_zero(msize, off);
	msize = max64(msize, off + len);
	model_set(off, off + len, lastgen);
	check_through_maps(off, len);
	if (!nmaps || below(2))
		check_file(off, len);
}

static void op_pread(int direct)
{
	uint64_t off, len;
	int f = direct ? dfd : fd;
	ssize_t r;

	if ((direct && f < 0) || pick_range(0, msize, &off, &len))
		return;
	if (direct) {
		off = page_down(off, SZ_4K);
		len = (len + SZ_4K - 1) & ~(SZ_4K - 1);
	}
	logop("%s [%#" PRIx64 ", +%#" PRIx64 ")",
	      direct ? "O_DIRECT read" : "pread", off, len);
	r = pread(f, buf, len, off);
	if (r != (ssize_t)min64(len, msize - off))
		fail("pread: %zd (%s)", r, r < 0 ? strerror(errno) : "short");
	check_mem(buf, off, r, direct ? "with O_DIRECT" : "with pread");
}

static void op_truncate(void)
{
	uint64_t old = msize, size;

	switch (below(4)) {
	case 0:		/* anywhere */
		size = below(opt.maxsize + 1);
		break;
	case 1:		/* a little */
		size = msize + below(2 * SZ_2M) - min64(msize, SZ_2M);
		break;
	case 2:		/* a page or huge page boundary */
		size = page_down(below(opt.maxsize + 1),
				 below(2) ? SZ_4K : SZ_2M);
		break;
	default:	/* back up to the maximum */
		size = opt.maxsize;
		break;
	}
	size = min64(size, opt.maxsize);
	if (opt.keep)
		size = max64(size, min64(SZ_1G, msize));
	logop("truncate %#" PRIx64 " -> %#" PRIx64, old, size);
	if (ftruncate(fd, size))
		fail("ftruncate: %s", strerror(errno));
	model_truncate(size);
	/* around the old and the new end of file */
	old = min64(old, size);
	check_file(old > SZ_2M ? page_down(old, SZ_4K) - SZ_2M : 0, 3 * SZ_2M);
	check_through_maps(page_down(size, SZ_2M), SZ_2M);
	check_maps_sampled(2);
}

static const char *falloc_name(int mode)
{
	switch (mode) {
	case 0: return "allocate";
	case FALLOC_FL_KEEP_SIZE: return "allocate keep-size";
	case FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE: return "punch";
	case FALLOC_FL_ZERO_RANGE: return "zero";
	case FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE: return "zero keep-size";
	case FALLOC_FL_COLLAPSE_RANGE: return "collapse";
	case FALLOC_FL_INSERT_RANGE: return "insert";
	}
	return "?";
}

static unsigned int falloc_unsupported;	/* bit per kind */

static void op_falloc(void)
{
	static const int modes[] = {
		0, FALLOC_FL_KEEP_SIZE,
		FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
		FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
		FALLOC_FL_ZERO_RANGE, FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE,
		FALLOC_FL_COLLAPSE_RANGE, FALLOC_FL_INSERT_RANGE,
	};
	unsigned int k = below(sizeof(modes) / sizeof(modes[0]));
	int mode = modes[k], shift;
	uint64_t off, len, end;

	if (!can_falloc || (falloc_unsupported & (1u << k)))
		return;
	shift = mode == FALLOC_FL_COLLAPSE_RANGE || mode == FALLOC_FL_INSERT_RANGE;
	end = mode & FALLOC_FL_KEEP_SIZE ? msize :
	      min64(msize + SZ_2M, opt.maxsize);
	if (pick_range(opt.keep && mode & ~FALLOC_FL_KEEP_SIZE ? SZ_1G : 0,
		       end, &off, &len))
		return;
	if (shift) {
		/* whole blocks; collapse must end before EOF */
		off = page_down(off, SZ_4K);
		len = (len + SZ_4K - 1) & ~(SZ_4K - 1);
		if (mode == FALLOC_FL_COLLAPSE_RANGE ? off + len >= msize :
		    off >= msize || msize + len > opt.maxsize)
			return;
	}
	logop("fallocate %s [%#" PRIx64 ", +%#" PRIx64 ")", falloc_name(mode),
	      off, len);
	if (fallocate(fd, mode, off, len)) {
		if (errno == EOPNOTSUPP) {
			falloc_unsupported |= 1u << k;
			printf("# fallocate %s: EOPNOTSUPP\n", falloc_name(mode));
			if (mode == 0)
				can_falloc = 0;
			return;
		}
		fail("fallocate %s: %s", falloc_name(mode), strerror(errno));
	}
	switch (mode) {
	case FALLOC_FL_COLLAPSE_RANGE:
		model_collapse(off, len);
		check_file(off, 2 * SZ_2M);
		check_maps_sampled(8);
		return;
	case FALLOC_FL_INSERT_RANGE:
		model_insert(off, len);
		check_file(off, len + SZ_2M);
		check_maps_sampled(8);
		return;
	case FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE:
	case FALLOC_FL_ZERO_RANGE:
	case FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE:
		model_zero(off, min64(off + len, max64(msize, off + len)));
		break;
	}
	if (!(mode & FALLOC_FL_KEEP_SIZE) && off + len > msize) {
		model_zero(msize, off + len);
		msize = off + len;
	}
	check_file(off, len);
	check_through_maps(off, min64(len, 4 * SZ_2M));
}

static void op_fork(void)
{
	uint64_t lo, hi, off, len;
	int i = pick_map(), status;
	uint8_t *p;
	pid_t pid;

	if (i < 0 || map_window(&maps[i], &lo, &hi) ||
	    pick_range(lo, hi, &off, &len))
		return;
	lastgen++;
	logop("fork, child writes map %d [%#" PRIx64 ", +%#" PRIx64 ") gen %" PRIu32,
	      i, off, len, lastgen);
	p = maps[i].addr + (off - maps[i].off);
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		fail("fork: %s", strerror(errno));
	if (!pid) {
		/* the child first sees what the parent sees */
		if (model_cmp(p, off, len))
			_exit(2);
		pat_fill(p, off, len, lastgen, 0);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid)
		fail("waitpid: %s", strerror(errno));
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		fail("child: status %#x (2: it read other data than the model)",
		     status);
	model_set(off, off + len, lastgen);
	check_mem(p, off, len, "in the parent after the child wrote");
	check_file(off, len);
}

static void op_mprotect(void)
{
	uint64_t s, e, lo, hi, off, len;
	int i = pick_map();
	uint8_t *a;

	if (i < 0 || pick_sub(&maps[i], devdax ? SZ_1G : below(2) ? SZ_4K : SZ_2M,
			      &s, &e))
		return;
	a = maps[i].addr;
	logop("mprotect map %d [%#" PRIx64 ", %#" PRIx64 ") read-only, then back",
	      i, s, e);
	if (mprotect(a + s, e - s, PROT_READ))
		fail("mprotect: %s", strerror(errno));
	check_maps_sampled(4);
	/* data written elsewhere must show through the read-only part */
	if (!devdax && !map_window(&maps[i], &lo, &hi) &&
	    !pick_range(max64(lo, maps[i].off + s), min64(hi, maps[i].off + e),
			&off, &len)) {
		lastgen++;
		logop("  pwrite [%#" PRIx64 ", +%#" PRIx64 ") gen %" PRIu32, off,
		      len, lastgen);
		pat_fill(buf, off, len, lastgen, 0);
		if (pwrite(fd, buf, len, off) != (ssize_t)len)
			fail("pwrite: %s", strerror(errno));
		model_set(off, off + len, lastgen);
		check_mem(a + (off - maps[i].off), off, len,
			  "through a read-only mapping");
	}
	if (mprotect(a + s, e - s, PROT_READ | PROT_WRITE))
		fail("mprotect back: %s", strerror(errno));
	/* and write into it again: write-protect faults */
	if (!map_window(&maps[i], &lo, &hi) &&
	    !pick_range(max64(lo, maps[i].off + s), min64(hi, maps[i].off + e),
			&off, &len)) {
		lastgen++;
		logop("  map write [%#" PRIx64 ", +%#" PRIx64 ") gen %" PRIu32, off,
		      len, lastgen);
		pat_fill(a + (off - maps[i].off), off, len, lastgen, 0);
		model_set(off, off + len, lastgen);
		check_file(off, len);
	}
}

static void op_mremap(void)
{
	uint64_t newlen, align, mis;
	int i = pick_map();
	struct map *m;
	void *t, *p;

	if (i < 0)
		return;
	m = &maps[i];
	newlen = m->len;
	if (!devdax) {
		switch (below(3)) {
		case 0:
			newlen = m->len + (1 + below(8)) * (below(2) ? SZ_4K : SZ_2M);
			break;
		case 1:
			if (m->len > SZ_4K)
				newlen = SZ_4K * (1 + below(m->len / SZ_4K - 1));
			break;
		}
	}
	/* keep huge alignment mostly; sometimes move it 4 KiB off */
	align = m->len >= SZ_1G && !(m->off % SZ_1G) ? SZ_1G : SZ_2M;
	mis = (uintptr_t)m->addr % align;
	if (!devdax && below(4) == 0)
		mis = (mis + SZ_4K) % align;
	logop("mremap map %d len %#" PRIx64 " -> %#" PRIx64 " align %#" PRIx64 "+%#" PRIx64,
	      i, m->len, newlen, align, mis);
	t = map_aligned(newlen, align, PROT_NONE,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0, mis);
	if (t == MAP_FAILED)
		fail("reserve: %s", strerror(errno));
	p = mremap(m->addr, m->len, newlen, MREMAP_MAYMOVE | MREMAP_FIXED, t);
	if (p == MAP_FAILED)
		fail("mremap: %s", strerror(errno));
	m->addr = p;
	m->len = newlen;
	check_maps_sampled(8);
}

static void op_munmap(void)
{
	uint64_t s, e, gran = devdax ? SZ_1G : below(2) ? SZ_4K : SZ_2M;
	int i = pick_map();
	struct map *m, t;

	if (i < 0 || pick_sub(&maps[i], gran, &s, &e))
		return;
	m = &maps[i];
	logop("munmap map %d [%#" PRIx64 ", %#" PRIx64 ") of %#" PRIx64, i, s,
	      e, m->len);
	if (munmap(m->addr + s, e - s))
		fail("munmap: %s", strerror(errno));
	t = *m;
	if (s == 0 && e >= m->len) {
		maps[i] = maps[--nmaps];
	} else if (s == 0) {
		m->addr += e;
		m->off += e;
		m->len -= e;
	} else {
		m->len = s;
		if (e < t.len) {
			if (nmaps < MAXMAP) {
				m = &maps[nmaps++];
				m->addr = t.addr + e;
				m->off = t.off + e;
				m->len = t.len - e;
				m->sync = t.sync;
			} else {
				munmap(t.addr + e, t.len - e);
			}
		}
	}
	check_maps_sampled(8);
}

static void op_dontneed(void)
{
	uint64_t s, e, lo, hi;
	int i = pick_map();

	if (i < 0 || pick_sub(&maps[i], below(2) ? SZ_4K : SZ_2M, &s, &e))
		return;
	logop("MADV_DONTNEED map %d [%#" PRIx64 ", %#" PRIx64 ")", i, s, e);
	if (madvise(maps[i].addr + s, e - s, MADV_DONTNEED))
		fail("madvise: %s", strerror(errno));
	if (map_window(&maps[i], &lo, &hi))
		return;
	lo = max64(lo, maps[i].off + s);
	hi = min64(hi, maps[i].off + e);
	if (lo < hi)
		check_mem(maps[i].addr + (lo - maps[i].off), lo,
			  min64(hi - lo, MAXIO), "after MADV_DONTNEED");
}

static void op_msync(void)
{
	uint64_t s, e;
	int i = pick_map(), flags = below(3) ? MS_SYNC : MS_ASYNC;

	if (i < 0 || pick_sub(&maps[i], SZ_4K, &s, &e))
		return;
	if (below(4) == 0) {
		s = 0;
		e = maps[i].len;
	}
	logop("msync %s map %d [%#" PRIx64 ", %#" PRIx64 ")",
	      flags == MS_SYNC ? "MS_SYNC" : "MS_ASYNC", i, s, e);
	/* device-dax has no fsync: MS_SYNC is EINVAL there (stock 6.1 too) */
	if (devdax && flags == MS_SYNC) {
		if (!msync(maps[i].addr + s, e - s, flags) || errno != EINVAL)
			fail("msync MS_SYNC on device-dax: want EINVAL (no fsync)");
	} else if (msync(maps[i].addr + s, e - s, flags)) {
		fail("msync: %s", strerror(errno));
	}
	check_maps_sampled(8);
}

struct thr {
	pthread_t t;
	uint8_t *p;
	uint64_t off, len, start;
	uint32_t gen;
	int write, bad;
};

/* fault the range page by page from a different starting point each */
static void *thr_fn(void *arg)
{
	struct thr *t = arg;
	uint64_t x, y, n;

	for (x = 0; x < t->len; x += n) {
		y = (t->start + x) % t->len;
		n = min64(SZ_4K - (y & (SZ_4K - 1)), t->len - y);
		n = min64(n, t->len - x);
		if (t->write)
			pat_fill(t->p + y, t->off + y, n, t->gen, 0);
		else
			(void)*(volatile uint8_t *)(t->p + y);
	}
	return NULL;
}

static void op_threads(void)
{
	struct thr th[NMAXTHREADS];
	uint64_t lo, hi, off, len, s;
	int i = pick_map(), k, write = below(2);

	if (i < 0 || map_window(&maps[i], &lo, &hi) ||
	    pick_range(lo, hi, &off, &len))
		return;
	/* throw the range out of the page tables first, so all of it faults */
	s = page_down(off - maps[i].off, SZ_4K);
	if (madvise(maps[i].addr + s,
		    ((off - maps[i].off + len - s) + SZ_4K - 1) & ~(SZ_4K - 1),
		    MADV_DONTNEED))
		fail("madvise: %s", strerror(errno));
	if (write)
		lastgen++;
	logop("%d threads %s map %d [%#" PRIx64 ", +%#" PRIx64 ")%s%" PRIu32,
	      opt.threads, write ? "write" : "read", i, off, len,
	      write ? " gen " : "", write ? lastgen : 0);
	for (k = 0; k < opt.threads; k++) {
		th[k] = (struct thr){
			.p = maps[i].addr + (off - maps[i].off), .off = off,
			.len = len, .start = below(len), .gen = lastgen,
			.write = write,
		};
		if (pthread_create(&th[k].t, NULL, thr_fn, &th[k]))
			fail("pthread_create");
	}
	for (k = 0; k < opt.threads; k++)
		pthread_join(th[k].t, NULL);
	if (write)
		model_set(off, off + len, lastgen);
	check_mem(maps[i].addr + (off - maps[i].off), off, len,
		  "after threads faulted it");
	check_file(off, len);
}

/*
 * The negative control (-X): change one byte of a mapped range behind the
 * model's back (pwrite, or on device-dax a second mapping), then check the
 * range through the first mapping as usual: the run must fail here.
 */
static void inject_corruption(void)
{
	uint64_t lo, hi, x, delta;
	uint8_t b, *p, *q;
	int i = pick_map();

	if (i < 0 || map_window(&maps[i], &lo, &hi))
		return;
	x = lo + below(hi - lo);
	if (model_at(x, &delta) == GEN_UNKNOWN) {
		op_mwrite();
		return;
	}
	p = maps[i].addr + (x - maps[i].off);
	b = *p ^ 0x40;
	logop("negative control: byte at %#" PRIx64 " changed behind the model", x);
	if (devdax) {
		q = map_aligned(SZ_1G, SZ_1G, PROT_READ | PROT_WRITE, MAP_SHARED,
				fd, page_down(x, SZ_1G), 0);
		if (q == MAP_FAILED)
			fail("mmap: %s", strerror(errno));
		q[x % SZ_1G] = b;
		munmap(q, SZ_1G);
	} else if (pwrite(fd, &b, 1, x) != 1) {
		fail("pwrite: %s", strerror(errno));
	}
	check_mem(p, x, 1, "through a mapping after the injected change");
	fail("the injected change at %#" PRIx64 " went unnoticed", x);
}

/* ---- set-up ---- */

static uint64_t devdax_size(void)
{
	char path[96];
	unsigned long long sz = 0;
	struct stat st;
	FILE *f;

	if (fstat(fd, &st))
		return 0;
	snprintf(path, sizeof(path), "/sys/dev/char/%u:%u/size",
		 major(st.st_rdev), minor(st.st_rdev));
	f = fopen(path, "re");
	if (!f)
		return 0;
	if (fscanf(f, "%llu", &sz) != 1)
		sz = 0;
	fclose(f);
	return sz;
}

/* type of the file system holding path, from /proc/self/mounts */
static void fs_type(const char *path, char *type, size_t n)
{
	char real[PATH_MAX], dev[256], dir[PATH_MAX], t[64];
	size_t best = 0, l;
	FILE *f;

	snprintf(type, n, "?");
	if (!realpath(path, real))
		return;
	f = fopen("/proc/self/mounts", "re");
	if (!f)
		return;
	while (fscanf(f, "%255s %4095s %63s %*[^\n]", dev, dir, t) == 3) {
		l = strlen(dir);
		if (!strncmp(real, dir, l) && (real[l] == '/' || !real[l] ||
					       l == 1) && l >= best) {
			best = l;
			snprintf(type, n, "%s", t);
		}
	}
	fclose(f);
}

/* xfs: make the next allocation start on a 1 GiB boundary of the device */
static void pad_to_gib(void)
{
	char pad[PATH_MAX];
	uint64_t phys;
	int pfd;

	snprintf(pad, sizeof(pad), "%s.pad", opt.path);
	pfd = open(pad, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (pfd < 0 || write_file_pattern(pfd, 0, SZ_2M, 1) ||
	    fiemap_first_physical(pfd, &phys) ||
	    fallocate(pfd, 0, 0, SZ_1G - (phys & (SZ_1G - 1))))
		fail("padding to 1 GiB with %s: %s", pad, strerror(errno));
	close(pfd);
}

static void setup(void)
{
	struct stat st;
	char type[64];
	uint64_t off, n;

	if (stat(opt.path, &st) == 0 && S_ISCHR(st.st_mode)) {
		devdax = 1;
		fd = open(opt.path, O_RDWR);
		if (fd < 0)
			fail("open %s: %s", opt.path, strerror(errno));
		msize = min64(devdax_size(), opt.maxsize) & ~(SZ_1G - 1);
		if (!msize)
			fail("device-dax size unknown or below 1 GiB");
		/* old contents: not checked until written */
		model_set(0, msize, GEN_UNKNOWN);
		snprintf(type, sizeof(type), "device-dax");
		/* always synchronous; it takes MAP_SYNC (dax_fops) */
		sync_ok = 1;
	} else {
		unlink(opt.path);
		if (opt.pad)
			pad_to_gib();
		fd = open(opt.path, O_RDWR | O_CREAT | O_TRUNC, 0644);
		if (fd < 0)
			fail("open %s: %s", opt.path, strerror(errno));
		dfd = open(opt.path, O_RDWR | O_DIRECT);
		if (dfd < 0)
			printf("# O_DIRECT: %s, not used\n", strerror(errno));
		fs_type(opt.path, type, sizeof(type));
		sync_ok = (!strcmp(type, "ext4") || !strcmp(type, "xfs")) &&
			  file_is_dax(fd) == 1;
		/* start full: written data, so that huge pages can map it */
		lastgen = 1;
		for (off = 0; off < opt.maxsize; off += n) {
			n = min64(MAXIO, opt.maxsize - off);
			pat_fill(buf, off, n, lastgen, 0);
			if (pwrite(fd, buf, n, off) != (ssize_t)n)
				fail("initial pwrite: %s", strerror(errno));
		}
		model_set(0, opt.maxsize, lastgen);
		msize = opt.maxsize;
		if (opt.pad)
			printf("# 1 GiB-aligned chunks: %ld of %" PRIu64 "\n",
			       fiemap_aligned_chunks(fd, 0, msize, SZ_1G),
			       msize / SZ_1G);
	}
	printf("# %s on %s, %s, size %#" PRIx64 ", seed %" PRIu64 ", %lu operations, MAP_SYNC %s\n",
	       opt.path, type, devdax ? "device-dax" :
	       file_is_dax(fd) == 1 ? "DAX file" : "not DAX", msize, opt.seed,
	       opt.ops, sync_ok ? "expected to work" : "expected EOPNOTSUPP");
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void run(void)
{
	unsigned long kinds[20] = { 0 };
	double t0, t;
	unsigned int c;

	setvbuf(stdout, NULL, _IOLBF, 0);
	rng_state = opt.seed;
	signal(SIGBUS, on_signal);
	signal(SIGSEGV, on_signal);
	if (posix_memalign((void **)&buf, SZ_2M, BUFLEN))
		fail("out of memory");
	t0 = now();
	setup();
	t = now();
	printf("# set-up: %.1f s\n", t - t0);
	if (opt.trace && trace_start(trace_events))
		printf("# trace: %s, no tracepoint counts\n", strerror(errno));
	for (opno = 0; opno < opt.ops; opno++) {
		c = below(100);
		if (devdax)
			c = c < 40 ? 1 : c < 55 ? 2 : c < 65 ? 0 :
			    c < 72 ? 9 : c < 80 ? 10 : c < 85 ? 11 :
			    c < 90 ? 12 : c < 94 ? 13 : c < 97 ? 14 : 15;
		else
			c = c < 8 ? 0 : c < 28 ? 1 : c < 36 ? 2 :
			    c < 44 ? 3 : c < 48 ? 4 : c < 52 ? 5 : c < 56 ? 6 :
			    c < 60 ? 7 : c < 70 ? 8 : c < 73 ? 9 : c < 77 ? 10 :
			    c < 81 ? 11 : c < 85 ? 12 : c < 89 ? 13 :
			    c < 93 ? 14 : c < 97 ? 15 : 16;
		kinds[c]++;
		if (opt.inject && opno + 1 >= opt.inject)
			inject_corruption();
		switch (c) {
		case 0: op_map(); break;
		case 1: op_mwrite(); break;
		case 2: op_mread(); break;
		case 3: op_pwrite(0); break;
		case 4: op_pread(0); break;
		case 5: op_pwrite(1); break;
		case 6: op_pread(1); break;
		case 7: op_truncate(); break;
		case 8: op_falloc(); break;
		case 9: op_fork(); break;
		case 10: op_mprotect(); break;
		case 11: op_mremap(); break;
		case 12: op_munmap(); break;
		case 13: op_dontneed(); break;
		case 14: op_msync(); break;
		case 15: op_threads(); break;
		case 16: if (nmaps) unmap_slot(below(nmaps)); break;
		}
		if (opt.check_every && (opno + 1) % opt.check_every == 0)
			check_all();
	}
	check_all();
	t = now() - t;
	printf("# %lu operations in %.1f s: %.0f ops/s; %" PRIu32 " writes, %zu extents in the model, final size %#" PRIx64 "\n",
	       opt.ops, t, opt.ops / t, lastgen, en, msize);
	printf("# ops: map %lu, map write %lu, map read %lu, pwrite %lu, pread %lu, O_DIRECT w/r %lu/%lu, truncate %lu, fallocate %lu, fork %lu, mprotect %lu, mremap %lu, munmap %lu, DONTNEED %lu, msync %lu, threads %lu\n",
	       kinds[0], kinds[1], kinds[2], kinds[3], kinds[4], kinds[5],
	       kinds[6], kinds[7], kinds[8], kinds[9], kinds[10], kinds[11],
	       kinds[12], kinds[13], kinds[14], kinds[15]);
	printf("# MAP_SYNC mappings: %" PRIu64 " made, %" PRIu64 " refused (EOPNOTSUPP)\n",
	       nsync_mapped, nsync_refused);
	if (opt.trace) {
		printf("# tracepoints (this thread): PMD faults %ld NOPAGE %ld FALLBACK, PUD faults %ld NOPAGE %ld FALLBACK\n",
		       tr_pmd_ok, tr_pmd_fb, tr_pud_ok, tr_pud_fb);
		for (c = 0; c < NREASONS; c++)
			if (tr_pmd_why[c] || tr_pud_why[c])
				printf("#   fallback reason %s: PMD %ld, PUD %ld\n",
				       reasons[c], tr_pmd_why[c], tr_pud_why[c]);
		printf("# page table dump, most mapped at a full check: 4K %lu MiB, 2M %lu MiB, 1G %lu MiB\n",
		       pt_max.pte >> 20, pt_max.pmd >> 20, pt_max.pud >> 20);
		trace_stop();
	}
	fflush(NULL);
}

FIXTURE(stress) {
	int unused;
};

FIXTURE_SETUP(stress)
{
}

FIXTURE_TEARDOWN(stress)
{
}

/*
 * No time limit of its own: the guest's TIMEOUT bounds it.  With -X N
 * (negative control) the run must fail on the byte changed at operation N.
 */
TEST_F_TIMEOUT(stress, model, 7 * 86400)
{
	int status;
	pid_t pid;

	if (!opt.inject) {
		run();
		return;
	}
	fflush(NULL);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		run();
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	TH_LOG("negative control: the run with a byte changed at op %lu exited with %d (want 1: mismatch found)",
	       opt.inject, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(1, WEXITSTATUS(status));
}

static uint64_t parse_size(const char *s)
{
	char *end;
	uint64_t v = strtoull(s, &end, 0);

	switch (*end) {
	case 'G': case 'g': v <<= 10; /* fall through */
	case 'M': case 'm': v <<= 10; /* fall through */
	case 'K': case 'k': v <<= 10;
	}
	return v;
}

int main(int argc, char **argv)
{
	int c;

	while ((c = getopt(argc, argv, "s:n:S:c:t:PKTX:")) != -1) {
		switch (c) {
		case 's': opt.seed = strtoull(optarg, NULL, 0); break;
		case 'n': opt.ops = strtoul(optarg, NULL, 0); break;
		case 'S': opt.maxsize = parse_size(optarg); break;
		case 'c': opt.check_every = strtoul(optarg, NULL, 0); break;
		case 't': opt.threads = atoi(optarg); break;
		case 'P': opt.pad = 1; break;
		case 'K': opt.keep = 1; break;
		case 'T': opt.trace = 1; break;
		case 'X': opt.inject = strtoul(optarg, NULL, 0); break;
		default:
			fprintf(stderr, "usage: %s [-s seed] [-n ops] [-S max size] [-c check every] [-t threads] [-P] [-K] [-T] [-X op] PATH\n",
				argv[0]);
			return 2;
		}
	}
	if (optind != argc - 1 || opt.threads < 1 ||
	    opt.threads > NMAXTHREADS || opt.maxsize < SZ_2M) {
		fprintf(stderr, "%s: one PATH; 1..%d threads; size >= 2M\n",
			argv[0], NMAXTHREADS);
		return 2;
	}
	opt.path = argv[optind];
	opt.maxsize &= ~(SZ_4K - 1);
	return test_harness_run(argc, argv);
}
