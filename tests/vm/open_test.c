// SPDX-License-Identifier: GPL-2.0
/*
 * Who may open /dev/kmem_ro: read-only opens only, the node's owner and
 * group (0440), and CAP_SYS_RAWIO when require_rawio is set.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "kmemdev.h"
#include "vmtest.h"

#define RAWIO_PARAM	"/sys/module/kmem_ro/parameters/require_rawio"

/* child side: exit status is the errno of open(), 0 on success */
static int try_open(void *flags)
{
	return vt_open_errno(KMEM_RO_DEVICE, *(int *)flags);
}

/* proves the child could reach /dev at all, so EACCES is about our node */
static int try_open_null(void *unused)
{
	(void)unused;
	return vt_open_errno("/dev/null", O_RDONLY);
}

START_TEST(node_is_misc_char_0440)
{
	struct stat st;

	ck_assert_int_eq(stat(KMEM_RO_DEVICE, &st), 0);
	ck_assert(S_ISCHR(st.st_mode));
	ck_assert_int_eq(major(st.st_rdev), 10);	/* MISC_MAJOR */
	ck_assert_int_eq(st.st_mode & 07777, 0440);
	ck_assert_int_eq(st.st_uid, 0);
}
END_TEST

static const int write_modes[] = { O_WRONLY, O_RDWR, O_RDWR | O_APPEND, O_WRONLY | O_TRUNC };

START_TEST(write_open_is_eperm)
{
	int fd = open(KMEM_RO_DEVICE, write_modes[_i]);

	ck_assert_int_eq(fd, -1);
	ck_assert_int_eq(errno, EPERM);
}
END_TEST

START_TEST(read_open_as_root)
{
	int flags = O_RDONLY;

	ck_assert_int_eq(try_open(&flags), 0);
}
END_TEST

START_TEST(other_user_is_eacces)
{
	int flags = O_RDONLY;

	ck_assert_int_eq(vt_run_as(NOBODY, NOBODY, -1, try_open_null, NULL), 0);
	ck_assert_int_eq(vt_run_as(NOBODY, NOBODY, -1, try_open, &flags), EACCES);
}
END_TEST

START_TEST(group_member_may_read)
{
	int flags = O_RDONLY;

	ck_assert_int_eq(chown(KMEM_RO_DEVICE, 0, MONITOR_GID), 0);
	ck_assert_int_eq(vt_run_as(NOBODY, MONITOR_GID, -1, try_open, &flags), 0);
	flags = O_WRONLY;	/* 0440: no write bit for the group either */
	ck_assert_int_eq(vt_run_as(NOBODY, MONITOR_GID, -1, try_open, &flags), EACCES);
	ck_assert_int_eq(chown(KMEM_RO_DEVICE, 0, 0), 0);
}
END_TEST

START_TEST(require_rawio_needs_cap_sys_rawio)
{
	int flags = O_RDONLY;

	/* off by default: root without CAP_SYS_RAWIO may open */
	ck_assert_int_eq(vt_run_as(0, 0, CAP_SYS_RAWIO, try_open, &flags), 0);
	vt_write_file(RAWIO_PARAM, "1");
	ck_assert_int_eq(vt_run_as(0, 0, CAP_SYS_RAWIO, try_open, &flags), EPERM);
	ck_assert_int_eq(vt_run_as(0, 0, -1, try_open, &flags), 0);
	vt_write_file(RAWIO_PARAM, "0");
	ck_assert_int_eq(vt_run_as(0, 0, CAP_SYS_RAWIO, try_open, &flags), 0);
}
END_TEST

/*
 * The position is KMEM_RO_READ_OFFSET() of a kernel address (read_test.c
 * tests the reads): 0 stands for 0x8000000000000000, no kernel address,
 * and there is no end to seek from.
 */
START_TEST(device_position_is_an_address)
{
	int fd = vt_open_dev();
	char c;

	ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
	ck_assert_int_eq(read(fd, &c, 1), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(lseek(fd, 4096, SEEK_CUR), 4096);
	ck_assert_int_eq(lseek(fd, 0, SEEK_END), -1);
	ck_assert_int_eq(errno, EINVAL);
	close(fd);
}
END_TEST

static int library_open(void *unused)
{
	struct kmemdev *h;
	int err = kmemdev_open(&h, NULL);

	(void)unused;
	kmemdev_close(h);
	return -err;
}

START_TEST(library_and_kmemctl_report_access)
{
	char *argv[] = { "kmemctl", "info", NULL };
	static char out[4096], err[4096];

	ck_assert_int_eq(vt_run_as(NOBODY, NOBODY, -1, library_open, NULL), EACCES);
	ck_assert_int_eq(vt_exec(NOBODY, NOBODY, argv, out, sizeof(out), err, sizeof(err)), 1);
	ck_assert_int_eq(vt_count_lines(err), 1);
	ck_assert_ptr_nonnull(strstr(err, "permission denied"));
	ck_assert_int_eq(chown(KMEM_RO_DEVICE, 0, MONITOR_GID), 0);
	ck_assert_int_eq(vt_run_as(NOBODY, MONITOR_GID, -1, library_open, NULL), 0);
	ck_assert_int_eq(vt_exec(NOBODY, MONITOR_GID, argv, out, sizeof(out), err, sizeof(err)), 0);
	ck_assert_int_eq(chown(KMEM_RO_DEVICE, 0, 0), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("open");
	TCase *tc = tcase_create("access");

	tcase_add_test(tc, node_is_misc_char_0440);
	tcase_add_loop_test(tc, write_open_is_eperm, 0, sizeof(write_modes) / sizeof(write_modes[0]));
	tcase_add_test(tc, read_open_as_root);
	tcase_add_test(tc, other_user_is_eacces);
	tcase_add_test(tc, group_member_may_read);
	tcase_add_test(tc, require_rawio_needs_cap_sys_rawio);
	tcase_add_test(tc, device_position_is_an_address);
	tcase_add_test(tc, library_and_kmemctl_report_access);
	suite_add_tcase(s, tc);
	return vt_main(s);
}
