// SPDX-License-Identifier: GPL-2.0
/*
 * kmemctl ps and what it stands on: its task list against /proc (taken
 * before and after it), its four backends against each other, and the
 * library pieces they use that only a real kernel can test - kmemdev_read()
 * of module memory through the READV fallback, kmemdev_readv() batching
 * past the driver's limits, kmemdev_walk_all() resuming, the kcore backend
 * on the real /proc/kcore, BTF from /sys/kernel/btf/vmlinux.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kmemdev.h"
#include "ps_snapshot.h"
#include "vmtest.h"

#define MAX_PROCS	4096
#define TRIES		3	/* a guest is quiet, not frozen: kworkers come */
#define OUT_SIZE	(256 << 10)

struct proc {
	int pid, ppid;
	char state;
	char comm[64];
};

struct listing {
	struct proc p[MAX_PROCS];
	int n;
};

static struct kmemdev *open_kind(int kind)
{
	KMEMDEV_OPTS(kmemdev_open_opts, opts, .backend = kind);
	struct kmemdev *h;

	ck_assert_int_eq(kmemdev_open(&h, &opts), 0);
	return h;
}

/* /proc/PID/stat: "pid (comm) S ppid ..."; comm may hold ')' and blanks. */
static bool read_stat(int pid, struct proc *p)
{
	char path[64], buf[512], *open, *close;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "re");
	if (!f)
		return false;	/* gone meanwhile */
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	open = strchr(buf, '(');
	close = strrchr(buf, ')');
	if (!open || !close || close < open ||
	    sscanf(close + 1, " %c %d", &p->state, &p->ppid) != 2)
		return false;
	p->pid = pid;
	snprintf(p->comm, sizeof(p->comm), "%.*s", (int)(close - open - 1),
		 open + 1);
	return true;
}

static void list_proc(struct listing *l)
{
	DIR *d = opendir("/proc");
	struct dirent *e;

	ck_assert_ptr_nonnull(d);
	l->n = 0;
	while ((e = readdir(d))) {
		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		ck_assert_int_lt(l->n, MAX_PROCS);
		if (read_stat(atoi(e->d_name), &l->p[l->n]))
			l->n++;
	}
	closedir(d);
}

static const struct proc *find(const struct listing *l, int pid)
{
	for (int i = 0; i < l->n; i++)
		if (l->p[i].pid == pid)
			return &l->p[i];
	return NULL;
}

/*
 * /proc/PID/stat shows task->comm, except for kernel threads whose longer
 * name (workqueue workers' "kworker/0:1-events", long kthread names) it
 * prints in full: ours must be a prefix of it.
 */
static bool same_comm(const char *ours, const char *proc)
{
	size_t n = strlen(ours);

	return n && !strncmp(ours, proc, n);
}

/* the lines of kmemctl ps: PID PPID S CPU THR VSZ RSS TASK COMM */
static void parse_ps(const char *out, struct listing *l)
{
	const char *line = strchr(out, '\n');

	ck_assert_ptr_nonnull(line);	/* header */
	ck_assert_ptr_nonnull(strstr(out, "PID"));
	l->n = 0;
	for (line++; *line; line = strchr(line, '\n') + 1) {
		struct proc *p = &l->p[l->n];
		int at = 0;

		ck_assert_int_lt(l->n, MAX_PROCS);
		/* PID PPID S CPU THR VSZ RSS TASK COMM */
		ck_assert_int_eq(sscanf(line, "%d %d %c %*u %*d %*u %*u %*s %n",
					&p->pid, &p->ppid, &p->state, &at), 3);
		snprintf(p->comm, sizeof(p->comm), "%.*s",
			 (int)strcspn(line + at, "\n"), line + at);
		l->n++;
	}
}

/*
 * ps vs. /proc listings a (before) and b (after).  Every process in both
 * listings, unchanged, must be in ps with its comm and ppid; everything ps
 * lists must be in one of them, but for kmemctl itself, which came and
 * went between the two.  Returns a description of the first mismatch.
 */
