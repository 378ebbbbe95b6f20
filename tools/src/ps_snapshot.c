// SPDX-License-Identifier: GPL-2.0
/*
 * Task-list snapshots for kmemctl ps and its benchmark and tests.
 *
 * The list is init_task.tasks: copy_process() links only thread-group
 * leaders there (threads go on signal->thread_head instead), and
 * de_thread() swaps a new leader into the old one's place, so walking it
 * lists processes and kernel threads exactly as ps does by default, and
 * never init_task (pid 0) itself, whose member is the head.
 *
 * Each task yields one record: the chosen task_struct members packed in
 * order.  The backends only differ in how they fill records:
 *  - kcore: kmemdev_read() of a kcore handle, i.e. one pread() per member;
 *  - mmap:  kmemdev_map() of the device and memcpy(): no system call;
 *  - readv: READV, a task's members and its tasks.next together; one call
 *           per task, or one for the whole list when it is as the last
 *           snapshot left it (take_list_readv());
 *  - walk:  one WALK for every task, with node addresses.
 * The list is read without a lock, as kcore readers do: a task may exit
 * while it is read, so a snapshot whose reads fail is retried.
 *
 * PPID is real_parent->tgid.  Parents are found among the snapshot's own
 * nodes (and init_task); a parent that is not a leader (a thread forked
 * the task) has its tgid read in one more batch.
 *
 * Threads, VSZ and RSS lie behind task_struct.signal and .mm: ps_detail.c
 * reads them in batches once the list is taken.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ps_detail.h"
#include "ps_snapshot.h"

#define SNAP_TRIES	4

enum { F_PID, F_TGID, F_COMM, F_STATE, F_EXIT, F_PARENT, F_MM, F_SIGNAL, F_CPU,
       F_FLAGS, F_STACK };

static const char *const backend_names[PS_BACKEND_COUNT] = {
	[PS_BACKEND_KCORE] = "kcore",
	[PS_BACKEND_MMAP] = "mmap",
	[PS_BACKEND_READV] = "readv",
	[PS_BACKEND_WALK] = "walk",
};

const char *ps_backend_name(enum ps_backend b)
{
	if (b == PS_BACKEND_COPY)
		return "copy";
	return (unsigned int)b < PS_BACKEND_COUNT ? backend_names[b] : "?";
}

int ps_backend_parse(const char *name, enum ps_backend *b)
{
	for (unsigned int i = 0; i < PS_BACKEND_COUNT; i++)
		if (!strcmp(name, backend_names[i])) {
			*b = (enum ps_backend)i;
			return 0;
		}
	return -EINVAL;
}

static bool is_kcore(struct kmemdev *h)
{
	return !strcmp(kmemdev_backend_name(h), "kcore");
}

int ps_backend_default(struct kmemdev *h, enum ps_backend *b)
{
	KMEMDEV_ARG(kmem_ro_info, info);
	int err;

	if (is_kcore(h)) {
		*b = PS_BACKEND_KCORE;
		return 0;
	}
	err = kmemdev_info(h, &info, NULL, 0);
	if (err < 0)
		return err;
	if (info.features & KMEM_RO_FEAT_WALK)
		*b = PS_BACKEND_WALK;
	else if (info.features & KMEM_RO_FEAT_MMAP_RAM)
		*b = PS_BACKEND_MMAP;
	else if (info.features & KMEM_RO_FEAT_READV)
		*b = PS_BACKEND_READV;
	else
		return -EOPNOTSUPP;
	return 0;
}

/*
 * The letter fs/proc/array.c prints: the highest bit of (state |
 * exit_state) & TASK_REPORT indexes "RSDTtXZP"; TASK_IDLE is 'I'; RT-lock
 * waits and frozen tasks are reported as 'D'.
 */
char ps_state_letter(uint64_t state, uint64_t exit_state)
{
	static const char letters[] = "RSDTtXZPI";
	const uint64_t report = 0x7f, idle = 0x0002 | 0x0400;
	const uint64_t rtlock_wait = 0x1000, frozen = 0x8000;
	uint64_t st = (state | exit_state) & report;
	int i = 0;

	if ((state & idle) == idle)
		st = report + 1;
	if (state & (rtlock_wait | frozen))
		st = 0x0002;
	while (st) {
		i++;
		st >>= 1;
	}
	return letters[i];
}

