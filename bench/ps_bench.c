// SPDX-License-Identifier: GPL-2.0
/*
 * The seed workload of kmem_ro: a ps-style loop over every task (pid and
 * comm of each, following task_struct.tasks), as drgn does it over
 * /proc/kcore, against kmemctl ps's three other backends (mmap, READV,
 * one WALK per snapshot) - same snapshot code, same run.  And the
 * physical limit: the same code over a copy, in this process's memory, of
 * what the walk touches (ps_snap_copy()), each read a memcpy().  The READV
 * backend reads the whole list in one call when it is as the last snapshot
 * left it, as in `kmemctl ps --loop`; readv_cold is one READV per task,
 * as for a single snapshot.
 *
 * The backends take turns (ROUNDS rounds, the best of each), so that load
 * from the rest of a shared machine hits them alike.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "bench.h"
#include "kmemdev.h"
#include "ps_copy.h"

#define SNAPSHOTS		100	/* a round */
#define ROUNDS			10
#define COUNTED_SNAPSHOTS	10
#define READV_COLD		(PS_BACKEND_COPY + 1)	/* READV, no guess */
#define NB			(READV_COLD + 1)

static void take(void *arg, long n)
{
	struct ps_snap *s = arg;

	for (long i = 0; i < n; i++)
		if (ps_snap_take(s))
			abort();
}

static int open_kind(int kind, struct kmemdev **h)
{
	KMEMDEV_OPTS(kmemdev_open_opts, opts, .backend = kind);

	return kmemdev_open(h, &opts);
}

