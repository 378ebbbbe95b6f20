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
 *
 * Checks and copies run in reader sections (struct kmem_ro_reader): the
 * RAM list read under RCU, no lock and no atomic for boot RAM, so readers
 * never wait for each other or for /proc/kcore's readers.
 *
 * A section is RCU-sched, preemption disabled: since v5.0 a grace period
 * (the kfree_rcu() of a replaced RAM list) waits for those as for
 * rcu_read_lock() (rcu_read_lock_sched() in <linux/rcupdate.h>, 6.1,
 * 6.12, 7.3).  On these PREEMPT_RCU kernels rcu_read_lock() and
 * rcu_read_unlock() are two calls (__rcu_read_lock(), with a return thunk
 * on CPUs that need one); preempt_disable() is one per-CPU increment.  A
 * section is short: one page copied at most, or one READV segment or
 * WALK node of a few fields.
 */
#include <linux/memory_hotplug.h>
#include <linux/mm.h>
#include <linux/rcupdate.h>
#include <linux/uaccess.h>
#include <asm/pgtable.h>

#include "internal.h"
#include "kread.h"

/**
 * kmem_ro_reader_init() - a reader that has checked nothing yet
 * @r: the reader
 */
void kmem_ro_reader_init(struct kmem_ro_reader *r)
{
	__kmem_ro_reader_init(r);
}

/**
 * kmem_ro_reader_begin() - start a section of checks and copies
 * @r: the reader (kmem_ro_reader_init())
 *
 * A section reads the RAM list under RCU-sched: no reference, no lock,
 * no atomic for boot RAM.  It must not sleep, so it ends before any user
 * copy (a user page can stall for ever: FUSE, userfaultfd) and before
 * cond_resched().  Table pages checked in one section count in the next
 * sections of the same reader, each looked at again by its struct page's
 * flags (kpgtable.c): its callers re-initialise it per object or group
 * of segments and never sleep in between.  Those of a section that held
 * the offline lock do not count (kmem_ro_reader_end()).
 */
void kmem_ro_reader_begin(struct kmem_ro_reader *r)
	__acquires(RCU_SCHED)
{
	__kmem_ro_reader_begin(r);
}

/**
 * kmem_ro_reader_end() - end the section; let pages go offline again
 * @r: the reader
 */
void kmem_ro_reader_end(struct kmem_ro_reader *r)
	__releases(RCU_SCHED)
{
	__kmem_ro_reader_end(r);
}

/**
 * kmem_ro_reader_hold_offline() - hold off offlining for the rest of the section
 * @r: the reader, inside a section
 * @checked: the object's last checked page, forgotten; or NULL
 *
 * Driver-managed RAM met: virtio-mem sets PageOffline() on its pages
 * under page_offline_begin() and then asks the host to take them away, so
 * a page that passed kmem_ro_page_online() must not go offline before it
 * is copied.  read_kcore_iter() (6.1, 6.12, 7.3) holds the read side,
 * page_offline_freeze(), which is not exported; the write side is, and
 * excludes those setters just as well, at the cost of excluding other
 * readers too: so it is taken only here, for the rest of the section,
 * never for boot RAM.  The section is begun again (it may not sleep):
 * what it checked before counts no more.
 */
void kmem_ro_reader_hold_offline(struct kmem_ro_reader *r,
					struct kmem_ro_checked_page *checked)
{
	rcu_read_unlock_sched();
	page_offline_begin();
	rcu_read_lock_sched();
	r->ram = kmem_ro_ram_rcu();
	r->offline_held = true;
	r->pt.nr = 0;
	if (checked)
		checked->vpage = 0;
}

/**
 * kmem_ro_read_object() - copy part of a kernel object into a kernel buffer
 * @dst: destination, @len bytes
 * @addr: kernel virtual address
 * @len: bytes; may cross pages
 * @r: the reader, inside a section (kmem_ro_reader_begin())
 * @checked: the object's last checked page (cleared per object), or NULL
 * @err: returns the errno of the page that stopped the read (0 if none)
 *
 * Every byte is copied through the direct map of a PFN that passed every
 * check; a page's check is done once per object (see struct
 * kmem_ro_checked_page), the copy every time.  A page of driver-managed
 * RAM makes the section take page_offline_begin() (may sleep, between
 * two RCU read-side sections), held until kmem_ro_reader_end().
 *
 * Return: the number of bytes read, @len unless a page failed (then @err
 * says why).
 */
size_t kmem_ro_read_object(void *dst, unsigned long addr, size_t len,
			   struct kmem_ro_reader *r,
			   struct kmem_ro_checked_page *checked, int *err)
{
	return __kmem_ro_read_object(dst, addr, len, r, checked, err);
}

/**
 * kmem_ro_read_section_call() - kmem_ro_read_section(), as a call
 * @dst: destination, @len bytes
 * @addr: kernel virtual address
 * @len: bytes; may cross pages
 * @err: returns the errno of the page that stopped the read (0 if none)
 *
 * For a read whose copy costs more than a call (a large READV segment, a
 * page at a time): one copy of the inline reader in the kernel, not one
 * in each such caller beside the inline one of its hot path.
 *
 * Return: as kmem_ro_read_object().
 */
size_t kmem_ro_read_section_call(void *dst, unsigned long addr, size_t len, int *err)
{
	return kmem_ro_read_section(dst, addr, len, err);
}
