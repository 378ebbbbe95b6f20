/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * kmem_ro - read-only access to live kernel memory for monitoring tools.
 *
 * The ABI of /dev/kmem_ro.  Shared by the driver and userspace; includes
 * only <linux/types.h> and <linux/ioctl.h>.
 *
 * Conventions, common to every ioctl:
 *  - The argument struct starts with __u64 size (sizeof the struct as the
 *    caller knows it) and __u64 flags.  A size larger than PAGE_SIZE fails
 *    with E2BIG; one smaller than the first published layout (the _SIZE_VER0
 *    constant) with EINVAL.  A larger struct than the driver knows is
 *    accepted when its unknown tail is zero, else E2BIG.  Output is copied
 *    back up to the smaller of both sizes.
 *  - Unknown flags and non-zero reserved fields: EINVAL.
 *  - User pointers travel as __u64 xxx_addr with a xxx_cap or xxx_size;
 *    an address without its size, or a size without its address: EINVAL.
 *    An unreadable or unwritable user pointer: EFAULT.
 *  - Unknown ioctl numbers: ENOTTY.
 *  - Errors are returned as -1 with errno set; each ioctl lists its errnos.
 *
 * Opening the device: O_RDONLY only (any write access: EPERM).  Refused with
 * EPERM exactly when /proc/kcore is, i.e. under lockdown=confidentiality
 * (LOCKDOWN_KCORE); also EPERM without CAP_SYS_RAWIO when the module
 * parameter require_rawio is set.
 */
#ifndef _UAPI_LINUX_KMEM_RO_H
#define _UAPI_LINUX_KMEM_RO_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define KMEM_RO_DEVICE		"/dev/kmem_ro"

/*
 * ABI version: bumped when an ioctl is added or a struct grows.  Callers
 * should test the ioctls and features bitmasks, not compare versions.
 */
#define KMEM_RO_ABI_VERSION	1

/* ioctl magic: 0xB7, sequence numbers 0x00-0x3f reserved for kmem_ro. */
#define KMEM_RO_IOC_MAGIC	0xB7

/* Feature bits reported in kmem_ro_info.features. */
#define KMEM_RO_FEAT_INFO	(1ULL << 0)	/* KMEM_RO_IOC_INFO */
#define KMEM_RO_FEAT_MMAP_TEXT	(1ULL << 1)	/* mmap of kernel text */
#define KMEM_RO_FEAT_MMAP_RAM	(1ULL << 2)	/* mmap of System RAM (mmap_ram=1) */
#define KMEM_RO_FEAT_MMAP_HUGE	(1ULL << 3)	/* mmap faults in PMD-sized pieces */

/*
 * mmap(2) of /dev/kmem_ro: the file offset is a physical address.
 *
 * One address model covers both regions a caller can map:
 *  - direct map:   phys = vaddr - page_offset
 *  - kernel image: phys = vaddr - kernel_map + phys_base
 *    (text_start .. modules_start; see struct kmem_ro_info)
 *
 * Rules:
 *  - PROT_READ only.  PROT_WRITE (MAP_PRIVATE) or PROT_EXEC: EPERM;
 *    MAP_SHARED with PROT_WRITE is refused by the VFS first (EACCES: the
 *    fd is read-only).  VM_MAYWRITE and VM_MAYEXEC are cleared, so a later
 *    mprotect() to write or execute fails (EACCES).
 *  - The range must intersect System RAM (with mmap_ram=0: lie inside the
 *    kernel text), else EINVAL; with mmap_ram=0 a range outside the text:
 *    EPERM.  Pages of the range that are not System RAM (holes, MMIO,
 *    firmware-reserved) raise SIGBUS when touched and are never accessed.
 *  - RAM pages the kernel itself cannot read through its direct map
 *    (memfd_secret, unmapped by debug_pagealloc or on hardware poison),
 *    offline or hwpoisoned pages read as zeros, as /proc/kcore does.  The
 *    check is made when a page is first faulted in; see README, Security.
 *  - Pages are inserted on fault.  Where KMEM_RO_FEAT_MMAP_HUGE is set,
 *    PMD-sized pieces are inserted when the virtual address and the
 *    offset are equally aligned (the driver's get_unmapped_area picks
 *    such addresses) and the kernel's own direct map uses a large page
 *    there.
 *  - The mapping cannot grow (mremap: EFAULT) and is never dumped.
 */

/**
 * struct kmem_ro_range - a physical address range, end exclusive
 * @start: first byte of the range
 * @end: first byte past the range
 */
struct kmem_ro_range {
	__u64 start;
	__u64 end;
};

/**
 * struct kmem_ro_info - KMEM_RO_IOC_INFO argument: ABI and kernel layout
 * @size: in: sizeof(struct kmem_ro_info) as the caller knows it
 * @flags: in: must be 0
 * @abi_version: out: KMEM_RO_ABI_VERSION of the driver
 * @page_size: out: PAGE_SIZE
 * @features: out: KMEM_RO_FEAT_* bits the driver supports
 * @ioctls: out: bit (1 << _IOC_NR(cmd)) set for every supported ioctl
 * @pmd_size: out: PMD_SIZE, the huge mapping size
 * @page_offset: out: virtual base of the direct map of physical memory
 *	(PAGE_OFFSET): kernel virtual address = @page_offset + physical
 * @phys_base: out: physical load offset of the kernel image (phys_base)
 * @kernel_map: out: base of the kernel image mapping (__START_KERNEL_map):
 *	an image address is at physical vaddr - @kernel_map + @phys_base
 * @text_start: out: start of kernel text, with KASLR applied (_stext)
 * @text_end: out: end of the executable kernel text mapping
 *	(_etext rounded up to @page_size)
 * @vmalloc_start: out: first address of the vmalloc area
 * @vmalloc_end: out: first address past the vmalloc area
 * @modules_start: out: first address of the module area
 * @modules_end: out: first address past the module area
 * @ram_addr: in: user pointer to an array of struct kmem_ro_range, or 0
 * @ram_cap: in: number of entries @ram_addr can hold (0 iff @ram_addr is 0)
 * @ram_count: out: number of System RAM ranges (as in /proc/iomem); may be
 *	larger than @ram_cap, in which case only @ram_cap were written
 * @reserved: in: must be 0; out: 0
 *
 * Errors: EFAULT (bad @ram_addr or argument pointer), EINVAL (flags,
 * @reserved, @ram_addr/@ram_cap mismatch, size below KMEM_RO_INFO_SIZE_VER0),
 * E2BIG (size above PAGE_SIZE or unknown non-zero tail), ENOMEM.
 */
struct kmem_ro_info {
	__u64 size;
	__u64 flags;
	__u32 abi_version;
	__u32 page_size;
	__u64 features;
	__u64 ioctls;
	__u64 pmd_size;
	__u64 page_offset;
	__u64 phys_base;
	__u64 kernel_map;
	__u64 text_start;
	__u64 text_end;
	__u64 vmalloc_start;
	__u64 vmalloc_end;
	__u64 modules_start;
	__u64 modules_end;
	__u64 ram_addr;
	__u32 ram_cap;
	__u32 ram_count;
	__u64 reserved[2];
};

#define KMEM_RO_INFO_SIZE_VER0	152	/* sizeof first published */

#define KMEM_RO_IOC_INFO	_IOWR(KMEM_RO_IOC_MAGIC, 0x00, struct kmem_ro_info)

#endif /* _UAPI_LINUX_KMEM_RO_H */
