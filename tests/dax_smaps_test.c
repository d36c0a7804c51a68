// SPDX-License-Identifier: GPL-2.0
/*
 * Observability of DAX page sizes: the DaxPteMapped, DaxPmdMapped and
 * DaxPudMapped fields of /proc/PID/smaps and smaps_rollup, the /proc/vmstat
 * counters dax_pmd_fault, dax_pmd_fault_fallback, dax_pud_fault and
 * dax_pud_fault_fallback, and the "reason NAME" that ends the
 * fs_dax:dax_pmd_fault_done and dax_pud_fault_done tracepoints.
 *
 * Page sizes each mapping reaches here:
 *   ext2         4 KiB (misaligned address), 2 MiB
 *   ext4         4 KiB, 2 MiB, 1 GiB (a file sized before it is written:
 *                the series places it on free, aligned block groups)
 *   xfs          4 KiB, 2 MiB, 1 GiB (a file padded to a 1 GiB boundary of
 *                the device, as in fsdax_pud_test.c: needs default mkfs.xfs
 *                on the 16 GiB namespace)
 *   device-dax   1 GiB (a 1 GiB-aligned device only maps whole GiBs)
 *
 * Every size claim is checked against the touched size and with the fault
 * count (getrusage), the vmstat deltas, and the kernel page table dump; for
 * fs-dax the tracepoint counts must agree with the vmstat deltas.  Each
 * mapping is placed inside its own 1 GiB-aligned reservation, so its first
 * fault finds an empty PUD and the PUD handler is tried exactly once (on
 * ext2 it falls back before fs/dax, which then counts and traces nothing).
 *
 * Each fallback reason is provoked with the smallest setup that produces
 * it (pfn: a bad block marked through /sys/block/DEV/badblocks inside an
 * aligned extent), checked in the tracepoint and in the fallback counter.
 * Negative controls: anonymous and tmpfs memory show no Dax* and move no
 * counter; a PMD read of a hole maps the zero page without a fallback;
 * MADV_DONTNEED empties the smaps fields and costs a refault.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "dax_probe.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"
#include "dax_checks.h"

#define PMD_EV	"dax_pmd_fault_done"
#define PUD_EV	"dax_pud_fault_done"

static const char *const events[] = {
	"fs_dax/" PMD_EV, "fs_dax/" PUD_EV, NULL,
};

/* What one measured access did. */
struct obs {
	struct fault_count fc;
	struct dax_vmstat vm;		/* deltas */
	struct dax_kb kb;		/* smaps of the mapping's VMA */
	struct dax_kb roll;		/* smaps_rollup of the process */
	long pmd_ok, pmd_fb, pud_ok, pud_fb;	/* trace counts */
};

/* ---- mappings inside a private 1 GiB-aligned reservation ---- */

struct rmap {
	char *resv;		/* PROT_NONE reservation, 1 GiB aligned */
	size_t resv_len;
	char *p;		/* the mapping inside it */
	size_t len;
};

static void rmap_init(struct rmap *m)
{
	m->resv = MAP_FAILED;
	m->p = MAP_FAILED;
}

/*
 * Map [off, off + len) of @fd with @flags at reservation start + @at.  The
 * rest of the reservation stays PROT_NONE, so nothing else shares the
 * mapping's 1 GiB regions of address space.
 */
static char *rmap_map(struct __test_metadata *_metadata, struct rmap *m,
		      size_t at, size_t len, int flags, int fd, off_t off)
{
	int err;

	m->resv_len = (at + len + SZ_1G - 1) & ~(SZ_1G - 1);
	m->resv = map_aligned(m->resv_len, SZ_1G, PROT_NONE,
			      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
			      -1, 0, 0);
	ASSERT_NE(MAP_FAILED, m->resv);
	m->len = len;
	m->p = mmap(m->resv + at, len, PROT_READ | PROT_WRITE,
		    flags | MAP_FIXED, fd, off);
	err = errno;
	ASSERT_NE(MAP_FAILED, m->p) {
		TH_LOG("mmap %zu bytes at offset %#lx: %s", len,
		       (unsigned long)off, strerror(err));
	}
	return m->p;
}

static void rmap_unmap(struct rmap *m)
{
	if (m->resv != MAP_FAILED)
		munmap(m->resv, m->resv_len);
	rmap_init(m);
}

/* ---- measuring ---- */

static void read_vmstat(struct __test_metadata *_metadata,
			struct dax_vmstat *vm)
{
	int ret = dax_vmstat_read(vm);

	ASSERT_EQ(0, ret) {
		TH_LOG("/proc/vmstat has no dax_pmd_fault, dax_pmd_fault_fallback, dax_pud_fault, dax_pud_fault_fallback");
	}
}

static void read_smaps(struct __test_metadata *_metadata, const void *p,
		       struct dax_kb *kb, struct dax_kb *roll)
{
	int ret = smaps_dax((unsigned long)p, kb);
	int err = errno;

	ASSERT_EQ(0, ret) {
		TH_LOG("smaps of %p: %s", p, err == ENOTSUP ?
		       "no DaxPteMapped/DaxPmdMapped/DaxPudMapped fields" :
		       strerror(err));
	}
	ret = smaps_rollup_dax(roll);
	err = errno;
	ASSERT_EQ(0, ret) {
		TH_LOG("smaps_rollup: %s", strerror(err));
	}
}

/*
 * Touch one word every @step bytes of [p, p + len) (write if @write) and
 * record faults, vmstat deltas, trace counts (if @traced) and smaps.
 */
