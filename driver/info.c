// SPDX-License-Identifier: GPL-2.0
/*
 * kmem_ro - KMEM_RO_IOC_INFO: ABI handshake and kernel address-space layout.
 */
#include <linux/ioport.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <asm/pgtable.h>

#include <kmem_ro.h>

#include "compat.h"
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
 * kmem_ro_info_init() - find the kernel text range
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
int kmem_ro_info_init(void)
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
 * kmem_ro_text_pfns() - physical pages of the kernel text
 * @start: first PFN
 * @end: PFN past the text
 */
void kmem_ro_text_pfns(unsigned long *start, unsigned long *end)
{
	*start = PHYS_PFN(kmem_ro_text_start - __START_KERNEL_map + phys_base);
	*end = *start + PHYS_PFN(kmem_ro_text_end - kmem_ro_text_start);
}

/*
 * Where the VMCOREINFO note is: the same note /proc/kcore serves, which
 * names the kallsyms tables, so a reader without /proc/kallsyms (hidden
 * without CAP_SYSLOG) still finds every symbol.
 */
static u64 kmem_ro_vmcoreinfo(struct kmem_ro_info *info)
{
#ifdef KMEM_RO_VMCOREINFO
	info->vmcoreinfo_addr = paddr_vmcoreinfo_note();
	info->vmcoreinfo_size = VMCOREINFO_NOTE_SIZE;
	return KMEM_RO_FEAT_VMCOREINFO;
#else
	return 0;
#endif
}

struct kmem_ro_ram_walk {
	struct kmem_ro_range *ranges;
	u32 cap;
	u32 count;
};

static int kmem_ro_ram_add(struct resource *res, void *arg)
{
	struct kmem_ro_ram_walk *walk = arg;

	if (walk->count < walk->cap) {
		walk->ranges[walk->count].start = res->start;
		walk->ranges[walk->count].end = res->end + 1;
	}
	walk->count++;
	return 0;
}

/*
 * Top-level "System RAM" of /proc/iomem, as walk_system_ram_res() (not
 * exported) finds it: all of them, whatever their number.  Gathered into a
 * kernel buffer first, sized by a counting walk (again if hotplug added
 * ranges in between): the walk holds the resource lock, and copy_to_user()
 * may fault.
 */
static int kmem_ro_ram_ranges(struct kmem_ro_info *info)
{
	struct kmem_ro_range __user *uranges = u64_to_user_ptr(info->ram_addr);
	struct kmem_ro_ram_walk walk = { };
	u32 want;
	int err = 0;

	for (;;) {
		walk.count = 0;
		walk_iomem_res_desc(IORES_DESC_NONE,
				    IORESOURCE_SYSTEM_RAM | IORESOURCE_BUSY,
				    0, -1, &walk, kmem_ro_ram_add);
		want = min(walk.count, info->ram_cap);
		if (want <= walk.cap)
			break;
		kvfree(walk.ranges);
		walk.ranges = kvcalloc(want, sizeof(*walk.ranges), GFP_KERNEL);
		if (!walk.ranges)
			return -ENOMEM;
		walk.cap = want;
	}
	if (want && copy_to_user(uranges, walk.ranges, want * sizeof(*walk.ranges)))
		err = -EFAULT;
	info->ram_count = walk.count;
	kvfree(walk.ranges);
	return err;
}

/**
 * kmem_ro_info_ioctl() - KMEM_RO_IOC_INFO
 * @uarg: user pointer to struct kmem_ro_info
 *
 * Return: 0 or a negative errno as documented in uapi/kmem_ro.h.
 */
long kmem_ro_info_ioctl(void __user *uarg)
{
	struct kmem_ro_info info;
	u64 usize;
	int err;

	err = kmem_ro_arg_in(&info, sizeof(info), KMEM_RO_INFO_SIZE_VER0,
			     uarg, &usize);
	if (err)
		return err;
	if (info.flags || info.reserved[0] || info.reserved[1] || info.reserved2 ||
	    !info.ram_addr != !info.ram_cap)
		return -EINVAL;

	info.abi_version = KMEM_RO_ABI_VERSION;
	info.page_size = PAGE_SIZE;
	info.features = KMEM_RO_FEAT_INFO | KMEM_RO_FEAT_READV | KMEM_RO_FEAT_WALK |
			KMEM_RO_FEAT_PAGEMAP | KMEM_RO_FEAT_PROBES | KMEM_RO_FEAT_EVENTS |
			KMEM_RO_FEAT_PROBE_FILTER |
			kmem_ro_mmap_features() | kmem_ro_vmcoreinfo(&info);
	info.ioctls = BIT_ULL(_IOC_NR(KMEM_RO_IOC_INFO)) |
		      BIT_ULL(_IOC_NR(KMEM_RO_IOC_READV)) |
		      BIT_ULL(_IOC_NR(KMEM_RO_IOC_WALK)) |
		      BIT_ULL(_IOC_NR(KMEM_RO_IOC_PAGEMAP)) |
		      BIT_ULL(_IOC_NR(KMEM_RO_IOC_PROBE_ADD)) |
		      BIT_ULL(_IOC_NR(KMEM_RO_IOC_PROBE_ENABLE)) |
		      BIT_ULL(_IOC_NR(KMEM_RO_IOC_PROBE_DISABLE)) |
		      BIT_ULL(_IOC_NR(KMEM_RO_IOC_PROBE_DEL)) |
		      BIT_ULL(_IOC_NR(KMEM_RO_IOC_PROBE_STATS)) |
		      BIT_ULL(_IOC_NR(KMEM_RO_IOC_PROBE_LIST)) |
		      BIT_ULL(_IOC_NR(KMEM_RO_IOC_PROBE_FILTER)) |
		      BIT_ULL(_IOC_NR(KMEM_RO_IOC_EVENTS_SNAPSHOT));
	info.pmd_size = PMD_SIZE;
	info.page_offset = PAGE_OFFSET;
	info.phys_base = phys_base;
	info.kernel_map = __START_KERNEL_map;
	info.text_start = kmem_ro_text_start;
	info.text_end = kmem_ro_text_end;
	info.vmalloc_start = VMALLOC_START;
	info.vmalloc_end = VMALLOC_END + 1;
	info.modules_start = MODULES_VADDR;
	info.modules_end = MODULES_END;

	err = kmem_ro_ram_ranges(&info);
	if (err)
		return err;
	return kmem_ro_arg_out(uarg, &info, sizeof(info), usize);
}
