// SPDX-License-Identifier: GPL-2.0
/*
 * An unmodified /proc/kcore reader (tests/vm/kcore_reader, linked
 * dynamically) with and without LD_PRELOAD=libkmemdev-kcore.so: random
 * 1..64-byte preads of kernel text and of its direct-map alias.  Per read:
 * wall time of whole runs, N reads minus none (so process start-up and
 * library loading cancel out), and system calls, counted with ptrace.
 *
 * The user-space instructions of one such read (line kcore_preload_insns),
 * single-stepped with ptrace: exact, and what any CPU runs, where TCG's
 * timing charges branches and calls unlike hardware.
 *
 * Then drgn (Debian's python3-drgn) walking the task list (pid and comm of
 * every task through init_task.tasks, offsets from BTF), timed inside
 * Python (the fastest of WALKS walks in each of ROUNDS processes per
 * configuration, the configurations in turn; start-up apart; SLEEPERS extra
 * tasks so that a walk lasts milliseconds, not one): plain on
 * /proc/kcore as root, and under the preload as root and as a member of
 * the device's group (uid NOBODY, no capability), with the module's
 * defaults (loaded with no parameter; the line says which mmap_ram that
 * was) and again with mmap_ram=1.
 *
 * Then the ceiling (line kcore_preload_ceiling): the same walk with every
 * kcore read served from memory already in the process
 * (libkcore-memory.so, kcore_memory.c: the reads of one walk recorded
 * with their bytes on kcore first, loaded before drgn starts, then each
 * read a compare and a copy, no system call), timed in turn with the
 * others.  kcore walk / memory walk is the most any transport could give
 * drgn; each preload walk's gain is also given as its share of that.
 * One small read's cost by each path is read_cost_bench's.  The same
 * line has the most the device's pread() can give the walk with the
 * module's defaults: the walk's recorded reads replayed in C, once as
 * kcore pread()s and once as device pread()s of the same addresses (in
 * turn, the fastest of REPLAY_ROUNDS each); kcore walk / (kcore walk -
 * their difference) is the walk's ratio if the preload cost nothing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"
#include "kcore_memory.h"
#include "kmemdev.h"
#include "read_paths.h"

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
#define NOBODY		65534
#define MONITOR_GID	4242

/* The ceiling: drgn's kcore reads served from memory (kcore_memory.c). */
#define MEMORY_SO	"/tests/libkcore-memory.so"
#define MEMORY_FILE	"/tmp/kcore_bench.memory"
#define REPLAY_ROUNDS	50

struct mode {
	bool preload;
	struct kmem_ro_info *info;
	uint64_t ram_lo, ram_hi;	/* if set: reads of this RAM alone */
};

/*
 * A spec of n random reads, half in text, half in its direct-map alias
 * (text: mapped, no device call); or all in [ram_lo, ram_hi).
 */
static const char *spec(const struct mode *m, long n)
{
	const struct kmem_ro_info *in = m->info;
	static char path[64];
	uint64_t dm = in->page_offset + in->phys_base - in->kernel_map;
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/kcore_bench.%ld", n);
	f = fopen(path, "we");
	if (!f)
		exit(1);
	if (m->ram_hi) {
		fprintf(f, "q %#jx %#jx %ld 64\n", (uintmax_t)m->ram_lo, (uintmax_t)m->ram_hi, n);
	} else {
		fprintf(f, "q %#jx %#jx %ld 64\n", (uintmax_t)in->text_start,
			(uintmax_t)in->text_end, n / 2);
		fprintf(f, "q %#jx %#jx %ld 64\n", (uintmax_t)(in->text_start + dm),
			(uintmax_t)(in->text_end + dm), n - n / 2);
	}
	if (fclose(f))
		exit(1);
	return path;
}

