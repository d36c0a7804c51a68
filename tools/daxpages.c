// SPDX-License-Identifier: GPL-2.0
/*
 * daxpages - which page sizes did a process's DAX mappings get, and why
 * did its huge faults fall back?
 *
 *   daxpages PID                  the DAX mappings of PID now
 *   daxpages [-t] -- CMD [ARG]... run CMD; its DAX mappings just before it
 *                                 exits, and the dax_* vmstat deltas
 *   daxpages -f SMAPS             a saved /proc/PID/smaps
 *   daxpages -T TRACE             a saved fs_dax trace (fallback reasons)
 *   daxpages --collapse [--dry-run] FILE...
 *                                 move DAX files into aligned extents
 *                                 (collapse.c)
 *
 * Reads the DaxPteMapped, DaxPmdMapped and DaxPudMapped fields of
 * /proc/PID/smaps and the dax_pmd_fault, dax_pmd_fault_fallback,
 * dax_pud_fault and dax_pud_fault_fallback counters of /proc/vmstat.  With
 * -t it also enables fs_dax:dax_pmd_fault_done and dax_pud_fault_done in a
 * private tracefs instance for the command and its children, and counts
 * the fallbacks by reason and by file.
 *
 * The command runs under ptrace (PTRACE_O_TRACEEXIT): at its exit stop its
 * memory is still mapped, so smaps shows what it had.  Only the command's
 * own process is reported (children are traced with -t, not reported).
 *
 * Exit status: PID and file modes 0, 1 on error, 2 if the kernel lacks the
 * fields; command mode the command's status (128 + signal if killed), 125
 * if daxpages failed or the kernel lacks an interface, 127 if CMD was not
 * found.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <sys/wait.h>

#include "collapse.h"

#ifndef STATX_ATTR_DAX
#define STATX_ATTR_DAX	0x00200000
#endif

#define EXIT_KERNEL	2	/* PID/file mode: kernel lacks the fields */
#define EXIT_CMD_FAIL	125	/* command mode: daxpages itself failed */

static const char *const smaps_fields[3] = {
	"DaxPteMapped:", "DaxPmdMapped:", "DaxPudMapped:",
};

struct vma {
	unsigned long start, end;
	char perms[8];
	unsigned int dev_major, dev_minor;	/* smaps prints them in hex */
	unsigned long ino;
	char path[PATH_MAX];
	long kb[3];				/* 4K, 2M, 1G */
};

struct vmas {
	struct vma *v;
	size_t n, cap;
	int have_fields;	/* the smaps had Dax*Mapped lines */
};

static void die(int code, const char *fmt, ...)
{
	va_list ap;

	fputs("daxpages: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(code);
}

/* ---- smaps ---- */

/* Parse a smaps stream into @out (appending). */
static void smaps_parse(FILE *f, struct vmas *out)
{
	char line[PATH_MAX + 128];
	struct vma *cur = NULL;
	int i;

	while (fgets(line, sizeof(line), f)) {
		struct vma v;
		unsigned long off;
		int n = 0;

		memset(&v, 0, sizeof(v));
		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, "%lx-%lx %7s %lx %x:%x %lu %n", &v.start,
			   &v.end, v.perms, &off, &v.dev_major, &v.dev_minor,
			   &v.ino, &n) >= 7 && n > 0) {
			snprintf(v.path, sizeof(v.path), "%s", line + n);
			if (out->n == out->cap) {
				out->cap = out->cap ? 2 * out->cap : 64;
				out->v = realloc(out->v, out->cap * sizeof(*out->v));
				if (!out->v)
					die(1, "out of memory");
			}
			out->v[out->n++] = v;
			cur = &out->v[out->n - 1];
			continue;
		}
		for (i = 0; cur && i < 3; i++) {
			size_t len = strlen(smaps_fields[i]);

			if (!strncmp(line, smaps_fields[i], len)) {
				cur->kb[i] = strtol(line + len, NULL, 10);
				out->have_fields = 1;
			}
		}
	}
}

static int smaps_read(const char *path, struct vmas *out)
{
	FILE *f = fopen(path, "re");

	if (!f)
		return -1;
	smaps_parse(f, out);
	fclose(f);
	return 0;
}

/* A DAX mapping: Dax* pages mapped now, a device-dax node or a DAX file. */
static int vma_is_dax(const struct vma *v)
{
	struct statx stx;

	if (v->kb[0] || v->kb[1] || v->kb[2])
		return 1;
	if (!strncmp(v->path, "/dev/dax", 8))
		return 1;
	if (v->path[0] != '/' || !v->ino)
		return 0;
	if (statx(AT_FDCWD, v->path, AT_STATX_DONT_SYNC, 0, &stx))
		return 0;
	return !!(stx.stx_attributes & STATX_ATTR_DAX);
}

