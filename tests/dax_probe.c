// SPDX-License-Identifier: GPL-2.0
/*
 * dax_probe - helpers shared by the hugedax tests.  See dax_probe.h.
 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <limits.h>
#include <mntent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <linux/fiemap.h>
#include <linux/fs.h>

#include "dax_probe.h"

#ifndef STATX_ATTR_DAX
#define STATX_ATTR_DAX	0x00200000
#endif

double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* ---- page fault counters ---- */

long minflt_now(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return -1;
	return ru.ru_minflt;
}

long majflt_now(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return -1;
	return ru.ru_majflt;
}

/*
 * The probe functions are kept out of line so that calibrate_minflt()
 * maps exactly the text the measurements execute.
 */
__attribute__((noinline))
void fault_begin(struct fault_count *fc, long calib)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	fc->calib = calib;
	fc->min = ru.ru_minflt;
	fc->maj = ru.ru_majflt;
}

__attribute__((noinline))
long fault_end(struct fault_count *fc)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	fc->min = ru.ru_minflt - fc->min - fc->calib;
	fc->maj = ru.ru_majflt - fc->maj;
	return fc->min + fc->maj;
}

long calibrate_minflt(void)
{
	/*
	 * The test harness runs each test in a forked child, whose stack is
	 * still copy-on-write shared with the parent and whose text is not
	 * mapped yet.  Write a stack area deeper than any measurement needs
	 * and run the touch and counter code once, so that these one-off
	 * faults happen here and not inside the caller's measurement.
	 */
	char warm[32 * 1024];
	struct fault_count fc;
	long best = LONG_MAX;
	int i;

	touch_write(warm, sizeof(warm), 512, 1, 0);
	touch_read(warm, sizeof(warm), 512);
	for (i = 0; i < 3; i++) {
		fault_begin(&fc, 0);
		fault_end(&fc);
		if (fc.min + fc.maj < best)
			best = fc.min + fc.maj;
	}
	return best;
}

/* ---- small file helpers ---- */

static int write_file(const char *path, const char *val)
{
	size_t len = strlen(val);
	ssize_t ret;
	int fd;

	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ret = len ? write(fd, val, len) : 0;
	if (ret != (ssize_t)len) {
		int err = ret < 0 ? errno : EIO;

		close(fd);
		errno = err;
		return -1;
	}
	return close(fd);
}

long knob_swap(const char *path, long val)
{
	char buf[32];
	long old = -1;
	FILE *f;

	f = fopen(path, "re");
	if (!f)
		return -1;
	if (fscanf(f, "%ld", &old) != 1)
		old = -1;
	fclose(f);
	snprintf(buf, sizeof(buf), "%ld", val);
	if (old < 0 || write_file(path, buf))
		return -1;
	return old;
}

/* ---- periodic writeback ---- */

#define DIRTY_WRITEBACK "/proc/sys/vm/dirty_writeback_centisecs"

long writeback_pause(void)
{
	return knob_swap(DIRTY_WRITEBACK, 0);
}

int writeback_resume(long centisecs)
{
	return knob_swap(DIRTY_WRITEBACK, centisecs) < 0 ? -1 : 0;
}

/* ---- fs_dax tracepoints ---- */

#define TRACE_INSTANCE	"hugedax"
#define TRACE_MAX_EVENTS 16

static char trace_dir[PATH_MAX];
static const char *trace_events[TRACE_MAX_EVENTS];
static int trace_nevents;

static int trace_write(const char *file, const char *val)
{
	char path[PATH_MAX * 2];

	snprintf(path, sizeof(path), "%s/%s", trace_dir, file);
	return write_file(path, val);
}

static int trace_event_enable(const char *event, int on)
{
	char file[PATH_MAX];

	snprintf(file, sizeof(file), "events/%s/enable", event);
	return trace_write(file, on ? "1" : "0");
}

/* Find tracefs and create (or reuse) our instance. */
static int trace_instance(void)
{
	static const char *const bases[] = {
		"/sys/kernel/tracing",
		"/sys/kernel/debug/tracing",
	};
	char path[128];
	size_t i;

	if (trace_dir[0])
		return 0;
	for (i = 0; i < sizeof(bases) / sizeof(bases[0]); i++) {
		snprintf(path, sizeof(path), "%s/instances", bases[i]);
		if (access(path, F_OK))
			continue;
		snprintf(trace_dir, sizeof(trace_dir), "%s/%s", path,
			 TRACE_INSTANCE);
		if (mkdir(trace_dir, 0755) && errno != EEXIST) {
			trace_dir[0] = '\0';
			return -1;
		}
		return 0;
	}
	errno = ENOENT;
	return -1;
}

int trace_start(const char *const events[])
{
	char pid[32];
	int i;

	if (trace_instance())
		return -1;
	trace_stop();
	if (trace_write("tracing_on", "0") ||
	    trace_write("events/enable", "0") ||
	    trace_write("buffer_size_kb", "16384") ||
	    trace_write("trace", ""))
		return -1;
	/* Only this process: other activity must not change the counts. */
	snprintf(pid, sizeof(pid), "%d", getpid());
	if (trace_write("set_event_pid", pid))
		return -1;
	for (i = 0; events[i]; i++) {
		if (i == TRACE_MAX_EVENTS) {
			trace_stop();
			errno = E2BIG;
			return -1;
		}
		trace_events[trace_nevents++] = events[i];
		if (trace_event_enable(events[i], 1)) {
			int err = errno;

			trace_stop();
			errno = err;
			return -1;
		}
	}
	return trace_write("tracing_on", "1");
}

