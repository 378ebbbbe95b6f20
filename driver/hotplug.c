// SPDX-License-Identifier: GPL-2.0
/*
 * kmem_ro - memory that goes offline is revoked from every mapping, and
 * every mapping is zapped when mmap_ram is written.
 *
 * A mapping holds PFNs: left alone, a reader would keep reading a memory
 * block after offline_pages(), and after arch_remove_memory() a removed
 * DIMM, an unplugged virtio-mem block or whatever reuses the range.  As
 * /dev/mem does with iomem_get_mapping(), every open file of every
 * /dev/kmem_ro node shares one address_space, so all mappings sit in one
 * i_mmap tree.  The file offset is the physical address, so a block's file
 * range is its physical range and unmap_mapping_range() zaps exactly it,
 * in every process, fork copies included.  Faults on pages that are not
 * online get the refused page (mmap.c); when the block is online again it
 * is zapped once more, so they fault in for real.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/anon_inodes.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/memory.h>
#include <linux/memory_hotplug.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/moduleparam.h>
#include <linux/notifier.h>

#include "compat.h"
#include "internal.h"

/*
 * The inode behind the shared address_space.  It lives on the kernel's
 * anon_inode superblock, as the private inodes of anon_inode_make_secure_inode()
 * do, not on a pseudo filesystem of the module's own: a superblock of a
 * module-owned file_system_type pins the module (get_filesystem() in
 * sget_fc()) so it could never be unloaded, and with no owner 6.12's
 * __put_super() may unlink it from the type's list after the module is
 * gone (when iterate_supers() held the last reference).
 *
 * Set and cleared under kernel_param_lock(): a write of mmap_ram may come
 * before init and after exit, while the parameter is in sysfs.
 */
static struct inode *kmem_ro_inode;

/**
 * kmem_ro_hotplug_open() - put an open file on the shared address_space
 * @file: the file being opened
 */
void kmem_ro_hotplug_open(struct file *file)
{
	file->f_mapping = kmem_ro_inode->i_mapping;
}

/*
 * Each zap and the fault's re-check (kmem_ro_fault_kept() in mmap.c)
 * follow the store-buffering pattern, with a full barrier on each side:
 *
 *   offlining: O1 offline_mem_sections() clears the online bit of
 *                 the sections;
 *              O2 smp_mb() below;
 *              O3 the zap reads the page tables of every VMA of the
 *                 mapping.
 *   fault:     F1 vmf_insert_pfn*() writes the entry (and any new page
 *                 table);
 *              F2 smp_mb() in kmem_ro_fault_kept();
 *              F3 pfn_to_online_page() reads the online bit again.
 *
 * So O3 sees F1, or F3 sees O1, or both.  Where O3 finds the page table,
 * the PTL (or the PMD lock) orders the two further: the zap either finds
 * the entry, or released the lock before the insert took it, and then F3
 * sees O1 through that release and acquire.  So an entry inserted for a
 * page seen online is zapped by the notifier or by the fault itself.
 * VMAs copied by fork or mremap meanwhile are ordered against the zap by
 * the i_mmap tree, as for a truncate.
 *
 * The same holds for onlining (online_mem_sections() sets the bit before
 * MEM_ONLINE; a refused page inserted for a page seen offline is zapped)
 * and for mmap_ram (R1 the write in mmap.c's setter, R2 the barrier in
 * kmem_ro_hotplug_zap_all(), R3 its zap; F3 reads mmap_ram again).
 */