static void measure(struct __test_metadata *_metadata, struct obs *o,
		    bool traced, char *p, size_t len, size_t step, bool write)
{
	struct dax_vmstat before, after;
	long calib;

	memset(o, 0, sizeof(*o));
	calib = calibrate_minflt();
	read_vmstat(_metadata, &before);
	if (traced)
		start_tracing(_metadata, events);
	fault_begin(&o->fc, calib);
	if (write)
		touch_write(p, len, step, 1, 0);
	else
		touch_read(p, len, step);
	fault_end(&o->fc);
	if (traced)
		stop_tracing(_metadata);
	read_vmstat(_metadata, &after);
	dax_vmstat_delta(&o->vm, &before, &after);
	read_smaps(_metadata, p, &o->kb, &o->roll);
	if (traced) {
		o->pmd_ok = trace_count_reason(PMD_EV, "NOPAGE", NULL);
		o->pmd_fb = trace_count_reason(PMD_EV, "FALLBACK", NULL);
		o->pud_ok = trace_count_reason(PUD_EV, "NOPAGE", NULL);
		o->pud_fb = trace_count_reason(PUD_EV, "FALLBACK", NULL);
	}
	TH_LOG("smaps kB pte %ld pmd %ld pud %ld (rollup %ld %ld %ld); vmstat pmd %ld fallback %ld, pud %ld fallback %ld",
	       o->kb.pte, o->kb.pmd, o->kb.pud, o->roll.pte, o->roll.pmd,
	       o->roll.pud, o->vm.pmd, o->vm.pmd_fallback, o->vm.pud,
	       o->vm.pud_fallback);
	if (traced)
		TH_LOG("trace: pmd NOPAGE %ld FALLBACK %ld, pud NOPAGE %ld FALLBACK %ld",
		       o->pmd_ok, o->pmd_fb, o->pud_ok, o->pud_fb);
}

/* For fs-dax: the tracepoints and the counters tell the same story. */
static void expect_trace_matches_vmstat(struct __test_metadata *_metadata,
					const struct obs *o)
{
	EXPECT_EQ(o->vm.pmd, o->pmd_ok);
	EXPECT_EQ(o->vm.pmd_fallback, o->pmd_fb);
	EXPECT_EQ(o->vm.pud, o->pud_ok);
	EXPECT_EQ(o->vm.pud_fallback, o->pud_fb);
}

/*
 * [p, p + len) was touched completely: smaps (VMA and rollup), the fault
 * count, the vmstat deltas and the page table dump all say it is mapped
 * with @pte, @pmd and @pud bytes, and their sum is the touched size.
 */
static void expect_sizes(struct __test_metadata *_metadata,
			 const struct obs *o, const char *what, const char *p,
			 size_t len, unsigned long pte, unsigned long pmd,
			 unsigned long pud)
{
	ASSERT_EQ(len, pte + pmd + pud);
	EXPECT_EQ((long)(pte >> 10), o->kb.pte);
	EXPECT_EQ((long)(pmd >> 10), o->kb.pmd);
	EXPECT_EQ((long)(pud >> 10), o->kb.pud);
	EXPECT_EQ((long)(len >> 10), o->kb.pte + o->kb.pmd + o->kb.pud);
	/* the only DAX mapping of this process */
	EXPECT_EQ(o->kb.pte, o->roll.pte);
	EXPECT_EQ(o->kb.pmd, o->roll.pmd);
	EXPECT_EQ(o->kb.pud, o->roll.pud);
	/* fault count from smaps: one fault per page of each size */
	expect_faults(_metadata, what, &o->fc,
		      o->kb.pte / 4 + o->kb.pmd / 2048 + o->kb.pud / 1048576);
	EXPECT_EQ((long)(pmd / SZ_2M), o->vm.pmd);
	EXPECT_EQ((long)(pud / SZ_1G), o->vm.pud);
	expect_levels(_metadata, p, len, pte, pmd, pud);
}

/* ---- fs-dax fixture: ext2, ext4, xfs ---- */

/*
 * xfs files inherit an extent size hint from their directory (the 2 MiB
 * test recipe sets one), which would allocate and zero whole 2 MiB pieces
 * around a 4 KiB write: the extent tests want a 4 KiB extent.
 */
static int clear_extsize(int fd)
{
	struct fsxattr fa;

	if (ioctl(fd, FS_IOC_FSGETXATTR, &fa))
		return -1;
	fa.fsx_xflags &= ~(FS_XFLAG_EXTSIZE | FS_XFLAG_EXTSZINHERIT);
	fa.fsx_extsize = 0;
	return ioctl(fd, FS_IOC_FSSETXATTR, &fa);
}

FIXTURE(fs) {
	char dir[256];
	char path[PATH_MAX];
	int fd;
	struct rmap m, m2;
};

FIXTURE_VARIANT(fs) {
	const char *fstype;
	const char *env;
	const char *dir;
	bool pud;		/* 1 GiB extents possible (xfs, ext4) */
	bool pud_to_dax;	/* ->huge_fault hands PUD faults to fs/dax */
};

/*
 * ext2's ->huge_fault returns VM_FAULT_FALLBACK for a PUD fault without
 * calling fs/dax (a block group holds at most 128 MiB: PMD is its
 * ceiling), so no PUD fault or fallback is counted or traced there.
 */
FIXTURE_VARIANT_ADD(fs, ext2) {
	.fstype = "ext2", .env = "HUGEDAX_EXT2", .dir = "/mnt/ext2",
};

FIXTURE_VARIANT_ADD(fs, ext4) {
	.fstype = "ext4", .env = "HUGEDAX_EXT4", .dir = "/mnt/ext4", .pud = true,
	.pud_to_dax = true,
};

FIXTURE_VARIANT_ADD(fs, xfs) {
	.fstype = "xfs", .env = "HUGEDAX_XFS", .dir = "/mnt/xfs", .pud = true,
	.pud_to_dax = true,
};

/*
 * The first fault of a mapping finds an empty PUD and tries the PUD
 * handler.  ext4 and xfs pass it to fs/dax, which falls back for @reason:
 * one dax_pud_fault_fallback, one dax_pud_fault_done FALLBACK with that
 * reason.  ext2 falls back before fs/dax: no PUD fault, no PUD fallback,
 * counted or traced (the negative control of the same measurement).
 */
