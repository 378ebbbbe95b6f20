// SPDX-License-Identifier: GPL-2.0
/*
 * A caller built against the header as first published (abi_v0/kmem_ro.h,
 * a frozen copy: every struct at its _SIZE_VER0): it must keep working on
 * every later driver.  Only this file sees that header.
 */
#include <errno.h>
#include <stdint.h>
#include <sys/ioctl.h>

#include "kmem_ro.h"	/* abi_v0/ */
#include "ioctl_abi_v0.h"

/* Every struct at its first size, and the same on i386 as on x86-64. */
_Static_assert(sizeof(struct kmem_ro_info) == KMEM_RO_INFO_SIZE_VER0, "frozen");
_Static_assert(sizeof(struct kmem_ro_readv) == KMEM_RO_READV_SIZE_VER0, "frozen");
_Static_assert(sizeof(struct kmem_ro_walk) == KMEM_RO_WALK_SIZE_VER0, "frozen");
_Static_assert(sizeof(struct kmem_ro_pagemap) == KMEM_RO_PAGEMAP_SIZE_VER0, "frozen");
_Static_assert(sizeof(struct kmem_ro_probe_add) == KMEM_RO_PROBE_ADD_SIZE_VER0, "frozen");
_Static_assert(sizeof(struct kmem_ro_probe_ids) == KMEM_RO_PROBE_IDS_SIZE_VER0, "frozen");
_Static_assert(sizeof(struct kmem_ro_probe_list) == KMEM_RO_PROBE_LIST_SIZE_VER0, "frozen");
_Static_assert(sizeof(struct kmem_ro_events_snapshot) == KMEM_RO_EVENTS_SNAPSHOT_SIZE_VER0,
	       "frozen");
/* array items: no VER0 constant, their size is the ABI */
_Static_assert(sizeof(struct kmem_ro_iov) == 32, "frozen");
_Static_assert(sizeof(struct kmem_ro_field) == 8, "frozen");
_Static_assert(sizeof(struct kmem_ro_range) == 16, "frozen");
_Static_assert(sizeof(struct kmem_ro_pagemap_run) == 32, "frozen");
_Static_assert(sizeof(struct kmem_ro_probe_spec) == 152, "frozen");
_Static_assert(sizeof(struct kmem_ro_probe_info) == 168, "frozen");

int v0_info(int fd, uint64_t *page_offset)
{
	struct kmem_ro_info info = { .size = sizeof(info) };

	if (ioctl(fd, KMEM_RO_IOC_INFO, &info))
		return -errno;
	*page_offset = info.page_offset;
	return info.abi_version ? 0 : -EINVAL;
}

int v0_readv(int fd, uint64_t addr, void *buf, uint64_t len, int64_t *result)
{
	struct kmem_ro_iov iov = { .addr = addr, .len = len, .buf = (uintptr_t)buf };
	struct kmem_ro_readv rv = { .size = sizeof(rv), .iov_addr = (uintptr_t)&iov,
				    .iov_count = 1 };

	if (ioctl(fd, KMEM_RO_IOC_READV, &rv))
		return -errno;
	*result = iov.result;
	return 0;
}

int v0_probe_list(int fd, uint32_t *count)
{
	struct kmem_ro_probe_list l = { .size = sizeof(l) };

	if (ioctl(fd, KMEM_RO_IOC_PROBE_LIST, &l))
		return -errno;
	*count = l.count;
	return 0;
}
