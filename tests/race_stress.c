// SPDX-License-Identifier: GPL-2.0
/*
 * race_stress - several processes and threads on the same DAX files at once.
 *
 * dax_stress runs one operation at a time; this runs them in parallel (boot
 * the guest with MTTCG=1 SMP=4 for real parallelism).  Each test case (one
 * per target: ext4 at /mnt/ext4, xfs at /mnt/xfs, device-dax at
 * $HUGEDAX_DEVDAX) runs rounds until its duration is over.  A round forks
 * PROCS worker processes of THREADS threads each; every thread picks seeded
 * random operations on two data files (file 0: 1 GiB + 64 MiB, its first
 * GiB mapped at 1 GiB-aligned addresses so that PUD faults happen; file 1:
 * 128 MiB) until the round's time is up:
 *
 *   model operations, serialized per 2 MiB zone by process-shared rwlocks:
 *     writes and reads through MAP_SHARED mappings (1 GiB-aligned,
 *     2 MiB-aligned, 4 KiB off any 2 MiB boundary; some MAP_SYNC),
 *     pread/pwrite, O_DIRECT pread/pwrite, ftruncate down and up,
 *     FALLOC_FL_PUNCH_HOLE, fallocate (allocate, zero range), fork with the
 *     child reading through the inherited mapping, msync(MS_SYNC) of a range
 *     recorded as durable, on xfs FICLONE/FICLONERANGE clones written
 *     through a mapping (copy on write) while the source is used, and on
 *     ext4 EXT4_IOC_MOVE_EXT of a range into a donor's blocks, on xfs
 *     XFS_IOC_SWAPEXT of file 1 with the kernel copying (what
 *     daxpages --collapse does), which must change no data;
 *   racing operations, not serialized with the model operations (only with
 *     the other threads of the same process that use the same mapping):
 *     mprotect read-only/read-write toggles over a whole 1 GiB or part of a
 *     mapping, msync MS_SYNC/MS_ASYNC and fsync/fdatasync/syncfs
 *     (writeback write-protects huge mappings in every process),
 *     MADV_DONTNEED, mremap (moves, grows, shrinks, sometimes 4 KiB off
 *     alignment), unmapping and mapping again, and unlocked reads that
 *     scan whatever a mapping shows while truncates and punches run.
 *
 * Invariants:
 *   a) once truncate or punch returns, no mapping reaches the freed blocks:
 *      right after each one a "victim" file is allocated (the file system is
 *      filled up to RACE_SLACK_MB of free space so that the freed blocks get
 *      reused; FIEMAP tells how many victim bytes did land on blocks freed
 *      this round) and written with a victim pattern.  No data file read
 *      (through a mapping, locked or not, or pread) may ever return a
 *      victim word, and every victim must still hold its pattern at the end
 *      of the round (a write through a stale mapping would change it);
 *   b) what msync(MS_SYNC) made durable stays: sampled words of each such
 *      range are checked with pread after the round, after a remount,
 *      unless a later operation changed them;
 *   c) a model of each file (a generation per 4 KiB page) is checked by
 *      every locked read, by the fork child, and with pread of the whole
 *      file after the round (after an unmount and mount again);
 *   and no worker may die of a signal, hang, or see an unexpected error.
 *
 * Every 8-byte word is non-zero, depends on its offset (pattern_word()) and
 * carries a tag in its top byte: which data file, clone or victim wrote it,
 * so that a misplaced word names its origin.  Per round and at the end the
 * operation counts, the victim reuse and the DAX PMD/PUD fault counters of
 * /proc/vmstat are printed; any violation prints the seed and fails the
 * test.  No tracepoints: under MTTCG, enabling them patches kernel text.
 *
 * usage: race_stress [-s seed] [-d seconds] [-r round seconds] [-p procs]
 *                    [-t threads] [-f targets]
 * environment (the options win): RACE_SEED (default: from the clock),
 * RACE_SECONDS per target (default 60), RACE_ROUND (30), RACE_PROCS (4),
 * RACE_THREADS (2), RACE_FS ("ext4 xfs devdax"; negative_control runs on
 * ext4 when "ext4" or "negative_control" is listed), RACE_SLACK_MB (512,
 * 1536 on xfs; 0: no filler, no space budget), HUGEDAX_EXT4, HUGEDAX_XFS, HUGEDAX_DEVDAX;
 * RACE_REUSE=1 makes file 0 anew every round on the blocks of the old one;
 * RACE_NODAX=1 takes any directory (a smoke test of the checker on the
 * host: RACE_NODAX=1 RACE_SLACK_MB=0 HUGEDAX_EXT4=/tmp/d race_stress -f ext4).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/falloc.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>

#include <xfs/xfs.h>

#include "dax_probe.h"

/* fs/xfs/libxfs/xfs_fs.h of this kernel */
#ifndef XFS_SX_VERSION_DAXCOPY
#define XFS_SX_VERSION_DAXCOPY	1
#endif

#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"
#include "dax_checks.h"

#define PAGE		SZ_4K
#define ZONE		SZ_2M
#define MAXFILE		(2 * SZ_1G)
#define NZONES		(MAXFILE / ZONE)
#define NPAGES		(MAXFILE / PAGE)
#define NFILES		2
#define F0SIZE		(SZ_1G + 64 * SZ_1M)
#define F1SIZE		(128 * SZ_1M)
#define IOMAX		(4 * SZ_1M)
#define MAXPROCS	16
#define MAXTHREADS	8
#define NSLOTS		6
#define MAXVICTIMS	4096
#define VICTIM_MAX	(8 * SZ_1M)
#define MAXFREED	16384
#define NSAMPLES	8192
#define MAXCLONES	4
#define CLONE_MAX	F1SIZE
#define CLONE_PAGES	(CLONE_MAX / PAGE)
#define MAXREC		24
#define SPACE_MARGIN	(64 * SZ_1M)
#define STOP_WAIT	300	/* seconds the workers get to finish a round */

/* model values of a 4 KiB page: owner << 24 | generation, or these */
#define V_ZERO		0u
#define V_BEYOND	0xffffffffu	/* beyond end of file */
#define V_UNKNOWN	0xfffffffeu	/* not checked (a write died half way) */
#define OWNER_F0	1
#define OWNER_F1	2
#define OWNER_DEVDAX	3
#define OWNER_CLONE	0x10	/* + clone slot */
#define TAG_VICTIM	0x71ULL
#define LOW56		((1ULL << 56) - 1)

enum op {
	OP_MWRITE, OP_MREAD, OP_RACYREAD, OP_PWRITE, OP_PREAD, OP_DWRITE,
	OP_DREAD, OP_TRUNCATE, OP_PUNCH, OP_FALLOC, OP_MPROTECT, OP_MSYNC,
	OP_DURABLE, OP_FSYNC, OP_DONTNEED, OP_FORK, OP_MREMAP, OP_REMAP,
	OP_CLONE, OP_MOVE, NOPS
};

static const char *const op_names[NOPS] = {
	"map-write", "map-read", "racy-read", "pwrite", "pread",
	"odirect-write", "odirect-read", "truncate", "punch", "fallocate",
	"mprotect", "msync", "msync-durable", "fsync", "dontneed", "fork",
	"mremap", "remap", "clone", "move",
};

/* relative weights on a file system and on device-dax */
static const int fs_weight[NOPS] = {
	[OP_MWRITE] = 16, [OP_MREAD] = 12, [OP_RACYREAD] = 10,
	[OP_PWRITE] = 4, [OP_PREAD] = 4, [OP_DWRITE] = 3, [OP_DREAD] = 3,
	[OP_TRUNCATE] = 2, [OP_PUNCH] = 4, [OP_FALLOC] = 2,
	[OP_MPROTECT] = 6, [OP_MSYNC] = 5, [OP_DURABLE] = 3, [OP_FSYNC] = 2,
	[OP_DONTNEED] = 6, [OP_FORK] = 3, [OP_MREMAP] = 3, [OP_REMAP] = 3,
	[OP_CLONE] = 1, [OP_MOVE] = 2,
};

static const int devdax_weight[NOPS] = {
	[OP_MWRITE] = 20, [OP_MREAD] = 16, [OP_RACYREAD] = 12,
	[OP_MPROTECT] = 8, [OP_MSYNC] = 4, [OP_DONTNEED] = 8, [OP_FORK] = 4,
	[OP_MREMAP] = 4, [OP_REMAP] = 4,
};

enum counter {
	C_VICTIMS, C_VICTIM_BYTES, C_REUSED_VICTIMS, C_REUSED_BYTES,
	C_FREED_BYTES, C_RACY_SIGBUS, C_BUDGET_SKIPS, C_CLONE_BYTES,
	C_COW_WRITES, C_MREMAP_SPLIT, C_RO_PWRITES, C_MAP_SYNC, C_SAMPLES,
	C_SAMPLES_CHECKED, C_SAMPLES_SUPERSEDED, C_WORDS_CHECKED,
	C_BYTES_WRITTEN, C_FALLOC_UNSUPPORTED, C_ENOSPC, C_MOVED_BYTES,
	C_MOVE_BUSY, C_MOVE_REFUSED, NCOUNTERS
};

enum vkind {
	V_VICTIM_READ, V_VICTIM_CHANGED, V_SYNC_LOST, V_MODEL, V_FOREIGN,
	V_CLONE, V_ERROR, NVKINDS
};

static const char *const vkind_names[NVKINDS] = {
	"a: a data file read returned victim data (freed blocks reached)",
	"a: a victim file changed (written through a stale mapping?)",
	"b: data msync(MS_SYNC) made durable was lost",
	"c: data differs from the model",
	"an unlocked read saw a word that file never held",
	"a reflink clone differs from its model",
	"unexpected error, signal or hang",
};

struct model {
	pthread_rwlock_t zone[NZONES];
	uint64_t size;		/* changes only with the last zone locked */
	uint64_t maxsize;
	uint64_t resizes;	/* truncates so far */
	uint32_t gen;
	uint32_t owner;
	int keep_gib;		/* truncates stay above 1 GiB 7 times in 8 */
	char path[256];
	uint32_t page[NPAGES];
	uint8_t last[NPAGES];	/* the operation that last set the page */
};

struct victim {
	uint64_t len, reused;
	int ok;
};

struct sample {
	int f;
	uint32_t v;
	uint64_t off;		/* of one word */
};

struct clone {
	int used, whole, f;
	uint32_t owner, gen;
	uint64_t off, len;
	uint32_t page[CLONE_PAGES];
};

struct rec {
	int kind, owner, pid, round, lastop;
	uint64_t off, got, want;
	const char *what;
};

struct shared {
	volatile int stop;
	volatile int wild;	/* punches etc. may break file 0's first GiB */
	int round, devdax, reflink, move, sync_ok, procs, threads;
	uint64_t seed, budget;
	uint64_t ops[NOPS], cnt[NCOUNTERS], viol[NVKINDS];
	uint64_t nrec;
	struct rec rec[MAXREC];
	uint64_t nvictims;
	struct victim victims[MAXVICTIMS];
	uint64_t nfreed;
	struct { uint64_t phys, len; } freed[MAXFREED];
	uint64_t nsamples;
	struct sample samples[NSAMPLES];
	pthread_mutex_t clone_lock;
	struct clone clones[MAXCLONES];
	char dir[256];
	struct model m[NFILES];
};

static struct {
	uint64_t seed;
	int seconds, round, procs, threads;
	uint64_t slack;
	const char *targets;
} opt;

static struct shared *sh;
static uint64_t slack;	/* free space a round starts with, this target */

/* ---- per process: file descriptors and mappings ---- */

struct slot {
	pthread_rwlock_t lock;	/* write: mprotect, mremap, remap */
	uint8_t *addr;
	uint64_t off, len;	/* the file range mapped */
	uint64_t ro_lo, ro_hi;	/* mapping offsets now PROT_READ */
	int f, kind, sync;
};

static struct slot slots[NSLOTS];
static int fds[NFILES] = { -1, -1 }, dfds[NFILES] = { -1, -1 };
static int nfiles;

/* ---- per thread ---- */

struct thr {
	uint64_t rs;
	uint8_t *buf;		/* IOMAX bytes, page aligned */
	int proc, idx;
};

