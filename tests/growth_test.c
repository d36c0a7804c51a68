// SPDX-License-Identifier: GPL-2.0
/*
 * Files that grow by appends get PMDs, also when several grow at once.
 *
 * Runs on default mkfs.ext4 and mkfs.xfs of the 16 GiB namespaces (the
 * test job makes them fresh).  Each variant starts N processes at once,
 * each appending LEN bytes to its own new file in write()s of PIECE bytes
 * (O_APPEND, a non-zero pattern that depends on the file and the offset).
 * When all are done, each file is mapped at a 2 MiB-aligned address and
 * read one word per 4 KiB.  The first 2 MiB of a file that grows from
 * empty is allocated while the file is small, where small files are packed,
 * so it maps with 512 PTEs (or a PMD if those blocks happen to be
 * aligned); every later 2 MiB must map a PMD.  Checked with
 * getrusage fault counts, the dax_pmd_fault_done tracepoint (fallbacks) and
 * the kernel's page table dump; the data is read back.
 *
 * Negative control: the first file mapped 4 KiB off a 2 MiB boundary can
 * only take PTEs, and the same probes must say so.
 *
 * Access order: appends first (the writes allocate), then reads through
 * the mapping only.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>

#include <linux/fiemap.h>
#include <linux/fs.h>
#include <xfs/xfs.h>

#include "dax_probe.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"
#include "dax_checks.h"

#define MAX_WRITERS	4

static const char *const events[] = {
	"fs_dax/dax_pmd_fault_done",
	NULL,
};

FIXTURE(growth) {
	char path[MAX_WRITERS][256];
	uint64_t seed;
};

FIXTURE_VARIANT(growth) {
	const char *fs;		/* "ext4" or "xfs" */
	int writers;		/* processes appending at once */
	size_t len;		/* bytes each appends */
	size_t piece;		/* bytes per write() */
};

FIXTURE_VARIANT_ADD(growth, ext4_4_writers_256k) {
	.fs = "ext4", .writers = 4, .len = 64 * SZ_1M, .piece = 256 * 1024,
};

FIXTURE_VARIANT_ADD(growth, ext4_1_writer_64k) {
	.fs = "ext4", .writers = 1, .len = 64 * SZ_1M, .piece = 64 * 1024,
};

FIXTURE_VARIANT_ADD(growth, ext4_2_writers_4k) {
	.fs = "ext4", .writers = 2, .len = 16 * SZ_1M, .piece = 4096,
};

FIXTURE_VARIANT_ADD(growth, xfs_4_writers_256k) {
	.fs = "xfs", .writers = 4, .len = 64 * SZ_1M, .piece = 256 * 1024,
};

FIXTURE_VARIANT_ADD(growth, xfs_1_writer_64k) {
	.fs = "xfs", .writers = 1, .len = 64 * SZ_1M, .piece = 64 * 1024,
};

FIXTURE_SETUP(growth)
{
	const char *dir = !strcmp(variant->fs, "ext4") ?
		env_or("HUGEDAX_EXT4", "/mnt/ext4") :
		env_or("HUGEDAX_XFS", "/mnt/xfs");
	int i;

	self->seed = new_seed();
	for (i = 0; i < variant->writers; i++)
		snprintf(self->path[i], sizeof(self->path[i]),
			 "%s/growth.%d.%d", dir, (int)getpid(), i);
}

FIXTURE_TEARDOWN(growth)
{
	int i;

	for (i = 0; i < variant->writers; i++)
		unlink(self->path[i]);
}

/* the pattern each writer appends: its own seed */
static uint64_t writer_seed(uint64_t seed, int i)
{
	return seed + 0x9e3779b97f4a7c15ULL * (uint64_t)(i + 1);
}

