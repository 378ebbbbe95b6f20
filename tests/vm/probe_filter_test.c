// SPDX-License-Identifier: GPL-2.0
/*
 * KMEM_RO_IOC_PROBE_FILTER: a probe counts only the hits of one process
 * (every thread of it), of tasks of one name, or of both.  Worker
 * processes the test starts make known numbers of getppid() calls; the
 * counts must be exactly the matching workers' calls, through both
 * backends (ftrace at the entry, a kprobe inside).  Clearing counts every
 * hit again; each bad argument gets its errno; a pid is read in the
 * caller's pid namespace; a group member needs what ADD needs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vmtest.h"

#define HOT	"__x64_sys_getppid"
#define CALLS_A	700
#define CALLS_B	300
/* Others may call getppid() meanwhile (unfiltered counts): a little room. */
#define SLACK	50

/* ---- workers: processes that call getppid() when told ---- */

struct worker {
	pid_t pid;
	int cmd, ack;		/* our ends of its two pipes */
};

static void *calls_in_thread(void *arg)
{
	vt_call_getppid((long)arg);
	return NULL;
}

/* Read counts: n > 0 calls n times, n < 0 -n times in a new thread. */
static void worker_loop(int cmd, int ack)
{
	long n;

	while (read(cmd, &n, sizeof(n)) == sizeof(n) && n) {
		if (n > 0) {
			vt_call_getppid(n);
		} else {
			pthread_t t;

			if (pthread_create(&t, NULL, calls_in_thread, (void *)-n) ||
			    pthread_join(t, NULL))
				_exit(2);
		}
		if (write(ack, &n, sizeof(n)) != sizeof(n))
			_exit(3);
	}
	_exit(0);
}

static struct worker worker_start(const char *comm)
{
	int cmd[2], ack[2];
	struct worker w;

	ck_assert_int_eq(pipe(cmd), 0);
	ck_assert_int_eq(pipe(ack), 0);
	w.pid = fork();
	ck_assert_int_ge(w.pid, 0);
	if (!w.pid) {
		close(cmd[1]);
		close(ack[0]);
		if (prctl(PR_SET_NAME, comm))
			_exit(4);
		worker_loop(cmd[0], ack[1]);
	}
	close(cmd[0]);
	close(ack[1]);
	w.cmd = cmd[1];
	w.ack = ack[0];
	return w;
}

/* Tell @w to make @n calls (negative: in a new thread) and wait for them. */
static void worker_calls(const struct worker *w, long n)
{
	long got = 0;

	ck_assert_int_eq(write(w->cmd, &n, sizeof(n)), sizeof(n));
	ck_assert_int_eq(read(w->ack, &got, sizeof(got)), sizeof(got));
	ck_assert_int_eq(got, n);
}

/* 0 ends it: a later worker holds our end of its pipe too, no EOF comes. */
static void worker_stop(struct worker *w)
{
	long zero = 0;
	int status;

	ck_assert_int_eq(write(w->cmd, &zero, sizeof(zero)), sizeof(zero));
	close(w->cmd);
	close(w->ack);
	ck_assert_int_eq(waitpid(w->pid, &status, 0), w->pid);
	ck_assert_msg(WIFEXITED(status) && !WEXITSTATUS(status), "worker status %#x", status);
}

/* ---- the ioctl ---- */

static int set_filter(int fd, uint64_t flags, uint32_t pid, const char *comm)
{
	struct kmem_ro_probe_filter f = { .size = sizeof(f), .flags = flags, .pid = pid };

	if (comm)
		strncpy(f.comm, comm, sizeof(f.comm));
	return vt_ioctl(fd, KMEM_RO_IOC_PROBE_FILTER, &f);
}

/* Two enabled probes on HOT, ftrace and kprobe: ids[0], ids[1]. */
static void add_probes(int fd, uint64_t ids[2])
{
	uint64_t addr = vt_kallsyms(HOT);
	struct kmem_ro_probe_spec s[2];

	ck_assert_uint_ne(addr, 0);
	vt_probe_spec(&s[0], HOT, addr, 0, KMEM_RO_PROBE_ENABLED);
	vt_probe_spec(&s[1], HOT, addr, vt_after_fentry(addr), KMEM_RO_PROBE_ENABLED);
	ck_assert_int_eq(vt_probe_add(fd, s, 2, NULL), 0);
	ck_assert_int_gt(s[0].result, 0);
	ck_assert_int_gt(s[1].result, 0);
	ids[0] = s[0].result;
	ids[1] = s[1].result;
}

