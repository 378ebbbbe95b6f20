// SPDX-License-Identifier: GPL-2.0
/*
 * Probe ioctls touch no user memory while holding a lock that another
 * file, the module notifier or release needs.  Each case stalls one call
 * in its copy to or from the user: the buffer is a userfaultfd page that
 * nobody answers (missing, or write-protected for a write after a read).
 * Meanwhile kmem_ro_testobj is unloaded and loaded again (the module
 * notifier walks every file's probes) and another file with probes is
 * closed; each of these must finish within 5 s.  A step that does not is
 * unblocked by answering the fault, so the case fails instead of hanging.
 * Then the fault is answered and the stalled call must give the right
 * result.  Also: LIST, which copies out in steps, lists every probe once
 * whatever its cap; a STATS with RESET that fails with EFAULT resets
 * nothing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "vmtest.h"

#define HOT		"__x64_sys_getppid"
#define OTHER		"__x64_sys_getpid"
#define TESTOBJ		"kmem_ro_testobj"
#define CALLS		10
#define BOUND_MS	5000	/* what the issue allows each step */
#define UNSTICK_MS	60000	/* a step or call after its fault was answered */
#define FAULT_MS	30000	/* for the stalled call to reach its fault */
#define CHUNK		256	/* the driver's ADD step (PROBE_CHUNK) */

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void call_n(long nr, int n)
{
	for (int i = 0; i < n; i++)
		syscall(nr);
}

/*
 * A file with one probe on @name, at its entry or (@kprobe) just past it,
 * with @flags; its id in *@id if not NULL.
 */
static int fd_with_probe(const char *name, bool kprobe, uint32_t flags, uint64_t *id)
{
	uint64_t addr = vt_kallsyms(name);
	struct kmem_ro_probe_spec s;
	int fd = vt_open_dev();

	ck_assert_uint_ne(addr, 0);
	vt_probe_spec(&s, name, addr, kprobe ? vt_after_fentry(addr) : 0, flags);
	ck_assert_int_eq(vt_probe_add(fd, &s, 1, NULL), 0);
	ck_assert_int_gt(s.result, 0);
	if (id)
		*id = s.result;
	return fd;
}

/* ---- a call stalled on a userfaultfd page ---- */

struct stall {
	const char *what;	/* the stalled call, for messages */
	int uffd;
	bool wp;		/* write-protected (else missing) */
	char *area;		/* @before ordinary pages, then the trap */
	size_t len;
	char *trap;
	char *fill;		/* what a missing trap page gets */
	bool answered;
	/* the call */
	int fd;
	unsigned long cmd;
	void *arg;
	int ret;
	atomic_bool returned;
	int done_pipe[2];
	pthread_t thread;
};

static long page_size(void)
{
	return sysconf(_SC_PAGESIZE);
}

/*
 * @before ordinary pages followed by one trap page.  A write-protected trap
 * holds what the caller writes to st->trap before stall_start(); a missing
 * one gets st->fill when answered.
 */
