/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * kmem_ro events: a generic netlink family that tells monitors, without
 * polling, when the kernel's module layout changes and, on a probe
 * owner's request, what its probes have counted.
 *
 * Family KMEM_RO_EVENTS_FAMILY, version KMEM_RO_EVENTS_VERSION (in every
 * genlmsghdr), registered while kmem_ro is loaded, in the initial network
 * namespace only.  Resolve its id and groups with the generic netlink
 * controller (CTRL_CMD_GETFAMILY, e.g. libnl's genl_ctrl_resolve()).
 *
 * Multicast groups:
 *  - KMEM_RO_EVENTS_MCGRP_MODULES: KMEM_RO_EVENTS_CMD_MODULE_LOADED when
 *    a module goes live, KMEM_RO_EVENTS_CMD_MODULE_UNLOADED when one goes
 *    away (also after a failed init, without a LOADED before it).
 *  - KMEM_RO_EVENTS_MCGRP_SNAPSHOTS: KMEM_RO_EVENTS_CMD_SNAPSHOT, the hit
 *    counts of an open file's probes every interval, while that file asks
 *    for them (KMEM_RO_IOC_EVENTS_SNAPSHOT in kmem_ro.h).
 *
 * Privilege: joining either group needs CAP_SYS_ADMIN (EPERM otherwise,
 * from bind() or setsockopt(NETLINK_ADD_MEMBERSHIP)).  Module addresses
 * are what kallsyms hides from unprivileged users; the kernel's generic
 * netlink checks CAP_SYS_ADMIN for such groups, and CAP_PERFMON alone is
 * not enough.  KMEM_RO_EVENTS_CMD_GET_INFO needs no privilege.
 *
 * Bounds: nothing is allocated per listener; an event is one message of
 * bounded size (a snapshot of many probes is split, see below).  Snapshot
 * messages of all files together are limited to the module parameter
 * events_rate per second (default KMEM_RO_EVENTS_RATE_DEFAULT): a
 * snapshot that does not fit in what is left of the current second is
 * dropped whole, never sent in part.
 *
 * Losses: KMEM_RO_EVENTS_A_DROPPED, in every event and in GET_INFO,
 * counts messages since the module was loaded that were dropped by the
 * rate limit, not built for lack of memory, or not delivered to a
 * listener that set NETLINK_BROADCAST_ERROR on its socket (libkmemdev
 * does).  A listener whose receive buffer overflowed also learns it from
 * ENOBUFS on its next recv(), as with any netlink socket.
 *
 * Attributes are those of enum kmem_ro_events_attr.  __u64 values and
 * arrays may be unaligned (KMEM_RO_EVENTS_A_PAD aligns them only where
 * the architecture needs it): copy them out.  Listeners must ignore
 * attributes and commands they do not know.
 */
#ifndef _UAPI_LINUX_KMEM_RO_EVENTS_H
#define _UAPI_LINUX_KMEM_RO_EVENTS_H

#define KMEM_RO_EVENTS_FAMILY		"kmem_ro"
#define KMEM_RO_EVENTS_VERSION		1

#define KMEM_RO_EVENTS_MCGRP_MODULES	"modules"
#define KMEM_RO_EVENTS_MCGRP_SNAPSHOTS	"snapshots"

/* Probes per snapshot message, at most: bounds a message to ~2 KiB. */
#define KMEM_RO_EVENTS_SNAP_MAX_IDS	128

/* Default of the events_rate module parameter: snapshot messages/second. */
#define KMEM_RO_EVENTS_RATE_DEFAULT	1024

/**
 * enum kmem_ro_events_cmd - genlmsghdr.cmd values
 * @KMEM_RO_EVENTS_CMD_UNSPEC: never used
 * @KMEM_RO_EVENTS_CMD_GET_INFO: request (no attributes, else EINVAL);
 *	the reply carries KMEM_RO_EVENTS_A_DROPPED and
 *	KMEM_RO_EVENTS_A_INFO_SNAPSHOTS
 * @KMEM_RO_EVENTS_CMD_MODULE_LOADED: event: a module went live.  SEQ,
 *	DROPPED, MOD_NAME, MOD_BASE, MOD_SIZE, MOD_TEXT_SIZE.
 * @KMEM_RO_EVENTS_CMD_MODULE_UNLOADED: event: a module is going away;
 *	its addresses are invalid from now on.  Same attributes.
 * @KMEM_RO_EVENTS_CMD_SNAPSHOT: event: one part of a snapshot.  SEQ,
 *	DROPPED, SNAP_ID, SNAP_OWNER, SNAP_INTERVAL_MS, SNAP_TICK,
 *	SNAP_TIME_NS, SNAP_TOTAL, SNAP_FIRST, SNAP_IDS, SNAP_COUNTS.
 * @__KMEM_RO_EVENTS_CMD_MAX: one past the last command
 */
enum kmem_ro_events_cmd {
	KMEM_RO_EVENTS_CMD_UNSPEC,
	KMEM_RO_EVENTS_CMD_GET_INFO,
	KMEM_RO_EVENTS_CMD_MODULE_LOADED,
	KMEM_RO_EVENTS_CMD_MODULE_UNLOADED,
	KMEM_RO_EVENTS_CMD_SNAPSHOT,
	__KMEM_RO_EVENTS_CMD_MAX,
};

#define KMEM_RO_EVENTS_CMD_MAX	(__KMEM_RO_EVENTS_CMD_MAX - 1)

/**
 * enum kmem_ro_events_attr - netlink attributes
 * @KMEM_RO_EVENTS_A_UNSPEC: never used
 * @KMEM_RO_EVENTS_A_PAD: padding for 8-byte alignment; ignore
 * @KMEM_RO_EVENTS_A_SEQ: __u64: number of this message in its multicast
 *	group, from 1 at module load; a gap means messages were lost
 *	(dropped, or this listener's buffer overflowed)
 * @KMEM_RO_EVENTS_A_DROPPED: __u64: messages dropped since module load,
 *	all groups together (see the header comment)
 * @KMEM_RO_EVENTS_A_MOD_NAME: NUL-terminated string: the module's name
 * @KMEM_RO_EVENTS_A_MOD_BASE: __u64: start of its core text, as
 *	/proc/modules shows it
 * @KMEM_RO_EVENTS_A_MOD_SIZE: __u64: bytes of its core memory (text,
 *	read-only and writable data), as /proc/modules shows it once the
 *	module is live.  Up to 6.3 one block from MOD_BASE; from 6.4 on,
 *	text and data are separate allocations.
 * @KMEM_RO_EVENTS_A_MOD_TEXT_SIZE: __u64: bytes of core text from
 *	MOD_BASE
 * @KMEM_RO_EVENTS_A_SNAP_ID: __u64: the snapshot stream, as
 *	KMEM_RO_IOC_EVENTS_SNAPSHOT returned it
 * @KMEM_RO_EVENTS_A_SNAP_OWNER: __u32: PID (init namespace) of the process
 *	that started the stream
 * @KMEM_RO_EVENTS_A_SNAP_INTERVAL_MS: __u32: the stream's interval
 * @KMEM_RO_EVENTS_A_SNAP_TICK: __u64: number of this snapshot in its
 *	stream, from 1; every part of one snapshot has the same tick
 * @KMEM_RO_EVENTS_A_SNAP_TIME_NS: __u64: CLOCK_MONOTONIC time at which
 *	the counts were read
 * @KMEM_RO_EVENTS_A_SNAP_TOTAL: __u32: probes in this snapshot (all parts)
 * @KMEM_RO_EVENTS_A_SNAP_FIRST: __u32: index of this part's first probe;
 *	a snapshot is complete when FIRST + entries == TOTAL.  A file with
 *	no probes left sends one part with TOTAL 0 and empty arrays.
 * @KMEM_RO_EVENTS_A_SNAP_IDS: binary: __u64 probe ids, ascending, at most
 *	KMEM_RO_EVENTS_SNAP_MAX_IDS
 * @KMEM_RO_EVENTS_A_SNAP_COUNTS: binary: __u64 hit counts, one per id,
 *	summed as KMEM_RO_IOC_PROBE_STATS sums them
 * @KMEM_RO_EVENTS_A_INFO_SNAPSHOTS: __u32: snapshot streams running now
 * @__KMEM_RO_EVENTS_A_MAX: one past the last attribute
 */
enum kmem_ro_events_attr {
	KMEM_RO_EVENTS_A_UNSPEC,
	KMEM_RO_EVENTS_A_PAD,
	KMEM_RO_EVENTS_A_SEQ,
	KMEM_RO_EVENTS_A_DROPPED,
	KMEM_RO_EVENTS_A_MOD_NAME,
	KMEM_RO_EVENTS_A_MOD_BASE,
	KMEM_RO_EVENTS_A_MOD_SIZE,
	KMEM_RO_EVENTS_A_MOD_TEXT_SIZE,
	KMEM_RO_EVENTS_A_SNAP_ID,
	KMEM_RO_EVENTS_A_SNAP_OWNER,
	KMEM_RO_EVENTS_A_SNAP_INTERVAL_MS,
	KMEM_RO_EVENTS_A_SNAP_TICK,
	KMEM_RO_EVENTS_A_SNAP_TIME_NS,
	KMEM_RO_EVENTS_A_SNAP_TOTAL,
	KMEM_RO_EVENTS_A_SNAP_FIRST,
	KMEM_RO_EVENTS_A_SNAP_IDS,
	KMEM_RO_EVENTS_A_SNAP_COUNTS,
	KMEM_RO_EVENTS_A_INFO_SNAPSHOTS,
	__KMEM_RO_EVENTS_A_MAX,
};

#define KMEM_RO_EVENTS_A_MAX	(__KMEM_RO_EVENTS_A_MAX - 1)

#endif /* _UAPI_LINUX_KMEM_RO_EVENTS_H */