static uint64_t get_uint(const unsigned char *p, uint32_t size)
{
	uint64_t v8;
	uint32_t v4;
	uint16_t v2;

	switch (size) {
	case 1:
		return *p;
	case 2:
		memcpy(&v2, p, 2);
		return v2;
	case 4:
		memcpy(&v4, p, 4);
		return v4;
	default:
		memcpy(&v8, p, 8);
		return v8;
	}
}

/* One kernel value, the way this backend reads. */
static int read_one(struct ps_snap *s, uint64_t addr, void *buf, size_t len)
{
	struct kmem_ro_iov iov = {
		.addr = addr, .len = len, .buf = (uintptr_t)buf,
	};
	const void *p;
	int err;

	switch (s->backend) {
	case PS_BACKEND_COPY:
		memcpy(buf, (const void *)(uintptr_t)addr, len);
		return 0;
	case PS_BACKEND_MMAP:
		err = kmemdev_map(s->h, addr, len, &p);
		if (err)
			return err;
		/* a page the driver refuses: its answer, as kmemdev_read() gives */
		if (kmemdev_map_refused(s->h, p, len))
			return kmemdev_read(s->h, addr, buf, len);
		memcpy(buf, p, len);
		if (kmemdev_map_refused(s->h, p, len))
			return kmemdev_read(s->h, addr, buf, len);
		return 0;
	case PS_BACKEND_READV:
	case PS_BACKEND_WALK:
		s->calls++;
		err = kmemdev_readv(s->h, &iov, 1, NULL);
		if (err)
			return err;
		if (iov.result < 0)
			return (int)iov.result;
		return (uint64_t)iov.result == len ? 0 : -EFAULT;
	default:
		return kmemdev_read(s->h, addr, buf, len);
	}
}

int ps_snap_failed(struct ps_snap *s, enum kmemdev_op op, int err,
		   const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return 0;
	s->err_op = op;
	va_start(ap, fmt);
	vsnprintf(s->err_obj, sizeof(s->err_obj), fmt, ap);
	va_end(ap);
	return err;
}

int ps_snap_member(struct ps_snap *s, const char *type, const char *name,
		   struct ps_member *m)
{
	return ps_snap_failed(s, KMEMDEV_OP_BTF,
		      kmemdev_btf_member(s->h, type, name, &m->off, &m->size),
		      "look up BTF member %s.%s", type, name);
}

static void add_field(struct ps_snap *s, int id, struct ps_member m)
{
	s->wf[s->nf] = (struct kmem_ro_field){ .offset = m.off, .len = m.size };
	s->fid[s->nf] = id;
	s->f[s->nf++] = m;
	s->rec_size += m.size;
}

/*
 * task_cpu(): thread_info.cpu where thread_info is in the task
 * (THREAD_INFO_IN_TASK, x86's case: include/linux/sched.h), else
 * task_struct.cpu.
 */
static int cpu_member(struct ps_snap *s, struct ps_member *cpu)
{
	struct ps_member ti;
	int err;

	err = ps_snap_member(s, "task_struct", "thread_info", &ti);
	if (!err) {
		err = ps_snap_member(s, "thread_info", "cpu", cpu);
		cpu->off += ti.off;
	}
	if (err == -ENOENT)
		err = ps_snap_member(s, "task_struct", "cpu", cpu);
	return err;
}

