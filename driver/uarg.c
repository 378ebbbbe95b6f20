// SPDX-License-Identifier: GPL-2.0
/*
 * kmem_ro - ioctl arguments from and to user space: size-first, extensible
 * structs (see uapi/kmem_ro.h) and a few fixed-size records (READV's
 * segments).
 *
 * A READV of one segment (drgn under the kcore preload makes one per read
 * it cannot serve otherwise) is mostly these copies.  Where the kernel
 * masks user addresses (6.12 and later) the argument and the segments
 * come in as word loads in one masked user-access window each, as the
 * kernel's own copy_from_user() masks there: no get_user() of the size
 * first, no rep movs start-up, no hardened-usercopy lookup, no lfence.
 * 6.1 has no masking: there they stay get_user() and copy_from_user().
 * A user_access_begin() window would pay the lfence 6.1's copy_from_user()
 * pays (lib/usercopy.c) and save the rest, but a driver that opened such
 * windows on 6.1 hung once in the fuzzer, unexplained
 * (docs/benchmarks.md): this one does not.
 */
#include <linux/mm.h>
#include <linux/minmax.h>
#include <linux/uaccess.h>

#include "internal.h"

/*
 * The common call: the caller's struct has the driver's size.  Its size
 * and then the rest are read as words in one masked window.  Nothing past
 * the size is read unless it is @ksize, so nothing past the caller's
 * struct, as kmem_ro_arg_in() reads.  False for any other size, a fault,
 * or a kernel that does not mask user addresses: kmem_ro_arg_in() then
 * reads it, size first, and decides the errno as it always did.
 */
static bool kmem_ro_arg_in_own_size(void *karg, size_t ksize, const void __user *uarg)
{
	const u64 __user *src = uarg;
	u64 *to = karg, *end = to + ksize / sizeof(u64);

	if (!IS_ALIGNED(ksize, sizeof(u64)) || !can_do_masked_user_access())
		return false;
	src = masked_user_access_begin(src);
	unsafe_get_user(*to, src, fail);
	if (*to != ksize)
		goto fail;
	while (++to < end)
		unsafe_get_user(*to, ++src, fail);
	user_access_end();
	return true;
fail:
	user_access_end();
	return false;
}

/**
 * kmem_ro_arg_in() - copy an extensible ioctl argument from userspace
 * @karg: kernel copy, @ksize bytes
 * @ksize: size of the struct this driver knows
 * @ver0_size: size of the first published layout
 * @uarg: user pointer; the struct starts with its own __u64 size
 * @usize: returns the size the caller claimed, for kmem_ro_arg_out()
 *
 * A shorter struct than the driver knows is zero-extended, a longer one is
 * accepted only if its unknown tail is zero (copy_struct_from_user()).
 *
 * Return: 0, -EFAULT, -E2BIG (over PAGE_SIZE or non-zero tail) or -EINVAL
 * (smaller than the first layout).
 */
int kmem_ro_arg_in(void *karg, size_t ksize, size_t ver0_size,
		   const void __user *uarg, u64 *usize)
{
	u64 size;
	int err;

	if (kmem_ro_arg_in_own_size(karg, ksize, uarg)) {
		*usize = ksize;
		return 0;
	}
	if (get_user(size, (const u64 __user *)uarg))
		return -EFAULT;
	if (size > PAGE_SIZE)
		return -E2BIG;
	if (size < ver0_size)
		return -EINVAL;
	err = copy_struct_from_user(karg, ksize, uarg, size);
	if (err)
		return err;
	*usize = size;
	return 0;
}

/**
 * kmem_ro_arg_out() - copy an ioctl argument back, up to the caller's size
 * @uarg: user pointer given to kmem_ro_arg_in()
 * @karg: kernel copy
 * @ksize: size of the kernel copy
 * @usize: size returned by kmem_ro_arg_in()
 *
 * Return: 0 or -EFAULT.
 */
int kmem_ro_arg_out(void __user *uarg, const void *karg, size_t ksize,
		    u64 usize)
{
	if (copy_to_user(uarg, karg, min_t(u64, ksize, usize)))
		return -EFAULT;
	return 0;
}

/**
 * kmem_ro_copy_in() - copy a few fixed-size records (READV's segments) in
 * @dst: the driver's own buffer, @len bytes, aligned for u64
 * @usrc: user source; need not be aligned
 * @len: bytes
 *
 * The mirror of kmem_ro_copy_out(): up to KMEM_RO_SMALL_COPY_IN bytes of
 * whole u64s come in as plain loads, in order from @usrc, in one window
 * opened by masking the address, so a kernel address becomes one that
 * faults and loads in order fault at the guard page past user memory, as
 * the kernel's own copy_from_user() relies on there.  Nothing in the
 * window calls out or sleeps; a fault in it is handled as in
 * copy_from_user() (the page is faulted in, or the access fails).
 * Without masking (6.1), or for more bytes: copy_from_user().
 *
 * Return: 0 or -EFAULT.
 */
int kmem_ro_copy_in(void *dst, const void __user *usrc, size_t len)
{
	const u64 __user *src = usrc;
	u64 *to = dst, *end = to + len / sizeof(u64);

	if (len > KMEM_RO_SMALL_COPY_IN || !IS_ALIGNED(len, sizeof(u64)) ||
	    !can_do_masked_user_access())
		return copy_from_user(dst, usrc, len) ? -EFAULT : 0;
	src = masked_user_access_begin(src);
	while (to < end)
		unsafe_get_user(*to++, src++, efault);
	user_access_end();
	return 0;
efault:
	user_access_end();
	return -EFAULT;
}