static void stall_init(struct stall *st, const char *what, size_t before, bool wp)
{
	struct uffdio_api api = { .api = UFFD_API };

	memset(st, 0, sizeof(*st));
	st->what = what;
	st->wp = wp;
	st->uffd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	ck_assert_msg(st->uffd >= 0, "userfaultfd: %s", strerror(errno));
	if (wp)
		api.features = UFFD_FEATURE_PAGEFAULT_FLAG_WP;
	ck_assert_msg(!ioctl(st->uffd, UFFDIO_API, &api), "UFFDIO_API: %s", strerror(errno));
	st->len = (before + 1) * page_size();
	st->area = mmap(NULL, st->len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(st->area, MAP_FAILED);
	memset(st->area, 0, before * page_size());
	st->trap = st->area + before * page_size();
	st->fill = aligned_alloc(page_size(), page_size());
	ck_assert_ptr_nonnull(st->fill);
	memset(st->fill, 0, page_size());
	if (wp)
		memset(st->trap, 0, page_size());	/* present: only writes trap */
}

static void stall_arm(struct stall *st)
{
	struct uffdio_register reg = {
		.range = { .start = (uintptr_t)st->trap, .len = page_size() },
		.mode = st->wp ? UFFDIO_REGISTER_MODE_WP : UFFDIO_REGISTER_MODE_MISSING,
	};

	ck_assert_msg(!ioctl(st->uffd, UFFDIO_REGISTER, &reg), "UFFDIO_REGISTER: %s",
		      strerror(errno));
	if (st->wp) {
		struct uffdio_writeprotect wp = {
			.range = reg.range, .mode = UFFDIO_WRITEPROTECT_MODE_WP,
		};

		ck_assert_msg(!ioctl(st->uffd, UFFDIO_WRITEPROTECT, &wp),
			      "UFFDIO_WRITEPROTECT: %s", strerror(errno));
	}
}

/* Let the stalled call go on; no assertion: also runs on the way to a failure. */
static void stall_answer(struct stall *st)
{
	struct uffdio_range range = { .start = (uintptr_t)st->trap, .len = page_size() };
	int err;

	if (st->answered)
		return;
	if (st->wp) {
		struct uffdio_writeprotect wp = { .range = range, .mode = 0 };

		err = ioctl(st->uffd, UFFDIO_WRITEPROTECT, &wp);
	} else {
		struct uffdio_copy copy = {
			.dst = range.start, .src = (uintptr_t)st->fill, .len = range.len,
		};

		err = ioctl(st->uffd, UFFDIO_COPY, &copy);
	}
	if (err)
		fprintf(stderr, "probe_lock: answering the fault: %s\n", strerror(errno));
	st->answered = true;
}

static void *stall_main(void *arg)
{
	struct stall *st = arg;

	st->ret = vt_ioctl(st->fd, st->cmd, st->arg);
	atomic_store(&st->returned, true);
	if (write(st->done_pipe[1], "x", 1) != 1)
		abort();
	return NULL;
}

/* Wait up to @ms for @pipefd to become readable: true if it did. */
static bool wait_readable(int pipefd, int ms)
{
	struct pollfd p = { .fd = pipefd, .events = POLLIN };
	int64_t end = now_ms() + ms;
	int left;

	while ((left = end - now_ms()) > 0)
		if (poll(&p, 1, left) == 1)
			return true;
	return false;
}

/* Start @cmd on @fd in a thread and wait until it faults on the trap. */
static void stall_start(struct stall *st, int fd, unsigned long cmd, void *arg)
{
	struct pollfd p = { .fd = st->uffd, .events = POLLIN };
	struct uffd_msg msg;

	st->fd = fd;
	st->cmd = cmd;
	st->arg = arg;
	ck_assert_int_eq(pipe2(st->done_pipe, O_CLOEXEC), 0);
	stall_arm(st);
	ck_assert_int_eq(pthread_create(&st->thread, NULL, stall_main, st), 0);
	if (poll(&p, 1, FAULT_MS) != 1) {
		stall_answer(st);
		pthread_join(st->thread, NULL);
		ck_abort_msg("%s never touched the trap page (returned %d)", st->what, st->ret);
	}
	ck_assert_int_eq(read(st->uffd, &msg, sizeof(msg)), sizeof(msg));
	ck_assert_uint_eq(msg.event, UFFD_EVENT_PAGEFAULT);
	ck_assert_uint_eq(msg.arg.pagefault.address & ~(uint64_t)(page_size() - 1),
			  (uintptr_t)st->trap);
	ck_assert_uint_eq(!!(msg.arg.pagefault.flags & UFFD_PAGEFAULT_FLAG_WP), st->wp);
}

/* Answer the fault and collect the call's return value. */
static int stall_finish(struct stall *st)
{
	ck_assert_msg(!atomic_load(&st->returned), "%s returned before its fault was answered",
		      st->what);
	stall_answer(st);
	ck_assert_msg(wait_readable(st->done_pipe[0], UNSTICK_MS),
		      "%s still stalled after its fault was answered", st->what);
	pthread_join(st->thread, NULL);
	close(st->done_pipe[0]);
	close(st->done_pipe[1]);
	close(st->uffd);
	return st->ret;
}

/* ---- the steps that must not wait for it ---- */

struct step {
	int (*fn)(void *);
	void *arg;
	int ret;
	int done_pipe[2];
};

static void *step_main(void *arg)
{
	struct step *s = arg;

	s->ret = s->fn(s->arg);
	if (write(s->done_pipe[1], "x", 1) != 1)
		abort();
	return NULL;
}

static void testobj_loaded(void)
{
	if (vt_module_refcnt(TESTOBJ) < 0)
		ck_assert_int_eq(vt_module_load(VMTEST_TESTOBJ_PATH, ""), 0);
}

/*
 * Run @fn(@arg) in a thread while @st is stalled; it must finish within
 * BOUND_MS.  If it does not, answer the fault (the step can then finish),
 * put kmem_ro_testobj back, and fail.  Returns @fn's result.
 */
static int step(struct stall *st, const char *what, int (*fn)(void *), void *arg)
{
	struct step s = { .fn = fn, .arg = arg };
	int64_t t0 = now_ms(), late;
	pthread_t t;
	bool in_time;

	ck_assert_int_eq(pipe2(s.done_pipe, O_CLOEXEC), 0);
	ck_assert_int_eq(pthread_create(&t, NULL, step_main, &s), 0);
	in_time = wait_readable(s.done_pipe[0], BOUND_MS);
	if (!in_time) {
		stall_answer(st);
		late = now_ms();
		if (!wait_readable(s.done_pipe[0], UNSTICK_MS))
			ck_abort_msg("%s hangs while %s is stalled, even once answered", what,
				     st->what);
		late = now_ms() - late;
		pthread_join(t, NULL);
		wait_readable(st->done_pipe[0], UNSTICK_MS);
		testobj_loaded();
		ck_abort_msg("%s took over %d ms while %s was stalled; it finished %lld ms after "
			     "the fault was answered", what, BOUND_MS, st->what, (long long)late);
	}
	pthread_join(t, NULL);
	close(s.done_pipe[0]);
	close(s.done_pipe[1]);
	printf("probe_lock: %s: %s in %lld ms\n", st->what, what, (long long)(now_ms() - t0));
	return s.ret;
}

static int unload_testobj(void *unused)
{
	(void)unused;
	return vt_module_unload(TESTOBJ);
}

static int load_testobj(void *fdp)
{
	return syscall(SYS_finit_module, *(int *)fdp, "", 0) ? -errno : 0;
}

static int close_fd(void *fdp)
{
	return close(*(int *)fdp) ? -errno : 0;
}

/* Closing @other (a file with probes), module unload and load. */
static void others_go_on(struct stall *st, int other)
{
	int ko = open(VMTEST_TESTOBJ_PATH, O_RDONLY | O_CLOEXEC);

	ck_assert_int_ge(ko, 0);
	ck_assert_int_ge(vt_module_refcnt(TESTOBJ), 0);
	ck_assert_int_eq(step(st, "close() of another file with probes", close_fd, &other), 0);
	ck_assert_int_eq(step(st, "delete_module(" TESTOBJ ")", unload_testobj, NULL), 0);
	ck_assert_int_eq(step(st, "finit_module(" TESTOBJ ")", load_testobj, &ko), 0);
	close(ko);
}

/* ---- LIST ---- */

static void list_stalled(uint64_t flags)
{
	uint64_t mine, theirs;
	int fd = fd_with_probe(HOT, false, 0, &mine);
	int other = fd_with_probe(HOT, false, KMEM_RO_PROBE_ENABLED, &theirs);
	struct kmem_ro_probe_info *info;
	struct kmem_ro_probe_list l = { .size = sizeof(l), .flags = flags };
	struct stall st;

	stall_init(&st, flags ? "PROBE_LIST with ALL_FILES" : "PROBE_LIST", 0, false);
	info = (void *)st.trap;
	l.buf_addr = (uintptr_t)info;
	l.cap = page_size() / sizeof(*info);
	stall_start(&st, fd, KMEM_RO_IOC_PROBE_LIST, &l);
	others_go_on(&st, other);
	ck_assert_int_eq(stall_finish(&st), 0);
	/* what it gathered before its copy: the closed file's probe too */
	ck_assert_uint_eq(l.count, flags ? 2 : 1);
	for (unsigned int i = 0; i < l.count; i++) {
		bool on = info[i].flags & KMEM_RO_PROBE_ENABLED;	/* only theirs */

		ck_assert_uint_eq(info[i].id, on ? theirs : mine);
		ck_assert_uint_eq(info[i].owner, getpid());
		ck_assert_uint_eq(info[i].addr, vt_kallsyms(HOT));
		ck_assert_ptr_nonnull(strstr(info[i].name, "getppid"));	/* or an alias */
		ck_assert(!on || flags);
	}
	if (flags)
		ck_assert((info[0].flags ^ info[1].flags) & KMEM_RO_PROBE_ENABLED);
	close(fd);
}

START_TEST(list_all_files_stalled)
{
	list_stalled(KMEM_RO_PROBE_LIST_ALL_FILES);
}
END_TEST

START_TEST(list_own_stalled)
{
	list_stalled(0);
}
END_TEST

/*
 * Up to @n distinct vmlinux text addresses from /proc/kallsyms, as
 * disabled entry probe specs: @s must hold @n.  Not the .cold parts gcc
 * splits off functions, no entry of any: 7.3's vmlinux (gcc-14) starts
 * its text with them, 1300 of the first 1500 symbols.
 */
static unsigned int text_symbols(struct kmem_ro_probe_spec *s, unsigned int n)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	unsigned long long addr, last = 0;
	char line[512], name[256], type, mod[64];
	unsigned int k = 0;

	ck_assert_ptr_nonnull(f);
	while (k < n && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s %63s", &addr, &type, name, mod) == 3 &&
		    (type == 't' || type == 'T') && addr > last && !strstr(name, ".cold") &&
		    strlen(name) < KMEM_RO_PROBE_NAME_LEN) {
			vt_probe_spec(&s[k++], name, addr, 0, 0);
			last = addr;
		}
	fclose(f);
	ck_assert_uint_eq(k, n);
	return k;
}

