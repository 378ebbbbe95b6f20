// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only module: kernel objects with known contents and known defects
 * for the in-VM suites, their addresses published in debugfs
 * (/sys/kernel/debug/kmem_ro_testobj) as "name value" lines.
 *
 *  good_head     list of NODES nodes, id 0..NODES-1, name "node-<id>"
 *  loop_head     head -> a -> b -> c -> b: a cycle that misses the head
 *  corrupt_head  head -> a -> b -> non-canonical pointer
 *  low_head      head -> a -> LOW_LINK, a pointer into page 0
 *  hgood_head    hlist of the same NODES nodes through hlink, id NODES-1..0
 *  hloop_head    hlist first -> a -> b -> c -> b: a cycle with no end
 *  slab_obj      the second of SLAB_OBJS objects of SLAB_SIZE bytes in a
 *                cache of its own, SLAB_CACHE (a constructor keeps SLUB
 *                from merging it into another cache)
 *  vbuf          VBUF_PAGES vmalloc pages, byte i = (i * 7) & 0xff
 *  vguard        the unmapped guard page after vbuf
 *  mmio          an ioremap()ed page of the HPET: never RAM
 *  wc_page       a RAM page made write-combining by set_memory_wc(),
 *                as TTM pools do, every byte WC_BYTE; made by a write to
 *                kmem_ro_testobj_wc (a random RAM touch elsewhere must not
 *                meet it); 0 before, or if that failed
 *  pat_enabled   1 if PAT is on (memory types are tracked)
 *  ptarea        a 2 MiB-aligned PMD_SIZE of vmalloc, page i's first u64
 *                PTAREA_MAGIC | i, its PTE table the area's own
 *  ptarea_pfn    the PFN of ptarea's page 0
 *  xarray        an XArray: good_head's node id i at index i * XA_STRIDE
 *                (i < XA_NODES), xa_mk_value(i * 3) at XA_VALUE_BASE + i
 *                (i < XA_VALUES), node XA_FAR_ID again at XA_FAR (a deep
 *                tree)
 *  idr           an IDR (base 0): node id i at IDR_FIRST + i (i < IDR_NODES)
 *  xa_badshift   an XArray whose head node is vbuf + 4: its shift byte is
 *                28, no multiple of XA_CHUNK_SHIFT
 *  xa_unmapped   an XArray whose head node is vguard: unreadable
 *  fakemod_<k>   a module list head (k: good, badlink, bignum, bigname,
 *                outside) whose struct modules lie in this module's data
 *                (the module area), each with one symbol "fake_sym" at
 *                testobj_show, as a module that unloads under a walker may
 *                leave them: good as the kernel keeps them; badlink, a
 *                second module whose prev is not the first; bignum,
 *                kallsyms->num_symtab 2,000,000; bigname, the symbol's
 *                st_name 0xfffffff0; outside, mod->kallsyms in kmalloc()ed
 *                memory (not the module area)
 *
 * Writing a PFN to kmem_ro_testobj_pmd makes ptarea's PMD entry a table
 * entry pointing at that page (a stale or corrupt kernel page table, as a
 * walker racing a table's free would see); writing "restore" puts the
 * real entry back.  Nothing but the test reads ptarea meanwhile.
 *
 * Writing N to kmem_ro_testobj_poison_pmd sets PG_hwpoison (the flag
 * alone: memory_failure() is not run) on the page-table page that holds
 * ptarea's PMD entry at the Nth call of kmem_ro's kmem_ro_reader_begin()
 * from then on (a kprobe): between two segments of one READV group, as a
 * memory error on that page would land.  Writing "clear" takes the kprobe
 * and the flag away.
 */
#include <linux/debugfs.h>
#include <linux/idr.h>
#include <linux/io.h>
#include <linux/kprobes.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/xarray.h>
#include <asm/memtype.h>
#include <asm/set_memory.h>

#define NODES		1000
#define VBUF_PAGES	3
#define HPET_BASE	0xfed00000UL
#define WC_BYTE		0x5c
#define LOW_LINK	0x100UL		/* in page 0, below any kernel address */
#define PTAREA_MAGIC	0x7074000000000000ULL
#define SLAB_CACHE	"kmem_ro_test_cache"
#define SLAB_SIZE	200
#define SLAB_OBJS	3
#define XA_NODES	100
#define XA_STRIDE	37
#define XA_VALUES	10
#define XA_VALUE_BASE	5000
#define XA_FAR_ID	7
#define XA_FAR		(1UL << 32)
#define IDR_FIRST	10
#define IDR_NODES	20

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
static LIST_HEAD(low_head);
static HLIST_HEAD(hgood_head);
static HLIST_HEAD(hloop_head);
static DEFINE_XARRAY(txa);
static DEFINE_IDR(tidr);
static DEFINE_XARRAY(xa_badshift);
static DEFINE_XARRAY(xa_unmapped);
static struct kmem_ro_tnode *loop_nodes, *corrupt_nodes, *low_node;
static unsigned char *vbuf;
static struct kmem_cache *cache;
static void *slab_objs[SLAB_OBJS];
static void __iomem *mmio;
static unsigned long wc_page;
static bool wc_set;
static DEFINE_MUTEX(wc_lock);
static struct dentry *dir, *wc_file, *pmd_file, *poison_file;
static void *ptbuf;		/* 2 * PMD_SIZE: ptarea lies inside */
static unsigned long ptarea;
static pmd_t *ptarea_pmd, ptarea_real;
static bool ptarea_faked;
static DEFINE_MUTEX(ptarea_lock);

/* Module lists a walker of the module list may find (see the top). */
enum { FM_GOOD, FM_BADLINK, FM_BIGNUM, FM_BIGNAME, FM_OUTSIDE, FM_N };
static const char *const fm_names[FM_N] = {
	"good", "badlink", "bignum", "bigname", "outside",
};
static struct list_head fm_heads[FM_N];
static struct module fm_mods[FM_N][2];
static struct mod_kallsyms fm_ks[FM_N];
static Elf_Sym fm_symtab[FM_N][2];
static char fm_types[FM_N][2];
static char fm_strtab[] = "\0fake_sym";
static struct mod_kallsyms *fm_outside;

static int testobj_show(struct seq_file *m, void *unused);

static void fake_module(int k, int i)
{
	struct module *mod = &fm_mods[k][i];

	snprintf(mod->name, sizeof(mod->name), "fake_%s", fm_names[k]);
	mod->state = MODULE_STATE_LIVE;
	RCU_INIT_POINTER(mod->kallsyms, &fm_ks[k]);
	list_add_tail(&mod->list, &fm_heads[k]);
}

static int fake_modules_init(void)
{
	int k;

	fm_outside = kzalloc(sizeof(*fm_outside), GFP_KERNEL);
	if (!fm_outside)
		return -ENOMEM;
	for (k = 0; k < FM_N; k++) {
		INIT_LIST_HEAD(&fm_heads[k]);
		fm_symtab[k][1].st_name = 1;
		fm_symtab[k][1].st_value = (unsigned long)testobj_show;
		fm_types[k][0] = 'U';
		fm_types[k][1] = 't';
		fm_ks[k].symtab = fm_symtab[k];
		fm_ks[k].num_symtab = 2;
		fm_ks[k].strtab = fm_strtab;
		fm_ks[k].typetab = fm_types[k];
		fake_module(k, 0);
	}
	fake_module(FM_BADLINK, 1);
	fm_mods[FM_BADLINK][1].list.prev = &fm_heads[FM_BADLINK];
	fm_ks[FM_BIGNUM].num_symtab = 2000000;
	fm_symtab[FM_BIGNAME][1].st_name = 0xfffffff0;
	*fm_outside = fm_ks[FM_OUTSIDE];
	RCU_INIT_POINTER(fm_mods[FM_OUTSIDE][0].kallsyms, fm_outside);
	return 0;
}

static int testobj_show(struct seq_file *m, void *unused)
{
	int k;

	for (k = 0; k < FM_N; k++)
		seq_printf(m, "fakemod_%s 0x%lx\n", fm_names[k], (unsigned long)&fm_heads[k]);
	seq_printf(m, "good_head 0x%lx\n", (unsigned long)&good_head);
	seq_printf(m, "loop_head 0x%lx\n", (unsigned long)&loop_head);
	seq_printf(m, "corrupt_head 0x%lx\n", (unsigned long)&corrupt_head);
	seq_printf(m, "low_head 0x%lx\n", (unsigned long)&low_head);
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
	mutex_lock(&wc_lock);
	seq_printf(m, "wc_page 0x%lx\n", wc_set ? wc_page : 0);
	mutex_unlock(&wc_lock);
	seq_printf(m, "pat_enabled %d\n", pat_enabled());
	seq_printf(m, "ptarea 0x%lx\n", ptarea);
	seq_printf(m, "ptarea_pfn 0x%lx\n", vmalloc_to_pfn((void *)ptarea));
	seq_printf(m, "xarray 0x%lx\n", (unsigned long)&txa);
	seq_printf(m, "xa_nodes %d\n", XA_NODES);
	seq_printf(m, "xa_stride %d\n", XA_STRIDE);
	seq_printf(m, "xa_values %d\n", XA_VALUES);
	seq_printf(m, "xa_value_base %d\n", XA_VALUE_BASE);
	seq_printf(m, "xa_far_id %d\n", XA_FAR_ID);
	seq_printf(m, "xa_far 0x%lx\n", XA_FAR);
	seq_printf(m, "idr 0x%lx\n", (unsigned long)&tidr);
	seq_printf(m, "xa_badshift 0x%lx\n", (unsigned long)&xa_badshift);
	seq_printf(m, "xa_unmapped 0x%lx\n", (unsigned long)&xa_unmapped);
	seq_printf(m, "idr_first %d\n", IDR_FIRST);
	seq_printf(m, "idr_nodes %d\n", IDR_NODES);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(testobj);

static ssize_t wc_write(struct file *file, const char __user *buf, size_t len, loff_t *pos)
{
	mutex_lock(&wc_lock);
	if (!wc_page) {
		wc_page = __get_free_page(GFP_KERNEL);
		if (wc_page) {
			memset((void *)wc_page, WC_BYTE, PAGE_SIZE);
			wc_set = !set_memory_wc(wc_page, 1);
		}
	}
	mutex_unlock(&wc_lock);
	return wc_set ? len : -EIO;
}

static const struct file_operations wc_fops = {
	.owner = THIS_MODULE,
	.write = wc_write,
};

/*
 * The PMD entry of ptarea, found from CR3 as kmem_ro finds it: the kernel
 * half of the page tables is shared by every mm (init_mm is not exported).
 * NULL unless it points to a PTE table, which vmalloc() of order-0 pages
 * makes and which only ptarea's pages use.
 */
static pmd_t *ptarea_find_pmd(void)
{
	pgd_t *pgd = (pgd_t *)__va(read_cr3_pa()) + pgd_index(ptarea);
	p4d_t *p4d = p4d_offset(pgd, ptarea);
	pud_t *pud;
	pmd_t *pmd;

	if (p4d_none(*p4d) || p4d_bad(*p4d))
		return NULL;
	pud = pud_offset(p4d, ptarea);
	if (pud_none(*pud) || pud_leaf(*pud) || pud_bad(*pud))
		return NULL;
	pmd = pmd_offset(pud, ptarea);
	if (pmd_none(*pmd) || pmd_leaf(*pmd) || pmd_bad(*pmd))
		return NULL;
	return pmd;
}

/*
 * Point ptarea's PMD at @pfn as if it were a PTE table, or restore it.
 * No TLB flush (7.3 exports __flush_tlb_all() to KVM only): kmem_ro walks
 * the tables in software, and nothing touches ptarea through the MMU
 * while the fake entry is there, so no CPU caches a walk through it; the
 * translations cached before are those of the real entry, put back
 * before anyone uses them, and vfree() flushes the range before reuse.
 */
static void ptarea_set(bool fake, unsigned long pfn)
{
	set_pmd(ptarea_pmd, fake ? __pmd(PFN_PHYS(pfn) | _KERNPG_TABLE) : ptarea_real);
	ptarea_faked = fake;
}

static ssize_t ptarea_pmd_write(struct file *file, const char __user *ubuf, size_t len,
			 loff_t *ppos)
{
	char buf[32];
	unsigned long pfn = 0;
	bool fake;

	if (len >= sizeof(buf) || copy_from_user(buf, ubuf, len))
		return -EINVAL;
	buf[len] = 0;
	fake = !sysfs_streq(buf, "restore");
	if (fake && kstrtoul(buf, 0, &pfn))
		return -EINVAL;
	mutex_lock(&ptarea_lock);
	ptarea_set(fake, pfn);
	mutex_unlock(&ptarea_lock);
	return len;
}

static const struct file_operations pmd_fops = {
	.owner = THIS_MODULE,
	.write = ptarea_pmd_write,
};

/* kmem_ro_testobj_poison_pmd (see the top) */
static atomic_t poison_countdown;
static bool poison_armed, poison_set;
static DEFINE_MUTEX(poison_lock);

static int poison_pre(struct kprobe *kp, struct pt_regs *regs)
{
	if (atomic_dec_return(&poison_countdown) == 0) {
		SetPageHWPoison(virt_to_page(ptarea_pmd));
		WRITE_ONCE(poison_set, true);
	}
	return 0;
}

static struct kprobe poison_kp = {
	.symbol_name = "kmem_ro_reader_begin",
	.pre_handler = poison_pre,
};

/* Under poison_lock: no kprobe, no flag. */
static void poison_clear(void)
{
	if (poison_armed)
		unregister_kprobe(&poison_kp);
	poison_armed = false;
	if (poison_set)
		ClearPageHWPoison(virt_to_page(ptarea_pmd));
	poison_set = false;
	poison_kp.addr = NULL;	/* register_kprobe() looks the symbol up again */
	poison_kp.flags = 0;
}

static ssize_t poison_pmd_write(struct file *file, const char __user *ubuf, size_t len,
				loff_t *ppos)
{
	char buf[32];
	unsigned int n = 0;
	int err = 0;

	if (len >= sizeof(buf) || copy_from_user(buf, ubuf, len))
		return -EINVAL;
	buf[len] = 0;
	if (!sysfs_streq(buf, "clear") && (kstrtouint(buf, 0, &n) || !n))
		return -EINVAL;
	mutex_lock(&poison_lock);
	poison_clear();
	if (n) {
		atomic_set(&poison_countdown, n);
		err = register_kprobe(&poison_kp);
		poison_armed = !err;
	}
	mutex_unlock(&poison_lock);
	return err ? err : len;
}

static const struct file_operations poison_fops = {
	.owner = THIS_MODULE,
	.write = poison_pmd_write,
};

/* ptarea: the first PMD_SIZE-aligned PMD_SIZE of ptbuf, each page marked. */
static int ptarea_init(void)
{
	unsigned long i;

	ptbuf = vmalloc(2 * PMD_SIZE);
	if (!ptbuf)
		return -ENOMEM;
	ptarea = ALIGN((unsigned long)ptbuf, PMD_SIZE);
	for (i = 0; i < PTRS_PER_PTE; i++)
		*(u64 *)(ptarea + i * PAGE_SIZE) = PTAREA_MAGIC | i;
	ptarea_pmd = ptarea_find_pmd();
	if (!ptarea_pmd) {
		pr_err("kmem_ro_testobj: ptarea %#lx: no PTE table of its own\n", ptarea);
		vfree(ptbuf);
		return -ENOENT;
	}
	ptarea_real = *ptarea_pmd;
	return 0;
}

static void ptarea_exit(void)
{
	if (ptarea_faked)
		ptarea_set(false, 0);
	vfree(ptbuf);
}

/* A constructor: SLUB never merges a cache that has one. */
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

/* The XArray and the IDR over good_head's nodes (see the top). */
static int fill_indexed(void)
{
	struct kmem_ro_tnode *n;
	int err = 0, i;

	list_for_each_entry(n, &good_head, link) {
		if (!err && n->id < XA_NODES)
			err = xa_err(xa_store(&txa, n->id * XA_STRIDE, n, GFP_KERNEL));
		if (!err && n->id == XA_FAR_ID)
			err = xa_err(xa_store(&txa, XA_FAR, n, GFP_KERNEL));
		if (!err && n->id < IDR_NODES &&
		    idr_alloc(&tidr, n, IDR_FIRST + n->id, IDR_FIRST + n->id + 1,
			      GFP_KERNEL) < 0)
			err = -ENOMEM;
	}
	for (i = 0; i < XA_VALUES && !err; i++)
		err = xa_err(xa_store(&txa, XA_VALUE_BASE + i, xa_mk_value(i * 3),
				      GFP_KERNEL));
	/* node pointers as xa_mk_node() makes them: the address plus 2 */
	RCU_INIT_POINTER(xa_badshift.xa_head, (void *)(vbuf + 4 + 2));
	RCU_INIT_POINTER(xa_unmapped.xa_head,
			 (void *)(vbuf + VBUF_PAGES * PAGE_SIZE + 2));
	return err;
}

static void free_good(void)
{
	struct kmem_ro_tnode *n, *tmp;

	xa_destroy(&txa);
	idr_destroy(&tidr);

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
	low_node = kzalloc(sizeof(*low_node), GFP_KERNEL);
	vbuf = vmalloc(VBUF_PAGES * PAGE_SIZE);
	mmio = ioremap(HPET_BASE, PAGE_SIZE);
	cache = kmem_cache_create(SLAB_CACHE, SLAB_SIZE, 0, 0, fill);
	for (i = 0; cache && i < SLAB_OBJS; i++)
		slab_objs[i] = kmem_cache_alloc(cache, GFP_KERNEL);
	if (!loop_nodes || !corrupt_nodes || !low_node || !vbuf || !mmio || !cache ||
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
	list_add_tail(&low_node->link, &low_head);
	low_node->link.next = (struct list_head *)LOW_LINK;
	for (i = 0; i < VBUF_PAGES * PAGE_SIZE; i++)
		vbuf[i] = (i * 7) & 0xff;

	if (fake_modules_init() || fill_indexed() || ptarea_init())
		goto out_free_all;

	dir = debugfs_create_file("kmem_ro_testobj", 0400, NULL, NULL, &testobj_fops);
	wc_file = debugfs_create_file("kmem_ro_testobj_wc", 0200, NULL, NULL, &wc_fops);
	pmd_file = debugfs_create_file("kmem_ro_testobj_pmd", 0200, NULL, NULL, &pmd_fops);
	poison_file = debugfs_create_file("kmem_ro_testobj_poison_pmd", 0200, NULL, NULL,
					  &poison_fops);
	return 0;

out_free_all:
	kfree(fm_outside);
	free_slab();
	if (mmio)
		iounmap(mmio);
	vfree(vbuf);
	kfree(low_node);
	kfree(corrupt_nodes);
	kfree(loop_nodes);
out_free_good:
	free_good();
	return -ENOMEM;
}

static void __exit testobj_exit(void)
{
	debugfs_remove(poison_file);
	mutex_lock(&poison_lock);
	poison_clear();
	mutex_unlock(&poison_lock);
	debugfs_remove(pmd_file);
	debugfs_remove(wc_file);
	debugfs_remove(dir);
	/* a page still write-combining must not go back to the allocator */
	if (!wc_set || !set_memory_wb(wc_page, 1))
		free_page(wc_page);
	ptarea_exit();
	kfree(fm_outside);
	free_slab();
	iounmap(mmio);
	vfree(vbuf);
	kfree(low_node);
	kfree(corrupt_nodes);
	kfree(loop_nodes);
	free_good();
}

module_init(testobj_init);
module_exit(testobj_exit);
MODULE_DESCRIPTION("kmem_ro test objects (test only)");
MODULE_LICENSE("GPL");
