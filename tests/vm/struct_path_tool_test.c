// SPDX-License-Identifier: GPL-2.0
/*
 * kmemctl struct through pointers and per-CPU variables, checked against
 * the kernel's own view: RLIMIT_NOFILE through task_struct.signal against
 * /proc/PID/limits and getrlimit(), the parent through real_parent against
 * getppid(), NULL and unreadable pointers (init_task.mm, kmem_ro_testobj's
 * corrupt list) as one-line errors; rq.cpu and rq.idle of each CPU's
 * runqueues against the CPU number and its idle task "swapper/N", the
 * possible CPUs against /sys, and the sum of rq.nr_running against
 * procs_running in /proc/stat while busy loops run.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tooltest.h"

#define BUSY	3	/* busy loops started for the nr_running check */

/* "Max open files  SOFT  HARD  files" of /proc/@pid/limits. */
static void proc_nofile(int pid, unsigned long long *soft, unsigned long long *hard)
{
	char path[64], line[256];
	FILE *f;
	bool found = false;

	snprintf(path, sizeof(path), "/proc/%d/limits", pid);
	f = fopen(path, "re");
	ck_assert_ptr_nonnull(f);
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "Max open files %llu %llu", soft, hard) == 2;
	fclose(f);
	ck_assert_msg(found, "no Max open files in %s", path);
}

/* rlim[7] is RLIMIT_NOFILE: our own, set to values of our choosing. */
START_TEST(rlimit_through_signal_matches_proc)
{
	struct rlimit rl = { .rlim_cur = 777, .rlim_max = 4321 };
	unsigned long long soft, hard;
	uint64_t me = task_of(getpid());

	ck_assert_int_eq(RLIMIT_NOFILE, 7);
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
	proc_nofile(getpid(), &soft, &hard);
	ck_assert_uint_eq(soft, 777);
	ck_assert_uint_eq(hard, 4321);
	ck_assert_uint_ne(me, 0);

	ck_assert_msg(kmemctl("struct task_struct.signal.rlim[7].rlim_cur %#" PRIx64 " --json",
			      me) == 0, "%s", err);
	ck_assert_msg(json_valid(out, false), "%s", out);
	ck_assert_int_eq(vt_json_num(out, "value"), (long long)soft);
	/* drgn's spelling, text output */
	ck_assert_msg(kmemctl("struct task_struct->signal->rlim[7] %#" PRIx64, me) == 0, "%s",
		      err);
	ck_assert_msg(strstr(out, "rlim_cur = 777") && strstr(out, "rlim_max = 4321"), "%s", out);
	ck_assert_msg(!strncmp(out, "task_struct->signal->rlim[7] = {", 32), "%s", out);

	/* pid 1's, as /proc/1/limits shows it */
	proc_nofile(1, &soft, &hard);
	ck_assert_msg(kmemctl("struct task_struct.signal.rlim[7].rlim_max %#" PRIx64 " --json",
			      task_of(1)) == 0, "%s", err);
	ck_assert_int_eq(vt_json_num(out, "value"), (long long)hard);
}
END_TEST

/* real_parent->tgid is getppid(); the address printed is the parent's field. */
START_TEST(parent_through_pointer)
{
	uint64_t me = task_of(getpid()), parent = task_of(getppid());
	uint32_t off;
	struct kmemdev *h;

	ck_assert_int_eq(kmemdev_open(&h, NULL), 0);
	ck_assert_int_eq(kmemdev_btf_member(h, "task_struct", "tgid", &off, NULL), 0);
	kmemdev_close(h);
	ck_assert_msg(kmemctl("struct task_struct.real_parent.tgid %#" PRIx64 " --json", me) == 0,
		      "%s", err);
	ck_assert_int_eq(vt_json_num(out, "value"), getppid());
	ck_assert_uint_eq(json_hex_of(out, "addr"), parent + off);
	/* a pointer at the end of the path is printed, not followed */
	ck_assert_msg(kmemctl("struct task_struct.real_parent %#" PRIx64 " --json", me) == 0,
		      "%s", err);
	ck_assert_uint_eq(json_hex_of(out, "value"), parent);
	/* the layout through a pointer: struct rlimit's members */
	ck_assert_msg(kmemctl("struct -t task_struct.signal.rlim[7]") == 0, "%s", err);
	ck_assert_msg(strstr(out, "rlim_cur;") && strstr(out, "SIZE: 16"), "%s", out);
}
END_TEST

