// SPDX-License-Identifier: GPL-2.0
/*
 * kmemctl list: the module list against /proc/modules and
 * /proc/kallsyms' __this_module, the task list against /proc (pids,
 * comms, real parents), nested field paths against known kernel values,
 * a task name that is not UTF-8 in valid JSON - on the device (one WALK)
 * and, with the module unloaded, on /proc/kcore.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tooltest.h"

#define MAX_TASKS	1024

/* NICE_0_LOAD on 64-bit: scale_load(1024), SCHED_FIXEDPOINT_SHIFT 10 */
#define NICE_0_LOAD	(1024UL << 10)

struct task {
	int pid;
	char comm[64];
	uint64_t addr, parent;
};

/* {"addr":"0x..","pid":N,"comm":"..","real_parent":"0x.."} objects */
static int parse_tasks(const char *json, struct task *t, int cap)
{
	const char *p = json;
	int n = 0;

	while ((p = strstr(p, "{\"addr\":")) && n < cap) {
		ck_assert_int_eq(sscanf(p, "{\"addr\":\"0x%" SCNx64 "\",\"pid\":%d,", &t[n].addr,
					&t[n].pid), 2);
		ck_assert_int_eq(json_str_of(p, "comm", t[n].comm, sizeof(t[n].comm)), 0);
		t[n].parent = json_hex_of(p, "real_parent");
		n++;
		p++;
	}
	return n;
}

static const struct task *find(const struct task *t, int n, int pid)
{
	for (int i = 0; i < n; i++)
		if (t[i].pid == pid)
			return &t[i];
	return NULL;
}

/* /proc/PID/comm, "" if the process is gone. */
static void proc_comm(int pid, char *buf, size_t len)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	buf[0] = '\0';
	f = fopen(path, "re");
	if (!f)
		return;
	if (!fgets(buf, (int)len, f))
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

static int proc_pids(int *pids, int cap)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)) && n < cap)
		if (isdigit((unsigned char)e->d_name[0]))
			pids[n++] = atoi(e->d_name);
	closedir(d);
	return n;
}

/*
 * The task list from init_task: pid 0 first, then every process /proc
 * showed before and still shows after (kmemctl itself came and went), with
 * its comm; nothing /proc never showed but kmemctl; real parents as the
 * kernel sets them (init_task for pid 1 and kthreadd).
 */
static void check_tasks(void)
{
	static struct task t[MAX_TASKS];
	static int before[MAX_TASKS], after[MAX_TASKS];
	int nb, na, n, i, j, self = 0;
	uint64_t init = vt_kallsyms("init_task");
	char comm[64];

	nb = proc_pids(before, MAX_TASKS);
	ck_assert_msg(kmemctl("list task_struct.tasks --node init_task --fields "
			      "pid,comm,real_parent --json") == 0, "%s", err);
	na = proc_pids(after, MAX_TASKS);
	ck_assert_msg(json_valid(out, false), "%s", out);
	n = parse_tasks(out, t, MAX_TASKS);
	ck_assert_int_gt(n, 10);
	ck_assert_int_eq(t[0].pid, 0);
	ck_assert_str_eq(t[0].comm, "swapper/0");
	ck_assert_uint_eq(t[0].addr, init);
	for (i = 0; i < nb; i++) {
		const struct task *k;

		for (j = 0; j < na && after[j] != before[i]; j++)
			;
		if (j == na)
			continue;
		k = find(t, n, before[i]);
		ck_assert_msg(k, "pid %d in /proc, not in the list", before[i]);
		proc_comm(before[i], comm, sizeof(comm));
		/* kernel threads may show a longer name in /proc */
		ck_assert_msg(!strncmp(k->comm, comm, strlen(k->comm)) && *k->comm,
			      "pid %d: %s vs /proc %s", k->pid, k->comm, comm);
	}
	for (i = 1; i < n; i++) {
		bool seen = false;

		for (j = 0; j < nb && !seen; j++)
			seen = before[j] == t[i].pid;
		for (j = 0; j < na && !seen; j++)
			seen = after[j] == t[i].pid;
		if (!seen && !strcmp(t[i].comm, "kmemctl") && !self++)
			continue;
		ck_assert_msg(seen, "list has pid %d (%s), /proc never did", t[i].pid, t[i].comm);
	}
	ck_assert_int_eq(self, 1);
	ck_assert_ptr_nonnull(find(t, n, 1));
	ck_assert_ptr_nonnull(find(t, n, 2));
	ck_assert_uint_eq(find(t, n, 1)->parent, init);
	ck_assert_uint_eq(find(t, n, 2)->parent, init);
}

START_TEST(tasks_match_proc)
{
	check_tasks();
}
END_TEST

