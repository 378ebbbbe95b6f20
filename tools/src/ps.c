// SPDX-License-Identifier: GPL-2.0
/* kmemctl ps: processes from the kernel's task list, read four ways. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "json.h"
#include "kmemctl.h"
#include "ps_snapshot.h"

static void help(void)
{
	printf("Usage: kmemctl [--device PATH] ps [--backend NAME] [--json] "
	       "[--loop N]\n"
	       "List processes (thread-group leaders and kernel threads, as "
	       "ps does) from the\n"
	       "kernel's task list, starting at init_task; offsets come from "
	       "the kernel's BTF.\n"
	       "  -b, --backend NAME  how to read kernel memory:\n"
	       "        kcore  /proc/kcore, one pread() per field\n"
	       "        mmap   the device's read-only mapping, no system call\n"
	       "        readv  one READV ioctl per task\n"
	       "        walk   one WALK ioctl for the whole list\n"
	       "      default: walk if the driver has it, else mmap, else "
	       "readv, else kcore\n"
	       "      (also when the device is absent)\n"
	       "  -j, --json          a JSON array of {pid, ppid, state, comm}\n"
	       "  -l, --loop N        take N snapshots and print only a summary "
	       "(tasks,\n"
	       "                      snapshots, time per snapshot)\n"
	       "Columns: PID, PPID (the real parent's tgid), S (the state "
	       "letter of\n"
	       "/proc/PID/stat: R S D T t X Z P I), COMM.\n");
}

/* N: decimal, 1 .. INT_MAX. */
static int parse_count(const char *s, long *n)
{
	char *end;

	errno = 0;
	*n = strtol(s, &end, 10);
	if (errno || end == s || *end || *n < 1 || *n > INT_MAX)
		return -EINVAL;
	return 0;
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

static void print_table(const struct ps_snap *s)
{
	printf("%7s %7s S COMM\n", "PID", "PPID");
	for (size_t i = 0; i < s->nr; i++) {
		const struct ps_task *t = &s->task[i];

		printf("%7" PRId32 " %7" PRId32 " %c %s\n", t->pid, t->ppid,
		       ps_state_letter(t->state, t->exit_state), t->comm);
	}
}

static void print_json(const struct ps_snap *s)
{
	struct json j;

	json_init(&j, stdout);
	json_array_begin(&j, NULL);
	for (size_t i = 0; i < s->nr; i++) {
		const struct ps_task *t = &s->task[i];
		char st[2] = { ps_state_letter(t->state, t->exit_state), 0 };

		json_object_begin(&j, NULL);
		json_u64(&j, "pid", (uint64_t)t->pid);
		json_u64(&j, "ppid", (uint64_t)t->ppid);
		json_str(&j, "state", st);
		json_str(&j, "comm", t->comm);
		json_object_end(&j);
	}
	json_array_end(&j);
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

int kmemctl_ps(const struct kmemctl *ctx, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "backend", required_argument, NULL, 'b' },
		{ "json",    no_argument,       NULL, 'j' },
		{ "loop",    required_argument, NULL, 'l' },
		{ "help",    no_argument,       NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	enum ps_backend b = PS_BACKEND_WALK;
	bool json = false, chosen = false;
	struct kmemdev *h;
	struct ps_snap s;
	long loops = 0;
	uint64_t t0;
	int c, err;

	while ((c = getopt_long(argc, argv, ":b:jl:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'b':
			if (ps_backend_parse(optarg, &b))
				return kmemctl_usage_err("ps: unknown backend "
							 "'%s' (kcore, mmap, "
							 "readv, walk)", optarg);
			chosen = true;
			break;
		case 'j':
			json = true;
			break;
		case 'l':
			if (parse_count(optarg, &loops))
				return kmemctl_usage_err("ps: bad --loop '%s': "
							 "a count from 1", optarg);
			break;
		case 'h':
			help();
			return KMEMCTL_EXIT_OK;
		default:
			return kmemctl_bad_option(c, argv);
		}
	}
	if (kmemctl_operands("ps", argc, argv, 0, 0, NULL))
		return KMEMCTL_EXIT_USAGE;

	if (open_for(ctx, chosen, &b, &h))
		return KMEMCTL_EXIT_ERROR;
	err = ps_snap_init(&s, h, b, PS_FIELDS_PS);
	if (err) {
		init_error(&s, b, err);
		goto out;
	}
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
			print_json(&s);
		else
			print_table(&s);
	}
out:
	ps_snap_fini(&s);
	kmemdev_close(h);
	return err ? KMEMCTL_EXIT_ERROR : KMEMCTL_EXIT_OK;
}
