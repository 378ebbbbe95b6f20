/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmem_ro - every difference between the kernels the driver builds for.
 *
 * Built and run: Debian's 6.1, 6.12 and 7.3; built only: sid's 7.2.  A
 * shim is keyed on the release that changed the interface, a Kconfig
 * symbol, or a header's include guard (sparse has no __has_include), and
 * names the upstream change that made it necessary: the commit where it
 * was found, else its title or the function and the release, else the
 * release in whose sources it was first seen here (7.2.13 and 7.3.4 are
 * Debian's).  Releases between those four were not built.
 */
#ifndef KMEM_RO_COMPAT_H
#define KMEM_RO_COMPAT_H

#include <linux/huge_mm.h>
#include <linux/hugetlb.h>
#include <linux/mm.h>
#include <linux/mm_inline.h>
#include <linux/module.h>
#include <linux/swapops.h>
#include <linux/userfaultfd_k.h>
#include <linux/version.h>

/* ---- ram.c ---- */

/* 6.16 moved <asm/amd_nb.h> to <asm/amd/nb.h> (commit not found here). */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 16, 0)
#include <asm/amd/nb.h>
#else
#include <asm/amd_nb.h>
#endif

/* ---- info.c ---- */

/*
 * The VMCOREINFO note: paddr_vmcoreinfo_note() is exported from
 * kernel/crash_core.c up to 6.8 (CONFIG_CRASH_CORE) and from
 * kernel/vmcore_info.c since 6.9 ("crash: split vmcoreinfo exporting code
 * out from crash_core.c", CONFIG_VMCORE_INFO).
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 9, 0)
#ifdef CONFIG_VMCORE_INFO
#include <linux/vmcore_info.h>
#define KMEM_RO_VMCOREINFO	1
#endif
#elif defined(CONFIG_CRASH_CORE)
#include <linux/crash_core.h>
#define KMEM_RO_VMCOREINFO	1
#endif

/* ---- mmap.c ---- */

/*
 * 6.3, bc292ab00f6c ("mm: introduce vma->vm_flags wrapper functions")
 * made vma->vm_flags read-only.
 */
static inline void kmem_ro_vma_flags(struct vm_area_struct *vma, vm_flags_t set,
				     vm_flags_t clear)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
	vm_flags_mod(vma, set, clear);
#else
	vma->vm_flags = (vma->vm_flags | set) & ~clear;
#endif
}

/*
 * PMD-sized PFN faults: 6.12's huge pfnmap series (Peter Xu, "mm: Support
 * huge pfnmaps") gave x86 CONFIG_ARCH_SUPPORTS_PMD_PFNMAP and let a
 * VM_PFNMAP VMA with a huge_fault handler have them, whatever the THP
 * settings (vma_file_bypass_thp_tuneables(), unchanged in 7.3's
 * mm/huge_memory.c); 6.1's hugepage_vma_check() refuses every VM_PFNMAP
 * VMA.
 */
#ifdef CONFIG_ARCH_SUPPORTS_PMD_PFNMAP
#define KMEM_RO_HUGE	1
#else
#define KMEM_RO_HUGE	0
#endif

/*
 * 6.17, 21aa65bf82a7 ("mm: remove callers of pfn_t functionality"):
 * vmf_insert_pfn_pmd() takes a bare PFN and <linux/pfn_t.h> is gone.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 17, 0)
#include <linux/pfn_t.h>
#define kmem_ro_insert_pfn_pmd(vmf, pfn) \
	vmf_insert_pfn_pmd(vmf, pfn_to_pfn_t(pfn), false)
#else
#define kmem_ro_insert_pfn_pmd(vmf, pfn)	vmf_insert_pfn_pmd(vmf, pfn, false)
#endif

/* ---- hotplug.c ---- */

