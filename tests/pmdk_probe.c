// SPDX-License-Identifier: GPL-2.0
/*
 * pmdk_probe - the page sizes a PMDK pool gets: create a pool with
 * libpmemobj (Debian's libpmemobj-dev), as an application would, then
 * write one byte per 4 KiB of the pool past its first 64 KiB through the
 * pool's own mapping and print one row:
 *
 *   pmdk  MiB  base-alignment  create-faults  faults  pmd-ok  pmd-fallback
 *   pud-ok  pud-fallback  page-sizes  fallback-reasons  per-GiB-page-sizes
 *
 * faults: getrusage during the writes, and (create-faults) during
 * pmemobj_create(); ok/fallback: the fs_dax *_fault_done tracepoints of
 * both; page sizes: the kernel's page-table dump of the whole pool
 * afterwards; fallback-reasons: "reason=count" of the fallbacks.
 *
 *   pmdk_probe MIB PATH
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <libpmemobj.h>

#include "dax_probe.h"

static const char *const reasons[] = {
	"misaligned_address", "misaligned_offset", "vma_too_small",
	"beyond_eof", "cow", "extent", "pfn", "conflict", "hole", NULL,
};

int main(int argc, char **argv)
{
	static const char *const events[] = {
		"fs_dax/dax_pmd_fault_done", "fs_dax/dax_pud_fault_done", NULL
	};
	char pages[96], why[256] = "", gibs[512] = "";
	struct ptdump_sizes sizes;
	struct fault_count fc;
	size_t len, off, align;
	PMEMobjpool *pop;
	long faults, create_faults;
	char *base;
	int i;

	if (argc != 3) {
		fprintf(stderr, "usage: %s MIB PATH\n", argv[0]);
		return 2;
	}
	len = (size_t)atol(argv[1]) * SZ_1M;
	unlink(argv[2]);
	if (trace_start(events)) {
		perror("trace");
		return 1;
	}
	fault_begin(&fc, calibrate_minflt());
	pop = pmemobj_create(argv[2], "hugedax", len, 0644);
	if (!pop) {
		fprintf(stderr, "pmemobj_create: %s\n", pmemobj_errormsg());
		return 1;
	}
	create_faults = fault_end(&fc);
	base = (char *)pop;
	for (align = SZ_1G; align > SZ_4K; align >>= 1)
		if (!((unsigned long)base & (align - 1)))
			break;
	fault_begin(&fc, calibrate_minflt());
	for (off = 64 * 1024; off < len; off += SZ_4K)
		base[off] = (char)(off >> 12 | 1);
	faults = fault_end(&fc);
	trace_stop();
	if (ptdump_levels((unsigned long)base, len, &sizes)) {
		perror("page table dump");
		return 1;
	}
	ptdump_describe(pages, sizeof(pages), &sizes, 0);
	for (i = 0; reasons[i]; i++) {
		long n = trace_count_reason("dax_pmd_fault_done", "FALLBACK",
					    reasons[i]) +
			 trace_count_reason("dax_pud_fault_done", "FALLBACK",
					    reasons[i]);

		if (n > 0)
			snprintf(why + strlen(why), sizeof(why) - strlen(why),
				 "%s%s=%ld", *why ? "," : "", reasons[i], n);
	}
	/* and each whole GiB on its own */
	for (off = 0; off + SZ_1G <= len; off += SZ_1G) {
		char one[64];

		if (ptdump_levels((unsigned long)base + off, SZ_1G, &sizes))
			break;
		ptdump_describe(one, sizeof(one), &sizes, 0);
		snprintf(gibs + strlen(gibs), sizeof(gibs) - strlen(gibs),
			 "%s%s", off ? "," : "", one);
	}
	printf("pmdk\t%zu\t%zuK\t%ld\t%ld\t%ld\t%ld\t%ld\t%ld\t%s\t%s\t%s\n",
	       len / SZ_1M, align >> 10, create_faults, faults,
	       trace_count("dax_pmd_fault_done", "NOPAGE"),
	       trace_count("dax_pmd_fault_done", "FALLBACK"),
	       trace_count("dax_pud_fault_done", "NOPAGE"),
	       trace_count("dax_pud_fault_done", "FALLBACK"),
	       pages, *why ? why : "-", *gibs ? gibs : "-");
	pmemobj_close(pop);
	return 0;
}
