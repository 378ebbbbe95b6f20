// SPDX-License-Identifier: GPL-2.0
/*
 * max_probes_per_user: with probe_group=1 a member of the device's group
 * (uid 1000, no capability) holds at most that many probes across all of
 * its files; the next spec gets ENOSPC, as the file and global caps give
 * theirs.  Root (CAP_PERFMON/CAP_SYS_ADMIN) is not counted.  Deleting a
 * probe or closing its file gives the quota back; two files of the same
 * user share it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vmtest.h"

#define PER_USER_PARAM	"/sys/module/kmem_ro/parameters/max_probes_per_user"
#define DEFAULT_CAP	1024
#define SMALL_CAP	8

/* Entry probe specs that ftrace takes: found by adding them once as root. */
static struct kmem_ro_probe_spec *good;
static unsigned int ngood;

static void find_good_specs(unsigned int want)
{
	enum { MAX = 65536, STEP = 4096 };
	struct kmem_ro_probe_spec *s = calloc(MAX, sizeof(*s));
	unsigned int n, first, step;
	int fd = vt_open_dev();

	ck_assert_ptr_nonnull(s);
	good = calloc(want, sizeof(*good));
	ck_assert_ptr_nonnull(good);
	n = vt_text_probe_specs(s, MAX);
	/* in steps: 7.3 has fewer traceable ones among the first symbols */
	for (first = 0; first < n && ngood < want; first += step) {
		step = n - first < STEP ? n - first : STEP;
		ck_assert_int_eq(vt_probe_add(fd, s + first, step, NULL), 0);
		for (unsigned int i = first; i < first + step && ngood < want; i++)
			if (s[i].result > 0) {
				good[ngood] = s[i];
				good[ngood++].result = 0x7777;
			}
	}
	close(fd);
	free(s);
	ck_assert_uint_eq(ngood, want);
}

/* ADD good[first, first + n) to @fd; the specs' results in @res. */
static int add_range(int fd, unsigned int first, unsigned int n, int64_t *res,
		     unsigned int *added)
{
	struct kmem_ro_probe_spec *s = calloc(n, sizeof(*s));
	int err;

	if (!s)
		return -ENOMEM;
	memcpy(s, good + first, n * sizeof(*s));
	err = vt_probe_add(fd, s, n, added);
	for (unsigned int i = 0; i < n; i++)
		res[i] = s[i].result;
	free(s);
	return err;
}

static unsigned int cap;

/*
 * As the member: one file fills the quota, the next spec is refused with
 * ENOSPC there and in a second file; a DEL in the first lets the second
 * add one; closing the second gives that back to the first.  Returns 0 or
 * the number of the check that failed.
 */
static int quota_as_member(void *unused)
{
	int fd1 = open(KMEM_RO_DEVICE, O_RDONLY | O_CLOEXEC), fd2;
	int64_t *res = calloc(cap, sizeof(*res));
	unsigned int added = 0;
	uint64_t id;

	(void)unused;
	if (fd1 < 0 || !res)
		return 1;
	if (add_range(fd1, 0, cap, res, &added) || added != cap)
		return 2;
	id = res[0];
	/* the cap reached: this file and another of the same user refuse */
	if (add_range(fd1, cap, 1, res, &added) || added || res[0] != -ENOSPC)
		return 3;
	fd2 = open(KMEM_RO_DEVICE, O_RDONLY | O_CLOEXEC);
	if (fd2 < 0)
		return 4;
	if (add_range(fd2, cap + 1, 1, res, &added) || added || res[0] != -ENOSPC)
		return 5;
	/* a delete frees one, for either file */
	if (vt_probe_ids(fd1, KMEM_RO_IOC_PROBE_DEL, 0, &id, 1, NULL, NULL))
		return 6;
	if (add_range(fd2, cap + 1, 1, res, &added) || added != 1 || res[0] <= 0)
		return 7;
	if (add_range(fd1, cap + 2, 1, res, &added) || added || res[0] != -ENOSPC)
		return 8;
	/* closing a file gives its probes back */
	close(fd2);
	if (add_range(fd1, cap + 2, 1, res, &added) || added != 1 || res[0] <= 0)
		return 9;
	if (add_range(fd1, cap + 3, 1, res, &added) || added || res[0] != -ENOSPC)
		return 10;
	close(fd1);
	/* all of it back once every file is closed */
	fd1 = open(KMEM_RO_DEVICE, O_RDONLY | O_CLOEXEC);
	if (fd1 < 0 || add_range(fd1, 0, cap, res, &added) || added != cap)
		return 11;
	close(fd1);
	free(res);
	return 0;
}