/* task_struct members: offsets from BTF, sizes checked against our use. */
static int layout(struct ps_snap *s)
{
	struct ps_member pid, comm, state, exit_state, parent, tasks, next;
	struct ps_member mm, signal, cpu, flags, stack;
	int err;

	err = ps_snap_member(s, "task_struct", "tasks", &tasks);
	if (!err)
		err = ps_snap_member(s, "list_head", "next", &next);
	if (!err)
		err = ps_snap_member(s, "task_struct", "pid", &pid);
	if (!err)
		err = ps_snap_member(s, "task_struct", "tgid", &s->tgid);
	if (!err)
		err = ps_snap_member(s, "task_struct", "comm", &comm);
	if (err)
		return err;
	if (next.size != 8 || tasks.size < 16 || pid.size != 4 ||
	    s->tgid.size != 4 || !comm.size || comm.size > PS_COMM_MAX)
		return ps_snap_failed(s, KMEMDEV_OP_ANY, -EPROTO,
			      "check task_struct member sizes from BTF");
	s->tasks_off = tasks.off;
	s->next_off = tasks.off + next.off;

	add_field(s, F_PID, pid);
	add_field(s, F_COMM, comm);
	if (s->fields == PS_FIELDS_PID_COMM)
		return 0;

	/* unsigned int __state since 5.14; volatile long state before */
	err = ps_snap_member(s, "task_struct", "__state", &state);
	if (err == -ENOENT)
		err = ps_snap_member(s, "task_struct", "state", &state);
	if (!err)
		err = ps_snap_member(s, "task_struct", "exit_state", &exit_state);
	if (!err)
		err = ps_snap_member(s, "task_struct", "real_parent", &parent);
	if (!err)
		err = ps_snap_member(s, "task_struct", "mm", &mm);
	if (!err)
		err = ps_snap_member(s, "task_struct", "signal", &signal);
	if (!err)
		err = cpu_member(s, &cpu);
	if (!err)
		err = ps_snap_member(s, "task_struct", "flags", &flags);
	if (!err)
		err = ps_snap_member(s, "task_struct", "stack", &stack);
	if (err)
		return err;
	if ((state.size != 4 && state.size != 8) || exit_state.size != 4 ||
	    parent.size != 8 || mm.size != 8 || signal.size != 8 ||
	    cpu.size != 4 || flags.size != 4 || stack.size != 8)
		return ps_snap_failed(s, KMEMDEV_OP_ANY, -EPROTO,
			      "check task_struct member sizes from BTF");
	add_field(s, F_TGID, s->tgid);
	add_field(s, F_STATE, state);
	add_field(s, F_EXIT, exit_state);
	add_field(s, F_PARENT, parent);
	add_field(s, F_MM, mm);
	add_field(s, F_SIGNAL, signal);
	add_field(s, F_CPU, cpu);
	add_field(s, F_FLAGS, flags);
	add_field(s, F_STACK, stack);
	return ps_detail_layout(s);
}

int ps_snap_grow(void **p, size_t *cap, size_t need, size_t elem)
{
	size_t ncap = *cap ? *cap : 64;
	void *q;

	if (need <= *cap)
		return 0;
	while (ncap < need)
		ncap *= 2;
	q = realloc(*p, ncap * elem);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = ncap;
	return 0;
}

int ps_snap_init(struct ps_snap *s, struct kmemdev *h, enum ps_backend b,
		 enum ps_fields fields)
{
	KMEMDEV_ARG(kmem_ro_info, info);
	uint32_t tgid;
	int err;

	memset(s, 0, sizeof(*s));
	s->h = h;
	s->backend = b;
	s->fields = fields;
	if ((b == PS_BACKEND_KCORE) != is_kcore(h))
		return ps_snap_failed(s, KMEMDEV_OP_READ, -EOPNOTSUPP, "open the %s backend",
			      ps_backend_name(b));
	if (b == PS_BACKEND_READV || b == PS_BACKEND_WALK) {
		err = kmemdev_info(h, &info, NULL, 0);
		if (err < 0)
			return ps_snap_failed(s, KMEMDEV_OP_INFO, err, "query the driver");
		if (!(info.features & KMEM_RO_FEAT_READV) ||
		    (b == PS_BACKEND_WALK && !(info.features & KMEM_RO_FEAT_WALK)))
			return ps_snap_failed(s, b == PS_BACKEND_WALK ? KMEMDEV_OP_WALK :
				      KMEMDEV_OP_READ, -EOPNOTSUPP,
				      "open the %s backend", ps_backend_name(b));
	}
	err = ps_snap_failed(s, KMEMDEV_OP_SYMBOL,
		     kmemdev_symbol(h, "init_task", &s->init_task),
		     "look up symbol init_task");
	if (err)
		return err;
	err = layout(s);
	if (err)
		return err;
	s->rec = malloc(s->rec_size + 8);
	if (!s->rec)
		return ps_snap_failed(s, KMEMDEV_OP_ANY, -ENOMEM, "allocate");
	err = ps_snap_grow((void **)&s->iov, &s->iov_cap, PS_MAX_FIELDS + 1,
		   sizeof(*s->iov));
	if (err)
		return ps_snap_failed(s, KMEMDEV_OP_ANY, err, "allocate");
	/* Proves the backend reads init_task; PPID of its children. */
	err = read_one(s, s->init_task + s->tgid.off, &tgid, sizeof(tgid));
	if (err)
		return ps_snap_failed(s, KMEMDEV_OP_READ, err,
			      "read init_task at 0x%" PRIx64 " (%s backend)",
			      s->init_task, ps_backend_name(b));
	s->init_tgid = (int32_t)tgid;
	return 0;
}

