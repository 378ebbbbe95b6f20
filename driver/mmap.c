// SPDX-License-Identifier: GPL-2.0
/*
 * kmem_ro - read-only mmap of kernel text and, as an opt-in, System RAM.
 *
 * The file offset is a physical address (see uapi/kmem_ro.h).  Each mapping
 * keeps the list of PFN ranges it may show, taken from the resource tree at
 * mmap() time, so the fault path looks only at that list, the memory map
 * and the kernel's own direct map: no lock is shared between faulting
 * readers.  Pages are inserted on fault, the kernel's text by PMD where
 * the kernel allows.  Memory that goes offline is zapped from every
 * mapping (hotplug.c), and so is every mapping when mmap_ram is written.
 *
 * RAM beyond the text is an opt-in (mmap_ram=1): an entry outlives the
 * checks made at fault time, and the kernel tells a module nothing of a
 * page's later life (memfd_secret, hwpoison, memory-type changes); see
 * docs/security.md.  So a fault inserts only a page it may show now, as
 * it is.  For any other page it inserts the refused page, the driver's
 * own, filled with a pattern INFO gives (KMEM_RO_FEAT_MMAP_REFUSED): a
 * reader copying from the mapping is never killed by SIGBUS, and reads a
 * page showing the pattern again through the device.  Never the zero
 * page, which a page readable later would go on passing for.
 */
#include <linux/cc_platform.h>
#include <linux/kref.h>
#include <linux/memory_hotplug.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <asm/memtype.h>
#include <asm/pgtable.h>

#include <kmem_ro.h>

#include "compat.h"
#include "internal.h"
#include "ram.h"

static bool mmap_ram;

/*
 * Writing mmap_ram takes back what it gave: 1 -> 0 zaps every mapping,
 * after which the fault path shows nothing beyond the text; 0 -> 1 zaps
 * too, so pages refused meanwhile are faulted in anew.  The new value is
 * published before the zap (kmem_ro_hotplug_zap_all()'s barrier, R1-R2
 * of the pattern above kmem_ro_memory_notify()), and a fault reads it
 * again after its insert (kmem_ro_fault_kept()).  Writes are serialised
 * by kernel_param_lock(), which param_attr_store() takes.
 */
static int kmem_ro_mmap_ram_set(const char *val, const struct kernel_param *kp)
{
	bool old = READ_ONCE(mmap_ram), on;
	int err;

	/* param_set_bool()'s parsing: no value means "y" */
	err = kstrtobool(val ? val : "1", &on);
	if (err)
		return err;
	WRITE_ONCE(mmap_ram, on);	/* R1 */
	if (on != old)
		kmem_ro_hotplug_zap_all();
	return 0;
}

static const struct kernel_param_ops kmem_ro_mmap_ram_ops = {
	.set = kmem_ro_mmap_ram_set,
	.get = param_get_bool,
};

module_param_cb(mmap_ram, &kmem_ro_mmap_ram_ops, &mmap_ram, 0644);
MODULE_PARM_DESC(mmap_ram,
		 "Opt-in: allow mmap of all System RAM, whose mappings keep pages the kernel later hides (see kmem_ro(4)); default off: only kernel text is mappable. Setting it to 0 revokes RAM from every mapping");

/* The page a refused touch maps, and the u64 it repeats (never 0). */
static struct page *kmem_ro_refused_page;
static u64 kmem_ro_refused_pattern;

/* What one mapping may show; shared by the VMAs split or copied from it. */
struct kmem_ro_mapping {
	struct kref ref;
	struct kmem_ro_ram *ram;
};

/*
 * Memory encryption of any kind: SME, SEV and TDX report
 * CC_ATTR_MEM_ENCRYPT, but a Hyper-V isolation VM on 6.1 reports only
 * CC_ATTR_GUEST_MEM_ENCRYPT (hyperv_cc_platform_has() in
 * arch/x86/coco/core.c; from 6.3 it takes the AMD or Intel answers, as
 * hv_vtom_init() sets cc_vendor in 6.12 and 7.3).
 */
static bool kmem_ro_mem_encrypted(void)
{
	return cc_platform_has(CC_ATTR_MEM_ENCRYPT) ||
	       cc_platform_has(CC_ATTR_GUEST_MEM_ENCRYPT);
}

