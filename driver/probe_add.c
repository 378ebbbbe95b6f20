// SPDX-License-Identifier: GPL-2.0
/*
 * kmem_ro - KMEM_RO_IOC_PROBE_ADD: specs resolved to functions, checked
 * and made into probes in steps of PROBE_CHUNK, entry probes enabled in
 * one filter update at the end.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "probe.h"

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
	int err[PROBE_CHUNK];
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
			c->err[k] = 0;
			c->idx[k++] = i;
		}
	kmem_ro_ftrace_check(set, c->ips, c->err, k);
	for (i = 0; i < k; i++)
		if (c->err[i])
			c->results[c->idx[i]] = c->err[i];
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
					       const char *name,
					       const struct kmem_ro_probe_caller *who)
{
	unsigned long key = spec->addr + spec->offset;
	struct kmem_ro_probe *p;
	int err;

	if (rhashtable_lookup_fast(&set->ht, &key, kmem_ro_probe_params))
		return ERR_PTR(-EEXIST);
	err = kmem_ro_probe_reserve(set, who);
	if (err)
		return ERR_PTR(err);
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
	if (who->granted) {
		p->flags |= PROBE_GRANTED;
		p->uid = who->uid;
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
	kmem_ro_probe_unreserve(who->granted, who->uid);
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
				   const struct kmem_ro_probe_caller *who,
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
		/* killed: the call fails and undoes what it made */
		if (fatal_signal_pending(current)) {
			c->results[i] = -EINTR;
			continue;
		}
		p = kmem_ro_probe_new(set, &c->specs[i], c->names[i], who);
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
	struct kmem_ro_probe_caller who;
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
	err = kmem_ro_probe_caller(&who, true);
	if (err)
		return err;
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
		if (kmem_ro_probe_caller_revoked(&who))
			err = -EPERM;
		else
			kmem_ro_probe_add_step(set, c, done, n, &who, made, &nr_made);
		mutex_unlock(&set->lock);
		if (!err && fatal_signal_pending(current))
			err = -EINTR;
		for (i = 0; i < n && !err; i++)
			if (put_user(c->results[i], &uspecs[done + i].result))
				err = -EFAULT;
		if (err)
			break;
		cond_resched();
	}

	mutex_lock(&set->lock);
	if (!err && kmem_ro_probe_caller_revoked(&who))
		err = -EPERM;
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
