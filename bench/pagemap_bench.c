// SPDX-License-Identifier: GPL-2.0
/*
 * Page-table entries of this process, four ways, over the same range in
 * the same run: pread() of /proc/self/pagemap, KMEM_RO_IOC_PAGEMAP flat
 * (one __u64 a page) and as runs, and, where the kernel has it (6.7+),
 * PAGEMAP_SCAN on /proc/self/pagemap asking for PAGE_IS_PRESENT regions.
 * Every method gets the same 64 KiB buffer.  Workloads: a dense, touched
 * anonymous mapping, with THP (the kernel's default policy) and without,
 * and a 64 GiB range with a page in 1% of its 2 MiB chunks.
 *
 * Each method also counts the present pages it saw; they must agree.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <linux/fs.h>

#include "bench.h"
#include "kmemdev.h"

/*
 * PAGEMAP_SCAN (Linux 6.7) is newer than the build host's headers may be:
 * without them, the ABI of include/uapi/linux/fs.h, unchanged since.  The
 * running kernel decides (6.1 answers ENOTTY).
 */
#ifndef PAGEMAP_SCAN
struct page_region {
	__u64 start;
	__u64 end;
	__u64 categories;
};

struct pm_scan_arg {
	__u64 size;
	__u64 flags;
	__u64 start;
	__u64 end;
	__u64 walk_end;
	__u64 vec;
	__u64 vec_len;
	__u64 max_pages;
	__u64 category_inverted;
	__u64 category_mask;
	__u64 category_anyof_mask;
	__u64 return_mask;
};

#define PAGEMAP_SCAN	_IOWR('f', 16, struct pm_scan_arg)
#define PAGE_IS_PRESENT	(1 << 3)
#endif

#define PAGE		4096ULL
#define PMD		(2ULL << 20)
#define BUF_BYTES	(64U << 10)
#define MIN_REPS	2
#define MIN_NS		200000000ULL	/* time each method at least 0.2 s */
#define ROUNDS		5		/* methods take turns; the best of each */

/* pread of /proc, KMEM_RO_IOC_PAGEMAP flat and runs, PAGEMAP_SCAN */
enum method { M_PROC, M_FLAT, M_RUNS, M_SCAN, M_COUNT };

struct work {
	struct kmemdev *h;
	int proc;			/* /proc/self/pagemap */
	uint64_t start, end;
	void *buf;			/* BUF_BYTES */
	uint64_t present[M_COUNT];	/* present pages each method saw */
	uint64_t items[M_COUNT];	/* entries, runs or regions returned */
};

static void m_proc(void *arg, long n)
{
	struct work *w = arg;
	uint64_t *e = w->buf;

	for (long r = 0; r < n; r++) {
		uint64_t present = 0, items = 0;

		for (uint64_t a = w->start; a < w->end;) {
			uint64_t want = (w->end - a) / PAGE * 8;
			ssize_t got;

			if (want > BUF_BYTES)
				want = BUF_BYTES;
			got = pread(w->proc, e, want, a / PAGE * 8);
			if (got <= 0 || got % 8)
				abort();
			for (ssize_t i = 0; i < got / 8; i++)
				present += e[i] >> 63;
			items += got / 8;
			a += got / 8 * PAGE;
		}
		w->present[M_PROC] = present;
		w->items[M_PROC] = items;
	}
}

static void m_kmem(struct work *w, long n, bool runs)
{
	enum method m = runs ? M_RUNS : M_FLAT;

	for (long r = 0; r < n; r++) {
		struct kmem_ro_pagemap a = { .walk_end = w->start };
		uint64_t present = 0, items = 0;

		while (a.walk_end < w->end) {
			a = (struct kmem_ro_pagemap){
				.size = sizeof(a),
				.flags = runs ? KMEM_RO_PAGEMAP_RUNS : 0,
				.start = a.walk_end, .end = w->end,
				.buf_addr = (uintptr_t)w->buf, .buf_size = BUF_BYTES,
			};
			if (kmemdev_pagemap(w->h, &a))
				abort();
			if (runs) {
				const struct kmem_ro_pagemap_run *run = w->buf;

				for (uint64_t i = 0; i < a.count; i++)
					if (run[i].flags & KMEM_RO_PM_PRESENT)
						present += run[i].pages;
			} else {
				const uint64_t *e = w->buf;

				for (uint64_t i = 0; i < a.count; i++)
					present += e[i] >> 63;
			}
			items += a.count;
		}
		w->present[m] = present;
		w->items[m] = items;
	}
}

static void m_flat(void *arg, long n)
{
	m_kmem(arg, n, false);
}

