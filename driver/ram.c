// SPDX-License-Identifier: GPL-2.0
/*
 * kmem_ro - which physical pages may be read: System RAM, online, not
 * poisoned, and present in the kernel's own direct map.
 */
#include <linux/ioport.h>
#include <linux/memory_hotplug.h>
#include <linux/mm.h>
#include <linux/page-flags.h>
#include <linux/slab.h>
#include <asm/pgtable.h>

#include "internal.h"

/* Whole pages only: a page partly outside System RAM is not RAM. */
static int kmem_ro_ram_add(struct resource *res, void *arg)
{
	struct kmem_ro_ram **ram = arg;
	unsigned long start = PFN_UP(res->start), end = PFN_DOWN(res->end + 1);
	struct kmem_ro_ram *r = *ram;

	if (start >= end)
		return 0;
	if (r->nr < r->cap)
		r->pfns[r->nr] = (struct kmem_ro_pfns){ start, end };
	r->nr++;
	return 0;
}

/**
 * kmem_ro_ram_get() - snapshot the System RAM pages in a PFN range
 * @first: first PFN
 * @last: PFN past the range
 *
 * Taken from the resource tree (what /proc/iomem shows), so the hot paths
 * that consult it take no lock.  Memory hotplug after the snapshot is
 * caught by kmem_ro_page_readable(), which asks the memory map.
 *
 * Return: the snapshot (kfree() it), ERR_PTR(-EINVAL) if the range holds
 * no RAM, ERR_PTR(-ENOMEM).
 */
struct kmem_ro_ram *kmem_ro_ram_get(unsigned long first, unsigned long last)
{
	u64 start = PFN_PHYS(first), end = PFN_PHYS(last) - 1;
	struct kmem_ro_ram *ram = NULL;
	unsigned int cap = 8;

	for (;;) {
		ram = kzalloc(struct_size(ram, pfns, cap), GFP_KERNEL);
		if (!ram)
			return ERR_PTR(-ENOMEM);
		ram->cap = cap;
		walk_iomem_res_desc(IORES_DESC_NONE,
				    IORESOURCE_SYSTEM_RAM | IORESOURCE_BUSY,
				    start, end, &ram, kmem_ro_ram_add);
		if (ram->nr <= cap)
			break;
		cap = ram->nr;	/* grew between the walks: size and retry */
		kfree(ram);
	}
	if (!ram->nr) {
		kfree(ram);
		return ERR_PTR(-EINVAL);
	}
	return ram;
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
	unsigned int i;

	for (i = 0; i < ram->nr; i++)
		if (pfn >= ram->pfns[i].start && pfn + nr <= ram->pfns[i].end)
			return true;
	return false;
}

/**
 * kmem_ro_page_online() - is this RAM page online and healthy?
 * @pfn: a page known to be System RAM
 *
 * Return: false for offline, poisoned or ballooned-out pages.
 */
bool kmem_ro_page_online(unsigned long pfn)
{
	struct page *page = pfn_to_online_page(pfn);

	return page && !PageHWPoison(page) && !PageOffline(page);
}

/**
 * kmem_ro_page_readable() - may this RAM page be read?
 * @pfn: a page known to be System RAM
 * @level: returns the level of the direct-map entry (PG_LEVEL_4K, ...)
 *
 * memfd_secret pages and pages unmapped by debug_pagealloc or on a memory
 * error are missing from the direct map; offline and poisoned pages must
 * not be touched at all.
 *
 * Return: true if the kernel itself can read the page.
 */
bool kmem_ro_page_readable(unsigned long pfn, unsigned int *level)
{
	pte_t *pte;

	if (!kmem_ro_page_online(pfn))
		return false;
	pte = lookup_address((unsigned long)pfn_to_kaddr(pfn), level);
	return pte && (pte_flags(*pte) & _PAGE_PRESENT);
}
