// SPDX-License-Identifier: GPL-2.0
/*
 * dax_latency - what single operations on a DAX file cost at each page size
 *
 *   dax_latency --header
 *   dax_latency NAME PATH OP PAGES REPS
 *
 * PAGES (comma separated, e.g. 1G,2M,4K) picks the mapping's alignment,
 * and so the largest page it can get: 1G a 1 GiB-aligned address, 2M one
 * 2 MiB past a 1 GiB boundary, 4K one 4 KiB past a 2 MiB boundary.  OP:
 *   first-write  a new file PATH.lat, fallocate 1 GiB, map it, time the
 *                first store at offset 0 (the fault zeroes and converts
 *                what it maps); bytes: what FIEMAP shows written after it
 *   sparse-write the same after ftruncate instead of fallocate (the fault
 *                allocates)
 *   mapsync      first-write through a MAP_SYNC mapping (the fault also
 *                commits the metadata)
 *   msync        a written 1 GiB file (sized first, then pwrite), mapped
 *                and read; then a store to a
 *                random 4 KiB page and msync() of that page, timed;
 *                bytes: written back (fs_dax dax_writeback_one, first rep)
 *   truncate     a written 1 GiB file, mapped and read; ftruncate(0) timed
 *   cow          a written 1 GiB file and a reflink copy of it (FICLONE),
 *                the copy mapped and read; the first store to it, timed
 *                (the fault copies what it writes); bytes: what FIEMAP no
 *                longer shows shared after it
 *   reader       first-write of the first GiB of a 2 GiB fallocated file
 *                while another process read-faults 4 KiB pages of its
 *                second GiB: the reader's per-access times during the
 *                write; note: the writer's time
 *   writer       the same with the other process write-faulting the
 *                second GiB's 4 KiB pages: each is a first write, which
 *                converts (and zeroes) its block, as another writer of
 *                the file would
 *   fsyncer      one write(2) of 1 GiB into a new, empty file while another
 *                process makes, writes, fsync()s and removes a 4 KiB
 *                file in the same directory, again and again: that
 *                process's times per file (each fsync() commits the
 *                journal, which waits for the handles open at the time);
 *                note: the writer's time.  PAGES only names the row
 *   mover        the same, but the file is first grown by 1 MiB appends
 *                to 62 MiB with dax_align=off (stock placement, so that
 *                the whole head moves), and the timed write, with
 *                dax_align=pud again, is one 4 MiB append that takes it
 *                past 64 MiB, where the file system moves its head to an
 *                aligned run (a copy of 62 MiB); note: also how many reps
 *                ended with the file's first block on a GiB boundary
 * PATH may also be a device-dax device or a file on hugetlbfs (1 GiB
 * pages), for OP first-write only: their first store, as anchors.
 *
 * One CSV row per page size: NAME,OP,PAGE,MAPPED,REPS,P50_US,P99_US,
 * MAX_US,BYTES,NOTE.  MAPPED is what the page-table dump saw in the first
 * rep.  Times are guest times: under emulation they are not hardware
 * times; compare rows of one run.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>

#include "dax_probe.h"

#ifndef MAP_SHARED_VALIDATE
#define MAP_SHARED_VALIDATE	0x03
#endif

#define MAX_SAMPLES	(1 << 20)
/* fsyncer: the source buffer of its 1 GiB write */
#define SRC_LEN		(64UL << 20)
#ifndef HUGETLBFS_MAGIC
#define HUGETLBFS_MAGIC	0x958458f6
#endif

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* the q-quantile (0..1) of n sorted samples */
static double quantile(const double *v, size_t n, double q)
{
	size_t i = (size_t)(q * (n - 1) + 0.5);

	return n ? v[i < n ? i : n - 1] : 0;
}

static int is_special(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISCHR(st.st_mode);
}

/* is @path in a hugetlbfs directory? */
static int is_hugetlbfs(const char *path)
{
	char dir[4096], *slash;
	struct statfs sf;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	return !statfs(slash ? dir : ".", &sf) && sf.f_type == HUGETLBFS_MAGIC;
}

