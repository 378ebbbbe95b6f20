// SPDX-License-Identifier: GPL-2.0
/*
 * What one small read costs, by each way of reading kernel memory, with
 * the module's defaults (reloaded with no parameter).  Lines:
 *
 *  readv_cost: one 8-byte read at a kernel-text word and at its direct-map
 *	alias, hot (the same word every call): as one-segment
 *	KMEM_RO_IOC_READV, as a device pread() by address and as a kcore
 *	pread(), beside the floors of an ioctl the device does not know, a
 *	READV of no segment and an 8-byte pread() of /dev/zero.
 *  read_cold: 8 bytes a call, each call on another random page of RAM
 *	(kcore's direct-map segments, that is all System RAM, COLD_PAGES
 *	pages drawn over gigabytes: far beyond any cache and TLB), for the
 *	device pread, READV and kcore alike.
 *  read_4k: one page-aligned 4 KiB page of the direct map a call (crash's
 *	page-sized reads), hot (one page) and cold (random pages, as above).
 *
 * ns per call, each the fastest of COST_ROUNDS short passes; in each pass
 * every operation runs once, in turn (a pass the host interrupts is not
 * the fastest, and a slow spell of this shared machine hits every
 * operation alike).  A driver without pread() by address answers ESPIPE:
 * the line then says dev_pread=ESPIPE and its fields are "na".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "bench.h"
#include "kmemdev.h"
#include "read_paths.h"

#define COST_ROUNDS	200
#define CALLS_SMALL	500	/* 8-byte calls a pass */
#define CALLS_PAGE	100	/* 4 KiB calls a pass */
#define COLD_PAGES	(1U << 18)	/* random RAM pages drawn (duplicates allowed) */
#define PAGE		4096

enum op {
	OP_ENOTTY, OP_READV_NONE, OP_ZERO,
	OP_READV_TEXT, OP_READV_DIRECT, OP_KCORE_TEXT, OP_KCORE_DIRECT,
	OP_DEV_TEXT, OP_DEV_DIRECT,
	OP_COLD_DEV, OP_COLD_READV, OP_COLD_KCORE,
	OP_PAGE_DEV, OP_PAGE_READV, OP_PAGE_KCORE,
	OP_PAGE_COLD_DEV, OP_PAGE_COLD_READV, OP_PAGE_COLD_KCORE,
	OPS
};

struct target {
	uint64_t addr;
	uint64_t kcore_off;
};

struct cost {
	struct kcore_file kcore;
	int dev, zero;
	bool dev_pread;			/* the driver answers pread() by address */
	struct target text, direct, page;
	struct target *cold;		/* random RAM pages, page-aligned */
	unsigned int ncold, next;	/* the next cold page to read */
	uint64_t drawn;			/* pages drawn before the unreadable were dropped */
	uint64_t ram_bytes;
	unsigned char buf[PAGE];
};

static bool is_dev(enum op op)
{
	return op == OP_DEV_TEXT || op == OP_DEV_DIRECT || op == OP_COLD_DEV ||
	       op == OP_PAGE_DEV || op == OP_PAGE_COLD_DEV;
}

static bool is_page(enum op op)
{
	return op >= OP_PAGE_DEV;
}

static uint64_t xorshift(uint64_t *x)
{
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	return *x * 0x2545F4914F6CDD1DULL;
}

/* ---- cold pages: random pages of every direct-map segment of kcore ---- */

struct ram {
	uint64_t start[64], end[64];
	unsigned int n;
	uint64_t bytes;
};

static void ram_add(void *arg, uint64_t start, uint64_t end)
{
	struct ram *r = arg;

	start = (start + PAGE - 1) & ~(uint64_t)(PAGE - 1);
	end &= ~(uint64_t)(PAGE - 1);
	if (r->n == 64 || end <= start)
		return;
	r->start[r->n] = start;
	r->end[r->n++] = end;
	r->bytes += end - start;
}

