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
 * kprobes.  A filter must never become empty while its ops is registered
 * (an empty filter traces every function), so the ops is unregistered
 * before its last probe leaves the filter.
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

#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/ftrace.h>
#include <linux/idr.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/rhashtable.h>
#include <linux/sched.h>
#include <linux/security.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/version.h>
#include <asm/ibt.h>
#include <asm/insn.h>

#include <kmem_ro.h>

#include "internal.h"

/* Specs copied in per step of an ADD call: bounds the kernel buffer. */
#define PROBE_CHUNK	256

/* Internal flags: already named by the ids of the current call; */
#define PROBE_PICKED	(1U << 31)
/* an ADD will enable it once all its specs are in, unless switched before. */
#define PROBE_PENDING	(1U << 30)
#define PROBE_UAPI_FLAGS	(KMEM_RO_PROBE_ENABLED | KMEM_RO_PROBE_KPROBE | KMEM_RO_PROBE_GONE)

struct kmem_ro_probe {
	struct rhash_head node;
	unsigned long key;		/* addr + offset */
	u64 id;
	u64 gen;			/* tells it from a later probe with its id */
	unsigned long addr;
	u32 offset;
	u32 flags;			/* KMEM_RO_PROBE_ENABLED, _KPROBE */
	u64 __percpu *hits;
	struct kprobe kp;
	char name[KMEM_RO_PROBE_NAME_LEN];
};

