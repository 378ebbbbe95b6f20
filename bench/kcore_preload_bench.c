// SPDX-License-Identifier: GPL-2.0
/*
 * An unmodified /proc/kcore reader (tests/vm/kcore_reader, linked
 * dynamically) with and without LD_PRELOAD=libkmemdev-kcore.so: random
 * 1..64-byte preads of kernel text and of its direct-map alias.  Per read:
 * wall time of whole runs, N reads minus none (so process start-up and
 * library loading cancel out), and system calls, counted with ptrace.
 *
 * Then drgn (Debian's python3-drgn) walking the task list (pid and comm of
 * every task through init_task.tasks, offsets from BTF), timed inside
 * Python (the fastest of WALKS walks in each of ROUNDS processes per
 * configuration, the configurations in turn; start-up apart; SLEEPERS extra
 * tasks so that a walk lasts milliseconds, not one): plain on
 * /proc/kcore as root, and under the preload as root and as a member of
 * the device's group (uid NOBODY, no capability), with the module loaded
 * with mmap_ram=0 and again with mmap_ram=1 (given explicitly: the
 * default is not this benchmark's business).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"
#include "kmemdev.h"

#define READER		"/tests/kcore_reader"
#define PRELOAD		"/tests/libkmemdev-kcore.so"
#define OUT		"/tmp/kcore_bench.out"
#define TIMED_READS	200000
#define COUNTED_READS	20000
#define TRIES		3

#define PYTHON		"/usr/bin/python3"
#define DRGN_READER	"/tests/kcore_drgn_reader.py"
#define WALK_OUT	"/tmp/kcore_bench_walk.out"
#define WALKS		"30"
#define ROUNDS		3
#define SLEEPERS	400	/* tasks beside the VM's own: a walk worth timing */
#define MODULE		"/lib/kmem_ro.ko"
#define NOBODY		65534
#define MONITOR_GID	4242

struct mode {
	bool preload;
	struct kmem_ro_info *info;
};

/* A spec of n random reads, half in text, half in its direct-map alias. */
static const char *spec(const struct kmem_ro_info *in, long n)
{
	static char path[64];
	uint64_t dm = in->page_offset + in->phys_base - in->kernel_map;
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/kcore_bench.%ld", n);
	f = fopen(path, "we");
	if (!f)
		exit(1);
	fprintf(f, "q %#jx %#jx %ld 64\n", (uintmax_t)in->text_start,
		(uintmax_t)in->text_end, n / 2);
	fprintf(f, "q %#jx %#jx %ld 64\n", (uintmax_t)(in->text_start + dm),
		(uintmax_t)(in->text_end + dm), n - n / 2);
	if (fclose(f))
		exit(1);
	return path;
}

/* In the child: run the reader over the spec for n reads. */
static void reader(void *arg, long n)
{
	struct mode *m = arg;
	char *argv[] = { READER, (char *)spec(m->info, n), OUT, NULL };
	char *plain[] = { "PATH=/bin", NULL };
	char *pre[] = { "PATH=/bin", "LD_PRELOAD=" PRELOAD, NULL };

	execve(READER, argv, m->preload ? pre : plain);
	_exit(127);
}

/* Best wall time of TRIES whole runs, in ns. */
static double run_ns(struct mode *m, long n)
{
	double best = 0;

	for (int i = 0; i < TRIES; i++) {
		uint64_t t = bench_ns();
		int status;
		pid_t pid = fork();

		if (pid < 0)
			exit(1);
		if (pid == 0)
			reader(m, n);
		if (waitpid(pid, &status, 0) != pid || status) {
			fprintf(stderr, "kcore_preload_bench: reader failed (%#x)\n", status);
			exit(1);
		}
		t = bench_ns() - t;
		if (!i || t < best)
			best = t;
	}
	return best;
}

/* ---- drgn's task walk ---- */

struct walk {
	char args[4][24];	/* init_task, offsets of tasks, pid, comm */
	bool preload;
	bool member;
};

