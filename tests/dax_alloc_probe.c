// SPDX-License-Identifier: GPL-2.0
/*
 * dax_alloc_probe - how well a file system places DAX file data for huge
 * pages: create a file one way, map it at an address aligned to the largest
 * page size that fits (1 GiB for files of 1 GiB and more, else 2 MiB),
 * touch one word per 4 KiB through the mapping (write it, or read it with
 * ACCESS "read") and print one row:
 *
 *   fill  MiB  faults  pmd-ok  pmd-fallback  pud-ok  pud-fallback
 *   page-sizes  2M-chunks-aligned/total  1G-chunks-aligned/total  KiB-used
 *
 * faults: getrusage, for touching every 4 KiB page once; *-ok/-fallback:
 * fs_dax dax_{pmd,pud}_fault_done events ending in NOPAGE / FALLBACK (the
 * pud ones are "-" on kernels without that event); page sizes from the
 * kernel's page table dump; chunks from FIEMAP (pieces that a huge page
 * could map); KiB-used: st_blocks.
 *
 *   dax_alloc_probe --header
 *   dax_alloc_probe FILL MIB PATH [ACCESS]
 *     FILL: fallocate      one fallocate() of the whole file
 *           pwrite1g       pwrite() in 1 GiB pieces (or the whole file)
 *           pwrite2m       pwrite() in 2 MiB pieces
 *           pwrite64k      pwrite() in 64 KiB pieces (small appends)
 *           reopen64k      64 KiB appends, each with its own open/close
 *           appendSIZE     O_APPEND write()s of SIZE (4k, 64k, 1m, 4m, ...)
 *           cp             cp(1) of a file written by pwrite1g (PATH.src,
 *                          removed after the copy)
 *           fault          ftruncate(), then write faults into the holes
 *                          (the faults of the measurement allocate)
 *     ACCESS: write (default) or read
 *   dax_alloc_probe --concurrent N SIZE MIB DIR [ACCESS]
 *     N processes each append MIB MiB to their own file DIR/appendN.I in
 *     write()s of SIZE, all at once; then one row per file, fill
 *     "concurrentN-SIZE"
 *   dax_alloc_probe --small N DIR
 *     create N files of 4 KiB in DIR (created), print "small N KiB-used"
 *     where KiB-used is the growth of the file system's used space
 * HUGEDAX_PID_COLOUR=N: run as a process whose pid % 16 is N (see
 * pin_pid_colour()).
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

#include "dax_probe.h"

static int write_pieces(int fd, size_t len, size_t piece, int reopen,
			const char *path)
{
	char *buf = malloc(piece);
	size_t off;

	if (!buf)
		return -1;
	for (off = 0; off < len; off += piece) {
		size_t n = len - off < piece ? len - off : piece;

		fill_pattern(buf, n, 1, off);
		if (reopen) {
			fd = open(path, O_WRONLY | O_APPEND);
			if (fd < 0)
				break;
		}
		if (pwrite(fd, buf, n, off) != (ssize_t)n)
			break;
		if (reopen)
			close(fd);
	}
	free(buf);
	return off < len ? -1 : 0;
}

static long used_kib(const char *dir)
{
	struct statvfs s;

	if (statvfs(dir, &s))
		return -1;
	return (long)((s.f_blocks - s.f_bfree) * (s.f_frsize / 1024));
}

static int small_files(long n, const char *dir)
{
	char path[4096], buf[4096];
	long before, i;

	if (mkdir(dir, 0755) && errno != EEXIST)
		return 1;
	sync();
	before = used_kib(dir);
	memset(buf, 0x5a, sizeof(buf));
	for (i = 0; i < n; i++) {
		int fd;

		snprintf(path, sizeof(path), "%s/f%ld", dir, i);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || write(fd, buf, sizeof(buf)) != sizeof(buf))
			return 1;
		close(fd);
	}
	sync();
	printf("small\t%ld\t%ld\n", n, used_kib(dir) - before);
	return 0;
}

/* "64k" -> 65536; 0 on a malformed size */
static size_t parse_size(const char *s)
{
	char *end;
	size_t n = strtoul(s, &end, 10);

	switch (*end) {
	case 'k': n <<= 10; end++; break;
	case 'm': n <<= 20; end++; break;
	case 'g': n <<= 30; end++; break;
	}
	return *end ? 0 : n;
}

