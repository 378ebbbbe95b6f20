// SPDX-License-Identifier: GPL-2.0
/*
 * 8-byte reads at random kernel addresses (text and direct-mapped RAM):
 * through a kmem_ro mapping, through libkmemdev's kmemdev_read(), with
 * pread() on /proc/kcore, and with READV, 256 segments a call - the same
 * addresses, in the same run.  The methods take turns (ROUNDS rounds, the
 * best of each), so that load from the rest of a shared machine hits them
 * alike.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "bench.h"
#include "kmemdev.h"

#define SEGS		256		/* READV segments a call */
#define READS		(400 * SEGS)
#define COUNTED_READS	(8 * SEGS)
#define ROUNDS		10

struct target {
	uint64_t kaddr;		/* kernel virtual address */
	off_t kcore_off;	/* its offset in /proc/kcore */
	const char *mapped;	/* its address in our mapping */
	const char *user;	/* same offset in ordinary process memory */
};

struct workload {
	struct target *t;
	struct kmemdev *h;
	int kcore;
	struct kmem_ro_iov *iov;	/* READS segments, SEGS a call */
	uint64_t *val;			/* where they land */
	uint64_t sink;
};

static Elf64_Phdr *kcore_phdrs(int fd, int *n)
{
	Elf64_Ehdr eh;
	Elf64_Phdr *ph;

	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh))
		return NULL;
	ph = calloc(eh.e_phnum, sizeof(*ph));
	if (!ph || pread(fd, ph, eh.e_phnum * sizeof(*ph), eh.e_phoff) !=
		   (ssize_t)(eh.e_phnum * sizeof(*ph)))
		return NULL;
	*n = eh.e_phnum;
	return ph;
}

static off_t kcore_offset(const Elf64_Phdr *ph, int n, uint64_t vaddr)
{
	for (int i = 0; i < n; i++)
		if (ph[i].p_type == PT_LOAD && vaddr >= ph[i].p_vaddr &&
		    vaddr + 8 <= ph[i].p_vaddr + ph[i].p_memsz)
			return ph[i].p_offset + (vaddr - ph[i].p_vaddr);
	return -1;
}

/* 8-byte loads through the pointers at @field of each target */
static void read_pointers(struct workload *w, long n, size_t field)
{
	uint64_t v, sum = 0;

	for (long i = 0; i < n; i++) {
		memcpy(&v, *(const char **)((char *)&w->t[i] + field), 8);
		sum += v;
	}
	w->sink += sum;
}

static void read_mmap(void *arg, long n)
{
	read_pointers(arg, n, offsetof(struct target, mapped));
}

/* the floor: the same access pattern over this process's own memory */
static void read_user(void *arg, long n)
{
	read_pointers(arg, n, offsetof(struct target, user));
}


static void read_library(void *arg, long n)
{
	struct workload *w = arg;
	uint64_t v, sum = 0;

	for (long i = 0; i < n; i++) {
		if (kmemdev_read(w->h, w->t[i].kaddr, &v, 8))
			abort();
		sum += v;
	}
	w->sink += sum;
}

static void read_kcore(void *arg, long n)
{
	struct workload *w = arg;
	uint64_t v, sum = 0;

	for (long i = 0; i < n; i++) {
		if (pread(w->kcore, &v, 8, w->t[i].kcore_off) != 8)
			abort();
		sum += v;
	}
	w->sink += sum;
}

/* @n reads (a multiple of SEGS), SEGS segments a READV */
static void read_readv(void *arg, long n)
{
	struct workload *w = arg;
	uint64_t sum = 0;

	for (long i = 0; i < n; i += SEGS) {
		if (kmemdev_readv(w->h, w->iov + i, SEGS, NULL))
			abort();
		for (long k = i; k < i + SEGS; k++) {
			if (w->iov[k].result != 8)
				abort();
			sum += w->val[k];
		}
	}
	w->sink += sum;
}

enum method { M_USER, M_MMAP, M_LIB, M_KCORE, M_READV, M_COUNT };

static void (*const method_fn[M_COUNT])(void *, long) = {
	read_user, read_mmap, read_library, read_kcore, read_readv,
};

/*
 * ns per read of each method, the best of ROUNDS rounds taken in turn,
 * after one warm pass each (the first touch of a page faults it in).
 */
static void ns_per_read(struct workload *w, double ns[M_COUNT])
{
	for (int m = 0; m < M_COUNT; m++) {
		method_fn[m](w, READS);
		ns[m] = 1e300;
	}
	for (int r = 0; r < ROUNDS; r++)
		for (int m = 0; m < M_COUNT; m++) {
			uint64_t t0 = bench_ns();
			double t;

			method_fn[m](w, READS);
			t = (double)(bench_ns() - t0) / READS;
			if (t < ns[m])
				ns[m] = t;
		}
}

