// SPDX-License-Identifier: GPL-2.0
/*
 * DAX and non-DAX files mixed on one file system (mount -o dax=inode, the
 * per-file FS_XFLAG_DAX attribute), and switching a file with data between
 * the two: huge DAX mappings where the attribute says so, the page cache
 * elsewhere, and no data lost on the way.
 *
 * Needs ext4 and xfs mounted with -o dax=inode (guest/test-job.sh does it
 * at the end of its run, after the tests that want dax=always); skips on a
 * mount with dax=always or dax=never.  Page sizes from fault counts and the
 * page table dump; DAX or not from statx (STATX_ATTR_DAX) and the smaps
 * Dax*Mapped fields of the series.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <mntent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "dax_probe.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"
#include "dax_checks.h"

#define LEN	(64 * SZ_1M)

FIXTURE(inode) {
	char dir[256];		/* the test's directory, removed at the end */
	char path[2][300];
	int fd[2];
	char *p[2];
};

FIXTURE_VARIANT(inode) {
	const char *fstype;
	const char *env;
	const char *dir;
};

FIXTURE_VARIANT_ADD(inode, ext4) {
	.fstype = "ext4", .env = "HUGEDAX_EXT4", .dir = "/mnt/ext4",
};

FIXTURE_VARIANT_ADD(inode, xfs) {
	.fstype = "xfs", .env = "HUGEDAX_XFS", .dir = "/mnt/xfs",
};

/* 1 if the comma-separated @opts has exactly @opt */
static int has_opt(const char *opts, const char *opt)
{
	size_t n = strlen(opt);
	const char *o;

	for (o = opts; o; o = strchr(o, ',') ? strchr(o, ',') + 1 : NULL)
		if (!strncmp(o, opt, n) && (o[n] == ',' || o[n] == '\0'))
			return 1;
	return 0;
}

/* 1 if @dir is a mount of @fstype in per-inode DAX mode, 0 if not, -1. */
static int dax_inode_mount(const char *dir, const char *fstype)
{
	struct mntent *m;
	int mode = -1;
	FILE *f = setmntent("/proc/self/mounts", "re");

	if (!f)
		return -1;
	while ((m = getmntent(f))) {
		if (strcmp(m->mnt_dir, dir) || strcmp(m->mnt_type, fstype))
			continue;
		/* no dax option at all is dax=inode (the default) */
		mode = !has_opt(m->mnt_opts, "dax") &&
		       !has_opt(m->mnt_opts, "dax=always") &&
		       !has_opt(m->mnt_opts, "dax=never");
	}
	endmntent(f);
	return mode;
}

static int set_dax_flag(int fd, int on)
{
	struct fsxattr fa;

	if (ioctl(fd, FS_IOC_FSGETXATTR, &fa))
		return -1;
	if (on)
		fa.fsx_xflags |= FS_XFLAG_DAX;
	else
		fa.fsx_xflags &= ~FS_XFLAG_DAX;
	return ioctl(fd, FS_IOC_FSSETXATTR, &fa);
}

/* Write back, then evict unused inodes: a changed DAX flag takes effect. */
static int evict_inodes(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY);
	int ret;

	if (fd < 0)
		return -1;
	ret = syncfs(fd);
	close(fd);
	fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
	if (fd < 0)
		return -1;
	if (write(fd, "2", 1) != 1)
		ret = -1;
	close(fd);
	return ret;
}

FIXTURE_SETUP(inode)
{
	const char *top = env_or(variant->env, variant->dir);
	int mode;

	self->fd[0] = self->fd[1] = -1;
	self->p[0] = self->p[1] = MAP_FAILED;
	snprintf(self->dir, sizeof(self->dir), "%s/hugedax.inode", top);
	snprintf(self->path[0], sizeof(self->path[0]), "%s/plain", self->dir);
	snprintf(self->path[1], sizeof(self->path[1]), "%s/dax/file", self->dir);
	if (geteuid())
		SKIP(return, "needs root");
	mode = dax_inode_mount(top, variant->fstype);
	ASSERT_LE(0, mode) {
		TH_LOG("%s is not a %s mount", top, variant->fstype);
	}
	if (!mode)
		SKIP(return, "%s is not mounted with dax=inode", top);
	ASSERT_EQ(0, mkdir(self->dir, 0755));
}

