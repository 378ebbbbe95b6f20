/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmem_ro - internal interfaces between the driver's files.
 */
#ifndef KMEM_RO_INTERNAL_H
#define KMEM_RO_INTERNAL_H

#include <linux/types.h>
#include <linux/compiler_types.h>

int kmem_ro_arg_in(void *karg, size_t ksize, size_t ver0_size,
		   const void __user *uarg, u64 *usize);
int kmem_ro_arg_out(void __user *uarg, const void *karg, size_t ksize,
		    u64 usize);

int kmem_ro_info_init(void);
long kmem_ro_info_ioctl(void __user *uarg);

#endif /* KMEM_RO_INTERNAL_H */
