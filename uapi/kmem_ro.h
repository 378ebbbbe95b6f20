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
 * Opening the device: the lockdown check comes first, as in open_kcore():
 * EPERM under lockdown=confidentiality (LOCKDOWN_KCORE), exactly when
 * /proc/kcore refuses.  Then O_RDONLY only (any write access: EPERM).
 * Unlike /proc/kcore, CAP_SYS_RAWIO is not demanded: whoever may open the
 * node (root:kmem_ro 0440, set by the udev rule) may read kernel memory.
 * The module parameter require_rawio=1 demands CAP_SYS_RAWIO too (EPERM).
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
#define KMEM_RO_ABI_VERSION	4

/*
 * ioctl magic: 0xBE, sequence numbers 0x00-0x3f reserved for kmem_ro.
 * 0xBE is listed nowhere in Documentation/userspace-api/ioctl/
 * ioctl-number.rst of Linux 7.3 and no header or driver of that tree uses
 * it as an ioctl type (0xB7, our first pick, is nsfs' NSIO and
 * remoteproc's).
 *
 * A command is known by magic, number and direction (_IOWR).  The size
 * _IOWR() encodes is the caller's sizeof, which may be older or newer
 * than the driver's: it must be at least the struct's _SIZE_VER0, and is
 * otherwise not used.  The struct's own size field says how many bytes
 * the caller passed, so a struct that grows keeps its command.
 */
#define KMEM_RO_IOC_MAGIC	0xBE

/* Feature bits reported in kmem_ro_info.features. */
#define KMEM_RO_FEAT_INFO	(1ULL << 0)	/* KMEM_RO_IOC_INFO */
#define KMEM_RO_FEAT_MMAP_TEXT	(1ULL << 1)	/* mmap of kernel text */
#define KMEM_RO_FEAT_MMAP_RAM	(1ULL << 2)	/* mmap of System RAM (opt-in mmap_ram=1) */
#define KMEM_RO_FEAT_MMAP_HUGE	(1ULL << 3)	/* the text faults in PMD-sized pieces */
#define KMEM_RO_FEAT_READV	(1ULL << 4)	/* KMEM_RO_IOC_READV */
#define KMEM_RO_FEAT_WALK	(1ULL << 5)	/* KMEM_RO_IOC_WALK */
#define KMEM_RO_FEAT_PAGEMAP	(1ULL << 6)	/* KMEM_RO_IOC_PAGEMAP */
#define KMEM_RO_FEAT_PROBES	(1ULL << 7)	/* KMEM_RO_IOC_PROBE_* */
#define KMEM_RO_FEAT_EVENTS	(1ULL << 8)	/* kmem_ro_events.h, KMEM_RO_IOC_EVENTS_SNAPSHOT */
#define KMEM_RO_FEAT_VMCOREINFO	(1ULL << 9)	/* kmem_ro_info.vmcoreinfo_* */
#define KMEM_RO_FEAT_PROBE_FILTER	(1ULL << 10)	/* KMEM_RO_IOC_PROBE_FILTER */
#define KMEM_RO_FEAT_PREAD	(1ULL << 11)	/* pread()/read() by address: KMEM_RO_READ_OFFSET() */
#define KMEM_RO_FEAT_MMAP_REFUSED	(1ULL << 12)	/* refused pages read as kmem_ro_info.mmap_refused */

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
 *  - By default (module parameter mmap_ram=0) only the kernel text is
 *    mappable: a range outside the text: EPERM.  System RAM is mappable
 *    only with the opt-in mmap_ram=1 (KMEM_RO_FEAT_MMAP_RAM set), then the
 *    range must intersect System RAM, else EINVAL.
 *  - A page is checked when it is first touched.  No touch of a mapping
 *    raises SIGBUS (KMEM_RO_FEAT_MMAP_REFUSED): a page the driver will not
 *    show is never accessed, and the touch maps the driver's "refused
 *    page" there instead, every aligned __u64 of it equal to
 *    kmem_ro_info.mmap_refused, a non-zero value chosen at load.  Refused:
 *    pages of the range that are not System RAM (holes, MMIO,
 *    firmware-reserved) or not text in a text mapping; RAM outside the
 *    text while mmap_ram is 0; RAM the kernel itself cannot read through
 *    its direct map (memfd_secret, unmapped by debug_pagealloc or on
 *    hardware poison); logically offline, hwpoisoned and offline pages;
 *    pages whose memory type is not write-back.  (/proc/kcore shows such
 *    pages as zeros.)  Never the zero page: a page readable later must
 *    not pass for zeros.  A caller that copied from a page reads one
 *    aligned __u64 of it after the copy; if it equals the pattern, it
 *    reads that page again with pread() (KMEM_RO_READ_OFFSET()), which
 *    gives the data or the errno the default path gives.  A real page
 *    that holds the pattern costs only that pread().  libkmemdev's
 *    kmemdev_read() does this for every read.  Drivers without the
 *    feature bit raise SIGBUS on a refused page.
 *  - A refused entry stays until it is zapped: munmap(), memory of it
 *    going online, or mmap_ram being written.  An entry becomes the
 *    refused page only after a zap, so a copy that read any of the
 *    pattern is followed by a check that sees it.
 *  - Revocation.  Memory that goes offline (memory hotplug) is zapped
 *    from every mapping, its pages refused until online again.  Setting
 *    mmap_ram from 1 to 0 zaps every mapping of every process: from then
 *    on only the kernel text is shown, other RAM is the refused page, and
 *    a new mmap() of RAM is EPERM.  Setting it to 1 zaps again, so pages
 *    refused meanwhile are faulted in anew.  Any other later change to a
 *    page already faulted in (memfd_secret or poison taking it, a new
 *    memory type) is not seen: the mapping keeps showing the page.  That
 *    is what mmap_ram=1 gives up; see docs/security.md.
 *  - RAM is never mappable on a guest with unaccepted memory (TDX,
 *    SEV-SNP), with memory encryption (SME, SEV, SEV-ES, SNP, TDX:
 *    CC_ATTR_MEM_ENCRYPT; Hyper-V isolation VMs, which 6.1 reports only
 *    as CC_ATTR_GUEST_MEM_ENCRYPT: either refuses) or without PAT: only
 *    the kernel text, as with mmap_ram=0, and KMEM_RO_FEAT_MMAP_RAM is
 *    clear.  A text fault needs no walk of the direct map, so the text is
 *    mappable (KMEM_RO_FEAT_MMAP_TEXT) on every such guest too.
 *  - Pages are inserted on fault.  Where KMEM_RO_FEAT_MMAP_HUGE is set,
 *    PMD-sized pieces of the kernel text are inserted when the virtual
 *    address and the offset are equally aligned (the driver's
 *    get_unmapped_area picks such addresses) and the kernel's own direct
 *    map uses a large page there.  RAM beyond the text is always
 *    inserted by page (docs/design.md says why).
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
 * @vmcoreinfo_addr: out: physical address of the kernel's VMCOREINFO ELF
 *	note (paddr_vmcoreinfo_note(), the note /proc/kcore and kdump carry:
 *	OSRELEASE, KERNELOFFSET, SYMBOL(kallsyms_names) and the other
 *	kallsyms tables, ...); readable with READV at @page_offset +
 *	@vmcoreinfo_addr.  0 (and no KMEM_RO_FEAT_VMCOREINFO) on a kernel
 *	built without it.  Since ABI version 2.
 * @vmcoreinfo_size: out: bytes reserved for the note (VMCOREINFO_NOTE_SIZE);
 *	the note itself ends with its last descriptor
 * @reserved2: in: must be 0; out: 0
 * @mmap_refused: out: the pattern a refused page of a mapping reads as:
 *	this non-zero value in every aligned __u64 of the page, chosen at
 *	random when the driver loads (KMEM_RO_FEAT_MMAP_REFUSED; see the
 *	mmap rules above).  Since ABI version 4.
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
	__u64 vmcoreinfo_addr;
	__u32 vmcoreinfo_size;
	__u32 reserved2;
	__u64 mmap_refused;
};

