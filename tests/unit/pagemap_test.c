// SPDX-License-Identifier: GPL-2.0
/*
 * Pagemap logic that needs no kernel: kmemdev_pagemap_entry() on fixture
 * runs, and kmemctl pagemap's parsers and summary counts.  The ioctl and
 * kmemdev_pagemap_runs() are tested against the real driver in the VM
 * (tests/vm/pagemap_test.c, tests/vm/pagemap_tool_test.c).
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "pagemap_util.h"

#define PG	4096ULL
#define P	KMEM_RO_PM_PRESENT
#define S	KMEM_RO_PM_SWAP
#define F	KMEM_RO_PM_FILE
#define X	KMEM_RO_PM_EXCLUSIVE
#define SD	KMEM_RO_PM_SOFT_DIRTY
#define WP	KMEM_RO_PM_UFFD_WP

/* ---- kmemdev_pagemap_entry() ---- */

START_TEST(test_entry_present)
{
	struct kmem_ro_pagemap_run r = { 0x7f0000000000ULL, 4, P | X | SD, 0x1000 };

	ck_assert_uint_eq(kmemdev_pagemap_entry(&r, r.start), P | X | SD | 0x1000);
	ck_assert_uint_eq(kmemdev_pagemap_entry(&r, r.start + 2 * PG), P | X | SD | 0x1002);
	/* any address of the page */
	ck_assert_uint_eq(kmemdev_pagemap_entry(&r, r.start + 3 * PG + 4095),
			  P | X | SD | 0x1003);
	/* outside: a hole's entry */
	ck_assert_uint_eq(kmemdev_pagemap_entry(&r, r.start - 1), 0);
	ck_assert_uint_eq(kmemdev_pagemap_entry(&r, r.start + 4 * PG), 0);
	ck_assert_uint_eq(kmemdev_pagemap_entry(NULL, r.start), 0);
}
END_TEST

START_TEST(test_entry_present_file)
{
	struct kmem_ro_pagemap_run r = { 0x400000, 512, P | F, 0x200000 };

	ck_assert_uint_eq(kmemdev_pagemap_entry(&r, 0x400000 + 511 * PG), P | F | 0x2001ff);
}
END_TEST

START_TEST(test_entry_swapped)
{
	/* swap type 3, offset 0x50: the offset counts on above the type */
	struct kmem_ro_pagemap_run r = { 0x10000, 8, S | SD, 3 | (0x50ULL << 5) };

	ck_assert_uint_eq(kmemdev_pagemap_entry(&r, 0x10000), S | SD | 3 | (0x50ULL << 5));
	ck_assert_uint_eq(kmemdev_pagemap_entry(&r, 0x10000 + 7 * PG),
			  S | SD | 3 | (0x57ULL << 5));
}
END_TEST

START_TEST(test_entry_hidden)
{
	/* PFNs hidden: frame 0, every page the flags alone */
	struct kmem_ro_pagemap_run p = { 0x10000, 16, P | X, 0 };
	struct kmem_ro_pagemap_run s = { 0x10000, 16, S, 0 };

	for (uint64_t i = 0; i < 16; i++) {
		ck_assert_uint_eq(kmemdev_pagemap_entry(&p, 0x10000 + i * PG), P | X);
		ck_assert_uint_eq(kmemdev_pagemap_entry(&s, 0x10000 + i * PG), S);
	}
}
END_TEST

START_TEST(test_entry_hole)
{
	struct kmem_ro_pagemap_run none = { 0x10000, 1ULL << 24, 0, 0 };
	struct kmem_ro_pagemap_run sd = { 0x10000, 100, SD, 0 };
	struct kmem_ro_pagemap_run wp = { 0x10000, 100, WP, 0 };

	ck_assert_uint_eq(kmemdev_pagemap_entry(&none, 0x10000 + (1ULL << 35)), 0);
	ck_assert_uint_eq(kmemdev_pagemap_entry(&sd, 0x10000 + 99 * PG), SD);
	ck_assert_uint_eq(kmemdev_pagemap_entry(&wp, 0x10000 + 50 * PG), WP);
}
END_TEST

START_TEST(test_entry_frame_stays_in_its_bits)
{
	/* a frame that would carry past bit 54 must not set flag bits */
	struct kmem_ro_pagemap_run r = { 0, 4, P, KMEM_RO_PM_FRAME_MASK - 1 };

	ck_assert_uint_eq(kmemdev_pagemap_entry(&r, 3 * PG), P | 1);
}
END_TEST

/* ---- kmemctl pagemap's parsers ---- */

