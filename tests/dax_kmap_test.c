// SPDX-License-Identifier: GPL-2.0
/*
 * dax_kmap_test - DAX files mapped into the kernel (dax_kmap_file()) through
 * the test module's /sys/kernel/debug/test_dax_kmap, and pstore/dax's
 * registration through /sys/module/pstore_dax/parameters/file.
 *
 * Page sizes: a file of three units (4 KiB, 2 MiB, 1 GiB) is fallocated and
 * written, then its middle unit is collapsed away, so that its two units lie
 * a unit apart on the device and the kernel needs a vmap for them.  The
 * page table levels the module's own walk reports and those of the kernel
 * page-table dump must both match what FIEMAP predicts from the extents'
 * alignment.  The same file without the collapse is one physical run: the
 * negative control, mapped through the direct map.  Data: the module's sum
 * of each page's first word through the kernel mapping against pread(), and
 * a store through the mapping read back with pread() and mmap().
 */
#include <fcntl.h>
#include <inttypes.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>

#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"
#include "dax_checks.h"

#define CTL		"/sys/kernel/debug/test_dax_kmap"
#define PSTORE_FILE	"/sys/module/pstore_dax/parameters/file"

struct kmap_status {
	char kind[16];
	unsigned long addr, len, pte, pmd, pud, none;
	uint64_t sum;
};

/* write @cmd to the control file: 0, or -errno */
static int ctl(const char *cmd)
{
	int fd = open(CTL, O_WRONLY | O_CLOEXEC), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, cmd, strlen(cmd)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

static int kmap(const char *path, unsigned long pos, unsigned long len)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "map %s %lu %lu", path, pos, len);
	return ctl(cmd);
}

/* 1 if mapped and parsed, 0 if unmapped, -1 on error */
static int kmap_status(struct kmap_status *s)
{
	char buf[256];
	FILE *f = fopen(CTL, "re");
	int n;

	if (!f)
		return -1;
	memset(s, 0, sizeof(*s));
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	if (!strncmp(buf, "unmapped", 8))
		return 0;
	n = sscanf(buf, "kind=%15s addr=%lx len=%lu pte=%lu pmd=%lu pud=%lu none=%lu sum=%" SCNx64,
		   s->kind, &s->addr, &s->len, &s->pte, &s->pmd, &s->pud,
		   &s->none, &s->sum);
	return n == 8 ? 1 : -1;
}

/* physical runs in FIEMAP's extents of [0, len): 1 = contiguous */
static int fiemap_runs(int fd, unsigned long len)
{
	size_t sz = sizeof(struct fiemap) + 64 * sizeof(struct fiemap_extent);
	struct fiemap *fm = calloc(1, sz);
	uint64_t next = 0, expect = ~0ULL;
	int runs = 0;

	if (!fm)
		return -1;
	while (next < len) {
		unsigned int i;

		memset(fm, 0, sz);
		fm->fm_start = next;
		fm->fm_length = len - next;
		fm->fm_flags = FIEMAP_FLAG_SYNC;
		fm->fm_extent_count = 64;
		if (ioctl(fd, FS_IOC_FIEMAP, fm) || !fm->fm_mapped_extents) {
			runs = -1;
			break;
		}
		for (i = 0; i < fm->fm_mapped_extents; i++) {
			struct fiemap_extent *e = &fm->fm_extents[i];

			if (e->fe_physical != expect)
				runs++;
			expect = e->fe_physical + e->fe_length;
			next = e->fe_logical + e->fe_length;
		}
	}
	free(fm);
	return runs;
}

/* sum of the first word of each page, read with pread() */
static uint64_t pread_sum(int fd, unsigned long len)
{
	uint64_t sum = 0, w;
	unsigned long off;

	for (off = 0; off < len; off += 4096)
		if (pread(fd, &w, sizeof(w), off) == sizeof(w))
			sum += w;
	return sum;
}

/*
 * Make @path: fallocate three @unit, write them all (each page's first word
 * from the pattern of @seed, the rest zero), and with @collapse cut the
 * middle unit out.  Returns an fd open for reading, or -1.
 */
