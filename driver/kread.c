// SPDX-License-Identifier: GPL-2.0
/*
 * kmem_ro - read any kernel virtual address without hurting the kernel.
 *
 * One path for every kind of address (direct map, kernel image, vmalloc,
 * modules, fixmap): find the PFN behind the address, check that page, and
 * copy it through the direct map of that PFN -- never through the address
 * that was asked for.  An alias can change under us (a vfree() and an
 * ioremap() reusing the range, freed image memory handed to memfd_secret);
 * the direct map of a checked RAM page cannot become MMIO.
 */
#include <linux/mm.h>
#include <linux/uaccess.h>
#include <asm/pgtable.h>

#include "internal.h"

/*
 * PFN behind @addr: arithmetic in the direct map, which maps every RAM
 * page at one fixed place; a page-table lookup for any other address.
 */
static int kmem_ro_addr_pfn(unsigned long addr, const struct kmem_ro_ram *ram,
			    struct kmem_ro_pt_memo *memo, unsigned long *pfn)
{
	unsigned int level;

	if (addr < PAGE_OFFSET)
		return -EINVAL;
	if (addr < VMALLOC_START) {
		*pfn = PHYS_PFN(addr - PAGE_OFFSET);
		return 0;
	}
	return kmem_ro_kernel_entry(addr, ram, memo, pfn, &level);
}

/* The PFN behind @cur, looked up and checked unless @checked has it. */
static int kmem_ro_checked_pfn(unsigned long cur, const struct kmem_ro_ram *ram,
			       struct kmem_ro_checked_page *checked,
			       unsigned long *pfn)
{
	int err;

	/* vpage 0 is "none": page 0 is never read, it is below the direct map */
	if (checked && checked->vpage && checked->vpage == (cur & PAGE_MASK)) {
		*pfn = checked->pfn;
		return 0;
	}
	err = kmem_ro_addr_pfn(cur, ram, checked ? &checked->pt : NULL, pfn);
	if (!err)
		err = kmem_ro_ram_check_pfn(*pfn, ram);
	if (!err && checked) {
		checked->vpage = cur & PAGE_MASK;
		checked->pfn = *pfn;
	}
	return err;
}

/**
 * kmem_ro_read_lock() - hold off pages going logically offline
 *
 * virtio-mem sets PageOffline() on a page and then asks the host to take
 * it away: a page that passed kmem_ro_page_online() must not go offline
 * before it is copied.  read_kcore_iter() (6.1, 6.12, 7.3) holds
 * page_offline_freeze(), the read side of mm/util.c's page_offline_rwsem,
 * around its checks and copies; that side is not exported.  The write
 * side, page_offline_begin(), is, and it is what virtio_mem.c holds while
 * it sets PageOffline(): holding it excludes those setters just as well.
 * The cost of the write side is that readers of kmem_ro and of kcore wait
 * for each other, so it is held only while checking and copying into a
 * kernel buffer -- one READV group of small segments, one page of a large
 * one, one WALK node -- never across a user copy (a user page can stall
 * for ever) and never across cond_resched().
 */
void kmem_ro_read_lock(void)
{
	page_offline_begin();
}

/**
 * kmem_ro_read_unlock() - let pages go offline again
 */
void kmem_ro_read_unlock(void)
{
	page_offline_end();
}

/**
 * kmem_ro_read_object() - copy part of a kernel object into a kernel buffer
 * @dst: destination, @len bytes
 * @addr: kernel virtual address
 * @len: bytes; may cross pages
 * @ram: System RAM snapshot taken for this call
 * @checked: the object's last checked page (cleared per object), or NULL
 * @err: returns the errno of the page that stopped the read (0 if none)
 *
 * Call under kmem_ro_read_lock(), held across every read of one object
 * that shares @checked: a page checked earlier stays online until copied.
 * Every byte is copied through the direct map of a PFN that passed every
 * check; a page's check is done once per object (see struct
 * kmem_ro_checked_page), the copy every time.
 *
 * Return: the number of bytes read, @len unless a page failed (then @err
 * says why).
 */
size_t kmem_ro_read_object(void *dst, unsigned long addr, size_t len,
			   const struct kmem_ro_ram *ram,
			   struct kmem_ro_checked_page *checked, int *err)
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

		*err = kmem_ro_checked_pfn(cur, ram, checked, &pfn);
		/* not in the direct map: hidden (memfd_secret) */
		if (!*err && copy_from_kernel_nofault(dst + done,
						      pfn_to_kaddr(pfn) + offset_in_page(cur),
						      chunk))
			*err = -EPERM;
		if (*err)
			break;
		done += chunk;
	}
	return done;
}

/**
 * kmem_ro_read_kernel() - copy kernel memory into a kernel buffer
 * @dst: destination, @len bytes
 * @addr: kernel virtual address
 * @len: bytes; may cross pages
 * @ram: System RAM snapshot taken for this call
 * @err: returns the errno of the page that stopped the read (0 if none)
 *
 * Call under kmem_ro_read_lock().
 *
 * Return: as kmem_ro_read_object(), each page checked.
 */
size_t kmem_ro_read_kernel(void *dst, unsigned long addr, size_t len,
			   const struct kmem_ro_ram *ram, int *err)
{
	return kmem_ro_read_object(dst, addr, len, ram, NULL, err);
}

/* Up to this many bytes go out as plain stores, not copy_to_user(). */
#define KMEM_RO_SMALL_COPY	64

/**
 * kmem_ro_copy_out() - copy what was read from a bounce buffer to the user
 * @ubuf: user destination
 * @bounce: the driver's own buffer, never a kernel object
 * @len: bytes
 *
 * Most READV segments and WALK records are a field or a pointer: for
 * those a few 8-byte stores beat copy_to_user()'s hardened-usercopy object
 * check and the start-up cost of rep movsb.
 *
 * Return: 0 or -EFAULT.
 */
int kmem_ro_copy_out(void __user *ubuf, const void *bounce, size_t len)
{
	if (len > KMEM_RO_SMALL_COPY)
		return copy_to_user(ubuf, bounce, len) ? -EFAULT : 0;
	if (!user_access_begin(ubuf, len))
		return -EFAULT;
	unsafe_copy_to_user(ubuf, bounce, len, efault);
	user_access_end();
	return 0;
efault:
	user_access_end();
	return -EFAULT;
}