#define KMEM_RO_INFO_SIZE_VER0	152	/* sizeof first published */
#define KMEM_RO_INFO_SIZE_VER1	168	/* + vmcoreinfo_addr, _size */
#define KMEM_RO_INFO_SIZE_VER2	176	/* + mmap_refused */

#define KMEM_RO_IOC_INFO	_IOWR(KMEM_RO_IOC_MAGIC, 0x00, struct kmem_ro_info)

/*
 * Reading kernel memory by address (READV and WALK).  Any kernel virtual
 * address may be asked for; each page is checked before it is touched:
 *  - EINVAL: below the direct map (user space, non-canonical, guard hole)
 *  - EFAULT: not mapped in the kernel, or the read faulted
 *  - ENXIO:  mapped to something that is not System RAM (ioremap, MMIO,
 *            firmware holes): never touched
 *  - EPERM:  RAM the kernel hides from itself, or that /proc/kcore would
 *            not read: pages missing from the direct map (memfd_secret),
 *            offline or logically offline pages, hwpoisoned pages and
 *            every page of a poisoned hugetlb folio, the GART aperture,
 *            and (on a guest with unaccepted memory) all RAM but the
 *            kernel text
 * A kernel page-table page on the way to a non-direct-map address is
 * checked the same way before it is read: ENXIO or EPERM as above.
 * Whatever alias was asked for (kernel image, vmalloc, modules, fixmap),
 * the PFN behind it is checked and the bytes are copied from the direct
 * map of that PFN, through a kernel bounce buffer.
 */

/*
 * pread(fd, buf, len, KMEM_RO_READ_OFFSET(addr)) reads @len bytes of kernel
 * virtual address @addr with the checks above (KMEM_RO_FEAT_PREAD).  The
 * offset is the address with its top bit cleared: pread64() refuses every
 * negative offset (ksys_pread64(): "if (pos < 0) return -EINVAL") before a
 * driver sees it, whatever FMODE_UNSIGNED_OFFSET / FOP_UNSIGNED_OFFSET say,
 * and every x86-64 kernel address has bit 63 set.  read() reads at the
 * file position the same way (lseek() SEEK_SET and SEEK_CUR move it).
 * Return: the bytes read, @len unless a page failed: then the bytes before
 * that page (a short read), or, when the first page fails, -1 with errno
 * EINVAL, EFAULT, ENXIO or EPERM as above (EFAULT also for a buffer that
 * cannot be written; a buffer that faults part way gives the bytes before
 * it), ENOMEM.  A pending signal stops a long read after a whole number of
 * page-sized pieces from @addr, never before the first: the bytes so far.  @len is capped by the kernel at
 * MAX_RW_COUNT (2 GiB - 4 KiB).
 */
