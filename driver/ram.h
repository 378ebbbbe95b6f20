/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmem_ro - the checks every page passes before it is read: System RAM,
 * online, not poisoned, accepted, outside the GART aperture.  These are
 * the checks read_kcore_iter() makes on a RAM page (6.1, 6.12, 7.3); the
 * direct-map one kcore gets from copy_from_kernel_nofault() of the
 * direct-map address is the read's own.  docs/security.md lists them side
 * by side.
 *
 * Inline: every read of every page runs them, and a call and its return
 * (a return thunk on CPUs with retbleed mitigations) per helper would
 * cost more than most of the checks themselves.
 */
#ifndef KMEM_RO_RAM_H
#define KMEM_RO_RAM_H

#include <linux/memory_hotplug.h>
#include <linux/mm.h>
#include <linux/page-flags.h>
#include <linux/rcupdate.h>
#include <linux/uaccess.h>

#include "internal.h"

/**
 * struct kmem_ro_ram_limits - RAM that is System RAM but must not be read
 * @gart_start: first PFN of the AMD GART aperture, which the kernel
 *	excludes from /proc/kcore (arch/x86/kernel/aperture_64.c registers
 *	it with register_mem_pfn_is_ram(), which a module cannot query)
 * @gart_end: PFN past it
 * @unaccepted: the guest has memory it has not accepted (TDX, SEV-SNP):
 *	only the kernel text is read (kmem_ro_ram_init())
 */
struct kmem_ro_ram_limits {
	unsigned long gart_start;
	unsigned long gart_end;
	bool unaccepted;
};

extern struct kmem_ro_ram_limits kmem_ro_ram_limits;
extern struct kmem_ro_ram __rcu *kmem_ro_ram_now;

/**
 * kmem_ro_ram_rcu() - the System RAM list, for one reader's section
 *
 * Call under rcu_read_lock_sched() (a reader section, kread.c) or
 * rcu_read_lock(): the list stays valid until the section ends (a
 * refresh frees the one it replaces with kfree_rcu(), whose grace period
 * waits for both), and costs a reader no atomic, as a reference would.
 *
 * Return: the list.
 */
static inline const struct kmem_ro_ram *kmem_ro_ram_rcu(void)
{
	return rcu_dereference_check(kmem_ro_ram_now, rcu_read_lock_sched_held());
}

/* The range of @ram holding @nr pages from @pfn, or NULL. */
static inline const struct kmem_ro_pfns *kmem_ro_ram_find(const struct kmem_ro_ram *ram,
							  unsigned long pfn, unsigned long nr)
{
	const struct kmem_ro_pfns *range = ram->pfns, *end = ram->pfns + ram->nr;

	for (; range < end; range++)
		if (pfn >= range->start && pfn + nr <= range->end)
			return range;
	return NULL;
}

/*
 * Copy what the checks read of @page's struct page with nofault loads:
 * memory hot-removed since pfn_to_online_page() found its section online
 * has no memmap any more (depopulate_section_memmap() unmaps it, and
 * nothing a module can take holds removal off).  6.1's read_kcore_iter()
 * oopsed on exactly that in the vmem group; here the fault only refuses
 * the page.  Three words of one cache line: the flags (PG_hwpoison), the
 * compound head (compound_info in 7.x: PageTail()) and page_type
 * (PageOffline()); the checks read nothing else of the copy.
 */
static __always_inline bool kmem_ro_page_copy(struct page *dst, const struct page *page)
{
	const unsigned long *src = (const unsigned long *)page;
	unsigned long *to = (unsigned long *)dst;
	const unsigned int type = offsetof(struct page, page_type) / sizeof(long);

	BUILD_BUG_ON(type < 2 || type >= sizeof(*page) / sizeof(long));
	pagefault_disable();
	__get_kernel_nofault(&to[0], &src[0], unsigned long, fault);
	__get_kernel_nofault(&to[1], &src[1], unsigned long, fault);
	__get_kernel_nofault(&to[type], &src[type], unsigned long, fault);
	pagefault_enable();
	return true;
fault:
	pagefault_enable();
	return false;
}