/* In the child: run the reader over the spec for n reads. */
static void reader(void *arg, long n)
{
	struct mode *m = arg;
	char *argv[] = { READER, (char *)spec(m, n), OUT, NULL };
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

/*
 * Without the preload [0] and with it [1]: a run's start-up (ns), each
 * read's time past it (ns) and system calls per read.
 */
static void time_reads(struct mode *plain, struct mode *pre, double start[2], double ns[2],
		       double calls[2])
{
	struct mode *m[2] = { plain, pre };

	for (int i = 0; i < 2; i++)
		start[i] = run_ns(m[i], 0);
	for (int i = 0; i < 2; i++)
		ns[i] = (run_ns(m[i], TIMED_READS) - start[i]) / TIMED_READS;
	for (int i = 0; i < 2; i++)
		calls[i] = bench_syscalls_per_op(reader, m[i], COUNTED_READS);
}

/* ---- instructions per read ---- */

#define STEPPED_READS	10

/* One address read again and again (kcore_reader's N), with or without the preload. */
struct stepped {
	bool preload;
	uint64_t addr;
};

static void stepped_reader(void *arg, long n)
{
	const struct stepped *s = arg;
	const char *path = "/tmp/kcore_bench.stepped";
	char *argv[] = { READER, (char *)path, OUT, NULL };
	char *plain[] = { "PATH=/bin", NULL };
	char *pre[] = { "PATH=/bin", "LD_PRELOAD=" PRELOAD, NULL };
	FILE *f = fopen(path, "we");

	if (!f || fprintf(f, "N %#jx 8 %ld\n", (uintmax_t)s->addr, n) < 0 || fclose(f))
		_exit(1);
	execve(READER, argv, s->preload ? pre : plain);
	_exit(127);
}

/* User-space instructions one 8-byte kcore pread() of addr runs; -1 on failure. */
static double insns_per_read(bool preload, uint64_t addr)
{
	struct stepped s = { preload, addr };
	long with = bench_user_insns(stepped_reader, &s, STEPPED_READS);
	long none = bench_user_insns(stepped_reader, &s, 0);

	return with < 0 || none < 0 ? -1 : (double)(with - none) / STEPPED_READS;
}

/* ---- drgn's task walk ---- */

/* How a walk's kcore reads are served. */
enum via {
	VIA_KCORE,		/* the kernel's /proc/kcore */
	VIA_PRELOAD,		/* the preload, as root */
	VIA_PRELOAD_MEMBER,	/* the preload, as a member of the device's group */
	VIA_MEMORY,		/* memory in the process (libkcore-memory.so) */
	VIA_RECORD,		/* kcore, each read kept for VIA_MEMORY (one walk) */
	VIAS = VIA_RECORD
};

struct walk {
	char args[4][24];	/* init_task, offsets of tasks, pid, comm */
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
static bool walk_ns(struct walk *w, enum via via, double *setup, double *walk, int *tasks)
{
	char *argv[] = { PYTHON, "-S", DRGN_READER, "--walk", (char *)w->args[0],
			 (char *)w->args[1], (char *)w->args[2], (char *)w->args[3],
			 WALK_OUT, NULL };
	char *env[] = { "PATH=/bin", "HOME=/", "KCORE_WALK_REPEAT=" WALKS, NULL, NULL, NULL };
	bool member = via == VIA_PRELOAD_MEMBER;
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
	if (member && chown(KMEM_RO_DEVICE, 0, MONITOR_GID))
		return false;
	switch (via) {
	case VIA_PRELOAD:
	case VIA_PRELOAD_MEMBER:
		env[3] = "LD_PRELOAD=" PRELOAD;
		break;
	case VIA_MEMORY:
		env[3] = "LD_PRELOAD=" MEMORY_SO;
		env[4] = "KCORE_MEMORY=" MEMORY_FILE;
		break;
	case VIA_RECORD:
		env[2] = "KCORE_WALK_REPEAT=1";
		env[3] = "LD_PRELOAD=" MEMORY_SO;
		env[4] = "KCORE_MEMORY_RECORD=" MEMORY_FILE;
		break;
	default:
		break;
	}
	pid = fork();
	if (pid == 0) {
		if (member && (setgroups(1, &group) || setgid(MONITOR_GID) || setuid(NOBODY)))
			_exit(100);
		execve(PYTHON, argv, env);
		_exit(127);
	}
	status = -1;
	if (pid > 0)
		waitpid(pid, &status, 0);
	if (member && chown(KMEM_RO_DEVICE, 0, 0))
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

/* The module reloaded with its defaults (@mmap_ram 0) or mmap_ram=1; false if not. */
static bool module_reload(int mmap_ram)
{
	return !bench_module_reload(mmap_ram ? "mmap_ram=1" : "");
}

/* The module's mmap_ram as it is now: 0, 1, or -1 if unreadable. */
static int mmap_ram_now(void)
{
	FILE *f = fopen("/sys/module/kmem_ro/parameters/mmap_ram", "re");
	char c = 0;

	if (f) {
		c = (char)fgetc(f);
		fclose(f);
	}
	return c == 'Y' || c == '1' ? 1 : c == 'N' || c == '0' ? 0 : -1;
}

/*
 * Record drgn's kcore reads of one walk with their bytes (MEMORY_FILE);
 * the reads of that walk (by time) into *@per_walk.  False if it failed.
 */
static bool record_memory(struct walk *w, unsigned long long *per_walk)
{
	struct kcore_memory_read r;
	double su, wa;
	int tasks;
	FILE *f;

	if (!walk_ns(w, VIA_RECORD, &su, &wa, &tasks))
		return false;
	f = fopen(MEMORY_FILE, "re");
	if (!f)
		return false;
	*per_walk = 0;
	while (fread(&r, sizeof(r), 1, f) == 1) {
		if (r.t >= w->first[0] && r.t <= w->first[1])
			(*per_walk)++;
		if (fseek(f, (long)(kcore_memory_size(&r) - sizeof(r)), SEEK_CUR))
			break;
	}
	fclose(f);
	return *per_walk > 0;
}

/* What the last memory-served walk's process said: served and missed reads. */
static bool memory_stats(unsigned long long *served, unsigned long long *missed)
{
	FILE *f = fopen(MEMORY_FILE ".stats", "re");
	int n;

	if (!f)
		return false;
	n = fscanf(f, "served %llu missed %llu", served, missed);
	fclose(f);
	return n == 2;
}

static double min_pos(double a, double b)
{
	return !a ? b : !b ? a : a < b ? a : b;
}

/* One walk's kcore reads, as recorded: file offset, kernel address, length. */
struct replay_read {
	uint64_t off, addr, len;
};

struct replay {
	struct replay_read *read;
	size_t n, most;
};

/* The reads of the recorded walk (by time), all of a segment; false if none or not. */
static bool replay_load(const struct walk *w, const struct kcore_file *k, struct replay *p)
{
	struct kcore_memory_read r;
	size_t cap = 0;
	bool ok = true;
	FILE *f = fopen(MEMORY_FILE, "re");

	while (ok && f && fread(&r, sizeof(r), 1, f) == 1) {
		if (r.t >= w->first[0] && r.t <= w->first[1] && r.ret > 0) {
			struct replay_read *more = p->read;

			if (p->n == cap) {
				cap = cap ? 2 * cap : 4096;
				more = realloc(p->read, cap * sizeof(*more));
			}
			ok = more && kcore_file_vaddr(k, (uint64_t)r.off, &more[p->n].addr);
			if (more)
				p->read = more;
			if (ok) {
				more[p->n].off = (uint64_t)r.off;
				more[p->n].len = (uint64_t)r.ret;
				if (more[p->n].len > p->most)
					p->most = more[p->n].len;
				p->n++;
			}
		}
		if (fseek(f, (long)(kcore_memory_size(&r) - sizeof(r)), SEEK_CUR))
			ok = false;
	}
	if (f)
		fclose(f);
	return ok && f && p->n;
}

/* ns to make the replay's reads, from kcore or from the device; 0 if one failed. */
static double replay_ns(const struct replay *p, int fd, bool device, void *buf)
{
	uint64_t t = bench_ns();

	for (const struct replay_read *r = p->read; r < p->read + p->n; r++) {
		ssize_t got = device ? dev_pread(fd, r->addr, buf, r->len) :
				       pread(fd, buf, r->len, (off_t)r->off);

		if (got != (ssize_t)r->len) {
			fprintf(stderr, "kcore_preload_bench: %s read at %#jx (%ju bytes): %zd, %s\n",
				device ? "device" : "kcore", (uintmax_t)r->addr, (uintmax_t)r->len,
				got, strerror(errno));
			return 0;
		}
	}
	return (double)(bench_ns() - t);
}

/*
 * The walk's reads from kcore [0] and from the device [1], ns, each the
 * fastest of REPLAY_ROUNDS taken in turn; false if a read failed.
 */
static bool replay_walk(const struct walk *w, double ns[2])
{
	static struct kcore_file k;
	struct replay p = { 0 };
	void *buf = NULL;
	int dev = open(KMEM_RO_DEVICE, O_RDONLY | O_CLOEXEC);
	bool ok;

	k.fd = -1;
	ok = dev >= 0 && !kcore_file_open(&k) && replay_load(w, &k, &p) &&
	     (buf = malloc(p.most));
	if (!ok)
		fprintf(stderr, "kcore_preload_bench: the walk's %zu reads not loaded\n", p.n);

	ns[0] = ns[1] = 0;
	for (int r = 0; ok && r < REPLAY_ROUNDS; r++)
		for (int via = 0; ok && via < 2; via++) {
			double t = replay_ns(&p, via ? dev : k.fd, via, buf);

			ok = t > 0;
			ns[via] = min_pos(ns[via], t);
		}
	free(buf);
	free(p.read);
	kcore_file_close(&k);
	if (dev >= 0)
		close(dev);
	return ok;
}

static int drgn_walk_bench(const char *release, const char *accel)
{
	static const char *const member[] = { "tasks", "pid", "comm" };
	static pid_t sleepers[SLEEPERS];
	double kcore_walk = 0, memory_walk = 0, preload_walk[2] = { 0, 0 }, replay[2];
	unsigned long long per_walk = 0, served = 0, missed = 0;
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
	/* the walk's reads and their bytes, taken once the task list is settled */
	if (!record_memory(&w, &per_walk)) {
		fprintf(stderr, "kcore_preload_bench: recording drgn's reads failed\n");
		err = 1;
	} else if (!replay_walk(&w, replay)) {	/* before a walk moves w.first */
		fprintf(stderr, "kcore_preload_bench: replaying the walk's reads failed\n");
		err = 1;
	}
	for (int on = 0; on <= 1 && !err; on++) {
		double setup[VIAS], walk[VIAS];
		int tasks[VIAS], mmap_ram;

		if (!module_reload(on)) {
			fprintf(stderr, "kcore_preload_bench: reload (mmap_ram=%d) failed\n", on);
			err = 1;
			break;
		}
		mmap_ram = mmap_ram_now();
		/* the four in turn, ROUNDS times: load on the host hits all alike */
		for (int r = 0; r < ROUNDS && !err; r++)
			for (int c = 0; c < VIAS && !err; c++) {
				double su = 0, wa = 0;
				unsigned long long s, m;

				err = !walk_ns(&w, c, &su, &wa, &tasks[c]);
				if (!err && c == VIA_MEMORY) {
					err = !memory_stats(&s, &m);
					served += s;
					missed += m;
				}
				if (!r || wa < walk[c]) {
					walk[c] = wa;
					setup[c] = su;
				}
			}
		if (err)
			break;
		kcore_walk = min_pos(kcore_walk, walk[VIA_KCORE]);
		memory_walk = min_pos(memory_walk, walk[VIA_MEMORY]);
		preload_walk[on] = walk[VIA_PRELOAD];
		printf("bench kcore_preload_drgn kernel=%s accel=%s params=%s mmap_ram=%d tasks=%d"
		       " walks=%s rounds=%d kcore_walk_ms=%.2f preload_root_walk_ms=%.2f"
		       " preload_member_walk_ms=%.2f memory_walk_ms=%.2f"
		       " ratio_root=%.2f ratio_member=%.2f ceiling=%.2f target=%.2f"
		       " set_kernel_ms_kcore=%.1f set_kernel_ms_preload_root=%.1f"
		       " set_kernel_ms_preload_member=%.1f\n",
		       release, accel, on ? "mmap_ram=1" : "defaults", mmap_ram, tasks[VIA_KCORE],
		       WALKS, ROUNDS, walk[VIA_KCORE] / 1e6, walk[VIA_PRELOAD] / 1e6,
		       walk[VIA_PRELOAD_MEMBER] / 1e6, walk[VIA_MEMORY] / 1e6,
		       walk[VIA_KCORE] / walk[VIA_PRELOAD], walk[VIA_KCORE] / walk[VIA_PRELOAD_MEMBER],
		       walk[VIA_KCORE] / walk[VIA_MEMORY], on ? 1.4 : 1.05,
		       setup[VIA_KCORE] / 1e6, setup[VIA_PRELOAD] / 1e6,
		       setup[VIA_PRELOAD_MEMBER] / 1e6);
		fflush(stdout);
		ntasks = tasks[VIA_KCORE];
	}
	if (!err) {
		/* what a path saves, as a share of all a transport could save */
		double room = kcore_walk - memory_walk, saved = replay[0] - replay[1];

		printf("bench kcore_preload_ceiling kernel=%s accel=%s tasks=%d walks=%s rounds=%d"
		       " preads_per_walk=%llu served=%llu missed=%llu kcore_walk_ms=%.2f"
		       " memory_walk_ms=%.2f preload_defaults_walk_ms=%.2f"
		       " preload_mmap_walk_ms=%.2f ceiling=%.2f ratio_defaults=%.2f ratio_mmap=%.2f"
		       " share_defaults=%.2f share_mmap=%.2f replay_kcore_ms=%.3f"
		       " replay_device_ms=%.3f bound_defaults=%.3f\n",
		       release, accel, ntasks, WALKS, ROUNDS, per_walk, served, missed,
		       kcore_walk / 1e6, memory_walk / 1e6, preload_walk[0] / 1e6,
		       preload_walk[1] / 1e6, kcore_walk / memory_walk,
		       kcore_walk / preload_walk[0], kcore_walk / preload_walk[1],
		       room > 0 ? (kcore_walk - preload_walk[0]) / room : 0.0,
		       room > 0 ? (kcore_walk - preload_walk[1]) / room : 0.0,
		       replay[0] / 1e6, replay[1] / 1e6,
		       saved < kcore_walk ? kcore_walk / (kcore_walk - saved) : 0.0);
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
	struct mode plain = { false, &info, 0, 0 }, pre = { true, &info, 0, 0 };
	uint64_t dm;
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
	time_reads(&plain, &pre, start, ns, calls);
	printf("bench kcore_preload kernel=%s accel=%s reads=%d addresses=random-text+direct-map"
	       " sizes=1-64 kcore_ns=%.1f preload_ns=%.1f ratio=%.1f"
	       " startup_ms_kcore=%.1f startup_ms_preload=%.1f"
	       " syscalls_per_read_kcore=%.3f syscalls_per_read_preload=%.3f\n",
	       u.release, accel, TIMED_READS, ns[0], ns[1], ns[0] / ns[1],
	       start[0] / 1e6, start[1] / 1e6, calls[0], calls[1]);
	fflush(stdout);
	/*
	 * The module's default (mmap_ram=0): a read of RAM that is not text
	 * (the image's .data, through the direct map) is one device pread()
	 * under the preload, one kcore pread() without; what the preload adds
	 * around that pread() is the difference to read_cost's
	 * dev_pread_direct_ns.
	 */
	if (!module_reload(0)) {
		fprintf(stderr, "kcore_preload_bench: reload (mmap_ram=0) failed\n");
		return 1;
	}
	dm = info.page_offset + info.phys_base - info.kernel_map;
	plain.ram_lo = pre.ram_lo = kallsyms("_sdata") + dm;
	plain.ram_hi = pre.ram_hi = kallsyms("_edata") + dm;
	if (plain.ram_hi <= plain.ram_lo + 4096 || plain.ram_lo == dm) {
		fprintf(stderr, "kcore_preload_bench: no _sdata/_edata in kallsyms\n");
		return 1;
	}
	time_reads(&plain, &pre, start, ns, calls);
	printf("bench kcore_preload_device kernel=%s accel=%s reads=%d addresses=random-data-direct-map"
	       " sizes=1-64 mmap_ram=0 kcore_ns=%.1f preload_ns=%.1f ratio=%.2f"
	       " syscalls_per_read_kcore=%.3f syscalls_per_read_preload=%.3f\n",
	       u.release, accel, TIMED_READS, ns[0], ns[1], ns[0] / ns[1], calls[0], calls[1]);
	fflush(stdout);
	/*
	 * The same reads' user-space cost, exact: libc's pread() alone, and
	 * the preload's path around a device pread() (.data's direct-map
	 * alias) and a copy from the mapping (text), with the defaults.
	 */
	printf("bench kcore_preload_insns kernel=%s accel=%s reads=%d size=8 mmap_ram=0"
	       " kcore_insns=%.1f preload_device_insns=%.1f preload_mapped_insns=%.1f\n",
	       u.release, accel, STEPPED_READS, insns_per_read(false, plain.ram_lo),
	       insns_per_read(true, plain.ram_lo), insns_per_read(true, info.text_start));
	fflush(stdout);
	if (drgn_walk_bench(u.release, accel)) {
		fprintf(stderr, "kcore_preload_bench: drgn task walk failed\n");
		return 1;
	}
	return 0;
}
