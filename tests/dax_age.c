// SPDX-License-Identifier: GPL-2.0
/*
 * dax_age - age a file system the same way on every kernel, so that the
 * huge-mapping share of new files can be compared on a used file system.
 *
 *   dax_age DIR SEED PERCENT [WRITERS]
 *
 * The workload (deterministic for a SEED with one writer):
 *  1. Fill: keep 16 files open and grow them round-robin, 64 KiB pwrite()
 *     at a time, so that their allocations interleave.  Each file's final
 *     size is drawn log-uniformly from 4 KiB to 32 MiB (whole 4 KiB
 *     pages); a file that reaches its size is closed and a new one takes
 *     its slot.  Stop when PERCENT of the file system is used.  With
 *     WRITERS (2, 4, 8 or 16), as many processes do this at once, each
 *     with 16 / WRITERS of the slots and the seed SEED + its number; how
 *     their blocks interleave, and so how many files each makes, depends
 *     on the scheduler, as with any concurrent appenders.
 *  2. Punch: delete every file whose seeded coin comes up heads (about
 *     half of them, of all sizes), leaving free space in pieces of every
 *     size between used ones.
 * Prints one line per phase: files, used KiB, used percent.
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
#include <sys/statvfs.h>
#include <sys/wait.h>

#define SLOTS		16
#define PIECE		(64 * 1024)
#define MIN_SIZE	4096ULL
#define MAX_SIZE	(32ULL << 20)

/* splitmix64: a small generator that is the same everywhere */
static uint64_t next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* log-uniform in [MIN_SIZE, MAX_SIZE], a multiple of 4 KiB */
static uint64_t draw_size(uint64_t *s)
{
	int lo = 12, hi = 25;	/* 2^12 .. 2^25 */
	int e = lo + (int)(next(s) % (hi - lo));
	uint64_t base = 1ULL << e;
	uint64_t size = base + next(s) % base;

	size &= ~(MIN_SIZE - 1);
	return size < MIN_SIZE ? MIN_SIZE : size > MAX_SIZE ? MAX_SIZE : size;
}

static int used(const char *dir, unsigned long long *kib, double *pct)
{
	struct statvfs s;

	if (statvfs(dir, &s))
		return -1;
	*kib = (unsigned long long)(s.f_blocks - s.f_bfree) * s.f_frsize / 1024;
	*pct = 100.0 * (double)(s.f_blocks - s.f_bfree) / (double)s.f_blocks;
	return 0;
}

struct slot {
	int fd;
	long id;
	uint64_t size, done;
};

static void name(char *path, size_t n, const char *dir, int writers, int w,
		 long id)
{
	if (writers == 1)
		snprintf(path, n, "%s/a%ld", dir, id);
	else
		snprintf(path, n, "%s/a%d-%ld", dir, w, id);
}

/*
 * Writer @w of @writers: keep @slots files open and grow them round-robin
 * until @want percent of the file system is used.  Returns the number of
 * files made, or -1.
 */
static long fill(const char *dir, uint64_t seed, int writers, int w,
		 int slots, double want)
{
	static char buf[PIECE];
	struct slot slot[SLOTS];
	unsigned long long kib;
	uint64_t s = seed;
	char path[4096];
	long files = 0, n;
	double pct;
	int i;

	memset(buf, 0xa5, sizeof(buf));
	for (i = 0; i < slots; i++)
		slot[i].fd = -1;
	for (n = 0; ; n++) {
		struct slot *sl = &slot[n % slots];
		size_t len;

		if (n % 1024 == 0) {
			if (used(dir, &kib, &pct))
				return -1;
			if (pct >= want)
				break;
		}
		if (sl->fd < 0) {
			sl->id = files++;
			sl->size = draw_size(&s);
			sl->done = 0;
			name(path, sizeof(path), dir, writers, w, sl->id);
			sl->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			if (sl->fd < 0) {
				perror(path);
				return -1;
			}
		}
		len = sl->size - sl->done < PIECE ? sl->size - sl->done : PIECE;
		if (pwrite(sl->fd, buf, len, sl->done) != (ssize_t)len) {
			perror("pwrite");
			return -1;
		}
		sl->done += len;
		if (sl->done == sl->size) {
			close(sl->fd);
			sl->fd = -1;
		}
	}
	for (i = 0; i < slots; i++)
		if (slot[i].fd >= 0)
			close(slot[i].fd);
	return files;
}

int main(int argc, char **argv)
{
	unsigned long long kib;
	long total = 0, gone = 0, i, *files;
	int writers = 1, w, status, bad = 0;
	uint64_t seed, coin;
	char path[4096];
	double pct, want;
	const char *dir;

	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: %s DIR SEED PERCENT [WRITERS]\n", argv[0]);
		return 2;
	}
	dir = argv[1];
	seed = strtoull(argv[2], NULL, 0);
	want = atof(argv[3]);
	if (argc == 5)
		writers = atoi(argv[4]);
	if (writers < 1 || writers > SLOTS || SLOTS % writers) {
		fprintf(stderr, "WRITERS: 1, 2, 4, 8 or 16\n");
		return 2;
	}
	if (mkdir(dir, 0755) && errno != EEXIST) {
		perror(dir);
		return 1;
	}
	files = mmap(NULL, SLOTS * sizeof(*files), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (files == MAP_FAILED) {
		perror("mmap");
		return 1;
	}

	/* one writer in this process; more at once, each in its own */
	if (writers == 1) {
		files[0] = fill(dir, seed, 1, 0, SLOTS, want);
	} else {
		for (w = 0; w < writers; w++) {
			pid_t pid = fork();

			if (pid < 0) {
				perror("fork");
				return 1;
			}
			if (!pid) {
				files[w] = fill(dir, seed + w, writers, w,
						SLOTS / writers, want);
				_exit(files[w] < 0);
			}
		}
		while (wait(&status) > 0)
			bad |= !WIFEXITED(status) || WEXITSTATUS(status);
	}
	for (w = 0; w < writers; w++) {
		if (files[w] < 0)
			bad = 1;
		total += files[w];
	}
	if (bad)
		return 1;
	sync();
	used(dir, &kib, &pct);
	printf("age: fill\t%ld files\t%llu KiB used\t%.1f%%\n", total, kib, pct);

	for (w = 0; w < writers; w++) {
		coin = (seed + w) ^ 0x5a5a5a5a5a5a5a5aULL;
		for (i = 0; i < files[w]; i++) {
			if (!(next(&coin) & 1))
				continue;
			name(path, sizeof(path), dir, writers, w, i);
			if (unlink(path)) {
				perror(path);
				return 1;
			}
			gone++;
		}
	}
	sync();
	used(dir, &kib, &pct);
	printf("age: punch\t%ld files\t%llu KiB used\t%.1f%%\n", total - gone,
	       kib, pct);
	return 0;
}