#define KMEM_RO_READ_TOP_BIT		(1ULL << 63)
#define KMEM_RO_READ_OFFSET(addr)	((__s64)((__u64)(addr) & ~KMEM_RO_READ_TOP_BIT))
#define KMEM_RO_READ_ADDR(offset)	((__u64)(offset) | KMEM_RO_READ_TOP_BIT)

/* Limits of one KMEM_RO_IOC_READV call; beyond them: E2BIG. */
#define KMEM_RO_READV_MAX_SEGS	1024
#define KMEM_RO_READV_MAX_BYTES	(16U << 20)

/**
 * struct kmem_ro_iov - one segment of a vectored read
 * @addr: in: kernel virtual address
 * @len: in: bytes to read
 * @buf: in: user buffer of at least @len bytes
 * @result: out: bytes read (short if a later page failed), or a negative
 *	errno from the list above; -EFAULT also when @buf is not writable
 */
struct kmem_ro_iov {
	__u64 addr;
	__u64 len;
	__u64 buf;
	__s64 result;
};

/**
 * struct kmem_ro_readv - KMEM_RO_IOC_READV argument
 * @size: in: sizeof(struct kmem_ro_readv)
 * @flags: in: must be 0
 * @iov_addr: in: user pointer to @iov_count struct kmem_ro_iov
 * @iov_count: in: number of segments, at most KMEM_RO_READV_MAX_SEGS
 * @done: out: segments processed; their @result fields are written.  Less
 *	than @iov_count when a signal arrived: the call still returns 0, so
 *	completed results are never lost; resubmit the rest.  The only field
 *	of the argument the call writes.
 * @reserved: in: must be 0
 *
 * Errors of the call itself: EINVAL (flags, reserved, @iov_addr/@iov_count
 * mismatch, size), E2BIG (too many segments or bytes, size), EFAULT (the
 * argument or the segment array), EINTR (a signal before any segment),
 * ENOMEM.  Per-segment errors go to each @result.
 */
struct kmem_ro_readv {
	__u64 size;
	__u64 flags;
	__u64 iov_addr;
	__u32 iov_count;
	__u32 done;
	__u64 reserved[2];
};

#define KMEM_RO_READV_SIZE_VER0	48

#define KMEM_RO_IOC_READV	_IOWR(KMEM_RO_IOC_MAGIC, 0x01, struct kmem_ro_readv)

/* Limits of one KMEM_RO_IOC_WALK call; beyond them: E2BIG. */
#define KMEM_RO_WALK_MAX_FIELDS		64
#define KMEM_RO_WALK_MAX_RECORD		4096	/* bytes per node */
#define KMEM_RO_WALK_MAX_NODES		(1U << 20)

/* kmem_ro_walk.flags */
#define KMEM_RO_WALK_NODE_ADDR	(1ULL << 0)	/* prefix each record with the node address */

/* kmem_ro_walk.status */
#define KMEM_RO_WALK_DONE		0	/* came back to the head */
#define KMEM_RO_WALK_MAX_REACHED	1	/* max_nodes nodes written, more follow */
#define KMEM_RO_WALK_BUF_FULL		2	/* buffer full, more follow */
#define KMEM_RO_WALK_LOOP		3	/* a cycle that does not pass the head */
#define KMEM_RO_WALK_FAULT		4	/* @fault_addr could not be read: @fault_errno */
#define KMEM_RO_WALK_INTERRUPTED	5	/* a signal arrived */

/**
 * struct kmem_ro_field - one field to copy out of every node
 * @offset: in: byte offset inside the node (the containing struct)
 * @len: in: bytes, 1 to KMEM_RO_WALK_MAX_RECORD
 */
struct kmem_ro_field {
	__u32 offset;
	__u32 len;
};

/**
 * struct kmem_ro_walk - KMEM_RO_IOC_WALK argument: gather fields of a list
 * @size: in: sizeof(struct kmem_ro_walk)
 * @flags: in: KMEM_RO_WALK_* flags
 * @head: in: kernel address of the struct list_head that heads the list
 * @start: in: 0 to begin at @head->next, or a @next from an earlier call
 *	to resume there
 * @link_offset: in: offset of the struct list_head member inside a node;
 *	node = link - @link_offset
 * @fields_addr: in: user pointer to @fields_count struct kmem_ro_field
 * @fields_count: in: 1 to KMEM_RO_WALK_MAX_FIELDS
 * @max_nodes: in: stop after this many nodes; 0 means
 *	KMEM_RO_WALK_MAX_NODES
 * @buf_addr: in: user buffer for the packed records
 * @buf_size: in: its size
 * @nodes: out: records written.  A record is the node address (8 bytes,
 *	with KMEM_RO_WALK_NODE_ADDR) followed by each field's bytes in
 *	order, unpadded.
 * @status: out: KMEM_RO_WALK_* status
 * @next: out: with MAX_REACHED, BUF_FULL or INTERRUPTED, the link to pass
 *	as @start to continue
 * @fault_addr: out: with KMEM_RO_WALK_FAULT, the address that failed
 * @fault_errno: out: with KMEM_RO_WALK_FAULT, why (negative errno, as for
 *	READV)
 * @reserved0: in: must be 0
 * @reserved: in: must be 0
 *
 * The walk follows ->next until it returns to @head.  It takes no lock: the
 * list may change while it is walked, and every read is checked as for
 * READV, so a torn or corrupt list ends the walk with a status, never an
 * oops.  Cycles that miss the head are found with Brent's algorithm in
 * O(1) memory.
 *
 * Errors of the call: EINVAL (flags, reserved, size, @head or @start
 * outside the kernel, no fields, a field of length 0, address/size
 * mismatch, a buffer smaller than one record), E2BIG (too many fields,
 * record too large, size), EFAULT (argument, fields, buffer), EINTR (a
 * signal before any node), ENOMEM.
 */
