// SPDX-License-Identifier: GPL-2.0
/*
 * Debian's crash, unmodified, as a member of the device's group (no
 * capability; kcore refuses it) under LD_PRELOAD=libkmemdev-kcore.so,
 * against root's crash on the plain /proc/kcore: `ps` gives the same
 * tasks (pid and comm) and `sym` the same address and type for each
 * symbol, which are also what root's /proc/kallsyms says.  Without the
 * preload the member's crash gets no task list.
 *
 * crash on a live system takes the KASLR offset from _stext in
 * /proc/kallsyms (crash's symbols.c, "_stext from /proc/kallsyms"), which
 * shows the member zeros (kallsyms_show_value()); the preload serves it
 * root's text from the device (preload/kallsyms_serve.c), so the member
 * runs crash exactly as root does, without --kaslr.
 *
 * Not part of make check: crash needs the kernel's DWARF vmlinux (the
 * -dbg package, about 1 GB) and runs minutes under TCG.  tests/vm/crash.sh
 * fetches both from Debian and lays them out in the guest (/crash/vmlinux,
 * crash and the libraries of its Debian release, over the guest's or in
 * the private tree /crash/root); `make check-crash`.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "vmtest.h"

#define CRASH		"/usr/bin/crash"
/* a private tree of crash's Debian release, started through its own ld.so */
#define ROOT		"/crash/root"
#define ROOT_LDSO	ROOT "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"
#define ROOT_LIBS	ROOT "/usr/lib/x86_64-linux-gnu"
#define VMLINUX		"/crash/vmlinux"
#define PRELOAD		"/usr/lib/x86_64-linux-gnu/kmemdev/libkmemdev-kcore.so"
#define CMDS		"/tmp/crash.cmds"
#define MAX_TASKS	4096

/* vmlinux symbols of each kind (text, data, rodata, percpu) and a module's */
static const char *const syms[] = {
	"init_task", "linux_banner", "jiffies", "schedule", "runqueues",
	"kmem_ro_fops",
};
#define NSYMS (sizeof(syms) / sizeof(syms[0]))

struct task {
	long pid;
	char comm[32];
};

struct run {
	bool member;
	bool preload;
	bool version;	/* crash --version, no session */
	const char *out;
	/* parsed */
	struct task task[MAX_TASKS];
	int ntasks;
	char sym[NSYMS][128];	/* "ADDR (T)" per symbol, "" if none */
	double seconds;
};

