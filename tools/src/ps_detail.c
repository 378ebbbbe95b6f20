// SPDX-License-Identifier: GPL-2.0
/*
 * What lies behind a task's signal and mm pointers, read in batches once
 * the task list is taken (one READV per batch on the device backends,
 * reads on kcore and mmap):
 *
 *  - threads: each leader's signal->thread_head, linked through
 *    task_struct.thread_node (for_each_thread() in
 *    include/linux/sched/signal.h; the only thread list since 6.7), one
 *    batch per step down all the lists at once;
 *  - Threads: signal->nr_threads (get_nr_threads(), /proc/PID/status);
 *  - VSZ and RSS as /proc/PID/statm (task_statm() in fs/proc/task_mmu.c):
 *    size is mm->total_vm, resident the MM_FILEPAGES, MM_ANONPAGES and
 *    MM_SHMEMPAGES counters, each clamped at 0.  In 6.1 a counter is
 *    atomic_long_t mm->rss_stat.count[] (get_mm_counter() in
 *    include/linux/mm.h); since 6.2 a struct percpu_counter, and 6.12's and
 *    7.3's task_statm() sum it (get_mm_counter_sum():
 *    percpu_counter_sum_positive(), lib/percpu_counter.c): ->count plus
 *    each CPU's s32 at ->counters.  It sums the online and dying CPUs;
 *    summing every possible CPU is the same, as a dead CPU's share is
 *    folded into ->count and zeroed (percpu_counter_cpu_dead()).
 *
 * A kernel thread has no mm (a kthread borrowing one with
 * kthread_use_mm() counts as none: get_task_mm() refuses PF_KTHREAD), so
 * VSZ and RSS are 0, as statm's.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ps_detail.h"

/* enum in include/linux/mm_types_task.h, the same in 6.1, 6.12, 7.3 */
#define NR_MM_COUNTERS	4
static const unsigned int resident[] = {
	0,	/* MM_FILEPAGES */
	1,	/* MM_ANONPAGES */
	3,	/* MM_SHMEMPAGES */
};
#define NR_RESIDENT	(sizeof(resident) / sizeof(resident[0]))

#define PF_KTHREAD	0x00200000	/* include/linux/sched.h */
#define MAX_CPUS	8192		/* x86-64's largest NR_CPUS (MAXSMP) */

/*
 * The __per_cpu_offset of each possible CPU, for percpu_counters, with
 * no pass of its own over the kernel's symbol table (the library's first
 * pass looks for both names): CPUs below nr_cpu_ids, at most the size of
 * struct cpumask (BTF; NR_CPUS rounded up to 64: a kernel with NR_CPUS=2
 * has 2 entries, then other data), and of them the possible ones are those
 * that setup_per_cpu_areas() set (arch/x86/kernel/setup_percpu.c: delta +
 * pcpu_unit_offsets[cpu], one unit each, so all different); the others
 * keep the boot value, all alike (BOOT_PERCPU_OFFSET in 6.1 and 6.12, 0
 * in 7.3), which the last entry holds unless every CPU is possible.
 */
static int load_cpus(struct ps_snap *s)
{
	struct ps_member bits;
	uint64_t addr, ids_addr, *off;
	uint32_t nr, ids, cpu, same = 0;
	int err;

	err = ps_snap_member(s, "cpumask", "bits", &bits);
	if (err)
		return err;
	nr = bits.size * 8;
	if (!nr || nr > MAX_CPUS)
		return ps_snap_failed(s, KMEMDEV_OP_BTF, -EPROTO,
				      "check struct cpumask's size");
	err = kmemdev_symbol(s->h, "__per_cpu_offset", &addr);
	if (err)
		return ps_snap_failed(s, KMEMDEV_OP_SYMBOL, err,
				      "look up symbol __per_cpu_offset");
	/* past nr_cpu_ids the array ends (NR_CPUS below cpumask's 64 bits) */
	if (!kmemdev_symbol(s->h, "nr_cpu_ids", &ids_addr) &&
	    !kmemdev_read(s->h, ids_addr, &ids, sizeof(ids)) && ids && ids < nr)
		nr = ids;
	off = s->mm.cpu_off = calloc(nr, sizeof(*off));
	if (!off)
		return ps_snap_failed(s, KMEMDEV_OP_ANY, -ENOMEM, "allocate");
	err = kmemdev_read(s->h, addr, off, nr * sizeof(*off));
	if (err)
		return ps_snap_failed(s, KMEMDEV_OP_READ, err,
				      "read __per_cpu_offset (NR_CPUS %u)", nr);
	for (cpu = 0; cpu < nr; cpu++)
		same += off[cpu] == off[nr - 1];
	for (cpu = 0; cpu < nr; cpu++)
		if (same == 1 || off[cpu] != off[nr - 1])
			off[s->mm.ncpu++] = off[cpu];
	return 0;
}