struct kmem_ro_walk {
	__u64 size;
	__u64 flags;
	__u64 head;
	__u64 start;
	__u64 link_offset;
	__u64 fields_addr;
	__u32 fields_count;
	__u32 max_nodes;
	__u64 buf_addr;
	__u64 buf_size;
	__u32 nodes;
	__u32 status;
	__u64 next;
	__u64 fault_addr;
	__s32 fault_errno;
	__u32 reserved0;
	__u64 reserved[2];
};

#define KMEM_RO_WALK_SIZE_VER0	120

#define KMEM_RO_IOC_WALK	_IOWR(KMEM_RO_IOC_MAGIC, 0x02, struct kmem_ro_walk)

/*
 * Page-table entries of a process, as /proc/PID/pagemap encodes them
 * (Documentation/admin-guide/mm/pagemap.rst): bits 0-54 are the PFN of a
 * present page, or swap type (bits 0-4) and offset (5-54) of a swapped one.
 */
#define KMEM_RO_PM_FRAME_MASK	((1ULL << 55) - 1)
#define KMEM_RO_PM_SOFT_DIRTY	(1ULL << 55)
#define KMEM_RO_PM_EXCLUSIVE	(1ULL << 56)	/* page mapped exactly once */
#define KMEM_RO_PM_UFFD_WP	(1ULL << 57)
#define KMEM_RO_PM_FILE		(1ULL << 61)	/* file page or shared anon */
#define KMEM_RO_PM_SWAP		(1ULL << 62)
#define KMEM_RO_PM_PRESENT	(1ULL << 63)

/* kmem_ro_pagemap.flags */
#define KMEM_RO_PAGEMAP_RUNS	(1ULL << 0)	/* runs, not one __u64 per page */

/**
 * struct kmem_ro_pagemap_run - pages with equal flags and contiguous frames
 * @start: user virtual address of the first page
 * @pages: number of pages
 * @flags: entry bits 55-63, the same for every page of the run
 * @frame: bits 0-54 of the first page's entry.  A present run's PFNs
 *	follow on one by one, a swapped run's offsets too; other runs, and
 *	every run when PFNs are hidden, have frame 0.  Expanding the runs
 *	gives the flat output exactly.
 */
struct kmem_ro_pagemap_run {
	__u64 start;
	__u64 pages;
	__u64 flags;
	__u64 frame;
};

/**
 * struct kmem_ro_pagemap - KMEM_RO_IOC_PAGEMAP argument
 * @size: in: sizeof(struct kmem_ro_pagemap)
 * @flags: in: KMEM_RO_PAGEMAP_* flags
 * @pid: in: process, in the caller's PID namespace; 0 for the caller
 * @reserved0: in: must be 0
 * @start: in: first user address, page aligned
 * @end: in: end of the range (exclusive), page aligned, above @start
 * @buf_addr: in: user buffer: __u64 entries, or struct kmem_ro_pagemap_run
 *	with KMEM_RO_PAGEMAP_RUNS
 * @buf_size: in: its size in bytes; at least one entry or run
 * @count: out: entries or runs written
 * @walk_end: out: first address not described; @end when the whole range
 *	was.  Call again with @start = @walk_end to resume.
 * @reserved: in: must be 0
 *
 * Only the page tables covering [@start, @end) are walked, under the
 * target's mmap read lock, taken again after at most 8192 entries (the
 * kernel's own pagemap takes it per 512), holes between VMAs in one step.  Entries are
 * bit-identical to /proc/PID/pagemap of the running kernel, including its
 * rules: PFNs (and swap offsets) read as 0 unless the opener of this fd had
 * CAP_SYS_ADMIN; another process needs CAP_SYS_PTRACE.  That is not the
 * kernel's check: /proc/PID/pagemap asks mm_access(PTRACE_MODE_READ_FSCREDS)
 * at open, which also lets the same user in, and runs the LSMs' ptrace
 * hook (security_ptrace_access_check(): SELinux, AppArmor, Smack,
 * Landlock).  Neither mm_access() nor ptrace_may_access() nor that hook is
 * exported, so a same-user caller is refused here, and a CAP_SYS_PTRACE
 * holder whose LSM policy forbids reading that process is let in.
 *
 * Errors: EINVAL (flags, reserved, size, range not page aligned, empty,
 * reversed or beyond user space, buffer smaller than one item or
 * address/size mismatch), E2BIG (size), ESRCH (no such process, a kernel
 * thread, or one that has exited), EPERM (another process without
 * CAP_SYS_PTRACE), EFAULT, EINTR (killed: while waiting for the lock, or
 * between two holds of it; what was copied out stays, @count and
 * @walk_end are not written), ENOMEM.
 */
