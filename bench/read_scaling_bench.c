// SPDX-License-Identifier: GPL-2.0
/*
 * Do readers wait on each other?  Calls per second of an 8-byte read of
 * one direct-map word, by one process and by two at once (one per CPU,
 * pinned), for the device pread() by address, one-segment
 * KMEM_RO_IOC_READV and kcore pread(), with the module's defaults.  Line
 * read_scaling: each method's rates and its scaling (2 processes / 1);
 * *_vs_kcore is a method's scaling over kcore's (goal >= 0.9).
 *
 * Two processes only run at once on two vCPUs that really run at once:
 * bench/groups boots this suite alone with multi-threaded TCG (mttcg, one
 * host thread per vCPU), where the other benchmarks use single-threaded
 * TCG (both vCPUs on one host thread take turns: two processes would
 * share one host CPU and show no scaling at all).
 *
 * Each measurement runs every process for WINDOW_NS from a common start;
 * the methods and process counts take turns over ROUNDS rounds and each
 * keeps its best, as the host (2 cores, shared) gives both vCPUs a host
 * CPU only part of the time.  A driver without pread() by address answers
 * ESPIPE: dev_pread=ESPIPE and its fields "na".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"
#include "kmemdev.h"
#include "read_paths.h"

#define ROUNDS		40
#define WINDOW_NS	50000000ULL	/* each process reads this long */
#define START_NS	50000000ULL	/* after the forks: both start together */
#define CHUNK		32		/* calls between clock reads */
#define PROCS_MAX	2

enum method { DEV_PREAD, READV, KCORE, METHODS };

static const char *const method_name[METHODS] = { "dev_pread", "readv", "kcore_pread" };

struct target {
	uint64_t addr;
	uint64_t kcore_off;
};

struct result {
	uint64_t calls;
	uint64_t ns;
};

/* In a child pinned to @cpu: read until @end, then report calls and time. */
static void reader(enum method m, const struct target *t, int cpu, uint64_t start,
		   int out)
{
	int fd = open(m == KCORE ? "/proc/kcore" : KMEM_RO_DEVICE, O_RDONLY | O_CLOEXEC);
	struct result res = { 0, 0 };
	uint64_t end = start + WINDOW_NS, now, buf;
	cpu_set_t set;
	bool ok = true;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (fd < 0 || sched_setaffinity(0, sizeof(set), &set))
		_exit(2);
	while (bench_ns() < start)
		;
	do {
		for (int i = 0; i < CHUNK && ok; i++)
			switch (m) {
			case DEV_PREAD:
				ok = dev_pread(fd, t->addr, &buf, 8) == 8;
				break;
			case READV:
				ok = readv_one(fd, t->addr, &buf, 8) == 8;
				break;
			default:
				ok = pread(fd, &buf, 8, (off_t)t->kcore_off) == 8;
				break;
			}
		res.calls += CHUNK;
		now = bench_ns();
	} while (ok && now < end);
	res.ns = now - start;
	if (!ok || write(out, &res, sizeof(res)) != sizeof(res))
		_exit(3);
	_exit(0);
}

/* Calls per second of @procs processes reading at once with @m; 0 if one failed. */
static double rate(enum method m, const struct target *t, int procs, int first_cpu)
{
	uint64_t start = bench_ns() + START_NS;
	double per_s = 0;
	int p[2], status;
	pid_t pid[PROCS_MAX];

	if (pipe(p))
		return 0;
	for (int i = 0; i < procs; i++) {
		pid[i] = fork();
		if (pid[i] == 0) {
			close(p[0]);
			reader(m, t, (first_cpu + i) % PROCS_MAX, start, p[1]);
		}
	}
	close(p[1]);
	for (int i = 0; i < procs; i++) {
		struct result res;

		if (read(p[0], &res, sizeof(res)) != sizeof(res) || !res.ns)
			per_s = -1e18;
		else
			per_s += (double)res.calls * 1e9 / (double)res.ns;
	}
	close(p[0]);
	for (int i = 0; i < procs; i++)
		if (pid[i] < 0 || waitpid(pid[i], &status, 0) != pid[i] || status)
			per_s = -1e18;
	return per_s > 0 ? per_s : 0;
}

