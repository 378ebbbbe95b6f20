// SPDX-License-Identifier: GPL-2.0
/*
 * kmem_ro - KMEM_RO_IOC_PROBE_ENABLE, _DISABLE, _DEL and _STATS: probes
 * named by id, or all of a file's.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "probe.h"

enum kmem_ro_probe_op { PROBE_ENABLE, PROBE_DISABLE, PROBE_DEL, PROBE_STATS };

/*
 * The probes an ids argument names, up to the first unknown id (@npos of
 * @count positions): each position's probe in @pos, each probe once in
 * @uniq in the order it is first named, at position @first[k].  With ALL,
 * every probe in id order, @pos being @uniq and @first NULL (the identity).
 */
struct kmem_ro_probe_pick {
	struct kmem_ro_probe **pos;
	struct kmem_ro_probe **uniq;
	u32 *first;
	struct kmem_ro_probe **scratch;
	unsigned int npos, nuniq;
};

static void kmem_ro_probe_pick_free(struct kmem_ro_probe_pick *pk)
{
	if (pk->pos != pk->uniq)
		kvfree(pk->pos);
	kvfree(pk->uniq);
	kvfree(pk->first);
	kvfree(pk->scratch);
}

static unsigned int kmem_ro_probe_pick_first(const struct kmem_ro_probe_pick *pk, unsigned int k)
{
	return pk->first ? pk->first[k] : k;
}

/* 0 or -ENOMEM, before anything is done. */
static int kmem_ro_probe_pick(struct kmem_ro_probe_set *set, const struct kmem_ro_probe_ids *a,
			      const u64 *ids, struct kmem_ro_probe_pick *pk)
{
	unsigned int n = a->flags & KMEM_RO_PROBE_ALL ? set->nr : a->count, i;
	struct kmem_ro_probe *p;
	unsigned long id;

	pk->uniq = kvmalloc_array(max(n, 1U), sizeof(*pk->uniq), GFP_KERNEL_ACCOUNT);
	pk->scratch = kvmalloc_array(max(n, 1U), sizeof(*pk->scratch), GFP_KERNEL_ACCOUNT);
	if (a->flags & KMEM_RO_PROBE_ALL) {
		pk->pos = pk->uniq;
	} else {
		pk->pos = kvmalloc_array(n, sizeof(*pk->pos), GFP_KERNEL_ACCOUNT);
		pk->first = kvmalloc_array(n, sizeof(*pk->first), GFP_KERNEL_ACCOUNT);
	}
	if (!pk->uniq || !pk->scratch || !pk->pos || (!(a->flags & KMEM_RO_PROBE_ALL) && !pk->first))
		return -ENOMEM;
	if (a->flags & KMEM_RO_PROBE_ALL) {
		xa_for_each(&set->probes, id, p)
			pk->uniq[pk->nuniq++] = p;
		pk->npos = pk->nuniq;
		return 0;
	}
	for (i = 0; i < n; i++) {
		/* ids are never reused: a stale one finds nothing */
		p = xa_load(&set->probes, ids[i]);
		if (!p)
			break;
		pk->pos[pk->npos++] = p;
		if (p->flags & PROBE_PICKED)	/* an id named twice acts once */
			continue;
		p->flags |= PROBE_PICKED;
		pk->first[pk->nuniq] = i;
		pk->uniq[pk->nuniq++] = p;
	}
	for (i = 0; i < pk->nuniq; i++)
		pk->uniq[i]->flags &= ~PROBE_PICKED;
	return 0;
}

static bool kmem_ro_probe_to_switch(const struct kmem_ro_probe *p, bool on)
{
	return !(p->flags & KMEM_RO_PROBE_GONE) && !!(p->flags & KMEM_RO_PROBE_ENABLED) != on;
}

/*
 * Enable or disable @n probes in order, entry probes in one filter update,
 * using @entry (room for @n).  Returns how many were switched (or needed
 * no switch) before the first that could not be, and its -errno in *@err;
 * @n and 0 if none failed.  Nothing past that one is left switched.
 *
 * ENABLE: entry probes first; if ftrace refuses the update, the call stops
 * at the first of them.  Then kprobes, one by one; if one fails, the entry
 * probes past it are disabled again (which cannot fail).  DISABLE: kprobes
 * first, then the entry probes before the first failure.
 */