static __thread int t_op = NOPS;		/* what this thread does now */
static __thread int t_lastop = -1;	/* for the next violation() */
static __thread sigjmp_buf g_jmp;
static __thread volatile sig_atomic_t g_armed;
static __thread volatile uintptr_t g_addr;

/* ---- helpers ---- */

static uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t rnd(struct thr *t)
{
	t->rs += 0x9e3779b97f4a7c15ULL;
	return mix64(t->rs);
}

static uint64_t below(struct thr *t, uint64_t n)
{
	return n ? rnd(t) % n : 0;
}

static uint64_t min64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static uint64_t max64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void add(enum counter c, uint64_t n)
{
	__atomic_add_fetch(&sh->cnt[c], n, __ATOMIC_RELAXED);
}

/* safe in a fork child: no locks, no allocation */
static void violation(enum vkind kind, int owner, uint64_t off, uint64_t got,
		      uint64_t want, const char *what)
{
	uint64_t n;

	__atomic_add_fetch(&sh->viol[kind], 1, __ATOMIC_RELAXED);
	n = __atomic_fetch_add(&sh->nrec, 1, __ATOMIC_RELAXED);
	if (n < MAXREC)
		sh->rec[n] = (struct rec){ .kind = kind, .owner = owner,
			.pid = getpid(), .round = sh->round, .off = off,
			.got = got, .want = want, .what = what,
			.lastop = t_lastop };
	t_lastop = -1;
}

static int reserve(uint64_t n)
{
	uint64_t cur = __atomic_load_n(&sh->budget, __ATOMIC_RELAXED);

	do {
		if (cur < n) {
			add(C_BUDGET_SKIPS, 1);
			return 0;
		}
	} while (!__atomic_compare_exchange_n(&sh->budget, &cur, cur - n, 0,
					      __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	return 1;
}

/*
 * Out of space?  The space budget (see after_free) should keep allocations
 * from failing, but a file system may hold back more than statfs says
 * (xfs's per-AG reservations, busy extents): ENOSPC is counted, not a
 * violation.  After a SIGBUS on a write, a one-page fallocate tells.
 */
static int out_of_space(int fd, uint64_t off, int err)
{
	if (err != ENOSPC && (fd < 0 || !fallocate(fd, FALLOC_FL_KEEP_SIZE,
				off & ~(PAGE - 1), PAGE) || errno != ENOSPC))
		return 0;
	add(C_ENOSPC, 1);
	return 1;
}

/* ---- data patterns ---- */

static uint64_t owner_tag(uint32_t owner)
{
	if (owner >= OWNER_CLONE)
		return (0xc0ULL | (owner - OWNER_CLONE)) << 56;
	return (0xa0ULL | owner) << 56;
}

static uint64_t value_key(uint32_t v)
{
	return mix64(sh->seed ^ (v * 0x9e3779b97f4a7c15ULL));
}

/* the word at file offset @off of a page whose model value is @v */
static uint64_t data_word(uint32_t v, uint64_t off)
{
	if (v == V_ZERO)
		return 0;
	return owner_tag(v >> 24) | (pattern_word(value_key(v), off) & LOW56);
}

static uint64_t victim_key(uint64_t idx)
{
	return mix64(sh->seed ^ 0x71c71c71c71c71c7ULL ^
		     ((uint64_t)sh->round << 32) ^ idx);
}

static uint64_t victim_word(uint64_t key, uint64_t off)
{
	return (TAG_VICTIM << 56) | (pattern_word(key, off) & LOW56);
}

static uint32_t new_value(struct model *m)
{
	uint32_t g = __atomic_add_fetch(&m->gen, 1, __ATOMIC_RELAXED);

	return m->owner << 24 | (g & 0xffffff);
}

/* p[0, len) = file range [off, off + len) of pages of value v */
static void fill_words(uint8_t *p, uint64_t off, uint64_t len, uint32_t v)
{
	uint64_t x, i, key = value_key(v), tag = owner_tag(v >> 24);
	volatile uint64_t *w = (volatile uint64_t *)p;

	for (x = 0; x < len; x += 8) {
		i = x / 8;
		w[i] = tag | (pattern_word(key, off + x) & LOW56);
	}
}

/*
 * Compare p[0, len) (file range [off, off + len), page aligned) with the
 * model pages model[(off - base) / PAGE ...], one word every @step bytes.
 * Records one violation for the range: V_VICTIM_READ if a victim word is
 * among the differences, else @kind.  Returns the differing words.
 */
static uint64_t check_mem(const uint8_t *p, uint64_t off, uint64_t len,
			  const uint32_t *model, uint64_t base, uint64_t step,
			  int owner, enum vkind kind, const char *what)
{
	uint64_t x, i, got, want, key, tag, nbad = 0, n = 0;
	uint64_t bad_off = 0, bad_got = 0, bad_want = 0;
	int victim = 0, k;
	uint32_t v;

	for (x = 0; x < len; x += PAGE) {
		v = model[(off + x - base) / PAGE];
		if (v == V_BEYOND || v == V_UNKNOWN)
			continue;
		key = value_key(v);
		tag = owner_tag(v >> 24);
		for (i = step > 8 ? ((off + x) / PAGE % (step / 8)) * 8 : 0;
		     i < PAGE; i += step) {
			got = *(const volatile uint64_t *)(p + x + i);
			want = v ? tag | (pattern_word(key, off + x + i) & LOW56) : 0;
			n++;
			if (got == want)
				continue;
			if (!nbad++ || (got >> 56 == TAG_VICTIM && !victim)) {
				bad_off = off + x + i;
				bad_got = got;
				bad_want = want;
			}
			if (got >> 56 == TAG_VICTIM)
				victim = 1;
		}
	}
	add(C_WORDS_CHECKED, n);
	for (k = 0; nbad && k < NFILES; k++)
		if (model == sh->m[k].page)
			t_lastop = sh->m[k].last[(bad_off - base) / PAGE];
	if (nbad)
		violation(victim ? V_VICTIM_READ : kind, owner, bad_off,
			  bad_got, bad_want, what);
	return nbad;
}

/* ---- guarded accesses: a SIGBUS or SIGSEGV returns here ---- */

static void on_fault(int sig, siginfo_t *si, void *uc)
{
	if (g_armed) {
		g_armed = 0;
		g_addr = (uintptr_t)si->si_addr;
		siglongjmp(g_jmp, sig);
	}
	violation(V_ERROR, 0, (uintptr_t)si->si_addr, sig, 0,
		  "signal outside any guarded access");
	_exit(3);
}

static void catch_faults(void)
{
	struct sigaction sa = { .sa_sigaction = on_fault, .sa_flags = SA_SIGINFO };

	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGSEGV, &sa, NULL);
}

static int guarded_fill(uint8_t *p, uint64_t off, uint64_t len, uint32_t v)
{
	int sig = sigsetjmp(g_jmp, 1);

	if (sig)
		return sig;
	g_armed = 1;
	fill_words(p, off, len, v);
	g_armed = 0;
	return 0;
}

static int guarded_check(const uint8_t *p, uint64_t off, uint64_t len,
			 const uint32_t *model, uint64_t base, int owner,
			 enum vkind kind, const char *what)
{
	int sig = sigsetjmp(g_jmp, 1);

	if (sig)
		return sig;
	g_armed = 1;
	check_mem(p, off, len, model, base, 8, owner, kind, what);
	g_armed = 0;
	return 0;
}

/*
 * Unlocked: whatever the mapping shows must be zero or a word of this file
 * (@tag).  Returns the signal, if one came; *bad the first other word.
 */
static int guarded_scan(const uint8_t *p, uint64_t len, uint64_t tag,
			uint64_t *bad, uint64_t *bad_at)
{
	int sig = sigsetjmp(g_jmp, 1);
	uint64_t x, w;

	if (sig)
		return sig;
	g_armed = 1;
	for (x = 0; x < len; x += 8) {
		w = *(const volatile uint64_t *)(p + x);
		if (w && (w & ~LOW56) != tag && !*bad) {
			*bad = w;
			*bad_at = x;
		}
	}
	g_armed = 0;
	return 0;
}

/* ---- zones ---- */

static void zlock(struct model *m, uint64_t off, uint64_t len, int wr)
{
	uint64_t z;

	for (z = off / ZONE; z <= (off + len - 1) / ZONE; z++)
		if (wr)
			pthread_rwlock_wrlock(&m->zone[z]);
		else
			pthread_rwlock_rdlock(&m->zone[z]);
}

static void zunlock(struct model *m, uint64_t off, uint64_t len)
{
	uint64_t z;

	for (z = off / ZONE; z <= (off + len - 1) / ZONE; z++)
		pthread_rwlock_unlock(&m->zone[z]);
}

static uint64_t last_zone_end(struct model *m)
{
	return (m->maxsize + ZONE - 1) / ZONE * ZONE;
}

/* the pages of [off, off + len) before the first one beyond EOF */
static uint64_t clamp_eof(struct model *m, uint64_t off, uint64_t len)
{
	uint64_t n;

	for (n = 0; n < len && m->page[(off + n) / PAGE] != V_BEYOND; n += PAGE)
		;
	return n;
}

static void model_set(struct model *m, uint64_t off, uint64_t len, uint32_t v)
{
	uint64_t x;

	for (x = off; x < off + len; x += PAGE) {
		m->page[x / PAGE] = v;
		m->last[x / PAGE] = t_op;
	}
}

/* a random length in pages, mostly small (the emulation is slow) */
/*
 * Where punch, zero range, truncate and clones may start in file f: for
 * the first third of a round they keep out of file 0's first GiB, so that
 * its PUD mappings live long enough to race with everything else.
 */
static uint64_t destroy_lo(int f)
{
	return f == 0 && !sh->wild ? SZ_1G : 0;
}

static uint64_t rnd_pages(struct thr *t)
{
	uint64_t c = below(t, 100);

	if (c < 40)
		return 1;
	if (c < 70)
		return 1 + below(t, 16);
	if (c < 92)
		return 1 + below(t, 512);
	return 1 + below(t, IOMAX / PAGE);
}

/* a page range inside [lo, hi); sometimes whole 2 MiB pages */
static int pick_range(struct thr *t, uint64_t lo, uint64_t hi, uint64_t *off,
		      uint64_t *len)
{
	uint64_t np = (hi - lo) / PAGE, n, a;

	if (hi <= lo || !np)
		return -1;
	n = min64(rnd_pages(t), np);
	*off = lo + below(t, np - n + 1) * PAGE;
	*len = n * PAGE;
	if (below(t, 5) == 0) {
		a = (*off + ZONE - 1) & ~(ZONE - 1);
		if (a + ZONE <= hi) {
			*off = a;
			*len = min64(ZONE * (1 + below(t, 2)), hi - a) & ~(PAGE - 1);
		}
	}
	return 0;
}

/* a range of a mapping's file window, inside the file's largest size */
static int pick_in_slot(struct thr *t, struct slot *s, uint64_t *off,
			uint64_t *len)
{
	uint64_t hi = min64(s->off + s->len, sh->m[s->f].maxsize);

	return pick_range(t, s->off, hi, off, len);
}

static uint8_t *slot_ptr(struct slot *s, uint64_t off)
{
	return s->addr + (off - s->off);
}

/* does [off, off + len) of the file touch the read-only part of s? */
static int ro_overlap(struct slot *s, uint64_t off, uint64_t len)
{
	uint64_t a = off - s->off, b = a + len;

	return s->ro_hi > s->ro_lo && a < s->ro_hi && b > s->ro_lo;
}

/* ---- FIEMAP: which device ranges back a file range ---- */

typedef void (*extent_fn)(uint64_t logical, uint64_t phys, uint64_t len,
			  unsigned int flags, void *ctx);

static int fiemap_walk(int fd, uint64_t off, uint64_t len, extent_fn fn,
		       void *ctx)
{
	enum { N = 64 };
	uint64_t space[(sizeof(struct fiemap) +
			N * sizeof(struct fiemap_extent)) / 8 + 1];
	struct fiemap *fm = (struct fiemap *)space;
	uint64_t pos = off, end = off + len, a, b;
	struct fiemap_extent *e;
	unsigned int i;

	while (pos < end) {
		memset(space, 0, sizeof(space));
		fm->fm_start = pos;
		fm->fm_length = end - pos;
		fm->fm_extent_count = N;
		if (ioctl(fd, FS_IOC_FIEMAP, fm))
			return -1;
		if (!fm->fm_mapped_extents)
			return 0;
		for (i = 0; i < fm->fm_mapped_extents; i++) {
			e = &fm->fm_extents[i];
			a = max64(e->fe_logical, pos);
			b = min64(e->fe_logical + e->fe_length, end);
			if (a < b)
				fn(a, e->fe_physical + (a - e->fe_logical), b - a,
				   e->fe_flags, ctx);
			if (e->fe_flags & FIEMAP_EXTENT_LAST)
				return 0;
		}
		e = &fm->fm_extents[fm->fm_mapped_extents - 1];
		pos = e->fe_logical + e->fe_length;
	}
	return 0;
}

static void note_freed(uint64_t logical, uint64_t phys, uint64_t len,
		       unsigned int flags, void *ctx)
{
	uint64_t n;

	if (flags & FIEMAP_EXTENT_SHARED)
		return;		/* a clone keeps them */
	n = __atomic_fetch_add(&sh->nfreed, 1, __ATOMIC_RELAXED);
	if (n < MAXFREED) {
		sh->freed[n].phys = phys;
		sh->freed[n].len = len;
	}
}

static void count_reuse(uint64_t logical, uint64_t phys, uint64_t len,
			unsigned int flags, void *ctx)
{
	uint64_t *reused = ctx, n, i, a, b;

	n = min64(__atomic_load_n(&sh->nfreed, __ATOMIC_RELAXED), MAXFREED);
	for (i = 0; i < n; i++) {
		a = max64(phys, sh->freed[i].phys);
		b = min64(phys + len, sh->freed[i].phys + sh->freed[i].len);
		if (a < b)
			*reused += b - a;
	}
}

/* is [0, 1 GiB) one written, unshared, 1 GiB-aligned run on the device? */
struct gib_run {
	uint64_t next, phys;
	int bad;
};

static void gib_extent(uint64_t logical, uint64_t phys, uint64_t len,
		       unsigned int flags, void *ctx)
{
	struct gib_run *r = ctx;

	if (logical != r->next || (flags & (FIEMAP_EXTENT_UNWRITTEN |
					    FIEMAP_EXTENT_SHARED)) ||
	    (logical ? phys != r->phys + logical : phys % SZ_1G))
		r->bad = 1;
	if (!logical)
		r->phys = phys;
	r->next = logical + len;
}

static int first_gib_intact(int fd)
{
	struct gib_run r = { 0 };

	return !fiemap_walk(fd, 0, SZ_1G, gib_extent, &r) && !r.bad &&
	       r.next >= SZ_1G;
}

/* ---- victims: new files on the blocks a truncate or punch freed ---- */

static void victim_path(char *buf, size_t n, uint64_t idx)
{
	snprintf(buf, n, "%s/race.victim.%" PRIu64, sh->dir, idx);
}

static uint64_t victim_len(uint64_t freed)
{
	return max64(min64(freed / 2, VICTIM_MAX) & ~(PAGE - 1), PAGE);
}

static void make_victim(struct thr *t, uint64_t freed)
{
	uint64_t len = victim_len(freed), idx, done, n, x, key, reused = 0;
	char path[320];
	int fd;

	idx = __atomic_fetch_add(&sh->nvictims, 1, __ATOMIC_RELAXED);
	if (idx >= MAXVICTIMS)
		return;
	key = victim_key(idx);
	victim_path(path, sizeof(path), idx);
	fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0644);
	if (fd < 0 || fallocate(fd, 0, 0, len)) {
		if (!out_of_space(-1, 0, errno))
			violation(V_ERROR, 0, len, errno, 0, "creating a victim file");
		if (fd >= 0)
			close(fd);
		unlink(path);
		return;
	}
	for (done = 0; done < len; done += n) {
		n = min64(IOMAX, len - done);
		for (x = 0; x < n; x += 8)
			*(uint64_t *)(t->buf + x) = victim_word(key, done + x);
		if (pwrite(fd, t->buf, n, done) != (ssize_t)n) {
			if (!out_of_space(-1, 0, errno))
				violation(V_ERROR, 0, done, errno, 0,
					  "writing a victim file");
			close(fd);
			unlink(path);
			return;
		}
	}
	fiemap_walk(fd, 0, len, count_reuse, &reused);
	close(fd);
	sh->victims[idx].len = len;
	sh->victims[idx].reused = reused;
	sh->victims[idx].ok = 1;
	add(C_VICTIMS, 1);
	add(C_VICTIM_BYTES, len);
	add(C_REUSED_BYTES, reused);
	add(C_REUSED_VICTIMS, reused > 0);
}

