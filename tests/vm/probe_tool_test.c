// SPDX-License-Identifier: GPL-2.0
/*
 * What stands on the KMEM_RO_IOC_PROBE_* ioctls: libkmemdev's probe
 * wrappers (globbing the real /proc/kallsyms, batches split past
 * KMEM_RO_PROBE_MAX_BATCH, stats and lists of all probes) and kmemctl
 * probe: count around a command that makes a known number of getppid()
 * calls, list showing another process's probes under its PID, top for one
 * interval, until SIGINT, and in JSON.  As a member of the device's group
 * without capabilities: refused with one line by default, root's answers
 * with the module parameter probe_group=1.
 *
 * This binary is also the command kmemctl runs: "probe_tool_test
 * --getppid N STATUS" makes N getppid() calls and exits with STATUS.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kmemdev.h"
#include "vmtest.h"

#define HOT	"__x64_sys_getppid"
#define CALLS	1000
/* Others may call getppid() meanwhile (system-wide counts): a little room. */
#define SLACK	50

static char out[256 << 10], err[16 << 10];
static char self[256];

static struct kmemdev *open_dev(void)
{
	KMEMDEV_OPTS(kmemdev_open_opts, opts, .backend = KMEMDEV_BACKEND_DEVICE);
	struct kmemdev *h = NULL;

	ck_assert_int_eq(kmemdev_open(&h, &opts), 0);
	return h;
}

/* The "total" of function @name in kmemctl's JSON; -1 if not listed. */
static long long json_func_total(const char *json, const char *name)
{
	char pat[160];
	const char *p;

	snprintf(pat, sizeof(pat), "\"name\":\"%s\"", name);
	p = strstr(json, pat);
	return p ? vt_json_num(p, "total") : -1;
}

START_TEST(symbol_exists)
{
	/* Both kernels route getppid(2) through this wrapper. */
	ck_assert_msg(vt_kallsyms(HOT) != 0, HOT " missing from /proc/kallsyms");
}
END_TEST

/* ---- library ---- */

START_TEST(glob_matches_real_kallsyms)
{
	struct kmemdev *h = open_dev();
	struct kmem_ro_probe_spec sp;
	int n;

	ck_assert_int_eq(kmemdev_probe_glob(h, HOT, NULL, NULL), 1);
	n = kmemdev_probe_glob(h, "__x64_sys_getp*", NULL, NULL);
	ck_assert_int_ge(n, 3);		/* getpid, getppid, getpgid, getpgrp... */
	ck_assert_int_eq(kmemdev_probe_glob(h, "__pfx_*", NULL, NULL), 0);
	ck_assert_int_gt(kmemdev_probe_glob(h, "*", NULL, NULL), 10000);
	ck_assert_int_eq(kmemdev_probe_spec_fill(h, &sp, HOT, 0, 0), 0);
	ck_assert_uint_eq(sp.addr, vt_kallsyms(HOT));
	kmemdev_close(h);
}
END_TEST

/*
 * One place twice past the driver's batch limit: only a split batch gets
 * through (one call would be E2BIG), and every spec, in both calls, gets
 * its own result.
 */