/*
 * RAM beyond the text is mappable: the parameter, no unaccepted memory, no
 * memory encryption (a confidential guest's pages shared with the host,
 * swiotlb and virtio rings, would be mapped through their private alias),
 * and PAT on (without it no page's memory type is known).
 */
static bool kmem_ro_mmap_ram(void)
{
	return READ_ONCE(mmap_ram) && !kmem_ro_ram_unaccepted() &&
	       !kmem_ro_mem_encrypted() && pat_enabled();
}

/* Is @pfn a page of the kernel text? */
static bool kmem_ro_pfn_in_text(unsigned long pfn)
{
	unsigned long start, end;

	kmem_ro_text_pfns(&start, &end);
	return pfn >= start && pfn < end;
}

/*
 * May @pfn be inserted now: online, healthy and in the kernel's direct map
 * (kmem_ro_page_readable()), and write-back.  The text needs no walk of
 * the direct map: the kernel runs from it, so nothing took it out of the
 * direct map (memfd_secret and debug_pagealloc take pages the allocator
 * hands out; the text is reserved, never freed), and the checks of
 * kmem_ro_page_online() tell a poisoned page.  A guest with unaccepted
 * memory refuses every page-table page that is not text, so a walk would
 * fail there for every text fault.  vmf_insert_pfn() gives the
 * entry the page's PAT memory type (track_pfn_insert() in 6.1 and 6.12,
 * pfnmap_setup_cachemode_pfn() in 7.3, both through lookup_memtype()); the
 * exported pat_pfn_immune_to_uc_mtrr() asks the same but is for KVM only
 * in 7.3 and does not tell write-through, so the page flags are read as
 * lookup_memtype() reads them (compat.h).  A type changed after the check
 * stays in the entry, as any later change does.
 */
static bool kmem_ro_page_mappable(unsigned long pfn)
{
	unsigned int level;

	if (kmem_ro_pfn_in_text(pfn)) {
		if (!kmem_ro_page_online(pfn))
			return false;
	} else if (!kmem_ro_page_readable(pfn, &level)) {
		return false;
	}
	return kmem_ro_page_memtype_wb(pfn_to_page(pfn));
}

/*
 * Does page @pfn of @map show itself now, rather than the refused page:
 * in the mapping's list, text or mmap_ram on, and mappable.
 */
static bool kmem_ro_fault_real(const struct kmem_ro_mapping *map, unsigned long pfn)
{
	return kmem_ro_ram_contains(map->ram, pfn, 1) &&
	       (kmem_ro_pfn_in_text(pfn) || kmem_ro_mmap_ram()) &&
	       kmem_ro_page_mappable(pfn);
}

/*
 * After an insert: does the entry stay?  A real page stays while it is
 * online and, beyond the text, while mmap_ram is on; the refused page
 * stays while the page would still be refused.  Either check fails only
 * once an event that zaps (memory offline or online, mmap_ram written)
 * may have passed between the fault's first look and its insert: then
 * the entry is zapped again and the touch faults once more.  The
 * barrier is F2 of the pattern above kmem_ro_memory_notify().
 */
static bool kmem_ro_fault_kept(struct vm_area_struct *vma, unsigned long addr,
			       unsigned long size, unsigned long pfn, bool real)
{
	const struct kmem_ro_mapping *map = vma->vm_private_data;
	bool kept;

	smp_mb();	/* F2 */
	if (real)
		kept = pfn_to_online_page(pfn) &&
		       (kmem_ro_pfn_in_text(pfn) || kmem_ro_mmap_ram());
	else
		kept = !kmem_ro_fault_real(map, pfn);
	if (!kept)
		kmem_ro_zap_vma(vma, addr, size);
	return kept;
}

/**
 * kmem_ro_mmap_features() - KMEM_RO_FEAT_MMAP_* bits in effect now
 *
 * Return: the feature bits for struct kmem_ro_info.
 */
u64 kmem_ro_mmap_features(void)
{
	u64 features = KMEM_RO_FEAT_MMAP_TEXT;

	features |= KMEM_RO_FEAT_MMAP_REFUSED;
	if (kmem_ro_mmap_ram())
		features |= KMEM_RO_FEAT_MMAP_RAM;
	if (KMEM_RO_HUGE)
		features |= KMEM_RO_FEAT_MMAP_HUGE;
	return features;
}