/* bytes of [0, len) that FIEMAP reports without flag @not */
static long long fiemap_bytes_without(int fd, size_t len, unsigned int not)
{
	char buf[sizeof(struct fiemap) + 64 * sizeof(struct fiemap_extent)];
	struct fiemap *fm = (struct fiemap *)buf;
	unsigned long long start = 0, sum = 0;
	unsigned int i;

	for (;;) {
		memset(buf, 0, sizeof(buf));
		fm->fm_start = start;
		fm->fm_length = len - start;
		fm->fm_flags = FIEMAP_FLAG_SYNC;
		fm->fm_extent_count = 64;
		if (ioctl(fd, FS_IOC_FIEMAP, fm))
			return -1;
		if (!fm->fm_mapped_extents)
			return sum;
		for (i = 0; i < fm->fm_mapped_extents; i++) {
			struct fiemap_extent *e = &fm->fm_extents[i];
			unsigned long long s = e->fe_logical, end = s + e->fe_length;

			if (end > len)
				end = len;
			if (!(e->fe_flags & not) && end > s)
				sum += end - s;
			start = e->fe_logical + e->fe_length;
			if ((e->fe_flags & FIEMAP_EXTENT_LAST) || start >= len)
				return sum;
		}
	}
}

/* bytes of [0, len) that FIEMAP reports as written (not unwritten) */
static long long written_bytes(int fd, size_t len)
{
	return fiemap_bytes_without(fd, len, FIEMAP_EXTENT_UNWRITTEN);
}

static size_t page_align(const char *page, size_t *misalign)
{
	if (!strcmp(page, "1G")) {
		*misalign = 0;
		return SZ_1G;
	}
	if (!strcmp(page, "2M")) {
		*misalign = SZ_2M;
		return SZ_1G;
	}
	*misalign = SZ_4K;
	return SZ_2M;
}

static void *map_page(int fd, size_t len, const char *page, int flags)
{
	size_t misalign, align = page_align(page, &misalign);

	return map_aligned(len, align, PROT_READ | PROT_WRITE, flags, fd, 0,
			   misalign);
}

/* "1x1G", "1x2M+..." of what is mapped in [p, p + len) */
static void mapped(const void *p, size_t len, char *buf, size_t n)
{
	struct ptdump_sizes sz;

	if (ptdump_levels((unsigned long)p, len, &sz))
		snprintf(buf, n, "?");
	else
		ptdump_describe(buf, n, &sz, 0);
}

/* a new file @path of 1 GiB: fallocated, sized (sparse) or written */
static int new_file(const char *path, const char *how, size_t len)
{
	int fd;

	/*
	 * ext4 and xfs reuse the blocks of the file an earlier repetition
	 * deleted (the aligned GiBs) only once the deletion has committed:
	 * without this, later repetitions get other, maybe unaligned, space.
	 */
	sync();
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return -1;
	/* "written": sized first, so that the file system places it whole */
	if ((!strcmp(how, "falloc") && fallocate(fd, 0, 0, len)) ||
	    (!strcmp(how, "sparse") && ftruncate(fd, len)) ||
	    (!strcmp(how, "written") &&
	     (ftruncate(fd, len) || write_file_pattern(fd, 0, len, 7)))) {
		close(fd);
		return -1;
	}
	return fd;
}

struct result {
	double *t;
	size_t n;
	long long bytes;
	char mapped[96];
	char note[64];
};

/* first store into a new file (or a device-dax / hugetlbfs anchor) */
static int op_first_write(const char *path, const char *op, const char *page,
			  int rep, struct result *r)
{
	int special = is_special(path), hugetlb = is_hugetlbfs(path);
	int flags = MAP_SHARED, fd;
	char file[4096];
	double t0;
	char *p;

	snprintf(file, sizeof(file), "%s.lat", path);
	if (special)
		fd = open(path, O_RDWR);
	else if (hugetlb)
		fd = new_file(file, "sparse", SZ_1G);
	else
		fd = new_file(file, !strcmp(op, "sparse-write") ? "sparse" : "falloc",
			      SZ_1G);
	if (fd < 0)
		return -1;
	if (!strcmp(op, "mapsync"))
		flags = MAP_SHARED_VALIDATE | MAP_SYNC;
	p = map_page(fd, SZ_1G, page, flags);
	if (p == MAP_FAILED) {
		close(fd);
		return -1;
	}
	t0 = now_us();
	*(volatile uint64_t *)p = 0x5a5a0000 + rep;
	r->t[r->n++] = now_us() - t0;
	if (!rep) {
		mapped(p, SZ_1G, r->mapped, sizeof(r->mapped));
		r->bytes = special || hugetlb ? 0 : written_bytes(fd, SZ_1G);
	}
	munmap(p, SZ_1G);
	close(fd);
	if (!special)
		unlink(file);
	return 0;
}