static int as_member(int (*fn)(void *), void *arg)
{
	static const gid_t groups[] = { MONITOR_GID };
	int status;

	ck_assert_int_eq(chown(KMEM_RO_DEVICE, 0, MONITOR_GID), 0);
	status = vt_run_as_groups(MEMBER_UID, MEMBER_UID, groups, 1, -1, fn, arg);
	ck_assert_int_eq(chown(KMEM_RO_DEVICE, 0, 0), 0);
	return status;
}

/* Root adds past the member's cap, while the member holds its whole quota. */
static void root_not_counted(unsigned int n)
{
	int fd = vt_open_dev();
	int64_t *res = calloc(n, sizeof(*res));
	unsigned int added;

	ck_assert_ptr_nonnull(res);
	ck_assert_int_eq(add_range(fd, 0, n, res, &added), 0);
	ck_assert_uint_eq(added, n);
	close(fd);
	free(res);
}

START_TEST(default_cap_member_and_root)
{
	FILE *f = fopen(PER_USER_PARAM, "re");
	unsigned int v = 0;

	/* the documented default, unless the module lacks the parameter */
	cap = DEFAULT_CAP;
	if (f) {
		ck_assert_int_eq(fscanf(f, "%u", &v), 1);
		ck_assert_uint_eq(v, DEFAULT_CAP);
		fclose(f);
	}
	find_good_specs(cap + 4);
	vt_write_file(PROBE_GROUP_PARAM, "1");
	ck_assert_int_eq(as_member(quota_as_member, NULL), 0);
	root_not_counted(cap + 4);
	vt_write_file(PROBE_GROUP_PARAM, "0");
	free(good);
	good = NULL;
	ngood = 0;
}
END_TEST

/* The parameter is read per ADD: a small cap, the same rules. */
START_TEST(small_cap_member_and_root)
{
	cap = SMALL_CAP;
	find_good_specs(4 * SMALL_CAP);
	vt_write_file(PER_USER_PARAM, "8");
	vt_write_file(PROBE_GROUP_PARAM, "1");
	ck_assert_int_eq(as_member(quota_as_member, NULL), 0);
	root_not_counted(4 * SMALL_CAP);
	vt_write_file(PROBE_GROUP_PARAM, "0");
	vt_write_file(PER_USER_PARAM, "1024");
	free(good);
	good = NULL;
	ngood = 0;
}
END_TEST

/* A member holding probes in a file root opened and passed on counts too. */
static int fill_shared_file(void *arg)
{
	int fd = *(int *)arg;
	int64_t *res = calloc(cap + 1, sizeof(*res));
	unsigned int added;

	if (!res)
		return 1;
	if (add_range(fd, 0, cap + 1, res, &added) || added != cap || res[cap] != -ENOSPC)
		return 2;
	free(res);
	return 0;
}

START_TEST(member_in_root_file)
{
	int fd = vt_open_dev();
	unsigned int added;
	int64_t res[2];

	cap = SMALL_CAP;
	find_good_specs(2 * SMALL_CAP);
	vt_write_file(PER_USER_PARAM, "8");
	vt_write_file(PROBE_GROUP_PARAM, "1");
	ck_assert_int_eq(as_member(fill_shared_file, &fd), 0);
	/* root adds to the same file beyond the member's cap */
	ck_assert_int_eq(add_range(fd, cap + 1, 2, res, &added), 0);
	ck_assert_uint_eq(added, 2);
	close(fd);
	/* closed by root: the member's count is back to 0 */
	ck_assert_int_eq(as_member(quota_as_member, NULL), 0);
	vt_write_file(PROBE_GROUP_PARAM, "0");
	vt_write_file(PER_USER_PARAM, "1024");
	free(good);
	good = NULL;
	ngood = 0;
}
END_TEST

int main(void)
{
	Suite *s = suite_create("probe_quota");
	TCase *tc = tcase_create("quota");

	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, default_cap_member_and_root);
	tcase_add_test(tc, small_cap_member_and_root);
	tcase_add_test(tc, member_in_root_file);
	suite_add_tcase(s, tc);
	return vt_main(s);
}
