// SPDX-License-Identifier: GPL-2.0
/*
 * A reset while ext4 or xfs moves the head of a growing DAX file loses
 * nothing that was durable, and leaves a consistent file system.
 *
 * Two boots per seed (scripts/run-move-reset.sh).  HUGEDAX_MOVE_RESET=write
 * on a fresh ext4: a neighbour file of 8 MiB and the file of 60 MiB are
 * written with a pattern of the seed and fsynced; then a child appends to
 * the file in 1 MiB writes up to 128 MiB, so that its write at 64 MiB
 * moves the head (ext4_ext_dax_move_head(); HUGEDAX_MOVE_KIND=head-xfs:
 * the same on xfs, xfs_reflink_dax_move(); head-xfs-noreflink: on xfs
 * without reflink, xfs_dax_move(); head-nojournal: on ext4 made without a
 * journal), and right after that write makes a new file of
 * 60 MiB, which may get the blocks the head left (it must not be able to
 * overwrite the head as the next boot finds it), and the parent resets the
 * guest (sysrq b) a delay derived from the seed after the child starts
 * that write: before, during or after the move.  The delay is a fraction,
 * from 0 to 3, of the time the same write took on a scratch file just
 * before, so that the seeds spread over the move however fast the guest.  HUGEDAX_MOVE_RESET=verify
 * (next boot, after log replay at mount): the file's first 60 MiB and the
 * neighbour must hold their patterns (pread, and through a mapping), and
 * every 4 KiB page between 60 MiB and the file size the pattern or zeros.
 * Where the head ended up is reported (moved or not).  The job checks the
 * file system with e2fsck -fn and xfs_repair -n afterwards; an ext4
 * without a journal is first repaired with e2fsck -fy, which must find no
 * block claimed twice.  Negative control: the data
 * checks must fail against the pattern of another seed.
 *
 * HUGEDAX_MOVE_KIND=collapse, or collapse-xfs for xfs (the write boot; the
 * verify boot reads it back): instead, a 1 GiB file that maps at 4 KiB
 * (on ext4 moved 4 KiB off its alignment, on xfs written with
 * dax_align=off) is written with the pattern and fsynced, and the reset comes
 * during `daxpages --collapse` of it, a fraction from 0 to 1.2 of the time
 * the same collapse took on a scratch file.  Next boot every byte of it
 * must hold the pattern, however far the collapse got (reported from
 * FIEMAP).
 */
#include <errno.h>
#include <fcntl.h>
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

#define HEAD	(60 * SZ_1M)	/* durable before the reset */
#define GROWN	(128 * SZ_1M)
#define CROSS	(64 * SZ_1M)	/* the write from here on moves the head */
#define NEIGH	(8 * SZ_1M)
#define CSIZE	SZ_1G		/* the file that is collapsed */

FIXTURE(move_reset) {
	char path[256], neigh[256], reuse[256], state[256], daxpages[300];
	char dir[200], kind[32];
	uint64_t seed;
	bool collapse, xfs;
};

/*
 * the files of a kind: "head" and "collapse" on ext4, "head-nojournal" on
 * ext4 made without a journal (the write job's mkfs), "head-xfs" and
 * "collapse-xfs" on xfs, "head-xfs-noreflink" on xfs made without reflink
 */
static void set_kind(FIXTURE_DATA(move_reset) *self, const char *kind)
{
	snprintf(self->kind, sizeof(self->kind), "%s", kind);
	self->collapse = !strncmp(kind, "collapse", 8);
	self->xfs = !strcmp(kind, "collapse-xfs") ||
		    !strncmp(kind, "head-xfs", 8);
	snprintf(self->dir, sizeof(self->dir), "%s",
		 self->xfs ? env_or("HUGEDAX_XFS", "/mnt/xfs") :
			     env_or("HUGEDAX_EXT4", "/mnt/ext4"));
	snprintf(self->path, sizeof(self->path), "%s/move-reset", self->dir);
	snprintf(self->neigh, sizeof(self->neigh), "%s/move-reset.neighbour",
		 self->dir);
	snprintf(self->reuse, sizeof(self->reuse), "%s/move-reset.reuse",
		 self->dir);
}

FIXTURE_SETUP(move_reset)
{
	set_kind(self, env_or("HUGEDAX_MOVE_KIND", "head"));
	snprintf(self->state, sizeof(self->state), "%s/move-reset.txt",
		 env_or("HUGEDAX_PERSIST_DIR", "/mnt/out"));
	self->seed = strtoull(env_or("HUGEDAX_MOVE_SEED", "1"), NULL, 0);
	snprintf(self->daxpages, sizeof(self->daxpages), "%s/daxpages",
		 env_or("HUGEDAX_BIN", "/mnt/out/bin"));
}