struct kmem_ro_pagemap {
	__u64 size;
	__u64 flags;
	__u32 pid;
	__u32 reserved0;
	__u64 start;
	__u64 end;
	__u64 buf_addr;
	__u64 buf_size;
	__u64 count;
	__u64 walk_end;
	__u64 reserved[2];
};

#define KMEM_RO_PAGEMAP_SIZE_VER0	88

#define KMEM_RO_IOC_PAGEMAP	_IOWR(KMEM_RO_IOC_MAGIC, 0x03, struct kmem_ro_pagemap)

/*
 * Probes: hit counters on kernel functions, owned by the open file (closing
 * it removes them all).  A function-entry probe (offset 0) goes through one
 * ftrace_ops per file filtered to exactly the probed functions, whose
 * callback finds the probe in a resizable hash (rhashtable): the cost per
 * hit does not grow with the number of probes.  Other offsets use kprobes.
 * A function-entry hit is not counted where RCU is not watching the CPU
 * (deep idle, early entry code) nor when it nests in the counting of
 * another hit in the same context (ftrace's recursion protection).
 *
 * Adding, enabling and disabling need CAP_PERFMON or CAP_SYS_ADMIN besides
 * the fd (EPERM) unless the module parameter probe_group is set (then the
 * fd is enough), and are refused where lockdown forbids kprobes
 * (LOCKDOWN_KPROBES, EPERM).  Reading counts and listing need only the fd.
 *
 * Ids: a file numbers its probes 1, 2, 3, ... in the order they are made
 * and never gives an id twice, so an id whose probe was deleted names
 * nothing (ENOENT) and never a later probe.
 *
 * Limits: the module parameters max_probes_per_file (default 65536) and
 * max_probes (all files together, default 262144), writable by root in
 * /sys/module/kmem_ro/parameters/; a spec beyond either gets -ENOSPC.  A
 * caller without CAP_PERFMON or CAP_SYS_ADMIN (let in by probe_group) is
 * also held to max_probes_per_user (default 1024) probes of its real user
 * id across all files (-ENOSPC beyond); DEL and close give them back.
 * Lowering a limit removes no probe.  Probe memory is charged to the
 * memory cgroup of the process that adds the probe; ftrace's and kprobes'
 * own memory for it is not, nor the hash table's bucket array (rhashtable
 * allocates it without __GFP_ACCOUNT).
 *
 * probe_group turned off (1 -> 0) takes back what it gave: every probe
 * made by a caller without CAP_PERFMON or CAP_SYS_ADMIN is deleted (its id
 * then names nothing: ENOENT) and every snapshot stream such a caller
 * started is stopped, before the write returns; a call of such a caller
 * that was let in before and acts after gets EPERM and has done nothing.
 *
 * Killed callers: ADD, ENABLE, DISABLE, DEL and LIST stop between two
 * steps when the caller gets a fatal signal (SIGKILL, a group exit) and
 * return EINTR: ADD removes the probes it made; ENABLE and DISABLE leave
 * the probes before the one they stopped at switched and none after; DEL
 * deletes the probes before the one it stopped at, the others all stay.
 * @done is not written.
 *
 * Calls and errors: a call that fails has done nothing.  Its arguments
 * are checked before anything is done: EINVAL, E2BIG, EPERM, EFAULT (the
 * argument or its arrays cannot be read), ENOMEM.  What happens after is
 * reported per entry: ADD gives each spec its own result; ENABLE,
 * DISABLE, DEL and STATS act on their ids in order and stop at the first
 * one that fails, whose errno the call returns if it is the first entry;
 * past it, the call returns 0 and @done says where it stopped (call again
 * from there to learn why).  EFAULT on an output: ADD removes the probes
 * it made, STATS with RESET gives the counts back; ENABLE, DISABLE and DEL
 * write @done (as 0) before acting, so that only another thread unmapping
 * or write-protecting the argument during the call can make them fail
 * with EFAULT after acting.
 *
 * Probes do not pin a module.  When a module is unloaded, its probes (and,
 * once it has finished loading, the probes in its freed init code) are
 * disabled and marked KMEM_RO_PROBE_GONE, as kprobes marks its own: they
 * keep their id and hit count, never hit again, are skipped by ENABLE and
 * DISABLE (which count them as done) and stay until DEL or close.  A new
 * probe may go where a gone one was, at the same address, once new code is
 * loaded there; code being unloaded takes no new probe (ENOENT).
 */
#define KMEM_RO_PROBE_NAME_LEN	128	/* symbol name, NUL included */
#define KMEM_RO_PROBE_MAX_BATCH	65536	/* specs or ids per call; E2BIG beyond */

/* kmem_ro_probe_spec.flags and kmem_ro_probe_info.flags */
#define KMEM_RO_PROBE_ENABLED	(1U << 0)	/* in: enable at once; out: enabled */
#define KMEM_RO_PROBE_KPROBE	(1U << 1)	/* out: served by a kprobe, not ftrace */
#define KMEM_RO_PROBE_GONE	(1U << 2)	/* out: its code was unloaded */

