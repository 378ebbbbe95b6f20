// SPDX-License-Identifier: GPL-2.0
/*
 * kmem_ro - events: a generic netlink family (uapi/kmem_ro_events.h).
 *
 * Module load and unload, seen by a module notifier, go to the "modules"
 * group; the hit counts of an open file's probes, read by a delayed work of
 * that file, to the "snapshots" group.  Nothing is built for a group nobody
 * listens to.  Every message is allocated at a size known before it is
 * filled (a snapshot is split into parts of at most
 * KMEM_RO_EVENTS_SNAP_MAX_IDS probes) and multicast once; snapshot messages
 * pass a per-second budget that admits or drops a snapshot whole.  Each
 * group's sequence number is assigned under one mutex just before the
 * multicast, so listeners see them in order and a gap means a loss.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/timekeeping.h>
#include <linux/workqueue.h>
#include <net/genetlink.h>
#include <net/net_namespace.h>

#include <kmem_ro.h>
#include <kmem_ro_events.h>

#include "compat.h"
#include "internal.h"

static unsigned int events_rate = KMEM_RO_EVENTS_RATE_DEFAULT;
module_param(events_rate, uint, 0644);
MODULE_PARM_DESC(events_rate,
		 "Snapshot event messages per second, all files together (default 1024)");

enum { GRP_MODULES, GRP_SNAPSHOTS, NR_GROUPS };

/*
 * Module addresses are what kallsyms hides from unprivileged users.  The
 * genetlink core checks these flags at bind time on both 6.1 and 6.12;
 * its bind callback cannot refuse (6.12 ignores its result), so
 * CAP_SYS_ADMIN it is.
 */
static const struct genl_multicast_group kmem_ro_events_groups[NR_GROUPS] = {
	[GRP_MODULES] = {
		.name = KMEM_RO_EVENTS_MCGRP_MODULES,
		.flags = GENL_MCAST_CAP_SYS_ADMIN,
	},
	[GRP_SNAPSHOTS] = {
		.name = KMEM_RO_EVENTS_MCGRP_SNAPSHOTS,
		.flags = GENL_MCAST_CAP_SYS_ADMIN,
	},
};

static int kmem_ro_events_get_info(struct sk_buff *skb, struct genl_info *info);

static const struct genl_small_ops kmem_ro_events_ops[] = {
	{
		.cmd = KMEM_RO_EVENTS_CMD_GET_INFO,
		.doit = kmem_ro_events_get_info,
	},
};

/* No policy: requests take no attributes, the core rejects any. */
static struct genl_family kmem_ro_events_family __ro_after_init = {
	.name = KMEM_RO_EVENTS_FAMILY,
	.version = KMEM_RO_EVENTS_VERSION,
	.module = THIS_MODULE,
	.small_ops = kmem_ro_events_ops,
	.n_small_ops = ARRAY_SIZE(kmem_ro_events_ops),
	.mcgrps = kmem_ro_events_groups,
	.n_mcgrps = ARRAY_SIZE(kmem_ro_events_groups),
};

static atomic64_t kmem_ro_events_dropped = ATOMIC64_INIT(0);

/* Orders the multicasts of a group with their sequence numbers. */
static DEFINE_MUTEX(kmem_ro_events_send_lock);
static u64 kmem_ro_events_seq[NR_GROUPS];

/* The snapshot budget: messages used in the current one-second window. */
static DEFINE_SPINLOCK(kmem_ro_events_rate_lock);
static unsigned long kmem_ro_events_rate_start;
static unsigned int kmem_ro_events_rate_used;

/* Snapshot streams, one per file that asked. */
static LIST_HEAD(kmem_ro_snaps);
static DEFINE_MUTEX(kmem_ro_snaps_lock);
static unsigned int kmem_ro_snaps_nr;
static u64 kmem_ro_snaps_last_id;

/* ---- messages ---- */

/* A message being filled; SEQ and DROPPED are written when it is sent. */
struct kmem_ro_events_msg {
	struct sk_buff *skb;
	void *hdr;
	struct nlattr *seq;
	struct nlattr *dropped;
};

static int kmem_ro_events_msg_new(struct kmem_ro_events_msg *m, u8 cmd, size_t payload)
{
	payload += 2 * nla_total_size_64bit(sizeof(u64));
	m->skb = genlmsg_new(payload, GFP_KERNEL);
	if (!m->skb)
		return -ENOMEM;
	m->hdr = genlmsg_put(m->skb, 0, 0, &kmem_ro_events_family, 0, cmd);
	m->seq = nla_reserve_64bit(m->skb, KMEM_RO_EVENTS_A_SEQ, sizeof(u64),
				   KMEM_RO_EVENTS_A_PAD);
	m->dropped = nla_reserve_64bit(m->skb, KMEM_RO_EVENTS_A_DROPPED, sizeof(u64),
				       KMEM_RO_EVENTS_A_PAD);
	if (!m->hdr || !m->seq || !m->dropped) {
		nlmsg_free(m->skb);
		m->skb = NULL;
		return -EMSGSIZE;
	}
	return 0;
}

