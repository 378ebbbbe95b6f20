// SPDX-License-Identifier: GPL-2.0
/*
 * kmem_ro - read-only mmap of kernel text and System RAM.
 *
 * The file offset is a physical address (see uapi/kmem_ro.h).  Each mapping
 * keeps the list of PFN ranges it may show, taken from the resource tree at
 * mmap() time, so the fault path looks only at that list, the memory map
 * and the kernel's own direct map: no lock is shared between faulting
 * readers.  Pages are inserted on fault, by PMD where the kernel allows.
 */
#include <linux/ioport.h>
#include <linux/kref.h>
#include <linux/memory_hotplug.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/page-flags.h>
#include <linux/pfn_t.h>
#include <linux/slab.h>
#include <linux/version.h>
#include <asm/pgtable.h>

#include <kmem_ro.h>

#include "internal.h"

static bool mmap_ram = true;
module_param(mmap_ram, bool, 0644);
MODULE_PARM_DESC(mmap_ram,
		 "Allow mmap of all System RAM; when off only kernel text is mappable (default: on)");

/* PMD-sized PFN faults: 6.12's huge_fault for VM_PFNMAP; 6.1 has none. */
#ifdef CONFIG_ARCH_SUPPORTS_PMD_PFNMAP
#define KMEM_RO_HUGE	1
#else
#define KMEM_RO_HUGE	0
#endif

struct kmem_ro_pfns {
	unsigned long start;
	unsigned long end;		/* exclusive */
};

/* What one mapping may show; shared by the VMAs split or copied from it. */
struct kmem_ro_mapping {
	struct kref ref;
	unsigned int nr;
	struct kmem_ro_pfns pfns[];
};

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
static void kmem_ro_vma_flags(struct vm_area_struct *vma, vm_flags_t set,
			      vm_flags_t clear)
{
	vm_flags_mod(vma, set, clear);
}
#else
static void kmem_ro_vma_flags(struct vm_area_struct *vma, vm_flags_t set,
			      vm_flags_t clear)
{
	vma->vm_flags = (vma->vm_flags | set) & ~clear;
}
#endif

/**
 * kmem_ro_mmap_features() - KMEM_RO_FEAT_MMAP_* bits in effect now
 *
 * Return: the feature bits for struct kmem_ro_info.
 */
u64 kmem_ro_mmap_features(void)
{
	u64 features = KMEM_RO_FEAT_MMAP_TEXT;

	if (mmap_ram)
		features |= KMEM_RO_FEAT_MMAP_RAM;
	if (KMEM_RO_HUGE)
		features |= KMEM_RO_FEAT_MMAP_HUGE;
	return features;
}

static bool kmem_ro_allowed(const struct kmem_ro_mapping *map,
			    unsigned long pfn, unsigned long nr)
{
	unsigned int i;

	for (i = 0; i < map->nr; i++)
		if (pfn >= map->pfns[i].start && pfn + nr <= map->pfns[i].end)
			return true;
	return false;
}

/*
 * Can the kernel itself read this RAM page?  memfd_secret pages and pages
 * unmapped by debug_pagealloc or on a memory error are absent from the
 * direct map; offline and poisoned pages must not be touched at all.
 * Returns the direct-map level so huge faults can require a large page.
 */
static bool kmem_ro_readable(unsigned long pfn, unsigned int *level)
{
	struct page *page = pfn_to_online_page(pfn);
	pte_t *pte;

	if (!page || PageHWPoison(page) || PageOffline(page))
		return false;
	pte = lookup_address((unsigned long)pfn_to_kaddr(pfn), level);
	return pte && (pte_flags(*pte) & _PAGE_PRESENT);
}

static vm_fault_t kmem_ro_fault(struct vm_fault *vmf)
{
	struct kmem_ro_mapping *map = vmf->vma->vm_private_data;
	unsigned long pfn = vmf->pgoff;
	unsigned int level;

	if (!kmem_ro_allowed(map, pfn, 1))
		return VM_FAULT_SIGBUS;
	/* What the kernel cannot read reads as zeros, as in /proc/kcore. */
	if (!kmem_ro_readable(pfn, &level))
		pfn = my_zero_pfn(vmf->address);
	return vmf_insert_pfn(vmf->vma, vmf->address, pfn);
}

#if KMEM_RO_HUGE
/*
 * A PMD is inserted only where the direct map uses a large page: then no
 * page inside was carved out of it (memfd_secret, poison), and only the
 * memory map needs a look.  Anything else falls back to 4 KiB faults.
 */