FIXTURE_TEARDOWN(inode)
{
	char sub[300];
	int i;

	for (i = 0; i < 2; i++) {
		if (self->p[i] != MAP_FAILED)
			munmap(self->p[i], LEN);
		if (self->fd[i] >= 0)
			close(self->fd[i]);
		unlink(self->path[i]);
	}
	snprintf(sub, sizeof(sub), "%s/dax", self->dir);
	rmdir(sub);
	rmdir(self->dir);
}

/* Map @fd's LEN bytes at a 2 MiB-aligned address, read them: faults. */
static long map_and_read(struct __test_metadata *_metadata, int fd,
			 char **p)
{
	struct fault_count fc;

	*p = map_aligned(LEN, SZ_2M, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
			 0, 0);
	if (*p == MAP_FAILED)
		return -1;
	fault_begin(&fc, calibrate_minflt());
	touch_read(*p, LEN, SZ_4K);
	return fault_end(&fc);
}

static void expect_dax_kb(struct __test_metadata *_metadata, const char *p,
			  long pte, long pmd)
{
	struct dax_kb kb;

	ASSERT_EQ(0, smaps_dax((unsigned long)p, &kb));
	EXPECT_EQ(pte, kb.pte);
	EXPECT_EQ(pmd, kb.pmd);
	EXPECT_EQ(0L, kb.pud);
}

/*
 * A file without the attribute is not DAX (negative control), one created
 * in a directory that has it is; mapped side by side, the DAX file gets
 * 2 MiB pages (one fault per 2 MiB, PMDs in the dump, DaxPmdMapped) and the
 * other page-cache pages (no Dax* pages); both read back right.  Access
 * order: pwrite 64 MiB into each, map both, read both.
 */
TEST_F_TIMEOUT(inode, mixed_files_map_as_their_attribute_says, TIMEOUT_LONG)
{
	uint64_t seed = new_seed();
	char sub[300];
	long faults;
	int dfd;

	RETURN_IF_SKIPPED();
	snprintf(sub, sizeof(sub), "%s/dax", self->dir);
	ASSERT_EQ(0, mkdir(sub, 0755));
	dfd = open(sub, O_RDONLY | O_DIRECTORY);
	ASSERT_LE(0, dfd);
	ASSERT_EQ(0, set_dax_flag(dfd, 1));
	close(dfd);

	self->fd[0] = open(self->path[0], O_RDWR | O_CREAT, 0644);
	self->fd[1] = open(self->path[1], O_RDWR | O_CREAT, 0644);
	ASSERT_LE(0, self->fd[0]);
	ASSERT_LE(0, self->fd[1]);
	EXPECT_EQ(0, file_is_dax(self->fd[0]));
	EXPECT_EQ(1, file_is_dax(self->fd[1]));
	ASSERT_EQ(0, write_file_pattern(self->fd[0], 0, LEN, seed));
	ASSERT_EQ(0, write_file_pattern(self->fd[1], 0, LEN, seed + 1));

	faults = map_and_read(_metadata, self->fd[1], &self->p[1]);
	ASSERT_NE(MAP_FAILED, self->p[1]);
	TH_LOG("DAX file: %ld faults for 64 MiB", faults);
	EXPECT_LE((long)(LEN / SZ_2M), faults);
	EXPECT_GE((long)(LEN / SZ_2M) + FAULT_SLACK, faults);
	expect_levels(_metadata, self->p[1], LEN, 0, LEN, 0);
	expect_dax_kb(_metadata, self->p[1], 0, LEN / 1024);

	faults = map_and_read(_metadata, self->fd[0], &self->p[0]);
	ASSERT_NE(MAP_FAILED, self->p[0]);
	TH_LOG("page-cache file: %ld faults for 64 MiB", faults);
	expect_dax_kb(_metadata, self->p[0], 0, 0);

	EXPECT_EQ(0, check_pattern(self->p[0], LEN, SZ_4K, seed, 0, NULL));
	EXPECT_EQ(0, check_pattern(self->p[1], LEN, SZ_4K, seed + 1, 0, NULL));
}

