// SPDX-License-Identifier: GPL-2.0
/*
 * kmem_ro - KMEM_RO_IOC_READV: many kernel reads in one call, each with its
 * own result.
 *
 * Most segments are a field or a pointer.  What such a segment must cost
 * is the check of its page (its struct page: a random access of its own)
 * and the read; the rest is kept per call or per group of segments, not
 * per segment.  Small segments are read, a group at a time, into a buffer
 * on the stack; the group's bytes and results then go out in one
 * user-access window (one STAC/CLAC and speculation barrier for the
 * group, not two per segment).  A call that has a larger segment takes
 * the CPU's spare bounce page, as pread() does (read.c), and a call of a
 * few segments copies them to the stack instead of a kmalloc()ed array:
 * a call of a few small segments allocates nothing.
 *
 * The fixed cost of a call counts too: a monitor reading one field at a
 * time makes calls of one segment of 8 or 16 bytes.  Such a call copies
 * the argument and its segment in, and its data, result and @done out:
 * the fewest copies its ABI allows.  Where the kernel masks user
 * addresses (6.12 and later) both copies in are word loads in one masked
 * window (kmem_ro_readv_in()); the segment is read inline, without the
 * group's bookkeeping, and everything goes out as stores in one more
 * window (kmem_ro_readv_one()): no lfence, and no call for an aligned
 * word.  Only @done goes back of the argument.
 */
#include <linux/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include <kmem_ro.h>

#include "internal.h"
#include "kread.h"

/* Segments of at most this many bytes are read into the group... */
#define KMEM_RO_READV_SMALL		64
/* ...up to this many segments or bytes at a time, then written out together. */
#define KMEM_RO_READV_GROUP		16
#define KMEM_RO_READV_GROUP_BYTES	256
/* Calls of at most this many segments copy them to the stack. */
#define KMEM_RO_READV_STACK_IOVS	4

/* Small enough for the stack of a kernel built with KASAN (1 KiB frames). */
struct kmem_ro_readv_group {
	u32 first;				/* segment index of res[0] */
	u32 nr;					/* segments read, not yet out */
	u32 used;				/* bytes of data[] they take */
	struct kmem_ro_reader r;		/* its table pages (.pt) */
	struct kmem_ro_checked_page checked;
	s64 res[KMEM_RO_READV_GROUP];
	u64 data[KMEM_RO_READV_GROUP_BYTES / sizeof(u64)];
};

/*
 * A segment above KMEM_RO_READV_SMALL, a page at a time: straight to the
 * user where its buffer's pages are there (kmem_ro_read_direct()), the
 * rest of the page through the bounce page: bytes read or -errno.  Its
 * reader is a call: against a page's copy a call costs nothing, and the
 * one-segment path keeps the only inline reader here.
 */
static s64 kmem_ro_readv_big(const struct kmem_ro_iov *iov, void *bounce)
{
	char __user *ubuf = u64_to_user_ptr(iov->buf);
	u64 done = 0;

	if (iov->addr + iov->len < iov->addr)
		return -EINVAL;
	while (done < iov->len) {
		size_t chunk = min_t(u64, iov->len - done, PAGE_SIZE), got;
		int err;

		got = kmem_ro_read_direct(ubuf + done, iov->addr + done, chunk);
		done += got;
		if (got == chunk) {
			cond_resched();
			continue;
		}
		chunk -= got;
		got = kmem_ro_read_section_call(bounce, iov->addr + done, chunk, &err);
		if (got && kmem_ro_copy_out(ubuf + done, bounce, got))
			return done ? done : -EFAULT;
		done += got;
		if (err)
			return done ? done : err;
		cond_resched();
	}
	return done;
}

/* Bytes of the group's data a segment takes: whole u64s. */
static u32 kmem_ro_readv_room(const struct kmem_ro_iov *iov)
{
	return round_up((u32)iov->len, sizeof(u64));
}