/* Both probes' counts since the last call, which must be equal. */
static uint64_t take_hits(int fd, uint64_t ids[2])
{
	uint64_t counts[2];

	ck_assert_int_eq(vt_probe_ids(fd, KMEM_RO_IOC_PROBE_STATS, KMEM_RO_PROBE_RESET, ids, 2,
				      counts, NULL), 0);
	ck_assert_msg(counts[0] == counts[1], "ftrace %llu, kprobe %llu",
		      (unsigned long long)counts[0], (unsigned long long)counts[1]);
	return counts[0];
}

/* Workers A and B and the test itself call; returns both probes' count. */
static uint64_t round_of_calls(int fd, uint64_t ids[2], struct worker *a, struct worker *b)
{
	take_hits(fd, ids);
	worker_calls(a, CALLS_A);
	worker_calls(b, CALLS_B);
	vt_call_getppid(100);
	return take_hits(fd, ids);
}

START_TEST(info_reports_filter)
{
	struct kmem_ro_info info;
	int fd = vt_open_dev();

	ck_assert_int_eq(vt_info(fd, &info, NULL, 0), 0);
	ck_assert(info.features & KMEM_RO_FEAT_PROBE_FILTER);
	ck_assert(info.ioctls & (1ULL << _IOC_NR(KMEM_RO_IOC_PROBE_FILTER)));
	close(fd);
}
END_TEST

START_TEST(pid_filter_counts_one_process)
{
	struct worker a = worker_start("pf_a"), b = worker_start("pf_b");
	int fd = vt_open_dev();
	uint64_t ids[2], n;

	add_probes(fd, ids);
	n = round_of_calls(fd, ids, &a, &b);
	ck_assert_msg(n >= CALLS_A + CALLS_B + 100 && n <= CALLS_A + CALLS_B + 100 + SLACK,
		      "unfiltered %llu", (unsigned long long)n);

	ck_assert_int_eq(set_filter(fd, KMEM_RO_PROBE_FILTER_PID, a.pid, NULL), 0);
	ck_assert_uint_eq(round_of_calls(fd, ids, &a, &b), CALLS_A);
	/* every thread of the process */
	take_hits(fd, ids);
	worker_calls(&a, -250);
	worker_calls(&b, -250);
	ck_assert_uint_eq(take_hits(fd, ids), 250);

	/* a new filter replaces the old one */
	ck_assert_int_eq(set_filter(fd, KMEM_RO_PROBE_FILTER_PID, b.pid, NULL), 0);
	ck_assert_uint_eq(round_of_calls(fd, ids, &a, &b), CALLS_B);
	ck_assert_int_eq(set_filter(fd, KMEM_RO_PROBE_FILTER_PID, getpid(), NULL), 0);
	ck_assert_uint_eq(round_of_calls(fd, ids, &a, &b), 100);

	/* cleared: every hit again */
	ck_assert_int_eq(set_filter(fd, 0, 0, NULL), 0);
	n = round_of_calls(fd, ids, &a, &b);
	ck_assert_msg(n >= CALLS_A + CALLS_B + 100 && n <= CALLS_A + CALLS_B + 100 + SLACK,
		      "cleared %llu", (unsigned long long)n);
	worker_stop(&a);
	worker_stop(&b);
	close(fd);
}
END_TEST

START_TEST(comm_filter_exact_name)
{
	struct worker a = worker_start("pf_worker"), b = worker_start("pf_worker_b");
	struct worker full = worker_start("pf_fifteen_char");
	int fd = vt_open_dev();
	uint64_t ids[2];

	add_probes(fd, ids);
	ck_assert_int_eq(set_filter(fd, KMEM_RO_PROBE_FILTER_COMM, 0, "pf_worker"), 0);
	ck_assert_uint_eq(round_of_calls(fd, ids, &a, &b), CALLS_A);	/* not a prefix */
	ck_assert_int_eq(set_filter(fd, KMEM_RO_PROBE_FILTER_COMM, 0, "pf_worker_b"), 0);
	ck_assert_uint_eq(round_of_calls(fd, ids, &a, &b), CALLS_B);
	ck_assert_int_eq(set_filter(fd, KMEM_RO_PROBE_FILTER_COMM, 0, "pf_worke"), 0);
	ck_assert_uint_eq(round_of_calls(fd, ids, &a, &b), 0);
	/* the longest name a task has: all 15 bytes compared */
	ck_assert_int_eq(set_filter(fd, KMEM_RO_PROBE_FILTER_COMM, 0, "pf_fifteen_char"), 0);
	take_hits(fd, ids);
	worker_calls(&full, 123);
	worker_calls(&a, 10);
	ck_assert_uint_eq(take_hits(fd, ids), 123);

	/* both: a hit must match both */
	ck_assert_int_eq(set_filter(fd, KMEM_RO_PROBE_FILTER_PID | KMEM_RO_PROBE_FILTER_COMM,
				    a.pid, "pf_worker"), 0);
	ck_assert_uint_eq(round_of_calls(fd, ids, &a, &b), CALLS_A);
	ck_assert_int_eq(set_filter(fd, KMEM_RO_PROBE_FILTER_PID | KMEM_RO_PROBE_FILTER_COMM,
				    a.pid, "pf_worker_b"), 0);
	ck_assert_uint_eq(round_of_calls(fd, ids, &a, &b), 0);
	worker_stop(&a);
	worker_stop(&b);
	worker_stop(&full);
	close(fd);
}
END_TEST

