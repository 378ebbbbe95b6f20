// SPDX-License-Identifier: GPL-2.0
/*
 * kmem_ro - where the kernel text is: found once at load from the kernel's
 * own page tables, read by INFO, the text mapping and the page checks.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mm.h>
#include <linux/sched.h>
#include <asm/pgtable.h>

#include "internal.h"

static unsigned long kmem_ro_text_start, kmem_ro_text_end;

struct kmem_ro_image_run kmem_ro_image[KMEM_RO_IMAGE_RUNS] __ro_after_init;
unsigned int kmem_ro_image_nr __ro_after_init;

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

/* The first PFN a present leaf entry of @level maps (no PAT bit of a huge one). */
static unsigned long kmem_ro_leaf_pfn(pte_t *pte, unsigned int level)
{
	switch (level) {
	case PG_LEVEL_1G:
		return pud_pfn(*(pud_t *)pte);
	case PG_LEVEL_2M:
		return pmd_pfn(*(pmd_t *)pte);
	default:
		return pte_pfn(*pte);
	}
}

/* The PFN the image's linear mapping gives @addr. */
static unsigned long kmem_ro_image_linear_pfn(unsigned long addr)
{
	return PHYS_PFN(addr - __START_KERNEL_map + phys_base);
}

/*
 * Record each run of the image's high mapping whose entries all map the
 * PFN arithmetic gives.  The mapping is final by the time a module loads:
 * init memory was freed and, with PTI, its alias unmapped (those holes
 * stay with the walk, which finds them unmapped); later changes
 * (set_memory_*()) alter permissions, never the PFN.  Entries that map
 * any other PFN, if a kernel ever has them, stay with the walk too.
 */
static void kmem_ro_image_init(void)
{
	unsigned long addr = kmem_ro_text_start & PMD_MASK;
	unsigned long end = __START_KERNEL_map + KERNEL_IMAGE_SIZE;

	while (addr < end && addr >= __START_KERNEL_map) {
		unsigned int level;
		pte_t *pte = lookup_address(addr, &level);
		unsigned long size = PMD_SIZE, next;
		bool linear = false;

		if (pte && level != PG_LEVEL_NONE) {
			size = page_level_size(level);
			linear = (pte_flags(*pte) & _PAGE_PRESENT) &&
				 kmem_ro_leaf_pfn(pte, level) +
				 ((addr & ~page_level_mask(level)) >> PAGE_SHIFT) ==
				 kmem_ro_image_linear_pfn(addr);
		}
		next = (addr & ~(size - 1)) + size;
		if (linear) {
			unsigned int n = kmem_ro_image_nr;

			if (n && kmem_ro_image[n - 1].end == addr)
				kmem_ro_image[n - 1].end = next;
			else if (n < KMEM_RO_IMAGE_RUNS)
				kmem_ro_image[kmem_ro_image_nr++] =
					(struct kmem_ro_image_run){ addr, next };
		}
		addr = next;
	}
	pr_info("kernel image read by arithmetic over %u run(s) from %#lx\n",
		kmem_ro_image_nr, kmem_ro_image_nr ? kmem_ro_image[0].start : 0);
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
	kmem_ro_image_init();
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
