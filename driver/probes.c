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
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/ftrace.h>
#include <linux/idr.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/rhashtable.h>
#include <linux/sched.h>
#include <linux/security.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <asm/ibt.h>

#include <kmem_ro.h>

#include "internal.h"

/* Specs copied in per step of an ADD call: bounds the kernel buffer. */
#define PROBE_CHUNK	256

/* Internal flag: already named by the ids of the current call. */
#define PROBE_PICKED	(1U << 31)
#define PROBE_UAPI_FLAGS	(KMEM_RO_PROBE_ENABLED | KMEM_RO_PROBE_KPROBE)

struct kmem_ro_probe {
	struct rhash_head node;
	unsigned long key;		/* addr + offset */
	u64 id;
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
	struct ftrace_ops ops;		/* enabled entry probes */
	struct ftrace_ops check;	/* never registered: validates batches */
	bool ops_on;
	unsigned int ftrace_enabled;
	pid_t owner;
	struct list_head sets;
};

static const struct rhashtable_params kmem_ro_probe_params = {
	.key_len = sizeof(unsigned long),
	.key_offset = offsetof(struct kmem_ro_probe, key),
	.head_offset = offsetof(struct kmem_ro_probe, node),
	.automatic_shrinking = true,
};

/* Every file's probe set, for LIST with KMEM_RO_PROBE_LIST_ALL_FILES. */
static LIST_HEAD(kmem_ro_sets);
static DEFINE_MUTEX(kmem_ro_sets_lock);

/*
 * The ip ftrace hands us is the patched call site: the function address,
 * or just past its ENDBR64 on IBT kernels (6.12).
 */
static void notrace kmem_ro_probe_ftrace(unsigned long ip, unsigned long parent_ip,
					 struct ftrace_ops *ops,
					 struct ftrace_regs *fregs)
{
	struct kmem_ro_probe_set *set = container_of(ops, struct kmem_ro_probe_set, ops);
	struct kmem_ro_probe *p;

	p = rhashtable_lookup_fast(&set->ht, &ip, kmem_ro_probe_params);
	if (ENDBR_INSN_SIZE && (!p || p->flags & KMEM_RO_PROBE_KPROBE)) {
		ip -= ENDBR_INSN_SIZE;
		p = rhashtable_lookup_fast(&set->ht, &ip, kmem_ro_probe_params);
	}
	if (p && (READ_ONCE(p->flags) & (KMEM_RO_PROBE_ENABLED | KMEM_RO_PROBE_KPROBE)) ==
		 KMEM_RO_PROBE_ENABLED)
		this_cpu_inc(*p->hits);
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
	int err = 0;

	if (!n)
		return 0;
	ips = kvmalloc_array(n, sizeof(*ips), GFP_KERNEL);
	if (!ips)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		WRITE_ONCE(probes[i]->flags, probes[i]->flags & ~KMEM_RO_PROBE_ENABLED);
		ips[i] = probes[i]->addr;
	}
	set->ftrace_enabled -= n;
	/* never an empty filter on a registered ops: it would trace all */
	if (!set->ftrace_enabled && set->ops_on) {
		unregister_ftrace_function(&set->ops);
		set->ops_on = false;
	}
	err = ftrace_set_filter_ips(&set->ops, ips, n, 1, 0);
	kvfree(ips);
	return err;
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
	list_add(&set->sets, &kmem_ro_sets);
	file->private_data = set;
out:
	mutex_unlock(&kmem_ro_sets_lock);
	return set;
}

/*
 * Is @addr the start of a function, and @offset inside it?  The kernel's
 * own name for it is recorded: aliases share an address, so the caller's
 * @name need not be the one kallsyms picks.
 */
static int kmem_ro_probe_resolve(const struct kmem_ro_probe_spec *spec, char *name)
{
	char sym[KSYM_SYMBOL_LEN], *plus;
	unsigned long size;

	if (strnlen(spec->name, sizeof(spec->name)) == sizeof(spec->name) ||
	    (spec->flags & ~KMEM_RO_PROBE_ENABLED))
		return -EINVAL;
	sprint_symbol(sym, spec->addr);		/* "name+0x0/0xsize [module]" */
	plus = strstr(sym, "+0x0/");
	if (!plus || sscanf(plus + 5, "%lx", &size) != 1)
		return -ENOENT;
	*plus = '\0';
	strscpy(name, sym, KMEM_RO_PROBE_NAME_LEN);
	return spec->offset < size ? 0 : -EINVAL;
}

