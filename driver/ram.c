// SPDX-License-Identifier: GPL-2.0
/*
 * kmem_ro - where System RAM is, and which physical pages may be read:
 * System RAM, online, not poisoned, accepted, outside the GART aperture.
 * These are the checks read_kcore_iter() makes on a RAM page (6.1 and
 * 6.12); the direct-map one kcore gets from copy_from_kernel_nofault() of
 * the direct-map address is kpgtable.c's.  docs/security.md lists them
 * side by side.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/efi.h>
#include <linux/bitmap.h>
#include <linux/ioport.h>
#include <linux/memory_hotplug.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/page-flags.h>
#include <linux/pci.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <asm/gart.h>

#include <kmem_ro.h>

#include "compat.h"
#include "internal.h"
#include "ram.h"

/* What the page checks (ram.h) read, set at load. */
struct kmem_ro_ram_limits kmem_ro_ram_limits __ro_after_init;

/*
 * All System RAM, for READV and WALK: taken at load and again when memory
 * goes online or offline (hotplug.c), so a call reads it without walking
 * the resource tree under its lock.  RAM removed after going offline may
 * stay listed: its pages are offline, which kmem_ro_page_online() refuses.
 */
struct kmem_ro_ram __rcu *kmem_ro_ram_now;
static DEFINE_MUTEX(kmem_ro_ram_lock);	/* serialises refreshes */

/*
 * One walk of the top-level "System RAM" of /proc/iomem, as
 * walk_system_ram_res() (not exported) finds it, clipped to the range
 * asked for: it counts them all and keeps the first @cap, in bytes.
 */
struct kmem_ro_ram_walk {
	struct kmem_ro_range *ranges;
	unsigned long *managed;		/* bitmap over @ranges, or NULL */
	u32 cap;
	u32 count;
};

static int kmem_ro_ram_add(struct resource *res, void *arg)
{
	struct kmem_ro_ram_walk *walk = arg;

	if (walk->count < walk->cap) {
		walk->ranges[walk->count].start = res->start;
		walk->ranges[walk->count].end = res->end + 1;
		if (walk->managed && (res->flags & IORESOURCE_SYSRAM_DRIVER_MANAGED))
			__set_bit(walk->count, walk->managed);
	}
	walk->count++;
	return 0;
}

/*
 * Up to @max ranges of System RAM within bytes [@start, @end], all of them
 * counted, whatever their number.  Gathered into a kernel buffer (kvfree()
 * walk->ranges), sized by a counting walk, again if hotplug added ranges
 * in between: the walk holds the resource lock, under which neither
 * copy_to_user() nor a sleeping allocation may run.
 */
static int kmem_ro_ram_walk(u64 start, u64 end, u32 max, struct kmem_ro_ram_walk *walk)
{
	u32 want;

	for (;;) {
		walk->count = 0;
		walk_iomem_res_desc(IORES_DESC_NONE,
				    IORESOURCE_SYSTEM_RAM | IORESOURCE_BUSY,
				    start, end, walk, kmem_ro_ram_add);
		want = min(walk->count, max);
		if (want <= walk->cap)
			return 0;
		kvfree(walk->ranges);
		walk->ranges = kvcalloc(want, sizeof(*walk->ranges), GFP_KERNEL);
		if (!walk->ranges)
			return -ENOMEM;
		if (walk->managed) {
			bitmap_free(walk->managed);
			walk->managed = bitmap_zalloc(want, GFP_KERNEL);
			if (!walk->managed)
				return -ENOMEM;
		}
		walk->cap = want;
	}
}

/**
 * kmem_ro_ram_ranges() - all System RAM in bytes, for KMEM_RO_IOC_INFO
 * @uranges: user array of @cap ranges
 * @cap: how many @uranges holds; 0 only counts
 * @count: returns how many ranges there are, even beyond @cap
 *
 * Return: 0, -ENOMEM or -EFAULT.
 */
int kmem_ro_ram_ranges(struct kmem_ro_range __user *uranges, u32 cap, u32 *count)
{
	struct kmem_ro_ram_walk walk = { };
	u32 want;
	int err;

	err = kmem_ro_ram_walk(0, -1, cap, &walk);
	want = min(walk.count, cap);
	if (!err && want && copy_to_user(uranges, walk.ranges, want * sizeof(*walk.ranges)))
		err = -EFAULT;
	*count = walk.count;
	kvfree(walk.ranges);
	return err;
}

/**
 * kmem_ro_ram_get() - snapshot the System RAM pages in a PFN range
 * @first: first PFN
 * @last: PFN past the range
 *
 * Taken from the resource tree (what /proc/iomem shows), so the hot paths
 * that consult it take no lock.  Memory hotplug after the snapshot is
 * caught by kmem_ro_page_readable(), which asks the memory map.  Each range
 * says whether a driver manages it (IORESOURCE_SYSRAM_DRIVER_MANAGED:
 * virtio-mem), whose pages may go logically offline under a reader.
 *
 * Return: the snapshot (kfree() it), ERR_PTR(-EINVAL) if the range holds
 * no RAM, ERR_PTR(-ENOMEM).
 */