TEST_F_TIMEOUT(growth, appenders_map_pmds_past_the_first_2m, 2 * TIMEOUT_LONG)
{
	size_t len = variant->len, chunks = len / SZ_2M;
	int i, status, failed = 0;

	for (i = 0; i < variant->writers; i++) {
		pid_t pid = fork();

		ASSERT_LE(0, pid);
		if (pid == 0) {
			uint64_t seed = writer_seed(self->seed, i);

			_exit(append_file_pattern(self->path[i], len,
						  variant->piece, seed) ? 1 : 0);
		}
	}
	for (i = 0; i < variant->writers; i++) {
		ASSERT_LT(0, wait(&status));
		failed |= !WIFEXITED(status) || WEXITSTATUS(status);
	}
	ASSERT_EQ(0, failed) TH_LOG("an appender failed");

	for (i = 0; i < variant->writers; i++) {
		struct ptdump_sizes sz;
		struct fault_count fc;
		size_t bad = 0;
		long first;
		char what[64];
		int fd;
		char *p;

		fd = open(self->path[i], O_RDONLY);
		ASSERT_LE(0, fd);
		p = map_aligned(len, SZ_2M, PROT_READ, MAP_SHARED, fd, 0, 0);
		ASSERT_NE(MAP_FAILED, p);
		ASSERT_EQ(0, trace_start(events));
		fault_begin(&fc, calibrate_minflt());
		touch_read(p, len, SZ_4K);
		fault_end(&fc);
		ASSERT_EQ(0, trace_stop());
		snprintf(what, sizeof(what), "file %d, 2 MiB aligned", i);
		/*
		 * The first 2 MiB maps 512 PTEs, or a PMD where the small
		 * file's blocks happened to be aligned; every later 2 MiB
		 * maps a PMD.
		 */
		ASSERT_EQ(0, ptdump_levels((unsigned long)p, len, &sz));
		first = sz.pte ? 512 : 1;
		expect_faults(_metadata, what, &fc, first + chunks - 1);
		expect_levels(_metadata, p, len, sz.pte ? SZ_2M : 0,
			      sz.pte ? len - SZ_2M : len, 0);
		EXPECT_EQ((long)chunks - (sz.pte ? 1 : 0),
			  trace_count("dax_pmd_fault_done", "NOPAGE"));
		EXPECT_GE(1, trace_count("dax_pmd_fault_done", "FALLBACK"));
		EXPECT_EQ(0, check_pattern(p, len, 8, writer_seed(self->seed, i),
					   0, &bad))
			TH_LOG("file %d: wrong data at %#zx", i, bad);
		munmap(p, len);

		/*
		 * Negative control, on the first file (each takes thousands
		 * of 4 KiB faults): 4 KiB off a 2 MiB boundary, PTEs only.
		 */
		if (i) {
			close(fd);
			continue;
		}
		p = map_aligned(len - SZ_2M, SZ_2M, PROT_READ, MAP_SHARED, fd,
				0, SZ_4K);
		ASSERT_NE(MAP_FAILED, p);
		fault_begin(&fc, calibrate_minflt());
		touch_read(p, len - SZ_2M, SZ_4K);
		fault_end(&fc);
		snprintf(what, sizeof(what), "file %d, misaligned", i);
		expect_faults(_metadata, what, &fc, (len - SZ_2M) / SZ_4K);
		expect_levels(_metadata, p, len - SZ_2M, len - SZ_2M, 0, 0);
		munmap(p, len - SZ_2M);
		close(fd);
	}
}

/*
 * ext4 and xfs: a file that grows past 64 MiB (1/16 of a PUD) has its head moved
 * to the start of a free, aligned GiB, and keeps growing there, so a 1 GiB
 * file grown by appends maps one PUD.  Two signals: getrusage (1 fault
 * for the GiB) and the page table dump; FIEMAP must show the GiB as one
 * aligned run, and the data is read back through the mapping.  Negative
 * control: the same file mapped 2 MiB off a GiB boundary takes PMDs.
 * The file system is the test job's fresh 16 GiB ext4, which has free
 * aligned GiBs.  Access order: appends, then reads through the mapping.
 */
FIXTURE(big) {
	char path[256];
	uint64_t seed;
};

FIXTURE_VARIANT(big) {
	const char *fs;		/* "ext4" or "xfs" */
	size_t piece;		/* bytes per write() */
};

FIXTURE_VARIANT_ADD(big, ext4_appends_1m) {
	.fs = "ext4", .piece = SZ_1M,
};

FIXTURE_VARIANT_ADD(big, ext4_appends_64k) {
	.fs = "ext4", .piece = 64 * 1024,
};

FIXTURE_VARIANT_ADD(big, xfs_appends_1m) {
	.fs = "xfs", .piece = SZ_1M,
};

FIXTURE_VARIANT_ADD(big, xfs_appends_64k) {
	.fs = "xfs", .piece = 64 * 1024,
};

static const char *fs_dir(const char *fs)
{
	return !strcmp(fs, "ext4") ? env_or("HUGEDAX_EXT4", "/mnt/ext4") :
				     env_or("HUGEDAX_XFS", "/mnt/xfs");
}

/* the free space, for a failure: ext4's free groups, or nothing */
static void free_space_describe(const char *fs, const char *dir, char *buf,
				size_t n)
{
	char dev[256];

	snprintf(buf, n, "-");
	if (!strcmp(fs, "ext4")) {
		block_dev_name(dir, dev, sizeof(dev));
		ext4_free_groups_describe(dev, buf, n);
	}
}

FIXTURE_SETUP(big)
{
	snprintf(self->path, sizeof(self->path), "%s/big.%d",
		 fs_dir(variant->fs), (int)getpid());
	self->seed = new_seed();
}

FIXTURE_TEARDOWN(big)
{
	unlink(self->path);
}

