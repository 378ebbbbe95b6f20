// SPDX-License-Identifier: GPL-2.0
/*
 * Turning probe_group off takes back what it gave: every probe a member
 * (uid 1000, no capability) made under probe_group=1 is deleted, in the
 * member's own files and in a file root opened and shared with it, while
 * root's probes (CAP_PERFMON/CAP_SYS_ADMIN) stay and go on counting.  The
 * member's later calls: EPERM for what needs probe_group, ENOENT for the
 * ids that went.  Turning it on again gives nothing back but lets the
 * member add again.  An ADD racing with the switch leaves nothing behind.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/capability.h>

#include "vmtest.h"

#define HOT	"__x64_sys_getppid"
#define NGOOD	64

/* Entry probe specs that ftrace takes, found as root. */
static struct kmem_ro_probe_spec good[NGOOD];

static void find_good_specs(void)
{
	enum { MAX = 4096 };
	struct kmem_ro_probe_spec *s = calloc(MAX, sizeof(*s));
	unsigned int n, k = 0;
	int fd = vt_open_dev();

	ck_assert_ptr_nonnull(s);
	n = vt_text_probe_specs(s, MAX);
	ck_assert_int_eq(vt_probe_add(fd, s, n, NULL), 0);
	for (unsigned int i = 0; i < n && k < NGOOD; i++)
		if (s[i].result > 0) {
			good[k] = s[i];
			good[k++].result = 0x7777;
		}
	close(fd);
	free(s);
	ck_assert_uint_eq(k, NGOOD);
}

/* LIST count of @fd, or of all files with KMEM_RO_PROBE_LIST_ALL_FILES. */
static int list_count(int fd, uint64_t flags)
{
	struct kmem_ro_probe_list l = { .size = sizeof(l), .flags = flags };

	if (vt_ioctl(fd, KMEM_RO_IOC_PROBE_LIST, &l))
		return -1;
	return l.count;
}

static const gid_t member_groups[] = { MONITOR_GID };

/* A member process; @fn(@arg, @cmd, @rep) runs in it, talking over pipes. */
struct member {
	pid_t pid;
	int cmd;	/* parent -> member */
	int rep;	/* member -> parent */
};

static struct member member_start(int (*fn)(void *arg, int cmd, int rep), void *arg)
{
	int to[2], from[2];
	struct member m;

	ck_assert_int_eq(pipe(to), 0);
	ck_assert_int_eq(pipe(from), 0);
	ck_assert_int_eq(chown(KMEM_RO_DEVICE, 0, MONITOR_GID), 0);
	m.pid = vt_fork_as(MEMBER_UID, MEMBER_UID, member_groups, 1);
	ck_assert_int_ge(m.pid, 0);
	if (m.pid == 0) {
		close(to[1]);
		close(from[0]);
		_exit(fn(arg, to[0], from[1]));
	}
	close(to[0]);
	close(from[1]);
	m.cmd = to[1];
	m.rep = from[0];
	return m;
}

static char member_read(struct member *m)
{
	char c = 0;

	ck_assert_int_eq(vt_wait_readable(m->rep, 120000), 1);
	ck_assert_int_eq(read(m->rep, &c, 1), 1);
	return c;
}

static void member_say(struct member *m, char c)
{
	ck_assert_int_eq(write(m->cmd, &c, 1), 1);
}

static int member_end(struct member *m)
{
	int status;

	close(m->cmd);
	close(m->rep);
	ck_assert_int_eq(vt_wait_child(m->pid, 120000, &status), 0);
	ck_assert_int_eq(chown(KMEM_RO_DEVICE, 0, 0), 0);
	ck_assert(WIFEXITED(status));
	return WEXITSTATUS(status);
}

static int wait_cmd(int cmd)
{
	char c;

	return read(cmd, &c, 1) == 1 ? c : -1;
}

/* Root's file, shared with the member, and a kprobe spec on HOT for it. */
struct revoke_arg {
	int fd;
	struct kmem_ro_probe_spec hot;
};

/*
 * The member: probes in a file of its own (entry probes, and a kprobe on
 * HOT) and one in root's file @arg; tells the parent, waits for probe_group
 * to be turned off, then checks what is left and what it may still do.
 */
