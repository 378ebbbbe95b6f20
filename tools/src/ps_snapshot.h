/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A snapshot of the kernel's task list (init_task.tasks: one node per
 * thread-group leader; with threads, each leader's signal->thread_head
 * too), read in one of four ways so that they can be compared:
 * `kmemctl ps`, bench/ps_bench.c and tests/vm/ps_test.c share it.
 *
 * Every offset comes from the running kernel's BTF and init_task's address
 * from kallsyms; the state bits are the kernel's ABI (fs/proc/array.c).
 */
#ifndef KMEMCTL_PS_SNAPSHOT_H
#define KMEMCTL_PS_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kmemdev.h"

/* How the task structs are read. */
enum ps_backend {
	PS_BACKEND_KCORE,	/* kcore handle: one pread() per field */
	PS_BACKEND_MMAP,	/* device mapping only: no system call */
	PS_BACKEND_READV,	/* READV: one per task, or one per list as last seen */
	PS_BACKEND_WALK,	/* one WALK for the whole list */
	PS_BACKEND_COUNT,
	/* benchmarks only: plain loads from a copy in user memory
	 * (bench/ps_copy.c) */
	PS_BACKEND_COPY = PS_BACKEND_COUNT,
};

/* What is read of every task. */
enum ps_fields {
	PS_FIELDS_PS,		/* pid, tgid, comm, state, exit_state, parent,
				 * mm, signal, CPU, flags, stack; then VSZ,
				 * RSS, threads */
	PS_FIELDS_PID_COMM,	/* pid and comm only (the benchmark's seed) */
};

#define PS_COMM_MAX	64	/* longest comm accepted (the kernel's: 16) */
#define PS_MAX_TASKS	(1U << 20)	/* longer lists are taken as loops */

/**
 * struct ps_task - one task of a snapshot
 * @addr: address of its task_struct
 * @parent: task_struct address of its real_parent (PS_FIELDS_PS)
 * @state: __state (or state, before 5.14) (PS_FIELDS_PS)
 * @exit_state: exit_state (PS_FIELDS_PS)
 * @pid: pid
 * @tgid: tgid (PS_FIELDS_PS)
 * @ppid: tgid of the real parent, as /proc/PID/status says (PS_FIELDS_PS)
 * @mm: task_struct.mm, 0 for kernel threads and zombies (PS_FIELDS_PS)
 * @signal: task_struct.signal (PS_FIELDS_PS)
 * @vsz_pages: mm->total_vm, as /proc/PID/statm's size (PS_FIELDS_PS)
 * @rss_pages: file + anon + shmem pages, as statm's resident (PS_FIELDS_PS)
 * @cpu: task_cpu(): the CPU it runs on or last ran on (PS_FIELDS_PS)
 * @flags: task_struct.flags (PF_*) (PS_FIELDS_PS)
 * @stack: task_struct.stack, the kernel stack's lowest address (PS_FIELDS_PS)
 * @nr_threads: signal->nr_threads, as /proc/PID/status's Threads
 *	(PS_FIELDS_PS)
 * @pid: pid (a thread's TID)
 * @tgid: tgid (PS_FIELDS_PS)
 * @ppid: tgid of the real parent, as /proc/PID/status says (PS_FIELDS_PS)
 * @comm: comm, NUL-terminated
 */
struct ps_task {
	uint64_t addr;
	uint64_t parent;
	uint64_t state;
	uint64_t exit_state;
	uint64_t mm;
	uint64_t signal;
	uint64_t vsz_pages;
	uint64_t rss_pages;
	uint64_t stack;
	uint32_t cpu;
	uint32_t flags;
	int32_t nr_threads;
	int32_t pid;
	int32_t tgid;
	int32_t ppid;
	char comm[PS_COMM_MAX + 1];
};

/* A member of task_struct: where and how wide. */
struct ps_member {
	uint32_t off;
	uint32_t size;
};

#define PS_MAX_FIELDS	11

/*
 * Where VSZ, RSS and the thread list lie behind task_struct.mm and .signal
 * (PS_FIELDS_PS), from BTF; the per-CPU offsets for 6.2+'s RSS counters.
 */
struct ps_mm_layout {
	uint32_t total_vm;	/* mm_struct.total_vm */
	uint32_t rss_stat;	/* mm_struct.rss_stat: NR_MM_COUNTERS counters */
	uint32_t rss_size;	/* its size */
	uint32_t counter_size;	/* one counter: atomic_long_t, or percpu_counter */
	bool percpu;		/* 6.2+: percpu_counter, else atomic_long_t */
	uint32_t pcp_count;	/* percpu_counter.count (s64) */
	uint32_t pcp_counters;	/* percpu_counter.counters (s32 __percpu *) */
	uint32_t nr_threads;	/* signal_struct.nr_threads */
	uint32_t thread_head;	/* signal_struct.thread_head */
	uint32_t thread_node;	/* task_struct.thread_node */
	uint32_t ncpu;		/* possible CPUs: entries of cpu_off */
	uint64_t *cpu_off;	/* __per_cpu_offset[] of each possible CPU */
};

