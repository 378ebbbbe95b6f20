// SPDX-License-Identifier: GPL-2.0
/*
 * kmem_ro - size-first, extensible ioctl arguments (see uapi/kmem_ro.h).
 */
#include <linux/mm.h>
#include <linux/minmax.h>
#include <linux/uaccess.h>

#include "internal.h"

/*
 * The common call: the caller's struct has the driver's size.  Its size
 * and then the rest are read as words in one masked user-access window,
 * instead of a get_user() and a copy_from_user() (a second window, rep
 * movs and a hardened-usercopy lookup).  Nothing past the size is read unless it is @ksize, so
 * nothing past the caller's struct: as kmem_ro_arg_in() reads.  False for
 * any other size, a fault, or a kernel that does not mask user addresses
 * (6.1, where the window would cost an lfence the copies do not):
 * kmem_ro_arg_in() then reads it, size first, and decides the errno as it
 * always did.
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
