// SPDX-License-Identifier: GPL-2.0
/*
 * kmemctl tree: every node of a kernel red-black tree in order, with
 * fields chosen by BTF name (the walk and printing of list.c); with
 * --xarray, every entry of an XArray (xarray.c).
 */
#include <stdio.h>

#include "kmemctl.h"
#include "list.h"
#include "xarray.h"

static void help(void)
{
	printf("Usage: kmemctl [--device PATH] tree TYPE.MEMBER ROOT "
	       "[--fields A,B.C,...] [--json]\n"
	       "Walk a kernel red-black tree in order (smallest key first): "
	       "nodes are TYPE\n"
	       "objects linked through their struct rb_node MEMBER, ROOT is "
	       "the tree's struct\n"
	       "rb_root or rb_root_cached (0xHEX, SYMBOL[+-OFF], or "
	       "ADDR.PATH in a TYPE\n"
	       "object), e.g. tree vmap_area.rb_node vmap_area_root (6.1).  "
	       "Walked with reads.\n"
	       "  -f, --fields LIST  members to print, by BTF path, comma "
	       "separated\n"
	       "  -j, --json         a JSON array of {addr, FIELD: value, ...}\n"
	       "A tree deeper than a red-black tree can be (a cycle) is an "
	       "error after the\n"
	       "nodes before it.  Memory comes from %s, or /proc/kcore when "
	       "the device is\n"
	       "absent.\n"
	       "kmemctl tree --xarray ROOT ... walks an XArray or IDR instead: "
	       "see tree --xarray\n"
	       "--help.\n", KMEM_RO_DEVICE);
}

int kmemctl_tree(const struct kmemctl *ctx, int argc, char **argv)
{
	if (xarray_wanted(argc, argv))
		return xarray_verb(ctx, argc, argv);
	return list_verb(ctx, argc, argv, LIST_TREE, help);
}
