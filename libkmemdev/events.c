// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Events: the kmem_ro generic netlink family (uapi/kmem_ro_events.h)
 * through libnl-genl.  Built when libnl-genl is found (events.mk);
 * events_none.c otherwise.  KMEM_RO_IOC_EVENTS_SNAPSHOT is snapshot.c's.
 *
 * libnl resolves the family and its groups and runs the GET_INFO request,
 * on a second socket so that its reply never mixes with events.  Events
 * are read with recvfrom() on the stream's own socket into one buffer
 * allocated at open: libnl's receive path folds ENOBUFS (an overrun, which
 * the caller must hear about) into NLE_NOMEM.  The socket sets
 * NETLINK_BROADCAST_ERROR so that the driver counts what we miss.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include <netlink/attr.h>
#include <netlink/errno.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <netlink/socket.h>

#include "events_internal.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

/* Far above the largest message (a snapshot part is ~2.2 KiB). */
#define EVENTS_BUF	(64 * 1024)

enum { GRP_MODULES, GRP_SNAPSHOTS, NR_GROUPS };

struct kmemdev_events {
	struct nl_sock *sk;		/* events */
	struct nl_sock *req;		/* GET_INFO, made on first use */
	int family;
	int groups[NR_GROUPS];		/* multicast ids; -1: not offered */
	struct kmemdev *h;		/* symbols to drop on module events */
	unsigned char *buf;		/* the last datagram received */
	size_t len, off;		/* its length, the next message in it */
	struct kmemdev_event event;
	uint64_t ids[KMEM_RO_EVENTS_SNAP_MAX_IDS];
	uint64_t counts[KMEM_RO_EVENTS_SNAP_MAX_IDS];
};

int kmemdev__nl_errno(int nlerr)
{
	switch (nlerr < 0 ? -nlerr : nlerr) {
	case NLE_SUCCESS:
		return 0;
	case NLE_INTR:
		return -EINTR;
	case NLE_BAD_SOCK:
		return -EBADF;
	case NLE_AGAIN:
		return -EAGAIN;
	case NLE_NOMEM:
		return -ENOMEM;
	case NLE_EXIST:
		return -EEXIST;
	case NLE_INVAL:
		return -EINVAL;
	case NLE_RANGE:
		return -ERANGE;
	case NLE_MSGSIZE:
	case NLE_MSG_TRUNC:
		return -EMSGSIZE;
	case NLE_OPNOTSUPP:
		return -EOPNOTSUPP;
	case NLE_AF_NOSUPPORT:
		return -EAFNOSUPPORT;
	case NLE_OBJ_NOTFOUND:
		return -ENOENT;
	case NLE_NOACCESS:
		return -EACCES;
	case NLE_PERM:
		return -EPERM;
	case NLE_BUSY:
		return -EBUSY;
	case NLE_NODEV:
		return -ENODEV;
	case NLE_NOATTR:
	case NLE_MISSING_ATTR:
	case NLE_MSG_TOOSHORT:
	case NLE_MSG_OVERFLOW:
	case NLE_SEQ_MISMATCH:
	case NLE_PROTO_MISMATCH:
	case NLE_MSGTYPE_NOSUPPORT:
	case NLE_ATTRSIZE:
		return -EPROTO;
	default:
		return -EIO;
	}
}

/* ---- parsing ---- */

static int get_u64(struct nlattr **tb, int type, uint64_t *v)
{
	if (!tb[type] || nla_len(tb[type]) != sizeof(*v))
		return -EPROTO;
	*v = nla_get_u64(tb[type]);	/* copies: the payload may be unaligned */
	return 0;
}

static int get_u32(struct nlattr **tb, int type, uint32_t *v)
{
	if (!tb[type] || nla_len(tb[type]) != sizeof(*v))
		return -EPROTO;
	*v = nla_get_u32(tb[type]);
	return 0;
}

static int parse_module(struct nlattr **tb, struct kmemdev_event *ev)
{
	struct nlattr *name = tb[KMEM_RO_EVENTS_A_MOD_NAME];
	int len = name ? nla_len(name) : 0;

	/* a NUL-terminated name that fits, with the NUL */
	if (len < 2 || (size_t)len > sizeof(ev->module.name) ||
	    memchr(nla_data(name), '\0', len) != (char *)nla_data(name) + len - 1)
		return -EPROTO;
	memcpy(ev->module.name, nla_data(name), len);
	if (get_u64(tb, KMEM_RO_EVENTS_A_MOD_BASE, &ev->module.base) ||
	    get_u64(tb, KMEM_RO_EVENTS_A_MOD_SIZE, &ev->module.size) ||
	    get_u64(tb, KMEM_RO_EVENTS_A_MOD_TEXT_SIZE, &ev->module.text_size))
		return -EPROTO;
	return 1;
}