struct kmem_ro_probe_set {
	struct mutex lock;
	struct rhashtable ht;
	struct idr ids;			/* id -> probe, walked in id order */
	unsigned int nr;
	u64 gens;			/* probes ever made here */
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
	if (!rcu_is_watching())
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

static int kmem_ro_probe_kprobe_hit(struct kprobe *kp, struct pt_regs *regs)
{
	this_cpu_inc(*container_of(kp, struct kmem_ro_probe, kp)->hits);
	return 0;
}

static bool kmem_ro_probe_allowed(void)
{
	return (capable(CAP_PERFMON) || capable(CAP_SYS_ADMIN)) &&
	       !security_locked_down(LOCKDOWN_KPROBES);
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
	set = kzalloc(sizeof(*set), GFP_KERNEL);
	if (!set)
		goto out;
	if (rhashtable_init(&set->ht, &kmem_ro_probe_params)) {
		kfree(set);
		set = NULL;
		goto out;
	}
	mutex_init(&set->lock);
	idr_init(&set->ids);
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
 * Is @addr the start of a function, and @offset inside it?  The kernel's
 * own name for it is recorded: aliases share an address, so the caller's
 * @name need not be the one kallsyms picks.
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

/* Unhash and forget @p; the caller frees it after an RCU grace period. */
static void kmem_ro_probe_forget(struct kmem_ro_probe_set *set, struct kmem_ro_probe *p)
{
	if (!(p->flags & KMEM_RO_PROBE_GONE))	/* else unhashed already */
		rhashtable_remove_fast(&set->ht, &p->node, kmem_ro_probe_params);
	idr_remove(&set->ids, p->id);
	set->nr--;
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

/* Ask ftrace about the chunk's entry probes in one go. */
static void kmem_ro_probe_check_entries(struct kmem_ro_probe_set *set,
					struct kmem_ro_probe_chunk *c, unsigned int n)
{
	unsigned int k = 0, i;

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
 * alternative).
 */
static int kmem_ro_kprobe_errno(int err)
{
	switch (err) {
	case -EILSEQ:
		return -EINVAL;
	case -EINVAL:
		return -EOPNOTSUPP;
	}
	return err;
}

/*
 * The probe for a checked spec, or -errno.  A kprobe is registered before
 * it is hashed, so a refused one is never seen by a lookup.  EEXIST here is
 * the same place named twice in one chunk.
 */
static struct kmem_ro_probe *kmem_ro_probe_new(struct kmem_ro_probe_set *set,
					       const struct kmem_ro_probe_spec *spec,
					       const char *name)
{
	struct kmem_ro_probe *p;
	int err, id;

	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return ERR_PTR(-ENOMEM);
	p->hits = alloc_percpu(u64);
	if (!p->hits) {
		err = -ENOMEM;
		goto out_free;
	}
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
	id = idr_alloc(&set->ids, p, 1, 0, GFP_KERNEL);
	if (id < 0) {
		err = id;
		goto out_unregister;
	}
	p->id = id;
	p->gen = ++set->gens;
	err = rhashtable_lookup_insert_fast(&set->ht, &p->node, kmem_ro_probe_params);
	if (err)
		goto out_unid;
	set->nr++;
	return p;

out_unid:
	idr_remove(&set->ids, id);
out_unregister:
	if (p->offset)
		unregister_kprobe(&p->kp);
out_free:
	kmem_ro_probe_free(p);
	return ERR_PTR(err);
}

/*
 * Check and make the probes of one ADD step, whose specs are in @c, under
 * the set's lock.  An entry probe to enable is marked pending and its id
 * kept in @pending: it is enabled after the last step, with the others.
 */
static void kmem_ro_probe_add_step(struct kmem_ro_probe_set *set, struct kmem_ro_probe_chunk *c,
				   unsigned int n, int *pending, unsigned int *nr_pending,
				   u32 *added)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		c->results[i] = kmem_ro_probe_check(set, &c->specs[i], c->names[i]);
	kmem_ro_probe_check_entries(set, c, n);
	for (i = 0; i < n; i++) {
		struct kmem_ro_probe *p;

		if (c->results[i])
			continue;
		p = kmem_ro_probe_new(set, &c->specs[i], c->names[i]);
		if (IS_ERR(p)) {
			c->results[i] = PTR_ERR(p);
			continue;
		}
		c->results[i] = p->id;
		(*added)++;
		if (!p->offset && (c->specs[i].flags & KMEM_RO_PROBE_ENABLED)) {
			WRITE_ONCE(p->flags, p->flags | PROBE_PENDING);
			pending[(*nr_pending)++] = p->id;
		}
	}
}

/*
 * Enable, in one filter update, the pending probes of an ADD.  The lock
 * was dropped between its steps: a probe may since have been deleted (and
 * its id given to another), enabled or disabled by id or by ALL (which
 * clears PENDING: the later request wins) or gone with its module.
 */
static int kmem_ro_probe_enable_pending(struct kmem_ro_probe_set *set, const int *pending,
					unsigned int n, struct kmem_ro_probe **enable)
{
	unsigned int i, k = 0;

	for (i = 0; i < n; i++) {
		struct kmem_ro_probe *p = idr_find(&set->ids, pending[i]);

		if (!p || !(p->flags & PROBE_PENDING))
			continue;
		WRITE_ONCE(p->flags, p->flags & ~PROBE_PENDING);
		if (!(p->flags & (KMEM_RO_PROBE_ENABLED | KMEM_RO_PROBE_GONE)))
			enable[k++] = p;
	}
	return kmem_ro_ftrace_enable(set, enable, k);
}

static long kmem_ro_probe_add(struct file *file, void __user *uarg)
{
	struct kmem_ro_probe_spec __user *uspecs;
	struct kmem_ro_probe **enable = NULL;
	struct kmem_ro_probe_chunk *c = NULL;
	struct kmem_ro_probe_set *set;
	struct kmem_ro_probe_add a;
	unsigned int done, n, i, nr_pending = 0;
	int *pending = NULL;
	u64 usize;
	int err, ret;

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
	c = kvzalloc(sizeof(*c), GFP_KERNEL);
	pending = kvmalloc_array(a.count, sizeof(*pending), GFP_KERNEL);
	enable = kvmalloc_array(a.count, sizeof(*enable), GFP_KERNEL);
	if (!c || !pending || !enable) {
		err = -ENOMEM;
		goto out_free;
	}
	uspecs = u64_to_user_ptr(a.specs_addr);
	a.added = 0;

	for (done = 0; done < a.count && !err; done += n) {
		n = min_t(unsigned int, a.count - done, PROBE_CHUNK);
		if (copy_from_user(c->specs, uspecs + done, n * sizeof(*c->specs))) {
			err = -EFAULT;
			break;
		}
		mutex_lock(&set->lock);
		kmem_ro_probe_add_step(set, c, n, pending, &nr_pending, &a.added);
		mutex_unlock(&set->lock);
		for (i = 0; i < n && !err; i++)
			if (put_user(c->results[i], &uspecs[done + i].result))
				err = -EFAULT;
		cond_resched();
	}
	/*
	 * One filter update for the whole call, also after an EFAULT: the
	 * probes added so far stay (LIST shows them) and must be in the state
	 * their specs asked for, as kprobes already are.
	 */
	mutex_lock(&set->lock);
	ret = kmem_ro_probe_enable_pending(set, pending, nr_pending, enable);
	mutex_unlock(&set->lock);
	if (!err)
		err = ret;
	if (!err)
		err = kmem_ro_arg_out(uarg, &a, sizeof(a), usize);
out_free:
	kvfree(enable);
	kvfree(pending);
	kvfree(c);
	return err;
}

/* ---- ENABLE, DISABLE, DEL, STATS: by id or all ---- */

enum kmem_ro_probe_op { PROBE_ENABLE, PROBE_DISABLE, PROBE_DEL, PROBE_STATS };

/*
 * The probes an ids argument names (@ids, copied in already), in order;
 * -ENOENT at an unknown id.
 */
static int kmem_ro_probe_pick(struct kmem_ro_probe_set *set, const struct kmem_ro_probe_ids *a,
			      const u64 *ids, struct kmem_ro_probe ***out, unsigned int *nr)
{
	struct kmem_ro_probe **picked, *p;
	unsigned int n = 0, i;
	int id, err = 0;

	if (a->flags & KMEM_RO_PROBE_ALL) {
		picked = kvmalloc_array(max(set->nr, 1U), sizeof(*picked), GFP_KERNEL);
		if (!picked)
			return -ENOMEM;
		idr_for_each_entry(&set->ids, p, id)
			picked[n++] = p;
		goto out;
	}
	picked = kvmalloc_array(a->count, sizeof(*picked), GFP_KERNEL);
	if (!picked)
		return -ENOMEM;
	for (i = 0; i < a->count; i++) {
		p = ids[i] <= INT_MAX ? idr_find(&set->ids, ids[i]) : NULL;
		if (!p) {
			err = -ENOENT;
			break;
		}
		if (p->flags & PROBE_PICKED)	/* an id named twice acts once */
			continue;
		p->flags |= PROBE_PICKED;
		picked[n++] = p;
	}
	for (i = 0; i < n; i++)
		picked[i]->flags &= ~PROBE_PICKED;
out:
	*out = picked;
	*nr = n;
	return err;
}

static u64 kmem_ro_probe_hits(struct kmem_ro_probe *p, bool reset)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu) {
		sum += *per_cpu_ptr(p->hits, cpu);
		if (reset)
			*per_cpu_ptr(p->hits, cpu) = 0;
	}
	return sum;
}