/**
 * struct ps_snap - snapshot state, reusable: buffers survive between takes
 * @h: handle (kcore handle for PS_BACKEND_KCORE, device otherwise)
 * @backend: how to read
 * @fields: what to read
 * @init_task: address of init_task, the list head's owner
 * @init_tgid: init_task's tgid (PPID of tasks it parents)
 * @tasks_off: offset of task_struct.tasks
 * @next_off: offset of task_struct.tasks.next
 * @f: the members read of each task, in record order
 * @nf: number of entries in @f
 * @rec_size: bytes of one record: every member of @f, packed
 * @threads: set before ps_snap_take() (PS_FIELDS_PS): every thread, not
 *	only the leaders, from each leader's signal->thread_head
 * @mm: what lies behind mm and signal (PS_FIELDS_PS)
 * @task: the snapshot; @nr entries
 * @nr: tasks in the last snapshot
 * @err_op: after a failure, the libkmemdev call that failed (for
 *	kmemdev_strerror())
 * @err_obj: and what it was doing: "look up symbol init_task", ...
 */
struct ps_snap {
	struct kmemdev *h;
	enum ps_backend backend;
	enum ps_fields fields;
	uint64_t init_task;
	int32_t init_tgid;
	uint32_t tasks_off, next_off;
	struct ps_member f[PS_MAX_FIELDS];
	int fid[PS_MAX_FIELDS];		/* which ps_task field each fills */
	unsigned int nf;
	uint32_t rec_size;
	struct ps_member tgid;		/* for parents outside the list */
	bool threads;
	struct ps_mm_layout mm;

	struct ps_task *task;
	size_t nr, cap;

	/* scratch, kept between snapshots */
	unsigned char *rec;		/* one record + next pointer */
	void *walk_buf;
	size_t walk_cap;
	struct kmem_ro_field wf[PS_MAX_FIELDS];
	struct kmem_ro_iov *iov;	/* READV: per-task segments, parents */
	size_t iov_cap;
	uint64_t *by_addr;		/* (addr, index) pairs, sorted */
	size_t by_addr_cap;
	unsigned char *copy;		/* PS_BACKEND_COPY: the copied list */

	/* READV: the last snapshot's tasks, the guess for the next one */
	uint64_t *guess;		/* task addresses, in list order */
	size_t guess_nr, guess_cap;
	uint64_t *guess_by_addr;	/* (address, index) pairs, sorted */
	size_t guess_by_addr_cap;
	unsigned char *run_buf;		/* records of a guessed run */
	size_t run_cap;
	bool no_guess;			/* set: one READV per task (benchmarks) */
	unsigned long calls;		/* READV and WALK calls made, ever */

	enum kmemdev_op err_op;
	char err_obj[96];
};

/*
 * Resolve the layout (BTF, kallsyms) and check that the backend can read
 * init_task.  Returns 0 or a negative errno (-EOPNOTSUPP: the handle or
 * driver cannot do this backend; -ENOENT: a symbol or member is missing);
 * s->err_op and s->err_obj then say which step failed.
 */
int ps_snap_init(struct ps_snap *s, struct kmemdev *h, enum ps_backend b,
		 enum ps_fields fields);

/*
 * Take a snapshot into s->task[0 .. s->nr), in list order.  A list that
 * changes under the reader may make a read fail or loop: such snapshots
 * are retried a few times before the error is returned (with s->err_op
 * and s->err_obj set).
 */
int ps_snap_take(struct ps_snap *s);

/* Sort s->task by tgid, then pid: threads after their leader. */
void ps_snap_sort(struct ps_snap *s);

void ps_snap_fini(struct ps_snap *s);

/* The ps(1) state letter (R S D T t X Z P I), as /proc/PID/stat shows. */
char ps_state_letter(uint64_t state, uint64_t exit_state);

const char *ps_backend_name(enum ps_backend b);

/* "kcore", "mmap", "readv", "walk"; -EINVAL for anything else. */
int ps_backend_parse(const char *name, enum ps_backend *b);

/*
 * Which backend a device or kcore handle serves best: walk, else mmap,
 * else readv; kcore for a kcore handle.  -EOPNOTSUPP when a device offers
 * none of them (the caller may open /proc/kcore instead).
 */
int ps_backend_default(struct kmemdev *h, enum ps_backend *b);

#endif /* KMEMCTL_PS_SNAPSHOT_H */
