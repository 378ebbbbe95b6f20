// SPDX-License-Identifier: GPL-2.0
/*
 * kmem_ro - KMEM_RO_IOC_INFO: ABI handshake and kernel address-space layout.
 */
#include <linux/mm.h>
#include <linux/uaccess.h>
#include <asm/pgtable.h>

#include <kmem_ro.h>

#include "compat.h"
#include "internal.h"

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

/**
 * kmem_ro_info_ioctl() - KMEM_RO_IOC_INFO
 * @uarg: user pointer to struct kmem_ro_info
 * @ioctls: bit (1 << _IOC_NR(cmd)) of every ioctl the driver dispatches
 *	(kmem_ro_ioctls[] in main.c, whose handler gives it here)
 *
 * Return: 0 or a negative errno as documented in uapi/kmem_ro.h.
 */
long kmem_ro_info_ioctl(void __user *uarg, u64 ioctls)
{
	unsigned long text_start, text_end;
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
			KMEM_RO_FEAT_PROBE_FILTER | KMEM_RO_FEAT_PREAD |
			kmem_ro_mmap_features() | kmem_ro_vmcoreinfo(&info);
	info.ioctls = ioctls;
	info.pmd_size = PMD_SIZE;
	info.page_offset = PAGE_OFFSET;
	info.phys_base = phys_base;
	info.kernel_map = __START_KERNEL_map;
	kmem_ro_text_range(&text_start, &text_end);
	info.text_start = text_start;
	info.text_end = text_end;
	info.vmalloc_start = VMALLOC_START;
	info.vmalloc_end = VMALLOC_END + 1;
	info.modules_start = MODULES_VADDR;
	info.modules_end = MODULES_END;
	info.mmap_refused = kmem_ro_mmap_refused();

	err = kmem_ro_ram_ranges(u64_to_user_ptr(info.ram_addr), info.ram_cap,
				 &info.ram_count);
	if (err)
		return err;
	return kmem_ro_arg_out(uarg, &info, sizeof(info), usize);
}
