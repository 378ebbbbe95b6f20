// SPDX-License-Identifier: GPL-2.0
/*
 * kmem_ro - bulk probes: hit counters on kernel functions, owned by the
 * open file.
 *
 * Function-entry probes share one ftrace_ops per file whose filter holds
 * exactly the enabled probes; its callback finds the probe in a resizable
 * hash (rhashtable), so the cost of a hit does not grow with the number of
 * probes.  ftrace_set_filter_ips() takes a whole batch in one update; it
 * fails whole when one address is not traceable, so a batch is first tried
 * on a second, never registered ops and bisected when it fails: one update
 * for a good batch, O(k log n) for k bad entries.  Other offsets use
 * kprobes, unregistered in batches (unregister_kprobes(): one RCU grace
 * period for a whole DEL or close, not one per probe).  A filter must never
 * become empty while its ops is registered (an empty filter traces every
 * function), so the ops is unregistered before its last probe leaves the
 * filter.
 *
 * Ids count up per file from 1 and are never reused (a 64-bit counter
 * keys an xarray): a stale id names no probe, never a newer one.  Hit
 * counters only ever grow; RESET moves a per-probe base instead of zeroing
 * them, so a hit during a RESET is counted once, before or after it.
 * Probe memory is charged to the caller's memory cgroup, except the
 * rhashtable's buckets: lib/rhashtable.c allocates them with GFP_KERNEL
 * (on resize from its worker), which no active memcg can redirect.  The
 * module parameters max_probes_per_file and max_probes cap the number of
 * probes (ENOSPC per spec beyond).
 *
 * A call that fails has done nothing: arguments and caps are checked
 * before anything is done, an ADD removes its probes again if a result
 * cannot be written, a STATS with RESET gives back counts that did not
 * reach the caller.  Past the first entry, a failure ends the call with 0
 * and says where it stopped (see uapi/kmem_ro.h).
 *
 * Module unload: ftrace forgets a module's functions once the
 * MODULE_STATE_GOING notifiers have run, and cleans only its own tracer's
 * filters.  An address left in ours could then never be removed
 * (ftrace_set_filter_ips() refuses what is no longer a function, failing
 * the whole batch) and would trace whatever code is loaded there next.  So,
 * as kprobes does with its own, a module notifier takes the probes in a
 * going module's text (and, once a module is live, in its freed init text)
 * out of the filter while ftrace still knows them and marks them
 * KMEM_RO_PROBE_GONE; until that text is gone for good no new probe may go
 * there.  Probes do not pin a module, as kprobes do not.
 *
 * User memory is never touched under a lock: a user page can stall for
 * ever (FUSE, userfaultfd), while the module notifier takes
 * kmem_ro_sets_lock and every set->lock, and release kmem_ro_sets_lock.
 * Each call copies its input in before it locks and stages its output in
 * kernel memory, in bounded steps where it can be large, and copies it out
 * after it unlocks.
 *
 * The files: this one holds the set of an open file, the caps, deletion
 * and release; probe_hit.c the hit path, probe_ftrace.c the ftrace filter,
 * probe_add.c ADD, probe_ids.c ENABLE, DISABLE, DEL and STATS,
 * probe_list.c LIST, probe_filter.c FILTER, probe_module.c module unload;
 * probe.h what they share.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/moduleparam.h>

#include "probe.h"

/*
 * ~500 bytes of slab and 8 bytes per CPU a probe: the defaults take every
 * traceable function of a kernel (40-45k on Debian's) in one file, and
 * bound all files together to some hundred MiB.
 */
static unsigned int max_probes_per_file = 65536;
module_param(max_probes_per_file, uint, 0644);
MODULE_PARM_DESC(max_probes_per_file,
		 "Probes one open file may hold; more are refused with ENOSPC (default 65536)");

static unsigned int max_probes = 262144;
module_param(max_probes, uint, 0644);
MODULE_PARM_DESC(max_probes,
		 "Probes all open files together may hold; more are refused with ENOSPC (default 262144)");

/*
 * The security model asks CAP_PERFMON or CAP_SYS_ADMIN on top of the fd to
 * change what the kernel runs; a site whose monitoring group is trusted
 * with that (the fd already reads all kernel memory) sets probe_group.
 */
static bool probe_group;
/* times probe_group went from 1 to 0: a granted call allowed before acts no more */
static unsigned long kmem_ro_group_gen;

static void kmem_ro_probe_revoke(void);

/*
 * Turning probe_group off takes back what it gave: every probe made
 * without CAP_PERFMON or CAP_SYS_ADMIN is deleted and every snapshot
 * stream started so stopped, before the write returns.  Writes are
 * serialised by the module's kernel_param_lock().
 */
