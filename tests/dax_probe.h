/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dax_probe - small helpers for observing which page sizes DAX mappings get.
 *
 * Plain C, no test framework: fault counters (getrusage), fs_dax tracepoint
 * counting in a private trace instance, page table dumps (PTDUMP_DEBUGFS),
 * aligned mappings, data patterns and a few file system queries.
 *
 * Never point anything that walks VMAs (/proc/PID/smaps, pagemap, mincore)
 * at a 1 GiB (PUD) mapping: on 6.1 such a walk splits, i.e. zaps, the PUD.
 * The page table dump does not walk VMAs and is safe.
 */
#ifndef HUGEDAX_DAX_PROBE_H
#define HUGEDAX_DAX_PROBE_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <sys/types.h>

#define SZ_4K	0x1000UL
#define SZ_1M	0x100000UL
#define SZ_2M	0x200000UL
#define SZ_16M	0x1000000UL
#define SZ_64M	0x4000000UL
#define SZ_128M	0x8000000UL
#define SZ_1G	0x40000000UL

/* CLOCK_MONOTONIC in microseconds, comparable across processes. */
double now_us(void);

/* ---- page fault counters ---- */

long minflt_now(void);
long majflt_now(void);

/*
 * Warm up the stack and text a measurement uses, then return the number of
 * minor faults an empty fault_begin()/fault_end() pair reports (normally 0).
 * Call it from the function that measures, right before measuring.
 */
long calibrate_minflt(void);

/*
 * Set the number in the sysctl or sysfs file @path to @val; the old value,
 * or -1 (also for a negative old value).
 */
long knob_swap(const char *path, long val);

/*
 * The flusher's periodic writeback write-protects the mappings of dirty
 * DAX entries (a PUD's by unmapping it) at a time of its own choosing.
 * writeback_pause() stops it for tests that count refaults, returning the
 * old interval (centiseconds, -1 on error) for writeback_resume().
 */
long writeback_pause(void);
int writeback_resume(long centisecs);

struct fault_count {
	long min;	/* minor faults (after fault_end: delta minus calib) */
	long maj;	/* major faults (after fault_end: delta) */
	long calib;	/* subtracted from the minor delta */
};

void fault_begin(struct fault_count *fc, long calib);
/* Returns min + maj: a DAX PTE fault that allocates blocks counts as major. */
long fault_end(struct fault_count *fc);

/* ---- fs_dax tracepoints, counted in trace instance "hugedax" ---- */

/*
 * Enable the given events ("fs_dax/dax_pmd_fault_done", ...; NULL
 * terminated) in a fresh 16 MiB-per-CPU buffer that only records events of
 * the calling process, and turn tracing on.  0 or -1 (errno set).
 */
int trace_start(const char *const events[]);
/* Turn tracing off and disable the events again; the buffer is kept. */
int trace_stop(void);
/*
 * Number of buffered events named @event whose last token equals @suffix
 * (any if NULL).  dax_pmd_fault_done lines end with the VM_FAULT result,
 * e.g. "NOPAGE" or "FALLBACK".  -1 on error, or if the buffer lost events.
 */
long trace_count(const char *event, const char *suffix);
/* 1 if one line of the trace file matches, else 0 (exposed for tests). */
int trace_line_match(const char *line, const char *event, const char *suffix);
/*
 * The huge fault-done events end in "RESULT reason NAME" on kernels with
 * the fallback reasons (just "RESULT" before): @suffix above and @result
 * here match RESULT, @reason matches NAME; NULL matches anything.
 */
int trace_line_fields(const char *line, const char *event, const char *result,
		      const char *reason);
long trace_count_reason(const char *event, const char *result,
			const char *reason);
/*
 * Sum of the numbers after " FIELD " in the buffered events named @event
 * ("dax_writeback_one", "pglen": pages written back).  -1 (errno
 * EOVERFLOW) if the buffer lost events or an event lacks the field.
 */
long trace_sum(const char *event, const char *field);

/* ---- page table dump (/sys/kernel/debug/page_tables/current_kernel) ---- */

/* older libc headers lack these (MAP_SYNC is in Linux since 4.15) */
#ifndef MAP_SYNC
#define MAP_SYNC		0x80000
#endif
#ifndef MAP_SHARED_VALIDATE
#define MAP_SHARED_VALIDATE	0x03
#endif

enum pt_level { PT_PGD, PT_P4D, PT_PUD, PT_PMD, PT_PTE };

struct ptdump_sizes {
	unsigned long pte;	/* present bytes mapped by PTEs */
	unsigned long pmd;	/* present bytes mapped by PMD leaves */
	unsigned long pud;	/* present bytes mapped by PUD leaves */
	unsigned long upper;	/* present bytes at p4d/pgd level (never expected) */
	unsigned long absent;	/* bytes covered by non-present lines */
};

/*
 * Parse one line such as
 *   0x00007f4c00000000-0x00007f4c40000000           1G     USR RW  PSE  NX pud
 * @end is exclusive.  Returns 0, or -1 for anything that is not a range line
 * (marker lines, "... entries skipped ...", malformed lines).
 */
