// SPDX-License-Identifier: GPL-2.0
/*
 * The head of a growing DAX file moves to an aligned GiB also on the
 * layouts whose move has no journal or CoW staging to lean on: ext4
 * without a journal (-O ^has_journal) and with data=writeback, xfs without
 * reflink (-m reflink=0).
 *
 * Each variant makes its file system on a scratch namespace
 * (HUGEDAX_SCRATCH_DEV, which guest/test-job.sh lends from xfs; without it
 * the tests are skipped) and mounts it with -o dax on /mnt/layout.
 *  - appended_gib_maps_a_pud: a file appended to 1 GiB in 64 KiB writes
 *    sits on one aligned GiB (FIEMAP) and maps one PUD (1 fault, the
 *    page-table dump); the data reads back.  Negative control: mapped
 *    2 MiB off a GiB boundary, the same file takes 511 faults, all PMDs.
 *  - keeps_mapped_stores: a child storing through a mapping of the first
 *    60 MiB while the file grows past 64 MiB loses no store, and the head
 *    ends on a GiB (check_move_keeps_stores()).
 *  - fragmented.appended_file_maps_pmds: on a default ext4 and xfs whose
 *    free space has no aligned GiB, see the test.
 *  - scarce.medium_file_leaves_the_gibs: where two free GiBs are left, a
 *    file of 256 MiB leaves them to two files of 1 GiB; see the test.
 *  - stripe.su2m_fallocated_2g: every 2 MiB of a 2 GiB file on
 *    mkfs.xfs -d su=2m,sw=1 maps a PMD; see the test.
 *  - flexbg4.taken_goal_finds_the_aligned_2m: on mkfs.ext4 -G 4, a
 *    PMD-aligned request whose goal is taken finds the one aligned 2 MiB
 *    left; see the test.
 * Access order: appends (which allocate), then reads through the mapping.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "dax_probe.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"
#include "dax_checks.h"

#define MNT	"/mnt/layout"

FIXTURE(layout) {
	char path[256];
	uint64_t seed;
	bool mounted;
};

FIXTURE_VARIANT(layout) {
	const char *mkfs;	/* the command, the device appended */
	const char *opts;	/* mount options */
	const char *type;
};

FIXTURE_VARIANT_ADD(layout, ext4_nojournal) {
	.mkfs = "mkfs.ext4 -q -F -O ^has_journal", .opts = "dax",
	.type = "ext4",
};

FIXTURE_VARIANT_ADD(layout, ext4_writeback) {
	.mkfs = "mkfs.ext4 -q -F", .opts = "dax,data=writeback",
	.type = "ext4",
};

FIXTURE_VARIANT_ADD(layout, xfs_noreflink) {
	.mkfs = "mkfs.xfs -q -f -m reflink=0", .opts = "dax", .type = "xfs",
};

/* make the file system on the scratch device and mount it on MNT */
static void make_scratch(struct __test_metadata *_metadata, const char *dev,
			 const char *mkfs, const char *type, const char *opts)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "%s %s", mkfs, dev);
	ASSERT_EQ(0, system(cmd)) TH_LOG("%s failed", cmd);
	mkdir(MNT, 0755);
	ASSERT_EQ(0, mount(dev, MNT, type, 0, opts))
		TH_LOG("mount %s: %s", dev, strerror(errno));
}

FIXTURE_SETUP(layout)
{
	const char *dev = getenv("HUGEDAX_SCRATCH_DEV");

	self->mounted = false;
	if (!dev || !*dev)
		SKIP(return, "no HUGEDAX_SCRATCH_DEV");
	make_scratch(_metadata, dev, variant->mkfs, variant->type,
		     variant->opts);
	self->mounted = true;
	snprintf(self->path, sizeof(self->path), MNT "/grow.%d", (int)getpid());
	self->seed = new_seed();
}

FIXTURE_TEARDOWN(layout)
{
	if (self->mounted) {
		unlink(self->path);
		umount(MNT);
	}
}

TEST_F_TIMEOUT(layout, appended_gib_maps_a_pud, 2 * TIMEOUT_LONG)
{
	char extents[1024];
	int fd;

	RETURN_IF_SKIPPED();
	ASSERT_EQ(0, append_file_pattern(self->path, SZ_1G, 64 * 1024,
					 self->seed));
	fd = open(self->path, O_RDONLY);
	ASSERT_LE(0, fd);
	EXPECT_EQ(1, fiemap_aligned_chunks(fd, 0, SZ_1G, SZ_1G)) {
		fiemap_describe(fd, extents, sizeof(extents));
		TH_LOG("extents %s", extents);
	}

	check_gib_maps_a_pud(_metadata, fd, self->seed);
	close(fd);
}

