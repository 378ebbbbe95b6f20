// SPDX-License-Identifier: GPL-2.0
/*
 * kmemctl ps's columns against the kernel's own view of a process this
 * test starts and keeps still (pinned to one CPU, its threads asleep, its
 * memory touched): VSZ and RSS against /proc/PID/statm, threads against
 * /proc/PID/status and /proc/PID/task, the CPU against /proc/PID/stat's
 * processor field, the task address against the library's own walk; a
 * zombie and kthreadd for the filters and the kernel threads' zeros;
 * every backend alike; the device group's member alike; bad filters.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "tooltest.h"

#define KID_THREADS	3
#define KID_PAGES	1031	/* not a multiple of percpu_counter_batch */
#define KID_CPU		1	/* run.sh gives the guest two CPUs */
#define MEMBER_UID	1000

static pid_t kid, zombie;

static void *sleeper(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

/* The child: on KID_CPU, KID_PAGES pages touched, KID_THREADS threads. */
static void kid_main(int ready)
{
	cpu_set_t set;
	pthread_t t;
	char *m;

	CPU_ZERO(&set);
	CPU_SET(KID_CPU, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		_exit(1);
	prctl(PR_SET_NAME, "ps_kid");
	m = mmap(NULL, KID_PAGES * 4096UL, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		_exit(1);
	for (int i = 0; i < KID_PAGES; i++)
		m[i * 4096UL] = 1;
	for (int i = 0; i < KID_THREADS; i++)
		if (pthread_create(&t, NULL, sleeper, NULL))
			_exit(1);
	if (write(ready, "x", 1) != 1)
		_exit(1);
	for (;;)
		pause();
}

static void setup(void)
{
	int fds[2];
	char c;

	ck_assert_int_eq(pipe(fds), 0);
	kid = fork();
	ck_assert_int_ge(kid, 0);
	if (!kid)
		kid_main(fds[1]);
	close(fds[1]);
	ck_assert_int_eq(read(fds[0], &c, 1), 1);
	close(fds[0]);
	zombie = fork();
	ck_assert_int_ge(zombie, 0);
	if (!zombie)
		_exit(0);
	usleep(300000);	/* the threads reach pause(), the zombie dies */
}

static void teardown(void)
{
	kill(kid, SIGKILL);
	waitpid(kid, NULL, 0);
	waitpid(zombie, NULL, 0);
}

/* /proc/@path/stat into @buf; returns its state field (field 3). */
static char *stat_fields(const char *path, char *buf, size_t cap)
{
	char file[128], *p;
	FILE *f;
	size_t len;

	snprintf(file, sizeof(file), "/proc/%s/stat", path);
	f = fopen(file, "re");
	ck_assert_ptr_nonnull(f);
	len = fread(buf, 1, cap - 1, f);
	fclose(f);
	buf[len] = '\0';
	/* the comm may hold ") ": the last one ends it */
	p = strrchr(buf, ')');
	ck_assert_ptr_nonnull(p);
	return p + 2;
}

/* The @n-th field (1-based, as proc(5) numbers them) of /proc/@path/stat. */
static long stat_field(const char *path, int n)
{
	char buf[1024], *p = stat_fields(path, buf, sizeof(buf));

	for (int i = 3; i < n && p; i++) {
		p = strchr(p, ' ');
		p = p ? p + 1 : NULL;
	}
	ck_assert_ptr_nonnull(p);
	return strtol(p, NULL, 10);
}

static char stat_state(pid_t pid)
{
	char path[32], buf[1024];

	snprintf(path, sizeof(path), "%d", pid);
	return *stat_fields(path, buf, sizeof(buf));
}

/* /proc/@pid/statm's size and resident, in pages. */
static void statm(pid_t pid, unsigned long *size, unsigned long *res)
{
	char file[64];
	FILE *f;

	snprintf(file, sizeof(file), "/proc/%d/statm", pid);
	f = fopen(file, "re");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fscanf(f, "%lu %lu", size, res), 2);
	fclose(f);
}

/* The TIDs in /proc/@pid/task, sorted; how many. */
static int proc_tids(pid_t pid, long *tid, int cap)
{
	char dir[64];
	struct dirent *e;
	DIR *d;
	int n = 0;

	snprintf(dir, sizeof(dir), "/proc/%d/task", pid);
	d = opendir(dir);
	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)) && n < cap)
		if (isdigit((unsigned char)e->d_name[0]))
			tid[n++] = atol(e->d_name);
	closedir(d);
	for (int i = 1; i < n; i++)
		for (int k = i; k > 0 && tid[k - 1] > tid[k]; k--) {
			long x = tid[k];

			tid[k] = tid[k - 1];
			tid[k - 1] = x;
		}
	return n;
}