static void print_mix(const long kb[3])
{
	long sum = kb[0] + kb[1] + kb[2];
	int i;

	printf(" %10ld", sum);
	for (i = 0; i < 3; i++)
		printf(" %10ld %5.1f%%", kb[i], sum ? 100.0 * kb[i] / sum : 0.0);
}

static void smaps_report(const char *what, const struct vmas *vs)
{
	long total[3] = { 0, 0, 0 };
	unsigned long size = 0;
	size_t i, n = 0;
	int j;

	for (i = 0; i < vs->n; i++)
		n += vma_is_dax(&vs->v[i]);
	printf("%s: %zu DAX mapping%s\n", what, n, n == 1 ? "" : "s");
	if (!n)
		return;
	printf("%-25s %10s %10s %10s %6s %10s %6s %10s %6s  %s\n", "range",
	       "size kB", "mapped kB", "4K kB", "%", "2M kB", "%", "1G kB",
	       "%", "file");
	for (i = 0; i < vs->n; i++) {
		const struct vma *v = &vs->v[i];
		char range[40];

		if (!vma_is_dax(v))
			continue;
		snprintf(range, sizeof(range), "%lx-%lx", v->start, v->end);
		printf("%-25s %10lu", range, (v->end - v->start) >> 10);
		print_mix(v->kb);
		printf("  %s\n", v->path[0] ? v->path : "[anonymous]");
		for (j = 0; j < 3; j++)
			total[j] += v->kb[j];
		size += v->end - v->start;
	}
	printf("%-25s %10lu", "total", size >> 10);
	print_mix(total);
	printf("\n");
}

static void require_smaps_fields(const struct vmas *vs, const char *src,
				 int code)
{
	if (vs->n && !vs->have_fields)
		die(code, "%s has no DaxPteMapped/DaxPmdMapped/DaxPudMapped fields: this kernel does not report DAX page sizes",
		    src);
}

/* ---- vmstat ---- */

static const char *const vmstat_names[4] = {
	"dax_pmd_fault", "dax_pmd_fault_fallback",
	"dax_pud_fault", "dax_pud_fault_fallback",
};

/* 0, or -1 if a counter is missing. */
static int vmstat_read(long val[4])
{
	FILE *f = fopen("/proc/vmstat", "re");
	char name[64];
	int seen = 0, i;
	long v;

	if (!f)
		return -1;
	while (fscanf(f, "%63s %ld", name, &v) == 2) {
		for (i = 0; i < 4; i++) {
			if (!strcmp(name, vmstat_names[i])) {
				val[i] = v;
				seen |= 1 << i;
			}
		}
	}
	fclose(f);
	return seen == 15 ? 0 : -1;
}

static void vmstat_report(const char *what, const long v[4])
{
	printf("%s:\n", what);
	printf("  PMD (2M) faults %ld, fell back %ld\n", v[0], v[1]);
	printf("  PUD (1G) faults %ld, fell back %ld\n", v[2], v[3]);
}

/* ---- fs_dax trace ---- */

#define MAX_REASONS	16
#define MAX_FILES	64

struct file_fb {
	unsigned int major, minor;
	unsigned long ino;
	long fb[2];		/* PMD, PUD */
};

struct trace_stats {
	char reason[MAX_REASONS][32];
	long fb[MAX_REASONS][2];	/* fallbacks by reason, PMD/PUD */
	long ok[2];			/* huge entries mapped */
	long other[2];			/* other results (SIGBUS, ...) */
	int nreasons;
	struct file_fb files[MAX_FILES];
	int nfiles;
	int lost;
};