static const char *compare_with_proc(const struct listing *ps,
				     const struct listing *a,
				     const struct listing *b, char *why,
				     size_t len)
{
	int self = 0;

	for (int i = 0; i < a->n; i++) {
		const struct proc *pa = &a->p[i], *pb = find(b, pa->pid), *k;

		if (!pb || strcmp(pa->comm, pb->comm) || pa->ppid != pb->ppid)
			continue;
		k = find(ps, pa->pid);
		if (!k || !same_comm(k->comm, pa->comm) || k->ppid != pa->ppid) {
			snprintf(why, len, "pid %d (%s, ppid %d): ps says %s "
				 "(%s, ppid %d)", pa->pid, pa->comm, pa->ppid,
				 k ? "" : "nothing", k ? k->comm : "",
				 k ? k->ppid : -1);
			return why;
		}
	}
	for (int i = 0; i < ps->n; i++) {
		const struct proc *k = &ps->p[i];

		if (find(a, k->pid) || find(b, k->pid))
			continue;
		if (!strcmp(k->comm, "kmemctl") && !self++)
			continue;
		snprintf(why, len, "ps lists pid %d (%s), /proc does not",
			 k->pid, k->comm);
		return why;
	}
	return self == 1 ? NULL : "kmemctl does not list itself";
}

START_TEST(kmemctl_ps_matches_proc)
{
	static struct listing a, b, ps;
	static char out[OUT_SIZE], err[4096];
	char *argv[] = { "kmemctl", "ps", NULL };
	const char *why = "";
	char buf[256];

	for (int t = 0; t < TRIES && why; t++) {
		list_proc(&a);
		ck_assert_int_eq(vt_exec(0, 0, argv, out, sizeof(out), err,
					 sizeof(err)), 0);
		list_proc(&b);
		ck_assert_str_eq(err, "");
		parse_ps(out, &ps);
		ck_assert_int_gt(ps.n, 2);
		why = compare_with_proc(&ps, &a, &b, buf, sizeof(buf));
		if (why)
			printf("ps_test: try %d: %s\n", t + 1, why);
	}
	ck_assert_msg(!why, "kmemctl ps differs from /proc: %s", why);
	/* init and kthreadd are children of init_task (pid 0) */
	ck_assert_int_eq(find(&ps, 1)->ppid, 0);
	ck_assert_int_eq(find(&ps, 2)->ppid, 0);
	ck_assert_str_eq(find(&ps, 2)->comm, "kthreadd");
}
END_TEST

/* Take all four snapshots back to back; 0 if they agree on pid/ppid/comm. */
static int snapshots_agree(struct ps_snap *s, char *why, size_t len)
{
	for (int i = 0; i < PS_BACKEND_COUNT; i++) {
		ck_assert_int_eq(ps_snap_take(&s[i]), 0);
		ps_snap_sort(&s[i]);
	}
	for (int i = 1; i < PS_BACKEND_COUNT; i++) {
		if (s[i].nr != s[0].nr) {
			snprintf(why, len, "%s: %zu tasks, kcore %zu",
				 ps_backend_name(i), s[i].nr, s[0].nr);
			return 1;
		}
		for (size_t k = 0; k < s[0].nr; k++) {
			const struct ps_task *x = &s[0].task[k], *y = &s[i].task[k];

			if (x->pid != y->pid || x->ppid != y->ppid ||
			    strcmp(x->comm, y->comm) || x->addr != y->addr) {
				snprintf(why, len, "%s: pid %d ppid %d %s, "
					 "kcore: pid %d ppid %d %s",
					 ps_backend_name(i), y->pid, y->ppid,
					 y->comm, x->pid, x->ppid, x->comm);
				return 1;
			}
		}
	}
	return 0;
}

static const struct ps_task *find_task(const struct ps_snap *s, int pid)
{
	for (size_t k = 0; k < s->nr; k++)
		if (s->task[k].pid == pid)
			return &s->task[k];
	return NULL;
}