TEST_F_TIMEOUT(layout, keeps_mapped_stores, 2 * TIMEOUT_LONG)
{
	RETURN_IF_SKIPPED();
	check_move_keeps_stores(_metadata, self->path, self->seed);
}

/*
 * Where no aligned GiB is free, a file still maps a PMD for every 2 MiB.
 * Set-up: a filler takes all the space, then in every 64 MiB of the
 * device that it covers, a range is punched out, so that no free run is
 * 64 MiB long:
 *  - append64k: [4 KiB, 48 MiB), runs that start off a 2 MiB boundary;
 *    the file, appended in 64 KiB writes, gets its first blocks while it
 *    is small, and they must move next to those placed for PMDs after
 *    them (ext4: the tenth session's kernel left the first 2 MiB
 *    unaligned, 127 of 128 chunks).
 *  - pwrite256m: [2 MiB, 46 MiB + 4 KiB), runs that end 4 KiB into a
 *    chunk; the file, written by one pwrite(), must not continue into
 *    that chunk from the end of a run.
 * Access order: the writes, then reads through a 2 MiB-aligned mapping of
 * the 256 MiB file, one word per 4 KiB.  Signals: faults (128), the
 * page-table dump (all PMDs), FIEMAP (all 128 chunks aligned); the data
 * reads back.  Negative control: the first 8 MiB mapped at an address
 * that is not congruent to the file offset: 2,048 faults, PTEs only.  On
 * ext4, the tenth session's kernel left the first 2 MiB unaligned (127
 * of 128 chunks).
 */
FIXTURE(fragmented) {
	char path[256];
	char filler[256];
	uint64_t seed;
	bool mounted;
};

FIXTURE_VARIANT(fragmented) {
	const char *mkfs;
	const char *type;
	size_t piece;		/* the file is written in writes of this */
	size_t hole_start;	/* the free runs in each 64 MiB */
	size_t hole_end;
};

/* appended: the first blocks land off the alignment and must move */
FIXTURE_VARIANT_ADD(fragmented, ext4_append64k) {
	.mkfs = "mkfs.ext4 -q -F", .type = "ext4", .piece = 64 * 1024,
	.hole_start = SZ_4K, .hole_end = 48 * SZ_1M,
};

FIXTURE_VARIANT_ADD(fragmented, xfs_append64k) {
	.mkfs = "mkfs.xfs -q -f", .type = "xfs", .piece = 64 * 1024,
	.hole_start = SZ_4K, .hole_end = 48 * SZ_1M,
};

/* one write: each free run ends 4 KiB into a chunk, which must stay free */
FIXTURE_VARIANT_ADD(fragmented, ext4_pwrite256m) {
	.mkfs = "mkfs.ext4 -q -F", .type = "ext4", .piece = 256 * SZ_1M,
	.hole_start = SZ_2M, .hole_end = 46 * SZ_1M + SZ_4K,
};

FIXTURE_VARIANT_ADD(fragmented, xfs_pwrite256m) {
	.mkfs = "mkfs.xfs -q -f", .type = "xfs", .piece = 256 * SZ_1M,
	.hole_start = SZ_2M, .hole_end = 46 * SZ_1M + SZ_4K,
};

FIXTURE_SETUP(fragmented)
{
	const char *dev = getenv("HUGEDAX_SCRATCH_DEV");

	self->mounted = false;
	if (!dev || !*dev)
		SKIP(return, "no HUGEDAX_SCRATCH_DEV");
	make_scratch(_metadata, dev, variant->mkfs, variant->type, "dax");
	self->mounted = true;
	snprintf(self->path, sizeof(self->path), MNT "/grow.%d", (int)getpid());
	snprintf(self->filler, sizeof(self->filler), MNT "/filler.%d",
		 (int)getpid());
	self->seed = new_seed();
}

FIXTURE_TEARDOWN(fragmented)
{
	if (self->mounted) {
		unlink(self->path);
		unlink(self->filler);
		umount(MNT);
	}
}