/* The next {...} of a JSON array of flat objects into @row; false at the end. */
static bool next_row(const char **p, char *row, size_t len)
{
	const char *open = strchr(*p, '{'), *close = open ? strchr(open, '}') : NULL;

	if (!close || (size_t)(close - open + 2) > len)
		return false;
	memcpy(row, open, (size_t)(close - open + 1));
	row[close - open + 1] = '\0';
	*p = close + 1;
	return true;
}

static long long row_num(const char *row, const char *key)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = strstr(row, pat);
	ck_assert_msg(p, "no %s in %s", key, row);
	return strtoll(p + strlen(pat), NULL, 10);
}

static char row_state(const char *row)
{
	char s[8];

	ck_assert_int_eq(json_str_of(row, "state", s, sizeof(s)), 0);
	return s[0];
}

START_TEST(process_row_is_procs)
{
	unsigned long size0, res0, size1, res1;
	long tids[16];
	char row[512];
	const char *p;
	int n;

	statm(kid, &size0, &res0);
	ck_assert_msg(kmemctl("ps --pid %d --json", kid) == 0, "%s", err);
	statm(kid, &size1, &res1);
	ck_assert_msg(json_valid(out, false), "%s", out);
	p = out;
	ck_assert(next_row(&p, row, sizeof(row)));
	ck_assert(!next_row(&p, row, sizeof(row)));	/* only the kid */
	ck_assert_int_eq(row_num(row, "pid"), kid);
	ck_assert_int_eq(row_num(row, "tid"), kid);
	ck_assert_int_eq(row_num(row, "ppid"), getpid());
	ck_assert_msg(strstr(row, "\"comm\":\"ps_kid\""), "%s", row);
	ck_assert_int_eq(row_state(row), stat_state(kid));
	ck_assert_int_eq(row_state(row), 'S');
	ck_assert_uint_eq(json_hex_of(row, "task"), task_of(kid));
	ck_assert_int_eq(row_num(row, "cpu"), KID_CPU);
	{
		char path[32];

		snprintf(path, sizeof(path), "%d", kid);
		ck_assert_int_eq(row_num(row, "cpu"), stat_field(path, 39));
	}
	/* Threads: in /proc/PID/status and /proc/PID/task */
	n = proc_tids(kid, tids, 16);
	ck_assert_int_eq(n, KID_THREADS + 1);
	ck_assert_int_eq(row_num(row, "threads"), n);
	ck_assert_int_eq(vt_json_num(row, "threads"), KID_THREADS + 1);
	/* statm, in pages: the kid stands still, so before and after agree */
	ck_assert_uint_eq(size0, size1);
	ck_assert_uint_eq(res0, res1);
	ck_assert_int_eq(row_num(row, "vsz_kib"), (long long)size0 * 4);
	ck_assert_int_eq(row_num(row, "rss_kib"), (long long)res0 * 4);
	ck_assert_uint_ge(res0, KID_PAGES);

	/* the table: one header, one row, the same numbers */
	ck_assert_msg(kmemctl("ps --pid %d", kid) == 0, "%s", err);
	ck_assert_int_eq(vt_count_lines(out), 2);
	ck_assert_msg(strstr(out, "PID    PPID S CPU  THR       VSZ      RSS TASK"), "%s", out);
	{
		int pid, ppid, cpu, thr;
		unsigned long vsz, rss;
		char st, comm[32];
		unsigned long long task;

		ck_assert_int_eq(sscanf(strchr(out, '\n') + 1, "%d %d %c %d %d %lu %lu %llx %31s",
					&pid, &ppid, &st, &cpu, &thr, &vsz, &rss, &task, comm), 9);
		ck_assert_int_eq(pid, kid);
		ck_assert_int_eq(thr, KID_THREADS + 1);
		ck_assert_uint_eq(vsz, size0 * 4);
		ck_assert_uint_eq(rss, res0 * 4);
		ck_assert_uint_eq(task, task_of(kid));
		ck_assert_str_eq(comm, "ps_kid");
	}
}
END_TEST

