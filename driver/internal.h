/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmem_ro - internal interfaces between the driver's files.
 */
#ifndef KMEM_RO_INTERNAL_H
#define KMEM_RO_INTERNAL_H

#include <linux/types.h>
#include <linux/compiler_types.h>
#include <linux/pfn.h>
#include <asm/page.h>
#include <linux/rcupdate.h>
#include <linux/uaccess.h>
#include <linux/uidgid.h>

/* A snapshot of System RAM, in whole pages (ram.c). */
struct kmem_ro_pfns {
	unsigned long start;
	unsigned long end;		/* exclusive */
	bool managed;			/* IORESOURCE_SYSRAM_DRIVER_MANAGED (virtio-mem) */
};

struct kmem_ro_ram {
	struct rcu_head rcu;		/* the current list is freed after readers */
	unsigned int nr;
	unsigned int cap;
	struct kmem_ro_pfns pfns[];
};

struct kmem_ro_range;
struct kmem_ro_ram *kmem_ro_ram_get(unsigned long first, unsigned long last);
int kmem_ro_ram_ranges(struct kmem_ro_range __user *uranges, u32 cap, u32 *count);
bool kmem_ro_ram_contains(const struct kmem_ro_ram *ram, unsigned long pfn,
			  unsigned long nr);
int kmem_ro_ram_init(void);
void kmem_ro_ram_exit(void);
bool kmem_ro_ram_unaccepted(void);
int kmem_ro_ram_refresh(void);

/**
 * struct kmem_ro_pt_memo - kernel page-table pages that passed their check
 * @pfn: their PFNs, the first KMEM_RO_PT_MEMO met
 * @nr: how many of @pfn are set
 * @fresh: bit i: @pfn[i] passed in the current section
 *
 * Addresses read one after another mostly share their upper tables (every
 * kernel-text address the same PGD, P4D and PUD page): within one
 * reader (struct kmem_ro_reader: one object, or one READV group) each
 * table page is checked in full once, as a data page is once per object.
 * Each later section (a READV segment) looks again, in the one cache line
 * of the page's struct page, at what can befall a table page meanwhile
 * (kpgtable.c): a page poisoned between two segments is refused.
 */
#define KMEM_RO_PT_MEMO	4
struct kmem_ro_pt_memo {
	unsigned long pfn[KMEM_RO_PT_MEMO];
	unsigned int nr;
	unsigned int fresh;
};

/**
 * struct kmem_ro_reader - one section of checks and copies (kread.c)
 * @ram: the System RAM list, valid until kmem_ro_reader_end()
 * @offline_held: page_offline_begin() is held: pages of driver-managed
 *	RAM may be checked and copied (see kmem_ro_reader_begin())
 * @managed_ok: driver-managed RAM passes without the hold: set only by a
 *	caller that guards such RAM itself (mmap.c's revocation)
 * @pt: table pages checked in this section
 *
 * A section is an RCU-sched read-side critical section (preemption
 * disabled): nothing in it may sleep, so it never spans a user copy.
 */
struct kmem_ro_reader {
	const struct kmem_ro_ram *ram;
	bool offline_held;
	bool managed_ok;
	struct kmem_ro_pt_memo pt;
};

/*
 * Internal only, never returned to user space: the page is driver-managed
 * RAM and the reader holds no page_offline_begin() (kmem_ro_read_object()
 * takes it and tries again).
 */
#define KMEM_RO_NEED_OFFLINE_HOLD	EAGAIN

int kmem_ro_kernel_entry(unsigned long addr, struct kmem_ro_reader *r,
			 unsigned long *pfn, unsigned int *level);
bool kmem_ro_page_readable(unsigned long pfn, unsigned int *level);

/**
 * struct kmem_ro_checked_page - the last page a read of one object checked
 * @vpage: page-aligned address that was asked for, 0 for none
 * @pfn: the PFN behind it, which passed every check
 *
 * Reading several fields of one object (a WALK node) with one of these,
 * cleared per object, looks each of its pages up and checks it once, as
 * one read of the object's whole span would: not once per field.
 */
struct kmem_ro_checked_page {
	unsigned long vpage;
	unsigned long pfn;
};