int trace_stop(void)
{
	int ret = 0;

	if (!trace_dir[0])
		return 0;
	if (trace_write("tracing_on", "0"))
		ret = -1;
	while (trace_nevents > 0) {
		if (trace_event_enable(trace_events[--trace_nevents], 0))
			ret = -1;
	}
	if (trace_write("set_event_pid", ""))
		ret = -1;
	return ret;
}

/*
 * Find the last whitespace-separated token of [line, end): its start in
 * *tok, its length returned (0 if none).  *end is moved to before it.
 */
static size_t trace_last_token(const char *line, const char **end,
			       const char **tok)
{
	const char *e = *end, *t;

	while (e > line && (e[-1] == '\n' || e[-1] == ' ' || e[-1] == '\t'))
		e--;
	t = e;
	while (t > line && t[-1] != ' ' && t[-1] != '\t')
		t--;
	*tok = t;
	*end = t;
	return e - t;
}

static int token_is(const char *tok, size_t len, const char *want)
{
	return len == strlen(want) && !strncmp(tok, want, len);
}

int trace_line_fields(const char *line, const char *event, const char *result,
		      const char *reason)
{
	const char *end, *tok, *rtok = NULL;
	size_t len, rlen = 0;
	char key[128];

	if (line[0] == '#')
		return 0;
	/* "  task-pid  [cpu] flags  timestamp: event: fields" */
	snprintf(key, sizeof(key), " %s: ", event);
	if (!strstr(line, key))
		return 0;
	end = line + strlen(line);
	len = trace_last_token(line, &end, &tok);
	/* "... RESULT reason NAME": the result is the third token from the end */
	{
		const char *e2 = end, *t2;
		size_t l2 = trace_last_token(line, &e2, &t2);

		if (token_is(t2, l2, "reason")) {
			rtok = tok;
			rlen = len;
			end = e2;
			len = trace_last_token(line, &end, &tok);
		}
	}
	if (result && !token_is(tok, len, result))
		return 0;
	if (reason && !(rtok && token_is(rtok, rlen, reason)))
		return 0;
	return 1;
}

int trace_line_match(const char *line, const char *event, const char *suffix)
{
	return trace_line_fields(line, event, suffix, NULL);
}

long trace_count_reason(const char *event, const char *result,
			const char *reason)
{
	char path[PATH_MAX * 2];
	char *line = NULL;
	size_t cap = 0;
	long count = 0;
	int lost = 0;
	FILE *f;

	if (trace_instance())
		return -1;
	snprintf(path, sizeof(path), "%s/trace", trace_dir);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (getline(&line, &cap, f) > 0) {
		if (strstr(line, "[LOST ") && strstr(line, " EVENTS]"))
			lost = 1;
		count += trace_line_fields(line, event, result, reason);
	}
	free(line);
	fclose(f);
	if (lost) {
		errno = EOVERFLOW;
		return -1;
	}
	return count;
}

long trace_count(const char *event, const char *suffix)
{
	return trace_count_reason(event, suffix, NULL);
}

long trace_sum(const char *event, const char *field)
{
	char path[PATH_MAX * 2], ekey[128], fkey[128];
	char *line = NULL, *at, *end;
	size_t cap = 0;
	long sum = 0;
	int bad = 0;
	FILE *f;

	if (trace_instance())
		return -1;
	snprintf(path, sizeof(path), "%s/trace", trace_dir);
	snprintf(ekey, sizeof(ekey), " %s: ", event);
	snprintf(fkey, sizeof(fkey), " %s ", field);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (getline(&line, &cap, f) > 0) {
		if (strstr(line, "[LOST ") && strstr(line, " EVENTS]"))
			bad = 1;
		if (line[0] == '#' || !strstr(line, ekey))
			continue;
		at = strstr(line, fkey);
		if (!at) {
			bad = 1;
			continue;
		}
		sum += strtol(at + strlen(fkey), &end, 0);
		if (end == at + strlen(fkey))
			bad = 1;
	}
	free(line);
	fclose(f);
	if (bad) {
		errno = EOVERFLOW;
		return -1;
	}
	return sum;
}

/* ---- page table dump ---- */

#define PTDUMP_PATH	"/sys/kernel/debug/page_tables/current_kernel"