static void kmem_ro_probe_free(struct kmem_ro_probe *p)
{
	free_percpu(p->hits);
	kfree(p);
}

/* Unhash and forget @p; the caller frees it after an RCU grace period. */
static void kmem_ro_probe_forget(struct kmem_ro_probe_set *set, struct kmem_ro_probe *p)
{
	rhashtable_remove_fast(&set->ht, &p->node, kmem_ro_probe_params);
	idr_remove(&set->ids, p->id);
	set->nr--;
}

/* One ADD step: PROBE_CHUNK specs and what becomes of them. */
struct kmem_ro_probe_chunk {
	struct kmem_ro_probe_spec specs[PROBE_CHUNK];
	struct kmem_ro_probe *probes[PROBE_CHUNK];
	s64 results[PROBE_CHUNK];
	unsigned long ips[PROBE_CHUNK];
	unsigned int idx[PROBE_CHUNK];
	bool bad[PROBE_CHUNK];
	struct kmem_ro_probe *dead[PROBE_CHUNK];	/* freed after a grace period */
	unsigned int nr_dead;
};

/*
 * One spec: a new probe or -errno.  A kprobe is registered before it is
 * hashed, so a refused one is never seen by a lookup; entry probes are
 * validated for the whole chunk afterwards.
 */
static struct kmem_ro_probe *kmem_ro_probe_new(struct kmem_ro_probe_set *set,
					       const struct kmem_ro_probe_spec *spec)
{
	unsigned long key = spec->addr + spec->offset;
	struct kmem_ro_probe *p;
	int err, id;

	char name[KMEM_RO_PROBE_NAME_LEN];

	err = kmem_ro_probe_resolve(spec, name);
	if (err)
		return ERR_PTR(err);
	if (rhashtable_lookup_fast(&set->ht, &key, kmem_ro_probe_params))
		return ERR_PTR(-EEXIST);
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
	p->key = key;
	strscpy(p->name, name, sizeof(p->name));
	if (p->offset) {
		p->flags = KMEM_RO_PROBE_KPROBE;
		p->kp.addr = (kprobe_opcode_t *)key;
		p->kp.pre_handler = kmem_ro_probe_kprobe_hit;
		if (!(spec->flags & KMEM_RO_PROBE_ENABLED))
			p->kp.flags = KPROBE_FLAG_DISABLED;
		err = register_kprobe(&p->kp);
		if (err)
			goto out_free;
		if (spec->flags & KMEM_RO_PROBE_ENABLED)
			p->flags |= KMEM_RO_PROBE_ENABLED;
	}
	id = idr_alloc(&set->ids, p, 1, 0, GFP_KERNEL);
	if (id < 0) {
		err = id;
		goto out_unregister;
	}
	p->id = id;
	err = rhashtable_insert_fast(&set->ht, &p->node, kmem_ro_probe_params);
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
	/* register_kprobe(): EILSEQ is "not on an instruction boundary" */
	return ERR_PTR(err == -EILSEQ ? -EINVAL : err);
}

/* Validate the chunk's entry probes in one go; bury the refused ones. */
static void kmem_ro_probe_check_entries(struct kmem_ro_probe_set *set,
					struct kmem_ro_probe_chunk *c, unsigned int n)
{
	unsigned int k = 0, i;

	for (i = 0; i < n; i++)
		if (c->probes[i] && !c->probes[i]->offset) {
			c->ips[k] = c->probes[i]->addr;
			c->bad[k] = false;
			c->idx[k++] = i;
		}
	kmem_ro_ftrace_check(set, c->ips, c->bad, k);
	for (i = 0; i < k; i++) {
		if (!c->bad[i])
			continue;
		kmem_ro_probe_forget(set, c->probes[c->idx[i]]);
		c->dead[c->nr_dead++] = c->probes[c->idx[i]];
		c->probes[c->idx[i]] = NULL;
		c->results[c->idx[i]] = -EOPNOTSUPP;
	}
}

