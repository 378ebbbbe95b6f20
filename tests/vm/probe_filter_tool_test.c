// SPDX-License-Identifier: GPL-2.0
/*
 * kmemctl probe's filters and outputs, end to end: --pid and --comm count
 * exactly the calls of the matching process or task name (a command that
 * also makes calls from another process or name must not add to them),
 * -o FILE keeps the report apart from the command's own output, the last
 * top --json record is "final" however the run ends, and a glob skips
 * kmem_ro's own functions unless --include-self; kmemctl info names the
 * feature and the ioctl.  As root and as a member of the device's group
 * with probe_group=1.
 *
 * This binary is also the command kmemctl runs:
 *   --named NAME N K       rename itself NAME, make N getppid() calls and
 *                          have a child named pf_noise make K; print one
 *                          line; exit 3
 *   --wait READY GO K      make K getppid() calls, write a byte to fd
 *                          READY, wait for one on fd GO; exit 0
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "tooltest.h"

#define HOT		"__x64_sys_getppid"
#define HOT_GLOB	"__x64_sys_getppi?"
/* kmem_ro's own: every ioctl enters the driver through it */
#define SELF_FN		"kmem_ro_ioctl"
#define SELF_GLOB	"kmem_ro_ioct?"
#define REPORT		"/tmp/pf_report.json"

static char self[256];

/* The "total" of function @name in kmemctl's JSON; -1 if not listed. */
static long long func_total(const char *json, const char *name)
{
	char pat[160];
	const char *p;

	snprintf(pat, sizeof(pat), "\"name\":\"%s\"", name);
	p = strstr(json, pat);
	return p ? vt_json_num(p, "total") : -1;
}

/* @path's content into out (NUL-terminated); its length. */
static size_t read_report(const char *path)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	ck_assert_msg(fd >= 0, "%s: %s", path, strerror(errno));
	n = read(fd, out, sizeof(out) - 1);
	ck_assert_int_ge(n, 0);
	out[n] = '\0';
	close(fd);
	return (size_t)n;
}

/* ---- the commands kmemctl runs ---- */

static int cmd_named(const char *name, long n, long k)
{
	int status;
	pid_t pid;

	if (prctl(PR_SET_NAME, name))
		return 100;
	pid = fork();
	if (!pid) {
		prctl(PR_SET_NAME, "pf_noise");
		vt_call_getppid(k);
		_exit(0);
	}
	vt_call_getppid(n);
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return 101;
	printf("%s output\n", name);
	return 3;
}

static int cmd_wait(int ready, int go, long k)
{
	char c = 0;

	vt_call_getppid(k);
	if (write(ready, &c, 1) != 1 || read(go, &c, 1) != 1)
		return 100;
	return 0;
}

/* ---- tests ---- */

/*
 * --comm: only the calls of the task of that name, not its child's; -o:
 * stdout is the command's alone, the JSON is in the file.  As @uid.
 */
static void count_comm_apart(uid_t uid, gid_t gid)
{
	char *argv[] = { "kmemctl", "probe", "count", "--json", "-o", REPORT, "--comm",
			 "pf_cmd", HOT, "--", self, "--named", "pf_cmd", "250", "400", NULL };

	unlink(REPORT);
	ck_assert_int_eq(vt_exec(uid, gid, argv, out, sizeof(out), err, sizeof(err)), 3);
	ck_assert_msg(!strcmp(out, "pf_cmd output\n"), "stdout: %s", out);
	ck_assert_msg(!err[0], "stderr: %s", err);
	read_report(REPORT);
	ck_assert_msg(json_valid(out, false), "%s", out);
	ck_assert_int_eq(vt_json_num(out, "exit_status"), 3);
	ck_assert_msg(func_total(out, HOT) == 250, "%s", out);
	ck_assert_ptr_nonnull(strstr(out, "\"filter\":{\"comm\":\"pf_cmd\"}"));
}

START_TEST(count_comm_output_apart)
{
	count_comm_apart(0, 0);
}
END_TEST