static void list(int fd, uint64_t flags, struct kmem_ro_probe_info *buf, unsigned int cap,
		 unsigned int count)
{
	struct kmem_ro_probe_list l = { .size = sizeof(l), .flags = flags,
					.buf_addr = (uintptr_t)buf, .cap = cap };

	memset(buf, 0xa5, (cap + 1) * sizeof(*buf));
	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_PROBE_LIST, &l), 0);
	ck_assert_uint_eq(l.count, count);
	ck_assert_uint_eq(buf[cap].id, 0xa5a5a5a5a5a5a5a5ULL);	/* nothing past @cap */
}

/*
 * LIST copies out in steps of a bounded kernel buffer, locks dropped in
 * between: with nothing changing meanwhile, every probe of every file is
 * listed once, whatever the cap, and a smaller cap gets the same first
 * entries.
 */
START_TEST(list_in_steps)
{
	enum { CANDIDATES = 1500, FILES = 2 };
	struct kmem_ro_probe_spec *s = calloc(FILES * CANDIDATES, sizeof(*s));
	unsigned int added[FILES], total = 0, caps[10], seen = 0;
	struct kmem_ro_probe_info *full, *part;
	int fd[FILES];

	ck_assert_ptr_nonnull(s);
	text_symbols(s, FILES * CANDIDATES);
	for (int f = 0; f < FILES; f++) {
		fd[f] = vt_open_dev();
		ck_assert_int_eq(vt_probe_add(fd[f], s + f * CANDIDATES, CANDIDATES, &added[f]), 0);
		ck_assert_uint_gt(added[f], CHUNK + 1);
		total += added[f];
	}
	full = calloc(total + 2, sizeof(*full));
	part = calloc(total + 2, sizeof(*part));
	ck_assert_ptr_nonnull(full);
	ck_assert_ptr_nonnull(part);
	list(fd[0], KMEM_RO_PROBE_LIST_ALL_FILES, full, total + 1, total);
	/* each probe once, as its spec said */
	for (unsigned int i = 0; i < FILES * CANDIDATES; i++) {
		unsigned int hits = 0;

		if (s[i].result <= 0)
			continue;
		for (unsigned int j = 0; j < total; j++)
			if (full[j].addr == s[i].addr) {
				ck_assert_uint_eq(full[j].id, s[i].result);
				ck_assert_uint_eq(full[j].owner, getpid());
				hits++;
			}
		ck_assert_uint_eq(hits, 1);
		seen++;
	}
	ck_assert_uint_eq(seen, total);
	caps[0] = 1;
	caps[1] = CHUNK - 1;
	caps[2] = CHUNK;
	caps[3] = CHUNK + 1;
	caps[4] = added[0] - 1;
	caps[5] = added[0];
	caps[6] = added[1];
	caps[7] = added[1] + 1;
	caps[8] = 2 * CHUNK + 1;
	caps[9] = total - 1;
	for (int c = 0; c < 10; c++) {
		list(fd[1], KMEM_RO_PROBE_LIST_ALL_FILES, part, caps[c], total);
		ck_assert_mem_eq(part, full, caps[c] * sizeof(*part));
	}
	/* one file's own, in id order */
	for (int f = 0; f < FILES; f++) {
		list(fd[f], 0, full, added[f] + 1, added[f]);
		for (unsigned int j = 0; j < added[f]; j++)
			ck_assert_uint_eq(full[j].id, j + 1);
		for (int c = 0; c < 4; c++) {
			list(fd[f], 0, part, caps[c], added[f]);
			ck_assert_mem_eq(part, full, caps[c] * sizeof(*part));
		}
	}
	for (int f = 0; f < FILES; f++)
		close(fd[f]);
	free(full);
	free(part);
	free(s);
}
END_TEST