static void kmem_ro_probe_bury(struct kmem_ro_probe_chunk *c)
{
	if (!c->nr_dead)
		return;
	synchronize_rcu();	/* a lookup may still walk past them */
	while (c->nr_dead)
		kmem_ro_probe_free(c->dead[--c->nr_dead]);
}

static long kmem_ro_probe_add(struct file *file, void __user *uarg)
{
	struct kmem_ro_probe_spec __user *uspecs;
	struct kmem_ro_probe **enable = NULL;
	struct kmem_ro_probe_chunk *c = NULL;
	struct kmem_ro_probe_set *set;
	struct kmem_ro_probe_add a;
	unsigned int done, n, i, nr_enable = 0;
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
	c = kvzalloc(sizeof(*c), GFP_KERNEL);
	enable = kvmalloc_array(a.count, sizeof(*enable), GFP_KERNEL);
	if (!c || !enable) {
		err = -ENOMEM;
		goto out_free;
	}
	uspecs = u64_to_user_ptr(a.specs_addr);
	a.added = 0;

	mutex_lock(&set->lock);
	for (done = 0; done < a.count && !err; done += n) {
		n = min_t(unsigned int, a.count - done, PROBE_CHUNK);
		if (copy_from_user(c->specs, uspecs + done, n * sizeof(*c->specs))) {
			err = -EFAULT;
			break;
		}
		for (i = 0; i < n; i++) {
			c->probes[i] = kmem_ro_probe_new(set, &c->specs[i]);
			c->results[i] = IS_ERR(c->probes[i]) ? PTR_ERR(c->probes[i]) : 0;
			if (IS_ERR(c->probes[i]))
				c->probes[i] = NULL;
		}
		kmem_ro_probe_check_entries(set, c, n);
		kmem_ro_probe_bury(c);
		for (i = 0; i < n; i++) {
			if (!c->probes[i])
				continue;
			c->results[i] = c->probes[i]->id;
			a.added++;
			if (!c->probes[i]->offset && (c->specs[i].flags & KMEM_RO_PROBE_ENABLED))
				enable[nr_enable++] = c->probes[i];
		}
		for (i = 0; i < n && !err; i++)
			if (put_user(c->results[i], &uspecs[done + i].result))
				err = -EFAULT;
		cond_resched();
	}
	/* one filter update for the whole call */
	if (!err)
		err = kmem_ro_ftrace_enable(set, enable, nr_enable);
	mutex_unlock(&set->lock);
	if (!err)
		err = kmem_ro_arg_out(uarg, &a, sizeof(a), usize);
out_free:
	kvfree(enable);
	kvfree(c);
	return err;
}

/* ---- ENABLE, DISABLE, DEL, STATS: by id or all ---- */

enum kmem_ro_probe_op { PROBE_ENABLE, PROBE_DISABLE, PROBE_DEL, PROBE_STATS };

/* The probes an ids argument names, in order; -ENOENT at an unknown id. */
static int kmem_ro_probe_pick(struct kmem_ro_probe_set *set, struct kmem_ro_probe_ids *a,
			      struct kmem_ro_probe ***out, unsigned int *nr)
{
	struct kmem_ro_probe **picked, *p;
	unsigned int n = 0, i;
	u64 *ids = NULL;
	int id, err = 0;

	if (a->flags & KMEM_RO_PROBE_ALL) {
		picked = kvmalloc_array(max(set->nr, 1U), sizeof(*picked), GFP_KERNEL);
		if (!picked)
			return -ENOMEM;
		idr_for_each_entry(&set->ids, p, id)
			picked[n++] = p;
		goto out;
	}
	ids = kvmalloc_array(a->count, sizeof(*ids), GFP_KERNEL);
	picked = kvmalloc_array(a->count, sizeof(*picked), GFP_KERNEL);
	if (!ids || !picked) {
		err = -ENOMEM;
		goto out_free;
	}
	if (copy_from_user(ids, u64_to_user_ptr(a->ids_addr), a->count * sizeof(*ids))) {
		err = -EFAULT;
		goto out_free;
	}
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
	kvfree(ids);
out:
	*out = picked;
	*nr = n;
	return err;
out_free:
	kvfree(ids);
	kvfree(picked);
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