/* Without -o, the report follows the command's output on stdout. */
START_TEST(count_without_output_file_shares_stdout)
{
	ck_assert_int_eq(kmemctl("probe count --json --comm pf_cmd " HOT " -- %s --named pf_cmd 10 0",
				 self), 3);
	ck_assert_msg(!strncmp(out, "pf_cmd output\n{", 15), "%s", out);
	ck_assert_int_eq(func_total(out, HOT), 10);
}
END_TEST

/*
 * --pid: the calls of this test process while the command waits, none of
 * the command's own.  The command runs once the probes count.
 */
START_TEST(count_pid_filter)
{
	int ready[2], go[2], status;
	char pid[16], rfd[16], gfd[16], c;
	pid_t kid;

	ck_assert_int_eq(pipe(ready), 0);
	ck_assert_int_eq(pipe(go), 0);
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	snprintf(rfd, sizeof(rfd), "%d", ready[1]);
	snprintf(gfd, sizeof(gfd), "%d", go[0]);
	unlink(REPORT);
	kid = fork();
	ck_assert_int_ge(kid, 0);
	if (!kid) {
		execlp("kmemctl", "kmemctl", "probe", "count", "--json", "-o", REPORT, "--pid",
		       pid, HOT, "--", self, "--wait", rfd, gfd, "300", (char *)NULL);
		_exit(127);
	}
	close(ready[1]);
	close(go[0]);
	ck_assert_int_eq(read(ready[0], &c, 1), 1);
	vt_call_getppid(700);
	ck_assert_int_eq(write(go[1], &c, 1), 1);
	ck_assert_int_eq(waitpid(kid, &status, 0), kid);
	ck_assert_msg(WIFEXITED(status) && !WEXITSTATUS(status), "status %#x", status);
	read_report(REPORT);
	ck_assert_msg(func_total(out, HOT) == 700, "%s", out);
	ck_assert_int_eq(vt_json_num(out, "pid"), getpid());
	close(ready[0]);
	close(go[1]);
}
END_TEST

START_TEST(filter_errors)
{
	pid_t gone = fork();
	int status;

	ck_assert_int_ge(gone, 0);
	if (!gone)
		_exit(0);
	ck_assert_int_eq(waitpid(gone, &status, 0), gone);
	ck_assert_int_eq(kmemctl("probe count --pid %d " HOT " -- true", (int)gone), 1);
	ck_assert_msg(one_short_line(err) && strstr(err, "no such process"), "%s", err);
	ck_assert_int_eq(kmemctl("probe count --pid 0 " HOT " -- true"), 2);
	ck_assert_msg(one_short_line(err), "%s", err);
	ck_assert_int_eq(kmemctl("probe count --comm sixteen_bytes_xx " HOT " -- true"), 2);
	ck_assert_msg(one_short_line(err), "%s", err);
	ck_assert_int_eq(kmemctl("probe list --pid 1"), 2);
	ck_assert_int_eq(kmemctl("probe count -o /nonexistent/dir/f " HOT " -- true"), 1);
	ck_assert_msg(one_short_line(err), "%s", err);
}
END_TEST

/* The last record is "final" with --count too, and -o takes top's lines. */
START_TEST(top_last_record_final)
{
	char *line;
	int n = 0;

	ck_assert_msg(kmemctl("probe top --json -c 2 -i 0.3 " HOT) == 0, "%s", err);
	ck_assert_int_eq(vt_count_lines(out), 3);	/* setup, 2 intervals */
	ck_assert_msg(json_valid(out, true), "%s", out);
	for (line = strtok(out, "\n"); line; line = strtok(NULL, "\n"), n++) {
		const char *want = n == 0 ? "setup" : n == 1 ? "interval" : "final";
		char ev[32];

		ck_assert_int_eq(json_str_of(line, "event", ev, sizeof(ev)), 0);
		ck_assert_msg(!strcmp(ev, want), "record %d: %s", n, line);
	}
	/* text: the last table says so */
	ck_assert_msg(kmemctl("probe top -c 1 -i 0.3 " HOT) == 0, "%s", err);
	ck_assert_msg(strstr(out, "interval 1 (final)"), "%s", out);

	unlink(REPORT);
	ck_assert_msg(kmemctl("probe top --json -c 1 -i 0.3 -o " REPORT " " HOT) == 0, "%s", err);
	ck_assert_msg(!out[0], "stdout: %s", out);
	read_report(REPORT);
	ck_assert_int_eq(vt_count_lines(out), 2);
	ck_assert_ptr_nonnull(strstr(out, "\"event\":\"final\""));
}
END_TEST