static int op_msync(const char *path, const char *page, int reps,
		    struct result *r)
{
	static const char *const wb[] = { "fs_dax/dax_writeback_one", NULL };
	char file[4096];
	int fd, i;
	char *p;

	snprintf(file, sizeof(file), "%s.lat", path);
	fd = new_file(file, "written", SZ_1G);
	if (fd < 0)
		return -1;
	p = map_page(fd, SZ_1G, page, MAP_SHARED);
	if (p == MAP_FAILED)
		return -1;
	touch_read(p, SZ_1G, SZ_4K);
	mapped(p, SZ_1G, r->mapped, sizeof(r->mapped));
	srandom(1);
	for (i = 0; i < reps; i++) {
		size_t off = (random() % (SZ_1G / SZ_4K)) * SZ_4K;
		double t0;

		p[off + 16] ^= 1;
		if (!i && trace_start(wb))
			return -1;
		t0 = now_us();
		if (msync(p + off, SZ_4K, MS_SYNC))
			return -1;
		r->t[r->n++] = now_us() - t0;
		if (!i) {
			trace_stop();
			r->bytes = trace_sum("dax_writeback_one", "pglen") * SZ_4K;
		}
	}
	munmap(p, SZ_1G);
	close(fd);
	unlink(file);
	return 0;
}

static int op_truncate(const char *path, const char *page, int rep,
		       struct result *r)
{
	char file[4096];
	double t0;
	int fd;
	char *p;

	snprintf(file, sizeof(file), "%s.lat", path);
	fd = new_file(file, "written", SZ_1G);
	if (fd < 0)
		return -1;
	p = map_page(fd, SZ_1G, page, MAP_SHARED);
	if (p == MAP_FAILED)
		return -1;
	touch_read(p, SZ_1G, SZ_4K);
	if (!rep)
		mapped(p, SZ_1G, r->mapped, sizeof(r->mapped));
	t0 = now_us();
	if (ftruncate(fd, 0))
		return -1;
	r->t[r->n++] = now_us() - t0;
	munmap(p, SZ_1G);
	close(fd);
	unlink(file);
	return 0;
}

/* the first store to a reflink copy of a written file */
static int op_cow(const char *path, const char *page, int rep,
		  struct result *r)
{
	char file[4096], copy[4096 + 8];
	int fd, cfd;
	double t0;
	char *p;

	snprintf(file, sizeof(file), "%s.lat", path);
	snprintf(copy, sizeof(copy), "%s.copy", file);
	fd = new_file(file, "written", SZ_1G);
	if (fd < 0)
		return -1;
	cfd = open(copy, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (cfd < 0 || ioctl(cfd, FICLONE, fd))
		return -1;
	p = map_page(cfd, SZ_1G, page, MAP_SHARED);
	if (p == MAP_FAILED)
		return -1;
	touch_read(p, SZ_1G, SZ_4K);
	t0 = now_us();
	*(volatile uint64_t *)(p + SZ_4K * 3) = 0x5a5a0000 + rep;
	r->t[r->n++] = now_us() - t0;
	if (!rep) {
		mapped(p, SZ_1G, r->mapped, sizeof(r->mapped));
		r->bytes = fiemap_bytes_without(cfd, SZ_1G,
						FIEMAP_EXTENT_SHARED);
	}
	munmap(p, SZ_1G);
	close(cfd);
	close(fd);
	unlink(copy);
	unlink(file);
	return 0;
}

/*
 * The writer stores into the first GiB while a child read-faults (or, if
 * @write, write-faults) 4 KiB pages of the second one (mapped 4 KiB off a
 * 2 MiB boundary, so every access is a fault), from just before the store
 * until just after it.
 */
static int op_reader(const char *path, const char *page, int rep,
		     struct result *r, double *writer, int write)
{
	volatile int *flag;
	double *times, t0;
	size_t *count, i;
	char file[4096];
	char *p, *q;
	int fd, status;
	pid_t pid;

