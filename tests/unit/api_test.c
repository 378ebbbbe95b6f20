// SPDX-License-Identifier: GPL-2.0
/*
 * The rules of the library's own ABI that need no kernel: the caller's
 * .size in argument structs (never the library's sizeof), empty vectors
 * that act on nothing while *_all() acts on everything, flags words, and
 * the version.  The device handle wraps /dev/null, which answers every
 * ioctl with ENOTTY: reaching the "driver" shows as -ENOTTY, and a call
 * that returns anything else never issued one.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

#ifndef VERSION_FILE
#error "VERSION_FILE: the project's VERSION, set by the Makefile"
#endif

static struct kmemdev *h;

/* A device handle on /dev/null whose "driver" claims every feature. */
static void setup(void)
{
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(kmemdev__handle_new(&h, fd), 0);
	h->info.page_size = 4096;
	h->info.features = ~0ULL;
}

static void teardown(void)
{
	kmemdev_close(h);
	h = NULL;
}

/* A struct as a newer caller has it: our fields, then more, then a guard. */
#define TAIL	16
#define GUARD	16

START_TEST(test_walk_size_is_the_callers)
{
	struct kmem_ro_field f = { 0, 8 };
	union {
		struct kmem_ro_walk w;
		unsigned char raw[sizeof(struct kmem_ro_walk) + TAIL + GUARD];
	} u;

	memset(&u, 0, sizeof(u));
	u.w.head = 0xffffffff82000000ULL;
	u.w.fields_addr = (uintptr_t)&f;
	u.w.fields_count = 1;

	ck_assert_int_eq(kmemdev_walk(h, &u.w), -EINVAL);	/* size 0 */
	u.w.size = KMEM_RO_WALK_SIZE_VER0 - 1;
	ck_assert_int_eq(kmemdev_walk(h, &u.w), -EINVAL);
	u.w.size = KMEMDEV_ARG_MAX + 1;
	ck_assert_int_eq(kmemdev_walk(h, &u.w), -E2BIG);
	/* From VER0 up to the limit, the call reaches the driver as it is. */
	u.w.size = KMEM_RO_WALK_SIZE_VER0;
	ck_assert_int_eq(kmemdev_walk(h, &u.w), -ENOTTY);
	ck_assert_uint_eq(u.w.size, KMEM_RO_WALK_SIZE_VER0);
	u.w.size = sizeof(u.w) + TAIL;
	ck_assert_int_eq(kmemdev_walk(h, &u.w), -ENOTTY);
	ck_assert_uint_eq(u.w.size, sizeof(u.w) + TAIL);
	u.w.size = KMEMDEV_ARG_MAX;
	ck_assert_int_eq(kmemdev_walk(h, &u.w), -ENOTTY);
	ck_assert_uint_eq(u.w.size, KMEMDEV_ARG_MAX);
}
END_TEST

START_TEST(test_walk_all_size_is_the_callers)
{
	struct kmem_ro_field f = { 0, 8 };
	struct kmem_ro_walk w = {
		.head = 0xffffffff82000000ULL,
		.fields_addr = (uintptr_t)&f,
		.fields_count = 1,
	};
	uint32_t nodes;
	void *buf = NULL;
	size_t cap = 0;

	ck_assert_int_eq(kmemdev_walk_all(h, &w, &buf, &cap, &nodes), -EINVAL);
	ck_assert_ptr_null(buf);	/* refused before anything was done */
	w.size = sizeof(w);
	ck_assert_int_eq(kmemdev_walk_all(h, &w, &buf, &cap, &nodes), -ENOTTY);
	ck_assert_uint_eq(w.size, sizeof(w));
	free(buf);
}
END_TEST

