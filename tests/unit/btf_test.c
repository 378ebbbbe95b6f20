// SPDX-License-Identifier: GPL-2.0
/*
 * kmemdev_btf_member() against the host kernel's own BTF
 * (/sys/kernel/btf/vmlinux): members whose layout has not changed in
 * years, anonymous struct/union nesting, typedefs, bitfields, misses.
 * Without kernel BTF the lookups are skipped (with a message) and only
 * the argument and error paths run.
 */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

#define VMLINUX_BTF "/sys/kernel/btf/vmlinux"

static struct kmemdev *h;

static bool have_btf(void)
{
	if (access(VMLINUX_BTF, R_OK) == 0)
		return true;
	printf("btf_test: SKIP: %s is not readable (kernel without "
	       "CONFIG_DEBUG_INFO_BTF?): lookups not tested\n", VMLINUX_BTF);
	return false;
}

static void setup(void)
{
	ck_assert_int_eq(kmemdev__handle_new(&h, -1), 0);
}

static void teardown(void)
{
	kmemdev_close(h);
	h = NULL;
}

static void expect(const char *type, const char *member, uint32_t off,
		   uint32_t size)
{
	uint32_t o = 0xdead, s = 0xbeef;

	ck_assert_int_eq(kmemdev_btf_member(h, type, member, &o, &s), 0);
	ck_assert_msg(o == off && s == size, "%s.%s: offset %u size %u, "
		      "expected %u %u", type, member, o, s, off, size);
}

START_TEST(test_list_head)
{
	if (!have_btf())
		return;
	expect("list_head", "next", 0, sizeof(void *));
	expect("list_head", "prev", sizeof(void *), sizeof(void *));
	expect("struct list_head", "prev", sizeof(void *), sizeof(void *));
}
END_TEST

START_TEST(test_task_struct)
{
	uint32_t pid_off, tgid_off, size, tasks_off;

	if (!have_btf())
		return;
	ck_assert_int_eq(kmemdev_btf_member(h, "task_struct", "pid", &pid_off,
					    &size), 0);
	ck_assert_uint_eq(size, 4);
	ck_assert_int_eq(kmemdev_btf_member(h, "task_struct", "tgid", &tgid_off,
					    &size), 0);
	ck_assert_uint_eq(size, 4);
	ck_assert_uint_eq(tgid_off, pid_off + 4);	/* pid_t pid, tgid; */
	ck_assert_int_eq(kmemdev_btf_member(h, "task_struct", "comm", NULL,
					    &size), 0);
	ck_assert_uint_eq(size, 16);			/* TASK_COMM_LEN */
	ck_assert_int_eq(kmemdev_btf_member(h, "task_struct", "tasks",
					    &tasks_off, &size), 0);
	ck_assert_uint_eq(size, 2 * sizeof(void *));
	ck_assert_uint_gt(tasks_off, 0);
	ck_assert_int_eq(kmemdev_btf_member(h, "task_struct", "real_parent",
					    NULL, &size), 0);
	ck_assert_uint_eq(size, sizeof(void *));
}
END_TEST

START_TEST(test_anonymous_members)
{
	if (!have_btf())
		return;
	/* struct page { flags; union { struct { union { list_head lru; ... */
	expect("page", "lru", sizeof(long), 2 * sizeof(void *));
	/* union bpf_attr { struct { __u32 map_type; ... }; ... } */
	expect("union bpf_attr", "map_type", 0, 4);
	expect("bpf_attr", "map_type", 0, 4);
}
END_TEST

START_TEST(test_typedef)
{
	if (!have_btf())
		return;
	/* typedef struct { int counter; } atomic_t; */
	expect("atomic_t", "counter", 0, 4);
}
END_TEST

START_TEST(test_bitfield_is_einval)
{
	if (!have_btf())
		return;
	/* unsigned sched_reset_on_fork:1; */
	ck_assert_int_eq(kmemdev_btf_member(h, "task_struct",
					    "sched_reset_on_fork", NULL, NULL),
			 -EINVAL);
}
END_TEST

START_TEST(test_missing_is_enoent)
{
	uint32_t o = 7, s = 9;

	if (!have_btf())
		return;
	ck_assert_int_eq(kmemdev_btf_member(h, "task_struct", "no_such_member",
					    &o, &s), -ENOENT);
	ck_assert_int_eq(kmemdev_btf_member(h, "no_such_struct_anywhere", "pid",
					    &o, &s), -ENOENT);
	/* a name that is neither struct, union nor typedef of one */
	ck_assert_int_eq(kmemdev_btf_member(h, "pid_t", "x", &o, &s), -ENOENT);
	ck_assert_uint_eq(o, 7);
	ck_assert_uint_eq(s, 9);
}
END_TEST