/* A glob skips kmem_ro's own functions; --include-self or the exact name probes them. */
START_TEST(self_excluded_from_globs)
{
	ck_assert_int_eq(kmemctl("probe count --json " SELF_GLOB " -- true"), 1);
	ck_assert_msg(strstr(err, "only kmem_ro's own functions match"), "%s", err);

	ck_assert_msg(kmemctl("probe count --json " SELF_GLOB " " HOT_GLOB " -- true") == 0,
		      "%s", err);
	ck_assert_int_eq(vt_json_num(out, "added"), 1);
	ck_assert_int_eq(vt_json_num(out, "self_skipped"), 1);
	ck_assert_ptr_null(strstr(out, SELF_FN));

	/* probed, they count kmemctl's own calls to the device */
	ck_assert_msg(kmemctl("probe count --json --include-self " SELF_GLOB " -- true") == 0,
		      "%s", err);
	ck_assert_int_eq(vt_json_num(out, "self_skipped"), 0);
	ck_assert_msg(func_total(out, SELF_FN) >= 1, "%s", out);
	ck_assert_msg(kmemctl("probe count --json " SELF_FN " -- true") == 0, "%s", err);
	ck_assert_msg(func_total(out, SELF_FN) >= 1, "%s", out);
}
END_TEST

/* kmemctl info names the feature bit and the ioctl, as the driver reports them. */
START_TEST(info_names_filter)
{
	ck_assert_msg(kmemctl("info") == 0, "%s", err);
	ck_assert_msg(strstr(out, "probe-filter") && strstr(out, "PROBE_FILTER"), "%s", out);
	ck_assert_msg(!strstr(out, "bit10") && !strstr(out, "bit22"), "%s", out);
}
END_TEST

/* The group member with probe_group=1: filters and -o as root has them. */
START_TEST(member_filters)
{
	ck_assert_int_eq(chmod("/tmp", 01777), 0);
	vt_write_file(PROBE_GROUP_PARAM, "1");
	ck_assert_int_eq(chown(KMEM_RO_DEVICE, 0, MONITOR_GID), 0);
	count_comm_apart(NOBODY, MONITOR_GID);
	ck_assert_int_eq(chown(KMEM_RO_DEVICE, 0, 0), 0);
	vt_write_file(PROBE_GROUP_PARAM, "0");
	/* without it: refused before anything runs */
	ck_assert_int_eq(kmemctl_member("probe count --comm pf_cmd " HOT " -- true"), 1);
	ck_assert_msg(strstr(err, "not permitted"), "%s", err);
}
END_TEST

static Suite *probe_filter_tool_suite(void)
{
	Suite *s = suite_create("probe_filter_tool");
	TCase *tc = tcase_create("kmemctl");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, count_comm_output_apart);
	tcase_add_test(tc, count_without_output_file_shares_stdout);
	tcase_add_test(tc, count_pid_filter);
	tcase_add_test(tc, filter_errors);
	tcase_add_test(tc, top_last_record_final);
	tcase_add_test(tc, self_excluded_from_globs);
	tcase_add_test(tc, info_names_filter);
	tcase_add_test(tc, member_filters);
	suite_add_tcase(s, tc);
	return s;
}

int main(int argc, char **argv)
{
	ssize_t n;

	if (argc == 5 && !strcmp(argv[1], "--named"))
		return cmd_named(argv[2], atol(argv[3]), atol(argv[4]));
	if (argc == 5 && !strcmp(argv[1], "--wait"))
		return cmd_wait(atoi(argv[2]), atoi(argv[3]), atol(argv[4]));
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return 1;
	self[n] = '\0';
	return vt_main(probe_filter_tool_suite());
}
