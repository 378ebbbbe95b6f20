// SPDX-License-Identifier: GPL-2.0
/* kmemctl ps: processes from the kernel's task list, read four ways. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "json.h"
#include "kmemctl.h"
#include "parse.h"
#include "ps_snapshot.h"

#define PID_MAX		4194304	/* PID_MAX_LIMIT on 64-bit */
#define MAX_FILTER	64	/* entries of one --pid or --comm list */

/* Which rows to print: each given filter must match (-p, -c, -s). */
struct ps_filter {
	int32_t pid[MAX_FILTER];
	unsigned int npid;
	char *comm[MAX_FILTER];
	unsigned int ncomm;
	char comm_buf[1024];
	const char *state;
};

static void help(void)
{
	printf("Usage: kmemctl [--device PATH] ps [--backend NAME] [--json] "
	       "[-T] [--pid LIST]\n"
	       "                 [--comm LIST] [--state LETTERS] [--loop N]\n"
	       "List processes (thread-group leaders and kernel threads, as "
	       "ps does) from the\n"
	       "kernel's task list, starting at init_task; offsets come from "
	       "the kernel's BTF.\n"
	       "  -b, --backend NAME  how to read kernel memory:\n"
	       "        kcore  /proc/kcore, one pread() per field\n"
	       "        mmap   the device's read-only mapping, no system call "
	       "for the list\n"
	       "        readv  one READV ioctl per task\n"
	       "        walk   one WALK ioctl for the whole list\n"
	       "      default: walk if the driver has it, else mmap, else "
	       "readv, else kcore\n"
	       "      (also when the device is absent).  Every backend gives "
	       "every column;\n"
	       "      threads, VSZ and RSS take a few READV batches more "
	       "(preads on kcore,\n"
	       "      the mapping or READV on mmap)\n"
	       "  -T, --threads       one row per thread (TID), from each "
	       "process's thread list\n"
	       "  -p, --pid LIST      only these PIDs (or TIDs), comma "
	       "separated\n"
	       "  -c, --comm LIST     only tasks whose comm is one of these, "
	       "comma separated\n"
	       "  -s, --state LETTERS only tasks in one of these states "
	       "(R S D T t X Z P I)\n"
	       "  -j, --json          a JSON array of {pid, ppid, state, comm, "
	       "tid, task, cpu,\n"
	       "                      threads, vsz_kib, rss_kib}\n"
	       "  -l, --loop N        take N snapshots and print only a summary "
	       "(tasks,\n"
	       "                      snapshots, time per snapshot)\n"
	       "Columns: PID (tgid), TID (-T: the thread's pid), PPID (the "
	       "real parent's tgid),\n"
	       "S (the state letter of /proc/PID/stat), CPU (task_cpu(): "
	       "where it runs or ran\n"
	       "last), THR (threads, as /proc/PID/status), VSZ and RSS in KiB "
	       "(as\n"
	       "/proc/PID/statm, 0 for kernel threads), TASK (its task_struct), "
	       "COMM.\n");
}

static int open_kind(const struct kmemctl *ctx, int kind, struct kmemdev **h)
{
	KMEMDEV_OPTS(kmemdev_open_opts, opts, .backend = kind);
	int err;

	if (kind != KMEMDEV_BACKEND_KCORE)
		opts.path = ctx->device;
	err = kmemdev_open(h, &opts);
	/* kcore: the file's own error, not the device's sentences */
	if (err && kind == KMEMDEV_BACKEND_KCORE)
		kmemctl_err(err == -ENOEXEC ? KMEMDEV_OP_OPEN : KMEMDEV_OP_ANY,
			    err, "open %s", KMEMDEV_KCORE);
	else if (err)
		kmemctl_err(KMEMDEV_OP_OPEN, err, "open %s", ctx->device);
	return err;
}

/* Open what the backend needs; choose the backend if none was given. */
static int open_for(const struct kmemctl *ctx, bool chosen,
		    enum ps_backend *b, struct kmemdev **h)
{
	int err;

	if (chosen)
		return open_kind(ctx, *b == PS_BACKEND_KCORE ?
				 KMEMDEV_BACKEND_KCORE :
				 KMEMDEV_BACKEND_DEVICE, h);
	err = open_kind(ctx, KMEMDEV_BACKEND_AUTO, h);
	if (err)
		return err;
	err = ps_backend_default(*h, b);
	if (err == -EOPNOTSUPP) {
		/* a driver without mmap, READV or WALK: kcore can still do */
		kmemdev_close(*h);
		*b = PS_BACKEND_KCORE;
		return open_kind(ctx, KMEMDEV_BACKEND_KCORE, h);
	}
	if (err) {
		kmemctl_err(KMEMDEV_OP_INFO, err, "ps: query %s", ctx->device);
		kmemdev_close(*h);
	}
	return err;
}

