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
 * Each measurement runs every process for WINDOW_NS from a common start,
 * logging when each chunk of CHUNK calls ended; the methods and process
 * counts take turns over ROUNDS rounds.  Two figures per method:
 *  - *_1p_per_s, *_2p_per_s, *_scaling: the best whole window of each;
 *  - *_1p_ns, *_2p_both_ns: the median chunk's ns per call, alone and
 *    while both processes ran at once (tally()); *_both_scaling is
 *    2 x 1p_ns / 2p_both_ns, the calls per second two processes make
 *    together while both run, over one's.  On this shared 2-core host a
 *    vCPU loses its host CPU for milliseconds at a time, so a whole
 *    window measures the host's scheduling as much as the kernel;
 *    *_both_share says what share of the two processes' chunks counted.
 * A driver without pread() by address answers ESPIPE: dev_pread=ESPIPE
 * and its fields "na".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
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
#define CHUNKS_MAX	16384		/* chunk end times a process logs */
#define RUNNING		10		/* a chunk up to 10x the fastest kept its CPU */
#define PROCS_MAX	2

enum method { DEV_PREAD, READV, KCORE, METHODS };

static const char *const method_name[METHODS] = { "dev_pread", "readv", "kcore_pread" };

struct target {
	uint64_t addr;
	uint64_t kcore_off;
};

/* What one reader did, in memory shared with the parent: when each chunk ended. */
struct chunk_log {
	uint64_t start;
	uint32_t n;
	bool failed;
	uint64_t end[CHUNKS_MAX];
};

/* Chunk durations (ns), gathered over the rounds. */
struct samples {
	double *ns;
	size_t n, cap;
};

struct method_stats {
	double best[PROCS_MAX + 1];	/* calls per second, whole windows */
	struct samples one;		/* 1 process: every chunk */
	struct samples both;		/* 2 processes: chunks while the other ran */
	size_t all_two;			/* 2 processes: every chunk */
};

/* In a child pinned to @cpu: read from @log->start for WINDOW_NS, logging each chunk. */
static void reader(enum method m, const struct target *t, int cpu, struct chunk_log *log)
{
	int fd = open(m == KCORE ? "/proc/kcore" : KMEM_RO_DEVICE, O_RDONLY | O_CLOEXEC);
	uint64_t end = log->start + WINDOW_NS, now, buf;
	cpu_set_t set;
	bool ok = true;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (fd < 0 || sched_setaffinity(0, sizeof(set), &set))
		_exit(2);
	while (bench_ns() < log->start)
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
		now = bench_ns();
		log->end[log->n++] = now;
	} while (ok && now < end && log->n < CHUNKS_MAX);
	log->failed = !ok;
	_exit(ok ? 0 : 3);
}

/* @procs processes reading at once with @m, logging into @log[]; false if one failed. */
static bool run(enum method m, const struct target *t, int procs, int first_cpu,
		struct chunk_log *log)
{
	uint64_t start = bench_ns() + START_NS;
	pid_t pid[PROCS_MAX];
	bool ok = true;
	int status;

	for (int i = 0; i < procs; i++) {
		log[i].start = start;
		log[i].n = 0;
		log[i].failed = false;
		pid[i] = fork();
		if (pid[i] == 0)
			reader(m, t, (first_cpu + i) % PROCS_MAX, &log[i]);
	}
	for (int i = 0; i < procs; i++)
		if (pid[i] < 0 || waitpid(pid[i], &status, 0) != pid[i] || status ||
		    log[i].failed || !log[i].n)
			ok = false;
	return ok;
}

static uint64_t chunk_start(const struct chunk_log *l, uint32_t i)
{
	return i ? l->end[i - 1] : l->start;
}

static uint64_t chunk_ns(const struct chunk_log *l, uint32_t i)
{
	return l->end[i] - chunk_start(l, i);
}

static uint64_t fastest_chunk(const struct chunk_log *l)
{
	uint64_t best = UINT64_MAX;

	for (uint32_t i = 0; i < l->n; i++)
		if (chunk_ns(l, i) < best)
			best = chunk_ns(l, i);
	return best;
}

/* Calls per second over the whole window. */
static double window_rate(const struct chunk_log *l)
{
	return (double)l->n * CHUNK * 1e9 / (double)(l->end[l->n - 1] - l->start);
}

/*
 * Did @o run throughout [@s, @e]: chunks of it cover the span, each no
 * slower than @limit (a slower one lost its CPU to the host for a while)?
 * *@j: where to start looking in @o, advanced for the next, later span.
 */
static bool ran_throughout(const struct chunk_log *o, uint64_t s, uint64_t e, uint64_t limit,
			   uint32_t *j)
{
	uint32_t k;

	while (*j < o->n && o->end[*j] <= s)
		(*j)++;
	if (*j == o->n || chunk_start(o, *j) > s)
		return false;
	for (k = *j; k < o->n && chunk_start(o, k) < e; k++)
		if (chunk_ns(o, k) > limit)
			return false;
	return o->end[k - 1] >= e;
}

