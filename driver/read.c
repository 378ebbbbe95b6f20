// SPDX-License-Identifier: GPL-2.0
/*
 * kmem_ro - read() and pread() by kernel virtual address.
 *
 * The cheapest way to read one object: the file offset is the address
 * (KMEM_RO_READ_OFFSET() in uapi/kmem_ro.h), so a read needs no argument
 * structure to copy in or out.  Each page is checked and copied into a
 * kernel buffer in one reader section (kread.c: RCU, no lock for boot
 * RAM), then the bytes go out in one copy_to_user(), outside the section;
 * a large read into a buffer whose pages are there is copied once,
 * straight from the checked page to the user, inside the section with
 * page faults off.
 */
#include <linux/fs.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/sched/signal.h>
#include <linux/uaccess.h>

#include <kmem_ro.h>

#include "internal.h"
#include "kread.h"

/* Reads up to this size use a buffer on the stack (KASAN: 1 KiB frames)... */
#define KMEM_RO_READ_STACK	256

/*
 * ...larger ones a whole page, taken from this per-CPU spare and given
 * back after: a process reading page after page (crash's search -p)
 * allocates once per CPU, not per call.  A page of its own, not a slab
 * object: hardened usercopy checks copy_to_user() from it without a slab
 * lookup.  Another reader on the same CPU meanwhile (the first slept in
 * its user copy) gets a page of its own, freed after.  READV's large
 * segments use it too.
 */
static DEFINE_PER_CPU(void *, kmem_ro_read_spare);

/**
 * kmem_ro_read_page_get() - a bounce page: the CPU's spare, else a new one
 *
 * Return: the page, or NULL if none could be allocated.
 */
void *kmem_ro_read_page_get(void)
{
	void *page = this_cpu_xchg(kmem_ro_read_spare, NULL);

	return page ?: (void *)__get_free_page(GFP_KERNEL);
}

/**
 * kmem_ro_read_page_put() - give a bounce page back, as the CPU's spare if it has none
 * @page: from kmem_ro_read_page_get()
 */
void kmem_ro_read_page_put(void *page)
{
	if (this_cpu_cmpxchg(kmem_ro_read_spare, NULL, page))
		free_page((unsigned long)page);
}

/**
 * kmem_ro_read_direct() - copy kernel memory straight to the user, if it can
 * @ubuf: user destination
 * @addr: kernel virtual address
 * @len: bytes, up to a page (it may cross one page boundary)
 *
 * A read of up to a page straight from the checked pages' direct map into
 * the user's buffer, inside the section, with page faults off: one copy
 * of the bytes, where the bounce page makes two (read_kcore_iter() and
 * /dev/mem's read_mem() bounce too).  raw_copy_to_user(), not
 * copy_to_user(): hardened usercopy's check is for kernel objects a driver
 * means to hand out, and would refuse the bytes of a slab page that the
 * device exists to read; these are pages that passed every check, as the
 * bounce copy's are, and a source that is not in the direct map
 * (memfd_secret) faults and stops the copy as copy_from_kernel_nofault()
 * would.  A user page that is not present (its fault would sleep: FUSE,
 * userfaultfd, a first touch), a page of driver-managed RAM (it needs the
 * offline hold) or any refused page stops it too: the bounce path reads
 * the rest and tells which errno, as it does for a buffer outside user
 * memory (access_ok(), which copy_to_user() makes).  pread()'s and
 * READV's large reads.
 *
 * Return: the bytes copied, possibly 0.
 */
size_t kmem_ro_read_direct(char __user *ubuf, unsigned long addr, size_t len)
{
	struct kmem_ro_reader r __uninitialized;	/* as kmem_ro_read_section()'s */
	size_t done = 0;

	/*
	 * raw_copy_to_user() checks nothing: a READV segment's buffer comes
	 * unchecked, and a kernel address there would be written to.  A range
	 * that wraps is the bounce path's to refuse (-EINVAL), as a whole.
	 */
	if (!access_ok(ubuf, len) || addr + len < addr)
		return 0;
	__kmem_ro_reader_init(&r);
	__kmem_ro_reader_begin(&r);
	pagefault_disable();
	while (done < len) {
		unsigned long cur = addr + done, pfn, left;
		size_t chunk = min_t(size_t, len - done, PAGE_SIZE - offset_in_page(cur));

		if (kmem_ro_checked_pfn(cur, &r, NULL, &pfn))
			break;
		left = raw_copy_to_user(ubuf + done, pfn_to_kaddr(pfn) + offset_in_page(cur), chunk);
		done += chunk - left;
		if (left)
			break;
	}
	pagefault_enable();
	__kmem_ro_reader_end(&r);
	return done;
}