	snprintf(file, sizeof(file), "%s.lat", path);
	fd = new_file(file, "falloc", 2 * SZ_1G);
	if (fd < 0)
		return -1;
	flag = mmap(NULL, SZ_2M, PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (flag == MAP_FAILED)
		return -1;
	count = (size_t *)(flag + 16);
	times = (double *)(flag + 64);
	q = map_aligned(SZ_1G, SZ_2M, PROT_READ | (write ? PROT_WRITE : 0),
			MAP_SHARED, fd, SZ_1G, SZ_4K);
	p = map_page(fd, SZ_1G, page, MAP_SHARED);
	if (q == MAP_FAILED || p == MAP_FAILED)
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		size_t n = 0, max = (SZ_2M - 64 * sizeof(int)) / sizeof(double);

		flag[0] = 1;
		while (!flag[1] && n < max && n < SZ_1G / SZ_4K) {
			double a = now_us();

			if (write)
				*(volatile char *)(q + n * SZ_4K) = 1;
			else
				(void)*(volatile char *)(q + n * SZ_4K);
			times[n++] = now_us() - a;
		}
		*count = n;
		_exit(0);
	}
	while (!flag[0])
		;
	usleep(2000);
	t0 = now_us();
	*(volatile uint64_t *)p = 0x5a5a;
	*writer = now_us() - t0;
	usleep(2000);
	flag[1] = 1;
	waitpid(pid, &status, 0);
	if (!rep) {
		mapped(p, SZ_1G, r->mapped, sizeof(r->mapped));
		r->bytes = written_bytes(fd, SZ_1G);
	}
	for (i = 0; i < *count && r->n < MAX_SAMPLES; i++)
		r->t[r->n++] = times[i];
	munmap(p, SZ_1G);
	munmap(q, SZ_1G);
	munmap((void *)flag, SZ_2M);
	close(fd);
	unlink(file);
	return 0;
}

/* mover: the reps whose head ended on a GiB boundary */
static int moved_reps;

/*
 * One write(2) of 1 GiB, at offset 0 of a new, empty file, while a child
 * makes, writes, fsync()s and removes a 4 KiB file beside it, from just
 * before the write until just after it.  The source is one 64 MiB buffer
 * of a non-zero pattern, given 16 times in one pwritev().  @mover: the
 * file grows by 1 MiB appends to 62 MiB first (untimed), and the write
 * is a 4 MiB append.
 */
static int op_fsyncer(const char *path, int rep, struct result *r,
		      double *writer, int mover)
{
	struct iovec iov[SZ_1G / SRC_LEN];
	char file[4096], other[4096];
	volatile int *flag;
	double *times, t0;
	size_t *count, i;
	ssize_t done;
	int fd, status;
	char *buf;
	pid_t pid;

	snprintf(file, sizeof(file), "%s.lat", path);
	snprintf(other, sizeof(other), "%s.fsync", path);
	fd = new_file(file, "empty", 0);
	if (fd < 0)
		return -1;
	buf = mmap(NULL, SRC_LEN, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	flag = mmap(NULL, SZ_2M, PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED || flag == MAP_FAILED)
		return -1;
	fill_pattern(buf, SRC_LEN, rep + 1, 0);
	if (mover && dax_align_knob("off"))
		return -1;
	for (i = 0; mover && i < 62; i++)
		if (pwrite(fd, buf + i * SZ_1M, SZ_1M, i * SZ_1M) != SZ_1M)
			break;
	if (mover && (dax_align_knob("pud") || i < 62 || fsync(fd)))
		return -1;
	for (i = 0; i < SZ_1G / SRC_LEN; i++) {
		iov[i].iov_base = buf;
		iov[i].iov_len = SRC_LEN;
	}
	count = (size_t *)(flag + 16);
	times = (double *)(flag + 64);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		size_t n = 0, max = (SZ_2M - 64 * sizeof(int)) / sizeof(double);

		flag[0] = 1;
		while (!flag[1] && n < max) {
			double a = now_us();
			int o = open(other, O_WRONLY | O_CREAT | O_TRUNC, 0644);

			if (o < 0 || write(o, buf, SZ_4K) != SZ_4K ||
			    fsync(o) || close(o) || unlink(other))
				_exit(1);
			times[n++] = now_us() - a;
		}
		*count = n;
		_exit(0);
	}
	while (!flag[0])
		;
	usleep(20000);
	t0 = now_us();
	if (mover)
		done = pwrite(fd, buf, 4 * SZ_1M, 62 * SZ_1M);
	else
		done = pwritev(fd, iov, SZ_1G / SRC_LEN, 0);
	*writer = now_us() - t0;
	usleep(20000);
	flag[1] = 1;
	waitpid(pid, &status, 0);
	if (done != (ssize_t)(mover ? 4 * SZ_1M : SZ_1G) ||
	    !WIFEXITED(status) || WEXITSTATUS(status)) {
		errno = done < 0 ? errno : EIO;
		return -1;
	}
	if (mover) {
		uint64_t phys;

		if (!fiemap_first_physical(fd, &phys) && !(phys & (SZ_1G - 1)))
			moved_reps++;
	} else if (!rep) {
		r->bytes = written_bytes(fd, SZ_1G);
	}
	for (i = 0; i < *count && r->n < MAX_SAMPLES; i++)
		r->t[r->n++] = times[i];
	munmap(buf, SRC_LEN);
	munmap((void *)flag, SZ_2M);
	close(fd);
	unlink(file);
	return 0;
}

int main(int argc, char **argv)
{
	const char *name, *path, *op;
	char pages[64], *page, *save;
	int reps, rep;

	if (argc == 2 && !strcmp(argv[1], "--header")) {
		printf("name,op,page,mapped,reps,p50_us,p99_us,max_us,bytes,note\n");
		return 0;
	}
	if (argc != 6) {
		fprintf(stderr, "usage: %s --header | NAME PATH OP PAGES REPS\n",
			argv[0]);
		return 2;
	}
	name = argv[1];
	path = argv[2];
	op = argv[3];
	snprintf(pages, sizeof(pages), "%s", argv[4]);
	reps = atoi(argv[5]);
	if (reps < 1)
		return 2;

	for (page = strtok_r(pages, ",", &save); page;
	     page = strtok_r(NULL, ",", &save)) {
		struct result r = { .bytes = -1 };
		double writer[64];
		int err = 0;

		r.t = calloc(MAX_SAMPLES, sizeof(double));
		if (!r.t)
			return 1;
		snprintf(r.mapped, sizeof(r.mapped), "-");
		if (!strcmp(op, "msync")) {
			err = op_msync(path, page, reps, &r);
		} else {
			for (rep = 0; rep < reps && !err; rep++) {
				if (!strcmp(op, "truncate"))
					err = op_truncate(path, page, rep, &r);
				else if (!strcmp(op, "cow"))
					err = op_cow(path, page, rep, &r);
				else if (!strcmp(op, "reader") ||
					 !strcmp(op, "writer"))
					err = op_reader(path, page, rep, &r,
							&writer[rep % 64],
							op[0] == 'w');
				else if (!strcmp(op, "fsyncer") ||
					 !strcmp(op, "mover"))
					err = op_fsyncer(path, rep, &r,
							 &writer[rep % 64],
							 op[0] == 'm');
				else
					err = op_first_write(path, op, page, rep,
							     &r);
			}
		}
		if (err) {
			fprintf(stderr, "%s %s %s %s: %s\n", name, path, op,
				page, strerror(errno));
			return 1;
		}
		if (!strcmp(op, "reader") || !strcmp(op, "writer") ||
		    !strcmp(op, "fsyncer") || !strcmp(op, "mover")) {
			qsort(writer, reps < 64 ? reps : 64, sizeof(double),
			      cmp_double);
			snprintf(r.note, sizeof(r.note), "writer_p50_us=%.0f",
				 quantile(writer, reps < 64 ? reps : 64, 0.5));
		}
		if (!strcmp(op, "mover")) {
			size_t l = strlen(r.note);

			snprintf(r.note + l, sizeof(r.note) - l,
				 " moved=%d/%d", moved_reps, reps);
			moved_reps = 0;
		}
		qsort(r.t, r.n, sizeof(double), cmp_double);
		printf("%s,%s,%s,%s,%d,%.1f,%.1f,%.1f,%lld,%s\n", name, op, page,
		       r.mapped, reps, quantile(r.t, r.n, 0.5),
		       quantile(r.t, r.n, 0.99), r.n ? r.t[r.n - 1] : 0,
		       r.bytes, r.note);
		fflush(stdout);
		free(r.t);
	}
	return 0;
}