void ps_snap_fini(struct ps_snap *s)
{
	free(s->task);
	free(s->rec);
	free(s->walk_buf);
	free(s->iov);
	free(s->by_addr);
	free(s->run_buf);
	free(s->guess);
	free(s->guess_by_addr);
	free(s->copy);
	free(s->mm.cpu_off);
	memset(s, 0, sizeof(*s));
}

static void decode(const struct ps_snap *s, const unsigned char *rec,
		   uint64_t node, struct ps_task *t)
{
	memset(t, 0, sizeof(*t));
	t->addr = node;
	for (unsigned int i = 0; i < s->nf; i++) {
		uint32_t size = s->f[i].size;

		switch (s->fid[i]) {
		case F_PID:
			t->pid = (int32_t)get_uint(rec, size);
			break;
		case F_TGID:
			t->tgid = (int32_t)get_uint(rec, size);
			break;
		case F_COMM:
			memcpy(t->comm, rec, size);
			t->comm[size] = '\0';
			break;
		case F_STATE:
			t->state = get_uint(rec, size);
			break;
		case F_EXIT:
			t->exit_state = get_uint(rec, size);
			break;
		case F_PARENT:
			t->parent = get_uint(rec, size);
			break;
		case F_MM:
			t->mm = get_uint(rec, size);
			break;
		case F_SIGNAL:
			t->signal = get_uint(rec, size);
			break;
		case F_CPU:
			t->cpu = (uint32_t)get_uint(rec, size);
			break;
		case F_FLAGS:
			t->flags = (uint32_t)get_uint(rec, size);
			break;
		case F_STACK:
			t->stack = get_uint(rec, size);
			break;
		}
		rec += size;
	}
}

/* READV: the segments of one task, its members into @rec, then its tasks.next. */
static void task_segs(const struct ps_snap *s, uint64_t node,
		      struct kmem_ro_iov *iov, unsigned char *rec)
{
	unsigned int i;

	for (i = 0; i < s->nf; i++) {
		iov[i] = (struct kmem_ro_iov){
			.addr = node + s->f[i].off,
			.len = s->f[i].size,
			.buf = (uintptr_t)rec,
		};
		rec += s->f[i].size;
	}
	iov[i] = (struct kmem_ro_iov){
		.addr = node + s->next_off,
		.len = 8,
		.buf = (uintptr_t)rec,
	};
}

/* 0 if all @n segments were read whole, else the first failure's errno. */
static int segs_result(const struct kmem_ro_iov *iov, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		if (iov[i].result < 0)
			return (int)iov[i].result;
		if ((uint64_t)iov[i].result != iov[i].len)
			return -EFAULT;
	}
	return 0;
}

int ps_snap_read_batch(struct ps_snap *s, struct kmem_ro_iov *iov, size_t n)
{
	int err = 0;

	if (n > UINT32_MAX)
		return -E2BIG;
	if (s->backend == PS_BACKEND_READV || s->backend == PS_BACKEND_WALK) {
		s->calls++;
		err = kmemdev_readv(s->h, iov, (unsigned int)n, NULL);
		return err ? err : segs_result(iov, (unsigned int)n);
	}
	for (size_t i = 0; i < n && !err; i++)
		err = s->backend == PS_BACKEND_MMAP ?
		      kmemdev_read(s->h, iov[i].addr, (void *)(uintptr_t)iov[i].buf,
				   iov[i].len) :
		      read_one(s, iov[i].addr, (void *)(uintptr_t)iov[i].buf,
			       iov[i].len);
	return err;
}