/* -T: one row per TID of /proc/PID/task, each on the CPU /proc says. */
static void check_threads(const char *json)
{
	long tids[16];
	char row[512], path[64];
	const char *p = json;
	int n = proc_tids(kid, tids, 16), i = 0;
	uint64_t seen[16];

	ck_assert_msg(json_valid(json, false), "%s", json);
	while (next_row(&p, row, sizeof(row))) {
		ck_assert_int_lt(i, n);
		ck_assert_int_eq(row_num(row, "pid"), kid);
		/* sorted by tgid then TID: /proc's order */
		ck_assert_int_eq(row_num(row, "tid"), tids[i]);
		ck_assert_int_eq(row_num(row, "ppid"), getpid());
		snprintf(path, sizeof(path), "%d/task/%ld", kid, tids[i]);
		ck_assert_int_eq(row_num(row, "cpu"), stat_field(path, 39));
		ck_assert_int_eq(row_num(row, "cpu"), KID_CPU);
		ck_assert_int_eq(row_state(row), 'S');
		ck_assert_int_eq(row_num(row, "threads"), n);
		seen[i] = json_hex_of(row, "task");
		for (int k = 0; k < i; k++)
			ck_assert_uint_ne(seen[k], seen[i]);
		i++;
	}
	ck_assert_int_eq(i, n);
	ck_assert_uint_eq(seen[0], task_of(kid));
}

START_TEST(threads_are_proc_tasks)
{
	ck_assert_msg(kmemctl("ps -T --pid %d --json", kid) == 0, "%s", err);
	check_threads(out);
	/* a TID picks its own row; the table has a TID column */
	ck_assert_msg(kmemctl("ps --threads --pid %d", kid) == 0, "%s", err);
	ck_assert_int_eq(vt_count_lines(out), KID_THREADS + 2);
	ck_assert_msg(strstr(out, "    PID     TID    PPID S CPU"), "%s", out);
	printf("%s", out);	/* for the record: the guest log */
	/* without -T a thread is no row of its own */
	ck_assert_msg(kmemctl("ps --json --comm ps_kid") == 0, "%s", err);
	ck_assert_int_eq(vt_json_num(out, "pid"), kid);
	ck_assert_ptr_null(strstr(strchr(out, '}'), "{"));
}
END_TEST

/* Every backend reads every column: the same rows from each. */
START_TEST(every_backend_alike)
{
	static char first[sizeof(out)];
	static const char *const names[] = { "walk", "readv", "kcore", "mmap" };

	vt_mmap_ram_on();
	for (int i = 0; i < 4; i++) {
		ck_assert_msg(kmemctl("ps -T --pid %d --json --backend %s", kid, names[i]) == 0,
			      "%s: %s", names[i], err);
		if (!i)
			strcpy(first, out);
		else
			ck_assert_msg(!strcmp(first, out), "%s differs:\n%s\nwalk:\n%s", names[i],
				      out, first);
	}
	vt_mmap_ram_off();
	check_threads(first);
}
END_TEST