/* cp(1) a file of @len bytes, written by pwrite() in 1 GiB pieces, to @path */
static int copy_file(const char *path, size_t len)
{
	char src[4096];
	int fd, status;
	pid_t pid;

	snprintf(src, sizeof(src), "%s.src", path);
	fd = open(src, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write_pieces(fd, len, len < SZ_1G ? len : SZ_1G, 0, src))
		return -1;
	close(fd);
	pid = fork();
	if (pid == 0) {
		execlp("cp", "cp", src, path, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid ||
	    !WIFEXITED(status) || WEXITSTATUS(status))
		return -1;
	return unlink(src);
}

/* map, touch and print the row for @fd (see the top of this file) */
static int measure(const char *fill, int fd, size_t len, int do_write)
{
	static const char *const both[] = {
		"fs_dax/dax_pmd_fault_done", "fs_dax/dax_pud_fault_done", NULL
	};
	static const char *const pmd_only[] = {
		"fs_dax/dax_pmd_fault_done", NULL
	};
	size_t align = len >= SZ_1G ? SZ_1G : SZ_2M;
	char pages[96], pud_ok[24], pud_fb[24];
	struct ptdump_sizes sizes;
	struct fault_count fc;
	long faults, calib, c2m, c1g;
	int have_pud = 1;
	struct stat st;
	char *p;

	p = map_aligned(len, align, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	if (trace_start(both)) {
		have_pud = 0;
		if (trace_start(pmd_only)) {
			perror("trace");
			return 1;
		}
	}
	calib = calibrate_minflt();
	fault_begin(&fc, calib);
	if (do_write)
		touch_write(p, len, SZ_4K, 2, 0);
	else
		touch_read(p, len, SZ_4K);
	faults = fault_end(&fc);
	trace_stop();
	if (ptdump_levels((unsigned long)p, len, &sizes)) {
		perror("page table dump");
		return 1;
	}
	ptdump_describe(pages, sizeof(pages), &sizes, 0);
	snprintf(pud_ok, sizeof(pud_ok), "-");
	snprintf(pud_fb, sizeof(pud_fb), "-");
	if (have_pud) {
		snprintf(pud_ok, sizeof(pud_ok), "%ld",
			 trace_count("dax_pud_fault_done", "NOPAGE"));
		snprintf(pud_fb, sizeof(pud_fb), "%ld",
			 trace_count("dax_pud_fault_done", "FALLBACK"));
	}
	c2m = fiemap_aligned_chunks(fd, 0, len, SZ_2M);
	c1g = len >= SZ_1G ? fiemap_aligned_chunks(fd, 0, len, SZ_1G) : 0;
	fstat(fd, &st);
	printf("%s\t%zu\t%ld\t%ld\t%ld\t%s\t%s\t%s\t%ld/%zu\t%ld/%zu\t%lld\n",
	       fill, len / SZ_1M, faults,
	       trace_count("dax_pmd_fault_done", "NOPAGE"),
	       trace_count("dax_pmd_fault_done", "FALLBACK"),
	       pud_ok, pud_fb, pages, c2m, len / SZ_2M, c1g, len / SZ_1G,
	       (long long)st.st_blocks / 2);
	fflush(stdout);
	munmap(p, len);
	return 0;
}

/* measure() the existing file @path */
static int measure_path(const char *fill, const char *path, size_t len,
			int do_write)
{
	int fd = open(path, O_RDWR), ret;

	if (fd < 0) {
		perror(path);
		return 1;
	}
	ret = measure(fill, fd, len, do_write);
	close(fd);
	return ret;
}

/* --concurrent N SIZE MIB DIR [ACCESS] */
static int concurrent(int argc, char **argv)
{
	int n = atoi(argv[2]), i, ret = 0, status;
	size_t piece = parse_size(argv[3]);
	size_t len = (size_t)atol(argv[4]) * SZ_1M;
	const char *dir = argv[5];
	int do_write = !(argc > 6 && !strcmp(argv[6], "read"));
	char path[4096], fill[64];

	if (n < 1 || !piece || !len) {
		fprintf(stderr, "--concurrent: bad N, SIZE or MIB\n");
		return 2;
	}
	if (mkdir(dir, 0755) && errno != EEXIST)
		return 1;
	for (i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0)
			return 1;
		if (pid == 0) {
			snprintf(path, sizeof(path), "%s/append%d.%d", dir, n, i);
			_exit(append_file_pattern(path, len, piece, 1) ? 1 : 0);
		}
	}
	for (i = 0; i < n; i++)
		if (wait(&status) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			ret = 1;
	if (ret) {
		fprintf(stderr, "--concurrent: an appender failed\n");
		return 1;
	}
	snprintf(fill, sizeof(fill), "concurrent%d-%s", n, argv[3]);
	for (i = 0; i < n && !ret; i++) {
		snprintf(path, sizeof(path), "%s/append%d.%d", dir, n, i);
		ret = measure_path(fill, path, len, do_write);
	}
	return ret;
}

/*
 * ext2 (and ext4 without flex_bg) start a file's blocks at a "colour" of
 * its group chosen by the writer's pid % 16.  With HUGEDAX_PID_COLOUR=N
 * in the environment, run in a child whose pid % 16 is N, so that two
 * boots place the same files alike (make optout).
 */
static void pin_pid_colour(void)
{
	const char *want = getenv("HUGEDAX_PID_COLOUR");
	int status, tries;

	if (!want)
		return;
	for (tries = 0; tries < 64; tries++) {
		pid_t pid = fork();

		if (pid < 0)
			break;
		if (pid == 0) {
			if (getpid() % 16 == atoi(want) % 16)
				return;		/* the child goes on */
			_exit(0);
		}
		if (waitpid(pid, &status, 0) != pid)
			break;
		if (!WIFEXITED(status) || WEXITSTATUS(status) ||
		    pid % 16 == atoi(want) % 16)
			exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
	}
	fprintf(stderr, "HUGEDAX_PID_COLOUR: no pid with that colour\n");
	exit(1);
}

int main(int argc, char **argv)
{
	const char *fill, *path;
	int fd, ret = 0, do_write;
	size_t len;

	pin_pid_colour();

	if (argc == 2 && !strcmp(argv[1], "--header")) {
		printf("fill\tMiB\tfaults\tpmd-ok\tpmd-fallback\tpud-ok\tpud-fallback\tpages\t2M-aligned\t1G-aligned\tKiB-used\n");
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "--small"))
		return small_files(atol(argv[2]), argv[3]);
	if ((argc == 6 || argc == 7) && !strcmp(argv[1], "--concurrent"))
		return concurrent(argc, argv);
	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: %s --header | FILL MIB PATH [read] | --concurrent N SIZE MIB DIR [read] | --small N DIR\n",
			argv[0]);
		return 2;
	}
	fill = argv[1];
	len = (size_t)atol(argv[2]) * SZ_1M;
	path = argv[3];
	do_write = !(argc == 5 && !strcmp(argv[4], "read"));

	if (!strncmp(fill, "append", 6)) {
		size_t piece = parse_size(fill + 6);

		ret = piece ? append_file_pattern(path, len, piece, 1) : (errno = EINVAL, -1);
	} else if (!strcmp(fill, "cp")) {
		ret = copy_file(path, len);
	}
	if (ret) {
		fprintf(stderr, "%s %s: %s\n", fill, path, strerror(errno));
		return 1;
	}
	if (!strncmp(fill, "append", 6) || !strcmp(fill, "cp"))
		return measure_path(fill, path, len, do_write);

	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		perror(path);
		return 1;
	}
	if (!strcmp(fill, "fallocate"))
		ret = fallocate(fd, 0, 0, len);
	else if (!strcmp(fill, "pwrite1g"))
		ret = write_pieces(fd, len, len < SZ_1G ? len : SZ_1G, 0, path);
	else if (!strcmp(fill, "pwrite2m"))
		ret = write_pieces(fd, len, SZ_2M, 0, path);
	else if (!strcmp(fill, "pwrite64k"))
		ret = write_pieces(fd, len, 64 * 1024, 0, path);
	else if (!strcmp(fill, "reopen64k"))
		ret = write_pieces(fd, len, 64 * 1024, 1, path);
	else if (!strcmp(fill, "fault"))
		ret = ftruncate(fd, len);
	else
		ret = -1, errno = EINVAL;
	if (ret) {
		fprintf(stderr, "%s %s: %s\n", fill, path, strerror(errno));
		return 1;
	}
	ret = measure(fill, fd, len, do_write);
	close(fd);
	return ret;
}