static int make_file(const char *path, unsigned long unit, uint64_t seed,
		     int collapse)
{
	size_t piece = unit < SZ_2M ? unit : SZ_2M;
	char *buf = calloc(1, piece);
	unsigned long off, i;
	int fd;

	unlink(path);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0 || !buf || fallocate(fd, 0, 0, 3 * unit))
		goto fail;
	for (off = 0; off < 3 * unit; off += piece) {
		for (i = 0; i < piece; i += 4096)
			*(uint64_t *)(buf + i) = pattern_word(seed, off + i);
		if (pwrite(fd, buf, piece, off) != (ssize_t)piece)
			goto fail;
	}
	if (collapse && fallocate(fd, FALLOC_FL_COLLAPSE_RANGE, unit, unit))
		goto fail;
	if (fsync(fd))
		goto fail;
	free(buf);
	return fd;
fail:
	free(buf);
	if (fd >= 0)
		close(fd);
	return -1;
}

static void write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd >= 0) {
		if (write(fd, s, strlen(s)) < 0)
			perror(path);
		close(fd);
	}
}

FIXTURE(kmap) {
	char path[256];
	char other[256];
	int fd;
};

FIXTURE_VARIANT(kmap) {
	const char *dir;
	unsigned long unit;
	int collapse;
};

FIXTURE_VARIANT_ADD(kmap, ext4_4k) {
	.dir = "/mnt/ext4", .unit = 4096, .collapse = 1,
};

FIXTURE_VARIANT_ADD(kmap, ext4_2m) {
	.dir = "/mnt/ext4", .unit = SZ_2M, .collapse = 1,
};

/* ext4 reports extents of at most 128 MiB: the kernel mapping joins them */
FIXTURE_VARIANT_ADD(kmap, ext4_1g) {
	.dir = "/mnt/ext4", .unit = SZ_1G, .collapse = 1,
};

FIXTURE_VARIANT_ADD(kmap, ext4_4k_contiguous) {
	.dir = "/mnt/ext4", .unit = 4096, .collapse = 0,
};

FIXTURE_VARIANT_ADD(kmap, xfs_4k) {
	.dir = "/mnt/xfs", .unit = 4096, .collapse = 1,
};

FIXTURE_VARIANT_ADD(kmap, xfs_2m) {
	.dir = "/mnt/xfs", .unit = SZ_2M, .collapse = 1,
};

FIXTURE_VARIANT_ADD(kmap, xfs_1g) {
	.dir = "/mnt/xfs", .unit = SZ_1G, .collapse = 1,
};

FIXTURE_VARIANT_ADD(kmap, xfs_1g_contiguous) {
	.dir = "/mnt/xfs", .unit = SZ_1G, .collapse = 0,
};

FIXTURE_SETUP(kmap)
{
	char fstype[32];
	int dax;

	if (mount_of(variant->dir, fstype, sizeof(fstype), &dax) || !dax)
		SKIP(return, "%s is not a DAX mount", variant->dir);
	if (access(CTL, W_OK))
		SKIP(return, "no %s (CONFIG_TEST_DAX_KMAP)", CTL);
	snprintf(self->path, sizeof(self->path), "%s/hugedax.kmap",
		 variant->dir);
	snprintf(self->other, sizeof(self->other), "%s/hugedax.kmap.other",
		 variant->dir);
	self->fd = -1;
}

FIXTURE_TEARDOWN(kmap)
{
	ctl("unmap");
	if (self->fd >= 0)
		close(self->fd);
	unlink(self->path);
	unlink(self->other);
}

