// SPDX-License-Identifier: GPL-2.0
/*
 * daxpages --collapse: move the blocks of DAX files into aligned extents,
 * so that later faults map 2 MiB and 1 GiB pages.
 *
 * For each file, the page sizes its block layout allows (FIEMAP: a whole
 * GiB or 2 MiB of the file on one physically contiguous run congruent to
 * its offset) are printed before and after.  Each whole GiB that does not
 * allow a PUD, and the whole 2 MiB ranges of a shorter tail that do not
 * allow PMDs, are moved: an unlinked donor file on the same filesystem is
 * fallocated there (the kernel places a GiB of a large file on an aligned
 * GiB while one is free, a 2 MiB range on an aligned 2 MiB), and
 * EXT4_IOC_MOVE_EXT moves the data into the donor's blocks 32 MiB per
 * call while the file stays open and mapped by others.  The donor's copy
 * of the range (the old blocks) is punched at once, so a collapse needs
 * at most a GiB of free space.  A donor range that allows no more than the
 * file has is given back without a move.  On xfs the donor is fallocated
 * whole and XFS_IOC_SWAPEXT (XFS_SX_VERSION_DAXCOPY: the kernel copies the
 * data under the file's locks) swaps all of it at once.
 *
 * Physical offsets are those of the filesystem's device; a namespace made
 * with "-a 1G" keeps them aligned in memory too.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <xfs/xfs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#include "collapse.h"

#ifndef STATX_ATTR_DAX
#define STATX_ATTR_DAX	0x00200000
#endif

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

/* fs/xfs/libxfs/xfs_fs.h of this kernel */
#ifndef XFS_SX_VERSION_DAXCOPY
#define XFS_SX_VERSION_DAXCOPY	1
#endif

#define SZ_2M		(2ULL << 20)
#define SZ_1G		(1ULL << 30)
#define STEP		(32ULL << 20)	/* bytes moved per call */
#define BUSY_TRIES	20		/* pinned pages: 20 x 50 ms */

struct run {				/* physically contiguous */
	uint64_t logical, physical, len;
};

struct layout {
	struct run *r;
	size_t n;
};

struct mix {
	uint64_t bytes[3];		/* 4K, 2M, 1G */
};

static int fiemap_read(int fd, uint64_t start, uint64_t len, struct layout *l)
{
	size_t cap = 0, count = 256;
	struct fiemap *fm = calloc(1, sizeof(*fm) +
				   count * sizeof(struct fiemap_extent));
	uint64_t pos = start, end = start + len;
	int last = 0;

	if (!fm)
		return -1;
	l->n = 0;
	l->r = NULL;
	while (!last && pos < end) {
		memset(fm, 0, sizeof(*fm));
		fm->fm_start = pos;
		fm->fm_length = end - pos;
		fm->fm_flags = FIEMAP_FLAG_SYNC;
		fm->fm_extent_count = count;
		if (ioctl(fd, FS_IOC_FIEMAP, fm)) {
			free(fm);
			return -1;
		}
		if (!fm->fm_mapped_extents)
			break;
		for (unsigned int i = 0; i < fm->fm_mapped_extents; i++) {
			struct fiemap_extent *e = &fm->fm_extents[i];
			struct run *p = l->n ? &l->r[l->n - 1] : NULL;

			if (e->fe_flags & FIEMAP_EXTENT_LAST)
				last = 1;
			pos = e->fe_logical + e->fe_length;
			/* unwritten or not, a fault maps what is contiguous */
			if (p && p->logical + p->len == e->fe_logical &&
			    p->physical + p->len == e->fe_physical) {
				p->len += e->fe_length;
				continue;
			}
			if (l->n == cap) {
				cap = cap ? 2 * cap : 64;
				l->r = realloc(l->r, cap * sizeof(*l->r));
				if (!l->r) {
					free(fm);
					return -1;
				}
			}
			l->r[l->n++] = (struct run){ e->fe_logical,
						     e->fe_physical,
						     e->fe_length };
		}
	}
	free(fm);
	return 0;
}

/* does one run hold [off, off + size) congruent to off modulo size? */
static int allows(const struct layout *l, uint64_t off, uint64_t size)
{
	for (size_t i = 0; i < l->n; i++) {
		const struct run *r = &l->r[i];

		if (r->logical > off || r->logical + r->len < off + size)
			continue;
		return ((r->physical + off - r->logical) & (size - 1)) == 0;
	}
	return 0;
}