static void trace_account(struct trace_stats *ts, const char *line)
{
	char result[64] = "", reason[32] = "?";
	const char *p, *r;
	unsigned int maj, min;
	unsigned long ino;
	int size, i;

	if (line[0] == '#')
		return;
	if (strstr(line, "[LOST ") && strstr(line, " EVENTS]"))
		ts->lost = 1;
	if (strstr(line, " dax_pmd_fault_done: "))
		size = 0;
	else if (strstr(line, " dax_pud_fault_done: "))
		size = 1;
	else
		return;
	p = strstr(line, ": dev ");
	if (!p || sscanf(p, ": dev %u:%u ino %lx", &maj, &min, &ino) != 3)
		return;
	/* "... RESULT reason NAME" */
	r = strstr(line, " reason ");
	if (r) {
		const char *s = r;

		sscanf(r, " reason %31s", reason);
		while (s > line && s[-1] != ' ')
			s--;
		snprintf(result, sizeof(result), "%.*s", (int)(r - s), s);
	}
	if (!strcmp(result, "NOPAGE")) {
		ts->ok[size]++;
		return;
	}
	if (strcmp(result, "FALLBACK")) {
		ts->other[size]++;
		return;
	}
	for (i = 0; i < ts->nreasons && strcmp(ts->reason[i], reason); i++)
		;
	if (i == ts->nreasons && i < MAX_REASONS)
		snprintf(ts->reason[ts->nreasons++], sizeof(ts->reason[0]),
			 "%s", reason);
	if (i < MAX_REASONS)
		ts->fb[i][size]++;
	for (i = 0; i < ts->nfiles; i++) {
		struct file_fb *f = &ts->files[i];

		if (f->major == maj && f->minor == min && f->ino == ino)
			break;
	}
	if (i == ts->nfiles && i < MAX_FILES) {
		ts->files[i].major = maj;
		ts->files[i].minor = min;
		ts->files[i].ino = ino;
		ts->nfiles++;
	}
	if (i < MAX_FILES)
		ts->files[i].fb[size]++;
}