static void expect_pud_tried(struct __test_metadata *_metadata,
			     const FIXTURE_VARIANT(fs) *variant,
			     const struct obs *o, const char *reason)
{
	long want = variant->pud_to_dax ? 1 : 0;

	EXPECT_EQ(want, o->vm.pud_fallback);
	EXPECT_EQ(want, o->pud_fb);
	EXPECT_EQ(want, trace_count_reason(PUD_EV, "FALLBACK", reason));
	EXPECT_EQ(0L, o->vm.pud);
	EXPECT_EQ(0L, o->pud_ok);
	EXPECT_EQ(want, trace_count_reason(PUD_EV, NULL, NULL));
}

FIXTURE_SETUP(fs)
{
	char type[32] = "";
	int dax = 0, err;

	self->fd = -1;
	self->path[0] = '\0';
	rmap_init(&self->m);
	rmap_init(&self->m2);
	if (geteuid())
		SKIP(return, "needs root");
	snprintf(self->dir, sizeof(self->dir), "%s",
		 env_or(variant->env, variant->dir));
	ASSERT_EQ(0, mount_of(self->dir, type, sizeof(type), &dax)) {
		TH_LOG("%s is not a mount point (set %s)", self->dir,
		       variant->env);
	}
	ASSERT_STREQ(variant->fstype, type);
	ASSERT_EQ(1, dax);
	snprintf(self->path, sizeof(self->path), "%s/hugedax.smaps.%s.%d",
		 self->dir, _metadata->name, getpid());
	self->fd = open(self->path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC,
			0600);
	err = errno;
	ASSERT_LE(0, self->fd) {
		TH_LOG("create %s: %s", self->path, strerror(err));
	}
	if (!strcmp(variant->fstype, "xfs")) {
		ASSERT_EQ(0, clear_extsize(self->fd));
	}
}

FIXTURE_TEARDOWN(fs)
{
	trace_stop();
	rmap_unmap(&self->m);
	rmap_unmap(&self->m2);
	if (self->fd >= 0)
		close(self->fd);
	if (self->path[0])
		unlink(self->path);
}

/* A PMD needs the file's 2 MiB pieces to be 2 MiB aligned on the device. */
static void fill_pmd_file(struct __test_metadata *_metadata, int fd,
			  size_t len)
{
	long got;

	ASSERT_EQ(0, write_file_pattern(fd, 0, len, new_seed()));
	ASSERT_EQ(0, fsync(fd));
	got = fiemap_aligned_chunks(fd, 0, len, SZ_2M);
	ASSERT_EQ((long)(len / SZ_2M), got) {
		TH_LOG("file layout: only %ld of %zu 2 MiB pieces are 2 MiB aligned on the device",
		       got, len / SZ_2M);
	}
}

/*
 * xfs geometry (XFS_IOC_FSGEOMETRY_V1, from fs/xfs/libxfs/xfs_fs.h: the
 * uapi headers do not carry it): only the allocation group size is used.
 */
struct xfs_geom_v1 {
	__u32 blocksize, rtextsize, agblocks, agcount, logblocks, sectsize;
	__u32 inodesize, imaxpct;
	__u64 datablocks, rtblocks, rtextents, logstart;
	unsigned char uuid[16];
	__u32 sunit, swidth;
	__s32 version;
	__u32 flags, logsectsize, rtsectsize, dirblocksize;
};
#define XFS_IOC_FSGEOMETRY_V1	_IOR('X', 100, struct xfs_geom_v1)

/*
 * An xfs extent lies inside one allocation group, and each group starts
 * with its own headers: a 1 GiB-aligned 1 GiB extent needs groups larger
 * than 1 GiB (default mkfs.xfs on 16 GiB: 4 GiB; the 2 MiB stripe recipe
 * -d su=2m,sw=1 makes 1 GiB groups).  Bytes per group, or 0.
 */
static uint64_t xfs_ag_bytes(int fd)
{
	struct xfs_geom_v1 g;

	memset(&g, 0, sizeof(g));
	if (ioctl(fd, XFS_IOC_FSGEOMETRY_V1, &g))
		return 0;
	return (uint64_t)g.agblocks * g.blocksize;
}

/*
 * xfs: let the space that earlier tests freed settle before a pad is
 * placed.  An unlinked file's blocks are freed by background inode
 * inactivation (inodegc), and freed extents stay busy, skipped by the
 * allocator, until the log commits them; otherwise the pad skips space
 * that the data file gets a moment later, in front of the pad.
 * XFS_IOC_FREE_EOFBLOCKS flushes inodegc (xfs_blockgc_free_space()),
 * syncfs() forces the log.  The structure is xfs_fs_eofblocks.
 */
struct xfs_eofblocks {
	__u32 eof_version, eof_flags, eof_uid, eof_gid, eof_prid, pad32;
	__u64 eof_min_file_size;
	__u64 pad64[12];
};
#define XFS_EOFBLOCKS_VERSION	1
#define XFS_IOC_FREE_EOFBLOCKS	_IOR('X', 58, struct xfs_eofblocks)

static int xfs_settle(int fd)
{
	struct xfs_eofblocks eofb;

	memset(&eofb, 0, sizeof(eofb));
	eofb.eof_version = XFS_EOFBLOCKS_VERSION;
	if (ioctl(fd, XFS_IOC_FREE_EOFBLOCKS, &eofb))
		return -1;
	return syncfs(fd);
}

/*
 * Device address just past the file's last byte (FIEMAP of that byte, so
 * the pad's end wherever its later pieces landed).  0, or -1.
 */
