// SPDX-License-Identifier: GPL-2.0
/*
 * One-shot start-up: `kmemctl ps`, `sym` and `struct` look up only what
 * they need, as root and as a member of the device's group (symbols then
 * come through the device).  Counted in system calls, which are exact:
 * each verb stays within a bound a few times what it needs today (36 to
 * 62 calls), where reading /proc/kallsyms or the BTF a page at a time, or
 * a symbol pass per name, took thousands (bench/results.txt, `startup`
 * lines).  The time against procps is bench/startup_bench.c's.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <grp.h>
#include <sys/wait.h>

#include "bench.h"
#include "tooltest.h"

#define MAX_SYSCALLS	120

static bool as_member;

static void run_kmemctl(void *arg, long n)
{
	static const gid_t groups[] = { MONITOR_GID };
	char *const *argv = arg;
	int fd = open("/dev/null", O_WRONLY);

	(void)n;
	if (as_member && (setgroups(1, groups) || setgid(NOBODY) || setuid(NOBODY)))
		_exit(100);
	dup2(fd, STDOUT_FILENO);
	execv(argv[0], argv);
	_exit(127);
}

static void check_user(bool member)
{
	static char *const verbs[][5] = {
		{ "/bin/kmemctl", "ps", NULL },
		{ "/bin/kmemctl", "sym", "init_task", NULL },
		{ "/bin/kmemctl", "struct", "task_struct.comm", "init_task", NULL },
	};

	as_member = member;
	for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++) {
		int status = -1;
		long calls = bench_syscalls(run_kmemctl, (void *)verbs[i], 0, &status);

		printf("startup: %s %s: %ld system calls\n", member ? "member" : "root",
		       verbs[i][1], calls);
		ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
			      "%s as %s: status %#x", verbs[i][1], member ? "member" : "root",
			      status);
		ck_assert_msg(calls > 0 && calls <= MAX_SYSCALLS, "%s as %s: %ld system calls",
			      verbs[i][1], member ? "member" : "root", calls);
	}
}

START_TEST(one_shot_verbs_look_up_only_what_they_need)
{
	/* Debian's: a process without CAP_SYSLOG sees zeros in /proc/kallsyms */
	vt_write_file("/proc/sys/kernel/perf_event_paranoid", "3");
	check_user(false);
	ck_assert_int_eq(chown(KMEM_RO_DEVICE, 0, MONITOR_GID), 0);
	check_user(true);
	ck_assert_int_eq(chown(KMEM_RO_DEVICE, 0, 0), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("startup_tool");
	TCase *tc = tcase_create("syscalls");

	tcase_add_test(tc, one_shot_verbs_look_up_only_what_they_need);
	suite_add_tcase(s, tc);
	return vt_main(s);
}