/* Enable or disable @n probes: entry probes in one filter update. */
static int kmem_ro_probe_switch(struct kmem_ro_probe_set *set, struct kmem_ro_probe **p,
				unsigned int n, bool on)
{
	struct kmem_ro_probe **entry;
	unsigned int i, k = 0;
	int err = 0;

	entry = kvmalloc_array(max(n, 1U), sizeof(*entry), GFP_KERNEL);
	if (!entry)
		return -ENOMEM;
	for (i = 0; i < n && !err; i++) {
		bool is_on = p[i]->flags & KMEM_RO_PROBE_ENABLED;

		/* this request comes after the ADD that made it pending */
		WRITE_ONCE(p[i]->flags, p[i]->flags & ~PROBE_PENDING);
		if (is_on == on || (p[i]->flags & KMEM_RO_PROBE_GONE))
			continue;
		if (!p[i]->offset) {
			entry[k++] = p[i];
			continue;
		}
		err = on ? enable_kprobe(&p[i]->kp) : disable_kprobe(&p[i]->kp);
		/*
		 * kprobes' module notifier may run before ours: its module is
		 * going and ours marks the probe gone next, not an error.
		 */
		if (err && kprobe_gone(&p[i]->kp)) {
			err = 0;
			continue;
		}
		if (!err)
			p[i]->flags ^= KMEM_RO_PROBE_ENABLED;
	}
	if (!err)
		err = on ? kmem_ro_ftrace_enable(set, entry, k) :
			   kmem_ro_ftrace_disable(set, entry, k);
	kvfree(entry);
	return err;
}