static int fiemap_physical_end(int fd, uint64_t *end)
{
	struct {
		struct fiemap fm;
		struct fiemap_extent fe;
	} req;
	struct stat st;

	if (fstat(fd, &st))
		return -1;
	if (!st.st_size) {
		errno = ENODATA;
		return -1;
	}
	memset(&req, 0, sizeof(req));
	req.fm.fm_start = st.st_size - 1;
	req.fm.fm_length = 1;
	req.fm.fm_flags = FIEMAP_FLAG_SYNC;
	req.fm.fm_extent_count = 1;
	if (ioctl(fd, FS_IOC_FIEMAP, &req.fm))
		return -1;
	if (req.fm.fm_mapped_extents != 1 ||
	    req.fe.fe_logical >= (uint64_t)st.st_size ||
	    req.fe.fe_logical + req.fe.fe_length < (uint64_t)st.st_size) {
		errno = ENODATA;
		return -1;
	}
	*end = req.fe.fe_physical + (st.st_size - req.fe.fe_logical);
	return 0;
}

/*
 * xfs: a fresh file lands wherever free space starts.  Allocate a pad that
 * ends on a @align boundary of the device first, so the data that follows
 * starts there (needs a file system where that space is free and
 * contiguous: default mkfs.xfs on 16 GiB for 1 GiB).  Space freed before
 * is settled first (xfs_settle()), so that the pad and the data see the
 * same free space.  The pad's first write is 2 MiB, too big for the small
 * free pieces a fresh xfs has near its inodes (a 4 KiB one lands there
 * and the pad then ends nowhere useful), as in fsdax_pud_test.c.  The pad
 * is then extended until its last byte ends on the boundary: if that first
 * write is already @align aligned (an allocator that aligns DAX files by
 * itself), the pad grows to the next boundary instead of leaving 2 MiB
 * that would shift the data off it; if an extension lands elsewhere, the
 * pad grows from its new end.
 */
static void fill_padded_file(struct __test_metadata *_metadata,
			     FIXTURE_DATA(fs) *self, size_t len, size_t align)
{
	char pad[PATH_MAX + 8];
	uint64_t phys = 0, end = 0, data = 0;
	struct stat st;
	long got;
	int pfd, i;

	ASSERT_EQ(0, xfs_settle(self->fd)) {
		TH_LOG("flush inactive inodes, force the log: %s",
		       strerror(errno));
	}
	snprintf(pad, sizeof(pad), "%s.pad", self->path);
	pfd = open(pad, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	ASSERT_LE(0, pfd);
	unlink(pad);	/* freed when closed: the space stays allocated */
	ASSERT_EQ(0, write_file_pattern(pfd, 0, SZ_2M, 1));
	ASSERT_EQ(0, fsync(pfd));
	ASSERT_EQ(0, fiemap_first_physical(pfd, &phys));
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(0, fiemap_physical_end(pfd, &end));
		if (!(end & (align - 1)))
			break;
		ASSERT_EQ(0, fstat(pfd, &st));
		ASSERT_EQ(0, fallocate(pfd, 0, st.st_size,
				       align - (end & (align - 1))));
	}
	ASSERT_EQ(0, write_file_pattern(self->fd, 0, len, new_seed()));
	ASSERT_EQ(0, fsync(self->fd));
	close(pfd);
	fiemap_first_physical(self->fd, &data);
	got = fiemap_aligned_chunks(self->fd, 0, len & ~(align - 1), align);
	ASSERT_EQ((long)(len / align), got) {
		TH_LOG("file layout: %ld of %zu pieces are %#zx aligned on the device (pad from %#llx to %#llx, data at %#llx)",
		       got, len / align, align, (unsigned long long)phys,
		       (unsigned long long)end, (unsigned long long)data);
	}
}

/*
 * A file of @len bytes whose @align pieces are @align aligned on the
 * device: xfs pads the allocation (fill_padded_file()); ext4 places a
 * file it knows to be large by itself (the series' placement patch), so
 * it is sized with ftruncate() first and then written.
 */
static void fill_huge_file(struct __test_metadata *_metadata,
			   FIXTURE_DATA(fs) *self,
			   const FIXTURE_VARIANT(fs) *variant, size_t len,
			   size_t align)
{
	long got;

	if (!strcmp(variant->fstype, "xfs")) {
		fill_padded_file(_metadata, self, len, align);
		return;
	}
	ASSERT_EQ(0, ftruncate(self->fd, len));
	ASSERT_EQ(0, write_file_pattern(self->fd, 0, len, new_seed()));
	ASSERT_EQ(0, fsync(self->fd));
	got = fiemap_aligned_chunks(self->fd, 0, len, align);
	ASSERT_EQ((long)(len / align), got) {
		TH_LOG("file layout: %ld of %zu pieces are %#zx aligned on the device",
		       got, len / align, align);
	}
}

/*
 * 1 GiB (xfs, ext4): first, while the fresh file system has free space
 * right after the pad (xfs) or free aligned block groups (ext4).  A 1 GiB file whose extent is 1 GiB aligned, mapped at a
 * 1 GiB boundary: one PUD fault, reason none.  Then smaps and smaps_rollup
 * are read 1,000 times each; the PUD stays: touching all of it again
 * takes no fault.  Negative control: MADV_DONTNEED of the whole GiB, then
 * smaps shows nothing mapped and the next touch faults once.  Skipped on
 * allocation groups of 1 GiB or less, where no such extent can exist.
 */
