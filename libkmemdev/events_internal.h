/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Internals of events.c that the unit tests reach (libkmemdev.a): the
 * message parser, which needs no socket and no kernel.
 */
#ifndef KMEMDEV_EVENTS_INTERNAL_H
#define KMEMDEV_EVENTS_INTERNAL_H

#include <linux/netlink.h>

#include "internal.h"

/*
 * Parse one netlink message of the kmem_ro family (id @family) into @ev;
 * a snapshot's arrays are copied to @ids and @counts (room for
 * KMEM_RO_EVENTS_SNAP_MAX_IDS each), which @ev then points to.  The caller
 * has checked that nlmsg_len fits the buffer.
 * Returns 1 for an event, 0 for a message to skip (another family, a
 * command this library does not know), -EPROTO for a malformed one.
 */
KMEMDEV_INTERNAL int kmemdev__events_parse(struct nlmsghdr *nlh, int family,
					   struct kmemdev_event *ev,
					   uint64_t *ids, uint64_t *counts);

/* A libnl error code (NLE_*, either sign) as a negative errno. */
KMEMDEV_INTERNAL int kmemdev__nl_errno(int nlerr);

#endif /* KMEMDEV_EVENTS_INTERNAL_H */