int ptdump_parse_line(const char *line, unsigned long *start,
		      unsigned long *end, int *present, int *level)
{
	static const char *const level_names[] = {
		[PT_PGD] = "pgd", [PT_P4D] = "p4d", [PT_PUD] = "pud",
		[PT_PMD] = "pmd", [PT_PTE] = "pte",
	};
	static const char units[] = "BKMGTPE";
	unsigned long s, e, size;
	const char *p, *u, *tok = NULL;
	size_t toklen = 0;
	int n, i, shift, rw = 0;
	char unit;

	/* "0x%016lx-0x%016lx   %9lu%c " as printed by note_page() */
	if (strncmp(line, "0x", 2))
		return -1;
	if (sscanf(line, "0x%lx-0x%lx %lu%c%n", &s, &e, &size, &unit, &n) != 4)
		return -1;
	u = strchr(units, unit);
	if (!u || !unit)
		return -1;
	shift = (u - units) * 10;
	if (shift && size > (~0UL >> shift))
		return -1;
	/* The size column must agree with the range (end may wrap to 0). */
	if ((size << shift) != e - s)
		return -1;

	/* Remaining tokens: protection flags, then the level name. */
	for (p = line + n; *p; ) {
		while (*p == ' ' || *p == '\t' || *p == '\n')
			p++;
		if (!*p)
			break;
		tok = p;
		while (*p && *p != ' ' && *p != '\t' && *p != '\n')
			p++;
		toklen = p - tok;
		if ((toklen == 2 && !strncmp(tok, "RW", 2)) ||
		    (toklen == 2 && !strncmp(tok, "ro", 2)))
			rw = 1;
	}
	if (!tok || toklen != 3)
		return -1;
	for (i = 0; i < (int)(sizeof(level_names) / sizeof(level_names[0])); i++) {
		if (!strncmp(tok, level_names[i], 3))
			break;
	}
	if (i == (int)(sizeof(level_names) / sizeof(level_names[0])))
		return -1;

	*start = s;
	*end = e;
	*present = rw;
	*level = i;
	return 0;
}

void ptdump_account(struct ptdump_sizes *s, unsigned long addr,
		    unsigned long len, unsigned long start, unsigned long end,
		    int present, int level)
{
	unsigned long lo, hi;

	if (!end)		/* the last range ends at the top of memory */
		end = ~0UL;
	lo = start > addr ? start : addr;
	hi = end < addr + len ? end : addr + len;
	if (lo >= hi)
		return;
	if (!present)
		s->absent += hi - lo;
	else if (level == PT_PTE)
		s->pte += hi - lo;
	else if (level == PT_PMD)
		s->pmd += hi - lo;
	else if (level == PT_PUD)
		s->pud += hi - lo;
	else
		s->upper += hi - lo;
}

int ptdump_levels(unsigned long addr, unsigned long len,
		  struct ptdump_sizes *out)
{
	unsigned long start, end;
	int present, level;
	char *line = NULL;
	size_t cap = 0;
	FILE *f;

	memset(out, 0, sizeof(*out));
	/*
	 * The kernel produces the whole dump on the first read; ranges come
	 * in address order, so stop parsing once past the window.
	 */
	f = fopen(PTDUMP_PATH, "re");
	if (!f)
		return -1;
	while (getline(&line, &cap, f) > 0) {
		if (ptdump_parse_line(line, &start, &end, &present, &level))
			continue;
		if (start >= addr + len)
			break;
		ptdump_account(out, addr, len, start, end, present, level);
	}
	free(line);
	fclose(f);
	return 0;
}

void ptdump_describe(char *buf, size_t n, const struct ptdump_sizes *s,
		     int spaced)
{
	const char *x = spaced ? " x " : "x", *plus = spaced ? " + " : "+";
	size_t used = 0;

	buf[0] = '\0';
	if (s->pud)
		used += snprintf(buf + used, n - used, "%s%lu%s1G",
				 used ? plus : "", s->pud / SZ_1G, x);
	if (s->pmd && used < n)
		used += snprintf(buf + used, n - used, "%s%lu%s2M",
				 used ? plus : "", s->pmd / SZ_2M, x);
	if (s->pte && used < n)
		snprintf(buf + used, n - used, "%s%lu%s4K",
			 used ? plus : "", s->pte / SZ_4K, x);
	if (!buf[0])
		snprintf(buf, n, "none");
}

/* ---- mappings ---- */

