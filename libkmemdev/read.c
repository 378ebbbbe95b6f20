// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * kmemdev_read(): copy kernel memory from whichever source serves it.
 *
 *  - a mapping of the device (map.c), when one holds the whole range: no
 *    system call; a range with a page the driver refuses, seen before or
 *    after the copy (kmemdev_map_refused()), is read by the device, as
 *    below, so a refused page gives the device's answer for it;
 *  - else one pread() of the device at KMEM_RO_READ_OFFSET(kaddr), when
 *    the driver has KMEM_RO_FEAT_PREAD;
 *  - else, with an older driver, one KMEM_RO_IOC_READV segment;
 *  - a kcore handle reads its PT_LOAD segments (kcore.c).
 *
 * Both device reads give the same results, those of one READV segment:
 * the first page's errno when it fails, -EFAULT (the remainder counts as
 * unreadable) when a later one does.  A pread() that comes back short
 * may also have stopped for a signal, so the rest is asked for again: a
 * real failure then fails that second call's first page.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

/* Reads up to this size go through a bounce buffer on the stack. */
#define READ_STACK_BOUNCE 256

/*
 * Where a device read lands: buf itself for a scratch read, else a bounce
 * buffer, so that a failed read leaves buf as it was, as the mmap path
 * does.  NULL when out of memory.
 */
static unsigned char *bounce_get(void *buf, size_t len, bool scratch,
				 unsigned char *stack)
{
	if (scratch)
		return buf;
	if (len <= READ_STACK_BOUNCE)
		return stack;
	return malloc(len);
}

static void bounce_put(unsigned char *bounce, void *buf, size_t len, int err,
		       const unsigned char *stack)
{
	if (!err && bounce != buf)
		memcpy(buf, bounce, len);
	if (bounce != stack && bounce != buf)
		free(bounce);
}

/* pread() by address (KMEM_RO_FEAT_PREAD): one call unless it comes back short. */
static int read_pread(struct kmemdev *h, uint64_t kaddr, void *buf, size_t len,
		      bool scratch)
{
	unsigned char stack[READ_STACK_BOUNCE], *bounce;
	size_t done = 0;
	int err = 0;

	/* READV's answer to a segment whose end wraps past 2^64 (to 0 included) */
	if (len > UINT64_MAX - kaddr)
		return -EINVAL;
	bounce = bounce_get(buf, len, scratch, stack);
	if (!bounce)
		return -ENOMEM;
	while (done < len) {
		ssize_t n = pread(h->fd, bounce + done, len - done,
				  KMEM_RO_READ_OFFSET(kaddr + done));

		if (n > 0) {
			done += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)	/* a signal before any byte */
			continue;
		err = n < 0 && !done ? -errno : -EFAULT;
		break;
	}
	bounce_put(bounce, buf, len, err, stack);
	return err;
}

/* One READV segment (a driver without KMEM_RO_FEAT_PREAD). */
static int read_readv(struct kmemdev *h, uint64_t kaddr, void *buf, size_t len,
		      bool scratch)
{
	unsigned char stack[READ_STACK_BOUNCE], *bounce;
	struct kmem_ro_iov iov;
	int err;

	bounce = bounce_get(buf, len, scratch, stack);
	if (!bounce)
		return -ENOMEM;
	iov = (struct kmem_ro_iov){
		.addr = kaddr,
		.len = len,
		.buf = (uintptr_t)bounce,
	};
	err = kmemdev_readv(h, &iov, 1, NULL);
	if (!err) {
		if (iov.result < 0)
			err = iov.result < -4095 ? -EIO : (int)iov.result;
		else if ((uint64_t)iov.result < len)
			err = -EFAULT;
	}
	bounce_put(bounce, buf, len, err, stack);
	return err;
}

/* The driver reads the range; @err if it offers no read by address. */
static int read_device(struct kmemdev *h, uint64_t kaddr, void *buf, size_t len,
		       bool scratch, int err)
{
	if (h->info.features & KMEM_RO_FEAT_PREAD)
		return read_pread(h, kaddr, buf, len, scratch);
	if (h->info.features & KMEM_RO_FEAT_READV)
		return read_readv(h, kaddr, buf, len, scratch);
	return err;
}

static int read_any(struct kmemdev *h, uint64_t kaddr, void *buf, size_t len,
		    bool scratch)
{
	const void *src;
	int err;

	if (!h || !buf)
		return -EINVAL;
	if (h->backend == KMEMDEV_BACKEND_KCORE)
		return kmemdev__kcore_read(h, kaddr, buf, len);
	err = kmemdev_map(h, kaddr, len, &src);
	/*
	 * EPERM: the text mapping refused, which READ_IMPLIES_EXEC does to
	 * every PROT_READ mmap (do_mmap() adds PROT_EXEC); the driver reads it.
	 */
	if (err == -ENXIO || err == -EOPNOTSUPP || err == -EPERM)
		return read_device(h, kaddr, buf, len, scratch, err);
	if (err)
		return err;
	/*
	 * Checked before the copy too, so buf stays as it was when a page
	 * refused all along fails the device read; one refused during the
	 * copy leaves the copy in buf if the device read then fails.
	 */
	if (kmemdev_map_refused(h, src, len))
		return read_device(h, kaddr, buf, len, scratch, -EFAULT);
	memcpy(buf, src, len);
	if (kmemdev_map_refused(h, src, len))
		return read_device(h, kaddr, buf, len, scratch, -EFAULT);
	return 0;
}

int kmemdev_read(struct kmemdev *h, uint64_t kaddr, void *buf, size_t len)
{
	return read_any(h, kaddr, buf, len, false);
}

/*
 * The library's own reads of whole tables (kallsyms, BTF: megabytes) into
 * a buffer they throw away on failure: the driver fills it directly,
 * without a bounce buffer as large, which would double the memory touched
 * (a page fault per 4 KiB) and add a copy.
 */
int kmemdev__read_scratch(struct kmemdev *h, uint64_t kaddr, void *buf, size_t len)
{
	return read_any(h, kaddr, buf, len, true);
}
