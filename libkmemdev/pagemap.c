// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * KMEM_RO_IOC_PAGEMAP: page-table entries of a process for exactly
 * [start, end), one call at a time or as a whole list of runs, and the
 * expansion of a run back to /proc/PID/pagemap entries.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "internal.h"

/* First buffer of kmemdev_pagemap_runs(), in runs (8 KiB). */
#define PAGEMAP_INITIAL_RUNS	256

/* Frame step per page: PFNs count up by one, swap offsets above the type. */
#define PAGEMAP_SWAP_STEP	(1ULL << 5)

int kmemdev_pagemap(struct kmemdev *h, struct kmem_ro_pagemap *arg)
{
	int err;

	if (!h || !arg)
		return -EINVAL;
	err = kmemdev__arg_size(arg->size, KMEM_RO_PAGEMAP_SIZE_VER0);
	if (err)
		return err;
	err = kmemdev__feature(h, KMEM_RO_FEAT_PAGEMAP);
	if (err)
		return err;
	/* EINTR: killed while waiting for the mmap lock; nothing written. */
	do
		err = ioctl(h->fd, KMEM_RO_IOC_PAGEMAP, arg);
	while (err < 0 && errno == EINTR);
	return err < 0 ? -errno : 0;
}

static uint64_t frame_step(const struct kmem_ro_pagemap_run *run)
{
	if (!run->frame)
		return 0;
	if (run->flags & KMEM_RO_PM_PRESENT)
		return 1;
	if (run->flags & KMEM_RO_PM_SWAP)
		return PAGEMAP_SWAP_STEP;
	return 0;
}

static uint64_t page_size(void)
{
	/* glibc answers from the auxiliary vector: no system call */
	long ps = sysconf(_SC_PAGESIZE);

	return ps > 0 ? (uint64_t)ps : 4096;
}

uint64_t kmemdev_pagemap_entry(const struct kmem_ro_pagemap_run *run,
			       uint64_t addr)
{
	uint64_t idx;

	if (!run || addr < run->start)
		return 0;
	idx = (addr - run->start) / page_size();
	if (idx >= run->pages)
		return 0;
	return ((run->frame + idx * frame_step(run)) & KMEM_RO_PM_FRAME_MASK) |
	       (run->flags & ~KMEM_RO_PM_FRAME_MASK);
}

/*
 * Does @next continue @prev page for page, as if one call had described
 * both?  The driver never splits a run between calls, but the process may
 * have changed in between; merging keeps the result canonical.
 */
static bool continues(const struct kmem_ro_pagemap_run *prev,
		      const struct kmem_ro_pagemap_run *next, uint64_t psize)
{
	return prev->flags == next->flags &&
	       prev->start + prev->pages * psize == next->start &&
	       ((prev->frame + prev->pages * frame_step(prev)) &
		KMEM_RO_PM_FRAME_MASK) == next->frame &&
	       frame_step(prev) == frame_step(next);
}

/* Check one answer: runs back to back from @from to walk_end. */
static int check_answer(const struct kmem_ro_pagemap *a,
			const struct kmem_ro_pagemap_run *r, uint64_t room,
			uint64_t from, uint64_t end, uint64_t psize)
{
	uint64_t pos = from, i;

	if (!a->count || a->count > room || a->walk_end <= from ||
	    a->walk_end > end)
		return -EPROTO;
	for (i = 0; i < a->count; i++) {
		if (r[i].start != pos || !r[i].pages ||
		    r[i].pages > (a->walk_end - pos) / psize)
			return -EPROTO;
		pos += r[i].pages * psize;
	}
	return pos == a->walk_end ? 0 : -EPROTO;
}

int kmemdev_pagemap_runs(struct kmemdev *h, pid_t pid, uint64_t start,
			 uint64_t end, struct kmem_ro_pagemap_run **runs,
			 size_t *count)
{
	struct kmem_ro_pagemap_run *buf = NULL, *p;
	size_t cap = 0, n = 0;
	uint64_t psize, pos = start;
	int err = 0;

	if (runs)
		*runs = NULL;
	if (count)
		*count = 0;
	if (!h || !runs || !count || pid < 0 || start >= end)
		return -EINVAL;
	err = kmemdev__feature(h, KMEM_RO_FEAT_PAGEMAP);
	if (err)
		return err;
	psize = h->info.page_size ? h->info.page_size : page_size();

	while (pos < end) {
		KMEMDEV_ARG(kmem_ro_pagemap, a,
			.flags = KMEM_RO_PAGEMAP_RUNS,
			.pid = (uint32_t)pid,
			.start = pos,
			.end = end,
		);
		size_t i = 0;

		/* Keep at least half the buffer free for each call. */
		if (cap - n < cap / 2 || cap == n) {
			size_t ncap = cap ? cap * 2 : PAGEMAP_INITIAL_RUNS;

			if (ncap > SIZE_MAX / sizeof(*buf)) {
				err = -ENOMEM;
				break;
			}
			p = realloc(buf, ncap * sizeof(*buf));
			if (!p) {
				err = -ENOMEM;
				break;
			}
			buf = p;
			cap = ncap;
		}
		a.buf_addr = (uintptr_t)(buf + n);
		a.buf_size = (uint64_t)(cap - n) * sizeof(*buf);
		err = kmemdev_pagemap(h, &a);
		if (!err)
			err = check_answer(&a, buf + n, cap - n, pos, end, psize);
		if (err)
			break;
		if (n && continues(&buf[n - 1], &buf[n], psize)) {
			buf[n - 1].pages += buf[n].pages;
			i = 1;
		}
		/* close the gap the merge left */
		if (i && a.count > 1)
			memmove(buf + n, buf + n + 1,
				(size_t)(a.count - 1) * sizeof(*buf));
		n += (size_t)a.count - i;
		pos = a.walk_end;
	}
	if (err) {
		free(buf);
		return err;
	}
	*runs = buf;
	*count = n;
	return 0;
}