static int kmem_ro_probe_delete(struct kmem_ro_probe_set *set, struct kmem_ro_probe **p,
				unsigned int n)
{
	unsigned int i;
	int err;

	err = kmem_ro_probe_switch(set, p, n, false);
	if (err)
		return err;
	for (i = 0; i < n; i++) {
		if (p[i]->offset)
			unregister_kprobe(&p[i]->kp);
		kmem_ro_probe_forget(set, p[i]);
	}
	synchronize_rcu();	/* ftrace callbacks run with preemption off */
	for (i = 0; i < n; i++)
		kmem_ro_probe_free(p[i]);
	return 0;
}

/*
 * The counts a STATS read, to copy out once unlocked, and, with RESET,
 * which probes they came from: if the copy fails, they get them back.
 */
struct kmem_ro_probe_counts {
	u64 *counts;
	u64 *gens;
	int *ids;
	unsigned int n;
};

static void kmem_ro_probe_counts_free(struct kmem_ro_probe_counts *c)
{
	kvfree(c->counts);
	kvfree(c->gens);
	kvfree(c->ids);
}

static int kmem_ro_probe_counts_take(struct kmem_ro_probe_counts *c, struct kmem_ro_probe **p,
				     unsigned int n, bool reset)
{
	unsigned int i;

	c->counts = kvmalloc_array(max(n, 1U), sizeof(*c->counts), GFP_KERNEL);
	if (reset) {
		c->gens = kvmalloc_array(max(n, 1U), sizeof(*c->gens), GFP_KERNEL);
		c->ids = kvmalloc_array(max(n, 1U), sizeof(*c->ids), GFP_KERNEL);
	}
	if (!c->counts || (reset && (!c->gens || !c->ids)))
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		c->counts[i] = kmem_ro_probe_hits(p[i], reset);
		if (reset) {
			c->gens[i] = p[i]->gen;
			c->ids[i] = p[i]->id;
		}
	}
	c->n = n;
	return 0;
}

/* A RESET whose counts did not reach the user: add them back. */
static void kmem_ro_probe_counts_give_back(struct kmem_ro_probe_set *set,
					   const struct kmem_ro_probe_counts *c)
{
	struct kmem_ro_probe *p;
	unsigned int i;

	mutex_lock(&set->lock);
	for (i = 0; i < c->n; i++) {
		p = idr_find(&set->ids, c->ids[i]);
		if (p && p->gen == c->gens[i])		/* not deleted since */
			this_cpu_add(*p->hits, c->counts[i]);
	}
	mutex_unlock(&set->lock);
}

