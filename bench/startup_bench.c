// SPDX-License-Identifier: GPL-2.0
/*
 * Start-up of one-shot kmemctl commands (issue 23 §4) against procps'
 * `ps -e -o pid,comm` in the same boot, as root and as a member of the
 * device's group (uid 1000, supplementary group, no capability,
 * perf_event_paranoid=3).  Best of BENCH_STARTUP_RUNS (default 5) wall
 * times of fork+exec+wait, procps and the verbs taking turns, and the
 * system calls of one run.  Then where
 * the time goes inside the library: open, the symbol table, one name
 * lookup, BTF.
 */
#define _GNU_SOURCE
#include <grp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include "bench.h"
#include "kmemdev.h"

#define MEMBER_UID	1000
#define MEMBER_GROUP	4242	/* tests/vm/vmtest.h MONITOR_GID */
#define PROCPS		"/usr/bin/ps"	/* the host's procps (startup_bench.with) */

static int as_member;

static void become(void)
{
	static const gid_t groups[] = { MEMBER_GROUP };

	if (as_member && (setgroups(1, groups) || setgid(MEMBER_UID) ||
			  setuid(MEMBER_UID)))
		_exit(100);
}

static void run_argv(void *arg, long n)
{
	char *const *argv = arg;
	int fd = open("/dev/null", O_WRONLY);

	(void)n;
	become();
	dup2(fd, STDOUT_FILENO);
	execv(argv[0], argv);
	_exit(127);
}

/* One fork+exec+wait; seconds, or -1 if the command failed. */
static double once(char *const argv[])
{
	uint64_t t0 = bench_ns();
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0)
		run_argv((void *)argv, 0);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return -1;
	return (bench_ns() - t0) / 1e9;
}

/* Keep the better of *b and one more run of argv; false if it failed. */
static bool better(double *b, char *const argv[])
{
	double t = once(argv);

	if (t < 0)
		return false;
	if (*b < 0 || t < *b)
		*b = t;
	return true;
}

static double secs(uint64_t t0)
{
	return (bench_ns() - t0) / 1e9;
}

/* Inside one process: which step of a lookup costs what. */
static void parts(const char *kernel, const char *accel, const char *user)
{
	const struct kmemdev_sym *s;
	struct kmemdev *h;
	uint64_t t0, addr;
	double open_s, sym_s, again_s, btf_s;
	uint32_t off;

	t0 = bench_ns();
	if (kmemdev_open(&h, NULL))
		return;
	open_s = secs(t0);
	t0 = bench_ns();
	if (kmemdev_symbol(h, "init_task", &addr))
		goto out;
	sym_s = secs(t0);
	t0 = bench_ns();
	if (kmemdev_btf_member(h, "task_struct", "comm", &off, NULL))
		goto out;
	btf_s = secs(t0);
	t0 = bench_ns();
	if (kmemdev_symbolize(h, addr + 8, &s, NULL))
		goto out;
	again_s = secs(t0);
	printf("bench startup_parts kernel=%s accel=%s user=%s open_s=%.4f "
	       "symbol_first_s=%.4f btf_first_s=%.4f symbolize_after_s=%.4f\n",
	       kernel, accel, user, open_s, sym_s, btf_s, again_s);
out:
	kmemdev_close(h);
}

static void bench_user(const char *kernel, const char *accel, int runs)
{
	static char *const procps[] = { PROCPS, "-e", "-o", "pid,comm", NULL };
	static char *const verbs[][6] = {
		{ "/bin/kmemctl", "ps", NULL },
		{ "/bin/kmemctl", "sym", "init_task", NULL },
		{ "/bin/kmemctl", "struct", "task_struct.comm", "init_task", NULL },
	};
	static const char *const names[] = { "ps", "sym", "struct" };
	const char *user = as_member ? "member" : "root";
	enum { NVERBS = sizeof(verbs) / sizeof(verbs[0]) };
	double ps_s = -1, k[NVERBS];
	bool ok[NVERBS];

	/* procps and each verb take turns: the machine's load hits all alike */
	for (size_t i = 0; i < NVERBS; i++) {
		k[i] = -1;
		ok[i] = true;
	}
	for (int r = 0; r < runs; r++) {
		better(&ps_s, procps);
		for (size_t i = 0; i < NVERBS; i++)
			ok[i] = ok[i] && better(&k[i], verbs[i]);
	}
	for (size_t i = 0; i < NVERBS; i++) {
		long calls = bench_syscalls(run_argv, (void *)verbs[i], 0, NULL);
		double t = ok[i] ? k[i] : -1;

		printf("bench startup kernel=%s accel=%s user=%s verb=%s runs=%d "
		       "kmemctl_s=%.4f procps_ps_s=%.4f ratio=%.2f target_max=2 "
		       "syscalls=%ld\n", kernel, accel, user, names[i], runs, t,
		       ps_s, ps_s > 0 && t > 0 ? t / ps_s : -1.0, calls);
	}
	fflush(stdout);
	if (as_member) {
		pid_t pid = fork();

		if (pid == 0) {
			become();
			parts(kernel, accel, user);
			fflush(stdout);
			_exit(0);
		}
		waitpid(pid, NULL, 0);
	} else {
		parts(kernel, accel, user);
	}
	fflush(stdout);
}

static void write_file(const char *path, const char *val)
{
	FILE *f = fopen(path, "we");

	if (f) {
		fputs(val, f);
		fclose(f);
	}
}

int main(void)
{
	const char *accel = getenv("VM_ACCEL") ? getenv("VM_ACCEL") : "unknown";
	const char *r = getenv("BENCH_STARTUP_RUNS");
	int runs = r ? atoi(r) : 5;
	struct utsname u;

	uname(&u);
	write_file("/proc/sys/kernel/perf_event_paranoid", "3");
	write_file("/proc/sys/kernel/kptr_restrict", "0");
	if (chown("/dev/kmem_ro", 0, MEMBER_GROUP) || chmod("/dev/kmem_ro", 0440))
		return 1;
	as_member = 0;
	bench_user(u.release, accel, runs);
	as_member = 1;
	bench_user(u.release, accel, runs);
	chown("/dev/kmem_ro", 0, 0);
	return 0;
}