/* syncfs(): with a journal, also a commit */
static int commit_fs(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY), ret;

	if (fd < 0)
		return -1;
	ret = syncfs(fd);
	close(fd);
	return ret;
}

TEST_F_TIMEOUT(big, appended_gib_maps_a_pud, 2 * TIMEOUT_LONG)
{
	const char *dir = fs_dir(variant->fs);
	char groups[256], extents[1024];
	int fd;

	/*
	 * Blocks that earlier tests freed count as free for the allocator
	 * only once the transaction that freed them commits: commit it, or
	 * the aligned GiBs they held are no target for the head.  Then log
	 * the precondition, for a failure: ext4's entirely free groups.
	 */
	ASSERT_EQ(0, commit_fs(dir));
	free_space_describe(variant->fs, dir, groups, sizeof(groups));
	TH_LOG("%s: entirely free groups before: %s", dir, groups);
	ASSERT_EQ(0, append_file_pattern(self->path, SZ_1G, variant->piece,
					 self->seed));
	fd = open(self->path, O_RDONLY);
	ASSERT_LE(0, fd);
	EXPECT_EQ(1, fiemap_aligned_chunks(fd, 0, SZ_1G, SZ_1G)) {
		fiemap_describe(fd, extents, sizeof(extents));
		free_space_describe(variant->fs, dir, groups, sizeof(groups));
		TH_LOG("extents %s; free groups after: %s", extents, groups);
	}

	check_gib_maps_a_pud(_metadata, fd, self->seed);
	close(fd);
}

/*
 * xfs keeps the rest of the aligned GiB it moved a growing head to for the
 * file, as unwritten blocks beyond EOF, and gives back what the file did
 * not use like speculative preallocation: in the blockgc scan (run here at
 * once with XFS_IOC_FREE_EOFBLOCKS, as xfs_spaceman's prealloc command
 * does; the background worker runs the same scan, but spares a file
 * being appended to), at truncate and at fallocate, but not at close, so
 * that a file reopened to append grows on into it.  A file appended to
 * 96 MiB in 1 MiB writes holds the GiB (st_blocks) after close; appended
 * on after a reopen to 1 GiB, it maps one PUD (1 fault, page-table dump) on one
 * aligned GiB (FIEMAP).  A second such file gives the GiB back in the
 * scan, a third whose head started an aligned GiB already keeps a whole
 * one too, and a fourth gives it back at an fallocate() inside EOF.  The
 * data reads back.  Control: a file appended only to 60 MiB (below the
 * 64 MiB at which the head moves) never holds more than its size plus
 * 2 MiB.
 */
FIXTURE(xfs_reserve) {
	char path[256];
	uint64_t seed;
	long lifetime;		/* speculative_prealloc_lifetime to restore */
};

#define XFS_LIFETIME "/proc/sys/fs/xfs/speculative_prealloc_lifetime"

FIXTURE_SETUP(xfs_reserve)
{
	snprintf(self->path, sizeof(self->path), "%s/reserve.%d",
		 env_or("HUGEDAX_XFS", "/mnt/xfs"), (int)getpid());
	self->seed = new_seed();
	self->lifetime = -1;
}

FIXTURE_TEARDOWN(xfs_reserve)
{
	static const char *const ext[] = {
		"scan", "falloc", "open", "closed", "placed",
	};
	char p[300];
	size_t i;

	unlink(self->path);
	for (i = 0; i < sizeof(ext) / sizeof(ext[0]); i++) {
		snprintf(p, sizeof(p), "%s.%s", self->path, ext[i]);
		unlink(p);
	}
	if (self->lifetime >= 0)
		knob_swap(XFS_LIFETIME, self->lifetime);
}

/* the blockgc scan of the whole file system, waiting for it; 0 or -1 */
static int eofblocks_scan(const char *path)
{
	struct xfs_fs_eofblocks eb = {
		.eof_version = XFS_EOFBLOCKS_VERSION,
		.eof_flags = XFS_EOF_FLAGS_SYNC,
	};
	int fd = open(path, O_RDONLY), ret;

	if (fd < 0)
		return -1;
	ret = ioctl(fd, XFS_IOC_FREE_EOFBLOCKS, &eb);
	close(fd);
	return ret;
}

/* grow @path from @from to @to in 1 MiB writes at EOF; 0 or -1 */
static int grow_file(const char *path, size_t from, size_t to, uint64_t seed)
{
	int fd = open(path, O_WRONLY | O_CREAT | (from ? 0 : O_TRUNC), 0644);
	size_t off;

	if (fd < 0)
		return -1;
	for (off = from; off < to; off += SZ_1M)
		if (write_file_pattern(fd, off, SZ_1M, seed)) {
			close(fd);
			return -1;
		}
	return close(fd);
}