static int target(struct target *t, const struct kmem_ro_info *in, bool *dev_pread)
{
	static struct kcore_file k;
	uint64_t dm = in->page_offset + in->phys_base - in->kernel_map;
	int dev = open(KMEM_RO_DEVICE, O_RDONLY | O_CLOEXEC);

	/* the direct-map alias of a word inside the text, as read_cost_bench */
	t->addr = ((in->text_start + (in->text_end - in->text_start) / 2) & ~7ULL) + dm;
	if (dev < 0 || kcore_file_open(&k) || !kcore_file_offset(&k, t->addr, &t->kcore_off))
		return -1;
	kcore_file_close(&k);
	*dev_pread = dev_pread_works(dev, t->addr);
	close(dev);
	if (!*dev_pread && errno != ESPIPE) {
		fprintf(stderr, "read_scaling_bench: device pread() failed: %s\n", strerror(errno));
		return -1;
	}
	if (!*dev_pread)
		fprintf(stderr, "read_scaling_bench: the device has no pread() (ESPIPE)\n");
	return 0;
}

int main(void)
{
	const char *accel = getenv("VM_ACCEL") ? getenv("VM_ACCEL") : "unknown";
	double best[METHODS][PROCS_MAX + 1] = { { 0 } }, scaling[METHODS];
	bool dev_pread;
	struct target t;
	struct kmemdev *h;
	struct utsname u;
	KMEMDEV_ARG(kmem_ro_info, info);
	KMEMDEV_OPTS(kmemdev_open_opts, opts, .backend = KMEMDEV_BACKEND_DEVICE);

	uname(&u);
	if (sysconf(_SC_NPROCESSORS_ONLN) < PROCS_MAX) {
		fprintf(stderr, "read_scaling_bench: needs %d CPUs\n", PROCS_MAX);
		return 1;
	}
	if (bench_module_reload("") || kmemdev_open(&h, &opts) ||
	    kmemdev_info(h, &info, NULL, 0) < 0) {
		fprintf(stderr, "read_scaling_bench: cannot load and open kmem_ro\n");
		return 1;
	}
	kmemdev_close(h);
	if (target(&t, &info, &dev_pread))
		return 1;
	for (int r = 0; r < ROUNDS; r++)
		for (int m = 0; m < METHODS; m++)
			for (int k = 0; k < 2; k++) {
				/* one process first in even rounds, two first in odd ones */
				int procs = (k ^ (r & 1)) + 1;
				double v;

				if (m == DEV_PREAD && !dev_pread)
					continue;
				v = rate(m, &t, procs, r);
				if (!v) {
					fprintf(stderr, "read_scaling_bench: %s with %d processes failed\n",
						method_name[m], procs);
					return 1;
				}
				if (v > best[m][procs])
					best[m][procs] = v;
			}
	for (int m = 0; m < METHODS; m++)
		scaling[m] = best[m][1] ? best[m][2] / best[m][1] : 0;
	printf("bench read_scaling kernel=%s accel=%s cpus=%ld bytes=8 rounds=%d window_ms=%llu"
	       " dev_pread=%s", u.release, accel, sysconf(_SC_NPROCESSORS_ONLN), ROUNDS,
	       WINDOW_NS / 1000000, dev_pread ? "ok" : "ESPIPE");
	for (int m = 0; m < METHODS; m++) {
		if (m == DEV_PREAD && !dev_pread) {
			printf(" %s_1p_per_s=na %s_2p_per_s=na %s_scaling=na", method_name[m],
			       method_name[m], method_name[m]);
			continue;
		}
		printf(" %s_1p_per_s=%.0f %s_2p_per_s=%.0f %s_scaling=%.2f", method_name[m],
		       best[m][1], method_name[m], best[m][2], method_name[m], scaling[m]);
	}
	if (dev_pread)
		printf(" dev_pread_vs_kcore=%.2f", scaling[DEV_PREAD] / scaling[KCORE]);
	else
		printf(" dev_pread_vs_kcore=na");
	printf(" readv_vs_kcore=%.2f target_min=0.9\n", scaling[READV] / scaling[KCORE]);
	return 0;
}