START_TEST(four_backends_agree)
{
	struct kmemdev *dev = open_kind(KMEMDEV_BACKEND_DEVICE);
	struct kmemdev *kcore = open_kind(KMEMDEV_BACKEND_KCORE);
	struct ps_snap s[PS_BACKEND_COUNT];
	struct proc kthreadd;
	char why[256] = "";
	int bad = 1;

	ck_assert_str_eq(kmemdev_backend_name(kcore), "kcore");
	for (int i = 0; i < PS_BACKEND_COUNT; i++)
		ck_assert_int_eq(ps_snap_init(&s[i], i == PS_BACKEND_KCORE ?
					      kcore : dev, i, PS_FIELDS_PS), 0);
	for (int t = 0; t < TRIES && bad; t++) {
		bad = snapshots_agree(s, why, sizeof(why));
		if (bad)
			printf("ps_test: try %d: %s\n", t + 1, why);
	}
	ck_assert_msg(!bad, "backends differ: %s", why);

	for (int i = 0; i < PS_BACKEND_COUNT; i++) {
		const struct ps_task *me = find_task(&s[i], getpid());
		const struct ps_task *kt = find_task(&s[i], 2);

		ck_assert_ptr_nonnull(me);
		ck_assert_int_eq(me->tgid, getpid());
		ck_assert_int_eq(me->ppid, getppid());
		ck_assert_str_eq(me->comm, "ps_test");
		/* the reader is running while it reads itself */
		ck_assert_int_eq(ps_state_letter(me->state, me->exit_state), 'R');
		ck_assert_ptr_nonnull(kt);
		ck_assert(read_stat(2, &kthreadd));
		ck_assert_int_eq(ps_state_letter(kt->state, kt->exit_state),
				 kthreadd.state);
		ck_assert_ptr_null(find_task(&s[i], 0));	/* the head */
	}
	for (int i = 0; i < PS_BACKEND_COUNT; i++)
		ps_snap_fini(&s[i]);
	kmemdev_close(dev);
	kmemdev_close(kcore);
}
END_TEST

START_TEST(default_backend_is_walk)
{
	struct kmemdev *h;
	enum ps_backend b;

	ck_assert_int_eq(kmemdev_open(&h, NULL), 0);
	ck_assert_str_eq(kmemdev_backend_name(h), "kmem_ro");
	ck_assert_int_eq(ps_backend_default(h, &b), 0);
	ck_assert_int_eq(b, PS_BACKEND_WALK);
	kmemdev_close(h);
}
END_TEST

/* First text symbol of the module, from /proc/kallsyms. */
static uint64_t module_text(const char *module)
{
	char line[512], mod[64], type;
	uint64_t addr, found = 0;
	FILE *f = fopen("/proc/kallsyms", "re");

	ck_assert_ptr_nonnull(f);
	while (!found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%" SCNx64 " %c %*s [%63[^]]]", &addr, &type,
			   mod) == 3 && (type == 't' || type == 'T') &&
		    !strcmp(mod, module))
			found = addr;
	fclose(f);
	return found;
}

START_TEST(read_module_through_readv)
{
	uint64_t addr = module_text("kmem_ro");
	unsigned char lib[300], ref[300], kc[300];
	struct kmemdev *h, *kcore;
	const void *p;

	ck_assert_uint_ne(addr, 0);
	ck_assert_int_eq(kmemdev_open(&h, NULL), 0);	/* AUTO: the device */
	ck_assert_str_eq(kmemdev_backend_name(h), "kmem_ro");
	/* not mappable: served by READV */
	ck_assert_int_eq(kmemdev_map(h, addr, 8, &p), -ENXIO);
	ck_assert_int_eq(vt_kcore_read(addr, ref, sizeof(ref)), 0);
	memset(lib, 0, sizeof(lib));
	ck_assert_int_eq(kmemdev_read(h, addr, lib, 64), 0);	/* stack bounce */
	ck_assert_mem_eq(lib, ref, 64);
	ck_assert_int_eq(kmemdev_read(h, addr, lib, sizeof(lib)), 0);
	ck_assert_mem_eq(lib, ref, sizeof(lib));
	/* the kcore backend reads the same bytes */
	kcore = open_kind(KMEMDEV_BACKEND_KCORE);
	ck_assert_int_eq(kmemdev_read(kcore, addr, kc, sizeof(kc)), 0);
	ck_assert_mem_eq(kc, ref, sizeof(kc));
	/* a user address: READV's EINVAL, buffer untouched */
	memset(lib, 0xa5, sizeof(lib));
	ck_assert_int_eq(kmemdev_read(h, 0x400000, lib, 8), -EINVAL);
	ck_assert_uint_eq(lib[0], 0xa5);
	kmemdev_close(kcore);
	kmemdev_close(h);
}
END_TEST