/*
 * 7.1 renamed zap_vma_ptes() to zap_special_vma_range(), with the same
 * checks (the range inside the VMA, VM_PFNMAP or VM_MIXEDMAP only; commit
 * not found here).
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(7, 1, 0)
#define kmem_ro_zap_vma(vma, addr, size)	zap_special_vma_range(vma, addr, size)
#else
#define kmem_ro_zap_vma(vma, addr, size)	zap_vma_ptes(vma, addr, size)
#endif

/*
 * The PAT memory type x86 keeps for a RAM page in its flags
 * (arch/x86/mm/pat/memtype.c: get_page_memtype(), static there), which
 * vmf_insert_pfn() takes for the new entry through lookup_memtype():
 * write-back is both bits clear.  6.1 uses PG_uncached and PG_arch_1; by
 * 6.12 X86_PAT selects ARCH_USES_PG_ARCH_2 and PG_arch_2 replaced
 * PG_uncached.  6.18, "mm: introduce memdesc_flags_t", put page->flags in
 * a struct.  Without PAT nothing is tracked: the caller must not map RAM.
 */
#ifdef CONFIG_X86_PAT
#ifdef CONFIG_ARCH_USES_PG_ARCH_2
#define KMEM_RO_PG_MEMTYPE	(BIT(PG_arch_1) | BIT(PG_arch_2))
#elif defined(CONFIG_ARCH_USES_PG_UNCACHED)
#define KMEM_RO_PG_MEMTYPE	(BIT(PG_arch_1) | BIT(PG_uncached))
#else
#error "kmem_ro: where does this kernel keep a page's PAT memory type?"
#endif
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 18, 0)
#define kmem_ro_page_flags(page)	READ_ONCE((page)->flags.f)
#else
#define kmem_ro_page_flags(page)	READ_ONCE((page)->flags)
#endif
#endif

/* Without PAT, RAM is not mappable (mmap.c) and the text stays write-back. */
static inline bool kmem_ro_page_memtype_wb(const struct page *page)
{
#ifdef CONFIG_X86_PAT
	return !(kmem_ro_page_flags(page) & KMEM_RO_PG_MEMTYPE);
#else
	return true;
#endif
}

/* ---- events.c, probes.c: where a module's code is ---- */

/*
 * 6.4, "module: replace module_layout with module_memory" (Song Liu): a
 * module's text, data and read-only data each have an allocation of their
 * own (mod->mem[]).
 */

/* What /proc/modules shows: core base (its text), core size, text size. */
static inline void kmem_ro_module_core(const struct module *mod, u64 *base, u64 *size,
				       u64 *text)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 4, 0)
	*base = (unsigned long)mod->mem[MOD_TEXT].base;
	*text = mod->mem[MOD_TEXT].size;
	*size = 0;
	for_class_mod_mem_type(type, core)
		*size += mod->mem[type].size;
#else
	*base = (unsigned long)mod->core_layout.base;
	*text = mod->core_layout.text_size;
	*size = mod->core_layout.size;
#ifdef CONFIG_ARCH_WANTS_MODULES_DATA_IN_VMALLOC
	*size += mod->data_layout.size;
#endif
#endif
}

/* [start, end) of a module's init text */
static inline void kmem_ro_module_init_text(const struct module *mod, unsigned long *start,
					    unsigned long *end)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 4, 0)
	*start = (unsigned long)mod->mem[MOD_INIT_TEXT].base;
	*end = *start + mod->mem[MOD_INIT_TEXT].size;
#else
	*start = (unsigned long)mod->init_layout.base;
	*end = *start + mod->init_layout.size;
#endif
}

/* ---- pagemap.c: entries as fs/proc/task_mmu.c of each release ---- */

/*
 * Bit 58 of /proc/PID/pagemap, a guard region (MADV_GUARD_INSTALL):
 * 6.15, "fs/proc/task_mmu: add guard region bit to pagemap".  For
 * uapi/kmem_ro.h to name; here until it does.
 */
#ifndef KMEM_RO_PM_GUARD_REGION
#define KMEM_RO_PM_GUARD_REGION	(1ULL << 58)
#endif

/*
 * Software page-table leaves (swap, migration, device, hwpoison, marker
 * entries).  <linux/leafops.h>'s softleaf_t replaced the swp_entry_t
 * helpers (is_swap_pte(), pte_to_swp_entry(), is_pfn_swap_entry(), ...):
 * Lorenzo Stoakes' series "mm: remove is_swap_[pte, pmd]() + non-swap
 * entries, introduce leaf entries" (posted for 6.19; first built here in
 * 7.2).  <linux/mm_inline.h> includes it wherever it exists.
 */
