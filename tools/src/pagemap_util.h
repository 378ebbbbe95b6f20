/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemctl pagemap: the parts that need no kernel (argument and
 * /proc/PID/maps parsing, the summary counts), kept apart so that the
 * host unit tests can reach them.
 */
#ifndef KMEMCTL_PAGEMAP_UTIL_H
#define KMEMCTL_PAGEMAP_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "kmem_ro.h"

/*
 * PID: "self" or decimal digits (0 .. INT_MAX; 0 means the caller, as
 * the ioctl takes it).  -EINVAL for anything else (signs, blanks, hex).
 */
int pm_parse_pid(const char *s, pid_t *pid);

/*
 * START-END: two hex numbers, each with an optional 0x (as /proc/PID/maps
 * prints them, or as kmemctl does), 1 to 16 significant digits, joined by
 * '-' with no blanks.  START must be below END; the range is then widened
 * to whole pages of @page_size (a power of two): START rounded down, END
 * up.  Returns 0, -EINVAL (malformed, empty or reversed) or -ERANGE (a
 * number above 64 bits, or END rounded up past 2^64).
 */
int pm_parse_range(const char *s, uint64_t page_size, uint64_t *start,
		   uint64_t *end);

/* One line of /proc/PID/maps. */
struct pm_vma {
	uint64_t start;
	uint64_t end;
	char perms[5];		/* "rw-p" */
	uint64_t offset;
	const char *path;	/* into the line: "" for anonymous memory */
};

/*
 * Parse "START-END PERMS OFFSET DEV INODE [PATH]" (the newline, if any,
 * is cut off in place).  -EINVAL when the line does not look like that.
 */
int pm_parse_maps_line(char *line, struct pm_vma *v);

/* Counts of kmemctl pagemap --summary, in pages unless said otherwise. */
struct pm_summary {
	uint64_t runs;
	uint64_t pages;
	uint64_t present;
	uint64_t swapped;
	uint64_t file;		/* the file bit: file pages, shared anon */
	uint64_t anon;		/* present and not file */
	uint64_t exclusive;
	uint64_t soft_dirty;
	uint64_t uffd_wp;
	uint64_t pmd_runs;	/* present runs of >= pmd_pages at a PFN
				 * multiple of pmd_pages */
	uint64_t hidden;	/* present pages whose PFN reads as 0 */
};

/*
 * Add @n runs to @s.  @pmd_pages: pages in a PMD (512 with 4 KiB pages);
 * 0 counts no pmd-sized run.
 */
void pm_summary_add(struct pm_summary *s, const struct kmem_ro_pagemap_run *r,
		    size_t n, uint64_t pmd_pages);

#endif /* KMEMCTL_PAGEMAP_UTIL_H */
