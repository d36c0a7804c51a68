// SPDX-License-Identifier: GPL-2.0
/*
 * Existing DAX files get huge pages: `daxpages --collapse` moves a file
 * that maps at 4 KiB into aligned extents (EXT4_IOC_MOVE_EXT for DAX
 * files) while another process has it mapped and keeps writing to it.
 *
 * A file that maps at 4 KiB is made by moving a freshly written file into
 * a donor 4 KiB past the donor's aligned start (the same ioctl): every
 * 2 MiB of it then sits 4 KiB off its alignment.  Checked before (the
 * negative control) and after, with two signals each: FIEMAP alignment,
 * and the faults of reading one word per 4 KiB through a 1 GiB-aligned
 * mapping with the Dax*Mapped fields of smaps.  Data: the position-
 * dependent pattern of a seed, and a model of every word the writer
 * stored (through its mapping and with pwrite()) during the collapse.
 * The writer's small entries are left when it exits: a new mapping drops
 * them (and, as a control, does not while the writer still maps the
 * file).
 *
 * On the mounts of guest/test-job.sh: ext4 at HUGEDAX_EXT4 (/mnt/ext4),
 * xfs at HUGEDAX_XFS (/mnt/xfs), ext2 at HUGEDAX_EXT2 (/mnt/ext2), all
 * with -o dax.  Access order: every file is written with write(2) before
 * it is mapped.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include "dax_probe.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"
#include "dax_checks.h"

#define SLOTS	4096		/* words the writer stores to */

FIXTURE(collapse) {
	char dir[256], path[300], out[300], copy[300], daxpages[PATH_MAX];
	uint64_t seed;
};

FIXTURE_VARIANT(collapse) {
	const char *fstype, *env, *dir;
};

FIXTURE_VARIANT_ADD(collapse, ext4) {
	.fstype = "ext4", .env = "HUGEDAX_EXT4", .dir = "/mnt/ext4",
};

FIXTURE_VARIANT_ADD(collapse, xfs) {
	.fstype = "xfs", .env = "HUGEDAX_XFS", .dir = "/mnt/xfs",
};

#define KNOB	"/sys/kernel/mm/transparent_hugepage/dax_align"

FIXTURE_SETUP(collapse)
{
	char exe[PATH_MAX - 16];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char fstype[32];
	int dax;

	ASSERT_LT(0, n);
	exe[n] = '\0';
	*strrchr(exe, '/') = '\0';
	snprintf(self->daxpages, sizeof(self->daxpages), "%s/daxpages", exe);
	snprintf(self->dir, sizeof(self->dir), "%s",
		 env_or(variant->env, variant->dir));
	if (mount_of(self->dir, fstype, sizeof(fstype), &dax) ||
	    strcmp(fstype, variant->fstype) || !dax)
		SKIP(return, "%s is not %s mounted with -o dax", self->dir,
		     variant->fstype);
	snprintf(self->path, sizeof(self->path), "%s/collapse.%d", self->dir,
		 (int)getpid());
	snprintf(self->out, sizeof(self->out), "%s/collapse.%d.out", self->dir,
		 (int)getpid());
	snprintf(self->copy, sizeof(self->copy), "%s/collapse.%d.copy",
		 self->dir, (int)getpid());
	self->seed = new_seed();
	TH_LOG("seed %#llx", (unsigned long long)self->seed);
}

FIXTURE_TEARDOWN(collapse)
{
	unlink(self->path);
	unlink(self->out);
	unlink(self->copy);
}

/*
 * A new @path of @len bytes of the pattern, fsynced, that maps at 4 KiB
 * only.  ext4: written, then moved 4 KiB past the aligned start of a
 * donor.  xfs: written in 1 MiB appends with dax_align=off, which places
 * data as stock xfs does, off any alignment.
 */
