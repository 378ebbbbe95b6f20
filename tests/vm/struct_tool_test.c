// SPDX-License-Identifier: GPL-2.0
/*
 * kmemctl struct: kernel objects printed by BTF type, checked against what
 * the kernel says itself - init_task's known pid and comm, our own task
 * against /proc/self, a struct module against /proc/modules, a bitfield
 * the kernel's sched_getscheduler() reports, pointers against
 * /proc/kcore and /proc/kallsyms, offsets against libkmemdev's BTF lookup
 * - on the device and, with the module unloaded, on /proc/kcore.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tooltest.h"

static uint32_t offset_of(const char *type, const char *member)
{
	struct kmemdev *h;
	uint32_t off;
	KMEMDEV_OPTS(kmemdev_open_opts, o, .backend = KMEMDEV_BACKEND_KCORE);

	ck_assert_int_eq(kmemdev_open(&h, &o), 0);
	ck_assert_int_eq(kmemdev_btf_member(h, type, member, &off, NULL), 0);
	kmemdev_close(h);
	return off;
}

/* init_task: pid 0, comm "swapper/0" (set by INIT_TASK, never changed). */
static void check_init_task(void)
{
	uint64_t init = vt_kallsyms("init_task");

	ck_assert_uint_ne(init, 0);
	ck_assert_msg(kmemctl("struct task_struct init_task") == 0, "%s", err);
	ck_assert_msg(!strncmp(out, "struct task_struct {\n", 21), "%.200s", out);
	ck_assert_msg(strstr(out, "\n  pid = 0,\n"), "%.300s", out);
	ck_assert_msg(strstr(out, "\n  comm = \"swapper/0\",\n"), "no comm");
	ck_assert_ptr_nonnull(strstr(out, "\n  tgid = 0,\n"));

	ck_assert_msg(kmemctl("struct task_struct.comm init_task --json") == 0, "%s", err);
	ck_assert_msg(json_valid(out, false), "%s", out);
	ck_assert_msg(strstr(out, "\"value\":\"swapper/0\""), "%s", out);
	ck_assert_uint_eq(json_hex_of(out, "addr"), init + offset_of("task_struct", "comm"));
	ck_assert_msg(strstr(out, "\"type\":\"char[16]\""), "%s", out);

	ck_assert_msg(kmemctl("struct task_struct.pid init_task+0 --json") == 0, "%s", err);
	ck_assert_int_eq(vt_json_num(out, "value"), 0);
	ck_assert_int_eq(vt_json_num(out, "size"), 4);
}

START_TEST(init_task_known_values)
{
	check_init_task();
}
END_TEST

/* A pointer as kcore has it, named as kallsyms names its target. */
START_TEST(pointers_match_kcore_and_kallsyms)
{
	uint64_t init = vt_kallsyms("init_task"), next, stack, v;
	char name[128], *p;

	ck_assert_int_eq(vt_kcore_read(init + offset_of("task_struct", "tasks"), &next, 8), 0);
	ck_assert_msg(kmemctl("struct task_struct.tasks.next init_task --json") == 0, "%s", err);
	ck_assert_uint_eq(json_hex_of(out, "value"), next);

	ck_assert_int_eq(vt_kcore_read(init + offset_of("task_struct", "stack"), &stack, 8), 0);
	ck_assert_msg(kmemctl("struct task_struct.stack init_task") == 0, "%s", err);
	/* "task_struct.stack = 0xffffffff82a00000 <init_stack>" */
	p = strstr(out, " = 0x");
	ck_assert_msg(p, "%s", out);
	v = strtoull(p + 3, &p, 16);
	ck_assert_uint_eq(v, stack);
	ck_assert_int_eq(sscanf(p, " <%127[^>+]>", name), 1);
	ck_assert_msg(kallsyms_has(stack, name), "%s is not at %#" PRIx64, name, stack);
}
END_TEST

START_TEST(whole_object_json_and_depth)
{
	ck_assert_msg(kmemctl("struct task_struct init_task --json") == 0, "%s", err);
	ck_assert_msg(json_valid(out, false), "invalid JSON");
	ck_assert_ptr_nonnull(strstr(out, "\"comm\":\"swapper/0\""));
	ck_assert_ptr_nonnull(strstr(out, "\"type\":\"struct task_struct\""));

	/* --depth 1: the task's own members, nested structs cut off */
	ck_assert_msg(kmemctl("struct task_struct init_task --depth 1") == 0, "%s", err);
	ck_assert_ptr_nonnull(strstr(out, "\n  se = {...},\n"));
	ck_assert_ptr_nonnull(strstr(out, "\n  pid = 0,\n"));
	ck_assert_msg(kmemctl("struct task_struct init_task --depth 1 --json") == 0, "%s", err);
	ck_assert(json_valid(out, false));
	ck_assert_ptr_nonnull(strstr(out, "\"se\":null"));
}
END_TEST