START_TEST(test_loaded_once)
{
	struct btf *first;

	if (!have_btf())
		return;
	expect("list_head", "next", 0, sizeof(void *));
	first = atomic_load(&h->btf);
	ck_assert_ptr_nonnull(first);
	expect("list_head", "prev", sizeof(void *), sizeof(void *));
	ck_assert_ptr_eq(atomic_load(&h->btf), first);
	ck_assert_int_eq(kmemdev__set_btf_path(h, "/nonexistent"), -EBUSY);
}
END_TEST

static void *lookup_thread(void *arg)
{
	uint32_t off = 1, size = 0;

	(void)arg;
	if (kmemdev_btf_member(h, "list_head", "prev", &off, &size) ||
	    off != sizeof(void *) || size != sizeof(void *))
		return (void *)1;
	return NULL;
}

START_TEST(test_concurrent_first_use)
{
	pthread_t t[8];
	void *ret;

	if (!have_btf())
		return;
	for (int i = 0; i < 8; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, lookup_thread, NULL), 0);
	for (int i = 0; i < 8; i++) {
		ck_assert_int_eq(pthread_join(t[i], &ret), 0);
		ck_assert_ptr_null(ret);
	}
}
END_TEST

START_TEST(test_bad_arguments)
{
	uint32_t o, s;

	ck_assert_int_eq(kmemdev_btf_member(NULL, "list_head", "next", &o, &s),
			 -EINVAL);
	ck_assert_int_eq(kmemdev_btf_member(h, NULL, "next", &o, &s), -EINVAL);
	ck_assert_int_eq(kmemdev_btf_member(h, "list_head", NULL, &o, &s),
			 -EINVAL);
	ck_assert_int_eq(kmemdev_btf_member(h, "", "next", &o, &s), -EINVAL);
	ck_assert_int_eq(kmemdev_btf_member(h, "list_head", "", &o, &s),
			 -EINVAL);
}
END_TEST

START_TEST(test_missing_file_is_sticky)
{
	ck_assert_int_eq(kmemdev__set_btf_path(h, "/nonexistent/vmlinux"), 0);
	ck_assert_int_eq(kmemdev_btf_member(h, "list_head", "next", NULL, NULL),
			 -ENOENT);
	ck_assert_int_eq(kmemdev_btf_member(h, "list_head", "next", NULL, NULL),
			 -ENOENT);
	ck_assert_int_eq(kmemdev__set_btf_path(h, NULL), -EBUSY);
}
END_TEST

START_TEST(test_not_btf_file)
{
	char path[] = "/tmp/kmemdev_btf_XXXXXX";
	int fd = mkstemp(path), err;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "not BTF at all\n", 15), 15);
	close(fd);
	ck_assert_int_eq(kmemdev__set_btf_path(h, path), 0);
	err = kmemdev_btf_member(h, "list_head", "next", NULL, NULL);
	ck_assert_int_lt(err, 0);
	ck_assert_int_ne(err, -ENOENT);
	unlink(path);
}
END_TEST

static Suite *btf_suite(void)
{
	Suite *s = suite_create("btf");
	TCase *kernel = tcase_create("kernel");
	TCase *errors = tcase_create("errors");

	tcase_add_checked_fixture(kernel, setup, teardown);
	tcase_add_test(kernel, test_list_head);
	tcase_add_test(kernel, test_task_struct);
	tcase_add_test(kernel, test_anonymous_members);
	tcase_add_test(kernel, test_typedef);
	tcase_add_test(kernel, test_bitfield_is_einval);
	tcase_add_test(kernel, test_missing_is_enoent);
	tcase_add_test(kernel, test_loaded_once);
	tcase_add_test(kernel, test_concurrent_first_use);
	tcase_set_timeout(kernel, 30);
	suite_add_tcase(s, kernel);

	tcase_add_checked_fixture(errors, setup, teardown);
	tcase_add_test(errors, test_bad_arguments);
	tcase_add_test(errors, test_missing_file_is_sticky);
	tcase_add_test(errors, test_not_btf_file);
	suite_add_tcase(s, errors);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(btf_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
