// SPDX-License-Identifier: GPL-2.0
/*
 * kmem_ro - KMEM_RO_IOC_PAGEMAP: /proc/PID/pagemap entries for exactly
 * [start, end), one __u64 per page or as runs.
 *
 * walk_page_range() is not exported, nor is __pte_offset_map() on 6.12, so
 * the page tables are read the way GUP-fast reads them: interrupts off, so
 * no page table can be freed under us, each level read once and judged on
 * that value.  The mmap read lock keeps the VMAs in place.  Entries go to a
 * kernel buffer first and reach the user with the lock dropped, as in
 * fs/proc/task_mmu.c: a fault on the user buffer may need that lock.
 *
 * The entry of each page is computed as the running kernel's
 * pte_to_pagemap_entry(), pagemap_pmd_range() and pagemap_hugetlb_range()
 * compute it; where releases differ, compat.h has each one's way.
 */
#include <linux/hugetlb.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/pid.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <kmem_ro.h>

#include "compat.h"
#include "internal.h"

/*
 * Entries gathered per mmap lock hold.  fs/proc/task_mmu.c takes one PMD's
 * worth (4 KiB); 16 PMDs per lock (PM_WORK_PER_LOCK), find_vma() and the
 * copy out take the fixed cost per page down without holding the lock
 * much longer.  Runs are few per page: 128 of them in a slab object, not
 * an order-4 page allocated per call, which cost a THP range's runs as
 * much as the walk.
 */
#define PM_KBUF_BYTES	SZ_64K
#define PM_KBUF_RUNS	128

struct kmem_ro_pm {
	bool runs;
	bool show_pfn;
	union {
		u64 *flat;
		struct kmem_ro_pagemap_run *run;
		void *ptr;
	} kbuf;
	unsigned int kcount;		/* items in kbuf */
	unsigned int kcap;
	u64 ucap;			/* items the user buffer holds */
	u64 uused;			/* items already copied out */
	struct kmem_ro_pagemap_run open;	/* runs: the one still growing */
	u64 open_step;			/* its frame step per page */
	unsigned long addr;		/* next page to describe */
	bool full;			/* the user buffer can take no more */
	long work_left;			/* entries this lock hold may still read */
};

/*
 * Entries read per mmap lock hold, whatever the buffers hold: flat mode
 * fills its buffer at this many, but in RUNS mode a run that keeps growing
 * (every run, with frames hidden) takes no slot, and without this bound
 * the whole range was walked under one hold, stalling the target's
 * writers (mmap, munmap) and so its page faults behind them.
 */
#define PM_WORK_PER_LOCK	(PM_KBUF_BYTES / sizeof(u64))

static bool pm_room(struct kmem_ro_pm *pm)
{
	if (pm->uused + pm->kcount >= pm->ucap) {
		pm->full = true;
		return false;
	}
	return pm->kcount < pm->kcap;
}

/*
 * Flat entries for @n pages: the bounds are checked once per call, not
 * per page, and the loop keeps everything in registers -- this is the
 * per-page cost of the dense case.
 */
static bool pm_emit_flat(struct kmem_ro_pm *pm, unsigned long n, u64 frame, u64 flags,
			 u64 step)
{
	u64 *out = pm->kbuf.flat + pm->kcount;
	u64 room = min_t(u64, pm->kcap - pm->kcount, pm->ucap - pm->uused - pm->kcount);
	unsigned long i, m = min_t(u64, n, room);

	for (i = 0; i < m; i++, frame += step)
		out[i] = (frame & KMEM_RO_PM_FRAME_MASK) | flags;
	pm->kcount += m;
	pm->addr += m << PAGE_SHIFT;
	return m == n || pm_room(pm);	/* pm_room() marks a full user buffer */
}

/* The open run goes on with this page (frame and step already hidden). */
static __always_inline bool pm_run_extends(const struct kmem_ro_pm *pm, u64 frame,
					   u64 flags, u64 step)
{
	const struct kmem_ro_pagemap_run *o = &pm->open;

	return o->pages && o->flags == flags && pm->open_step == step &&
	       o->frame + o->pages * step == frame;
}