START_TEST(kcore_info_matches_device)
{
	struct kmemdev *dev = open_kind(KMEMDEV_BACKEND_DEVICE);
	struct kmemdev *kcore = open_kind(KMEMDEV_BACKEND_KCORE);
	KMEMDEV_ARG(kmem_ro_info, d);
	KMEMDEV_ARG(kmem_ro_info, k);

	ck_assert_int_ge(kmemdev_info(dev, &d, NULL, 0), 1);
	ck_assert_int_ge(kmemdev_info(kcore, &k, NULL, 0), 1);
	ck_assert_uint_eq(k.page_offset, d.page_offset);
	ck_assert_uint_eq(k.kernel_map, d.kernel_map);
	ck_assert_uint_eq(k.phys_base, d.phys_base);
	ck_assert_uint_eq(k.text_start, d.text_start);
	ck_assert_uint_eq(k.text_end, d.text_end);
	ck_assert_uint_eq(k.modules_start, d.modules_start);
	ck_assert_uint_eq(k.features, 0);
	kmemdev_close(dev);
	kmemdev_close(kcore);
}
END_TEST

#define MANY	1500	/* > KMEM_RO_READV_MAX_SEGS */

START_TEST(readv_splits_and_resumes)
{
	static struct kmem_ro_iov iov[MANY];
	static uint64_t val[MANY];
	struct kmem_ro_range ram[64];
	KMEMDEV_ARG(kmem_ro_info, info);
	unsigned char *big, *ref;
	size_t big_len = KMEM_RO_READV_MAX_BYTES + (1 << 20);
	uint64_t start = 0;
	unsigned int done = 0;
	struct kmemdev *h;
	const void *map;
	int n;

	ck_assert_int_eq(kmemdev_open(&h, NULL), 0);
	n = kmemdev_info(h, &info, ram, 64);
	ck_assert_int_ge(n, 1);
	for (int i = 0; i < MANY; i++)
		iov[i] = (struct kmem_ro_iov){
			.addr = info.text_start + (uint64_t)i * 4096 %
				(info.text_end - info.text_start - 8),
			.len = 8,
			.buf = (uintptr_t)&val[i],
		};
	iov[700].addr = 0x400000;	/* one bad segment among them */
	ck_assert_int_eq(kmemdev_readv(h, iov, MANY, &done), 0);
	ck_assert_uint_eq(done, MANY);
	for (int i = 0; i < MANY; i++) {
		uint64_t want;

		if (i == 700) {
			ck_assert_int_eq(iov[i].result, -EINVAL);
			continue;
		}
		ck_assert_int_eq(iov[i].result, 8);
		if (i % 100 == 1) {
			ck_assert_int_eq(vt_kcore_read(iov[i].addr, &want, 8), 0);
			ck_assert_uint_eq(val[i], want);
		}
	}

	/*
	 * One segment above KMEM_RO_READV_MAX_BYTES, from big RAM ranges.
	 * The suites before this one in the boot leave hardware-poisoned
	 * pages (read_test, readv_test, mmap_test), and one may lie in the
	 * span: it ends the read short, at a page the device refuses; then
	 * the next span is read.
	 */
	big = malloc(big_len);
	ck_assert_ptr_nonnull(big);
	for (int i = 0; i < n && i < 64 && !start; i++)
		for (uint64_t at = (ram[i].start + (1 << 20)) & ~0xfffULL;
		     at + big_len + (1 << 20) <= ram[i].end; at += big_len) {
			char page[4096];
			int64_t got;

			iov[0] = (struct kmem_ro_iov){
				.addr = info.page_offset + at, .len = big_len,
				.buf = (uintptr_t)big,
			};
			ck_assert_int_eq(kmemdev_readv(h, iov, 1, &done), 0);
			ck_assert_uint_eq(done, 1);
			got = iov[0].result;
			if (got == (int64_t)big_len) {
				start = at;
				break;
			}
			/* short at the refused page, or its errno if it is the first */
			if (got == -EPERM)
				got = 0;
			ck_assert_int_ge(got, 0);
			ck_assert_uint_eq(got % 4096, 0);
			ck_assert_int_eq(kmemdev_read(h, iov[0].addr + got, page, sizeof(page)),
					 -EPERM);
			printf("ps_test: a refused page at %#llx, %lld bytes into the span\n",
			       (unsigned long long)(at + got), (long long)got);
		}
	ck_assert_uint_ne(start, 0);
	/* compare the last page (read by the second ioctl) with the mapping */
	ck_assert_int_eq(kmemdev_map(h, info.page_offset + start + big_len - 4096,
				     4096, &map), 0);
	ref = malloc(4096);
	memcpy(ref, map, 4096);
	ck_assert_mem_eq(big + big_len - 4096, ref, 64);
	free(ref);
	free(big);
	kmemdev_close(h);
}
END_TEST

