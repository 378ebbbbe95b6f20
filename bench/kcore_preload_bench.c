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
 *
 * Then the bound (line kcore_preload_bound): drgn's pread() calls during
 * one walk, recorded as root on kcore and under the preload
 * (kcore_pread_trace.c, first in LD_PRELOAD; counted, and their sizes
 * compared), and the kcore recording replayed in this boot
 * (kcore_replay.c): on kcore, through the preload with each module state
 * (READV, the mapping), and as raw one-segment READV ioctls with no
 * preload, with the system calls each makes per read.  drgn's kcore walk
 * less the kcore replay is what no read path can remove:
 * bound_ratio = walk / (walk - kcore reads), the most any read path could
 * give; *_expected_ratio puts each path's replay in the kcore reads' place.
 *
 * Last (line readv_cost, module defaults): one 8-byte read's cost in ns,
 * as one-segment READV and as kcore pread(), at a kernel-text address and
 * at its direct-map alias, beside the floor of an ioctl the device does
 * not know, a READV of no segment and a pread() of /dev/zero (kcore_replay
 * cost).
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
#define ROUNDS		5
#define SLEEPERS	400	/* tasks beside the VM's own: a walk worth timing */
#define MODULE		"/lib/kmem_ro.ko"
#define NOBODY		65534
#define MONITOR_GID	4242