/*
 * Describe @n pages from pm->addr: the first has @frame, each next one
 * @step more (0 for pages without a frame).  Returns false when a buffer
 * filled first; pm->addr says how far it got.
 */
static bool pm_emit(struct kmem_ro_pm *pm, unsigned long n, u64 frame, u64 flags, u64 step)
{
	struct kmem_ro_pagemap_run *o = &pm->open;

	if (!pm->show_pfn) {
		frame = 0;
		step = 0;
	}
	if (!pm->runs)
		return pm_emit_flat(pm, n, frame, flags, step);
	if (pm_run_extends(pm, frame, flags, step)) {
		o->pages += n;
	} else {
		if (o->pages) {
			if (!pm_room(pm))
				return false;
			pm->kbuf.run[pm->kcount++] = *o;
		}
		*o = (struct kmem_ro_pagemap_run){ pm->addr, n, flags,
						   frame & KMEM_RO_PM_FRAME_MASK };
		pm->open_step = step;
	}
	pm->addr += n << PAGE_SHIFT;
	return true;
}

static bool pm_hole(struct kmem_ro_pm *pm, unsigned long to, u64 flags)
{
	return pm_emit(pm, (to - pm->addr) >> PAGE_SHIFT, 0, flags, 0);
}

/*
 * What the dense loops keep in registers across a PTE table: the memmap
 * (vmemmap_base would be reloaded after every store to the buffer), and
 * the last boot-time section seen, valid throughout, so that one
 * pfn_valid() covers its pages for as long as interrupts stay off (what
 * pfn_valid() itself relies on).  x86-64 is SPARSEMEM_VMEMMAP.
 */
struct pm_memmap {
	struct page *base;
	unsigned long valid_section;
};

#ifndef CONFIG_SPARSEMEM_VMEMMAP
#error "pm_memmap: pfn_to_page() is base + pfn only with SPARSEMEM_VMEMMAP"
#endif
#define PM_MEMMAP_INIT	((struct pm_memmap){ pfn_to_page(0), ULONG_MAX })

/* vm_normal_page() is not exported; x86 marks every special PTE. */
static __always_inline struct page *pm_normal_page(pte_t pte, struct pm_memmap *mm)
{
	unsigned long pfn = pte_pfn(pte);

	if (pte_special(pte))
		return NULL;
	if (pfn_to_section_nr(pfn) != mm->valid_section) {
		if (!pfn_valid(pfn))
			return NULL;
		if (early_section(__pfn_to_section(pfn)))
			mm->valid_section = pfn_to_section_nr(pfn);
	}
	return mm->base + pfn;
}

static u64 pm_swap_frame(kmem_ro_leaf_t entry, unsigned long idx)
{
	pgoff_t offset = kmem_ro_leaf_has_pfn(entry) ? kmem_ro_leaf_pfn(entry) :
						       swp_offset(entry);

	return swp_type(entry) | ((offset + idx) << MAX_SWAPFILES_SHIFT);
}

/* What pages from one on get: frame, +step a page, flags. */
struct pm_entry {
	u64 frame;
	u64 flags;
	u64 step;
};

/*
 * One PTE, as pte_to_pagemap_entry(); inline in the dense loops.
 * @vma_flags: the VMA's soft-dirty bit, read once by the caller.
 */
static __always_inline struct pm_entry pm_pte(pte_t pte, u64 vma_flags,
					      struct pm_memmap *mm)
{
	u64 frame = 0, flags = 0, step = 0;
	struct page *page = NULL;
	bool migration = false;