static uint64_t kallsyms(const char *name)
{
	char line[512], sym[256], type;
	unsigned long long addr;
	FILE *f = fopen("/proc/kallsyms", "re");
	uint64_t found = 0;

	while (f && !found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &addr, &type, sym) == 3 && !strcmp(sym, name))
			found = addr;
	if (f)
		fclose(f);
	return found;
}

/* The walk's set-up and walk time (ns) in one drgn process; false if it failed. */
static bool walk_ns(const struct walk *w, double *setup, double *walk, int *tasks)
{
	char *argv[] = { PYTHON, "-S", DRGN_READER, "--walk", (char *)w->args[0],
			 (char *)w->args[1], (char *)w->args[2], (char *)w->args[3],
			 WALK_OUT, NULL };
	char *plain[] = { "PATH=/bin", "HOME=/", "KCORE_WALK_REPEAT=" WALKS, NULL };
	char *pre[] = { "PATH=/bin", "HOME=/", "KCORE_WALK_REPEAT=" WALKS,
			"LD_PRELOAD=" PRELOAD, NULL };
	gid_t group = MONITOR_GID;
	long long s, t;
	int status, n;
	pid_t pid;
	FILE *f;

	unlink(WALK_OUT ".time");
	close(open(WALK_OUT, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666));
	close(open(WALK_OUT ".time", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666));
	chmod(WALK_OUT, 0666);
	chmod(WALK_OUT ".time", 0666);
	if (w->member && chown(KMEM_RO_DEVICE, 0, MONITOR_GID))
		return false;
	pid = fork();
	if (pid == 0) {
		if (w->member && (setgroups(1, &group) || setgid(MONITOR_GID) ||
				  setuid(NOBODY)))
			_exit(100);
		execve(PYTHON, argv, w->preload ? pre : plain);
		_exit(127);
	}
	status = -1;
	if (pid > 0)
		waitpid(pid, &status, 0);
	if (w->member && chown(KMEM_RO_DEVICE, 0, 0))
		return false;
	if (status)
		return false;
	f = fopen(WALK_OUT ".time", "re");
	if (!f)
		return false;
	n = fscanf(f, "set_kernel_ns %lld walk_ns %lld tasks %d", &s, &t, tasks);
	fclose(f);
	*setup = (double)s;
	*walk = (double)t;
	return n == 3;
}

/* Reload kmem_ro with mmap_ram=@on; false if it would not. */
static bool module_reload(int on)
{
	int fd = open(MODULE, O_RDONLY | O_CLOEXEC), ok;

	if (fd < 0 || syscall(SYS_delete_module, "kmem_ro", O_NONBLOCK))
		return false;
	ok = !syscall(SYS_finit_module, fd, on ? "mmap_ram=1" : "mmap_ram=0", 0);
	close(fd);
	for (int i = 0; ok && i < 200 && access(KMEM_RO_DEVICE, F_OK); i++)
		usleep(10000);
	return ok && !access(KMEM_RO_DEVICE, F_OK);
}

