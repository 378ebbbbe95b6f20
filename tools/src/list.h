/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The walk behind kmemctl list and tree: nodes linked through a member of
 * their type, fields chosen by BTF path, printed as one table or JSON.
 */
#ifndef KMEMCTL_LIST_H
#define KMEMCTL_LIST_H

#include "kmemctl.h"

enum list_shape {
	LIST_RING,	/* list_head: a ring back to its head (WALK) */
	LIST_HLIST,	/* hlist_node: NULL-ended, from an hlist_head */
	LIST_TREE,	/* rb_node: a red-black tree in order, from rb_root */
};

/*
 * The verb argv[0] ("list" or "tree") over @shape's links (list's --hlist
 * turns LIST_RING into LIST_HLIST); @help_fn prints its --help.
 */
int list_verb(const struct kmemctl *ctx, int argc, char **argv,
	      enum list_shape shape, void (*help_fn)(void));

#endif /* KMEMCTL_LIST_H */
