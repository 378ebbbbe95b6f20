// SPDX-License-Identifier: GPL-2.0
/*
 * libkcore-pread-trace.so: an LD_PRELOAD recorder of every pread() a
 * program makes, for kcore_preload_bench.  Put first in LD_PRELOAD, it
 * sees the program's calls before libkmemdev-kcore.so does.  With
 * PREAD_TRACE=FILE it writes, at exit, one line per call:
 * "START_NS FD OFFSET LENGTH RESULT" (CLOCK_MONOTONIC, as Python's
 * time.perf_counter_ns(): the bench keeps the calls inside a walk).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define TRACE_MAX	(1U << 18)

struct call {
	uint64_t t;
	int64_t off;
	uint64_t len;
	int64_t ret;
	int fd;
};

static struct call *calls;
static unsigned int nr;

static ssize_t (*real_pread64)(int, void *, size_t, off_t);

__attribute__((constructor)) static void trace_init(void)
{
	void *p;

	real_pread64 = (ssize_t (*)(int, void *, size_t, off_t))dlsym(RTLD_NEXT, "pread64");
	if (!getenv("PREAD_TRACE"))
		return;
	p = mmap(NULL, TRACE_MAX * sizeof(*calls), PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p != MAP_FAILED)
		calls = p;
}

__attribute__((destructor)) static void trace_write(void)
{
	const char *path = getenv("PREAD_TRACE");
	FILE *f;

	if (!calls || !path)
		return;
	f = fopen(path, "we");
	if (!f)
		return;
	for (unsigned int i = 0; i < nr; i++)
		fprintf(f, "%ju %d %jd %ju %jd\n", (uintmax_t)calls[i].t, calls[i].fd,
			(intmax_t)calls[i].off, (uintmax_t)calls[i].len, (intmax_t)calls[i].ret);
	fclose(f);
}

static ssize_t traced(int fd, void *buf, size_t n, off_t off)
{
	struct timespec ts;
	ssize_t ret;
	uint64_t t;

	if (!calls || nr >= TRACE_MAX)
		return real_pread64(fd, buf, n, off);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	t = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	ret = real_pread64(fd, buf, n, off);
	calls[nr++] = (struct call){ .t = t, .fd = fd, .off = off, .len = n, .ret = ret };
	return ret;
}

__attribute__((visibility("default"))) ssize_t pread64(int fd, void *buf, size_t n, off_t off)
{
	return traced(fd, buf, n, off);
}

__attribute__((visibility("default"))) ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	return traced(fd, buf, n, off);
}

__attribute__((visibility("default"))) ssize_t __pread64_chk(int fd, void *buf, size_t n,
							     off_t off, size_t buflen)
{
	if (n > buflen)
		abort();
	return traced(fd, buf, n, off);
}

__attribute__((visibility("default"))) ssize_t __pread_chk(int fd, void *buf, size_t n,
							   off_t off, size_t buflen)
{
	if (n > buflen)
		abort();
	return traced(fd, buf, n, off);
}