static int kmem_ro_probe_group_set(const char *val, const struct kernel_param *kp)
{
	struct kernel_param tmp = *kp;
	bool on;
	int err;

	tmp.arg = &on;
	err = param_set_bool(val, &tmp);	/* as a bool parameter parses it */
	if (err)
		return err;
	if (!on && READ_ONCE(probe_group)) {
		/* a call that reads the new count sees probe_group off */
		WRITE_ONCE(probe_group, false);
		smp_store_release(&kmem_ro_group_gen, kmem_ro_group_gen + 1);
		kmem_ro_events_revoke();
		kmem_ro_probe_revoke();
	}
	WRITE_ONCE(probe_group, on);
	return 0;
}

static const struct kernel_param_ops kmem_ro_probe_group_ops = {
	.flags = KERNEL_PARAM_OPS_FL_NOARG,
	.set = kmem_ro_probe_group_set,
	.get = param_get_bool,
};

module_param_cb(probe_group, &kmem_ro_probe_group_ops, &probe_group, 0644);
MODULE_PARM_DESC(probe_group,
		 "Let any holder of the fd add, enable and disable probes and start snapshots, without CAP_PERFMON or CAP_SYS_ADMIN; turning it off deletes those probes and stops those snapshots (default: no)");

static atomic_long_t kmem_ro_nr_probes;

/*
 * Every file's probe set, for LIST with KMEM_RO_PROBE_LIST_ALL_FILES;
 * added at the head, so their serials fall along the list.
 */
LIST_HEAD(kmem_ro_sets);
DEFINE_MUTEX(kmem_ro_sets_lock);
static u64 kmem_ro_sets_serial;

/**
 * kmem_ro_may_probe() - may the caller start changing what the kernel runs?
 *
 * Return: true with CAP_PERFMON or CAP_SYS_ADMIN, or for anyone when the
 * module parameter probe_group is set.
 */
bool kmem_ro_may_probe(void)
{
	return READ_ONCE(probe_group) || capable(CAP_PERFMON) || capable(CAP_SYS_ADMIN);
}

/**
 * kmem_ro_probe_allowed() - kmem_ro_may_probe(), and lockdown allows kprobes
 *
 * Return: true if the caller may add, enable and disable probes.
 */
bool kmem_ro_probe_allowed(void)
{
	return kmem_ro_may_probe() && !security_locked_down(LOCKDOWN_KPROBES);
}

/**
 * kmem_ro_probe_switch_errno() - a failure of ftrace or kprobes to switch a probe
 * @err: their negative errno
 *
 * Return: the errno in the terms of uapi/kmem_ro.h: out of memory, or
 * EBUSY for anything else they refuse.
 */
int kmem_ro_probe_switch_errno(int err)
{
	return err == -ENOMEM ? err : -EBUSY;
}

/* ---- the set of one open file ---- */

/**
 * kmem_ro_probe_set() - the probe set of an open file
 * @file: the open device
 * @create: make it if the file has none yet
 *
 * Return: the set, or NULL (none yet, or no memory to make it).
 */
struct kmem_ro_probe_set *kmem_ro_probe_set(struct file *file, bool create)
{
	struct kmem_ro_probe_set *set;

	mutex_lock(&kmem_ro_sets_lock);
	set = file->private_data;
	if (set || !create)
		goto out;
	set = kzalloc(sizeof(*set), GFP_KERNEL_ACCOUNT);
	if (!set)
		goto out;
	if (rhashtable_init(&set->ht, &kmem_ro_probe_params)) {
		kfree(set);
		set = NULL;
		goto out;
	}
	mutex_init(&set->lock);
	xa_init_flags(&set->probes, XA_FLAGS_ACCOUNT);
	set->ops.func = kmem_ro_probe_ftrace;
	set->owner = task_tgid_nr(current);
	set->serial = ++kmem_ro_sets_serial;
	list_add(&set->sets, &kmem_ro_sets);
	file->private_data = set;
out:
	mutex_unlock(&kmem_ro_sets_lock);
	return set;
}

/**
 * kmem_ro_probe_free() - free a probe no lookup can find any more
 * @p: the probe
 */
void kmem_ro_probe_free(struct kmem_ro_probe *p)
{
	free_percpu(p->hits);
	kfree(p);
}