START_TEST(test_parse_range)
{
	uint64_t s = 1, e = 1;

	ck_assert_int_eq(pm_parse_range("0x1000-0x3000", PG, &s, &e), 0);
	ck_assert_uint_eq(s, 0x1000);
	ck_assert_uint_eq(e, 0x3000);
	/* as /proc/PID/maps prints them, and mixed */
	ck_assert_int_eq(pm_parse_range("7f12a0000000-7f12a0021000", PG, &s, &e), 0);
	ck_assert_uint_eq(s, 0x7f12a0000000ULL);
	ck_assert_uint_eq(e, 0x7f12a0021000ULL);
	ck_assert_int_eq(pm_parse_range("0X7F12A0000000-7f12a0021000", PG, &s, &e), 0);
	ck_assert_uint_eq(s, 0x7f12a0000000ULL);
	/* widened to whole pages */
	ck_assert_int_eq(pm_parse_range("0x1001-0x1002", PG, &s, &e), 0);
	ck_assert_uint_eq(s, 0x1000);
	ck_assert_uint_eq(e, 0x2000);
	ck_assert_int_eq(pm_parse_range("0x0-0x1", PG, &s, &e), 0);
	ck_assert_uint_eq(e, 0x1000);
	/* 16 digits, and leading zeros beyond them */
	ck_assert_int_eq(pm_parse_range("0-0x7ffffffff000", PG, &s, &e), 0);
	ck_assert_int_eq(pm_parse_range("0x00000000000000001000-0x2000", PG, &s, &e), 0);
	ck_assert_uint_eq(s, 0x1000);
}
END_TEST

START_TEST(test_parse_range_bad)
{
	static const char *const bad[] = {
		"", "-", "0x1000", "0x1000-", "-0x1000", "0x-0x1000", "0x1000-0x",
		"0x2000-0x1000", "0x1000-0x1000", "0x1000 -0x2000", "0x1000- 0x2000",
		" 0x1000-0x2000", "0x1000-0x2000 ", "0xg-0x1", "+1-2", "1-+2",
		"0x1000-0x2000-0x3000", "0x1000--0x2000", "0x1000:0x2000",
		"0x0x1000-0x2000", "4096-8192k",
	};
	uint64_t s = 7, e = 7;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(pm_parse_range(bad[i], PG, &s, &e) == -EINVAL,
			      "'%s' accepted", bad[i]);
	ck_assert_int_eq(pm_parse_range("0x1-0x12345678901234567", PG, &s, &e), -ERANGE);
	ck_assert_int_eq(pm_parse_range("0x10000000000000000-0x1", PG, &s, &e), -ERANGE);
	/* END rounded up past 2^64 */
	ck_assert_int_eq(pm_parse_range("0-0xffffffffffffff01", PG, &s, &e), -ERANGE);
	ck_assert_int_eq(pm_parse_range(NULL, PG, &s, &e), -EINVAL);
	ck_assert_int_eq(pm_parse_range("0x1000-0x2000", 3000, &s, &e), -EINVAL);
	ck_assert_uint_eq(s, 7);
	ck_assert_uint_eq(e, 7);
}
END_TEST

START_TEST(test_parse_pid)
{
	static const char *const bad[] = {
		"", "-1", "+1", "12a", " 1", "1 ", "0x10", "2147483648",
		"99999999999999999999", "SELF", "self1",
	};
	pid_t pid = 5;

	ck_assert_int_eq(pm_parse_pid("self", &pid), 0);
	ck_assert_int_eq(pid, 0);
	ck_assert_int_eq(pm_parse_pid("0", &pid), 0);
	ck_assert_int_eq(pid, 0);
	ck_assert_int_eq(pm_parse_pid("4321", &pid), 0);
	ck_assert_int_eq(pid, 4321);
	ck_assert_int_eq(pm_parse_pid("007", &pid), 0);
	ck_assert_int_eq(pid, 7);
	ck_assert_int_eq(pm_parse_pid("2147483647", &pid), 0);
	ck_assert_int_eq(pid, 2147483647);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(pm_parse_pid(bad[i], &pid) == -EINVAL, "'%s' accepted",
			      bad[i]);
	ck_assert_int_eq(pid, 2147483647);
}
END_TEST