/* the page sizes of the kernel mapping match the extents, by two signals */
TEST_F_TIMEOUT(kmap, levels_follow_extents, TIMEOUT_LONG)
{
	unsigned long len = (variant->collapse ? 2 : 3) * variant->unit;
	unsigned long a1g, a2m, want_pud, want_pmd, want_pte;
	long n1g, n2m;
	uint64_t seed = new_seed();
	struct ptdump_sizes pt;
	struct kmap_status s;
	int runs;

	RETURN_IF_SKIPPED();
	self->fd = make_file(self->path, variant->unit, seed, variant->collapse);
	ASSERT_LE(0, self->fd) TH_LOG("making %s: %s", self->path, strerror(errno));
	runs = fiemap_runs(self->fd, len);
	n1g = fiemap_aligned_chunks(self->fd, 0, len, SZ_1G);
	n2m = fiemap_aligned_chunks(self->fd, 0, len, SZ_2M);
	ASSERT_LT(0, runs);
	ASSERT_LE(0, n1g);
	ASSERT_LE(0, n2m);
	a1g = n1g;
	a2m = n2m;
	/* the layout the variant is made for */
	ASSERT_EQ(variant->collapse ? 2 : 1, runs);

	ASSERT_EQ(0, kmap(self->path, 0, len));
	ASSERT_EQ(1, kmap_status(&s));
	TH_LOG("%s: %lu bytes, %d run(s): %s, %lu x 1G, %lu x 2M, %lu x 4K",
	       self->path, len, runs, s.kind, s.pud, s.pmd, s.pte);
	EXPECT_EQ(len, s.len);
	EXPECT_EQ(0UL, s.none);
	/* the data through the kernel mapping is the file's */
	EXPECT_EQ(pread_sum(self->fd, len), s.sum);
	if (!variant->collapse) {
		/* one run: the direct map, whatever its page sizes */
		EXPECT_STREQ("direct", s.kind);
		return;
	}
	EXPECT_STREQ("vmap", s.kind);
	want_pud = a1g;
	want_pmd = a2m - 512 * a1g;
	want_pte = (len - a2m * SZ_2M) / 4096;
	/* the units the variant is made for are aligned on the device */
	EXPECT_EQ(variant->unit == SZ_1G ? 2UL : 0UL, want_pud);
	EXPECT_EQ(variant->unit == SZ_2M ? 2UL : 0UL, want_pmd);
	/* signal 1: the test module's walk of the kernel page table */
	EXPECT_EQ(want_pud, s.pud);
	EXPECT_EQ(want_pmd, s.pmd);
	EXPECT_EQ(want_pte, s.pte);
	/* signal 2: the kernel page-table dump */
	ASSERT_EQ(0, ptdump_levels(s.addr, len, &pt));
	EXPECT_EQ(want_pud * SZ_1G, pt.pud);
	EXPECT_EQ(want_pmd * SZ_2M, pt.pmd);
	EXPECT_EQ(want_pte * 4096, pt.pte);
	EXPECT_EQ(0UL, pt.absent);

	/* unmapped, the vmap is gone from the page-table dump */
	ASSERT_EQ(0, ctl("unmap"));
	ASSERT_EQ(0, ptdump_levels(s.addr, len, &pt));
	EXPECT_EQ(0UL, pt.pud + pt.pmd + pt.pte);
}