static unsigned int kmem_ro_probe_switch(struct kmem_ro_probe_set *set, struct kmem_ro_probe **p,
					 unsigned int n, bool on, struct kmem_ro_probe **entry,
					 int *err)
{
	unsigned int i, k = 0, stop = n, n0 = n;

	*err = 0;
	if (on) {
		for (i = 0; i < n; i++) {
			if (p[i]->offset || !kmem_ro_probe_to_switch(p[i], true))
				continue;
			if (!k)
				stop = i;
			entry[k++] = p[i];
		}
		*err = kmem_ro_ftrace_enable(set, entry, k);
		if (*err) {
			*err = kmem_ro_probe_switch_errno(*err);
			n = stop;
		} else {
			for (i = 0; i < k; i++)
				entry[i]->flags |= PROBE_SWITCHED;
		}
	}
	for (i = 0; i < n; i++) {
		int e;

		if (!p[i]->offset || !kmem_ro_probe_to_switch(p[i], on))
			continue;
		/* each kprobe patches text: killed, stop here as at a failure */
		if (fatal_signal_pending(current)) {
			*err = -EINTR;
			n = i;
			break;
		}
		e = on ? enable_kprobe(&p[i]->kp) : disable_kprobe(&p[i]->kp);
		/*
		 * kprobes' module notifier may run before ours: its module is
		 * going and ours marks the probe gone next, not an error.
		 */
		if (e && kprobe_gone(&p[i]->kp))
			continue;
		if (e) {
			*err = kmem_ro_probe_switch_errno(e);
			n = i;
			break;
		}
		WRITE_ONCE(p[i]->flags, p[i]->flags ^ KMEM_RO_PROBE_ENABLED);
	}
	k = 0;
	for (i = 0; i < n0; i++) {
		if (on && (p[i]->flags & PROBE_SWITCHED)) {
			p[i]->flags &= ~PROBE_SWITCHED;
			if (i >= n)	/* past a kprobe that failed */
				entry[k++] = p[i];
		} else if (!on && i < n && !p[i]->offset && kmem_ro_probe_to_switch(p[i], false)) {
			entry[k++] = p[i];
		}
		/* this request comes after the ADD that made it pending */
		if (i < n)
			WRITE_ONCE(p[i]->flags, p[i]->flags & ~PROBE_PENDING);
	}
	kmem_ro_ftrace_disable(set, entry, k);
	return n;
}

/*
 * DEL's first part: disable the enabled kprobes among @n probes one by
 * one, each unpatching the kernel text (text_poke() and a sync of every
 * CPU where it is not optimized), so that a killed caller stops between
 * two; unregister_kprobes() then has nothing left to unpatch and the
 * batch takes one grace period.  Returns how many of @p, from the first,
 * are to be deleted: all, or with -EINTR in *@err those before the kill.
 * A kprobe that will not disable is unpatched by unregister_kprobes().
 */
static unsigned int kmem_ro_probe_del_disarm(struct kmem_ro_probe **p, unsigned int n, int *err)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (!p[i]->offset || !kmem_ro_probe_to_switch(p[i], false))
			continue;
		if (fatal_signal_pending(current)) {
			*err = -EINTR;
			return i;
		}
		if (!disable_kprobe(&p[i]->kp))
			WRITE_ONCE(p[i]->flags, p[i]->flags & ~KMEM_RO_PROBE_ENABLED);
	}
	return n;
}

/*
 * The counts a STATS read, one per position, to copy out once unlocked;
 * with RESET, the ids and counts of the probes they came from: if the
 * copy fails, they get them back.
 */
struct kmem_ro_probe_counts {
	u64 *counts;
	u64 *ids;
	u64 *taken;
	unsigned int n, nuniq;
};

static void kmem_ro_probe_counts_free(struct kmem_ro_probe_counts *c)
{
	kvfree(c->counts);
	kvfree(c->ids);
	kvfree(c->taken);
}

/*
 * Read the counts of @n positions; a probe named twice is read (and reset)
 * once, its count written at each of its positions.  RESET moves the
 * probe's base up to what was read: a hit meanwhile is read next time.
 */