START_TEST(null_and_unreadable_pointers)
{
	uint64_t corrupt = vt_testobj("corrupt_head");

	/* a kernel thread has no mm */
	ck_assert_int_eq(kmemctl("struct task_struct.mm.mmap_base init_task"), 1);
	ck_assert_msg(one_short_line(err), "%s", err);
	ck_assert_msg(strstr(err, ": mm is NULL"), "%s", err);
	ck_assert_str_eq(out, "");

	/* head -> a -> b -> 0xdead000000000100 (non-canonical) */
	ck_assert_msg(kmemctl("struct list_head.next.next.next %#" PRIx64 " --json", corrupt) == 0,
		      "%s", err);
	ck_assert_uint_eq(json_hex_of(out, "value"), 0xdead000000000100ULL);
	ck_assert_int_eq(kmemctl("struct list_head.next.next.next.prev %#" PRIx64, corrupt), 1);
	ck_assert_msg(vt_count_lines(err) == 1, "%s", err);
	ck_assert_msg(strstr(err, "next.next.next -> 0xdead000000000100: not a kernel address"),
		      "%s", err);
	ck_assert_int_eq(kmemctl("struct list_head.next.next.next.next.prev %#" PRIx64, corrupt), 1);
	ck_assert_msg(vt_count_lines(err) == 1, "%s", err);
	ck_assert_msg(strstr(err, "next.next.next.next at 0xdead000000000100: not a kernel address"),
		      "%s", err);
	ck_assert_str_eq(out, "");

	/* void *stack cannot be followed; bad paths are usage errors */
	ck_assert_int_eq(kmemctl("struct task_struct.stack.x init_task"), 1);
	ck_assert_msg(one_short_line(err) && strstr(err, "void pointer"), "%s", err);
	ck_assert_int_eq(kmemctl("struct task_struct.signal. init_task"), 2);
	ck_assert_msg(one_short_line(err), "%s", err);
	ck_assert_int_eq(kmemctl("struct task_struct.signal[x] init_task"), 2);
	ck_assert_msg(one_short_line(err), "%s", err);
	ck_assert_int_eq(kmemctl("struct task_struct.signal.no_such init_task"), 1);
	ck_assert_msg(one_short_line(err) && strstr(err, "has no member 'no_such'"), "%s", err);
	/* list fields are gathered by offset: no pointers there */
	ck_assert_int_eq(kmemctl("list task_struct.tasks init_task --fields signal.rlim"), 1);
	ck_assert_msg(one_short_line(err) && strstr(err, "'signal' is a pointer"), "%s", err);
}
END_TEST

/* The possible CPUs, as /sys/devices/system/cpu/possible says ("0-1"). */
static int possible_cpus(void)
{
	FILE *f = fopen("/sys/devices/system/cpu/possible", "re");
	int lo, hi;

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fscanf(f, "%d-%d", &lo, &hi), 2);
	fclose(f);
	ck_assert_int_eq(lo, 0);
	return hi + 1;
}

/* Each CPU's runqueue says which CPU it is, and its idle task is swapper/N. */
START_TEST(runqueue_of_each_cpu)
{
	int n = possible_cpus(), cpu;
	char comm[32], want[48];
	const char *p = out;

	for (cpu = 0; cpu < n; cpu++) {
		ck_assert_msg(kmemctl("struct rq.cpu runqueues --cpu %d --json", cpu) == 0, "%s",
			      err);
		ck_assert_msg(json_valid(out, false), "%s", out);
		ck_assert_int_eq(vt_json_num(out, "value"), cpu);
		ck_assert_int_eq(vt_json_num(out, "cpu"), cpu);
		ck_assert_msg(kmemctl("struct rq.idle->comm runqueues --cpu %d --json", cpu) == 0,
			      "%s", err);
		ck_assert_int_eq(json_str_of(out, "value", comm, sizeof(comm)), 0);
		snprintf(want, sizeof(want), "swapper/%d", cpu);
		ck_assert_str_eq(comm, want);
		ck_assert_msg(kmemctl("struct rq.idle.pid runqueues --cpu %d", cpu) == 0, "%s", err);
		snprintf(want, sizeof(want), "CPU %d: rq.idle.pid = 0\n", cpu & 0xffff);
		ck_assert_str_eq(out, want);
	}
	/* no --cpu: every possible CPU, in order */
	ck_assert_msg(kmemctl("struct rq.cpu runqueues --json") == 0, "%s", err);
	ck_assert_msg(json_valid(out, false) && out[0] == '[', "%s", out);
	for (cpu = 0; cpu < n; cpu++) {
		char key[32];

		snprintf(key, sizeof(key), "\"cpu\":%d,", cpu);
		p = strstr(p, key);
		ck_assert_msg(p, "no CPU %d in %s", cpu, out);
		ck_assert_int_eq(vt_json_num(p, "value"), cpu);
	}
	ck_assert_msg(kmemctl("struct rq.cpu runqueues") == 0, "%s", err);
	ck_assert_int_eq(vt_count_lines(out), n);
	ck_assert_msg(!strncmp(out, "CPU 0: rq.cpu = 0\n", 18), "%s", out);
}
END_TEST

/* procs_running from /proc/stat: nr_running() sums rq->nr_running. */
static long proc_stat_running(void)
{
	FILE *f = fopen("/proc/stat", "re");
	char line[256];
	long v = -1;

	ck_assert_ptr_nonnull(f);
	while (v < 0 && fgets(line, sizeof(line), f))
		if (sscanf(line, "procs_running %ld", &v) != 1)
			v = -1;
	fclose(f);
	return v;
}

