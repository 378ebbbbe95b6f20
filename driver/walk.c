// SPDX-License-Identifier: GPL-2.0
/*
 * kmem_ro - KMEM_RO_IOC_WALK: follow a list_head chain in the kernel and
 * copy chosen fields of every node out in one call.
 */
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include <kmem_ro.h>

#include "internal.h"

/*
 * Records of at most half this size gather in a buffer on the stack and go
 * out together: one user-access window for several nodes, not one each.
 */
#define KMEM_RO_WALK_BATCH	256

struct kmem_ro_walker {
	struct kmem_ro_walk *w;
	const struct kmem_ro_field *fields;
	struct kmem_ro_reader r;	/* one section per node */
	char __user *ubuf;
	char *batch;		/* records not yet copied out */
	u32 batch_size;		/* bytes @batch holds */
	u32 batched;		/* records in @batch */
	u32 record_size;
	struct kmem_ro_checked_page node_page;	/* cleared per node */
};

static bool kmem_ro_walk_fault(struct kmem_ro_walk *w, unsigned long addr, int err)
{
	w->status = KMEM_RO_WALK_FAULT;
	w->fault_addr = addr;
	w->fault_errno = err;
	return false;
}

/* Fill the next record of the batch for the node whose list_head is at @link. */
static bool kmem_ro_walk_record(struct kmem_ro_walker *k, unsigned long link)
{
	unsigned long node = link - k->w->link_offset;
	char *pos = k->batch + k->batched * k->record_size;
	u32 i;

	if (k->w->flags & KMEM_RO_WALK_NODE_ADDR) {
		memcpy(pos, &node, sizeof(u64));
		pos += sizeof(u64);
	}
	for (i = 0; i < k->w->fields_count; i++) {
		unsigned long addr = node + k->fields[i].offset;
		int err;
		size_t got = kmem_ro_read_object(pos, addr, k->fields[i].len, &k->r,
						 &k->node_page, &err);

		if (err)
			return kmem_ro_walk_fault(k->w, addr + got, err);
		pos += k->fields[i].len;
	}
	return true;
}

static bool kmem_ro_walk_next(struct kmem_ro_walker *k, unsigned long link,
			      unsigned long *next)
{
	unsigned long addr = link + offsetof(struct list_head, next);
	int err;
	size_t got = kmem_ro_read_object(next, addr, sizeof(*next), &k->r,
					 &k->node_page, &err);

	if (err)
		return kmem_ro_walk_fault(k->w, addr + got, err);
	return true;
}

/* The first link: the head's next, the head being no node of the list. */
static bool kmem_ro_walk_head(struct kmem_ro_walker *k, unsigned long *link)
{
	bool ok;

	kmem_ro_reader_init(&k->r);
	kmem_ro_reader_begin(&k->r);
	ok = kmem_ro_walk_next(k, k->w->head, link);
	kmem_ro_reader_end(&k->r);
	return ok;
}

/*
 * One node: its record and its next link, every page of it checked and
 * copied in one reader section (k->node_page spans both).
 */
static bool kmem_ro_walk_node(struct kmem_ro_walker *k, unsigned long link,
			      unsigned long *next)
{
	bool ok;

	/* a new object: its pages and tables are checked anew */
	k->node_page.vpage = 0;
	kmem_ro_reader_init(&k->r);
	kmem_ro_reader_begin(&k->r);
	ok = kmem_ro_walk_record(k, link) && kmem_ro_walk_next(k, link, next);
	kmem_ro_reader_end(&k->r);
	return ok;
}

/* Copy the batched records out: the last k->batched of w->nodes. */
static int kmem_ro_walk_flush(struct kmem_ro_walker *k)
{
	u64 first = k->w->nodes - k->batched;
	int err;

	if (!k->batched)
		return 0;
	err = kmem_ro_copy_out(k->ubuf + first * k->record_size, k->batch,
			       k->batched * k->record_size);
	k->batched = 0;
	return err;
}

/*
 * Brent's cycle detection over the links visited: a list that loops
 * without passing the head is found in O(1) memory and at most twice the
 * cycle length in extra steps.  Returns with the records flushed or not:
 * kmem_ro_walk_flush() after it.
 */