TEST_F_TIMEOUT(fragmented, appended_file_maps_pmds, 2 * TIMEOUT_LONG)
{
	const size_t len = 256 * SZ_1M, ctl = 8 * SZ_1M;
	char extents[1024];
	int fd, punched;

	RETURN_IF_SKIPPED();
	ASSERT_EQ(0, fallocate_until_full(self->filler, 64 * SZ_1M));
	ASSERT_EQ(0, fallocate_until_full(self->filler, SZ_2M));
	fd = open(self->filler, O_RDWR);
	ASSERT_LE(0, fd);
	punched = punch_device_runs(fd, 64 * SZ_1M, variant->hole_start,
				    variant->hole_end, 0);
	close(fd);
	sync();
	TH_LOG("%d runs of [%zu, %zu) KiB in 64 MiB punched", punched,
	       variant->hole_start >> 10, variant->hole_end >> 10);
	ASSERT_LE(16, punched);

	ASSERT_EQ(0, append_file_pattern(self->path, len, variant->piece,
					 self->seed));
	fd = open(self->path, O_RDONLY);
	ASSERT_LE(0, fd);
	fiemap_describe(fd, extents, sizeof(extents));
	TH_LOG("extents %s", extents);
	EXPECT_EQ((long)(len / SZ_2M), fiemap_aligned_chunks(fd, 0, len, SZ_2M));

	expect_read_mapping(_metadata, "appended 256 MiB, 2 MiB aligned", fd,
			    0, len, SZ_2M, 0, len / SZ_2M, 0, len, 0,
			    &self->seed);
	/* negative control: file offset 4 KiB at a 2 MiB-aligned address */
	expect_read_mapping(_metadata, "4 KiB off", fd, SZ_4K, ctl, SZ_2M, 0,
			    ctl / SZ_4K, ctl, 0, 0, NULL);
	close(fd);
}

/*
 * scarce.*: free space with just two free, aligned GiBs (fewer than one in
 * four of the sixteen) and 32 MiB runs on 2 MiB boundaries elsewhere.  A
 * file of 256 MiB, sized with ftruncate() and then written, or fallocated
 * and then written, may not take one of the two GiBs: it is placed on
 * 2 MiB boundaries elsewhere (FIEMAP: none of its blocks in the GiBs, all
 * 128 chunks aligned).  Then two files of 1 GiB, sized and filled by
 * stores through a 1 GiB-aligned mapping, each map one PUD: 1 fault to
 * read through a new mapping, the page-table dump, the data; control: the
 * same blocks mapped 2 MiB off a GiB boundary take 511 faults, all PMDs.
 * Negative control: a third such file finds no free GiB and maps 512
 * PMDs.  Access order: the 256 MiB file is written before the big files
 * are sized and stored to.  On the eleventh session's kernel the 256 MiB
 * file took a GiB on speculation that it would grow, and the second 1 GiB
 * file mapped 512 PMDs.
 */
FIXTURE(scarce) {
	char path[3][256];
	char medium[256];
	char filler[256];
	uint64_t seed;
	bool mounted;
};

FIXTURE_VARIANT(scarce) {
	const char *mkfs;
	const char *type;
	bool fallocate;		/* else ftruncate() */
};

FIXTURE_VARIANT_ADD(scarce, ext4_sized) {
	.mkfs = "mkfs.ext4 -q -F", .type = "ext4",
};

FIXTURE_VARIANT_ADD(scarce, ext4_fallocated) {
	.mkfs = "mkfs.ext4 -q -F", .type = "ext4", .fallocate = true,
};

FIXTURE_VARIANT_ADD(scarce, xfs_sized) {
	.mkfs = "mkfs.xfs -q -f", .type = "xfs",
};

FIXTURE_SETUP(scarce)
{
	const char *dev = getenv("HUGEDAX_SCRATCH_DEV");
	int i;

	self->mounted = false;
	if (!dev || !*dev)
		SKIP(return, "no HUGEDAX_SCRATCH_DEV");
	make_scratch(_metadata, dev, variant->mkfs, variant->type, "dax");
	self->mounted = true;
	for (i = 0; i < 3; i++)
		snprintf(self->path[i], sizeof(self->path[i]), MNT "/big%d.%d",
			 i, (int)getpid());
	snprintf(self->medium, sizeof(self->medium), MNT "/medium.%d",
		 (int)getpid());
	snprintf(self->filler, sizeof(self->filler), MNT "/filler.%d",
		 (int)getpid());
	self->seed = new_seed();
}