/* for a failure: the extents of @path */
static void log_extents(struct __test_metadata *_metadata, const char *path)
{
	char extents[1024] = "-";
	int fd = open(path, O_RDONLY);

	if (fd >= 0) {
		fiemap_describe(fd, extents, sizeof(extents));
		close(fd);
	}
	TH_LOG("%s: extents %s", path, extents);
}

static uint64_t held_bytes(const char *path)
{
	struct stat st;

	return stat(path, &st) ? 0 : (uint64_t)st.st_blocks * 512;
}

TEST_F_TIMEOUT(xfs_reserve, kept_gib_serves_a_reopen_and_goes_back,
	       2 * TIMEOUT_LONG)
{
	struct fault_count fc;
	char other[300];
	off_t where = 0;
	uint64_t held, phys;
	int fd;
	char *p;

	ASSERT_EQ(0, commit_fs(env_or("HUGEDAX_XFS", "/mnt/xfs")));
	/* control first: below the move, nothing is kept */
	ASSERT_EQ(0, grow_file(self->path, 0, 60 * SZ_1M, self->seed));
	TH_LOG("60 MiB file: %llu MiB held",
	       (unsigned long long)(held_bytes(self->path) >> 20));
	EXPECT_GE(62 * SZ_1M, held_bytes(self->path));

	/* past 64 MiB: the head moves and the GiB is kept, also at close */
	ASSERT_EQ(0, grow_file(self->path, 60 * SZ_1M, 96 * SZ_1M,
			       self->seed));
	held = held_bytes(self->path);
	TH_LOG("96 MiB file, closed: %llu MiB held",
	       (unsigned long long)(held >> 20));
	EXPECT_LE((uint64_t)SZ_1G, held)
		log_extents(_metadata, self->path);

	/* reopened, it grows on into the GiB */
	ASSERT_EQ(0, grow_file(self->path, 96 * SZ_1M, SZ_1G, self->seed));
	fd = open(self->path, O_RDONLY);
	ASSERT_LE(0, fd);
	EXPECT_EQ(1, fiemap_aligned_chunks(fd, 0, SZ_1G, SZ_1G));
	p = map_aligned(SZ_1G, SZ_1G, PROT_READ, MAP_SHARED, fd, 0, 0);
	ASSERT_NE(MAP_FAILED, p);
	fault_begin(&fc, calibrate_minflt());
	touch_read(p, SZ_1G, SZ_4K);
	fault_end(&fc);
	expect_faults(_metadata, "reopened and grown to 1 GiB", &fc, 1);
	expect_levels(_metadata, p, SZ_1G, 0, 0, SZ_1G);
	munmap(p, SZ_1G);
	EXPECT_EQ(0, check_file_pattern(fd, 0, SZ_1G, 8, self->seed, &where))
		TH_LOG("wrong data at %#llx", (long long)where);
	close(fd);

	/* the blockgc scan gives back what a 96 MiB file does not use */
	snprintf(other, sizeof(other), "%s.scan", self->path);
	ASSERT_EQ(0, grow_file(other, 0, 96 * SZ_1M, self->seed));
	EXPECT_LE((uint64_t)SZ_1G, held_bytes(other))
		log_extents(_metadata, other);
	ASSERT_EQ(0, eofblocks_scan(other));
	TH_LOG("after the scan: %llu MiB held",
	       (unsigned long long)(held_bytes(other) >> 20));
	EXPECT_GE(98 * SZ_1M, held_bytes(other));

	/*
	 * A head that starts an aligned GiB already moves too, and keeps a
	 * whole GiB: a file written in one 96 MiB write (which gets a GiB at
	 * once), cut back to 32 MiB, the cut committed, grows again in 1 MiB
	 * writes to 96 MiB.
	 */
	snprintf(other, sizeof(other), "%s.placed", self->path);
	ASSERT_EQ(0, append_file_pattern(other, 96 * SZ_1M, 96 * SZ_1M,
					 self->seed));
	ASSERT_EQ(0, truncate(other, 32 * SZ_1M));
	ASSERT_EQ(0, commit_fs(env_or("HUGEDAX_XFS", "/mnt/xfs")));
	fd = open(other, O_RDONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, fiemap_first_physical(fd, &phys));
	EXPECT_EQ(0, (long)(phys % SZ_1G))
		log_extents(_metadata, other);
	close(fd);
	ASSERT_EQ(0, grow_file(other, 32 * SZ_1M, 96 * SZ_1M, self->seed));
	TH_LOG("head started a GiB, 96 MiB, closed: %llu MiB held",
	       (unsigned long long)(held_bytes(other) >> 20));
	EXPECT_LE((uint64_t)SZ_1G, held_bytes(other))
		log_extents(_metadata, other);

	/* and so does an fallocate(), before it allocates */
	snprintf(other, sizeof(other), "%s.falloc", self->path);
	ASSERT_EQ(0, grow_file(other, 0, 96 * SZ_1M, self->seed));
	EXPECT_LE((uint64_t)SZ_1G, held_bytes(other))
		log_extents(_metadata, other);
	fd = open(other, O_RDWR);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, fallocate(fd, 0, 0, SZ_1M));
	TH_LOG("after fallocate: %llu MiB held",
	       (unsigned long long)(held_bytes(other) >> 20));
	EXPECT_GE(98 * SZ_1M, held_bytes(other));
	EXPECT_EQ(0, check_file_pattern(fd, 0, 96 * SZ_1M, 8, self->seed,
					&where))
		TH_LOG("wrong data at %#llx", (long long)where);
	close(fd);
}