int main(void)
{
	const char *accel = getenv("VM_ACCEL") ? getenv("VM_ACCEL") : "unknown";
	double ns[NB], sc[NB], calls[NB];
	unsigned long calls0[NB];
	struct ps_snap snap[NB];
	struct kmemdev *dev, *kcore;
	size_t tasks = 0;
	struct utsname u;
	int err;

	uname(&u);
	if (bench_mmap_ram_on() || open_kind(KMEMDEV_BACKEND_DEVICE, &dev) ||
	    open_kind(KMEMDEV_BACKEND_KCORE, &kcore)) {
		fprintf(stderr, "ps_bench: cannot open /dev/kmem_ro and /proc/kcore\n");
		return 1;
	}

	for (int i = 0; i < NB; i++) {
		struct kmemdev *h = i == PS_BACKEND_KCORE ? kcore : dev;

		if (i == PS_BACKEND_COPY)
			continue;
		err = ps_snap_init(&snap[i], h, i == READV_COLD ? PS_BACKEND_READV : i,
				   PS_FIELDS_PID_COMM);
		snap[i].no_guess = i == READV_COLD;
		if (!err)
			err = ps_snap_take(&snap[i]);
		if (err) {
			fprintf(stderr, "ps_bench: %s backend: %s: %s\n",
				ps_backend_name(i), snap[i].err_obj,
				kmemdev_strerror(snap[i].err_op, err));
			return 1;
		}
		if (i && snap[i].nr != tasks)	/* quiesced: all agree */
			fprintf(stderr, "ps_bench: %s saw %zu tasks, kcore %zu\n",
				ps_backend_name(i), snap[i].nr, tasks);
		tasks = snap[i].nr;
	}
	err = ps_snap_copy(&snap[PS_BACKEND_COPY], &snap[PS_BACKEND_MMAP]);
	if (!err)
		err = ps_snap_take(&snap[PS_BACKEND_COPY]);
	if (err || snap[PS_BACKEND_COPY].nr != tasks) {
		fprintf(stderr, "ps_bench: copy of the list: %s\n", strerror(-err));
		return 1;
	}

	for (int i = 0; i < NB; i++) {
		take(&snap[i], SNAPSHOTS / 10);	/* warm: mappings, buffers */
		ns[i] = 1e300;
	}
	for (int i = 0; i < NB; i++)
		calls0[i] = snap[i].calls;
	for (int r = 0; r < ROUNDS; r++)
		for (int i = 0; i < NB; i++) {
			uint64_t t0 = bench_ns();
			double t;

			take(&snap[i], SNAPSHOTS);
			t = (double)(bench_ns() - t0) / SNAPSHOTS;
			if (t < ns[i])
				ns[i] = t;
		}
	/* READV and WALK calls per snapshot in the timed rounds themselves */
	for (int i = 0; i < NB; i++)
		calls[i] = (double)(snap[i].calls - calls0[i]) / (ROUNDS * SNAPSHOTS);
	for (int i = 0; i < NB; i++)
		sc[i] = bench_syscalls_per_op(take, &snap[i], COUNTED_SNAPSHOTS);

	printf("bench ps_snapshot kernel=%s accel=%s tasks=%zu snapshots=%d rounds=%d"
	       " fields=pid+comm kcore_us=%.1f mmap_us=%.1f readv_us=%.1f"
	       " walk_us=%.1f readv_cold_us=%.1f ratio_mmap=%.1f ratio_readv=%.1f"
	       " ratio_walk=%.1f ratio_readv_cold=%.1f"
	       " syscalls_kcore=%.1f syscalls_mmap=%.1f syscalls_readv=%.1f"
	       " syscalls_walk=%.1f syscalls_readv_cold=%.1f\n",
	       u.release, accel, tasks, SNAPSHOTS, ROUNDS,
	       ns[PS_BACKEND_KCORE] / 1e3, ns[PS_BACKEND_MMAP] / 1e3,
	       ns[PS_BACKEND_READV] / 1e3, ns[PS_BACKEND_WALK] / 1e3,
	       ns[READV_COLD] / 1e3,
	       ns[PS_BACKEND_KCORE] / ns[PS_BACKEND_MMAP],
	       ns[PS_BACKEND_KCORE] / ns[PS_BACKEND_READV],
	       ns[PS_BACKEND_KCORE] / ns[PS_BACKEND_WALK],
	       ns[PS_BACKEND_KCORE] / ns[READV_COLD],
	       sc[PS_BACKEND_KCORE], sc[PS_BACKEND_MMAP],
	       sc[PS_BACKEND_READV], sc[PS_BACKEND_WALK], sc[READV_COLD]);
	/* each backend as a multiple of the limit: 1.0 would be plain loads */
	printf("bench ps_limit kernel=%s accel=%s tasks=%zu snapshots=%d rounds=%d"
	       " fields=pid+comm copy_us=%.2f x_kcore=%.1f x_mmap=%.1f x_readv=%.1f"
	       " x_walk=%.1f x_readv_cold=%.1f walk_over_mmap=%.2f syscalls_copy=%.1f"
	       " timed_calls_readv=%.2f timed_calls_walk=%.2f timed_calls_readv_cold=%.2f\n",
	       u.release, accel, tasks, SNAPSHOTS, ROUNDS,
	       ns[PS_BACKEND_COPY] / 1e3,
	       ns[PS_BACKEND_KCORE] / ns[PS_BACKEND_COPY],
	       ns[PS_BACKEND_MMAP] / ns[PS_BACKEND_COPY],
	       ns[PS_BACKEND_READV] / ns[PS_BACKEND_COPY],
	       ns[PS_BACKEND_WALK] / ns[PS_BACKEND_COPY],
	       ns[READV_COLD] / ns[PS_BACKEND_COPY],
	       ns[PS_BACKEND_WALK] / ns[PS_BACKEND_MMAP],
	       sc[PS_BACKEND_COPY], calls[PS_BACKEND_READV], calls[PS_BACKEND_WALK],
	       calls[READV_COLD]);

	for (int i = 0; i < NB; i++)
		ps_snap_fini(&snap[i]);
	kmemdev_close(dev);
	kmemdev_close(kcore);
	return 0;
}
