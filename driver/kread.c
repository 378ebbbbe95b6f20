// SPDX-License-Identifier: GPL-2.0
/*
 * kmem_ro - read any kernel virtual address without hurting the kernel.
 *
 * Every page is looked up in the kernel page tables before it is touched:
 * only mapped System RAM that the kernel itself can read is copied, with
 * copy_from_kernel_nofault() in case the mapping changes under us.  MMIO
 * and other non-RAM mappings are refused without a single access.
 */
#include <linux/mm.h>
#include <linux/uaccess.h>
#include <asm/pgtable.h>

#include "internal.h"

/* PFN behind a present kernel mapping of @addr at @level. */
static unsigned long kmem_ro_mapped_pfn(pte_t *pte, unsigned int level,
					unsigned long addr)
{
	unsigned long pfn;

	switch (level) {
	case PG_LEVEL_1G:
		pfn = pud_pfn(*(pud_t *)pte);
		break;
	case PG_LEVEL_2M:
		pfn = pmd_pfn(*(pmd_t *)pte);
		break;
	default:
		pfn = pte_pfn(*pte);
		break;
	}
	return pfn + ((addr & ~page_level_mask(level)) >> PAGE_SHIFT);
}

/* Check the page holding @addr: 0 if it may be read, else -errno. */
static int kmem_ro_check_page(unsigned long addr, const struct kmem_ro_ram *ram)
{
	unsigned int level, dmap_level;
	unsigned long pfn;
	pte_t *pte;

	if (addr < PAGE_OFFSET)
		return -EINVAL;
	pte = lookup_address(addr, &level);
	if (!pte || !(pte_flags(*pte) & _PAGE_PRESENT)) {
		/* a hole in the direct map over RAM is RAM being hidden */
		if (addr < VMALLOC_START &&
		    kmem_ro_ram_contains(ram, PHYS_PFN(addr - PAGE_OFFSET), 1))
			return -EPERM;
		return -EFAULT;
	}
	pfn = kmem_ro_mapped_pfn(pte, level, addr);
	if (!kmem_ro_ram_contains(ram, pfn, 1))
		return -ENXIO;
	/* also for aliases (image, vmalloc): the direct map is the truth */
	if (!kmem_ro_page_readable(pfn, &dmap_level))
		return -EPERM;
	return 0;
}

/**
 * kmem_ro_read_kernel() - copy kernel memory into a kernel buffer
 * @dst: destination, @len bytes
 * @addr: kernel virtual address
 * @len: bytes; may cross pages
 * @ram: System RAM snapshot taken for this call
 *
 * Return: @len, the number of bytes read before a page failed, or the
 * negative errno of the first page (see uapi/kmem_ro.h) when none could.
 */
long kmem_ro_read_kernel(void *dst, unsigned long addr, size_t len,
			 const struct kmem_ro_ram *ram)
{
	size_t done = 0;
	int err;

	if (addr + len < addr)
		return -EINVAL;
	while (done < len) {
		unsigned long cur = addr + done;
		size_t chunk = min_t(size_t, len - done, PAGE_SIZE - offset_in_page(cur));

		err = kmem_ro_check_page(cur, ram);
		if (!err && copy_from_kernel_nofault(dst + done, (void *)cur, chunk))
			err = -EFAULT;
		if (err)
			return done ? done : err;
		done += chunk;
	}
	return done;
}
