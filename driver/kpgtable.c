// SPDX-License-Identifier: GPL-2.0
/*
 * kmem_ro - the kernel page-table entry behind a kernel virtual address,
 * and whether the direct map still maps a RAM page.
 *
 * The walk reads the tables itself, as /proc/kcore's vread() never has to
 * (kcore reads vmalloc through the vmap_area list, which a module cannot
 * see).  Each table page it is about to read must first pass the checks
 * of a data page (kmem_ro_ram_check_pfn()): a table freed and reused under
 * the walk can hold any value, and its "next table" can then be MMIO, a
 * poisoned or offline page, or memory a confidential guest never accepted.
 */
#include <linux/mm.h>
#include <linux/uaccess.h>
#include <asm/pgtable.h>

#include "internal.h"
#include "ram.h"

/*
 * Table page @pfn passed its full check in an earlier section of this
 * reader: is it still fit?  What can befall a table page between two
 * sections is read from the one cache line of its struct page (the nofault
 * copy of kmem_ro_page_online(), no RAM-list search, no section lookup): a
 * memory error (PG_hwpoison: memory_failure() on a page-table page only
 * sets the flag and leaves the table in use, 6.1 to 7.3), a balloon that
 * took it after a free (PageOffline), reuse inside a compound page (a
 * tail: the full check looks at its head).  Anything but a clean order-0
 * page is checked in full again.
 */
static bool kmem_ro_pt_still_fit(unsigned long pfn)
{
	struct page copy;

	return kmem_ro_page_copy(&copy, pfn_to_page(pfn)) && !PageHWPoison(&copy) &&
	       !PageOffline(&copy) && !PageTail(&copy);
}

/*
 * Check table page @table_pfn: in full the first time this reader meets
 * it, then once per section by its flags (kmem_ro_pt_still_fit()).
 */
static int kmem_ro_pt_check(unsigned long table_pfn, struct kmem_ro_reader *r)
{
	struct kmem_ro_pt_memo *memo = &r->pt;
	unsigned int i;
	int err;

	for (i = 0; i < memo->nr; i++) {
		if (memo->pfn[i] != table_pfn)
			continue;
		if (memo->fresh & BIT(i))
			return 0;
		if (kmem_ro_pt_still_fit(table_pfn)) {
			memo->fresh |= BIT(i);
			return 0;
		}
		break;
	}
	err = kmem_ro_ram_check_pfn(table_pfn, r);
	if (err)
		return err;
	if (i == memo->nr && memo->nr < KMEM_RO_PT_MEMO)
		memo->pfn[memo->nr++] = table_pfn;
	if (i < memo->nr)
		memo->fresh |= BIT(i);
	return 0;
}

/*
 * Entry @index of the table in page @table_pfn: 0, -EFAULT if the table
 * page faults (it left the direct map), or the errno of its check.
 */
static int kmem_ro_pt_read(unsigned long table_pfn, unsigned int index,
			   struct kmem_ro_reader *r, unsigned long *val)
{
	unsigned long *table = pfn_to_kaddr(table_pfn);
	int err = kmem_ro_pt_check(table_pfn, r);

	if (err)
		return err;
	return get_kernel_nofault(*val, table + index) ? -EFAULT : 0;
}

/* The table a present, non-leaf entry points to: its PFN. */
static unsigned long kmem_ro_pt_next(unsigned long val)
{
	return (val & PTE_PFN_MASK) >> PAGE_SHIFT;
}

/* Read entry @index of @table_pfn into @val: 0 if present, else -errno. */
static int kmem_ro_pt_present(unsigned long table_pfn, unsigned int index,
			      struct kmem_ro_reader *r, unsigned long *val)
{
	int err = kmem_ro_pt_read(table_pfn, index, r, val);

	if (!err && !(*val & _PAGE_PRESENT))
		err = -EFAULT;
	return err;
}

