// SPDX-License-Identifier: GPL-2.0
/*
 * dax_bench - what one 1 GiB shared mapping costs at the page size it gets.
 *
 *   dax_bench --header
 *   dax_bench CONFIG PATH FILL ADDRS
 *
 * FILL says how PATH gets its 1 GiB of data before anything is timed (which
 * also makes the host fault in the emulated pmem behind it once):
 *   pwrite   create PATH and fill it with pwrite() (the file grows)
 *   sized    the same after ftruncate() to 1 GiB, so the file system
 *            knows from the first write that the file covers a whole GiB
 *   padded   the same after a pad file (PATH.pad) that ends on a 1 GiB
 *            boundary of the device, so that the file can start on one
 *   touch    PATH is a device, or a file that cannot be written with
 *            pwrite() (hugetlbfs, created with ftruncate()): write one word
 *            per 4 KiB through a mapping, then unmap it
 * ADDRS lists where the mapping goes, largest first, comma separated:
 *   1G  a 1 GiB-aligned address (the largest page size the file allows)
 *   2M  1 GiB-aligned + 2 MiB: at most 2 MiB pages
 *   4K  2 MiB-aligned + 4 KiB: 4 KiB pages
 * An address is skipped if the previous one did not get pages larger than
 * its alignment (nothing would be forced down).
 *
 * One CSV row per address, see --header.  Every mapping is MAP_SHARED,
 * alone in its own 512 GiB-aligned region of address space (so its page
 * tables, from the PUD table down, are all its own), and touched one
 * 8-byte word per 4 KiB.  In order, on fresh mappings:
 *   read     first touch by reads; faults (getrusage), page-table bytes
 *            (VmPTE growth) and time; page sizes from the page table dump
 *   write    first touch by writes (the data is already written, so no
 *            fault zeroes anything), then random 8-byte reads over it
 *            (each time: the least of 10 fresh mappings, or of as many as
 *            fit in a second; counts: the first)
 *   scale    K mappings of the file side by side in one region (K = 512
 *            for 1 GiB pages, 32 for 2 MiB; for 4 KiB, K = 1 and this is
 *            the read measurement): page-table bytes per GiB with the PUD
 *            table shared as it is in a large mapping
 *   nprocN   N forked processes share one untouched mapping and each reads
 *            all of it: the sum of their VmPTE growth, and the wall time
 *            from releasing them to reaping them (N = 64 skipped at 4 KiB)
 *   cycles   mmap + touch + munmap of 1 GiB, repeated for at least 1 s
 * No VMA walker (smaps) is used: on 6.1 that zaps 1 GiB device-dax PUDs.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "dax_probe.h"

#define SZ_512G		(512 * SZ_1G)
#define RAND_READS	(1UL << 20)
#define CYCLE_NS	1000000000L
#define NREGIONS	80
#define RUNS		10

static const char *config, *addr_name;

static void fail(const char *fmt, ...)
{
	va_list ap;

	printf("%s,%s,error: ", config, addr_name ? addr_name : "-");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(" (%s)\n", strerror(errno));
	exit(1);
}

static long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

static long vmpte_bytes(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmPTE: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb * 1024;
}

/* where a mapping of kind @addr goes: alignment and offset from it */
static int placement(const char *addr, size_t *align, size_t *misalign)
{
	if (!strcmp(addr, "1G"))
		*align = SZ_1G, *misalign = 0;
	else if (!strcmp(addr, "2M"))
		*align = SZ_1G, *misalign = SZ_2M;
	else if (!strcmp(addr, "4K"))
		*align = SZ_2M, *misalign = SZ_4K;
	else
		return -1;
	return 0;
}

/*
 * Every measured mapping goes into a fresh 512 GiB-aligned region of one
 * big PROT_NONE reservation, so that its page tables, down from the PUD
 * table, are all its own: the counts do not depend on what else happens
 * to share a table with it.
 */
static char *regions;
static int regions_used;

static char *fresh_region(void)
{
	if (!regions) {
		regions = mmap(NULL, (NREGIONS + 1) * SZ_512G, PROT_NONE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
			       -1, 0);
		if (regions == MAP_FAILED)
			fail("reserve address space");
		regions = (char *)(((uintptr_t)regions + SZ_512G - 1) &
				   ~(SZ_512G - 1));
	}
	if (regions_used == NREGIONS) {
		errno = ENOSPC;
		fail("out of address space regions");
	}
	return regions + regions_used++ * SZ_512G;
}

/* map 1 GiB of the file at @at + the offset of address kind @addr */
static char *map_at(int fd, const char *addr, char *at)
{
	size_t align, misalign;
	void *p;

	placement(addr, &align, &misalign);
	p = mmap(at + misalign, SZ_1G, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_FIXED, fd, 0);
	if (p == MAP_FAILED)
		fail("mmap");
	return p;
}

/* unmap, leaving the reservation in place */
static void unmap(char *p, size_t len)
{
	if (mmap(p, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS |
		 MAP_NORESERVE | MAP_FIXED, -1, 0) == MAP_FAILED)
		fail("munmap");
}