	if (pte_present(pte)) {
		frame = pte_pfn(pte);
		step = 1;
		flags |= KMEM_RO_PM_PRESENT;
		page = pm_normal_page(pte, mm);
		if (pte_soft_dirty(pte))
			flags |= KMEM_RO_PM_SOFT_DIRTY;
		if (kmem_ro_pte_uffd_wp(pte))
			flags |= KMEM_RO_PM_UFFD_WP;
	} else if (!pte_none(pte)) {
		kmem_ro_leaf_t entry = kmem_ro_pte_leaf(pte);

		if (pte_swp_soft_dirty(pte))
			flags |= KMEM_RO_PM_SOFT_DIRTY;
		if (kmem_ro_pte_swp_uffd_wp(pte))
			flags |= KMEM_RO_PM_UFFD_WP;
		frame = pm_swap_frame(entry, 0);
		step = 1 << MAX_SWAPFILES_SHIFT;
		flags |= KMEM_RO_PM_SWAP;
		migration = kmem_ro_leaf_migration(entry);
		/* not softleaf_to_page(): no lock makes a migration entry stable */
		if (kmem_ro_leaf_has_pfn(entry))
			page = pfn_to_page(kmem_ro_leaf_pfn(entry));
		if (kmem_ro_leaf_uffd_wp(entry))
			flags |= KMEM_RO_PM_UFFD_WP;
		if (kmem_ro_leaf_guard(entry))
			flags |= KMEM_RO_PM_GUARD_REGION;
	}
	if (page) {
		struct folio *folio = page_folio(page);

		if (!folio_test_anon(folio))
			flags |= KMEM_RO_PM_FILE;
		if (kmem_ro_pte_exclusive(folio, page, flags & KMEM_RO_PM_PRESENT, migration))
			flags |= KMEM_RO_PM_EXCLUSIVE;
	}
	return (struct pm_entry){ frame, flags | vma_flags, step };
}

/*
 * A PTE table's pages up to @end: the dense case, where the per-page cost
 * is all there is, so bounds once and no call a page.
 */
static bool pm_ptes_flat(struct kmem_ro_pm *pm, pte_t *ptep, unsigned long end, u64 vma_flags)
{
	u64 *out = pm->kbuf.flat + pm->kcount;
	u64 room = min_t(u64, pm->kcap - pm->kcount, pm->ucap - pm->uused - pm->kcount);
	u64 mask = pm->show_pfn ? KMEM_RO_PM_FRAME_MASK : 0;
	unsigned long i, n = (end - pm->addr) >> PAGE_SHIFT, m = min_t(u64, n, room);
	struct pm_memmap mm = PM_MEMMAP_INIT;

	for (i = 0; i < m; i++) {
		struct pm_entry e = pm_pte(ptep_get_lockless(ptep + i), vma_flags,
					   &mm);

		out[i] = (e.frame & mask) | e.flags;
	}
	pm->kcount += m;
	pm->addr += m << PAGE_SHIFT;
	return m == n || pm_room(pm);
}

/* The same as runs; the empty entries of a sparse table cost a load each. */
static bool pm_ptes_runs(struct kmem_ro_pm *pm, pte_t *ptep, unsigned long end, u64 vma_flags)
{
	struct pm_memmap mm = PM_MEMMAP_INIT;
	bool show_pfn = pm->show_pfn;
	unsigned long none = 0;		/* empty entries not yet emitted */

	for (; pm->addr + (none << PAGE_SHIFT) < end; ptep++) {
		pte_t pte = ptep_get_lockless(ptep);
		struct pm_entry e;

		if (pte_none(pte)) {
			none++;
			continue;
		}
		if (none && !pm_emit(pm, none, 0, vma_flags, 0))
			return false;
		none = 0;
		e = pm_pte(pte, vma_flags, &mm);
		if (!show_pfn) {
			e.frame = 0;
			e.step = 0;
		}
		if (pm_run_extends(pm, e.frame, e.flags, e.step)) {
			pm->open.pages++;
			pm->addr += PAGE_SIZE;
		} else if (!pm_emit(pm, 1, e.frame, e.flags, e.step)) {
			return false;
		}
	}
	return !none || pm_emit(pm, none, 0, vma_flags, 0);
}

/*
 * A transparent huge PMD or its non-present entry, as pagemap_pmd_range()
 * (split out as pagemap_pmd_range_thp() by 7.2).
 */