/* a store through the kernel mapping is the file's data, and no more */
TEST_F_TIMEOUT(kmap, store_reaches_file, TIMEOUT_LONG)
{
	unsigned long len = (variant->collapse ? 2 : 3) * variant->unit;
	unsigned long off = len - 4096 + 64;
	uint64_t seed = new_seed(), got, before, want = seed ^ 0x5a5a5a5a5a5a5a5aULL;
	char cmd[128];
	uint64_t *p;

	RETURN_IF_SKIPPED();
	self->fd = make_file(self->path, variant->unit, seed, variant->collapse);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ((ssize_t)sizeof(before), pread(self->fd, &before, sizeof(before), off + 8));
	ASSERT_EQ(0, kmap(self->path, 0, len));
	snprintf(cmd, sizeof(cmd), "store %lu %" PRIx64, off, want);
	ASSERT_EQ(0, ctl(cmd));
	ASSERT_EQ((ssize_t)sizeof(got), pread(self->fd, &got, sizeof(got), off));
	EXPECT_EQ(want, got);
	/* the word beside it is untouched */
	ASSERT_EQ((ssize_t)sizeof(got), pread(self->fd, &got, sizeof(got), off + 8));
	EXPECT_EQ(before, got);
	/* a user mapping sees it too, while the file is pinned */
	p = mmap(NULL, len, PROT_READ, MAP_SHARED, self->fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(want, p[off / 8]);
	munmap(p, len);
	ASSERT_EQ(0, ctl("unmap"));
	ASSERT_EQ((ssize_t)sizeof(got), pread(self->fd, &got, sizeof(got), off));
	EXPECT_EQ(want, got);
}

FIXTURE(refuse) {
	char dir[64];
	char path[128];
};

FIXTURE_SETUP(refuse)
{
	char fstype[32];
	int dax;

	strcpy(self->dir, "/mnt/xfs");
	if (mount_of(self->dir, fstype, sizeof(fstype), &dax) || !dax)
		SKIP(return, "%s is not a DAX mount", self->dir);
	if (access(CTL, W_OK))
		SKIP(return, "no %s (CONFIG_TEST_DAX_KMAP)", CTL);
	snprintf(self->path, sizeof(self->path), "%s/hugedax.refuse",
		 self->dir);
	unlink(self->path);
}

FIXTURE_TEARDOWN(refuse)
{
	ctl("unmap");
	unlink(self->path);
	unlink("/mnt/xfs/hugedax.refuse.clone");
	unlink("/tmp/hugedax.refuse");
}

static int make_written(const char *path, unsigned long len, uint64_t seed)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0)
		return -1;
	if (write_file_pattern(fd, 0, len, seed) || fsync(fd)) {
		close(fd);
		return -1;
	}
	return fd;
}

TEST_F(refuse, bad_ranges)
{
	int fd = make_written(self->path, 12288, new_seed());

	RETURN_IF_SKIPPED();
	ASSERT_LE(0, fd);
	close(fd);
	EXPECT_EQ(-ENXIO, kmap(self->path, 0, 16384));
	EXPECT_EQ(-ENXIO, kmap(self->path, 12288, 4096));
	EXPECT_EQ(-EINVAL, kmap(self->path, 100, 4096));
	EXPECT_EQ(-EINVAL, kmap(self->path, 0, 100));
	EXPECT_EQ(-EINVAL, kmap(self->path, 0, 0));
	EXPECT_EQ(-ENOENT, kmap("/mnt/xfs/hugedax.no-such-file", 0, 4096));
	/* positive control: the whole file maps */
	EXPECT_EQ(0, kmap(self->path, 0, 12288));
	EXPECT_EQ(-EBUSY, kmap(self->path, 0, 12288));
}

TEST_F(refuse, not_dax)
{
	int fd = make_written("/tmp/hugedax.refuse", 8192, new_seed());

	RETURN_IF_SKIPPED();
	ASSERT_LE(0, fd);
	close(fd);
	EXPECT_EQ(-EOPNOTSUPP, kmap("/tmp/hugedax.refuse", 0, 8192));
}

TEST_F(refuse, holes_and_unwritten)
{
	int fd;

	RETURN_IF_SKIPPED();
	/* sparse */
	fd = open(self->path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ftruncate(fd, SZ_2M));
	EXPECT_EQ(-ENODATA, kmap(self->path, 0, SZ_2M));
	/* fallocated, never written */
	ASSERT_EQ(0, fallocate(fd, 0, 0, SZ_2M));
	EXPECT_EQ(-ENODATA, kmap(self->path, 0, SZ_2M));
	/* written but for its last page */
	ASSERT_EQ(0, write_file_pattern(fd, 0, SZ_2M - 4096, new_seed()));
	ASSERT_EQ(0, fsync(fd));
	EXPECT_EQ(-ENODATA, kmap(self->path, 0, SZ_2M));
	/* the written part maps */
	EXPECT_EQ(0, kmap(self->path, 0, SZ_2M - 4096));
	close(fd);
}

