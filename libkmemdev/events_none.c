// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The event stream functions of a library built without libnl-genl
 * (events.mk): declared and exported as always, so that a program built
 * against any libkmemdev.so.0 runs against this one, and every stream call
 * fails with -EOPNOTSUPP.  kmemdev_events_snapshot() (snapshot.c) needs no
 * libnl and works.
 */
#include <errno.h>
#include <stddef.h>

#include "internal.h"

int kmemdev_events_open(struct kmemdev_events **out, struct kmemdev *h)
{
	(void)h;
	if (!out)
		return -EINVAL;
	*out = NULL;
	return -EOPNOTSUPP;
}

int kmemdev_events_subscribe(struct kmemdev_events *ev, unsigned int groups)
{
	(void)ev;
	(void)groups;
	return -EOPNOTSUPP;
}

int kmemdev_events_fd(const struct kmemdev_events *ev)
{
	(void)ev;
	return -EOPNOTSUPP;
}

int kmemdev_events_next(struct kmemdev_events *ev, int timeout_ms,
			const struct kmemdev_event **event)
{
	(void)ev;
	(void)timeout_ms;
	(void)event;
	return -EOPNOTSUPP;
}

int kmemdev_events_info(struct kmemdev_events *ev, uint64_t *dropped,
			unsigned int *snapshots)
{
	(void)ev;
	(void)dropped;
	(void)snapshots;
	return -EOPNOTSUPP;
}

/* No stream can exist: nothing to close. */
void kmemdev_events_close(struct kmemdev_events *ev)
{
	(void)ev;
}