static bool pm_thp(struct kmem_ro_pm *pm, struct vm_area_struct *vma, pmd_t pmd,
		   unsigned long end)
{
	unsigned long idx = (pm->addr & ~PMD_MASK) >> PAGE_SHIFT;
	u64 frame = 0, flags = 0, step = 0;
	struct page *page = NULL;
	bool present = pmd_present(pmd);
#if KMEM_RO_PM_EXCL_PRECISE
	struct folio *folio;
	int entire;
#endif

	if (vma->vm_flags & VM_SOFTDIRTY)
		flags |= KMEM_RO_PM_SOFT_DIRTY;
	if (present) {
		page = kmem_ro_thp_page(pmd);
		flags |= KMEM_RO_PM_PRESENT;
		if (pmd_soft_dirty(pmd))
			flags |= KMEM_RO_PM_SOFT_DIRTY;
		if (kmem_ro_pmd_uffd_wp(pmd))
			flags |= KMEM_RO_PM_UFFD_WP;
		frame = pmd_pfn(pmd) + idx;
		step = 1;
	} else {
		kmem_ro_leaf_t entry = kmem_ro_pmd_leaf(pmd);

		frame = pm_swap_frame(entry, idx);
		step = 1 << MAX_SWAPFILES_SHIFT;
		flags |= KMEM_RO_PM_SWAP;
		if (pmd_swp_soft_dirty(pmd))
			flags |= KMEM_RO_PM_SOFT_DIRTY;
		if (kmem_ro_pmd_swp_uffd_wp(pmd))
			flags |= KMEM_RO_PM_UFFD_WP;
		if (kmem_ro_leaf_has_pfn(entry))
			page = pfn_to_page(kmem_ro_leaf_pfn(entry));
	}
	if (page && !PageAnon(page))
		flags |= KMEM_RO_PM_FILE;
#if KMEM_RO_PM_EXCL_PRECISE
	if (!present || !page)
		return pm_emit(pm, (end - pm->addr) >> PAGE_SHIFT, frame, flags, step);
	folio = page_folio(page);
	entire = kmem_ro_entire_mapcount(folio);
	/* since 6.15 the PMD's first page answers for all of them */
	if (!KMEM_RO_PM_THP_EXCL_PER_PAGE) {
		if (kmem_ro_mapped_exclusively(folio, page, entire))
			flags |= KMEM_RO_PM_EXCLUSIVE;
		return pm_emit(pm, (end - pm->addr) >> PAGE_SHIFT, frame, flags, step);
	}
	/*
	 * Per page of the folio, emitted in stretches of equal flags.  A
	 * page's count is its folio's PMD mappings plus its own PTE ones.
	 * None of its pages can be exclusive past two PMD mappings, and when
	 * the folio's total is its PMD mappings alone, no page has a PTE
	 * mapping: either way no page needs reading, the common THP case.
	 */
	if (entire >= 2 || (folio_test_large(folio) && folio_large_mapcount(folio) == entire))
		return pm_emit(pm, (end - pm->addr) >> PAGE_SHIFT, frame,
			       flags | (entire == 1 ? KMEM_RO_PM_EXCLUSIVE : 0), step);
	while (pm->addr < end) {
		unsigned long n = 1, left = (end - pm->addr) >> PAGE_SHIFT;
		bool excl = kmem_ro_subpage_exclusive(page + idx, entire);

		while (n < left && excl == kmem_ro_subpage_exclusive(page + idx + n, entire))
			n++;
		if (!pm_emit(pm, n, frame, flags | (excl ? KMEM_RO_PM_EXCLUSIVE : 0), step))
			return false;
		idx += n;
		frame += n * step;
	}
	return true;
#else
	/* once, from the head page */
	if (page && kmem_ro_pte_exclusive(page_folio(page), page, present,
					  is_pmd_migration_entry(pmd)))
		flags |= KMEM_RO_PM_EXCLUSIVE;
	return pm_emit(pm, (end - pm->addr) >> PAGE_SHIFT, frame, flags, step);
#endif
}