void *map_aligned(size_t len, size_t align, int prot, int flags, int fd,
		  off_t off, size_t misalign)
{
	size_t page = sysconf(_SC_PAGESIZE);
	size_t resv;
	char *base, *addr;
	void *p;

	if (!len || !align || (align & (align - 1)) || len % page ||
	    misalign % page) {
		errno = EINVAL;
		return MAP_FAILED;
	}
	resv = len + align + misalign;
	base = mmap(NULL, resv, PROT_NONE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (base == MAP_FAILED)
		return MAP_FAILED;
	addr = (char *)(((uintptr_t)base + align - 1) & ~(uintptr_t)(align - 1));
	addr += misalign;

	p = mmap(addr, len, prot, flags | MAP_FIXED, fd, off);
	if (p == MAP_FAILED) {
		int err = errno;

		munmap(base, resv);
		errno = err;
		return MAP_FAILED;
	}
	if (addr > base)
		munmap(base, addr - base);
	if (addr + len < base + resv)
		munmap(addr + len, base + resv - (addr + len));
	return p;
}

long smaps_kb(unsigned long start, const char *field)
{
	unsigned long s, e;
	size_t flen = strlen(field);
	char *line = NULL;
	size_t cap = 0;
	long kb = -1;
	int in = 0;
	FILE *f;

	f = fopen("/proc/self/smaps", "re");
	if (!f)
		return -1;
	while (getline(&line, &cap, f) > 0) {
		/* VMA header lines start with "start-end "; fields do not. */
		if (sscanf(line, "%lx-%lx ", &s, &e) == 2) {
			if (in)
				break;
			in = s == start;
			continue;
		}
		if (in && !strncmp(line, field, flen)) {
			kb = strtol(line + flen, NULL, 10);
			break;
		}
	}
	free(line);
	fclose(f);
	return kb;
}

int smaps_read_all(int n)
{
	char buf[4096];
	int i, fd;

	for (i = 0; i < n; i++) {
		fd = open("/proc/self/smaps", O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return -1;
		while (read(fd, buf, sizeof(buf)) > 0)
			;
		close(fd);
	}
	return 0;
}

long mincore_resident(const void *p, size_t len)
{
	size_t n = len / SZ_4K, i;
	unsigned char *vec = calloc(n, 1);
	long resident = 0;

	if (!vec)
		return -1;
	if (mincore((void *)p, len, vec)) {
		free(vec);
		return -1;
	}
	for (i = 0; i < n; i++)
		resident += vec[i] & 1;
	free(vec);
	return resident;
}

#define PM_PFN_MASK	((1ULL << 55) - 1)
#define PM_FILE		(1ULL << 61)
#define PM_PRESENT	(1ULL << 63)

int pagemap_scan(const void *p, size_t len, struct pagemap_stats *out)
{
	size_t n = len / SZ_4K, i;
	uint64_t *pm = malloc(n * sizeof(*pm));
	ssize_t got;
	int fd;

	memset(out, 0, sizeof(*out));
	if (!pm)
		return -1;
	fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		free(pm);
		return -1;
	}
	got = pread(fd, pm, n * sizeof(*pm),
		    (uintptr_t)p / SZ_4K * sizeof(*pm));
	close(fd);
	if (got != (ssize_t)(n * sizeof(*pm))) {
		free(pm);
		return -1;
	}
	for (i = 0; i < n; i++) {
		out->present += !!(pm[i] & PM_PRESENT);
		out->file += !!(pm[i] & PM_FILE);
		if (i && (pm[i] & PM_PFN_MASK) == (pm[i - 1] & PM_PFN_MASK) + 1)
			out->contiguous++;
	}
	out->first_pfn = n ? pm[0] & PM_PFN_MASK : 0;
	free(pm);
	return 0;
}

int access_in_child(char *p, int write)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		if (write)
			*(volatile char *)p = 1;
		else
			(void)*(volatile char *)p;
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFSIGNALED(status) ? WTERMSIG(status) : 0;
}

int forced_read_in_child(const void *p, uint64_t want, unsigned int seconds)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		uint64_t got = 0;
		int fd = open("/proc/self/mem", O_RDONLY | O_CLOEXEC);

		alarm(seconds);
		if (fd < 0 || pread(fd, &got, sizeof(got), (off_t)(uintptr_t)p) !=
		    (ssize_t)sizeof(got))
			_exit(2);
		_exit(got == want ? 0 : 1);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFSIGNALED(status) ? 128 + WTERMSIG(status) :
				     WEXITSTATUS(status);
}

/* ---- DAX accounting: smaps fields and /proc/vmstat counters ---- */

int smaps_dax_parse(FILE *f, unsigned long start, int all, struct dax_kb *out)
{
	static const char *const names[] = {
		"DaxPteMapped:", "DaxPmdMapped:", "DaxPudMapped:",
	};
	long *fields[] = { &out->pte, &out->pmd, &out->pud };
	unsigned long s, e;
	char *line = NULL;
	size_t cap = 0;
	int in = all, vma = 0, seen = 0, i;

	memset(out, 0, sizeof(*out));
	while (getline(&line, &cap, f) > 0) {
		if (sscanf(line, "%lx-%lx ", &s, &e) == 2) {
			if (all)
				continue;
			if (in)
				break;
			in = s == start;
			vma |= in;
			continue;
		}
		if (!in)
			continue;
		for (i = 0; i < 3; i++) {
			size_t n = strlen(names[i]);

			if (!strncmp(line, names[i], n)) {
				*fields[i] += strtol(line + n, NULL, 10);
				seen |= 1 << i;
			}
		}
	}
	free(line);
	if (!all && !vma) {
		errno = ENOENT;
		return -1;
	}
	if (seen != 7) {
		errno = ENOTSUP;
		return -1;
	}
	return 0;
}

static int smaps_dax_file(const char *path, unsigned long start, int all,
			  struct dax_kb *out)
{
	FILE *f = fopen(path, "re");
	int ret, err;

	if (!f)
		return -1;
	ret = smaps_dax_parse(f, start, all, out);
	err = errno;
	fclose(f);
	errno = err;
	return ret;
}

int smaps_dax(unsigned long start, struct dax_kb *out)
{
	return smaps_dax_file("/proc/self/smaps", start, 0, out);
}

int smaps_rollup_dax(struct dax_kb *out)
{
	return smaps_dax_file("/proc/self/smaps_rollup", 0, 1, out);
}

int dax_vmstat_parse(FILE *f, struct dax_vmstat *out)
{
	static const char *const names[] = {
		"dax_pmd_fault", "dax_pmd_fault_fallback",
		"dax_pud_fault", "dax_pud_fault_fallback",
	};
	long *fields[] = {
		&out->pmd, &out->pmd_fallback, &out->pud, &out->pud_fallback,
	};
	char name[64];
	long val;
	int seen = 0, i;

	memset(out, 0, sizeof(*out));
	while (fscanf(f, "%63s %ld", name, &val) == 2) {
		for (i = 0; i < 4; i++) {
			if (!strcmp(name, names[i])) {
				*fields[i] = val;
				seen |= 1 << i;
			}
		}
	}
	if (seen != 15) {
		errno = ENOTSUP;
		return -1;
	}
	return 0;
}