/*
 * Switching a file with data between page cache and DAX: set the
 * attribute on a page-cache file whose data was just written (not
 * fsynced), let the inode go, and it comes back as DAX with its data,
 * mapped with 2 MiB pages where its blocks allow; clear it and it comes
 * back as a page-cache file, data intact.
 */
TEST_F_TIMEOUT(inode, switching_a_file_keeps_its_data, TIMEOUT_LONG)
{
	uint64_t seed = new_seed();
	long faults, chunks;
	off_t bad = 0;
	int fd;

	RETURN_IF_SKIPPED();
	fd = open(self->path[0], O_RDWR | O_CREAT, 0644);
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, file_is_dax(fd));
	ASSERT_EQ(0, write_file_pattern(fd, 0, LEN, seed));
	ASSERT_EQ(0, set_dax_flag(fd, 1));
	close(fd);
	ASSERT_EQ(0, evict_inodes(self->dir));

	self->fd[0] = open(self->path[0], O_RDWR);
	ASSERT_LE(0, self->fd[0]);
	EXPECT_EQ(1, file_is_dax(self->fd[0]));
	EXPECT_EQ(0, check_file_pattern(self->fd[0], 0, LEN, SZ_4K, seed, &bad)) {
		TH_LOG("after switching to DAX, data differs at %#llx",
		       (unsigned long long)bad);
	}
	/*
	 * Its blocks were placed while it was a page-cache file, without the
	 * DAX alignment: 2 MiB pages map exactly the aligned, contiguous
	 * 2 MiB pieces FIEMAP finds, 4 KiB pages the rest.
	 */
	chunks = fiemap_aligned_chunks(self->fd[0], 0, LEN, SZ_2M);
	faults = map_and_read(_metadata, self->fd[0], &self->p[0]);
	ASSERT_NE(MAP_FAILED, self->p[0]);
	TH_LOG("switched to DAX: %ld faults for 64 MiB, %ld of 32 pieces 2 MiB-aligned",
	       faults, chunks);
	ASSERT_LE(0, chunks);
	EXPECT_LE(chunks + (32 - chunks) * 512, faults);
	EXPECT_GE(chunks + (32 - chunks) * 512 + FAULT_SLACK, faults);
	expect_dax_kb(_metadata, self->p[0], (32 - chunks) * 2048,
		      chunks * 2048);
	EXPECT_EQ(0, check_pattern(self->p[0], LEN, SZ_4K, seed, 0, NULL));
	/* write through the DAX mapping, then switch back */
	touch_write(self->p[0], LEN, SZ_4K, seed + 7, 0);
	munmap(self->p[0], LEN);
	self->p[0] = MAP_FAILED;
	ASSERT_EQ(0, set_dax_flag(self->fd[0], 0));
	close(self->fd[0]);
	self->fd[0] = -1;
	ASSERT_EQ(0, evict_inodes(self->dir));

	self->fd[0] = open(self->path[0], O_RDWR);
	ASSERT_LE(0, self->fd[0]);
	EXPECT_EQ(0, file_is_dax(self->fd[0]));
	EXPECT_EQ(0, check_file_pattern(self->fd[0], 0, LEN, SZ_4K, seed + 7,
					&bad)) {
		TH_LOG("after switching back, data differs at %#llx",
		       (unsigned long long)bad);
	}
	EXPECT_EQ(0, check_file_pattern(self->fd[0], 8, LEN - 8, SZ_4K, seed,
					&bad)) {
		TH_LOG("after switching back, pwrite data differs at %#llx",
		       (unsigned long long)bad);
	}
}

