// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* KMEM_RO_IOC_INFO: ABI version, features and kernel layout. */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "internal.h"

int kmemdev_info(struct kmemdev *h, struct kmem_ro_info *info,
		 struct kmem_ro_range *ram, unsigned int ram_cap)
{
	/*
	 * The answer is built here, from zero (stale caller data must not
	 * reach the driver, which rejects what it does not expect), in the
	 * caller's size, and copied out only on success.
	 */
	union {
		struct kmem_ro_info info;
		unsigned char raw[KMEMDEV_ARG_MAX];
	} arg;
	uint64_t size;
	int ret;

	if (!h || !info || !ram != !ram_cap)
		return -EINVAL;
	ret = kmemdev__arg_size(info->size, KMEM_RO_INFO_SIZE_VER0);
	if (ret)
		return ret;
	size = info->size;
	memset(&arg, 0, size > sizeof(arg.info) ? size : sizeof(arg.info));

	if (h->backend == KMEMDEV_BACKEND_KCORE) {
		ret = kmemdev__kcore_info(h, &arg.info, ram, ram_cap);
		if (ret < 0)
			return ret;
		arg.info.ram_addr = (uintptr_t)ram;
		arg.info.ram_cap = ram_cap;
	} else {
		if (h->fd < 0)
			return -EINVAL;
		arg.info.ram_addr = (uintptr_t)ram;
		arg.info.ram_cap = ram_cap;
		arg.info.size = size;
		do
			ret = ioctl(h->fd, KMEM_RO_IOC_INFO, &arg);
		while (ret < 0 && errno == EINTR);
		if (ret < 0)
			return -errno;
		if (arg.info.ram_count > INT_MAX)
			return -EOVERFLOW;
		ret = (int)arg.info.ram_count;
	}
	arg.info.size = size;
	memcpy(info, &arg, size);
	return ret;
}

/* Retries while hotplug makes the list grow between two calls. */
#define RAM_FETCH_TRIES 8

/*
 * A real range is never empty, and the buffer is zeroed before every call:
 * an empty entry among the first @n is one the driver counted but did not
 * write (an early driver stopped at 4096), never to be handed back.
 */
static bool ram_written(const struct kmem_ro_range *ram, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		if (ram[i].end <= ram[i].start)
			return false;
	return true;
}

int kmemdev_info_alloc(struct kmemdev *h, struct kmem_ro_info *info,
		       struct kmem_ro_range **ram, unsigned int *nr)
{
	struct kmem_ro_range *buf = NULL, *p;
	unsigned int cap = 0;
	int tries, ret;

	if (!ram || !nr)
		return -EINVAL;
	for (tries = 0; tries < RAM_FETCH_TRIES; tries++) {
		if (cap)
			memset(buf, 0, cap * sizeof(*buf));
		ret = kmemdev_info(h, info, buf, cap);
		if (ret < 0)
			break;
		if ((unsigned int)ret <= cap) {
			if (!ram_written(buf, ret)) {
				ret = -EPROTO;
				break;
			}
			*ram = ret ? buf : NULL;
			*nr = ret;
			if (!ret)
				free(buf);
			return 0;
		}
		cap = ret;
		p = realloc(buf, cap * sizeof(*buf));
		if (!p) {
			ret = -ENOMEM;
			break;
		}
		buf = p;
	}
	free(buf);
	return ret < 0 ? ret : -EAGAIN;
}