/* A page every path reads in full: true. */
static bool readable(struct cost *c, struct target *t)
{
	uint64_t word;

	return kcore_file_offset(&c->kcore, t->addr, &t->kcore_off) &&
	       pread(c->kcore.fd, &word, 8, (off_t)t->kcore_off) == 8 &&
	       readv_one(c->dev, t->addr, &word, 8) == 8 &&
	       (!c->dev_pread || dev_pread(c->dev, t->addr, &word, 8) == 8);
}

static int cold_pages(struct cost *c, uint64_t page_offset)
{
	struct ram r = { .n = 0 };
	uint64_t x = 0x9E3779B97F4A7C15ULL;

	if (!kcore_file_ram(&c->kcore, page_offset, ram_add, &r) || !r.bytes)
		return -1;
	c->ram_bytes = r.bytes;
	c->cold = calloc(COLD_PAGES, sizeof(*c->cold));
	if (!c->cold)
		return -1;
	for (c->drawn = 0; c->drawn < COLD_PAGES; c->drawn++) {
		uint64_t at = (xorshift(&x) % (r.bytes / PAGE)) * PAGE;
		unsigned int i = 0;
		struct target t;

		while (at >= r.end[i] - r.start[i]) {
			at -= r.end[i] - r.start[i];
			i++;
		}
		t.addr = r.start[i] + at;
		if (readable(c, &t))
			c->cold[c->ncold++] = t;
	}
	return c->ncold ? 0 : -1;
}

/* ---- the operations ---- */

static bool one_call(struct cost *c, enum op op)
{
	struct kmem_ro_readv none = { .size = sizeof(none) };
	const struct target *t = NULL;
	size_t len = is_page(op) ? PAGE : 8;
	uint64_t in_page = 0;

	switch (op) {
	case OP_ENOTTY:	/* nr 0x3f: no such ioctl, -ENOTTY before any handler */
		return ioctl(c->dev, _IOWR(KMEM_RO_IOC_MAGIC, 0x3f, struct kmem_ro_readv),
			     &none) < 0;
	case OP_READV_NONE:
		return !ioctl(c->dev, KMEM_RO_IOC_READV, &none);
	case OP_ZERO:	/* a pread() that reads nothing of the kernel's */
		return pread(c->zero, c->buf, 8, 0) == 8;
	case OP_READV_TEXT: case OP_KCORE_TEXT: case OP_DEV_TEXT:
		t = &c->text;
		break;
	case OP_READV_DIRECT: case OP_KCORE_DIRECT: case OP_DEV_DIRECT:
		t = &c->direct;
		break;
	case OP_PAGE_DEV: case OP_PAGE_READV: case OP_PAGE_KCORE:
		t = &c->page;
		break;
	default:	/* cold: the next page, an 8-byte word inside it for small reads */
		t = &c->cold[c->next];
		if (!is_page(op))
			in_page = (c->next * 8 * 67) % PAGE;
		c->next = (c->next + 1) % c->ncold;
		break;
	}
	switch (op) {
	case OP_READV_TEXT: case OP_READV_DIRECT: case OP_COLD_READV:
	case OP_PAGE_READV: case OP_PAGE_COLD_READV:
		return readv_one(c->dev, t->addr + in_page, c->buf, len) == (int64_t)len;
	case OP_KCORE_TEXT: case OP_KCORE_DIRECT: case OP_COLD_KCORE:
	case OP_PAGE_KCORE: case OP_PAGE_COLD_KCORE:
		return pread(c->kcore.fd, c->buf, len, (off_t)(t->kcore_off + in_page)) ==
		       (ssize_t)len;
	default:
		return dev_pread(c->dev, t->addr + in_page, c->buf, len) == (ssize_t)len;
	}
}

