/* SPDX-License-Identifier: GPL-2.0 */
/* Calls made through the frozen first-published header (ioctl_abi_v0.c). */
#ifndef KMEM_RO_IOCTL_ABI_V0_H
#define KMEM_RO_IOCTL_ABI_V0_H

#include <stdint.h>

int v0_info(int fd, uint64_t *page_offset);
int v0_readv(int fd, uint64_t addr, void *buf, uint64_t len, int64_t *result);
int v0_probe_list(int fd, uint32_t *count);

#endif