int dax_vmstat_read(struct dax_vmstat *out)
{
	FILE *f = fopen("/proc/vmstat", "re");
	int ret, err;

	if (!f)
		return -1;
	ret = dax_vmstat_parse(f, out);
	err = errno;
	fclose(f);
	errno = err;
	return ret;
}

void dax_vmstat_delta(struct dax_vmstat *d, const struct dax_vmstat *before,
		      const struct dax_vmstat *after)
{
	d->pmd = after->pmd - before->pmd;
	d->pmd_fallback = after->pmd_fallback - before->pmd_fallback;
	d->pud = after->pud - before->pud;
	d->pud_fallback = after->pud_fallback - before->pud_fallback;
}

/* ---- data patterns ---- */

uint64_t pattern_word(uint64_t seed, uint64_t file_off)
{
	/* splitmix64 finaliser over seed and offset: cheap and well mixed */
	uint64_t x = seed ^ (file_off * 0x9e3779b97f4a7c15ULL);

	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x ? x : 1;
}

void fill_pattern(void *p, size_t len, uint64_t seed, off_t file_off)
{
	uint64_t *w = p;
	size_t i;

	for (i = 0; i + 8 <= len; i += 8)
		w[i / 8] = pattern_word(seed, file_off + i);
}

int check_pattern(const void *p, size_t len, size_t step, uint64_t seed,
		  off_t file_off, size_t *bad)
{
	const char *c = p;
	size_t i;

	for (i = 0; i + 8 <= len; i += step) {
		if (*(const volatile uint64_t *)(c + i) !=
		    pattern_word(seed, file_off + i)) {
			if (bad)
				*bad = i;
			return -1;
		}
	}
	return 0;
}

__attribute__((noinline))
uint64_t touch_read(const void *p, size_t len, size_t step)
{
	const char *c = p;
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i + 8 <= len; i += step)
		sum ^= *(const volatile uint64_t *)(c + i);
	return sum;
}

__attribute__((noinline))
void touch_write(void *p, size_t len, size_t step, uint64_t seed,
		 off_t file_off)
{
	char *c = p;
	size_t i;

	for (i = 0; i + 8 <= len; i += step)
		*(volatile uint64_t *)(c + i) = pattern_word(seed, file_off + i);
}

#define IO_CHUNK	SZ_2M

int append_file_pattern(const char *path, size_t len, size_t piece,
			uint64_t seed)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
	char *buf = malloc(piece);
	size_t off;

	if (fd < 0 || !buf) {
		free(buf);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	for (off = 0; off < len; off += piece) {
		size_t n = len - off < piece ? len - off : piece;

		fill_pattern(buf, n, seed, off);
		if (write(fd, buf, n) != (ssize_t)n)
			break;
	}
	free(buf);
	if (close(fd))
		return -1;
	return off < len ? -1 : 0;
}

int write_file_pattern(int fd, off_t off, size_t len, uint64_t seed)
{
	size_t done, n;
	void *buf;

	buf = malloc(IO_CHUNK);
	if (!buf)
		return -1;
	for (done = 0; done < len; done += n) {
		n = len - done < IO_CHUNK ? len - done : IO_CHUNK;
		fill_pattern(buf, n, seed, off + done);
		if (pwrite(fd, buf, n, off + done) != (ssize_t)n) {
			free(buf);
			if (!errno)
				errno = EIO;
			return -1;
		}
	}
	free(buf);
	return 0;
}

int check_file_pattern(int fd, off_t off, size_t len, size_t step,
		       uint64_t seed, off_t *bad)
{
	size_t done, n, i;
	void *buf;

	/* Chunks must keep the step grid: step has to divide IO_CHUNK. */
	if (!step || step % 8 || IO_CHUNK % step) {
		errno = EINVAL;
		return -1;
	}
	buf = malloc(IO_CHUNK);
	if (!buf)
		return -1;
	for (done = 0; done < len; done += n) {
		n = len - done < IO_CHUNK ? len - done : IO_CHUNK;
		if (pread(fd, buf, n, off + done) != (ssize_t)n) {
			free(buf);
			if (!errno)
				errno = EIO;
			return -1;
		}
		if (check_pattern(buf, n, step, seed, off + done, &i)) {
			if (bad)
				*bad = off + done + i;
			free(buf);
			errno = EILSEQ;
			return -1;
		}
	}
	free(buf);
	return 0;
}

/* ---- file systems ---- */

int mount_of(const char *dir, char *fstype, size_t n, int *dax)
{
	char real[PATH_MAX];
	struct mntent *m;
	int found = 0;
	FILE *f;

	if (!realpath(dir, real))
		return -1;
	f = setmntent("/proc/self/mounts", "re");
	if (!f)
		return -1;
	/* The last entry for a mount point is the one on top. */
	while ((m = getmntent(f))) {
		char *opts, *opt, *save;

		if (strcmp(m->mnt_dir, real))
			continue;
		found = 1;
		snprintf(fstype, n, "%s", m->mnt_type);
		*dax = 0;
		opts = strdup(m->mnt_opts);
		if (!opts)
			break;
		for (opt = strtok_r(opts, ",", &save); opt;
		     opt = strtok_r(NULL, ",", &save)) {
			if (!strcmp(opt, "dax") || !strcmp(opt, "dax=always"))
				*dax = 1;
		}
		free(opts);
	}
	endmntent(f);
	if (!found) {
		errno = ENOENT;
		return -1;
	}
	return 0;
}