/* Is there room in the group for this small segment? */
static bool kmem_ro_readv_fits(const struct kmem_ro_readv_group *g,
			       const struct kmem_ro_iov *iov)
{
	return g->nr < KMEM_RO_READV_GROUP &&
	       g->used + kmem_ro_readv_room(iov) <= KMEM_RO_READV_GROUP_BYTES;
}

/*
 * Read a segment of at most KMEM_RO_READV_SMALL bytes into the group, in
 * a reader section of its own (kread.c: RCU, no lock for boot RAM).  The
 * table pages the group's segments share are checked once per group
 * (@g->r.pt), not once per segment: the group does not sleep until it
 * goes out, so the window between check and read stays as short as
 * within one section.
 */
static void kmem_ro_readv_small(struct kmem_ro_readv_group *g,
				const struct kmem_ro_iov *iov)
{
	size_t got;
	int err;

	if (!g->nr)
		kmem_ro_reader_init(&g->r);
	g->checked.vpage = 0;
	kmem_ro_reader_begin(&g->r);
	got = kmem_ro_read_object((char *)g->data + g->used, iov->addr, iov->len,
				  &g->r, &g->checked, &err);
	kmem_ro_reader_end(&g->r);
	g->res[g->nr++] = got ? (s64)got : err;
	g->used += kmem_ro_readv_room(iov);
}

/*
 * Write the group out in segment order, as kmem_ro_readv_big() and a
 * put_user() of each result would: a buffer that cannot be written gets
 * -EFAULT as its result.  One user-access window for the group (the
 * results' array checked at once, or masked where the kernel masks user
 * addresses; each buffer with access_ok()), another only after a buffer
 * faults.
 *
 * Return: 0, or -EFAULT when a result could not be written.
 */
static int kmem_ro_readv_flush(struct kmem_ro_readv_group *g,
			       const struct kmem_ro_iov *iov,
			       struct kmem_ro_iov __user *uiov)
{
	/* pointers, not indices: no bounds check may call out of the window */
	const struct kmem_ro_iov *v = iov + g->first;
	struct kmem_ro_iov __user *u = uiov + g->first;
	const s64 *res = g->res, *end = g->res + g->nr;
	const char *data = (const char *)g->data;

	while (res < end) {
		/*
		 * The segments were read from @u on: it is user memory.  Masked
		 * (no lfence), an address past user memory would become its
		 * top, and the results, stored in order from @u, would fault in
		 * the guard page above it.
		 */
		if (can_do_masked_user_access())
			u = masked_user_access_begin(u);
		else if (!user_access_begin(u, (end - res) * sizeof(*u)))
			return -EFAULT;
		for (; res < end; data += kmem_ro_readv_room(v), res++, v++, u++) {
			void __user *ubuf = u64_to_user_ptr(v->buf);

			if (*res > 0) {
				if (!access_ok(ubuf, *res))
					goto buf_fault;
				unsafe_copy_to_user(ubuf, data, *res, buf_fault);
			}
			unsafe_put_user(*res, &u->result, result_fault);
		}
		user_access_end();
		break;
buf_fault:
		user_access_end();
		if (put_user((s64)-EFAULT, &u->result))
			return -EFAULT;
		data += kmem_ro_readv_room(v);
		res++;
		v++;
		u++;
	}
	g->first += g->nr;
	g->nr = 0;
	g->used = 0;
	/* between groups only: a group's table pages were checked once */
	cond_resched();
	return 0;

result_fault:
	user_access_end();
	return -EFAULT;
}

/*
 * A call of one small segment, the commonest: read in a section of its
 * own, inline (kread.h), into the stack, then the data, the result and
 * @done out in one user-access window, as kmem_ro_readv_flush() and the
 * put_user() of @done would write them.  Against the general path it
 * saves the group's bookkeeping, four calls around the read and the
 * window of @done.
 *
 * Return: 0 or -EFAULT (the result or @done could not be written).
 */