TEST_F(refuse, shared_extents)
{
	const char *clone = "/mnt/xfs/hugedax.refuse.clone";
	int fd, cfd;

	RETURN_IF_SKIPPED();
	fd = make_written(self->path, SZ_2M, new_seed());
	ASSERT_LE(0, fd);
	cfd = open(clone, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	ASSERT_LE(0, cfd);
	if (ioctl(cfd, FICLONE, fd))
		SKIP(goto out, "no reflink on /mnt/xfs: %s", strerror(errno));
	EXPECT_EQ(-EBUSY, kmap(clone, 0, SZ_2M));
	EXPECT_EQ(-EBUSY, kmap(self->path, 0, SZ_2M));
	/* unshared, it maps */
	ASSERT_EQ(0, fallocate(fd, FALLOC_FL_UNSHARE_RANGE, 0, SZ_2M));
	EXPECT_EQ(0, kmap(self->path, 0, SZ_2M));
out:
	if (cfd >= 0)
		close(cfd);
	close(fd);
}

/* while mapped, nothing moves the file's blocks; afterwards all works */
TEST_F(refuse, layout_pinned_while_mapped)
{
	uint64_t seed = new_seed();
	char other[160], buf[4096] = { 1 };
	off_t bad;
	void *p;
	int fd, ofd;

	RETURN_IF_SKIPPED();
	snprintf(other, sizeof(other), "%s.other", self->path);
	fd = make_written(self->path, SZ_2M, seed);
	ASSERT_LE(0, fd);
	ofd = make_written(other, SZ_2M, seed + 1);
	ASSERT_LE(0, ofd);
	ASSERT_EQ(0, kmap(self->path, 0, SZ_2M));

	EXPECT_EQ(-1, ftruncate(fd, 4096));
	EXPECT_EQ(ETXTBSY, errno);
	EXPECT_EQ(-1, truncate(self->path, 4096));
	EXPECT_EQ(ETXTBSY, errno);
	EXPECT_EQ(-1, fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, 4096));
	EXPECT_EQ(ETXTBSY, errno);
	EXPECT_EQ(-1, fallocate(fd, 0, 0, (2 * SZ_2M)));
	EXPECT_EQ(ETXTBSY, errno);
	EXPECT_EQ(-1, pwrite(fd, buf, sizeof(buf), 0));
	EXPECT_EQ(ETXTBSY, errno);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, SZ_2M, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
	EXPECT_EQ(ETXTBSY, errno);
	EXPECT_EQ(-1, ioctl(ofd, FICLONE, fd));
	EXPECT_EQ(-1, unlink(self->path));
	EXPECT_EQ(EPERM, errno);
	EXPECT_EQ(-1, rename(other, self->path));
	EXPECT_EQ(EPERM, errno);
	/* reads and read-only mappings work, and show the data */
	EXPECT_EQ(0, check_file_pattern(fd, 0, SZ_2M, 4096, seed, &bad));
	p = mmap(NULL, SZ_2M, PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(0, check_pattern(p, SZ_2M, 4096, seed, 0, NULL));
	munmap(p, SZ_2M);
	/* the other file on the filesystem is untouched and writable */
	EXPECT_EQ((ssize_t)sizeof(buf), pwrite(ofd, buf, sizeof(buf), SZ_2M));
	EXPECT_EQ(0, check_file_pattern(ofd, 0, SZ_2M, 8, seed + 1, &bad));

	/* growing the file moves no block of the mapped range: allowed */
	EXPECT_EQ(0, ftruncate(fd, 2 * SZ_2M));
	/* the file is whole after all the refusals, and free again unmapped */
	EXPECT_EQ((off_t)(2 * SZ_2M), lseek(fd, 0, SEEK_END));
	EXPECT_EQ(0, check_file_pattern(fd, 0, SZ_2M, 8, seed, &bad));
	ASSERT_EQ(0, ctl("unmap"));
	EXPECT_EQ(0, ftruncate(fd, 4096));
	EXPECT_EQ(0, unlink(other));
	close(ofd);
	close(fd);
}

/* pstore/dax: what it registers, what it refuses, and the pinning */
FIXTURE(pstore) {
	char path[128];
};

FIXTURE_SETUP(pstore)
{
	char fstype[32];
	int dax;

	if (mount_of("/mnt/ext4", fstype, sizeof(fstype), &dax) || !dax)
		SKIP(return, "/mnt/ext4 is not a DAX mount");
	if (access(PSTORE_FILE, W_OK))
		SKIP(return, "no %s (CONFIG_PSTORE_DAX)", PSTORE_FILE);
	strcpy(self->path, "/mnt/ext4/hugedax.pstore");
}

FIXTURE_TEARDOWN(pstore)
{
	write_str(PSTORE_FILE, "\n");
	unlink(self->path);
	unlink("/tmp/hugedax.pstore");
}

/* 0 or -errno */
static int pstore_set(const char *path)
{
	int fd = open(PSTORE_FILE, O_WRONLY | O_CLOEXEC), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, path, strlen(path)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

static int make_sized(const char *path, unsigned long len, int written)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	int ret = 0;

	if (fd < 0)
		return -1;
	if (written)
		ret = write_file_pattern(fd, 0, len, new_seed());
	else
		ret = ftruncate(fd, len);
	ret = ret ? ret : fsync(fd);
	close(fd);
	return ret;
}

TEST_F(pstore, refusals)
{
	RETURN_IF_SKIPPED();
	EXPECT_EQ(-ENOENT, pstore_set("/mnt/ext4/hugedax.no-such-file"));
	ASSERT_EQ(0, make_sized("/tmp/hugedax.pstore", SZ_1M, 1));
	EXPECT_EQ(-EOPNOTSUPP, pstore_set("/tmp/hugedax.pstore"));
	/* ext2 has no ->dax_kmap */
	if (!make_sized("/mnt/ext2/hugedax.pstore", SZ_1M, 1)) {
		EXPECT_EQ(-EOPNOTSUPP, pstore_set("/mnt/ext2/hugedax.pstore"));
		unlink("/mnt/ext2/hugedax.pstore");
	}
	ASSERT_EQ(0, make_sized(self->path, 4096, 1));
	EXPECT_EQ(-ENOSPC, pstore_set(self->path));
	ASSERT_EQ(0, make_sized(self->path, SZ_1M, 0));
	EXPECT_EQ(-ENODATA, pstore_set(self->path));
	ASSERT_EQ(0, make_sized(self->path, 128UL << 20, 1));
	EXPECT_EQ(-EFBIG, pstore_set(self->path));
	/* positive control: a written 1 MiB file registers */
	ASSERT_EQ(0, make_sized(self->path, SZ_1M, 1));
	EXPECT_EQ(0, pstore_set(self->path));
	/* one at a time */
	EXPECT_EQ(-EBUSY, pstore_set(self->path));
}

TEST_F(pstore, registered_file_is_pinned)
{
	char got[256] = "";
	int fd;

	RETURN_IF_SKIPPED();
	ASSERT_EQ(0, make_sized(self->path, SZ_1M, 1));
	ASSERT_EQ(0, pstore_set(self->path));
	fd = open(PSTORE_FILE, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_LT(0, read(fd, got, sizeof(got) - 1));
	close(fd);
	EXPECT_EQ(0, strncmp(got, self->path, strlen(self->path)));
	EXPECT_EQ(-1, truncate(self->path, 4096));
	EXPECT_EQ(ETXTBSY, errno);
	EXPECT_EQ(-1, unlink(self->path));
	EXPECT_EQ(EPERM, errno);
	/* the test module cannot map it a second time */
	EXPECT_EQ(-ETXTBSY, kmap(self->path, 0, SZ_1M));
	/* unregistered, it is an ordinary file again */
	ASSERT_EQ(0, pstore_set("\n"));
	EXPECT_EQ(0, truncate(self->path, 4096));
}

TEST_HARNESS_MAIN
