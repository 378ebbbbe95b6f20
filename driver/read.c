// SPDX-License-Identifier: GPL-2.0
/*
 * kmem_ro - read() and pread() by kernel virtual address.
 *
 * The cheapest way to read one object: the file offset is the address
 * (KMEM_RO_READ_OFFSET() in uapi/kmem_ro.h), so a read needs no argument
 * structure to copy in or out.  Each page is checked and copied into a
 * kernel buffer in one reader section (kread.c: RCU, no lock for boot
 * RAM), then the bytes go out in one copy_to_user(), outside the section.
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
 * kmem_ro_read() - read() and pread() of the device
 * @file: the open device
 * @ubuf: user destination
 * @len: bytes (the VFS caps it at MAX_RW_COUNT)
 * @ppos: KMEM_RO_READ_OFFSET() of the kernel virtual address to read;
 *	advanced by the bytes read
 *
 * Up to a page at a time: checked and copied in one section, then one
 * user copy.  A signal stops the read between two of these, never before
 * the first: a read of one object is never interrupted.
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
		size_t got, left;

		if (done) {
			if (signal_pending(current))
				break;
			cond_resched();
		}
		got = kmem_ro_read_section(bounce, addr + done, min(len - done, most), &err);
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
