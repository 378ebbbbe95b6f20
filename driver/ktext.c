// SPDX-License-Identifier: GPL-2.0
/*
 * kmem_ro - where the kernel text is: found once at load from the kernel's
 * own page tables, read by INFO, the text mapping and the page checks.
 */
#include <linux/mm.h>
#include <linux/sched.h>
#include <asm/pgtable.h>

#include "internal.h"

static unsigned long kmem_ro_text_start, kmem_ro_text_end;

/*
 * Is @addr in an executable kernel mapping?  @mask returns the mask of the
 * mapping level found, so callers can move by 2 MiB where the kernel did.
 */
static bool kmem_ro_kernel_exec(unsigned long addr, unsigned long *mask)
{
	unsigned int level;
	pte_t *pte = lookup_address(addr, &level);

	if (!pte || level == PG_LEVEL_NONE)
		return false;
	*mask = page_level_mask(level);
	return (pte_flags(*pte) & (_PAGE_PRESENT | _PAGE_NX)) == _PAGE_PRESENT;
}

/**
 * kmem_ro_text_init() - find the kernel text range
 *
 * _stext and _etext are not exported, and kallsyms_lookup_name() no longer
 * is either.  The kernel's own page tables say it exactly: the image is
 * mapped from _text (cleanup_highmap() clears what lies below), and after
 * mark_rodata_ro() everything from PFN_ALIGN(_etext) on is NX or unmapped.
 * So the text is the executable run of the high mapping around a function
 * we know to be core kernel text.
 *
 * Return: 0, or -ENODEV if the known function is not in executable memory.
 */
int kmem_ro_text_init(void)
{
	unsigned long known = (unsigned long)&schedule;
	unsigned long start, end, mask;

	if (!kmem_ro_kernel_exec(known, &mask))
		return -ENODEV;
	start = known & mask;
	while (kmem_ro_kernel_exec(start - 1, &mask))
		start = (start - 1) & mask;
	end = known & mask;
	while (kmem_ro_kernel_exec(end, &mask))
		end = (end & mask) + ~mask + 1;

	kmem_ro_text_start = start;
	kmem_ro_text_end = end;
	return 0;
}

/**
 * kmem_ro_text_range() - virtual addresses of the kernel text, KASLR applied
 * @start: first byte
 * @end: byte past the text
 */
void kmem_ro_text_range(unsigned long *start, unsigned long *end)
{
	*start = kmem_ro_text_start;
	*end = kmem_ro_text_end;
}

/**
 * kmem_ro_text_pfns() - physical pages of the kernel text
 * @start: first PFN
 * @end: PFN past the text
 */
void kmem_ro_text_pfns(unsigned long *start, unsigned long *end)
{
	*start = PHYS_PFN(kmem_ro_text_start - __START_KERNEL_map + phys_base);
	*end = *start + PHYS_PFN(kmem_ro_text_end - kmem_ro_text_start);
}