FIXTURE_TEARDOWN(move_reset)
{
}

static int mode_is(const char *mode)
{
	return !strcmp(env_or("HUGEDAX_MOVE_RESET", ""), mode);
}

static void fsync_path(struct __test_metadata *_metadata, const char *path)
{
	int fd = open(path, O_RDONLY);

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, fsync(fd));
	close(fd);
}

/*
 * append [HEAD, end) of the pattern in 1 MiB writes; -1 on error.  With
 * @reuse, right after the write that moves the head, write a new file of
 * HEAD bytes there with another pattern: it is likely to get the blocks
 * the head left, as soon as the file system hands them out again.
 */
static int append_from_head(int fd, size_t end, uint64_t seed, int signal_fd,
			    double *cross_us, const char *reuse)
{
	static char buf[SZ_1M];
	size_t off;

	for (off = HEAD; off < end; off += SZ_1M) {
		double t0 = now_us();

		fill_pattern(buf, SZ_1M, seed, off);
		if (off == CROSS && signal_fd >= 0 && write(signal_fd, "g", 1) != 1)
			return -1;
		if (write(fd, buf, SZ_1M) != SZ_1M)
			return -1;
		if (off == CROSS && cross_us)
			*cross_us = now_us() - t0;
		if (off == CROSS && reuse &&
		    append_file_pattern(reuse, HEAD, SZ_1M, seed ^ 2))
			return -1;
	}
	return 0;
}

/* how long the write at 64 MiB, which moves the head, takes here */
static double time_the_move(struct __test_metadata *_metadata, const char *path)
{
	double us = 0;
	char scratch[280];
	int fd;

	snprintf(scratch, sizeof(scratch), "%s.scratch", path);
	if (append_file_pattern(scratch, HEAD, SZ_1M, 7))
		return 0;
	fsync_path(_metadata, scratch);
	fd = open(scratch, O_WRONLY | O_APPEND);
	if (fd < 0 || append_from_head(fd, CROSS + SZ_1M, 7, -1, &us, NULL))
		us = 0;
	close(fd);
	unlink(scratch);
	sync();		/* its aligned GiB is free again once committed */
	return us;
}

static void write_then_reset(struct __test_metadata *_metadata,
			     FIXTURE_DATA(move_reset) *self)
{
	unsigned int frac = (self->seed * 2654435761U >> 8) % 1000;
	unsigned int delay;
	double move_us;
	char dir[256], go;
	uint64_t phys;
	int fd, pipefd[2];
	FILE *f;
	pid_t pid;

	move_us = time_the_move(_metadata, self->path);
	ASSERT_LT(0, move_us);
	delay = move_us * 3 * frac / 1000;
	ASSERT_EQ(0, append_file_pattern(self->neigh, NEIGH, SZ_1M,
					 self->seed ^ 1));
	fsync_path(_metadata, self->neigh);
	ASSERT_EQ(0, append_file_pattern(self->path, HEAD, SZ_1M, self->seed));
	fsync_path(_metadata, self->path);
	snprintf(dir, sizeof(dir), "%s", self->dir);
	fsync_path(_metadata, dir);
	fd = open(self->path, O_WRONLY | O_APPEND);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, fiemap_first_physical(fd, &phys));

	f = fopen(self->state, "w");
	ASSERT_NE(NULL, f);
	fprintf(f, "%llu %s\n", (unsigned long long)self->seed, self->kind);
	fclose(f);
	TH_LOG("seed %llu: head at %#llx before; the write at 64 MiB took %.0f us on a scratch file; reset %u us into it",
	       (unsigned long long)self->seed, (unsigned long long)phys,
	       move_us, delay);

	/*
	 * Another process commits the journal again and again (fsync() of a
	 * small file), so that a reset can also come after the move's first
	 * transaction, which records the new run past EOF, has committed and
	 * before its second (ext4: orphan recovery then frees the run).
	 */
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		char other[300];

		snprintf(other, sizeof(other), "%s/fsync.tmp", dir);
		for (;;) {
			int o = open(other, O_WRONLY | O_CREAT | O_TRUNC, 0644);

			if (o < 0 || write(o, dir, 64) != 64 || fsync(o) ||
			    close(o) || unlink(other))
				_exit(1);
		}
	}
	ASSERT_EQ(0, pipe(pipefd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (append_from_head(fd, GROWN, self->seed, pipefd[1], NULL,
				     self->reuse))
			_exit(1);
		fsync(fd);
		pause();
		_exit(0);
	}
	ASSERT_EQ(1, read(pipefd[0], &go, 1));
	usleep(delay);
	fflush(stdout);
	fflush(stderr);
	f = fopen("/proc/sysrq-trigger", "w");
	ASSERT_NE(NULL, f);
	fputs("b", f);
	fclose(f);
	sleep(10);
	ASSERT_TRUE(0) TH_LOG("the guest did not reset");
}