static int exec_crash(void *arg)
{
	static const char *const session_args[] = { "-s", "--no_crashrc", "-i", CMDS,
						    VMLINUX, "/proc/kcore", NULL };
	static const char *const version_args[] = { "--version", NULL };
	const struct run *r = arg;
	const char *const *args = r->version ? version_args : session_args;
	const char *argv[16];
	char *plain[] = { "PATH=/bin:/usr/bin", "HOME=/tmp", "TERM=dumb", NULL };
	char *pre[] = { "PATH=/bin:/usr/bin", "HOME=/tmp", "TERM=dumb",
			"LD_PRELOAD=" PRELOAD, NULL };
	int fd = open(r->out, O_WRONLY | O_TRUNC | O_CLOEXEC);
	int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
	int n = 0;

	if (fd < 0 || null < 0 || dup2(null, 0) < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
		return 126;
	if (!access(ROOT CRASH, X_OK)) {
		argv[n++] = ROOT_LDSO;
		argv[n++] = "--library-path";
		argv[n++] = ROOT_LIBS;
		argv[n++] = ROOT CRASH;
	} else {
		argv[n++] = CRASH;
	}
	while (*args)
		argv[n++] = *args++;
	argv[n] = NULL;
	execve(argv[0], (char **)argv, r->preload ? pre : plain);
	return 127;
}

/*
 * crash's ps: "[>] PID PPID CPU TASK ST %MEM VSZ RSS COMM", kernel
 * threads' COMM in brackets.  crash itself (started through ld.so its
 * comm is ld.so's name) and its gdb's threads ("gdb worker": their pids
 * differ per run) are left out.
 */
static void parse_ps_line(struct run *r, const char *line)
{
	long pid, ppid;
	int cpu, n = 0;
	char task[32], st[8], mem[16], vsz[32], rss[32];
	const char *comm;

	if (*line == '>')
		line++;
	if (sscanf(line, " %ld %ld %d %31s %7s %15s %31s %31s %n", &pid, &ppid, &cpu,
		   task, st, mem, vsz, rss, &n) != 8 || !n)
		return;
	comm = line + n;
	if (!strcmp(comm, "crash") || !strcmp(comm, "ld-linux-x86-64") ||
	    !strcmp(comm, "gdb worker"))
		return;
	ck_assert_int_lt(r->ntasks, MAX_TASKS);
	r->task[r->ntasks].pid = pid;
	snprintf(r->task[r->ntasks].comm, sizeof(r->task[0].comm), "%s", comm);
	r->ntasks++;
}

/* "ffffffff82a0c940 (D) init_task" or "... (d) kmem_ro_fops [kmem_ro]" */
static void parse_sym_line(struct run *r, const char *line)
{
	char addr[32], type[8], name[128];

	if (sscanf(line, "%31s %7s %127s", addr, type, name) != 3 || type[0] != '(')
		return;
	for (size_t i = 0; i < NSYMS; i++)
		if (!strcmp(name, syms[i]) && !r->sym[i][0])
			snprintf(r->sym[i], sizeof(r->sym[i]), "%s %s", addr, type);
}

static void parse(struct run *r)
{
	char *out = vt_slurp(r->out, NULL), *line, *save = NULL;
	bool in_ps = false;

	r->ntasks = 0;
	memset(r->sym, 0, sizeof(r->sym));
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (strstr(line, "PID") && strstr(line, "PPID") && strstr(line, "COMM")) {
			in_ps = true;
			continue;
		}
		/* a sym line has three words: never a ps line */
		if (in_ps)
			parse_ps_line(r, line);
		parse_sym_line(r, line);
	}
	free(out);
}

static void write_cmds(void)
{
	FILE *f = fopen(CMDS, "we");

	ck_assert_ptr_nonnull(f);
	fprintf(f, "set scroll off\nps\n");
	for (size_t i = 0; i < NSYMS; i++)
		fprintf(f, "sym %s\n", syms[i]);
	fprintf(f, "exit\n");
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(chmod(CMDS, 0644), 0);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* One crash session; the member's through vt_run_as_monitor(). */
static int session(struct run *r, bool member, bool preload, const char *out)
{
	int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	double t0 = now();
	int rc;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fchmod(fd, 0666), 0);
	close(fd);
	r->member = member;
	r->preload = preload;
	r->out = out;
	rc = member ? vt_run_as_monitor(exec_crash, r) : vt_run_as(0, 0, -1, exec_crash, r);
	r->seconds = now() - t0;
	parse(r);
	return rc;
}

static bool has_task(const struct run *r, const struct task *t)
{
	for (int i = 0; i < r->ntasks; i++)
		if (r->task[i].pid == t->pid && !strcmp(r->task[i].comm, t->comm))
			return true;
	return false;
}

static void show(const char *what, const char *path)
{
	char *out = vt_slurp(path, NULL);

	printf("---- %s (%s) ----\n%.6000s\n", what, path, out);
	free(out);
}