/* Filters: state Z finds the zombie, kthreadd has no memory. */
START_TEST(filters_and_kernel_threads)
{
	unsigned long size, res;
	char row[512];
	const char *p;
	bool found = false;

	ck_assert_int_eq(stat_state(zombie), 'Z');
	ck_assert_msg(kmemctl("ps --state Z --json") == 0, "%s", err);
	for (p = out; next_row(&p, row, sizeof(row));) {
		ck_assert_int_eq(row_state(row), 'Z');
		if (row_num(row, "pid") == zombie) {
			found = true;
			ck_assert_int_eq(row_num(row, "vsz_kib"), 0);
			ck_assert_int_eq(row_num(row, "rss_kib"), 0);
		}
	}
	ck_assert(found);

	statm(2, &size, &res);
	ck_assert_uint_eq(size, 0);
	ck_assert_msg(kmemctl("ps --pid 0x2 --comm kthreadd,init --state SI --json") == 0, "%s",
		      err);
	ck_assert_int_eq(vt_json_num(out, "pid"), 2);
	ck_assert_int_eq(vt_json_num(out, "vsz_kib"), 0);
	ck_assert_int_eq(vt_json_num(out, "rss_kib"), 0);
	ck_assert_int_eq(vt_json_num(out, "threads"), 1);
	/* every filter must hold: kthreadd is no ps_kid */
	ck_assert_msg(kmemctl("ps --pid 2 --comm ps_kid --json") == 0, "%s", err);
	ck_assert_str_eq(out, "[]\n");
	ck_assert_msg(kmemctl("ps --pid 1,2 --json") == 0, "%s", err);
	p = out;
	ck_assert(next_row(&p, row, sizeof(row)) && row_num(row, "pid") == 1);
	ck_assert(next_row(&p, row, sizeof(row)) && row_num(row, "pid") == 2);
	ck_assert(!next_row(&p, row, sizeof(row)));
}
END_TEST

START_TEST(bad_filters)
{
	static const char *const bad[] = {
		"ps --pid abc", "ps --pid -1", "ps --pid 4194305", "ps --pid 1,,x",
		"ps --pid ,", "ps --state Q", "ps --state rs", "ps --comm ,",
		"ps --comm sixteen_bytes_xx", "ps --pid", "ps -T extra",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(kmemctl("%s", bad[i]) == 2, "%s: %s", bad[i], err);
		ck_assert_msg(vt_count_lines(err) == 1 && !strncmp(err, "kmemctl: ", 9) &&
			      strlen(err) < 140, "%s: %s", bad[i], err);
		ck_assert_str_eq(out, "");
	}
}
END_TEST

/* The device's group member (uid 1000, no capability): root's answer. */
START_TEST(member_sees_the_same)
{
	static char rout[sizeof(out)];
	static const gid_t groups[] = { MONITOR_GID };
	char pid[32], *argv[] = { "kmemctl", "ps", "-T", "--pid", pid, "--json", NULL, NULL,
				  NULL };

	snprintf(pid, sizeof(pid), "%d", kid);
	ck_assert_msg(kmemctl("ps -T --pid %s --json", pid) == 0, "%s", err);
	strcpy(rout, out);
	ck_assert_int_eq(chown(KMEM_RO_DEVICE, 0, MONITOR_GID), 0);
	ck_assert_int_eq(chmod(KMEM_RO_DEVICE, 0440), 0);
	for (int b = 0; b < 2; b++) {
		argv[6] = "--backend";
		argv[7] = b ? "readv" : "walk";
		out[0] = err[0] = '\0';
		ck_assert_msg(vt_exec_groups(MEMBER_UID, MEMBER_UID, groups, 1, argv, out,
					     sizeof(out), err, sizeof(err)) == 0, "%s", err);
		ck_assert_msg(!strcmp(out, rout), "member:\n%s\nroot:\n%s", out, rout);
	}
	ck_assert_int_eq(chown(KMEM_RO_DEVICE, 0, 0), 0);
	check_threads(rout);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ps_tool");
	TCase *tc = tcase_create("ps");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, process_row_is_procs);
	tcase_add_test(tc, threads_are_proc_tasks);
	tcase_add_test(tc, every_backend_alike);
	tcase_add_test(tc, filters_and_kernel_threads);
	tcase_add_test(tc, bad_filters);
	tcase_add_test(tc, member_sees_the_same);
	suite_add_tcase(s, tc);
	return vt_main(s);
}
