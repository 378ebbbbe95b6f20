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
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/ftrace.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/pid.h>
#include <linux/rhashtable.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/security.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/xarray.h>
#include <asm/ibt.h>
#include <asm/insn.h>

#include <kmem_ro.h>

#include "compat.h"
#include "internal.h"

/* Specs copied in per step of an ADD call: bounds the kernel buffer. */
#define PROBE_CHUNK	256

/* Internal flags: already named by the ids of the current call; */
#define PROBE_PICKED	(1U << 31)
/* an ADD will enable it once all its specs are in, unless switched before; */
#define PROBE_PENDING	(1U << 30)
/* enabled by the current ENABLE, undone if a later kprobe fails. */
#define PROBE_SWITCHED	(1U << 29)
#define PROBE_UAPI_FLAGS	(KMEM_RO_PROBE_ENABLED | KMEM_RO_PROBE_KPROBE | KMEM_RO_PROBE_GONE)

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
module_param(probe_group, bool, 0644);
MODULE_PARM_DESC(probe_group,
		 "Let any holder of the fd add, enable and disable probes and start snapshots, without CAP_PERFMON or CAP_SYS_ADMIN (default: no)");

static atomic_long_t kmem_ro_nr_probes;

struct kmem_ro_probe {
	struct rhash_head node;
	unsigned long key;		/* addr + offset */
	u64 id;
	unsigned long addr;
	u32 offset;
	u32 flags;			/* KMEM_RO_PROBE_ENABLED, _KPROBE, _GONE */
	u64 __percpu *hits;		/* only ever incremented */
	u64 base;			/* hits before the last RESET */
	u64 taken;			/* STATS: this call's count, for an id named twice */
	struct kmem_ro_probe_set *set;	/* for the kprobe handler's filter */
	struct kprobe kp;
	char name[KMEM_RO_PROBE_NAME_LEN];
};

/*
 * Which hits count (KMEM_RO_IOC_PROBE_FILTER).  Read by the handlers
 * under RCU (preemption off), replaced whole and freed after a grace
 * period.  @tgid and the comm words are what a hit compares; @pid is the
 * process itself, checked only when the number matches, so that a number
 * used again by a later process does not match.
 */
struct kmem_ro_probe_filter_state {
	u64 flags;			/* KMEM_RO_PROBE_FILTER_PID, _COMM */
	pid_t tgid;			/* pid_nr(@pid): the init namespace's number */
	struct pid *pid;		/* held: the number alone may be reused */
	u64 comm[2];			/* TASK_COMM_LEN bytes, zero-padded */
};

struct kmem_ro_probe_set {
	/* first: on the cache line of the hash table's lookup (ht.tbl) */
	struct kmem_ro_probe_filter_state __rcu *filter;
	struct mutex lock;
	struct rhashtable ht;
	struct xarray probes;		/* id -> probe, walked in id order */
	u64 last_id;			/* ids count up from 1, never reused */
	unsigned int nr;
	struct ftrace_ops ops;		/* enabled entry probes */
	struct ftrace_ops check;	/* never registered: validates batches */
	bool ops_on;
	unsigned int ftrace_enabled;
	pid_t owner;
	struct list_head sets;
	u64 serial;			/* order in kmem_ro_sets, newest first */
};

/* Not the default memcmp(): the ftrace callback must call nothing traceable. */
static int notrace kmem_ro_probe_cmp(struct rhashtable_compare_arg *arg, const void *obj)
{
	const struct kmem_ro_probe *p = obj;

	return p->key != *(const unsigned long *)arg->key;
}

static const struct rhashtable_params kmem_ro_probe_params = {
	.key_len = sizeof(unsigned long),
	.key_offset = offsetof(struct kmem_ro_probe, key),
	.head_offset = offsetof(struct kmem_ro_probe, node),
	.obj_cmpfn = kmem_ro_probe_cmp,
	.automatic_shrinking = true,
};

/*
 * Every file's probe set, for LIST with KMEM_RO_PROBE_LIST_ALL_FILES;
 * added at the head, so their serials fall along the list.
 */
static LIST_HEAD(kmem_ro_sets);
static DEFINE_MUTEX(kmem_ro_sets_lock);
static u64 kmem_ro_sets_serial;

/*
 * Module text that takes no new probe: all of a going module's, a live
 * module's init text.  Between the notifier and ftrace forgetting the
 * functions, ftrace would still accept them.  By module name: a module of
 * that name cannot load again before the going one is freed, and its
 * COMING notification ends the entry.
 */
struct kmem_ro_dead_text {
	struct list_head list;
	char name[MODULE_NAME_LEN];
	unsigned long start, end;	/* the dead range; 0, 0: all of it */
};

static LIST_HEAD(kmem_ro_dead);
static DEFINE_MUTEX(kmem_ro_dead_lock);	/* innermost: taken under set->lock */

/*
 * A lookup from the ftrace callback, whose recursion lock keeps preemption
 * off: a reader that synchronize_rcu() waits for.  No rcu_read_lock(): on
 * PREEMPT_RCU kernels it calls __rcu_read_lock(), itself traceable, so a
 * probe there would count our own lookups (and, before the recursion lock,
 * recursed until the stack overflowed).  Lockdep accepts no other reader
 * for rhashtable_lookup(), so PROVE_RCU kernels take it anyway.
 */
static __always_inline struct kmem_ro_probe *
kmem_ro_probe_find(struct kmem_ro_probe_set *set, unsigned long key)
{
	struct kmem_ro_probe *p;

	if (!IS_ENABLED(CONFIG_PROVE_RCU))
		return rhashtable_lookup(&set->ht, &key, kmem_ro_probe_params);
	rcu_read_lock();
	p = rhashtable_lookup(&set->ht, &key, kmem_ro_probe_params);
	rcu_read_unlock();
	return p;
}