static long kmem_ro_probe_ids_ioctl(struct file *file, void __user *uarg,
				    enum kmem_ro_probe_op op)
{
	u64 valid = KMEM_RO_PROBE_ALL | (op == PROBE_STATS ? KMEM_RO_PROBE_RESET : 0);
	struct kmem_ro_probe_counts counts = { };
	struct kmem_ro_probe_set *set;
	struct kmem_ro_probe **p = NULL;
	struct kmem_ro_probe_ids a;
	bool reset = false;
	unsigned int n = 0;
	u64 *ids = NULL;
	u64 usize;
	int err;

	err = kmem_ro_arg_in(&a, sizeof(a), KMEM_RO_PROBE_IDS_SIZE_VER0, uarg, &usize);
	if (err)
		return err;
	if ((a.flags & ~valid) || a.reserved0 || a.reserved[0] || a.reserved[1])
		return -EINVAL;
	if (a.flags & KMEM_RO_PROBE_ALL ? a.ids_addr || a.count : !a.ids_addr || !a.count)
		return -EINVAL;
	if (op == PROBE_STATS ? !a.counts_addr : a.counts_addr || a.counts_cap)
		return -EINVAL;
	if (a.count > KMEM_RO_PROBE_MAX_BATCH)
		return -E2BIG;
	if ((op == PROBE_ENABLE || op == PROBE_DISABLE) && !kmem_ro_probe_allowed())
		return -EPERM;
	set = kmem_ro_probe_set(file, false);
	if (!set) {		/* no probe was ever added here */
		if (!(a.flags & KMEM_RO_PROBE_ALL))
			return -ENOENT;
		a.done = 0;
		return kmem_ro_arg_out(uarg, &a, sizeof(a), usize);
	}
	if (!(a.flags & KMEM_RO_PROBE_ALL)) {
		ids = vmemdup_array_user(u64_to_user_ptr(a.ids_addr), a.count, sizeof(*ids));
		if (IS_ERR(ids))
			return PTR_ERR(ids);
	}

	mutex_lock(&set->lock);
	err = kmem_ro_probe_pick(set, &a, ids, &p, &n);
	switch (op) {
	case PROBE_ENABLE:
	case PROBE_DISABLE:
		if (!err || err == -ENOENT) {
			int e = kmem_ro_probe_switch(set, p, n, op == PROBE_ENABLE);

			err = e ?: err;
		}
		break;
	case PROBE_DEL:
		if (!err || err == -ENOENT) {
			int e = kmem_ro_probe_delete(set, p, n);

			err = e ?: err;
		}
		break;
	case PROBE_STATS:
		reset = a.flags & KMEM_RO_PROBE_RESET;
		if (a.flags & KMEM_RO_PROBE_ALL)
			n = min(n, a.counts_cap);
		if (!err || err == -ENOENT) {
			int e = kmem_ro_probe_counts_take(&counts, p, n, reset);

			err = e ?: err;
		}
		if (a.flags & KMEM_RO_PROBE_ALL)
			n = set->nr;
		break;
	}
	mutex_unlock(&set->lock);
	if (counts.n && copy_to_user(u64_to_user_ptr(a.counts_addr), counts.counts,
				     counts.n * sizeof(*counts.counts))) {
		if (reset)
			kmem_ro_probe_counts_give_back(set, &counts);
		err = -EFAULT;
	}
	kmem_ro_probe_counts_free(&counts);
	kvfree(p);
	kvfree(ids);
	a.done = n;
	if (!err)
		err = kmem_ro_arg_out(uarg, &a, sizeof(a), usize);
	else if (err == -ENOENT)	/* still say how far it got */
		kmem_ro_arg_out(uarg, &a, sizeof(a), usize);
	return err;
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
	int id;
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
	info->hits = kmem_ro_probe_hits(p, false);
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
	int id = cur->serial == set->serial ? cur->id : 0;
	struct kmem_ro_probe *p;
	bool ended = true;