int file_is_dax(int fd)
{
	struct statx stx;

	if (statx(fd, "", AT_EMPTY_PATH, STATX_BASIC_STATS, &stx))
		return -1;
	if (!(stx.stx_attributes_mask & STATX_ATTR_DAX))
		return -1;
	return !!(stx.stx_attributes & STATX_ATTR_DAX);
}

int falloc_chunked(int fd, off_t len, off_t chunk)
{
	off_t off, n;

	for (off = 0; off < len; off += n) {
		n = len - off < chunk ? len - off : chunk;
		if (fallocate(fd, 0, off, n))
			return -1;
	}
	return 0;
}

/* Whole aligned @chunk pieces of [lo, hi), clipped to [off, stop). */
static long aligned_pieces(uint64_t lo, uint64_t hi, uint64_t off,
			   uint64_t stop, unsigned long chunk)
{
	if (lo < off)
		lo = off;
	if (hi > stop)
		hi = stop;
	lo = (lo + chunk - 1) & ~(uint64_t)(chunk - 1);
	hi &= ~(uint64_t)(chunk - 1);
	return hi > lo ? (hi - lo) / chunk : 0;
}

long fiemap_aligned_chunks(int fd, off_t off, off_t len, unsigned long chunk)
{
	enum { NR_EXTENTS = 128 };
	const unsigned int odd = FIEMAP_EXTENT_UNKNOWN |
		FIEMAP_EXTENT_DELALLOC | FIEMAP_EXTENT_ENCODED |
		FIEMAP_EXTENT_DATA_INLINE | FIEMAP_EXTENT_DATA_TAIL |
		FIEMAP_EXTENT_NOT_ALIGNED;
	uint64_t pos = off, stop = off + len;
	/* a run of extents contiguous both in the file and on the device */
	uint64_t run_lo = 0, run_hi = 0, run_phys = 0;
	bool in_run = false;
	struct fiemap *fm;
	long count = 0;
	unsigned int i;

	if (!chunk || (chunk & (chunk - 1))) {
		errno = EINVAL;
		return -1;
	}
	fm = calloc(1, sizeof(*fm) +
		    NR_EXTENTS * sizeof(struct fiemap_extent));
	if (!fm)
		return -1;
	while (pos < stop) {
		fm->fm_start = pos;
		fm->fm_length = stop - pos;
		fm->fm_flags = 0;
		fm->fm_extent_count = NR_EXTENTS;
		if (ioctl(fd, FS_IOC_FIEMAP, fm)) {
			free(fm);
			return -1;
		}
		if (!fm->fm_mapped_extents)
			break;
		for (i = 0; i < fm->fm_mapped_extents; i++) {
			struct fiemap_extent *fe = &fm->fm_extents[i];

			pos = fe->fe_logical + fe->fe_length;
			if (fe->fe_flags & FIEMAP_EXTENT_LAST)
				pos = stop;
			if (fe->fe_flags & odd) {
				if (in_run)
					count += aligned_pieces(run_lo, run_hi,
								off, stop, chunk);
				in_run = false;
				continue;
			}
			if (in_run && fe->fe_logical == run_hi &&
			    fe->fe_physical == run_phys + (run_hi - run_lo)) {
				run_hi += fe->fe_length;
				continue;
			}
			if (in_run)
				count += aligned_pieces(run_lo, run_hi, off,
							stop, chunk);
			in_run = !((fe->fe_physical - fe->fe_logical) &
				   (chunk - 1));
			run_lo = fe->fe_logical;
			run_hi = run_lo + fe->fe_length;
			run_phys = fe->fe_physical;
		}
	}
	if (in_run)
		count += aligned_pieces(run_lo, run_hi, off, stop, chunk);
	free(fm);
	return count;
}

int fiemap_describe(int fd, char *buf, size_t n)
{
	enum { NR_EXTENTS = 16 };
	struct fiemap *fm;
	size_t used = 0;
	unsigned int i;

	if (n)
		buf[0] = '\0';
	fm = calloc(1, sizeof(*fm) +
		    NR_EXTENTS * sizeof(struct fiemap_extent));
	if (!fm)
		return -1;
	fm->fm_length = ~0ULL;
	fm->fm_extent_count = NR_EXTENTS;
	if (ioctl(fd, FS_IOC_FIEMAP, fm)) {
		free(fm);
		return -1;
	}
	for (i = 0; i < fm->fm_mapped_extents && used < n; i++) {
		struct fiemap_extent *fe = &fm->fm_extents[i];

		used += snprintf(buf + used, n - used, "%s%#llx+%#llx@%#llx",
				 i ? " " : "",
				 (unsigned long long)fe->fe_logical,
				 (unsigned long long)fe->fe_length,
				 (unsigned long long)fe->fe_physical);
	}
	if (used < n && !(fm->fm_mapped_extents &&
			  fm->fm_extents[fm->fm_mapped_extents - 1].fe_flags &
			  FIEMAP_EXTENT_LAST))
		snprintf(buf + used, n - used, " ...");
	free(fm);
	return 0;
}

