// SPDX-License-Identifier: GPL-2.0
/*
 * pstore_dax_test - a panic's record survives the reboot in a pstore/dax
 * file (scripts/run-pstore.sh, guest/pstore-crash-job.sh and
 * guest/pstore-verify-job.sh).
 *
 *   pstore_dax_test prepare    first boot: on ext4 and xfs, a written 1 MiB
 *                              hugedax.pstore and a 4 MiB hugedax.neighbour
 *                              with a pattern; the job then registers one
 *                              pstore file, logs the marker and panics
 *   pstore_dax_test            second boot, after the job registered the
 *                              same file again: the checks below
 *
 * Environment: PSTORE_FS (ext4 or xfs: the file that was registered),
 * PSTORE_MARKER (a number, logged as "hugedax-pstore: marker N" before the
 * panic; also the neighbours' pattern seed), PSTORE_CRASH_LOG (the first
 * boot's console, copied by the host).
 */
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <sys/stat.h>

#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"
#include "dax_checks.h"

#define PSTORE_DIR	"/sys/fs/pstore"
#define RECORD_SIZE	SZ_1M
#define NEIGHBOUR_SIZE	(4 * SZ_1M)
#define PANIC_LINE	"Kernel panic - not syncing: sysrq triggered crash"

static const char *const filesystems[] = { "ext4", "xfs" };

static uint64_t marker(void)
{
	return strtoull(env_or("PSTORE_MARKER", "0"), NULL, 10);
}

static void marker_line(char *buf, size_t n)
{
	snprintf(buf, n, "hugedax-pstore: marker %" PRIu64, marker());
}

/* the whole of a small file, NUL-terminated; NULL on error */
static char *slurp(const char *path, size_t *lenp)
{
	size_t cap = 1 << 16, len = 0;
	char *buf = malloc(cap + 1);
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || !buf) {
		free(buf);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	while ((n = read(fd, buf + len, cap - len)) > 0) {
		len += n;
		if (len == cap) {
			char *more = realloc(buf, 2 * cap + 1);

			if (!more)
				break;
			buf = more;
			cap *= 2;
		}
	}
	close(fd);
	buf[len] = '\0';
	if (lenp)
		*lenp = len;
	return buf;
}

static int contains(const char *buf, size_t len, const char *s)
{
	return memmem(buf, len, s, strlen(s)) != NULL;
}

/* does a record named PREFIX* in /sys/fs/pstore hold all of @want? */
static int pstore_record_with(const char *prefix, const char *const want[],
			      int nwant, char *name, size_t n)
{
	struct dirent *de;
	int found = 0;
	DIR *d = opendir(PSTORE_DIR);

	if (!d)
		return -1;
	while (!found && (de = readdir(d))) {
		char path[512];
		size_t len;
		char *buf;
		int i;

		if (strncmp(de->d_name, prefix, strlen(prefix)))
			continue;
		snprintf(path, sizeof(path), "%s/%s", PSTORE_DIR, de->d_name);
		buf = slurp(path, &len);
		if (!buf)
			continue;
		for (found = 1, i = 0; i < nwant; i++)
			found &= contains(buf, len, want[i]);
		if (found)
			snprintf(name, n, "%s", de->d_name);
		free(buf);
	}
	closedir(d);
	return found;
}

static int prepare(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(filesystems); i++) {
		char path[128], zero[4096] = { 0 };
		unsigned long off;
		int fd;

		snprintf(path, sizeof(path), "/mnt/%s/hugedax.pstore",
			 filesystems[i]);
		fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (fd < 0)
			return 1;
		for (off = 0; off < RECORD_SIZE; off += sizeof(zero))
			if (pwrite(fd, zero, sizeof(zero), off) != sizeof(zero))
				return 1;
		if (fsync(fd))
			return 1;
		close(fd);
		snprintf(path, sizeof(path), "/mnt/%s/hugedax.neighbour",
			 filesystems[i]);
		fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (fd < 0 || write_file_pattern(fd, 0, NEIGHBOUR_SIZE, marker()) ||
		    fsync(fd))
			return 1;
		close(fd);
	}
	printf("prepared pstore files on ext4 and xfs\n");
	return 0;
}

FIXTURE(crashed) {
	char fs[8];
	char other[8];
	char line[80];
};

