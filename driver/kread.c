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

#include "compat.h"
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
/* Up to this many bytes come in as plain loads: READV's stack segments. */
#define KMEM_RO_SMALL_COPY_IN	128

/**
 * kmem_ro_copy_out() - copy what was read, or an ioctl's argument, to the user
 * @ubuf: user destination
 * @bounce: the driver's own buffer or argument struct, never a kernel object
 * @len: bytes, at most the size of @bounce
 *
 * Most READV segments and WALK records are a field or a pointer, and most
 * ioctl arguments a few words: for those a few 8-byte stores beat
 * copy_to_user()'s hardened-usercopy object check and the start-up cost
 * of rep movsb, in a window opened without a speculation barrier where
 * the kernel can (kmem_ro_user_access_begin()).
 *
 * Return: 0 or -EFAULT.
 */
int kmem_ro_copy_out(void __user *ubuf, const void *bounce, size_t len)
{
	if (len > KMEM_RO_SMALL_COPY)
		return copy_to_user(ubuf, bounce, len) ? -EFAULT : 0;
	if (!kmem_ro_user_access_begin(ubuf, len))
		return -EFAULT;
	unsafe_copy_to_user(ubuf, bounce, len, efault);
	user_access_end();
	return 0;
efault:
	user_access_end();
	return -EFAULT;
}

/**
 * kmem_ro_copy_in() - copy an ioctl's argument or segments from the user
 * @dst: the driver's own buffer, @len bytes, aligned for u64
 * @usrc: user source
 * @len: bytes
 *
 * The mirror of kmem_ro_copy_out(): an argument struct or a few READV
 * segments, whole u64s, come in as plain loads in one user-access window
 * (kmem_ro_user_access_begin(): no speculation barrier where the kernel
 * masks the address), not through copy_from_user()'s barrier,
 * hardened-usercopy object check and rep movs.  The user's memory need
 * not be aligned.
 *
 * Return: 0 or -EFAULT.
 */
int kmem_ro_copy_in(void *dst, const void __user *usrc, size_t len)
{
	const u64 __user *src = usrc;
	u64 *to = dst, *end = to + len / sizeof(u64);

	if (len > KMEM_RO_SMALL_COPY_IN || !IS_ALIGNED(len, sizeof(u64)))
		return copy_from_user(dst, usrc, len) ? -EFAULT : 0;
	if (!kmem_ro_user_access_begin(src, len))
		return -EFAULT;
	while (to < end)
		unsafe_get_user(*to++, src++, efault);
	user_access_end();
	return 0;
efault:
	user_access_end();
	return -EFAULT;
}