/* ---- ADD ---- */

static int del_id(void *arg)
{
	uint64_t *a = arg;	/* fd, id */

	return vt_probe_ids(a[0], KMEM_RO_IOC_PROBE_DEL, 0, &a[1], 1, NULL, NULL);
}

static int disable_id(void *arg)
{
	uint64_t *a = arg;

	return vt_probe_ids(a[0], KMEM_RO_IOC_PROBE_DISABLE, 0, &a[1], 1, NULL, NULL);
}

/*
 * CHUNK + 1 specs whose last one, in the next step of the driver, starts
 * the trap page: [0] an enabled entry probe of HOT, then duplicates of it,
 * then an enabled entry probe of OTHER.  While the copy of the last one is
 * stalled, the first probe exists (its id is already written back) and
 * @meanwhile (DEL or DISABLE) acts on it; then the call must end with the
 * probes in the state the specs and @meanwhile say.
 */
static void add_second_step_stalled(int (*meanwhile)(void *), bool deleted)
{
	size_t before = (CHUNK * sizeof(struct kmem_ro_probe_spec) + page_size() - 1) / page_size();
	uint64_t hot = vt_kallsyms(HOT), other_addr = vt_kallsyms(OTHER), arg[2];
	struct kmem_ro_probe_add a = { .size = sizeof(a), .count = CHUNK + 1 };
	struct kmem_ro_probe_info info[4];
	struct kmem_ro_probe_list l = { .size = sizeof(l), .buf_addr = (uintptr_t)info, .cap = 4 };
	struct kmem_ro_probe_spec *s;
	int fd = vt_open_dev(), other = fd_with_probe(HOT, true, KMEM_RO_PROBE_ENABLED, NULL);
	struct stall st;

	ck_assert_uint_ne(other_addr, 0);
	stall_init(&st, "PROBE_ADD (copy of its second step)", before, false);
	s = (struct kmem_ro_probe_spec *)st.trap - CHUNK;
	vt_probe_spec(&s[0], HOT, hot, 0, KMEM_RO_PROBE_ENABLED);
	for (int i = 1; i < CHUNK; i++)
		vt_probe_spec(&s[i], HOT, hot, 0, KMEM_RO_PROBE_ENABLED);
	vt_probe_spec((struct kmem_ro_probe_spec *)st.fill, OTHER, other_addr, 0,
		      KMEM_RO_PROBE_ENABLED);
	a.specs_addr = (uintptr_t)s;
	stall_start(&st, fd, KMEM_RO_IOC_PROBE_ADD, &a);
	/* the first step is done and said so */
	ck_assert_int_gt(s[0].result, 0);
	for (int i = 1; i < CHUNK; i++)
		ck_assert_int_eq(s[i].result, -EEXIST);
	others_go_on(&st, other);
	arg[0] = fd;
	arg[1] = s[0].result;
	ck_assert_int_eq(step(&st, deleted ? "PROBE_DEL of its first probe" :
			      "PROBE_DISABLE of its first probe", meanwhile, arg), 0);
	ck_assert_int_eq(stall_finish(&st), 0);
	ck_assert_uint_eq(a.added, 2);
	ck_assert_int_gt(s[CHUNK].result, 0);

	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_PROBE_LIST, &l), 0);
	ck_assert_uint_eq(l.count, deleted ? 1 : 2);
	for (unsigned int i = 0; i < l.count; i++) {
		bool last = info[i].id == (uint64_t)s[CHUNK].result;

		ck_assert(last || info[i].id == (uint64_t)s[0].result);
		/* the DISABLE came after the ADD asked to enable it: it stays off */
		ck_assert_uint_eq(info[i].flags & KMEM_RO_PROBE_ENABLED,
				  last ? KMEM_RO_PROBE_ENABLED : 0);
	}
	call_n(SYS_getppid, CALLS);
	call_n(SYS_getpid, CALLS);
	ck_assert_uint_eq(vt_probe_hits(fd, s[CHUNK].result), CALLS);
	if (!deleted)
		ck_assert_uint_eq(vt_probe_hits(fd, s[0].result), 0);
	ck_assert_int_eq(vt_probe_ids(fd, KMEM_RO_IOC_PROBE_DEL, KMEM_RO_PROBE_ALL, NULL, 0, NULL,
				      NULL), 0);
	close(fd);
}

