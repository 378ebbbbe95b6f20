// SPDX-License-Identifier: GPL-2.0
/*
 * kmem_ro - the probes' hit path: the ftrace callback of entry probes, the
 * kprobe handler of the others, and the per-CPU counts they bump.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "probe.h"

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

/**
 * kmem_ro_probe_ftrace() - the ftrace callback of a file's entry probes
 * @ip: the traced call site
 * @parent_ip: its caller
 * @ops: the set's ops
 * @fregs: unused
 *
 * The ip ftrace hands us is the patched call site: the function address,
 * or just past its ENDBR64 on IBT kernels (6.12).  Everything the callback
 * calls may be probed too: the recursion lock comes first.  A hit where
 * RCU is not watching (idle, entry code) is not counted: synchronize_rcu()
 * would not wait for that lookup before a deleted probe is freed.
 */
void notrace kmem_ro_probe_ftrace(unsigned long ip, unsigned long parent_ip,
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

/**
 * kmem_ro_probe_kprobe_hit() - the pre-handler of a probe at an offset
 * @kp: the probe's kprobe
 * @regs: unused
 *
 * kprobe handlers run with preemption off: an RCU reader of the filter.
 *
 * Return: 0, as kprobes asks of a handler that did not change the ip.
 */
int kmem_ro_probe_kprobe_hit(struct kprobe *kp, struct pt_regs *regs)
{
	struct kmem_ro_probe *p = container_of(kp, struct kmem_ro_probe, kp);

	if (kmem_ro_probe_filter_pass(p->set))
		this_cpu_inc(*p->hits);
	return 0;
}

/**
 * kmem_ro_probe_hits() - a probe's hits since its last RESET
 * @p: the probe
 *
 * The per-CPU counters themselves only grow; RESET moves the base.
 *
 * Return: the count.
 */
u64 kmem_ro_probe_hits(const struct kmem_ro_probe *p)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(*per_cpu_ptr(p->hits, cpu));
	return sum - p->base;
}
