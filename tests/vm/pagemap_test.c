// SPDX-License-Identifier: GPL-2.0
/*
 * KMEM_RO_IOC_PAGEMAP against /proc/self/pagemap: for anonymous, file,
 * shared, zero-page, THP, huge-zero-page, hugetlb, uffd-wp protected,
 * guard-region and PFN-mapped memory and the holes between, flat output
 * is byte-identical, runs expand to it, resumption reproduces it, and the
 * permission rules match the kernel's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/userfaultfd.h>

#include "vmtest.h"

#define PAGE	4096UL
#define PMD	(2UL << 20)

/* Newer than the build host's headers (bookworm's are 6.1's). */
#ifndef MADV_GUARD_INSTALL
#define MADV_GUARD_INSTALL		102
#endif
#ifndef UFFD_FEATURE_WP_UNPOPULATED
#define UFFD_FEATURE_WP_UNPOPULATED	(1 << 13)
#endif
/* /proc/PID/pagemap's guard-region bit (6.15), not in uapi/kmem_ro.h */
#define PM_GUARD_REGION			(1ULL << 58)

struct zoo {
	char *lo, *hi;		/* span covering every mapping below */
	char *thp;		/* 2 MiB of anonymous memory asked to be a THP */
	char *thp_zero;		/* 2 MiB read, never written: the huge zero page */
	char *hugetlb;		/* a hugetlb page, NULL if none could be had */
	char *uffd_wp;		/* 8 pages write-protected by userfaultfd */
	int uffd;		/* ... whose descriptor keeps them so */
	char *guard;		/* 8 pages, 2 and 3 a guard region; NULL before 6.13 */
};

static char *map_or_die(size_t len, int prot, int flags, int fd)
{
	char *p = mmap(NULL, len, prot, flags, fd, 0);

	ck_assert_ptr_ne(p, MAP_FAILED);
	return p;
}

static void note(struct zoo *z, char *p, size_t len)
{
	if (!z->lo || p < z->lo)
		z->lo = p;
	if (p + len > z->hi)
		z->hi = p + len;
}

/*
 * 8 anonymous pages, 0-3 touched, all write-protected through a
 * userfaultfd: present pages carry the uffd-wp bit, and since 6.4
 * (UFFD_FEATURE_WP_UNPOPULATED) the empty ones a marker entry.
 */
static void zoo_uffd_wp(struct zoo *z)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_WP };
	struct uffdio_writeprotect wp = { .mode = UFFDIO_WRITEPROTECT_MODE_WP };
	char *p = map_or_die(8 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1);
	int fd = syscall(SYS_userfaultfd, O_CLOEXEC | UFFD_USER_MODE_ONLY);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ioctl(fd, UFFDIO_API, &api), 0);
	ck_assert_int_eq(!!(api.features & UFFD_FEATURE_WP_UNPOPULATED),
			 vt_kernel_at_least(6, 4));
	close(fd);
	/* the API handshake is once per descriptor: again, asking for it */
	fd = syscall(SYS_userfaultfd, O_CLOEXEC | UFFD_USER_MODE_ONLY);
	ck_assert_int_ge(fd, 0);
	api = (struct uffdio_api){
		.api = UFFD_API,
		.features = vt_kernel_at_least(6, 4) ? UFFD_FEATURE_WP_UNPOPULATED : 0,
	};
	ck_assert_int_eq(ioctl(fd, UFFDIO_API, &api), 0);
	madvise(p, 8 * PAGE, MADV_NOHUGEPAGE);
	memset(p, 1, 4 * PAGE);
	reg.range = (struct uffdio_range){ (uintptr_t)p, 8 * PAGE };
	ck_assert_int_eq(ioctl(fd, UFFDIO_REGISTER, &reg), 0);
	wp.range = reg.range;
	ck_assert_int_eq(ioctl(fd, UFFDIO_WRITEPROTECT, &wp), 0);
	note(z, p, 8 * PAGE);
	z->uffd_wp = p;
	z->uffd = fd;
}

/* Guard regions came in 6.13 (MADV_GUARD_INSTALL), in pagemap in 6.15. */
static void zoo_guard(struct zoo *z)
{
	char *p = map_or_die(8 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1);

	memset(p, 1, 8 * PAGE);
	if (madvise(p + 2 * PAGE, 2 * PAGE, MADV_GUARD_INSTALL)) {
		ck_assert_int_eq(errno, EINVAL);
		ck_assert(!vt_kernel_at_least(6, 13));
		munmap(p, 8 * PAGE);
		return;
	}
	note(z, p, 8 * PAGE);
	z->guard = p;
}

