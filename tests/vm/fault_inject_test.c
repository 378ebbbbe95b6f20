// SPDX-License-Identifier: GPL-2.0
/*
 * Every allocation kmem_ro's code makes or reaches, failed once.
 *
 * Debug kernel only (group faultinj: CONFIG_FAULT_INJECTION_DEBUG_FS,
 * FAILSLAB, FAIL_PAGE_ALLOC and FAULT_INJECTION_STACKTRACE_FILTER;
 * Debian's kernels have none of them).  The kernel's per-task counter
 * /proc/thread-self/fail-nth (Documentation/fault-injection/
 * fault-injection.rst; lib/fault-inject.c, should_fail_ex()) fails the
 * Nth allocation the task makes that passes a capability's filters, and
 * reads back 0 once it has.  failslab and fail_page_alloc are set to
 * count only allocations with kmem_ro's code on the stack (require-start,
 * require-end: the stacktrace filter), sleeping ones too (ignore-gfp-wait
 * N) and single pages (min-order 0); their probability stays 0, so
 * nothing fails but the Nth.  So each call below runs with fail-nth 1, 2,
 * 3, ... until a run reaches no Nth allocation: each of the driver's own
 * allocations on that path, and each one the kernel makes for it
 * (register_kprobe(), ftrace filters, rhashtable, genetlink, misc device,
 * page tables of a fault), has failed once.  After each failure the call
 * must have failed with its documented errno (ENOMEM) or succeeded, left
 * the state it promises, and succeed when run again without injection.
 * Module init and exit are failed the same way, init with the filter on
 * the whole module area (the code is not loaded yet).  The harness then
 * unloads kmem_ro (nothing leaked: rmmod works) and fails the run on any
 * BUG, WARNING or KASAN report in the log.
 *
 * vmalloc() reports its own failures with a stack dump (mm/vmalloc.c:
 * warn_alloc() unless __GFP_NOWARN), which fails any run: what runs under
 * __vmalloc_node_range_noprof() is never failed (reject-start,
 * reject-end).  kvmalloc() tries kmalloc first (that is failed) and falls
 * back to vmalloc() above a page: a buffer of up to a page gets NULL, a
 * larger one (PROBE_ADD's step of 256 specs) its vmalloc() fallback.
 */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kmemdev.h"
#include "vmtest.h"

#define PAGE		4096UL
#define FAILSLAB	"/sys/kernel/debug/failslab/"
#define FAILPAGE	"/sys/kernel/debug/fail_page_alloc/"
#define FAIL_NTH	"/proc/thread-self/fail-nth"
#define RAM_PARAM	"/sys/module/kmem_ro/parameters/mmap_ram"
#define HOT		"__x64_sys_getppid"
#define HOT2		"__x64_sys_getpid"
/* arch/x86/include/asm/pgtable_64_types.h: MODULES_VADDR, MODULES_END (4-level) */
#define MODULES_VADDR	0xffffffffc0000000ULL
#define MODULES_END	0xffffffffff000000ULL
/* no path here reaches this many allocations: a loop that does is a bug */
#define MAX_POINTS	2000
#define NPROBES		3

/* ---- the injection ---- */

static void attr_write(const char *dir, const char *file, const char *val)
{
	char path[256];

	snprintf(path, sizeof(path), "%s%s", dir, file);
	vt_write_file(path, val);
}

/* The bytes of kernel function @name: its address to the next symbol's. */
static void function_range(const char *name, uint64_t *start, uint64_t *end)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512], type, sym[256];
	unsigned long long a;
	uint64_t next = UINT64_MAX;

	*start = vt_kallsyms(name);
	ck_assert_msg(*start, "%s not in /proc/kallsyms", name);
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &a, &type, sym) == 3 && a > *start && a < next)
			next = a;
	fclose(f);
	ck_assert_uint_ne(next, UINT64_MAX);
	*end = next;
}

/* Fail only what runs with code of [@start, @end) on the stack, via fail-nth. */
static void fi_filter(uint64_t start, uint64_t end)
{
	static const char *const dirs[] = { FAILSLAB, FAILPAGE };
	static uint64_t vmalloc_start, vmalloc_end;
	char v[32];

	if (!vmalloc_start)
		function_range("__vmalloc_node_range_noprof", &vmalloc_start, &vmalloc_end);

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		attr_write(dirs[i], "probability", "0");
		attr_write(dirs[i], "times", "-1");
		attr_write(dirs[i], "interval", "1");
		attr_write(dirs[i], "space", "0");
		attr_write(dirs[i], "task-filter", "N");
		attr_write(dirs[i], "ignore-gfp-wait", "N");
		/* a notice per failure; 2 would dump a stack, as a WARNING does */
		attr_write(dirs[i], "verbose", "1");
		attr_write(dirs[i], "stacktrace-depth", "32");
		snprintf(v, sizeof(v), "%#" PRIx64, vmalloc_end);
		attr_write(dirs[i], "reject-end", v);
		snprintf(v, sizeof(v), "%#" PRIx64, vmalloc_start);
		attr_write(dirs[i], "reject-start", v);
		/* end first: start must never pass end */
		snprintf(v, sizeof(v), "%#" PRIx64, end);
		attr_write(dirs[i], "require-end", v);
		snprintf(v, sizeof(v), "%#" PRIx64, start);
		attr_write(dirs[i], "require-start", v);
	}
	attr_write(FAILPAGE, "min-order", "0");
	attr_write(FAILPAGE, "ignore-gfp-highmem", "N");
}