/*
 * Up to 256 bytes (a field, a pointer, a struct): one section into a
 * stack buffer, one copy out, inline in kmem_ro_read(): the commonest
 * read makes no call of its own.  Bytes read, or the page's errno, or
 * -EFAULT.
 */
static __always_inline ssize_t kmem_ro_read_small(char __user *ubuf, unsigned long addr, size_t len)
{
	/* written before read, and only what was written goes out */
	u64 stack[KMEM_RO_READ_STACK / sizeof(u64)] __uninitialized;
	size_t got, left;
	int err;

	got = kmem_ro_read_section(stack, addr, len, &err);
	/* a few stores for a field; copy_to_user() counts what a fault left */
	left = got && kmem_ro_copy_out(ubuf, stack, got) ? copy_to_user(ubuf, stack, got) : 0;
	if (got > left)
		return got - left;
	return left ? -EFAULT : err;
}

/*
 * Above 256 bytes: a page at a time, as much of it as the buffer's pages
 * that are there take straight (kmem_ro_read_direct()), the rest through
 * the bounce page (a section, then one user copy).  A signal stops the
 * read between two pages, never before the first.  Bytes read, or the
 * first page's errno, -EFAULT or -ENOMEM.
 */
static noinline ssize_t kmem_ro_read_pages(char __user *ubuf, unsigned long addr, size_t len)
{
	void *bounce = kmem_ro_read_page_get();
	size_t done = 0;
	int err = 0;

	if (!bounce)
		return -ENOMEM;
	while (done < len) {
		size_t piece = min_t(size_t, len - done, PAGE_SIZE), got, left;

		if (done) {
			if (signal_pending(current))
				break;
			cond_resched();
		}
		got = kmem_ro_read_direct(ubuf + done, addr + done, piece);
		done += got;
		if (got == piece)
			continue;
		got = kmem_ro_read_section(bounce, addr + done, piece - got, &err);
		left = got ? copy_to_user(ubuf + done, bounce, got) : 0;
		done += got - left;
		if (left)
			err = -EFAULT;
		if (err)
			break;
	}
	kmem_ro_read_page_put(bounce);
	return done ? done : err;
}

/**
 * kmem_ro_read() - read() and pread() of the device
 * @file: the open device
 * @ubuf: user destination
 * @len: bytes (the VFS caps it at MAX_RW_COUNT)
 * @ppos: KMEM_RO_READ_OFFSET() of the kernel virtual address to read;
 *	advanced by the bytes read
 *
 * Up to 256 bytes in one section and one user copy; more a page at a
 * time, between which a signal may stop it: a read of one object is
 * never interrupted.
 *
 * Return: the bytes read, short at the first page that fails or the first
 * byte of @ubuf that cannot be written; if none, that page's errno
 * (uapi/kmem_ro.h), -EFAULT or -ENOMEM.
 */
ssize_t kmem_ro_read(struct file *file, char __user *ubuf, size_t len, loff_t *ppos)
{
	unsigned long addr = KMEM_RO_READ_ADDR(*ppos);
	ssize_t ret;

	if (!len)
		return 0;
	if (len > KMEM_RO_READ_STACK)
		ret = kmem_ro_read_pages(ubuf, addr, len);
	else
		ret = kmem_ro_read_small(ubuf, addr, len);
	if (ret > 0)
		*ppos += ret;
	return ret;
}

/**
 * kmem_ro_read_exit() - free the per-CPU spare pages; no read may run
 */
void kmem_ro_read_exit(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		free_page((unsigned long)per_cpu(kmem_ro_read_spare, cpu));
}