TEST_F_TIMEOUT(fs, size_1g_survives_1000_smaps_reads, TIMEOUT_LONG)
{
	struct dax_kb kb, roll;
	struct obs o;
	uint64_t ag;
	char *p;
	int i, bad = 0;

	RETURN_IF_SKIPPED();
	if (!variant->pud)
		SKIP(return, "%s maps at most 2 MiB", variant->fstype);
	if (!strcmp(variant->fstype, "xfs")) {
		ag = xfs_ag_bytes(self->fd);
		ASSERT_NE(0ULL, (unsigned long long)ag) {
			TH_LOG("XFS_IOC_FSGEOMETRY_V1: %s", strerror(errno));
		}
		if (ag <= SZ_1G)
			SKIP(return, "xfs allocation groups of %llu MiB hold no 1 GiB-aligned 1 GiB extent: needs default mkfs.xfs on 16 GiB (4 GiB groups), as guest/test-job.sh makes for this test",
			     (unsigned long long)ag >> 20);
	}
	fill_huge_file(_metadata, self, variant, SZ_1G, SZ_1G);
	p = rmap_map(_metadata, &self->m, 0, SZ_1G, MAP_SHARED, self->fd, 0);
	measure(_metadata, &o, true, p, SZ_1G, SZ_4K, false);

	expect_sizes(_metadata, &o, "read 1 GiB", p, SZ_1G, 0, 0, SZ_1G);
	EXPECT_EQ(1L, trace_count_reason(PUD_EV, "NOPAGE", "none"));
	EXPECT_EQ(0L, o.vm.pud_fallback);
	EXPECT_EQ(0L, o.pmd_ok + o.pmd_fb);
	expect_trace_matches_vmstat(_metadata, &o);

	for (i = 0; i < 1000; i++) {
		read_smaps(_metadata, p, &kb, &roll);
		bad += kb.pud != 1048576 || roll.pud != 1048576 ||
		       kb.pmd || kb.pte;
	}
	EXPECT_EQ(0, bad);
	measure(_metadata, &o, false, p, SZ_1G, SZ_4K, false);
	expect_faults(_metadata, "read 1 GiB after 2000 smaps reads", &o.fc, 0);
	EXPECT_EQ(0L, o.vm.pud + o.vm.pmd);
	expect_levels(_metadata, p, SZ_1G, 0, 0, SZ_1G);

	ASSERT_EQ(0, madvise(p, SZ_1G, MADV_DONTNEED));
	read_smaps(_metadata, p, &kb, &roll);
	EXPECT_EQ(0L, kb.pte + kb.pmd + kb.pud);
	measure(_metadata, &o, false, p, SZ_1G, SZ_4K, false);
	expect_sizes(_metadata, &o, "read 1 GiB after MADV_DONTNEED", p, SZ_1G,
		     0, 0, SZ_1G);
}

/*
 * 4 KiB: 4 MiB of a written file mapped at a 2 MiB boundary + 4 KiB, so
 * address and file offset disagree.  Write one word per 4 KiB: 1024 PTE
 * faults; the PUD handler is tried once (first fault, empty PUD) and the
 * PMD handler once per 2 MiB region touched (3), all misaligned_address
 * (ext2: no PUD fallback, counted or traced).
 */
TEST_F_TIMEOUT(fs, size_4k_misaligned, TIMEOUT_SHORT)
{
	const size_t len = 4 * SZ_1M;
	struct obs o;
	char *p;

	RETURN_IF_SKIPPED();
	ASSERT_EQ(0, write_file_pattern(self->fd, 0, 2 * len, new_seed()));
	p = rmap_map(_metadata, &self->m, SZ_2M + SZ_4K, len, MAP_SHARED,
		     self->fd, 0);
	measure(_metadata, &o, true, p, len, SZ_4K, true);

	expect_sizes(_metadata, &o, "write 4 MiB misaligned", p, len, len, 0, 0);
	EXPECT_EQ(3L, o.vm.pmd_fallback);
	EXPECT_EQ(3L, trace_count_reason(PMD_EV, "FALLBACK", "misaligned_address"));
	expect_pud_tried(_metadata, variant, &o, "misaligned_address");
	expect_trace_matches_vmstat(_metadata, &o);
}

/*
 * 2 MiB: 8 MiB of a file with aligned 2 MiB pieces, mapped at a 1 GiB
 * boundary: 4 PMD faults, reason none; the first fault tries the PUD
 * handler, which falls back: the VMA is too small (ext2: before fs/dax,
 * so no PUD fallback is counted or traced).
 */
TEST_F_TIMEOUT(fs, size_2m, TIMEOUT_SHORT)
{
	const size_t len = 8 * SZ_1M;
	struct obs o;
	char *p;

	RETURN_IF_SKIPPED();
	if (variant->pud)
		fill_huge_file(_metadata, self, variant, len, SZ_2M);
	else
		fill_pmd_file(_metadata, self->fd, len);
	p = rmap_map(_metadata, &self->m, 0, len, MAP_SHARED, self->fd, 0);
	measure(_metadata, &o, true, p, len, SZ_4K, true);

	expect_sizes(_metadata, &o, "write 8 MiB", p, len, 0, len, 0);
	EXPECT_EQ(0L, o.vm.pmd_fallback);
	EXPECT_EQ(4L, trace_count_reason(PMD_EV, "NOPAGE", "none"));
	expect_pud_tried(_metadata, variant, &o, "vma_too_small");
	expect_trace_matches_vmstat(_metadata, &o);
}

/* ---- fallback reasons ---- */

/*
 * Map @len of a @fsize file (written if @written, else sparse) at
 * reservation offset @at with file offset @off, touch the first word
 * (write if @write) and return the observations.
 */
static void one_touch(struct __test_metadata *_metadata,
		      FIXTURE_DATA(fs) *self, struct obs *o, size_t fsize,
		      bool written, size_t at, size_t len, off_t off,
		      int flags, bool write)
{
	char *p;

	if (written) {
		ASSERT_EQ(0, write_file_pattern(self->fd, 0, fsize, new_seed()));
	} else {
		ASSERT_EQ(0, ftruncate(self->fd, fsize));
	}
	p = rmap_map(_metadata, &self->m, at, len, flags, self->fd, off);
	measure(_metadata, o, true, p, SZ_4K, SZ_4K, write);
	expect_trace_matches_vmstat(_metadata, o);
}