/* The fastest pass of each operation, ns per call, into @ns; 0 or -1. */
static int measure(struct cost *c, double ns[OPS])
{
	uint64_t best[OPS];

	for (int op = 0; op < OPS; op++)
		best[op] = UINT64_MAX;
	for (int r = 0; r < COST_ROUNDS; r++)
		for (int op = 0; op < OPS; op++) {
			int calls = is_page(op) ? CALLS_PAGE : CALLS_SMALL;
			uint64_t t;

			if (is_dev(op) && !c->dev_pread)
				continue;
			t = bench_ns();
			for (int i = 0; i < calls; i++)
				if (!one_call(c, op)) {
					fprintf(stderr, "read_cost_bench: operation %d failed: %s\n",
						op, strerror(errno));
					return -1;
				}
			t = bench_ns() - t;
			if (t < best[op])
				best[op] = t;
		}
	for (int op = 0; op < OPS; op++)
		ns[op] = (double)best[op] / (is_page(op) ? CALLS_PAGE : CALLS_SMALL);
	return 0;
}

/* "%.0f" of @v, or "na" when the device has no pread(). */
static const char *dev_field(const struct cost *c, char *s, double v, const char *fmt)
{
	if (!c->dev_pread)
		return "na";
	snprintf(s, 24, fmt, v);
	return s;
}

static void print(const struct cost *c, const double ns[OPS], const char *release,
		  const char *accel)
{
	char a[24], b[24], d[24], e[24], f[24], g[24], h[24], i[24];
	const char *state = c->dev_pread ? "ok" : "ESPIPE";

	printf("bench readv_cost kernel=%s accel=%s calls=%dx%d enotty_ioctl_ns=%.0f"
	       " readv_none_ns=%.0f readv_text_ns=%.0f readv_direct_ns=%.0f"
	       " kcore_pread_text_ns=%.0f kcore_pread_direct_ns=%.0f zero_pread_ns=%.0f"
	       " dev_pread=%s dev_pread_text_ns=%s dev_pread_direct_ns=%s"
	       " ratio_dev_pread_text=%s ratio_dev_pread_direct=%s"
	       " ratio_readv_text=%.2f ratio_readv_direct=%.2f"
	       " target_dev_pread_max=0.75 target_readv_max=1.0\n",
	       release, accel, COST_ROUNDS, CALLS_SMALL, ns[OP_ENOTTY], ns[OP_READV_NONE],
	       ns[OP_READV_TEXT], ns[OP_READV_DIRECT], ns[OP_KCORE_TEXT], ns[OP_KCORE_DIRECT],
	       ns[OP_ZERO], state, dev_field(c, a, ns[OP_DEV_TEXT], "%.0f"),
	       dev_field(c, b, ns[OP_DEV_DIRECT], "%.0f"),
	       dev_field(c, d, ns[OP_DEV_TEXT] / ns[OP_KCORE_TEXT], "%.2f"),
	       dev_field(c, e, ns[OP_DEV_DIRECT] / ns[OP_KCORE_DIRECT], "%.2f"),
	       ns[OP_READV_TEXT] / ns[OP_KCORE_TEXT], ns[OP_READV_DIRECT] / ns[OP_KCORE_DIRECT]);
	printf("bench read_cold kernel=%s accel=%s calls=%dx%d bytes=8 ram_mib=%ju"
	       " pages=%u drawn=%ju dev_pread=%s dev_pread_ns=%s readv_ns=%.0f"
	       " kcore_pread_ns=%.0f ratio_dev_pread=%s ratio_readv=%.2f\n",
	       release, accel, COST_ROUNDS, CALLS_SMALL, (uintmax_t)(c->ram_bytes >> 20),
	       c->ncold, (uintmax_t)c->drawn, state, dev_field(c, a, ns[OP_COLD_DEV], "%.0f"),
	       ns[OP_COLD_READV], ns[OP_COLD_KCORE],
	       dev_field(c, b, ns[OP_COLD_DEV] / ns[OP_COLD_KCORE], "%.2f"),
	       ns[OP_COLD_READV] / ns[OP_COLD_KCORE]);
	printf("bench read_4k kernel=%s accel=%s calls=%dx%d bytes=4096 dev_pread=%s"
	       " hot_dev_pread_ns=%s hot_readv_ns=%.0f hot_kcore_pread_ns=%.0f"
	       " cold_dev_pread_ns=%s cold_readv_ns=%.0f cold_kcore_pread_ns=%.0f"
	       " ratio_hot_dev_pread=%s ratio_cold_dev_pread=%s ratio_hot_readv=%.2f"
	       " ratio_cold_readv=%.2f target_dev_pread_max=1.0\n",
	       release, accel, COST_ROUNDS, CALLS_PAGE, state,
	       dev_field(c, f, ns[OP_PAGE_DEV], "%.0f"), ns[OP_PAGE_READV], ns[OP_PAGE_KCORE],
	       dev_field(c, g, ns[OP_PAGE_COLD_DEV], "%.0f"), ns[OP_PAGE_COLD_READV],
	       ns[OP_PAGE_COLD_KCORE],
	       dev_field(c, h, ns[OP_PAGE_DEV] / ns[OP_PAGE_KCORE], "%.2f"),
	       dev_field(c, i, ns[OP_PAGE_COLD_DEV] / ns[OP_PAGE_COLD_KCORE], "%.2f"),
	       ns[OP_PAGE_READV] / ns[OP_PAGE_KCORE],
	       ns[OP_PAGE_COLD_READV] / ns[OP_PAGE_COLD_KCORE]);
	fflush(stdout);
}