static __always_inline long kmem_ro_readv_one(const struct kmem_ro_iov *iov,
					       struct kmem_ro_iov __user *u,
					       u32 __user *udone)
{
	/* written before read, and only what was written goes out */
	u64 data[KMEM_RO_READV_SMALL / sizeof(u64)] __uninitialized;
	void __user *ubuf = u64_to_user_ptr(iov->buf);
	size_t got;
	s64 res;
	int err;

	got = kmem_ro_read_section(data, iov->addr, iov->len, &err);
	res = got ? (s64)got : err;
	/* as in kmem_ro_readv_flush(): masked, each pointer on its own */
	if (can_do_masked_user_access()) {
		u = masked_user_access_begin(u);
		udone = (u32 __user *)mask_user_address(udone);
	} else if (!user_access_begin(u, sizeof(*u))) {
		return -EFAULT;
	} else if (!access_ok(udone, sizeof(*udone))) {
		goto fault;
	}
	if (res > 0) {
		if (!access_ok(ubuf, res))
			goto buf_fault;
		unsafe_copy_to_user(ubuf, (const char *)data, res, buf_fault);
	}
	unsafe_put_user(res, &u->result, fault);
	unsafe_put_user(1, udone, fault);
	user_access_end();
	return 0;

buf_fault:
	user_access_end();
	if (put_user((s64)-EFAULT, &u->result) || put_user(1, udone))
		return -EFAULT;
	return 0;
fault:
	user_access_end();
	return -EFAULT;
}

/*
 * Any other call: segments in groups (kmem_ro_readv_small()) and large
 * ones through a bounce page.  noinline: its frame is its own, not the
 * one-segment call's.
 */
static noinline long kmem_ro_readv_many(const struct kmem_ro_readv *rv,
					struct kmem_ro_iov __user *uiov,
					u32 __user *udone)
{
	/* written before read, and only what was written goes out */
	struct kmem_ro_iov stack_iov[KMEM_RO_READV_STACK_IOVS] __uninitialized;
	struct kmem_ro_readv_group g __uninitialized;
	struct kmem_ro_iov *iov;
	void *bounce = NULL;
	bool big = false;
	u64 total = 0;
	u32 i;
	int err = 0;

	if (rv->iov_count <= ARRAY_SIZE(stack_iov)) {
		iov = stack_iov;
		err = kmem_ro_copy_in(iov, uiov, rv->iov_count * sizeof(*iov));
		if (err)
			return err;
	} else {
		iov = memdup_array_user(uiov, rv->iov_count, sizeof(*iov));
		if (IS_ERR(iov))
			return PTR_ERR(iov);
	}
	for (i = 0; i < rv->iov_count; i++) {
		total += iov[i].len;
		if (iov[i].len > KMEM_RO_READV_MAX_BYTES || total > KMEM_RO_READV_MAX_BYTES) {
			err = -E2BIG;
			goto out_free_iov;
		}
		big |= iov[i].len > KMEM_RO_READV_SMALL;
	}
	if (big) {
		bounce = kmem_ro_read_page_get();
		if (!bounce) {
			err = -ENOMEM;
			goto out_free_iov;
		}
	}
	g.first = 0;
	g.nr = 0;
	g.used = 0;
	for (i = 0; i < rv->iov_count; i++) {
		/* stop on a signal: what is done stays done */
		if (signal_pending(current)) {
			if (!i)
				err = -EINTR;
			break;
		}
		if (iov[i].len <= KMEM_RO_READV_SMALL) {
			if (!kmem_ro_readv_fits(&g, &iov[i]))
				err = kmem_ro_readv_flush(&g, iov, uiov);
			if (!err)
				kmem_ro_readv_small(&g, &iov[i]);
		} else {
			/* the group before it goes out first */
			err = kmem_ro_readv_flush(&g, iov, uiov);
			if (!err && put_user(kmem_ro_readv_big(&iov[i], bounce),
					     &uiov[i].result))
				err = -EFAULT;
			g.first = i + 1;
		}
		if (err)
			break;
	}
	if (!err)
		err = kmem_ro_readv_flush(&g, iov, uiov);
	/* the only field READV changes: nothing else of the caller's is rewritten */
	if (!err && put_user(i, udone))
		err = -EFAULT;

	if (bounce)
		kmem_ro_read_page_put(bounce);
out_free_iov:
	if (iov != stack_iov)
		kfree(iov);
	return err;
}