static int kmem_ro_walk_run(struct kmem_ro_walker *k)
{
	struct kmem_ro_walk *w = k->w;
	u32 max = w->max_nodes ? min(w->max_nodes, KMEM_RO_WALK_MAX_NODES) :
				 KMEM_RO_WALK_MAX_NODES;
	unsigned long link, tortoise, power = 1, lam = 0;

	link = w->start;
	if (!link && !kmem_ro_walk_head(k, &link))
		return 0;
	tortoise = link;
	for (;;) {
		unsigned long next;

		if (link == w->head) {
			w->status = KMEM_RO_WALK_DONE;
			return 0;
		}
		w->next = link;
		if (w->nodes == max) {
			w->status = KMEM_RO_WALK_MAX_REACHED;
			return 0;
		}
		if ((u64)(w->nodes + 1) * k->record_size > w->buf_size) {
			w->status = KMEM_RO_WALK_BUF_FULL;
			return 0;
		}
		if (signal_pending(current)) {
			w->status = KMEM_RO_WALK_INTERRUPTED;
			return w->nodes ? 0 : -EINTR;
		}
		if (!kmem_ro_walk_node(k, link, &next))
			return 0;
		w->nodes++;
		if (++k->batched * k->record_size + k->record_size > k->batch_size &&
		    kmem_ro_walk_flush(k))
			return -EFAULT;
		if (next == tortoise && next != w->head) {
			w->status = KMEM_RO_WALK_LOOP;
			w->next = next;
			return 0;
		}
		if (++lam == power) {
			tortoise = next;
			power <<= 1;
			lam = 0;
		}
		link = next;
		cond_resched();
	}
}

static int kmem_ro_walk_check(const struct kmem_ro_walk *w,
			      const struct kmem_ro_field *fields, u32 *record_size)
{
	u64 size = (w->flags & KMEM_RO_WALK_NODE_ADDR) ? sizeof(u64) : 0;
	u32 i;

	for (i = 0; i < w->fields_count; i++) {
		if (!fields[i].len)
			return -EINVAL;
		size += fields[i].len;
		if (size > KMEM_RO_WALK_MAX_RECORD)
			return -E2BIG;
	}
	if (w->buf_size < size)
		return -EINVAL;
	*record_size = size;
	return 0;
}

/**
 * kmem_ro_walk_ioctl() - KMEM_RO_IOC_WALK
 * @file: the open device (unused: reads belong to no file)
 * @uarg: user pointer to struct kmem_ro_walk
 *
 * Return: 0 (the walk's own outcome is in @status) or a negative errno as
 * documented in uapi/kmem_ro.h.
 */
long kmem_ro_walk_ioctl(struct file *file, void __user *uarg)
{
	/* written before read, and only what was written goes out */
	u64 batch[KMEM_RO_WALK_BATCH / sizeof(u64)] __uninitialized;
	struct kmem_ro_walker k = { };
	struct kmem_ro_field *fields;
	struct kmem_ro_walk w;
	u64 usize;
	int err;

	err = kmem_ro_arg_in(&w, sizeof(w), KMEM_RO_WALK_SIZE_VER0, uarg, &usize);
	if (err)
		return err;
	if ((w.flags & ~KMEM_RO_WALK_NODE_ADDR) || w.reserved0 || w.reserved[0] ||
	    w.reserved[1] || w.head < PAGE_OFFSET || (w.start && w.start < PAGE_OFFSET) ||
	    !w.fields_count || !w.fields_addr || !w.buf_addr || !w.buf_size)
		return -EINVAL;
	if (w.fields_count > KMEM_RO_WALK_MAX_FIELDS)
		return -E2BIG;
	fields = memdup_array_user(u64_to_user_ptr(w.fields_addr), w.fields_count,
				   sizeof(*fields));
	if (IS_ERR(fields))
		return PTR_ERR(fields);
	err = kmem_ro_walk_check(&w, fields, &k.record_size);
	if (err)
		goto out_free_fields;
	/* a large record: one at a time, from a buffer of its own */
	if (k.record_size * 2 <= sizeof(batch)) {
		k.batch = (char *)batch;
		k.batch_size = sizeof(batch);
	} else {
		k.batch = kmalloc(k.record_size, GFP_KERNEL);
		k.batch_size = k.record_size;
		if (!k.batch) {
			err = -ENOMEM;
			goto out_free_fields;
		}
	}
	w.nodes = 0;
	w.status = KMEM_RO_WALK_DONE;
	w.next = w.fault_addr = 0;
	w.fault_errno = 0;
	k.w = &w;
	k.fields = fields;
	k.ubuf = u64_to_user_ptr(w.buf_addr);
	err = kmem_ro_walk_run(&k);
	if (!err)
		err = kmem_ro_walk_flush(&k);
	if (!err)
		err = kmem_ro_arg_out(uarg, &w, sizeof(w), usize);

	if (k.batch != (char *)batch)
		kfree(k.batch);
out_free_fields:
	kfree(fields);
	return err;
}