static int has_hole(const struct layout *l, uint64_t off, uint64_t len)
{
	uint64_t covered = 0;

	for (size_t i = 0; i < l->n; i++) {
		const struct run *r = &l->r[i];
		uint64_t a = r->logical > off ? r->logical : off;
		uint64_t b = r->logical + r->len < off + len ?
			     r->logical + r->len : off + len;

		if (b > a)
			covered += b - a;
	}
	return covered < len;
}

/* the page sizes that [off, off + len) of a file of @size allows */
static void mix_add(const struct layout *l, uint64_t off, uint64_t len,
		    struct mix *m)
{
	uint64_t end = off + len;

	if (len == SZ_1G && allows(l, off, SZ_1G)) {
		m->bytes[2] += SZ_1G;
		return;
	}
	for (; off + SZ_2M <= end; off += SZ_2M)
		m->bytes[allows(l, off, SZ_2M) ? 1 : 0] += SZ_2M;
	m->bytes[0] += end - off;
}

static void mix_print(const char *file, const char *what, const struct mix *m)
{
	printf("%s: %s: 1G pages %llu MiB, 2M pages %llu MiB, 4K pages %llu KiB\n",
	       file, what, (unsigned long long)(m->bytes[2] >> 20),
	       (unsigned long long)(m->bytes[1] >> 20),
	       (unsigned long long)(m->bytes[0] >> 10));
}

/* the chunks a file of @size is judged and moved by: GiBs, then the tail */
static uint64_t chunk_len(uint64_t off, uint64_t size)
{
	uint64_t left = size - off;

	if (left >= SZ_1G)
		return SZ_1G;
	return left & ~(SZ_2M - 1);
}

static int file_mix(int fd, uint64_t size, struct mix *m)
{
	struct layout l;

	memset(m, 0, sizeof(*m));
	if (fiemap_read(fd, 0, size, &l))
		return -1;
	for (uint64_t off = 0; off < size; ) {
		uint64_t len = chunk_len(off, size);

		if (!len)
			len = size - off;
		mix_add(&l, off, len, m);
		off += len;
	}
	free(l.r);
	return 0;
}

/* a DAX donor on the same filesystem, unlinked */
static int donor_open(const char *file)
{
	char *copy = strdup(file), *dir = dirname(copy);
	char path[4096];
	struct statx stx;
	int fd;

	fd = open(dir, O_TMPFILE | O_RDWR, 0600);
	if (fd >= 0 && !statx(fd, "", AT_EMPTY_PATH, STATX_BASIC_STATS, &stx) &&
	    (stx.stx_attributes & STATX_ATTR_DAX)) {
		free(copy);
		return fd;
	}
	if (fd >= 0)
		close(fd);
	/*
	 * dax=inode: a new file is DAX if its directory has FS_XFLAG_DAX.
	 * Else set the flag on an empty file; it takes effect once the inode
	 * is evicted, which the kernel does at the last close.
	 */
	snprintf(path, sizeof(path), "%s/.daxpages.%d", dir, (int)getpid());
	free(copy);
	fd = open(path, O_CREAT | O_EXCL | O_RDWR, 0600);
	if (fd < 0)
		return -1;
	{
		struct fsxattr fa;

		if (!ioctl(fd, FS_IOC_FSGETXATTR, &fa)) {
			fa.fsx_xflags |= FS_XFLAG_DAX;
			ioctl(fd, FS_IOC_FSSETXATTR, &fa);
		}
	}
	close(fd);
	fd = open(path, O_RDWR);
	unlink(path);
	if (fd < 0)
		return -1;
	if (statx(fd, "", AT_EMPTY_PATH, STATX_BASIC_STATS, &stx) ||
	    !(stx.stx_attributes & STATX_ATTR_DAX)) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	return fd;
}

static int move_range(int fd, int donor, uint64_t off, uint64_t len,
		      unsigned int bsize)
{
	for (uint64_t done = 0; done < len; ) {
		uint64_t step = len - done < STEP ? len - done : STEP;
		struct move_extent me = {
			.donor_fd = donor,
			.orig_start = (off + done) / bsize,
			.donor_start = (off + done) / bsize,
			.len = step / bsize,
		};
		int tries = 0;

		while (ioctl(fd, EXT4_IOC_MOVE_EXT, &me)) {
			if (errno != EBUSY || ++tries == BUSY_TRIES)
				return -1;
			usleep(50000);
		}
		done += step;
	}
	return 0;
}

