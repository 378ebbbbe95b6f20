// SPDX-License-Identifier: GPL-2.0
/*
 * kcore_replay: the reads drgn made during one walk, again, on whatever
 * /proc/kcore this process opens (the kernel's, or with
 * LD_PRELOAD=libkmemdev-kcore.so the preload's: READV or the mapping).
 * Linked dynamically, so the preload can serve it.
 *
 *   kcore_replay vaddrs TRACE T0 T1 OUT
 *	TRACE's pread() calls (kcore_pread_trace.c's lines) that started
 *	in [T0, T1], as "VADDR LENGTH" lines: their file offsets read
 *	through this /proc/kcore's program headers.  Prints
 *	"reads N fds F" (F: distinct fds among them).
 *   kcore_replay time SPEC REPEAT
 *	SPEC's reads, in order, REPEAT times; prints "best_ns NS reads N"
 *	(the fastest pass).  Offsets are found before the clock starts.
 *   kcore_replay readv SPEC REPEAT
 *	the same, each read one KMEM_RO_IOC_READV of one segment on
 *	/dev/kmem_ro, no kcore and no preload: what the device's call
 *	costs, apart from the preload's work around it.
 *   kcore_replay cost TEXT DIRECT REPEAT
 *	where one small read's time goes, in ns per call (the fastest of
 *	COST_ROUNDS passes of REPEAT calls each): an ioctl of an unknown number on
 *	the device (system call and dispatch), a READV of no segment, a
 *	READV of one 8-byte segment at TEXT (kernel text) and at DIRECT
 *	(its direct-map alias), a kcore pread() of the same 8 bytes, and
 *	a pread() of 8 bytes of /dev/zero (system call and VFS read).
 */
#define _GNU_SOURCE
#include <elf.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <kmem_ro.h>

#define PHDR_MAX	4096
#define READ_MAX	4096

static Elf64_Phdr phdr[PHDR_MAX];
static unsigned int nphdr;

static int kcore_open(void)
{
	int fd = open("/proc/kcore", O_RDONLY | O_CLOEXEC);
	Elf64_Ehdr eh;

	if (fd < 0 || pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_phentsize != sizeof(Elf64_Phdr) ||
	    eh.e_phnum > PHDR_MAX)
		return -1;
	nphdr = eh.e_phnum;
	if (pread(fd, phdr, nphdr * sizeof(*phdr), (off_t)eh.e_phoff) !=
	    (ssize_t)(nphdr * sizeof(*phdr)))
		return -1;
	return fd;
}

/* A file offset to its address (to_vaddr), or an address to its offset. */
static bool translate(uint64_t x, bool to_vaddr, uint64_t *out)
{
	for (unsigned int i = 0; i < nphdr; i++) {
		uint64_t from = to_vaddr ? phdr[i].p_offset : phdr[i].p_vaddr;
		uint64_t to = to_vaddr ? phdr[i].p_vaddr : phdr[i].p_offset;

		if (phdr[i].p_type == PT_LOAD && x >= from && x - from < phdr[i].p_filesz) {
			*out = to + (x - from);
			return true;
		}
	}
	return false;
}