static void init_error(const struct ps_snap *s, enum ps_backend b, int err)
{
	if (err == -EOPNOTSUPP) {
		kmemctl_fail("ps: %s: the %s backend is not offered here (%s)",
			     s->err_obj, ps_backend_name(b),
			     b == PS_BACKEND_MMAP ? "RAM mmap needs kmem_ro loaded "
			     "with mmap_ram=1" : "this kmem_ro driver lacks the ioctl");
		return;
	}
	if (err == -ENXIO && b == PS_BACKEND_MMAP) {
		kmemctl_fail("ps: %s: not mappable: the mmap backend needs kmem_ro "
			     "loaded with mmap_ram=1 (opt-in); try --backend walk",
			     s->err_obj);
		return;
	}
	kmemctl_err(s->err_op, err, "ps: %s", s->err_obj);
}

static bool wanted(const struct ps_filter *f, const struct ps_task *t)
{
	char st = ps_state_letter(t->state, t->exit_state);
	bool pid = !f->npid, comm = !f->ncomm;

	for (unsigned int i = 0; i < f->npid && !pid; i++)
		pid = f->pid[i] == t->tgid || f->pid[i] == t->pid;
	for (unsigned int i = 0; i < f->ncomm && !comm; i++)
		comm = !strcmp(f->comm[i], t->comm);
	return pid && comm && (!f->state || strchr(f->state, st));
}

static uint64_t kib(uint64_t pages)
{
	return pages * (uint64_t)(sysconf(_SC_PAGESIZE) / 1024);
}

static void print_table(const struct ps_snap *s, const struct ps_filter *f)
{
	if (s->threads)
		printf("%7s %7s %7s S CPU %9s %8s %-18s COMM\n", "PID", "TID",
		       "PPID", "VSZ", "RSS", "TASK");
	else
		printf("%7s %7s S CPU  THR %9s %8s %-18s COMM\n", "PID", "PPID",
		       "VSZ", "RSS", "TASK");
	for (size_t i = 0; i < s->nr; i++) {
		const struct ps_task *t = &s->task[i];

		if (!wanted(f, t))
			continue;
		printf("%7" PRId32 " ", t->tgid);
		if (s->threads)
			printf("%7" PRId32 " ", t->pid);
		printf("%7" PRId32 " %c %3" PRIu32 " ", t->ppid,
		       ps_state_letter(t->state, t->exit_state), t->cpu);
		if (!s->threads)
			printf("%4" PRId32 " ", t->nr_threads);
		printf("%9" PRIu64 " %8" PRIu64 " 0x%016" PRIx64 " %s\n",
		       kib(t->vsz_pages), kib(t->rss_pages), t->addr, t->comm);
	}
}

static void print_json(const struct ps_snap *s, const struct ps_filter *f)
{
	struct json j;

	json_init(&j, stdout);
	json_array_begin(&j, NULL);
	for (size_t i = 0; i < s->nr; i++) {
		const struct ps_task *t = &s->task[i];
		char st[2] = { ps_state_letter(t->state, t->exit_state), 0 };

		if (!wanted(f, t))
			continue;
		json_object_begin(&j, NULL);
		json_u64(&j, "pid", (uint64_t)t->tgid);
		json_u64(&j, "ppid", (uint64_t)t->ppid);
		json_str(&j, "state", st);
		json_str(&j, "comm", t->comm);
		json_u64(&j, "tid", (uint64_t)t->pid);
		json_hex(&j, "task", t->addr);
		json_u64(&j, "cpu", t->cpu);
		json_u64(&j, "threads", (uint64_t)t->nr_threads);
		json_u64(&j, "vsz_kib", kib(t->vsz_pages));
		json_u64(&j, "rss_kib", kib(t->rss_pages));
		json_object_end(&j);
	}
	json_array_end(&j);
}

/* --pid LIST: numbers as every verb reads them, 0 .. PID_MAX. */
static int parse_pids(const char *arg, struct ps_filter *f)
{
	char buf[1024], *save = NULL, *tok;
	uint64_t v;

	if (strlen(arg) >= sizeof(buf))
		return kmemctl_usage_err("ps: --pid list too long");
	strcpy(buf, arg);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (f->npid == MAX_FILTER)
			return kmemctl_usage_err("ps: at most %d pids", MAX_FILTER);
		if (parse_u64(tok, 0, PID_MAX, &v))
			return kmemctl_usage_err("ps: bad pid '%.40s': a number "
						 "from 0 to %d", tok, PID_MAX);
		f->pid[f->npid++] = (int32_t)v;
	}
	if (!f->npid)
		return kmemctl_usage_err("ps: --pid needs a pid");
	return KMEMCTL_EXIT_OK;
}

