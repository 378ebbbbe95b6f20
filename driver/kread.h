/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmem_ro - the steps of a reader section (kread.c), inline: a read of
 * one object (read.c's pread(), readv.c's large segments) makes no call
 * for its checks and copy, so that a read costs its own work and not
 * the call and return (a return thunk, or call depth accounting, on CPUs
 * with retbleed mitigations) around it.
 */
#ifndef KMEM_RO_KREAD_H
#define KMEM_RO_KREAD_H

#include <linux/mm.h>
#include <linux/rcupdate.h>
#include <linux/uaccess.h>
#include <asm/pgtable.h>

#include "internal.h"
#include "ram.h"

void kmem_ro_reader_hold_offline(struct kmem_ro_reader *r,
				 struct kmem_ro_checked_page *checked);

/*
 * PFN behind @addr: arithmetic in the direct map, which maps every RAM
 * page at one fixed place, and in the kernel image where it is mapped
 * linearly (ktext.c checked that at load); a page-table lookup for any
 * other address (vmalloc, modules, fixmap).
 */
static __always_inline int kmem_ro_addr_pfn(unsigned long addr, struct kmem_ro_reader *r,
					    unsigned long *pfn)
{
	unsigned int level;

	if (addr < PAGE_OFFSET)
		return -EINVAL;
	if (addr < VMALLOC_START) {
		*pfn = PHYS_PFN(addr - PAGE_OFFSET);
		return 0;
	}
	if (kmem_ro_image_pfn(addr, pfn))
		return 0;
	return kmem_ro_kernel_entry(addr, r, pfn, &level);
}

/* The PFN behind @cur, looked up and checked unless @checked has it. */
static __always_inline int kmem_ro_checked_pfn(unsigned long cur, struct kmem_ro_reader *r,
					       struct kmem_ro_checked_page *checked,
					       unsigned long *pfn)
{
	int err;

	/* vpage 0 is "none": page 0 is never read, it is below the direct map */
	if (checked && checked->vpage && checked->vpage == (cur & PAGE_MASK)) {
		*pfn = checked->pfn;
		return 0;
	}
	err = kmem_ro_addr_pfn(cur, r, pfn);
	if (!err)
		err = kmem_ro_ram_check_pfn(*pfn, r);
	if (!err && checked) {
		checked->vpage = cur & PAGE_MASK;
		checked->pfn = *pfn;
	}
	return err;
}

static __always_inline void __kmem_ro_reader_init(struct kmem_ro_reader *r)
{
	r->offline_held = false;
	r->managed_ok = false;
	r->pt.nr = 0;
	r->pt.fresh = 0;
}

static __always_inline void __kmem_ro_reader_begin(struct kmem_ro_reader *r)
	__acquires(RCU_SCHED)
{
	rcu_read_lock_sched();
	r->ram = kmem_ro_ram_rcu();
	r->pt.fresh = 0;	/* table pages met before: looked at again */
}

static __always_inline void __kmem_ro_reader_end(struct kmem_ro_reader *r)
	__releases(RCU_SCHED)
{
	rcu_read_unlock_sched();
	if (unlikely(r->offline_held)) {
		page_offline_end();
		r->offline_held = false;
		r->pt.nr = 0;	/* driver-managed table pages may go now */
	}
}

/*
 * copy_from_kernel_nofault() of a direct-map address, without its call
 * for the commonest read, one aligned word (a pointer, a counter): a
 * single load with an exception-table entry, as copy_from_kernel_nofault()
 * itself does it (x86 stores to any @dst alignment).
 */
static __always_inline int kmem_ro_copy_nofault(void *dst, const void *src, size_t len)
{
	if (len == sizeof(u64) && IS_ALIGNED((unsigned long)src, sizeof(u64))) {
		pagefault_disable();
		__get_kernel_nofault(dst, src, u64, fault);
		pagefault_enable();
		return 0;
fault:
		pagefault_enable();
		return -EFAULT;
	}
	return copy_from_kernel_nofault(dst, src, len);
}

static __always_inline size_t __kmem_ro_read_object(void *dst, unsigned long addr, size_t len,
						     struct kmem_ro_reader *r,
						     struct kmem_ro_checked_page *checked,
						     int *err)
{
	size_t done = 0;

	*err = 0;
	if (addr + len < addr) {
		*err = -EINVAL;
		return 0;
	}
	while (done < len) {
		unsigned long cur = addr + done, pfn;
		size_t chunk = min_t(size_t, len - done, PAGE_SIZE - offset_in_page(cur));

		*err = kmem_ro_checked_pfn(cur, r, checked, &pfn);
		if (*err == -KMEM_RO_NEED_OFFLINE_HOLD) {
			kmem_ro_reader_hold_offline(r, checked);
			continue;
		}
		/* not in the direct map: hidden (memfd_secret) */
		if (!*err && kmem_ro_copy_nofault(dst + done,
						  pfn_to_kaddr(pfn) + offset_in_page(cur), chunk))
			*err = -EPERM;
		if (*err)
			break;
		done += chunk;
	}
	return done;
}

/**
 * kmem_ro_read_section() - read @len bytes at @addr in a section of their own
 * @dst: destination, @len bytes
 * @addr: kernel virtual address
 * @len: bytes; may cross pages
 * @err: returns the errno of the page that stopped the read (0 if none)
 *
 * One read of one object (a pread, a large READV segment's page): the
 * checks and the copy inline in the caller, no call for them.
 *
 * Return: as kmem_ro_read_object().
 */
static __always_inline size_t kmem_ro_read_section(void *dst, unsigned long addr, size_t len,
						   int *err)
{
	/* every field is set before it is read (pt.pfn[] below pt.nr): no zeroing */
	struct kmem_ro_reader r __uninitialized;
	size_t got;

	__kmem_ro_reader_init(&r);
	__kmem_ro_reader_begin(&r);
	got = __kmem_ro_read_object(dst, addr, len, &r, NULL, err);
	__kmem_ro_reader_end(&r);
	return got;
}

#endif /* KMEM_RO_KREAD_H */