/**
 * kmem_ro_probe_caller() - may the caller change what the kernel runs, and how
 * @who: filled in: the caller's user, and whether probe_group alone lets it
 * @kprobes: it is to make or switch probes: lockdown must allow kprobes
 *
 * The capabilities are asked without an audit record: with probe_group
 * set their absence refuses nothing, it only decides what is counted.
 *
 * Return: 0, or -EPERM when the caller may not (kmem_ro_may_probe(), and
 * with @kprobes kmem_ro_probe_allowed()).
 */
int kmem_ro_probe_caller(struct kmem_ro_probe_caller *who, bool kprobes)
{
	/* first: probe_group read after it was turned off is off (the setter) */
	who->gen = smp_load_acquire(&kmem_ro_group_gen);
	if (kprobes ? !kmem_ro_probe_allowed() : !kmem_ro_may_probe())
		return -EPERM;
	who->uid = current_uid();
	who->granted = !ns_capable_noaudit(&init_user_ns, CAP_PERFMON) &&
		       !ns_capable_noaudit(&init_user_ns, CAP_SYS_ADMIN);
	return 0;
}

/**
 * kmem_ro_probe_caller_revoked() - was probe_group turned off since the call began?
 * @who: the caller, as kmem_ro_probe_caller() found it
 *
 * Asked under the lock the call then acts under (a set's lock, the
 * snapshot list's lock), which the revocation takes after counting.
 *
 * Return: true if @who was granted and probe_group has been turned off
 * since: the call must do nothing more (EPERM).
 */
bool kmem_ro_probe_caller_revoked(const struct kmem_ro_probe_caller *who)
{
	return who->granted && READ_ONCE(kmem_ro_group_gen) != who->gen;
}

/**
 * kmem_ro_probe_reserve() - room for one more probe
 * @set: the set it goes into, locked
 * @who: who makes it: a granted caller is charged to its user
 *
 * Return: 0 if @set, the caller's user (when granted) and all sets
 * together had room, which is taken; -ENOSPC if one had none, -ENOMEM.
 */
int kmem_ro_probe_reserve(const struct kmem_ro_probe_set *set,
			  const struct kmem_ro_probe_caller *who)
{
	long n = atomic_long_read(&kmem_ro_nr_probes);
	int err;

	if (set->nr >= READ_ONCE(max_probes_per_file))
		return -ENOSPC;
	if (who->granted) {
		err = kmem_ro_probe_user_charge(who->uid);
		if (err)
			return err;
	}
	do {
		if (n >= (long)READ_ONCE(max_probes)) {
			if (who->granted)
				kmem_ro_probe_user_uncharge(who->uid);
			return -ENOSPC;
		}
	} while (!atomic_long_try_cmpxchg(&kmem_ro_nr_probes, &n, n + 1));
	return 0;
}

/**
 * kmem_ro_probe_unreserve() - give back the room kmem_ro_probe_reserve() took
 * @granted: it was taken for a granted caller
 * @uid: that caller's user
 */
void kmem_ro_probe_unreserve(bool granted, kuid_t uid)
{
	if (granted)
		kmem_ro_probe_user_uncharge(uid);
	atomic_long_dec(&kmem_ro_nr_probes);
}

/* Unhash and forget @p; the caller frees it after an RCU grace period. */
static void kmem_ro_probe_forget(struct kmem_ro_probe_set *set, struct kmem_ro_probe *p)
{
	if (!(p->flags & KMEM_RO_PROBE_GONE))	/* else unhashed already */
		rhashtable_remove_fast(&set->ht, &p->node, kmem_ro_probe_params);
	xa_erase(&set->probes, p->id);
	set->nr--;
	kmem_ro_probe_unreserve(p->flags & PROBE_GRANTED, p->uid);
}

/*
 * Unregister the kprobes among @n probes together: unregister_kprobes()
 * waits for one RCU grace period for all of them, where one
 * unregister_kprobe() each would wait for one each (minutes for 10,000).
 * Without memory for the array, one at a time.
 */
static void kmem_ro_kprobes_unregister(struct kmem_ro_probe **p, unsigned int n)
{
	struct kprobe **kps;
	unsigned int i, k = 0;

	kps = kvmalloc_array(max(n, 1U), sizeof(*kps), GFP_KERNEL);
	for (i = 0; i < n; i++) {
		if (!p[i]->offset)
			continue;
		if (kps)
			kps[k++] = &p[i]->kp;
		else
			unregister_kprobe(&p[i]->kp);
	}
	if (k)
		unregister_kprobes(kps, k);
	kvfree(kps);
}

/**
 * kmem_ro_probe_delete() - delete probes of a set; never fails
 * @set: the set, locked
 * @p: the probes
 * @n: how many
 *
 * Entry probes leave the filter in one update, kprobes go in one batch.
 */