int ptdump_parse_line(const char *line, unsigned long *start,
		      unsigned long *end, int *present, int *level);
/* Add the part of [start, end) inside [addr, addr + len) to @s. */
void ptdump_account(struct ptdump_sizes *s, unsigned long addr,
		    unsigned long len, unsigned long start, unsigned long end,
		    int present, int level);
/* Fill @out for [addr, addr + len) of the calling process.  0 or -1. */
int ptdump_levels(unsigned long addr, unsigned long len,
		  struct ptdump_sizes *out);
/*
 * "2 x 1G + 3 x 2M" (@spaced) or "2x1G+3x2M" into @buf: the page sizes in
 * @s, largest first; "none" if nothing is mapped.
 */
void ptdump_describe(char *buf, size_t n, const struct ptdump_sizes *s,
		     int spaced);

/* ---- mappings ---- */

/*
 * mmap() at an address that is @align aligned plus @misalign, by reserving
 * len + align + misalign bytes of PROT_NONE address space, mapping over it
 * with MAP_FIXED and unmapping the rest.  MAP_FAILED on error.
 */
void *map_aligned(size_t len, size_t align, int prot, int flags, int fd,
		  off_t off, size_t misalign);

/*
 * Size in kB of @field ("Anonymous:", ...) of the VMA starting at @start,
 * from /proc/self/smaps; -1 if not found.  Not for PUD mappings (see top).
 */
long smaps_kb(unsigned long start, const char *field);

/* Read all of /proc/self/smaps @n times.  0 or -1. */
int smaps_read_all(int n);
/* Pages of [p, p + len) that mincore() reports resident, or -1. */
long mincore_resident(const void *p, size_t len);

/* What /proc/self/pagemap says of the 4 KiB pages of [p, p + len). */
struct pagemap_stats {
	size_t present;		/* pages present */
	size_t file;		/* pages file-backed (or shared) */
	size_t contiguous;	/* pages whose pfn follows the previous page's */
	uint64_t first_pfn;
};

/* 0 or -1. */
int pagemap_scan(const void *p, size_t len, struct pagemap_stats *out);

/*
 * In a child process, read (or write, if @write) one byte at @p: the
 * signal that killed the child, 0 if none did, -1 on error.
 */
int access_in_child(char *p, int write);
/*
 * In a child process, read the 8 bytes at @p through /proc/self/mem (a
 * get_user_pages(FOLL_FORCE) read, which works on PROT_NONE too), with
 * an alarm after @seconds: 0 if it read @want, 1 if something else, 2 if
 * the read failed, 128 + signal if killed (SIGALRM: it hung), -1 on error.
 */
int forced_read_in_child(const void *p, uint64_t want, unsigned int seconds);

/* ---- DAX accounting: smaps fields and /proc/vmstat counters ---- */

/* DaxPteMapped, DaxPmdMapped, DaxPudMapped in kB */
struct dax_kb {
	long pte, pmd, pud;
};

/*
 * From an smaps-format stream: the Dax* fields of the VMA starting at
 * @start, or (@all) the sum over every VMA (smaps_rollup).  0, or -1 with
 * errno ENOENT (no such VMA) or ENOTSUP (the kernel lacks the fields).
 */
int smaps_dax_parse(FILE *f, unsigned long start, int all, struct dax_kb *out);
/* The same for /proc/self/smaps and /proc/self/smaps_rollup. */
int smaps_dax(unsigned long start, struct dax_kb *out);
int smaps_rollup_dax(struct dax_kb *out);

/* The dax_* huge fault counters of /proc/vmstat (system wide). */
struct dax_vmstat {
	long pmd, pmd_fallback, pud, pud_fallback;
};

/* 0, or -1 with errno ENOTSUP if a counter is missing. */
int dax_vmstat_parse(FILE *f, struct dax_vmstat *out);
int dax_vmstat_read(struct dax_vmstat *out);
/* d = after - before */
void dax_vmstat_delta(struct dax_vmstat *d, const struct dax_vmstat *before,
		      const struct dax_vmstat *after);

/* ---- data patterns ---- */

/* Non-zero 64-bit value for the word at file offset @file_off. */
uint64_t pattern_word(uint64_t seed, uint64_t file_off);
/* Write the pattern into every 8-byte word of p[0, len). */
void fill_pattern(void *p, size_t len, uint64_t seed, off_t file_off);
/*
 * Check the word at p + i for i = 0, step, 2 * step, ... < len.  0 if all
 * match, else -1 with the first bad i in *bad (if @bad).
 */
int check_pattern(const void *p, size_t len, size_t step, uint64_t seed,
		  off_t file_off, size_t *bad);
/* Read / write one word every @step bytes. */
uint64_t touch_read(const void *p, size_t len, size_t step);
void touch_write(void *p, size_t len, size_t step, uint64_t seed,
		 off_t file_off);