/**
 * kmem_ro_mmap_refused() - the pattern a refused page reads as
 *
 * Return: kmem_ro_info.mmap_refused.
 */
u64 kmem_ro_mmap_refused(void)
{
	return kmem_ro_refused_pattern;
}

/*
 * Holes, offline memory, RAM beyond the text with mmap_ram off, and what
 * the kernel cannot read now get the refused page.  It stays until a zap
 * (hotplug.c, mmap_ram written), so a page readable later is read
 * through the device by whoever finds the pattern (uapi/kmem_ro.h).
 */
static vm_fault_t kmem_ro_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct kmem_ro_mapping *map = vma->vm_private_data;
	unsigned long pfn = vmf->pgoff, shown;
	bool real = kmem_ro_fault_real(map, pfn);
	vm_fault_t ret;

	shown = real ? pfn : page_to_pfn(kmem_ro_refused_page);
	ret = vmf_insert_pfn(vma, vmf->address, shown);
	if (!kmem_ro_fault_kept(vma, vmf->address, PAGE_SIZE, pfn, real))
		return VM_FAULT_NOPAGE;
	return ret;
}

#if KMEM_RO_HUGE
/*
 * Only the kernel's text goes under a PMD, never RAM the page allocator
 * hands out: any free 2 MiB of it can become the huge zero folio later
 * (allocated on a read fault of anonymous memory, freed again by its
 * shrinker; Debian has no CONFIG_PERSISTENT_HUGE_ZERO_FOLIO), and 7.3's
 * zap_huge_pmd() takes a PMD over that folio's PFN for one with a
 * deposited page table whatever the VMA (has_deposited_pgtable(),
 * mm/huge_memory.c): munmap() withdraws a table that is not there, a NULL
 * dereference (mmap_test's huge_zero_folio_maps_and_unmaps).  6.12 asks
 * vma_is_special_huge() first.  The text is reserved, never allocated.
 */
static bool kmem_ro_pmd_in_text(unsigned long pfn)
{
	return kmem_ro_pfn_in_text(pfn) && kmem_ro_pfn_in_text(pfn + PTRS_PER_PMD - 1);
}

/*
 * Every page under the PMD is text: each needs only the checks of the
 * memory map and its memory type (kmem_ro_page_mappable()), no walk of
 * the direct map.  Anything else falls back to 4 KiB faults, which give
 * the refused page where a page is refused.
 */
static vm_fault_t kmem_ro_huge_fault(struct vm_fault *vmf, unsigned int order)
{
	struct vm_area_struct *vma = vmf->vma;
	struct kmem_ro_mapping *map = vma->vm_private_data;
	unsigned long haddr = vmf->address & PMD_MASK;
	unsigned long pfn, i;
	vm_fault_t ret;

	if (order != PMD_ORDER || haddr < vma->vm_start ||
	    haddr + PMD_SIZE > vma->vm_end)
		return VM_FAULT_FALLBACK;
	pfn = vma->vm_pgoff + ((haddr - vma->vm_start) >> PAGE_SHIFT);
	if (!IS_ALIGNED(pfn, PTRS_PER_PMD) || !kmem_ro_pmd_in_text(pfn) ||
	    !kmem_ro_ram_contains(map->ram, pfn, PTRS_PER_PMD))
		return VM_FAULT_FALLBACK;
	for (i = 0; i < PTRS_PER_PMD; i++)
		if (!kmem_ro_page_mappable(pfn + i))
			return VM_FAULT_FALLBACK;
	ret = kmem_ro_insert_pfn_pmd(vmf, pfn);
	if (!kmem_ro_fault_kept(vma, haddr, PMD_SIZE, pfn, true))
		return VM_FAULT_NOPAGE;
	return ret;
}
#endif

static void kmem_ro_mapping_release(struct kref *ref)
{
	struct kmem_ro_mapping *map = container_of(ref, struct kmem_ro_mapping, ref);

	kfree(map->ram);
	kfree(map);
}

/* A split, mremap or fork copies the VMA: it shares the mapping's list. */
static void kmem_ro_vm_open(struct vm_area_struct *vma)
{
	struct kmem_ro_mapping *map = vma->vm_private_data;

	kref_get(&map->ref);
}

static void kmem_ro_vm_close(struct vm_area_struct *vma)
{
	struct kmem_ro_mapping *map = vma->vm_private_data;

	kref_put(&map->ref, kmem_ro_mapping_release);
}