/* The module list: names and order of /proc/modules, nodes at __this_module. */
static void check_modules(void)
{
	struct proc_module pm[64];
	int n = proc_modules(pm, 64), i;
	const char *p = out;

	ck_assert_int_ge(n, 1);
	ck_assert_msg(kmemctl("list module.list modules --fields name,state --json") == 0, "%s",
		      err);
	ck_assert_msg(json_valid(out, false), "%s", out);
	for (i = 0; i < n; i++) {
		char name[64], state[64];

		p = strstr(p, "{\"addr\":");
		ck_assert_msg(p, "%d modules listed, /proc/modules has %d", i, n);
		ck_assert_int_eq(json_str_of(p, "name", name, sizeof(name)), 0);
		ck_assert_int_eq(json_str_of(p, "state", state, sizeof(state)), 0);
		ck_assert_str_eq(name, pm[i].name);
		ck_assert_str_eq(state, "MODULE_STATE_LIVE");
		ck_assert_uint_eq(json_hex_of(p, "addr"), kallsyms_in("__this_module", name));
		p++;
	}
	ck_assert_ptr_null(strstr(p, "{\"addr\":"));

	/* text: a header and a line per module */
	ck_assert_msg(kmemctl("list module.list modules -f name") == 0, "%s", err);
	ck_assert_msg(!strncmp(out, "ADDR                name\n", 24), "%s", out);
	ck_assert_int_eq(vt_count_lines(out), n + 1);
	for (i = 0; i < n; i++) {
		char want[128];

		snprintf(want, sizeof(want), "  \"%.63s\"\n", pm[i].name);
		ck_assert_msg(strstr(out, want), "no %s in\n%s", want, out);
	}
}

START_TEST(modules_match_proc_modules)
{
	check_modules();
}
END_TEST

/* Nested paths: se.load.weight of a nice-0 task is NICE_0_LOAD. */
START_TEST(nested_field_paths)
{
	const char *p;

	ck_assert_int_eq(getpriority(PRIO_PROCESS, 1), 0);
	ck_assert_msg(kmemctl("list task_struct.tasks -n init_task -f pid,se.load.weight,se.load --json")
		      == 0, "%s", err);
	ck_assert(json_valid(out, false));
	p = strstr(out, "\"pid\":1,");
	ck_assert_msg(p, "%s", out);
	ck_assert_int_eq(vt_json_num(p, "se.load.weight"), NICE_0_LOAD);
	/* a struct field is an object */
	ck_assert_msg(strstr(p, "\"se.load\":{\"weight\":"), "%.200s", p);

	ck_assert_msg(kmemctl("list task_struct.tasks -n init_task -f pid,se.load") == 0, "%s", err);
	ck_assert_msg(strstr(out, "{weight = 1048576, inv_weight = 4194304}"), "%.500s", out);
}
END_TEST

/* A task name that is not UTF-8: escaped, and the JSON stays valid. */
START_TEST(non_utf8_comm)
{
	int ready[2], status;
	pid_t pid;
	char c, want[64];

	ck_assert_int_eq(pipe(ready), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		if (prctl(PR_SET_NAME, "\xff\xfe\x01q\"\\\xc3(") ||
		    write(ready[1], "r", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	ck_assert_int_eq(read(ready[0], &c, 1), 1);
	ck_assert_msg(kmemctl("list task_struct.tasks -n init_task -f pid,comm --json") == 0, "%s",
		      err);
	ck_assert_msg(json_valid(out, false), "invalid JSON");
	snprintf(want, sizeof(want), "\"pid\":%d,\"comm\":\"\\u00ff\\u00fe\\u0001q\\\"\\\\\\u00c3(\"",
		 pid);
	ck_assert_msg(strstr(out, want), "no %s", want);
	ck_assert_msg(kmemctl("list task_struct.tasks -n init_task -f pid,comm") == 0, "%s", err);
	ck_assert_msg(strstr(out, "\"\\xff\\xfe\\x01q\\\"\\\\\\xc3(\""), "%s", out);
	kill(pid, SIGKILL);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
}
END_TEST

START_TEST(errors_are_one_line)
{
	ck_assert_int_eq(kmemctl("list task_struct.pid init_task"), 1);
	ck_assert_msg(one_short_line(err), "%s", err);
	ck_assert_ptr_nonnull(strstr(err, "not a struct list_head"));
	ck_assert_int_eq(kmemctl("list task_struct init_task"), 2);
	ck_assert_msg(one_short_line(err), "%s", err);
	ck_assert_int_eq(kmemctl("list module.list no_such_list_xyz"), 1);
	ck_assert_msg(one_short_line(err), "%s", err);
	ck_assert_int_eq(kmemctl("list module.list modules -f no_such_field"), 1);
	ck_assert_msg(one_short_line(err), "%s", err);
	ck_assert_int_eq(kmemctl("list module.list"), 2);
	ck_assert_msg(one_short_line(err), "%s", err);
	/* a head that is not a kernel address */
	ck_assert_int_eq(kmemctl("list module.list 0x1000"), 1);
	ck_assert_msg(one_short_line(err), "%s", err);
}
END_TEST

static void no_device(void)
{
	unload_kmem_ro();
}

static void device_back(void)
{
	reload_kmem_ro();
}

START_TEST(kcore_tasks)
{
	ck_assert_int_eq(vt_open_errno(KMEM_RO_DEVICE, 0), ENOENT);
	check_tasks();
}
END_TEST

START_TEST(kcore_modules)
{
	check_modules();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("list_tool");
	TCase *tc = tcase_create("device");

	tcase_add_test(tc, tasks_match_proc);
	tcase_add_test(tc, modules_match_proc_modules);
	tcase_add_test(tc, nested_field_paths);
	tcase_add_test(tc, non_utf8_comm);
	tcase_add_test(tc, errors_are_one_line);
	suite_add_tcase(s, tc);

	tc = tcase_create("kcore");
	tcase_add_unchecked_fixture(tc, no_device, device_back);
	tcase_add_test(tc, kcore_tasks);
	tcase_add_test(tc, kcore_modules);
	suite_add_tcase(s, tc);
	return vt_main(s);
}