/*
 * Does the current task pass @set's filter?  Without one: one load and a
 * branch.  The comm is compared as two words, padded as __set_task_comm()
 * pads it (strscpy_pad() in 6.1 and 6.12, memcpy() and memset() in 7.3,
 * fs/exec.c), with no call that could itself be probed.  A rename racing
 * with the hit may tear the words: that hit may be missed.
 */
static __always_inline bool kmem_ro_probe_filter_pass(struct kmem_ro_probe_set *set)
{
	const struct kmem_ro_probe_filter_state *f = rcu_dereference_sched(set->filter);
	struct task_struct *t;
	u64 comm[2];

	if (likely(!f))
		return true;
	t = current;
	if (f->flags & KMEM_RO_PROBE_FILTER_PID &&
	    (t->tgid != f->tgid || task_tgid(t) != f->pid))
		return false;
	if (f->flags & KMEM_RO_PROBE_FILTER_COMM) {
		BUILD_BUG_ON(sizeof(t->comm) != sizeof(comm));
		memcpy(comm, t->comm, sizeof(comm));	/* two loads: a constant size */
		if (comm[0] != f->comm[0] || comm[1] != f->comm[1])
			return false;
	}
	return true;
}

/*
 * The ip ftrace hands us is the patched call site: the function address,
 * or just past its ENDBR64 on IBT kernels (6.12).  Everything the callback
 * calls may be probed too: the recursion lock comes first.  A hit where
 * RCU is not watching (idle, entry code) is not counted: synchronize_rcu()
 * would not wait for that lookup before a deleted probe is freed.
 */
static void notrace kmem_ro_probe_ftrace(unsigned long ip, unsigned long parent_ip,
					 struct ftrace_ops *ops,
					 struct ftrace_regs *fregs)
{
	struct kmem_ro_probe_set *set = container_of(ops, struct kmem_ro_probe_set, ops);
	struct kmem_ro_probe *p;
	int bit;

	bit = ftrace_test_recursion_trylock(ip, parent_ip);
	if (bit < 0)
		return;
	/* the filter first: a hit it rejects costs no hash lookup */
	if (!rcu_is_watching() || !kmem_ro_probe_filter_pass(set))
		goto out;
	p = kmem_ro_probe_find(set, ip);
	if (ENDBR_INSN_SIZE && (!p || p->flags & KMEM_RO_PROBE_KPROBE))
		p = kmem_ro_probe_find(set, ip - ENDBR_INSN_SIZE);
	if (p && (READ_ONCE(p->flags) & (KMEM_RO_PROBE_ENABLED | KMEM_RO_PROBE_KPROBE)) ==
		 KMEM_RO_PROBE_ENABLED)
		this_cpu_inc(*p->hits);
out:
	ftrace_test_recursion_unlock(bit);
}

/* kprobe handlers run with preemption off: an RCU reader of the filter. */
static int kmem_ro_probe_kprobe_hit(struct kprobe *kp, struct pt_regs *regs)
{
	struct kmem_ro_probe *p = container_of(kp, struct kmem_ro_probe, kp);

	if (kmem_ro_probe_filter_pass(p->set))
		this_cpu_inc(*p->hits);
	return 0;
}

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

static bool kmem_ro_probe_allowed(void)
{
	return kmem_ro_may_probe() && !security_locked_down(LOCKDOWN_KPROBES);
}

/*
 * A failure of ftrace or kprobes to switch a probe, in the terms of
 * uapi/kmem_ro.h: out of memory, or EBUSY for anything else they refuse.
 */
static int kmem_ro_probe_switch_errno(int err)
{
	return err == -ENOMEM ? err : -EBUSY;
}

/* ---- the ftrace filter ---- */

/* Try @n ips on the check ops; mark the ones ftrace refuses. */
static void kmem_ro_ftrace_check(struct kmem_ro_probe_set *set, unsigned long *ips,
				 bool *bad, unsigned int n)
{
	if (!n || !ftrace_set_filter_ips(&set->check, ips, n, 0, 1))
		return;
	if (n == 1) {
		*bad = true;
		return;
	}
	kmem_ro_ftrace_check(set, ips, bad, n / 2);
	kmem_ro_ftrace_check(set, ips + n / 2, bad + n / 2, n - n / 2);
}