int ext4_free_groups_describe(const char *dev, char *buf, size_t n)
{
	char path[128], line[512];
	unsigned long g, free_blocks, max = 0;
	size_t used = 0;
	long run = -1;
	FILE *f;

	if (n)
		buf[0] = '\0';
	snprintf(path, sizeof(path), "/proc/fs/ext4/%s/mb_groups", dev);
	f = fopen(path, "r");
	if (!f)
		return -1;
	/* the free counts first: the largest is a whole group */
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "#%lu : %lu", &g, &free_blocks) == 2 &&
		    free_blocks > max)
			max = free_blocks;
	rewind(f);
	while (fgets(line, sizeof(line), f)) {
		bool whole;

		if (sscanf(line, "#%lu : %lu", &g, &free_blocks) != 2)
			continue;
		whole = free_blocks == max;
		if (whole && run < 0)
			run = g;
		if (!whole && run >= 0 && used < n) {
			used += snprintf(buf + used, n - used, "%s%ld-%lu",
					 used ? " " : "", run, g - 1);
			run = -1;
		}
	}
	if (run >= 0 && used < n)
		snprintf(buf + used, n - used, "%s%ld-%lu", used ? " " : "",
			 run, g);
	fclose(f);
	return 0;
}

int fiemap_first_physical(int fd, uint64_t *phys)
{
	struct {
		struct fiemap fm;
		struct fiemap_extent fe;
	} req;

	memset(&req, 0, sizeof(req));
	req.fm.fm_length = ~0ULL;
	req.fm.fm_flags = FIEMAP_FLAG_SYNC;
	req.fm.fm_extent_count = 1;
	if (ioctl(fd, FS_IOC_FIEMAP, &req.fm))
		return -1;
	if (req.fm.fm_mapped_extents != 1 || req.fe.fe_logical) {
		errno = ENODATA;
		return -1;
	}
	*phys = req.fe.fe_physical;
	return 0;
}

uint64_t fiemap_physical_at(int fd, off_t off)
{
	struct {
		struct fiemap fm;
		struct fiemap_extent fe;
	} q = { .fm = { .fm_start = off, .fm_length = 1,
			.fm_flags = FIEMAP_FLAG_SYNC, .fm_extent_count = 1 } };

	if (ioctl(fd, FS_IOC_FIEMAP, &q.fm) || q.fm.fm_mapped_extents != 1 ||
	    q.fe.fe_logical > (uint64_t)off)
		return 0;
	return q.fe.fe_physical + (off - q.fe.fe_logical);
}

int fiemap_extents_below(int fd, uint64_t end)
{
	struct {
		struct fiemap fm;
		struct fiemap_extent fe[128];
	} q = { .fm = { .fm_length = end, .fm_flags = FIEMAP_FLAG_SYNC,
			.fm_extent_count = 128 } };

	if (ioctl(fd, FS_IOC_FIEMAP, &q.fm))
		return -1;
	return q.fm.fm_mapped_extents;
}

void block_dev_name(const char *path, char *buf, size_t n)
{
	char link[64], target[256];
	struct stat st;
	ssize_t len;
	char *slash;

	buf[0] = '\0';
	if (stat(path, &st))
		return;
	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u",
		 major(st.st_dev), minor(st.st_dev));
	len = readlink(link, target, sizeof(target) - 1);
	if (len <= 0)
		return;
	target[len] = '\0';
	slash = strrchr(target, '/');
	snprintf(buf, n, "%s", slash ? slash + 1 : target);
}

/* fs/ext4/ext4.h */
struct move_extent {
	uint32_t reserved;
	uint32_t donor_fd;
	uint64_t orig_start;
	uint64_t donor_start;
	uint64_t len;
	uint64_t moved_len;
};
#define EXT4_IOC_MOVE_EXT	_IOWR('f', 15, struct move_extent)

int ext4_move_ext(int fd, int donor, uint64_t off, uint64_t donor_off,
		  uint64_t len, uint64_t *moved)
{
	struct move_extent me = {
		.donor_fd = donor,
		.orig_start = off / SZ_4K,
		.donor_start = donor_off / SZ_4K,
		.len = len / SZ_4K,
	};
	int ret = ioctl(fd, EXT4_IOC_MOVE_EXT, &me);

	if (moved)
		*moved = me.moved_len * SZ_4K;
	return ret;
}

int shift_off_alignment(int fd, const char *dir, size_t len)
{
	uint64_t moved = 0;
	int donor, ret;

	donor = open(dir, O_TMPFILE | O_RDWR, 0600);
	if (donor < 0)
		return -1;
	ret = ftruncate(donor, len + SZ_2M);
	if (!ret)
		ret = falloc_chunked(donor, len + SZ_2M, SZ_1G);
	if (!ret)
		ret = ext4_move_ext(fd, donor, 0, SZ_4K, len, &moved);
	if (!ret && moved != len) {
		errno = EIO;
		ret = -1;
	}
	close(donor);
	return ret;
}

int dax_align_knob(const char *val)
{
	int fd = open("/sys/kernel/mm/transparent_hugepage/dax_align",
		      O_WRONLY);
	ssize_t n = fd < 0 ? -1 : write(fd, val, strlen(val));

	if (fd >= 0)
		close(fd);
	return n == (ssize_t)strlen(val) ? 0 : -1;
}