/* Every kind of page the suite promises, in this process. */
static void build_zoo(struct zoo *z, int dev)
{
	char path[] = "/tmp/pagemap.XXXXXX", *p;
	int fd = mkstemp(path);
	FILE *f;

	memset(z, 0, sizeof(*z));
	/* anonymous: touched and untouched pages */
	p = map_or_die(64 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1);
	for (int i = 0; i < 64; i += 2)
		p[i * PAGE] = i;
	note(z, p, 64 * PAGE);
	/* zero page: read, never written */
	p = map_or_die(8 * PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1);
	for (int i = 0; i < 8; i++)
		(void)*(volatile char *)(p + i * PAGE);
	note(z, p, 8 * PAGE);
	/* file: private and shared */
	ck_assert_int_ge(fd, 0);
	unlink(path);
	ck_assert_int_eq(ftruncate(fd, 16 * PAGE), 0);
	p = map_or_die(16 * PAGE, PROT_READ, MAP_PRIVATE, fd);
	for (int i = 0; i < 16; i += 3)
		(void)*(volatile char *)(p + i * PAGE);
	note(z, p, 16 * PAGE);
	p = map_or_die(16 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd);
	p[0] = 1;
	note(z, p, 16 * PAGE);
	/* shared anonymous (shmem) */
	p = map_or_die(8 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1);
	p[PAGE] = 1;
	note(z, p, 8 * PAGE);
	/* THP: a 2 MiB-aligned piece of a larger anonymous mapping */
	p = map_or_die(3 * PMD, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1);
	p = (char *)(((uintptr_t)p + PMD - 1) & ~(PMD - 1));
	madvise(p, PMD, MADV_HUGEPAGE);
	memset(p, 1, PMD);
	note(z, p, PMD);
	z->thp = p;
	/* the huge zero page: a THP-sized piece only read */
	p = map_or_die(3 * PMD, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1);
	p = (char *)(((uintptr_t)p + PMD - 1) & ~(PMD - 1));
	madvise(p, PMD, MADV_HUGEPAGE);
	for (size_t i = 0; i < PMD; i += PAGE)
		(void)*(volatile char *)(p + i);
	note(z, p, PMD);
	z->thp_zero = p;
	zoo_uffd_wp(z);
	zoo_guard(z);
	/* hugetlb, if pages can be reserved */
	f = fopen("/proc/sys/vm/nr_hugepages", "we");
	if (f) {
		fputs("4", f);
		fclose(f);
	}
	p = mmap(NULL, PMD, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
	if (p != MAP_FAILED) {
		p[0] = 1;
		note(z, p, PMD);
		z->hugetlb = p;
	}
	/* a PFN map: kmem_ro's own mapping of kernel text */
	if (dev >= 0) {
		struct kmem_ro_info info;

		ck_assert_int_eq(vt_info(dev, &info, NULL, 0), 0);
		p = mmap(NULL, 4 * PAGE, PROT_READ, MAP_SHARED, dev,
			 info.text_start - info.kernel_map + info.phys_base);
		ck_assert_ptr_ne(p, MAP_FAILED);
		(void)*(volatile char *)p;
		note(z, p, 4 * PAGE);
	}
	close(fd);
	/* holes around it all */
	z->lo -= 16 * PAGE;
	z->hi += 16 * PAGE;
}

static int pagemap_call(int fd, uint64_t start, uint64_t end, uint64_t flags, void *buf,
			size_t size, struct kmem_ro_pagemap *out)
{
	*out = (struct kmem_ro_pagemap){
		.size = sizeof(*out), .flags = flags, .start = start, .end = end,
		.buf_addr = (uintptr_t)buf, .buf_size = size,
	};
	return vt_ioctl(fd, KMEM_RO_IOC_PAGEMAP, out);
}

static void proc_pagemap(uint64_t start, uint64_t end, uint64_t *out)
{
	int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	size_t len = (end - start) / PAGE * 8;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pread(fd, out, len, start / PAGE * 8), (ssize_t)len);
	close(fd);
}

/* Did the zoo get what it asked for?  A PMD-mapped page: 512 PFNs in a row. */
static int is_pmd_mapped(const uint64_t *e)
{
	for (int i = 0; i < 512; i++)
		if (!(e[i] & KMEM_RO_PM_PRESENT) ||
		    (e[i] & KMEM_RO_PM_FRAME_MASK) != (e[0] & KMEM_RO_PM_FRAME_MASK) + i)
			return 0;
	return (e[0] & KMEM_RO_PM_FRAME_MASK) % 512 == 0;
}

/*
 * What the kernel's own pagemap says of the zoo, where the kernels differ:
 * 7.3 gives the huge zero page no struct page (vm_normal_page_pmd()), so
 * no PM_FILE, which it had before; guard regions have bit 58 from 6.15.
 */