START_TEST(add_splits_batches)
{
	const unsigned int n = KMEM_RO_PROBE_MAX_BATCH + 100;
	struct kmem_ro_probe_spec *s = calloc(n, sizeof(*s));
	struct kmem_ro_probe_info *pi;
	struct kmemdev *h = open_dev();
	unsigned int added = 0, cnt = 0, i;
	uint64_t id, hits[2] = { 7, 7 };

	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(kmemdev_probe_spec_fill(h, &s[0], HOT, 0,
						 KMEM_RO_PROBE_ENABLED), 0);
	for (i = 1; i < n; i++)
		s[i] = s[0];
	ck_assert_int_eq(kmemdev_probes_add(h, s, n, &added), 0);
	ck_assert_msg(added == 1, "added %u: results %lld %lld %lld", added,
		      (long long)s[0].result, (long long)s[1].result,
		      (long long)s[n - 1].result);
	ck_assert_int_gt(s[0].result, 0);
	for (i = 1; i < n; i++)
		ck_assert_msg(s[i].result == -EEXIST, "spec %u: %lld", i,
			      (long long)s[i].result);
	id = (uint64_t)s[0].result;

	ck_assert_int_eq(kmemdev_probes_stats_all(h, NULL, 0, KMEM_RO_PROBE_RESET), 1);
	/* an empty vector acts on nothing: the probe stays */
	ck_assert_int_eq(kmemdev_probes_del(h, NULL, 0), 0);
	ck_assert_int_eq(kmemdev_probes_disable(h, &id, 0), 0);
	ck_assert_int_eq(kmemdev_probes_stats_all(h, NULL, 0, 0), 1);
	vt_call_getppid(CALLS);
	ck_assert_int_eq(kmemdev_probes_stats(h, &id, 1, hits, 0), 1);
	ck_assert_uint_ge(hits[0], CALLS);
	ck_assert_uint_le(hits[0], CALLS + SLACK);
	ck_assert_int_eq(kmemdev_probes_stats_all(h, hits, 2, KMEM_RO_PROBE_RESET), 1);
	ck_assert_uint_ge(hits[0], CALLS);
	ck_assert_uint_eq(hits[1], 7);	/* only as many as there are */

	ck_assert_int_eq(kmemdev_probes_list(h, 0, &pi, &cnt), 0);
	ck_assert_uint_eq(cnt, 1);
	ck_assert_uint_eq(pi[0].id, id);
	ck_assert_uint_eq(pi[0].owner, (uint32_t)getpid());
	ck_assert(pi[0].flags & KMEM_RO_PROBE_ENABLED);
	free(pi);

	ck_assert_int_eq(kmemdev_probes_disable_all(h), 0);
	ck_assert_int_eq(kmemdev_probes_enable(h, &id, 1), 0);
	ck_assert_int_eq(kmemdev_probes_del(h, &id, 1), 0);
	ck_assert_int_eq(kmemdev_probes_stats(h, &id, 1, hits, 0), -ENOENT);
	ck_assert_int_eq(kmemdev_probes_list(h, 0, &pi, &cnt), 0);
	ck_assert_uint_eq(cnt, 0);
	free(pi);
	kmemdev_close(h);
	free(s);
}
END_TEST

/* ---- kmemctl probe count ---- */

START_TEST(count_getppid_json)
{
	char *argv[] = { "kmemctl", "probe", "count", "--json", HOT,
			 "__x64_sys_getp*", "--", self, "--getppid", "1000",
			 "3", NULL };
	long long total;

	/* The command's exit status is kmemctl's. */
	ck_assert_int_eq(vt_exec(0, 0, argv, out, sizeof(out), err,
				 sizeof(err)), 3);
	total = json_func_total(out, HOT);
	ck_assert_msg(total >= CALLS && total <= CALLS + SLACK,
		      "total %lld\n%s\n%s", total, out, err);
	ck_assert_int_eq(vt_json_num(out, "exit_status"), 3);
	ck_assert_int_ge(vt_json_num(out, "added"), 3);
	ck_assert_ptr_nonnull(strstr(out, "\"command\":[\""));
}
END_TEST

/* @json with every run of digits one 'N': its shape, whatever the counts. */
static void json_shape(const char *json, char *shape, size_t size)
{
	size_t n = 0;

	for (; *json && n + 1 < size; json++) {
		if (*json >= '0' && *json <= '9') {
			if (n && shape[n - 1] == 'N')
				continue;
			shape[n++] = 'N';
		} else {
			shape[n++] = *json;
		}
	}
	shape[n] = '\0';
}

/* --json before the verb is --json after it: the same document. */
START_TEST(count_json_global)
{
	char *after[] = { "kmemctl", "probe", "count", "--json", HOT, "--",
			  self, "--getppid", "1000", "0", NULL };
	char *before[] = { "kmemctl", "--json", "probe", "count", HOT, "--",
			   self, "--getppid", "1000", "0", NULL };
	char *list[] = { "kmemctl", "--json", "probe", "list", NULL };
	static char shape_after[sizeof(out)], shape_before[sizeof(out)];

	ck_assert_msg(vt_exec(0, 0, after, out, sizeof(out), err,
			      sizeof(err)) == 0, "%s", err);
	json_shape(out, shape_after, sizeof(shape_after));
	ck_assert_msg(vt_exec(0, 0, before, out, sizeof(out), err,
			      sizeof(err)) == 0, "%s", err);
	json_shape(out, shape_before, sizeof(shape_before));
	ck_assert_msg(out[0] == '{', "not JSON:\n%s", out);
	ck_assert_str_eq(shape_before, shape_after);
	ck_assert_msg(vt_exec(0, 0, list, out, sizeof(out), err,
			      sizeof(err)) == 0, "%s", err);
	ck_assert_msg(out[0] == '[', "not JSON:\n%s", out);
}
END_TEST