int fallocate_until_full(const char *path, off_t piece)
{
	int fd = open(path, O_RDWR | O_CREAT, 0644);
	struct stat st;
	off_t off;

	if (fd < 0 || fstat(fd, &st)) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	for (off = st.st_size; !fallocate(fd, 0, off, piece); off += piece)
		;
	close(fd);
	return errno == ENOSPC ? 0 : -1;
}

/* FIEMAP of all of @fd (up to 8,192 extents), or NULL; free() it */
static struct fiemap *fiemap_all(int fd)
{
	enum { NR_EXTENTS = 8192 };
	struct fiemap *fm;

	fm = calloc(1, sizeof(*fm) + NR_EXTENTS * sizeof(struct fiemap_extent));
	if (!fm)
		return NULL;
	fm->fm_length = FIEMAP_MAX_OFFSET;
	fm->fm_extent_count = NR_EXTENTS;
	if (ioctl(fd, FS_IOC_FIEMAP, fm)) {
		free(fm);
		return NULL;
	}
	return fm;
}

/* bytes of extent @fe in device [@start, @start + @len) */
static uint64_t fiemap_overlap(const struct fiemap_extent *fe,
			       uint64_t start, uint64_t len)
{
	uint64_t a = fe->fe_physical > start ? fe->fe_physical : start;
	uint64_t b = fe->fe_physical + fe->fe_length;

	if (b > start + len)
		b = start + len;
	return b > a ? b - a : 0;
}

long long fiemap_device_bytes(int fd, uint64_t start, uint64_t len)
{
	struct fiemap *fm = fiemap_all(fd);
	long long bytes = 0;
	unsigned int i;

	if (!fm)
		return -1;
	for (i = 0; i < fm->fm_mapped_extents; i++)
		bytes += fiemap_overlap(&fm->fm_extents[i], start, len);
	free(fm);
	return bytes;
}

int punch_device_range(int fd, uint64_t start, uint64_t len)
{
	struct fiemap *fm = fiemap_all(fd);
	uint64_t done = 0;
	unsigned int i;

	if (!fm)
		return -1;
	for (i = 0; i < fm->fm_mapped_extents; i++) {
		struct fiemap_extent *fe = &fm->fm_extents[i];
		uint64_t a = fe->fe_physical > start ? fe->fe_physical : start;
		uint64_t bytes = fiemap_overlap(fe, start, len);

		if (bytes && fallocate(fd, FALLOC_FL_PUNCH_HOLE |
				       FALLOC_FL_KEEP_SIZE,
				       fe->fe_logical + a - fe->fe_physical,
				       bytes)) {
			free(fm);
			return -1;
		}
		done += bytes;
	}
	free(fm);
	if (done != len) {
		errno = ENOENT;
		return -1;
	}
	return 0;
}

int punch_device_gibs(int fd, int max, uint64_t *gibs)
{
	struct fiemap *fm = fiemap_all(fd);
	uint64_t gib, end = 0, covered;
	unsigned int i;
	int n = 0;

	if (!fm)
		return -1;
	for (i = 0; i < fm->fm_mapped_extents; i++) {
		struct fiemap_extent *fe = &fm->fm_extents[i];

		if (fe->fe_physical + fe->fe_length > end)
			end = fe->fe_physical + fe->fe_length;
	}
	for (gib = 0; gib + SZ_1G <= end && n < max; gib += SZ_1G) {
		covered = 0;
		for (i = 0; i < fm->fm_mapped_extents; i++)
			covered += fiemap_overlap(&fm->fm_extents[i], gib,
						  SZ_1G);
		if (covered != SZ_1G)
			continue;
		for (i = 0; i < fm->fm_mapped_extents; i++) {
			struct fiemap_extent *fe = &fm->fm_extents[i];
			uint64_t a = fe->fe_physical > gib ? fe->fe_physical : gib;
			uint64_t bytes = fiemap_overlap(fe, gib, SZ_1G);

			if (bytes && fallocate(fd, FALLOC_FL_PUNCH_HOLE |
					       FALLOC_FL_KEEP_SIZE,
					       fe->fe_logical + a - fe->fe_physical,
					       bytes)) {
				free(fm);
				return -1;
			}
		}
		gibs[n++] = gib;
	}
	free(fm);
	return n;
}

int punch_device_runs(int fd, uint64_t period, uint64_t start, uint64_t end,
		      int max)
{
	struct fiemap *fm = fiemap_all(fd);
	unsigned int i;
	int punched = 0;

	if (!fm)
		return -1;
	/* the list was read first: punching does not change it */
	for (i = 0; i < fm->fm_mapped_extents; i++) {
		struct fiemap_extent *fe = &fm->fm_extents[i];
		uint64_t stop = fe->fe_physical + fe->fe_length;
		uint64_t base = fe->fe_physical & ~(period - 1);

		for (; base + end <= stop && (!max || punched < max);
		     base += period) {
			if (base + start < fe->fe_physical)
				continue;
			if (fallocate(fd, FALLOC_FL_PUNCH_HOLE |
				      FALLOC_FL_KEEP_SIZE,
				      fe->fe_logical + base + start -
				      fe->fe_physical, end - start)) {
				free(fm);
				return -1;
			}
			punched++;
		}
	}
	free(fm);
	return punched;
}