static int zoo_as_documented(const struct zoo *z, const uint64_t *theirs)
{
	const uint64_t *e;

	e = theirs + (z->thp_zero - z->lo) / PAGE;
	if (!is_pmd_mapped(e) || !!(e[0] & KMEM_RO_PM_FILE) != !vt_kernel_at_least(7, 3))
		return 13;
	e = theirs + (z->uffd_wp - z->lo) / PAGE;
	for (int i = 0; i < 8; i++)
		if (!(e[i] & KMEM_RO_PM_UFFD_WP) != (i >= 4 && !vt_kernel_at_least(6, 4)))
			return 14;
	if (!z->guard)
		return 0;
	e = theirs + (z->guard - z->lo) / PAGE;
	for (int i = 0; i < 8; i++)
		if (!!(e[i] & PM_GUARD_REGION) != (i == 2 || i == 3))
			return vt_kernel_at_least(6, 15) ? 15 : 0;
	return 0;
}

/* flat == /proc/self/pagemap, runs expand to flat, resumption too */
static int compare_all(int dev, int check_zoo)
{
	struct kmem_ro_pagemap a;
	struct zoo z;
	uint64_t start, end, n, *ours, *theirs, *resumed, pos, i;
	struct kmem_ro_pagemap_run *runs;
	int bad = 0;

	build_zoo(&z, dev);
	start = (uintptr_t)z.lo;
	end = (uintptr_t)z.hi;
	n = (end - start) / PAGE;
	ours = calloc(n, 8);
	theirs = calloc(n, 8);
	resumed = calloc(n, 8);
	runs = calloc(n, sizeof(*runs));

	if (pagemap_call(dev, start, end, 0, ours, n * 8, &a) || a.count != n || a.walk_end != end)
		return 1;
	proc_pagemap(start, end, theirs);
	for (i = 0; i < n; i++)
		if (ours[i] != theirs[i] && bad++ < 10)
			fprintf(stderr, "pagemap: page %#llx: ours %#018llx kernel %#018llx\n",
				(unsigned long long)(start + i * PAGE),
				(unsigned long long)ours[i], (unsigned long long)theirs[i]);
	if (bad)
		return 2;
	if (check_zoo && (!z.hugetlb || !is_pmd_mapped(theirs + (z.hugetlb - z.lo) / PAGE) ||
			  !is_pmd_mapped(theirs + (z.thp - z.lo) / PAGE)))
		return 12;
	if (check_zoo && (bad = zoo_as_documented(&z, theirs)))
		return bad;

	if (pagemap_call(dev, start, end, KMEM_RO_PAGEMAP_RUNS, runs, n * sizeof(*runs), &a) ||
	    a.walk_end != end)
		return 3;
	for (pos = 0, i = 0; i < a.count; i++) {
		if (runs[i].start != start + pos * PAGE)
			return 4;
		for (uint64_t j = 0; j < runs[i].pages; j++, pos++) {
			uint64_t frame = runs[i].frame;

			if (frame && (runs[i].flags & KMEM_RO_PM_PRESENT))
				frame += j;
			else if (frame && (runs[i].flags & KMEM_RO_PM_SWAP))
				frame += j << 5;
			if (pos >= n || (frame | runs[i].flags) != theirs[pos])
				return 5;
		}
	}
	if (pos != n)
		return 6;

	/* a buffer of 7 entries at a time */
	for (pos = 0, a.walk_end = start; a.walk_end < end; pos += a.count)
		if (pagemap_call(dev, a.walk_end, end, 0, resumed + pos, 7 * 8, &a) || !a.count)
			return 7;
	if (memcmp(resumed, theirs, n * 8))
		return 8;
	/* and 3 runs at a time */
	for (pos = 0, a.walk_end = start; a.walk_end < end; ) {
		if (pagemap_call(dev, a.walk_end, end, KMEM_RO_PAGEMAP_RUNS, runs, 3 * sizeof(*runs), &a) ||
		    !a.count)
			return 9;
		for (i = 0; i < a.count; pos += runs[i].pages, i++)
			if (runs[i].start != start + pos * PAGE)
				return 10;
	}
	close(z.uffd);
	return pos == n ? 0 : 11;
}

START_TEST(flat_runs_resume_match_proc_as_root)
{
	int dev = vt_open_dev();

	ck_assert_int_eq(compare_all(dev, 1), 0);
	close(dev);
}
END_TEST

static int compare_as_user(void *unused)
{
	int dev = open(KMEM_RO_DEVICE, O_RDONLY);

	(void)unused;
	/* setuid() made us undumpable, which hides our own /proc files */
	prctl(PR_SET_DUMPABLE, 1);
	return dev < 0 ? 100 : compare_all(dev, 0);
}