static int parse_snapshot(struct nlattr **tb, struct kmemdev_event *ev,
			  uint64_t *ids, uint64_t *counts)
{
	struct nlattr *aids = tb[KMEM_RO_EVENTS_A_SNAP_IDS];
	struct nlattr *acounts = tb[KMEM_RO_EVENTS_A_SNAP_COUNTS];
	size_t n;

	if (get_u64(tb, KMEM_RO_EVENTS_A_SNAP_ID, &ev->snapshot.id) ||
	    get_u64(tb, KMEM_RO_EVENTS_A_SNAP_TICK, &ev->snapshot.tick) ||
	    get_u64(tb, KMEM_RO_EVENTS_A_SNAP_TIME_NS, &ev->snapshot.time_ns) ||
	    get_u32(tb, KMEM_RO_EVENTS_A_SNAP_OWNER, &ev->snapshot.owner) ||
	    get_u32(tb, KMEM_RO_EVENTS_A_SNAP_INTERVAL_MS, &ev->snapshot.interval_ms) ||
	    get_u32(tb, KMEM_RO_EVENTS_A_SNAP_TOTAL, &ev->snapshot.total) ||
	    get_u32(tb, KMEM_RO_EVENTS_A_SNAP_FIRST, &ev->snapshot.first))
		return -EPROTO;
	if (!aids || !acounts || nla_len(aids) != nla_len(acounts) ||
	    nla_len(aids) % sizeof(uint64_t))
		return -EPROTO;
	n = nla_len(aids) / sizeof(uint64_t);
	if (n > KMEM_RO_EVENTS_SNAP_MAX_IDS ||
	    n > ev->snapshot.total - (uint64_t)ev->snapshot.first ||
	    ev->snapshot.first > ev->snapshot.total)
		return -EPROTO;
	memcpy(ids, nla_data(aids), n * sizeof(uint64_t));
	memcpy(counts, nla_data(acounts), n * sizeof(uint64_t));
	ev->snapshot.count = n;
	ev->snapshot.ids = ids;
	ev->snapshot.counts = counts;
	return 1;
}

int kmemdev__events_parse(struct nlmsghdr *nlh, int family,
			  struct kmemdev_event *ev, uint64_t *ids,
			  uint64_t *counts)
{
	struct nlattr *tb[KMEM_RO_EVENTS_A_MAX + 1];
	struct genlmsghdr *gh;
	int cmd;

	if (nlh->nlmsg_type != family)
		return 0;
	if (!genlmsg_valid_hdr(nlh, 0))
		return -EPROTO;
	gh = genlmsg_hdr(nlh);
	cmd = gh->cmd;
	if (cmd != KMEM_RO_EVENTS_CMD_MODULE_LOADED &&
	    cmd != KMEM_RO_EVENTS_CMD_MODULE_UNLOADED &&
	    cmd != KMEM_RO_EVENTS_CMD_SNAPSHOT)
		return 0;
	if (nla_parse(tb, KMEM_RO_EVENTS_A_MAX, genlmsg_attrdata(gh, 0),
		      genlmsg_attrlen(gh, 0), NULL))
		return -EPROTO;
	memset(ev, 0, sizeof(*ev));
	ev->type = cmd;
	if (get_u64(tb, KMEM_RO_EVENTS_A_SEQ, &ev->seq) ||
	    get_u64(tb, KMEM_RO_EVENTS_A_DROPPED, &ev->dropped))
		return -EPROTO;
	if (cmd == KMEM_RO_EVENTS_CMD_SNAPSHOT)
		return parse_snapshot(tb, ev, ids, counts);
	return parse_module(tb, ev);
}

/* ---- the stream ---- */

