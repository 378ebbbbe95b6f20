// SPDX-License-Identifier: GPL-2.0
/*
 * libkcore-memory.so: an LD_PRELOAD that serves a program's /proc/kcore
 * pread() calls from memory already in the process, for
 * kcore_preload_bench's ceiling: drgn's walk with reads that cost nothing
 * but a compare and a copy, what no transport can beat.
 *
 *  KCORE_MEMORY_RECORD=FILE: each pread() of /proc/kcore goes to the
 *	kernel and is kept (when it started, offset, length, result, bytes);
 *	at exit FILE holds them all, in order.
 *  KCORE_MEMORY=FILE: FILE is read into memory when the library loads;
 *	a pread() of /proc/kcore whose offset and length are the next
 *	recorded read's (or any recorded read's, found by hash) gets that
 *	read's result and bytes, with no system call; any other goes to the
 *	kernel and counts as missed.  At exit FILE.stats says
 *	"served N missed M".
 *
 * A file is /proc/kcore if it is the same inode (checked once per fd;
 * close() forgets it).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "kcore_memory.h"

#define ARENA_MAX	(256UL << 20)	/* recorded bytes and headers */
#define HASH_BITS	16

static ssize_t (*real_pread64)(int, void *, size_t, off_t);
static int (*real_close)(int);

static dev_t kcore_dev;
static ino_t kcore_ino;
static int kcore_fd = -1;	/* the fd last found to be /proc/kcore */

static bool recording;
static unsigned char *arena;	/* records, each header then its bytes */
static size_t used;

static struct kcore_memory_read **rec;	/* serving: the records in order */
static unsigned int nrec, cursor;
static unsigned int hash[1U << HASH_BITS];	/* index + 1 of a record; 0: none */
static unsigned long long served, missed;

static unsigned int hash_of(int64_t off, uint64_t len)
{
	return (unsigned int)(((uint64_t)off * 0x9E3779B97F4A7C15ULL ^ len) >> (64 - HASH_BITS));
}

static void load(const char *path)
{
	FILE *f = fopen(path, "re");
	long size;
	size_t at = 0;

	if (!f || fseek(f, 0, SEEK_END) || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET))
		abort();
	arena = malloc((size_t)size + 1);
	rec = calloc((size_t)size / sizeof(**rec) + 1, sizeof(*rec));
	if (!arena || !rec || fread(arena, 1, (size_t)size, f) != (size_t)size)
		abort();
	fclose(f);
	while (at + sizeof(**rec) <= (size_t)size) {
		struct kcore_memory_read *r = (void *)(arena + at);
		unsigned int h = hash_of(r->off, r->len);

		/* a slot holds the first read of its key; others go by cursor only */
		while (hash[h] && (rec[hash[h] - 1]->off != r->off || rec[hash[h] - 1]->len != r->len))
			h = (h + 1) & ((1U << HASH_BITS) - 1);
		if (!hash[h])
			hash[h] = nrec + 1;
		rec[nrec++] = r;
		at += kcore_memory_size(r);
	}
}

__attribute__((constructor)) static void memory_init(void)
{
	const char *serve = getenv("KCORE_MEMORY");
	struct stat st;

	real_pread64 = (ssize_t (*)(int, void *, size_t, off_t))dlsym(RTLD_NEXT, "pread64");
	real_close = (int (*)(int))dlsym(RTLD_NEXT, "close");
	if (stat("/proc/kcore", &st))
		return;
	kcore_dev = st.st_dev;
	kcore_ino = st.st_ino;
	if (getenv("KCORE_MEMORY_RECORD")) {
		void *p = mmap(NULL, ARENA_MAX, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

		if (p == MAP_FAILED)
			abort();
		arena = p;
		recording = true;
	} else if (serve) {
		load(serve);
	}
}

__attribute__((destructor)) static void memory_exit(void)
{
	const char *path = getenv(recording ? "KCORE_MEMORY_RECORD" : "KCORE_MEMORY");
	char stats[4096];
	FILE *f;

	if (!path || !arena)
		return;
	if (recording) {
		f = fopen(path, "we");
		if (f && fwrite(arena, 1, used, f) != used)
			abort();
	} else {
		snprintf(stats, sizeof(stats), "%s.stats", path);
		f = fopen(stats, "we");
		if (f)
			fprintf(f, "served %llu missed %llu\n", served, missed);
	}
	if (!f || fclose(f))
		abort();
}

static bool is_kcore(int fd)
{
	struct stat st;

	if (fd == kcore_fd)
		return true;
	if (!arena || fstat(fd, &st) || st.st_dev != kcore_dev || st.st_ino != kcore_ino)
		return false;
	kcore_fd = fd;
	return true;
}

static ssize_t record(int fd, void *buf, size_t n, off_t off)
{
	struct kcore_memory_read *r = (void *)(arena + used);
	struct timespec ts;

	if (used + sizeof(*r) + n + 8 > ARENA_MAX)
		abort();
	clock_gettime(CLOCK_MONOTONIC, &ts);
	r->t = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	r->off = off;
	r->len = n;
	r->ret = real_pread64(fd, buf, n, off);
	r->err = r->ret < 0 ? errno : 0;
	if (r->ret > 0)
		memcpy(r + 1, buf, (size_t)r->ret);
	used += kcore_memory_size(r);
	return r->ret;
}

static ssize_t serve(int fd, void *buf, size_t n, off_t off)
{
	struct kcore_memory_read *r = cursor < nrec ? rec[cursor] : NULL;

	if (!r || r->off != off || r->len != n) {
		unsigned int h = hash_of(off, n);

		r = NULL;
		for (; hash[h]; h = (h + 1) & ((1U << HASH_BITS) - 1))
			if (rec[hash[h] - 1]->off == off && rec[hash[h] - 1]->len == n) {
				cursor = hash[h] - 1;
				r = rec[cursor];
				break;
			}
		if (!r) {
			missed++;
			return real_pread64(fd, buf, n, off);
		}
	}
	cursor++;
	served++;
	if (r->ret > 0)
		memcpy(buf, r + 1, (size_t)r->ret);
	else if (r->ret < 0)
		errno = (int)r->err;
	return r->ret;
}

static ssize_t kcore_pread(int fd, void *buf, size_t n, off_t off)
{
	if (!is_kcore(fd))
		return real_pread64(fd, buf, n, off);
	return recording ? record(fd, buf, n, off) : serve(fd, buf, n, off);
}

__attribute__((visibility("default"))) int close(int fd)
{
	if (fd == kcore_fd)
		kcore_fd = -1;
	return real_close(fd);
}

__attribute__((visibility("default"))) ssize_t pread64(int fd, void *buf, size_t n, off_t off)
{
	return kcore_pread(fd, buf, n, off);
}

__attribute__((visibility("default"))) ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	return kcore_pread(fd, buf, n, off);
}

__attribute__((visibility("default"))) ssize_t __pread64_chk(int fd, void *buf, size_t n,
							     off_t off, size_t buflen)
{
	if (n > buflen)
		abort();
	return kcore_pread(fd, buf, n, off);
}

__attribute__((visibility("default"))) ssize_t __pread_chk(int fd, void *buf, size_t n,
							   off_t off, size_t buflen)
{
	if (n > buflen)
		abort();
	return kcore_pread(fd, buf, n, off);
}