/* The kernel's defaults (lib/fault-inject.c, mm/failslab.c, mm/fail_page_alloc.c). */
static void fi_defaults(void)
{
	static const char *const dirs[] = { FAILSLAB, FAILPAGE };

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		attr_write(dirs[i], "require-start", "0");
		attr_write(dirs[i], "require-end", "0xffffffffffffffff");
		attr_write(dirs[i], "reject-start", "0");
		attr_write(dirs[i], "reject-end", "0");
		attr_write(dirs[i], "ignore-gfp-wait", "Y");
		attr_write(dirs[i], "verbose", "2");
	}
	attr_write(FAILPAGE, "min-order", "1");
	attr_write(FAILPAGE, "ignore-gfp-highmem", "Y");
}

/* kmem_ro's text, from /proc/kallsyms: its first function to the next symbol after its last. */
static void module_text(uint64_t *start, uint64_t *end)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512], type, name[256], mod[64];
	unsigned long long a;
	uint64_t lo = UINT64_MAX, hi = 0, next = UINT64_MAX;

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		mod[0] = 0;
		if (sscanf(line, "%llx %c %255s [%63[^]]]", &a, &type, name, mod) < 3)
			continue;
		if (strcmp(mod, "kmem_ro") || (type != 't' && type != 'T'))
			continue;
		lo = a < lo ? a : lo;
		hi = a > hi ? a : hi;
	}
	ck_assert_uint_ne(hi, 0);
	rewind(f);
	while (fgets(line, sizeof(line), f)) {
		mod[0] = 0;
		if (sscanf(line, "%llx %c %255s [%63[^]]]", &a, &type, name, mod) < 3)
			continue;
		if (a > hi && a < next && strcmp(mod, "kmem_ro"))
			next = a;
	}
	fclose(f);
	*start = lo;
	/* the last function's own bytes: up to the next symbol, at most 64 KiB */
	*end = next - hi < (64 << 10) ? next : hi + (64 << 10);
}

static int nth_fd = -1;

static void nth_open(void)
{
	nth_fd = open(FAIL_NTH, O_RDWR | O_CLOEXEC);
	ck_assert_msg(nth_fd >= 0, "%s: %s", FAIL_NTH, strerror(errno));
}

static void nth_set(unsigned int n)
{
	char v[16];
	int len = snprintf(v, sizeof(v), "%u", n);

	ck_assert_int_eq(pwrite(nth_fd, v, len, 0), len);
}

/* Disarm; 1 if the Nth allocation was failed, 0 if the call made fewer. */
static int nth_fired(void)
{
	char v[16] = "";
	ssize_t len = pread(nth_fd, v, sizeof(v) - 1, 0);

	ck_assert_int_gt(len, 0);
	nth_set(0);
	return strtoul(v, NULL, 10) == 0;
}

/*
 * A call under test: @prepare (not failed) sets the stage, @run is the
 * call (0 or -errno), @check asserts the state after it and undoes it.
 */
struct fi_call {
	const char *name;
	void (*prepare)(void *arg);
	int (*run)(void *arg);
	void (*check)(void *arg, int ret);
	void *arg;
};

/* Fail each allocation of @c once, in order; returns how many there were. */
static unsigned int fail_each(const struct fi_call *c)
{
	unsigned int n;
	int ret;

	for (n = 1; n < MAX_POINTS; n++) {
		if (c->prepare)
			c->prepare(c->arg);
		nth_set(n);
		ret = c->run(c->arg);
		if (!nth_fired()) {
			/* fewer than n allocations: every one has failed once */
			ck_assert_msg(!ret, "%s without injection: %s", c->name, strerror(-ret));
			if (c->check)
				c->check(c->arg, ret);
			printf("fault_inject: %s: %u allocations, each failed once\n", c->name,
			       n - 1);
			return n - 1;
		}
		ck_assert_msg(!ret || ret == -ENOMEM, "%s, allocation %u failed: %s", c->name, n,
			      strerror(-ret));
		if (c->check)
			c->check(c->arg, ret);
		/* and the same call again, nothing failed */
		if (c->prepare)
			c->prepare(c->arg);
		ret = c->run(c->arg);
		ck_assert_msg(!ret, "%s after allocation %u failed: %s", c->name, n,
			      strerror(-ret));
		if (c->check)
			c->check(c->arg, ret);
	}
	ck_abort_msg("%s: more than %d allocations", c->name, MAX_POINTS);
	return 0;
}