/*
 * After a truncate or punch freed @len bytes of file f (zones still
 * locked): commit it (ext4 and xfs reuse freed blocks only after the
 * journal commits), then allocate and fill a victim.  Space: a round
 * starts with slack free; victims and clones reserve theirs from
 * sh->budget; whatever refills a hole (writes, fallocate, truncate up)
 * takes no more than punches and truncates freed, and that is committed
 * here before anyone can take the zone lock again.
 */
static void after_free(struct thr *t, int f, uint64_t len)
{
	add(C_FREED_BYTES, len);
	if (fsync(fds[f]))
		violation(V_ERROR, sh->m[f].owner, len, errno, 0,
			  "fsync after freeing");
	make_victim(t, len);
}

/* ---- mappings ---- */

/* map slot s: kind 0 GiB-aligned, 1 2 MiB-aligned, 2 4 KiB off; -1 any */
static void map_slot(struct thr *t, struct slot *s, int kind)
{
	uint64_t align = SZ_2M, mis = 0, off, len, size;
	int f, flags = MAP_SHARED, sync = 0;
	uint8_t *p;

	if (kind < 0)
		kind = below(t, 3);

	s->addr = NULL;
	s->ro_lo = s->ro_hi = 0;
	if (sh->devdax) {
		size = sh->m[0].maxsize;
		f = 0;
		align = SZ_1G;
		off = below(t, size / SZ_1G) * SZ_1G;
		len = below(t, 3) == 0 ? size - off : SZ_1G;
		kind = 0;
	} else if (kind == 0) {
		/* file 0's first GiB (and its tail), at a 1 GiB-aligned address */
		f = 0;
		align = SZ_1G;
		off = 0;
		len = below(t, 2) ? SZ_1G : F0SIZE;
	} else if (kind == 1) {
		f = below(t, nfiles);
		size = sh->m[f].maxsize;
		off = below(t, size / SZ_2M) * SZ_2M;
		len = (1 + below(t, 32)) * SZ_2M;
	} else {
		f = below(t, nfiles);
		size = sh->m[f].maxsize;
		off = below(t, size / PAGE) * PAGE;
		len = (1 + below(t, 2048)) * PAGE;
		mis = (1 + below(t, 511)) * PAGE;
	}
	if (!sh->devdax && sh->sync_ok && below(t, 5) == 0) {
		flags = MAP_SHARED_VALIDATE | MAP_SYNC;
		sync = 1;
	}
	p = map_aligned(len, align, PROT_READ | PROT_WRITE, flags, fds[f], off,
			mis);
	if (p == MAP_FAILED && sync && errno == EOPNOTSUPP) {
		/* not DAX (should not happen: see the round set-up) */
		violation(V_ERROR, sh->m[f].owner, off, errno, len,
			  "MAP_SYNC refused: the file is not DAX");
		sync = 0;
		p = map_aligned(len, align, PROT_READ | PROT_WRITE, MAP_SHARED,
				fds[f], off, mis);
	}
	if (p == MAP_FAILED) {
		violation(V_ERROR, sh->m[f].owner, off, errno, len, "mmap");
		return;
	}
	add(C_MAP_SYNC, sync);
	s->addr = p;
	s->off = off;
	s->len = len;
	s->f = f;
	s->kind = kind;
	s->sync = sync;
}

/* ---- operations ---- */

static void op_mwrite(struct thr *t, struct slot *s)
{
	struct model *m = &sh->m[s->f];
	uint64_t off, locked, len;
	uint32_t v;
	int sig;

	if (pick_in_slot(t, s, &off, &locked))
		return;
	zlock(m, off, locked, 1);
	len = clamp_eof(m, off, locked);
	if (!len)
		goto out;
	if (ro_overlap(s, off, len) && sh->devdax)
		goto out;	/* no write(2) on device-dax */
	v = new_value(m);
	if (ro_overlap(s, off, len)) {
		/* read-only here: write with pwrite, read it through the mapping */
		fill_words(t->buf, off, len, v);
		if (pwrite(fds[s->f], t->buf, len, off) != (ssize_t)len) {
			if (!out_of_space(-1, 0, errno))
				violation(V_ERROR, m->owner, off, errno, len, "pwrite");
			model_set(m, off, len, V_UNKNOWN);
			goto out;
		}
		model_set(m, off, len, v);
		add(C_RO_PWRITES, 1);
		sig = guarded_check(slot_ptr(s, off), off, len, m->page, 0,
				    m->owner, V_MODEL,
				    "through a read-only mapping after pwrite");
	} else {
		sig = guarded_fill(slot_ptr(s, off), off, len, v);
		model_set(m, off, len, sig ? V_UNKNOWN : v);
		if (!sig && !sh->devdax && below(t, 4) == 0 &&
		    pread(fds[s->f], t->buf, len, off) == (ssize_t)len)
			check_mem(t->buf, off, len, m->page, 0, 8, m->owner,
				  V_MODEL, "pread after a write through a mapping");
	}
	if (sig && !(sig == SIGBUS && !sh->devdax &&
		     out_of_space(fds[s->f], off + ((uintptr_t)g_addr -
				  (uintptr_t)slot_ptr(s, off)), 0)))
		violation(V_ERROR, m->owner, off, sig, g_addr,
			  "signal on a mapping inside EOF (zone locked)");
	add(C_BYTES_WRITTEN, len);
out:
	zunlock(m, off, locked);
}

static void op_mread(struct thr *t, struct slot *s)
{
	struct model *m = &sh->m[s->f];
	uint64_t off, len, l;
	int sig;

	if (pick_in_slot(t, s, &off, &len))
		return;
	zlock(m, off, len, 0);
	l = clamp_eof(m, off, len);
	if (l) {
		sig = guarded_check(slot_ptr(s, off), off, l, m->page, 0,
				    m->owner, V_MODEL, "through a mapping");
		if (sig)
			violation(V_ERROR, m->owner, off, sig, g_addr,
				  "signal reading a mapping inside EOF (zone locked)");
	}
	zunlock(m, off, len);
}

static void op_racyread(struct thr *t, struct slot *s)
{
	struct model *m = &sh->m[s->f];
	uint64_t off, len, bad = 0, at = 0, size0, size1, r0, r1, x;
	int sig;

	if (pick_in_slot(t, s, &off, &len))
		return;
	r0 = __atomic_load_n(&m->resizes, __ATOMIC_ACQUIRE);
	size0 = __atomic_load_n(&m->size, __ATOMIC_ACQUIRE);
	sig = guarded_scan(slot_ptr(s, off), len, owner_tag(m->owner), &bad, &at);
	size1 = __atomic_load_n(&m->size, __ATOMIC_ACQUIRE);
	r1 = __atomic_load_n(&m->resizes, __ATOMIC_ACQUIRE);
	if (bad)
		violation(bad >> 56 == TAG_VICTIM ? V_VICTIM_READ : V_FOREIGN,
			  m->owner, off + at, bad, owner_tag(m->owner),
			  "unlocked read through a mapping");
	if (sig == SIGBUS) {
		/*
		 * fine beyond EOF, or while a truncate ran (resizes is odd
		 * during one)
		 */
		x = off + ((uintptr_t)g_addr - (uintptr_t)slot_ptr(s, off));
		if (sh->devdax || (r0 == r1 && !(r0 & 1) && x < size0 &&
				   size0 == size1))
			violation(V_ERROR, m->owner, x, sig, size0,
				  "SIGBUS inside EOF in an unlocked read");
		add(C_RACY_SIGBUS, 1);
	} else if (sig) {
		violation(V_ERROR, m->owner, off, sig, g_addr,
			  "signal in an unlocked read");
	}
}