START_TEST(nr_running_sums_to_procs_running)
{
	pid_t busy[BUSY];
	long sum = 0, before, after;
	const char *p;
	int i, n = possible_cpus(), seen = 0;

	for (i = 0; i < BUSY; i++) {
		busy[i] = fork();
		ck_assert_int_ge(busy[i], 0);
		if (!busy[i])
			for (;;)
				;
	}
	usleep(200000);
	before = proc_stat_running();
	ck_assert_msg(kmemctl("struct rq.nr_running runqueues --json") == 0, "%s", err);
	after = proc_stat_running();
	for (i = 0; i < BUSY; i++) {
		kill(busy[i], SIGKILL);
		waitpid(busy[i], NULL, 0);
	}
	ck_assert(json_valid(out, false));
	for (p = strstr(out, "\"value\":"); p; p = strstr(p + 1, "\"value\":")) {
		sum += strtol(p + 8, NULL, 10);
		seen++;
	}
	ck_assert_int_eq(seen, n);
	/* the busy loops, plus kmemctl and this test coming and going */
	ck_assert_msg(sum >= BUSY && sum <= BUSY + 3, "sum %ld", sum);
	ck_assert_msg(labs(sum - before) <= 2 && labs(sum - after) <= 2,
		      "sum %ld, procs_running %ld then %ld", sum, before, after);
}
END_TEST

START_TEST(cpu_errors)
{
	int n = possible_cpus();

	ck_assert_int_eq(kmemctl("struct rq.cpu runqueues --cpu %d", n), 1);
	ck_assert_msg(one_short_line(err), "%s", err);
	ck_assert_msg(strstr(err, "no CPU"), "%s", err);
	ck_assert_str_eq(out, "");
	ck_assert_int_eq(kmemctl("struct rq.cpu runqueues --cpu 4294967295"), 1);
	ck_assert_msg(one_short_line(err), "%s", err);
	ck_assert_int_eq(kmemctl("struct rq.cpu runqueues --cpu 4294967296"), 2);
	ck_assert_msg(one_short_line(err), "%s", err);
	ck_assert_int_eq(kmemctl("struct rq.cpu runqueues --cpu -1"), 2);
	ck_assert_int_eq(kmemctl("struct rq.cpu runqueues --cpu x"), 2);
	ck_assert_msg(one_short_line(err), "%s", err);
	/* 010 is ten, as everywhere */
	ck_assert_int_eq(kmemctl("struct rq.cpu runqueues --cpu 0x0 --json"), 0);
	ck_assert_int_eq(vt_json_num(out, "value"), 0);
	ck_assert_int_eq(kmemctl("struct task_struct.pid init_task --cpu 0"), 1);
	ck_assert_msg(one_short_line(err) && strstr(err, "not a per-CPU variable"), "%s", err);
	ck_assert_int_eq(kmemctl("struct --type-only rq --cpu 0"), 2);
	/* a bare address is a per-CPU offset only with --cpu */
	ck_assert_msg(kmemctl("struct rq.cpu %#" PRIx64 " --cpu %d --json", vt_kallsyms("runqueues"),
			      n - 1) == 0, "%s", err);
	ck_assert_int_eq(vt_json_num(out, "value"), n - 1);
}
END_TEST

/* ---- a member of the device's group, no capabilities ---- */

/* A pointer path from an address: no symbol needed. */
START_TEST(member_pointer_path_by_address)
{
	struct rlimit rl = { .rlim_cur = 777, .rlim_max = 4321 };
	uint64_t me = task_of(getpid());

	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
	ck_assert_msg(kmemctl_member("struct task_struct.signal.rlim[7].rlim_cur %#" PRIx64
				     " --json", me) == 0, "%s", err);
	ck_assert_int_eq(vt_json_num(out, "value"), 777);
}
END_TEST

/* Per-CPU data through the device's symbols (__per_cpu_offset, runqueues). */
START_TEST(member_percpu_and_null)
{
	int last = possible_cpus() - 1;

	ck_assert_msg(kmemctl_member("struct rq.cpu runqueues --cpu %d --json", last) == 0, "%s",
		      err);
	ck_assert_int_eq(vt_json_num(out, "value"), last);
	ck_assert_int_eq(kmemctl_member("struct task_struct.mm.mmap_base init_task"), 1);
	ck_assert_msg(one_short_line(err) && strstr(err, ": mm is NULL"), "%s", err);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("struct_path_tool");
	TCase *tc = tcase_create("pointers");

	tcase_add_test(tc, rlimit_through_signal_matches_proc);
	tcase_add_test(tc, parent_through_pointer);
	tcase_add_test(tc, null_and_unreadable_pointers);
	suite_add_tcase(s, tc);

	tc = tcase_create("percpu");
	tcase_add_test(tc, runqueue_of_each_cpu);
	tcase_add_test(tc, nr_running_sums_to_procs_running);
	tcase_add_test(tc, cpu_errors);
	suite_add_tcase(s, tc);

	tc = tcase_create("member");
	tcase_add_test(tc, member_pointer_path_by_address);
	tcase_add_test(tc, member_percpu_and_null);
	suite_add_tcase(s, tc);
	return vt_main(s);
}