/**
 * struct kmem_ro_probe_spec - one probe to add
 * @addr: in: address of the function, as /proc/kallsyms shows it
 * @offset: in: bytes into the function; 0 is the function entry
 * @flags: in: KMEM_RO_PROBE_ENABLED or 0
 * @name: in: the function's name, NUL-terminated (for the caller's own
 *	bookkeeping: the driver records the kernel's name for @addr, which
 *	may be an alias of it)
 * @result: out: the probe id (> 0), or -errno for this spec only:
 *	ENOENT (@addr is not the start of a kernel symbol, or is code being
 *	unloaded), EEXIST (this file already probes that place, or this
 *	call names it twice), EINVAL (flags, @offset past the symbol or
 *	inside an instruction), EOPNOTSUPP (not probe-able: a data symbol,
 *	at any offset inside it; ftrace refuses the function - notrace,
 *	noinstr - or, at an offset, kprobes refuses
 *	the place - kprobe blacklist, jump label, static call, BUG, an
 *	instruction it cannot step), ENOSPC (max_probes_per_file,
 *	max_probes or the caller's max_probes_per_user reached), ENOMEM,
 *	EINTR (the caller was killed: the call fails), EBUSY (any other refusal of kprobes
 *	or ftrace, also when enabling it at the end of the call failed)
 */
struct kmem_ro_probe_spec {
	__u64 addr;
	__u32 offset;
	__u32 flags;
	char name[KMEM_RO_PROBE_NAME_LEN];
	__s64 result;
};

/**
 * struct kmem_ro_probe_add - KMEM_RO_IOC_PROBE_ADD argument
 * @size: in: sizeof(struct kmem_ro_probe_add)
 * @flags: in: must be 0
 * @specs_addr: in: user pointer to @count struct kmem_ro_probe_spec
 * @count: in: 1 to KMEM_RO_PROBE_MAX_BATCH
 * @added: out: specs that got an id
 * @reserved: in: must be 0
 *
 * Every spec gets a @result.  Function-entry probes asked to be enabled
 * are enabled together once all specs are in (one ftrace update); if
 * ftrace refuses, those probes are removed and their specs get that error
 * (-ENOMEM or -EBUSY).  An ENABLE, DISABLE or DEL of a new probe by
 * another thread during the call comes after the ADD and wins.
 *
 * Errors of the call: EINVAL (flags, reserved, @specs_addr or @count 0,
 * size), E2BIG (@count above KMEM_RO_PROBE_MAX_BATCH, size), EPERM,
 * EFAULT (the argument or a spec cannot be read, a result or @added cannot
 * be written: the probes the call made are removed again, although
 * results already written show their ids), ENOMEM (before any spec),
 * EINTR (killed during the call: its probes are removed again), EPERM
 * also when probe_group, which alone let the caller in, is turned off
 * during the call (its probes are removed again).
 */
struct kmem_ro_probe_add {
	__u64 size;
	__u64 flags;
	__u64 specs_addr;
	__u32 count;
	__u32 added;
	__u64 reserved[2];
};

#define KMEM_RO_PROBE_ADD_SIZE_VER0	48

/* kmem_ro_probe_ids.flags */
#define KMEM_RO_PROBE_ALL	(1ULL << 0)	/* every probe of this file; no ids */
#define KMEM_RO_PROBE_RESET	(1ULL << 1)	/* STATS: restart the counts read */

/**
 * struct kmem_ro_probe_ids - argument of ENABLE, DISABLE, DEL and STATS
 * @size: in: sizeof(struct kmem_ro_probe_ids)
 * @flags: in: KMEM_RO_PROBE_ALL, and KMEM_RO_PROBE_RESET for STATS
 * @ids_addr: in: user pointer to @count __u64 probe ids (0 with ALL)
 * @count: in: number of ids (0 with ALL), at most KMEM_RO_PROBE_MAX_BATCH
 * @done: out: ids acted on, from the first: all @count, or the position
 *	of the first that failed (ENOENT: no such probe in this file; ENABLE
 *	or DISABLE: EBUSY or ENOMEM, kprobes or ftrace refused).  With ALL:
 *	the number of probes the file has.  An id named twice acts once and
 *	counts at each position.
 * @counts_addr: in, STATS only: user pointer to __u64 hit counts, one per
 *	position of @ids_addr (an id named twice gets the same count at each
 *	of its positions; RESET restarts it once), or with ALL one per probe
 *	in id order, at most @counts_cap of them (0 with @counts_cap 0: only
 *	count the probes)
 * @counts_cap: in, STATS only: entries @counts_addr holds; by ids, at
 *	least @count; 0 if and only if @counts_addr is 0
 * @reserved0: in: must be 0
 * @reserved: in: must be 0
 *
 * ENABLE and DISABLE switch entry probes in one ftrace update and leave
 * none switched past the entry where they stopped.  DEL cannot fail past
 * its ids: it disables its kprobes one by one (each unpatches kernel text:
 * a killed caller stops between two, EINTR, and only the probes before
 * are deleted), then deletes in one batch (one RCU grace period).
 *
 * STATS: hit counts since the probe was added or last RESET.  RESET
 * restarts exactly the counts it returns: a hit during the call is counted
 * in this call or in the next, never lost, never twice.  A STATS with
 * RESET that fails (EFAULT: the counts or @done cannot be written) resets
 * nothing.
 *
 * Errors: EINVAL (flags, reserved, size, ALL with ids or ids without
 * @count, @counts_addr/@counts_cap mismatch or too small, counts outside
 * STATS), E2BIG (@count, size), EPERM (ENABLE, DISABLE), EFAULT (the
 * argument or the ids cannot be read; see above for outputs), ENOMEM
 * (before anything is done), EINTR (killed during the call: see Killed
 * callers above; @done is not written), EPERM also for an ENABLE or
 * DISABLE that probe_group alone let in and that finds it turned off
 * (nothing switched), and the first id's error: ENOENT, or for
 * ENABLE and DISABLE EBUSY or ENOMEM.  A file that never had a probe
 * answers ENOENT for any id without reading the ids.
 */