int main(void)
{
	struct workload w = { 0 };
	struct kmem_ro_range ram[64];
	KMEMDEV_ARG(kmem_ro_info, info);
	const char *accel = getenv("VM_ACCEL") ? getenv("VM_ACCEL") : "unknown";
	struct utsname u;
	uint64_t text_len, ram_len, ram_phys;
	const char *text_map, *ram_map;
	char *user_text, *user_ram;
	double ns[M_COUNT], sc[M_COUNT];
	Elf64_Phdr *ph;
	int fd, nph, n;

	if (bench_mmap_ram_on() || kmemdev_open(&w.h, NULL) ||
	    kmemdev_info(w.h, &info, ram, 64) < 1) {
		fprintf(stderr, "mmap_bench: cannot open /dev/kmem_ro\n");
		return 1;
	}
	fd = kmemdev_fd(w.h);
	w.kcore = open("/proc/kcore", O_RDONLY);
	ph = kcore_phdrs(w.kcore, &nph);
	if (w.kcore < 0 || !ph)
		return 1;

	/* text, and the largest RAM range (capped at 256 MiB) */
	text_len = info.text_end - info.text_start;
	text_map = mmap(NULL, text_len, PROT_READ, MAP_SHARED, fd,
			info.text_start - info.kernel_map + info.phys_base);
	for (n = 0, ram_len = 0, ram_phys = 0; n < (int)info.ram_count && n < 64; n++)
		if (ram[n].end - ram[n].start > ram_len) {
			ram_phys = (ram[n].start + 4095) & ~4095ULL;
			ram_len = ((ram[n].end & ~4095ULL) - ram_phys);
		}
	if (ram_len > (256ULL << 20))
		ram_len = 256ULL << 20;
	ram_map = mmap(NULL, ram_len, PROT_READ, MAP_SHARED, fd, ram_phys);
	user_text = mmap(NULL, text_len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	user_ram = mmap(NULL, ram_len, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (text_map == MAP_FAILED || ram_map == MAP_FAILED ||
	    user_text == MAP_FAILED || user_ram == MAP_FAILED)
		return 1;

	w.t = calloc(READS, sizeof(*w.t));
	w.iov = calloc(READS, sizeof(*w.iov));
	w.val = calloc(READS, sizeof(*w.val));
	if (!w.t || !w.iov || !w.val)
		return 1;
	uname(&u);
	for (int hot = 0; hot <= 1; hot++) {
		/*
		 * random: anywhere in text and 256 MiB of RAM, so nearly every
		 * read misses the TLB.  hot: 64 pages, so none does.
		 */
		uint64_t text_span = hot ? 32 * 4096 : text_len - 8;
		uint64_t ram_span = hot ? 32 * 4096 : ram_len - 8;

		srand(42);
		for (long i = 0; i < READS; i++) {
			uint64_t r = ((uint64_t)rand() << 31 | rand()) & ~7ULL;
			uint64_t off = r % (i & 1 ? text_span : ram_span);

			if (i & 1) {
				w.t[i].kaddr = info.text_start + off;
				w.t[i].mapped = text_map + off;
				w.t[i].user = user_text + off;
			} else {
				w.t[i].kaddr = info.page_offset + ram_phys + off;
				w.t[i].mapped = ram_map + off;
				w.t[i].user = user_ram + off;
			}
			w.t[i].kcore_off = kcore_offset(ph, nph, w.t[i].kaddr);
			if (w.t[i].kcore_off < 0)
				return 1;
			w.iov[i] = (struct kmem_ro_iov){
				.addr = w.t[i].kaddr,
				.len = 8,
				.buf = (uintptr_t)&w.val[i],
			};
		}
		ns_per_read(&w, ns);
		for (int m = 0; m < M_COUNT; m++)
			sc[m] = bench_syscalls_per_op(method_fn[m], &w, COUNTED_READS);
		printf("bench mmap_read kernel=%s accel=%s reads=%d rounds=%d addresses=%s"
		       " user_memory_ns=%.1f mmap_ns=%.1f kmemdev_read_ns=%.1f kcore_pread_ns=%.1f"
		       " ratio_mmap=%.1f ratio_kmemdev_read=%.1f"
		       " syscalls_per_read_mmap=%.3f syscalls_per_read_kmemdev_read=%.3f"
		       " syscalls_per_read_kcore=%.3f\n",
		       u.release, accel, READS, ROUNDS,
		       hot ? "hot-64-pages" : "random-text+256MiB-ram",
		       ns[M_USER], ns[M_MMAP], ns[M_LIB], ns[M_KCORE],
		       ns[M_KCORE] / ns[M_MMAP], ns[M_KCORE] / ns[M_LIB],
		       sc[M_MMAP], sc[M_LIB], sc[M_KCORE]);
		/* the same addresses, in READV calls of SEGS segments */
		printf("bench readv_read kernel=%s accel=%s reads=%d rounds=%d addresses=%s"
		       " segments=%d seg_bytes=8 readv_ns_per_seg=%.1f kcore_pread_ns=%.1f"
		       " mmap_ns=%.1f user_memory_ns=%.1f ratio_kcore_over_readv=%.2f"
		       " ratio_readv_over_mmap=%.2f syscalls_per_call_readv=%.3f"
		       " syscalls_per_seg_readv=%.4f syscalls_per_seg_kcore=%.3f"
		       " syscalls_per_seg_mmap=%.3f\n",
		       u.release, accel, READS, ROUNDS,
		       hot ? "hot-64-pages" : "random-text+256MiB-ram", SEGS,
		       ns[M_READV], ns[M_KCORE], ns[M_MMAP], ns[M_USER],
		       ns[M_KCORE] / ns[M_READV], ns[M_READV] / ns[M_MMAP],
		       sc[M_READV] * SEGS, sc[M_READV], sc[M_KCORE], sc[M_MMAP]);
	}
	kmemdev_close(w.h);
	return w.sink == 42;	/* keeps the loads */
}