static void expect_reason(struct __test_metadata *_metadata,
			  const struct obs *o, const char *ev,
			  const char *reason)
{
	long fb = !strcmp(ev, PMD_EV) ? o->pmd_fb : o->pud_fb;
	long n = trace_count_reason(ev, "FALLBACK", reason);

	TH_LOG("%s FALLBACK reason %s: %ld of %ld fallbacks", ev, reason, n, fb);
	EXPECT_EQ(1L, n);
	EXPECT_EQ(1L, fb);
	EXPECT_EQ(1L, !strcmp(ev, PMD_EV) ? o->vm.pmd_fallback :
					     o->vm.pud_fallback);
}

/* PMD: address 2 MiB + 4 KiB, file offset 0. */
TEST_F_TIMEOUT(fs, reason_pmd_misaligned_address, TIMEOUT_SHORT)
{
	struct obs o;

	RETURN_IF_SKIPPED();
	one_touch(_metadata, self, &o, 4 * SZ_1M, true, SZ_2M + SZ_4K, SZ_2M,
		  0, MAP_SHARED, false);
	expect_reason(_metadata, &o, PMD_EV, "misaligned_address");
}

/*
 * PMD: address at a 1 GiB boundary, file offset 4 KiB (the PUD handler,
 * tried first, falls back for the same reason; ext2: not at all).
 */
TEST_F_TIMEOUT(fs, reason_pmd_misaligned_offset, TIMEOUT_SHORT)
{
	struct obs o;

	RETURN_IF_SKIPPED();
	one_touch(_metadata, self, &o, 4 * SZ_1M, true, 0, SZ_2M, SZ_4K,
		  MAP_SHARED, false);
	expect_reason(_metadata, &o, PMD_EV, "misaligned_offset");
	expect_pud_tried(_metadata, variant, &o, "misaligned_offset");
}

/* PMD: a 1 MiB VMA at a 2 MiB boundary. */
TEST_F_TIMEOUT(fs, reason_pmd_vma_too_small, TIMEOUT_SHORT)
{
	struct obs o;

	RETURN_IF_SKIPPED();
	one_touch(_metadata, self, &o, 4 * SZ_1M, true, SZ_2M, SZ_1M, 0,
		  MAP_SHARED, false);
	expect_reason(_metadata, &o, PMD_EV, "vma_too_small");
}

/* PMD: a 1 MiB file mapped with 2 MiB. */
TEST_F_TIMEOUT(fs, reason_pmd_beyond_eof, TIMEOUT_SHORT)
{
	struct obs o;

	RETURN_IF_SKIPPED();
	one_touch(_metadata, self, &o, SZ_1M, true, SZ_2M, SZ_2M, 0,
		  MAP_SHARED, false);
	expect_reason(_metadata, &o, PMD_EV, "beyond_eof");
}

/* PMD: first access a write to a MAP_PRIVATE mapping. */
TEST_F_TIMEOUT(fs, reason_pmd_cow, TIMEOUT_SHORT)
{
	struct obs o;

	RETURN_IF_SKIPPED();
	one_touch(_metadata, self, &o, 4 * SZ_1M, true, SZ_2M, SZ_2M, 0,
		  MAP_PRIVATE, true);
	expect_reason(_metadata, &o, PMD_EV, "cow");
	/* the copy is anonymous memory, not DAX */
	EXPECT_EQ(0L, o.kb.pte + o.kb.pmd + o.kb.pud);
}

/* PMD: a sparse 4 MiB file with only its first 4 KiB written. */
TEST_F_TIMEOUT(fs, reason_pmd_extent, TIMEOUT_SHORT)
{
	struct obs o;

	RETURN_IF_SKIPPED();
	ASSERT_EQ(0, write_file_pattern(self->fd, 0, SZ_4K, new_seed()));
	one_touch(_metadata, self, &o, 4 * SZ_1M, false, SZ_2M, SZ_2M, 0,
		  MAP_SHARED, false);
	expect_reason(_metadata, &o, PMD_EV, "extent");
	EXPECT_EQ(4L, o.kb.pte);
}

/*
 * PMD: a 4 KiB read of a hole through a misaligned mapping leaves a 4 KiB
 * zero entry in the file's page cache; a 2 MiB-aligned mapping of the same
 * range then finds it.
 */
TEST_F_TIMEOUT(fs, reason_pmd_conflict, TIMEOUT_SHORT)
{
	struct obs o;
	char *q;

	RETURN_IF_SKIPPED();
	ASSERT_EQ(0, ftruncate(self->fd, 4 * SZ_1M));
	q = rmap_map(_metadata, &self->m2, SZ_2M + SZ_4K, SZ_2M, MAP_SHARED,
		     self->fd, 0);
	touch_read(q, SZ_4K, SZ_4K);
	rmap_unmap(&self->m2);
	one_touch(_metadata, self, &o, 4 * SZ_1M, false, SZ_2M, SZ_2M, 0,
		  MAP_SHARED, false);
	expect_reason(_metadata, &o, PMD_EV, "conflict");
}

/*
 * PMD: pfn.  The file's first 2 MiB piece is 2 MiB aligned on the device,
 * but the device cannot hand out all of it: its second 4 KiB page is
 * marked bad (/sys/block/DEV/badblocks), so direct access of 2 MiB fails
 * and the fault falls back; the first page alone still maps.  The file is
 * kept, so that no later file gets the bad block (the list is in memory:
 * it is gone after a reboot; the guest makes fresh file systems anyway).
 */