FIXTURE_SETUP(crashed)
{
	const char *fs = env_or("PSTORE_FS", "");

	if (strcmp(fs, "ext4") && strcmp(fs, "xfs"))
		SKIP(return, "PSTORE_FS names no filesystem");
	snprintf(self->fs, sizeof(self->fs), "%s", fs);
	snprintf(self->other, sizeof(self->other), "%s",
		 strcmp(fs, "ext4") ? "ext4" : "xfs");
	marker_line(self->line, sizeof(self->line));
	ASSERT_NE(0ULL, (unsigned long long)marker());
}

FIXTURE_TEARDOWN(crashed)
{
}

/* the first boot logged the marker, and panicked without other trouble */
TEST_F(crashed, first_boot_panicked)
{
	size_t len;
	char *log;

	RETURN_IF_SKIPPED();
	log = slurp(env_or("PSTORE_CRASH_LOG", "/mnt/out/crash-console.log"), &len);
	ASSERT_NE(NULL, log);
	EXPECT_TRUE(contains(log, len, self->line));
	EXPECT_TRUE(contains(log, len, PANIC_LINE));
	EXPECT_FALSE(contains(log, len, "WARNING: CPU"));
	EXPECT_FALSE(contains(log, len, "BUG:"));
	EXPECT_FALSE(contains(log, len, "Oops"));
	free(log);
}

/* pstore shows the panic's dmesg record, with the marker logged before it */
TEST_F(crashed, pstore_has_panic_record)
{
	const char *want[] = { self->line, PANIC_LINE, "Panic" };
	const char *never[] = { "hugedax-pstore: marker 0" };
	char name[256] = "";

	RETURN_IF_SKIPPED();
	EXPECT_EQ(1, pstore_record_with("dmesg-", want, 3, name, sizeof(name)))
		TH_LOG("no dmesg record in %s holds \"%s\" and the panic",
		       PSTORE_DIR, self->line);
	TH_LOG("%s: %s", self->fs, name);
	/* negative control: nothing logged a marker 0 */
	EXPECT_EQ(0, pstore_record_with("dmesg-", never, 1, name, sizeof(name)));
}

/*
 * The console record has the marker.  (Not the panic: pstore/zone stops
 * writing the console once the panic's dmesg record is being written.)
 */
TEST_F(crashed, pstore_has_console_record)
{
	const char *want[] = { self->line };
	char name[256] = "";
	struct dirent *de;
	DIR *d;

	RETURN_IF_SKIPPED();
	EXPECT_EQ(1, pstore_record_with("console-", want, 1, name, sizeof(name)));
	if (!_metadata->passed) {
		d = opendir(PSTORE_DIR);
		while (d && (de = readdir(d)))
			TH_LOG("in %s: %s", PSTORE_DIR, de->d_name);
		if (d)
			closedir(d);
	}
}

/* the file itself holds the record; the other filesystem's file does not */
TEST_F(crashed, file_holds_record)
{
	char path[128];
	size_t len;
	char *buf;

	RETURN_IF_SKIPPED();
	snprintf(path, sizeof(path), "/mnt/%s/hugedax.pstore", self->fs);
	buf = slurp(path, &len);
	ASSERT_NE(NULL, buf);
	EXPECT_EQ((size_t)RECORD_SIZE, len);
	EXPECT_TRUE(contains(buf, len, self->line));
	EXPECT_TRUE(contains(buf, len, PANIC_LINE));
	free(buf);

	snprintf(path, sizeof(path), "/mnt/%s/hugedax.pstore", self->other);
	buf = slurp(path, &len);
	ASSERT_NE(NULL, buf);
	EXPECT_EQ((size_t)RECORD_SIZE, len);
	EXPECT_FALSE(contains(buf, len, self->line));
	EXPECT_FALSE(contains(buf, len, PANIC_LINE));
	free(buf);
}

/* the files beside it, on both filesystems, kept their data */
TEST_F(crashed, neighbours_intact)
{
	unsigned int i;

	RETURN_IF_SKIPPED();
	for (i = 0; i < ARRAY_SIZE(filesystems); i++) {
		char path[128];
		off_t bad = 0;
		int fd;

		snprintf(path, sizeof(path), "/mnt/%s/hugedax.neighbour",
			 filesystems[i]);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		ASSERT_LE(0, fd);
		EXPECT_EQ(0, check_file_pattern(fd, 0, NEIGHBOUR_SIZE, 8,
						marker(), &bad))
			TH_LOG("%s: bad data at %lld", path, (long long)bad);
		close(fd);
	}
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "prepare"))
		return prepare();
	return test_harness_run(argc, argv);
}