static vm_fault_t kmem_ro_huge_fault(struct vm_fault *vmf, unsigned int order)
{
	struct vm_area_struct *vma = vmf->vma;
	struct kmem_ro_mapping *map = vma->vm_private_data;
	unsigned long haddr = vmf->address & PMD_MASK;
	unsigned long pfn, i;
	unsigned int level;

	if (order != PMD_ORDER || haddr < vma->vm_start ||
	    haddr + PMD_SIZE > vma->vm_end)
		return VM_FAULT_FALLBACK;
	pfn = vma->vm_pgoff + ((haddr - vma->vm_start) >> PAGE_SHIFT);
	if (!IS_ALIGNED(pfn, PTRS_PER_PMD) ||
	    !kmem_ro_allowed(map, pfn, PTRS_PER_PMD))
		return VM_FAULT_FALLBACK;
	if (!kmem_ro_readable(pfn, &level) || level < PG_LEVEL_2M)
		return VM_FAULT_FALLBACK;
	for (i = 1; i < PTRS_PER_PMD; i++) {
		struct page *page = pfn_to_online_page(pfn + i);

		if (!page || PageHWPoison(page) || PageOffline(page))
			return VM_FAULT_FALLBACK;
	}
	return vmf_insert_pfn_pmd(vmf, pfn_to_pfn_t(pfn), false);
}
#endif

static void kmem_ro_mapping_release(struct kref *ref)
{
	kfree(container_of(ref, struct kmem_ro_mapping, ref));
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

struct kmem_ro_ram_walk {
	struct kmem_ro_mapping *map;
	unsigned int cap;
};

/* Whole pages only: a page partly outside System RAM is not RAM. */
static int kmem_ro_ram_add(struct resource *res, void *arg)
{
	struct kmem_ro_ram_walk *walk = arg;
	unsigned long start = PFN_UP(res->start), end = PFN_DOWN(res->end + 1);

	if (start >= end)
		return 0;
	if (!walk->map)
		walk->cap++;
	else if (walk->map->nr < walk->cap)
		walk->map->pfns[walk->map->nr++] = (struct kmem_ro_pfns){ start, end };
	return 0;
}

/* System RAM inside [first, last) PFNs: counted, then gathered. */
static struct kmem_ro_mapping *kmem_ro_ram_mapping(unsigned long first,
						   unsigned long last)
{
	struct kmem_ro_ram_walk walk = { };
	u64 start = PFN_PHYS(first), end = PFN_PHYS(last) - 1;

	walk_iomem_res_desc(IORES_DESC_NONE, IORESOURCE_SYSTEM_RAM | IORESOURCE_BUSY,
			    start, end, &walk, kmem_ro_ram_add);
	if (!walk.cap)
		return ERR_PTR(-EINVAL);
	walk.map = kzalloc(struct_size(walk.map, pfns, walk.cap), GFP_KERNEL);
	if (!walk.map)
		return ERR_PTR(-ENOMEM);
	walk_iomem_res_desc(IORES_DESC_NONE, IORESOURCE_SYSTEM_RAM | IORESOURCE_BUSY,
			    start, end, &walk, kmem_ro_ram_add);
	if (!walk.map->nr) {
		kfree(walk.map);
		return ERR_PTR(-EINVAL);
	}
	return walk.map;
}

/* Kernel text only (mmap_ram=0): its PFNs, clipped to [first, last). */
static struct kmem_ro_mapping *kmem_ro_text_mapping(unsigned long first,
						    unsigned long last)
{
	struct kmem_ro_mapping *map;
	unsigned long start, end;

	kmem_ro_text_pfns(&start, &end);
	start = max(start, first);
	end = min(end, last);
	if (start >= end)
		return ERR_PTR(-EPERM);
	map = kzalloc(struct_size(map, pfns, 1), GFP_KERNEL);
	if (!map)
		return ERR_PTR(-ENOMEM);
	map->pfns[0] = (struct kmem_ro_pfns){ start, end };
	map->nr = 1;
	return map;
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

	if (vma->vm_flags & (VM_WRITE | VM_EXEC))
		return -EPERM;
	if (last > PHYS_PFN(U64_MAX))
		return -EINVAL;
	map = mmap_ram ? kmem_ro_ram_mapping(first, last) :
			 kmem_ro_text_mapping(first, last);
	if (IS_ERR(map))
		return PTR_ERR(map);
	kref_init(&map->ref);
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