TEST_F_TIMEOUT(fs, reason_pmd_pfn, TIMEOUT_SHORT)
{
	char path[PATH_MAX + 32], sys[96], bad[64];
	struct stat st;
	uint64_t phys;
	struct obs o;
	int fd, sfd;

	RETURN_IF_SKIPPED();
	if (strcmp(variant->fstype, "ext4"))
		SKIP(return, "runs once, in the ext4 variant");
	snprintf(path, sizeof(path), "%s/hugedax.smaps.badblock.%d", self->dir,
		 getpid());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	ASSERT_LE(0, fd);
	close(self->fd);
	self->fd = fd;
	fill_pmd_file(_metadata, fd, 4 * SZ_1M);
	ASSERT_EQ(0, fiemap_first_physical(fd, &phys));
	ASSERT_EQ(0, fstat(fd, &st));
	snprintf(sys, sizeof(sys), "/sys/dev/block/%u:%u/badblocks",
		 major(st.st_dev), minor(st.st_dev));
	snprintf(bad, sizeof(bad), "%llu 8",
		 (unsigned long long)(phys + SZ_4K) >> 9);
	sfd = open(sys, O_WRONLY | O_CLOEXEC);
	ASSERT_LE(0, sfd);
	ASSERT_EQ((ssize_t)strlen(bad), write(sfd, bad, strlen(bad)));
	close(sfd);
	TH_LOG("marked sectors \"%s\" bad in %s", bad, sys);

	rmap_map(_metadata, &self->m, SZ_2M, SZ_2M, MAP_SHARED, fd, 0);
	measure(_metadata, &o, true, self->m.p, SZ_4K, SZ_4K, false);
	expect_trace_matches_vmstat(_metadata, &o);
	expect_reason(_metadata, &o, PMD_EV, "pfn");
	EXPECT_EQ(4L, o.kb.pte);
}

/*
 * Control for the PMD reasons: a PMD read of a hole maps the huge zero
 * page: a PMD fault (reason none), no fallback.
 */
TEST_F_TIMEOUT(fs, pmd_hole_maps_zero_page_no_fallback, TIMEOUT_SHORT)
{
	struct obs o;

	RETURN_IF_SKIPPED();
	one_touch(_metadata, self, &o, 4 * SZ_1M, false, SZ_2M, SZ_2M, 0,
		  MAP_SHARED, false);
	EXPECT_EQ(0L, o.pmd_fb);
	EXPECT_EQ(1L, trace_count_reason(PMD_EV, "NOPAGE", "none"));
	EXPECT_EQ(1L, o.vm.pmd);
	EXPECT_EQ(2048L, o.kb.pmd);
}

/* PUD reasons, on xfs and ext4 (the file systems that map 1 GiB). */
#define PUD_ONLY() do { \
	RETURN_IF_SKIPPED(); \
	if (!variant->pud) \
		SKIP(return, "%s does not map 1 GiB", variant->fstype); \
} while (0)

/* PUD: a 1 GiB VMA at 1 GiB + 2 MiB, file offset 0. */
TEST_F_TIMEOUT(fs, reason_pud_misaligned_address, TIMEOUT_SHORT)
{
	struct obs o;

	PUD_ONLY();
	one_touch(_metadata, self, &o, SZ_1G + SZ_2M, false, SZ_2M, SZ_1G, 0,
		  MAP_SHARED, false);
	expect_reason(_metadata, &o, PUD_EV, "misaligned_address");
}

/* PUD: a 1 GiB VMA at a 1 GiB boundary, file offset 2 MiB. */
TEST_F_TIMEOUT(fs, reason_pud_misaligned_offset, TIMEOUT_SHORT)
{
	struct obs o;

	PUD_ONLY();
	one_touch(_metadata, self, &o, SZ_1G + SZ_2M, false, 0, SZ_1G, SZ_2M,
		  MAP_SHARED, false);
	expect_reason(_metadata, &o, PUD_EV, "misaligned_offset");
}

/* PUD: a 1 GiB - 2 MiB VMA at a 1 GiB boundary. */
TEST_F_TIMEOUT(fs, reason_pud_vma_too_small, TIMEOUT_SHORT)
{
	struct obs o;

	PUD_ONLY();
	one_touch(_metadata, self, &o, SZ_1G, false, 0, SZ_1G - SZ_2M, 0,
		  MAP_SHARED, false);
	expect_reason(_metadata, &o, PUD_EV, "vma_too_small");
}

/* PUD: a 1 GiB - 2 MiB file mapped with 1 GiB. */
TEST_F_TIMEOUT(fs, reason_pud_beyond_eof, TIMEOUT_SHORT)
{
	struct obs o;

	PUD_ONLY();
	one_touch(_metadata, self, &o, SZ_1G - SZ_2M, false, 0, SZ_1G, 0,
		  MAP_SHARED, false);
	expect_reason(_metadata, &o, PUD_EV, "beyond_eof");
}

/* PUD: first access a write to a 1 GiB MAP_PRIVATE mapping. */
TEST_F_TIMEOUT(fs, reason_pud_cow, TIMEOUT_SHORT)
{
	struct obs o;

	PUD_ONLY();
	one_touch(_metadata, self, &o, SZ_1G, false, 0, SZ_1G, 0,
		  MAP_PRIVATE, true);
	expect_reason(_metadata, &o, PUD_EV, "cow");
}

/* PUD: a sparse 1 GiB file with only its first 4 KiB written. */
TEST_F_TIMEOUT(fs, reason_pud_extent, TIMEOUT_SHORT)
{
	struct obs o;

	PUD_ONLY();
	ASSERT_EQ(0, write_file_pattern(self->fd, 0, SZ_4K, new_seed()));
	one_touch(_metadata, self, &o, SZ_1G, false, 0, SZ_1G, 0, MAP_SHARED,
		  false);
	expect_reason(_metadata, &o, PUD_EV, "extent");
}

/* PUD: a read of a hole (there is no huge zero PUD): PMD zero page. */
TEST_F_TIMEOUT(fs, reason_pud_hole, TIMEOUT_SHORT)
{
	struct obs o;

	PUD_ONLY();
	one_touch(_metadata, self, &o, SZ_1G, false, 0, SZ_1G, 0, MAP_SHARED,
		  false);
	expect_reason(_metadata, &o, PUD_EV, "hole");
	EXPECT_EQ(1L, trace_count_reason(PMD_EV, "NOPAGE", "none"));
	EXPECT_EQ(2048L, o.kb.pmd);
}