START_TEST(test_pagemap_size_is_the_callers)
{
	uint64_t entries[4];
	KMEMDEV_ARG(kmem_ro_pagemap, a, .start = 0x1000, .end = 0x5000,
		    .buf_addr = (uintptr_t)entries, .buf_size = sizeof(entries));
	struct kmem_ro_pagemap_run *runs = (void *)1;
	size_t count = 7;

	ck_assert_uint_eq(a.size, sizeof(a));	/* what KMEMDEV_ARG() sets */
	ck_assert_int_eq(kmemdev_pagemap(h, &a), -ENOTTY);
	ck_assert_uint_eq(a.size, sizeof(a));
	a.size = 0;
	ck_assert_int_eq(kmemdev_pagemap(h, &a), -EINVAL);
	a.size = KMEM_RO_PAGEMAP_SIZE_VER0 - 8;
	ck_assert_int_eq(kmemdev_pagemap(h, &a), -EINVAL);
	a.size = KMEMDEV_ARG_MAX + 8;
	ck_assert_int_eq(kmemdev_pagemap(h, &a), -E2BIG);
	ck_assert_uint_eq(a.size, KMEMDEV_ARG_MAX + 8);
	/* The library's own argument carries its own size. */
	ck_assert_int_eq(kmemdev_pagemap_runs(h, 0, 0x1000, 0x5000, &runs,
					      &count), -ENOTTY);
	ck_assert_ptr_null(runs);
	ck_assert_uint_eq(count, 0);
}
END_TEST

START_TEST(test_info_size_is_the_callers)
{
	union {
		struct kmem_ro_info info;
		unsigned char raw[sizeof(struct kmem_ro_info) + TAIL];
	} u, before;
	struct kmem_ro_range *ram = (void *)1;
	unsigned int nr = 7;

	memset(&u, 0xa5, sizeof(u));
	u.info.size = 0;
	before = u;
	ck_assert_int_eq(kmemdev_info(h, &u.info, NULL, 0), -EINVAL);
	ck_assert_mem_eq(&u, &before, sizeof(u));	/* untouched */
	u.info.size = KMEM_RO_INFO_SIZE_VER0 - 8;
	before = u;
	ck_assert_int_eq(kmemdev_info(h, &u.info, NULL, 0), -EINVAL);
	ck_assert_mem_eq(&u, &before, sizeof(u));
	u.info.size = KMEMDEV_ARG_MAX + 1;
	before = u;
	ck_assert_int_eq(kmemdev_info_alloc(h, &u.info, &ram, &nr), -E2BIG);
	ck_assert_mem_eq(&u, &before, sizeof(u));
	u.info.size = sizeof(u.info) + TAIL;
	before = u;
	ck_assert_int_eq(kmemdev_info(h, &u.info, NULL, 0), -ENOTTY);
	ck_assert_mem_eq(&u, &before, sizeof(u));	/* failed: untouched */
}
END_TEST

START_TEST(test_arg_macro)
{
	KMEMDEV_ARG(kmem_ro_info, info);
	KMEMDEV_ARG(kmem_ro_walk, w, .head = 1, .max_nodes = 2);

	ck_assert_uint_eq(info.size, sizeof(info));
	ck_assert_uint_eq(info.flags | info.ram_addr | info.ram_cap, 0);
	ck_assert_uint_eq(w.size, sizeof(w));
	ck_assert_uint_eq(w.head, 1);
	ck_assert_uint_eq(w.max_nodes, 2);
	ck_assert_uint_eq(w.flags | w.start | w.buf_addr | w.reserved[1], 0);
	/* Every size KMEMDEV_ARG() sets is one the library takes. */
	ck_assert_uint_le(sizeof(struct kmem_ro_info), KMEMDEV_ARG_MAX);
	ck_assert_uint_le(sizeof(struct kmem_ro_walk), KMEMDEV_ARG_MAX);
	ck_assert_uint_le(sizeof(struct kmem_ro_pagemap), KMEMDEV_ARG_MAX);
}
END_TEST