static int kmem_ro_memory_notify(struct notifier_block *nb,
				 unsigned long action, void *data)
{
	const struct memory_notify *arg = data;
	unsigned long start, end;

	/*
	 * Hot-added RAM is in the resource tree once it starts going online.
	 * Without a fresh list a stale range of removed boot RAM could cover
	 * driver-managed RAM added at the same address, read without the
	 * offline hold: a block that cannot be listed does not go online.
	 */
	if (action == MEM_GOING_ONLINE)
		return notifier_from_errno(kmem_ro_ram_refresh());
	if (action == MEM_CANCEL_ONLINE)
		kmem_ro_ram_refresh();
	/*
	 * MEM_OFFLINE comes after offline_pages() has marked the sections
	 * offline (O1): what a fault inserts after this zap does not stay.  At
	 * MEM_GOING_OFFLINE the pages are still online, readable RAM while
	 * they are migrated away: a zap then would only be faulted back in.
	 * MEM_ONLINE comes after online_pages() marked them online
	 * (online_pages_range() in 6.1, online_pages() in 6.12 and 7.3): the
	 * refused pages faulted in meanwhile go.
	 */
	if (action != MEM_OFFLINE && action != MEM_ONLINE)
		return NOTIFY_DONE;
	/*
	 * offline_mem_sections() takes every section the range touches, the
	 * block's own memmap pages (memmap_on_memory) with them.
	 */
	start = ALIGN_DOWN(arg->start_pfn, PAGES_PER_SECTION);
	end = ALIGN(arg->start_pfn + arg->nr_pages, PAGES_PER_SECTION);
	smp_mb();	/* O2 */
	unmap_mapping_range(kmem_ro_inode->i_mapping, PFN_PHYS(start),
			    PFN_PHYS(end - start), 1);
	return NOTIFY_OK;
}

static struct notifier_block kmem_ro_memory_nb = {
	.notifier_call = kmem_ro_memory_notify,
};

/**
 * kmem_ro_hotplug_zap_all() - zap every entry of every mapping
 *
 * mmap_ram was written (mmap.c): after the new value is published, no
 * entry made under the old one stays; the kernel text faults back in.
 * Called under kernel_param_lock().
 */
void kmem_ro_hotplug_zap_all(void)
{
	smp_mb();	/* R2 */
	if (kmem_ro_inode)
		unmap_mapping_range(kmem_ro_inode->i_mapping, 0, 0, 1);	/* R3 */
}

static void kmem_ro_hotplug_exit_inode(void)
{
	struct inode *inode;

	kernel_param_lock(THIS_MODULE);
	inode = kmem_ro_inode;
	kmem_ro_inode = NULL;
	kernel_param_unlock(THIS_MODULE);
	iput(inode);
}

/**
 * kmem_ro_hotplug_init() - the shared address_space and the notifier
 *
 * Return: 0 or a negative errno.
 */
int kmem_ro_hotplug_init(void)
{
	struct inode *inode;
	struct file *anon;
	int err;

	/*
	 * Only to reach the anon_inode superblock, which is not exported.  The
	 * file's last fput() runs __fput() at the return to user space
	 * (task_work), after a failed init has freed this module: its
	 * operations must be the kernel's, never this module's (a failed
	 * alloc_anon_inode() or misc_register() read them freed).
	 */
	anon = anon_inode_getfile("[kmem_ro]", &generic_ro_fops, NULL, O_RDONLY);
	if (IS_ERR(anon))
		return PTR_ERR(anon);
	inode = alloc_anon_inode(file_inode(anon)->i_sb);
	fput(anon);
	if (IS_ERR(inode))
		return PTR_ERR(inode);
	kernel_param_lock(THIS_MODULE);
	kmem_ro_inode = inode;
	kernel_param_unlock(THIS_MODULE);
	err = register_memory_notifier(&kmem_ro_memory_nb);
	if (err) {
		kmem_ro_hotplug_exit_inode();
		return err;
	}
	return 0;
}

/**
 * kmem_ro_hotplug_exit() - undo kmem_ro_hotplug_init()
 *
 * Called when no file is open any more, so no mapping is left either.
 */
void kmem_ro_hotplug_exit(void)
{
	unregister_memory_notifier(&kmem_ro_memory_nb);
	kmem_ro_hotplug_exit_inode();
}