static uint64_t text_lo, text_hi;

static void setup(void)
{
	cpu_set_t one;

	/* the read path keeps a spare page per CPU: stay on one */
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	ck_assert_int_eq(sched_setaffinity(0, sizeof(one), &one), 0);
	module_text(&text_lo, &text_hi);
	fi_filter(text_lo, text_hi);
	nth_open();
}

static void teardown(void)
{
	if (nth_fd >= 0) {
		nth_set(0);
		close(nth_fd);
		nth_fd = -1;
	}
	fi_defaults();
}

/* ---- the calls ---- */

struct dev {
	int fd;
	struct kmem_ro_info info;
	struct kmem_ro_range ram[64];
	char buf[4 * PAGE];
	uint64_t ids[NPROBES];
	struct kmemdev_events *ev;
	int aux;		/* a second fd some calls need */
};

static struct dev *dev_new(void)
{
	struct dev *d = calloc(1, sizeof(*d));

	ck_assert_ptr_nonnull(d);
	d->fd = vt_open_dev();
	d->aux = -1;
	ck_assert_int_eq(vt_info(d->fd, &d->info, d->ram, 64), 0);
	memset(d->buf, 1, sizeof(d->buf));	/* no page fault in the driver's user copies */
	return d;
}

static void dev_free(struct dev *d)
{
	close(d->fd);
	if (d->aux >= 0)
		close(d->aux);
	free(d);
}

