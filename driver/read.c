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
 * the rest and tells which errno.  pread()'s and READV's large reads.
 *
 * Return: the bytes copied, possibly 0.
 */
size_t kmem_ro_read_direct(char __user *ubuf, unsigned long addr, size_t len)
{
	struct kmem_ro_reader r;
	size_t done = 0;

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

/**
 * kmem_ro_read() - read() and pread() of the device
 * @file: the open device
 * @ubuf: user destination
 * @len: bytes (the VFS caps it at MAX_RW_COUNT)
 * @ppos: KMEM_RO_READ_OFFSET() of the kernel virtual address to read;
 *	advanced by the bytes read
 *
 * Up to a page at a time: checked and copied in one section, then one
 * user copy; or, above 256 bytes, as much of the page as the buffer's
 * pages that are there take, straight (kmem_ro_read_direct()).  A signal
 * stops the read between two pages, never before the first: a read of
 * one object is never interrupted.
 *
 * Return: the bytes read, short at the first page that fails or the first
 * byte of @ubuf that cannot be written; if none, that page's errno
 * (uapi/kmem_ro.h) or -EFAULT.
 */
ssize_t kmem_ro_read(struct file *file, char __user *ubuf, size_t len, loff_t *ppos)
{
	/* written before read, and only what was written goes out */
	u64 stack[KMEM_RO_READ_STACK / sizeof(u64)] __uninitialized;
	unsigned long addr = KMEM_RO_READ_ADDR(*ppos);
	size_t done = 0, most = sizeof(stack);
	void *bounce = stack;
	int err = 0;

	if (!len)
		return 0;
	if (len > most) {
		bounce = kmem_ro_read_page_get();
		if (!bounce)
			return -ENOMEM;
		most = PAGE_SIZE;
	}
	while (done < len) {
		size_t piece = min(len - done, most), got = 0, left;

		if (done) {
			if (signal_pending(current))
				break;
			cond_resched();
		}
		/* a large read straight to a buffer whose pages are there... */
		if (bounce != stack)
			got = kmem_ro_read_direct(ubuf + done, addr + done, piece);
		done += got;
		if (got == piece)
			continue;
		/* ...the rest of the piece, or a small read, through the bounce buffer */
		got = kmem_ro_read_section(bounce, addr + done, piece - got, &err);
		/* a few stores for a field; copy_to_user() counts what a fault left */
		left = got && kmem_ro_copy_out(ubuf + done, bounce, got) ?
		       copy_to_user(ubuf + done, bounce, got) : 0;
		done += got - left;
		if (left)
			err = -EFAULT;
		if (err)
			break;
	}
	if (bounce != stack)
		kmem_ro_read_page_put(bounce);
	if (!done)
		return err;
	*ppos += done;
	return done;
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