/*
 * pfn_to_online_page() (mm/memory_hotplug.c, the same code in 6.1, 6.12
 * and 7.3) inline for the common page: an online section, the PFN's
 * subsection present, no ZONE_DEVICE memory in the section - the
 * function's own fast path, step for step.  Anything else (and an
 * architecture with a pfn_valid() of its own) asks the function, whose
 * slow path looks up ZONE_DEVICE's pgmaps.  Every page read makes this
 * test: a call into the kernel and its return (a return thunk, or call
 * depth accounting, on CPUs with retbleed mitigations) saved per page.
 */
static __always_inline struct page *kmem_ro_pfn_to_online_page(unsigned long pfn)
{
	struct mem_section *ms;

	if (!IS_ENABLED(CONFIG_HAVE_ARCH_PFN_VALID) &&
	    pfn_to_section_nr(pfn) < NR_MEM_SECTIONS) {
		ms = __pfn_to_section(pfn);
		if (online_section(ms) && pfn_section_valid(ms, pfn) &&
		    !online_device_section(ms))
			return pfn_to_page(pfn);
	}
	return pfn_to_online_page(pfn);
}

/**
 * kmem_ro_page_online() - is this RAM page online and healthy?
 * @pfn: a page known to be System RAM
 *
 * The checks of is_page_hwpoison(), not PageHWPoison() alone: when memory
 * failure cannot dissolve a hugetlb folio it flags only the folio's head,
 * and the poisoned subpage's own flag stays clear.  Touching it would be a
 * machine check.  They run on a copy of the struct page
 * (kmem_ro_page_copy()); a tail page's head is copied too, and any compound
 * head that is poisoned refuses the page (a superset of hugetlb's).
 *
 * Return: false for offline, logically offline (balloon), poisoned,
 * unaccepted or GART aperture pages, and pages whose memmap is gone.
 */
static __always_inline bool kmem_ro_page_online(unsigned long pfn)
{
	struct page *page = kmem_ro_pfn_to_online_page(pfn);
	unsigned long text_start, text_end;
	/* only the three words kmem_ro_page_copy() fills are read: no zeroing */
	struct page copy __uninitialized;

	if (!page || !kmem_ro_page_copy(&copy, page) ||
	    PageOffline(&copy) || PageHWPoison(&copy))
		return false;
	/*
	 * A tail: its head, found by the kernel's own compound_head() (its
	 * encoding differs by kernel), just after the copy showed the memmap
	 * there, is copied too.
	 */
	if (PageTail(&copy) &&
	    (!kmem_ro_page_copy(&copy, compound_head(page)) || PageHWPoison(&copy)))
		return false;
	if (pfn >= kmem_ro_ram_limits.gart_start && pfn < kmem_ro_ram_limits.gart_end)
		return false;
	if (unlikely(kmem_ro_ram_limits.unaccepted)) {
		/* the kernel runs from its text: that much is accepted */
		kmem_ro_text_pfns(&text_start, &text_end);
		return pfn >= text_start && pfn < text_end;
	}
	return true;
}

/**
 * kmem_ro_ram_check_pfn() - may this page be touched at all?
 * @pfn: any page
 * @r: the reader, whose RAM list is taken for this section
 *
 * The one check of a page before it is read: a data page (kread.c) and
 * each page-table page on the way to it (kpgtable.c).  Whether the direct
 * map still maps it (memfd_secret, debug_pagealloc) is not looked up:
 * the *_nofault() read through the direct map finds out, as in
 * read_kcore_iter(), at no cost when it does.
 *
 * Only virtio-mem sets PageOffline() under page_offline_begin(), and only
 * on RAM it added as driver-managed: a page there is checked and copied
 * under that hold, as read_kcore_iter() holds page_offline_freeze(); no
 * other RAM needs it (docs/security.md lists every setter).
 *
 * Return: 0 if it may be read, -ENXIO if it is not System RAM, -EPERM if
 * it is RAM that must not be read (kmem_ro_page_online()),
 * -KMEM_RO_NEED_OFFLINE_HOLD for driver-managed RAM without the hold.
 */
static __always_inline int kmem_ro_ram_check_pfn(unsigned long pfn, const struct kmem_ro_reader *r)
{
	const struct kmem_ro_pfns *range = kmem_ro_ram_find(r->ram, pfn, 1);

	if (!range)
		return -ENXIO;
	if (range->managed && !r->offline_held && !r->managed_ok)
		return -KMEM_RO_NEED_OFFLINE_HOLD;
	return kmem_ro_page_online(pfn) ? 0 : -EPERM;
}

#endif /* KMEM_RO_RAM_H */
