// SPDX-License-Identifier: GPL-2.0
/*
 * dax_align: /sys/kernel/mm/transparent_hugepage/dax_align and the
 * dax_align= mount option of ext4 and xfs lower the largest page a DAX
 * file gets; with "pmd" an msync() after a 4 KiB store writes back 2 MiB,
 * not the 1 GiB of a PUD entry.
 *
 * Each variant fallocates a 1 GiB file on the fresh file system of the
 * test job (skipped if no aligned free GiB is left) and, in this order:
 *  1. default setting: writes one word per 4 KiB through a 1 GiB-aligned
 *     shared mapping (the first write fault zeroes and maps the GiB), then
 *     msyncs 4 KiB: one PUD (page-table dump, fault count, no "disabled"
 *     fallback), 1 GiB written back (dax_writeback_one pglen sum): the
 *     negative control of what follows;
 *  2. unmaps, closes, unmounts and mounts the file system again (a DAX
 *     file's cached entries, whose size is the unit of dirty tracking, go
 *     only with its inode), lowers the setting (remount or sysfs), reopens,
 *     and reads the file through a new 1 GiB-aligned mapping: 512 PMDs by
 *     both signals, one PUD fault that fell back with reason "disabled",
 *     and the data of step 1;
 *  3. stores 4 KiB and msyncs it: 512 pages (2 MiB) written back.
 * The teardown puts the default setting back.
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

#define KNOB	"/sys/kernel/mm/transparent_hugepage/dax_align"

static const char *const events[] = {
	"fs_dax/dax_pmd_fault_done",
	"fs_dax/dax_pud_fault_done",
	"fs_dax/dax_writeback_one",
	NULL,
};

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	n = n < 0 ? -errno : 0;
	close(fd);
	return n;
}

static int read_str(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

/* source, type and options (",a,b,") of the mount at @dir, /proc/mounts */
static int mount_entry(const char *dir, char src[256], char type[64],
		       char *opts, size_t len)
{
	char s[256], mnt[256], t[64], o[1024];
	int found = -ENOENT;
	FILE *f = fopen("/proc/mounts", "re");

	if (!f)
		return -errno;
	while (fscanf(f, "%255s %255s %63s %1023s %*d %*d", s, mnt, t, o) == 4)
		if (!strcmp(mnt, dir)) {
			memcpy(src, s, 256);
			memcpy(type, t, 64);
			snprintf(opts, len, ",%s,", o);
			found = 0;
		}
	fclose(f);
	return found;
}

/*
 * Unmount @dir and mount it again with "dax": a DAX file's cached entries
 * (their size is the unit of dirty tracking) go only with its inode, and
 * an inode with entries stays cached until then.
 */
static int mount_again(const char *dir)
{
	char src[256], type[64], opts[1100];

	if (mount_entry(dir, src, type, opts, sizeof(opts)) ||
	    umount(dir) || mount(src, dir, type, 0, "dax"))
		return -1;
	return 0;
}

TEST(sysfs_takes_pud_pmd_off_only)
{
	char buf[64];

	ASSERT_EQ(0, read_str(KNOB, buf, sizeof(buf)))
		TH_LOG("no %s: the kernel lacks dax_align", KNOB);
	EXPECT_STREQ("[pud] pmd off\n", buf);
	ASSERT_EQ(0, write_str(KNOB, "pmd"));
	ASSERT_EQ(0, read_str(KNOB, buf, sizeof(buf)));
	EXPECT_STREQ("pud [pmd] off\n", buf);
	ASSERT_EQ(0, write_str(KNOB, "off\n"));
	ASSERT_EQ(0, read_str(KNOB, buf, sizeof(buf)));
	EXPECT_STREQ("pud pmd [off]\n", buf);
	/* bad input: EINVAL, and the setting stays */
	EXPECT_EQ(-EINVAL, write_str(KNOB, "1g"));
	EXPECT_EQ(-EINVAL, write_str(KNOB, "\n"));
	EXPECT_EQ(-EINVAL, write_str(KNOB, "pudding"));
	ASSERT_EQ(0, read_str(KNOB, buf, sizeof(buf)));
	EXPECT_STREQ("pud pmd [off]\n", buf);
	ASSERT_EQ(0, write_str(KNOB, "pud"));
	ASSERT_EQ(0, read_str(KNOB, buf, sizeof(buf)));
	EXPECT_STREQ("[pud] pmd off\n", buf);
}

FIXTURE(limit) {
	char dir[256];
	char path[320];
	uint64_t seed;
	long writeback;
	int fd;
};

FIXTURE_VARIANT(limit) {
	const char *fs;		/* "ext4" or "xfs" */
	int by_sysfs;		/* the global setting, else the mount option */
	const char *value;	/* "pmd" or "off" */
};

FIXTURE_VARIANT_ADD(limit, ext4_mount_pmd) {
	.fs = "ext4", .by_sysfs = 0, .value = "pmd",
};

FIXTURE_VARIANT_ADD(limit, xfs_mount_pmd) {
	.fs = "xfs", .by_sysfs = 0, .value = "pmd",
};

FIXTURE_VARIANT_ADD(limit, ext4_sysfs_pmd) {
	.fs = "ext4", .by_sysfs = 1, .value = "pmd",
};