static int run_open(void *arg)
{
	int fd = open(KMEM_RO_DEVICE, O_RDONLY | O_CLOEXEC);

	(void)arg;
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static int run_info(void *arg)
{
	struct dev *d = arg;
	struct kmem_ro_info info;
	struct kmem_ro_range ram[64];

	memset(ram, 0, sizeof(ram));
	return vt_info(d->fd, &info, ram, 64);
}

/* two pages of kernel text: a read of more than the stack buffer takes a page */
static int run_read(void *arg)
{
	struct dev *d = arg;
	ssize_t n = pread(d->fd, d->buf, 2 * PAGE, KMEM_RO_READ_OFFSET(d->info.text_start));

	if (n < 0)
		return -errno;
	ck_assert_int_eq(n, 2 * PAGE);
	return 0;
}

static int run_readv(void *arg)
{
	struct dev *d = arg;
	struct kmem_ro_iov iov[2] = {
		{ .addr = d->info.text_start, .len = 2 * PAGE, .buf = (uintptr_t)d->buf },
		{ .addr = d->info.text_start, .len = 8, .buf = (uintptr_t)(d->buf + 3 * PAGE) },
	};
	struct kmem_ro_readv rv = {
		.size = sizeof(rv), .iov_addr = (uintptr_t)iov, .iov_count = 2,
	};
	int err = vt_ioctl(d->fd, KMEM_RO_IOC_READV, &rv);

	if (!err) {
		ck_assert_uint_eq(rv.done, 2);
		ck_assert_int_eq(iov[0].result, 2 * PAGE);
		ck_assert_int_eq(iov[1].result, 8);
	}
	return err;
}

/* more segments than the driver keeps on its stack: the array is copied in */
static int run_readv_many(void *arg)
{
	struct dev *d = arg;
	struct kmem_ro_iov iov[16];
	struct kmem_ro_readv rv = {
		.size = sizeof(rv), .iov_addr = (uintptr_t)iov, .iov_count = 16,
	};
	int err;

	for (int i = 0; i < 16; i++)
		iov[i] = (struct kmem_ro_iov){
			.addr = d->info.text_start + 8 * i, .len = 8,
			.buf = (uintptr_t)(d->buf + 8 * i),
		};
	err = vt_ioctl(d->fd, KMEM_RO_IOC_READV, &rv);
	if (!err) {
		ck_assert_uint_eq(rv.done, 16);
		for (int i = 0; i < 16; i++)
			ck_assert_int_eq(iov[i].result, 8);
	}
	return err;
}

/* the first 16 nodes of the module list: two fields each, or one large record */
static int walk(struct dev *d, uint32_t second_len)
{
	struct kmem_ro_field fields[2] = { { 0, 8 }, { 16, second_len } };
	struct kmem_ro_walk w = {
		.size = sizeof(w), .flags = KMEM_RO_WALK_NODE_ADDR,
		.head = vt_kallsyms("modules"),
		.link_offset = 8,	/* struct module: state, then list */
		.fields_addr = (uintptr_t)fields, .fields_count = 2, .max_nodes = 16,
		.buf_addr = (uintptr_t)d->buf, .buf_size = sizeof(d->buf),
	};
	int err;

	ck_assert_uint_ne(w.head, 0);
	err = vt_ioctl(d->fd, KMEM_RO_IOC_WALK, &w);
	if (!err)
		ck_assert_uint_eq(w.status, KMEM_RO_WALK_DONE);
	return err;
}

static int run_walk(void *arg)
{
	return walk(arg, 8);
}

/* a record larger than half the driver's stack batch: a buffer of its own */
static int run_walk_large(void *arg)
{
	return walk(arg, 512);
}

static int pagemap(struct dev *d, uint64_t flags)
{
	uint64_t out[16];
	struct kmem_ro_pagemap pm = {
		.size = sizeof(pm), .flags = flags,
		.start = (uintptr_t)d->buf & ~(PAGE - 1),
		.end = ((uintptr_t)d->buf & ~(PAGE - 1)) + 4 * PAGE,
		.buf_addr = (uintptr_t)out, .buf_size = sizeof(out),
	};
	int err;

	memset(out, 0, sizeof(out));
	err = vt_ioctl(d->fd, KMEM_RO_IOC_PAGEMAP, &pm);
	if (!err)
		ck_assert_uint_eq(pm.walk_end, pm.end);
	return err;
}

static int run_pagemap(void *arg)
{
	return pagemap(arg, 0);
}

static int run_pagemap_runs(void *arg)
{
	return pagemap(arg, KMEM_RO_PAGEMAP_RUNS);
}

/* map a page at physical @phys, read it (the fault inserts it), unmap */
static int map_touch(struct dev *d, uint64_t phys)
{
	unsigned char c;
	void *p = vt_map_phys(d->fd, phys, PAGE);

	if (p == MAP_FAILED)
		return -errno;
	ck_assert_int_eq(vt_probe_read(p, &c), 0);
	ck_assert_int_eq(munmap(p, PAGE), 0);
	return 0;
}

static uint64_t image_phys(const struct dev *d, uint64_t vaddr)
{
	return (vaddr - d->info.kernel_map + d->info.phys_base) & ~(PAGE - 1);
}

static int run_mmap_text(void *arg)
{
	struct dev *d = arg;

	return map_touch(d, image_phys(d, d->info.text_start));
}

/* under the opt-in: a page of the kernel's data (init_task), RAM */
static int run_mmap_ram(void *arg)
{
	struct dev *d = arg;
	uint64_t init_task = vt_kallsyms("init_task");

	ck_assert_uint_ne(init_task, 0);
	return map_touch(d, image_phys(d, init_task));
}

START_TEST(plain_calls)
{
	struct dev *d = dev_new();
	const struct fi_call calls[] = {
		{ "open", NULL, run_open, NULL, d },
		{ "INFO", NULL, run_info, NULL, d },
		{ "pread", NULL, run_read, NULL, d },
		{ "READV", NULL, run_readv, NULL, d },
		{ "READV 16 segments", NULL, run_readv_many, NULL, d },
		{ "WALK", NULL, run_walk, NULL, d },
		{ "WALK large record", NULL, run_walk_large, NULL, d },
		{ "PAGEMAP", NULL, run_pagemap, NULL, d },
		{ "PAGEMAP runs", NULL, run_pagemap_runs, NULL, d },
		{ "mmap text", NULL, run_mmap_text, NULL, d },
	};
	unsigned int total = 0;

	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++)
		total += fail_each(&calls[i]);
	/*
	 * INFO's RAM ranges, pread's page, READV's segments, WALK's fields and
	 * record, PAGEMAP's buffers, mmap's RAM list and mapping
	 */
	ck_assert_uint_ge(total, 9);
	dev_free(d);
}
END_TEST

START_TEST(ram_mmap)
{
	struct dev *d = dev_new();
	const struct fi_call c = { "mmap RAM", NULL, run_mmap_ram, NULL, d };

	vt_mmap_ram_on();
	/* the RAM snapshot (bitmap, ranges, pages) and the mapping */
	ck_assert_uint_ge(fail_each(&c), 4);
	vt_mmap_ram_off();
	dev_free(d);
}
END_TEST

/* ---- probes ---- */

static void specs(struct kmem_ro_probe_spec s[NPROBES], uint32_t flags)
{
	uint64_t hot = vt_kallsyms(HOT), hot2 = vt_kallsyms(HOT2);

	ck_assert_uint_ne(hot, 0);
	ck_assert_uint_ne(hot2, 0);
	vt_probe_spec(&s[0], HOT, hot, 0, flags);			/* ftrace */
	vt_probe_spec(&s[1], HOT, hot, vt_after_fentry(hot), flags);	/* kprobe */
	vt_probe_spec(&s[2], HOT2, hot2, 0, flags);
}