static int member_adds_then_checks(void *arg, int cmd, int rep)
{
	const struct revoke_arg *ra = arg;
	int root_fd = ra->fd, fd = open(KMEM_RO_DEVICE, O_RDONLY | O_CLOEXEC);
	struct kmem_ro_probe_spec s[5], one;
	struct kmem_ro_events_snapshot snap = { .size = sizeof(snap), .interval_ms = 100 };
	struct kmem_ro_probe_filter f = { .size = sizeof(f) };
	uint64_t ids[5], root_member_id;
	unsigned int added, done;

	if (fd < 0)
		return 1;
	memcpy(s, good, 4 * sizeof(*s));
	for (int i = 0; i < 4; i++)
		s[i].flags = KMEM_RO_PROBE_ENABLED;
	s[4] = ra->hot;
	if (vt_probe_add(fd, s, 5, &added) || added != 5)
		return 2;
	for (int i = 0; i < 5; i++)
		ids[i] = s[i].result;
	one = good[5];
	if (vt_probe_add(root_fd, &one, 1, &added) || added != 1)
		return 3;
	root_member_id = one.result;
	if (write(rep, "r", 1) != 1 || wait_cmd(cmd) != 'c')
		return 4;

	/* all of the member's probes went, its own file's and those in root's */
	if (list_count(fd, 0) != 0)
		return 5;
	if (vt_probe_ids(fd, KMEM_RO_IOC_PROBE_STATS, 0, ids, 1, ids + 1, NULL) != -ENOENT)
		return 6;
	if (vt_probe_ids(fd, KMEM_RO_IOC_PROBE_DEL, 0, ids + 4, 1, NULL, NULL) != -ENOENT)
		return 7;
	if (vt_probe_ids(root_fd, KMEM_RO_IOC_PROBE_DEL, 0, &root_member_id, 1, NULL, NULL) !=
	    -ENOENT)
		return 8;
	if (list_count(root_fd, 0) != 2)
		return 9;
	/* what needs probe_group: EPERM */
	one = good[6];
	if (vt_probe_add(fd, &one, 1, NULL) != -EPERM)
		return 10;
	if (vt_probe_ids(root_fd, KMEM_RO_IOC_PROBE_ENABLE, KMEM_RO_PROBE_ALL, NULL, 0, NULL,
			 NULL) != -EPERM)
		return 11;
	if (vt_probe_ids(root_fd, KMEM_RO_IOC_PROBE_DISABLE, KMEM_RO_PROBE_ALL, NULL, 0, NULL,
			 NULL) != -EPERM)
		return 12;
	if (vt_ioctl(root_fd, KMEM_RO_IOC_EVENTS_SNAPSHOT, &snap) != -EPERM)
		return 13;
	if (vt_ioctl(root_fd, KMEM_RO_IOC_PROBE_FILTER, &f) != -EPERM)
		return 14;
	/* reading root's counts needs nothing */
	if (vt_probe_ids(root_fd, KMEM_RO_IOC_PROBE_STATS, KMEM_RO_PROBE_ALL, NULL, 0, NULL,
			 &done) || done != 2)
		return 15;
	if (write(rep, "d", 1) != 1 || wait_cmd(cmd) != 'a')
		return 16;

	/* turned on again: nothing comes back, but the member may add */
	if (list_count(fd, 0) != 0)
		return 17;
	one = good[7];
	if (vt_probe_add(fd, &one, 1, &added) || added != 1)
		return 18;
	if (write(rep, "r", 1) != 1 || wait_cmd(cmd) != 'c')
		return 19;
	if (list_count(fd, 0) != 0)
		return 20;
	close(fd);
	return 0;
}