static int trace_parse(const char *path, struct trace_stats *ts)
{
	char line[1024];
	FILE *f = fopen(path, "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		trace_account(ts, line);
	fclose(f);
	return 0;
}

static const char *file_name(const struct vmas *vs, const struct file_fb *f,
			     char *buf, size_t n)
{
	char line[1024];
	size_t i;
	FILE *mi;

	for (i = 0; vs && i < vs->n; i++) {
		const struct vma *v = &vs->v[i];

		if (v->dev_major == f->major && v->dev_minor == f->minor &&
		    v->ino == f->ino && v->path[0])
			return v->path;
	}
	/* not mapped any more: name the file system it is on (live runs) */
	snprintf(buf, n, "dev %u:%u ino %lu", f->major, f->minor, f->ino);
	mi = vs ? fopen("/proc/self/mountinfo", "re") : NULL;
	while (mi && fgets(line, sizeof(line), mi)) {
		unsigned int maj, min;
		char dir[256];

		if (sscanf(line, "%*d %*d %u:%u %*s %255s", &maj, &min, dir) == 3 &&
		    maj == f->major && min == f->minor) {
			snprintf(buf, n, "%s, inode %lu", dir, f->ino);
			break;
		}
	}
	if (mi)
		fclose(mi);
	return buf;
}

static void trace_report(const struct trace_stats *ts, const struct vmas *vs)
{
	char buf[320];
	int i;

	printf("huge faults on DAX files (fs_dax tracepoints):\n");
	printf("  %-32s %8s %8s\n", "", "PMD (2M)", "PUD (1G)");
	printf("  %-32s %8ld %8ld\n", "mapped", ts->ok[0], ts->ok[1]);
	for (i = 0; i < ts->nreasons; i++)
		printf("  fell back: %-21s %8ld %8ld\n", ts->reason[i],
		       ts->fb[i][0], ts->fb[i][1]);
	if (ts->other[0] || ts->other[1])
		printf("  %-32s %8ld %8ld\n", "other (error, SIGBUS)",
		       ts->other[0], ts->other[1]);
	if (ts->nfiles) {
		printf("fallbacks by file:\n");
		for (i = 0; i < ts->nfiles; i++)
			printf("  %-32s %8ld %8ld\n",
			       file_name(vs, &ts->files[i], buf, sizeof(buf)),
			       ts->files[i].fb[0], ts->files[i].fb[1]);
	}
	if (ts->lost)
		printf("warning: the trace buffer lost events; counts are low\n");
}

/* ---- private tracefs instance ---- */

static char inst[PATH_MAX];

static int inst_write(const char *file, const char *val)
{
	char path[PATH_MAX + 64];
	ssize_t len = strlen(val);
	int fd, ok;

	snprintf(path, sizeof(path), "%s/%s", inst, file);
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ok = write(fd, val, len) == len;
	return close(fd) || !ok ? -1 : 0;
}

/* Create the instance and enable the two events (tracing still off). */
static void trace_setup(void)
{
	static const char *const bases[] = {
		"/sys/kernel/tracing", "/sys/kernel/debug/tracing",
	};
	char fmt[PATH_MAX + 64], line[512];
	int has_reason = 0;
	size_t i;
	FILE *f;

	for (i = 0; i < 2; i++) {
		snprintf(fmt, sizeof(fmt), "%s/events/fs_dax/dax_pmd_fault_done/format",
			 bases[i]);
		if (!access(fmt, R_OK))
			break;
	}
	if (i == 2)
		die(EXIT_CMD_FAIL, "-t: no fs_dax tracepoints (is tracefs mounted at /sys/kernel/tracing?)");
	f = fopen(fmt, "re");
	while (f && fgets(line, sizeof(line), f))
		has_reason |= !!strstr(line, "reason");
	if (f)
		fclose(f);
	if (!has_reason)
		die(EXIT_CMD_FAIL, "-t: fs_dax:dax_pmd_fault_done has no reason field in this kernel");
	snprintf(inst, sizeof(inst), "%s/instances/daxpages.%d", bases[i],
		 (int)getpid());
	if (mkdir(inst, 0700))
		die(EXIT_CMD_FAIL, "-t: mkdir %s: %s", inst, strerror(errno));
	if (inst_write("tracing_on", "0") ||
	    inst_write("buffer_size_kb", "8192") ||
	    inst_write("options/event-fork", "1") ||
	    inst_write("events/fs_dax/dax_pmd_fault_done/enable", "1") ||
	    inst_write("events/fs_dax/dax_pud_fault_done/enable", "1")) {
		int err = errno;

		rmdir(inst);
		die(EXIT_CMD_FAIL, "-t: cannot set up %s: %s", inst, strerror(err));
	}
}

static void trace_teardown(void)
{
	inst_write("tracing_on", "0");
	inst_write("events/enable", "0");
	inst_write("set_event_pid", "");
	if (rmdir(inst))
		fprintf(stderr, "daxpages: rmdir %s: %s\n", inst, strerror(errno));
}

/* ---- running a command ---- */

/*
 * Run argv under ptrace; at its exit stop read its smaps into @vs.
 * Returns the wait status of the command, or -1 if it never ran.
 */
static int run_traced(char **argv, int tracing, struct vmas *vs)
{
	int status, started = 0;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		die(EXIT_CMD_FAIL, "fork: %s", strerror(errno));
	if (pid == 0) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
			_exit(EXIT_CMD_FAIL);
		execvp(argv[0], argv);
		fprintf(stderr, "daxpages: %s: %s\n", argv[0], strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	for (;;) {
		int sig = 0, event;

		if (waitpid(pid, &status, 0) < 0)
			die(EXIT_CMD_FAIL, "waitpid: %s", strerror(errno));
		if (WIFEXITED(status) || WIFSIGNALED(status))
			return started ? status : -1 - WEXITSTATUS(status);
		if (!WIFSTOPPED(status))
			continue;
		event = status >> 16;
		if (!started) {
			/* stopped at its first exec: nothing has run yet */
			char buf[32];

			started = 1;
			if (ptrace(PTRACE_SETOPTIONS, pid, NULL,
				   (void *)(PTRACE_O_TRACEEXIT |
					    PTRACE_O_TRACEEXEC |
					    PTRACE_O_EXITKILL)))
				die(EXIT_CMD_FAIL, "ptrace: %s", strerror(errno));
			snprintf(buf, sizeof(buf), "%d", (int)pid);
			if (tracing && (inst_write("set_event_pid", buf) ||
					inst_write("tracing_on", "1")))
				die(EXIT_CMD_FAIL, "-t: cannot start tracing: %s",
				    strerror(errno));
		} else if (event == PTRACE_EVENT_EXIT) {
			char path[64];

			snprintf(path, sizeof(path), "/proc/%d/smaps", (int)pid);
			if (smaps_read(path, vs))
				fprintf(stderr, "daxpages: %s: %s\n", path,
					strerror(errno));
		} else if (!event) {
			siginfo_t si;

			/* pass signals on; a group-stop (no siginfo) resumes */
			if (!ptrace(PTRACE_GETSIGINFO, pid, NULL, &si))
				sig = WSTOPSIG(status);
		}
		ptrace(PTRACE_CONT, pid, NULL, (void *)(long)sig);
	}
}

static int run_command(char **argv, int tracing)
{
	long before[4], after[4], delta[4];
	struct trace_stats ts;
	struct vmas vs = { 0 }, self = { 0 };
	char what[PATH_MAX + 32];
	int status, i, code;

	if (vmstat_read(before))
		die(EXIT_CMD_FAIL, "/proc/vmstat has no dax_pmd_fault, dax_pmd_fault_fallback, dax_pud_fault and dax_pud_fault_fallback counters: this kernel does not count DAX huge faults");
	if (smaps_read("/proc/self/smaps", &self))
		die(EXIT_CMD_FAIL, "/proc/self/smaps: %s", strerror(errno));
	require_smaps_fields(&self, "/proc/self/smaps", EXIT_CMD_FAIL);
	free(self.v);
	if (tracing)
		trace_setup();

	status = run_traced(argv, tracing, &vs);
	if (tracing)
		inst_write("tracing_on", "0");
	if (vmstat_read(after))
		die(EXIT_CMD_FAIL, "/proc/vmstat: cannot read the counters again");
	if (status < 0) {
		if (tracing)
			trace_teardown();
		return -1 - status;	/* exec failed: 126 or 127 */
	}

	snprintf(what, sizeof(what), "%s (pid exited)", argv[0]);
	if (WIFEXITED(status))
		snprintf(what, sizeof(what), "%s, just before exit(%d)",
			 argv[0], WEXITSTATUS(status));
	else
		snprintf(what, sizeof(what), "%s, just before it was killed by signal %d",
			 argv[0], WTERMSIG(status));
	printf("\n");
	smaps_report(what, &vs);
	for (i = 0; i < 4; i++)
		delta[i] = after[i] - before[i];
	vmstat_report("/proc/vmstat dax_* changes during the run (whole system)",
		      delta);
	if (tracing) {
		char path[PATH_MAX + 16];

		memset(&ts, 0, sizeof(ts));
		snprintf(path, sizeof(path), "%s/trace", inst);
		if (trace_parse(path, &ts))
			fprintf(stderr, "daxpages: %s: %s\n", path, strerror(errno));
		else
			trace_report(&ts, &vs);
		trace_teardown();
	}
	free(vs.v);
	code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	return code;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: daxpages PID\n"
		"       daxpages [-t] -- CMD [ARG]...\n"
		"       daxpages -f SMAPS_FILE\n"
		"       daxpages -T TRACE_FILE\n"
		"       daxpages --collapse [--dry-run] FILE...\n"
		"  PID   the page-size mix of each DAX mapping of PID now\n"
		"  CMD   run CMD; its DAX mappings just before it exits and the\n"
		"        dax_* /proc/vmstat changes over the run\n"
		"  -t    with CMD: also trace its huge DAX faults (tracefs) and\n"
		"        count the fallbacks by reason and by file\n"
		"  -f    report a saved smaps file;  -T  a saved fs_dax trace\n"
		"  --collapse  move each DAX file's blocks into aligned extents\n"
		"        (ext4), printing the page sizes its layout allows before\n"
		"        and after; --dry-run says what would move\n");
	exit(1);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "collapse", no_argument, NULL, 'C' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ NULL, 0, NULL, 0 },
	};
	struct vmas vs = { 0 };
	int opt, tracing = 0, collapse = 0, dry_run = 0;
	long v[4];

	while ((opt = getopt_long(argc, argv, "+tf:T:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'C':
			collapse = 1;
			break;
		case 'n':
			dry_run = 1;
			break;
		case 't':
			tracing = 1;
			break;
		case 'f':
			if (smaps_read(optarg, &vs))
				die(1, "%s: %s", optarg, strerror(errno));
			require_smaps_fields(&vs, optarg, EXIT_KERNEL);
			smaps_report(optarg, &vs);
			return 0;
		case 'T': {
			struct trace_stats ts;

			memset(&ts, 0, sizeof(ts));
			if (trace_parse(optarg, &ts))
				die(1, "%s: %s", optarg, strerror(errno));
			trace_report(&ts, NULL);
			return 0;
		}
		default:
			usage();
		}
	}
	if (optind >= argc || (dry_run && !collapse) ||
	    (collapse && tracing))
		usage();
	if (collapse)
		return collapse_files(argv + optind, argc - optind, dry_run);
	/* "--" ends the options; a command follows it */
	if (!strcmp(argv[optind - 1], "--"))
		return run_command(argv + optind, tracing);
	if (tracing || optind + 1 != argc || strspn(argv[optind], "0123456789") !=
	    strlen(argv[optind]))
		usage();

	{
		char path[64], what[64];

		snprintf(path, sizeof(path), "/proc/%s/smaps", argv[optind]);
		if (smaps_read(path, &vs))
			die(1, "%s: %s", path, strerror(errno));
		require_smaps_fields(&vs, path, EXIT_KERNEL);
		snprintf(what, sizeof(what), "pid %s", argv[optind]);
		smaps_report(what, &vs);
		if (!vmstat_read(v))
			vmstat_report("/proc/vmstat dax_* since boot (whole system)", v);
		else
			die(EXIT_KERNEL, "/proc/vmstat has no dax_* counters");
	}
	free(vs.v);
	return 0;
}