struct kmem_ro_probe_ids {
	__u64 size;
	__u64 flags;
	__u64 ids_addr;
	__u32 count;
	__u32 done;
	__u64 counts_addr;
	__u32 counts_cap;
	__u32 reserved0;
	__u64 reserved[2];
};

#define KMEM_RO_PROBE_IDS_SIZE_VER0	64

/**
 * struct kmem_ro_probe_info - one probe, as KMEM_RO_IOC_PROBE_LIST shows it
 * @id: probe id, unique within its file and never reused there
 * @addr: function address
 * @offset: bytes into the function
 * @flags: KMEM_RO_PROBE_ENABLED, KMEM_RO_PROBE_KPROBE, KMEM_RO_PROBE_GONE
 * @owner: PID (init namespace) of the process that opened the file
 * @reserved: 0
 * @hits: hit count since the probe was added or last RESET
 * @name: function name
 */
struct kmem_ro_probe_info {
	__u64 id;
	__u64 addr;
	__u32 offset;
	__u32 flags;
	__u32 owner;
	__u32 reserved;
	__u64 hits;
	char name[KMEM_RO_PROBE_NAME_LEN];
};

/* kmem_ro_probe_list.flags */
#define KMEM_RO_PROBE_LIST_ALL_FILES	(1ULL << 0)	/* every open file's probes */

/**
 * struct kmem_ro_probe_list - KMEM_RO_IOC_PROBE_LIST argument
 * @size: in: sizeof(struct kmem_ro_probe_list)
 * @flags: in: KMEM_RO_PROBE_LIST_ALL_FILES or 0 (this file's probes)
 * @buf_addr: in: user pointer to struct kmem_ro_probe_info[@cap]
 * @cap: in: entries @buf_addr holds (0 to only count)
 * @count: out: probes that exist (may exceed @cap; only @cap written)
 * @reserved: in: must be 0
 *
 * Files newest first, each file's probes in id order.  The listing is
 * copied out in steps of 256 probes, each read under the lock of its
 * file, so a listing of more than 256 probes is not one snapshot: a probe
 * added meanwhile is listed if the listing had not yet passed its place
 * (a file opened meanwhile never is), one deleted or closed before the
 * listing reached it is not, and no probe is listed twice.
 *
 * Errors: EINVAL (flags, reserved, @buf_addr/@cap mismatch, size), E2BIG
 * (size), EFAULT (the argument, or the buffer when a probe is to be
 * written), ENOMEM, EINTR (killed during the call; @count not written).
 */
struct kmem_ro_probe_list {
	__u64 size;
	__u64 flags;
	__u64 buf_addr;
	__u32 cap;
	__u32 count;
	__u64 reserved[2];
};

#define KMEM_RO_PROBE_LIST_SIZE_VER0	48

/* kmem_ro_probe_filter.flags */
#define KMEM_RO_PROBE_FILTER_PID	(1ULL << 0)	/* count only hits in process @pid */
#define KMEM_RO_PROBE_FILTER_COMM	(1ULL << 1)	/* count only hits in tasks named @comm */

#define KMEM_RO_PROBE_COMM_LEN	16	/* TASK_COMM_LEN, NUL included */

/**
 * struct kmem_ro_probe_filter - KMEM_RO_IOC_PROBE_FILTER argument
 * @size: in: sizeof(struct kmem_ro_probe_filter)
 * @flags: in: KMEM_RO_PROBE_FILTER_PID, KMEM_RO_PROBE_FILTER_COMM, both
 *	(a hit must match both), or 0 to clear the filter
 * @pid: in: with KMEM_RO_PROBE_FILTER_PID, a process id (thread-group id)
 *	in the caller's pid namespace; else 0
 * @reserved0: in: must be 0
 * @comm: in: with KMEM_RO_PROBE_FILTER_COMM, a task name as the kernel
 *	keeps it (/proc/PID/comm: at most 15 bytes, NUL-terminated; bytes
 *	after the NUL are ignored); else all 0
 * @reserved: in: must be 0
 *
 * Sets (or, with flags 0, clears) the file's probe filter: from the
 * return of the call on, a hit of any of the file's probes, present or
 * later, is counted only when the task running the probed code belongs
 * to process @pid (every thread of it) and/or its name is exactly @comm
 * (all KMEM_RO_PROBE_COMM_LEN bytes, as the kernel pads it).  Hits that
 * do not match are not counted; counts made before the call stay.  The
 * task is the current one, also for a hit in an interrupt that came while
 * it ran, as for ftrace's set_ftrace_pid and event filters on common_comm
 * (kernel/trace/ftrace.c, trace_events_filter.c: filter_pred_comm()).  A
 * task renamed while a probe hits may be missed for that hit.  The filter
 * holds the process (its struct pid), not its number: once it has exited,
 * no hit matches, even if the number is used again.  A new filter
 * replaces the old one; closing the file drops it.
 *
 * Errors: EINVAL (unknown flags, reserved, size below
 * KMEM_RO_PROBE_FILTER_SIZE_VER0, @pid 0 with KMEM_RO_PROBE_FILTER_PID,
 * @pid or @comm non-zero without their flag, @comm without a NUL in its
 * KMEM_RO_PROBE_COMM_LEN bytes), E2BIG (size above PAGE_SIZE or unknown
 * non-zero tail), ESRCH (no process has thread-group id @pid in the
 * caller's pid namespace: none, a thread that is not a group leader, or
 * one that has exited), EPERM (as for ADD: without CAP_PERFMON or
 * CAP_SYS_ADMIN unless probe_group is set, or under lockdown of kprobes),
 * EFAULT (the argument cannot be read, or written back unchanged: nothing
 * is done), ENOMEM.  A call that fails changes nothing.
 */
