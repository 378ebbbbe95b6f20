// SPDX-License-Identifier: GPL-2.0
/*
 * Every kmemctl verb as a member of the device's group, the product's
 * user: README's steps for each monitoring user (the udev rule makes the
 * node root:kmem_ro 0440; `usermod -aG kmem_ro alice`; log in again), so
 * uid 1000 with the group as a supplementary group and no capability,
 * under the kernel's default kptr_restrict and Debian's
 * perf_event_paranoid=3.  Each answer is checked against root's
 * /proc/kallsyms, /proc/kcore and /proc, and equals root's own kmemctl.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tooltest.h"

#define MEMBER_UID	1000

static char mout[4 << 20], merr[16384];

static void setup(void)
{
	vt_write_file("/proc/sys/kernel/perf_event_paranoid", "3");
	vt_write_file("/proc/sys/kernel/kptr_restrict", "0");
	ck_assert_int_eq(chown(KMEM_RO_DEVICE, 0, MONITOR_GID), 0);
	ck_assert_int_eq(chmod(KMEM_RO_DEVICE, 0440), 0);
}

static void teardown(void)
{
	ck_assert_int_eq(chown(KMEM_RO_DEVICE, 0, 0), 0);
}

/* kmemctl with @fmt's words as the member (uid 1000, + group MONITOR_GID). */
static int __attribute__((format(printf, 1, 2))) member(const char *fmt, ...)
{
	static const gid_t groups[] = { MONITOR_GID };
	char cmd[1024], *argv[64];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	kmemctl_argv(cmd, argv);
	mout[0] = merr[0] = '\0';
	return vt_exec_groups(MEMBER_UID, MEMBER_UID, groups, 1, argv, mout,
			      sizeof(mout), merr, sizeof(merr));
}

/* The same command as root and as the member: both succeed, same output. */
static void same_as_root(const char *cmd)
{
	int rs = kmemctl("%s", cmd), ms = member("%s", cmd);

	ck_assert_msg(rs == 0, "root: kmemctl %s: %d: %s", cmd, rs, err);
	ck_assert_msg(ms == 0, "member: kmemctl %s: %d: %s", cmd, ms, merr);
	ck_assert_msg(!strcmp(out, mout), "kmemctl %s: root and member differ:\n%s---\n%s",
		      cmd, out, mout);
}

START_TEST(sym_is_roots_kallsyms)
{
	char want[128];

	ck_assert_int_eq(member("sym init_task"), 0);
	snprintf(want, sizeof(want), "%016llx", (unsigned long long)vt_kallsyms("init_task"));
	ck_assert_msg(strstr(mout, want), "sym init_task: %s, root's kallsyms %s", mout, want);
	same_as_root("sym init_task schedule modules testobj_show");
	same_as_root("sym schedule+0x10 --json");
}
END_TEST

/* linux_banner as root reads it through /proc/kcore. */
START_TEST(read_and_dump_by_symbol)
{
	char banner[64], file[64] = { 0 };
	FILE *f;

	ck_assert_int_eq(vt_kcore_read(vt_kallsyms("linux_banner"), banner, sizeof(banner)), 0);
	ck_assert_int_eq(member("read linux_banner 64 --raw"), 0);
	ck_assert_int_eq(memcmp(mout, banner, sizeof(banner)), 0);
	same_as_root("read linux_banner+8 40");
	mkdir("/tmp/m", 0777);
	ck_assert_int_eq(chmod("/tmp/m", 01777), 0);
	unlink("/tmp/m/dump");
	ck_assert_msg(member("dump linux_banner 64 -o /tmp/m/dump") == 0, "%s", merr);
	f = fopen("/tmp/m/dump", "re");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fread(file, 1, sizeof(file), f), 64);
	fclose(f);
	ck_assert_int_eq(memcmp(file, banner, sizeof(banner)), 0);
}
END_TEST

START_TEST(struct_and_list)
{
	ck_assert_int_eq(member("struct task_struct.comm init_task"), 0);
	ck_assert_msg(strstr(mout, "swapper"), "%s", mout);	/* INIT_TASK_COMM */
	same_as_root("struct task_struct.comm init_task");
	same_as_root("struct list_head modules");
	same_as_root("list module.list modules --fields name");
	ck_assert_msg(strstr(mout, "kmem_ro_testobj"), "%s", mout);
}
END_TEST