struct file;
void kmem_ro_reader_init(struct kmem_ro_reader *r);
void kmem_ro_reader_begin(struct kmem_ro_reader *r) __acquires(RCU_SCHED);
void kmem_ro_reader_end(struct kmem_ro_reader *r) __releases(RCU_SCHED);
size_t kmem_ro_read_object(void *dst, unsigned long addr, size_t len,
			   struct kmem_ro_reader *r,
			   struct kmem_ro_checked_page *checked, int *err);
size_t kmem_ro_read_section_call(void *dst, unsigned long addr, size_t len, int *err);

/* Up to this many bytes go out as plain stores, not copy_to_user(). */
#define KMEM_RO_SMALL_COPY	64

/* <linux/uaccess.h> has them since 6.12; before, no masked user access. */
#ifndef can_do_masked_user_access
#define can_do_masked_user_access()	0
#define masked_user_access_begin(ptr)	NULL
#define mask_user_address(ptr)		(ptr)
#endif

/**
 * kmem_ro_copy_out() - copy what was read from a bounce buffer to the user
 * @ubuf: user destination
 * @bounce: the driver's own buffer, never a kernel object
 * @len: bytes
 *
 * Most reads, READV segments and WALK records are a field or a pointer:
 * for those a few 8-byte stores beat copy_to_user()'s hardened-usercopy
 * object check and the start-up cost of rep movsb, in a window opened by
 * masking the address (6.12 and later: a kernel address becomes one that
 * faults, and stores in order from @ubuf fault at the guard page past user
 * memory, as the kernel's own strncpy_from_user() relies on).  Without
 * masking (6.1) such a window starts with a speculation barrier (lfence)
 * that copy_to_user() does not pay.  There a pointer or an int goes out in
 * one put_user() (__put_user_8/_4: a range compare, stac, one store, clac;
 * no lfence either) rather than copy_to_user()'s three calls (the
 * hardened-usercopy check, _copy_to_user(), the copy routine); any other
 * size in copy_to_user().  Inline: a call and a return would cost as much
 * as the stores.
 *
 * Return: 0 or -EFAULT.
 */
static inline int kmem_ro_copy_out(void __user *ubuf, const void *bounce, size_t len)
{
	if (len > KMEM_RO_SMALL_COPY || !can_do_masked_user_access()) {
		u64 word;
		u32 half;

		/* one load each, whatever @bounce's alignment */
		if (len == sizeof(word)) {
			memcpy(&word, bounce, sizeof(word));
			return put_user(word, (u64 __user *)ubuf);
		}
		if (len == sizeof(half)) {
			memcpy(&half, bounce, sizeof(half));
			return put_user(half, (u32 __user *)ubuf);
		}
		return copy_to_user(ubuf, bounce, len) ? -EFAULT : 0;
	}
	ubuf = masked_user_access_begin(ubuf);
	unsafe_copy_to_user(ubuf, bounce, len, efault);
	user_access_end();
	return 0;
efault:
	user_access_end();
	return -EFAULT;
}
ssize_t kmem_ro_read(struct file *file, char __user *ubuf, size_t len, loff_t *ppos);
void kmem_ro_read_exit(void);
size_t kmem_ro_read_direct(char __user *ubuf, unsigned long addr, size_t len);
void *kmem_ro_read_page_get(void);
void kmem_ro_read_page_put(void *page);
long kmem_ro_readv_ioctl(struct file *file, void __user *uarg);
long kmem_ro_walk_ioctl(struct file *file, void __user *uarg);
long kmem_ro_pagemap_ioctl(struct file *file, void __user *uarg);
long kmem_ro_probe_add_ioctl(struct file *file, void __user *uarg);
long kmem_ro_probe_enable_ioctl(struct file *file, void __user *uarg);
long kmem_ro_probe_disable_ioctl(struct file *file, void __user *uarg);
long kmem_ro_probe_del_ioctl(struct file *file, void __user *uarg);
long kmem_ro_probe_stats_ioctl(struct file *file, void __user *uarg);
long kmem_ro_probe_list_ioctl(struct file *file, void __user *uarg);
long kmem_ro_probe_filter_ioctl(struct file *file, void __user *uarg);
void kmem_ro_probe_release(struct file *file);
int kmem_ro_probe_init(void);
void kmem_ro_probe_exit(void);
unsigned int kmem_ro_probe_count(struct file *file);
bool kmem_ro_may_probe(void);