/* A hugetlb entry at PMD or PUD level, as pagemap_hugetlb_range(). */
static bool pm_hugetlb(struct kmem_ro_pm *pm, struct vm_area_struct *vma,
		       pte_t *ptep, pte_t pte, unsigned long hmask, unsigned long end)
{
	u64 frame = 0, flags = 0, step = 0;

	if (vma->vm_flags & VM_SOFTDIRTY)
		flags |= KMEM_RO_PM_SOFT_DIRTY;
	if (pte_present(pte)) {
		struct page *page = pte_page(pte);

		if (!PageAnon(page))
			flags |= KMEM_RO_PM_FILE;
		if (kmem_ro_hugetlb_exclusive(page, ptep))
			flags |= KMEM_RO_PM_EXCLUSIVE;
		if (kmem_ro_huge_pte_uffd_wp(pte))
			flags |= KMEM_RO_PM_UFFD_WP;
		flags |= KMEM_RO_PM_PRESENT;
		frame = pte_pfn(pte) + ((pm->addr & ~hmask) >> PAGE_SHIFT);
		step = 1;
	} else if (kmem_ro_pte_swp_uffd_wp_any(pte)) {
		flags |= KMEM_RO_PM_UFFD_WP;
	}
	return pm_emit(pm, (end - pm->addr) >> PAGE_SHIFT, frame, flags, step);
}

/* One PMD's worth from pm->addr to @end, as the PMD entry @pmd says. */
static bool pm_pmd(struct kmem_ro_pm *pm, struct vm_area_struct *vma, pmd_t *pmdp,
		   pmd_t pmd, unsigned long end, u64 hole_flags)
{
	pte_t *ptep;

	if (is_vm_hugetlb_page(vma))
		return pm_hugetlb(pm, vma, (pte_t *)pmdp, __pte(pmd_val(pmd)), PMD_MASK, end);
	if (kmem_ro_pmd_is_huge(pmd))
		return pm_thp(pm, vma, pmd, end);
	if (pmd_bad(pmd))
		return pm_hole(pm, end, hole_flags);
	/* a PTE table stays while interrupts are off, as for GUP-fast */
	ptep = pte_offset_kernel(&pmd, pm->addr);
	pm->work_left -= (end - pm->addr) >> PAGE_SHIFT;
	if (pm->runs)
		return pm_ptes_runs(pm, ptep, end, hole_flags);
	return pm_ptes_flat(pm, ptep, end, hole_flags);
}

/*
 * Mapped PMDs described per interrupts-off step: 16 PTE tables' worth of
 * entries fill the kernel buffer anyway; a run of THPs or empty PMDs goes
 * on without the walk down from the PGD and the interrupt flag each time.
 */
#define PM_PMDS_PER_STEP	16

/*
 * One step from pm->addr: up to PM_PMDS_PER_STEP mapped PMDs and the
 * empty ones between, or a larger empty or huge entry, capped at @vend
 * and at the end of the PUD.  Interrupts are off throughout.
 */
