// SPDX-License-Identifier: GPL-2.0
/*
 * A PMDK application on DAX files: a pool that libpmemobj (Debian's 1.12)
 * creates with pmemobj_create() on ext4 and xfs maps every whole GiB with
 * a PUD, the way the application uses it.
 *
 * PMDK fallocates the pool file, maps all of it (1 GiB aligned, the
 * kernel's choice for DAX mappings of 1 GiB and more) and writes the pool
 * header through a 4 KiB MAP_SYNC mapping of its own.  Access order:
 * create a 2 GiB pool (PMDK writes its metadata), allocate a 1 GiB root
 * object (PMDK zeroes it), fill it with a position-dependent pattern
 * through the pool's mapping and persist it.
 * Signals: the page-table dump, and the dax_pud_fault_done /
 * dax_pmd_fault_done tracepoints (no fallback).  Data: the root object
 * read back with pread() and through the pool opened again.
 *
 * Negative control: the pool file mapped by the test 2 MiB past a 1 GiB
 * boundary maps no PUD (libpmem itself always maps a pool of 1 GiB or more
 * 1 GiB aligned, even when PMEM_MMAP_HINT asks for another address).
 *
 * Linked with -lpmemobj, dynamically: the guest runs the host's libraries
 * over its 9p root.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <libpmemobj.h>

#include "dax_probe.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"
#include "dax_checks.h"

#define POOL_SIZE	(2 * SZ_1G)
#define ROOT_SIZE	SZ_1G

static const char *const events[] = {
	"fs_dax/dax_pud_fault_done",
	"fs_dax/dax_pmd_fault_done",
	NULL,
};

/*
 * Allocate the pool's root object, ROOT_SIZE, as an application would, and
 * fill it with the pattern of @seed at its file offsets.  Returns it.
 */
static char *fill_root(PMEMobjpool *pop, uint64_t seed)
{
	char *root = pmemobj_direct(pmemobj_root(pop, ROOT_SIZE));

	if (root) {
		fill_pattern(root, ROOT_SIZE, seed, root - (char *)pop);
		pmemobj_persist(pop, root, ROOT_SIZE);
	}
	return root;
}

FIXTURE(pool) {
	char path[256];
};

FIXTURE_VARIANT(pool) {
	const char *fstype;
	const char *env;
	const char *dir;
};

FIXTURE_VARIANT_ADD(pool, ext4) {
	.fstype = "ext4", .env = "HUGEDAX_EXT4", .dir = "/mnt/ext4",
};

FIXTURE_VARIANT_ADD(pool, xfs) {
	.fstype = "xfs", .env = "HUGEDAX_XFS", .dir = "/mnt/xfs",
};

FIXTURE_SETUP(pool)
{
	const char *dir = env_or(variant->env, variant->dir);
	char fstype[32];
	int dax = 0;

	snprintf(self->path, sizeof(self->path), "%s/hugedax.pmdk.pool", dir);
	if (geteuid())
		SKIP(return, "needs root");
	ASSERT_EQ(0, mount_of(dir, fstype, sizeof(fstype), &dax));
	ASSERT_STREQ(variant->fstype, fstype);
	ASSERT_TRUE(dax);
	unlink(self->path);
	/* blocks of files removed before are free once the journal commits */
	sync();
}

FIXTURE_TEARDOWN(pool)
{
	unlink(self->path);
	sync();
}