/* This fd's probes as LIST shows them: how many, and how many enabled. */
static unsigned int probes_listed(int fd, unsigned int *enabled)
{
	struct kmem_ro_probe_info info[8];
	struct kmem_ro_probe_list l = {
		.size = sizeof(l), .buf_addr = (uintptr_t)info, .cap = 8,
	};

	memset(info, 0, sizeof(info));
	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_PROBE_LIST, &l), 0);
	ck_assert_uint_le(l.count, 8);
	*enabled = 0;
	for (unsigned int i = 0; i < l.count; i++)
		*enabled += !!(info[i].flags & KMEM_RO_PROBE_ENABLED);
	return l.count;
}

/* A fresh fd with NPROBES probes, enabled or not, ids in d->ids. */
static void probes_made(struct dev *d, uint32_t flags)
{
	struct kmem_ro_probe_spec s[NPROBES];
	unsigned int added;

	if (d->aux >= 0)
		close(d->aux);
	d->aux = vt_open_dev();
	specs(s, flags);
	ck_assert_int_eq(vt_probe_add(d->aux, s, NPROBES, &added), 0);
	ck_assert_uint_eq(added, NPROBES);
	for (int i = 0; i < NPROBES; i++) {
		ck_assert_int_gt(s[i].result, 0);
		d->ids[i] = s[i].result;
	}
}

static void probes_closed(struct dev *d)
{
	unsigned int enabled;

	close(d->aux);
	d->aux = -1;
	/* every file's probes: none left (d->fd never had any) */
	struct kmem_ro_probe_list l = { .size = sizeof(l), .flags = KMEM_RO_PROBE_LIST_ALL_FILES };

	ck_assert_int_eq(vt_ioctl(d->fd, KMEM_RO_IOC_PROBE_LIST, &l), 0);
	ck_assert_uint_eq(l.count, 0);
	ck_assert_uint_eq(probes_listed(d->fd, &enabled), 0);
}

/* ADD on a fresh fd: the file's probe set, its hash, each probe, ftrace and kprobes */
static void prep_fresh(void *arg)
{
	struct dev *d = arg;

	if (d->aux >= 0)
		close(d->aux);
	d->aux = vt_open_dev();
}

static struct kmem_ro_probe_spec add_specs[NPROBES];
static unsigned int add_n, add_added;

static int run_add(void *arg)
{
	struct dev *d = arg;

	specs(add_specs, KMEM_RO_PROBE_ENABLED);
	add_n = NPROBES;
	return vt_probe_add(d->aux, add_specs, add_n, &add_added);
}

/*
 * One entry spec alone: ftrace's check of it cannot be split in halves, so
 * its allocation failing must read ENOMEM, not a place ftrace refuses
 * (EOPNOTSUPP, which a tool takes for good).
 */
static int run_add_one(void *arg)
{
	struct dev *d = arg;

	specs(add_specs, KMEM_RO_PROBE_ENABLED);
	add_n = 1;
	return vt_probe_add(d->aux, add_specs, add_n, &add_added);
}

static void check_add(void *arg, int ret)
{
	struct dev *d = arg;
	unsigned int made = 0, listed, enabled;

	for (unsigned int i = 0; !ret && i < add_n; i++) {
		/* each spec: its id, or ENOMEM for this spec alone */
		ck_assert_msg(add_specs[i].result > 0 || add_specs[i].result == -ENOMEM,
			      "spec %u: %lld", i, (long long)add_specs[i].result);
		made += add_specs[i].result > 0;
	}
	ck_assert_uint_eq(ret ? 0 : add_added, made);
	listed = probes_listed(d->aux, &enabled);
	ck_assert_uint_eq(listed, made);
	ck_assert_uint_eq(enabled, made);
	probes_closed(d);
}

static void prep_disabled(void *arg)
{
	probes_made(arg, 0);
}

static void prep_enabled(void *arg)
{
	probes_made(arg, KMEM_RO_PROBE_ENABLED);
}

static unsigned int ids_done;

static int ids_call(struct dev *d, unsigned long cmd, uint64_t flags, uint64_t *counts)
{
	uint64_t ids[NPROBES];

	memcpy(ids, d->ids, sizeof(ids));
	ids_done = 0;
	return vt_probe_ids(d->aux, cmd, flags, ids, NPROBES, counts, &ids_done);
}

static int run_enable(void *arg)
{
	return ids_call(arg, KMEM_RO_IOC_PROBE_ENABLE, 0, NULL);
}

static int run_disable(void *arg)
{
	return ids_call(arg, KMEM_RO_IOC_PROBE_DISABLE, 0, NULL);
}

static int run_del(void *arg)
{
	return ids_call(arg, KMEM_RO_IOC_PROBE_DEL, 0, NULL);
}

static int run_stats(void *arg)
{
	uint64_t counts[NPROBES] = { 0 };

	return ids_call(arg, KMEM_RO_IOC_PROBE_STATS, KMEM_RO_PROBE_RESET, counts);
}

/* ENABLE: the first ids_done enabled, the rest not (ENABLE stops at a failed id) */
static void check_enable(void *arg, int ret)
{
	struct dev *d = arg;
	unsigned int enabled;

	ck_assert_uint_eq(probes_listed(d->aux, &enabled), NPROBES);
	ck_assert_uint_eq(enabled, ret ? 0 : ids_done);
	probes_closed(d);
}