#ifdef _LINUX_LEAFOPS_H
#define kmem_ro_leaf_t			softleaf_t
#define kmem_ro_pte_leaf(pte)		softleaf_from_pte(pte)
#define kmem_ro_pmd_leaf(pmd)		softleaf_from_pmd(pmd)
#define kmem_ro_leaf_has_pfn(e)		softleaf_has_pfn(e)
#define kmem_ro_leaf_pfn(e)		softleaf_to_pfn(e)
#define kmem_ro_leaf_migration(e)	softleaf_is_migration(e)
#define kmem_ro_leaf_uffd_wp(e)		softleaf_is_uffd_wp_marker(e)
#define kmem_ro_leaf_guard(e)		softleaf_is_guard_marker(e)
/* a PMD leaf or its non-present entry, what pmd_trans_huge_lock() takes */
#define kmem_ro_pmd_is_huge(pmd)	pmd_is_huge(pmd)
#else
#define kmem_ro_leaf_t			swp_entry_t
#define kmem_ro_pte_leaf(pte)		pte_to_swp_entry(pte)
#define kmem_ro_pmd_leaf(pmd)		pmd_to_swp_entry(pmd)
#define kmem_ro_leaf_has_pfn(e)		is_pfn_swap_entry(e)
#define kmem_ro_leaf_pfn(e)		swp_offset_pfn(e)
#define kmem_ro_leaf_migration(e)	is_migration_entry(e)
#define kmem_ro_leaf_uffd_wp(e)		pte_marker_entry_uffd_wp(e)
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 15, 0)
#define kmem_ro_leaf_guard(e)		is_guard_swp_entry(e)
#else
#define kmem_ro_leaf_guard(e)		((void)(e), false)
#endif
/*
 * Until 6.17's "mm: remove devmap related functions and page table bits"
 * pmd_trans_huge() left out DAX's devmap PMDs.
 */
#ifdef CONFIG_ARCH_HAS_PTE_DEVMAP
#define kmem_ro_pmd_is_huge(pmd) \
	(pmd_trans_huge(pmd) || pmd_devmap(pmd) || is_swap_pmd(pmd))
#else
#define kmem_ro_pmd_is_huge(pmd)	(pmd_trans_huge(pmd) || is_swap_pmd(pmd))
#endif
#endif

/*
 * 7.3 renamed the uffd-wp bit helpers (*_uffd_wp() to *_uffd()) when
 * userfaultfd's read-write protection (USERFAULTFD_RWP) came to share the
 * bit; pagemap still reports it as PM_UFFD_WP.  First seen in 7.3.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(7, 3, 0)
#define kmem_ro_pte_uffd_wp(pte)	pte_uffd(pte)
#define kmem_ro_pte_swp_uffd_wp(pte)	pte_swp_uffd(pte)
#define kmem_ro_pmd_uffd_wp(pmd)	pmd_uffd(pmd)
#define kmem_ro_pmd_swp_uffd_wp(pmd)	pmd_swp_uffd(pmd)
#define kmem_ro_huge_pte_uffd_wp(pte)	huge_pte_uffd(pte)
#define kmem_ro_pte_swp_uffd_wp_any(pte) pte_swp_uffd_any(pte)
#else
#define kmem_ro_pte_uffd_wp(pte)	pte_uffd_wp(pte)
#define kmem_ro_pte_swp_uffd_wp(pte)	pte_swp_uffd_wp(pte)
#define kmem_ro_pmd_uffd_wp(pmd)	pmd_uffd_wp(pmd)
#define kmem_ro_pmd_swp_uffd_wp(pmd)	pmd_swp_uffd_wp(pmd)
#define kmem_ro_huge_pte_uffd_wp(pte)	huge_pte_uffd_wp(pte)
#define kmem_ro_pte_swp_uffd_wp_any(pte) pte_swp_uffd_wp_any(pte)
#endif

/*
 * The page behind a present THP PMD.  7.3's pagemap_pmd_range_thp() asks
 * vm_normal_page_pmd(), which has none for a special PMD (the huge zero
 * folio, PFN maps): no PM_FILE, no PM_MMAP_EXCLUSIVE there.  Before, it
 * took pmd_page(), and the huge zero folio read as a file page.  First
 * seen in 7.3 (7.2.13 still has pmd_page()).
 */
static __always_inline struct page *kmem_ro_thp_page(pmd_t pmd)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(7, 3, 0)
	if (pmd_special(pmd))
		return NULL;