static int kmem_ro_probe_counts_take(struct kmem_ro_probe_counts *c, struct kmem_ro_probe **pos,
				     unsigned int n, bool reset)
{
	unsigned int i;

	c->counts = kvmalloc_array(max(n, 1U), sizeof(*c->counts), GFP_KERNEL_ACCOUNT);
	if (reset) {
		c->ids = kvmalloc_array(max(n, 1U), sizeof(*c->ids), GFP_KERNEL_ACCOUNT);
		c->taken = kvmalloc_array(max(n, 1U), sizeof(*c->taken), GFP_KERNEL_ACCOUNT);
	}
	if (!c->counts || (reset && (!c->ids || !c->taken)))
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		struct kmem_ro_probe *p = pos[i];

		if (!(p->flags & PROBE_PICKED)) {
			p->flags |= PROBE_PICKED;
			p->taken = kmem_ro_probe_hits(p);
			if (reset) {
				p->base += p->taken;
				c->ids[c->nuniq] = p->id;
				c->taken[c->nuniq++] = p->taken;
			}
		}
		c->counts[i] = p->taken;
	}
	for (i = 0; i < n; i++)
		pos[i]->flags &= ~PROBE_PICKED;
	c->n = n;
	return 0;
}

/* A RESET whose counts did not reach the user: they count again. */
static void kmem_ro_probe_counts_give_back(struct kmem_ro_probe_set *set,
					   const struct kmem_ro_probe_counts *c)
{
	struct kmem_ro_probe *p;
	unsigned int i;

	mutex_lock(&set->lock);
	for (i = 0; i < c->nuniq; i++) {
		p = xa_load(&set->probes, c->ids[i]);
		if (p)		/* not deleted since */
			p->base -= c->taken[i];
	}
	mutex_unlock(&set->lock);
}

static long kmem_ro_probe_ids_ioctl(struct file *file, void __user *uarg,
				    enum kmem_ro_probe_op op)
{
	u64 valid = KMEM_RO_PROBE_ALL | (op == PROBE_STATS ? KMEM_RO_PROBE_RESET : 0);
	struct kmem_ro_probe_ids __user *uids = uarg;
	struct kmem_ro_probe_counts counts = { };
	struct kmem_ro_probe_caller who = { };
	struct kmem_ro_probe_pick pk = { };
	struct kmem_ro_probe_set *set;
	struct kmem_ro_probe_ids a;
	bool all, reset = false;
	int err, stop_err = 0;
	unsigned int n, k;
	u64 *ids = NULL;
	u64 usize;

	err = kmem_ro_arg_in(&a, sizeof(a), KMEM_RO_PROBE_IDS_SIZE_VER0, uarg, &usize);
	if (err)
		return err;
	all = a.flags & KMEM_RO_PROBE_ALL;
	if ((a.flags & ~valid) || a.reserved0 || a.reserved[0] || a.reserved[1])
		return -EINVAL;
	if (all ? a.ids_addr || a.count : !a.ids_addr || !a.count)
		return -EINVAL;
	if (!a.counts_addr != !a.counts_cap || (op != PROBE_STATS && a.counts_addr))
		return -EINVAL;
	if (a.count > KMEM_RO_PROBE_MAX_BATCH)
		return -E2BIG;
	/* STATS by ids: one count per id; with ALL, none asks only how many */
	if (op == PROBE_STATS && !all && a.counts_cap < a.count)
		return -EINVAL;
	if (op == PROBE_ENABLE || op == PROBE_DISABLE) {
		err = kmem_ro_probe_caller(&who, true);
		if (err)
			return err;
	}
	set = kmem_ro_probe_set(file, false);
	if (!set) {		/* no probe was ever added here */
		if (!all)
			return -ENOENT;
		a.done = 0;
		return kmem_ro_arg_out(uarg, &a, sizeof(a), usize);
	}
	if (!all) {
		ids = vmemdup_array_user(u64_to_user_ptr(a.ids_addr), a.count, sizeof(*ids));
		if (IS_ERR(ids))
			return PTR_ERR(ids);
	}
	/* after acting, only another thread can make @done unwritable */
	if (op != PROBE_STATS && put_user(0U, &uids->done)) {
		err = -EFAULT;
		goto out;
	}