FIXTURE_TEARDOWN(scarce)
{
	int i;

	if (self->mounted) {
		for (i = 0; i < 3; i++)
			unlink(self->path[i]);
		unlink(self->medium);
		unlink(self->filler);
		umount(MNT);
	}
}

/* size @path to 1 GiB and store the pattern through a 1 GiB-aligned map */
static int store_sized_gib(const char *path, uint64_t seed)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	char *p;

	if (fd < 0 || ftruncate(fd, SZ_1G))
		return -1;
	p = map_aligned(SZ_1G, SZ_1G, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
			0, 0);
	if (p == MAP_FAILED) {
		close(fd);
		return -1;
	}
	fill_pattern(p, SZ_1G, seed, 0);
	munmap(p, SZ_1G);
	return fd;
}

TEST_F_TIMEOUT(scarce, medium_file_leaves_the_gibs, 2 * TIMEOUT_LONG)
{
	const size_t len = 256 * SZ_1M;
	uint64_t gibs[2];
	char extents[1024];
	int fd, i;

	RETURN_IF_SKIPPED();
	ASSERT_EQ(0, fallocate_until_full(self->filler, 64 * SZ_1M));
	ASSERT_EQ(0, fallocate_until_full(self->filler, SZ_2M));
	fd = open(self->filler, O_RDWR);
	ASSERT_LE(0, fd);
	ASSERT_EQ(2, punch_device_gibs(fd, 2, gibs));
	ASSERT_EQ(48, punch_device_runs(fd, 64 * SZ_1M, SZ_2M, 34 * SZ_1M,
					48));
	close(fd);
	sync();
	/* ext4 keeps its count of free GiBs for a second */
	sleep(2);
	TH_LOG("free GiBs at %#llx and %#llx, 48 runs of 32 MiB elsewhere",
	       (unsigned long long)gibs[0], (unsigned long long)gibs[1]);

	fd = open(self->medium, O_RDWR | O_CREAT | O_TRUNC, 0644);
	ASSERT_LE(0, fd);
	if (variant->fallocate) {
		ASSERT_EQ(0, fallocate(fd, 0, 0, len));
	} else {
		ASSERT_EQ(0, ftruncate(fd, len));
	}
	ASSERT_EQ(0, write_file_pattern(fd, 0, len, self->seed));
	fiemap_describe(fd, extents, sizeof(extents));
	TH_LOG("256 MiB file: extents %s", extents);
	for (i = 0; i < 2; i++) {
		unsigned long long gib = gibs[i];

		EXPECT_EQ(0, fiemap_device_bytes(fd, gib, SZ_1G))
			TH_LOG("the 256 MiB file took blocks of the GiB at %#llx",
			       gib);
	}
	EXPECT_EQ((long)(len / SZ_2M), fiemap_aligned_chunks(fd, 0, len, SZ_2M));
	close(fd);
	sync();

	for (i = 0; i < 2; i++) {
		fd = store_sized_gib(self->path[i], self->seed + i);
		ASSERT_LE(0, fd);
		fiemap_describe(fd, extents, sizeof(extents));
		TH_LOG("1 GiB file %d: extents %s", i, extents);
		check_gib_maps_a_pud(_metadata, fd, self->seed + i);
		close(fd);
	}

	/* negative control: no free GiB is left for a third */
	sync();
	fd = store_sized_gib(self->path[2], self->seed + 2);
	ASSERT_LE(0, fd);
	expect_read_mapping(_metadata, "third 1 GiB file, no free GiB left",
			    fd, 0, SZ_1G, SZ_1G, 0, 512, 0, SZ_1G, 0,
			    &(uint64_t){ self->seed + 2 });
	close(fd);
}

/*
 * stripe.su2m_fallocated_2g: mkfs.xfs -d su=2m,sw=1 (the stripe recipe for
 * 2 MiB pages) makes 1 GiB groups on the 16 GiB namespace, whose usable
 * size is not a multiple of 2 MiB.  A 2 GiB file, fallocated and then
 * written, spans three groups; every 2 MiB chunk must still be aligned
 * (FIEMAP: 1,024 of 1,024) and map a PMD: 1,024 faults to read it through
 * a 1 GiB-aligned mapping, PMDs only in the page-table dump, data read
 * back.  Negative control: the first 8 MiB mapped at a file offset of
 * 4 KiB from a 2 MiB-aligned address, 2,048 faults, PTEs only.  On the
 * series before `xfs: end a DAX allocation that a group's size clamps on
 * a chunk boundary`, the allocation that filled a group ended 202 blocks
 * into a chunk: 1,023 chunks aligned, 1,535 faults.
 */