START_TEST(add_stalled_then_del)
{
	add_second_step_stalled(del_id, true);
}
END_TEST

START_TEST(add_stalled_then_disable)
{
	add_second_step_stalled(disable_id, false);
}
END_TEST

/* The specs are readable; writing their results back stalls. */
START_TEST(add_result_stalled)
{
	struct kmem_ro_probe_add a = { .size = sizeof(a), .count = 2 };
	uint64_t hot = vt_kallsyms(HOT);
	struct kmem_ro_probe_spec *s;
	int fd = vt_open_dev(), other = fd_with_probe(HOT, false, KMEM_RO_PROBE_ENABLED, NULL);
	struct stall st;

	stall_init(&st, "PROBE_ADD (write of its results)", 0, true);
	s = (struct kmem_ro_probe_spec *)st.trap;
	vt_probe_spec(&s[0], HOT, hot, 0, KMEM_RO_PROBE_ENABLED);
	vt_probe_spec(&s[1], HOT, hot, vt_after_fentry(hot), KMEM_RO_PROBE_ENABLED);
	a.specs_addr = (uintptr_t)s;
	stall_start(&st, fd, KMEM_RO_IOC_PROBE_ADD, &a);
	others_go_on(&st, other);
	ck_assert_int_eq(stall_finish(&st), 0);
	ck_assert_uint_eq(a.added, 2);
	ck_assert_int_gt(s[0].result, 0);
	ck_assert_int_gt(s[1].result, 0);
	call_n(SYS_getppid, CALLS);
	ck_assert_uint_eq(vt_probe_hits(fd, s[0].result), CALLS);
	ck_assert_uint_eq(vt_probe_hits(fd, s[1].result), CALLS);
	close(fd);
}
END_TEST