int ps_detail_layout(struct ps_snap *s)
{
	struct ps_member tvm, rss, nthr, head, node, count, counters;
	struct ps_mm_layout *l = &s->mm;
	int err;

	err = ps_snap_member(s, "mm_struct", "total_vm", &tvm);
	if (!err)
		err = ps_snap_member(s, "mm_struct", "rss_stat", &rss);
	if (!err)
		err = ps_snap_member(s, "signal_struct", "nr_threads", &nthr);
	if (!err)
		err = ps_snap_member(s, "signal_struct", "thread_head", &head);
	if (!err)
		err = ps_snap_member(s, "task_struct", "thread_node", &node);
	if (err)
		return err;
	l->total_vm = tvm.off;
	l->rss_stat = rss.off;
	l->rss_size = rss.size;
	l->nr_threads = nthr.off;
	l->thread_head = head.off;
	l->thread_node = node.off;
	/* 6.1: struct mm_rss_stat { atomic_long_t count[NR_MM_COUNTERS]; } */
	err = ps_snap_member(s, "mm_rss_stat", "count", &count);
	if (!err) {
		l->counter_size = 8;
	} else if (err == -ENOENT) {
		l->percpu = true;
		l->counter_size = rss.size / NR_MM_COUNTERS;
		err = ps_snap_member(s, "percpu_counter", "count", &count);
		if (!err)
			err = ps_snap_member(s, "percpu_counter", "counters",
					     &counters);
		if (err)
			return err;
		l->pcp_count = count.off;
		l->pcp_counters = counters.off;
		if (count.size != 8 || counters.size != 8 ||
		    count.off + 8 > l->counter_size ||
		    counters.off + 8 > l->counter_size)
			err = -EPROTO;
	}
	if (!err && (tvm.size != 8 || nthr.size != 4 ||
		     rss.size != NR_MM_COUNTERS * l->counter_size))
		err = -EPROTO;
	if (err)
		return ps_snap_failed(s, KMEMDEV_OP_BTF, err,
				      "look up the RSS counters in BTF");
	return l->percpu ? load_cpus(s) : 0;
}