FIXTURE_VARIANT_ADD(limit, xfs_mount_off) {
	.fs = "xfs", .by_sysfs = 0, .value = "off",
};

FIXTURE_SETUP(limit)
{
	const char *dir = !strcmp(variant->fs, "ext4") ?
		env_or("HUGEDAX_EXT4", "/mnt/ext4") :
		env_or("HUGEDAX_XFS", "/mnt/xfs");

	snprintf(self->dir, sizeof(self->dir), "%s", dir);
	snprintf(self->path, sizeof(self->path), "%s/dax_align.%d", dir,
		 (int)getpid());
	self->seed = new_seed();
	self->writeback = writeback_pause();
	self->fd = open(self->path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, fallocate(self->fd, 0, 0, SZ_1G));
	if (fiemap_aligned_chunks(self->fd, 0, SZ_1G, SZ_1G) != 1)
		SKIP(return, "no 1 GiB-aligned extent left on %s", dir);
}

FIXTURE_TEARDOWN(limit)
{
	write_str(KNOB, "pud");
	mount(NULL, self->dir, NULL, MS_REMOUNT, "dax_align=pud");
	if (self->fd >= 0)
		close(self->fd);
	unlink(self->path);
	writeback_resume(self->writeback);
}

/* msync() the 4 KiB at @off of @p: how many pages were written back? */
static long msync_pages(struct __test_metadata *_metadata, char *p, off_t off)
{
	long pages;

	start_tracing(_metadata, events);
	EXPECT_EQ(0, msync(p + off, SZ_4K, MS_SYNC));
	stop_tracing(_metadata);
	pages = trace_sum("dax_writeback_one", "pglen");
	TH_LOG("msync of 4 KiB at %#lx wrote back %ld pages", (long)off, pages);
	return pages;
}

TEST_F_TIMEOUT(limit, pud_by_default_pmd_once_lowered, 2 * TIMEOUT_LONG)
{
	char opts[1100], want[32], src[256], type[64];
	struct fault_count fc;
	size_t bad = 0;
	char *p;

	/* 1. default: a PUD, and msync writes back all of it */
	p = map_aligned(SZ_1G, SZ_1G, PROT_READ | PROT_WRITE, MAP_SHARED,
			self->fd, 0, 0);
	ASSERT_NE(MAP_FAILED, p);
	traced_touch(_metadata, events, &fc, p, SZ_1G, SZ_4K, true,
		     self->seed, 0);
	expect_faults(_metadata, "default, write", &fc, 1);
	expect_levels(_metadata, p, SZ_1G, 0, 0, SZ_1G);
	EXPECT_EQ(1, trace_count("dax_pud_fault_done", "NOPAGE"));
	EXPECT_EQ(0, trace_count_reason("dax_pud_fault_done", NULL,
					"disabled"));
	EXPECT_EQ((long)(SZ_1G / SZ_4K), msync_pages(_metadata, p, 4 * SZ_1M));
	ASSERT_EQ(0, munmap(p, SZ_1G));
	ASSERT_EQ(0, fsync(self->fd));
	ASSERT_EQ(0, close(self->fd));
	self->fd = -1;

	/* 2. lowered: PMDs, one PUD fault refused as "disabled" */
	ASSERT_EQ(0, mount_again(self->dir));
	if (variant->by_sysfs) {
		ASSERT_EQ(0, write_str(KNOB, variant->value));
	} else {
		snprintf(want, sizeof(want), "dax_align=%s", variant->value);
		ASSERT_EQ(0, mount(NULL, self->dir, NULL, MS_REMOUNT, want));
		ASSERT_EQ(0, mount_entry(self->dir, src, type, opts,
					 sizeof(opts)));
		snprintf(want, sizeof(want), ",dax_align=%s,", variant->value);
		EXPECT_NE(NULL, strstr(opts, want))
			TH_LOG("%s: options %s", self->dir, opts);
	}
	self->fd = open(self->path, O_RDWR);
	ASSERT_LE(0, self->fd);
	p = map_aligned(SZ_1G, SZ_1G, PROT_READ | PROT_WRITE, MAP_SHARED,
			self->fd, 0, 0);
	ASSERT_NE(MAP_FAILED, p);
	traced_touch(_metadata, events, &fc, p, SZ_1G, SZ_4K, false, 0, 0);
	expect_faults(_metadata, "lowered, read", &fc, SZ_1G / SZ_2M);
	expect_levels(_metadata, p, SZ_1G, 0, SZ_1G, 0);
	EXPECT_EQ((long)(SZ_1G / SZ_2M),
		  trace_count("dax_pmd_fault_done", "NOPAGE"));
	EXPECT_EQ(1, trace_count_reason("dax_pud_fault_done", "FALLBACK",
					"disabled"));
	EXPECT_EQ(0, check_pattern(p, SZ_1G, SZ_4K, self->seed, 0, &bad))
		TH_LOG("wrong data at %#zx", bad);

	/* 3. a 4 KiB store, msync: one PMD's worth written back */
	p[4 * SZ_1M + 8] ^= 0x5a;
	EXPECT_EQ((long)(SZ_2M / SZ_4K), msync_pages(_metadata, p, 4 * SZ_1M));
	p[4 * SZ_1M + 8] ^= 0x5a;
	ASSERT_EQ(0, munmap(p, SZ_1G));
}

TEST_HARNESS_MAIN
