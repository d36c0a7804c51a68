// SPDX-License-Identifier: GPL-2.0
/*
 * dax_irqsoff: the longest stretch with interrupts disabled while DAX maps
 * a file with PMDs and with a PUD, and while truncate invalidates those
 * entries.  Needs a kernel with CONFIG_IRQSOFF_TRACER (the DEBUG=1 kernel
 * has it) and tracefs at /sys/kernel/tracing; guest/irqsoff-job.sh runs it.
 *
 *   dax_irqsoff DIR
 *
 * For each size (2 MiB PMDs over a 64 MiB file, one 1 GiB PUD), on a new
 * file sized with ftruncate() and mapped at an address aligned to the page
 * size: reset the irqsoff tracer's maximum, write one word per 4 KiB
 * through the mapping (write faults into a sparse file: the huge entry is
 * inserted), read the maximum; reset, unmap and truncate the file to 0
 * (the entries are invalidated), read the maximum.  The maximum is system
 * wide, so other interrupts-off sections count too; the point is the
 * comparison between the two sizes in one boot.  The page sizes are
 * checked with the page table dump and the fault count.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "dax_probe.h"

#define TRACING "/sys/kernel/tracing/"

static int write_str(const char *file, const char *s)
{
	int fd = open(file, O_WRONLY | O_TRUNC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, s, strlen(s));
	close(fd);
	return n == (ssize_t)strlen(s) ? 0 : -1;
}

static long max_latency_us(void)
{
	FILE *f = fopen(TRACING "tracing_max_latency", "r");
	long v = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/* The "# => started at:" and "# => ended at:" lines of the max trace. */
static void print_where(const char *what)
{
	FILE *f = fopen(TRACING "trace", "r");
	char line[256];

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (strstr(line, "=> started at:") || strstr(line, "=> ended at:"))
			printf("  %s %s", what, line + 2);
	}
	fclose(f);
}

static int run(const char *dir, const char *name, size_t size, size_t align,
	       long want_faults, unsigned long want_pmd, unsigned long want_pud)
{
	char path[256], desc[64];
	struct ptdump_sizes sz;
	struct fault_count fc;
	long fault_us, inval_us;
	char *p;
	int fd;

	snprintf(path, sizeof(path), "%s/hugedax.irqsoff.%s", dir, name);
	unlink(path);
	sync();
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || ftruncate(fd, size)) {
		perror(path);
		return -1;
	}
	p = map_aligned(size, align, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
			0, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return -1;
	}
	if (write_str(TRACING "tracing_max_latency", "0"))
		return -1;
	fault_begin(&fc, calibrate_minflt());
	touch_write(p, size, SZ_4K, 0x1dea, 0);
	fault_end(&fc);
	fault_us = max_latency_us();
	print_where("fault");
	if (ptdump_levels((unsigned long)p, size, &sz))
		return -1;
	ptdump_describe(desc, sizeof(desc), &sz, 0);
	munmap(p, size);

	if (write_str(TRACING "tracing_max_latency", "0"))
		return -1;
	if (ftruncate(fd, 0)) {
		perror("ftruncate");
		return -1;
	}
	inval_us = max_latency_us();
	print_where("invalidate");
	close(fd);
	unlink(path);

	printf("%-4s %-10s faults %-6ld max irqs-off: fault %ld us, invalidate %ld us\n",
	       name, desc, fc.min + fc.maj, fault_us, inval_us);
	if (fc.min + fc.maj != want_faults || sz.pmd != want_pmd ||
	    sz.pud != want_pud) {
		printf("%s: not mapped as expected (%ld faults, want %ld)\n",
		       name, fc.min + fc.maj, want_faults);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int ret = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	if (write_str(TRACING "current_tracer", "irqsoff")) {
		fprintf(stderr, "no irqsoff tracer: %s\n", strerror(errno));
		return 4;	/* kselftest's skip */
	}
	ret |= run(argv[1], "pmd", 32 * SZ_2M, SZ_2M, 32, 32 * SZ_2M, 0);
	ret |= run(argv[1], "pud", SZ_1G, SZ_1G, 1, 0, SZ_1G);
	write_str(TRACING "current_tracer", "nop");
	return ret ? 1 : 0;
}