/*
 * PUD: a PMD read of a hole through a mapping at 1 GiB + 2 MiB leaves a
 * PMD zero entry; a 1 GiB-aligned mapping then finds it.
 */
TEST_F_TIMEOUT(fs, reason_pud_conflict, TIMEOUT_SHORT)
{
	struct obs o;
	char *q;

	PUD_ONLY();
	ASSERT_EQ(0, ftruncate(self->fd, SZ_1G + SZ_2M));
	q = rmap_map(_metadata, &self->m2, SZ_2M, SZ_1G, MAP_SHARED,
		     self->fd, 0);
	touch_read(q, SZ_4K, SZ_4K);
	rmap_unmap(&self->m2);
	one_touch(_metadata, self, &o, SZ_1G + SZ_2M, false, 0, SZ_1G, 0,
		  MAP_SHARED, false);
	expect_reason(_metadata, &o, PUD_EV, "conflict");
}

/* ---- device-dax ---- */

FIXTURE(devdax) {
	int fd;
	char *p;
};

FIXTURE_SETUP(devdax)
{
	const char *path = env_or("HUGEDAX_DEVDAX", "/dev/dax3.0");
	int err;

	self->p = MAP_FAILED;
	if (geteuid())
		SKIP(return, "needs root");
	self->fd = open(path, O_RDWR | O_CLOEXEC);
	err = errno;
	ASSERT_LE(0, self->fd) {
		TH_LOG("open %s: %s (set HUGEDAX_DEVDAX)", path, strerror(err));
	}
	self->p = mmap(NULL, SZ_1G, PROT_READ | PROT_WRITE, MAP_SHARED,
		       self->fd, 0);
	ASSERT_NE(MAP_FAILED, self->p);
	ASSERT_EQ(0UL, (unsigned long)self->p & (SZ_1G - 1));
}

FIXTURE_TEARDOWN(devdax)
{
	if (self->p != MAP_FAILED)
		munmap(self->p, SZ_1G);
	if (self->fd >= 0)
		close(self->fd);
}

/*
 * 1 GiB: one PUD fault, counted in dax_pud_fault.  smaps and smaps_rollup
 * read 1,000 times each leave the PUD: touching it again takes no fault.
 * Negative control: after MADV_DONTNEED smaps shows nothing and the next
 * touch faults once.
 */
TEST_F_TIMEOUT(devdax, size_1g_survives_1000_smaps_reads, TIMEOUT_LONG)
{
	struct dax_kb kb, roll;
	struct obs o;
	int i, bad = 0;

	RETURN_IF_SKIPPED();
	measure(_metadata, &o, false, self->p, SZ_1G, SZ_4K, true);
	expect_sizes(_metadata, &o, "device-dax write 1 GiB", self->p, SZ_1G,
		     0, 0, SZ_1G);
	EXPECT_EQ(0L, o.vm.pud_fallback + o.vm.pmd_fallback);

	for (i = 0; i < 1000; i++) {
		read_smaps(_metadata, self->p, &kb, &roll);
		bad += kb.pud != 1048576 || roll.pud != 1048576 ||
		       kb.pmd || kb.pte;
	}
	EXPECT_EQ(0, bad);
	measure(_metadata, &o, false, self->p, SZ_1G, SZ_4K, false);
	expect_faults(_metadata, "read 1 GiB after 2000 smaps reads", &o.fc, 0);
	EXPECT_EQ(0L, o.vm.pud + o.vm.pmd);
	expect_levels(_metadata, self->p, SZ_1G, 0, 0, SZ_1G);

	ASSERT_EQ(0, madvise(self->p, SZ_1G, MADV_DONTNEED));
	read_smaps(_metadata, self->p, &kb, &roll);
	EXPECT_EQ(0L, kb.pte + kb.pmd + kb.pud);
	measure(_metadata, &o, false, self->p, SZ_1G, SZ_4K, false);
	expect_sizes(_metadata, &o, "device-dax read after MADV_DONTNEED",
		     self->p, SZ_1G, 0, 0, SZ_1G);
}

/* ---- negative controls: memory that is not DAX ---- */

static void expect_not_dax(struct __test_metadata *_metadata, const char *what,
			   char *p, size_t len)
{
	struct obs o;

	measure(_metadata, &o, false, p, len, SZ_4K, true);
	expect_faults(_metadata, what, &o.fc, len / SZ_4K);
	EXPECT_EQ(0L, o.kb.pte + o.kb.pmd + o.kb.pud);
	EXPECT_EQ(0L, o.roll.pte + o.roll.pmd + o.roll.pud);
	EXPECT_EQ((long)(len >> 10), smaps_kb((unsigned long)p, "Rss:"));
	EXPECT_EQ(0L, o.vm.pmd + o.vm.pmd_fallback + o.vm.pud +
		  o.vm.pud_fallback);
}

TEST(anonymous_memory_is_not_dax)
{
	const size_t len = 4 * SZ_1M;
	char *p = map_aligned(len, SZ_2M, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0, 0);

	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, madvise(p, len, MADV_NOHUGEPAGE));
	expect_not_dax(_metadata, "anonymous write 4 MiB", p, len);
	munmap(p, len);
}

TEST(tmpfs_file_is_not_dax)
{
	const size_t len = 4 * SZ_1M;
	char path[] = "/dev/shm/hugedax.smaps.XXXXXX";
	int fd = mkstemp(path);
	char *p;

	ASSERT_LE(0, fd);
	unlink(path);
	ASSERT_EQ(0, ftruncate(fd, len));
	p = map_aligned(len, SZ_2M, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0, 0);
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, madvise(p, len, MADV_NOHUGEPAGE));
	expect_not_dax(_metadata, "tmpfs write 4 MiB", p, len);
	munmap(p, len);
	close(fd);
}

TEST_HARNESS_MAIN
