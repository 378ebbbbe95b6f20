// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel lockdown: refused exactly when /proc/kcore is.  Raising lockdown
 * cannot be undone, so this suite runs last in its VM.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "kmemdev.h"
#include "vmtest.h"

#define LOCKDOWN "/sys/kernel/security/lockdown"

static int open_errno(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

/* one disabled probe on getppid: 0 or the ioctl's -errno */
static int add_probe(int fd)
{
	struct kmem_ro_probe_spec s = { .addr = vt_kallsyms("__x64_sys_getppid"),
					.name = "__x64_sys_getppid" };
	struct kmem_ro_probe_add a = { .size = sizeof(a), .specs_addr = (uintptr_t)&s, .count = 1 };
	int err = vt_ioctl(fd, KMEM_RO_IOC_PROBE_ADD, &a);

	return err ? err : (s.result > 0 ? 0 : (int)s.result);
}

START_TEST(lockdown_levels)
{
	struct kmem_ro_info info;
	int early, before;

	ck_assert_int_eq(open_errno("/proc/kcore"), 0);
	ck_assert_int_eq(open_errno(KMEM_RO_DEVICE), 0);

	/* integrity (the Secure Boot default): kcore opens, so do we */
	vt_write_file(LOCKDOWN, "integrity");
	ck_assert_int_eq(open_errno("/proc/kcore"), 0);
	ck_assert_int_eq(open_errno(KMEM_RO_DEVICE), 0);
	early = vt_open_dev();
	ck_assert_int_eq(add_probe(early), 0);	/* integrity: kprobes allowed */

	/* confidentiality: both refuse, and the refusal is logged once */
	before = vt_dmesg_count("Lockdown: lockdown_test: /proc/kcore access is restricted");
	vt_write_file(LOCKDOWN, "confidentiality");
	ck_assert_int_eq(open_errno("/proc/kcore"), EPERM);
	ck_assert_int_eq(vt_dmesg_count("Lockdown: lockdown_test: /proc/kcore access is restricted"),
			 before + 1);
	ck_assert_int_eq(open_errno(KMEM_RO_DEVICE), EPERM);
	ck_assert_int_eq(vt_dmesg_count("Lockdown: lockdown_test: /proc/kcore access is restricted"),
			 before + 2);

	/* the library and the tool say why, in one line */
	{
		char *argv[] = { "kmemctl", "info", NULL };
		static char out[4096], err[4096];
		struct kmemdev *h;

		ck_assert_int_eq(kmemdev_open(&h, NULL), -EPERM);
		ck_assert_int_eq(vt_exec(0, 0, argv, out, sizeof(out), err, sizeof(err)), 1);
		ck_assert_int_eq(vt_count_lines(err), 1);
		ck_assert_ptr_nonnull(strstr(err, "lockdown"));
	}

	/* as with kcore, the check is at open: an fd held from before works */
	ck_assert_int_eq(vt_info(early, &info, NULL, 0), 0);
	/* but probes are refused exactly as kprobes are (LOCKDOWN_KPROBES) */
	ck_assert_int_eq(add_probe(early), -EPERM);
	close(early);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("lockdown");
	TCase *tc = tcase_create("levels");

	/* no fork: the level is global and only goes up */
	tcase_add_test(tc, lockdown_levels);
	suite_add_tcase(s, tc);
	return vt_main(s);
}