static int vaddrs(const char *trace, uint64_t t0, uint64_t t1, const char *out)
{
	FILE *in = fopen(trace, "re"), *o = fopen(out, "we");
	unsigned long long t, len;
	long long off, ret;
	int fd, fds[8], nfd = 0;
	unsigned int n = 0;

	if (!in || !o || kcore_open() < 0)
		return 1;
	while (fscanf(in, "%llu %d %lld %llu %lld", &t, &fd, &off, &len, &ret) == 5) {
		uint64_t v;
		int i;

		if (t < t0 || t > t1)
			continue;
		if (off < 0 || !translate((uint64_t)off, true, &v)) {
			fprintf(stderr, "kcore_replay: offset %#llx is in no segment\n", off);
			return 1;
		}
		for (i = 0; i < nfd && fds[i] != fd; i++)
			;
		if (i == nfd && nfd < 8)
			fds[nfd++] = fd;
		fprintf(o, "%#" PRIx64 " %llu\n", v, len);
		n++;
	}
	if (fclose(o) || fclose(in))
		return 1;
	printf("reads %u fds %d\n", n, nfd);
	return 0;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* One READV of one segment; its result. */
static int64_t readv_one(int fd, uint64_t vaddr, void *buf, size_t len)
{
	struct kmem_ro_iov iov = { .addr = vaddr, .len = len, .buf = (uintptr_t)buf };
	struct kmem_ro_readv arg = {
		.size = sizeof(arg),
		.iov_addr = (uintptr_t)&iov,
		.iov_count = 1,
	};

	if (ioctl(fd, KMEM_RO_IOC_READV, &arg) < 0 || arg.done != 1)
		return -1;
	return iov.result;
}

static int timed(const char *spec, int repeat, bool device)
{
	static unsigned char buf[READ_MAX];
	struct { uint64_t off; uint64_t vaddr; size_t len; } *r = NULL;
	unsigned long long v, len;
	size_t n = 0, cap = 0;
	uint64_t best = UINT64_MAX;
	FILE *in = fopen(spec, "re");
	int fd = device ? open(KMEM_RO_DEVICE, O_RDONLY | O_CLOEXEC) : kcore_open();

	if (!in || fd < 0)
		return 1;
	while (fscanf(in, "%llx %llu", &v, &len) == 2) {
		if (n == cap) {
			cap = cap ? 2 * cap : 4096;
			r = realloc(r, cap * sizeof(*r));
			if (!r)
				return 1;
		}
		r[n].vaddr = v;
		if (len > READ_MAX || (!device && !translate(v, false, &r[n].off))) {
			fprintf(stderr, "kcore_replay: %#llx (%llu) is in no segment\n", v, len);
			return 1;
		}
		r[n++].len = len;
	}
	fclose(in);
	for (int k = 0; k < repeat; k++) {
		uint64_t t = now_ns();

		for (size_t i = 0; i < n; i++)
			if (device ? readv_one(fd, r[i].vaddr, buf, r[i].len) != (int64_t)r[i].len :
			    pread(fd, buf, r[i].len, (off_t)r[i].off) != (ssize_t)r[i].len)
				return 1;
		t = now_ns() - t;
		if (t < best)
			best = t;
	}
	printf("best_ns %" PRIu64 " reads %zu\n", best, n);
	free(r);
	close(fd);
	return 0;
}

/*
 * Short passes, many of them, the operations in turn: a pass the host
 * interrupts is not the fastest, and a slow spell hits every operation.
 */
#define COST_ROUNDS	200
#define COST_OPS	7

static int cost(uint64_t text, uint64_t direct, int repeat)
{
	struct kmem_ro_readv none = { .size = sizeof(none) };
	int dev = open(KMEM_RO_DEVICE, O_RDONLY | O_CLOEXEC), kcore = kcore_open();
	int zero = open("/dev/zero", O_RDONLY | O_CLOEXEC);
	uint64_t buf, off_text, off_direct, best[COST_OPS];

	if (dev < 0 || kcore < 0 || zero < 0 || !translate(text, false, &off_text) ||
	    !translate(direct, false, &off_direct))
		return 1;
	for (int op = 0; op < COST_OPS; op++)
		best[op] = UINT64_MAX;
	for (int r = 0; r < COST_ROUNDS; r++)
		for (int op = 0; op < COST_OPS; op++) {
			uint64_t t = now_ns();
			bool ok = true;

			for (int i = 0; i < repeat && ok; i++)
				switch (op) {
				case 0:	/* nr 0x3f: no such ioctl, -ENOTTY before any handler */
					ok = ioctl(dev, _IOWR(KMEM_RO_IOC_MAGIC, 0x3f,
							      struct kmem_ro_readv), &none) < 0;
					break;
				case 1:
					ok = !ioctl(dev, KMEM_RO_IOC_READV, &none);
					break;
				case 2:
					ok = readv_one(dev, text, &buf, 8) == 8;
					break;
				case 3:
					ok = readv_one(dev, direct, &buf, 8) == 8;
					break;
				case 4:
					ok = pread(kcore, &buf, 8, (off_t)off_text) == 8;
					break;
				case 5:
					ok = pread(kcore, &buf, 8, (off_t)off_direct) == 8;
					break;
				default:	/* a pread() that reads nothing of the kernel's */
					ok = pread(zero, &buf, 8, 0) == 8;
					break;
				}
			if (!ok)
				return 1;
			t = now_ns() - t;
			if (t < best[op])
				best[op] = t;
		}
	printf("calls=%dx%d enotty_ioctl_ns=%.0f readv_none_ns=%.0f readv_text_ns=%.0f"
	       " readv_direct_ns=%.0f kcore_pread_text_ns=%.0f kcore_pread_direct_ns=%.0f"
	       " zero_pread_ns=%.0f\n",
	       COST_ROUNDS, repeat, (double)best[0] / repeat, (double)best[1] / repeat,
	       (double)best[2] / repeat, (double)best[3] / repeat, (double)best[4] / repeat,
	       (double)best[5] / repeat, (double)best[6] / repeat);
	close(zero);
	close(dev);
	close(kcore);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "cost"))
		return cost(strtoull(argv[2], NULL, 0), strtoull(argv[3], NULL, 0),
			    atoi(argv[4]));
	if (argc == 6 && !strcmp(argv[1], "vaddrs"))
		return vaddrs(argv[2], strtoull(argv[3], NULL, 0), strtoull(argv[4], NULL, 0),
			      argv[5]);
	if (argc == 4 && (!strcmp(argv[1], "time") || !strcmp(argv[1], "readv")))
		return timed(argv[2], atoi(argv[3]), argv[1][0] == 'r');
	fprintf(stderr, "usage: kcore_replay vaddrs TRACE T0 T1 OUT | time|readv SPEC REPEAT | cost TEXT DIRECT REPEAT\n");
	return 2;
}