static bool pm_step(struct kmem_ro_pm *pm, struct vm_area_struct *vma,
		    unsigned long vend, u64 hole_flags)
{
	unsigned long addr = pm->addr, end, next;
	pgd_t pgd, *pgdp = pgd_offset(vma->vm_mm, addr);
	p4d_t p4d, *p4dp;
	pud_t pud, *pudp;
	pmd_t *pmdp;
	int mapped;

	pgd = READ_ONCE(*pgdp);
	end = pgd_addr_end(addr, vend);
	if (pgd_none(pgd) || pgd_bad(pgd))
		return pm_hole(pm, end, hole_flags);
	p4dp = p4d_offset(&pgd, addr);
	p4d = READ_ONCE(*p4dp);
	end = p4d_addr_end(addr, vend);
	if (p4d_none(p4d) || p4d_bad(p4d))
		return pm_hole(pm, end, hole_flags);
	pudp = pud_offset(&p4d, addr);
	pud = READ_ONCE(*pudp);
	end = pud_addr_end(addr, vend);
	if (pud_none(pud))
		return pm_hole(pm, end, hole_flags);
	if (is_vm_hugetlb_page(vma) && (pud_leaf(pud) || !pud_present(pud)))
		return pm_hugetlb(pm, vma, (pte_t *)pudp, __pte(pud_val(pud)), PUD_MASK, end);
	if (pud_leaf(pud) || pud_bad(pud))	/* no 1G THP for anon/file here */
		return pm_hole(pm, end, hole_flags);

	pmdp = pmd_offset(&pud, addr);
	pm->work_left--;
	for (mapped = 0; addr < end && mapped < PM_PMDS_PER_STEP; mapped++) {
		/* empty PMDs, the sparse case: one hole, not a step each */
		for (next = addr; next < end && pmd_none(READ_ONCE(*pmdp)); pmdp++) {
			next = pmd_addr_end(next, end);
			pm->work_left--;
		}
		pm->work_left--;
		if (next > addr) {
			if (!pm_hole(pm, next, hole_flags))
				return false;
			addr = next;
			if (addr == end)
				break;
		}
		next = pmd_addr_end(addr, end);
		if (!pm_pmd(pm, vma, pmdp, READ_ONCE(*pmdp), next, hole_flags))
			return false;
		addr = next;
		pmdp++;
	}
	return true;
}

/*
 * Walk [pm->addr, end) of @mm, mmap lock held.  False when a buffer filled
 * or this hold's work is done: the caller drops the lock and calls again.
 */
static bool pm_walk(struct kmem_ro_pm *pm, struct mm_struct *mm, unsigned long end)
{
	pm->work_left = PM_WORK_PER_LOCK;
	while (pm->addr < end) {
		struct vm_area_struct *vma;
		unsigned long vend, irqflags;
		u64 hole_flags;
		bool ok = true;

		if (pm->work_left-- <= 0)
			return false;
		vma = find_vma(mm, pm->addr);
		if (!vma || vma->vm_start >= end)
			return pm_hole(pm, end, 0);
		if (vma->vm_start > pm->addr && !pm_hole(pm, vma->vm_start, 0))
			return false;
		vend = min(end, vma->vm_end);
		hole_flags = vma->vm_flags & VM_SOFTDIRTY ? KMEM_RO_PM_SOFT_DIRTY : 0;
		/* walk_page_test(): PFN maps are holes to pagemap */
		if (vma->vm_flags & VM_PFNMAP) {
			if (!pm_hole(pm, vend, hole_flags))
				return false;
			continue;
		}
		while (ok && pm->addr < vend) {
			local_irq_save(irqflags);
			ok = pm_step(pm, vma, vend, hole_flags);
			local_irq_restore(irqflags);
			cond_resched();
			if (ok && pm->work_left <= 0 && pm->addr < end)
				return false;
		}
		if (!ok)
			return false;
	}
	return true;
}

/* Out to the user in one copy: 0 or -EFAULT. */
static int pm_flush(struct kmem_ro_pm *pm, void __user *ubuf)
{
	size_t item = pm->runs ? sizeof(*pm->kbuf.run) : sizeof(*pm->kbuf.flat);

	if (copy_to_user(ubuf + pm->uused * item, pm->kbuf.ptr, pm->kcount * item))
		return -EFAULT;
	pm->uused += pm->kcount;
	pm->kcount = 0;
	return 0;
}

/* The process to walk: the caller's, or another one with CAP_SYS_PTRACE. */
static struct mm_struct *pm_get_mm(u32 pid_nr)
{
	struct task_struct *task;
	struct mm_struct *mm;
	struct pid *pid;