struct kmem_ro_probe_filter {
	__u64 size;
	__u64 flags;
	__u32 pid;
	__u32 reserved0;
	char comm[KMEM_RO_PROBE_COMM_LEN];
	__u64 reserved[2];
};

#define KMEM_RO_PROBE_FILTER_SIZE_VER0	56

#define KMEM_RO_IOC_PROBE_ADD		_IOWR(KMEM_RO_IOC_MAGIC, 0x10, struct kmem_ro_probe_add)
#define KMEM_RO_IOC_PROBE_ENABLE	_IOWR(KMEM_RO_IOC_MAGIC, 0x11, struct kmem_ro_probe_ids)
#define KMEM_RO_IOC_PROBE_DISABLE	_IOWR(KMEM_RO_IOC_MAGIC, 0x12, struct kmem_ro_probe_ids)
#define KMEM_RO_IOC_PROBE_DEL		_IOWR(KMEM_RO_IOC_MAGIC, 0x13, struct kmem_ro_probe_ids)
#define KMEM_RO_IOC_PROBE_STATS		_IOWR(KMEM_RO_IOC_MAGIC, 0x14, struct kmem_ro_probe_ids)
#define KMEM_RO_IOC_PROBE_LIST		_IOWR(KMEM_RO_IOC_MAGIC, 0x15, struct kmem_ro_probe_list)
#define KMEM_RO_IOC_PROBE_FILTER	_IOWR(KMEM_RO_IOC_MAGIC, 0x16, struct kmem_ro_probe_filter)

/*
 * Events (uapi/kmem_ro_events.h): a generic netlink family with module
 * load/unload events and, on request of a probe owner, periodic snapshots
 * of its probes' hit counts.  The requests below act on the open file's
 * own probes; closing the file stops its snapshots.
 */
#define KMEM_RO_EVENTS_SNAPSHOT_MIN_MS	100		/* bounds the rate per file */
#define KMEM_RO_EVENTS_SNAPSHOT_MAX_MS	3600000		/* one hour */

/* kmem_ro_events_snapshot.flags */
#define KMEM_RO_EVENTS_SNAPSHOT_STOP	(1ULL << 0)	/* stop this file's snapshots */

/**
 * struct kmem_ro_events_snapshot - KMEM_RO_IOC_EVENTS_SNAPSHOT argument
 * @size: in: sizeof(struct kmem_ro_events_snapshot)
 * @flags: in: 0 to start (or change the interval of) this file's
 *	snapshots, KMEM_RO_EVENTS_SNAPSHOT_STOP to stop them
 * @interval_ms: in: start: KMEM_RO_EVENTS_SNAPSHOT_MIN_MS to _MAX_MS, the
 *	time between two snapshots, the first one interval after the call;
 *	stop: 0
 * @reserved0: in: must be 0
 * @id: out: the stream id that every snapshot message carries
 *	(KMEM_RO_EVENTS_A_SNAP_ID), unique while the module is loaded; the
 *	same id when a running stream only changes its interval
 * @reserved: in: must be 0
 *
 * Each snapshot sends the ids and hit counts of every probe the file has
 * at that moment, in id order, to the KMEM_RO_EVENTS_MCGRP_SNAPSHOTS
 * group, split into messages of at most KMEM_RO_EVENTS_SNAP_MAX_IDS
 * probes.  Stopping (or closing the file) waits for a snapshot being sent:
 * none of this file's follows once the call returns.
 *
 * Errors: EINVAL (flags, reserved, size, @interval_ms out of range, or not
 * 0 with STOP), E2BIG (size), EFAULT, EPERM (start without CAP_PERFMON or
 * CAP_SYS_ADMIN, unless probe_group is set), ENOENT (start: this file has no probes; stop: it takes
 * no snapshots), ENOMEM.  A stream started without CAP_PERFMON or
 * CAP_SYS_ADMIN is stopped when probe_group is turned off (a later stop:
 * ENOENT).
 */
struct kmem_ro_events_snapshot {
	__u64 size;
	__u64 flags;
	__u32 interval_ms;
	__u32 reserved0;
	__u64 id;
	__u64 reserved[2];
};

#define KMEM_RO_EVENTS_SNAPSHOT_SIZE_VER0	48

#define KMEM_RO_IOC_EVENTS_SNAPSHOT	_IOWR(KMEM_RO_IOC_MAGIC, 0x20, struct kmem_ro_events_snapshot)

#endif /* _UAPI_LINUX_KMEM_RO_H */