START_TEST(walk_all_grows_and_caps)
{
	struct kmemdev *h = open_kind(KMEMDEV_BACKEND_DEVICE);
	struct ps_snap s;
	struct kmem_ro_field f;
	struct kmem_ro_walk w;
	size_t cap = 16;
	void *buf = malloc(cap);
	uint32_t nodes, pid_off, size;
	int32_t first_pid;

	ck_assert_int_eq(ps_snap_init(&s, h, PS_BACKEND_READV, PS_FIELDS_PID_COMM), 0);
	ck_assert_int_eq(ps_snap_take(&s), 0);
	ck_assert_int_gt(s.nr, 5);
	ck_assert_int_eq(kmemdev_btf_member(h, "task_struct", "pid", &pid_off,
					    &size), 0);
	f = (struct kmem_ro_field){ .offset = pid_off, .len = size };
	w = (struct kmem_ro_walk){
		.size = sizeof(w),
		.flags = KMEM_RO_WALK_NODE_ADDR,
		.head = s.init_task + s.tasks_off,
		.link_offset = s.tasks_off,
		.fields_addr = (uintptr_t)&f,
		.fields_count = 1,
		.max_nodes = 5,
	};
	/* capped at 5 nodes: -E2BIG, the 5 kept */
	ck_assert_int_eq(kmemdev_walk_all(h, &w, &buf, &cap, &nodes), -E2BIG);
	ck_assert_uint_eq(nodes, 5);
	ck_assert_uint_eq(w.max_nodes, 5);
	ck_assert_uint_eq(w.status, KMEM_RO_WALK_MAX_REACHED);
	memcpy(&first_pid, (char *)buf + 8, 4);
	ck_assert_int_eq(first_pid, s.task[0].pid);
	/* whole list, from a 16-byte buffer: grown on BUF_FULL */
	w.max_nodes = 0;
	ck_assert_int_eq(kmemdev_walk_all(h, &w, &buf, &cap, &nodes), 0);
	ck_assert_uint_eq(w.status, KMEM_RO_WALK_DONE);
	ck_assert_uint_ge(cap, nodes * 12);
	/* the list changes little between two reads of a quiet guest */
	ck_assert_int_le(abs((int)nodes - (int)s.nr), 2);
	free(buf);
	ps_snap_fini(&s);
	kmemdev_close(h);
}
END_TEST

START_TEST(btf_from_guest_kernel)
{
	struct kmemdev *h = open_kind(KMEMDEV_BACKEND_DEVICE);
	uint32_t off, size;

	ck_assert_int_eq(kmemdev_btf_member(h, "task_struct", "pid", &off, &size), 0);
	ck_assert_uint_eq(size, 4);
	ck_assert_int_eq(kmemdev_btf_member(h, "list_head", "next", &off, &size), 0);
	ck_assert_uint_eq(off, 0);
	ck_assert_int_eq(kmemdev_btf_member(h, "task_struct", "__state", NULL, &size), 0);
	ck_assert_uint_eq(size, 4);	/* both kernels are past 5.14 */
	ck_assert_int_eq(kmemdev_btf_member(h, "task_struct", "state", NULL, NULL),
			 -ENOENT);
	kmemdev_close(h);
}
END_TEST