/* A filter set before any probe applies to the probes added later. */
START_TEST(filter_before_probes)
{
	struct worker a = worker_start("pf_a"), b = worker_start("pf_b");
	int fd = vt_open_dev();
	uint64_t ids[2];

	ck_assert_int_eq(set_filter(fd, 0, 0, NULL), 0);	/* nothing to clear */
	ck_assert_int_eq(set_filter(fd, KMEM_RO_PROBE_FILTER_PID, b.pid, NULL), 0);
	add_probes(fd, ids);
	ck_assert_uint_eq(round_of_calls(fd, ids, &a, &b), CALLS_B);
	worker_stop(&a);
	worker_stop(&b);
	close(fd);
}
END_TEST

/* The filter holds the process: after it is gone, nothing matches. */
START_TEST(filter_outlives_process)
{
	struct worker a = worker_start("pf_a"), b = worker_start("pf_b");
	struct worker c = worker_start("pf_c");
	int fd = vt_open_dev();
	uint64_t ids[2];
	pid_t gone = a.pid;

	add_probes(fd, ids);
	ck_assert_int_eq(set_filter(fd, KMEM_RO_PROBE_FILTER_PID, a.pid, NULL), 0);
	worker_stop(&a);
	ck_assert_uint_eq(round_of_calls(fd, ids, &b, &c), 0);
	/* reaped: its number names nothing any more */
	ck_assert_int_eq(set_filter(fd, KMEM_RO_PROBE_FILTER_PID, gone, NULL), -ESRCH);
	worker_stop(&b);
	worker_stop(&c);
	close(fd);
}
END_TEST

/* In a new pid namespace, pid 1 is the caller itself. */
static int count_self_as_ns_init(void *arg)
{
	uint64_t *ids = arg;
	int fd = open(KMEM_RO_DEVICE, O_RDONLY);

	if (fd < 0 || getpid() != 1)
		return 10;
	add_probes(fd, ids);
	if (set_filter(fd, KMEM_RO_PROBE_FILTER_PID, 1, NULL))
		return 11;
	take_hits(fd, ids);
	vt_call_getppid(77);
	return take_hits(fd, ids) == 77 ? 0 : 12;
}

START_TEST(pid_in_callers_namespace)
{
	uint64_t ids[2];
	int status, err;
	pid_t pid;

	/*
	 * The debug kernel has no PID namespaces (tinyconfig: EINVAL,
	 * kernel/nsproxy.c); Debian's kernels all do, and run this.
	 */
	err = unshare(CLONE_NEWPID) ? errno : 0;
	if (err == EINVAL && getenv("VM_DEBUG_KERNEL")) {
		printf("probe_filter: no PID namespaces in this kernel\n");
		return;
	}
	ck_assert_msg(!err, "unshare(CLONE_NEWPID): %s", strerror(err));
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid)
		_exit(count_self_as_ns_init(ids));
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && !WEXITSTATUS(status), "status %#x", status);
}
END_TEST

/* Write the thread's id to pipe @p[1], wait for a byte on @p[2]. */
static void *block_on_pipe(void *arg)
{
	int *p = arg;
	pid_t tid = gettid();
	char c;

	if (write(p[1], &tid, sizeof(tid)) != sizeof(tid) || read(p[2], &c, 1) < 0)
		return (void *)1;
	return NULL;
}

START_TEST(bad_arguments)
{
	struct big {
		struct kmem_ro_probe_filter f;
		uint64_t tail;
	} big = { .f = { .size = sizeof(big), .flags = KMEM_RO_PROBE_FILTER_COMM,
			 .comm = "x" } };
	struct kmem_ro_probe_filter f;
	int fd = vt_open_dev(), p[4];
	pthread_t t;
	pid_t tid;
	char c = 0;

#define CALL(field, value, err) do {						\
		memset(&f, 0, sizeof(f));					\
		f.size = sizeof(f);						\
		f.flags = KMEM_RO_PROBE_FILTER_PID;				\
		f.pid = getpid();						\
		f.field = value;						\
		ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_PROBE_FILTER, &f), err); \
	} while (0)
	CALL(pid, getpid(), 0);
	CALL(flags, 1ULL << 2, -EINVAL);
	CALL(flags, 1ULL << 63, -EINVAL);
	CALL(reserved0, 1, -EINVAL);
	CALL(reserved[0], 1, -EINVAL);
	CALL(reserved[1], 1, -EINVAL);
	CALL(pid, 0, -EINVAL);				/* PID without a pid */
	CALL(comm[3], 'x', -EINVAL);			/* a comm without COMM */
	CALL(flags, 0, -EINVAL);			/* a pid without PID */
	CALL(pid, 0x7ffffff0, -ESRCH);			/* above pid_max */
	CALL(pid, 0x80000000u, -ESRCH);			/* not a pid_t */
	CALL(size, KMEM_RO_PROBE_FILTER_SIZE_VER0 - 8, -EINVAL);
	CALL(size, 4097, -E2BIG);
