// SPDX-License-Identifier: GPL-2.0
/*
 * kmem_ro - KMEM_RO_IOC_READV: many kernel reads in one call, each with its
 * own result.
 */
#include <linux/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include <kmem_ro.h>

#include "internal.h"

/* One segment, through the bounce page: bytes read or -errno. */
static s64 kmem_ro_readv_one(const struct kmem_ro_iov *iov, void *bounce,
			     const struct kmem_ro_ram *ram)
{
	char __user *ubuf = u64_to_user_ptr(iov->buf);
	u64 done = 0;

	if (iov->addr + iov->len < iov->addr)
		return -EINVAL;
	while (done < iov->len) {
		size_t chunk = min_t(u64, iov->len - done, PAGE_SIZE);
		int err;
		size_t got = kmem_ro_read_kernel(bounce, iov->addr + done, chunk, ram, &err);

		if (got && kmem_ro_copy_out(ubuf + done, bounce, got))
			return done ? done : -EFAULT;
		done += got;
		if (err)
			return done ? done : err;
		cond_resched();
	}
	return done;
}

/**
 * kmem_ro_readv_ioctl() - KMEM_RO_IOC_READV
 * @uarg: user pointer to struct kmem_ro_readv
 *
 * Return: 0 (see @done for how far it got) or a negative errno as
 * documented in uapi/kmem_ro.h.
 */
long kmem_ro_readv_ioctl(void __user *uarg)
{
	struct kmem_ro_iov __user *uiov;
	struct kmem_ro_readv rv;
	struct kmem_ro_iov *iov;
	struct kmem_ro_ram *ram;
	u64 usize, total = 0;
	void *bounce;
	u32 i;
	int err;

	err = kmem_ro_arg_in(&rv, sizeof(rv), KMEM_RO_READV_SIZE_VER0, uarg, &usize);
	if (err)
		return err;
	if (rv.flags || rv.reserved[0] || rv.reserved[1] ||
	    !rv.iov_addr != !rv.iov_count)
		return -EINVAL;
	if (rv.iov_count > KMEM_RO_READV_MAX_SEGS)
		return -E2BIG;
	uiov = u64_to_user_ptr(rv.iov_addr);
	iov = memdup_array_user(uiov, rv.iov_count, sizeof(*iov));
	if (IS_ERR(iov))
		return PTR_ERR(iov);
	for (i = 0; i < rv.iov_count; i++) {
		total += iov[i].len;
		if (iov[i].len > KMEM_RO_READV_MAX_BYTES || total > KMEM_RO_READV_MAX_BYTES) {
			err = -E2BIG;
			goto out_free_iov;
		}
	}
	ram = kmem_ro_ram_current();
	/*
	 * A page of its own, not a slab object: hardened usercopy then checks
	 * each copy_to_user() from it without a slab lookup.
	 */
	bounce = (void *)__get_free_page(GFP_KERNEL);
	if (!bounce) {
		err = -ENOMEM;
		goto out_free_ram;
	}

	for (i = 0; i < rv.iov_count; i++) {
		/* stop on a signal: what is done stays done */
		if (signal_pending(current)) {
			if (!i)
				err = -EINTR;
			break;
		}
		if (put_user(kmem_ro_readv_one(&iov[i], bounce, ram), &uiov[i].result)) {
			err = -EFAULT;
			break;
		}
	}
	rv.done = i;
	if (!err)
		err = kmem_ro_arg_out(uarg, &rv, sizeof(rv), usize);

	free_page((unsigned long)bounce);
out_free_ram:
	kmem_ro_ram_put(ram);
out_free_iov:
	kfree(iov);
	return err;
}