		if (is_on == on)
			continue;
		if (!p[i]->offset) {
			entry[k++] = p[i];
			continue;
		}
		err = on ? enable_kprobe(&p[i]->kp) : disable_kprobe(&p[i]->kp);
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

static long kmem_ro_probe_ids_ioctl(struct file *file, void __user *uarg,
				    enum kmem_ro_probe_op op)
{
	u64 valid = KMEM_RO_PROBE_ALL | (op == PROBE_STATS ? KMEM_RO_PROBE_RESET : 0);
	struct kmem_ro_probe_set *set;
	struct kmem_ro_probe **p = NULL;
	struct kmem_ro_probe_ids a;
	u64 __user *ucounts;
	unsigned int n = 0, i;
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

	mutex_lock(&set->lock);
	err = kmem_ro_probe_pick(set, &a, &p, &n);
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
		ucounts = u64_to_user_ptr(a.counts_addr);
		if (a.flags & KMEM_RO_PROBE_ALL)
			n = min(n, a.counts_cap);
		for (i = 0; i < n && (!err || err == -ENOENT); i++)
			if (put_user(kmem_ro_probe_hits(p[i], a.flags & KMEM_RO_PROBE_RESET),
				     &ucounts[i]))
				err = -EFAULT;
		if (a.flags & KMEM_RO_PROBE_ALL)
			n = set->nr;
		break;
	}
	mutex_unlock(&set->lock);
	kvfree(p);
	a.done = n;
	if (!err)
		err = kmem_ro_arg_out(uarg, &a, sizeof(a), usize);
	else if (err == -ENOENT)	/* still say how far it got */
		kmem_ro_arg_out(uarg, &a, sizeof(a), usize);
	return err;
}

/* ---- LIST ---- */

static int kmem_ro_probe_list_set(struct kmem_ro_probe_set *set,
				  struct kmem_ro_probe_info __user *ubuf, u32 cap, u32 *count)
{
	struct kmem_ro_probe_info info;
	struct kmem_ro_probe *p;
	int id, err = 0;

	mutex_lock(&set->lock);
	idr_for_each_entry(&set->ids, p, id) {
		if (*count < cap) {
			memset(&info, 0, sizeof(info));
			info.id = p->id;
			info.addr = p->addr;
			info.offset = p->offset;
			info.flags = p->flags & PROBE_UAPI_FLAGS;
			info.owner = set->owner;
			info.hits = kmem_ro_probe_hits(p, false);
			strscpy(info.name, p->name, sizeof(info.name));
			if (copy_to_user(&ubuf[*count], &info, sizeof(info))) {
				err = -EFAULT;
				break;
			}
		}
		(*count)++;
	}
	mutex_unlock(&set->lock);
	return err;
}

static long kmem_ro_probe_list(struct file *file, void __user *uarg)
{
	struct kmem_ro_probe_list a;
	struct kmem_ro_probe_set *set;
	u64 usize;
	int err;

	err = kmem_ro_arg_in(&a, sizeof(a), KMEM_RO_PROBE_LIST_SIZE_VER0, uarg, &usize);
	if (err)
		return err;
	if ((a.flags & ~KMEM_RO_PROBE_LIST_ALL_FILES) || a.reserved[0] || a.reserved[1] ||
	    !a.buf_addr != !a.cap)
		return -EINVAL;
	a.count = 0;
	if (a.flags & KMEM_RO_PROBE_LIST_ALL_FILES) {
		mutex_lock(&kmem_ro_sets_lock);
		list_for_each_entry(set, &kmem_ro_sets, sets) {
			err = kmem_ro_probe_list_set(set, u64_to_user_ptr(a.buf_addr), a.cap, &a.count);
			if (err)
				break;
		}
		mutex_unlock(&kmem_ro_sets_lock);
	} else {
		set = kmem_ro_probe_set(file, false);
		if (set)
			err = kmem_ro_probe_list_set(set, u64_to_user_ptr(a.buf_addr), a.cap,
						     &a.count);
	}
	if (err)
		return err;
	return kmem_ro_arg_out(uarg, &a, sizeof(a), usize);
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