/* s->rec = the record of the task at node, then its tasks.next. */
static int read_record(struct ps_snap *s, uint64_t node)
{
	unsigned char *p = s->rec;
	unsigned int i;
	int err;

	if (s->backend == PS_BACKEND_READV) {
		task_segs(s, node, s->iov, p);
		s->calls++;
		err = kmemdev_readv(s->h, s->iov, s->nf + 1, NULL);
		return err ? err : segs_result(s->iov, s->nf + 1);
	}
	for (i = 0; i < s->nf; i++) {
		err = read_one(s, node + s->f[i].off, p, s->f[i].size);
		if (err)
			return err;
		p += s->f[i].size;
	}
	return read_one(s, node + s->next_off, p, 8);
}

int ps_snap_push(struct ps_snap *s, const unsigned char *rec, uint64_t node)
{
	int err;

	if (s->nr >= PS_MAX_TASKS)
		return -ELOOP;
	err = ps_snap_grow((void **)&s->task, &s->cap, s->nr + 1, sizeof(*s->task));
	if (err)
		return err;
	decode(s, rec, node, &s->task[s->nr++]);
	return 0;
}

/* kcore, mmap, readv: follow tasks.next from the head until it is back. */
static int take_list(struct ps_snap *s)
{
	uint64_t head = s->init_task + s->tasks_off, link;
	int err;

	err = read_one(s, s->init_task + s->next_off, &link, sizeof(link));
	while (!err && link != head) {
		uint64_t node = link - s->tasks_off;

		err = read_record(s, node);
		if (!err)
			err = ps_snap_push(s, s->rec, node);
		if (!err)
			memcpy(&link, s->rec + s->rec_size, sizeof(link));
	}
	return err;
}

static int cmp_u64(const void *pa, const void *pb);

/* Where the last snapshot had the task at @node: 1 and *@k, else 0. */
static int guess_index(const struct ps_snap *s, uint64_t node, size_t *k)
{
	const uint64_t *hit = s->guess_nr ?
		bsearch(&node, s->guess_by_addr, s->guess_nr,
			2 * sizeof(*s->guess_by_addr), cmp_u64) : NULL;

	if (!hit)
		return 0;
	*k = hit[1];
	return 1;
}

/*
 * READV.  One READV per task is a system call per task, because a task's
 * address is known only once the link before it has been read.  But the
 * list as the last snapshot left it is the best guess of what it is now:
 * one READV reads (the head's link and) a run of guessed tasks, each one's
 * members and link, in list order, and a guessed task is taken only if the
 * link read just before it in that call points at it.  So each task is
 * still read after the link that leads to it, as with one READV per task,
 * and a list that did not change costs one call.  Where it changed, a task
 * the guess lacks is read alone, and the next run starts at the next
 * guessed task the list leads to.
 */