/* ---- STATS ---- */

START_TEST(stats_ids_stalled)
{
	uint64_t id, count = ~0ULL;
	int fd = fd_with_probe(HOT, false, KMEM_RO_PROBE_ENABLED, &id);
	int other = fd_with_probe(HOT, true, KMEM_RO_PROBE_ENABLED, NULL);
	struct kmem_ro_probe_ids a = { .size = sizeof(a), .count = 1,
				       .counts_addr = (uintptr_t)&count, .counts_cap = 1 };
	struct stall st;

	call_n(SYS_getppid, CALLS);
	stall_init(&st, "PROBE_STATS (copy of its ids)", 0, false);
	memcpy(st.fill, &id, sizeof(id));
	a.ids_addr = (uintptr_t)st.trap;
	stall_start(&st, fd, KMEM_RO_IOC_PROBE_STATS, &a);
	others_go_on(&st, other);
	ck_assert_int_eq(stall_finish(&st), 0);
	ck_assert_uint_eq(a.done, 1);
	ck_assert_uint_eq(count, CALLS);
	close(fd);
}
END_TEST

START_TEST(stats_counts_stalled)
{
	uint64_t id[2], *counts;
	struct kmem_ro_probe_ids a = { .size = sizeof(a), .counts_cap = 2,
				       .flags = KMEM_RO_PROBE_ALL | KMEM_RO_PROBE_RESET };
	struct kmem_ro_probe_spec s[2];
	int fd = vt_open_dev(), other = fd_with_probe(HOT, false, KMEM_RO_PROBE_ENABLED, NULL);
	uint64_t hot = vt_kallsyms(HOT);
	struct stall st;

	vt_probe_spec(&s[0], HOT, hot, 0, KMEM_RO_PROBE_ENABLED);
	vt_probe_spec(&s[1], HOT, hot, vt_after_fentry(hot), KMEM_RO_PROBE_ENABLED);
	ck_assert_int_eq(vt_probe_add(fd, s, 2, NULL), 0);
	id[0] = s[0].result;
	id[1] = s[1].result;
	call_n(SYS_getppid, CALLS);
	stall_init(&st, "PROBE_STATS with RESET (write of its counts)", 0, false);
	counts = (uint64_t *)st.trap;
	a.counts_addr = (uintptr_t)counts;
	stall_start(&st, fd, KMEM_RO_IOC_PROBE_STATS, &a);
	others_go_on(&st, other);
	ck_assert_int_eq(stall_finish(&st), 0);
	ck_assert_uint_eq(a.done, 2);
	ck_assert_uint_eq(counts[0], CALLS);
	ck_assert_uint_eq(counts[1], CALLS);
	ck_assert_uint_eq(vt_probe_hits(fd, id[0]), 0);
	ck_assert_uint_eq(vt_probe_hits(fd, id[1]), 0);
	close(fd);
}
END_TEST

