// SPDX-License-Identifier: GPL-2.0
/*
 * kmem_ro - ioctl arguments from and to user space: size-first, extensible
 * structs (see uapi/kmem_ro.h).  The common case, a caller's struct of
 * the driver's own size, and READV's few segments come in inline
 * (internal.h: kmem_ro_arg_in(), kmem_ro_copy_in()); what is here is the
 * rest.
 */
#include <linux/mm.h>
#include <linux/minmax.h>
#include <linux/uaccess.h>

#include "internal.h"

/**
 * kmem_ro_arg_in_sized() - copy an extensible ioctl argument from userspace
 * @karg: kernel copy, @ksize bytes
 * @ksize: size of the struct this driver knows
 * @ver0_size: size of the first published layout
 * @uarg: user pointer; the struct starts with its own __u64 size
 * @usize: returns the size the caller claimed, for kmem_ro_arg_out()
 *
 * Its size is read first, then as many bytes as it says.  A shorter
 * struct than the driver knows is zero-extended, a longer one is accepted
 * only if its unknown tail is zero (copy_struct_from_user()).
 *
 * Return: 0, -EFAULT, -E2BIG (over PAGE_SIZE or non-zero tail) or -EINVAL
 * (smaller than the first layout).
 */
int kmem_ro_arg_in_sized(void *karg, size_t ksize, size_t ver0_size,
			 const void __user *uarg, u64 *usize)
{
	u64 size;
	int err;

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