START_TEST(flat_runs_resume_match_proc_as_user)
{
	ck_assert_int_eq(vt_run_as_monitor(compare_as_user, NULL), 0);
}
END_TEST

START_TEST(sparse_64g_in_few_runs)
{
	static struct kmem_ro_pagemap_run runs[64];
	struct kmem_ro_pagemap a;
	char *p = map_or_die(4 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1);
	uint64_t start = ((uintptr_t)p - (32ULL << 30)) & ~(PAGE - 1);
	int dev = vt_open_dev();

	memset(p, 1, 4 * PAGE);
	ck_assert_int_eq(pagemap_call(dev, start, start + (64ULL << 30), KMEM_RO_PAGEMAP_RUNS,
				      runs, sizeof(runs), &a), 0);
	ck_assert_uint_eq(a.walk_end, start + (64ULL << 30));
	ck_assert_uint_lt(a.count, 64);
	close(dev);
}
END_TEST

/*
 * A THP shared with a child, which then maps part of it by PTEs and drops
 * some: the exclusive bit of each page of the parent's PMD goes from all
 * set, to none (two PMD mappings), to none (the child's PTEs), to the
 * pages the child dropped (6.12), or to all again where the PMD's first
 * page answers for every page (6.1, and from 6.15) -- each state flat and
 * as runs equal to /proc/self/pagemap.  6.12 reads the pages of a PMD only
 * in the last two states.
 */
static int thp_matches_proc(int dev, const char *p, uint64_t *excl)
{
	static uint64_t ours[512], theirs[512];
	static struct kmem_ro_pagemap_run runs[512];
	uint64_t start = (uintptr_t)p, pos = 0;
	struct kmem_ro_pagemap a;

	if (pagemap_call(dev, start, start + PMD, 0, ours, sizeof(ours), &a) || a.count != 512)
		return 1;
	proc_pagemap(start, start + PMD, theirs);
	if (memcmp(ours, theirs, sizeof(ours)))
		return 2;
	if (pagemap_call(dev, start, start + PMD, KMEM_RO_PAGEMAP_RUNS, runs, sizeof(runs), &a))
		return 3;
	for (uint64_t i = 0; i < a.count; i++)
		for (uint64_t j = 0; j < runs[i].pages; j++, pos++)
			if (pos >= 512 || (runs[i].flags | (runs[i].frame + j)) != theirs[pos])
				return 4;
	*excl = 0;
	for (int i = 0; i < 512; i++)
		*excl += !!(theirs[i] & KMEM_RO_PM_EXCLUSIVE);
	return pos == 512 && is_pmd_mapped(theirs) ? 0 : 5;
}

START_TEST(thp_shared_with_child)
{
	char *p = map_or_die(3 * PMD, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1);
	int dev = vt_open_dev(), go[2], done[2], status;
	uint64_t excl;
	char c = 0;
	pid_t child;

	p = (char *)(((uintptr_t)p + PMD - 1) & ~(PMD - 1));
	madvise(p, PMD, MADV_HUGEPAGE);
	memset(p, 1, PMD);
	ck_assert_int_eq(thp_matches_proc(dev, p, &excl), 0);
	ck_assert_uint_eq(excl, 512);
	ck_assert_int_eq(pipe(go), 0);
	ck_assert_int_eq(pipe(done), 0);
	child = fork();
	ck_assert_int_ge(child, 0);
	if (child == 0) {
		/* each step on the parent's word, then tell it */
		if (read(go[0], &c, 1) != 1 || mprotect(p, 64 * PAGE, PROT_READ) ||
		    write(done[1], &c, 1) != 1 || read(go[0], &c, 1) != 1 ||
		    munmap(p, 64 * PAGE) || write(done[1], &c, 1) != 1)
			_exit(1);
		_exit(read(go[0], &c, 1) == 1 ? 0 : 2);
	}
	ck_assert_int_eq(thp_matches_proc(dev, p, &excl), 0);
	ck_assert_uint_eq(excl, 0);
	for (int step = 0; step < 2; step++) {
		ck_assert_int_eq(write(go[1], &c, 1), 1);
		ck_assert_int_eq(read(done[0], &c, 1), 1);
		ck_assert_int_eq(thp_matches_proc(dev, p, &excl), 0);
		printf("pagemap: THP shared, child step %d: %llu exclusive pages\n", step,
		       (unsigned long long)excl);
		/*
		 * The child dropped its PTEs of pages 0-63: 6.12 to 6.14 ask
		 * each page, so those 64 are exclusive; 6.1 and since 6.15
		 * the PMD's first page answers for all 512.
		 */
		ck_assert_uint_eq(excl, step == 0 ? 0 : vt_kernel_at_least(6, 12) &&
					!vt_kernel_at_least(6, 15) ? 64 : 512);
	}
	ck_assert_int_eq(write(go[1], &c, 1), 1);
	ck_assert_int_eq(waitpid(child, &status, 0), child);
	ck_assert_int_eq(status, 0);
	close(dev);
}
END_TEST

