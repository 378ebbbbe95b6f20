// SPDX-License-Identifier: GPL-2.0
/*
 * kmem_ro - the probes each user holds without CAP_PERFMON or CAP_SYS_ADMIN
 * (granted by probe_group alone), counted across all of that user's files
 * and capped by max_probes_per_user.
 *
 * Every kprobe lengthens each int3 hit on the system: kprobes' own table
 * has 64 buckets (KPROBE_HASH_BITS 6, kernel/kprobes.c get_kprobe(), in
 * 6.1, 6.12 and 7.3), and docs/benchmarks.md measured an int3 hit 3 to 5
 * times dearer with 8000 kprobes (125 a chain); 1024 put at most 16 more
 * on a chain.  Every enabled entry probe sends its function through
 * ftrace.  1024 still covers the functions of a subsystem (a glob such as
 * tcp_*) or a probe top of a few hundred; an admin raises it, or gives
 * the tool CAP_PERFMON, which the cap does not count.  Beyond it,
 * a spec is refused with ENOSPC, as max_probes_per_file and max_probes
 * refuse theirs.
 *
 * The user is the caller's real user id (current_uid()), as RLIMIT_NPROC
 * counts processes: a set-user-ID program is charged to who ran it.  A
 * probe is charged when it is made, to the user that made it, and
 * uncharged when it is deleted, however that happens (DEL, a failed ADD,
 * revocation, close).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/moduleparam.h>

#include "probe.h"

static unsigned int max_probes_per_user = 1024;
module_param(max_probes_per_user, uint, 0644);
MODULE_PARM_DESC(max_probes_per_user,
		 "Probes one user may hold across all open files without CAP_PERFMON or CAP_SYS_ADMIN; more are refused with ENOSPC (default 1024)");

/* uid -> xa_mk_value(probes charged); no entry for none */
static DEFINE_XARRAY(kmem_ro_user_probes);
static DEFINE_MUTEX(kmem_ro_user_lock);	/* innermost: taken under set->lock */

/**
 * kmem_ro_probe_user_charge() - count one more probe for a user
 * @uid: the user
 *
 * Return: 0, -ENOSPC if the user holds max_probes_per_user already, or
 * -ENOMEM.
 */
int kmem_ro_probe_user_charge(kuid_t uid)
{
	unsigned long key = __kuid_val(uid), n;
	int err = 0;

	mutex_lock(&kmem_ro_user_lock);
	n = xa_to_value(xa_load(&kmem_ro_user_probes, key) ?: xa_mk_value(0));
	if (n >= READ_ONCE(max_probes_per_user))
		err = -ENOSPC;
	else
		err = xa_err(xa_store(&kmem_ro_user_probes, key, xa_mk_value(n + 1),
				      GFP_KERNEL));
	mutex_unlock(&kmem_ro_user_lock);
	return err;
}

/**
 * kmem_ro_probe_user_uncharge() - count one probe less for a user
 * @uid: the user, charged before by kmem_ro_probe_user_charge()
 */
void kmem_ro_probe_user_uncharge(kuid_t uid)
{
	unsigned long key = __kuid_val(uid), n;

	mutex_lock(&kmem_ro_user_lock);
	n = xa_to_value(xa_load(&kmem_ro_user_probes, key) ?: xa_mk_value(0));
	if (WARN_ON_ONCE(!n) || n == 1)
		xa_erase(&kmem_ro_user_probes, key);
	else	/* replaces a present entry: allocates nothing, cannot fail */
		xa_store(&kmem_ro_user_probes, key, xa_mk_value(n - 1), GFP_KERNEL);
	mutex_unlock(&kmem_ro_user_lock);
}

/**
 * kmem_ro_probe_user_exit() - at unload, when every file is closed
 *
 * Every probe was uncharged when it went: a count left is a leak.
 */
void kmem_ro_probe_user_exit(void)
{
	WARN_ON_ONCE(!xa_empty(&kmem_ro_user_probes));
	xa_destroy(&kmem_ro_user_probes);
}