/* The bound: drgn's reads of one walk recorded, then replayed (kcore_replay.c). */
#define TRACER		"/tests/libkcore-pread-trace.so"
#define REPLAY		"/tests/kcore_replay"
#define TRACE_KCORE	"/tmp/kcore_bench.trace.kcore"
#define TRACE_PRELOAD	"/tmp/kcore_bench.trace.preload"
#define SPEC_KCORE	"/tmp/kcore_bench.walk.kcore"
#define SPEC_PRELOAD	"/tmp/kcore_bench.walk.preload"
#define REPLAY_OUT	"/tmp/kcore_bench.replay.out"
#define REPLAYS		"30"

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
	const char *trace;	/* record preads here (one walk), or NULL */
	unsigned long long first[2];	/* out: when the first walk began, ended */
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
static bool walk_ns(struct walk *w, double *setup, double *walk, int *tasks)
{
	char *argv[] = { PYTHON, "-S", DRGN_READER, "--walk", (char *)w->args[0],
			 (char *)w->args[1], (char *)w->args[2], (char *)w->args[3],
			 WALK_OUT, NULL };
	char trace[64];
	char *env[] = { "PATH=/bin", "HOME=/", "KCORE_WALK_REPEAT=" WALKS, NULL, NULL, NULL };
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
	if (w->trace) {
		/* the tracer first: it sees drgn's calls before the preload */
		env[2] = "KCORE_WALK_REPEAT=1";
		env[3] = w->preload ? "LD_PRELOAD=" TRACER " " PRELOAD : "LD_PRELOAD=" TRACER;
		snprintf(trace, sizeof(trace), "PREAD_TRACE=%s", w->trace);
		env[4] = trace;
	} else if (w->preload) {
		env[3] = "LD_PRELOAD=" PRELOAD;
	}
	pid = fork();
	if (pid == 0) {
		if (w->member && (setgroups(1, &group) || setgid(MONITOR_GID) ||
				  setuid(NOBODY)))
			_exit(100);
		execve(PYTHON, argv, env);
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
	n = fscanf(f, "set_kernel_ns %lld walk_ns %lld tasks %d first_walk %llu %llu", &s, &t,
		   tasks, &w->first[0], &w->first[1]);
	fclose(f);
	*setup = (double)s;
	*walk = (double)t;
	return n == 5;
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

/*
 * Run kcore_replay with @args (under the preload if @preload, as root);
 * its one output line's two numbers into @a and @b.  False if it failed.
 */
static bool replay(bool preload, const char *a0, const char *a1, const char *a2,
		   const char *a3, const char *a4, unsigned long long *a,
		   unsigned long long *b)
{
	char *argv[] = { REPLAY, (char *)a0, (char *)a1, (char *)a2, (char *)a3, (char *)a4, NULL };
	char *plain[] = { "PATH=/bin", NULL };
	char *pre[] = { "PATH=/bin", "LD_PRELOAD=" PRELOAD, NULL };
	int status = -1, fd, n;
	pid_t pid;
	FILE *f;

	pid = fork();
	if (pid == 0) {
		fd = open(REPLAY_OUT, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0 || dup2(fd, 1) != 1)
			_exit(126);
		execve(REPLAY, argv, preload ? pre : plain);
		_exit(127);
	}
	if (pid > 0)
		waitpid(pid, &status, 0);
	f = fopen(REPLAY_OUT, "re");
	if (status || !f) {
		if (f)
			fclose(f);
		return false;
	}
	n = fscanf(f, "%*s %llu %*s %llu", a, b);
	fclose(f);
	return n == 2;
}

/* Record drgn's reads of one walk as "VADDR LENGTH" lines in @spec; false if that failed. */
static bool record(struct walk *w, bool preload, const char *trace, const char *spec,
		   unsigned long long *reads)
{
	char t0[24], t1[24];
	unsigned long long fds;
	double su, wa;
	int tasks;

	w->preload = preload;
	w->member = false;
	w->trace = trace;
	if (!walk_ns(w, &su, &wa, &tasks))
		return false;
	w->trace = NULL;
	snprintf(t0, sizeof(t0), "%llu", w->first[0]);
	snprintf(t1, sizeof(t1), "%llu", w->first[1]);
	return replay(preload, "vaddrs", trace, t0, t1, spec, reads, &fds) && fds == 1;
}

/*
 * Both specs read the same sizes in the same order (the addresses differ:
 * each recording walks its own process's task too).
 */
static bool same_sizes(const char *a, const char *b)
{
	FILE *fa = fopen(a, "re"), *fb = fopen(b, "re");
	unsigned long long va, vb, la, lb;
	bool same = fa && fb;
	int na = 2, nb = 2;

	while (same && na == 2 && nb == 2) {
		na = fscanf(fa, "%llx %llu", &va, &la);
		nb = fscanf(fb, "%llx %llu", &vb, &lb);
		same = na == nb && (na != 2 || la == lb);
	}
	if (fa)
		fclose(fa);
	if (fb)
		fclose(fb);
	return same;
}

/*
 * The fastest replay of @spec (ns): "time" through kcore or the preload,
 * "readv" on the device with no preload; 0 if it failed.
 */
static double replay_ns(const char *how, bool preload, const char *spec)
{
	unsigned long long ns, reads;

	if (!replay(preload, how, spec, REPLAYS, NULL, NULL, &ns, &reads))
		return 0;
	return (double)ns;
}

struct replay_run {
	const char *how;
	bool preload;
};

/* In a traced child: one replay pass of SPEC_KCORE if n, none if 0 (set-up only). */
static void replay_child(void *arg, long n)
{
	const struct replay_run *r = arg;
	char *argv[] = { REPLAY, (char *)r->how, SPEC_KCORE, n ? "1" : "0", NULL };
	char *plain[] = { "PATH=/bin", NULL };
	char *pre[] = { "PATH=/bin", "LD_PRELOAD=" PRELOAD, NULL };
	int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);

	if (fd < 0 || dup2(fd, 1) != 1)
		_exit(126);
	execve(REPLAY, argv, r->preload ? pre : plain);
	_exit(127);
}

/* System calls per replayed read: one pass less none, exact. */
static double replay_calls(const char *how, bool preload, unsigned long long reads)
{
	struct replay_run r = { how, preload };
	int s1 = -1, s0 = -1;
	long one = bench_syscalls(replay_child, &r, 1, &s1);
	long none = bench_syscalls(replay_child, &r, 0, &s0);

	if (one < 0 || none < 0 || s1 || s0 || !reads)
		return -1;
	return (double)(one - none) / (double)reads;
}

static double min_pos(double a, double b)
{
	return !a ? b : !b ? a : a < b ? a : b;
}

static int drgn_walk_bench(const char *release, const char *accel)
{
	static const char *const member[] = { "tasks", "pid", "comm" };
	static pid_t sleepers[SLEEPERS];
	double kcore_walk = 0, kcore_read = 0, path_read[2] = { 0, 0 }, dev_read = 0;
	double calls[3] = { -1, -1, -1 };
	unsigned long long nreads[2] = { 0, 0 };
	bool same_reads = false;
	int err = 0, ntasks = 0;
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
		unsigned long long reads_kcore = 0, reads_preload = 0;

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
		kcore_walk = min_pos(kcore_walk, walk[0]);
		if (!on) {
			/* drgn's reads of one walk, on kcore and under the preload */
			if (!record(&w, false, TRACE_KCORE, SPEC_KCORE, &reads_kcore) ||
			    !record(&w, true, TRACE_PRELOAD, SPEC_PRELOAD, &reads_preload)) {
				fprintf(stderr, "kcore_preload_bench: recording drgn's reads failed\n");
				err = 1;
				break;
			}
			nreads[0] = reads_kcore;
			nreads[1] = reads_preload;
			same_reads = same_sizes(SPEC_KCORE, SPEC_PRELOAD);
			calls[0] = replay_calls("time", false, reads_kcore);
			calls[1] = replay_calls("time", true, reads_kcore);
			calls[2] = replay_calls("readv", false, reads_kcore);
		}
		/* replayed in turn with the walks' path of this module state */
		for (int r = 0; r < ROUNDS; r++) {
			kcore_read = min_pos(kcore_read, replay_ns("time", false, SPEC_KCORE));
			path_read[on] = min_pos(path_read[on], replay_ns("time", true, SPEC_KCORE));
			if (!on)
				dev_read = min_pos(dev_read, replay_ns("readv", false, SPEC_KCORE));
		}
		if (!kcore_read || !path_read[on] || !dev_read) {
			fprintf(stderr, "kcore_preload_bench: replaying drgn's reads failed\n");
			err = 1;
			break;
		}
		printf("bench kcore_preload_drgn kernel=%s accel=%s mmap_ram=%d tasks=%d walks=%s rounds=%d"
		       " kcore_walk_ms=%.2f preload_root_walk_ms=%.2f preload_member_walk_ms=%.2f"
		       " ratio_root=%.2f ratio_member=%.2f target=%.1f"
		       " set_kernel_ms_kcore=%.1f set_kernel_ms_preload_root=%.1f"
		       " set_kernel_ms_preload_member=%.1f\n",
		       release, accel, on, tasks[0], WALKS, ROUNDS, walk[0] / 1e6, walk[1] / 1e6,
		       walk[2] / 1e6, walk[0] / walk[1], walk[0] / walk[2], on ? 2.0 : 1.3,
		       setup[0] / 1e6, setup[1] / 1e6, setup[2] / 1e6);
		fflush(stdout);
		ntasks = tasks[0];
	}
	if (!err) {
		/* drgn's walk less its kcore reads: what no read path can cut */
		double rest = kcore_walk - kcore_read;

		printf("bench kcore_preload_bound kernel=%s accel=%s tasks=%d preads_per_walk_kcore=%llu"
		       " preads_per_walk_preload=%llu same_sizes=%s replays=%s rounds=%d"
		       " drgn_kcore_walk_ms=%.2f kcore_read_ms=%.2f readv_read_ms=%.2f mmap_read_ms=%.2f"
		       " raw_readv_ioctl_ms=%.2f syscalls_per_read_kcore=%.2f"
		       " syscalls_per_read_preload_readv=%.2f syscalls_per_read_raw_readv=%.2f"
		       " kcore_read_share=%.2f bound_ratio=%.2f readv_expected_ratio=%.2f"
		       " mmap_expected_ratio=%.2f target_readv=1.3 target_mmap=2.0\n",
		       release, accel, ntasks, nreads[0], nreads[1], same_reads ? "yes" : "no",
		       REPLAYS, ROUNDS, kcore_walk / 1e6, kcore_read / 1e6, path_read[0] / 1e6,
		       path_read[1] / 1e6, dev_read / 1e6, calls[0], calls[1], calls[2],
		       kcore_read / kcore_walk,
		       rest > 0 ? kcore_walk / rest : 0.0,
		       kcore_walk / (rest + path_read[0]), kcore_walk / (rest + path_read[1]));
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

/* One small read's cost, READV beside kcore (kcore_replay cost). */
static int readv_cost(const struct kmem_ro_info *in, const char *release, const char *accel)
{
	char text[24], direct[24], line[512];
	uint64_t dm = in->page_offset + in->phys_base - in->kernel_map;
	/* a word inside the text, away from its first page */
	uint64_t addr = (in->text_start + (in->text_end - in->text_start) / 2) & ~7ULL;
	char *argv[] = { REPLAY, "cost", text, direct, "500", NULL };
	char *env[] = { "PATH=/bin", NULL };
	int status = -1, fd;
	pid_t pid;
	FILE *f;

	if (!module_reload(0))
		return 1;
	snprintf(text, sizeof(text), "%#jx", (uintmax_t)addr);
	snprintf(direct, sizeof(direct), "%#jx", (uintmax_t)(addr + dm));
	pid = fork();
	if (pid == 0) {
		fd = open(REPLAY_OUT, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0 || dup2(fd, 1) != 1)
			_exit(126);
		execve(REPLAY, argv, env);
		_exit(127);
	}
	if (pid > 0)
		waitpid(pid, &status, 0);
	f = fopen(REPLAY_OUT, "re");
	if (status || !f || !fgets(line, sizeof(line), f)) {
		if (f)
			fclose(f);
		return 1;
	}
	fclose(f);
	printf("bench readv_cost kernel=%s accel=%s %s", release, accel, line);
	fflush(stdout);
	return !module_reload(1);
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
	if (readv_cost(&info, u.release, accel)) {
		fprintf(stderr, "kcore_preload_bench: readv_cost failed\n");
		return 1;
	}
	return 0;
}