/*
 * More runs than the driver gathers per lock hold (128): every other page
 * touched, 1025 runs in one call, expanded equal to /proc/self/pagemap.
 * 1025: the last run comes when the kernel buffer has just filled.
 */
START_TEST(many_runs_in_one_call)
{
	enum { PAGES = 1025 };
	static struct kmem_ro_pagemap_run runs[PAGES];
	static uint64_t theirs[PAGES];
	char *p = map_or_die(PAGES * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1);
	uint64_t start = (uintptr_t)p, pos = 0;
	struct kmem_ro_pagemap a;
	int dev = vt_open_dev();

	madvise(p, PAGES * PAGE, MADV_NOHUGEPAGE);
	for (int i = 0; i < PAGES; i += 2)
		p[i * PAGE] = 1;
	ck_assert_int_eq(pagemap_call(dev, start, start + PAGES * PAGE, KMEM_RO_PAGEMAP_RUNS,
				      runs, sizeof(runs), &a), 0);
	proc_pagemap(start, start + PAGES * PAGE, theirs);
	ck_assert_uint_eq(a.count, PAGES);
	ck_assert_uint_eq(a.walk_end, start + PAGES * PAGE);
	for (uint64_t i = 0; i < a.count; i++) {
		ck_assert_uint_eq(runs[i].start, start + pos * PAGE);
		for (uint64_t j = 0; j < runs[i].pages; j++, pos++)
			ck_assert_uint_eq(runs[i].flags | (runs[i].frame ? runs[i].frame + j : 0),
					  theirs[pos]);
	}
	ck_assert_uint_eq(pos, PAGES);
	munmap(p, PAGES * PAGE);
	close(dev);
}
END_TEST

/* ---- how long the target's mmap_lock is held ---- */

/*
 * Another thread of the walked process maps and unmaps a page in a loop
 * while @measuring (each call an mmap_lock writer) and keeps its slowest
 * mmap().
 */
