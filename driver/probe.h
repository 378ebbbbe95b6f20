/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmem_ro - bulk probes: what the probe files share (probes.c: the set of
 * a file, caps, deletion and release; probe_hit.c: the hit path;
 * probe_ftrace.c: the ftrace filter; probe_add.c: ADD; probe_ids.c:
 * ENABLE, DISABLE, DEL, STATS; probe_list.c: LIST; probe_filter.c:
 * FILTER; probe_module.c: module unload).  See probes.c for the design.
 */
#ifndef KMEM_RO_PROBE_H
#define KMEM_RO_PROBE_H

#include <linux/atomic.h>
#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/ftrace.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
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
/* Made without CAP_PERFMON or CAP_SYS_ADMIN (probe_group): charged to @uid. */
#define PROBE_GRANTED	(1U << 28)
#define PROBE_UAPI_FLAGS	(KMEM_RO_PROBE_ENABLED | KMEM_RO_PROBE_KPROBE | KMEM_RO_PROBE_GONE)

struct kmem_ro_probe {
	struct rhash_head node;
	unsigned long key;		/* addr + offset */
	u64 id;
	unsigned long addr;
	u32 offset;
	u32 flags;			/* KMEM_RO_PROBE_ENABLED, _KPROBE, _GONE */
	kuid_t uid;			/* PROBE_GRANTED: whose quota it takes */
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
static inline int notrace kmem_ro_probe_cmp(struct rhashtable_compare_arg *arg, const void *obj)
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
 * Every file's probe set, for LIST with KMEM_RO_PROBE_LIST_ALL_FILES;
 * added at the head, so their serials fall along the list (probes.c).
 */
extern struct list_head kmem_ro_sets;
extern struct mutex kmem_ro_sets_lock;

/* probes.c */
bool kmem_ro_probe_allowed(void);
int kmem_ro_probe_switch_errno(int err);
struct kmem_ro_probe_set *kmem_ro_probe_set(struct file *file, bool create);
void kmem_ro_probe_free(struct kmem_ro_probe *p);
int kmem_ro_probe_reserve(const struct kmem_ro_probe_set *set,
			  const struct kmem_ro_probe_caller *who);
void kmem_ro_probe_unreserve(bool granted, kuid_t uid);
void kmem_ro_probe_delete(struct kmem_ro_probe_set *set, struct kmem_ro_probe **p,
			  unsigned int n);

/* probe_hit.c */
void kmem_ro_probe_ftrace(unsigned long ip, unsigned long parent_ip,
			  struct ftrace_ops *ops, struct ftrace_regs *fregs);
int kmem_ro_probe_kprobe_hit(struct kprobe *kp, struct pt_regs *regs);
u64 kmem_ro_probe_hits(const struct kmem_ro_probe *p);

/* probe_ftrace.c */
void kmem_ro_ftrace_check(struct kmem_ro_probe_set *set, unsigned long *ips,
			  int *err, unsigned int n);
int kmem_ro_ftrace_enable(struct kmem_ro_probe_set *set,
			  struct kmem_ro_probe **probes, unsigned int n);
int kmem_ro_ftrace_disable(struct kmem_ro_probe_set *set,
			   struct kmem_ro_probe **probes, unsigned int n);

/* probe_filter.c */
void kmem_ro_probe_filter_free(struct kmem_ro_probe_filter_state *f);

/* probe_user.c */
int kmem_ro_probe_user_charge(kuid_t uid);
void kmem_ro_probe_user_uncharge(kuid_t uid);
void kmem_ro_probe_user_exit(void);

/* probe_module.c */
bool kmem_ro_text_dead(const char *mod, unsigned long addr);

#endif /* KMEM_RO_PROBE_H */