static void m_runs(void *arg, long n)
{
	m_kmem(arg, n, true);
}

static int scan_once(struct work *w, uint64_t start, struct pm_scan_arg *a)
{
	*a = (struct pm_scan_arg){
		.size = sizeof(*a), .start = start, .end = w->end,
		.vec = (uintptr_t)w->buf,
		.vec_len = BUF_BYTES / sizeof(struct page_region),
		.category_mask = PAGE_IS_PRESENT, .return_mask = PAGE_IS_PRESENT,
	};
	return ioctl(w->proc, PAGEMAP_SCAN, a);
}

static void m_scan(void *arg, long n)
{
	struct work *w = arg;
	const struct page_region *reg = w->buf;

	for (long r = 0; r < n; r++) {
		uint64_t present = 0, items = 0, pos = w->start;
		struct pm_scan_arg a;

		while (pos < w->end) {
			int got = scan_once(w, pos, &a);

			if (got < 0 || a.walk_end <= pos)
				abort();
			for (int i = 0; i < got; i++)
				present += (reg[i].end - reg[i].start) / PAGE;
			items += (uint64_t)got;
			pos = a.walk_end;
		}
		w->present[M_SCAN] = present;
		w->items[M_SCAN] = items;
	}
}

static void (*const method_fn[M_COUNT])(void *, long) = {
	m_proc, m_flat, m_runs, m_scan,
};

/* Pages per second over at least MIN_REPS passes and MIN_NS. */
static double pages_per_s(enum method m, struct work *w)
{
	uint64_t t0, ns, reps = 0;

	t0 = bench_ns();
	do {
		method_fn[m](w, 1);
		reps++;
		ns = bench_ns() - t0;
	} while (reps < MIN_REPS || ns < MIN_NS);
	return (double)((w->end - w->start) / PAGE * reps) * 1e9 / (double)ns;
}

static bool have_scan(struct work *w)
{
	struct pm_scan_arg a;

	if (scan_once(w, w->start, &a) >= 0)
		return true;
	if (errno != ENOTTY)	/* 6.1: no ioctl on pagemap at all */
		fprintf(stderr, "pagemap_bench: PAGEMAP_SCAN: %s\n", strerror(errno));
	return false;
}

static void thp_policy(char *buf, size_t len)
{
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "re");
	char line[128], *l, *r;

	snprintf(buf, len, "unknown");
	if (!f)
		return;
	if (fgets(line, sizeof(line), f) && (l = strchr(line, '[')) &&
	    (r = strchr(l, ']'))) {
		*r = '\0';
		snprintf(buf, len, "%s", l + 1);
	}
	fclose(f);
}

static long long mem_available_kib(void)
{
	FILE *f = fopen("/proc/meminfo", "re");
	char line[128];
	long long kib = -1;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %lld kB", &kib) == 1)
			break;
	if (f)
		fclose(f);
	return kib;
}