/* Every name of /proc/modules, and no other. */
START_TEST(modules_are_proc_modules)
{
	char line[512], name[128];
	int n = 0;
	FILE *f = fopen("/proc/modules", "re");

	same_as_root("modules");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		ck_assert_int_eq(sscanf(line, "%127s", name), 1);
		ck_assert_msg(strstr(mout, name), "%s missing: %s", name, mout);
		n++;
	}
	fclose(f);
	ck_assert_int_gt(n, 0);
}
END_TEST

/*
 * ps with each backend: the pids are /proc's (but for the two kmemctl
 * processes, root's and the member's, which are not alive together).
 */
static void ps_matches_proc(const char *backend)
{
	char *line, *save = NULL;
	int pid, ppid, n = 0, self = 0;
	char state, comm[64], path[64];

	ck_assert_msg(member("ps --backend %s", backend) == 0, "ps %s: %s", backend, merr);
	for (line = strtok_r(mout, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "%d %d %c %*u %*d %*u %*u %*s %63s", &pid, &ppid, &state,
			   comm) != 4)
			continue;	/* the header */
		n++;
		if (!strcmp(comm, "kmemctl")) {
			self++;
			continue;
		}
		snprintf(path, sizeof(path), "/proc/%d", pid);
		/* kworkers come and go; the rest of this VM stands still. */
		ck_assert_msg(!access(path, F_OK) || !strncmp(comm, "kworker", 7),
			      "ps %s: pid %d (%s) not in /proc", backend, pid, comm);
	}
	ck_assert_int_ge(self, 1);	/* another suite may leave one running */
	ck_assert_int_gt(n, 20);
}

START_TEST(ps_every_backend)
{
	ps_matches_proc("walk");
	ps_matches_proc("readv");
	/* mmap: offered to the member exactly when to root (mmap_ram). */
	if (kmemctl("ps --backend mmap") == 0)
		ps_matches_proc("mmap");
	else
		ck_assert_int_eq(member("ps --backend mmap"), 1);
	/* kcore needs CAP_SYS_RAWIO (open_kcore()): refused, in one line. */
	ck_assert_int_eq(member("ps --backend kcore"), 1);
	ck_assert_int_eq(vt_count_lines(merr), 1);
}
END_TEST

/* README's steps: info and pagemap self besides the verbs above. */
START_TEST(info_and_pagemap_self)
{
	same_as_root("info");
	ck_assert_msg(member("pagemap self") == 0, "%s", merr);
	ck_assert_msg(strstr(mout, "[stack]"), "%s", mout);
	ck_assert_msg(member("pagemap self --summary") == 0, "%s", merr);
	ck_assert_msg(strstr(mout, "present"), "%s", mout);
}
END_TEST

/* A probe verb does not fail on symbols (it may need a capability). */
START_TEST(probe_list_not_on_symbols)
{
	member("probe list");
	ck_assert_msg(!strstr(merr, "kallsyms") && !strstr(merr, "symbol"), "%s", merr);
}
END_TEST

/* Outside the group: one line that says what to do. */
START_TEST(outsider_gets_one_line)
{
	char *argv[] = { "kmemctl", "sym", "init_task", NULL };

	ck_assert_int_eq(vt_exec(MEMBER_UID, MEMBER_UID, argv, out, sizeof(out), err,
				 sizeof(err)), 1);
	ck_assert_msg(one_short_line(err) || vt_count_lines(err) == 1, "%s", err);
	ck_assert_msg(strstr(err, "usermod -aG kmem_ro"), "%s", err);
}
END_TEST

static Suite *member_suite(void)
{
	Suite *s = suite_create("member_tool");
	TCase *tc = tcase_create("verbs");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, sym_is_roots_kallsyms);
	tcase_add_test(tc, read_and_dump_by_symbol);
	tcase_add_test(tc, struct_and_list);
	tcase_add_test(tc, modules_are_proc_modules);
	tcase_add_test(tc, ps_every_backend);
	tcase_add_test(tc, info_and_pagemap_self);
	tcase_add_test(tc, probe_list_not_on_symbols);
	tcase_add_test(tc, outsider_gets_one_line);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return vt_main(member_suite());
}
