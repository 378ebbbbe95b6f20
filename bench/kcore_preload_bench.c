// SPDX-License-Identifier: GPL-2.0
/*
 * An unmodified /proc/kcore reader (tests/vm/kcore_reader, linked
 * dynamically) with and without LD_PRELOAD=libkmemdev-kcore.so: random
 * 1..64-byte preads of kernel text and of its direct-map alias.  Per read:
 * wall time of whole runs, N reads minus none (so process start-up and
 * library loading cancel out), and system calls, counted with ptrace.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
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
	return 0;
}
