/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading kernel memory for the verbs that only read: the device when it
 * is there, /proc/kcore when it is not, and short reasons for failures
 * that name what the address is (a hole, not RAM, hidden RAM).
 */
#ifndef KMEMCTL_MEM_H
#define KMEMCTL_MEM_H

#include <stddef.h>
#include <stdint.h>

#include "kmemctl.h"

/*
 * Open the device, or /proc/kcore when the device is absent (the
 * library's KMEMDEV_BACKEND_AUTO); with --device given, that device only.
 * On failure print "kmemctl: <verb>: open ...: <reason>" and return NULL.
 */
struct kmemdev *mem_open(const struct kmemctl *ctx, const char *verb);

/*
 * mem_open(), then the address @expr names (parse_addr_or_fail()).
 * Returns 0 with *@h open, or the exit status having said why; *@h is
 * then NULL or open: kmemdev_close() it either way.
 */
int mem_open_at(const struct kmemctl *ctx, const char *verb, const char *expr,
		struct kmemdev **h, uint64_t *addr);

struct ktypes;

/*
 * mem_open() for a verb that reads an object at @expr (NULL: none yet) by
 * its BTF type: @kt's vmlinux BTF comes from the same handle (one open,
 * one pass over the kernel's symbols, not one per handle).  ktypes_free()
 * @kt before kmemdev_close() of the handle.  If the BTF cannot come from
 * it, @kt stays empty and tspec_resolve() loads it as without a handle.
 */
struct kmemdev *mem_open_typed(const struct kmemctl *ctx, const char *verb,
			       const char *expr, struct ktypes *kt);

/* Why kmemdev_read() of @h failed with @err, in a few words. */
const char *mem_reason(struct kmemdev *h, int err);

/*
 * kmemdev_read(); on failure print "kmemctl: <what>: <reason>" (@what
 * names the object and its address) and return the -errno.
 */
int mem_read(struct kmemdev *h, const char *what, uint64_t addr, void *buf,
	     size_t len);

#endif /* KMEMCTL_MEM_H */