START_TEST(kmemctl_ps_json_loop_backends)
{
	static char out[OUT_SIZE], err[4096];
	char *json[] = { "kmemctl", "ps", "--json", NULL };
	char *bad[] = { "kmemctl", "ps", "--backend", "dma", NULL };
	char *loop[] = { "kmemctl", "ps", "--backend", NULL, "--loop", "3", NULL };
	static const char *const names[] = { "kcore", "mmap", "readv", "walk" };

	ck_assert_int_eq(vt_exec(0, 0, json, out, sizeof(out), err, sizeof(err)), 0);
	ck_assert_int_eq(out[0], '[');
	ck_assert_ptr_nonnull(strstr(out, "{\"pid\":1,\"ppid\":0,\"state\":\""));
	ck_assert_ptr_nonnull(strstr(out, "\"comm\":\"kthreadd\""));
	for (int i = 0; i < 4; i++) {
		char want[64];

		loop[3] = (char *)names[i];
		ck_assert_int_eq(vt_exec(0, 0, loop, out, sizeof(out), err,
					 sizeof(err)), 0);
		snprintf(want, sizeof(want), "backend: %s  tasks: ", names[i]);
		ck_assert_msg(strstr(out, want), "%s", out);
		ck_assert_ptr_nonnull(strstr(out, "snapshots: 3"));
		ck_assert_int_eq(vt_count_lines(out), 1);
	}
	ck_assert_int_eq(vt_exec(0, 0, bad, out, sizeof(out), err, sizeof(err)), 2);
	ck_assert_int_eq(vt_count_lines(err), 1);
}
END_TEST

/*
 * The module's default (mmap_ram=0): ps picks WALK and runs; asking for
 * the mmap backend is one line that names the opt-in.
 */
START_TEST(mmap_backend_names_the_opt_in)
{
	static char out[OUT_SIZE], err[4096];
	char *mmap_ps[] = { "kmemctl", "ps", "--backend", "mmap", NULL };
	char *plain[] = { "kmemctl", "ps", "--loop", "1", NULL };

	ck_assert_int_eq(vt_file_has("/sys/module/kmem_ro/parameters/mmap_ram", "N"), 1);
	ck_assert_msg(vt_exec(0, 0, plain, out, sizeof(out), err, sizeof(err)) == 0, "%s", err);
	ck_assert_msg(strstr(out, "backend: walk  tasks: "), "%s", out);
	ck_assert_int_eq(vt_exec(0, 0, mmap_ps, out, sizeof(out), err, sizeof(err)), 1);
	ck_assert_int_eq(vt_count_lines(err), 1);
	ck_assert_msg(strstr(err, "mmap_ram=1"), "%s", err);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ps");
	TCase *tc = tcase_create("default");

	tcase_add_test(tc, mmap_backend_names_the_opt_in);
	suite_add_tcase(s, tc);

	/* the mmap backend and RAM mappings: the opt-in */
	tc = tcase_create("ps");
	tcase_add_checked_fixture(tc, vt_mmap_ram_on, vt_mmap_ram_off);

	tcase_add_test(tc, kmemctl_ps_matches_proc);
	tcase_add_test(tc, four_backends_agree);
	tcase_add_test(tc, default_backend_is_walk);
	tcase_add_test(tc, kmemctl_ps_json_loop_backends);
	suite_add_tcase(s, tc);

	tc = tcase_create("library");
	tcase_add_checked_fixture(tc, vt_mmap_ram_on, vt_mmap_ram_off);
	tcase_add_test(tc, read_module_through_readv);
	tcase_add_test(tc, kcore_info_matches_device);
	tcase_add_test(tc, readv_splits_and_resumes);
	tcase_add_test(tc, walk_all_grows_and_caps);
	tcase_add_test(tc, btf_from_guest_kernel);
	suite_add_tcase(s, tc);
	return vt_main(s);
}