/* Our own task_struct (a slab object): comm and tgid as /proc tells. */
START_TEST(own_task_matches_proc)
{
	uint64_t me = task_of(getpid());
	char comm[32] = "", want[32];
	FILE *f = fopen("/proc/self/comm", "re");

	ck_assert_uint_ne(me, 0);
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(fgets(want, sizeof(want), f));
	fclose(f);
	want[strcspn(want, "\n")] = '\0';
	ck_assert_msg(kmemctl("struct task_struct.comm %#" PRIx64 " --json", me) == 0, "%s", err);
	ck_assert_int_eq(json_str_of(out, "value", comm, sizeof(comm)), 0);
	ck_assert_str_eq(comm, want);
	ck_assert_msg(kmemctl("struct task_struct.tgid %#" PRIx64 " --json", me) == 0, "%s", err);
	ck_assert_int_eq(vt_json_num(out, "value"), getpid());
}
END_TEST

/* struct module of kmem_ro, found by its __this_module, against /proc/modules. */
START_TEST(module_by_name_matches_proc_modules)
{
	uint64_t mod = kallsyms_in("__this_module", "kmem_ro"), size = 0, base;
	struct proc_module pm[64];
	int n = proc_modules(pm, 64), i, me = -1;

	ck_assert_uint_ne(mod, 0);
	for (i = 0; i < n; i++)
		if (!strcmp(pm[i].name, "kmem_ro"))
			me = i;
	ck_assert_int_ge(me, 0);

	ck_assert_msg(kmemctl("struct module %#" PRIx64, mod) == 0, "%s", err);
	ck_assert_msg(strstr(out, "\n  name = \"kmem_ro\",\n"), "%.400s", out);
	ck_assert_ptr_nonnull(strstr(out, "\n  state = MODULE_STATE_LIVE,\n"));

	ck_assert_msg(kmemctl("struct module.name %#" PRIx64 " --json", mod) == 0, "%s", err);
	ck_assert_ptr_nonnull(strstr(out, "\"value\":\"kmem_ro\""));
	ck_assert_msg(kmemctl("struct module.state %#" PRIx64 " --json", mod) == 0, "%s", err);
	ck_assert_ptr_nonnull(strstr(out, "\"value\":\"MODULE_STATE_LIVE\""));

	/* 6.4 split core_layout into mem[]: /proc/modules sums what there is */
	if (vt_kernel_at_least(6, 4)) {
		for (i = 0; kmemctl("struct module.mem[%d].size %#" PRIx64 " --json", i, mod) == 0; i++) {
			ck_assert(vt_json_num(out, "value") >= 0);
			size += (uint64_t)vt_json_num(out, "value");
		}
		ck_assert_int_ge(i, 4);
		ck_assert_msg(strstr(err, "is past the array"), "%s", err);
		ck_assert_msg(kmemctl("struct module.mem[0].base %#" PRIx64 " --json", mod) == 0,
			      "%s", err);
	} else {
		ck_assert_msg(kmemctl("struct module.core_layout.size %#" PRIx64 " --json", mod) == 0,
			      "%s", err);
		size = (uint64_t)vt_json_num(out, "value");
		ck_assert_msg(kmemctl("struct module.init_layout.size %#" PRIx64 " --json", mod) == 0,
			      "%s", err);
		size += (uint64_t)vt_json_num(out, "value");
		ck_assert_msg(kmemctl("struct module.core_layout.base %#" PRIx64 " --json", mod) == 0,
			      "%s", err);
	}
	base = json_hex_of(out, "value");
	ck_assert_uint_eq(size, pm[me].size);
	ck_assert_uint_eq(base, pm[me].addr);
}
END_TEST

/*
 * task_struct.sched_reset_on_fork, a 1-bit bitfield the kernel reports as
 * SCHED_RESET_ON_FORK in sched_getscheduler(): 1 for a child that set it,
 * 0 for this process.
 */
START_TEST(bitfield_matches_sched_getscheduler)
{
	struct sched_param sp = { 0 };
	int ready[2], status;
	uint64_t task;
	pid_t pid;
	char c;

	ck_assert_int_eq(pipe(ready), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		if (sched_setscheduler(0, SCHED_OTHER | SCHED_RESET_ON_FORK, &sp))
			_exit(1);
		if (write(ready[1], "r", 1) != 1)
			_exit(2);
		pause();
		_exit(0);
	}
	ck_assert_int_eq(read(ready[0], &c, 1), 1);
	ck_assert_int_eq(sched_getscheduler(pid), SCHED_OTHER | SCHED_RESET_ON_FORK);
	ck_assert_int_eq(sched_getscheduler(0) & SCHED_RESET_ON_FORK, 0);

	task = task_of(pid);
	ck_assert_uint_ne(task, 0);
	ck_assert_msg(kmemctl("struct task_struct.sched_reset_on_fork %#" PRIx64 " --json", task) == 0,
		      "%s", err);
	ck_assert(json_valid(out, false));
	ck_assert_int_eq(vt_json_num(out, "value"), 1);
	ck_assert_int_eq(vt_json_num(out, "bit_size"), 1);
	ck_assert_msg(kmemctl("struct task_struct.sched_reset_on_fork %#" PRIx64, task) == 0, "%s", err);
	ck_assert_str_eq(out, "task_struct.sched_reset_on_fork = 1\n");
	/* the whole object prints the same bit */
	ck_assert_msg(kmemctl("struct task_struct %#" PRIx64, task) == 0, "%s", err);
	ck_assert_ptr_nonnull(strstr(out, "\n  sched_reset_on_fork = 1,\n"));

	task = task_of(getpid());
	ck_assert_msg(kmemctl("struct task_struct.sched_reset_on_fork %#" PRIx64 " --json", task) == 0,
		      "%s", err);
	ck_assert_int_eq(vt_json_num(out, "value"), 0);

	kill(pid, SIGKILL);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
}
END_TEST

