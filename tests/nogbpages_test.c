// SPDX-License-Identifier: GPL-2.0
/*
 * On a CPU without 1 GiB pages (QEMU -cpu max,pdpe1gb=off), a device-dax
 * namespace with 1 GiB alignment cannot be mapped: the fault must end in
 * SIGBUS, never in a PUD leaf that the CPU takes for a corrupt page table.
 * Runs in its own boot (scripts/run-tests.sh, guest/nogbpages-job.sh).
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "dax_probe.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"
#include "dax_checks.h"

static int cpu_has_gbpages(void)
{
	char line[4096];
	int found = 0;
	FILE *f = fopen("/proc/cpuinfo", "r");

	if (!f)
		return -1;
	while (!found && fgets(line, sizeof(line), f))
		if (!strncmp(line, "flags", 5) && strstr(line, " pdpe1gb"))
			found = 1;
	fclose(f);
	return found;
}

/* The premise: the CPU really lacks pdpe1gb in this boot. */
TEST(cpu_lacks_pdpe1gb)
{
	ASSERT_EQ(0, cpu_has_gbpages());
}

TEST_SIGNAL(devdax_1g_without_gbpages_sigbus, SIGBUS)
{
	const char *path = env_or("HUGEDAX_DEVDAX", "/dev/dax3.0");
	volatile char *p;
	int fd;

	ASSERT_EQ(0, cpu_has_gbpages()) {
		TH_LOG("run this test on a CPU without pdpe1gb");
	}
	fd = open(path, O_RDWR);
	ASSERT_LE(0, fd);
	p = mmap(NULL, SZ_1G, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	p[0] = 1;	/* no PUD possible, and 1 GiB alignment forbids PMDs */
	TH_LOG("write succeeded without 1 GiB pages");
}

TEST_HARNESS_MAIN