void kmem_ro_probe_delete(struct kmem_ro_probe_set *set, struct kmem_ro_probe **p,
				 unsigned int n)
{
	struct kmem_ro_probe **entry;
	unsigned int i, k = 0;

	if (!n)
		return;
	/* without memory, one filter update each */
	entry = kvmalloc_array(n, sizeof(*entry), GFP_KERNEL);
	for (i = 0; i < n; i++) {
		WRITE_ONCE(p[i]->flags, p[i]->flags & ~PROBE_PENDING);
		if (p[i]->offset || !(p[i]->flags & KMEM_RO_PROBE_ENABLED))
			continue;
		if (entry)
			entry[k++] = p[i];
		else
			kmem_ro_ftrace_disable(set, &p[i], 1);
	}
	kmem_ro_ftrace_disable(set, entry, k);
	kvfree(entry);
	kmem_ro_kprobes_unregister(p, n);
	for (i = 0; i < n; i++)
		kmem_ro_probe_forget(set, p[i]);
	synchronize_rcu();	/* ftrace callbacks run with preemption off */
	for (i = 0; i < n; i++)
		kmem_ro_probe_free(p[i]);
}

/* Delete @set's granted probes: what release does, for those alone. */
static void kmem_ro_probe_set_revoke(struct kmem_ro_probe_set *set)
{
	struct kmem_ro_probe **granted, *p;
	unsigned int n = 0, k = 0;
	unsigned long id;

	mutex_lock(&set->lock);
	xa_for_each(&set->probes, id, p)
		n += !!(p->flags & PROBE_GRANTED);
	if (!n)
		goto out;
	/* one filter update and one kprobe batch; without memory, one each */
	granted = kvmalloc_array(n, sizeof(*granted), GFP_KERNEL);
	xa_for_each(&set->probes, id, p) {
		if (!(p->flags & PROBE_GRANTED))
			continue;
		if (granted)
			granted[k++] = p;
		else
			kmem_ro_probe_delete(set, &p, 1);
	}
	kmem_ro_probe_delete(set, granted, k);
	kvfree(granted);
out:
	mutex_unlock(&set->lock);
}

/*
 * Delete every granted probe of every file, as the module notifier takes
 * a going module's probes: under kmem_ro_sets_lock, each set under its
 * lock, so no call is halfway through a set meanwhile; a set's release
 * either unlinked it before (and deletes them itself) or waits.
 */
static void kmem_ro_probe_revoke(void)
{
	struct kmem_ro_probe_set *set;

	mutex_lock(&kmem_ro_sets_lock);
	list_for_each_entry(set, &kmem_ro_sets, sets)
		kmem_ro_probe_set_revoke(set);
	mutex_unlock(&kmem_ro_sets_lock);
}

/**
 * kmem_ro_probe_release() - remove every probe of a closing file
 * @file: the file being released
 */
void kmem_ro_probe_release(struct file *file)
{
	struct kmem_ro_probe_set *set = file->private_data;
	struct kmem_ro_probe **all, *p;
	unsigned int k = 0;
	unsigned long id;

	if (!set)
		return;
	mutex_lock(&kmem_ro_sets_lock);
	list_del(&set->sets);
	mutex_unlock(&kmem_ro_sets_lock);

	/* no callback after this returns (ftrace waits for them) */
	if (set->ops_on)
		unregister_ftrace_function(&set->ops);
	/* the kprobes in one batch; without memory, one at a time */
	all = kvmalloc_array(max(set->nr, 1U), sizeof(*all), GFP_KERNEL);
	xa_for_each(&set->probes, id, p) {
		if (all)
			all[k++] = p;
		else if (p->offset)
			unregister_kprobe(&p->kp);
	}
	kmem_ro_kprobes_unregister(all, k);
	kvfree(all);
	/*
	 * The hash first: rhashtable_destroy() waits for its deferred resize
	 * worker, which walks the probes' hash links (a use-after-free of
	 * every probe freed before, seen by KASAN on 7.3).
	 */
	rhashtable_destroy(&set->ht);
	xa_for_each(&set->probes, id, p) {
		kmem_ro_probe_unreserve(p->flags & PROBE_GRANTED, p->uid);
		kmem_ro_probe_free(p);
	}
	ftrace_free_filter(&set->ops);
	ftrace_free_filter(&set->check);
	xa_destroy(&set->probes);
	/* no handler runs any more: ftrace and kprobes waited for them */
	kmem_ro_probe_filter_free(rcu_dereference_protected(set->filter, true));
	kfree(set);
}