#undef CALL
	memset(&f, 0, sizeof(f));
	f.size = sizeof(f);
	f.flags = KMEM_RO_PROBE_FILTER_COMM;
	memset(f.comm, 'x', sizeof(f.comm));		/* no NUL: longer than a task name */
	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_PROBE_FILTER, &f), -EINVAL);
	f.comm[15] = '\0';
	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_PROBE_FILTER, &f), 0);
	f.comm[3] = '\0';				/* bytes past the NUL ignored */
	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_PROBE_FILTER, &f), 0);

	/* a longer struct: its tail must be zero */
	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_PROBE_FILTER, &big), 0);
	big.tail = 1;
	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_PROBE_FILTER, &big), -E2BIG);
	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_PROBE_FILTER, (void *)8), -EFAULT);

	/* a thread that is not the group leader: no process has that id */
	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_eq(pipe(p + 2), 0);
	ck_assert_int_eq(pthread_create(&t, NULL, block_on_pipe, p), 0);
	ck_assert_int_eq(read(p[0], &tid, sizeof(tid)), sizeof(tid));
	ck_assert_int_ne(tid, getpid());
	ck_assert_int_eq(set_filter(fd, KMEM_RO_PROBE_FILTER_PID, tid, NULL), -ESRCH);
	ck_assert_int_eq(write(p[3], &c, 1), 1);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	for (int i = 0; i < 4; i++)
		close(p[i]);
	close(fd);
}
END_TEST

/*
 * As the group member: FILTER (setting or clearing), then a filtered
 * count of its own calls and none of its child's.  0, or the errno of
 * the first call that failed, or a code above 100.
 */
static int filter_as_caller(void *arg)
{
	uint64_t addr = *(const uint64_t *)arg, id, count = 0;
	int fd = open(KMEM_RO_DEVICE, O_RDONLY), err, status;
	struct kmem_ro_probe_spec s;
	pid_t child;

	if (fd < 0)
		return 100;
	err = set_filter(fd, KMEM_RO_PROBE_FILTER_PID, getpid(), NULL);
	if (err)
		return -err;
	if (set_filter(fd, 0, 0, NULL))
		return 101;
	if (set_filter(fd, KMEM_RO_PROBE_FILTER_COMM, 0, "pf_member"))
		return 102;
	vt_probe_spec(&s, HOT, addr, 0, KMEM_RO_PROBE_ENABLED);
	err = vt_probe_add(fd, &s, 1, NULL);
	if (err || s.result <= 0)
		return 103;
	id = (uint64_t)s.result;
	prctl(PR_SET_NAME, "pf_member");
	vt_call_getppid(100);
	child = fork();
	if (!child) {
		prctl(PR_SET_NAME, "pf_other");
		vt_call_getppid(100);
		_exit(0);
	}
	if (child < 0 || waitpid(child, &status, 0) != child)
		return 104;
	if (vt_probe_ids(fd, KMEM_RO_IOC_PROBE_STATS, 0, &id, 1, &count, NULL))
		return 105;
	return count == 100 ? 0 : 106;
}

START_TEST(member_needs_what_add_needs)
{
	uint64_t addr = vt_kallsyms(HOT);

	vt_write_file(PROBE_GROUP_PARAM, "0");
	ck_assert_int_eq(vt_run_as_monitor(filter_as_caller, &addr), EPERM);
	vt_write_file(PROBE_GROUP_PARAM, "1");
	ck_assert_int_eq(vt_run_as_monitor(filter_as_caller, &addr), 0);
	vt_write_file(PROBE_GROUP_PARAM, "0");
}
END_TEST

static Suite *probe_filter_suite(void)
{
	Suite *s = suite_create("probe_filter");
	TCase *tc = tcase_create("ioctl");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, info_reports_filter);
	tcase_add_test(tc, pid_filter_counts_one_process);
	tcase_add_test(tc, comm_filter_exact_name);
	tcase_add_test(tc, filter_before_probes);
	tcase_add_test(tc, filter_outlives_process);
	tcase_add_test(tc, pid_in_callers_namespace);
	tcase_add_test(tc, bad_arguments);
	tcase_add_test(tc, member_needs_what_add_needs);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return vt_main(probe_filter_suite());
}