/* the faults of reading one word per 4 KiB of a 1 GiB-aligned mapping */
static long read_gib(int fd, struct dax_kb *kb)
{
	struct fault_count fc;
	char *p = map_aligned(SZ_1G, SZ_1G, PROT_READ, MAP_SHARED, fd, 0, 0);

	if (p == MAP_FAILED)
		return -1;
	fault_begin(&fc, calibrate_minflt());
	touch_read(p, SZ_1G, SZ_4K);
	fault_end(&fc);
	if (smaps_dax((unsigned long)p, kb))
		kb->pte = kb->pmd = kb->pud = -1;
	munmap(p, SZ_1G);
	return fc.min + fc.maj;
}

/* daxpages --collapse @path, from beside this binary: its exit status */
static int collapse(const char *path)
{
	char tool[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", tool, sizeof(tool) - 16);
	int status;
	pid_t pid;

	if (n <= 0)
		return -1;
	tool[n] = '\0';
	strcpy(strrchr(tool, '/'), "/daxpages");
	pid = fork();
	if (pid == 0) {
		execl(tool, "daxpages", "--collapse", path, NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/*
 * A file written through the page cache and then switched to DAX keeps the
 * blocks the page cache gave it, which no GiB of it maps by a PUD (the
 * control); `daxpages --collapse` moves it into an aligned GiB while it is
 * open, with a donor that it makes DAX by the attribute (the directory has
 * none): then one PUD (1 fault, DaxPudMapped, FIEMAP) and the data kept.
 * Access order: pwrite 1 GiB, fsync, switch, map and read, collapse, map
 * and read.
 */
TEST_F_TIMEOUT(inode, page_cache_file_collapses_to_a_pud, TIMEOUT_LONG)
{
	uint64_t seed = new_seed();
	struct dax_kb kb;
	off_t bad = 0;
	long faults;
	int fd, rc;

	RETURN_IF_SKIPPED();
	fd = open(self->path[0], O_RDWR | O_CREAT, 0644);
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, file_is_dax(fd));
	ASSERT_EQ(0, write_file_pattern(fd, 0, SZ_1G, seed));
	ASSERT_EQ(0, fsync(fd));
	ASSERT_EQ(0, set_dax_flag(fd, 1));
	close(fd);
	ASSERT_EQ(0, evict_inodes(self->dir));

	self->fd[0] = open(self->path[0], O_RDWR);
	ASSERT_LE(0, self->fd[0]);
	ASSERT_EQ(1, file_is_dax(self->fd[0]));
	ASSERT_EQ(0, fiemap_aligned_chunks(self->fd[0], 0, SZ_1G, SZ_1G));
	faults = read_gib(self->fd[0], &kb);
	TH_LOG("switched to DAX: %ld faults for 1 GiB, smaps pte %ld pmd %ld pud %ld kB, %ld of 512 2 MiB pieces aligned",
	       faults, kb.pte, kb.pmd, kb.pud,
	       fiemap_aligned_chunks(self->fd[0], 0, SZ_1G, SZ_2M));
	EXPECT_LT(1 + FAULT_SLACK, faults);
	EXPECT_EQ(0, kb.pud);

	rc = collapse(self->path[0]);
	EXPECT_EQ(0, rc);
	EXPECT_EQ(1, fiemap_aligned_chunks(self->fd[0], 0, SZ_1G, SZ_1G));
	faults = read_gib(self->fd[0], &kb);
	TH_LOG("collapsed: %ld faults for 1 GiB, smaps pte %ld pmd %ld pud %ld kB",
	       faults, kb.pte, kb.pmd, kb.pud);
	EXPECT_GE(1 + FAULT_SLACK, faults);
	EXPECT_EQ(1024 * 1024, kb.pud);
	EXPECT_EQ(0, check_file_pattern(self->fd[0], 0, SZ_1G, 64, seed,
					&bad)) {
		TH_LOG("data differs at %#llx", (unsigned long long)bad);
	}
}

TEST_HARNESS_MAIN