TEST_F_TIMEOUT(pool, every_gib_maps_a_pud, TIMEOUT_LONG)
{
	uint64_t seed = new_seed();
	struct fault_count fc;
	PMEMobjpool *pop;
	size_t wrong = 0;
	off_t bad = 0;
	char *root;
	off_t off;
	int fd;

	RETURN_IF_SKIPPED();
	start_tracing(_metadata, events);
	fault_begin(&fc, calibrate_minflt());
	pop = pmemobj_create(self->path, "hugedax", POOL_SIZE, 0644);
	ASSERT_NE(NULL, pop) {
		TH_LOG("pmemobj_create: %s", pmemobj_errormsg());
	}
	root = fill_root(pop, seed);
	fault_end(&fc);
	stop_tracing(_metadata);
	ASSERT_NE(NULL, root);
	off = root - (char *)pop;
	TH_LOG("pool at %p, root object at +%#llx: %ld faults; pud done %ld (fallback %ld), pmd done %ld",
	       (void *)pop, (unsigned long long)off, fc.min + fc.maj,
	       trace_count("dax_pud_fault_done", NULL),
	       trace_count("dax_pud_fault_done", "FALLBACK"),
	       trace_count("dax_pmd_fault_done", NULL));
	EXPECT_EQ(0UL, (unsigned long)pop & (SZ_1G - 1));
	expect_levels(_metadata, pop, POOL_SIZE, 0, 0, POOL_SIZE);
	EXPECT_LE(2L, trace_count("dax_pud_fault_done", NULL));
	EXPECT_EQ(0L, trace_count("dax_pud_fault_done", "FALLBACK"));
	EXPECT_EQ(0L, trace_count("dax_pmd_fault_done", NULL));
	pmemobj_close(pop);

	fd = open(self->path, O_RDONLY);
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, check_file_pattern(fd, off, ROOT_SIZE, 64, seed, &bad)) {
		TH_LOG("pread differs at %#llx", (unsigned long long)bad);
	}
	close(fd);
	pop = pmemobj_open(self->path, "hugedax");
	ASSERT_NE(NULL, pop) {
		TH_LOG("pmemobj_open: %s", pmemobj_errormsg());
	}
	root = pmemobj_direct(pmemobj_root(pop, ROOT_SIZE));
	ASSERT_NE(NULL, root);
	EXPECT_EQ(0, check_pattern(root, ROOT_SIZE, 64, seed,
				   root - (char *)pop, &wrong)) {
		TH_LOG("the root object differs at %#zx", wrong);
	}
	pmemobj_close(pop);
}

/*
 * Negative control: the same pool, made the same way, mapped by the test
 * 2 MiB past a 1 GiB boundary maps PMDs and no PUD, and the signals say
 * so.  Access order: create and fill as above, close, then read one word
 * per 4 KiB through the misaligned mapping.
 */
TEST_F_TIMEOUT(pool, misaligned_mapping_maps_no_pud, TIMEOUT_LONG)
{
	uint64_t seed = new_seed();
	struct fault_count fc;
	PMEMobjpool *pop;
	size_t wrong = 0;
	char *root, *p;
	off_t off;
	int fd;

	RETURN_IF_SKIPPED();
	pop = pmemobj_create(self->path, "hugedax", POOL_SIZE, 0644);
	ASSERT_NE(NULL, pop) {
		TH_LOG("pmemobj_create: %s", pmemobj_errormsg());
	}
	root = fill_root(pop, seed);
	ASSERT_NE(NULL, root);
	off = root - (char *)pop;
	pmemobj_close(pop);

	fd = open(self->path, O_RDONLY);
	ASSERT_LE(0, fd);
	p = map_aligned(POOL_SIZE, SZ_1G, PROT_READ, MAP_SHARED, fd, 0, SZ_2M);
	ASSERT_NE(MAP_FAILED, p);
	traced_touch(_metadata, events, &fc, p, POOL_SIZE, SZ_4K, false, 0, 0);
	expect_levels(_metadata, p, POOL_SIZE, 0, POOL_SIZE, 0);
	EXPECT_LE(1L, trace_count_reason("dax_pud_fault_done", "FALLBACK",
					 "misaligned_address"));
	EXPECT_EQ(0L, trace_count("dax_pud_fault_done", "NOPAGE"));
	EXPECT_EQ(0, check_pattern(p + off, ROOT_SIZE, 64, seed, off, &wrong)) {
		TH_LOG("the root object differs at %#zx", wrong);
	}
	munmap(p, POOL_SIZE);
	close(fd);
}

TEST_HARNESS_MAIN