/* freeze and thaw @dir's file system: thaw requeues the blockgc workers */
static int freeze_thaw(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY), ret;

	if (fd < 0)
		return -1;
	ret = ioctl(fd, FIFREEZE, 0);
	if (!ret)
		ret = ioctl(fd, FITHAW, 0);
	close(fd);
	return ret;
}

/* wait up to @secs seconds for @path to hold at most @bytes; 0 or -1 */
static int wait_held_at_most(const char *path, uint64_t bytes, int secs)
{
	while (held_bytes(path) > bytes) {
		if (secs-- <= 0)
			return -1;
		sleep(1);
	}
	return 0;
}

/*
 * The periodic blockgc scan gives back the run a closed file keeps, and
 * that of a file open for writing once it has not been written to for
 * speculative_prealloc_lifetime, but not that of an appender: one that
 * runs for longer than the lifetime keeps its GiB to grow into.  With the
 * lifetime at 1 s (the freeze and thaw requeue the workers that were
 * waiting out the old one): a file grown to 96 MiB and held open for
 * writing, then appended to 64 KiB every 250 ms, must still hold its GiB
 * 3 s after another file, grown to 96 MiB and closed, has dropped to its
 * size (the control: the scan runs); once its appends stop, it must drop
 * too, while still open.  Access order: appends, then reads.
 */
