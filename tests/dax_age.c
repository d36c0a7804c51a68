// SPDX-License-Identifier: GPL-2.0
/*
 * dax_age - age a file system the same way on every kernel, so that the
 * huge-mapping share of new files can be compared on a used file system.
 *
 *   dax_age DIR SEED PERCENT
 *
 * The workload (deterministic for a SEED):
 *  1. Fill: keep 16 files open and grow them round-robin, 64 KiB pwrite()
 *     at a time, so that their allocations interleave.  Each file's final
 *     size is drawn log-uniformly from 4 KiB to 32 MiB (whole 4 KiB
 *     pages); a file that reaches its size is closed and a new one takes
 *     its slot.  Stop when PERCENT of the file system is used.
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
#include <sys/stat.h>
#include <sys/statvfs.h>

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

int main(int argc, char **argv)
{
	static char buf[PIECE];
	struct slot slot[SLOTS];
	unsigned long long kib;
	long files = 0, gone = 0, i, n;
	uint64_t seed, s, coin;
	char path[4096];
	double pct, want;
	const char *dir;

	if (argc != 4) {
		fprintf(stderr, "usage: %s DIR SEED PERCENT\n", argv[0]);
		return 2;
	}
	dir = argv[1];
	seed = strtoull(argv[2], NULL, 0);
	want = atof(argv[3]);
	s = seed;
	memset(buf, 0xa5, sizeof(buf));
	if (mkdir(dir, 0755) && errno != EEXIST) {
		perror(dir);
		return 1;
	}

	for (i = 0; i < SLOTS; i++)
		slot[i].fd = -1;
	for (n = 0; ; n++) {
		struct slot *sl = &slot[n % SLOTS];
		size_t len;

		if (n % 1024 == 0) {
			if (used(dir, &kib, &pct))
				return 1;
			if (pct >= want)
				break;
		}
		if (sl->fd < 0) {
			sl->id = files++;
			sl->size = draw_size(&s);
			sl->done = 0;
			snprintf(path, sizeof(path), "%s/a%ld", dir, sl->id);
			sl->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			if (sl->fd < 0) {
				perror(path);
				return 1;
			}
		}
		len = sl->size - sl->done < PIECE ? sl->size - sl->done : PIECE;
		if (pwrite(sl->fd, buf, len, sl->done) != (ssize_t)len) {
			perror("pwrite");
			return 1;
		}
		sl->done += len;
		if (sl->done == sl->size) {
			close(sl->fd);
			sl->fd = -1;
		}
	}
	for (i = 0; i < SLOTS; i++)
		if (slot[i].fd >= 0)
			close(slot[i].fd);
	sync();
	used(dir, &kib, &pct);
	printf("age: fill\t%ld files\t%llu KiB used\t%.1f%%\n", files, kib, pct);

	coin = seed ^ 0x5a5a5a5a5a5a5a5aULL;
	for (i = 0; i < files; i++) {
		if (!(next(&coin) & 1))
			continue;
		snprintf(path, sizeof(path), "%s/a%ld", dir, i);
		if (unlink(path)) {
			perror(path);
			return 1;
		}
		gone++;
	}
	sync();
	used(dir, &kib, &pct);
	printf("age: punch\t%ld files\t%llu KiB used\t%.1f%%\n", files - gone,
	       kib, pct);
	return 0;
}