static void check_disable(void *arg, int ret)
{
	struct dev *d = arg;
	unsigned int enabled;

	ck_assert_uint_eq(probes_listed(d->aux, &enabled), NPROBES);
	ck_assert_uint_eq(enabled, NPROBES - (ret ? 0 : ids_done));
	probes_closed(d);
}

static void check_del(void *arg, int ret)
{
	struct dev *d = arg;
	unsigned int enabled;

	/* DEL cannot fail past its ids: ENOMEM before, or all gone */
	ck_assert_uint_eq(probes_listed(d->aux, &enabled), ret ? NPROBES : 0);
	if (!ret)
		ck_assert_uint_eq(ids_done, NPROBES);
	probes_closed(d);
}

static void check_done(void *arg, int ret)
{
	struct dev *d = arg;
	unsigned int enabled;

	if (!ret)
		ck_assert_uint_eq(ids_done, NPROBES);
	ck_assert_uint_eq(probes_listed(d->aux, &enabled), NPROBES);
	probes_closed(d);
}

static int run_list_all(void *arg)
{
	struct dev *d = arg;
	struct kmem_ro_probe_info info[8];
	struct kmem_ro_probe_list l = {
		.size = sizeof(l), .flags = KMEM_RO_PROBE_LIST_ALL_FILES,
		.buf_addr = (uintptr_t)info, .cap = 8,
	};
	int err;

	memset(info, 0, sizeof(info));
	err = vt_ioctl(d->fd, KMEM_RO_IOC_PROBE_LIST, &l);
	if (!err)
		ck_assert_uint_eq(l.count, NPROBES);
	return err;
}

static int run_filter(void *arg)
{
	struct dev *d = arg;
	struct kmem_ro_probe_filter f = {
		.size = sizeof(f), .flags = KMEM_RO_PROBE_FILTER_PID | KMEM_RO_PROBE_FILTER_COMM,
		.pid = getpid(), .comm = "fault_inject_te",
	};

	return vt_ioctl(d->aux, KMEM_RO_IOC_PROBE_FILTER, &f);
}

static int snapshot(struct dev *d, uint64_t flags, uint32_t interval_ms)
{
	struct kmem_ro_events_snapshot s = {
		.size = sizeof(s), .flags = flags, .interval_ms = interval_ms,
	};

	return vt_ioctl(d->aux, KMEM_RO_IOC_EVENTS_SNAPSHOT, &s);
}

static int run_snap_start(void *arg)
{
	return snapshot(arg, 0, KMEM_RO_EVENTS_SNAPSHOT_MAX_MS);
}

/* started: stop works; failed: there was nothing to stop */
static void check_snap_start(void *arg, int ret)
{
	struct dev *d = arg;

	ck_assert_int_eq(snapshot(d, KMEM_RO_EVENTS_SNAPSHOT_STOP, 0), ret ? -ENOENT : 0);
	probes_closed(d);
}

static void prep_snapping(void *arg)
{
	struct dev *d = arg;

	probes_made(d, 0);
	ck_assert_int_eq(snapshot(d, 0, KMEM_RO_EVENTS_SNAPSHOT_MAX_MS), 0);
}

static int run_snap_stop(void *arg)
{
	return snapshot(arg, KMEM_RO_EVENTS_SNAPSHOT_STOP, 0);
}

static void check_snap_stop(void *arg, int ret)
{
	struct dev *d = arg;

	ck_assert_int_eq(snapshot(d, KMEM_RO_EVENTS_SNAPSHOT_STOP, 0), ret ? 0 : -ENOENT);
	probes_closed(d);
}

/* close() of a file with enabled probes: release cannot fail, and leaves none */
static int run_close(void *arg)
{
	struct dev *d = arg;
	int err = close(d->aux) ? -errno : 0;

	d->aux = -1;
	return err;
}

static void check_closed(void *arg, int ret)
{
	struct dev *d = arg;
	struct kmem_ro_probe_list l = { .size = sizeof(l), .flags = KMEM_RO_PROBE_LIST_ALL_FILES };

	(void)ret;
	ck_assert_int_eq(vt_ioctl(d->fd, KMEM_RO_IOC_PROBE_LIST, &l), 0);
	ck_assert_uint_eq(l.count, 0);
}

static void check_probes(void *arg, int ret)
{
	(void)ret;
	probes_closed(arg);
}