static bool add(struct samples *s, double ns)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 65536;
		double *p = realloc(s->ns, cap * sizeof(*p));

		if (!p)
			return false;
		s->ns = p;
		s->cap = cap;
	}
	s->ns[s->n++] = ns;
	return true;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(struct samples *s)
{
	if (!s->n)
		return 0;
	qsort(s->ns, s->n, sizeof(*s->ns), cmp_double);
	return s->ns[s->n / 2];
}

/*
 * The host runs other work on its 2 cores: a vCPU loses its host CPU for
 * milliseconds at a time, and a window's calls per second then say more
 * about the host than about the kernel.  A chunk (CHUNK calls, tens of
 * microseconds) is rarely cut, so the median chunk is what a call costs
 * while the process runs; with two processes, only the chunks during
 * which the other process also ran throughout count (chunks of it cover
 * the span, none RUNNING times slower than the fastest chunk alone: a
 * slower one lost its CPU), i.e. both were on a CPU at once.
 */
static bool tally(struct method_stats *s, const struct chunk_log *one,
		  const struct chunk_log two[PROCS_MAX])
{
	uint64_t limit = RUNNING * fastest_chunk(one);

	for (uint32_t i = 0; i < one->n; i++)
		if (!add(&s->one, (double)chunk_ns(one, i)))
			return false;
	for (int p = 0; p < PROCS_MAX; p++) {
		const struct chunk_log *me = &two[p], *other = &two[!p];
		uint32_t j = 0;

		s->all_two += me->n;
		for (uint32_t i = 0; i < me->n; i++)
			if (ran_throughout(other, chunk_start(me, i), me->end[i], limit, &j) &&
			    !add(&s->both, (double)chunk_ns(me, i)))
				return false;
	}
	return true;
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

static void print(struct method_stats s[METHODS], bool dev_pread, const char *release,
		  const char *accel)
{
	double best_scaling[METHODS], both[METHODS];

	printf("bench read_scaling kernel=%s accel=%s cpus=%ld bytes=8 rounds=%d window_ms=%llu"
	       " chunk=%d dev_pread=%s", release, accel, sysconf(_SC_NPROCESSORS_ONLN), ROUNDS,
	       WINDOW_NS / 1000000, CHUNK, dev_pread ? "ok" : "ESPIPE");
	for (int m = 0; m < METHODS; m++) {
		const char *n = method_name[m];
		double one, two;

		if (m == DEV_PREAD && !dev_pread) {
			printf(" %s_1p_per_s=na %s_2p_per_s=na %s_scaling=na %s_1p_ns=na"
			       " %s_2p_both_ns=na %s_both_scaling=na %s_both_share=na",
			       n, n, n, n, n, n, n);
			continue;
		}
		one = median(&s[m].one) / CHUNK;
		two = median(&s[m].both) / CHUNK;
		best_scaling[m] = s[m].best[2] / s[m].best[1];
		both[m] = two ? PROCS_MAX * one / two : 0;
		printf(" %s_1p_per_s=%.0f %s_2p_per_s=%.0f %s_scaling=%.2f %s_1p_ns=%.0f"
		       " %s_2p_both_ns=%.0f %s_both_scaling=%.2f %s_both_share=%.2f",
		       n, s[m].best[1], n, s[m].best[2], n, best_scaling[m], n, one, n, two, n,
		       both[m], n, s[m].all_two ? (double)s[m].both.n / (double)s[m].all_two : 0);
	}
	if (dev_pread)
		printf(" dev_pread_vs_kcore=%.2f dev_pread_vs_kcore_best=%.2f",
		       both[DEV_PREAD] / both[KCORE], best_scaling[DEV_PREAD] / best_scaling[KCORE]);
	else
		printf(" dev_pread_vs_kcore=na dev_pread_vs_kcore_best=na");
	printf(" readv_vs_kcore=%.2f readv_vs_kcore_best=%.2f target_min=0.9\n",
	       both[READV] / both[KCORE], best_scaling[READV] / best_scaling[KCORE]);
	fflush(stdout);
}

int main(void)
{
	const char *accel = getenv("VM_ACCEL") ? getenv("VM_ACCEL") : "unknown";
	static struct method_stats stats[METHODS];
	struct chunk_log *log;
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
	log = mmap(NULL, 3 * sizeof(*log), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		   -1, 0);
	if (log == MAP_FAILED)
		return 1;
	for (int r = 0; r < ROUNDS; r++)
		for (int m = 0; m < METHODS; m++) {
			if (m == DEV_PREAD && !dev_pread)
				continue;
			/* one process first in even rounds, two first in odd ones */
			for (int k = 0; k < 2; k++) {
				int procs = (k ^ (r & 1)) + 1;
				struct chunk_log *l = procs == 1 ? &log[0] : &log[1];
				double v = 0;

				if (!run(m, &t, procs, r, l)) {
					fprintf(stderr, "read_scaling_bench: %s with %d processes failed\n",
						method_name[m], procs);
					return 1;
				}
				for (int p = 0; p < procs; p++)
					v += window_rate(&l[p]);
				if (v > stats[m].best[procs])
					stats[m].best[procs] = v;
			}
			if (!tally(&stats[m], &log[0], &log[1]))
				return 1;
		}
	print(stats, dev_pread, u.release, accel);
	return 0;
}