static void run(struct work *w, const char *workload, const char *extra,
		const char *uts, const char *accel)
{
	double gib = (double)(w->end - w->start) / (double)(1ULL << 30);
	double pps[M_COUNT] = { 0 }, calls[M_COUNT] = { 0 };
	bool scan = have_scan(w), agree = true;
	char sbuf[M_COUNT][32], cbuf[M_COUNT][32], rbuf[M_COUNT][32], regions[32];

	/*
	 * Rounds in turn, not one method after the other: load from the
	 * rest of this shared machine then hits every method alike.
	 */
	for (int r = 0; r < ROUNDS; r++)
		for (int m = 0; m < M_COUNT; m++) {
			if (m == M_SCAN && !scan)
				continue;
			double rate = pages_per_s(m, w);

			if (rate > pps[m])
				pps[m] = rate;
		}
	for (int m = 0; m < M_COUNT; m++) {
		if (m == M_SCAN && !scan)
			continue;
		calls[m] = bench_syscalls_per_op(method_fn[m], w, 1) / gib;
		if (w->present[m] != w->present[M_PROC])
			agree = false;
	}
	for (int m = 0; m < M_COUNT; m++) {
		if (m == M_SCAN && !scan) {
			snprintf(sbuf[m], sizeof(sbuf[m]), "n/a");
			snprintf(cbuf[m], sizeof(cbuf[m]), "n/a");
			snprintf(rbuf[m], sizeof(rbuf[m]), "n/a");
			continue;
		}
		snprintf(sbuf[m], sizeof(sbuf[m]), "%.0f", pps[m]);
		snprintf(cbuf[m], sizeof(cbuf[m]), "%.3f", calls[m]);
		snprintf(rbuf[m], sizeof(rbuf[m]), "%.1f", pps[m] / pps[M_PROC]);
	}
	if (scan)
		snprintf(regions, sizeof(regions), "%llu",
			 (unsigned long long)w->items[M_SCAN]);
	else
		snprintf(regions, sizeof(regions), "n/a");
	printf("bench pagemap kernel=%s accel=%s workload=%s %s buf=64KiB"
	       " range_pages=%llu present_pages=%llu present_fraction=%.4f%%"
	       " runs=%llu scan_regions=%s check=%s"
	       " proc_pread_pages_per_s=%s kmem_flat_pages_per_s=%s"
	       " kmem_runs_pages_per_s=%s pagemap_scan_pages_per_s=%s"
	       " ratio_flat=%s ratio_runs=%s ratio_scan=%s"
	       " syscalls_per_gib_proc=%s syscalls_per_gib_flat=%s"
	       " syscalls_per_gib_runs=%s syscalls_per_gib_scan=%s\n",
	       uts, accel, workload, extra,
	       (unsigned long long)((w->end - w->start) / PAGE),
	       (unsigned long long)w->present[M_PROC],
	       100.0 * (double)w->present[M_PROC] / (double)((w->end - w->start) / PAGE),
	       (unsigned long long)w->items[M_RUNS],
	       regions,
	       agree ? "ok" : "MISMATCH",
	       sbuf[M_PROC], sbuf[M_FLAT], sbuf[M_RUNS], sbuf[M_SCAN],
	       rbuf[M_FLAT], rbuf[M_RUNS], rbuf[M_SCAN],
	       cbuf[M_PROC], cbuf[M_FLAT], cbuf[M_RUNS], cbuf[M_SCAN]);
	fflush(stdout);
}

int main(void)
{
	const char *accel = getenv("VM_ACCEL") ? getenv("VM_ACCEL") : "unknown";
	struct work w = { 0 };
	long long avail = mem_available_kib();
	uint64_t dense, chunks, touched = 0;
	char extra[160], thp[32];
	struct utsname u;
	char *p;

	uname(&u);
	thp_policy(thp, sizeof(thp));
	w.buf = aligned_alloc(PAGE, BUF_BYTES);
	w.proc = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (!w.buf || w.proc < 0 || kmemdev_open(&w.h, NULL)) {
		fprintf(stderr, "pagemap_bench: cannot open /proc/self/pagemap or /dev/kmem_ro\n");
		return 1;
	}

	/* (a) dense: 1 GiB if it fits with room to spare, else 512 MiB */
	dense = avail > 0 && avail / 1024 >= 1536 ? 1ULL << 30 : 512ULL << 20;
	for (int thp_on = 1; thp_on >= 0; thp_on--) {
		p = mmap(NULL, dense, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return 1;
		if (!thp_on)
			madvise(p, dense, MADV_NOHUGEPAGE);
		for (uint64_t off = 0; off < dense; off += PAGE)
			p[off] = 1;
		w.start = (uintptr_t)p;
		w.end = w.start + dense;
		if (dense < (1ULL << 30))
			snprintf(extra, sizeof(extra),
				 "mapping=%lluMiB-touched(1GiB-does-not-fit:guest-MemAvailable=%lldMiB)"
				 " thp=%s", (unsigned long long)(dense >> 20), avail / 1024,
				 thp_on ? thp : "madv-nohugepage");
		else
			snprintf(extra, sizeof(extra), "mapping=1GiB-touched thp=%s",
				 thp_on ? thp : "madv-nohugepage");
		run(&w, thp_on ? "dense-thp" : "dense-4k", extra, u.release, accel);
		munmap(p, dense);
	}

	/* (b) sparse: 64 GiB reserved, the first page of 1 in 100 2 MiB chunks */
	p = mmap(NULL, 64ULL << 30, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return 1;
	madvise(p, 64ULL << 30, MADV_NOHUGEPAGE);	/* a page, not a THP */
	chunks = (64ULL << 30) / PMD;
	for (uint64_t c = 0; c < chunks; c += 100, touched++)
		p[c * PMD] = 1;
	w.start = (uintptr_t)p;
	w.end = w.start + (64ULL << 30);
	snprintf(extra, sizeof(extra),
		 "mapping=64GiB-noreserve touched_chunks=%llu/%llu(1%%-of-2MiB-chunks,first-page)",
		 (unsigned long long)touched, (unsigned long long)chunks);
	run(&w, "sparse-64GiB", extra, u.release, accel);
	munmap(p, 64ULL << 30);

	kmemdev_close(w.h);
	close(w.proc);
	return 0;
}