/* ext2 shares ext4's magic number but has no EXT4_IOC_MOVE_EXT */
static int can_move(int fd)
{
	struct move_extent me = { .donor_fd = -1 };

	return ioctl(fd, EXT4_IOC_MOVE_EXT, &me) && errno != ENOTTY;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * xfs: one donor for the whole file, swapped in at once, if its blocks
 * allow more than the file's.  1 if moved, 0 if not worth it, -1.
 */
static int xfs_collapse(const char *file, int fd, uint64_t size,
			const struct mix *have)
{
	struct xfs_swapext sx = {
		.sx_version = XFS_SX_VERSION_DAXCOPY,
		.sx_fdtarget = fd,
		.sx_length = size,
	};
	struct layout dl;
	struct mix could;
	int donor, tries = 0, ret = -1;

	/* the swap wants the sizes on disk, and the file's blocks stable */
	if (fsync(fd))
		return -1;
	donor = donor_open(file);
	if (donor < 0)
		return -1;
	if (ftruncate(donor, size))
		goto out;
	for (uint64_t off = 0; off < size; off += SZ_1G) {
		uint64_t len = size - off < SZ_1G ? size - off : SZ_1G;

		if (fallocate(donor, 0, off, len))
			goto out;
	}
	if (fiemap_read(donor, 0, size, &dl))
		goto out;
	memset(&could, 0, sizeof(could));
	for (uint64_t off = 0; off < size; ) {
		uint64_t len = chunk_len(off, size);

		if (!len)
			len = size - off;
		mix_add(&dl, off, len, &could);
		off += len;
	}
	free(dl.r);
	if (could.bytes[2] < have->bytes[2] ||
	    (could.bytes[2] == have->bytes[2] &&
	     could.bytes[1] <= have->bytes[1])) {
		printf("%s: no better free space, left as is\n", file);
		ret = 0;
		goto out;
	}
	sx.sx_fdtmp = donor;
	while (ioctl(fd, XFS_IOC_SWAPEXT, &sx)) {
		if (errno != EBUSY || ++tries == BUSY_TRIES)
			goto out;
		usleep(50000);
	}
	ret = 1;
out:
	close(donor);	/* frees the old blocks, or the unused ones */
	return ret;
}

static int collapse_one(const char *file, int dry_run)
{
	struct mix before, after;
	struct statx stx;
	struct statfs sfs;
	uint64_t size, moved = 0;
	int fd, donor = -1, ret = 1, xfs = 0, need_any = 0;
	double t0;

	fd = open(file, O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "daxpages: %s: %s\n", file, strerror(errno));
		return 1;
	}
	if (statx(fd, "", AT_EMPTY_PATH, STATX_BASIC_STATS, &stx) ||
	    fstatfs(fd, &sfs)) {
		fprintf(stderr, "daxpages: %s: %s\n", file, strerror(errno));
		goto out;
	}
	if (!S_ISREG(stx.stx_mode) || !(stx.stx_attributes & STATX_ATTR_DAX)) {
		fprintf(stderr, "daxpages: %s: not a DAX file\n", file);
		goto out;
	}
	xfs = sfs.f_type == XFS_SUPER_MAGIC;
	if (!xfs && (sfs.f_type != EXT4_SUPER_MAGIC || !can_move(fd))) {
		fprintf(stderr,
			"daxpages: %s: cannot move the blocks of DAX files on this filesystem (ext4 and xfs only)\n",
			file);
		goto out;
	}
	if (!dry_run) {
		int rw = open(file, O_RDWR);

		if (rw < 0) {
			fprintf(stderr, "daxpages: %s: %s\n", file,
				strerror(errno));
			goto out;
		}
		close(fd);
		fd = rw;
	}
	size = stx.stx_size;
	if (file_mix(fd, size, &before)) {
		fprintf(stderr, "daxpages: %s: FIEMAP: %s\n", file,
			strerror(errno));
		goto out;
	}
	mix_print(file, "before", &before);

	t0 = now();
	for (uint64_t off = 0; off < size; ) {
		uint64_t len = chunk_len(off, size);
		struct layout l, dl;
		int need, holes;
		struct mix have = { 0 }, could = { 0 };

		if (!len)
			break;
		if (fiemap_read(fd, off, len, &l))
			goto fail;
		mix_add(&l, off, len, &have);
		/* a whole GiB wants a PUD, a tail PMDs */
		need = len == SZ_1G ? !have.bytes[2] : have.bytes[1] < len;
		holes = has_hole(&l, off, len);
		free(l.r);
		if (need && holes)
			printf("%s: %llu-%llu MiB: has holes, left as is\n",
			       file, (unsigned long long)(off >> 20),
			       (unsigned long long)((off + len) >> 20));
		if (!need || holes) {
			off += len;
			continue;
		}
		need_any = 1;
		if (dry_run || xfs) {
			printf("%s: %llu-%llu MiB: %s\n", file,
			       (unsigned long long)(off >> 20),
			       (unsigned long long)((off + len) >> 20),
			       dry_run ? "would move" : "to move");
			off += len;
			continue;
		}
		if (donor < 0) {
			donor = donor_open(file);
			if (donor < 0 || ftruncate(donor, size)) {
				fprintf(stderr, "daxpages: %s: no DAX donor file: %s\n",
					file, strerror(errno));
				goto out;
			}
		}
		/*
		 * Blocks freed by the previous chunk's move become free for
		 * the allocator when their transaction commits: commit first.
		 */
		if (syncfs(donor) || fallocate(donor, 0, off, len))
			goto fail;
		if (fiemap_read(donor, off, len, &dl))
			goto fail;
		mix_add(&dl, off, len, &could);
		free(dl.r);
		if (len == SZ_1G && !could.bytes[2])
			printf("%s: %llu-%llu MiB: no free aligned GiB, 2M pages at most\n",
			       file, (unsigned long long)(off >> 20),
			       (unsigned long long)((off + len) >> 20));
		if (could.bytes[2] > have.bytes[2] ||
		    (could.bytes[2] == have.bytes[2] &&
		     could.bytes[1] > have.bytes[1])) {
			if (move_range(fd, donor, off, len, stx.stx_blksize))
				goto fail;
			moved += len;
		} else {
			printf("%s: %llu-%llu MiB: no better free space, left as is\n",
			       file, (unsigned long long)(off >> 20),
			       (unsigned long long)((off + len) >> 20));
		}
		/* the donor now holds the old blocks (or its own): free them */
		if (fallocate(donor, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			      off, len))
			goto fail;
		off += len;
	}
	if (dry_run) {
		ret = 0;
		goto out;
	}
	if (xfs && need_any) {
		int r = xfs_collapse(file, fd, size, &before);

		if (r < 0)
			goto fail;
		if (r > 0)
			moved = size;
	}
	if (moved) {
		double t = now() - t0;

		printf("%s: moved %llu MiB in %.3f s (%.0f MiB/s)\n", file,
		       (unsigned long long)(moved >> 20), t,
		       t > 0 ? (moved >> 20) / t : 0.0);
	}
	if (file_mix(fd, size, &after))
		goto fail;
	mix_print(file, "after", &after);
	ret = 0;
	goto out;
fail:
	if (errno == EBUSY)
		fprintf(stderr,
			"daxpages: %s: pages of the file are pinned (O_DIRECT or RDMA in flight); try again later\n",
			file);
	else if (xfs && errno == EINVAL)
		fprintf(stderr,
			"daxpages: %s: xfs cannot swap this file's extents (its data fork format; xfs_fsr meets the same), or this kernel lacks XFS_SX_VERSION_DAXCOPY\n",
			file);
	else if (errno == ENOTTY || errno == EOPNOTSUPP)
		fprintf(stderr,
			"daxpages: %s: this kernel or filesystem cannot move the blocks of DAX files\n",
			file);
	else
		fprintf(stderr, "daxpages: %s: %s\n", file, strerror(errno));
out:
	if (donor >= 0)
		close(donor);
	close(fd);
	return ret;
}

int collapse_files(char **files, int n, int dry_run)
{
	int ret = 0;

	for (int i = 0; i < n; i++)
		ret |= collapse_one(files[i], dry_run);
	return ret;
}