static int pad_to_1g(const char *path)
{
	char pad[4096];
	uint64_t phys;
	int fd, ret;

	snprintf(pad, sizeof(pad), "%s.pad", path);
	fd = open(pad, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return -1;
	ret = write_file_pattern(fd, 0, SZ_2M, 1);
	if (!ret)
		ret = fiemap_first_physical(fd, &phys);
	if (!ret)
		ret = fallocate(fd, 0, 0, SZ_1G - (phys & (SZ_1G - 1)));
	close(fd);
	return ret;
}

static int open_filled(const char *path, const char *fill)
{
	struct stat st;
	char *p;
	int fd;

	if (!strcmp(fill, "touch")) {
		fd = open(path, O_RDWR | O_CREAT, 0644);
		if (fd < 0)
			fail("open %s", path);
		if (!fstat(fd, &st) && S_ISREG(st.st_mode) &&
		    st.st_size < (off_t)SZ_1G && ftruncate(fd, SZ_1G))
			fail("ftruncate %s", path);
		p = map_at(fd, "1G", fresh_region());
		touch_write(p, SZ_1G, SZ_4K, 1, 0);
		unmap(p, SZ_1G);
		return fd;
	}
	if (strcmp(fill, "pwrite") && strcmp(fill, "padded") &&
	    strcmp(fill, "sized")) {
		errno = EINVAL;
		fail("unknown fill %s", fill);
	}
	if (!strcmp(fill, "padded") && pad_to_1g(path))
		fail("pad before %s", path);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		fail("open %s", path);
	if (!strcmp(fill, "sized") && ftruncate(fd, SZ_1G))
		fail("ftruncate %s", path);
	if (write_file_pattern(fd, 0, SZ_1G, 1))
		fail("pwrite %s", path);
	return fd;
}

struct row {
	char pages[32];
	unsigned long smallest, largest;	/* page sizes seen */
	long faults, pt, write_faults;
	double read_ms, write_ms, rand_ns;
	double scale_pt;
	long scale_gib;
	long n_pt[3];
	double n_ms[3];
	double cycles;
};

static const int nprocs[3] = { 1, 8, 64 };

static void page_sizes(struct row *r, unsigned long addr)
{
	struct ptdump_sizes s;
	size_t used = 0;

	if (ptdump_levels(addr, SZ_1G, &s))
		fail("page table dump");
	r->pages[0] = '\0';
	r->smallest = r->largest = 0;
	if (s.pud) {
		used += snprintf(r->pages + used, sizeof(r->pages) - used, "1G");
		r->smallest = r->largest = SZ_1G;
	}
	if (s.pmd) {
		used += snprintf(r->pages + used, sizeof(r->pages) - used,
				 "%s2M", used ? "+" : "");
		r->smallest = SZ_2M;
		if (!r->largest)
			r->largest = SZ_2M;
	}
	if (s.pte) {
		snprintf(r->pages + used, sizeof(r->pages) - used, "%s4K",
			 used ? "+" : "");
		r->smallest = SZ_4K;
		if (!r->largest)
			r->largest = SZ_4K;
	}
	if (!r->pages[0]) {
		snprintf(r->pages, sizeof(r->pages), "none");
		r->smallest = r->largest = SZ_4K;
	}
}

/*
 * First touch of fresh mappings, by reads or by writes.  Faults, page-table
 * growth and page sizes of the first; time: the least of up to RUNS runs
 * (fewer once they took a second in all).  Returns the last one, populated.
 */
static char *first_touch(struct row *r, int fd, const char *addr, int write)
{
	struct fault_count fc;
	long pt0, t0, t, best = 0, spent = 0, calib, faults;
	char *p = NULL;
	int run;

	for (run = 0; run < RUNS && spent < CYCLE_NS; run++) {
		if (p)
			unmap(p, SZ_1G);
		p = map_at(fd, addr, fresh_region());
		pt0 = vmpte_bytes();
		calib = calibrate_minflt();
		fault_begin(&fc, calib);
		t0 = now_ns();
		if (write)
			touch_write(p, SZ_1G, SZ_4K, 1, 0);
		else
			touch_read(p, SZ_1G, SZ_4K);
		t = now_ns() - t0;
		faults = fault_end(&fc);
		if (!run && write) {
			r->write_faults = faults;
		} else if (!run) {
			r->faults = faults;
			r->pt = vmpte_bytes() - pt0;
			page_sizes(r, (unsigned long)p);
		}
		if (!run || t < best)
			best = t;
		spent += t;
	}
	*(write ? &r->write_ms : &r->read_ms) = best / 1e6;
	return p;
}

static void random_reads(struct row *r, const char *p)
{
	uint64_t x = 88172645463325252ULL, sum = 0;
	unsigned long i;
	long t0 = now_ns();

	for (i = 0; i < RAND_READS; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		sum += *(const volatile uint64_t *)(p + (x & (SZ_1G - 8)));
	}
	r->rand_ns = (double)(now_ns() - t0) / RAND_READS;
	if (sum == 1)	/* keep the reads */
		fprintf(stderr, "-\n");
}

/* K > 1 side by side, so that the PUD table is shared by K GiB */
static void scale(struct row *r, int fd, const char *addr)
{
	char *area = fresh_region();
	long k, i, pt0;

	k = r->smallest == SZ_1G ? 512 : r->smallest == SZ_2M ? 32 : 1;
	r->scale_gib = k;
	if (k == 1) {	/* the first touch was the same measurement */
		r->scale_pt = r->pt;
		return;
	}
	pt0 = vmpte_bytes();
	for (i = 0; i < k; i++)
		touch_read(map_at(fd, addr, area + i * SZ_1G), SZ_1G,
			   r->smallest);
	r->scale_pt = (double)(vmpte_bytes() - pt0) / k;
	unmap(area, SZ_512G);
}

static void nproc(struct row *r, int fd, const char *addr, int slot)
{
	int n = nprocs[slot], go[2], res[2], i;
	char *p = map_at(fd, addr, fresh_region());
	long t0, got, total = 0;

	if (pipe(go) || pipe(res))
		fail("pipe");
	for (i = 0; i < n; i++) {
		pid_t pid = fork();
		char c;

		if (pid < 0)
			fail("fork");
		if (pid)
			continue;
		close(go[1]);
		close(res[0]);
		if (read(go[0], &c, 1) < 0)
			_exit(1);
		got = vmpte_bytes();
		touch_read(p, SZ_1G, SZ_4K);
		got = vmpte_bytes() - got;
		_exit(write(res[1], &got, sizeof(got)) == sizeof(got) ? 0 : 1);
	}
	close(go[0]);
	close(res[1]);
	t0 = now_ns();
	close(go[1]);	/* every child reads EOF and starts */
	for (i = 0; i < n; i++) {
		if (read(res[0], &got, sizeof(got)) != sizeof(got))
			fail("child result");
		total += got;
	}
	for (i = 0; i < n; i++)
		wait(NULL);
	r->n_ms[slot] = (now_ns() - t0) / 1e6;
	r->n_pt[slot] = total;
	close(res[0]);
	unmap(p, SZ_1G);
}

static void cycles(struct row *r, int fd, const char *addr)
{
	char *area = fresh_region();
	long t0 = now_ns(), t, n = 0;

	do {
		char *p = map_at(fd, addr, area);

		touch_read(p, SZ_1G, SZ_4K);
		munmap(p, SZ_1G);
		n++;
		t = now_ns() - t0;
	} while (t < CYCLE_NS);
	r->cycles = n * 1e9 / t;
}

static void print_row(const struct row *r)
{
	int i;

	printf("%s,%s,%s,%ld,%ld,%.0f,%ld,%.1f,%.1f,%ld,%.1f", config,
	       addr_name, r->pages, r->faults, r->pt, r->scale_pt,
	       r->scale_gib, r->read_ms, r->write_ms, r->write_faults,
	       r->rand_ns);
	for (i = 0; i < 3; i++)
		if (r->n_ms[i] > 0)
			printf(",%ld,%.1f", r->n_pt[i], r->n_ms[i]);
		else
			printf(",,");
	printf(",%.2f\n", r->cycles);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	unsigned long prev = 0;
	size_t align, misalign;
	char *addrs, *save = NULL, *p;
	int fd, i;

	if (argc == 2 && !strcmp(argv[1], "--header")) {
		printf("config,address,pages,faults_per_gib,pt_bytes_per_gib,"
		       "pt_bytes_per_gib_at_scale,scale_gib,read_ms,write_ms,"
		       "write_faults,rand_read_ns,n1_pt_bytes,n1_ms,"
		       "n8_pt_bytes,n8_ms,n64_pt_bytes,n64_ms,cycles_per_s\n");
		return 0;
	}
	if (argc != 5) {
		fprintf(stderr, "usage: %s --header | CONFIG PATH pwrite|sized|padded|touch 1G,2M,4K\n",
			argv[0]);
		return 2;
	}
	config = argv[1];
	now_ns();	/* the vDSO data page faults in once, here */
	fd = open_filled(argv[2], argv[3]);
	addrs = argv[4];
	for (addr_name = strtok_r(addrs, ",", &save); addr_name;
	     addr_name = strtok_r(NULL, ",", &save)) {
		struct row r;

		if (placement(addr_name, &align, &misalign)) {
			errno = EINVAL;
			fail("unknown address kind");
		}
		/* forced down only below what the previous address got */
		if (prev && prev <= (misalign ? misalign : align))
			continue;
		memset(&r, 0, sizeof(r));
		unmap(first_touch(&r, fd, addr_name, 0), SZ_1G);
		p = first_touch(&r, fd, addr_name, 1);
		random_reads(&r, p);
		unmap(p, SZ_1G);
		scale(&r, fd, addr_name);
		for (i = 0; i < 3; i++)
			if (nprocs[i] < 64 || r.smallest > SZ_4K)
				nproc(&r, fd, addr_name, i);
		cycles(&r, fd, addr_name);
		print_row(&r);
		prev = r.largest;
	}
	close(fd);
	return 0;
}