/* Offsets of --type-only against libkmemdev's own BTF lookup. */
static void check_layout(void)
{
	char line[128];

	ck_assert_msg(kmemctl("struct --type-only task_struct") == 0, "%s", err);
	snprintf(line, sizeof(line), "[%u]    pid_t pid;\n", offset_of("task_struct", "pid"));
	ck_assert_msg(strstr(out, line), "no '%s'", line);
	snprintf(line, sizeof(line), "[%u]    char comm[16];\n", offset_of("task_struct", "comm"));
	ck_assert_msg(strstr(out, line), "no '%s'", line);
	ck_assert_ptr_nonnull(strstr(out, "unsigned int sched_reset_on_fork:1;\n"));

	ck_assert_msg(kmemctl("struct -t task_struct.tasks --json") == 0, "%s", err);
	ck_assert(json_valid(out, false));
	ck_assert_int_eq(vt_json_num(out, "offset"), offset_of("task_struct", "tasks"));
	ck_assert_int_eq(vt_json_num(out, "size"), 16);
	ck_assert_ptr_nonnull(strstr(out, "\"type\":\"struct list_head\""));
	ck_assert_ptr_nonnull(strstr(out, "\"name\":\"next\""));
}

START_TEST(type_only_offsets)
{
	check_layout();
}
END_TEST

START_TEST(errors_are_one_line)
{
	ck_assert_int_eq(kmemctl("struct no_such_type_xyz init_task"), 1);
	ck_assert_msg(one_short_line(err), "%s", err);
	ck_assert_ptr_nonnull(strstr(err, "no type 'no_such_type_xyz'"));
	ck_assert_int_eq(kmemctl("struct task_struct.no_such_member init_task"), 1);
	ck_assert_msg(one_short_line(err), "%s", err);
	ck_assert_int_eq(kmemctl("struct task_struct no_such_symbol_xyz"), 1);
	ck_assert_msg(one_short_line(err), "%s", err);
	ck_assert_ptr_nonnull(strstr(err, "no such symbol"));
	ck_assert_int_eq(kmemctl("struct task_struct 1000"), 2);
	ck_assert_msg(one_short_line(err), "%s", err);
	/* user space is no kernel address */
	ck_assert_int_eq(kmemctl("struct task_struct 0x1000"), 1);
	ck_assert_msg(one_short_line(err), "%s", err);
	ck_assert_msg(strstr(err, "kmemctl: struct task_struct at 0x1000: not a kernel address"),
		      "%s", err);
	ck_assert_int_eq(kmemctl("struct task_struct"), 2);
	ck_assert_int_eq(kmemctl("struct --depth 010 task_struct init_task"), 0);
}
END_TEST

/* ---- no device: /proc/kcore, or BTF alone ---- */

static void no_device(void)
{
	unload_kmem_ro();
}

static void device_back(void)
{
	reload_kmem_ro();
}

START_TEST(kcore_init_task)
{
	ck_assert_int_eq(vt_open_errno(KMEM_RO_DEVICE, 0), ENOENT);
	check_init_task();
	ck_assert_msg(kmemctl("struct task_struct init_task --json") == 0, "%s", err);
	ck_assert(json_valid(out, false));
}
END_TEST

START_TEST(kcore_type_only)
{
	check_layout();
}
END_TEST

/* --device names the device: no fallback then. */
START_TEST(kcore_not_with_device_given)
{
	ck_assert_int_eq(kmemctl("--device %s struct task_struct init_task", KMEM_RO_DEVICE), 1);
	ck_assert_msg(one_short_line(err), "%s", err);
	ck_assert_ptr_nonnull(strstr(err, "modprobe kmem_ro"));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("struct_tool");
	TCase *tc = tcase_create("device");

	tcase_add_test(tc, init_task_known_values);
	tcase_add_test(tc, pointers_match_kcore_and_kallsyms);
	tcase_add_test(tc, whole_object_json_and_depth);
	tcase_add_test(tc, own_task_matches_proc);
	tcase_add_test(tc, module_by_name_matches_proc_modules);
	tcase_add_test(tc, bitfield_matches_sched_getscheduler);
	tcase_add_test(tc, type_only_offsets);
	tcase_add_test(tc, errors_are_one_line);
	suite_add_tcase(s, tc);

	tc = tcase_create("kcore");
	tcase_add_unchecked_fixture(tc, no_device, device_back);
	tcase_add_test(tc, kcore_init_task);
	tcase_add_test(tc, kcore_type_only);
	tcase_add_test(tc, kcore_not_with_device_given);
	suite_add_tcase(s, tc);
	return vt_main(s);
}