/* @n messages of @group that will not be sent. */
static void kmem_ro_events_lost(unsigned int group, unsigned int n)
{
	/* together: a later message's SEQ gap and DROPPED agree */
	mutex_lock(&kmem_ro_events_send_lock);
	kmem_ro_events_seq[group] += n;
	atomic64_add(n, &kmem_ro_events_dropped);
	mutex_unlock(&kmem_ro_events_send_lock);
}

static void kmem_ro_events_send(struct kmem_ro_events_msg *m, unsigned int group)
{
	u64 seq, dropped;
	int err;

	genlmsg_end(m->skb, m->hdr);
	mutex_lock(&kmem_ro_events_send_lock);
	seq = ++kmem_ro_events_seq[group];
	dropped = atomic64_read(&kmem_ro_events_dropped);
	memcpy(nla_data(m->seq), &seq, sizeof(seq));	/* may be unaligned */
	memcpy(nla_data(m->dropped), &dropped, sizeof(dropped));
	err = genlmsg_multicast(&kmem_ro_events_family, m->skb, 0, group, GFP_KERNEL);
	mutex_unlock(&kmem_ro_events_send_lock);
	m->skb = NULL;
	/*
	 * ESRCH: no listener (left).  ENOBUFS: a listener that set
	 * NETLINK_BROADCAST_ERROR did not get it (its own recv() says
	 * ENOBUFS as well).
	 */
	if (err && err != -ESRCH)
		atomic64_inc(&kmem_ro_events_dropped);
}

static bool kmem_ro_events_listened(unsigned int group)
{
	return genl_has_listeners(&kmem_ro_events_family, &init_net, group) > 0;
}

/* ---- modules ---- */

static void kmem_ro_events_module(const struct module *mod, u8 cmd)
{
	struct kmem_ro_events_msg m;
	u64 base, size, text;

	if (!kmem_ro_events_listened(GRP_MODULES))
		return;
	kmem_ro_module_core(mod, &base, &size, &text);
	if (kmem_ro_events_msg_new(&m, cmd, nla_total_size(sizeof(mod->name)) +
				   3 * nla_total_size_64bit(sizeof(u64))))
		goto lost;
	if (nla_put_string(m.skb, KMEM_RO_EVENTS_A_MOD_NAME, mod->name) ||
	    nla_put_u64_64bit(m.skb, KMEM_RO_EVENTS_A_MOD_BASE, base, KMEM_RO_EVENTS_A_PAD) ||
	    nla_put_u64_64bit(m.skb, KMEM_RO_EVENTS_A_MOD_SIZE, size, KMEM_RO_EVENTS_A_PAD) ||
	    nla_put_u64_64bit(m.skb, KMEM_RO_EVENTS_A_MOD_TEXT_SIZE, text,
			      KMEM_RO_EVENTS_A_PAD)) {
		nlmsg_free(m.skb);
		goto lost;
	}
	kmem_ro_events_send(&m, GRP_MODULES);
	return;
lost:
	kmem_ro_events_lost(GRP_MODULES, 1);
}

static int kmem_ro_events_module_cb(struct notifier_block *nb, unsigned long action,
				    void *data)
{
	switch (action) {
	case MODULE_STATE_LIVE:
		kmem_ro_events_module(data, KMEM_RO_EVENTS_CMD_MODULE_LOADED);
		break;
	case MODULE_STATE_GOING:
		kmem_ro_events_module(data, KMEM_RO_EVENTS_CMD_MODULE_UNLOADED);
		break;
	}
	return NOTIFY_DONE;
}

static struct notifier_block kmem_ro_events_nb = {
	.notifier_call = kmem_ro_events_module_cb,
};

/* ---- snapshots ---- */