/* daxpages --collapse @path, its output to the console; its exit status */
static int collapse(FIXTURE_DATA(move_reset) *self, const char *path)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		execl(self->daxpages, "daxpages", "--collapse", path, NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/*
 * A file of CSIZE with the pattern of @seed that maps at 4 KiB, fsynced:
 * on ext4 moved 4 KiB off its alignment, on xfs appended with
 * dax_align=off (stock placement).
 */
static void make_shifted(struct __test_metadata *_metadata,
			 FIXTURE_DATA(move_reset) *self, const char *path,
			 uint64_t seed)
{
	int fd, ret;

	if (self->xfs) {
		ASSERT_EQ(0, dax_align_knob("off"));
		ret = append_file_pattern(path, CSIZE, SZ_1M, seed);
		ASSERT_EQ(0, dax_align_knob("pud"));
		ASSERT_EQ(0, ret);
		fd = open(path, O_RDWR);
		ASSERT_LE(0, fd);
	} else {
		fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
		ASSERT_LE(0, fd);
		ASSERT_EQ(0, write_file_pattern(fd, 0, CSIZE, seed));
		ASSERT_EQ(0, shift_off_alignment(fd, self->dir, CSIZE));
	}
	ASSERT_EQ(0, fsync(fd));
	close(fd);
	fsync_path(_metadata, self->dir);
}

static void collapse_then_reset(struct __test_metadata *_metadata,
				FIXTURE_DATA(move_reset) *self)
{
	unsigned int frac = (self->seed * 2654435761U >> 8) % 1000;
	char scratch[280];
	unsigned int delay;
	double t0, us;
	FILE *f;
	int fd;
	pid_t pid;

	/* how long the collapse takes here */
	snprintf(scratch, sizeof(scratch), "%s.scratch", self->path);
	make_shifted(_metadata, self, scratch, 7);
	t0 = now_us();
	ASSERT_EQ(0, collapse(self, scratch));
	us = now_us() - t0;
	unlink(scratch);
	sync();		/* its aligned GiB is free again once committed */
	delay = us * 1.2 * frac / 1000;

	ASSERT_EQ(0, append_file_pattern(self->neigh, NEIGH, SZ_1M,
					 self->seed ^ 1));
	fsync_path(_metadata, self->neigh);
	make_shifted(_metadata, self, self->path, self->seed);
	fd = open(self->path, O_RDONLY);
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, fiemap_aligned_chunks(fd, 0, CSIZE, SZ_2M));
	close(fd);

	f = fopen(self->state, "w");
	ASSERT_NE(NULL, f);
	fprintf(f, "%llu %s\n", (unsigned long long)self->seed, self->kind);
	fclose(f);
	TH_LOG("seed %llu: collapsing 1 GiB took %.0f us on a scratch file; reset %u us into it",
	       (unsigned long long)self->seed, us, delay);

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		collapse(self, self->path);
		pause();
		_exit(0);
	}
	usleep(delay);
	fflush(stdout);
	fflush(stderr);
	f = fopen("/proc/sysrq-trigger", "w");
	ASSERT_NE(NULL, f);
	fputs("b", f);
	fclose(f);
	sleep(10);
	ASSERT_TRUE(0) TH_LOG("the guest did not reset");
}