/**
 * struct kmem_ro_probe_caller - who asks, as a call that makes probes sees it
 * @uid: the caller's real user id, charged for a granted probe
 * @granted: without CAP_PERFMON or CAP_SYS_ADMIN: allowed by probe_group
 *	alone, and revoked with it
 * @gen: how often probe_group had been turned off when the call was allowed
 *
 * A granted call checks kmem_ro_probe_caller_revoked() under the lock it
 * acts under: once probe_group is turned off it does nothing more.
 */
struct kmem_ro_probe_caller {
	kuid_t uid;
	bool granted;
	unsigned long gen;
};

int kmem_ro_probe_caller(struct kmem_ro_probe_caller *who, bool kprobes);
bool kmem_ro_probe_caller_revoked(const struct kmem_ro_probe_caller *who);
void kmem_ro_events_revoke(void);
int kmem_ro_probe_for_each_hits(struct file *file,
				int (*fn)(void *arg, unsigned int idx, unsigned int nr,
					  u64 id, u64 hits),
				void *arg);

int kmem_ro_events_init(void);
void kmem_ro_events_exit(void);
long kmem_ro_events_snapshot_ioctl(struct file *file, void __user *uarg);
void kmem_ro_events_release(struct file *file);

int kmem_ro_arg_in_sized(void *karg, size_t ksize, size_t ver0_size,
			 const void __user *uarg, u64 *usize);
int kmem_ro_arg_out(void __user *uarg, const void *karg, size_t ksize,
		    u64 usize);

/*
 * An ioctl's argument, and READV's few segments, are most of a small
 * call's cost beside the read: where the kernel masks user addresses
 * (6.12 and later) they come in as word loads in a masked window, inline,
 * as the kernel's own copy_from_user() masks there: no get_user() of the
 * size first, no rep movs start-up, no hardened-usercopy lookup, no
 * lfence, no call (READV of one segment: both in one window,
 * kmem_ro_readv_in()).  6.1 has no masking: there they stay get_user()
 * and copy_from_user().  A user_access_begin() window would pay the
 * lfence 6.1's copy_from_user() pays (lib/usercopy.c) and save the rest,
 * but a driver that opened such windows for its loads on 6.1 hung once
 * in the fuzzer, unexplained (docs/benchmarks.md): this one does not.
 */

/*
 * Inside a user-access window: words from @src on to @to up to @len bytes,
 * the first the struct's size, read first: any other size than @len, or a
 * fault, goes to @label.
 */
#define kmem_ro_unsafe_get_arg(to, len, src, label) do {		\
	u64 *__to = (u64 *)(to), *__end = __to + (len) / sizeof(u64);	\
	const u64 __user *__src = (src);				\
									\
	unsafe_get_user(*__to, __src, label);				\
	if (*__to != (len))						\
		goto label;						\
	while (++__to < __end)						\
		unsafe_get_user(*__to, ++__src, label);			\
} while (0)

/*
 * The common call: the caller's struct has the driver's size.  Its size
 * and then the rest are read as words in one masked window.  Nothing past
 * the size is read unless it is @ksize, so nothing past the caller's
 * struct, as kmem_ro_arg_in_sized() reads.  False for any other size, a
 * fault, or a kernel that does not mask user addresses.
 */
static __always_inline bool kmem_ro_arg_in_own_size(void *karg, size_t ksize,
						    const void __user *uarg)
{
	const u64 __user *src = uarg;

	if (!IS_ALIGNED(ksize, sizeof(u64)) || !can_do_masked_user_access())
		return false;
	src = masked_user_access_begin(src);
	kmem_ro_unsafe_get_arg(karg, ksize, src, fail);
	user_access_end();
	return true;
fail:
	user_access_end();
	return false;
}

/**
 * kmem_ro_arg_in() - copy an extensible ioctl argument from userspace
 * @karg: kernel copy, @ksize bytes
 * @ksize: size of the struct this driver knows
 * @ver0_size: size of the first published layout
 * @uarg: user pointer; the struct starts with its own __u64 size
 * @usize: returns the size the caller claimed, for kmem_ro_arg_out()
 *
 * A struct of the driver's size inline; any other, or a fault, is read
 * again by kmem_ro_arg_in_sized(), size first, which decides the errno.
 *
 * Return: as kmem_ro_arg_in_sized().
 */
