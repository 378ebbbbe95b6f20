// SPDX-License-Identifier: GPL-2.0
/*
 * The library's module walk (libkmemdev/modsyms.c) through the driver,
 * on module lists in kernel memory as a module that unloads under the
 * walk may leave them: kmem_ro_testobj's fakemod_* heads, whose struct
 * modules lie in its own data, the module area (see its top comment).
 * The walk starts at such a head instead of &modules
 * (kmemdev__kallsyms_modules()), as root and as a member of the device's
 * group (uid 1000), in a child under RLIMIT_AS (MEM_BOUND).  The good
 * list gives its one symbol; each torn one -EAGAIN and nothing else: no
 * symbol of it, no 4 GiB allocation, no read of memory outside the
 * module area.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"
#include "vmtest.h"

#define MEMBER_UID	1000
#define MEM_BOUND	(1ULL << 30)

/* What a child's walk gave, shared with the test. */
struct result {
	int err;
	int n;			/* symbols handed out */
	uint64_t addr;
	char type;
	char name[64], module[64];
};

static struct result *res;
static uint64_t head;		/* of the list a child walks */

static int collect(void *arg, uint64_t addr, char type, const char *name,
		   const char *module)
{
	struct result *r = arg;

	if (!r->n++) {
		r->addr = addr;
		r->type = type;
		snprintf(r->name, sizeof(r->name), "%s", name);
		snprintf(r->module, sizeof(r->module), "%s", module ? module : "");
	}
	return 0;
}

/* The walk from @head, in this process. */
static int walk_from(void)
{
	struct kmemdev *h;

	memset(res, 0, sizeof(*res));
	res->err = kmemdev_open(&h, NULL);
	if (res->err)
		return 1;
	res->err = kmemdev__kallsyms_modules(h, head, collect, res);
	kmemdev_close(h);
	return 0;
}

/* walk_from() in a child under the memory bound, as @uid. */
static void run_walk(uid_t uid, const char *which)
{
	static const gid_t groups[] = { MONITOR_GID };
	char key[64];
	int status;
	pid_t pid;

	snprintf(key, sizeof(key), "fakemod_%s", which);
	head = vt_testobj(key);	/* debugfs: root's */
	ck_assert_uint_ne(head, 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct rlimit as = { MEM_BOUND, MEM_BOUND };

		if (setrlimit(RLIMIT_AS, &as) ||
		    (uid && (setgroups(1, groups) || setgid(uid) || setuid(uid))))
			_exit(100);
		_exit(walk_from());
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "%s as uid %d: status %#x, err %d", which, (int)uid, status, res->err);
}

static const uid_t users[] = { 0, MEMBER_UID };

static void setup(void)
{
	vt_write_file("/proc/sys/kernel/kptr_restrict", "0");	/* root's kallsyms */
	res = mmap(NULL, sizeof(*res), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(res, MAP_FAILED);
	ck_assert_int_eq(chown(KMEM_RO_DEVICE, 0, MONITOR_GID), 0);
	ck_assert_int_eq(chmod(KMEM_RO_DEVICE, 0440), 0);
}

static void teardown(void)
{
	ck_assert_int_eq(chown(KMEM_RO_DEVICE, 0, 0), 0);
	munmap(res, sizeof(*res));
}

/* The list as the kernel keeps it: its one symbol, at testobj_show. */
START_TEST(good_list)
{
	uint64_t show = vt_kallsyms("testobj_show");

	ck_assert_uint_ne(show, 0);
	run_walk(users[_i], "good");
	ck_assert_int_eq(res->err, 0);
	ck_assert_int_eq(res->n, 1);
	ck_assert_str_eq(res->name, "fake_sym");
	ck_assert_str_eq(res->module, "fake_good");
	ck_assert_int_eq(res->type, 't');
	ck_assert_uint_eq(res->addr, show);
}
END_TEST

/*
 * Torn lists: a second module whose prev is not the first; 2,000,000
 * symbols; a name offset of nearly 4 GiB; kallsyms outside the module
 * area.  The code before listed, allocated or read each.
 */
START_TEST(torn_lists)
{
	static const char *const torn[] = { "badlink", "bignum", "bigname", "outside" };
	char bad[512] = "";
	size_t len = 0;

	/* every list walked, every wrong answer told */
	for (size_t i = 0; i < sizeof(torn) / sizeof(torn[0]); i++) {
		run_walk(users[_i], torn[i]);
		if (res->err != -EAGAIN || res->n)
			len += snprintf(bad + len, sizeof(bad) - len, "%s: err %d, %d symbols; ",
					torn[i], res->err, res->n);
		ck_assert_uint_lt(len, sizeof(bad));
	}
	ck_assert_msg(!len, "as uid %d: %s", (int)users[_i], bad);
}
END_TEST

static Suite *modwalk_suite(void)
{
	Suite *s = suite_create("modwalk");
	TCase *tc = tcase_create("fake lists");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_loop_test(tc, good_list, 0, 2);
	tcase_add_loop_test(tc, torn_lists, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(modwalk_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