START_TEST(count_getppid_text)
{
	char *argv[] = { "kmemctl", "probe", "count", "__x64_sys_getppid*",
			 "--", self, "--getppid", "2000", "0", NULL };
	unsigned long long hits = 0;
	char *line;

	ck_assert_msg(vt_exec(0, 0, argv, out, sizeof(out), err,
			      sizeof(err)) == 0, "%s", err);
	line = strstr(out, "\n" HOT " ");
	ck_assert_msg(line, "%s", out);
	ck_assert_int_eq(sscanf(line + 1 + strlen(HOT), "%llu", &hits), 1);
	ck_assert_uint_ge(hits, 2 * CALLS);
	ck_assert_uint_le(hits, 2 * CALLS + SLACK);
	/* the setup summary goes to stderr */
	ck_assert_ptr_nonnull(strstr(err, "added"));
}
END_TEST

START_TEST(count_errors)
{
	char *missing[] = { "kmemctl", "probe", "count", HOT, "--",
			    "/nonexistent/cmd", NULL };
	char *nomatch[] = { "kmemctl", "probe", "count", "no_such_fn_xyz*",
			    "--", "true", NULL };
	char *nodash[] = { "kmemctl", "probe", "count", HOT, "true", NULL };

	ck_assert_int_eq(vt_exec(0, 0, missing, out, sizeof(out), err,
				 sizeof(err)), 127);
	ck_assert_int_eq(vt_exec(0, 0, nomatch, out, sizeof(out), err,
				 sizeof(err)), 1);
	ck_assert_ptr_nonnull(strstr(err, "no kernel function matches"));
	ck_assert_int_eq(vt_exec(0, 0, nodash, out, sizeof(out), err,
				 sizeof(err)), 2);
	ck_assert_int_eq(vt_count_lines(err), 1);
}
END_TEST

/* ---- kmemctl probe list ---- */

/* Another process holding two enabled probes on HOT, entry and kprobe. */
struct prober {
	pid_t pid;
	int done;	/* write a byte: it closes its probes and exits */
};

static struct prober start_prober(void)
{
	int ready[2], done[2];
	struct prober pr;
	char c;

	ck_assert_int_eq(pipe(ready), 0);
	ck_assert_int_eq(pipe(done), 0);
	pr.pid = fork();
	ck_assert_int_ge(pr.pid, 0);
	if (!pr.pid) {
		struct kmemdev *h = open_dev();
		struct kmem_ro_probe_spec s[2];
		unsigned int added;

		if (kmemdev_probe_spec_fill(h, &s[0], HOT, 0,
					    KMEM_RO_PROBE_ENABLED) ||
		    kmemdev_probe_spec_fill(h, &s[1], HOT, vt_after_fentry(s[0].addr),
					    KMEM_RO_PROBE_ENABLED) ||
		    kmemdev_probes_add(h, s, 2, &added) || added != 2) {
			fprintf(stderr, "list child: added %u: %lld %lld\n",
				added, (long long)s[0].result,
				(long long)s[1].result);
			_exit(1);
		}
		vt_call_getppid(100);
		if (write(ready[1], "r", 1) != 1 || read(done[0], &c, 1) != 1)
			_exit(2);
		kmemdev_close(h);
		_exit(0);
	}
	close(ready[1]);
	close(done[0]);
	ck_assert_int_eq(read(ready[0], &c, 1), 1);
	close(ready[0]);
	pr.done = done[1];
	return pr;
}

static void stop_prober(struct prober pr)
{
	int status;

	ck_assert_int_eq(write(pr.done, "d", 1), 1);
	close(pr.done);
	ck_assert_int_eq(waitpid(pr.pid, &status, 0), pr.pid);
	ck_assert_int_eq(status, 0);
}

