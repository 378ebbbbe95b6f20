// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * KMEM_RO_IOC_EVENTS_SNAPSHOT: start, retime or stop the hit-count
 * snapshots of a handle's probes.  A plain ioctl: built whether or not
 * libnl-genl is there (reading the snapshots is events.c's business).
 */
#include <errno.h>
#include <sys/ioctl.h>

#include "internal.h"

int kmemdev_events_snapshot(struct kmemdev *h, unsigned int interval_ms,
			    uint64_t *id)
{
	struct kmem_ro_events_snapshot arg = {
		.size = sizeof(arg),
		.flags = interval_ms ? 0 : KMEM_RO_EVENTS_SNAPSHOT_STOP,
		.interval_ms = interval_ms,
	};
	int err;

	if (!h)
		return -EINVAL;
	err = kmemdev__feature(h, KMEM_RO_FEAT_EVENTS);
	if (err)
		return err;
	if (ioctl(h->fd, KMEM_RO_IOC_EVENTS_SNAPSHOT, &arg) < 0)
		return -errno;
	if (id)
		*id = arg.id;
	return 0;
}