/* The record names the crash that ran ("crash 9.0.2" -> version=9.0.2). */
static void print_version(void)
{
	static struct run v = { .version = true, .out = "/tmp/crash_version.out" };
	int fd = open(v.out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	char *out, *line, version[32] = "unknown";

	ck_assert_int_ge(fd, 0);
	close(fd);
	vt_run_as(0, 0, -1, exec_crash, &v);
	out = vt_slurp(v.out, NULL);
	line = out;
	if (strncmp(line, "crash ", 6) && (line = strstr(out, "\ncrash ")))
		line++;
	if (line)
		sscanf(line, "crash %31s", version);
	free(out);
	printf("@@CRASH op crash version=%s\n", version);
}

/*
 * Root's sessions before and after the member's: a task that lived
 * through both must be in the member's list, and each of the member's must
 * be in one of root's (tasks come and go between sessions).
 */
START_TEST(crash_ps_and_sym_as_member)
{
	static struct run root1, member, root2, nopre;
	int rc, missing = 0, extra = 0, bad_syms = 0;

	vt_write_file("/proc/sys/kernel/perf_event_paranoid", "3");
	write_cmds();
	print_version();

	/* without the preload, kcore (CAP_SYS_RAWIO) refuses the member */
	rc = session(&nopre, true, false, "/tmp/crash_nopreload.out");
	printf("crash: member without the preload: exit %d, %d tasks\n", rc, nopre.ntasks);
	if (nopre.ntasks)
		show("member without preload", nopre.out);
	ck_assert_int_eq(nopre.ntasks, 0);

	rc = session(&root1, false, false, "/tmp/crash_root1.out");
	printf("crash: root on /proc/kcore: exit %d, %d tasks, %.1f s\n", rc,
	       root1.ntasks, root1.seconds);
	if (rc || root1.ntasks < 2)
		show("root", root1.out);
	ck_assert_int_eq(rc, 0);
	ck_assert_int_ge(root1.ntasks, 2);

	rc = session(&member, true, true, "/tmp/crash_member.out");
	printf("crash: member under the preload: exit %d, %d tasks, %.1f s\n", rc,
	       member.ntasks, member.seconds);
	if (rc || member.ntasks < 2)
		show("member", member.out);
	ck_assert_int_eq(rc, 0);

	rc = session(&root2, false, false, "/tmp/crash_root2.out");
	ck_assert_int_eq(rc, 0);

	for (int i = 0; i < root1.ntasks; i++)
		if (has_task(&root2, &root1.task[i]) && !has_task(&member, &root1.task[i])) {
			printf("crash: member lacks %ld %s\n", root1.task[i].pid, root1.task[i].comm);
			missing++;
		}
	for (int i = 0; i < member.ntasks; i++)
		if (!has_task(&root1, &member.task[i]) && !has_task(&root2, &member.task[i])) {
			printf("crash: member has %ld %s, root had not\n", member.task[i].pid,
			       member.task[i].comm);
			extra++;
		}
	for (size_t i = 0; i < NSYMS; i++) {
		uint64_t want = vt_kallsyms(syms[i]), got = strtoull(member.sym[i], NULL, 16);

		printf("crash: sym %s: root %s, member %s, /proc/kallsyms %#jx\n", syms[i],
		       root1.sym[i], member.sym[i], (uintmax_t)want);
		if (!root1.sym[i][0] || strcmp(member.sym[i], root1.sym[i]) || got != want)
			bad_syms++;
	}
	ck_assert_msg(!missing && !extra, "ps: %d tasks missing, %d extra", missing, extra);
	ck_assert_msg(has_task(&member, &(struct task){ 1, "init" }) ||
		      member.ntasks > 2, "no pid 1 in the member's ps");
	ck_assert_msg(!bad_syms, "sym: %d of %zu differ", bad_syms, NSYMS);
	printf("@@CRASH summary tasks=%d symbols=%zu root_s=%.1f member_s=%.1f\n",
	       member.ntasks, NSYMS, root1.seconds, member.seconds);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("crash");
	TCase *tc = tcase_create("crash");

	/* four crash sessions, each loading a kernel's DWARF under TCG */
	tcase_set_timeout(tc, 3000);
	tcase_add_test(tc, crash_ps_and_sym_as_member);
	suite_add_tcase(s, tc);
	return vt_main(s);
}