START_TEST(list_shows_other_owner)
{
	char *argv[] = { "kmemctl", "probe", "list", "--json", NULL };
	char *text[] = { "kmemctl", "probe", "list", NULL };
	struct prober pr = start_prober();
	pid_t pid = pr.pid;
	char pat[64], addr[64];
	const char *p;

	ck_assert_msg(vt_exec(0, 0, argv, out, sizeof(out), err,
			      sizeof(err)) == 0, "%s", err);
	snprintf(pat, sizeof(pat), "{\"owner\":%d,", (int)pid);
	p = strstr(out, pat);
	ck_assert_msg(p, "no probe of pid %d in\n%s", (int)pid, out);
	/* Named as the kernel names the address: maybe an alias of HOT. */
	snprintf(addr, sizeof(addr), "\"addr\":\"0x%016" PRIx64 "\"",
		 vt_kallsyms(HOT));
	ck_assert_msg(strstr(p, addr), "%s not in\n%s", addr, p);
	ck_assert_ptr_nonnull(strstr(p, "\"state\":\"enabled\""));
	ck_assert_ptr_nonnull(strstr(p, "\"backend\":\"ftrace\""));
	ck_assert_int_ge(vt_json_num(p, "hits"), 100);
	p = strstr(p + 1, pat);
	ck_assert_msg(p, "one probe of pid %d only\n%s", (int)pid, out);
	ck_assert_ptr_nonnull(strstr(p, "\"backend\":\"kprobe\""));
	ck_assert_int_ge(vt_json_num(p, "hits"), 100);

	ck_assert_msg(vt_exec(0, 0, text, out, sizeof(out), err,
			      sizeof(err)) == 0, "%s", err);
	ck_assert_ptr_nonnull(strstr(out, "OWNER"));
	ck_assert_ptr_nonnull(strstr(out, "_sys_getppid+0x0 "));
	ck_assert_ptr_nonnull(strstr(out, "kprobe"));
	stop_prober(pr);

	/* The owner gone, its probes are too. */
	ck_assert_int_eq(vt_exec(0, 0, argv, out, sizeof(out), err,
				 sizeof(err)), 0);
	ck_assert_ptr_null(strstr(out, pat));
}
END_TEST

/* ---- kmemctl probe top ---- */

START_TEST(top_one_interval)
{
	char *argv[] = { "kmemctl", "probe", "top", "--count", "1",
			 "--interval", "1", "__x64_sys_getp*", "vfs_read", NULL };

	ck_assert_msg(vt_exec(0, 0, argv, out, sizeof(out), err,
			      sizeof(err)) == 0, "%s", err);
	ck_assert_ptr_nonnull(strstr(out, "probes: "));
	ck_assert_ptr_nonnull(strstr(out, "interval 1"));
	ck_assert_ptr_null(strstr(out, "interval 2"));
	ck_assert_ptr_nonnull(strstr(out, "FUNC"));
}
END_TEST

START_TEST(top_json_lines)
{
	char *argv[] = { "kmemctl", "probe", "top", "--json", "-c", "2", "-i",
			 "0.5", HOT, NULL };

	ck_assert_msg(vt_exec(0, 0, argv, out, sizeof(out), err,
			      sizeof(err)) == 0, "%s", err);
	ck_assert_int_eq(vt_count_lines(out), 3);	/* setup, 2 intervals */
	ck_assert_ptr_nonnull(strstr(out, "{\"event\":\"setup\",\"matched\":1,"
				     "\"added\":1,"));
	ck_assert_ptr_nonnull(strstr(out, "\"interval\":2,"));
}
END_TEST