	mutex_lock(&set->lock);
	for (; (p = idr_get_next(&set->ids, &id)); id += 1U) {
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

static long kmem_ro_probe_list(struct file *file, void __user *uarg)
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
		buf = kvmalloc_array(min_t(u32, a.cap, PROBE_CHUNK), sizeof(*buf), GFP_KERNEL);
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
	int id, err = 0;

	if (!set)
		return 0;
	mutex_lock(&set->lock);
	idr_for_each_entry(&set->ids, p, id) {
		err = fn(arg, idx++, set->nr, p->id, kmem_ro_probe_hits(p, false));
		if (err)
			break;
	}
	mutex_unlock(&set->lock);
	return err;
}

/* ---- module unload ---- */

/* Where @mod's init text was: dead once the module is live. */
static void kmem_ro_mod_init_text(const struct module *mod, unsigned long *start,
				  unsigned long *end)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 4, 0)
	*start = (unsigned long)mod->mem[MOD_INIT_TEXT].base;
	*end = *start + mod->mem[MOD_INIT_TEXT].size;
#else
	*start = (unsigned long)mod->init_layout.base;
	*end = *start + mod->init_layout.size;
#endif
}

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
				kmem_ro_mod_init_text(mod, &new->start, &new->end);
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
	int id;

	mutex_lock(&set->lock);
	idr_for_each_entry(&set->ids, p, id)
		n += kmem_ro_probe_dies(p, mod, all);
	if (!n)
		goto out;
	/* one filter update for them all; without memory, one each */
	entry = kvmalloc_array(n, sizeof(*entry), GFP_KERNEL);
	idr_for_each_entry(&set->ids, p, id) {
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
	idr_for_each_entry(&set->ids, p, id) {
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
 * kmem_ro_probe_ioctl() - the KMEM_RO_IOC_PROBE_* ioctls
 * @file: the open device, which owns the probes
 * @cmd: ioctl number
 * @uarg: user pointer to the command's struct
 *
 * Return: 0 or a negative errno as documented in uapi/kmem_ro.h,
 * -ENOIOCTLCMD for another command.
 */
long kmem_ro_probe_ioctl(struct file *file, unsigned int cmd, void __user *uarg)
{
	switch (cmd) {
	case KMEM_RO_IOC_PROBE_ADD:
		return kmem_ro_probe_add(file, uarg);
	case KMEM_RO_IOC_PROBE_ENABLE:
		return kmem_ro_probe_ids_ioctl(file, uarg, PROBE_ENABLE);
	case KMEM_RO_IOC_PROBE_DISABLE:
		return kmem_ro_probe_ids_ioctl(file, uarg, PROBE_DISABLE);
	case KMEM_RO_IOC_PROBE_DEL:
		return kmem_ro_probe_ids_ioctl(file, uarg, PROBE_DEL);
	case KMEM_RO_IOC_PROBE_STATS:
		return kmem_ro_probe_ids_ioctl(file, uarg, PROBE_STATS);
	case KMEM_RO_IOC_PROBE_LIST:
		return kmem_ro_probe_list(file, uarg);
	}
	return -ENOIOCTLCMD;
}

/**
 * kmem_ro_probe_release() - remove every probe of a closing file
 * @file: the file being released
 */
void kmem_ro_probe_release(struct file *file)
{
	struct kmem_ro_probe_set *set = file->private_data;
	struct kmem_ro_probe *p;
	int id;

	if (!set)
		return;
	mutex_lock(&kmem_ro_sets_lock);
	list_del(&set->sets);
	mutex_unlock(&kmem_ro_sets_lock);

	/* no callback after this returns (ftrace waits for them) */
	if (set->ops_on)
		unregister_ftrace_function(&set->ops);
	idr_for_each_entry(&set->ids, p, id)
		if (p->offset)
			unregister_kprobe(&p->kp);
	idr_for_each_entry(&set->ids, p, id)
		kmem_ro_probe_free(p);
	ftrace_free_filter(&set->ops);
	ftrace_free_filter(&set->check);
	idr_destroy(&set->ids);
	rhashtable_destroy(&set->ht);
	kfree(set);
}
