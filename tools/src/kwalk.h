/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Walk a kernel list_head list and gather fields of every node: one WALK
 * ioctl through the device (kmemdev_walk_all(), more calls only if the
 * buffer fills), or, on /proc/kcore or a driver without WALK, the same
 * walk done here with reads, with the same loop detection.  Records are
 * the node address (8 bytes) then each field's bytes, as the driver packs
 * them with KMEM_RO_WALK_NODE_ADDR.
 */
#ifndef KMEMCTL_KWALK_H
#define KMEMCTL_KWALK_H

#include <stddef.h>
#include <stdint.h>

#include "kmemdev.h"

struct kwalk {
	/* in */
	uint64_t head;			/* address of the list_head */
	uint64_t link_offset;		/* of the list_head in a node */
	const struct kmem_ro_field *fields;
	unsigned int nfields;		/* 1 to KMEM_RO_WALK_MAX_FIELDS */
	uint32_t max_nodes;		/* 0: KMEM_RO_WALK_MAX_NODES */
	/* out */
	unsigned char *buf;		/* records; free() it */
	size_t rec_size;
	uint32_t nodes;
	const char *method;		/* "walk" (the ioctl) or "read" */
	uint64_t fault_addr;		/* -EFAULT and the like: where */
};

/*
 * 0 when the walk came back to the head; negative errno otherwise:
 * -ELOOP (a cycle that misses the head), -E2BIG (more than max_nodes),
 * a read error (w->fault_addr says where), -ENOMEM.  The records
 * gathered so far stay in w->buf either way.
 */
int kwalk_run(struct kmemdev *h, struct kwalk *w);

/*
 * The same for an hlist, with reads (WALK follows rings): w->head is the
 * first node's hlist_node (0: an empty list), a NULL next ends the list;
 * -ELOOP for a cycle, since an hlist has no head to come back to.
 */
int kwalk_hlist_run(struct kmemdev *h, struct kwalk *w);

/*
 * A red-black tree in order, with reads: w->head is the root rb_node (0:
 * an empty tree), w->link_offset the rb_node's offset in a node.  -ELOOP
 * when it is deeper than any rbtree can be (a cycle through left links),
 * -E2BIG past max_nodes (a cycle through right links), a read error.
 */
int kwalk_rbtree_run(struct kmemdev *h, struct kwalk *w);

#endif /* KMEMCTL_KWALK_H */