struct mapper {
	pthread_t thread;
	volatile int measuring, quit;
	double worst_ms;
	long calls;
};

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Only the calling thread on CPU 0. */
static int pin_to_cpu0(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static void *mapper_loop(void *arg)
{
	struct mapper *m = arg;

	if (pin_to_cpu0())
		return (void *)1;
	while (!m->quit) {
		double t;
		void *p;

		/* a waking thread preempts the walker */
		usleep(1000);
		if (!m->measuring)
			continue;
		t = now_ms();
		p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		t = now_ms() - t;
		if (p == MAP_FAILED)
			return (void *)1;
		munmap(p, PAGE);
		if (t > m->worst_ms)
			m->worst_ms = t;
		m->calls++;
	}
	return NULL;
}

#define ZERO_SPAN	(8ULL << 30)
#define PROC_CHUNK	(8UL << 20)	/* entries per pread: 4 GiB of pages */
#define LOCK_ROUNDS	5

static int walk_proc(int dev, const char *p)
{
	static uint64_t entries[PROC_CHUNK / 8];
	int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	uint64_t at;
	ssize_t n = sizeof(entries);

	(void)dev;
	if (fd < 0)
		return 32;
	for (at = (uintptr_t)p; at < (uintptr_t)p + ZERO_SPAN && n == sizeof(entries);
	     at += sizeof(entries) / 8 * PAGE)
		n = pread(fd, entries, sizeof(entries), at / PAGE * 8);
	close(fd);
	return n == (ssize_t)sizeof(entries) && (entries[0] & KMEM_RO_PM_PRESENT) ? 0 : 33;
}

static int walk_runs(int dev, const char *p)
{
	struct kmem_ro_pagemap_run run[4];
	struct kmem_ro_pagemap a;

	if (pagemap_call(dev, (uintptr_t)p, (uintptr_t)p + ZERO_SPAN, KMEM_RO_PAGEMAP_RUNS,
			 run, sizeof(run), &a))
		return 34;
	/* frames hidden: all of it one present run, the zero page's */
	return a.count == 1 && run[0].pages == ZERO_SPAN / PAGE &&
	       (run[0].flags & KMEM_RO_PM_PRESENT) && !run[0].frame &&
	       a.walk_end == (uintptr_t)p + ZERO_SPAN ? 0 : 35;
}

/* The slowest mmap() of the mapper while @walk runs once. */
static int worst_mmap_during(struct mapper *m, int (*walk)(int dev, const char *p), int dev,
			     const char *p, double *worst_ms, double *walk_ms)
{
	int err;

	m->worst_ms = 0;
	m->calls = 0;
	m->measuring = 1;
	usleep(5000);
	*walk_ms = now_ms();
	err = walk(dev, p);
	*walk_ms = now_ms() - *walk_ms;
	m->measuring = 0;
	usleep(5000);
	*worst_ms = m->worst_ms;
	return err ? err : m->calls < 2 ? 31 : 0;
}

/*
 * As a caller without CAP_SYS_ADMIN (frames hidden, so every page extends
 * the one run): 8 GiB of read-faulted anonymous memory, every PTE the
 * zero page (the guest has 1 GiB of RAM), walked in runs while another
 * thread maps and unmaps a page.  The kernel's pagemap holds the lock per
 * PMD.  Both threads share CPU 0, the walker at nice 19: single-threaded
 * TCG runs the guest's CPUs in turn, up to 100 ms each, so a mapper on
 * the other CPU might not run during a walk at all; here it preempts the
 * walker at once and waits on the lock.  A TCG guest on a busy host also
 * stalls for tens of milliseconds at random, so each way is timed in
 * LOCK_ROUNDS interleaved rounds and judged by its quietest round (the
 * least worst stall): a lock held for the whole walk, as the old driver
 * held it, stalls the writer that long in every round.
 */
static int lock_holds_as_user(void *unused)
{
	double proc = 1e9, ours = 1e9, proc_walk = 0, ours_walk = 0, w, t;
	int dev = open(KMEM_RO_DEVICE, O_RDONLY), err;
	struct mapper m = { 0 };
	void *ret;
	char *p;

	(void)unused;
	prctl(PR_SET_DUMPABLE, 1);	/* our own /proc/self/pagemap */
	if (dev < 0)
		return 100;
	p = mmap(NULL, ZERO_SPAN, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return 20;
	/* PTEs of the zero page, not the huge zero page's PMDs */
	if (madvise(p, ZERO_SPAN, MADV_NOHUGEPAGE) || madvise(p, ZERO_SPAN, MADV_POPULATE_READ))
		return 21;
	err = walk_proc(dev, p);	/* fault in its buffer */
	if (err || pin_to_cpu0() || pthread_create(&m.thread, NULL, mapper_loop, &m))
		return err ? err : 30;
	for (int round = 0; round < LOCK_ROUNDS && !err; round++) {
		err = worst_mmap_during(&m, walk_proc, dev, p, &w, &t);
		proc = w < proc ? w : proc;
		proc_walk += t / LOCK_ROUNDS;
		if (!err)
			err = worst_mmap_during(&m, walk_runs, dev, p, &w, &t);
		ours = w < ours ? w : ours;
		ours_walk += t / LOCK_ROUNDS;
	}
	m.quit = 1;
	pthread_join(m.thread, &ret);
	if (err || ret)
		return err ? err : 31;
	printf("@@PAGEMAP_LOCK worst mmap (quietest of %d rounds): %.2f ms during PAGEMAP "
	       "runs (walk %.1f ms), %.2f ms during /proc/self/pagemap (walk %.1f ms): %.1fx\n",
	       LOCK_ROUNDS, ours, ours_walk, proc, proc_walk, ours / proc);
	fflush(stdout);
	/* 4x, and 5 ms for a timer tick or two (HZ=250) */
	return ours <= 4 * proc + 5.0 ? 0 : 40;
}

START_TEST(runs_bound_lock_holds_as_user)
{
	ck_assert_int_eq(vt_run_as_monitor(lock_holds_as_user, NULL), 0);
}
END_TEST

/* ---- a killed caller ---- */

/*
 * PAGEMAP RUNS with every frame hidden: a growing run takes no room, so
 * nothing but the range ends the call.  The walker, root without
 * CAP_SYS_ADMIN (frames hidden; CAP_SYS_PTRACE walks another process),
 * walks the 8 GiB of zero-page PTEs of a target process that waits; it
 * shares CPU 0 with a busy process at nice 15 (single-threaded TCG walks
 * 8 GiB in a fraction of a second: under that load the walk takes
 * seconds, and the walker's own exit stays small, its mm being tiny).
 * Once uninterrupted (its length printed), once SIGKILLed an eighth of
 * the way in: the kill must reap it within half the whole walk (a hang
 * guard), where a walk that ignores the kill goes on to the end.
 */
#define KILL_NICE	15

struct kill_walk {
	pid_t target;
	uint64_t start;
};

static int walk_target_runs(int dev, const struct kill_walk *k, struct kmem_ro_pagemap *a)
{
	struct kmem_ro_pagemap_run run[4];

	*a = (struct kmem_ro_pagemap){
		.size = sizeof(*a), .flags = KMEM_RO_PAGEMAP_RUNS, .pid = k->target,
		.start = k->start, .end = k->start + ZERO_SPAN,
		.buf_addr = (uintptr_t)run, .buf_size = sizeof(run),
	};
	if (vt_ioctl(dev, KMEM_RO_IOC_PAGEMAP, a))
		return 1;
	return a->count == 1 && run[0].pages == ZERO_SPAN / PAGE && !run[0].frame ? 0 : 2;
}

/* Pinned to CPU 0 at KILL_NICE, behind the busy process. */
static int slow_walker_setup(void)
{
	return pin_to_cpu0() || setpriority(PRIO_PROCESS, 0, KILL_NICE);
}

static int killed_walk(void *arg)
{
	const struct kill_walk *k = arg;
	int dev = open(KMEM_RO_DEVICE, O_RDONLY | O_CLOEXEC), go[2], status;
	struct kmem_ro_pagemap a;
	double full, t;
	cpu_set_t cpu1;
	pid_t w;
	char c;

	if (dev < 0)
		return 100;
	CPU_ZERO(&cpu1);
	CPU_SET(1, &cpu1);
	if (pipe(go))
		return 101;
	/* uninterrupted, in a walker like the one killed below */
	w = fork();
	if (w == 0) {
		_exit(slow_walker_setup() ? 50 : walk_target_runs(dev, k, &a));
	}
	t = now_ms();
	if (w < 0 || waitpid(w, &status, 0) != w || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return 102;
	full = now_ms() - t;
	if (full < 1000)
		return 103;	/* too short to tell a kill from the end */
	/* the controller on the other CPU: it kills on time */
	if (sched_setaffinity(0, sizeof(cpu1), &cpu1))
		return 104;
	w = fork();
	if (w == 0) {
		if (slow_walker_setup() || write(go[1], "g", 1) != 1)
			_exit(50);
		/*
		 * Again and again: one walk may take far less than the timed
		 * one (a debug kernel's first walk over 8 GiB took 300 s of a
		 * loaded host, the next under 40 s), and a walk that ended
		 * before the kill would prove nothing.
		 */
		while (!walk_target_runs(dev, k, &a))
			;
		_exit(0);
	}
	if (w < 0 || read(go[0], &c, 1) != 1)
		return 105;
	usleep((useconds_t)(full / 8 * 1000));
	t = now_ms();
	if (kill(w, SIGKILL))
		return 106;
	if (vt_wait_child(w, (int)(full / 2), &status)) {
		printf("@@PAGEMAP_KILL walker still in PAGEMAP %.0f ms after SIGKILL (whole walk "
		       "%.0f ms)\n", full / 2, full);
		fflush(stdout);
		kill(w, SIGKILL);
		waitpid(w, &status, 0);
		return 107;
	}
	t = now_ms() - t;
	printf("@@PAGEMAP_KILL RUNS over 8 GiB of zero-page PTEs under load: %.0f ms whole; "
	       "killed at 1/8, reaped in %.0f ms\n", full, t);
	fflush(stdout);
	return WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL ? 0 : 108;
}

START_TEST(killed_walk_returns)
{
	struct kill_walk k;
	int ready[2], status;
	pid_t busy;
	char c;
	char *p;

	/* the target: 8 GiB of zero-page PTEs, then it waits to be killed */
	ck_assert_int_eq(pipe(ready), 0);
	k.target = fork();
	ck_assert_int_ge(k.target, 0);
	if (k.target == 0) {
		p = mmap(NULL, ZERO_SPAN, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
			 -1, 0);
		if (p == MAP_FAILED || madvise(p, ZERO_SPAN, MADV_NOHUGEPAGE) ||
		    madvise(p, ZERO_SPAN, MADV_POPULATE_READ))
			_exit(1);
		k.start = (uintptr_t)p;
		if (write(ready[1], &k.start, sizeof(k.start)) != sizeof(k.start))
			_exit(2);
		pause();
		_exit(0);
	}
	ck_assert_int_eq(read(ready[0], &k.start, sizeof(k.start)), sizeof(k.start));
	busy = fork();
	ck_assert_int_ge(busy, 0);
	if (busy == 0) {
		if (pin_to_cpu0())
			_exit(1);
		for (;;)
			;
	}
	status = vt_run_as(0, 0, CAP_SYS_ADMIN, killed_walk, &k);
	kill(busy, SIGKILL);
	kill(k.target, SIGKILL);
	waitpid(busy, NULL, 0);
	waitpid(k.target, NULL, 0);
	(void)c;
	ck_assert_int_eq(status, 0);
}
END_TEST

/* ---- who may ask, and bad input ---- */

static int other_process(void *unused)
{
	uint64_t buf[4];
	struct kmem_ro_pagemap a = {
		.size = sizeof(a), .pid = 1, .start = 0x400000, .end = 0x404000,
		.buf_addr = (uintptr_t)buf, .buf_size = sizeof(buf),
	};
	int dev = open(KMEM_RO_DEVICE, O_RDONLY);

	(void)unused;
	if (dev < 0)
		return 100;
	return ioctl(dev, KMEM_RO_IOC_PAGEMAP, &a) ? errno : 0;
}

START_TEST(permissions)
{
	uint64_t buf[4];
	struct kmem_ro_pagemap a;
	int dev = vt_open_dev(), status;
	pid_t zombie;

	/* init as root: allowed; as nobody (in the device group): EPERM */
	ck_assert_int_eq(pagemap_call(dev, 0x400000, 0x404000, 0, buf, sizeof(buf), &a), 0);
	a.pid = 1;
	ck_assert_int_eq(vt_ioctl(dev, KMEM_RO_IOC_PAGEMAP, &a), 0);
	ck_assert_int_eq(vt_run_as_monitor(other_process, NULL), EPERM);
	/* a kernel thread, a zombie, nobody at all */
	a.pid = 2;	/* kthreadd */
	ck_assert_int_eq(vt_ioctl(dev, KMEM_RO_IOC_PAGEMAP, &a), -ESRCH);
	zombie = fork();
	if (!zombie)
		_exit(0);
	usleep(200000);
	a.pid = zombie;
	ck_assert_int_eq(vt_ioctl(dev, KMEM_RO_IOC_PAGEMAP, &a), -ESRCH);
	waitpid(zombie, &status, 0);
	a.pid = 4000000;
	ck_assert_int_eq(vt_ioctl(dev, KMEM_RO_IOC_PAGEMAP, &a), -ESRCH);
	close(dev);
}
END_TEST

START_TEST(bad_input)
{
	uint64_t buf[4];
	struct kmem_ro_pagemap a;
	int dev = vt_open_dev();

#define EXPECT(errno_, stmt) do {						\
		pagemap_call(dev, 0x400000, 0x404000, 0, buf, sizeof(buf), &a);	\
		stmt;								\
		ck_assert_int_eq(vt_ioctl(dev, KMEM_RO_IOC_PAGEMAP, &a), errno_); \
	} while (0)

	EXPECT(0, (void)0);
	EXPECT(-EINVAL, a.start = 0x404000; a.end = 0x400000);		/* reversed */
	EXPECT(-EINVAL, a.end = a.start);				/* empty */
	EXPECT(-EINVAL, a.start = 0x400001);				/* unaligned */
	EXPECT(-EINVAL, a.end = 0x8000000000000000ULL);			/* beyond user space */
	EXPECT(-EINVAL, a.start = 0xffff800000000000ULL; a.end = 0xffff800000004000ULL);
	EXPECT(-EINVAL, a.flags = 2);
	EXPECT(-EINVAL, a.reserved0 = 1);
	EXPECT(-EINVAL, a.reserved[1] = 1);
	EXPECT(-EINVAL, a.buf_size = 7);
	EXPECT(-EINVAL, a.flags = KMEM_RO_PAGEMAP_RUNS; a.buf_size = 31);
	EXPECT(-EINVAL, a.buf_addr = 0);
	EXPECT(-EFAULT, a.buf_addr = 0x10);
	EXPECT(-EINVAL, a.size = KMEM_RO_PAGEMAP_SIZE_VER0 - 8);
#undef EXPECT
	close(dev);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pagemap");
	TCase *tc = tcase_create("entries");

	tcase_add_test(tc, flat_runs_resume_match_proc_as_root);
	tcase_add_test(tc, flat_runs_resume_match_proc_as_user);
	tcase_add_test(tc, sparse_64g_in_few_runs);
	tcase_add_test(tc, thp_shared_with_child);
	tcase_add_test(tc, many_runs_in_one_call);
	suite_add_tcase(s, tc);

	tc = tcase_create("locking");
	tcase_add_test(tc, runs_bound_lock_holds_as_user);
	tcase_add_test(tc, killed_walk_returns);
	tcase_set_timeout(tc, 300);
	suite_add_tcase(s, tc);

	tc = tcase_create("rules");
	tcase_add_test(tc, permissions);
	tcase_add_test(tc, bad_input);
	suite_add_tcase(s, tc);
	return vt_main(s);
}