	mutex_lock(&set->lock);
	if (kmem_ro_probe_caller_revoked(&who)) {
		err = -EPERM;
		goto out_unlock;
	}
	err = kmem_ro_probe_pick(set, &a, ids, &pk);
	if (err)
		goto out_unlock;
	if (pk.npos < a.count)
		stop_err = -ENOENT;
	switch (op) {
	case PROBE_ENABLE:
	case PROBE_DISABLE:
		k = kmem_ro_probe_switch(set, pk.uniq, pk.nuniq, op == PROBE_ENABLE, pk.scratch,
					 &err);
		a.done = pk.npos;
		if (k < pk.nuniq) {
			a.done = kmem_ro_probe_pick_first(&pk, k);
			stop_err = err;
		}
		/* killed: what was switched stays, the call fails */
		if (err != -EINTR)
			err = 0;
		break;
	case PROBE_DEL:
		/* killed: the probes before where it stopped are deleted, no more */
		k = kmem_ro_probe_del_disarm(pk.uniq, pk.nuniq, &err);
		kmem_ro_probe_delete(set, pk.uniq, k);
		a.done = pk.npos;
		break;
	case PROBE_STATS:
		reset = a.flags & KMEM_RO_PROBE_RESET;
		n = all ? min(pk.npos, a.counts_cap) : pk.npos;
		err = kmem_ro_probe_counts_take(&counts, pk.pos, n, reset);
		a.done = pk.npos;
		break;
	}
out_unlock:
	mutex_unlock(&set->lock);
	if (err)
		goto out;
	if (!a.done && stop_err) {	/* the first entry failed: nothing done */
		err = stop_err;
		goto out;
	}
	if ((counts.n && copy_to_user(u64_to_user_ptr(a.counts_addr), counts.counts,
				      counts.n * sizeof(*counts.counts))) ||
	    kmem_ro_arg_out(uarg, &a, sizeof(a), usize)) {
		if (reset)
			kmem_ro_probe_counts_give_back(set, &counts);
		err = -EFAULT;
	}
out:
	kmem_ro_probe_counts_free(&counts);
	kmem_ro_probe_pick_free(&pk);
	kvfree(ids);
	return err;
}

/**
 * kmem_ro_probe_enable_ioctl() - KMEM_RO_IOC_PROBE_ENABLE
 * @file: the open device, which owns the probes
 * @uarg: user pointer to struct kmem_ro_probe_ids
 *
 * Return: 0 or a negative errno as documented in uapi/kmem_ro.h.
 */
long kmem_ro_probe_enable_ioctl(struct file *file, void __user *uarg)
{
	return kmem_ro_probe_ids_ioctl(file, uarg, PROBE_ENABLE);
}

/**
 * kmem_ro_probe_disable_ioctl() - KMEM_RO_IOC_PROBE_DISABLE
 * @file: the open device, which owns the probes
 * @uarg: user pointer to struct kmem_ro_probe_ids
 *
 * Return: 0 or a negative errno as documented in uapi/kmem_ro.h.
 */
long kmem_ro_probe_disable_ioctl(struct file *file, void __user *uarg)
{
	return kmem_ro_probe_ids_ioctl(file, uarg, PROBE_DISABLE);
}

/**
 * kmem_ro_probe_del_ioctl() - KMEM_RO_IOC_PROBE_DEL
 * @file: the open device, which owns the probes
 * @uarg: user pointer to struct kmem_ro_probe_ids
 *
 * Return: 0 or a negative errno as documented in uapi/kmem_ro.h.
 */
long kmem_ro_probe_del_ioctl(struct file *file, void __user *uarg)
{
	return kmem_ro_probe_ids_ioctl(file, uarg, PROBE_DEL);
}

/**
 * kmem_ro_probe_stats_ioctl() - KMEM_RO_IOC_PROBE_STATS
 * @file: the open device, which owns the probes
 * @uarg: user pointer to struct kmem_ro_probe_ids
 *
 * Return: 0 or a negative errno as documented in uapi/kmem_ro.h.
 */
long kmem_ro_probe_stats_ioctl(struct file *file, void __user *uarg)
{
	return kmem_ro_probe_ids_ioctl(file, uarg, PROBE_STATS);
}