static int take_list_readv(struct ps_snap *s)
{
	const unsigned int per = s->nf + 1;
	/* tasks of one run: what fits one READV, the head's link included */
	const size_t run_max = (KMEM_RO_READV_MAX_SEGS - 1) / per;
	uint64_t head = s->init_task + s->tasks_off, link = 0, node;
	const size_t recsz = s->rec_size + 8;
	bool have_link = false;
	size_t k = 0;
	int err;

	for (;;) {
		size_t j, n, first = have_link ? 0 : 1;
		unsigned char *rec;

		if (have_link) {
			if (link == head)
				return 0;
			node = link - s->tasks_off;
			if (!guess_index(s, node, &k)) {
				err = read_record(s, node);
				if (!err)
					err = ps_snap_push(s, s->rec, node);
				if (err)
					return err;
				memcpy(&link, s->rec + s->rec_size, sizeof(link));
				continue;
			}
		}
		n = s->guess_nr - k < run_max ? s->guess_nr - k : run_max;
		err = ps_snap_grow((void **)&s->iov, &s->iov_cap, first + n * per,
			   sizeof(*s->iov));
		if (!err)
			err = ps_snap_grow((void **)&s->run_buf, &s->run_cap, n * recsz + 8, 1);
		if (err)
			return err;
		if (!have_link)
			s->iov[0] = (struct kmem_ro_iov){
				.addr = s->init_task + s->next_off,
				.len = 8,
				.buf = (uintptr_t)(s->run_buf + n * recsz),
			};
		for (j = 0; j < n; j++)
			task_segs(s, s->guess[k + j], s->iov + first + j * per,
				  s->run_buf + j * recsz);
		s->calls++;
		err = kmemdev_readv(s->h, s->iov, (unsigned int)(first + n * per), NULL);
		if (!err && !have_link)
			err = segs_result(s->iov, 1);
		if (err)
			return err;
		if (!have_link) {
			memcpy(&link, s->run_buf + n * recsz, sizeof(link));
			have_link = true;
		}
		for (j = 0; j < n && link != head &&
			    link - s->tasks_off == s->guess[k + j]; j++) {
			rec = s->run_buf + j * recsz;
			err = segs_result(s->iov + first + j * per, per);
			if (!err)
				err = ps_snap_push(s, rec, s->guess[k + j]);
			if (err)
				return err;
			memcpy(&link, rec + s->rec_size, sizeof(link));
		}
	}
}

/* After a READV snapshot: it is the guess for the next one. */
static int keep_guess(struct ps_snap *s)
{
	size_t i;
	int err;

	s->guess_nr = 0;
	if (s->no_guess)
		return 0;
	err = ps_snap_grow((void **)&s->guess, &s->guess_cap, s->nr, sizeof(*s->guess));
	if (!err)
		err = ps_snap_grow((void **)&s->guess_by_addr, &s->guess_by_addr_cap,
			   2 * s->nr, sizeof(*s->guess_by_addr));
	if (err)
		return 0;	/* no guess: one READV per task next time */
	for (i = 0; i < s->nr; i++) {
		s->guess[i] = s->task[i].addr;
		s->guess_by_addr[2 * i] = s->task[i].addr;
		s->guess_by_addr[2 * i + 1] = i;
	}
	qsort(s->guess_by_addr, s->nr, 2 * sizeof(*s->guess_by_addr), cmp_u64);
	s->guess_nr = s->nr;
	return 0;
}

static int take_walk(struct ps_snap *s)
{
	KMEMDEV_ARG(kmem_ro_walk, w,
		.flags = KMEM_RO_WALK_NODE_ADDR,
		.head = s->init_task + s->tasks_off,
		.link_offset = s->tasks_off,
		.fields_addr = (uintptr_t)s->wf,
		.fields_count = s->nf,
		.max_nodes = PS_MAX_TASKS,
	);
	const unsigned char *rec;
	uint32_t nodes, i;
	int err;

	s->calls++;
	err = kmemdev_walk_all(s->h, &w, &s->walk_buf, &s->walk_cap, &nodes);
	if (err)
		return err == -E2BIG ? -ELOOP : err;
	rec = s->walk_buf;
	for (i = 0; i < nodes && !err; i++, rec += 8 + s->rec_size)
		err = ps_snap_push(s, rec + 8, get_uint(rec, 8));
	return err;
}

static int cmp_u64(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;

	return a < b ? -1 : a > b;
}

/*
 * PPIDs: each parent's tgid from the snapshot itself where it is a node
 * (by_addr holds (address, index + 1) pairs, index 0 for init_task),
 * from one more batch of reads where it is not.
 */