int kmemdev_events_open(struct kmemdev_events **out, struct kmemdev *h)
{
	static const char *const names[NR_GROUPS] = {
		[GRP_MODULES] = KMEM_RO_EVENTS_MCGRP_MODULES,
		[GRP_SNAPSHOTS] = KMEM_RO_EVENTS_MCGRP_SNAPSHOTS,
	};
	struct kmemdev_events *ev;
	int err, one = 1, i;

	if (!out)
		return -EINVAL;
	*out = NULL;
	ev = calloc(1, sizeof(*ev));
	if (!ev)
		return -ENOMEM;
	ev->h = h;
	ev->buf = malloc(EVENTS_BUF);
	ev->sk = nl_socket_alloc();
	if (!ev->buf || !ev->sk) {
		err = -ENOMEM;
		goto fail;
	}
	err = genl_connect(ev->sk);
	if (err)
		goto fail_nl;
	/* before any subscription: these requests read replies on ev->sk */
	ev->family = genl_ctrl_resolve(ev->sk, KMEM_RO_EVENTS_FAMILY);
	if (ev->family < 0) {
		err = ev->family;
		goto fail_nl;
	}
	for (i = 0; i < NR_GROUPS; i++) {
		ev->groups[i] = genl_ctrl_resolve_grp(ev->sk, KMEM_RO_EVENTS_FAMILY, names[i]);
		if (ev->groups[i] == -NLE_OBJ_NOTFOUND) {
			ev->groups[i] = -1;
		} else if (ev->groups[i] < 0) {
			err = ev->groups[i];
			goto fail_nl;
		}
	}
	if (setsockopt(nl_socket_get_fd(ev->sk), SOL_NETLINK, NETLINK_BROADCAST_ERROR,
		       &one, sizeof(one))) {
		err = -errno;
		goto fail;
	}
	*out = ev;
	return 0;

fail_nl:
	err = kmemdev__nl_errno(err);
fail:
	kmemdev_events_close(ev);
	return err;
}

int kmemdev_events_subscribe(struct kmemdev_events *ev, unsigned int groups)
{
	int i;

	if (!ev || !groups || groups & ~(KMEMDEV_EVENTS_MODULES | KMEMDEV_EVENTS_SNAPSHOTS))
		return -EINVAL;
	for (i = 0; i < NR_GROUPS; i++)
		if (groups & (1U << i) && ev->groups[i] < 0)
			return -EOPNOTSUPP;
	for (i = 0; i < NR_GROUPS; i++) {
		if (!(groups & (1U << i)))
			continue;
		/* the kernel checks the capability here: EPERM */
		if (setsockopt(nl_socket_get_fd(ev->sk), SOL_NETLINK, NETLINK_ADD_MEMBERSHIP,
			       &ev->groups[i], sizeof(ev->groups[i])))
			return -errno;
	}
	return 0;
}