START_TEST(off_revokes_member_probes)
{
	struct revoke_arg arg;
	struct kmem_ro_probe_spec root_specs[2];
	uint64_t hot = vt_kallsyms(HOT), root_ids[2];
	struct member m;
	unsigned int added;
	int all;

	ck_assert_uint_ne(hot, 0);
	find_good_specs();
	vt_probe_spec(&arg.hot, HOT, hot, vt_after_fentry(hot), KMEM_RO_PROBE_ENABLED);
	arg.fd = vt_open_dev();
	/* root's probes in root's file: an entry probe and a kprobe on HOT */
	vt_probe_spec(&root_specs[0], HOT, hot, 0, KMEM_RO_PROBE_ENABLED);
	root_specs[1] = good[8];
	root_specs[1].flags = KMEM_RO_PROBE_ENABLED;
	vt_write_file(PROBE_GROUP_PARAM, "1");
	ck_assert_int_eq(vt_probe_add(arg.fd, root_specs, 2, &added), 0);
	ck_assert_uint_eq(added, 2);
	root_ids[0] = root_specs[0].result;
	root_ids[1] = root_specs[1].result;
	all = list_count(arg.fd, KMEM_RO_PROBE_LIST_ALL_FILES);

	m = member_start(member_adds_then_checks, &arg);
	ck_assert_int_eq(member_read(&m), 'r');
	ck_assert_int_eq(list_count(arg.fd, KMEM_RO_PROBE_LIST_ALL_FILES), all + 6);
	ck_assert_int_eq(list_count(arg.fd, 0), 3);

	/* 1 -> 0: the member's six go, root's two stay and count */
	vt_write_file(PROBE_GROUP_PARAM, "0");
	ck_assert_int_eq(list_count(arg.fd, KMEM_RO_PROBE_LIST_ALL_FILES), all);
	ck_assert_int_eq(list_count(arg.fd, 0), 2);
	{
		uint64_t before = vt_probe_hits(arg.fd, root_ids[0]);

		vt_call_getppid(100);
		ck_assert_uint_ge(vt_probe_hits(arg.fd, root_ids[0]) - before, 100);
	}
	member_say(&m, 'c');
	ck_assert_int_eq(member_read(&m), 'd');

	/* 0 -> 1: root's unchanged, the member adds one; 1 -> 0 takes it */
	vt_write_file(PROBE_GROUP_PARAM, "1");
	member_say(&m, 'a');
	ck_assert_int_eq(member_read(&m), 'r');
	ck_assert_int_eq(list_count(arg.fd, KMEM_RO_PROBE_LIST_ALL_FILES), all + 1);
	vt_write_file(PROBE_GROUP_PARAM, "0");
	ck_assert_int_eq(list_count(arg.fd, KMEM_RO_PROBE_LIST_ALL_FILES), all);
	member_say(&m, 'c');
	ck_assert_int_eq(member_end(&m), 0);

	/* root's probes outlived both switches */
	ck_assert_int_eq(vt_probe_ids(arg.fd, KMEM_RO_IOC_PROBE_STATS, 0, root_ids, 1,
				      root_ids + 1, NULL), 0);
	close(arg.fd);
}
END_TEST

/* Root's probes made while probe_group was on are root's: they stay. */
static int perfmon_adds(void *arg)
{
	struct kmem_ro_probe_spec s = good[9];
	unsigned int added;

	return vt_probe_add(*(int *)arg, &s, 1, &added) || added != 1;
}

START_TEST(off_keeps_capable_probes)
{
	int fd = vt_open_dev();

	find_good_specs();
	vt_write_file(PROBE_GROUP_PARAM, "1");
	/* root with CAP_PERFMON but not CAP_SYS_ADMIN: still capable */
	ck_assert_int_eq(vt_run_as(0, 0, CAP_SYS_ADMIN, perfmon_adds, &fd), 0);
	ck_assert_int_eq(perfmon_adds(&fd), 1);	/* the same place again: EEXIST */
	vt_write_file(PROBE_GROUP_PARAM, "0");
	ck_assert_int_eq(list_count(fd, 0), 1);
	vt_write_file(PROBE_GROUP_PARAM, "0");	/* 0 -> 0: nothing happens */
	ck_assert_int_eq(list_count(fd, 0), 1);
	close(fd);
}
END_TEST

/*
 * The member adds a batch in a new file of its own again and again (the
 * files stay open) until an ADD is refused; the switch comes meanwhile.
 * An ADD that was allowed before the switch must not leave probes made
 * after it: the member's files end up empty.  Returns 0, or the check.
 */
static int member_adds_until_refused(void *arg, int cmd, int rep)
{
	struct kmem_ro_probe_spec s[8];
	int fds[256], n = 0, total = 0, err = 0;

	(void)arg;
	(void)cmd;
	if (write(rep, "r", 1) != 1)
		return 1;
	while (n < 256) {
		fds[n] = open(KMEM_RO_DEVICE, O_RDONLY | O_CLOEXEC);
		if (fds[n] < 0)
			return 2;
		memcpy(s, good + (n % 8) * 8, sizeof(s));
		err = vt_probe_add(fds[n++], s, 8, NULL);
		if (err)
			break;
		usleep(10000);
	}
	if (err != -EPERM)
		return 3;
	for (int i = 0; i < n; i++) {
		total += list_count(fds[i], 0);
		close(fds[i]);
	}
	return total ? 10 + (total > 200 ? 200 : total) : 0;
}

START_TEST(off_while_member_adds)
{
	struct member m;

	find_good_specs();
	vt_write_file(PROBE_GROUP_PARAM, "1");
	m = member_start(member_adds_until_refused, NULL);
	ck_assert_int_eq(member_read(&m), 'r');
	usleep(300000);
	vt_write_file(PROBE_GROUP_PARAM, "0");
	ck_assert_int_eq(member_end(&m), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("probe_revoke");
	TCase *tc = tcase_create("revoke");

	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, off_revokes_member_probes);
	tcase_add_test(tc, off_keeps_capable_probes);
	tcase_add_test(tc, off_while_member_adds);
	suite_add_tcase(s, tc);
	return vt_main(s);
}