/* --comm LIST: names of at most 15 bytes (TASK_COMM_LEN - 1). */
static int parse_comms(const char *arg, struct ps_filter *f)
{
	char *save = NULL, *tok;

	if (strlen(arg) >= sizeof(f->comm_buf))
		return kmemctl_usage_err("ps: --comm list too long");
	strcpy(f->comm_buf, arg);
	for (tok = strtok_r(f->comm_buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (f->ncomm == MAX_FILTER)
			return kmemctl_usage_err("ps: at most %d names", MAX_FILTER);
		if (strlen(tok) > 15)
			return kmemctl_usage_err("ps: comm '%.40s' is longer "
						 "than 15 bytes", tok);
		f->comm[f->ncomm++] = tok;
	}
	if (!f->ncomm)
		return kmemctl_usage_err("ps: --comm needs a name");
	return KMEMCTL_EXIT_OK;
}

static int parse_states(const char *arg, struct ps_filter *f)
{
	size_t bad = strspn(arg, "RSDTtXZPI");

	if (!*arg || arg[bad])
		return kmemctl_usage_err("ps: bad state '%.1s' in '%.20s': "
					 "letters of R S D T t X Z P I",
					 arg[bad] ? arg + bad : "", arg);
	f->state = arg;
	return KMEMCTL_EXIT_OK;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void print_summary(const struct ps_snap *s, long loops, uint64_t ns,
			  bool json)
{
	double per = (double)ns / (double)loops;
	struct json j;

	if (!json) {
		printf("backend: %s  tasks: %zu  snapshots: %ld  "
		       "time per snapshot: %.1f us\n", ps_backend_name(s->backend),
		       s->nr, loops, per / 1000.0);
		return;
	}
	json_init(&j, stdout);
	json_object_begin(&j, NULL);
	json_str(&j, "backend", ps_backend_name(s->backend));
	json_u64(&j, "tasks", s->nr);
	json_u64(&j, "snapshots", (uint64_t)loops);
	json_u64(&j, "ns_per_snapshot", (uint64_t)(per + 0.5));
	json_object_end(&j);
}

struct ps_opts {
	const char *backend, *pid, *comm, *state;
	uint64_t loops;			/* 0: one snapshot, printed */
	bool threads;
};

int kmemctl_ps(const struct kmemctl *ctx, int argc, char **argv)
{
	static const struct kmemctl_opt opts[] = {
		KMEMCTL_STR("backend", 'b', struct ps_opts, backend),
		KMEMCTL_U64("loop", 'l', struct ps_opts, loops, 1, INT_MAX, NULL,
			    "a count from 1"),
		KMEMCTL_FLAG("threads", 'T', struct ps_opts, threads),
		KMEMCTL_STR("pid", 'p', struct ps_opts, pid),
		KMEMCTL_STR("comm", 'c', struct ps_opts, comm),
		KMEMCTL_STR("state", 's', struct ps_opts, state),
		{ NULL }
	};
	static const struct kmemctl_cli cli = { .verb = "ps", .help = help, .opts = opts };
	enum ps_backend b = PS_BACKEND_WALK;
	struct ps_filter filter = { .npid = 0 };
	struct ps_opts o = { NULL };
	struct kmemdev *h;
	struct ps_snap s;
	long loops;
	uint64_t t0;
	bool json;
	int err, rc;

	rc = kmemctl_parse(ctx, &cli, argc, argv, &o, &json);
	if (rc != KMEMCTL_PARSED)
		return rc;
	if (o.backend && ps_backend_parse(o.backend, &b))
		return kmemctl_usage_err("ps: unknown backend '%s' (kcore, mmap, "
					 "readv, walk)", o.backend);
	rc = o.pid ? parse_pids(o.pid, &filter) : KMEMCTL_EXIT_OK;
	if (!rc && o.comm)
		rc = parse_comms(o.comm, &filter);
	if (!rc && o.state)
		rc = parse_states(o.state, &filter);
	if (rc)
		return rc;
	loops = (long)o.loops;

	if (open_for(ctx, o.backend != NULL, &b, &h))
		return KMEMCTL_EXIT_ERROR;
	err = ps_snap_init(&s, h, b, PS_FIELDS_PS);
	if (err) {
		init_error(&s, b, err);
		goto out;
	}
	s.threads = o.threads;
	t0 = now_ns();
	for (long i = 0; i < (loops ? loops : 1) && !err; i++)
		err = ps_snap_take(&s);
	if (err) {
		kmemctl_err(s.err_op, err, "ps: %s", s.err_obj);
		goto out;
	}
	if (loops) {
		print_summary(&s, loops, now_ns() - t0, json);
	} else {
		ps_snap_sort(&s);
		if (json)
			print_json(&s, &filter);
		else
			print_table(&s, &filter);
	}
out:
	ps_snap_fini(&s);
	kmemdev_close(h);
	return err ? KMEMCTL_EXIT_ERROR : KMEMCTL_EXIT_OK;
}