/* Put @n already validated entry probes in the live filter. */
static int kmem_ro_ftrace_enable(struct kmem_ro_probe_set *set,
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

static int kmem_ro_ftrace_disable(struct kmem_ro_probe_set *set,
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

/* ---- the set of one open file ---- */

static struct kmem_ro_probe_set *kmem_ro_probe_set(struct file *file, bool create)
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

/* Is @addr in dead text of the module named at @mod ("name]")? */
static bool kmem_ro_text_dead(const char *mod, unsigned long addr)
{
	size_t len = strcspn(mod, "] ");
	struct kmem_ro_dead_text *d;
	bool dead = false;

	mutex_lock(&kmem_ro_dead_lock);
	list_for_each_entry(d, &kmem_ro_dead, list) {
		if (strlen(d->name) != len || strncmp(d->name, mod, len))
			continue;
		dead = !d->end || (addr >= d->start && addr < d->end);
		break;
	}
	mutex_unlock(&kmem_ro_dead_lock);
	return dead;
}

/*
 * The kprobe optimizer (can_optimize()) decodes the whole function as
 * kallsyms sizes it, reading up to MAX_INSN_SIZE bytes past its end, with
 * no fault handler.  The last function of a module's text, or the one
 * before the text/rodata gap the kernel frees, runs up to unmapped memory:
 * a kprobe there oopses register_kprobe() (found by the fuzzer, 6.12).
 */
static bool kmem_ro_kprobe_decodable(unsigned long func, unsigned long size)
{
	unsigned long end = func + size + MAX_INSN_SIZE - 1, a;
	char c;

	for (a = func; a < end; a = (a | ~PAGE_MASK) + 1)
		if (copy_from_kernel_nofault(&c, (void *)a, 1))
			return false;
	return !copy_from_kernel_nofault(&c, (void *)end, 1);
}

/*
 * Is @addr the start of a symbol, and @offset inside it?  The kernel's
 * own name for it is recorded: aliases share an address, so the caller's
 * @name need not be the one kallsyms picks.  A data symbol passes here
 * (no exported helper tells text from data); ftrace at offset 0 and
 * kprobes (not kernel text) at others refuse it: EOPNOTSUPP, as uapi says.
 */
static int kmem_ro_probe_resolve(const struct kmem_ro_probe_spec *spec, char *name)
{
	char sym[KSYM_SYMBOL_LEN], *plus, *mod;
	unsigned long size;

	if (strnlen(spec->name, sizeof(spec->name)) == sizeof(spec->name) ||
	    (spec->flags & ~KMEM_RO_PROBE_ENABLED))
		return -EINVAL;
	sprint_symbol(sym, spec->addr);		/* "name+0x0/0xsize [module]" */
	plus = strstr(sym, "+0x0/");
	if (!plus || sscanf(plus + 5, "%lx", &size) != 1)
		return -ENOENT;
	mod = strchr(plus, '[');
	if (mod && kmem_ro_text_dead(mod + 1, spec->addr))
		return -ENOENT;
	*plus = '\0';
	strscpy(name, sym, KMEM_RO_PROBE_NAME_LEN);
	if (spec->offset >= size)
		return -EINVAL;
	if (spec->offset && !kmem_ro_kprobe_decodable(spec->addr, size))
		return -EOPNOTSUPP;
	return 0;
}

static void kmem_ro_probe_free(struct kmem_ro_probe *p)
{
	free_percpu(p->hits);
	kfree(p);
}

/* Room for one more probe in @set and in all sets together: taken, or false. */
static bool kmem_ro_probe_reserve(const struct kmem_ro_probe_set *set)
{
	long n = atomic_long_read(&kmem_ro_nr_probes);

	if (set->nr >= READ_ONCE(max_probes_per_file))
		return false;
	do {
		if (n >= (long)READ_ONCE(max_probes))
			return false;
	} while (!atomic_long_try_cmpxchg(&kmem_ro_nr_probes, &n, n + 1));
	return true;
}

/* Unhash and forget @p; the caller frees it after an RCU grace period. */
static void kmem_ro_probe_forget(struct kmem_ro_probe_set *set, struct kmem_ro_probe *p)
{
	if (!(p->flags & KMEM_RO_PROBE_GONE))	/* else unhashed already */
		rhashtable_remove_fast(&set->ht, &p->node, kmem_ro_probe_params);
	xa_erase(&set->probes, p->id);
	set->nr--;
	atomic_long_dec(&kmem_ro_nr_probes);
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

/*
 * Delete @n probes of @set, with its lock held; never fails.  Entry probes
 * leave the filter in one update, kprobes go in one batch.
 */
static void kmem_ro_probe_delete(struct kmem_ro_probe_set *set, struct kmem_ro_probe **p,
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

/*
 * One ADD step: PROBE_CHUNK specs and what becomes of them.  A spec is
 * checked (a function, not yet probed here, accepted by ftrace) before its
 * probe exists: a refused spec costs no allocation and is never hashed, so
 * nothing waits for a grace period.
 */
struct kmem_ro_probe_chunk {
	struct kmem_ro_probe_spec specs[PROBE_CHUNK];
	char names[PROBE_CHUNK][KMEM_RO_PROBE_NAME_LEN];
	s64 results[PROBE_CHUNK];
	unsigned long ips[PROBE_CHUNK];		/* entry probes, for ftrace */
	unsigned int idx[PROBE_CHUNK];
	bool bad[PROBE_CHUNK];
};

/* 0 or -errno for one spec, its kernel name in @name. */
static int kmem_ro_probe_check(struct kmem_ro_probe_set *set,
			       const struct kmem_ro_probe_spec *spec, char *name)
{
	unsigned long key = spec->addr + spec->offset;
	int err;

	err = kmem_ro_probe_resolve(spec, name);
	if (err)
		return err;
	if (rhashtable_lookup_fast(&set->ht, &key, kmem_ro_probe_params))
		return -EEXIST;
	return 0;
}

/*
 * Is the function's fentry site where ftrace would patch it: its first
 * instruction, after an ENDBR64?  A NOP5, or a call or int3 while ftrace
 * is (being) patched in.  6.1's ftrace_location() (not exported) takes any
 * record inside a function's range, so ftrace_set_filter_ips() accepts a
 * function whose only record lies further in -- an overridden __weak
 * body kallsyms folds into it (bpf_dispatcher_nop_func on 6.1), a record
 * ftrace itself marked invalid -- and the probe would never hit.
 */
static bool kmem_ro_fentry_at_start(unsigned long addr)
{
	static const u8 nop5[] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };
	u8 insn[ENDBR_INSN_SIZE + sizeof(nop5)];
	const u8 *site = insn;

	if (copy_from_kernel_nofault(insn, (void *)addr, sizeof(insn)))
		return false;
#ifdef CONFIG_X86_KERNEL_IBT
	{
		u32 first;

		/* ENDBR64, or the poison that seals one no indirect call uses */
		memcpy(&first, insn, sizeof(first));
		if (first == gen_endbr() || first == gen_endbr_poison())
			site += ENDBR_INSN_SIZE;
	}
#endif
	return !memcmp(site, nop5, sizeof(nop5)) || site[0] == 0xe8 || site[0] == 0xcc;
}

/* Ask ftrace about the chunk's entry probes in one go. */
static void kmem_ro_probe_check_entries(struct kmem_ro_probe_set *set,
					struct kmem_ro_probe_chunk *c, unsigned int n)
{
	unsigned int k = 0, i;

	for (i = 0; i < n; i++)
		if (!c->results[i] && !c->specs[i].offset &&
		    !kmem_ro_fentry_at_start(c->specs[i].addr))
			c->results[i] = -EOPNOTSUPP;
	for (i = 0; i < n; i++)
		if (!c->results[i] && !c->specs[i].offset) {
			c->ips[k] = c->specs[i].addr;
			c->bad[k] = false;
			c->idx[k++] = i;
		}
	kmem_ro_ftrace_check(set, c->ips, c->bad, k);
	for (i = 0; i < k; i++)
		if (c->bad[i])
			c->results[c->idx[i]] = -EOPNOTSUPP;
}

/*
 * register_kprobe()'s refusals in the terms of uapi/kmem_ro.h: EILSEQ is an
 * offset inside an instruction; EINVAL, once resolve() has passed, a place
 * kprobes never probes (blacklist, noinstr, jump label, static call, BUG,
 * alternative), as are an instruction it cannot step (EOPNOTSUPP, ENOSPC)
 * and an fentry site without KPROBES_ON_FTRACE (ENODEV); ENOENT is module
 * text going away.
 */
static int kmem_ro_kprobe_errno(int err)
{
	switch (err) {
	case -EILSEQ:
		return -EINVAL;
	case -EINVAL:
	case -EOPNOTSUPP:
	case -ENOSPC:
	case -ENODEV:
		return -EOPNOTSUPP;
	case -ENOENT:
		return -ENOENT;
	}
	return kmem_ro_probe_switch_errno(err);
}

/*
 * The probe for a checked spec, or -errno.  A kprobe is registered before
 * it is hashed, so a refused one is never seen by a lookup.  The same place
 * named twice in one chunk is EEXIST, found before the caps are asked.
 */
static struct kmem_ro_probe *kmem_ro_probe_new(struct kmem_ro_probe_set *set,
					       const struct kmem_ro_probe_spec *spec,
					       const char *name)
{
	unsigned long key = spec->addr + spec->offset;
	struct kmem_ro_probe *p;
	int err;

	if (rhashtable_lookup_fast(&set->ht, &key, kmem_ro_probe_params))
		return ERR_PTR(-EEXIST);
	if (!kmem_ro_probe_reserve(set))
		return ERR_PTR(-ENOSPC);
	p = kzalloc(sizeof(*p), GFP_KERNEL_ACCOUNT);
	if (!p) {
		err = -ENOMEM;
		goto out_unreserve;
	}
	p->hits = alloc_percpu_gfp(u64, GFP_KERNEL_ACCOUNT);
	if (!p->hits) {
		err = -ENOMEM;
		goto out_free;
	}
	p->set = set;
	p->addr = spec->addr;
	p->offset = spec->offset;
	p->key = spec->addr + spec->offset;
	strscpy(p->name, name, sizeof(p->name));
	if (p->offset) {
		p->flags = KMEM_RO_PROBE_KPROBE;
		p->kp.addr = (kprobe_opcode_t *)p->key;
		p->kp.pre_handler = kmem_ro_probe_kprobe_hit;
		if (!(spec->flags & KMEM_RO_PROBE_ENABLED))
			p->kp.flags = KPROBE_FLAG_DISABLED;
		err = register_kprobe(&p->kp);
		if (err) {
			err = kmem_ro_kprobe_errno(err);
			goto out_free;
		}
		if (spec->flags & KMEM_RO_PROBE_ENABLED)
			p->flags |= KMEM_RO_PROBE_ENABLED;
	}
	p->id = ++set->last_id;		/* an id is never given twice */
	err = xa_insert(&set->probes, p->id, p, GFP_KERNEL_ACCOUNT);
	if (err)
		goto out_unregister;
	err = rhashtable_lookup_insert_fast(&set->ht, &p->node, kmem_ro_probe_params);
	if (err) {
		if (err != -EEXIST)
			err = -ENOMEM;
		goto out_unid;
	}
	set->nr++;
	return p;

out_unid:
	xa_erase(&set->probes, p->id);
out_unregister:
	if (p->offset)
		unregister_kprobe(&p->kp);
out_free:
	kmem_ro_probe_free(p);
out_unreserve:
	atomic_long_dec(&kmem_ro_nr_probes);
	return ERR_PTR(err);
}

/* A probe an ADD made: its id, its spec, and whether it waits to be enabled. */
struct kmem_ro_probe_made {
	u64 id;
	u32 idx;
	bool pending;
};

/*
 * Check and make the probes of one ADD step, whose specs (from @first on)
 * are in @c, under the set's lock.  An entry probe to enable is marked
 * pending: it is enabled after the last step, with the others.
 */
static void kmem_ro_probe_add_step(struct kmem_ro_probe_set *set, struct kmem_ro_probe_chunk *c,
				   unsigned int first, unsigned int n,
				   struct kmem_ro_probe_made *made, unsigned int *nr_made)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		c->results[i] = kmem_ro_probe_check(set, &c->specs[i], c->names[i]);
	kmem_ro_probe_check_entries(set, c, n);
	for (i = 0; i < n; i++) {
		struct kmem_ro_probe_made *m = &made[*nr_made];
		struct kmem_ro_probe *p;

		if (c->results[i])
			continue;
		p = kmem_ro_probe_new(set, &c->specs[i], c->names[i]);
		if (IS_ERR(p)) {
			c->results[i] = PTR_ERR(p);
			continue;
		}
		c->results[i] = p->id;
		m->id = p->id;
		m->idx = first + i;
		m->pending = !p->offset && (c->specs[i].flags & KMEM_RO_PROBE_ENABLED);
		if (m->pending)
			WRITE_ONCE(p->flags, p->flags | PROBE_PENDING);
		(*nr_made)++;
	}
}

/*
 * Enable, in one filter update, the pending probes of an ADD.  The lock
 * was dropped between its steps: a probe may since have been deleted,
 * enabled or disabled by id or by ALL (which clears PENDING: the later
 * request wins) or gone with its module.  If ftrace refuses, the probes it
 * was asked to enable are deleted: 0 or that -errno, and only those stay
 * marked pending in @made.
 */
static int kmem_ro_probe_enable_pending(struct kmem_ro_probe_set *set,
					struct kmem_ro_probe_made *made, unsigned int n,
					struct kmem_ro_probe **enable)
{
	unsigned int i, k = 0;
	int err;

	for (i = 0; i < n; i++) {
		struct kmem_ro_probe *p;

		if (!made[i].pending)
			continue;
		p = xa_load(&set->probes, made[i].id);
		made[i].pending = false;
		if (!p || !(p->flags & PROBE_PENDING))
			continue;
		WRITE_ONCE(p->flags, p->flags & ~PROBE_PENDING);
		if (p->flags & (KMEM_RO_PROBE_ENABLED | KMEM_RO_PROBE_GONE))
			continue;
		made[i].pending = true;
		enable[k++] = p;
	}
	err = kmem_ro_ftrace_enable(set, enable, k);
	if (!err)
		return 0;
	kmem_ro_probe_delete(set, enable, k);
	return kmem_ro_probe_switch_errno(err);
}

/* Delete whatever is left of the probes an ADD made: it fails with EFAULT. */
static void kmem_ro_probe_add_undo(struct kmem_ro_probe_set *set,
				   const struct kmem_ro_probe_made *made, unsigned int n,
				   struct kmem_ro_probe **p)
{
	unsigned int i, k = 0;

	for (i = 0; i < n; i++) {
		p[k] = xa_load(&set->probes, made[i].id);
		k += !!p[k];
	}
	kmem_ro_probe_delete(set, p, k);
}

/**
 * kmem_ro_probe_add_ioctl() - KMEM_RO_IOC_PROBE_ADD
 * @file: the open device, which owns the probes
 * @uarg: user pointer to struct kmem_ro_probe_add
 *
 * Return: 0 or a negative errno as documented in uapi/kmem_ro.h.
 */
long kmem_ro_probe_add_ioctl(struct file *file, void __user *uarg)
{
	struct kmem_ro_probe_spec __user *uspecs;
	struct kmem_ro_probe_made *made = NULL;
	struct kmem_ro_probe **scratch = NULL;
	struct kmem_ro_probe_chunk *c = NULL;
	struct kmem_ro_probe_set *set;
	struct kmem_ro_probe_add a;
	unsigned int done, n, i, nr_made = 0;
	u64 usize;
	int err;

	err = kmem_ro_arg_in(&a, sizeof(a), KMEM_RO_PROBE_ADD_SIZE_VER0, uarg, &usize);
	if (err)
		return err;
	if (a.flags || a.reserved[0] || a.reserved[1] || !a.specs_addr || !a.count)
		return -EINVAL;
	if (a.count > KMEM_RO_PROBE_MAX_BATCH)
		return -E2BIG;
	if (!kmem_ro_probe_allowed())
		return -EPERM;
	set = kmem_ro_probe_set(file, true);
	if (!set)
		return -ENOMEM;
	c = kvzalloc(sizeof(*c), GFP_KERNEL_ACCOUNT);
	made = kvmalloc_array(a.count, sizeof(*made), GFP_KERNEL_ACCOUNT);
	scratch = kvmalloc_array(a.count, sizeof(*scratch), GFP_KERNEL_ACCOUNT);
	if (!c || !made || !scratch) {
		err = -ENOMEM;
		goto out_free;
	}
	uspecs = u64_to_user_ptr(a.specs_addr);

	for (done = 0; done < a.count; done += n) {
		n = min_t(unsigned int, a.count - done, PROBE_CHUNK);
		if (copy_from_user(c->specs, uspecs + done, n * sizeof(*c->specs))) {
			err = -EFAULT;
			break;
		}
		mutex_lock(&set->lock);
		kmem_ro_probe_add_step(set, c, done, n, made, &nr_made);
		mutex_unlock(&set->lock);
		for (i = 0; i < n && !err; i++)
			if (put_user(c->results[i], &uspecs[done + i].result))
				err = -EFAULT;
		if (err)
			break;
		cond_resched();
	}

	mutex_lock(&set->lock);
	if (err) {
		kmem_ro_probe_add_undo(set, made, nr_made, scratch);
		mutex_unlock(&set->lock);
		goto out_free;
	}
	/* one filter update for the whole call; a refusal shows per spec */
	err = kmem_ro_probe_enable_pending(set, made, nr_made, scratch);
	mutex_unlock(&set->lock);
	a.added = nr_made;
	for (i = 0; err && i < nr_made; i++) {
		if (!made[i].pending)
			continue;
		a.added--;
		if (put_user((s64)err, &uspecs[made[i].idx].result))
			break;
	}
	if ((err && i < nr_made) || kmem_ro_arg_out(uarg, &a, sizeof(a), usize)) {
		/* the caller cannot learn what was added: nothing was */
		mutex_lock(&set->lock);
		kmem_ro_probe_add_undo(set, made, nr_made, scratch);
		mutex_unlock(&set->lock);
		err = -EFAULT;
		goto out_free;
	}
	err = 0;
out_free:
	kvfree(scratch);
	kvfree(made);
	kvfree(c);
	return err;
}

/* ---- ENABLE, DISABLE, DEL, STATS: by id or all ---- */

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

/* Hits since the last RESET: the per-CPU counters themselves only grow. */
static u64 kmem_ro_probe_hits(const struct kmem_ro_probe *p)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(*per_cpu_ptr(p->hits, cpu));
	return sum - p->base;
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
	if ((op == PROBE_ENABLE || op == PROBE_DISABLE) && !kmem_ro_probe_allowed())
		return -EPERM;
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
		err = 0;
		break;
	case PROBE_DEL:
		kmem_ro_probe_delete(set, pk.uniq, pk.nuniq);
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

/* ---- FILTER ---- */

static void kmem_ro_probe_filter_free(struct kmem_ro_probe_filter_state *f)
{
	if (!f)
		return;
	put_pid(f->pid);
	kfree(f);
}

/* Are @a's flags, reserved fields, pid and comm well formed? */
static bool kmem_ro_probe_filter_valid(const struct kmem_ro_probe_filter *a)
{
	bool by_pid = a->flags & KMEM_RO_PROBE_FILTER_PID;
	bool by_comm = a->flags & KMEM_RO_PROBE_FILTER_COMM;

	if (a->flags & ~(KMEM_RO_PROBE_FILTER_PID | KMEM_RO_PROBE_FILTER_COMM) ||
	    a->reserved0 || a->reserved[0] || a->reserved[1])
		return false;
	if (by_pid != !!a->pid)
		return false;
	if (by_comm)
		return strnlen(a->comm, sizeof(a->comm)) < sizeof(a->comm);
	return !memchr_inv(a->comm, 0, sizeof(a->comm));
}

/*
 * The filter @a asks for, or NULL (flags 0: none).  The pid is looked up
 * in the caller's namespace (find_get_pid(): task_active_pid_ns(current))
 * and must lead a thread group; the reference keeps that very process.
 */
static struct kmem_ro_probe_filter_state *
kmem_ro_probe_filter_new(const struct kmem_ro_probe_filter *a)
{
	struct kmem_ro_probe_filter_state *f;

	if (!a->flags)
		return NULL;
	f = kzalloc(sizeof(*f), GFP_KERNEL_ACCOUNT);
	if (!f)
		return ERR_PTR(-ENOMEM);
	f->flags = a->flags;
	if (a->flags & KMEM_RO_PROBE_FILTER_PID) {
		f->pid = a->pid <= INT_MAX ? find_get_pid(a->pid) : NULL;
		if (!f->pid || !pid_has_task(f->pid, PIDTYPE_TGID)) {
			kmem_ro_probe_filter_free(f);
			return ERR_PTR(-ESRCH);
		}
		f->tgid = pid_nr(f->pid);
	}
	/* zero-padded as the kernel pads task names: the bytes past the NUL go */
	BUILD_BUG_ON(sizeof(f->comm) != TASK_COMM_LEN || sizeof(a->comm) != TASK_COMM_LEN);
	if (a->flags & KMEM_RO_PROBE_FILTER_COMM)
		strscpy_pad((char *)f->comm, a->comm, sizeof(f->comm));
	return f;
}

/**
 * kmem_ro_probe_filter_ioctl() - KMEM_RO_IOC_PROBE_FILTER
 * @file: the open device, whose probes the filter applies to
 * @uarg: user pointer to struct kmem_ro_probe_filter
 *
 * Return: 0 or a negative errno as documented in uapi/kmem_ro.h.
 */
long kmem_ro_probe_filter_ioctl(struct file *file, void __user *uarg)
{
	struct kmem_ro_probe_filter_state *f, *old;
	struct kmem_ro_probe_set *set;
	struct kmem_ro_probe_filter a;
	u64 usize;
	int err;

	err = kmem_ro_arg_in(&a, sizeof(a), KMEM_RO_PROBE_FILTER_SIZE_VER0, uarg, &usize);
	if (err)
		return err;
	if (!kmem_ro_probe_filter_valid(&a))
		return -EINVAL;
	if (!kmem_ro_probe_allowed())
		return -EPERM;
	f = kmem_ro_probe_filter_new(&a);
	if (IS_ERR(f))
		return PTR_ERR(f);
	/* written back as every argument is, before acting: EFAULT does nothing */
	err = kmem_ro_arg_out(uarg, &a, sizeof(a), usize);
	if (err) {
		kmem_ro_probe_filter_free(f);
		return err;
	}
	/* a call that fails leaves no probe set behind */
	set = kmem_ro_probe_set(file, f != NULL);
	if (!set) {		/* or clears where no filter was ever set */
		kmem_ro_probe_filter_free(f);
		return f ? -ENOMEM : 0;
	}
	mutex_lock(&set->lock);
	old = rcu_replace_pointer(set->filter, f, lockdep_is_held(&set->lock));
	mutex_unlock(&set->lock);
	/* no hit counts by the old filter once the call returns */
	synchronize_rcu();
	kmem_ro_probe_filter_free(old);
	return 0;
}

/* ---- LIST ---- */

/*
 * Where a LIST goes on after unlocking to copy a step out: the first set
 * whose serial is at most @serial (sets are newest first), from its probe
 * @id on when it is that very set.  A set or probe made meanwhile behind
 * it is not listed; one closed or deleted is not either.
 */
struct kmem_ro_probe_cursor {
	u64 serial;
	unsigned long id;
};

static void kmem_ro_probe_fill_info(struct kmem_ro_probe_info *info,
				    const struct kmem_ro_probe_set *set, struct kmem_ro_probe *p)
{
	memset(info, 0, sizeof(*info));
	info->id = p->id;
	info->addr = p->addr;
	info->offset = p->offset;
	info->flags = p->flags & PROBE_UAPI_FLAGS;
	info->owner = set->owner;
	info->hits = kmem_ro_probe_hits(p);
	strscpy(info->name, p->name, sizeof(info->name));
}

/*
 * @set's probes from @cur on into @buf (*@k of @room used so far), each
 * counted in *@count.  A @last step fills the buffer up to the caller's
 * cap and then only counts; another stops where @buf is full: false, and
 * @cur says where to go on.
 */
static bool kmem_ro_probe_list_set(struct kmem_ro_probe_set *set, struct kmem_ro_probe_cursor *cur,
				   struct kmem_ro_probe_info *buf, unsigned int room, bool last,
				   unsigned int *k, u32 *count)
{
	unsigned long id = cur->serial == set->serial ? cur->id : 0;
	struct kmem_ro_probe *p;
	bool ended = true;

	mutex_lock(&set->lock);
	xa_for_each_start(&set->probes, id, p, id) {
		if (*k < room) {
			kmem_ro_probe_fill_info(&buf[(*k)++], set, p);
		} else if (!last) {
			cur->serial = set->serial;
			cur->id = id;
			ended = false;
			break;
		}
		(*count)++;
	}
	mutex_unlock(&set->lock);
	return ended;
}

/* One LIST step (see kmem_ro_probe_list_set()) over @own or, if NULL, every set. */
static bool kmem_ro_probe_list_step(struct kmem_ro_probe_set *own, struct kmem_ro_probe_cursor *cur,
				    struct kmem_ro_probe_info *buf, unsigned int room, bool last,
				    unsigned int *k, u32 *count)
{
	struct kmem_ro_probe_set *set;
	bool ended = true;

	if (own)
		return kmem_ro_probe_list_set(own, cur, buf, room, last, k, count);
	mutex_lock(&kmem_ro_sets_lock);
	list_for_each_entry(set, &kmem_ro_sets, sets) {
		if (set->serial > cur->serial)
			continue;
		ended = kmem_ro_probe_list_set(set, cur, buf, room, last, k, count);
		if (!ended)
			break;
	}
	mutex_unlock(&kmem_ro_sets_lock);
	return ended;
}

/**
 * kmem_ro_probe_list_ioctl() - KMEM_RO_IOC_PROBE_LIST
 * @file: the open device, whose probes are listed first
 * @uarg: user pointer to struct kmem_ro_probe_list
 *
 * Return: 0 or a negative errno as documented in uapi/kmem_ro.h.
 */
long kmem_ro_probe_list_ioctl(struct file *file, void __user *uarg)
{
	struct kmem_ro_probe_cursor cur = { .serial = U64_MAX };
	struct kmem_ro_probe_info __user *ubuf;
	struct kmem_ro_probe_info *buf = NULL;
	struct kmem_ro_probe_set *own = NULL;
	struct kmem_ro_probe_list a;
	unsigned int room, k;
	u32 written = 0;
	bool ended;
	u64 usize;
	int err;

	err = kmem_ro_arg_in(&a, sizeof(a), KMEM_RO_PROBE_LIST_SIZE_VER0, uarg, &usize);
	if (err)
		return err;
	if ((a.flags & ~KMEM_RO_PROBE_LIST_ALL_FILES) || a.reserved[0] || a.reserved[1] ||
	    !a.buf_addr != !a.cap)
		return -EINVAL;
	a.count = 0;
	if (!(a.flags & KMEM_RO_PROBE_LIST_ALL_FILES)) {
		own = kmem_ro_probe_set(file, false);
		if (!own)
			goto out;
	}
	if (a.cap) {
		buf = kvmalloc_array(min_t(u32, a.cap, PROBE_CHUNK), sizeof(*buf),
				     GFP_KERNEL_ACCOUNT);
		if (!buf)
			return -ENOMEM;
	}
	ubuf = u64_to_user_ptr(a.buf_addr);
	do {
		room = min_t(u32, a.cap - written, PROBE_CHUNK);
		k = 0;
		ended = kmem_ro_probe_list_step(own, &cur, buf, room, room == a.cap - written, &k,
						&a.count);
		if (k && copy_to_user(ubuf + written, buf, k * sizeof(*buf))) {
			err = -EFAULT;
			break;
		}
		written += k;
		cond_resched();
	} while (!ended);
	kvfree(buf);
	if (err)
		return err;
out:
	return kmem_ro_arg_out(uarg, &a, sizeof(a), usize);
}

/**
 * kmem_ro_probe_count() - how many probes a file has
 * @file: the open device
 *
 * Return: the number of probes, 0 when the file never added one.
 */
unsigned int kmem_ro_probe_count(struct file *file)
{
	struct kmem_ro_probe_set *set = kmem_ro_probe_set(file, false);
	unsigned int nr;

	if (!set)
		return 0;
	mutex_lock(&set->lock);
	nr = set->nr;
	mutex_unlock(&set->lock);
	return nr;
}

/**
 * kmem_ro_probe_for_each_hits() - a file's probes and hit counts, in id order
 * @file: the open device
 * @fn: called for each probe with @arg, its index, the number of probes, its
 *	id and its hit count (summed as STATS sums it); a non-zero return
 *	ends the walk
 * @arg: passed to @fn
 *
 * The probe set is locked for the whole walk: @fn sees one consistent set
 * and may sleep, but must not call back into the file's probes.
 *
 * Return: 0, or what @fn returned to end the walk.
 */
int kmem_ro_probe_for_each_hits(struct file *file,
				int (*fn)(void *arg, unsigned int idx, unsigned int nr,
					  u64 id, u64 hits),
				void *arg)
{
	struct kmem_ro_probe_set *set = kmem_ro_probe_set(file, false);
	struct kmem_ro_probe *p;
	unsigned int idx = 0;
	unsigned long id;
	int err = 0;

	if (!set)
		return 0;
	mutex_lock(&set->lock);
	xa_for_each(&set->probes, id, p) {
		err = fn(arg, idx++, set->nr, p->id, kmem_ro_probe_hits(p));
		if (err)
			break;
	}
	mutex_unlock(&set->lock);
	return err;
}

/* ---- module unload ---- */

/*
 * Record @mod's dead text (all of it, or its init text) in place of what
 * an earlier state left; with @dead false, only forget it (a new instance).
 */
static void kmem_ro_text_died(const struct module *mod, bool dead, bool all)
{
	struct kmem_ro_dead_text *d, *tmp, *new = NULL;

	if (dead) {
		/* without memory, only the short window before ftrace forgets stays open */
		new = kzalloc(sizeof(*new), GFP_KERNEL);
		if (new) {
			strscpy(new->name, mod->name, sizeof(new->name));
			if (!all)
				kmem_ro_module_init_text(mod, &new->start, &new->end);
		}
		if (new && !all && new->start == new->end) {	/* no init text */
			kfree(new);
			return;
		}
	}
	mutex_lock(&kmem_ro_dead_lock);
	list_for_each_entry_safe(d, tmp, &kmem_ro_dead, list)
		if (!strcmp(d->name, mod->name)) {
			list_del(&d->list);
			kfree(d);
		}
	if (new)
		list_add(&new->list, &kmem_ro_dead);
	mutex_unlock(&kmem_ro_dead_lock);
}

static bool kmem_ro_probe_dies(const struct kmem_ro_probe *p, const struct module *mod,
			       bool all)
{
	if (p->flags & KMEM_RO_PROBE_GONE)
		return false;
	return all ? within_module(p->addr, mod) : within_module_init(p->addr, mod);
}

/* Take @set's probes in @mod's text (@all) or init text out of service. */
static void kmem_ro_probe_set_gone(struct kmem_ro_probe_set *set, const struct module *mod,
				   bool all)
{
	struct kmem_ro_probe **entry = NULL, *p;
	unsigned int n = 0, k = 0;
	unsigned long id;

	mutex_lock(&set->lock);
	xa_for_each(&set->probes, id, p)
		n += kmem_ro_probe_dies(p, mod, all);
	if (!n)
		goto out;
	/* one filter update for them all; without memory, one each */
	entry = kvmalloc_array(n, sizeof(*entry), GFP_KERNEL);
	xa_for_each(&set->probes, id, p) {
		if (!kmem_ro_probe_dies(p, mod, all) || p->offset ||
		    !(p->flags & KMEM_RO_PROBE_ENABLED))
			continue;
		if (entry)
			entry[k++] = p;
		else
			kmem_ro_ftrace_disable(set, &p, 1);
	}
	kmem_ro_ftrace_disable(set, entry, k);
	/* kprobes kill their own; lookups may still find these until DEL */
	xa_for_each(&set->probes, id, p) {
		if (!kmem_ro_probe_dies(p, mod, all))
			continue;
		rhashtable_remove_fast(&set->ht, &p->node, kmem_ro_probe_params);
		WRITE_ONCE(p->flags, (p->flags & ~KMEM_RO_PROBE_ENABLED) | KMEM_RO_PROBE_GONE);
	}
	kvfree(entry);
out:
	mutex_unlock(&set->lock);
}

/*
 * GOING runs before ftrace forgets the module's functions, LIVE before it
 * forgets the init functions: both while our filters can still drop them.
 */
static int kmem_ro_probe_module_cb(struct notifier_block *nb, unsigned long state,
				   void *data)
{
	struct kmem_ro_probe_set *set;
	struct module *mod = data;
	bool all = state == MODULE_STATE_GOING;

	if (state == MODULE_STATE_COMING) {
		kmem_ro_text_died(mod, false, false);
		return NOTIFY_DONE;
	}
	if (state != MODULE_STATE_LIVE && state != MODULE_STATE_GOING)
		return NOTIFY_DONE;
	/* first: an ADD from now on refuses this text; one before, we clean */
	kmem_ro_text_died(mod, true, all);
	mutex_lock(&kmem_ro_sets_lock);
	list_for_each_entry(set, &kmem_ro_sets, sets)
		kmem_ro_probe_set_gone(set, mod, all);
	mutex_unlock(&kmem_ro_sets_lock);
	return NOTIFY_DONE;
}

static struct notifier_block kmem_ro_probe_module_nb = {
	.notifier_call = kmem_ro_probe_module_cb,
};

/**
 * kmem_ro_probe_init() - follow module loads and unloads for the probes
 *
 * Return: 0 or a negative errno.
 */
int kmem_ro_probe_init(void)
{
	/* ids are xarray indices: 64 bits */
	BUILD_BUG_ON(sizeof(unsigned long) < sizeof(u64));
	return register_module_notifier(&kmem_ro_probe_module_nb);
}

/**
 * kmem_ro_probe_exit() - stop following modules; no file is open any more
 */
void kmem_ro_probe_exit(void)
{
	struct kmem_ro_dead_text *d, *tmp;

	unregister_module_notifier(&kmem_ro_probe_module_nb);
	list_for_each_entry_safe(d, tmp, &kmem_ro_dead, list)
		kfree(d);
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
	xa_for_each(&set->probes, id, p)
		kmem_ro_probe_free(p);
	atomic_long_sub(set->nr, &kmem_ro_nr_probes);
	ftrace_free_filter(&set->ops);
	ftrace_free_filter(&set->check);
	xa_destroy(&set->probes);
	/* no handler runs any more: ftrace and kprobes waited for them */
	kmem_ro_probe_filter_free(rcu_dereference_protected(set->filter, true));
	kfree(set);
}