START_TEST(probe_calls)
{
	struct dev *d = dev_new();
	const struct fi_call calls[] = {
		{ "PROBE_ADD", prep_fresh, run_add, check_add, d },
		{ "PROBE_ADD one entry spec", prep_fresh, run_add_one, check_add, d },
		{ "PROBE_ENABLE", prep_disabled, run_enable, check_enable, d },
		{ "PROBE_DISABLE", prep_enabled, run_disable, check_disable, d },
		{ "PROBE_STATS", prep_enabled, run_stats, check_done, d },
		{ "PROBE_DEL", prep_enabled, run_del, check_del, d },
		{ "PROBE_LIST", prep_enabled, run_list_all, check_probes, d },
		{ "PROBE_FILTER", prep_enabled, run_filter, check_probes, d },
		{ "EVENTS_SNAPSHOT start", prep_disabled, run_snap_start, check_snap_start, d },
		{ "EVENTS_SNAPSHOT stop", prep_snapping, run_snap_stop, check_snap_stop, d },
		{ "close with probes", prep_enabled, run_close, check_closed, d },
	};
	unsigned int n;

	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		n = fail_each(&calls[i]);
		/* ADD: the set, its hash, probes, counters, kprobes, ftrace */
		if (i == 0)
			ck_assert_uint_ge(n, 5);
	}
	dev_free(d);
}
END_TEST

/* ---- events ---- */

/*
 * One GET_INFO per fresh stream, so that a failed call leaves nothing
 * queued for the next.
 */
static void prep_stream(void *arg)
{
	struct dev *d = arg;

	ck_assert_int_eq(kmemdev_events_open(&d->ev, NULL), 0);
}

static int run_events_info(void *arg)
{
	struct dev *d = arg;
	uint64_t dropped;
	unsigned int snapshots;

	return kmemdev_events_info(d->ev, &dropped, &snapshots);
}

static void check_stream(void *arg, int ret)
{
	struct dev *d = arg;

	(void)ret;
	kmemdev_events_close(d->ev);
	d->ev = NULL;
}

START_TEST(events_info)
{
	struct dev *d = dev_new();
	const struct fi_call c = {
		"events GET_INFO", prep_stream, run_events_info, check_stream, d
	};

	/* the reply the driver builds */
	ck_assert_uint_ge(fail_each(&c), 1);
	dev_free(d);
}
END_TEST

/*
 * Module events: unloading kmem_ro_testobj runs kmem_ro's module
 * notifiers in this task (a message to the subscribed stream, the record
 * of dead text), as a load does (the same allocations).  The unload never
 * fails for them; the event is delivered, or counted as dropped.  Not a
 * load: the test object's own init would run in this task, and its text
 * may land in the filter's slack after kmem_ro's last function (one run
 * failed its init so).
 */
#define TESTOBJ	"kmem_ro_testobj"

static uint64_t dropped_before;

/* the driver's count of dropped messages (a stream of its own: see events_info) */
static uint64_t events_dropped(struct dev *d)
{
	struct kmemdev_events *ev;
	uint64_t dropped;
	unsigned int snapshots;

	(void)d;
	ck_assert_int_eq(kmemdev_events_open(&ev, NULL), 0);
	ck_assert_int_eq(kmemdev_events_info(ev, &dropped, &snapshots), 0);
	kmemdev_events_close(ev);
	return dropped;
}

static void prep_testobj(struct dev *d, int loaded)
{
	if ((vt_module_refcnt(TESTOBJ) >= 0) != loaded)
		ck_assert_int_eq(loaded ? vt_module_load(VMTEST_TESTOBJ_PATH, "") :
			       vt_module_unload(TESTOBJ), 0);
	/* what the stream holds so far is not this call's */
	for (const struct kmemdev_event *e; kmemdev_events_next(d->ev, 0, &e) != 0;)
		;
	dropped_before = events_dropped(d);
}

static void prep_unload(void *arg)
{
	prep_testobj(arg, 1);
}

static int run_testobj_unload(void *arg)
{
	(void)arg;
	return vt_module_unload(TESTOBJ);
}

/* @type for the test object came, or the driver counted it dropped */
static void check_event(struct dev *d, int type)
{
	const struct kmemdev_event *e;
	unsigned int seen = 0;
	uint64_t dropped = events_dropped(d) - dropped_before;
	int ret;

	while ((ret = kmemdev_events_next(d->ev, 0, &e)) != 0) {
		/* ENOBUFS: the socket missed one, which the driver counted */
		ck_assert_msg(ret == 1 || ret == -ENOBUFS, "events: %s", strerror(-ret));
		if (ret == 1 && e->type == type && !strcmp(e->module.name, TESTOBJ))
			seen++;
	}
	ck_assert_msg(seen + dropped == 1, "%u events, %llu dropped", seen,
		      (unsigned long long)dropped);
}

static void check_unload(void *arg, int ret)
{
	ck_assert_int_eq(ret, 0);
	ck_assert_int_eq(vt_module_refcnt(TESTOBJ), -1);
	check_event(arg, KMEMDEV_EVENT_MODULE_UNLOADED);
}