/**
 * struct kmem_ro_snap - the snapshot stream of one open file
 * @node: in kmem_ro_snaps
 * @file: the file whose probes are counted; outlives the stream, which
 *	is stopped before the file's probes are released
 * @work: takes one snapshot, then queues itself again
 * @id: stream id, as the ioctl returned it
 * @owner: PID of the process that started the stream
 * @granted: started without CAP_PERFMON or CAP_SYS_ADMIN (probe_group):
 *	stopped when probe_group is turned off
 * @interval_ms: set by the ioctl, read by @work
 * @tick: snapshots taken (only @work touches the fields below)
 * @time_ns: when the current snapshot's counts were read
 * @msgs: messages the current snapshot needs
 * @sent: of them, sent or failed so far
 * @msg: the part being filled
 * @fill: entries in it so far
 * @room: entries it holds
 * @ids: its id array
 * @counts: its count array
 */
struct kmem_ro_snap {
	struct list_head node;
	struct file *file;
	struct delayed_work work;
	u64 id;
	u32 owner;
	bool granted;
	unsigned int interval_ms;
	u64 tick;
	u64 time_ns;
	unsigned int msgs;
	unsigned int sent;
	struct kmem_ro_events_msg msg;
	unsigned int fill;
	unsigned int room;
	u8 *ids;
	u8 *counts;
};

/* Admit @n messages in the current one-second window, or none of them. */
static bool kmem_ro_events_admit(unsigned int n)
{
	bool ok;

	spin_lock(&kmem_ro_events_rate_lock);
	if (time_after_eq(jiffies, kmem_ro_events_rate_start + HZ)) {
		kmem_ro_events_rate_start = jiffies;
		kmem_ro_events_rate_used = 0;
	}
	ok = (u64)kmem_ro_events_rate_used + n <= READ_ONCE(events_rate);
	if (ok)
		kmem_ro_events_rate_used += n;
	spin_unlock(&kmem_ro_events_rate_lock);
	return ok;
}

/* Start the part holding probes [@first, @first + @room) of @total. */
static int kmem_ro_snap_part(struct kmem_ro_snap *s, unsigned int first,
			     unsigned int room, unsigned int total)
{
	struct sk_buff *skb;
	struct nlattr *ids, *counts;
	size_t len = room * sizeof(u64);
	int err;

	err = kmem_ro_events_msg_new(&s->msg, KMEM_RO_EVENTS_CMD_SNAPSHOT,
				     3 * nla_total_size_64bit(sizeof(u64)) +
				     4 * nla_total_size(sizeof(u32)) +
				     2 * nla_total_size_64bit(len));
	if (err)
		return err;
	skb = s->msg.skb;
	if (nla_put_u64_64bit(skb, KMEM_RO_EVENTS_A_SNAP_ID, s->id, KMEM_RO_EVENTS_A_PAD) ||
	    nla_put_u32(skb, KMEM_RO_EVENTS_A_SNAP_OWNER, s->owner) ||
	    nla_put_u32(skb, KMEM_RO_EVENTS_A_SNAP_INTERVAL_MS, READ_ONCE(s->interval_ms)) ||
	    nla_put_u64_64bit(skb, KMEM_RO_EVENTS_A_SNAP_TICK, s->tick, KMEM_RO_EVENTS_A_PAD) ||
	    nla_put_u64_64bit(skb, KMEM_RO_EVENTS_A_SNAP_TIME_NS, s->time_ns,
			      KMEM_RO_EVENTS_A_PAD) ||
	    nla_put_u32(skb, KMEM_RO_EVENTS_A_SNAP_TOTAL, total) ||
	    nla_put_u32(skb, KMEM_RO_EVENTS_A_SNAP_FIRST, first))
		goto nospace;
	ids = nla_reserve_64bit(skb, KMEM_RO_EVENTS_A_SNAP_IDS, len, KMEM_RO_EVENTS_A_PAD);
	counts = nla_reserve_64bit(skb, KMEM_RO_EVENTS_A_SNAP_COUNTS, len, KMEM_RO_EVENTS_A_PAD);
	if (!ids || !counts)
		goto nospace;
	s->ids = nla_data(ids);
	s->counts = nla_data(counts);
	s->fill = 0;
	s->room = room;
	return 0;
nospace:
	nlmsg_free(skb);
	s->msg.skb = NULL;
	return -EMSGSIZE;
}

static void kmem_ro_snap_send(struct kmem_ro_snap *s)
{
	kmem_ro_events_send(&s->msg, GRP_SNAPSHOTS);
	s->sent++;
}