FIXTURE(stripe) {
	char path[256];
	uint64_t seed;
	bool mounted;
};

FIXTURE_SETUP(stripe)
{
	const char *dev = getenv("HUGEDAX_SCRATCH_DEV");

	self->mounted = false;
	if (!dev || !*dev)
		SKIP(return, "no HUGEDAX_SCRATCH_DEV");
	make_scratch(_metadata, dev, "mkfs.xfs -q -f -d su=2m,sw=1", "xfs",
		     "dax");
	self->mounted = true;
	snprintf(self->path, sizeof(self->path), MNT "/big.%d", (int)getpid());
	self->seed = new_seed();
}

FIXTURE_TEARDOWN(stripe)
{
	if (self->mounted) {
		unlink(self->path);
		umount(MNT);
	}
}

TEST_F_TIMEOUT(stripe, su2m_fallocated_2g, 2 * TIMEOUT_LONG)
{
	const size_t len = 2 * SZ_1G, ctl = 8 * SZ_1M;
	char extents[1024];
	int fd;

	RETURN_IF_SKIPPED();
	fd = open(self->path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, fallocate(fd, 0, 0, len));
	ASSERT_EQ(0, write_file_pattern(fd, 0, len, self->seed));
	fiemap_describe(fd, extents, sizeof(extents));
	TH_LOG("extents %s", extents);
	EXPECT_EQ((long)(len / SZ_2M), fiemap_aligned_chunks(fd, 0, len, SZ_2M));
	expect_read_mapping(_metadata, "2 GiB on su=2m, 1 GiB aligned", fd, 0,
			    len, SZ_1G, 0, len / SZ_2M, 0, len, 0,
			    &self->seed);
	/* negative control: file offset 4 KiB at a 2 MiB-aligned address */
	expect_read_mapping(_metadata, "4 KiB off", fd, SZ_4K, ctl, SZ_2M, 0,
			    ctl / SZ_4K, ctl, 0, 0, NULL);
	close(fd);
}

/*
 * The rare mkfs.ext4 -G 4 miss, made to happen.  There no aligned GiB is
 * free of metadata, so DAX data is placed for PMDs by mballoc's aligned
 * search when a goal is taken.  File F has an aligned 2 MiB; a filler
 * then takes all other free space (reserved_clusters at 0), and two holes
 * are punched in it: U, 600 blocks from 4 KiB past a 2 MiB boundary of a
 * lower group (no aligned 2 MiB in it), and A, an aligned 2 MiB of the
 * next group that starts a flex group.  After a remount (no group has
 * its buddy built but the ones the mount touches) F's next 2 MiB is
 * fallocated: its goal, the block after F, is the filler's, so mballoc
 * searches, from group 0 (a stream allocation after a mount).  Criterion
 * 0 skips A's group (the first of a flex group) for data; criterion 1
 * must go through the groups in a row and build A's buddy ("ext4: scan
 * each group once at criterion 1 for PMD-aligned DAX data"), where its
 * list choice used to find no group and criterion 2 took U.
 * Positive: F's second 2 MiB is A: FIEMAP says aligned, and the range,
 * written and then read through a 2 MiB-aligned mapping, maps one PMD
 * (1 fault, the page-table dump).  Negative control: mounted with
 * dax_align=off, which asks for no alignment, the search takes U:
 * unaligned, 512 faults, all PTEs.  Access order: fallocate, pwrite of
 * the pattern, then reads.
 */
FIXTURE(flexbg4) {
	bool mounted;
	char name[64];
	const char *dev;
};

FIXTURE_SETUP(flexbg4)
{
	const char *dev = getenv("HUGEDAX_SCRATCH_DEV");
	const char *slash;

	self->mounted = false;
	if (!dev || !*dev)
		SKIP(return, "no HUGEDAX_SCRATCH_DEV");
	self->dev = dev;
	slash = strrchr(dev, '/');
	snprintf(self->name, sizeof(self->name), "%s", slash ? slash + 1 : dev);
}