static void collapsed_data_survives(struct __test_metadata *_metadata,
				    FIXTURE_DATA(move_reset) *self,
				    uint64_t seed)
{
	off_t where = 0;
	struct stat st;
	size_t off = 0;
	char *p;
	int fd;

	fd = open(self->neigh, O_RDONLY);
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, check_file_pattern(fd, 0, NEIGH, 8, seed ^ 1, &where))
		TH_LOG("neighbour: wrong data at %#llx", (long long)where);
	close(fd);

	fd = open(self->path, O_RDONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, fstat(fd, &st));
	EXPECT_EQ((off_t)CSIZE, st.st_size);
	TH_LOG("seed %llu: after the reset, %ld of 512 2 MiB ranges aligned, %ld of 1 GiB",
	       (unsigned long long)seed,
	       fiemap_aligned_chunks(fd, 0, CSIZE, SZ_2M),
	       fiemap_aligned_chunks(fd, 0, CSIZE, SZ_1G));
	EXPECT_EQ(0, check_file_pattern(fd, 0, CSIZE, 64, seed, &where))
		TH_LOG("wrong data at %#llx", (long long)where);
	/* negative control: another seed's pattern must not match */
	EXPECT_NE(0, check_file_pattern(fd, 0, SZ_1M, SZ_4K, seed + 1, &where));
	p = mmap(NULL, CSIZE, PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(0, check_pattern(p, CSIZE, 520, seed, 0, &off))
		TH_LOG("mapped: wrong data at %#zx", off);
	munmap(p, CSIZE);
	close(fd);

	/* and the collapse finishes now */
	EXPECT_EQ(0, collapse(self, self->path));
	fd = open(self->path, O_RDONLY);
	ASSERT_LE(0, fd);
	EXPECT_EQ(1, fiemap_aligned_chunks(fd, 0, CSIZE, SZ_1G));
	EXPECT_EQ(0, check_file_pattern(fd, 0, CSIZE, 64, seed, &where))
		TH_LOG("after a new collapse: wrong data at %#llx",
		       (long long)where);
	close(fd);
}

/* the pattern of @seed, or zeros, in every page of [off, end) */
static long pages_not_pattern_or_zero(int fd, off_t off, off_t end,
				      uint64_t seed, long *zero)
{
	static char buf[SZ_4K], zeros[SZ_4K];
	long bad = 0;

	for (; off < end; off += SZ_4K) {
		size_t n = end - off < (off_t)SZ_4K ? (size_t)(end - off) : SZ_4K;

		if (pread(fd, buf, n, off) != (ssize_t)n)
			return -1;
		if (!memcmp(buf, zeros, n))
			(*zero)++;
		else if (check_pattern(buf, n & ~7UL, 8, seed, off, NULL))
			bad++;
	}
	return bad;
}

static void durable_data_survives(struct __test_metadata *_metadata,
				  FIXTURE_DATA(move_reset) *self)
{
	unsigned long long seed;
	char kind[32] = "";
	long zero = 0, bad;
	off_t where = 0;
	struct stat st;
	uint64_t phys;
	size_t off = 0;
	FILE *f;
	char *p;
	int fd;

	f = fopen(self->state, "r");
	ASSERT_NE(NULL, f) TH_LOG("no %s: the write boot did not run", self->state);
	ASSERT_EQ(2, fscanf(f, "%llu %31s", &seed, kind));
	fclose(f);
	set_kind(self, kind);
	if (self->collapse) {
		collapsed_data_survives(_metadata, self, seed);
		return;
	}

	fd = open(self->neigh, O_RDONLY);
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, check_file_pattern(fd, 0, NEIGH, 8, seed ^ 1, &where))
		TH_LOG("neighbour: wrong data at %#llx", (long long)where);
	close(fd);

	fd = open(self->path, O_RDONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, fstat(fd, &st));
	ASSERT_LE((off_t)HEAD, st.st_size);
	ASSERT_EQ(0, fiemap_first_physical(fd, &phys));
	TH_LOG("seed %llu: size %#llx, head at %#llx (%s)", seed,
	       (long long)st.st_size, (unsigned long long)phys,
	       phys & (SZ_1G - 1) ? "not moved" : "moved to a GiB");
	EXPECT_EQ(0, check_file_pattern(fd, 0, HEAD, 8, seed, &where))
		TH_LOG("head: wrong data at %#llx", (long long)where);
	/* negative control: another seed's pattern must not match */
	EXPECT_NE(0, check_file_pattern(fd, 0, HEAD, SZ_1M, seed + 1, &where));

	p = mmap(NULL, HEAD, PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(0, check_pattern(p, HEAD, 8, seed, 0, &off))
		TH_LOG("head, mapped: wrong data at %#zx", off);
	munmap(p, HEAD);

	bad = pages_not_pattern_or_zero(fd, HEAD, st.st_size, seed, &zero);
	TH_LOG("appended part: %lld bytes, %ld pages of zeros, %ld wrong",
	       (long long)(st.st_size - HEAD), zero, bad);
	EXPECT_EQ(0, bad);
	close(fd);
}

/* one test, so that neither boot reports the other's as skipped */
TEST_F_TIMEOUT(move_reset, write_then_verify, TIMEOUT_LONG)
{
	if (mode_is("write") && self->collapse)
		collapse_then_reset(_metadata, self);
	else if (mode_is("write"))
		write_then_reset(_metadata, self);
	else if (mode_is("verify"))
		durable_data_survives(_metadata, self);
	else
		SKIP(return, "HUGEDAX_MOVE_RESET is neither write nor verify");
}

TEST_HARNESS_MAIN