#endif
	return pmd_page(pmd);
}

/*
 * PM_MMAP_EXCLUSIVE.
 *
 * 6.1: page_mapcount(page) == 1 for any page an entry names, migration
 * entries excepted.
 * 6.12: folio_precise_page_mapcount(folio, page) == 1, present pages only,
 * for each page of a THP its own.
 * 6.15, "fs/proc/task_mmu: remove per-page mapcount dependency for
 * PM_MMAP_EXCLUSIVE (CONFIG_NO_PAGE_MAPCOUNT)": the same through
 * __folio_page_mapped_exclusively(), which without CONFIG_PAGE_MAPCOUNT
 * is !folio_maybe_mapped_shared(folio); and every page of a PMD-mapped
 * THP takes the answer of the PMD's first page.
 * hugetlb: page_mapcount() on 6.1; since 6.12 not shared by mapcount and
 * not in a shared PMD table, folio_likely_mapped_shared() renamed to
 * folio_maybe_mapped_shared() in 6.15 ("mm: rename
 * folio_likely_mapped_shared() to folio_maybe_mapped_shared()").
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
#define KMEM_RO_PM_EXCL_PRECISE		1
/* a THP's pages each decide (6.12 to 6.14), or its first page for all */
#define KMEM_RO_PM_THP_EXCL_PER_PAGE	(LINUX_VERSION_CODE < KERNEL_VERSION(6, 15, 0))
/* per-page mapcounts kept (always before 6.15) */
#ifdef CONFIG_NO_PAGE_MAPCOUNT
#define KMEM_RO_PM_PAGE_MAPCOUNT	0
#else
#define KMEM_RO_PM_PAGE_MAPCOUNT	1
#endif

/*
 * folio_precise_page_mapcount(folio, page) == 1, split so that a THP
 * reads its folio once, not once per page.
 */
static __always_inline int kmem_ro_entire_mapcount(struct folio *folio)
{
	return folio_test_large(folio) ? folio_entire_mapcount(folio) : 0;
}

static __always_inline bool kmem_ro_subpage_exclusive(struct page *page, int entire)
{
	int mapcount = atomic_read(&page->_mapcount) + 1;

	if (page_mapcount_is_type(mapcount))
		mapcount = 0;
	return mapcount + entire == 1;
}

static __always_inline bool kmem_ro_folio_maybe_shared(struct folio *folio)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 15, 0)
	return folio_maybe_mapped_shared(folio);
#else
	return folio_likely_mapped_shared(folio);
#endif
}

/* __folio_page_mapped_exclusively(); @entire from kmem_ro_entire_mapcount() */
static __always_inline bool kmem_ro_mapped_exclusively(struct folio *folio,
						       struct page *page, int entire)
{
	if (KMEM_RO_PM_PAGE_MAPCOUNT)
		return kmem_ro_subpage_exclusive(page, entire);
	return !kmem_ro_folio_maybe_shared(folio);
}

/* the bit for one PTE's page */
static __always_inline bool kmem_ro_pte_exclusive(struct folio *folio, struct page *page,
						  bool present, bool migration)
{
	return present &&
	       kmem_ro_mapped_exclusively(folio, page, kmem_ro_entire_mapcount(folio));
}

static inline bool kmem_ro_hugetlb_exclusive(struct page *page, pte_t *ptep)
{
	return !kmem_ro_folio_maybe_shared(page_folio(page)) &&
	       !hugetlb_pmd_shared(ptep);
}
#else
#define KMEM_RO_PM_EXCL_PRECISE		0
#define KMEM_RO_PM_THP_EXCL_PER_PAGE	0

/*
 * A page is compound exactly when its folio is large; a small one's count
 * is its own _mapcount, read here without page_mapcount() reading flags
 * anew.
 */
static __always_inline bool kmem_ro_pte_exclusive(struct folio *folio, struct page *page,
						  bool present, bool migration)
{
	if (migration)
		return false;
	if (!folio_test_large(folio))
		return atomic_read(&page->_mapcount) == 0;
	return page_mapcount(page) == 1;
}

static inline bool kmem_ro_hugetlb_exclusive(struct page *page, pte_t *ptep)
{
	return page_mapcount(page) == 1;
}
#endif

#endif /* KMEM_RO_COMPAT_H */