struct kmem_ro_ram *kmem_ro_ram_get(unsigned long first, unsigned long last)
{
	struct kmem_ro_ram_walk walk = { };
	struct kmem_ro_ram *ram = NULL;
	unsigned long start, end;
	unsigned int i;

	walk.managed = bitmap_zalloc(1, GFP_KERNEL);
	if (!walk.managed ||
	    kmem_ro_ram_walk(PFN_PHYS(first), PFN_PHYS(last) - 1, U32_MAX, &walk))
		goto out;
	ram = kzalloc(struct_size(ram, pfns, walk.count), GFP_KERNEL);
	if (!ram)
		goto out;
	ram->cap = walk.count;
	for (i = 0; i < walk.count; i++) {
		/* whole pages only: a page partly outside System RAM is not RAM */
		start = PFN_UP(walk.ranges[i].start);
		end = PFN_DOWN(walk.ranges[i].end);
		if (start < end)
			ram->pfns[ram->nr++] = (struct kmem_ro_pfns){
				start, end, test_bit(i, walk.managed) };
	}
	if (!ram->nr) {
		kfree(ram);
		ram = ERR_PTR(-EINVAL);
	}
out:
	bitmap_free(walk.managed);
	kvfree(walk.ranges);
	return ram ?: ERR_PTR(-ENOMEM);
}

/**
 * kmem_ro_ram_refresh() - take the System RAM list again
 *
 * Return: 0, or a negative errno (the previous list stays).
 */
int kmem_ro_ram_refresh(void)
{
	struct kmem_ro_ram *ram = kmem_ro_ram_get(0, PHYS_PFN(U64_MAX)), *old;

	if (IS_ERR(ram))
		return PTR_ERR(ram);
	mutex_lock(&kmem_ro_ram_lock);
	old = rcu_replace_pointer(kmem_ro_ram_now, ram, lockdep_is_held(&kmem_ro_ram_lock));
	mutex_unlock(&kmem_ro_ram_lock);
	if (old)
		kfree_rcu(old, rcu);
	return 0;
}

/**
 * kmem_ro_ram_contains() - are @nr pages from @pfn all inside one range?
 * @ram: snapshot from kmem_ro_ram_get()
 * @pfn: first page
 * @nr: number of pages
 *
 * Return: true if they are.
 */
bool kmem_ro_ram_contains(const struct kmem_ro_ram *ram, unsigned long pfn,
			  unsigned long nr)
{
	return kmem_ro_ram_find(ram, pfn, nr);
}

/* The aperture as aperture_64.c finds it: northbridge 0's GART registers. */
static void kmem_ro_gart_init(void)
{
	struct amd_northbridge *nb;
	u32 ctl, base;

	if (!amd_nb_has_feature(AMD_NB_GART) || !amd_nb_num())
		return;
	nb = node_to_amd_nb(0);
	if (!nb || !nb->misc ||
	    pci_read_config_dword(nb->misc, AMD64_GARTAPERTURECTL, &ctl) ||
	    pci_read_config_dword(nb->misc, AMD64_GARTAPERTUREBASE, &base))
		return;
	base = (base & 0x7fff) << (25 - PAGE_SHIFT);
	if (!base)
		return;
	kmem_ro_ram_limits.gart_start = base;
	kmem_ro_ram_limits.gart_end = base + ((32UL << 20) << ((ctl >> 1) & 7) >> PAGE_SHIFT);
	pr_info("GART aperture [%#llx-%#llx] is not read, as in /proc/kcore\n",
		(u64)PFN_PHYS(kmem_ro_ram_limits.gart_start),
		(u64)PFN_PHYS(kmem_ro_ram_limits.gart_end) - 1);
}

/**
 * kmem_ro_ram_unaccepted() - does this guest have memory it has not accepted?
 *
 * Return: true if only the kernel text may be read (kmem_ro_ram_init()).
 */
bool kmem_ro_ram_unaccepted(void)
{
	return kmem_ro_ram_limits.unaccepted;
}

/**
 * kmem_ro_ram_init() - the RAM list, and RAM that must never be read
 *
 * Unaccepted memory: touching a page the guest has not accepted kills a
 * TDX or SEV-SNP guest.  kcore asks pfn_is_unaccepted_memory(), whose
 * range_contains_unaccepted_memory() is not exported, so on a guest that
 * has an unaccepted-memory table only the kernel text is read.
 *
 * Return: 0 or a negative errno.
 */
int kmem_ro_ram_init(void)
{
	kmem_ro_gart_init();
#ifdef CONFIG_UNACCEPTED_MEMORY
	if (efi.unaccepted != EFI_INVALID_TABLE_ADDR) {
		kmem_ro_ram_limits.unaccepted = true;
		pr_warn("guest with unaccepted memory: RAM reads and RAM mmap refused, kernel text only\n");
	}
#endif
	return kmem_ro_ram_refresh();
}

/**
 * kmem_ro_ram_exit() - free the RAM list; no call may hold it any more
 */
void kmem_ro_ram_exit(void)
{
	kfree(rcu_dereference_protected(kmem_ro_ram_now, 1));
}