/* Counts that could not be handed over are not lost to RESET. */
START_TEST(stats_reset_efault_resets_nothing)
{
	uint64_t hot = vt_kallsyms(HOT), ids[2], *ro;
	struct kmem_ro_probe_spec s[2];
	int fd = vt_open_dev();

	vt_probe_spec(&s[0], HOT, hot, 0, KMEM_RO_PROBE_ENABLED);
	vt_probe_spec(&s[1], HOT, hot, vt_after_fentry(hot), KMEM_RO_PROBE_ENABLED);
	ck_assert_int_eq(vt_probe_add(fd, s, 2, NULL), 0);
	ids[0] = s[0].result;
	ids[1] = s[1].result;
	call_n(SYS_getppid, CALLS);
	ro = mmap(NULL, page_size(), PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(ro, MAP_FAILED);
	ck_assert_int_eq(vt_probe_ids(fd, KMEM_RO_IOC_PROBE_STATS, KMEM_RO_PROBE_RESET, ids, 2, ro,
				      NULL), -EFAULT);
	ck_assert_uint_eq(vt_probe_hits(fd, ids[0]), CALLS);
	ck_assert_uint_eq(vt_probe_hits(fd, ids[1]), CALLS);
	ck_assert_int_eq(vt_probe_ids(fd, KMEM_RO_IOC_PROBE_STATS,
				      KMEM_RO_PROBE_ALL | KMEM_RO_PROBE_RESET, NULL, 0, ro, NULL),
			 -EFAULT);
	ck_assert_uint_eq(vt_probe_hits(fd, ids[0]), CALLS);
	ck_assert_uint_eq(vt_probe_hits(fd, ids[1]), CALLS);
	munmap(ro, page_size());
	close(fd);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("probe_lock");
	TCase *tc = tcase_create("stalled");

	tcase_add_test(tc, list_all_files_stalled);
	tcase_add_test(tc, list_own_stalled);
	tcase_add_test(tc, list_in_steps);
	tcase_add_test(tc, add_stalled_then_del);
	tcase_add_test(tc, add_stalled_then_disable);
	tcase_add_test(tc, add_result_stalled);
	tcase_add_test(tc, stats_ids_stalled);
	tcase_add_test(tc, stats_counts_stalled);
	tcase_add_test(tc, stats_reset_efault_resets_nothing);
	suite_add_tcase(s, tc);
	return vt_main(s);
}