START_TEST(module_events)
{
	struct dev *d = dev_new();
	const struct fi_call c = {
		"module unload event", prep_unload, run_testobj_unload, check_unload, d
	};

	ck_assert_int_eq(kmemdev_events_open(&d->ev, NULL), 0);
	ck_assert_int_eq(kmemdev_events_subscribe(d->ev, KMEMDEV_EVENTS_MODULES), 0);
	/* the event's message, and the record of the dead text */
	ck_assert_uint_ge(fail_each(&c), 2);
	/* as the harness left it */
	ck_assert_int_eq(vt_module_load(VMTEST_TESTOBJ_PATH, ""), 0);
	kmemdev_events_close(d->ev);
	dev_free(d);
}
END_TEST

/* ---- a group member ---- */

static int member_calls(void *arg)
{
	struct dev *d;
	unsigned int total = 0;

	(void)arg;
	/* setuid() left /proc/self root's: make it this user's again */
	if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0))
		return 2;
	close(nth_fd);	/* the parent's thread */
	nth_open();
	d = dev_new();
	const struct fi_call calls[] = {
		{ "member INFO", NULL, run_info, NULL, d },
		{ "member READV", NULL, run_readv, NULL, d },
		{ "member PAGEMAP", NULL, run_pagemap, NULL, d },
		{ "member mmap text", NULL, run_mmap_text, NULL, d },
	};

	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++)
		total += fail_each(&calls[i]);
	dev_free(d);
	return total >= 4 ? 0 : 3;
}

START_TEST(member)
{
	gid_t groups[] = { MONITOR_GID };
	int status;

	ck_assert_int_eq(chown(KMEM_RO_DEVICE, 0, MONITOR_GID), 0);
	status = vt_run_as_groups(MEMBER_UID, MEMBER_UID, groups, 1, -1, member_calls, NULL);
	ck_assert_int_eq(chown(KMEM_RO_DEVICE, 0, 0), 0);
	ck_assert_int_eq(status, 0);
}
END_TEST

/* ---- module init and exit ---- */

static int run_load(void *arg)
{
	(void)arg;
	return vt_module_load(VMTEST_MODULE_PATH, "");
}

/* loaded: unload it again; failed: nothing of it is left (loading works) */
static void check_load(void *arg, int ret)
{
	(void)arg;
	if (ret) {
		ck_assert_int_eq(vt_module_refcnt("kmem_ro"), -1);
		ck_assert_int_eq(access(KMEM_RO_DEVICE, F_OK), -1);
		return;
	}
	ck_assert_int_eq(vt_wait_node(), 0);
	ck_assert_int_eq(vt_module_unload("kmem_ro"), 0);
}

static void prep_loaded(void *arg)
{
	(void)arg;
	ck_assert_int_eq(vt_module_load(VMTEST_MODULE_PATH, ""), 0);
	module_text(&text_lo, &text_hi);
	fi_filter(text_lo, text_hi);
}

static int run_unload(void *arg)
{
	(void)arg;
	return vt_module_unload("kmem_ro");
}

static void check_unloaded(void *arg, int ret)
{
	(void)arg;
	(void)ret;
	ck_assert_int_eq(vt_module_refcnt("kmem_ro"), -1);
}

START_TEST(load_and_unload)
{
	const struct fi_call load = { "module init", NULL, run_load, check_load, NULL };
	const struct fi_call unload = { "module exit", prep_loaded, run_unload, check_unloaded,
					NULL };
	struct dev *d;
	const struct fi_call read = { "first pread after load", NULL, run_read, NULL, NULL };
	struct fi_call r = read;

	ck_assert_int_eq(vt_module_unload("kmem_ro"), 0);
	fi_filter(MODULES_VADDR, MODULES_END);
	/* the RAM snapshot, events family, probe state, hotplug inode, misc device */
	ck_assert_uint_ge(fail_each(&load), 5);
	fail_each(&unload);
	/* loaded again, as the harness left it; its read spare is not made yet */
	prep_loaded(NULL);
	ck_assert_int_eq(vt_wait_node(), 0);
	d = dev_new();
	r.arg = d;
	/* INFO made no read page: the first big read allocates it */
	ck_assert_uint_eq(fail_each(&r), 1);
	dev_free(d);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("fault_inject");
	TCase *calls = tcase_create("calls"), *load = tcase_create("load");

	tcase_add_checked_fixture(calls, setup, teardown);
	tcase_set_timeout(calls, 900);
	tcase_add_test(calls, plain_calls);
	tcase_add_test(calls, ram_mmap);
	tcase_add_test(calls, probe_calls);
	tcase_add_test(calls, events_info);
	tcase_add_test(calls, module_events);
	tcase_add_test(calls, member);
	suite_add_tcase(s, calls);
	/* last: it unloads and loads kmem_ro */
	tcase_add_checked_fixture(load, setup, teardown);
	tcase_set_timeout(load, 1800);
	tcase_add_test(load, load_and_unload);
	suite_add_tcase(s, load);
	return vt_main(s);
}
