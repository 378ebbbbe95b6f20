// SPDX-License-Identifier: GPL-2.0
/*
 * The Python binding (python/, import kmemdev) under pytest, as root and
 * as a member of the device's group (uid 1000, the group as a
 * supplementary group, no capability), the product's two users.  The
 * tests are tests/python/; each checks the binding's answers against the
 * kernel's own view.  The member cannot read real addresses from
 * /proc/kallsyms, so root's copy is handed over in KMEMDEV_TEST_KALLSYMS.
 * The interpreter, its standard library, pytest and the package come from
 * the host at their own paths ($BUILD/vm/python_test.with).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vmtest.h"

#define MONITOR_GID	4242
#define KALLSYMS_COPY	"/tmp/kallsyms.root"

static void setup(void)
{
	/* Debian's defaults, as the member meets them */
	vt_write_file("/proc/sys/kernel/perf_event_paranoid", "3");
	vt_write_file("/proc/sys/kernel/kptr_restrict", "0");
	ck_assert_int_eq(chown(KMEM_RO_DEVICE, 0, MONITOR_GID), 0);
	ck_assert_int_eq(chmod(KMEM_RO_DEVICE, 0440), 0);
	ck_assert_int_eq(setenv("PYTHONPATH", KMEMDEV_PY_TOP "/python", 1), 0);
	ck_assert_int_eq(setenv("KMEMDEV_TEST_KALLSYMS", KALLSYMS_COPY, 1), 0);
	ck_assert_int_eq(setenv("KMEMDEV_TEST_MONITOR_GID", "4242", 1), 0);
	ck_assert_int_eq(setenv("HOME", "/tmp", 1), 0);
}

static void teardown(void)
{
	ck_assert_int_eq(chown(KMEM_RO_DEVICE, 0, 0), 0);
}

/*
 * pytest over tests/python as @uid (0: root, else the member), its output
 * straight to the console (the guest log), a test per line; a test that
 * hangs has every thread's stack dumped after 120 s (faulthandler).
 */
static void pytest(uid_t uid)
{
	static const gid_t groups[] = { MONITOR_GID };
	char *argv[] = { "/usr/bin/python3", "-m", "pytest", "-p", "no:cacheprovider",
			 "-v", "--color=no", "-rfEs", "--tb=short", "-o", "faulthandler_timeout=120",
			 KMEMDEV_PY_TOP "/tests/python", NULL };
	int status;
	pid_t pid;

	printf("---- pytest as uid %u ----\n", (unsigned int)uid);
	fflush(stdout);
	pid = uid ? vt_fork_as(uid, uid, groups, 1) : fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		execv(argv[0], argv);
		_exit(127);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status), "pytest as uid %u: killed by signal %d",
		      (unsigned int)uid, WTERMSIG(status));
	/* 5: no test collected, never a pass */
	ck_assert_msg(WEXITSTATUS(status) == 0, "pytest as uid %u: exit %d (output above)",
		      (unsigned int)uid, WEXITSTATUS(status));
}

/* Root's /proc/kallsyms, real addresses, readable by the member. */
static void hand_over_kallsyms(void)
{
	FILE *in = fopen("/proc/kallsyms", "re"), *f = fopen(KALLSYMS_COPY, "we");
	char buf[1 << 16];
	size_t n, total = 0;

	ck_assert_ptr_nonnull(in);
	ck_assert_ptr_nonnull(f);
	/* procfs has no size to seek to: read to the end */
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0) {
		ck_assert_uint_eq(fwrite(buf, 1, n, f), n);
		total += n;
	}
	ck_assert_uint_gt(total, 0);
	fclose(in);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(chmod(KALLSYMS_COPY, 0444), 0);
}

START_TEST(as_root)
{
	hand_over_kallsyms();
	pytest(0);
}
END_TEST

START_TEST(as_member)
{
	hand_over_kallsyms();
	pytest(MEMBER_UID);
}
END_TEST

static Suite *python_suite(void)
{
	Suite *s = suite_create("python");
	TCase *tc = tcase_create("pytest");

	tcase_add_checked_fixture(tc, setup, teardown);
	/* pytest under TCG: interpreter start, collection, every test */
	tcase_set_timeout(tc, 900);
	tcase_add_test(tc, as_root);
	tcase_add_test(tc, as_member);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return vt_main(python_suite());
}