static const struct vm_operations_struct kmem_ro_vm_ops = {
	.open = kmem_ro_vm_open,
	.close = kmem_ro_vm_close,
	.fault = kmem_ro_fault,
#if KMEM_RO_HUGE
	.huge_fault = kmem_ro_huge_fault,
#endif
};

/* Kernel text only (mmap_ram=0): its PFNs, clipped to [first, last). */
static struct kmem_ro_ram *kmem_ro_text_ram(unsigned long first,
					    unsigned long last)
{
	struct kmem_ro_ram *ram;
	unsigned long start, end;

	kmem_ro_text_pfns(&start, &end);
	start = max(start, first);
	end = min(end, last);
	if (start >= end)
		return ERR_PTR(-EPERM);
	ram = kzalloc(struct_size(ram, pfns, 1), GFP_KERNEL);
	if (!ram)
		return ERR_PTR(-ENOMEM);
	ram->pfns[0] = (struct kmem_ro_pfns){ start, end };
	ram->nr = ram->cap = 1;
	return ram;
}

/**
 * kmem_ro_mmap() - mmap of /dev/kmem_ro
 * @file: the open device
 * @vma: the new mapping; vm_pgoff is the first physical page
 *
 * Return: 0, -EPERM (write or exec asked, or outside text with
 * mmap_ram=0), -EINVAL (no System RAM in range), -ENOMEM.
 */
int kmem_ro_mmap(struct file *file, struct vm_area_struct *vma)
{
	unsigned long first = vma->vm_pgoff, last = first + vma_pages(vma);
	struct kmem_ro_mapping *map;
	struct kmem_ro_ram *ram;

	if (vma->vm_flags & (VM_WRITE | VM_EXEC))
		return -EPERM;
	if (last > PHYS_PFN(U64_MAX))
		return -EINVAL;
	ram = kmem_ro_mmap_ram() ? kmem_ro_ram_get(first, last) : kmem_ro_text_ram(first, last);
	if (IS_ERR(ram))
		return PTR_ERR(ram);
	map = kmalloc(sizeof(*map), GFP_KERNEL);
	if (!map) {
		kfree(ram);
		return -ENOMEM;
	}
	kref_init(&map->ref);
	map->ram = ram;
	vma->vm_private_data = map;
	vma->vm_ops = &kmem_ro_vm_ops;
	/*
	 * Clearing VM_MAYWRITE also keeps MAP_PRIVATE from being a COW
	 * mapping, which VM_PFNMAP inserts would refuse anyway.
	 */
	kmem_ro_vma_flags(vma, VM_PFNMAP | VM_IO | VM_DONTEXPAND | VM_DONTDUMP,
			  VM_MAYWRITE | VM_MAYEXEC);
	return 0;
}

/**
 * kmem_ro_mmap_init() - the refused page and its pattern
 *
 * Return: 0 or -ENOMEM.
 */
int kmem_ro_mmap_init(void)
{
	u64 *words;
	unsigned int i;

	kmem_ro_refused_page = alloc_page(GFP_KERNEL);
	if (!kmem_ro_refused_page)
		return -ENOMEM;
	do
		kmem_ro_refused_pattern = get_random_u64();
	while (!kmem_ro_refused_pattern);
	words = page_address(kmem_ro_refused_page);
	for (i = 0; i < PAGE_SIZE / sizeof(*words); i++)
		words[i] = kmem_ro_refused_pattern;
	return 0;
}

/**
 * kmem_ro_mmap_exit() - free the refused page
 *
 * Called when no file is open any more, so no mapping shows it.
 */
void kmem_ro_mmap_exit(void)
{
	__free_page(kmem_ro_refused_page);
}

/**
 * kmem_ro_get_unmapped_area() - place mappings for PMD faults
 * @file: the open device
 * @addr: hint
 * @len: length
 * @pgoff: first physical page
 * @flags: mmap flags
 *
 * Align the address like the offset so 2 MiB of physical memory can sit
 * under one PMD.
 *
 * Return: the address, or a negative errno.
 */
unsigned long kmem_ro_get_unmapped_area(struct file *file, unsigned long addr,
					unsigned long len, unsigned long pgoff,
					unsigned long flags)
{
	return thp_get_unmapped_area(file, addr, len, pgoff, flags);
}
