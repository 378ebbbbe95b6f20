// SPDX-License-Identifier: GPL-2.0
/*
 * kmem_ro - the ftrace filter of a file's entry probes: batches validated
 * on a never registered ops, enabled and disabled in one update each.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "probe.h"

/**
 * kmem_ro_ftrace_check() - try ips on the check ops, note the ones ftrace refuses
 * @set: the probe set whose never registered check ops is used
 * @ips: function addresses
 * @err: for each of @ips, set to its errno if ftrace refuses it: -ENOMEM
 *	when ftrace could not allocate (ftrace_set_hash() and
 *	add_hash_entry() give it for nothing else), -EOPNOTSUPP otherwise
 *	(no ftrace record there: -ENOENT from __ftrace_match_addr())
 * @n: how many
 *
 * An allocation failure is not a place ftrace cannot trace: a tool takes
 * -EOPNOTSUPP for a refusal for good.
 */
void kmem_ro_ftrace_check(struct kmem_ro_probe_set *set, unsigned long *ips,
			  int *err, unsigned int n)
{
	int ret;

	if (!n)
		return;
	ret = ftrace_set_filter_ips(&set->check, ips, n, 0, 1);
	if (!ret)
		return;
	if (n == 1) {
		*err = ret == -ENOMEM ? -ENOMEM : -EOPNOTSUPP;
		return;
	}
	kmem_ro_ftrace_check(set, ips, err, n / 2);
	kmem_ro_ftrace_check(set, ips + n / 2, err + n / 2, n - n / 2);
}

/**
 * kmem_ro_ftrace_enable() - put validated entry probes in the live filter
 * @set: their probe set, locked
 * @probes: the probes
 * @n: how many
 *
 * Return: 0, all of them enabled, or a negative errno, none.
 */
int kmem_ro_ftrace_enable(struct kmem_ro_probe_set *set,
				 struct kmem_ro_probe **probes, unsigned int n)
{
	unsigned long *ips;
	unsigned int i;
	int err;

	if (!n)
		return 0;
	ips = kvmalloc_array(n, sizeof(*ips), GFP_KERNEL);
	if (!ips)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		ips[i] = probes[i]->addr;
	err = ftrace_set_filter_ips(&set->ops, ips, n, 0, 0);
	if (!err && !set->ops_on) {
		err = register_ftrace_function(&set->ops);
		set->ops_on = !err;
	}
	if (err) {
		if (!set->ftrace_enabled)	/* leave no stray filter */
			ftrace_set_filter_ips(&set->ops, ips, n, 1, 0);
		goto out;
	}
	for (i = 0; i < n; i++)
		WRITE_ONCE(probes[i]->flags, probes[i]->flags | KMEM_RO_PROBE_ENABLED);
	set->ftrace_enabled += n;
out:
	kvfree(ips);
	return err;
}

/**
 * kmem_ro_ftrace_disable() - take entry probes out of the live filter
 * @set: their probe set, locked
 * @probes: the probes
 * @n: how many
 *
 * Return: 0: it never fails.
 */
int kmem_ro_ftrace_disable(struct kmem_ro_probe_set *set,
				  struct kmem_ro_probe **probes, unsigned int n)
{
	unsigned long *ips;
	unsigned int i;

	if (!n)
		return 0;
	ips = kvmalloc_array(n, sizeof(*ips), GFP_KERNEL);
	for (i = 0; i < n; i++) {
		WRITE_ONCE(probes[i]->flags, probes[i]->flags & ~KMEM_RO_PROBE_ENABLED);
		if (ips)
			ips[i] = probes[i]->addr;
	}
	set->ftrace_enabled -= n;
	/* never an empty filter on a registered ops: it would trace all */
	if (!set->ftrace_enabled && set->ops_on) {
		unregister_ftrace_function(&set->ops);
		set->ops_on = false;
	}
	/*
	 * One update for the batch; one per probe when memory is short or
	 * the batch is refused, so that a disable never fails half done.  An
	 * address ftrace still will not remove (out of memory) stays in the
	 * filter, where the callback ignores it: the flag is clear.
	 */
	if (!ips || ftrace_set_filter_ips(&set->ops, ips, n, 1, 0))
		for (i = 0; i < n; i++)
			ftrace_set_filter_ip(&set->ops, probes[i]->addr, 1, 0);
	kvfree(ips);
	return 0;
}
