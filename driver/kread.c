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

/*
 * The direct map and the kernel image map one physical page at a fixed
 * place, and only ever RAM there is what we let through, so their PFN is
 * arithmetic; everything else (vmalloc, modules, fixmap) is looked up.
 */
static bool kmem_ro_linear_pfn(unsigned long addr, unsigned long *pfn)
{
	if (addr < VMALLOC_START) {
		*pfn = PHYS_PFN(addr - PAGE_OFFSET);
		return true;
	}
	if (addr >= __START_KERNEL_map && addr < MODULES_VADDR) {
		*pfn = PHYS_PFN(addr - __START_KERNEL_map + phys_base);
		return true;
	}
	return false;
}

/*
 * Check the page holding @addr before it is touched: 0 if it may be read,
 * else -errno.  @linear tells the caller the address is in the direct map
 * or the image, whose pages are not looked up in the page tables: if such a
 * read faults, the page was not mapped there.
 */
static int kmem_ro_check_page(unsigned long addr, const struct kmem_ro_ram *ram,
			      bool *linear)
{
	unsigned int level;
	unsigned long pfn;
	pte_t *pte;

	if (addr < PAGE_OFFSET)
		return -EINVAL;
	*linear = kmem_ro_linear_pfn(addr, &pfn);
	if (!*linear) {
		pte = lookup_address(addr, &level);
		if (!pte || !(pte_flags(*pte) & _PAGE_PRESENT))
			return -EFAULT;
		pfn = kmem_ro_mapped_pfn(pte, level, addr);
	}
	if (!kmem_ro_ram_contains(ram, pfn, 1))
		return -ENXIO;
	if (*linear)
		return kmem_ro_page_online(pfn) ? 0 : -EPERM;
	/* an alias (vmalloc, modules): the direct map is the truth */
	return kmem_ro_page_readable(pfn, &level) ? 0 : -EPERM;
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
	bool linear;
	int err;

	if (addr + len < addr)
		return -EINVAL;
	while (done < len) {
		unsigned long cur = addr + done;
		size_t chunk = min_t(size_t, len - done, PAGE_SIZE - offset_in_page(cur));

		err = kmem_ro_check_page(cur, ram, &linear);
		/* a RAM page missing from the direct map is hidden (memfd_secret) */
		if (!err && copy_from_kernel_nofault(dst + done, (void *)cur, chunk))
			err = linear && cur < VMALLOC_START ? -EPERM : -EFAULT;
		if (err)
			return done ? done : err;
		done += chunk;
	}
	return done;
}