/* kmem_ro_probe_for_each_hits() callback: one probe into the current part. */
static int kmem_ro_snap_one(void *arg, unsigned int idx, unsigned int nr, u64 id, u64 hits)
{
	struct kmem_ro_snap *s = arg;
	int err;

	if (!idx) {
		s->msgs = DIV_ROUND_UP(nr, KMEM_RO_EVENTS_SNAP_MAX_IDS);
		if (!kmem_ro_events_admit(s->msgs))
			return -EBUSY;
	}
	if (!s->msg.skb) {
		err = kmem_ro_snap_part(s, idx, min_t(unsigned int, nr - idx,
						      KMEM_RO_EVENTS_SNAP_MAX_IDS), nr);
		if (err)
			return err;
	}
	memcpy(s->ids + s->fill * sizeof(u64), &id, sizeof(id));
	memcpy(s->counts + s->fill * sizeof(u64), &hits, sizeof(hits));
	if (++s->fill == s->room)
		kmem_ro_snap_send(s);
	return 0;
}

static void kmem_ro_snap_take(struct kmem_ro_snap *s)
{
	s->msgs = 0;
	s->sent = 0;
	s->time_ns = ktime_get_ns();
	kmem_ro_probe_for_each_hits(s->file, kmem_ro_snap_one, s);
	if (!s->msgs) {		/* no probe left: one empty part */
		s->msgs = 1;
		if (!kmem_ro_events_admit(1) || kmem_ro_snap_part(s, 0, 0, 0))
			goto out;
		kmem_ro_snap_send(s);
	}
out:
	/* a part left unsent: the walk ended on an allocation failure */
	if (s->msg.skb) {
		nlmsg_free(s->msg.skb);
		s->msg.skb = NULL;
	}
	if (s->sent < s->msgs)
		kmem_ro_events_lost(GRP_SNAPSHOTS, s->msgs - s->sent);
}

static void kmem_ro_snap_work(struct work_struct *work)
{
	struct kmem_ro_snap *s = container_of(to_delayed_work(work), struct kmem_ro_snap, work);

	s->tick++;
	if (kmem_ro_events_listened(GRP_SNAPSHOTS))
		kmem_ro_snap_take(s);
	queue_delayed_work(system_wq, &s->work,
			   msecs_to_jiffies(READ_ONCE(s->interval_ms)));
}

static struct kmem_ro_snap *kmem_ro_snap_find(struct file *file)
{
	struct kmem_ro_snap *s;

	lockdep_assert_held(&kmem_ro_snaps_lock);
	list_for_each_entry(s, &kmem_ro_snaps, node)
		if (s->file == file)
			return s;
	return NULL;
}

/* Unlink the stream of @file, if any; the caller stops and frees it. */
static struct kmem_ro_snap *kmem_ro_snap_unlink(struct file *file)
{
	struct kmem_ro_snap *s;

	mutex_lock(&kmem_ro_snaps_lock);
	s = kmem_ro_snap_find(file);
	if (s) {
		list_del(&s->node);
		kmem_ro_snaps_nr--;
	}
	mutex_unlock(&kmem_ro_snaps_lock);
	return s;
}

static void kmem_ro_snap_stop(struct kmem_ro_snap *s)
{
	/* waits for a running snapshot and kills its requeue */
	cancel_delayed_work_sync(&s->work);
	kfree(s);
}

static long kmem_ro_snap_start(struct file *file, struct kmem_ro_events_snapshot *a)
{
	struct kmem_ro_snap *s, *fresh;
	unsigned long delay = msecs_to_jiffies(a->interval_ms);
	struct kmem_ro_probe_caller who;
	int err;

	err = kmem_ro_probe_caller(&who, false);
	if (err)
		return err;
	if (!kmem_ro_probe_count(file))
		return -ENOENT;
	fresh = kzalloc(sizeof(*fresh), GFP_KERNEL);
	if (!fresh)
		return -ENOMEM;

	mutex_lock(&kmem_ro_snaps_lock);
	if (kmem_ro_probe_caller_revoked(&who)) {
		mutex_unlock(&kmem_ro_snaps_lock);
		kfree(fresh);
		return -EPERM;
	}
	s = kmem_ro_snap_find(file);
	if (s) {
		WRITE_ONCE(s->interval_ms, a->interval_ms);
		mod_delayed_work(system_wq, &s->work, delay);
	} else {
		s = fresh;
		fresh = NULL;
		s->file = file;
		s->id = ++kmem_ro_snaps_last_id;
		s->owner = task_tgid_nr(current);
		s->granted = who.granted;
		s->interval_ms = a->interval_ms;
		INIT_DELAYED_WORK(&s->work, kmem_ro_snap_work);
		list_add(&s->node, &kmem_ro_snaps);
		kmem_ro_snaps_nr++;
		queue_delayed_work(system_wq, &s->work, delay);
	}
	a->id = s->id;
	mutex_unlock(&kmem_ro_snaps_lock);
	kfree(fresh);
	return 0;
}