/**
 * kmem_ro_kernel_entry() - the kernel page-table entry mapping @addr
 * @addr: kernel virtual address
 * @r: the reader: every table page must pass kmem_ro_ram_check_pfn() with
 *	it (its @pt remembers those that did)
 * @pfn: returns the PFN it maps
 * @level: returns its level (PG_LEVEL_4K, _2M, _1G)
 *
 * The kernel frees page-table pages while others may walk them (a huge
 * vmap replacing a PTE table, pud_free_pmd_page() under a 1 GiB ioremap,
 * memory hot-remove, and from 6.14 the direct map's collapse), after a
 * TLB flush that on CPUs with INVLPGB (7.x) sends no IPI: interrupts off,
 * as GUP-fast relies on, would not hold them off.  So every level, the
 * top one included, is checked like a data page and then read with
 * get_kernel_nofault() through the direct map: the kernel half of the
 * page tables loaded in CR3 is the same in every mm (x86-64 preallocates
 * it), and the top level is never freed.  The PFN found at the end is the
 * caller's to check.
 *
 * Return: 0 if a present entry maps @addr; -EFAULT if none does (or a
 * table page faulted); -ENXIO, -EPERM or -KMEM_RO_NEED_OFFLINE_HOLD if a
 * table page on the way failed its check (kmem_ro_ram_check_pfn()), and
 * was not read.
 */
int kmem_ro_kernel_entry(unsigned long addr, struct kmem_ro_reader *r,
			 unsigned long *pfn, unsigned int *level)
{
	unsigned long table = PHYS_PFN(read_cr3_pa()), val;
	int err;

	err = kmem_ro_pt_present(table, pgd_index(addr), r, &val);
	if (!err && pgtable_l5_enabled())
		err = kmem_ro_pt_present(kmem_ro_pt_next(val), p4d_index(addr), r, &val);
	if (!err)
		err = kmem_ro_pt_present(kmem_ro_pt_next(val), pud_index(addr), r, &val);
	if (err)
		return err;
	if (val & _PAGE_PSE) {
		*level = PG_LEVEL_1G;
		*pfn = pud_pfn(__pud(val)) + ((addr & ~PUD_MASK) >> PAGE_SHIFT);
		return 0;
	}
	err = kmem_ro_pt_present(kmem_ro_pt_next(val), pmd_index(addr), r, &val);
	if (err)
		return err;
	if (val & _PAGE_PSE) {
		*level = PG_LEVEL_2M;
		*pfn = pmd_pfn(__pmd(val)) + ((addr & ~PMD_MASK) >> PAGE_SHIFT);
		return 0;
	}
	err = kmem_ro_pt_present(kmem_ro_pt_next(val), pte_index(addr), r, &val);
	if (err)
		return err;
	*level = PG_LEVEL_4K;
	*pfn = pte_pfn(__pte(val));
	return 0;
}

/**
 * kmem_ro_page_readable() - may this RAM page be read?
 * @pfn: a page known to be System RAM
 * @level: returns the level of the direct-map entry (PG_LEVEL_4K, ...)
 *
 * memfd_secret pages and pages unmapped by debug_pagealloc or on a memory
 * error are missing from the direct map; offline and poisoned pages must
 * not be touched at all.  The direct map's own tables are checked against
 * the current RAM list (kmem_ro_kernel_entry()).
 *
 * Return: true if the kernel itself can read the page.
 */
bool kmem_ro_page_readable(unsigned long pfn, unsigned int *level)
{
	/* mmap.c revokes driver-managed RAM itself (hotplug.c) */
	struct kmem_ro_reader r = { .managed_ok = true };
	unsigned long mapped;
	bool ok;

	if (!kmem_ro_page_online(pfn))
		return false;
	rcu_read_lock();
	r.ram = kmem_ro_ram_rcu();
	ok = !kmem_ro_kernel_entry((unsigned long)pfn_to_kaddr(pfn), &r, &mapped, level) &&
	     mapped == pfn;
	rcu_read_unlock();
	return ok;
}
