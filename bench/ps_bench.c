// SPDX-License-Identifier: GPL-2.0
/*
 * The seed workload of kmem_ro: a ps-style loop over every task (pid and
 * comm of each, following task_struct.tasks), as drgn does it over
 * /proc/kcore, against kmemctl ps's three other backends (mmap, one READV
 * per task, one WALK per snapshot) - same snapshot code, same run.  Then
 * 256 random 8-byte reads of kernel text: one READV batch against 256
 * preads of /proc/kcore.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "bench.h"
#include "kmemdev.h"
#include "ps_snapshot.h"

#define SNAPSHOTS		200
#define COUNTED_SNAPSHOTS	10
#define SEGS			256
#define BATCHES			400
#define COUNTED_BATCHES		20

struct batch {
	struct kmemdev *dev, *kcore;
	struct kmem_ro_iov iov[SEGS];
	uint64_t val[SEGS];
	uint64_t sink;
};

static void take(void *arg, long n)
{
	struct ps_snap *s = arg;

	for (long i = 0; i < n; i++)
		if (ps_snap_take(s))
			abort();
}

static void batch_readv(void *arg, long n)
{
	struct batch *b = arg;

	for (long i = 0; i < n; i++) {
		if (kmemdev_readv(b->dev, b->iov, SEGS, NULL))
			abort();
		for (int k = 0; k < SEGS; k++)
			if (b->iov[k].result != 8)
				abort();
		b->sink += b->val[i % SEGS];
	}
}

static void batch_kcore(void *arg, long n)
{
	struct batch *b = arg;

	for (long i = 0; i < n; i++) {
		for (int k = 0; k < SEGS; k++)
			if (kmemdev_read(b->kcore, b->iov[k].addr, &b->val[k], 8))
				abort();
		b->sink += b->val[i % SEGS];
	}
}

static double ns_per(void (*fn)(void *, long), void *arg, long n)
{
	uint64_t t0;

	fn(arg, n / 10 + 1);	/* warm: mappings, caches, buffers */
	t0 = bench_ns();
	fn(arg, n);
	return (double)(bench_ns() - t0) / (double)n;
}

static int open_kind(int kind, struct kmemdev **h)
{
	KMEMDEV_OPTS(kmemdev_open_opts, opts, .backend = kind);

	return kmemdev_open(h, &opts);
}

int main(void)
{
	const char *accel = getenv("VM_ACCEL") ? getenv("VM_ACCEL") : "unknown";
	double ns[PS_BACKEND_COUNT], sc[PS_BACKEND_COUNT];
	struct ps_snap snap[PS_BACKEND_COUNT];
	static struct batch b;
	struct kmem_ro_info info;
	double t_readv, t_kcore;
	size_t tasks = 0;
	struct utsname u;
	int err;

	uname(&u);
	if (open_kind(KMEMDEV_BACKEND_DEVICE, &b.dev) ||
	    open_kind(KMEMDEV_BACKEND_KCORE, &b.kcore) ||
	    kmemdev_info(b.dev, &info, NULL, 0) < 0) {
		fprintf(stderr, "ps_bench: cannot open /dev/kmem_ro and /proc/kcore\n");
		return 1;
	}

	for (int i = 0; i < PS_BACKEND_COUNT; i++) {
		struct kmemdev *h = i == PS_BACKEND_KCORE ? b.kcore : b.dev;

		err = ps_snap_init(&snap[i], h, i, PS_FIELDS_PID_COMM);
		if (err || ps_snap_take(&snap[i])) {
			fprintf(stderr, "ps_bench: %s backend: %s\n",
				ps_backend_name(i), kmemdev_strerror(err));
			return 1;
		}
		if (i && snap[i].nr != tasks)	/* quiesced: all agree */
			fprintf(stderr, "ps_bench: %s saw %zu tasks, kcore %zu\n",
				ps_backend_name(i), snap[i].nr, tasks);
		tasks = snap[i].nr;
		ns[i] = ns_per(take, &snap[i], SNAPSHOTS);
		sc[i] = bench_syscalls_per_op(take, &snap[i], COUNTED_SNAPSHOTS);
	}
	printf("bench ps_snapshot kernel=%s accel=%s tasks=%zu snapshots=%d"
	       " fields=pid+comm kcore_us=%.1f mmap_us=%.1f readv_us=%.1f"
	       " walk_us=%.1f ratio_mmap=%.1f ratio_readv=%.1f ratio_walk=%.1f"
	       " syscalls_kcore=%.1f syscalls_mmap=%.1f syscalls_readv=%.1f"
	       " syscalls_walk=%.1f\n",
	       u.release, accel, tasks, SNAPSHOTS,
	       ns[PS_BACKEND_KCORE] / 1e3, ns[PS_BACKEND_MMAP] / 1e3,
	       ns[PS_BACKEND_READV] / 1e3, ns[PS_BACKEND_WALK] / 1e3,
	       ns[PS_BACKEND_KCORE] / ns[PS_BACKEND_MMAP],
	       ns[PS_BACKEND_KCORE] / ns[PS_BACKEND_READV],
	       ns[PS_BACKEND_KCORE] / ns[PS_BACKEND_WALK],
	       sc[PS_BACKEND_KCORE], sc[PS_BACKEND_MMAP],
	       sc[PS_BACKEND_READV], sc[PS_BACKEND_WALK]);

	/* 256 random 8-byte-aligned text addresses, one batch */
	srand(42);
	for (int k = 0; k < SEGS; k++) {
		uint64_t r = ((uint64_t)rand() << 31 | (uint64_t)rand()) & ~7ULL;

		b.iov[k] = (struct kmem_ro_iov){
			.addr = info.text_start +
				r % (info.text_end - info.text_start - 8),
			.len = 8,
			.buf = (uintptr_t)&b.val[k],
		};
	}
	t_readv = ns_per(batch_readv, &b, BATCHES) / SEGS;
	t_kcore = ns_per(batch_kcore, &b, BATCHES) / SEGS;
	printf("bench readv_batch kernel=%s accel=%s segments=%d seg_bytes=8"
	       " addresses=random-text batches=%d readv_ns_per_seg=%.1f"
	       " kcore_pread_ns_per_seg=%.1f ratio=%.1f"
	       " syscalls_per_batch_readv=%.3f syscalls_per_batch_kcore=%.3f\n",
	       u.release, accel, SEGS, BATCHES, t_readv, t_kcore,
	       t_kcore / t_readv,
	       bench_syscalls_per_op(batch_readv, &b, COUNTED_BATCHES),
	       bench_syscalls_per_op(batch_kcore, &b, COUNTED_BATCHES));

	for (int i = 0; i < PS_BACKEND_COUNT; i++)
		ps_snap_fini(&snap[i]);
	kmemdev_close(b.dev);
	kmemdev_close(b.kcore);
	return b.sink == 42;	/* keeps the loads */
}