TEST_F_TIMEOUT(xfs_reserve, periodic_scan_spares_an_appender,
	       2 * TIMEOUT_LONG)
{
	const char *dir = env_or("HUGEDAX_XFS", "/mnt/xfs");
	char open_path[300], closed_path[300];
	off_t where = 0, off;
	int fd, ticks;

	snprintf(open_path, sizeof(open_path), "%s.open", self->path);
	snprintf(closed_path, sizeof(closed_path), "%s.closed", self->path);
	self->lifetime = knob_swap(XFS_LIFETIME, 1);
	ASSERT_LE(0, self->lifetime);
	ASSERT_EQ(0, freeze_thaw(dir));

	fd = open(open_path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	ASSERT_LE(0, fd);
	for (off = 0; off < (off_t)(96 * SZ_1M); off += SZ_1M)
		ASSERT_EQ(0, write_file_pattern(fd, off, SZ_1M, self->seed));
	EXPECT_LE((uint64_t)SZ_1G, held_bytes(open_path));
	ASSERT_EQ(0, grow_file(closed_path, 0, 96 * SZ_1M, self->seed));
	EXPECT_LE((uint64_t)SZ_1G, held_bytes(closed_path));

	/* append while waiting for the scan to take the closed file's GiB */
	for (ticks = 0; ticks < 240; ticks++) {
		ASSERT_EQ(0, write_file_pattern(fd, off, 64 * 1024,
						self->seed));
		off += 64 * 1024;
		if (held_bytes(closed_path) <= 98 * SZ_1M)
			break;
		usleep(250 * 1000);
	}
	ASSERT_GT(240, ticks)
		TH_LOG("the scan left the closed file %llu MiB",
		       (unsigned long long)(held_bytes(closed_path) >> 20));
	for (ticks = 0; ticks < 12; ticks++) {
		ASSERT_EQ(0, write_file_pattern(fd, off, 64 * 1024,
						self->seed));
		off += 64 * 1024;
		usleep(250 * 1000);
	}
	TH_LOG("closed file: %llu MiB held; appender at %lld MiB: %llu MiB",
	       (unsigned long long)(held_bytes(closed_path) >> 20),
	       (long long)(off >> 20),
	       (unsigned long long)(held_bytes(open_path) >> 20));
	EXPECT_LE((uint64_t)SZ_1G, held_bytes(open_path));

	/* appends stopped, still open: given back after the lifetime */
	EXPECT_EQ(0, wait_held_at_most(open_path, off + SZ_2M, 60))
		TH_LOG("idle, the open file still holds %llu MiB",
		       (unsigned long long)(held_bytes(open_path) >> 20));
	EXPECT_EQ(0, check_file_pattern(fd, 0, off, 8, self->seed, &where))
		TH_LOG("wrong data at %#llx", (long long)where);
	close(fd);
}

/*
 * Where the head cannot get an aligned GiB, each 2 MiB chunk of it still
 * ends up on an aligned 2 MiB: xfs moves each chunk that is not (the first
 * one, allocated while the file was small) to an aligned 2 MiB of its own,
 * ext4 moves the head to a free run that starts on a 2 MiB boundary.
 * dax_align=pmd (the global knob) stands in for a geometry without free
 * aligned GiBs (mkfs.ext4 -O ^flex_bg has none).
 * A file appended to 96 MiB in 64 KiB writes must have all 48 chunks
 * aligned (FIEMAP) and take 48 faults, all PMDs (page-table dump), through
 * a 2 MiB-aligned mapping; the data reads back.  Control: the same file
 * with dax_align=off, where nothing is placed or moved, has fewer aligned
 * chunks and takes more faults.  Access order: appends, then reads.
 */
FIXTURE(pmd_head) {
	char path[256];
	uint64_t seed;
};

FIXTURE_VARIANT(pmd_head) {
	const char *fs;		/* "ext4" or "xfs" */
};

FIXTURE_VARIANT_ADD(pmd_head, ext4) {
	.fs = "ext4",
};

FIXTURE_VARIANT_ADD(pmd_head, xfs) {
	.fs = "xfs",
};

FIXTURE_SETUP(pmd_head)
{
	snprintf(self->path, sizeof(self->path), "%s/pmd_head.%d",
		 fs_dir(variant->fs), (int)getpid());
	self->seed = new_seed();
}

FIXTURE_TEARDOWN(pmd_head)
{
	unlink(self->path);
	dax_align_knob("pud");
}

/* append 96 MiB in 64 KiB writes under @knob; aligned chunks and faults */
static void append96_and_read(struct __test_metadata *_metadata,
			      FIXTURE_DATA(pmd_head) *self, const char *knob,
			    long *aligned, long *faults, unsigned long *pmd)
{
	size_t len = 96 * SZ_1M, bad = 0;
	struct ptdump_sizes sz;
	struct fault_count fc;
	char extents[1024];
	int fd;
	char *p;

	unlink(self->path);
	ASSERT_EQ(0, dax_align_knob(knob));
	ASSERT_EQ(0, append_file_pattern(self->path, len, 64 * 1024,
					 self->seed));
	ASSERT_EQ(0, dax_align_knob("pud"));
	fd = open(self->path, O_RDONLY);
	ASSERT_LE(0, fd);
	*aligned = fiemap_aligned_chunks(fd, 0, len, SZ_2M);
	fiemap_describe(fd, extents, sizeof(extents));
	TH_LOG("dax_align=%s: %ld of 48 chunks aligned; extents %s", knob,
	       *aligned, extents);
	p = map_aligned(len, SZ_2M, PROT_READ, MAP_SHARED, fd, 0, 0);
	ASSERT_NE(MAP_FAILED, p);
	fault_begin(&fc, calibrate_minflt());
	touch_read(p, len, SZ_4K);
	*faults = fault_end(&fc);
	ASSERT_EQ(0, ptdump_levels((unsigned long)p, len, &sz));
	*pmd = sz.pmd;
	TH_LOG("dax_align=%s: %ld faults; pte %#lx pmd %#lx", knob, *faults,
	       sz.pte, sz.pmd);
	EXPECT_EQ(0, check_pattern(p, len, 8, self->seed, 0, &bad))
		TH_LOG("wrong data at %#zx", bad);
	munmap(p, len);
	close(fd);
}

TEST_F_TIMEOUT(pmd_head, every_chunk_maps_a_pmd, 2 * TIMEOUT_LONG)
{
	long aligned, faults;
	unsigned long pmd;

	ASSERT_EQ(0, commit_fs(fs_dir(variant->fs)));
	/* control: nothing placed, nothing moved */
	append96_and_read(_metadata, self, "off", &aligned, &faults, &pmd);
	EXPECT_GT(48, aligned);
	EXPECT_LT(48, faults);

	append96_and_read(_metadata, self, "pmd", &aligned, &faults, &pmd);
	EXPECT_EQ(48, aligned);
	EXPECT_GE(48 + FAULT_SLACK, faults);
	EXPECT_EQ((unsigned long)96 * SZ_1M, pmd);
}

/*
 * ext4: a file deleted just before may hold the only free, aligned GiB
 * until the transaction that freed its blocks commits.  The growing file's
 * head must still get it (the move commits first).  The test remounts the
 * file system with commit=300, so that no periodic commit frees it by
 * chance, and fills every free aligned GiB with fallocated 1 GiB files
 * (FIEMAP says which got one).  Negative control: with none freed, an
 * appended GiB maps no PUD.  Positive: delete one filler, append at once;
 * 1 fault and a PUD in the page table dump, one aligned GiB in FIEMAP,
 * the data read back.  Access order: appends, then reads.
 */
#define FILLERS	16

FIXTURE(freed_gib) {
	char dir[200];
	char filler[FILLERS][256];
	char path[2][256];
	int fillers;
	uint64_t seed;
};

FIXTURE_SETUP(freed_gib)
{
	int i;

	snprintf(self->dir, sizeof(self->dir), "%s",
		 env_or("HUGEDAX_EXT4", "/mnt/ext4"));
	for (i = 0; i < FILLERS; i++)
		snprintf(self->filler[i], sizeof(self->filler[i]),
			 "%s/filler.%d.%d", self->dir, (int)getpid(), i);
	for (i = 0; i < 2; i++)
		snprintf(self->path[i], sizeof(self->path[i]),
			 "%s/freed.%d.%d", self->dir, (int)getpid(), i);
	self->fillers = 0;
	self->seed = new_seed();
}

FIXTURE_TEARDOWN(freed_gib)
{
	char cmd[512];
	int i;

	for (i = 0; i < FILLERS; i++)
		unlink(self->filler[i]);
	unlink(self->path[0]);
	unlink(self->path[1]);
	snprintf(cmd, sizeof(cmd), "mount -o remount,commit=5 %s", self->dir);
	if (system(cmd))
		TH_LOG("%s failed", cmd);
	commit_fs(self->dir);
}

/* append a GiB, map it 1 GiB aligned, read it; faults and PUD bytes */
static void append_and_read(struct __test_metadata *_metadata,
			    const char *path, uint64_t seed, long *faults,
			    unsigned long *pud, long *aligned)
{
	struct ptdump_sizes sz;
	struct fault_count fc;
	size_t bad = 0;
	int fd;
	char *p;

	ASSERT_EQ(0, append_file_pattern(path, SZ_1G, SZ_1M, seed));
	fd = open(path, O_RDONLY);
	ASSERT_LE(0, fd);
	*aligned = fiemap_aligned_chunks(fd, 0, SZ_1G, SZ_1G);
	p = map_aligned(SZ_1G, SZ_1G, PROT_READ, MAP_SHARED, fd, 0, 0);
	ASSERT_NE(MAP_FAILED, p);
	fault_begin(&fc, calibrate_minflt());
	touch_read(p, SZ_1G, SZ_4K);
	*faults = fault_end(&fc);
	ASSERT_EQ(0, ptdump_levels((unsigned long)p, SZ_1G, &sz));
	*pud = sz.pud;
	EXPECT_EQ(0, check_pattern(p, SZ_1G, 8, seed, 0, &bad))
		TH_LOG("%s: wrong data at %#zx", path, bad);
	munmap(p, SZ_1G);
	close(fd);
}

TEST_F_TIMEOUT(freed_gib, ext4_head_takes_a_just_freed_gib, 2 * TIMEOUT_LONG)
{
	unsigned long pud;
	long faults, aligned;
	char cmd[512];
	int i;

	snprintf(cmd, sizeof(cmd), "mount -o remount,commit=300 %s",
		 self->dir);
	ASSERT_EQ(0, system(cmd));
	ASSERT_EQ(0, commit_fs(self->dir));
	for (i = 0; i < FILLERS; i++) {
		int fd = open(self->filler[i], O_RDWR | O_CREAT | O_EXCL, 0644);
		long got;

		ASSERT_LE(0, fd);
		ASSERT_EQ(0, fallocate(fd, 0, 0, SZ_1G));
		got = fiemap_aligned_chunks(fd, 0, SZ_1G, SZ_1G);
		close(fd);
		if (got != 1) {
			unlink(self->filler[i]);
			break;
		}
		self->fillers++;
	}
	TH_LOG("%d free aligned GiBs filled", self->fillers);
	ASSERT_LT(0, self->fillers);
	ASSERT_GT(FILLERS, self->fillers);
	/* the unaligned filler's blocks: free for anything once committed */
	ASSERT_EQ(0, commit_fs(self->dir));

	/* negative control: no aligned GiB free, no PUD */
	append_and_read(_metadata, self->path[0], self->seed, &faults, &pud,
			&aligned);
	TH_LOG("none freed: %ld faults, %#lx bytes by PUD, %ld aligned GiB",
	       faults, pud, aligned);
	EXPECT_EQ(0UL, pud);
	EXPECT_EQ(0, aligned);
	EXPECT_LT(1, faults);
	ASSERT_EQ(0, unlink(self->path[0]));
	ASSERT_EQ(0, commit_fs(self->dir));

	/* one filler deleted, not committed: the head must get its GiB */
	ASSERT_EQ(0, unlink(self->filler[0]));
	append_and_read(_metadata, self->path[1], self->seed + 1, &faults,
			&pud, &aligned);
	TH_LOG("one freed: %ld faults, %#lx bytes by PUD, %ld aligned GiB",
	       faults, pud, aligned);
	EXPECT_EQ((unsigned long)SZ_1G, pud);
	EXPECT_EQ(1, aligned);
	EXPECT_GE(1 + FAULT_SLACK, faults);
}

/* write(2) @len bytes of pattern @seed at EOF (@off), in one call */
static int append_at(int fd, size_t off, size_t len, uint64_t seed)
{
	static char buf[SZ_2M];

	if (len > sizeof(buf))
		return -1;
	fill_pattern(buf, len, seed, off);
	return write(fd, buf, len) == (ssize_t)len ? 0 : -1;
}

/*
 * Appenders that grow at once take turns in the free space while they
 * are small: each 2 MiB chunk of a file's 64 MiB head after the first is
 * then its own extent, and the first is in pieces.  Such a head, of more
 * than 32 extents, must still move to a free GiB when the file grows
 * past 64 MiB.  Two files appended in turns (512 KiB pieces in the first
 * 2 MiB, then 2 MiB each) up to 64 MiB, then the first to 1 GiB in 1 MiB
 * writes: it maps one PUD (1 fault, page-table dump) on one aligned GiB
 * (FIEMAP), and the data reads back; control: mapped 2 MiB off a GiB
 * boundary, 511 PMDs.  Precondition (else skip): the head has more than
 * 32 extents before the write that crosses 64 MiB.  It fails on the
 * kernel without "ext4: move a head of up to 64 extents to a GiB".
 */
TEST_F_TIMEOUT(freed_gib, ext4_interleaved_head_takes_a_gib,
	       2 * TIMEOUT_LONG)
{
	int a, b, n;
	size_t off;

	ASSERT_EQ(0, commit_fs(self->dir));
	a = open(self->path[0], O_RDWR | O_CREAT | O_TRUNC | O_APPEND, 0644);
	b = open(self->path[1], O_RDWR | O_CREAT | O_TRUNC | O_APPEND, 0644);
	ASSERT_LE(0, a);
	ASSERT_LE(0, b);
	for (off = 0; off < SZ_2M; off += (512UL << 10)) {
		ASSERT_EQ(0, append_at(a, off, (512UL << 10), self->seed));
		ASSERT_EQ(0, append_at(b, off, (512UL << 10), self->seed + 1));
	}
	for (; off < (64UL << 20); off += SZ_2M) {
		ASSERT_EQ(0, append_at(a, off, SZ_2M, self->seed));
		ASSERT_EQ(0, append_at(b, off, SZ_2M, self->seed + 1));
	}
	n = fiemap_extents_below(a, (64UL << 20));
	TH_LOG("head of 64 MiB in %d extents", n);
	ASSERT_LT(0, n);
	if (n <= 32) {
		close(a);
		close(b);
		SKIP(return, "the appends did not interleave (%d extents)", n);
	}
	for (; off < SZ_1G; off += SZ_1M)
		ASSERT_EQ(0, append_at(a, off, SZ_1M, self->seed));
	close(b);
	EXPECT_EQ(1, fiemap_aligned_chunks(a, 0, SZ_1G, SZ_1G));
	check_gib_maps_a_pud(_metadata, a, self->seed);
	close(a);
}

/*
 * The move of the head, on ext4 and xfs, must keep what a mapping stores
 * while it happens (check_move_keeps_stores() in dax_checks.h).
 */
FIXTURE(head_move) {
	char path[256];
	uint64_t seed;
};

FIXTURE_VARIANT(head_move) {
	const char *fs;		/* "ext4" or "xfs" */
};

FIXTURE_VARIANT_ADD(head_move, ext4) {
	.fs = "ext4",
};

FIXTURE_VARIANT_ADD(head_move, xfs) {
	.fs = "xfs",
};

FIXTURE_SETUP(head_move)
{
	snprintf(self->path, sizeof(self->path), "%s/head_move.%d",
		 fs_dir(variant->fs), (int)getpid());
	self->seed = new_seed();
}

FIXTURE_TEARDOWN(head_move)
{
	unlink(self->path);
}

TEST_F_TIMEOUT(head_move, keeps_mapped_stores, 2 * TIMEOUT_LONG)
{
	/* what earlier tests freed becomes a target (see big above) */
	ASSERT_EQ(0, commit_fs(fs_dir(variant->fs)));
	check_move_keeps_stores(_metadata, self->path, self->seed);
}

TEST_HARNESS_MAIN