static int setup(struct cost *c, const struct kmem_ro_info *in)
{
	uint64_t dm = in->page_offset + in->phys_base - in->kernel_map;
	/* a word inside the text, away from its first page */
	uint64_t word = (in->text_start + (in->text_end - in->text_start) / 2) & ~7ULL;

	c->text.addr = word;
	c->direct.addr = word + dm;
	c->page.addr = c->direct.addr & ~(uint64_t)(PAGE - 1);
	c->dev = open(KMEM_RO_DEVICE, O_RDONLY | O_CLOEXEC);
	c->zero = open("/dev/zero", O_RDONLY | O_CLOEXEC);
	if (c->dev < 0 || c->zero < 0 || kcore_file_open(&c->kcore) ||
	    !kcore_file_offset(&c->kcore, c->text.addr, &c->text.kcore_off) ||
	    !kcore_file_offset(&c->kcore, c->direct.addr, &c->direct.kcore_off) ||
	    !kcore_file_offset(&c->kcore, c->page.addr, &c->page.kcore_off))
		return -1;
	c->dev_pread = dev_pread_works(c->dev, c->direct.addr);
	if (!c->dev_pread && errno != ESPIPE) {
		fprintf(stderr, "read_cost_bench: device pread() failed: %s\n", strerror(errno));
		return -1;
	}
	if (!c->dev_pread)
		fprintf(stderr, "read_cost_bench: the device has no pread() (ESPIPE)\n");
	return cold_pages(c, in->page_offset);
}

int main(void)
{
	const char *accel = getenv("VM_ACCEL") ? getenv("VM_ACCEL") : "unknown";
	static struct cost c;
	double ns[OPS];
	struct kmemdev *h;
	struct utsname u;
	KMEMDEV_ARG(kmem_ro_info, info);
	KMEMDEV_OPTS(kmemdev_open_opts, opts, .backend = KMEMDEV_BACKEND_DEVICE);

	uname(&u);
	if (bench_module_reload("") || kmemdev_open(&h, &opts) ||
	    kmemdev_info(h, &info, NULL, 0) < 0) {
		fprintf(stderr, "read_cost_bench: cannot load and open kmem_ro\n");
		return 1;
	}
	kmemdev_close(h);
	if (setup(&c, &info) || measure(&c, ns)) {
		fprintf(stderr, "read_cost_bench: failed\n");
		return 1;
	}
	print(&c, ns, u.release, accel);
	return 0;
}
