// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only module: kernel objects with known contents and known defects
 * for the in-VM suites, their addresses published in debugfs
 * (/sys/kernel/debug/kmem_ro_testobj) as "name value" lines.
 *
 *  good_head     list of NODES nodes, id 0..NODES-1, name "node-<id>"
 *  loop_head     head -> a -> b -> c -> b: a cycle that misses the head
 *  corrupt_head  head -> a -> b -> non-canonical pointer
 *  hgood_head    hlist of the same NODES nodes through hlink, id NODES-1..0
 *  hloop_head    hlist first -> a -> b -> c -> b: a cycle with no end
 *  slab_obj      the second of SLAB_OBJS objects of SLAB_SIZE bytes in a
 *                cache of its own, SLAB_CACHE (a constructor keeps SLUB
 *                from merging it into another cache)
 *  vbuf          VBUF_PAGES vmalloc pages, byte i = (i * 7) & 0xff
 *  vguard        the unmapped guard page after vbuf
 *  mmio          an ioremap()ed page of the HPET: never RAM
 */
#include <linux/debugfs.h>
#include <linux/io.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#define NODES		1000
#define VBUF_PAGES	3
#define HPET_BASE	0xfed00000UL
#define SLAB_CACHE	"kmem_ro_test_cache"
#define SLAB_SIZE	200
#define SLAB_OBJS	3

struct kmem_ro_tnode {
	u64 magic;
	u32 id;
	char name[12];
	struct list_head link;
	u64 tail;
	struct hlist_node hlink;
};

static LIST_HEAD(good_head);
static LIST_HEAD(loop_head);
static LIST_HEAD(corrupt_head);
static HLIST_HEAD(hgood_head);
static HLIST_HEAD(hloop_head);
static struct kmem_ro_tnode *loop_nodes, *corrupt_nodes;
static unsigned char *vbuf;
static struct kmem_cache *cache;
static void *slab_objs[SLAB_OBJS];
static void __iomem *mmio;
static struct dentry *dir;

static int testobj_show(struct seq_file *m, void *unused)
{
	seq_printf(m, "good_head 0x%lx\n", (unsigned long)&good_head);
	seq_printf(m, "loop_head 0x%lx\n", (unsigned long)&loop_head);
	seq_printf(m, "corrupt_head 0x%lx\n", (unsigned long)&corrupt_head);
	seq_printf(m, "hgood_head 0x%lx\n", (unsigned long)&hgood_head);
	seq_printf(m, "hloop_head 0x%lx\n", (unsigned long)&hloop_head);
	seq_printf(m, "hlink_offset %zu\n", offsetof(struct kmem_ro_tnode, hlink));
	seq_printf(m, "slab_obj 0x%lx\n", (unsigned long)slab_objs[1]);
	seq_printf(m, "slab_size %d\n", SLAB_SIZE);
	seq_printf(m, "nodes %d\n", NODES);
	seq_printf(m, "link_offset %zu\n", offsetof(struct kmem_ro_tnode, link));
	seq_printf(m, "id_offset %zu\n", offsetof(struct kmem_ro_tnode, id));
	seq_printf(m, "name_offset %zu\n", offsetof(struct kmem_ro_tnode, name));
	seq_printf(m, "vbuf 0x%lx\n", (unsigned long)vbuf);
	seq_printf(m, "vbuf_len %lu\n", VBUF_PAGES * PAGE_SIZE);
	seq_printf(m, "vguard 0x%lx\n", (unsigned long)vbuf + VBUF_PAGES * PAGE_SIZE);
	seq_printf(m, "mmio 0x%lx\n", (unsigned long)mmio);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(testobj);

static void fill(void *obj)
{
	memset(obj, 0x5a, SLAB_SIZE);
}

static void free_slab(void)
{
	int i;

	for (i = 0; i < SLAB_OBJS; i++)
		if (slab_objs[i])
			kmem_cache_free(cache, slab_objs[i]);
	kmem_cache_destroy(cache);
}

static void free_good(void)
{
	struct kmem_ro_tnode *n, *tmp;

	list_for_each_entry_safe(n, tmp, &good_head, link) {
		list_del(&n->link);
		kfree(n);
	}
}

static int __init testobj_init(void)
{
	int i;

	for (i = 0; i < NODES; i++) {
		struct kmem_ro_tnode *n = kzalloc(sizeof(*n), GFP_KERNEL);

		if (!n)
			goto out_free_good;
		n->magic = 0x6b6d656d5f726f21ULL;
		n->id = i;
		snprintf(n->name, sizeof(n->name), "node-%d", i);
		list_add_tail(&n->link, &good_head);
		hlist_add_head(&n->hlink, &hgood_head);
	}

	loop_nodes = kcalloc(3, sizeof(*loop_nodes), GFP_KERNEL);
	corrupt_nodes = kcalloc(2, sizeof(*corrupt_nodes), GFP_KERNEL);
	vbuf = vmalloc(VBUF_PAGES * PAGE_SIZE);
	mmio = ioremap(HPET_BASE, PAGE_SIZE);
	cache = kmem_cache_create(SLAB_CACHE, SLAB_SIZE, 0, 0, fill);
	for (i = 0; cache && i < SLAB_OBJS; i++)
		slab_objs[i] = kmem_cache_alloc(cache, GFP_KERNEL);
	if (!loop_nodes || !corrupt_nodes || !vbuf || !mmio || !cache ||
	    !slab_objs[SLAB_OBJS - 1])
		goto out_free_all;
	for (i = 0; i < 3; i++) {
		loop_nodes[i].id = i;
		list_add_tail(&loop_nodes[i].link, &loop_head);
	}
	loop_nodes[2].link.next = &loop_nodes[1].link;
	for (i = 2; i >= 0; i--)
		hlist_add_head(&loop_nodes[i].hlink, &hloop_head);
	loop_nodes[2].hlink.next = &loop_nodes[1].hlink;
	for (i = 0; i < 2; i++) {
		corrupt_nodes[i].id = i;
		list_add_tail(&corrupt_nodes[i].link, &corrupt_head);
	}
	corrupt_nodes[1].link.next = (struct list_head *)0xdead000000000100UL;
	for (i = 0; i < VBUF_PAGES * PAGE_SIZE; i++)
		vbuf[i] = (i * 7) & 0xff;

	dir = debugfs_create_file("kmem_ro_testobj", 0400, NULL, NULL, &testobj_fops);
	return 0;

out_free_all:
	free_slab();
	if (mmio)
		iounmap(mmio);
	vfree(vbuf);
	kfree(corrupt_nodes);
	kfree(loop_nodes);
out_free_good:
	free_good();
	return -ENOMEM;
}

static void __exit testobj_exit(void)
{
	debugfs_remove(dir);
	free_slab();
	iounmap(mmio);
	vfree(vbuf);
	kfree(corrupt_nodes);
	kfree(loop_nodes);
	free_good();
}

module_init(testobj_init);
module_exit(testobj_exit);
MODULE_DESCRIPTION("kmem_ro test objects (test only)");
MODULE_LICENSE("GPL");