/*
 * The argument in, and its segment too when it has one: where the kernel
 * masks user addresses, in one window of word loads (the segment's
 * address masked on its own), not one for each.  Any other size or a
 * fault: kmem_ro_arg_in_sized(), which decides the errno as for any
 * ioctl.
 *
 * Return: 0, with @rv read and *@one set if @iov was read too; or -errno.
 */
static __always_inline int kmem_ro_readv_in(struct kmem_ro_readv *rv, struct kmem_ro_iov *iov,
					    const void __user *uarg, bool *one)
{
	const u64 __user *src;
	u64 *to, usize;

	/* a later, larger layout: the copy below would read past a VER0 struct */
	BUILD_BUG_ON(sizeof(*rv) != KMEM_RO_READV_SIZE_VER0);
	*one = false;
	if (can_do_masked_user_access()) {
		src = masked_user_access_begin((const u64 __user *)uarg);
		kmem_ro_unsafe_get_arg(rv, sizeof(*rv), src, slow);
		if (rv->iov_count == 1) {
			src = mask_user_address((const u64 __user *)u64_to_user_ptr(rv->iov_addr));
			for (to = (u64 *)iov; to < (u64 *)(iov + 1); to++, src++)
				unsafe_get_user(*to, src, slow);
			*one = true;
		}
		user_access_end();
		return 0;
slow:
		user_access_end();
	} else if (!copy_from_user(rv, uarg, sizeof(*rv)) && rv->size == sizeof(*rv)) {
		/*
		 * 6.1: the struct in one copy, not its size first and then
		 * the rest (two user-access windows).  Every caller's struct
		 * has at least these bytes (KMEM_RO_READV_SIZE_VER0); a
		 * smaller one, or a fault, is read again below.
		 */
		return 0;
	}
	return kmem_ro_arg_in_sized(rv, sizeof(*rv), KMEM_RO_READV_SIZE_VER0, uarg, &usize);
}

/**
 * kmem_ro_readv_ioctl() - KMEM_RO_IOC_READV
 * @file: the open device (unused: reads belong to no file)
 * @uarg: user pointer to struct kmem_ro_readv
 *
 * Return: 0 (see @done for how far it got) or a negative errno as
 * documented in uapi/kmem_ro.h.
 */
long kmem_ro_readv_ioctl(struct file *file, void __user *uarg)
{
	u32 __user *udone = &((struct kmem_ro_readv __user *)uarg)->done;
	struct kmem_ro_iov __user *uiov;
	struct kmem_ro_readv rv;
	struct kmem_ro_iov iov;
	bool one;
	int err;

	err = kmem_ro_readv_in(&rv, &iov, uarg, &one);
	if (err)
		return err;
	if (rv.flags || rv.reserved[0] || rv.reserved[1] ||
	    !rv.iov_addr != !rv.iov_count)
		return -EINVAL;
	if (rv.iov_count > KMEM_RO_READV_MAX_SEGS)
		return -E2BIG;
	uiov = u64_to_user_ptr(rv.iov_addr);
	if (rv.iov_count != 1)
		return kmem_ro_readv_many(&rv, uiov, udone);
	/* a large one is copied in again there: it costs its reads, not this */
	if (!one) {
		err = kmem_ro_copy_in(&iov, uiov, sizeof(iov));
		if (err)
			return err;
	}
	if (iov.len > KMEM_RO_READV_SMALL)
		return kmem_ro_readv_many(&rv, uiov, udone);
	/* as kmem_ro_readv_many() stops before its first segment */
	if (signal_pending(current))
		return -EINTR;
	return kmem_ro_readv_one(&iov, uiov, udone);
}
