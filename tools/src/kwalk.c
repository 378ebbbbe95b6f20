// SPDX-License-Identifier: GPL-2.0
/* List walks by WALK ioctl or by reads: see kwalk.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kwalk.h"

#define FIRST_NODES	1024	/* records the first buffer holds, at least */
#define FIRST_BYTES	(1U << 20)

static size_t record_size(const struct kwalk *w)
{
	size_t n = 8;
	unsigned int i;

	for (i = 0; i < w->nfields; i++)
		n += w->fields[i].len;
	return n;
}

/* Before a walk by @method: no records, no fault yet. */
static void walk_start(struct kwalk *w, const char *method)
{
	w->buf = NULL;
	w->nodes = 0;
	w->method = method;
	w->fault_addr = 0;
	w->rec_size = record_size(w);
}

static int grow(struct kwalk *w, size_t *cap, uint32_t need)
{
	size_t want = *cap ? *cap : FIRST_NODES;
	void *p;

	while (want < need)
		want *= 2;
	if (want == *cap)
		return 0;
	p = realloc(w->buf, want * w->rec_size);
	if (!p)
		return -ENOMEM;
	w->buf = p;
	*cap = want;
	return 0;
}

/* The record of the node whose link is at @link: its address, its fields. */
static int add_record(struct kmemdev *h, struct kwalk *w, size_t *cap,
		      uint64_t link)
{
	uint64_t node = link - w->link_offset;
	unsigned char *rec;
	size_t pos = 8;
	unsigned int i;
	int err;

	err = grow(w, cap, w->nodes + 1);
	if (err)
		return err;
	rec = w->buf + (size_t)w->nodes * w->rec_size;
	memcpy(rec, &node, 8);
	for (i = 0; i < w->nfields; i++) {
		uint64_t a = node + w->fields[i].offset;

		err = kmemdev_read(h, a, rec + pos, w->fields[i].len);
		if (err) {
			w->fault_addr = a;
			return err;
		}
		pos += w->fields[i].len;
	}
	w->nodes++;
	return 0;
}

/*
 * The walk the driver does, with reads: next pointers from @link until
 * @end (the head of a ring, 0 for an hlist), Brent's cycle check.
 */
static int walk_by_reads(struct kmemdev *h, struct kwalk *w, uint32_t max,
			 uint64_t link, uint64_t end)
{
	uint64_t tortoise = end, power = 1, lam = 0, next;
	size_t cap = 0;
	int err;

	while (link != end) {
		if (w->nodes == max)
			return -E2BIG;
		if (link == tortoise)
			return -ELOOP;
		err = add_record(h, w, &cap, link);
		if (err)
			return err;
		if (++lam == power) {
			tortoise = link;
			power *= 2;
			lam = 0;
		}
		err = kmemdev_read(h, link, &next, sizeof(next));
		if (err) {
			w->fault_addr = link;
			return err;
		}
		link = next;
	}
	return 0;
}

int kwalk_run(struct kmemdev *h, struct kwalk *w)
{
	KMEMDEV_ARG(kmem_ro_walk, arg, .flags = KMEM_RO_WALK_NODE_ADDR,
		    .head = w->head, .link_offset = w->link_offset,
		    .fields_addr = (uintptr_t)w->fields,
		    .fields_count = w->nfields, .max_nodes = w->max_nodes);
	uint32_t max = w->max_nodes ? w->max_nodes : KMEM_RO_WALK_MAX_NODES;
	uint64_t link;
	size_t cap;
	int err;

	walk_start(w, "walk");
	/* one ioctl for most lists: room for 1 MiB of records to start */
	cap = FIRST_BYTES > FIRST_NODES * w->rec_size ? FIRST_BYTES :
	      FIRST_NODES * w->rec_size;
	w->buf = malloc(cap);
	if (!w->buf)
		return -ENOMEM;
	err = kmemdev_walk_all(h, &arg, (void **)&w->buf, &cap, &w->nodes);
	if (err != -EOPNOTSUPP) {
		if (err == -EFAULT || err == -ENXIO || err == -EPERM ||
		    err == -EINVAL)
			w->fault_addr = arg.fault_addr;
		return err;
	}
	free(w->buf);
	w->buf = NULL;
	w->nodes = 0;
	w->method = "read";
	err = kmemdev_read(h, w->head, &link, sizeof(link));
	if (err) {
		w->fault_addr = w->head;
		return err;
	}
	return walk_by_reads(h, w, max, link, w->head);
}

int kwalk_hlist_run(struct kmemdev *h, struct kwalk *w)
{
	walk_start(w, "read");
	return walk_by_reads(h, w, w->max_nodes ? w->max_nodes :
			     KMEM_RO_WALK_MAX_NODES, w->head, 0);
}

/*
 * struct rb_node (include/linux/rbtree_types.h, the same in every
 * supported kernel): __rb_parent_color, rb_right, rb_left.
 */
#define RB_RIGHT	8
#define RB_LEFT		16
/* A red-black tree of n nodes is at most 2 * log2(n + 1) deep. */
#define RB_DEPTH_MAX	128

int kwalk_rbtree_run(struct kmemdev *h, struct kwalk *w)
{
	uint32_t max = w->max_nodes ? w->max_nodes : KMEM_RO_WALK_MAX_NODES;
	uint64_t stack[RB_DEPTH_MAX], n = w->head;
	unsigned int sp = 0;
	size_t cap = 0;
	int err;

	walk_start(w, "read");
	/* in order: left subtree, node, right subtree */
	while (n || sp) {
		while (n) {
			if (sp == RB_DEPTH_MAX)
				return -ELOOP;
			stack[sp++] = n;
			err = kmemdev_read(h, n + RB_LEFT, &n, sizeof(n));
			if (err) {
				w->fault_addr = stack[sp - 1] + RB_LEFT;
				return err;
			}
		}
		n = stack[--sp];
		if (w->nodes == max)
			return -E2BIG;
		err = add_record(h, w, &cap, n);
		if (err)
			return err;
		err = kmemdev_read(h, n + RB_RIGHT, &n, sizeof(n));
		if (err) {
			w->fault_addr = stack[sp] + RB_RIGHT;
			return err;
		}
	}
	return 0;
}