static void op_rw(struct thr *t, int write, int direct)
{
	int f = below(t, nfiles), fd = direct ? dfds[f] : fds[f];
	struct model *m = &sh->m[f];
	uint64_t off, len, l;
	uint32_t v;
	ssize_t r;

	if (fd < 0 || pick_range(t, 0, m->maxsize, &off, &len))
		return;
	zlock(m, off, len, write);
	l = clamp_eof(m, off, len);
	if (!l)
		goto out;
	if (write) {
		v = new_value(m);
		fill_words(t->buf, off, l, v);
		r = pwrite(fd, t->buf, l, off);
		model_set(m, off, l, r == (ssize_t)l ? v : V_UNKNOWN);
		add(C_BYTES_WRITTEN, l);
	} else {
		r = pread(fd, t->buf, l, off);
		if (r == (ssize_t)l)
			check_mem(t->buf, off, l, m->page, 0, 8, m->owner,
				  V_MODEL, direct ? "O_DIRECT pread" : "pread");
	}
	if (r != (ssize_t)l && !(write && out_of_space(-1, 0, errno)))
		violation(V_ERROR, m->owner, off, r < 0 ? errno : 0, l,
			  write ? "pwrite" : "pread");
out:
	zunlock(m, off, len);
}

/* lock from the zone of min(size, to) to the last one: the size is ours */
static uint64_t lock_tail(struct model *m, uint64_t to)
{
	uint64_t lo, size;

	for (;;) {
		lo = min64(__atomic_load_n(&m->size, __ATOMIC_ACQUIRE), to) &
		     ~(ZONE - 1);
		/*
		 * At least the last zone, which every size change holds: a
		 * truncate to the maximum size of a file already that big
		 * would otherwise lock nothing, and run at the same time as
		 * a truncate down, whose size the model could then record
		 * in the other order from the kernel's.
		 */
		lo = min64(lo, last_zone_end(m) - ZONE);
		zlock(m, lo, last_zone_end(m) - lo, 1);
		size = m->size;
		if (min64(size, to) >= lo)
			return lo;
		zunlock(m, lo, last_zone_end(m) - lo);
	}
}

static void op_truncate(struct thr *t)
{
	int f = below(t, nfiles);
	struct model *m = &sh->m[f];
	uint64_t size, old, lo;
	struct stat st;

	switch (below(t, 4)) {
	case 0:
		size = below(t, m->maxsize / PAGE + 1) * PAGE;
		break;
	case 1:
		size = below(t, m->maxsize / ZONE + 1) * ZONE;
		break;
	case 2:
		size = m->maxsize;
		break;
	default:
		size = m->size + below(t, 16) * PAGE;
		size = size > 8 * PAGE ? size - 8 * PAGE : 0;
		break;
	}
	size = min64(size, m->maxsize);
	if (m->keep_gib && below(t, 8))
		size = max64(size, SZ_1G);
	size = max64(size, destroy_lo(f));
	lo = lock_tail(m, size);
	old = m->size;
	if (size < old && !reserve(victim_len(old - size)))
		goto out;
	if (size < old)
		fiemap_walk(fds[f], size, old - size, note_freed, NULL);
	__atomic_add_fetch(&m->resizes, 1, __ATOMIC_ACQ_REL);
	if (ftruncate(fds[f], size)) {
		violation(V_ERROR, m->owner, size, errno, old, "ftruncate");
		__atomic_add_fetch(&m->resizes, 1, __ATOMIC_ACQ_REL);
		goto out;
	}
	/* under the tail lock no other size change runs: the size is ours */
	if (!fstat(fds[f], &st) && (uint64_t)st.st_size != size)
		violation(V_MODEL, m->owner, size, st.st_size, size,
			  "file size right after ftruncate");
	if (size < old)
		model_set(m, size, old - size, V_BEYOND);
	else
		model_set(m, old, size - old, V_ZERO);
	__atomic_store_n(&m->size, size, __ATOMIC_RELEASE);
	__atomic_add_fetch(&m->resizes, 1, __ATOMIC_ACQ_REL);
	if (size < old)
		after_free(t, f, old - size);
out:
	zunlock(m, lo, last_zone_end(m) - lo);
}

static void op_punch(struct thr *t)
{
	int f = below(t, nfiles);
	struct model *m = &sh->m[f];
	uint64_t off, len, l;

	if (pick_range(t, destroy_lo(f), m->maxsize, &off, &len))
		return;
	zlock(m, off, len, 1);
	l = clamp_eof(m, off, len);
	if (!l || !reserve(victim_len(l)))
		goto out;
	fiemap_walk(fds[f], off, l, note_freed, NULL);
	if (fallocate(fds[f], FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off, l)) {
		model_set(m, off, l, V_UNKNOWN);	/* maybe half done */
		if (!out_of_space(-1, 0, errno))
			violation(V_ERROR, m->owner, off, errno, l, "punch");
		goto out;
	}
	model_set(m, off, l, V_ZERO);
	after_free(t, f, l);
out:
	zunlock(m, off, len);
}

static void op_falloc(struct thr *t)
{
	int f = below(t, nfiles), zero = below(t, 3) == 0, mode;
	struct model *m = &sh->m[f];
	uint64_t off, len, l;

	if (pick_range(t, zero ? destroy_lo(f) : 0, m->maxsize, &off, &len))
		return;
	zlock(m, off, len, 1);
	l = clamp_eof(m, off, len);
	if (!l)
		goto out;
	/* holes refill what a punch or truncate freed (see after_free) */
	if (zero && !reserve(l))
		goto out;
	mode = zero ? FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE :
	       below(t, 2) ? FALLOC_FL_KEEP_SIZE : 0;
	if (fallocate(fds[f], mode, off, l)) {
		/* a zero range may have punched before it failed */
		if (zero)
			model_set(m, off, l, V_UNKNOWN);
		if (errno == EOPNOTSUPP)
			add(C_FALLOC_UNSUPPORTED, 1);
		else if (!out_of_space(-1, 0, errno))
			violation(V_ERROR, m->owner, off, errno, l,
				  zero ? "fallocate zero range" : "fallocate");
		goto out;
	}
	if (zero)
		model_set(m, off, l, V_ZERO);
out:
	zunlock(m, off, len);
}

/* caller holds s->lock for writing */
static int slot_rw_again(struct slot *s)
{
	if (s->ro_hi <= s->ro_lo)
		return 0;
	if (mprotect(s->addr + s->ro_lo, s->ro_hi - s->ro_lo,
		     PROT_READ | PROT_WRITE)) {
		violation(V_ERROR, sh->m[s->f].owner, s->ro_lo, errno,
			  s->ro_hi, "mprotect read-write");
		return -1;
	}
	s->ro_lo = s->ro_hi = 0;
	return 0;
}

static void op_mprotect(struct thr *t, struct slot *s)
{
	uint64_t gran, n, a, b;

	if (s->ro_hi > s->ro_lo) {
		slot_rw_again(s);
		return;
	}
	if (sh->devdax || below(t, 3) == 0) {
		/* all of it, or one of its whole GiBs */
		gran = s->kind == 0 ? SZ_1G : s->len;
		n = s->len / gran;
		a = below(t, n + 1);
		if (a == n) {
			a = 0;
			b = s->len;
		} else {
			a *= gran;
			b = a + gran;
		}
	} else {
		gran = below(t, 2) ? PAGE : SZ_2M;
		n = s->len / gran;
		if (!n)
			return;
		a = below(t, n);
		b = a + 1 + below(t, min64(n - a, 64));
		a *= gran;
		b *= gran;
		/* a 2 MiB grid counts from the mapping's start: fine */
	}
	if (mprotect(s->addr + a, b - a, PROT_READ)) {
		violation(V_ERROR, sh->m[s->f].owner, a, errno, b - a,
			  "mprotect read-only");
		return;
	}
	s->ro_lo = a;
	s->ro_hi = b;
}

static void op_msync(struct thr *t, struct slot *s)
{
	uint64_t a = 0, b = s->len;
	int flags = !sh->devdax && below(t, 3) ? MS_SYNC : MS_ASYNC;

	if (below(t, 3)) {
		a = below(t, s->len / PAGE) * PAGE;
		b = min64(s->len, a + (1 + below(t, 1024)) * PAGE);
	}
	if (msync(s->addr + a, b - a, flags))
		violation(V_ERROR, sh->m[s->f].owner, a, errno, b - a, "msync");
}

/* msync(MS_SYNC) of a locked range: remember a few words as durable */
static void op_durable(struct thr *t, struct slot *s)
{
	struct model *m = &sh->m[s->f];
	uint64_t off, len, l, x, n;
	uint32_t v;
	int k;

	if (pick_in_slot(t, s, &off, &len))
		return;
	zlock(m, off, len, 0);
	l = clamp_eof(m, off, len);
	if (!l)
		goto out;
	if (msync(slot_ptr(s, off), l, MS_SYNC)) {
		violation(V_ERROR, m->owner, off, errno, l, "msync MS_SYNC");
		goto out;
	}
	for (k = 0; k < 4; k++) {
		x = off + below(t, l / 8) * 8;
		v = m->page[x / PAGE];
		if (v == V_UNKNOWN)
			continue;
		n = __atomic_fetch_add(&sh->nsamples, 1, __ATOMIC_RELAXED);
		if (n >= NSAMPLES)
			break;
		sh->samples[n] = (struct sample){ .f = s->f, .v = v, .off = x };
		add(C_SAMPLES, 1);
	}
out:
	zunlock(m, off, len);
}

static void op_fsync(struct thr *t)
{
	int f = below(t, nfiles), c = below(t, 8), r;

	r = c == 0 ? syncfs(fds[f]) : c < 4 ? fdatasync(fds[f]) : fsync(fds[f]);
	if (r)
		violation(V_ERROR, sh->m[f].owner, c, errno, 0, "fsync");
}

static void op_dontneed(struct thr *t, struct slot *s)
{
	uint64_t gran = below(t, 2) ? PAGE : SZ_2M, n = s->len / gran, a = 0,
		 b = s->len;

	if (n && below(t, 4)) {
		a = below(t, n);
		b = min64(n, a + 1 + below(t, 64)) * gran;
		a *= gran;
	}
	if (madvise(s->addr + a, b - a, MADV_DONTNEED))
		violation(V_ERROR, sh->m[s->f].owner, a, errno, b - a,
			  "MADV_DONTNEED");
}

