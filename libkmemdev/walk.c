// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * KMEM_RO_IOC_WALK: gather fields from every node of a kernel list in the
 * driver, plus a loop that resumes a walk until it is complete.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/ioctl.h>

#include "internal.h"

/* First buffer of kmemdev_walk_all() when the caller brings none. */
#define WALK_INITIAL_BUF	(64U << 10)

int kmemdev_walk(struct kmemdev *h, struct kmem_ro_walk *w)
{
	int err;

	if (!h || !w)
		return -EINVAL;
	err = kmemdev__arg_size(w->size, KMEM_RO_WALK_SIZE_VER0);
	if (err)
		return err;
	err = kmemdev__feature(h, KMEM_RO_FEAT_WALK);
	if (err)
		return err;
	/* EINTR: a signal before any node, nothing written; same call again. */
	do
		err = ioctl(h->fd, KMEM_RO_IOC_WALK, w);
	while (err < 0 && errno == EINTR);
	return err < 0 ? -errno : 0;
}

/* Bytes of one record: node address (optional) plus every field. */
static int record_size(const struct kmem_ro_walk *w, uint64_t *size)
{
	const struct kmem_ro_field *f =
		(const struct kmem_ro_field *)(uintptr_t)w->fields_addr;
	uint64_t sz = (w->flags & KMEM_RO_WALK_NODE_ADDR) ? 8 : 0;
	uint32_t i;

	if (!f || !w->fields_count || w->fields_count > KMEM_RO_WALK_MAX_FIELDS)
		return -EINVAL;
	for (i = 0; i < w->fields_count; i++)
		sz += f[i].len;
	*size = sz;
	return 0;
}

/* At least double *buf (or allocate it), to room for two more records. */
static int grow(void **buf, size_t *cap, size_t used, uint64_t rec)
{
	size_t ncap = *cap ? *cap : WALK_INITIAL_BUF / 2;
	void *p;

	do {
		if (ncap > SIZE_MAX / 2)
			return -ENOMEM;
		ncap *= 2;
	} while (ncap - used < 2 * rec);
	p = realloc(*buf, ncap);
	if (!p)
		return -ENOMEM;
	*buf = p;
	*cap = ncap;
	return 0;
}

int kmemdev_walk_all(struct kmemdev *h, struct kmem_ro_walk *w, void **buf,
		     size_t *cap, uint32_t *nodes)
{
	uint64_t limit, rec, total = 0;
	uint32_t max_nodes;
	size_t used = 0;
	int err;

	if (nodes)
		*nodes = 0;
	if (!h || !w || !buf || !cap || !nodes || (!*buf && *cap))
		return -EINVAL;
	/* Only fields of the first layout are used: any valid size will do. */
	err = kmemdev__arg_size(w->size, KMEM_RO_WALK_SIZE_VER0);
	if (err)
		return err;
	err = record_size(w, &rec);
	if (err)
		return err;
	if (!rec || rec > KMEM_RO_WALK_MAX_RECORD + 8)
		return -E2BIG;
	max_nodes = w->max_nodes;
	limit = max_nodes ? max_nodes : KMEM_RO_WALK_MAX_NODES;
	w->start = 0;

	for (;;) {
		/* The cap is reached and the walk did not say DONE: more follow. */
		if (total >= limit) {
			err = -E2BIG;
			break;
		}
		if (*cap - used < rec) {
			err = grow(buf, cap, used, rec);
			if (err)
				break;
		}
		w->buf_addr = (uintptr_t)((unsigned char *)*buf + used);
		w->buf_size = *cap - used;
		w->max_nodes = (uint32_t)(limit - total < KMEM_RO_WALK_MAX_NODES ?
					  limit - total : KMEM_RO_WALK_MAX_NODES);
		err = kmemdev_walk(h, w);
		if (err)
			break;
		if ((uint64_t)w->nodes * rec > w->buf_size) {	/* driver bug */
			err = -EPROTO;
			break;
		}
		total += w->nodes;
		used += (size_t)((uint64_t)w->nodes * rec);
		*nodes = (uint32_t)total;

		switch (w->status) {
		case KMEM_RO_WALK_DONE:
			err = 0;
			goto out;
		case KMEM_RO_WALK_LOOP:
			err = -ELOOP;
			goto out;
		case KMEM_RO_WALK_FAULT:
			err = w->fault_errno < 0 ? w->fault_errno : -EFAULT;
			goto out;
		case KMEM_RO_WALK_BUF_FULL:
			err = grow(buf, cap, used, rec);
			if (err)
				goto out;
			break;
		case KMEM_RO_WALK_MAX_REACHED:
		case KMEM_RO_WALK_INTERRUPTED:
			break;
		default:
			err = -EPROTO;
			goto out;
		}
		w->start = w->next;
	}
out:
	w->max_nodes = max_nodes;	/* the template's, for the next call */
	return err;
}