	if (!pid_nr) {
		task = current;
		get_task_struct(task);
	} else {
		pid = find_get_pid(pid_nr);
		task = pid ? get_pid_task(pid, PIDTYPE_PID) : NULL;
		put_pid(pid);
		if (!task)
			return ERR_PTR(-ESRCH);
	}
	mm = get_task_mm(task);		/* NULL for kernel threads and the dead */
	put_task_struct(task);
	if (!mm)
		return ERR_PTR(-ESRCH);
	if (mm != current->mm && !capable(CAP_SYS_PTRACE)) {
		mmput(mm);
		return ERR_PTR(-EPERM);
	}
	return mm;
}

/**
 * kmem_ro_pagemap_ioctl() - KMEM_RO_IOC_PAGEMAP
 * @file: the open device; its opener's CAP_SYS_ADMIN shows PFNs
 * @uarg: user pointer to struct kmem_ro_pagemap
 *
 * Return: 0 or a negative errno as documented in uapi/kmem_ro.h.
 */
long kmem_ro_pagemap_ioctl(struct file *file, void __user *uarg)
{
	struct kmem_ro_pagemap a;
	struct kmem_ro_pm pm = { };
	struct mm_struct *mm;
	size_t item;
	u64 usize;
	int err;

	err = kmem_ro_arg_in(&a, sizeof(a), KMEM_RO_PAGEMAP_SIZE_VER0, uarg, &usize);
	if (err)
		return err;
	pm.runs = a.flags & KMEM_RO_PAGEMAP_RUNS;
	item = pm.runs ? sizeof(struct kmem_ro_pagemap_run) : sizeof(u64);
	if ((a.flags & ~KMEM_RO_PAGEMAP_RUNS) || a.reserved0 || a.reserved[0] ||
	    a.reserved[1] || !PAGE_ALIGNED(a.start) || !PAGE_ALIGNED(a.end) ||
	    a.start >= a.end || a.end > TASK_SIZE_MAX || !a.buf_addr ||
	    a.buf_size < item)
		return -EINVAL;

	mm = pm_get_mm(a.pid);
	if (IS_ERR(mm))
		return PTR_ERR(mm);
	pm.kcap = min_t(u64, a.buf_size, PM_KBUF_BYTES) / item;
	if (pm.runs)
		pm.kcap = min(pm.kcap, PM_KBUF_RUNS);
	else	/* no more than the range has pages */
		pm.kcap = min_t(u64, pm.kcap, (a.end - a.start) >> PAGE_SHIFT);
	pm.kbuf.ptr = kvmalloc_array(pm.kcap, item, GFP_KERNEL);
	if (!pm.kbuf.ptr) {
		err = -ENOMEM;
		goto out_mmput;
	}
	pm.ucap = a.buf_size / item;
	pm.show_pfn = file_ns_capable(file, &init_user_ns, CAP_SYS_ADMIN);
	pm.addr = a.start;

	for (;;) {
		bool done;

		/*
		 * Holes cost nothing and a growing run takes no room: a range
		 * up to TASK_SIZE_MAX may take long.  Killed, stop between two
		 * holds (mmap_read_lock_killable() stops only a caller that
		 * waits for the lock).
		 */
		if (fatal_signal_pending(current)) {
			err = -EINTR;
			break;
		}
		err = mmap_read_lock_killable(mm);
		if (err)
			goto out_free;
		done = pm_walk(&pm, mm, a.end);
		mmap_read_unlock(mm);
		if (done && pm.runs && pm.open.pages && pm_room(&pm)) {
			pm.kbuf.run[pm.kcount++] = pm.open;
			pm.open.pages = 0;
		}
		err = pm_flush(&pm, u64_to_user_ptr(a.buf_addr));
		/* a last run that found the kernel buffer full goes next time */
		if (err || pm.full || (done && !pm.open.pages))
			break;
	}
	if (err)
		goto out_free;
	a.count = pm.uused;
	a.walk_end = pm.runs && pm.open.pages ? pm.open.start : pm.addr;
	err = kmem_ro_arg_out(uarg, &a, sizeof(a), usize);
out_free:
	kvfree(pm.kbuf.ptr);
out_mmput:
	mmput(mm);
	return err;
}