static void make_shifted(struct __test_metadata *_metadata,
			 const FIXTURE_VARIANT(collapse) *variant,
			 FIXTURE_DATA(collapse) *self, size_t len)
{
	int fd;

	if (!strcmp(variant->fstype, "xfs")) {
		ASSERT_EQ(0, dax_align_knob("off"));
		unlink(self->path);
		fd = append_file_pattern(self->path, len, SZ_1M, self->seed);
		ASSERT_EQ(0, dax_align_knob("pud"));
		ASSERT_EQ(0, fd);
		fd = open(self->path, O_RDWR);
		ASSERT_LE(0, fd);
	} else {
		fd = open(self->path, O_RDWR | O_CREAT | O_TRUNC, 0644);
		ASSERT_LE(0, fd);
		ASSERT_EQ(0, write_file_pattern(fd, 0, len, self->seed));
		ASSERT_EQ(0, shift_off_alignment(fd, self->dir, len)) {
			TH_LOG("moving the file off its alignment: %s",
			       strerror(errno));
		}
	}
	ASSERT_EQ(1, file_is_dax(fd));
	ASSERT_EQ(0, fsync(fd));
	close(fd);
}

/* run daxpages ARGS... PATH with stdout and stderr to self->out */
static int run_daxpages(FIXTURE_DATA(collapse) *self, const char *path,
			const char *a1, const char *a2, double *secs)
{
	double t0 = now_us();
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		int out = open(self->out, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		dup2(out, 1);
		dup2(out, 2);
		if (a2)
			execl(self->daxpages, "daxpages", a1, a2, path, NULL);
		else
			execl(self->daxpages, "daxpages", a1, path, NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	if (secs)
		*secs = (now_us() - t0) / 1e6;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* 1 if daxpages' output (self->out) has @s */
static int out_has(FIXTURE_DATA(collapse) *self, const char *s)
{
	static char buf[8192];
	int fd = open(self->out, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return 0;
	buf[n] = '\0';
	return strstr(buf, s) != NULL;
}

static void log_out(struct __test_metadata *_metadata,
		    FIXTURE_DATA(collapse) *self)
{
	char line[512];
	FILE *f = fopen(self->out, "r");

	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		TH_LOG("daxpages: %s", line);
	}
	if (f)
		fclose(f);
}

/*
 * Map [0, len) of @fd 1 GiB-aligned and read one word per 4 KiB of its
 * first @touch bytes: the faults that took and the smaps fields.
 */
static long read_faults(struct __test_metadata *_metadata, int fd, size_t len,
			size_t touch, struct dax_kb *kb)
{
	struct fault_count fc;
	char *p = map_aligned(len, SZ_1G, PROT_READ, MAP_SHARED, fd, 0, 0);

	if (p == MAP_FAILED)
		return -1;
	fault_begin(&fc, calibrate_minflt());
	touch_read(p, touch, SZ_4K);
	fault_end(&fc);
	if (smaps_dax((unsigned long)p, kb))
		kb->pte = kb->pmd = kb->pud = -1;
	munmap(p, len);
	return fc.min + fc.maj;
}

/* where the writer stores: slot @i, a word in each 1/SLOTS of the file */
static off_t slot_off(size_t len, unsigned int i)
{
	return (off_t)i * (len / SLOTS) + (i * 8) % SZ_4K;
}

struct writer_state {
	volatile int stop;
	volatile uint64_t stores;	/* so far */
	volatile long pud_kb;		/* its own mapping, at the end */
	uint64_t value[SLOTS];		/* 0: the pattern */
};

/*
 * Store to the slots in turn, even rounds through a 1 GiB-aligned
 * mapping, odd ones with pwrite(), and record each value once stored.
 */
static void writer(int fd, size_t len, uint64_t seed, struct writer_state *ws)
{
	char *p = map_aligned(len, SZ_1G, PROT_READ | PROT_WRITE, MAP_SHARED,
			      fd, 0, 0);
	uint64_t n, v;
	struct dax_kb kb;

	if (p == MAP_FAILED)
		_exit(1);
	for (n = 1; !ws->stop; n++) {
		unsigned int i = (n * 2654435761U) % SLOTS;
		off_t off = slot_off(len, i);

		v = pattern_word(seed ^ n, off);
		if ((n / SLOTS) & 1) {
			if (pwrite(fd, &v, 8, off) != 8)
				_exit(2);
		} else {
			*(volatile uint64_t *)(p + off) = v;
		}
		ws->value[i] = v;
		ws->stores = n;
	}
	ws->pud_kb = smaps_dax((unsigned long)p, &kb) ? -1 : kb.pud;
	_exit(0);
}

/* the file is the pattern except where the writer's model says */
static void expect_model(struct __test_metadata *_metadata, int fd,
			 size_t len, uint64_t seed,
			 const struct writer_state *ws)
{
	static char buf[SZ_2M];
	unsigned int i, bad_slots = 0;
	off_t off, where = 0;
	size_t at;

	for (off = 0; off < (off_t)len; off += SZ_2M) {
		ASSERT_EQ((ssize_t)SZ_2M, pread(fd, buf, SZ_2M, off));
		for (i = 0; i < SLOTS; i++) {
			off_t s = slot_off(len, i);
			uint64_t *w = (uint64_t *)(buf + (s - off));

			if (s < off || s >= off + (off_t)SZ_2M)
				continue;
			if (ws->value[i] && *w != ws->value[i])
				bad_slots++;
			if (ws->value[i])
				*w = pattern_word(seed, s);
		}
		if (check_pattern(buf, SZ_2M, 64, seed, off, &at) && !where)
			where = off + at + 1;
	}
	EXPECT_EQ(0U, bad_slots);
	EXPECT_EQ(0, where) {
		TH_LOG("wrong data at %#llx", (long long)where - 1);
	}
}

TEST_F_TIMEOUT(collapse, file_at_4k_collapses_to_puds_under_a_writer,
	       TIMEOUT_LONG)
{
	const size_t len = 2 * SZ_1G;
	struct writer_state *ws;
	uint64_t during, wait;
	double secs, copy_secs;
	struct dax_kb kb;
	long faults;
	char *a, *b;
	int fd, cfd, rc, status, i;
	pid_t pid;

	make_shifted(_metadata, variant, self, len);
	fd = open(self->path, O_RDWR);
	ASSERT_LE(0, fd);

	/* negative control: before, 4 KiB pages only */
	EXPECT_EQ(0, fiemap_aligned_chunks(fd, 0, len, SZ_2M));
	faults = read_faults(_metadata, fd, len, 64 * SZ_1M, &kb);
	TH_LOG("before: reading 64 MiB took %ld faults; smaps pte %ld pmd %ld pud %ld kB",
	       faults, kb.pte, kb.pmd, kb.pud);
	EXPECT_LE((long)(64 * SZ_1M / SZ_4K), faults);
	EXPECT_EQ(64 * 1024, kb.pte);
	EXPECT_EQ(0, kb.pud);

	ws = mmap(NULL, sizeof(*ws), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ws);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		writer(fd, len, self->seed, ws);
	while (ws->stores < SLOTS)
		usleep(1000);

	during = ws->stores;
	rc = run_daxpages(self, self->path, "--collapse", NULL, &secs);
	during = ws->stores - during;
	log_out(_metadata, self);
	EXPECT_EQ(0, rc);
	EXPECT_TRUE(out_has(self, "after: 1G pages 2048 MiB, 2M pages 0 MiB")) {
		char groups[512] = "", dev[64];

		block_dev_name(self->dir, dev, sizeof(dev));
		ext4_free_groups_describe(dev, groups, sizeof(groups));
		TH_LOG("entirely free groups now: %s", groups);
	}
	TH_LOG("the writer stored %llu words during the collapse",
	       (unsigned long long)during);
	EXPECT_LT(0ULL, during);
	/*
	 * The writer goes on after the collapse, until it has stored one
	 * round of its slots through the mapping (every other round is
	 * pwrite(), which maps nothing): a fixed sleep was a round of
	 * pwrite()s on a busy host, and one GiB then had no small entry.
	 */
	for (wait = ws->stores + 2 * SLOTS, i = 0;
	     ws->stores < wait && i < 60000; i++)
		usleep(1000);
	ASSERT_LE(wait, ws->stores);
	/*
	 * Negative control: while the writer maps the file, its small
	 * entries stay, and another mapping gets no PUD.
	 */
	faults = read_faults(_metadata, fd, len, len, &kb);
	TH_LOG("while the writer maps it: reading 2 GiB took %ld faults; smaps pte %ld pmd %ld pud %ld kB",
	       faults, kb.pte, kb.pmd, kb.pud);
	EXPECT_EQ(0, kb.pud);
	EXPECT_LT(2 + FAULT_SLACK, faults);
	ws->stop = 1;
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, status);
	/*
	 * The writer's mapping keeps the page tables its small faults made
	 * during the collapse; its entries are left when it exits, and the
	 * next mapping's PUD faults drop them.
	 */
	TH_LOG("the writer's own mapping at its end: %ld kB by PUD", ws->pud_kb);

	/* after: two PUDs, by FIEMAP and by faults and smaps */
	EXPECT_EQ(2, fiemap_aligned_chunks(fd, 0, len, SZ_1G));
	faults = read_faults(_metadata, fd, len, len, &kb);
	TH_LOG("after: reading 2 GiB took %ld faults; smaps pte %ld pmd %ld pud %ld kB",
	       faults, kb.pte, kb.pmd, kb.pud);
	EXPECT_GE(2 + FAULT_SLACK, faults);
	EXPECT_EQ((long)(len >> 10), kb.pud);

	expect_model(_metadata, fd, len, self->seed, ws);

	/* a plain pmem-to-pmem copy of the same size, for comparison */
	cfd = open(self->copy, O_RDWR | O_CREAT | O_TRUNC, 0644);
	ASSERT_LE(0, cfd);
	ASSERT_EQ(0, falloc_chunked(cfd, len, SZ_1G));
	a = map_aligned(len, SZ_1G, PROT_READ, MAP_SHARED, fd, 0, 0);
	b = map_aligned(len, SZ_1G, PROT_READ | PROT_WRITE, MAP_SHARED, cfd,
			0, 0);
	ASSERT_NE(MAP_FAILED, a);
	ASSERT_NE(MAP_FAILED, b);
	touch_read(a, len, SZ_4K);
	touch_write(b, len, SZ_4K, 1, 0);
	copy_secs = now_us();
	memcpy(b, a, len);
	ASSERT_EQ(0, msync(b, len, MS_SYNC));
	copy_secs = (now_us() - copy_secs) / 1e6;
	TH_LOG("throughput: collapse of 2 GiB %.2f s (%.0f MiB/s), plain copy through mappings with msync %.2f s (%.0f MiB/s)",
	       secs, 2048 / secs, copy_secs, 2048 / copy_secs);
	munmap(a, len);
	munmap(b, len);
	close(cfd);
	close(fd);
}

TEST_F_TIMEOUT(collapse, dry_run_changes_nothing_then_tail_maps_pmds,
	       TIMEOUT_SHORT)
{
	const size_t len = 64 * SZ_1M;
	struct dax_kb kb;
	off_t where = 0;
	long faults;
	int fd;

	make_shifted(_metadata, variant, self, len);
	fd = open(self->path, O_RDONLY);
	ASSERT_LE(0, fd);

	EXPECT_EQ(0, run_daxpages(self, self->path, "--collapse", "--dry-run",
				  NULL));
	log_out(_metadata, self);
	EXPECT_TRUE(out_has(self, "0-64 MiB: would move"));
	EXPECT_EQ(0, fiemap_aligned_chunks(fd, 0, len, SZ_2M));
	faults = read_faults(_metadata, fd, len, len, &kb);
	TH_LOG("dry run: %ld faults, smaps pte %ld pmd %ld kB", faults,
	       kb.pte, kb.pmd);
	EXPECT_LE((long)(len / SZ_4K), faults);
	EXPECT_EQ(0, kb.pmd);

	EXPECT_EQ(0, run_daxpages(self, self->path, "--collapse", NULL, NULL));
	log_out(_metadata, self);
	EXPECT_TRUE(out_has(self, "after: 1G pages 0 MiB, 2M pages 64 MiB, 4K pages 0 KiB"));
	EXPECT_EQ(32, fiemap_aligned_chunks(fd, 0, len, SZ_2M));
	faults = read_faults(_metadata, fd, len, len, &kb);
	TH_LOG("collapsed: %ld faults, smaps pte %ld pmd %ld kB", faults,
	       kb.pte, kb.pmd);
	EXPECT_GE(32 + FAULT_SLACK, faults);
	EXPECT_EQ(64 * 1024, kb.pmd);
	EXPECT_EQ(0, check_file_pattern(fd, 0, len, 8, self->seed, &where));
	close(fd);
}

/*
 * A page of the file held by a pipe (vmsplice() takes a reference, as
 * O_DIRECT and RDMA do) fails the move with EBUSY, which daxpages reports
 * after its retries, and loses nothing; once the pipe is drained the
 * collapse goes through.
 */
TEST_F_TIMEOUT(collapse, pinned_page_fails_the_move_with_ebusy, TIMEOUT_SHORT)
{
	const size_t len = 16 * SZ_1M;
	static char drain[SZ_4K];
	struct iovec iov;
	off_t where = 0;
	int fd, pipefd[2];
	char *p;

	make_shifted(_metadata, variant, self, len);
	fd = open(self->path, O_RDONLY);
	ASSERT_LE(0, fd);
	p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, pipe(pipefd));
	iov.iov_base = p + 5 * SZ_1M;
	iov.iov_len = SZ_4K;
	ASSERT_EQ((ssize_t)SZ_4K, vmsplice(pipefd[1], &iov, 1, 0));

	EXPECT_EQ(1, run_daxpages(self, self->path, "--collapse", NULL, NULL));
	log_out(_metadata, self);
	EXPECT_TRUE(out_has(self, "pinned"));
	EXPECT_EQ(0, fiemap_aligned_chunks(fd, 0, len, SZ_2M));
	EXPECT_EQ(0, check_file_pattern(fd, 0, len, 8, self->seed, &where));
	EXPECT_EQ(0, check_pattern(p, len, 8, self->seed, 0, NULL));

	ASSERT_EQ((ssize_t)SZ_4K, read(pipefd[0], drain, sizeof(drain)));
	EXPECT_EQ(0, check_pattern(drain, SZ_4K, 8, self->seed, 5 * SZ_1M,
				   NULL));
	EXPECT_EQ(0, run_daxpages(self, self->path, "--collapse", NULL, NULL));
	log_out(_metadata, self);
	EXPECT_EQ(8, fiemap_aligned_chunks(fd, 0, len, SZ_2M));
	EXPECT_EQ(0, check_file_pattern(fd, 0, len, 8, self->seed, &where));
	EXPECT_EQ(0, check_pattern(p, len, 8, self->seed, 0, NULL));
	munmap(p, len);
	close(pipefd[0]);
	close(pipefd[1]);
	close(fd);
}

/* clear refusals: a file that is not DAX, and ext2, which cannot move */
TEST_F(collapse, refuses_what_it_cannot_move)
{
	const char *ext2 = env_or("HUGEDAX_EXT2", "/mnt/ext2");
	char other[300];
	off_t where = 0;
	int fd, ofd;

	if (strcmp(variant->fstype, "ext4"))
		SKIP(return, "the ext4 case covers the refusals");

	/* not DAX: the test binary itself, on the 9p root */
	EXPECT_EQ(1, run_daxpages(self, self->daxpages, "--collapse", NULL,
				  NULL));
	EXPECT_TRUE(out_has(self, "not a DAX file"));
	log_out(_metadata, self);

	snprintf(other, sizeof(other), "%s/collapse.%d", ext2, (int)getpid());
	fd = open(other, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0) {
		ASSERT_EQ(0, write_file_pattern(fd, 0, 4 * SZ_1M, self->seed));
		EXPECT_EQ(1, run_daxpages(self, other, "--collapse", NULL,
					  NULL));
		EXPECT_TRUE(out_has(self, "cannot move the blocks of DAX files"));
		log_out(_metadata, self);
		EXPECT_EQ(0, check_file_pattern(fd, 0, 4 * SZ_1M, 8,
						self->seed, &where));
		close(fd);
		unlink(other);
	}

	/* the ioctl itself: a donor on another filesystem, the file itself */
	fd = open(self->path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, write_file_pattern(fd, 0, 4 * SZ_1M, self->seed));
	ofd = open("/tmp", O_TMPFILE | O_RDWR, 0600);
	if (ofd >= 0) {
		ASSERT_EQ(0, ftruncate(ofd, 4 * SZ_1M));
		errno = 0;
		EXPECT_EQ(-1, ext4_move_ext(fd, ofd, 0, 0, 4 * SZ_1M, NULL));
		EXPECT_EQ(EXDEV, errno);
		close(ofd);
	}
	errno = 0;
	EXPECT_EQ(-1, ext4_move_ext(fd, fd, 0, 0, 4 * SZ_1M, NULL));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, check_file_pattern(fd, 0, 4 * SZ_1M, 8, self->seed,
					&where));
	close(fd);
}

TEST_HARNESS_MAIN