FIXTURE_TEARDOWN(flexbg4)
{
	if (self->mounted)
		umount(MNT);
}

#define GROUP_BYTES	(32768ULL * SZ_4K)

static void taken_goal_scene(struct __test_metadata *_metadata,
			     FIXTURE_DATA(flexbg4) *self, const char *opts,
			     int *fdp, uint64_t *second)
{
	const char *f = MNT "/f", *filler = MNT "/filler";
	char path[128], extents[1024];
	uint64_t p, g, h;
	int fd;

	make_scratch(_metadata, self->dev, "mkfs.ext4 -q -F -G 4", "ext4",
		     "dax");
	self->mounted = true;
	snprintf(path, sizeof(path), "/sys/fs/ext4/%s/reserved_clusters",
		 self->name);
	ASSERT_EQ(0, knob_swap(path, 0) < 0);
	fd = open(f, O_RDWR | O_CREAT | O_TRUNC, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, fallocate(fd, 0, 0, SZ_2M));
	p = fiemap_physical_at(fd, 0);
	close(fd);
	ASSERT_TRUE(p && !(p % SZ_2M)) TH_LOG("F at %#llx",
					      (unsigned long long)p);
	ASSERT_EQ(0, fallocate_until_full(filler, 64 * SZ_1M));
	ASSERT_EQ(0, fallocate_until_full(filler, SZ_4K));
	/* U: a group past 0 without flex_bg metadata or F; A: the next flex */
	for (g = 1; !(g % 4) || g == p / GROUP_BYTES; g++)
		;
	h = (g / 4 + 1) * 4;
	fd = open(filler, O_RDWR);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, punch_device_range(fd, g * GROUP_BYTES + 16 * SZ_1M +
					SZ_4K, 600 * SZ_4K));
	ASSERT_EQ(0, punch_device_range(fd, h * GROUP_BYTES + 16 * SZ_1M,
					SZ_2M));
	TH_LOG("%s: F's next block %s the filler's", opts,
	       fiemap_device_bytes(fd, p + SZ_2M, SZ_4K) ? "is" : "is not");
	close(fd);
	sync();
	ASSERT_EQ(0, umount(MNT));
	self->mounted = false;
	ASSERT_EQ(0, mount(self->dev, MNT, "ext4", 0, opts))
		TH_LOG("mount %s: %s", opts, strerror(errno));
	self->mounted = true;
	/* a mount sets it again: F's 2 MiB must fit in what is left */
	ASSERT_EQ(0, knob_swap(path, 0) < 0);
	fd = open(f, O_RDWR);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, fallocate(fd, 0, SZ_2M, SZ_2M));
	*second = fiemap_physical_at(fd, SZ_2M);
	fiemap_describe(fd, extents, sizeof(extents));
	TH_LOG("%s: holes in groups %llu (unaligned) and %llu (aligned); F %s",
	       opts, (unsigned long long)g, (unsigned long long)h, extents);
	*fdp = fd;
}

TEST_F_TIMEOUT(flexbg4, taken_goal_finds_the_aligned_2m, 2 * TIMEOUT_LONG)
{
	uint64_t second, seed = new_seed();
	int fd;

	RETURN_IF_SKIPPED();
	/* negative control: no alignment asked for */
	taken_goal_scene(_metadata, self, "dax,dax_align=off", &fd, &second);
	EXPECT_NE(0UL, second % SZ_2M);
	ASSERT_EQ(0, write_file_pattern(fd, 0, 2 * SZ_2M, seed));
	expect_read_mapping(_metadata, "dax_align=off, 2nd 2 MiB", fd, SZ_2M,
			    SZ_2M, SZ_2M, 0, SZ_2M / SZ_4K, SZ_2M, 0, 0,
			    &seed);
	close(fd);
	ASSERT_EQ(0, umount(MNT));
	self->mounted = false;

	taken_goal_scene(_metadata, self, "dax", &fd, &second);
	EXPECT_EQ(0UL, second % SZ_2M);
	ASSERT_EQ(0, write_file_pattern(fd, 0, 2 * SZ_2M, seed));
	expect_read_mapping(_metadata, "default, 2nd 2 MiB", fd, SZ_2M, SZ_2M,
			    SZ_2M, 0, 1, 0, SZ_2M, 0, &seed);
	close(fd);
}

TEST_HARNESS_MAIN