static __always_inline int kmem_ro_arg_in(void *karg, size_t ksize, size_t ver0_size,
					  const void __user *uarg, u64 *usize)
{
	if (kmem_ro_arg_in_own_size(karg, ksize, uarg)) {
		*usize = ksize;
		return 0;
	}
	return kmem_ro_arg_in_sized(karg, ksize, ver0_size, uarg, usize);
}

/* Up to this many bytes come in as plain loads (READV's stack segments). */
#define KMEM_RO_SMALL_COPY_IN	128

/**
 * kmem_ro_copy_in() - copy a few fixed-size records (READV's segments) in
 * @dst: the driver's own buffer, @len bytes, aligned for u64
 * @usrc: user source; need not be aligned
 * @len: bytes
 *
 * The mirror of kmem_ro_copy_out(): up to KMEM_RO_SMALL_COPY_IN bytes of
 * whole u64s come in as plain loads, in order from @usrc, in one window
 * opened by masking the address, so a kernel address becomes one that
 * faults and loads in order fault at the guard page past user memory, as
 * the kernel's own copy_from_user() relies on there.  Nothing in the
 * window calls out or sleeps; a fault in it is handled as in
 * copy_from_user() (the page is faulted in, or the access fails).
 * Without masking (6.1), or for more bytes: copy_from_user().
 *
 * Return: 0 or -EFAULT.
 */
static __always_inline int kmem_ro_copy_in(void *dst, const void __user *usrc, size_t len)
{
	const u64 __user *src = usrc;
	u64 *to = dst, *end = to + len / sizeof(u64);

	if (len > KMEM_RO_SMALL_COPY_IN || !IS_ALIGNED(len, sizeof(u64)) ||
	    !can_do_masked_user_access())
		return copy_from_user(dst, usrc, len) ? -EFAULT : 0;
	src = masked_user_access_begin(src);
	while (to < end)
		unsafe_get_user(*to++, src++, efault);
	user_access_end();
	return 0;
efault:
	user_access_end();
	return -EFAULT;
}

long kmem_ro_info_ioctl(void __user *uarg, u64 ioctls);

/* The kernel text, found at load (ktext.c). */
int kmem_ro_text_init(void);
void kmem_ro_text_range(unsigned long *start, unsigned long *end);
void kmem_ro_text_pfns(unsigned long *start, unsigned long *end);

/*
 * Where the kernel image's high mapping is linear (virtual address minus
 * __START_KERNEL_map plus phys_base, as __pa_symbol() computes it), found
 * at load (ktext.c); any part of the image beyond these runs keeps the
 * page-table walk.
 */
#define KMEM_RO_IMAGE_RUNS	8
struct kmem_ro_image_run {
	unsigned long start;
	unsigned long end;
};
extern struct kmem_ro_image_run kmem_ro_image[KMEM_RO_IMAGE_RUNS];
extern unsigned int kmem_ro_image_nr;

/**
 * kmem_ro_image_pfn() - the PFN behind a kernel-image address, by arithmetic
 * @addr: kernel virtual address
 * @pfn: returns the PFN, for the caller to check as any RAM page
 *
 * Return: true if @addr lies where the image is mapped linearly.
 */
static inline bool kmem_ro_image_pfn(unsigned long addr, unsigned long *pfn)
{
	const struct kmem_ro_image_run *run = kmem_ro_image, *end = run + kmem_ro_image_nr;

	for (; run < end; run++) {
		if (addr >= run->start && addr < run->end) {
			*pfn = PHYS_PFN(addr - __START_KERNEL_map + phys_base);
			return true;
		}
	}
	return false;
}

struct vm_area_struct;
u64 kmem_ro_mmap_features(void);
u64 kmem_ro_mmap_refused(void);
int kmem_ro_mmap_init(void);
void kmem_ro_mmap_exit(void);
int kmem_ro_mmap(struct file *file, struct vm_area_struct *vma);
unsigned long kmem_ro_get_unmapped_area(struct file *file, unsigned long addr,
					unsigned long len, unsigned long pgoff,
					unsigned long flags);

/* Memory going offline, and mmap_ram written: mappings are revoked (hotplug.c). */
struct file;
struct vm_area_struct;
int kmem_ro_hotplug_init(void);
void kmem_ro_hotplug_exit(void);
void kmem_ro_hotplug_open(struct file *file);
void kmem_ro_hotplug_zap_all(void);

#endif /* KMEM_RO_INTERNAL_H */