/* An empty vector acts on nothing: no ioctl.  *_all() always asks. */
START_TEST(test_probes_empty_is_nothing)
{
	uint64_t id = 1, cnt = 5;

	ck_assert_int_eq(kmemdev_probes_enable(h, NULL, 0), 0);
	ck_assert_int_eq(kmemdev_probes_disable(h, NULL, 0), 0);
	ck_assert_int_eq(kmemdev_probes_del(h, NULL, 0), 0);
	ck_assert_int_eq(kmemdev_probes_del(h, &id, 0), 0);
	ck_assert_int_eq(kmemdev_probes_stats(h, NULL, 0, NULL, 0), 0);
	ck_assert_int_eq(kmemdev_probes_stats(h, &id, 0, &cnt,
					      KMEM_RO_PROBE_RESET), 0);
	ck_assert_uint_eq(cnt, 5);

	ck_assert_int_eq(kmemdev_probes_enable_all(h), -ENOTTY);
	ck_assert_int_eq(kmemdev_probes_disable_all(h), -ENOTTY);
	ck_assert_int_eq(kmemdev_probes_del_all(h), -ENOTTY);
	ck_assert_int_eq(kmemdev_probes_stats_all(h, NULL, 0, 0), -ENOTTY);
	ck_assert_int_eq(kmemdev_probes_stats_all(h, &cnt, 1,
						  KMEM_RO_PROBE_RESET), -ENOTTY);
	/* by ids: the driver is asked */
	ck_assert_int_eq(kmemdev_probes_del(h, &id, 1), -ENOTTY);
	ck_assert_int_eq(kmemdev_probes_stats(h, &id, 1, &cnt,
					      KMEM_RO_PROBE_RESET), -ENOTTY);
}
END_TEST

START_TEST(test_probes_list_flags)
{
	struct kmem_ro_probe_info *pi = (void *)1;
	unsigned int n = 7;

	ck_assert_int_eq(kmemdev_probes_list(h, KMEM_RO_PROBE_LIST_ALL_FILES << 1,
					     &pi, &n), -EINVAL);
	ck_assert_ptr_null(pi);
	ck_assert_int_eq(kmemdev_probes_list(h, KMEM_RO_PROBE_LIST_ALL_FILES,
					     &pi, &n), -ENOTTY);
	ck_assert_int_eq(kmemdev_probes_list(h, 0, &pi, &n), -ENOTTY);
}
END_TEST

/* kmemdev_events_snapshot() is an ioctl whatever the build. */
START_TEST(test_events_snapshot_is_an_ioctl)
{
	uint64_t id = 3;

	ck_assert_int_eq(kmemdev_events_snapshot(h, 100, &id), -ENOTTY);
	ck_assert_uint_eq(id, 3);
	ck_assert_int_eq(kmemdev_events_snapshot(NULL, 100, &id), -EINVAL);
	h->info.features = 0;
	ck_assert_int_eq(kmemdev_events_snapshot(h, 100, &id), -EOPNOTSUPP);
}
END_TEST

START_TEST(test_version)
{
	char want[64], line[64] = "";
	FILE *f = fopen(VERSION_FILE, "re");

	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(fgets(line, sizeof(line), f));
	fclose(f);
	line[strcspn(line, "\n")] = '\0';
	/* The header's macros are the project's VERSION ... */
	snprintf(want, sizeof(want), "%d.%d.%d", KMEMDEV_VERSION_MAJOR,
		 KMEMDEV_VERSION_MINOR, KMEMDEV_VERSION_PATCH);
	ck_assert_str_eq(want, line);
	/* ... and so is the library's answer. */
	ck_assert_str_eq(kmemdev_version(), line);
}
END_TEST

static Suite *api_suite(void)
{
	Suite *s = suite_create("api");
	TCase *args = tcase_create("args");
	TCase *probes = tcase_create("probes");
	TCase *misc = tcase_create("misc");

	tcase_add_checked_fixture(args, setup, teardown);
	tcase_add_test(args, test_walk_size_is_the_callers);
	tcase_add_test(args, test_walk_all_size_is_the_callers);
	tcase_add_test(args, test_pagemap_size_is_the_callers);
	tcase_add_test(args, test_info_size_is_the_callers);
	tcase_add_test(args, test_arg_macro);
	suite_add_tcase(s, args);

	tcase_add_checked_fixture(probes, setup, teardown);
	tcase_add_test(probes, test_probes_empty_is_nothing);
	tcase_add_test(probes, test_probes_list_flags);
	tcase_add_test(probes, test_events_snapshot_is_an_ioctl);
	suite_add_tcase(s, probes);

	tcase_add_test(misc, test_version);
	suite_add_tcase(s, misc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(api_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