START_TEST(test_parse_maps_line)
{
	char l1[] = "55d0c0a00000-55d0c0a21000 r-xp 00002000 fd:01 1310781"
		    "                    /usr/bin/my prog\n";
	char l2[] = "7ffd5a3e0000-7ffd5a401000 rw-p 00000000 00:00 0"
		    "                          [stack]\n";
	char l3[] = "7f0000000000-7f0000200000 ---p 00000000 00:00 0 \n";
	char l4[] = "7f0000000000-7f0000200000 rw-s 00000000 00:01 18446744073709551615\n";
	char bad1[] = "7f0000000000 rw-p 00000000 00:00 0\n";
	char bad2[] = "7f0000200000-7f0000000000 rw-p 00000000 00:00 0\n";
	char bad3[] = "garbage\n";
	struct pm_vma v;

	ck_assert_int_eq(pm_parse_maps_line(l1, &v), 0);
	ck_assert_uint_eq(v.start, 0x55d0c0a00000ULL);
	ck_assert_uint_eq(v.end, 0x55d0c0a21000ULL);
	ck_assert_str_eq(v.perms, "r-xp");
	ck_assert_uint_eq(v.offset, 0x2000);
	ck_assert_str_eq(v.path, "/usr/bin/my prog");
	ck_assert_int_eq(pm_parse_maps_line(l2, &v), 0);
	ck_assert_str_eq(v.path, "[stack]");
	ck_assert_int_eq(pm_parse_maps_line(l3, &v), 0);
	ck_assert_str_eq(v.path, "");
	ck_assert_str_eq(v.perms, "---p");
	ck_assert_int_eq(pm_parse_maps_line(l4, &v), 0);
	ck_assert_str_eq(v.perms, "rw-s");
	ck_assert_int_eq(pm_parse_maps_line(bad1, &v), -EINVAL);
	ck_assert_int_eq(pm_parse_maps_line(bad2, &v), -EINVAL);
	ck_assert_int_eq(pm_parse_maps_line(bad3, &v), -EINVAL);
}
END_TEST

START_TEST(test_summary)
{
	static const struct kmem_ro_pagemap_run r[] = {
		{ 0x000000, 512, P | X | SD, 0x40000 },	/* pmd-sized */
		{ 0x200000, 1024, P | X, 0x80200 },	/* >= 512, aligned */
		{ 0x600000, 512, P, 0x80201 },		/* not aligned */
		{ 0x800000, 511, P, 0x80400 },		/* too short */
		{ 0x9ff000, 10, P | F, 0x1234 },	/* file */
		{ 0xa09000, 5, S | SD, 0x20 },		/* swapped */
		{ 0xa0e000, 100, SD, 0 },		/* hole in a soft-dirty VMA */
		{ 0xa72000, 3, P | WP, 0x999 },
	};
	struct pm_summary s = { 0 };

	pm_summary_add(&s, r, 8, 512);
	ck_assert_uint_eq(s.runs, 8);
	ck_assert_uint_eq(s.pages, 512 + 1024 + 512 + 511 + 10 + 5 + 100 + 3);
	ck_assert_uint_eq(s.present, 512 + 1024 + 512 + 511 + 10 + 3);
	ck_assert_uint_eq(s.swapped, 5);
	ck_assert_uint_eq(s.file, 10);
	ck_assert_uint_eq(s.anon, 512 + 1024 + 512 + 511 + 3);
	ck_assert_uint_eq(s.exclusive, 512 + 1024);
	ck_assert_uint_eq(s.soft_dirty, 512 + 5 + 100);
	ck_assert_uint_eq(s.uffd_wp, 3);
	ck_assert_uint_eq(s.pmd_runs, 2);
	ck_assert_uint_eq(s.hidden, 0);
	/* accumulates; hidden PFNs count no pmd-sized run */
	static const struct kmem_ro_pagemap_run hidden[] = {
		{ 0x000000, 4096, P | X, 0 },
	};
	pm_summary_add(&s, hidden, 1, 512);
	ck_assert_uint_eq(s.runs, 9);
	ck_assert_uint_eq(s.hidden, 4096);
	ck_assert_uint_eq(s.pmd_runs, 2);
	ck_assert_uint_eq(s.anon, 512 + 1024 + 512 + 511 + 3 + 4096);
}
END_TEST

static Suite *pagemap_suite(void)
{
	Suite *s = suite_create("pagemap");
	TCase *tc = tcase_create("entry");

	tcase_add_test(tc, test_entry_present);
	tcase_add_test(tc, test_entry_present_file);
	tcase_add_test(tc, test_entry_swapped);
	tcase_add_test(tc, test_entry_hidden);
	tcase_add_test(tc, test_entry_hole);
	tcase_add_test(tc, test_entry_frame_stays_in_its_bits);
	suite_add_tcase(s, tc);


	tc = tcase_create("kmemctl");
	tcase_add_test(tc, test_parse_range);
	tcase_add_test(tc, test_parse_range_bad);
	tcase_add_test(tc, test_parse_pid);
	tcase_add_test(tc, test_parse_maps_line);
	tcase_add_test(tc, test_summary);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(pagemap_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