/**
 * kmem_ro_events_snapshot_ioctl() - KMEM_RO_IOC_EVENTS_SNAPSHOT
 * @file: the open device whose probes are counted
 * @uarg: user pointer to struct kmem_ro_events_snapshot
 *
 * Return: 0 or a negative errno as documented in uapi/kmem_ro.h.
 */
long kmem_ro_events_snapshot_ioctl(struct file *file, void __user *uarg)
{
	struct kmem_ro_events_snapshot a;
	struct kmem_ro_snap *s;
	u64 usize;
	long err;

	err = kmem_ro_arg_in(&a, sizeof(a), KMEM_RO_EVENTS_SNAPSHOT_SIZE_VER0, uarg, &usize);
	if (err)
		return err;
	if ((a.flags & ~KMEM_RO_EVENTS_SNAPSHOT_STOP) || a.reserved0 || a.reserved[0] ||
	    a.reserved[1])
		return -EINVAL;
	if (a.flags & KMEM_RO_EVENTS_SNAPSHOT_STOP) {
		if (a.interval_ms)
			return -EINVAL;
		s = kmem_ro_snap_unlink(file);
		if (!s)
			return -ENOENT;
		a.id = s->id;
		kmem_ro_snap_stop(s);
	} else {
		if (a.interval_ms < KMEM_RO_EVENTS_SNAPSHOT_MIN_MS ||
		    a.interval_ms > KMEM_RO_EVENTS_SNAPSHOT_MAX_MS)
			return -EINVAL;
		err = kmem_ro_snap_start(file, &a);
		if (err)
			return err;
	}
	return kmem_ro_arg_out(uarg, &a, sizeof(a), usize);
}

/**
 * kmem_ro_events_release() - stop the snapshots of a closing file
 * @file: the file being released, before its probes are
 */
void kmem_ro_events_release(struct file *file)
{
	struct kmem_ro_snap *s = kmem_ro_snap_unlink(file);

	if (s)
		kmem_ro_snap_stop(s);
}

/**
 * kmem_ro_events_revoke() - stop every snapshot stream probe_group allowed
 *
 * Called when probe_group is turned off, after a stream start that has
 * not yet taken kmem_ro_snaps_lock sees it revoked.
 */
void kmem_ro_events_revoke(void)
{
	struct kmem_ro_snap *s, *tmp;
	LIST_HEAD(stop);

	mutex_lock(&kmem_ro_snaps_lock);
	list_for_each_entry_safe(s, tmp, &kmem_ro_snaps, node) {
		if (!s->granted)
			continue;
		list_move(&s->node, &stop);
		kmem_ro_snaps_nr--;
	}
	mutex_unlock(&kmem_ro_snaps_lock);
	list_for_each_entry_safe(s, tmp, &stop, node)
		kmem_ro_snap_stop(s);
}

/* ---- requests ---- */

static int kmem_ro_events_get_info(struct sk_buff *skb, struct genl_info *info)
{
	struct sk_buff *msg;
	unsigned int nr;
	void *hdr;

	msg = genlmsg_new(nla_total_size_64bit(sizeof(u64)) + nla_total_size(sizeof(u32)),
			  GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &kmem_ro_events_family, 0,
				KMEM_RO_EVENTS_CMD_GET_INFO);
	mutex_lock(&kmem_ro_snaps_lock);
	nr = kmem_ro_snaps_nr;
	mutex_unlock(&kmem_ro_snaps_lock);
	if (!hdr ||
	    nla_put_u64_64bit(msg, KMEM_RO_EVENTS_A_DROPPED, atomic64_read(&kmem_ro_events_dropped),
			      KMEM_RO_EVENTS_A_PAD) ||
	    nla_put_u32(msg, KMEM_RO_EVENTS_A_INFO_SNAPSHOTS, nr)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

/* ---- module init and exit ---- */

/**
 * kmem_ro_events_init() - register the family and the module notifier
 *
 * Return: 0 or a negative errno.
 */
int __init kmem_ro_events_init(void)
{
	int err;

	kmem_ro_events_rate_start = jiffies - HZ;
	err = genl_register_family(&kmem_ro_events_family);
	if (err)
		return err;
	err = register_module_notifier(&kmem_ro_events_nb);
	if (err)
		genl_unregister_family(&kmem_ro_events_family);
	return err;
}

/**
 * kmem_ro_events_exit() - unregister what kmem_ro_events_init() registered
 *
 * Every file is closed by now, so no snapshot stream is left.
 */
void kmem_ro_events_exit(void)
{
	unregister_module_notifier(&kmem_ro_events_nb);
	genl_unregister_family(&kmem_ro_events_family);
}
