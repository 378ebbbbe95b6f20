// SPDX-License-Identifier: GPL-2.0
/* The copy ps_bench times as the physical limit: see ps_copy.h. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "ps_copy.h"

int ps_snap_copy(struct ps_snap *s, const struct ps_snap *from)
{
	uint32_t lo = from->next_off, hi = from->next_off + 8, slot;
	size_t n = from->nr, i;
	unsigned int k;
	uint64_t link;
	int err;

	if (from->fields != PS_FIELDS_PID_COMM || !n)
		return -EOPNOTSUPP;
	for (k = 0; k < from->nf; k++) {
		if (from->f[k].off < lo)
			lo = from->f[k].off;
		if (from->f[k].off + from->f[k].size > hi)
			hi = from->f[k].off + from->f[k].size;
	}
	memset(s, 0, sizeof(*s));
	memcpy(s, from, offsetof(struct ps_snap, task));
	s->h = NULL;
	s->backend = PS_BACKEND_COPY;
	/* slot i + 1 holds task i, slot 0 init_task: touched span plus alignment */
	slot = (hi - lo + 64 + 63) & ~63U;
	s->copy = aligned_alloc(64, (n + 1) * slot);
	s->rec = malloc(s->rec_size + 8);
	if (!s->copy || !s->rec) {
		ps_snap_fini(s);
		return -ENOMEM;
	}
	memset(s->copy, 0, (n + 1) * slot);
	/* a node's copy: its span in slot i, as far into a cache line as in the kernel */
#define COPY_NODE(i, kaddr) \
	((uintptr_t)s->copy + (size_t)(i) * slot + ((kaddr) + lo) % 64 - lo)
	s->init_task = COPY_NODE(0, from->init_task);
	for (i = 0; i <= n; i++) {
		uint64_t kaddr = i ? from->task[i - 1].addr : from->init_task;
		uintptr_t node = COPY_NODE(i, kaddr);

		for (k = 0; i && k < from->nf; k++) {
			err = kmemdev_read(from->h, kaddr + from->f[k].off,
					   (void *)(node + from->f[k].off),
					   from->f[k].size);
			if (err) {
				ps_snap_fini(s);
				return err;
			}
		}
		/* the link to the next node's copy, or back to the head */
		link = (i < n ? COPY_NODE(i + 1, from->task[i].addr) : s->init_task) +
		       from->tasks_off;
		memcpy((void *)(node + from->next_off), &link, 8);
	}
#undef COPY_NODE
	return 0;
}