static int drgn_walk_bench(const char *release, const char *accel)
{
	static const char *const member[] = { "tasks", "pid", "comm" };
	static pid_t sleepers[SLEEPERS];
	int err = 0;
	struct walk w = { 0 };
	struct kmemdev *h;
	uint32_t off;
	uint64_t init_task = kallsyms("init_task");
	KMEMDEV_OPTS(kmemdev_open_opts, opts, .backend = KMEMDEV_BACKEND_DEVICE);

	if (!init_task || kmemdev_open(&h, &opts))
		return 1;
	snprintf(w.args[0], sizeof(w.args[0]), "%#jx", (uintmax_t)init_task);
	for (int i = 0; i < 3; i++) {
		if (kmemdev_btf_member(h, "task_struct", member[i], &off, NULL)) {
			kmemdev_close(h);
			return 1;
		}
		snprintf(w.args[i + 1], sizeof(w.args[i + 1]), "%u", off);
	}
	kmemdev_close(h);
	for (int i = 0; i < SLEEPERS; i++) {
		sleepers[i] = fork();
		if (!sleepers[i]) {
			pause();
			_exit(0);
		}
	}
	for (int on = 0; on <= 1 && !err; on++) {
		double setup[3], walk[3];
		int tasks[3];

		if (!module_reload(on)) {
			fprintf(stderr, "kcore_preload_bench: reload with mmap_ram=%d failed\n", on);
			err = 1;
			break;
		}
		/* the three in turn, ROUNDS times: load on the host hits all alike */
		for (int r = 0; r < ROUNDS && !err; r++)
			for (int c = 0; c < 3 && !err; c++) {
				double su = 0, wa = 0;

				w.preload = c > 0;
				w.member = c > 1;
				err = !walk_ns(&w, &su, &wa, &tasks[c]);
				if (!r || wa < walk[c]) {
					walk[c] = wa;
					setup[c] = su;
				}
			}
		if (err)
			break;
		printf("bench kcore_preload_drgn kernel=%s accel=%s mmap_ram=%d tasks=%d walks=%s rounds=%d"
		       " kcore_walk_ms=%.2f preload_root_walk_ms=%.2f preload_member_walk_ms=%.2f"
		       " ratio_root=%.2f ratio_member=%.2f target=%.1f"
		       " set_kernel_ms_kcore=%.1f set_kernel_ms_preload_root=%.1f"
		       " set_kernel_ms_preload_member=%.1f\n",
		       release, accel, on, tasks[0], WALKS, ROUNDS, walk[0] / 1e6, walk[1] / 1e6,
		       walk[2] / 1e6, walk[0] / walk[1], walk[0] / walk[2], on ? 2.0 : 1.3,
		       setup[0] / 1e6, setup[1] / 1e6, setup[2] / 1e6);
		fflush(stdout);
	}
	for (int i = 0; i < SLEEPERS; i++)
		if (sleepers[i] > 0) {
			kill(sleepers[i], SIGKILL);
			waitpid(sleepers[i], NULL, 0);
		}
	/* back to the module as the other benchmarks found it */
	return !module_reload(1) || err;
}

int main(void)
{
	const char *accel = getenv("VM_ACCEL") ? getenv("VM_ACCEL") : "unknown";
	KMEMDEV_ARG(kmem_ro_info, info);
	struct mode plain = { false, &info }, pre = { true, &info };
	double ns[2], start[2], calls[2];
	struct kmemdev *h;
	struct utsname u;
	KMEMDEV_OPTS(kmemdev_open_opts, opts, .backend = KMEMDEV_BACKEND_DEVICE);

	if (bench_mmap_ram_on() || kmemdev_open(&h, &opts) ||
	    kmemdev_info(h, &info, NULL, 0) < 0) {
		fprintf(stderr, "kcore_preload_bench: cannot open /dev/kmem_ro\n");
		return 1;
	}
	kmemdev_close(h);
	uname(&u);
	start[0] = run_ns(&plain, 0);
	start[1] = run_ns(&pre, 0);
	ns[0] = (run_ns(&plain, TIMED_READS) - start[0]) / TIMED_READS;
	ns[1] = (run_ns(&pre, TIMED_READS) - start[1]) / TIMED_READS;
	calls[0] = bench_syscalls_per_op(reader, &plain, COUNTED_READS);
	calls[1] = bench_syscalls_per_op(reader, &pre, COUNTED_READS);
	printf("bench kcore_preload kernel=%s accel=%s reads=%d addresses=random-text+direct-map"
	       " sizes=1-64 kcore_ns=%.1f preload_ns=%.1f ratio=%.1f"
	       " startup_ms_kcore=%.1f startup_ms_preload=%.1f"
	       " syscalls_per_read_kcore=%.3f syscalls_per_read_preload=%.3f\n",
	       u.release, accel, TIMED_READS, ns[0], ns[1], ns[0] / ns[1],
	       start[0] / 1e6, start[1] / 1e6, calls[0], calls[1]);
	fflush(stdout);
	if (drgn_walk_bench(u.release, accel)) {
		fprintf(stderr, "kcore_preload_bench: drgn task walk failed\n");
		return 1;
	}
	return 0;
}