/* Without --count, top runs until SIGINT, then prints a final table, exits 0. */
START_TEST(top_until_sigint)
{
	int pfd[2], status;
	ssize_t got, len = 0;
	pid_t pid;

	out[0] = '\0';
	ck_assert_int_eq(pipe(pfd), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		dup2(pfd[1], STDOUT_FILENO);
		close(pfd[0]);
		execlp("kmemctl", "kmemctl", "probe", "top", "-i", "0.3", HOT,
		       (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	/* Wait for the first table: the probes are armed by then. */
	while (!strstr(out, "interval 1") && len < (ssize_t)sizeof(out) - 1 &&
	       (got = read(pfd[0], out + len, sizeof(out) - 1 - len)) > 0) {
		len += got;
		out[len] = '\0';
	}
	vt_call_getppid(CALLS);
	ck_assert_int_eq(kill(pid, SIGINT), 0);
	while (len < (ssize_t)sizeof(out) - 1 &&
	       (got = read(pfd[0], out + len, sizeof(out) - 1 - len)) > 0)
		len += got;
	out[len] = '\0';
	close(pfd[0]);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "status 0x%x\n%s", status, out);
	ck_assert_ptr_nonnull(strstr(out, "(final)"));
	ck_assert_ptr_nonnull(strstr(out, HOT));
}
END_TEST

/* ---- as a member of the device's group, without capabilities ---- */

/*
 * PROBE_ADD (enabled), 100 hits, STATS, as the caller: 0, or the errno of
 * the first call that failed.
 */
static int add_count_as_caller(void *arg)
{
	uint64_t addr = *(const uint64_t *)arg, id, count = 0;
	struct kmem_ro_probe_spec s;
	int fd = open(KMEM_RO_DEVICE, O_RDONLY), err;

	if (fd < 0)
		return 100;
	vt_probe_spec(&s, HOT, addr, 0, KMEM_RO_PROBE_ENABLED);
	err = vt_probe_add(fd, &s, 1, NULL);
	if (err)
		return -err;
	if (s.result <= 0)
		return 101;
	id = (uint64_t)s.result;
	vt_call_getppid(100);
	err = vt_probe_ids(fd, KMEM_RO_IOC_PROBE_STATS, 0, &id, 1, &count, NULL);
	if (err)
		return -err;
	return count >= 100 ? 0 : 102;
}

/* kmemctl @argv as the group member; stdout in out, stderr in err. */
static int kmemctl_as_member(char **argv)
{
	int status;

	ck_assert_int_eq(chown(KMEM_RO_DEVICE, 0, MONITOR_GID), 0);
	status = vt_exec(NOBODY, MONITOR_GID, argv, out, sizeof(out), err, sizeof(err));
	ck_assert_int_eq(chown(KMEM_RO_DEVICE, 0, 0), 0);
	return status;
}

/* One line that names both ways in: the capability and the parameter. */
static void assert_one_line_says_what_to_do(const char *s)
{
	ck_assert_msg(vt_count_lines(s) == 1 && !strncmp(s, "kmemctl: probe: not permitted: ", 31) &&
		      strstr(s, "CAP_PERFMON") && strstr(s, "probe_group=1"), "%s", s);
}

/* The default (probe_group=0): EPERM, and kmemctl says what to do. */
START_TEST(member_refused_by_default)
{
	char *count[] = { "kmemctl", "probe", "count", HOT, "--", "true", NULL };
	char *top[] = { "kmemctl", "probe", "top", "-c", "1", HOT, NULL };
	uint64_t addr = vt_kallsyms(HOT);

	vt_write_file(PROBE_GROUP_PARAM, "0");
	ck_assert_int_eq(vt_run_as_monitor(add_count_as_caller, &addr), EPERM);
	ck_assert_int_eq(kmemctl_as_member(count), 1);
	assert_one_line_says_what_to_do(err);
	ck_assert_int_eq(kmemctl_as_member(top), 1);
	assert_one_line_says_what_to_do(err);
}
END_TEST

/*
 * kmemctl looks the patterns up before anything is probed: as a group
 * member that needs symbols from the device (issue 23 section 1), not
 * from /proc/kallsyms, which hides them without CAP_SYSLOG.  Until then
 * this fails here, plainly marked.
 */
static void assert_member_has_symbols(void)
{
	ck_assert_msg(!strstr(err, "kallsyms"),
		      "SYMBOLS-FROM-DEVICE MISSING (issue 23 section 1), not probes: %s", err);
}

/* "hits":N taken out of kmemctl's JSON: the rest must be root's. */
static void strip_hits(char *s)
{
	char *p, *q;

	while ((p = strstr(s, "\"hits\":"))) {
		for (q = p + 7; *q >= '0' && *q <= '9'; q++)
			;
		if (*q == ',')
			q++;
		memmove(p, q, strlen(q) + 1);
	}
}

/* probe_group=1: the fd is enough, and count, top and list give root's answers. */
START_TEST(member_probes_with_probe_group)
{
	char *count[] = { "kmemctl", "probe", "count", "--json", HOT, "__x64_sys_getp*",
			  "--", self, "--getppid", "1000", "3", NULL };
	char *top[] = { "kmemctl", "probe", "top", "--json", "-c", "1", "-i", "0.5",
			"__x64_sys_getp*", NULL };
	char *list[] = { "kmemctl", "probe", "list", "--json", NULL };
	static char root_out[sizeof(out)];
	uint64_t addr = vt_kallsyms(HOT);
	long long added, total;
	struct prober pr;
	int status;
	char *nl;

	vt_write_file(PROBE_GROUP_PARAM, "1");
	ck_assert_int_eq(vt_run_as_monitor(add_count_as_caller, &addr), 0);

	/* list: another (root) process's probes, as root lists them */
	pr = start_prober();
	ck_assert_msg(vt_exec(0, 0, list, root_out, sizeof(root_out), err, sizeof(err)) == 0,
		      "%s", err);
	ck_assert_msg(kmemctl_as_member(list) == 0, "%s", err);
	stop_prober(pr);
	strip_hits(out);
	strip_hits(root_out);
	ck_assert_str_eq(out, root_out);
	ck_assert_ptr_nonnull(strstr(out, "\"backend\":\"kprobe\""));

	/* count: the same probes as root's, the known number of hits */
	ck_assert_msg(vt_exec(0, 0, count, out, sizeof(out), err, sizeof(err)) == 3, "%s", err);
	added = vt_json_num(out, "added");
	ck_assert_int_ge(added, 3);
	status = kmemctl_as_member(count);
	assert_member_has_symbols();
	ck_assert_msg(status == 3, "%s", err);
	ck_assert_int_eq(vt_json_num(out, "added"), added);
	total = json_func_total(out, HOT);
	ck_assert_msg(total >= CALLS && total <= CALLS + SLACK, "total %lld\n%s", total, out);

	/* top: root's setup line */
	ck_assert_msg(vt_exec(0, 0, top, root_out, sizeof(root_out), err, sizeof(err)) == 0,
		      "%s", err);
	status = kmemctl_as_member(top);
	assert_member_has_symbols();
	ck_assert_msg(status == 0, "%s", err);
	nl = strchr(root_out, '\n');
	ck_assert_ptr_nonnull(nl);
	ck_assert_int_eq(strncmp(out, root_out, nl + 1 - root_out), 0);
	ck_assert_ptr_nonnull(strstr(out, "\"interval\":1,"));

	vt_write_file(PROBE_GROUP_PARAM, "0");
}
END_TEST

static Suite *probe_tool_suite(void)
{
	Suite *s = suite_create("probe_tool");
	TCase *lib = tcase_create("library");
	TCase *tool = tcase_create("kmemctl");

	tcase_add_test(lib, symbol_exists);
	tcase_add_test(lib, glob_matches_real_kallsyms);
	tcase_add_test(lib, add_splits_batches);
	suite_add_tcase(s, lib);

	tcase_add_test(tool, count_getppid_json);
	tcase_add_test(tool, count_json_global);
	tcase_add_test(tool, count_getppid_text);
	tcase_add_test(tool, count_errors);
	tcase_add_test(tool, list_shows_other_owner);
	tcase_add_test(tool, top_one_interval);
	tcase_add_test(tool, top_json_lines);
	tcase_add_test(tool, top_until_sigint);
	suite_add_tcase(s, tool);

	tool = tcase_create("group member");
	tcase_add_test(tool, member_refused_by_default);
	tcase_add_test(tool, member_probes_with_probe_group);
	suite_add_tcase(s, tool);
	return s;
}

int main(int argc, char **argv)
{
	ssize_t n;

	/* The command kmemctl probe count runs: N getppid() calls, STATUS. */
	if (argc == 4 && !strcmp(argv[1], "--getppid")) {
		vt_call_getppid(atol(argv[2]));
		return atoi(argv[3]);
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return 1;
	self[n] = '\0';
	return vt_main(probe_tool_suite());
}