static int resolve_parents(struct ps_snap *s)
{
	size_t i, n = s->nr + 1, pending = 0;
	uint32_t *tgids = NULL;
	int err;

	err = ps_snap_grow((void **)&s->by_addr, &s->by_addr_cap, 2 * n,
		   sizeof(*s->by_addr));
	if (err)
		return err;
	s->by_addr[0] = s->init_task;
	s->by_addr[1] = 0;
	for (i = 0; i < s->nr; i++) {
		s->by_addr[2 * i + 2] = s->task[i].addr;
		s->by_addr[2 * i + 3] = i + 1;
	}
	qsort(s->by_addr, n, 2 * sizeof(*s->by_addr), cmp_u64);

	for (i = 0; i < s->nr; i++) {
		struct ps_task *t = &s->task[i];
		const uint64_t *hit = bsearch(&t->parent, s->by_addr, n,
					      2 * sizeof(*s->by_addr), cmp_u64);

		if (hit) {
			t->ppid = hit[1] ? s->task[hit[1] - 1].tgid : s->init_tgid;
			continue;
		}
		t->ppid = -1;
		pending++;
	}
	if (!pending)
		return 0;

	tgids = calloc(pending, sizeof(*tgids));
	if (!tgids)
		return -ENOMEM;
	if (s->backend == PS_BACKEND_READV || s->backend == PS_BACKEND_WALK) {
		size_t k = 0;

		err = ps_snap_grow((void **)&s->iov, &s->iov_cap, pending,
			   sizeof(*s->iov));
		for (i = 0; !err && i < s->nr; i++)
			if (s->task[i].ppid == -1) {
				s->iov[k] = (struct kmem_ro_iov){
					.addr = s->task[i].parent + s->tgid.off,
					.len = sizeof(*tgids),
					.buf = (uintptr_t)&tgids[k],
				};
				k++;
			}
		if (!err) {
			s->calls++;
			err = kmemdev_readv(s->h, s->iov, (unsigned int)pending,
					    NULL);
		}
		for (k = 0; !err && k < pending; k++)
			if (s->iov[k].result != (int64_t)sizeof(*tgids))
				err = s->iov[k].result < 0 ?
				      (int)s->iov[k].result : -EFAULT;
	} else {
		size_t k = 0;

		for (i = 0; !err && i < s->nr; i++)
			if (s->task[i].ppid == -1)
				err = read_one(s, s->task[i].parent + s->tgid.off,
					       &tgids[k++], sizeof(*tgids));
	}
	if (!err) {
		size_t k = 0;

		for (i = 0; i < s->nr; i++)
			if (s->task[i].ppid == -1)
				s->task[i].ppid = (int32_t)tgids[k++];
	}
	free(tgids);
	return err;
}

static int take_once(struct ps_snap *s)
{
	int err;

	s->nr = 0;
	if (s->backend == PS_BACKEND_WALK)
		err = take_walk(s);
	else if (s->backend == PS_BACKEND_READV)
		err = take_list_readv(s);
	else
		err = take_list(s);
	if (!err && s->backend == PS_BACKEND_READV)
		err = keep_guess(s);
	if (!err && s->fields == PS_FIELDS_PS && s->threads)
		err = ps_detail_threads(s);
	if (!err && s->fields == PS_FIELDS_PS)
		err = resolve_parents(s);
	if (!err && s->fields == PS_FIELDS_PS)
		err = ps_detail_memory(s);
	return err;
}

int ps_snap_take(struct ps_snap *s)
{
	int err, tries = 0;

	do
		err = take_once(s);
	while (err && err != -ENOMEM && err != -EOPNOTSUPP &&
	       ++tries < SNAP_TRIES);
	if (err) {
		s->nr = 0;
		/* ELOOP: take_walk()'s E2BIG, or a list that never ends */
		ps_snap_failed(s, s->backend == PS_BACKEND_WALK || err == -ELOOP ?
		       KMEMDEV_OP_WALK : KMEMDEV_OP_READ, err,
		       "read the task list (%s backend)",
		       ps_backend_name(s->backend));
	}
	return err;
}

static int cmp_pid(const void *pa, const void *pb)
{
	const struct ps_task *a = pa, *b = pb;

	if (a->tgid != b->tgid)
		return a->tgid < b->tgid ? -1 : 1;
	return a->pid < b->pid ? -1 : a->pid > b->pid;
}

void ps_snap_sort(struct ps_snap *s)
{
	qsort(s->task, s->nr, sizeof(*s->task), cmp_pid);
}