static void op_fork(struct thr *t, struct slot *s)
{
	struct model *m = &sh->m[s->f];
	uint64_t off, len, l;
	int status, sig;
	pid_t pid;

	if (pick_in_slot(t, s, &off, &len))
		return;
	zlock(m, off, len, 0);
	l = clamp_eof(m, off, len);
	if (!l)
		goto out;
	pid = fork();
	if (pid < 0) {
		violation(V_ERROR, m->owner, off, errno, 0, "fork");
		goto out;
	}
	if (!pid) {
		sig = guarded_check(slot_ptr(s, off), off, l, m->page, 0,
				    m->owner, V_MODEL,
				    "in a fork child through the inherited mapping");
		if (sig)
			violation(V_ERROR, m->owner, off, sig, g_addr,
				  "signal in a fork child reading inside EOF");
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		violation(V_ERROR, m->owner, off, status, 0, "fork child died");
out:
	zunlock(m, off, len);
}

/* caller holds s->lock for writing */
static void op_mremap(struct thr *t, struct slot *s)
{
	uint64_t newlen = s->len, align = s->kind == 0 ? SZ_1G : SZ_2M, mis;
	void *r, *p;

	if (slot_rw_again(s))
		return;
	if (!sh->devdax) {
		switch (below(t, 3)) {
		case 0:
			newlen += (1 + below(t, 8)) * (below(t, 2) ? PAGE : SZ_2M);
			break;
		case 1:
			if (s->len > PAGE)
				newlen = PAGE * (1 + below(t, s->len / PAGE - 1));
			break;
		}
	}
	mis = (uintptr_t)s->addr % align;
	if (!sh->devdax && below(t, 4) == 0)
		mis = (mis + PAGE) % align;
	r = map_aligned(newlen, align, PROT_NONE,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0, mis);
	if (r == MAP_FAILED) {
		violation(V_ERROR, 0, newlen, errno, 0, "reserving for mremap");
		return;
	}
	p = mremap(s->addr, s->len, newlen, MREMAP_MAYMOVE | MREMAP_FIXED, r);
	if (p == MAP_FAILED) {
		violation(V_ERROR, sh->m[s->f].owner, s->len, errno, newlen,
			  "mremap");
		munmap(r, newlen);
		return;
	}
	if (mis % SZ_2M)
		add(C_MREMAP_SPLIT, 1);
	s->addr = p;
	s->len = newlen;
}

/* caller holds s->lock for writing */
static void op_remap(struct thr *t, struct slot *s)
{
	munmap(s->addr, s->len);
	map_slot(t, s, -1);
}

/* xfs: clone part or all of a data file, map the clone and write to it */
static void op_clone(struct thr *t)
{
	/* & 1: clones are on file systems, with two files (and gcc sees it) */
	int f = below(t, nfiles) & 1, k, cfd, whole, sig = 0, i;
	struct file_clone_range r;
	struct model *m = &sh->m[f];
	uint64_t off, len, lo, lk, wo, wl, x;
	struct clone *c = NULL;
	char path[320];
	uint32_t v;
	uint8_t *p;

	if (!sh->reflink || pthread_mutex_trylock(&sh->clone_lock))
		return;
	for (k = 0; k < MAXCLONES && !c; k++)
		if (!sh->clones[k].used)
			c = &sh->clones[k];
	if (!c)
		goto unlock;
	k = c - sh->clones;
	whole = f == 1 && below(t, 4) == 0;
	if (whole) {
		/* all zones, for a stable size: the clone gets all of it */
		lo = lock_tail(m, 0);
		lk = last_zone_end(m) - lo;
		off = 0;
		len = m->size;
	} else {
		lo = off = destroy_lo(f) +
			below(t, (m->maxsize - destroy_lo(f)) / SZ_2M) * SZ_2M;
		lk = min64((1 + below(t, 32)) * SZ_2M, m->maxsize - off);
		zlock(m, lo, lk, 0);
		len = clamp_eof(m, off, lk);
	}
	/* the clone and the source each may copy all of it on write */
	if (!len || !reserve(2 * len))
		goto unlock_src;
	snprintf(path, sizeof(path), "%s/race.clone.%d", sh->dir, k);
	cfd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (cfd < 0) {
		violation(V_ERROR, 0, k, errno, 0, "creating a clone file");
		goto unlock_src;
	}
	if (whole) {
		i = ioctl(cfd, FICLONE, fds[f]);
	} else {
		r = (struct file_clone_range){ .src_fd = fds[f],
			.src_offset = off, .src_length = len,
			.dest_offset = off };
		i = ftruncate(cfd, off + len) ?: ioctl(cfd, FICLONERANGE, &r);
	}
	if (i) {
		if (errno == EOPNOTSUPP || errno == EXDEV)
			sh->reflink = 0;
		else if (!out_of_space(-1, 0, errno))
			violation(V_ERROR, m->owner, off, errno, len,
				  whole ? "FICLONE" : "FICLONERANGE");
		close(cfd);
		unlink(path);
		goto unlock_src;
	}
	*c = (struct clone){ .used = 1, .whole = whole, .f = f,
			     .owner = OWNER_CLONE + k, .off = off, .len = len };
	memcpy(c->page, &m->page[off / PAGE], len / PAGE * sizeof(uint32_t));
	/* the source goes on changing from here; the clone must not */
	zunlock(m, lo, lk);
	p = map_aligned(len, SZ_2M, PROT_READ | PROT_WRITE, MAP_SHARED, cfd,
			off, 0);
	if (p == MAP_FAILED) {
		violation(V_ERROR, c->owner, off, errno, len, "mmap of a clone");
		close(cfd);
		goto unlock;
	}
	sig = guarded_check(p, off, len, c->page, off, c->owner, V_CLONE,
			    "clone through a mapping before writing");
	for (i = 0; !sig && i < 1 + (int)below(t, 8); i++) {
		/* copy on write through the mapping */
		if (pick_range(t, off, off + len, &wo, &wl))
			break;
		v = c->owner << 24 | (++c->gen & 0xffffff);
		sig = guarded_fill(p + (wo - off), wo, wl, v);
		for (x = wo; x < wo + wl; x += PAGE)
			c->page[(x - off) / PAGE] = sig ? V_UNKNOWN : v;
		add(C_COW_WRITES, 1);
	}
	if (!sig && msync(p, len, MS_SYNC))
		violation(V_ERROR, c->owner, off, errno, len, "msync of a clone");
	if (!sig)
		sig = guarded_check(p, off, len, c->page, off, c->owner, V_CLONE,
				    "clone through a mapping after writing");
	if (sig && !(sig == SIGBUS && out_of_space(cfd, off + ((uintptr_t)g_addr -
						   (uintptr_t)p), 0)))
		violation(V_ERROR, c->owner, off, sig, g_addr,
			  "signal on a clone mapping");
	munmap(p, len);
	close(cfd);
	add(C_CLONE_BYTES, len);
	goto unlock;
unlock_src:
	zunlock(m, lo, lk);
unlock:
	pthread_mutex_unlock(&sh->clone_lock);
}

/*
 * xfs: swap all of file 1 with a fallocated donor, the kernel copying the
 * data (XFS_SX_VERSION_DAXCOPY), as daxpages --collapse does on xfs.  All
 * zones locked for writing, for a stable size (the swap excludes writes
 * anyway); the racing operations run on.  The old blocks end in the donor
 * and are freed when it is closed: victims check that no mapping reaches
 * them.
 */
static void op_swapext(struct thr *t)
{
	struct model *m = &sh->m[1];
	struct xfs_swapext sx = {
		.sx_version = XFS_SX_VERSION_DAXCOPY,
		.sx_fdtarget = fds[1],
	};
	uint64_t lo, lk, size;
	int donor = -1;

	lo = lock_tail(m, 0);
	lk = last_zone_end(m) - lo;
	size = m->size;
	if (!size || !reserve(size + victim_len(size)))
		goto unlock;
	donor = open(sh->dir, O_TMPFILE | O_RDWR, 0600);
	if (donor < 0 || ftruncate(donor, size) || fallocate(donor, 0, 0, size) ||
	    fsync(fds[1])) {
		if (!out_of_space(-1, 0, errno))
			violation(V_ERROR, m->owner, 0, errno, size, "swapext donor");
		goto unlock;
	}
	sx.sx_fdtmp = donor;
	sx.sx_length = size;
	if (ioctl(fds[1], XFS_IOC_SWAPEXT, &sx)) {
		/*
		 * EINVAL: without rmapbt, xfs cannot give the donor a data
		 * fork in btree format with few extents (xfs_fsr meets it
		 * too); a refusal, not a data problem.
		 */
		if (errno == EBUSY)
			add(C_MOVE_BUSY, 1);
		else if (errno == EINVAL)
			add(C_MOVE_REFUSED, 1);
		else if (!out_of_space(-1, 0, errno))
			violation(V_ERROR, m->owner, 0, errno, size,
				  "XFS_IOC_SWAPEXT");
		goto unlock;
	}
	add(C_MOVED_BYTES, size);
	fiemap_walk(donor, 0, size, note_freed, NULL);
	close(donor);
	donor = -1;
	after_free(t, 1, size);
unlock:
	if (donor >= 0)
		close(donor);
	zunlock(m, lo, lk);
}

/*
 * Move a range into the blocks of a donor, as daxpages --collapse does,
 * while the other threads use it: the model does not change.  Under the
 * zone locks for reading, so that reads, mappings, msync and fork race
 * with it; the move itself excludes writes to the file.  The old blocks
 * end in the donor and are freed when it is closed: victims check that
 * no mapping reaches them.  Pinned pages (O_DIRECT in flight) fail it
 * with EBUSY.
 */
static void op_move(struct thr *t)
{
	int f = below(t, nfiles), donor;
	struct model *m = &sh->m[f];
	uint64_t off, len, l, moved = 0;

	if (sh->move == 2) {
		op_swapext(t);
		return;
	}
	if (pick_range(t, destroy_lo(f), m->maxsize, &off, &len))
		return;
	zlock(m, off, len, 0);
	l = clamp_eof(m, off, len);
	if (!l || !reserve(l + victim_len(l)))
		goto out;
	donor = open(sh->dir, O_TMPFILE | O_RDWR, 0600);
	if (donor < 0 || ftruncate(donor, off + l) ||
	    fallocate(donor, 0, off, l)) {
		if (!out_of_space(-1, 0, errno))
			violation(V_ERROR, m->owner, off, errno, l, "move donor");
		goto close;
	}
	if (ext4_move_ext(fds[f], donor, off, off, l, &moved)) {
		if (errno == EBUSY)
			add(C_MOVE_BUSY, 1);
		else if (!out_of_space(-1, 0, errno))
			violation(V_ERROR, m->owner, off, errno, l,
				  "EXT4_IOC_MOVE_EXT");
	}
	add(C_MOVED_BYTES, moved);
	/* the donor holds the old blocks now */
	if (moved)
		fiemap_walk(donor, off, l, note_freed, NULL);
close:
	if (donor >= 0)
		close(donor);
	if (moved)
		after_free(t, f, moved);
out:
	zunlock(m, off, len);
}

/* ---- workers ---- */

static int pick_op(struct thr *t)
{
	const int *w = sh->devdax ? devdax_weight : fs_weight;
	int i, sum = 0, c;

	for (i = 0; i < NOPS; i++)
		sum += w[i];
	c = below(t, sum);
	for (i = 0; i < NOPS; i++) {
		if (c < w[i]) {
			if ((i == OP_CLONE && !sh->reflink) ||
			    (i == OP_MOVE && !sh->move))
				return OP_MREAD;
			return i;
		}
		c -= w[i];
	}
	return OP_MREAD;
}

static void do_op(struct thr *t, int op)
{
	struct slot *s = &slots[below(t, NSLOTS)];
	int wr = op == OP_MPROTECT || op == OP_MREMAP || op == OP_REMAP;

	switch (op) {
	case OP_PWRITE: op_rw(t, 1, 0); return;
	case OP_PREAD: op_rw(t, 0, 0); return;
	case OP_DWRITE: op_rw(t, 1, 1); return;
	case OP_DREAD: op_rw(t, 0, 1); return;
	case OP_TRUNCATE: op_truncate(t); return;
	case OP_PUNCH: op_punch(t); return;
	case OP_FALLOC: op_falloc(t); return;
	case OP_FSYNC: op_fsync(t); return;
	case OP_CLONE: op_clone(t); return;
	case OP_MOVE: op_move(t); return;
	}
	if (wr)
		pthread_rwlock_wrlock(&s->lock);
	else
		pthread_rwlock_rdlock(&s->lock);
	if (!s->addr) {
		if (op == OP_REMAP)
			map_slot(t, s, -1);
		goto out;
	}
	switch (op) {
	case OP_MWRITE: op_mwrite(t, s); break;
	case OP_MREAD: op_mread(t, s); break;
	case OP_RACYREAD: op_racyread(t, s); break;
	case OP_MPROTECT: op_mprotect(t, s); break;
	case OP_MSYNC: op_msync(t, s); break;
	case OP_DURABLE: op_durable(t, s); break;
	case OP_DONTNEED: op_dontneed(t, s); break;
	case OP_FORK: op_fork(t, s); break;
	case OP_MREMAP: op_mremap(t, s); break;
	case OP_REMAP: op_remap(t, s); break;
	}
out:
	pthread_rwlock_unlock(&s->lock);
}

static void *thread_main(void *arg)
{
	struct thr *t = arg;
	int op;

	if (posix_memalign((void **)&t->buf, PAGE, IOMAX)) {
		violation(V_ERROR, 0, 0, ENOMEM, 0, "thread buffer");
		return NULL;
	}
	while (!sh->stop) {
		op = pick_op(t);
		t_op = op;
		do_op(t, op);
		__atomic_add_fetch(&sh->ops[op], 1, __ATOMIC_RELAXED);
	}
	free(t->buf);
	return NULL;
}

static void worker_main(int proc)
{
	struct thr th[MAXTHREADS], setup = { 0 };
	pthread_rwlockattr_t ra;
	pthread_t tid[MAXTHREADS];
	int i, f;

	catch_faults();
	for (f = 0; f < nfiles; f++) {
		fds[f] = open(sh->m[f].path, O_RDWR);
		if (fds[f] < 0) {
			violation(V_ERROR, sh->m[f].owner, 0, errno, 0,
				  "worker open");
			_exit(1);
		}
		dfds[f] = sh->devdax ? -1 : open(sh->m[f].path, O_RDWR | O_DIRECT);
	}
	setup.rs = mix64(sh->seed ^ ((uint64_t)sh->round << 40) ^
			 ((uint64_t)proc << 20) ^ 0xabcdef);
	pthread_rwlockattr_init(&ra);
	pthread_rwlockattr_setkind_np(&ra,
		PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	/* slots 0 and 1 start at GiB-aligned addresses: PUD faults */
	for (i = 0; i < NSLOTS; i++) {
		pthread_rwlock_init(&slots[i].lock, &ra);
		map_slot(&setup, &slots[i], i < 2 ? 0 : i < 4 ? 1 : 2);
	}
	for (i = 0; i < sh->threads; i++) {
		th[i] = (struct thr){ .proc = proc, .idx = i,
			.rs = mix64(setup.rs + 0x1000 * (i + 1)) };
		if (pthread_create(&tid[i], NULL, thread_main, &th[i])) {
			violation(V_ERROR, 0, i, errno, 0, "pthread_create");
			sh->threads = i;
			break;
		}
	}
	for (i = 0; i < sh->threads; i++)
		pthread_join(tid[i], NULL);
	_exit(0);
}

/* ---- the coordinator: files, rounds, checks ---- */

struct target {
	const char *name;
	char path[200];		/* mount point, or the device */
	char dev[256], fstype[32];
	int devdax;
};

static int coord_fd[NFILES] = { -1, -1 };

/* syncfs() of the target: sync() would wait on any other file system */
static void sync_dir(void)
{
	int fd = open(sh->dir, O_RDONLY | O_DIRECTORY);

	if (fd >= 0) {
		syncfs(fd);
		close(fd);
	}
}

static void open_files(void)
{
	int f;

	for (f = 0; f < nfiles; f++)
		if (coord_fd[f] < 0)
			coord_fd[f] = open(sh->m[f].path, O_RDWR);
}

static void close_files(void)
{
	int f;

	for (f = 0; f < nfiles; f++) {
		if (coord_fd[f] >= 0)
			close(coord_fd[f]);
		coord_fd[f] = -1;
	}
}

/* the pattern over [off, off + len) of file f, through a mapping */
static int fill_file(int f, uint64_t off, uint64_t len, uint32_t v)
{
	struct model *m = &sh->m[f];
	uint8_t *p;

	p = map_aligned(len, off % SZ_1G ? SZ_2M : SZ_1G,
			PROT_READ | PROT_WRITE, MAP_SHARED, coord_fd[f], off, 0);
	if (p == MAP_FAILED)
		return -1;
	fill_words(p, off, len, v);
	munmap(p, len);
	model_set(m, off, len, v);
	return 0;
}

/* a fresh data file, sized, allocated and written with one generation */
static int make_data_file(int f)
{
	struct model *m = &sh->m[f];
	double t0 = now();
	int fd;

	if (coord_fd[f] >= 0)
		close(coord_fd[f]);
	unlink(m->path);
	sync_dir();	/* its old blocks free again */
	fd = open(m->path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	coord_fd[f] = fd;
	if (fd < 0 || ftruncate(fd, m->maxsize) ||
	    fallocate(fd, 0, 0, m->maxsize))
		return -1;
	m->size = m->maxsize;
	if (fill_file(f, 0, m->maxsize, new_value(m)))
		return -1;
	fsync(fd);
	if (m->maxsize >= SZ_1G)
		printf("# %s: new, %" PRIu64 " MiB written in %.1f s; its first GiB %s\n",
		       m->path, m->maxsize >> 20, now() - t0,
		       first_gib_intact(fd) ? "is one 1 GiB-aligned extent" :
		       "is NOT one 1 GiB-aligned extent (no PUDs)");
	return 0;
}

/*
 * Fill the file system up to slack of free space, so that the blocks a
 * punch or truncate frees are where new files go.  Statfs counts space the
 * file system keeps for itself (xfs), so allocate until ENOSPC if need be
 * and give the slack back.
 */
static void make_filler(struct target *tg)
{
	uint64_t freeb, want, done = 0, n;
	struct statvfs st;
	char path[320];
	int fd, full = 0;

	snprintf(path, sizeof(path), "%s/race.filler", tg->path);
	unlink(path);
	sync_dir();
	if (!slack || statvfs(tg->path, &st))
		return;
	freeb = (uint64_t)st.f_bfree * st.f_frsize;
	if (freeb <= slack + SZ_1G / 4)
		return;
	want = (freeb - slack) & ~(SZ_2M - 1);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return;
	for (; done < want; done += n) {
		n = min64(SZ_1G, want - done);
		if (fallocate(fd, 0, done, n)) {
			full = errno == ENOSPC;
			break;
		}
	}
	if (full) {
		/* what was allocated is allocated: find the size, give back */
		struct stat sb;

		if (!fstat(fd, &sb)) {
			done = (uint64_t)sb.st_blocks * 512;
			if (ftruncate(fd, done > slack ? (done - slack) &
				      ~(SZ_2M - 1) : 0))
				printf("# filler: ftruncate: %s\n", strerror(errno));
		}
		fsync(fd);
	}
	statvfs(tg->path, &st);
	printf("# filler: %" PRIu64 " MiB%s; %" PRIu64 " MiB free\n",
	       (uint64_t)lseek(fd, 0, SEEK_END) >> 20,
	       full ? " (ENOSPC first, slack given back)" : "",
	       (uint64_t)st.f_bfree * st.f_frsize >> 20);
	close(fd);
}

static int remount(struct target *tg)
{
	if (!tg->dev[0])
		return 0;	/* RACE_NODAX */
	sync_dir();
	close_files();
	if (umount(tg->path)) {
		printf("# umount %s: %s\n", tg->path, strerror(errno));
		return -1;
	}
	if (mount(tg->dev, tg->path, tg->fstype, 0, "dax")) {
		printf("# mount %s on %s: %s\n", tg->dev, tg->path, strerror(errno));
		return -1;
	}
	open_files();
	return 0;
}

/* pread every file: one word per @step bytes */
static void check_files(uint8_t *buf, uint64_t step)
{
	struct model *m;
	uint64_t off, n;
	uint8_t *p;
	struct stat st;
	int f;

	if (sh->devdax) {
		/* no read(2) either: through a new mapping */
		m = &sh->m[0];
		p = map_aligned(m->size, SZ_1G, PROT_READ, MAP_SHARED,
				coord_fd[0], 0, 0);
		if (p == MAP_FAILED) {
			violation(V_ERROR, m->owner, 0, errno, m->size,
				  "mapping the device after the round");
			return;
		}
		for (off = 0; off < m->size; off += IOMAX)
			check_mem(p + off, off, IOMAX, m->page, 0, step, m->owner,
				  V_MODEL, "a new mapping of the device after the round");
		munmap(p, m->size);
		return;
	}
	for (f = 0; f < nfiles; f++) {
		m = &sh->m[f];
		if (!sh->devdax && (fstat(coord_fd[f], &st) ||
				    (uint64_t)st.st_size != m->size))
			violation(V_MODEL, m->owner, m->size, st.st_size, m->size,
				  "file size after the round");
		for (off = 0; off < m->size; off += n) {
			n = min64(IOMAX, m->size - off);
			if (pread(coord_fd[f], buf, n, off) != (ssize_t)n) {
				violation(V_ERROR, m->owner, off, errno, n,
					  "pread after the round");
				break;
			}
			check_mem(buf, off, n, m->page, 0, step, m->owner,
				  V_MODEL, "pread of the whole file after the round");
		}
	}
}

static void check_victims(uint8_t *buf)
{
	uint64_t i, off, n, x, key, w, nv;
	char path[320];
	int fd;

	nv = min64(sh->nvictims, MAXVICTIMS);
	for (i = 0; i < nv; i++) {
		if (!sh->victims[i].ok)
			continue;
		victim_path(path, sizeof(path), i);
		fd = open(path, O_RDONLY);
		if (fd < 0) {
			violation(V_VICTIM_CHANGED, 0, i, errno, 0, "victim gone");
			continue;
		}
		key = victim_key(i);
		for (off = 0; off < sh->victims[i].len; off += n) {
			n = min64(IOMAX, sh->victims[i].len - off);
			if (pread(fd, buf, n, off) != (ssize_t)n) {
				violation(V_VICTIM_CHANGED, 0, off, errno, i,
					  "victim short");
				break;
			}
			for (x = 0; x < n; x += 8) {
				w = *(uint64_t *)(buf + x);
				if (w != victim_word(key, off + x)) {
					violation(V_VICTIM_CHANGED, (w >> 56) & 0xf,
						  off + x, w,
						  victim_word(key, off + x),
						  "victim file word");
					break;
				}
			}
			if (x < n)
				break;
		}
		close(fd);
	}
}

static void check_samples(void)
{
	uint64_t i, n = min64(sh->nsamples, NSAMPLES), w;
	struct sample *s;
	struct model *m;

	for (i = 0; i < n; i++) {
		s = &sh->samples[i];
		m = &sh->m[s->f];
		if (m->page[s->off / PAGE] != s->v) {
			sh->cnt[C_SAMPLES_SUPERSEDED]++;
			continue;
		}
		sh->cnt[C_SAMPLES_CHECKED]++;
		if (pread(coord_fd[s->f], &w, 8, s->off) != 8 ||
		    w != data_word(s->v, s->off))
			violation(V_SYNC_LOST, m->owner, s->off, w,
				  data_word(s->v, s->off),
				  "word msync(MS_SYNC) made durable");
	}
}

static void check_clones(uint8_t *buf)
{
	uint64_t off, n;
	struct clone *c;
	char path[320];
	int k, fd;

	for (k = 0; k < MAXCLONES; k++) {
		c = &sh->clones[k];
		if (!c->used)
			continue;
		snprintf(path, sizeof(path), "%s/race.clone.%d", sh->dir, k);
		fd = open(path, O_RDONLY);
		for (off = c->off; fd >= 0 && off < c->off + c->len; off += n) {
			n = min64(IOMAX, c->off + c->len - off);
			ssize_t r = pread(fd, buf, n, off);

			if (r != (ssize_t)n) {
				struct stat st;

				/* a short read: say what the clone was */
				if (r >= 0 && !fstat(fd, &st))
					printf("# clone %d (%s of file %d, [%#" PRIx64 ", +%#" PRIx64 ")): pread at %#" PRIx64 " returned %zd, size %#llx\n",
					       k, c->whole ? "FICLONE" : "FICLONERANGE",
					       c->f, c->off, c->len, off, r,
					       (unsigned long long)st.st_size);
				violation(V_CLONE, c->owner, off, r < 0 ? errno : r,
					  n, "clone pread");
				break;
			}
			check_mem(buf, off, n, c->page, c->off, 8, c->owner,
				  V_CLONE, "clone pread after the round");
		}
		if (fd < 0)
			violation(V_CLONE, c->owner, 0, errno, 0, "clone gone");
		else
			close(fd);
	}
}

static void remove_round_files(void)
{
	char path[320];
	uint64_t i;
	int k;

	for (i = 0; i < min64(sh->nvictims, MAXVICTIMS); i++) {
		victim_path(path, sizeof(path), i);
		unlink(path);
	}
	for (k = 0; k < MAXCLONES; k++) {
		snprintf(path, sizeof(path), "%s/race.clone.%d", sh->dir, k);
		unlink(path);
		sh->clones[k].used = 0;
	}
}

/*
 * The negative control: after the round, change file 1 and a victim behind
 * the model's back, once for each invariant, each in its own 4 MiB piece
 * of the file (the whole-file check reports one difference per piece):
 * every change must be caught.
 */
static void inject(struct thr *t)
{
	struct model *m = &sh->m[1];
	uint64_t punch = 16 * SZ_1M, durable = 24 * SZ_1M, other = 32 * SZ_1M;
	uint64_t w, idx;
	char path[320];
	int fd = coord_fd[1], vfd;
	uint32_t v;
	uint8_t *p;

	if (m->size < 36 * SZ_1M) {
		if (ftruncate(fd, m->maxsize))
			return;
		model_set(m, m->size, m->maxsize - m->size, V_ZERO);
		m->size = m->maxsize;
	}
	/* a: a punch and its victim, then a data word in the victim ... */
	fiemap_walk(fd, punch, ZONE, note_freed, NULL);
	if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, punch, ZONE))
		return;
	model_set(m, punch, ZONE, V_ZERO);
	fsync(fd);
	idx = sh->nvictims;
	make_victim(t, ZONE);
	victim_path(path, sizeof(path), idx);
	vfd = open(path, O_WRONLY);
	w = data_word(m->owner << 24 | 1, 64);
	if (vfd >= 0 && pwrite(vfd, &w, 8, 64) == 8)
		printf("# negative control: a data word written into victim %" PRIu64 "\n",
		       idx);
	if (vfd >= 0)
		close(vfd);
	/* ... and a victim word in the punched range of the data file */
	w = victim_word(victim_key(idx), 0);
	if (pwrite(fd, &w, 8, punch + 128) == 8)
		printf("# negative control: a victim word written into %s at %#" PRIx64 "\n",
		       m->path, punch + 128);
	/* b: a word msync(MS_SYNC) made durable, changed behind the model */
	v = new_value(m);
	p = map_aligned(ZONE, SZ_2M, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
			durable, 0);
	if (p != MAP_FAILED) {
		fill_words(p, durable, ZONE, v);
		model_set(m, durable, ZONE, v);
		msync(p, ZONE, MS_SYNC);
		munmap(p, ZONE);
		sh->samples[sh->nsamples++] = (struct sample){
			.f = 1, .v = v, .off = durable + 256 };
		w = data_word(v, durable + 256) ^ 1;
		if (pwrite(fd, &w, 8, durable + 256) == 8)
			printf("# negative control: a durable word changed at %#" PRIx64 "\n",
			       durable + 256);
	}
	/* c: a word of another generation */
	w = data_word(new_value(m), other);
	if (pwrite(fd, &w, 8, other) == 8)
		printf("# negative control: a word of another generation at %#" PRIx64 "\n",
		       other);
}

static int wait_workers(pid_t *pids, int n)
{
	double deadline = now() + STOP_WAIT;
	int i, left = n, status;
	char path[64], buf[256];
	pid_t r;
	FILE *fp;

	while (left && now() < deadline) {
		r = waitpid(-1, &status, WNOHANG);
		if (r <= 0) {
			usleep(100000);
			continue;
		}
		for (i = 0; i < n; i++) {
			if (pids[i] != r)
				continue;
			pids[i] = 0;
			left--;
			if (!WIFEXITED(status) || WEXITSTATUS(status))
				violation(V_ERROR, 0, i, status, 0,
					  "worker process died");
		}
	}
	if (!left)
		return 0;
	printf("# %d workers did not stop within %d s:\n", left, STOP_WAIT);
	for (i = 0; i < n; i++) {
		if (!pids[i])
			continue;
		snprintf(path, sizeof(path), "/proc/%d/stack", pids[i]);
		fp = fopen(path, "re");
		while (fp && fgets(buf, sizeof(buf), fp))
			printf("#   %d: %s", pids[i], buf);
		if (fp)
			fclose(fp);
		kill(pids[i], SIGKILL);
	}
	fp = fopen("/proc/sysrq-trigger", "we");
	if (fp) {
		fputs("w", fp);
		fclose(fp);
	}
	violation(V_ERROR, 0, left, 0, 0, "workers hung");
	return -1;
}

static void print_recs(uint64_t from)
{
	uint64_t i;
	struct rec *r;

	for (i = from; i < min64(sh->nrec, MAXREC); i++) {
		r = &sh->rec[i];
		printf("# VIOLATION seed %" PRIu64 " round %d pid %d: %s: %s, owner %#x, offset %#" PRIx64 ", got %#" PRIx64 ", want %#" PRIx64 "%s%s\n",
		       sh->seed, r->round, r->pid, vkind_names[r->kind], r->what,
		       r->owner, r->off, r->got, r->want,
		       r->lastop >= 0 ? ", page last set by " : "",
		       r->lastop < 0 ? "" : r->lastop < NOPS ?
		       op_names[r->lastop] : "the coordinator");
	}
}

static void print_ops(const char *what, const uint64_t *ops, double secs)
{
	uint64_t total = 0;
	char line[1024];
	int i, n = 0;

	for (i = 0; i < NOPS; i++)
		total += ops[i];
	n += snprintf(line + n, sizeof(line) - n, "# %s: %" PRIu64 " ops in %.0f s (%.1f/s):",
		      what, total, secs, secs > 0 ? total / secs : 0);
	for (i = 0; i < NOPS; i++)
		if (ops[i])
			n += snprintf(line + n, sizeof(line) - n, " %s %" PRIu64,
				      op_names[i], ops[i]);
	printf("%s\n", line);
}

static void print_counters(const uint64_t *c, const struct dax_vmstat *vm,
			   int have_vm)
{
	printf("#   victims %" PRIu64 " (%" PRIu64 " MiB), %" PRIu64 " on freed blocks (%" PRIu64 " KiB of %" PRIu64 " KiB freed); durable samples %" PRIu64 " (%" PRIu64 " checked, %" PRIu64 " overwritten later); words checked %" PRIu64 "\n",
	       c[C_VICTIMS], c[C_VICTIM_BYTES] >> 20, c[C_REUSED_VICTIMS],
	       c[C_REUSED_BYTES] >> 10, c[C_FREED_BYTES] >> 10, c[C_SAMPLES],
	       c[C_SAMPLES_CHECKED], c[C_SAMPLES_SUPERSEDED],
	       c[C_WORDS_CHECKED]);
	printf("#   MiB written %" PRIu64 ", MAP_SYNC maps %" PRIu64 ", pwrite under read-only maps %" PRIu64 ", misaligned mremaps %" PRIu64 ", unlocked-read SIGBUS %" PRIu64 ", clones %" PRIu64 " MiB with %" PRIu64 " CoW writes, moves %" PRIu64 " MiB (%" PRIu64 " busy, %" PRIu64 " refused), budget skips %" PRIu64 ", ENOSPC %" PRIu64 "\n",
	       c[C_BYTES_WRITTEN] >> 20, c[C_MAP_SYNC], c[C_RO_PWRITES],
	       c[C_MREMAP_SPLIT], c[C_RACY_SIGBUS], c[C_CLONE_BYTES] >> 20,
	       c[C_COW_WRITES], c[C_MOVED_BYTES] >> 20, c[C_MOVE_BUSY],
	       c[C_MOVE_REFUSED], c[C_BUDGET_SKIPS], c[C_ENOSPC]);
	if (have_vm)
		printf("#   /proc/vmstat: PUD faults %ld (fallbacks %ld), PMD faults %ld (fallbacks %ld)\n",
		       vm->pud, vm->pud_fallback, vm->pmd, vm->pmd_fallback);
}

static uint64_t total_viol(const uint64_t *v)
{
	uint64_t n = 0;
	int i;

	for (i = 0; i < NVKINDS; i++)
		n += v[i];
	return n;
}

static int setup_target(struct __test_metadata *_metadata, struct target *tg,
			uint64_t size)
{
	pthread_rwlockattr_t ra;
	pthread_mutexattr_t ma;
	struct model *m;
	int f, z, fd;

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		return -1;
	sh->seed = opt.seed;
	sh->procs = opt.procs;
	sh->threads = opt.threads;
	sh->devdax = tg->devdax;
	snprintf(sh->dir, sizeof(sh->dir), "%s", tg->path);
	pthread_rwlockattr_init(&ra);
	pthread_rwlockattr_setpshared(&ra, PTHREAD_PROCESS_SHARED);
	pthread_rwlockattr_setkind_np(&ra,
		PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
	pthread_mutex_init(&sh->clone_lock, &ma);
	nfiles = tg->devdax ? 1 : NFILES;
	for (f = 0; f < nfiles; f++) {
		m = &sh->m[f];
		for (z = 0; z < (int)NZONES; z++)
			pthread_rwlock_init(&m->zone[z], &ra);
		memset(m->page, 0xff, sizeof(m->page));	/* V_BEYOND */
		m->owner = tg->devdax ? OWNER_DEVDAX : OWNER_F0 + f;
		m->maxsize = tg->devdax ? size : f ? F1SIZE : F0SIZE;
		m->keep_gib = f == 0;
		if (tg->devdax)
			snprintf(m->path, sizeof(m->path), "%s", tg->path);
		else
			snprintf(m->path, sizeof(m->path), "%s/race.data.%d",
				 tg->path, f);
	}
	if (tg->devdax) {
		m = &sh->m[0];
		m->size = size;
		coord_fd[0] = open(m->path, O_RDWR);
		ASSERT_LE(0, coord_fd[0]);
		ASSERT_EQ(0, fill_file(0, 0, size, new_value(m)));
		return 0;
	}
	for (f = 0; f < nfiles; f++)
		ASSERT_EQ(0, make_data_file(f)) {
			TH_LOG("%s: %s", sh->m[f].path, strerror(errno));
		}
	sh->sync_ok = !strcmp(tg->fstype, "ext4") || !strcmp(tg->fstype, "xfs");
	/*
	 * daxpages --collapse: EXT4_IOC_MOVE_EXT moves ranges (1), xfs's
	 * XFS_IOC_SWAPEXT with XFS_SX_VERSION_DAXCOPY whole files (2)
	 */
	sh->move = !strcmp(tg->fstype, "ext4") ? 1 :
		   !strcmp(tg->fstype, "xfs") ? 2 : 0;
	/* does this file system clone DAX files? */
	fd = open(sh->m[1].path, O_RDWR);
	if (fd >= 0) {
		char path[320];
		int cfd;

		snprintf(path, sizeof(path), "%s/race.probe", tg->path);
		cfd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
		sh->reflink = cfd >= 0 && !ioctl(cfd, FICLONE, fd);
		if (cfd >= 0)
			close(cfd);
		unlink(path);
		close(fd);
	}
	return 0;
}

static void teardown_target(struct target *tg)
{
	char path[320];
	int f;

	close_files();
	if (!tg->devdax) {
		remove_round_files();
		for (f = 0; f < nfiles; f++)
			unlink(sh->m[f].path);
		snprintf(path, sizeof(path), "%s/race.filler", tg->path);
		unlink(path);
	}
	munmap(sh, sizeof(*sh));
	sh = NULL;
}

/* the target's mount (or device); 0, or -1 with a reason to skip */
static int find_target(struct target *tg, char *why, size_t n)
{
	char opts[512], dev[256], dir[256], type[32];
	struct stat st;
	FILE *fp;
	int found = 0;

	if (tg->devdax) {
		if (stat(tg->path, &st) || !S_ISCHR(st.st_mode)) {
			snprintf(why, n, "%s is not a device-dax node (HUGEDAX_DEVDAX)",
				 tg->path);
			return -1;
		}
		return 0;
	}
	if (getenv("RACE_NODAX")) {
		/* development on the host: any directory, no remount */
		snprintf(tg->fstype, sizeof(tg->fstype), "nodax");
		if (stat(tg->path, &st) || !S_ISDIR(st.st_mode)) {
			snprintf(why, n, "%s: no such directory", tg->path);
			return -1;
		}
		return 0;
	}
	fp = fopen("/proc/mounts", "re");
	while (fp && fscanf(fp, "%255s %255s %31s %511s %*d %*d", dev, dir,
			    type, opts) == 4) {
		if (strcmp(dir, tg->path))
			continue;
		snprintf(tg->dev, sizeof(tg->dev), "%s", dev);
		snprintf(tg->fstype, sizeof(tg->fstype), "%s", type);
		found = strstr(opts, "dax") != NULL;
	}
	if (fp)
		fclose(fp);
	if (!found) {
		snprintf(why, n, "%s is not a DAX mount", tg->path);
		return -1;
	}
	return 0;
}

static uint64_t devdax_bytes(const char *path)
{
	unsigned long long sz = 0;
	char sys[96];
	struct stat st;
	FILE *fp;

	if (stat(path, &st))
		return 0;
	snprintf(sys, sizeof(sys), "/sys/dev/char/%u:%u/size",
		 major(st.st_rdev), minor(st.st_rdev));
	fp = fopen(sys, "re");
	if (!fp)
		return 0;
	if (fscanf(fp, "%llu", &sz) != 1)
		sz = 0;
	fclose(fp);
	return sz;
}

static int selected(const char *name)
{
	const char *p = opt.targets;
	size_t l = strlen(name);

	while ((p = strstr(p, name))) {
		if ((p == opt.targets || strchr(" ,", p[-1])) &&
		    (!p[l] || strchr(" ,", p[l])))
			return 1;
		p += l;
	}
	return 0;
}

/*
 * Run the rounds on one target.  negative: one short round, then change
 * the files behind the model; returns the violations per kind in @viol.
 */
static void run_target(struct __test_metadata *_metadata, const char *name,
		       const char *path, int devdax, int negative,
		       uint64_t *viol)
{
	uint64_t ops0[NOPS], cnt0[NCOUNTERS], tot_ops[NOPS] = { 0 };
	uint64_t tot_cnt[NCOUNTERS] = { 0 }, rec0 = 0, size = 0;
	struct dax_vmstat vm0, vm1, vmd, vmt = { 0 };
	struct target tg = { .name = name, .devdax = devdax };
	struct thr ct = { .rs = opt.seed ^ 0x5151 };
	double t_end, t0, t_round, secs = 0;
	pid_t pids[MAXPROCS];
	char why[300];
	int i, r, have_vm = 1, hung = 0;
	uint8_t *buf;

	snprintf(tg.path, sizeof(tg.path), "%s", path);
	if (find_target(&tg, why, sizeof(why)))
		SKIP(return, "%s", why);
	if (devdax) {
		size = min64(devdax_bytes(path), MAXFILE) & ~(SZ_1G - 1);
		if (!size)
			SKIP(return, "%s: size unknown or under 1 GiB", path);
	}
	ASSERT_EQ(0, posix_memalign((void **)&buf, PAGE, IOMAX));
	ct.buf = buf;
	/*
	 * xfs needs more: it keeps per-AG reservations that statfs counts
	 * as free, and it places DAX data of a hole in aligned 2 MiB pieces
	 */
	slack = opt.slack != UINT64_MAX ? opt.slack :
		strcmp(tg.fstype, "xfs") ? 512 * SZ_1M : 1536 * SZ_1M;
	printf("# race %s on %s (%s): seed %" PRIu64 ", %d s in rounds of %d s, %d processes x %d threads, free space left %" PRIu64 " MiB\n",
	       name, path, devdax ? "device-dax" : tg.fstype, opt.seed,
	       negative ? 10 : opt.seconds, negative ? 10 : opt.round,
	       opt.procs, opt.threads, slack >> 20);
	t0 = now();
	ASSERT_EQ(0, setup_target(_metadata, &tg, size));
	if (!devdax)
		printf("# set-up %.1f s; reflink clones %s\n", now() - t0,
		       sh->reflink ? "work" : "not supported (no clone operations)");
	t_end = now() + (negative ? 10 : opt.seconds);
	for (sh->round = 0; ; sh->round++) {
		t_round = min64(opt.round, (uint64_t)max64(t_end - now(), 5));
		if (negative)
			t_round = 10;
		/*
		 * a fresh first GiB when punches or truncates broke it up
		 * (with the space of the last round's filler back)
		 */
		if (!devdax && sh->round && strcmp(env_or("RACE_REUSE", "0"), "0")) {
			/*
			 * with the last filler still there, the new file 0
			 * gets the blocks of the old one (a reproducer of the
			 * dax_associate_entry warning, results/race/)
			 */
			make_data_file(0);
		} else if (!devdax && sh->round && !first_gib_intact(coord_fd[0])) {
			snprintf(why, sizeof(why), "%s/race.filler", tg.path);
			unlink(why);
			make_data_file(0);
		}
		/*
		 * xfs loads a reflinked inode (a clone's source too) without
		 * DAX: after the remount such a file is in the page cache
		 */
		for (i = 0; !devdax && i < nfiles; i++) {
			if (file_is_dax(coord_fd[i]) == 1)
				continue;
			printf("# %s: not DAX after the remount (reflinked), made anew\n",
			       sh->m[i].path);
			snprintf(why, sizeof(why), "%s/race.filler", tg.path);
			unlink(why);
			make_data_file(i);
		}
		sh->budget = !slack ? UINT64_MAX / 2 :
			     slack > SPACE_MARGIN ? slack - SPACE_MARGIN : 0;
		sh->nvictims = sh->nfreed = sh->nsamples = 0;
		if (!devdax)
			make_filler(&tg);
		memcpy(ops0, sh->ops, sizeof(ops0));
		memcpy(cnt0, sh->cnt, sizeof(cnt0));
		if (dax_vmstat_read(&vm0))
			have_vm = 0;
		sh->stop = 0;
		fflush(NULL);
		t0 = now();
		for (i = 0; i < opt.procs; i++) {
			pids[i] = fork();
			if (!pids[i])
				worker_main(i);
			ASSERT_LT(0, pids[i]);
		}
		sh->wild = 0;
		while (now() - t0 < t_round && !total_viol(sh->viol)) {
			usleep(200000);
			sh->wild = now() - t0 > t_round / 3;
		}
		sh->stop = 1;
		hung = wait_workers(pids, opt.procs);
		t_round = now() - t0;
		secs += t_round;
		if (!dax_vmstat_read(&vm1)) {
			dax_vmstat_delta(&vmd, &vm0, &vm1);
			vmt.pud += vmd.pud;
			vmt.pud_fallback += vmd.pud_fallback;
			vmt.pmd += vmd.pmd;
			vmt.pmd_fallback += vmd.pmd_fallback;
		}
		if (hung)
			break;
		if (negative)
			inject(&ct);
		if (!devdax)
			check_victims(buf);
		if (!devdax && remount(&tg))
			violation(V_ERROR, 0, 0, errno, 0, "remount");
		check_files(buf, negative ? 8 : 64);
		if (!devdax) {
			check_samples();
			check_clones(buf);
		}
		for (i = 0; i < NOPS; i++) {
			ops0[i] = sh->ops[i] - ops0[i];
			tot_ops[i] += ops0[i];
		}
		for (i = 0; i < NCOUNTERS; i++) {
			cnt0[i] = sh->cnt[i] - cnt0[i];
			tot_cnt[i] += cnt0[i];
		}
		snprintf(why, sizeof(why), "%s round %d", name, sh->round);
		print_ops(why, ops0, t_round);
		print_counters(cnt0, &vmd, have_vm);
		print_recs(rec0);
		rec0 = min64(sh->nrec, MAXREC);
		if (!devdax)
			remove_round_files();
		if (negative || now() >= t_end - 2 || total_viol(sh->viol))
			break;
	}
	snprintf(why, sizeof(why), "%s total, %d rounds", name, sh->round + 1);
	print_ops(why, tot_ops, secs);
	print_counters(tot_cnt, &vmt, have_vm);
	for (i = 0; i < NVKINDS; i++) {
		viol[i] = sh->viol[i];
		if (viol[i] || i < V_FOREIGN)
			printf("#   violations %s: %" PRIu64 "\n", vkind_names[i],
			       viol[i]);
	}
	if (sh->nrec > MAXREC)
		printf("#   (%" PRIu64 " violation records, %d printed)\n",
		       sh->nrec, MAXREC);
	r = total_viol(viol) != 0;
	if (r && !negative)
		printf("# FAIL race %s: seed %" PRIu64 " (repeat: RACE_SEED=%" PRIu64 " RACE_SECONDS=%d RACE_PROCS=%d RACE_THREADS=%d race_stress -f %s)\n",
		       name, opt.seed, opt.seed, opt.seconds, opt.procs,
		       opt.threads, name);
	teardown_target(&tg);
	free(buf);
}

FIXTURE(race) {
	uint64_t viol[NVKINDS];
};

FIXTURE_SETUP(race)
{
}

FIXTURE_TEARDOWN(race)
{
}

static void run_fs(struct __test_metadata *_metadata, uint64_t *viol,
		   const char *name, const char *env, const char *def, int devdax)
{
	if (!selected(name))
		SKIP(return, "not in RACE_FS/-f (%s)", opt.targets);
	run_target(_metadata, name, env_or(env, def), devdax, 0, viol);
	RETURN_IF_SKIPPED();
	EXPECT_EQ((uint64_t)0, total_viol(viol)) {
		TH_LOG("seed %" PRIu64 ": %" PRIu64 " violations", opt.seed,
		       total_viol(viol));
	}
}

/* no timeout of its own: RACE_SECONDS and the guest's TIMEOUT bound it */
TEST_F_TIMEOUT(race, ext4, 30 * 86400)
{
	run_fs(_metadata, self->viol, "ext4", "HUGEDAX_EXT4", "/mnt/ext4", 0);
}

TEST_F_TIMEOUT(race, xfs, 30 * 86400)
{
	run_fs(_metadata, self->viol, "xfs", "HUGEDAX_XFS", "/mnt/xfs", 0);
}

TEST_F_TIMEOUT(race, devdax, 30 * 86400)
{
	run_fs(_metadata, self->viol, "devdax", "HUGEDAX_DEVDAX", "/dev/dax3.0", 1);
}

/*
 * Negative control: a short round on ext4, then one change behind the
 * model per invariant (a word of a data file in a victim, a victim word in
 * a data file, a durable word changed, a word of another generation):
 * each must be reported.
 */
TEST_F_TIMEOUT(race, negative_control, 3600)
{
	uint64_t *v = self->viol;

	if (!selected("ext4") && !selected("negative_control"))
		SKIP(return, "not in RACE_FS/-f (%s)", opt.targets);
	run_target(_metadata, "negative_control",
		   env_or("HUGEDAX_EXT4", "/mnt/ext4"), 0, 1, v);
	RETURN_IF_SKIPPED();
	TH_LOG("caught: victim read %" PRIu64 ", victim changed %" PRIu64 ", durable lost %" PRIu64 ", model %" PRIu64 ", errors %" PRIu64,
	       v[V_VICTIM_READ], v[V_VICTIM_CHANGED], v[V_SYNC_LOST],
	       v[V_MODEL], v[V_ERROR]);
	EXPECT_LE((uint64_t)1, v[V_VICTIM_READ]);
	EXPECT_LE((uint64_t)1, v[V_VICTIM_CHANGED]);
	EXPECT_LE((uint64_t)1, v[V_SYNC_LOST]);
	EXPECT_LE((uint64_t)2, v[V_MODEL]);	/* the durable word and the other generation */
	EXPECT_EQ((uint64_t)0, v[V_ERROR]);
}

static long env_long(const char *name, long def)
{
	const char *v = getenv(name);

	return v && *v ? strtol(v, NULL, 0) : def;
}

int main(int argc, char **argv)
{
	const char *s = getenv("RACE_SEED");
	int c;

	opt.seed = s && *s ? strtoull(s, NULL, 0) : new_seed();
	opt.seconds = env_long("RACE_SECONDS", 60);
	opt.round = env_long("RACE_ROUND", 30);
	opt.procs = env_long("RACE_PROCS", 4);
	opt.threads = env_long("RACE_THREADS", 2);
	opt.slack = env_long("RACE_SLACK_MB", -1);
	opt.slack = (int64_t)opt.slack < 0 ? UINT64_MAX : opt.slack * SZ_1M;
	opt.targets = env_or("RACE_FS", "ext4 xfs devdax");
	while ((c = getopt(argc, argv, "s:d:r:p:t:f:")) != -1) {
		switch (c) {
		case 's': opt.seed = strtoull(optarg, NULL, 0); break;
		case 'd': opt.seconds = atoi(optarg); break;
		case 'r': opt.round = atoi(optarg); break;
		case 'p': opt.procs = atoi(optarg); break;
		case 't': opt.threads = atoi(optarg); break;
		case 'f': opt.targets = optarg; break;
		default:
			fprintf(stderr, "usage: %s [-s seed] [-d seconds] [-r round seconds] [-p procs] [-t threads] [-f \"ext4 xfs devdax negative_control\"]\n",
				argv[0]);
			return 2;
		}
	}
	if (opt.procs < 1 || opt.procs > MAXPROCS || opt.threads < 1 ||
	    opt.threads > MAXTHREADS || opt.round < 1 || opt.seconds < 1) {
		fprintf(stderr, "%s: 1..%d processes, 1..%d threads, seconds >= 1\n",
			argv[0], MAXPROCS, MAXTHREADS);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("# race_stress seed %" PRIu64 "\n", opt.seed);
	return test_harness_run(argc, argv);
}
