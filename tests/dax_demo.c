// SPDX-License-Identifier: GPL-2.0
/*
 * dax_demo - map 1 GiB of a DAX file or device at a 1 GiB-aligned address,
 * write one word per 4 KiB, and print one tab-separated row: what page
 * sizes the mapping got (from the kernel's page table dump), the page
 * faults per GiB (getrusage) and the page-table memory per GiB (VmPTE).
 *
 *   dax_demo --header
 *   dax_demo LABEL fallocate|sized+pwrite|pwrite PATH
 *                                          (creates a 1 GiB file: one
 *                                          fallocate() of 1 GiB; ftruncate()
 *                                          to 1 GiB, then pwrite(); pwrite()
 *                                          into the growing file)
 *   dax_demo LABEL - PATH                  (maps an existing file or device)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "dax_probe.h"

static long vmpte_kb(void)
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
	return kb;
}

int main(int argc, char **argv)
{
	struct ptdump_sizes sizes;
	struct fault_count fc;
	const char *label, *fill, *path;
	long pte_before, pte_after, faults, calib;
	char pages[96];
	char *p;
	int fd;

	if (argc == 2 && !strcmp(argv[1], "--header")) {
		printf("mapping\tfilled by\tpage sizes\tfaults/GiB\tpage tables KiB/GiB\n");
		return 0;
	}
	if (argc != 4) {
		fprintf(stderr, "usage: %s --header | LABEL fallocate|sized+pwrite|pwrite|- PATH\n",
			argv[0]);
		return 2;
	}
	label = argv[1];
	fill = argv[2];
	path = argv[3];

	fd = open(path, O_RDWR | (strcmp(fill, "-") ? O_CREAT | O_TRUNC : 0), 0644);
	if (fd < 0) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return 1;
	}
	if (!strcmp(fill, "fallocate") && fallocate(fd, 0, 0, SZ_1G)) {
		fprintf(stderr, "fallocate %s: %s\n", path, strerror(errno));
		return 1;
	}
	if (!strcmp(fill, "sized+pwrite") && ftruncate(fd, SZ_1G)) {
		fprintf(stderr, "ftruncate %s: %s\n", path, strerror(errno));
		return 1;
	}
	if (strstr(fill, "pwrite") && write_file_pattern(fd, 0, SZ_1G, 1)) {
		fprintf(stderr, "pwrite %s: %s\n", path, strerror(errno));
		return 1;
	}

	p = map_aligned(SZ_1G, SZ_1G, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0, 0);
	if (p == MAP_FAILED) {
		fprintf(stderr, "mmap %s: %s\n", path, strerror(errno));
		return 1;
	}
	pte_before = vmpte_kb();
	calib = calibrate_minflt();
	fault_begin(&fc, calib);
	touch_write(p, SZ_1G, SZ_4K, 2, 0);
	faults = fault_end(&fc);
	pte_after = vmpte_kb();
	if (ptdump_levels((unsigned long)p, SZ_1G, &sizes)) {
		fprintf(stderr, "page table dump: %s\n", strerror(errno));
		return 1;
	}
	ptdump_describe(pages, sizeof(pages), &sizes, 1);
	printf("%s\t%s\t%s\t%ld\t%ld\n", label, fill, pages, faults,
	       pte_after - pte_before);
	munmap(p, SZ_1G);
	close(fd);
	return 0;
}