/*
 * Create @path anew and append @len bytes of the pattern of @seed to it in
 * write()s of @piece bytes (O_APPEND; the last may be shorter).  0 or -1.
 */
int append_file_pattern(const char *path, size_t len, size_t piece,
			uint64_t seed);
/* pwrite() the full pattern into [off, off + len) in 2 MiB pieces. */
int write_file_pattern(int fd, off_t off, size_t len, uint64_t seed);
/* pread() [off, off + len) and check_pattern() it; *bad is a file offset. */
int check_file_pattern(int fd, off_t off, size_t len, size_t step,
		       uint64_t seed, off_t *bad);

/* ---- file systems ---- */

/*
 * Find the mount whose mount point is @dir: file system type into @fstype,
 * *dax = 1 if mounted with "dax" or "dax=always".  0, or -1 if not a mount
 * point.
 */
int mount_of(const char *dir, char *fstype, size_t n, int *dax);
/* 1 if the file is in DAX mode (statx), 0 if not, -1 if unknown. */
int file_is_dax(int fd);
/* fallocate(fd, 0, ...) [0, len) in pieces of @chunk bytes. */
int falloc_chunked(int fd, off_t len, off_t chunk);
/*
 * FIEMAP: how many @chunk-aligned @chunk-sized pieces of [off, off + len)
 * lie inside one run of extents, contiguous in the file and on the device,
 * whose physical address is congruent to the file offset modulo @chunk,
 * i.e. could be mapped by a huge page of that size.  (ext2 reports an
 * extent per indirect block, however contiguous the blocks are.)
 * -1 on error.
 */
long fiemap_aligned_chunks(int fd, off_t off, off_t len, unsigned long chunk);

/* Write @val ("off", "pmd", "pud") to the global dax_align knob; 0 or -1. */
int dax_align_knob(const char *val);

/*
 * For failure messages: the first extents of the file as
 * "logical+length@physical" (bytes, hex), " ..." if there are more.
 */
int fiemap_describe(int fd, char *buf, size_t n);

/*
 * For failure messages: the runs of entirely free block groups of the ext4
 * file system on /dev/@dev ("pmem0"), from /proc/fs/ext4/DEV/mb_groups,
 * e.g. "40-47 56-63".  A group counts as entirely free when its free count
 * is the largest of all.  0 or -1.
 */
int ext4_free_groups_describe(const char *dev, char *buf, size_t n);

/*
 * fallocate() @piece bytes at a time past the end of @path (created if
 * need be) until ENOSPC: 0 once full, -1 on another error.
 */
int fallocate_until_full(const char *path, off_t piece);

/*
 * Free space in a pattern: in every @period bytes of the device (a power
 * of two) that one extent of @fd covers from @start to @end, punch that
 * range out of @fd; at most @max ranges if @max.  The number of ranges
 * punched, or -1.
 */
int punch_device_runs(int fd, uint64_t period, uint64_t start, uint64_t end,
		      int max);

/*
 * Punch out of @fd what it maps at device bytes [@start, @start + @len);
 * 0, or -1 (ENOENT if @fd does not map all of that range).
 */
int punch_device_range(int fd, uint64_t start, uint64_t len);

/*
 * Free whole GiBs: punch out of @fd its ranges on up to @max 1 GiB-aligned
 * GiBs of the device that its extents cover entirely (so no metadata sits
 * there), lowest first, storing their device byte addresses in @gibs.  The
 * number of GiBs freed, or -1.
 */
int punch_device_gibs(int fd, int max, uint64_t *gibs);

/* Bytes of @fd that FIEMAP maps into [@start, @start + @len) of the device. */
long long fiemap_device_bytes(int fd, uint64_t start, uint64_t len);

/* Physical (device) byte address of file offset 0, from FIEMAP.  0 or -1. */
int fiemap_first_physical(int fd, uint64_t *phys);

/* Device byte address of file offset @off (FIEMAP), or 0 if unmapped. */
uint64_t fiemap_physical_at(int fd, off_t off);

/* Extents of @fd that start below byte @end (FIEMAP, at most 128), or -1. */
int fiemap_extents_below(int fd, uint64_t end);

/*
 * EXT4_IOC_MOVE_EXT: move @len bytes of @fd at @off into the blocks of
 * @donor at @donor_off (byte offsets, multiples of 4 KiB).  0 or -1; the
 * bytes moved in *moved (if @moved).
 */
int ext4_move_ext(int fd, int donor, uint64_t off, uint64_t donor_off,
		  uint64_t len, uint64_t *moved);
/*
 * Move [0, len) of the ext4 DAX file @fd 4 KiB past the start of aligned
 * space (a donor in @dir fallocated in GiBs), so that none of its 2 MiB
 * ranges can be mapped by a huge page.  0 or -1.
 */
int shift_off_alignment(int fd, const char *dir, size_t len);

/* The name of the block device under @path ("pmem0"), or "" in @buf. */
void block_dev_name(const char *path, char *buf, size_t n);

#endif /* HUGEDAX_DAX_PROBE_H */