int kmemdev_events_fd(const struct kmemdev_events *ev)
{
	return ev ? nl_socket_get_fd(ev->sk) : -EINVAL;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* One datagram from the kernel into ev->buf: 1, 0 on timeout, -errno. */
static int receive(struct kmemdev_events *ev, int timeout_ms)
{
	int fd = nl_socket_get_fd(ev->sk);
	struct pollfd p = { .fd = fd, .events = POLLIN };
	struct sockaddr_nl from;
	socklen_t fromlen = sizeof(from);
	ssize_t n;

	n = poll(&p, 1, timeout_ms);
	if (n < 0)
		return -errno;
	if (!n)
		return 0;
	n = recvfrom(fd, ev->buf, EVENTS_BUF, MSG_DONTWAIT | MSG_TRUNC,
		     (struct sockaddr *)&from, &fromlen);
	if (n < 0)
		return errno == EAGAIN ? -EAGAIN : -errno;
	if (n > EVENTS_BUF)
		return -EMSGSIZE;
	if (from.nl_pid)	/* not from the kernel */
		return -EAGAIN;
	ev->len = n;
	ev->off = 0;
	return 1;
}

/* The next message of ev->buf: 1 with an event, 0 when none is left. */
static int next_in_buffer(struct kmemdev_events *ev)
{
	while (ev->off < ev->len) {
		struct nlmsghdr *nlh = (struct nlmsghdr *)(ev->buf + ev->off);
		size_t left = ev->len - ev->off;
		int err;

		if (left < sizeof(*nlh) || nlh->nlmsg_len < sizeof(*nlh) ||
		    nlh->nlmsg_len > left) {
			ev->off = ev->len;
			return -EPROTO;
		}
		ev->off += NLMSG_ALIGN(nlh->nlmsg_len);
		if (ev->off > ev->len)
			ev->off = ev->len;
		err = kmemdev__events_parse(nlh, ev->family, &ev->event, ev->ids,
					    ev->counts);
		if (err)
			return err;
	}
	return 0;
}

int kmemdev_events_next(struct kmemdev_events *ev, int timeout_ms,
			const struct kmemdev_event **event)
{
	int64_t deadline = timeout_ms > 0 ? now_ms() + timeout_ms : 0;
	int err, wait = timeout_ms;

	if (!ev || !event)
		return -EINVAL;
	for (;;) {
		err = next_in_buffer(ev);
		if (err > 0) {
			if (ev->h && ev->event.type != KMEMDEV_EVENT_SNAPSHOT)
				kmemdev__symbols_invalidate(ev->h);
			*event = &ev->event;
			return 1;
		}
		if (err < 0)
			return err;
		if (timeout_ms > 0) {
			int64_t left = deadline - now_ms();

			wait = left > 0 ? (int)left : 0;
		}
		err = receive(ev, wait);
		if (err == -EAGAIN)	/* nothing after all, or not for us */
			err = wait ? 1 : 0;
		if (err == -ENOBUFS && ev->h)	/* a module event may be lost */
			kmemdev__symbols_invalidate(ev->h);
		if (err <= 0)
			return err;
	}
}

struct info_reply {
	uint64_t dropped;
	uint32_t snapshots;
	int err;
	bool acked;
};

static int info_valid(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[KMEM_RO_EVENTS_A_MAX + 1];
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct info_reply *r = arg;

	r->err = -EPROTO;
	if (!genlmsg_valid_hdr(nlh, 0) ||
	    genlmsg_hdr(nlh)->cmd != KMEM_RO_EVENTS_CMD_GET_INFO ||
	    nla_parse(tb, KMEM_RO_EVENTS_A_MAX, genlmsg_attrdata(genlmsg_hdr(nlh), 0),
		      genlmsg_attrlen(genlmsg_hdr(nlh), 0), NULL) ||
	    get_u64(tb, KMEM_RO_EVENTS_A_DROPPED, &r->dropped) ||
	    get_u32(tb, KMEM_RO_EVENTS_A_INFO_SNAPSHOTS, &r->snapshots))
		return NL_SKIP;
	r->err = 0;
	return NL_OK;
}

static int info_ack(struct nl_msg *msg, void *arg)
{
	struct info_reply *r = arg;

	(void)msg;
	r->acked = true;
	return NL_STOP;
}

int kmemdev_events_info(struct kmemdev_events *ev, uint64_t *dropped,
			unsigned int *snapshots)
{
	struct info_reply r = { .err = -EPROTO };
	struct nl_msg *msg;
	int err;

	if (!ev)
		return -EINVAL;
	if (!ev->req) {
		ev->req = nl_socket_alloc();
		if (!ev->req)
			return -ENOMEM;
		err = genl_connect(ev->req);
		if (err) {
			nl_socket_free(ev->req);
			ev->req = NULL;
			return kmemdev__nl_errno(err);
		}
	}
	msg = nlmsg_alloc();
	if (!msg)
		return -ENOMEM;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, ev->family, 0, 0,
			 KMEM_RO_EVENTS_CMD_GET_INFO, KMEM_RO_EVENTS_VERSION)) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	/*
	 * The reply and the ack come as two datagrams, and nl_send_sync()'s
	 * nl_wait_for_ack() returns after one recv(): the reply's.  The ack
	 * stayed queued and the next call took it for its own answer
	 * (EPROTO every other call).  Read until this request's ack.
	 */
	err = nl_socket_modify_cb(ev->req, NL_CB_VALID, NL_CB_CUSTOM, info_valid, &r);
	if (!err)
		err = nl_socket_modify_cb(ev->req, NL_CB_ACK, NL_CB_CUSTOM, info_ack, &r);
	if (!err)
		err = nl_send_auto(ev->req, msg);
	nlmsg_free(msg);
	while (err >= 0 && !r.acked)
		err = nl_recvmsgs_default(ev->req);
	if (err < 0)
		return kmemdev__nl_errno(err);
	if (r.err)
		return r.err;
	if (dropped)
		*dropped = r.dropped;
	if (snapshots)
		*snapshots = r.snapshots;
	return 0;
}

void kmemdev_events_close(struct kmemdev_events *ev)
{
	if (!ev)
		return;
	nl_socket_free(ev->sk);
	nl_socket_free(ev->req);
	free(ev->buf);
	free(ev);
}