static int64_t get_s64(const unsigned char *p)
{
	int64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* One thread list being followed: where it starts and where it is. */
struct cursor {
	uint64_t head;		/* &signal->thread_head */
	uint64_t leader;	/* already in the snapshot */
	uint64_t link;		/* the thread_node reached */
	uint32_t steps;
};

/* Set up one segment; returns the next. */
static struct kmem_ro_iov *seg(struct kmem_ro_iov *iov, uint64_t addr,
			       uint32_t len, void *buf)
{
	*iov = (struct kmem_ro_iov){
		.addr = addr, .len = len, .buf = (uintptr_t)buf,
	};
	return iov + 1;
}

/*
 * One step down every list at once: a thread's record and its link, or
 * only the leader's link (the leader is in the snapshot already).
 */
static int thread_step(struct ps_snap *s, struct cursor *c, size_t nc,
		       struct kmem_ro_iov *iov, unsigned char *recs)
{
	const size_t recsz = s->rec_size + 8;
	struct kmem_ro_iov *v = iov;
	size_t i, active = 0;
	int err;

	for (i = 0; i < nc; i++) {
		unsigned char *rec = recs + i * recsz, *p = rec;
		uint64_t node = c[i].link - s->mm.thread_node;

		if (c[i].link == c[i].head)
			continue;
		if (++c[i].steps > PS_MAX_TASKS)
			return -ELOOP;
		active++;
		for (unsigned int k = 0; node != c[i].leader && k < s->nf; k++) {
			v = seg(v, node + s->f[k].off, s->f[k].size, p);
			p += s->f[k].size;
		}
		/* list_head.next: tasks and thread_node are both list_heads */
		v = seg(v, c[i].link + s->next_off - s->tasks_off, 8,
			rec + s->rec_size);
	}
	if (!active)
		return 1;
	err = ps_snap_read_batch(s, iov, (size_t)(v - iov));
	for (i = 0; !err && i < nc; i++) {
		const unsigned char *rec = recs + i * recsz;
		uint64_t node = c[i].link - s->mm.thread_node;

		if (c[i].link == c[i].head)
			continue;
		if (node != c[i].leader)
			err = ps_snap_push(s, rec, node);
		memcpy(&c[i].link, rec + s->rec_size, 8);
	}
	return err;
}

int ps_detail_threads(struct ps_snap *s)
{
	size_t nc = 0, i, leaders = s->nr;
	struct kmem_ro_iov *iov;
	unsigned char *recs;
	struct cursor *c;
	int err;

	c = calloc(leaders ? leaders : 1, sizeof(*c));
	iov = calloc((leaders ? leaders : 1) * (s->nf + 1), sizeof(*iov));
	recs = calloc(leaders ? leaders : 1, s->rec_size + 8);
	err = c && iov && recs ? 0 : -ENOMEM;
	for (i = 0; !err && i < leaders; i++) {
		if (!s->task[i].signal)
			continue;
		c[nc].head = s->task[i].signal + s->mm.thread_head;
		c[nc].leader = s->task[i].addr;
		seg(&iov[nc], c[nc].head + s->next_off - s->tasks_off, 8,
		    &c[nc].link);
		nc++;
	}
	if (!err)
		err = ps_snap_read_batch(s, iov, nc);
	while (!err)
		err = thread_step(s, c, nc, iov, recs);
	free(c);
	free(iov);
	free(recs);
	return err > 0 ? 0 : err;
}

/* Per task: nr_threads, total_vm, then the rss_stat counters. */
#define MEM_HDR	16

/* 6.2+: each resident counter's per-CPU shares, summed into its count. */
static int percpu_sums(struct ps_snap *s, unsigned char *mem, size_t stride,
		       int64_t *sum)
{
	const struct ps_mm_layout *l = &s->mm;
	const size_t per = NR_RESIDENT * l->ncpu;
	size_t i, n = 0, k = 0;
	struct kmem_ro_iov *iov, *v;
	int32_t *share;
	int err;

	for (i = 0; i < s->nr; i++)
		n += s->task[i].mm ? 1 : 0;
	iov = calloc(n * per + 1, sizeof(*iov));
	share = calloc(n * per + 1, sizeof(*share));
	if (!iov || !share) {
		free(iov);
		free(share);
		return -ENOMEM;
	}
	v = iov;
	for (i = 0; i < s->nr; i++) {
		const unsigned char *rss = mem + i * stride + MEM_HDR;

		if (!s->task[i].mm)
			continue;
		for (size_t r = 0; r < NR_RESIDENT; r++) {
			const unsigned char *pc = rss + resident[r] * l->counter_size;
			uint64_t counters = (uint64_t)get_s64(pc + l->pcp_counters);

			for (uint32_t cpu = 0; cpu < l->ncpu; cpu++, k++)
				v = seg(v, counters + l->cpu_off[cpu], 4, &share[k]);
		}
	}
	err = ps_snap_read_batch(s, iov, (size_t)(v - iov));
	for (i = 0, k = 0; !err && i < s->nr; i++) {
		const unsigned char *rss = mem + i * stride + MEM_HDR;

		if (!s->task[i].mm)
			continue;
		for (size_t r = 0; r < NR_RESIDENT; r++) {
			const unsigned char *pc = rss + resident[r] * l->counter_size;

			sum[i * NR_RESIDENT + r] = get_s64(pc + l->pcp_count);
			for (uint32_t cpu = 0; cpu < l->ncpu; cpu++)
				sum[i * NR_RESIDENT + r] += share[k++];
		}
	}
	free(iov);
	free(share);
	return err;
}

int ps_detail_memory(struct ps_snap *s)
{
	const struct ps_mm_layout *l = &s->mm;
	const size_t stride = MEM_HDR + l->rss_size;
	struct kmem_ro_iov *iov, *v;
	unsigned char *mem;
	int64_t *sum;
	size_t i;
	int err;

	/* what statm calls no mm: none, or a kernel thread's borrowed one */
	for (i = 0; i < s->nr; i++)
		if (s->task[i].flags & PF_KTHREAD)
			s->task[i].mm = 0;
	iov = calloc(3 * s->nr + 1, sizeof(*iov));
	mem = calloc(s->nr + 1, stride);
	sum = calloc(s->nr * NR_RESIDENT + 1, sizeof(*sum));
	err = iov && mem && sum ? 0 : -ENOMEM;
	v = iov;
	for (i = 0; !err && i < s->nr; i++) {
		const struct ps_task *t = &s->task[i];
		unsigned char *m = mem + i * stride;

		if (t->signal)
			v = seg(v, t->signal + l->nr_threads, 4, m);
		if (!t->mm)
			continue;
		v = seg(v, t->mm + l->total_vm, 8, m + 8);
		v = seg(v, t->mm + l->rss_stat, l->rss_size, m + MEM_HDR);
	}
	if (!err)
		err = ps_snap_read_batch(s, iov, (size_t)(v - iov));
	for (i = 0; !err && !l->percpu && i < s->nr; i++)
		for (size_t r = 0; r < NR_RESIDENT; r++)
			sum[i * NR_RESIDENT + r] =
				get_s64(mem + i * stride + MEM_HDR + resident[r] * 8);
	if (!err && l->percpu)
		err = percpu_sums(s, mem, stride, sum);
	for (i = 0; !err && i < s->nr; i++) {
		struct ps_task *t = &s->task[i];
		const unsigned char *m = mem + i * stride;

		memcpy(&t->nr_threads, m, 4);
		memcpy(&t->vsz_pages, m + 8, 8);
		t->rss_pages = 0;
		for (size_t r = 0; r < NR_RESIDENT; r++)
			if (sum[i * NR_RESIDENT + r] > 0)
				t->rss_pages += (uint64_t)sum[i * NR_RESIDENT + r];
	}
	free(iov);
	free(mem);
	free(sum);
	return err;
}
