// SPDX-License-Identifier: GPL-2.0
/*
 * Stress: eight reader threads (mmap, READV, WALK, PAGEMAP) while a probe
 * thread adds, enables, disables and deletes probes and kmem_ro_testobj.ko
 * is unloaded and loaded again under them (the module area changes under
 * the readers, and probed module functions disappear); 100 unload/load
 * cycles of kmem_ro with readers holding it in between; readers SIGKILLed
 * in the middle of large batches.  Nothing may be left behind: the
 * module's reference count, our probes in tracefs and debugfs, and the
 * slab caches come back to their baseline, and the guest log stays clean
 * (judged by run.sh).
 *
 * Every call's result is counted, and one outside what the call may
 * answer under these conditions (say EINVAL from ENABLE, or a kernel-image
 * READV segment not read whole) fails the test.  main() prints one block of
 * "@@STRESS " lines: kernel, durations, calls and errno histogram per
 * operation, which run.sh appends to a results file (VM_RESULTS, `make
 * stress`) so that runs can be compared.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kmemdev.h"
#include "vmtest.h"

#define PAGE		4096UL
/* The top of 4-level user space: inside TASK_SIZE_MAX with or without LA57. */
#define USER_TOP	((1ULL << 47) - PAGE)
#define READERS		8
#define CHURN_CYCLES	12		/* testobj unload/load under the readers */
#define WARMUP_CYCLES	4		/* kmem_ro cycles before the slab baseline */
#define INTERVALS	8		/* then slab counts every INTERVAL_CYCLES: */
#define INTERVAL_CYCLES	12		/* 100 cycles in all */
#define KILLS		12		/* three of each of the four kinds */
#define TESTOBJ		"kmem_ro_testobj"
#define SECTIONS	"/sys/module/" TESTOBJ "/sections/"
#define FTRACE_LIST	"/sys/kernel/tracing/enabled_functions"
#define KPROBE_LIST	"/sys/kernel/debug/kprobes/list"
#define OUR_CALLBACK	"kmem_ro_probe_ftrace"

/* ---- counters shared by every test process (Check forks per test) ---- */

enum op {
	OP_OPEN, OP_MMAP, OP_READV, OP_READV_SEG, OP_WALK, OP_PAGEMAP,
	OP_PROBE_ADD, OP_PROBE_SPEC, OP_PROBE_ENABLE, OP_PROBE_DISABLE, OP_PROBE_DEL,
	OP_TESTOBJ_UNLOAD, OP_TESTOBJ_LOAD, OP_KMEM_RO_UNLOAD, OP_KMEM_RO_LOAD, OP_KILL,
	NR_OPS
};

static const char *const op_name[NR_OPS] = {
	"open", "mmap", "readv", "readv_seg", "walk", "pagemap",
	"probe_add", "probe_spec", "probe_enable", "probe_disable", "probe_del",
	"testobj_unload", "testobj_load", "kmem_ro_unload", "kmem_ro_load", "kill",
};

#define NR_ERRNO	134
#define NR_TESTS	8

struct stats {
	unsigned long hist[NR_OPS][NR_ERRNO];	/* [op][errno]; 0 is success */
	unsigned long walk_status[8];
	unsigned long unexpected;
	unsigned long gone_seen;		/* probes LIST showed GONE */
	unsigned int ntests;
	char test[NR_TESTS][32];
	double test_s[NR_TESTS];
	char leak[512];				/* the slab figures, for the summary */
	double reload_s[4];			/* unload, load, holders up, holders gone */
};

static struct stats *stats;

/* The errnos an operation may end with, 0-terminated; success is always fine. */
#define OK(...)	((const int[]){ __VA_ARGS__ __VA_OPT__(,) 0 })

static bool allowed(const int *ok, int e)
{
	for (; *ok; ok++)
		if (*ok == e)
			return true;
	return false;
}

/* Count one result of @op: >= 0 or -errno.  Returns true if it was allowed. */
static bool note(enum op op, long res, const int *ok)
{
	int e = res < 0 ? (int)-res : 0;

	__atomic_fetch_add(&stats->hist[op][e < NR_ERRNO ? e : NR_ERRNO - 1], 1, __ATOMIC_RELAXED);
	if (!e || allowed(ok, e))
		return true;
	if (__atomic_fetch_add(&stats->unexpected, 1, __ATOMIC_RELAXED) < 20)
		fprintf(stderr, "stress: %s: unexpected %s\n", op_name[op], strerrorname_np(e));
	return false;
}

static void unexpected(const char *what)
{
	if (__atomic_fetch_add(&stats->unexpected, 1, __ATOMIC_RELAXED) < 20)
		fprintf(stderr, "stress: %s\n", what);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void test_time(const char *name, double t0)
{
	unsigned int i = stats->ntests++;

	if (i < NR_TESTS) {
		snprintf(stats->test[i], sizeof(stats->test[i]), "%s", name);
		stats->test_s[i] = now() - t0;
	}
}

/* ---- what the readers read ---- */

struct sym {
	uint64_t addr;
	char name[KMEM_RO_PROBE_NAME_LEN];
	char section[32];	/* testobj functions: the section they live in */
	uint64_t sec_off;
	uint32_t kprobe_off;	/* just past the fentry call */
};

struct ctx {
	struct kmem_ro_info info;
	struct kmem_ro_range ram[64];
	unsigned int nram;
	bool mmap_ram;			/* RAM (not only text) is mappable */
	uint64_t text_phys, banner, banner_phys;
	char banner_text[64];
	uint64_t init_task;
	uint32_t tasks_off, pid_off, comm_off;
	pid_t dead_pid;			/* a reaped child: ESRCH */
	/* kmem_ro_testobj.ko: stale while it is unloaded or moved */
	_Atomic uint64_t good_head, vbuf, vguard, mmio, mod_text, mod_data;
	uint32_t link_off, id_off, name_off;
	/* probe targets */
	struct sym vmlinux[16], testobj[8];
	unsigned int nvmlinux, ntestobj;
	atomic_int stop;
};

static uint64_t read_hex(const char *path)
{
	FILE *f = fopen(path, "re");
	unsigned long long v = 0;

	if (f) {
		if (fscanf(f, "%llx", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}

/* Refresh the testobj addresses (no assertion: called from threads). */
static int testobj_refresh(struct ctx *c)
{
	FILE *f = fopen("/sys/kernel/debug/" TESTOBJ, "re");
	char key[64], text[64];
	uint64_t val;

	if (!f)
		return -errno;
	while (fscanf(f, "%63s %63s", key, text) == 2) {
		val = strtoull(text, NULL, 0);
		if (!strcmp(key, "good_head"))
			c->good_head = val;
		else if (!strcmp(key, "vbuf"))
			c->vbuf = val;
		else if (!strcmp(key, "vguard"))
			c->vguard = val;
		else if (!strcmp(key, "mmio"))
			c->mmio = val;
		else if (!strcmp(key, "link_offset"))
			c->link_off = val;
		else if (!strcmp(key, "id_offset"))
			c->id_off = val;
		else if (!strcmp(key, "name_offset"))
			c->name_off = val;
	}
	fclose(f);
	c->mod_text = read_hex(SECTIONS ".text");
	c->mod_data = read_hex(SECTIONS ".data");
	return 0;
}

static const char *const hot_vmlinux[] = {
	"vfs_read", "ksys_read", "seq_read_iter", "do_init_module", "__x64_sys_finit_module",
	"__x64_sys_delete_module", "do_sys_openat2", "__x64_sys_ioctl", "vm_mmap_pgoff",
	"__x64_sys_munmap",
};

/* The testobj section holding @addr: the nearest start at or below it. */
static void testobj_section(struct sym *s)
{
	static const char *const secs[] = { ".text", ".exit.text", ".text.unlikely" };
	uint64_t best = 0, base;
	char path[128];

	for (unsigned int i = 0; i < sizeof(secs) / sizeof(secs[0]); i++) {
		snprintf(path, sizeof(path), SECTIONS "%s", secs[i]);
		base = read_hex(path);
		if (base && base <= s->addr && base > best) {
			best = base;
			snprintf(s->section, sizeof(s->section), "%s", secs[i]);
		}
	}
	s->sec_off = s->addr - best;
}

#define NR_HOT	(sizeof(hot_vmlinux) / sizeof(hot_vmlinux[0]))

/*
 * One pass over /proc/kallsyms (seconds under TCG): linux_banner,
 * init_task, the hot vmlinux functions in the order of hot_vmlinux[], the
 * testobj functions, and up to @cap vmlinux functions as disabled probe
 * specs.  Returns the number of specs.
 */
static unsigned int scan_kallsyms(struct ctx *c, struct kmem_ro_probe_spec *specs,
				  unsigned int cap)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512], name[256], mod[64], type;
	struct sym hot[NR_HOT] = { 0 };
	unsigned long long addr;
	unsigned int n = 0;
	int k;

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		k = sscanf(line, "%llx %c %255s [%63[^]]]", &addr, &type, name, mod);
		if (k == 3 && !strcmp(name, "linux_banner"))
			c->banner = addr;
		if (k == 3 && !strcmp(name, "init_task"))
			c->init_task = addr;
		if (k < 3 || (type != 't' && type != 'T') || strlen(name) >= KMEM_RO_PROBE_NAME_LEN)
			continue;
		if (k == 4) {
			if (strcmp(mod, TESTOBJ) || c->ntestobj == 8 || strncmp(name, "testobj_", 8))
				continue;
			c->testobj[c->ntestobj].addr = addr;
			snprintf(c->testobj[c->ntestobj].name, KMEM_RO_PROBE_NAME_LEN, "%s", name);
			testobj_section(&c->testobj[c->ntestobj++]);
			continue;
		}
		for (unsigned int i = 0; i < NR_HOT; i++)
			if (!strcmp(name, hot_vmlinux[i]) && !hot[i].addr) {
				hot[i].addr = addr;
				snprintf(hot[i].name, KMEM_RO_PROBE_NAME_LEN, "%s", name);
			}
		/* about one function in seven, spread over the text; no preambles */
		if (specs && n < cap && addr % 7 == 0 && strncmp(name, "__pfx_", 6) &&
		    strncmp(name, "__cfi_", 6)) {
			memset(&specs[n], 0, sizeof(specs[n]));
			specs[n].addr = addr;
			snprintf(specs[n++].name, KMEM_RO_PROBE_NAME_LEN, "%s", name);
		}
	}
	fclose(f);
	for (unsigned int i = 0; i < NR_HOT; i++)
		if (hot[i].addr) {
			hot[i].kprobe_off = vt_after_fentry(hot[i].addr);
			c->vmlinux[c->nvmlinux++] = hot[i];
		}
	for (unsigned int i = 0; i < c->ntestobj; i++)
		c->testobj[i].kprobe_off = vt_after_fentry(c->testobj[i].addr);
	return n;
}

/* What every test starts from: made once, in the parent, before the tests fork. */
static struct ctx base;
static struct kmem_ro_probe_spec *kill_specs;
static unsigned int nkill_specs;

#define KILL_SPECS_CAP	4000	/* probes a killed child adds per call */

/* Each test case's unchecked fixture: the first one does the work. */
static void setup(void)
{
	KMEMDEV_OPTS(kmemdev_open_opts, kc, .backend = KMEMDEV_BACKEND_KCORE);
	struct ctx *c = &base;
	struct kmemdev *h;
	pid_t pid;
	int fd;

	if (c->init_task)
		return;
	fd = vt_open_dev();
	ck_assert_int_eq(vt_info(fd, &c->info, c->ram, 64), 0);
	c->nram = c->info.ram_count < 64 ? c->info.ram_count : 64;
	close(fd);
	c->text_phys = c->info.text_start - c->info.kernel_map + c->info.phys_base;
	kill_specs = calloc(KILL_SPECS_CAP, sizeof(*kill_specs));
	ck_assert_ptr_nonnull(kill_specs);
	nkill_specs = scan_kallsyms(c, kill_specs, KILL_SPECS_CAP);
	ck_assert_uint_ne(c->banner, 0);
	ck_assert_uint_ne(c->init_task, 0);
	ck_assert_uint_gt(c->nvmlinux, 3);
	ck_assert_str_eq(c->vmlinux[0].name, "vfs_read");
	ck_assert_uint_gt(c->ntestobj, 0);
	c->banner_phys = c->banner - c->info.kernel_map + c->info.phys_base;
	ck_assert_int_eq(vt_kcore_read(c->banner, c->banner_text, sizeof(c->banner_text)), 0);
	/* offsets from BTF through kcore: no device fd held for this */
	ck_assert_int_eq(kmemdev_open(&h, &kc), 0);
	ck_assert_int_eq(kmemdev_btf_member(h, "task_struct", "tasks", &c->tasks_off, NULL), 0);
	ck_assert_int_eq(kmemdev_btf_member(h, "task_struct", "pid", &c->pid_off, NULL), 0);
	ck_assert_int_eq(kmemdev_btf_member(h, "task_struct", "comm", &c->comm_off, NULL), 0);
	kmemdev_close(h);
	ck_assert_int_eq(testobj_refresh(c), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid)
		_exit(0);
	ck_assert_int_eq(waitpid(pid, NULL, 0), pid);
	c->dead_pid = pid;
}

/* A test's own copy of the setup. */
static void ctx_init(struct ctx *c)
{
	memcpy(c, &base, sizeof(*c));
	c->mmap_ram = false;	/* the module's default */
}

/* ---- reader operations: each counts its calls and errnos ---- */

struct reader {
	struct ctx *c;
	int fd;
	unsigned int id;
	uint64_t rnd;
	unsigned long ops;
	char *buf;			/* BUF_SIZE bytes */
	pthread_t thread;
	atomic_int ready;
	/* reload cycles: what this reader holds */
	void *held;
	bool add_probe, drop_fd;
};

#define BUF_SIZE	(1UL << 20)

static uint64_t rnd(struct reader *r)
{
	r->rnd ^= r->rnd << 13;
	r->rnd ^= r->rnd >> 7;
	r->rnd ^= r->rnd << 17;
	return r->rnd;
}

/* A random page-aligned physical range of @len inside System RAM, 0 if none. */
static uint64_t ram_phys(struct reader *r, uint64_t *len)
{
	const struct kmem_ro_range *g = &r->c->ram[rnd(r) % r->c->nram];
	uint64_t start = (g->start + PAGE - 1) & ~(PAGE - 1), end = g->end & ~(PAGE - 1);

	if (end <= start)
		return 0;
	if (*len > end - start)
		*len = end - start;
	return start + (rnd(r) % ((end - start - *len) / PAGE + 1)) * PAGE;
}

static void op_mmap(struct reader *r)
{
	struct ctx *c = r->c;
	uint64_t phys, len, lo, hi;	/* [lo, hi): what may be touched */
	volatile const char *p;
	unsigned int kind = rnd(r) % 3;

	if (kind == 0) {		/* the whole text */
		phys = c->text_phys;
		len = (c->info.text_end - c->info.text_start + PAGE - 1) & ~(PAGE - 1);
	} else if (kind == 1) {		/* the page of linux_banner (rodata) */
		phys = c->banner_phys & ~(PAGE - 1);
		len = 2 * PAGE;
	} else {			/* up to 2 MiB of RAM */
		len = 2UL << 20;
		phys = ram_phys(r, &len);
		if (!phys)
			return;
	}
	p = mmap(NULL, len, PROT_READ, MAP_SHARED, r->fd, (off_t)phys);
	lo = 0;
	hi = len;
	if (p == MAP_FAILED) {
		/* mmap_ram=0 leaves only the text mappable */
		note(OP_MMAP, -errno, c->mmap_ram || kind == 0 ? OK() : OK(EPERM));
		return;
	}
	note(OP_MMAP, 0, OK());
	if (!c->mmap_ram && kind != 0) {
		/*
		 * mmap_ram=0 maps RAM that meets the text, but only the text
		 * in it reads: the rest is the refused page, as documented.
		 */
		uint64_t text_len = (c->info.text_end - c->info.text_start + PAGE - 1) & ~(PAGE - 1);

		lo = (phys > c->text_phys ? phys : c->text_phys) - phys;
		hi = (phys + len < c->text_phys + text_len ? phys + len : c->text_phys + text_len) - phys;
	}
	for (int i = 0; i < 16; i++)
		(void)p[lo + (rnd(r) % ((hi - lo) / PAGE)) * PAGE + rnd(r) % PAGE];
	if (kind == 1 && c->mmap_ram &&
	    memcmp((const char *)p + (c->banner_phys & (PAGE - 1)), c->banner_text,
		   sizeof(c->banner_text)))
		unexpected("mmap: linux_banner differs from /proc/kcore");
	munmap((void *)p, len);
}

enum seg_kind { SEG_TEXT, SEG_BANNER, SEG_INIT_TASK, SEG_RAM, SEG_MOD_TEXT, SEG_MOD_DATA,
		SEG_VBUF, SEG_MMIO, SEG_GUARD, SEG_MODULES, SEG_VMALLOC, NR_SEG_KINDS };

static void op_readv(struct reader *r)
{
	struct ctx *c = r->c;
	struct kmem_ro_iov iov[256];
	unsigned char kinds[256];
	unsigned int n = 32 + rnd(r) % 225, i;
	struct kmem_ro_readv rv = { .size = sizeof(rv), .iov_addr = (uintptr_t)iov, .iov_count = n };
	uint64_t off = 0, len, addr, phys;
	int err;

	for (i = 0; i < n; i++) {
		kinds[i] = rnd(r) % NR_SEG_KINDS;
		len = 8 + rnd(r) % 512;
		switch (kinds[i]) {
		case SEG_TEXT:
			addr = c->info.text_start +
			       rnd(r) % (c->info.text_end - c->info.text_start - len);
			break;
		case SEG_BANNER:
			addr = c->banner;
			len = sizeof(c->banner_text);
			break;
		case SEG_INIT_TASK:
			addr = c->init_task;
			break;
		case SEG_RAM:
			len = PAGE;
			phys = ram_phys(r, &len);
			addr = c->info.page_offset + phys;
			break;
		case SEG_MOD_TEXT:
			addr = c->mod_text + rnd(r) % PAGE;
			break;
		case SEG_MOD_DATA:
			addr = c->mod_data + rnd(r) % PAGE;
			break;
		case SEG_VBUF:
			len = 1 + rnd(r) % (3 * PAGE);
			addr = c->vbuf;
			break;
		case SEG_MMIO:
			addr = c->mmio;
			len = 8;
			break;
		case SEG_GUARD:
			addr = c->vguard - 16;
			len = 32;
			break;
		case SEG_MODULES:
			addr = c->info.modules_start +
			       rnd(r) % (c->info.modules_end - c->info.modules_start - len);
			break;
		default:
			addr = c->info.vmalloc_start +
			       rnd(r) % (c->info.vmalloc_end - c->info.vmalloc_start - len);
			break;
		}
		if (off + len > BUF_SIZE)	/* the batch ends where the buffer does */
			break;
		iov[i] = (struct kmem_ro_iov){ .addr = addr, .len = len,
					       .buf = (uintptr_t)r->buf + off, .result = 0x7777 };
		off += len;
	}
	n = rv.iov_count = i;
	err = vt_ioctl(r->fd, KMEM_RO_IOC_READV, &rv);
	if (!note(OP_READV, err, OK()) || err)
		return;
	if (rv.done != n)
		unexpected("readv: done short of the batch with no signal");
	for (i = 0; i < rv.done; i++) {
		/* the kernel's own text, data and image: must be read whole */
		if (kinds[i] <= SEG_INIT_TASK) {
			if (iov[i].result != (int64_t)iov[i].len)
				unexpected("readv: kernel image segment not read whole");
			if (kinds[i] == SEG_BANNER &&
			    memcmp((void *)(uintptr_t)iov[i].buf, c->banner_text, iov[i].len))
				unexpected("readv: linux_banner differs from /proc/kcore");
		}
		/* anything else may be gone, moved or never RAM */
		note(OP_READV_SEG, iov[i].result, OK(EFAULT, ENXIO, EPERM));
	}
}

static void op_walk(struct reader *r)
{
	struct ctx *c = r->c;
	struct kmem_ro_field f[2];
	struct kmem_ro_walk w = {
		.size = sizeof(w), .flags = KMEM_RO_WALK_NODE_ADDR,
		.fields_addr = (uintptr_t)f, .fields_count = 2,
		.buf_addr = (uintptr_t)r->buf, .buf_size = BUF_SIZE,
	};
	int err;

	if (rnd(r) & 1) {		/* the task list, while tasks come and go */
		w.head = c->init_task + c->tasks_off;
		w.link_offset = c->tasks_off;
		f[0] = (struct kmem_ro_field){ c->pid_off, 4 };
		f[1] = (struct kmem_ro_field){ c->comm_off, 16 };
	} else {			/* testobj's list: maybe freed by now */
		w.head = c->good_head;
		w.link_offset = c->link_off;
		f[0] = (struct kmem_ro_field){ c->id_off, 4 };
		f[1] = (struct kmem_ro_field){ c->name_off, 12 };
		if (rnd(r) & 1)
			w.max_nodes = 1 + rnd(r) % 1000;
	}
	err = vt_ioctl(r->fd, KMEM_RO_IOC_WALK, &w);
	if (note(OP_WALK, err, OK()) && !err)
		__atomic_fetch_add(&stats->walk_status[w.status & 7], 1, __ATOMIC_RELAXED);
}

static void op_pagemap(struct reader *r)
{
	struct ctx *c = r->c;
	struct kmem_ro_pagemap pm = {
		.size = sizeof(pm), .buf_addr = (uintptr_t)r->buf, .buf_size = BUF_SIZE,
	};
	unsigned int kind = rnd(r) % 6;
	pid_t child = 0;
	int err;

	switch (kind) {
	case 0:			/* our own buffer, flat */
		pm.start = (uintptr_t)r->buf & ~(PAGE - 1);
		pm.end = pm.start + BUF_SIZE;
		pm.buf_size = BUF_SIZE / PAGE * 8;
		break;
	case 1:			/* all of our address space, as runs */
	case 2:			/* init's */
		pm.pid = kind == 2 ? 1 : 0;
		pm.flags = KMEM_RO_PAGEMAP_RUNS;
		pm.start = PAGE;
		pm.end = USER_TOP;
		break;
	case 3:			/* a kernel thread, a reaped process */
		pm.pid = rnd(r) & 1 ? 2 : c->dead_pid;
		pm.start = 0;
		pm.end = PAGE;
		break;
	default:		/* a process that is exiting right now */
		child = fork();
		if (child < 0)
			return;
		if (!child)
			_exit(0);
		pm.pid = child;
		pm.flags = KMEM_RO_PAGEMAP_RUNS;
		pm.start = PAGE;
		pm.end = USER_TOP;
		break;
	}
	err = vt_ioctl(r->fd, KMEM_RO_IOC_PAGEMAP, &pm);
	note(OP_PAGEMAP, err, kind >= 3 ? OK(ESRCH) : OK());
	if (child)
		waitpid(child, NULL, 0);
}

static void reader_step(struct reader *r)
{
	switch ((r->id + r->ops++) % 4) {
	case 0:
		op_mmap(r);
		break;
	case 1:
		op_readv(r);
		break;
	case 2:
		op_walk(r);
		break;
	default:
		op_pagemap(r);
		break;
	}
}

static struct reader *readers_new(struct ctx *c, unsigned int n, int shared_fd)
{
	struct reader *r = calloc(n, sizeof(*r));

	ck_assert_ptr_nonnull(r);
	for (unsigned int i = 0; i < n; i++) {
		r[i].c = c;
		r[i].id = i;
		r[i].rnd = 0x9e3779b97f4a7c15ULL * (i + 1) ^ (uint64_t)getpid();
		r[i].fd = shared_fd;
		r[i].buf = mmap(NULL, BUF_SIZE, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		ck_assert_ptr_ne(r[i].buf, MAP_FAILED);
	}
	return r;
}

static void readers_free(struct reader *r, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		munmap(r[i].buf, BUF_SIZE);
	free(r);
}

/* ---- probe helpers ---- */

/* Lines of @path, -1 if unreadable. */
static int count_lines(const char *path)
{
	FILE *f = fopen(path, "re");
	char line[512];
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		n++;
	fclose(f);
	return n;
}

/* Wait up to a second for kmem_ro's reference count to reach @want. */
static int refcnt_settles(int want)
{
	int n = -1;

	for (int i = 0; i < 1000; i++) {
		n = vt_module_refcnt("kmem_ro");
		if (n == want)
			break;
		usleep(1000);
	}
	return n;
}

/* ---- readers under probe and module churn ---- */

static void *reader_main(void *arg)
{
	struct reader *r = arg;

	while (!atomic_load(&r->c->stop))
		reader_step(r);
	return NULL;
}

/* ENABLE, DISABLE or DEL, counted as @op; every one must succeed. */
static void probe_op(int fd, enum op op, unsigned long cmd, uint64_t *ids, unsigned int n)
{
	note(op, vt_probe_ids(fd, cmd, ids ? 0 : KMEM_RO_PROBE_ALL, ids, n, NULL, NULL), OK());
}

/* Only probes in module text go, and a gone probe is never enabled. */
static void probe_check_list(int fd)
{
	static struct kmem_ro_probe_info info[64];
	struct kmem_ro_probe_list l = { .size = sizeof(l), .buf_addr = (uintptr_t)info, .cap = 64 };

	if (vt_ioctl(fd, KMEM_RO_IOC_PROBE_LIST, &l)) {
		unexpected("probe: LIST failed");
		return;
	}
	for (unsigned int i = 0; i < l.count && i < 64; i++) {
		if (!(info[i].flags & KMEM_RO_PROBE_GONE))
			continue;
		__atomic_fetch_add(&stats->gone_seen, 1, __ATOMIC_RELAXED);
		if ((info[i].flags & KMEM_RO_PROBE_ENABLED) || strncmp(info[i].name, "testobj_", 8))
			unexpected("probe: a gone probe enabled, or one outside the module");
	}
}

/*
 * Add probes on hot vmlinux functions (one as a kprobe at an offset) and on
 * every testobj function at its current address, enable them, disable
 * some, delete most; some stay across rounds so that the module goes away
 * under live probes.  Stale testobj addresses are refused per spec.
 */
static void *prober_main(void *arg)
{
	struct reader *r = arg;
	struct ctx *c = r->c;
	struct kmem_ro_probe_spec s[32];
	uint64_t ids[32], base, addr;
	unsigned int n, k, round = 0;
	char path[128];
	int err;

	while (!atomic_load(&c->stop)) {
		n = 0;
		for (unsigned int i = 0; i < c->nvmlinux; i++)
			vt_probe_spec(&s[n++], c->vmlinux[i].name, c->vmlinux[i].addr, 0,
				      rnd(r) & 1 ? KMEM_RO_PROBE_ENABLED : 0);
		vt_probe_spec(&s[n++], "vfs_read", c->vmlinux[0].addr, c->vmlinux[0].kprobe_off,
			      KMEM_RO_PROBE_ENABLED);
		for (unsigned int i = 0; i < c->ntestobj; i++) {
			const struct sym *t = &c->testobj[i];

			snprintf(path, sizeof(path), SECTIONS "%s", t->section);
			base = read_hex(path);	/* 0 while unloaded: a stale address then */
			addr = (base ?: t->addr - t->sec_off) + t->sec_off;
			vt_probe_spec(&s[n++], t->name, addr, 0,
				      rnd(r) & 1 ? KMEM_RO_PROBE_ENABLED : 0);
			if (i == 0)	/* a kprobe inside the module too */
				vt_probe_spec(&s[n++], t->name, addr, t->kprobe_off, 0);
		}
		err = vt_probe_add(r->fd, s, n, NULL);
		note(OP_PROBE_ADD, err, OK());
		k = 0;
		for (unsigned int i = 0; !err && i < n; i++) {
			/* EEXIST: kept from an earlier round; the rest: a stale address */
			note(OP_PROBE_SPEC, s[i].result, OK(EEXIST, ENOENT, EINVAL, EOPNOTSUPP));
			if (s[i].result > 0)
				ids[k++] = s[i].result;
		}
		if (k) {
			probe_op(r->fd, OP_PROBE_ENABLE, KMEM_RO_IOC_PROBE_ENABLE, ids, k);
			usleep(rnd(r) % 5000);
			probe_op(r->fd, OP_PROBE_DISABLE, KMEM_RO_IOC_PROBE_DISABLE, ids, (k + 1) / 2);
			/* the last two (testobj's) stay: the module goes under them */
			if (k > 2)
				probe_op(r->fd, OP_PROBE_DEL, KMEM_RO_IOC_PROBE_DEL, ids, k - 2);
		}
		probe_check_list(r->fd);
		if (++round % 4 == 0) {
			probe_op(r->fd, OP_PROBE_ENABLE, KMEM_RO_IOC_PROBE_ENABLE, NULL, 0);
			probe_op(r->fd, OP_PROBE_DEL, KMEM_RO_IOC_PROBE_DEL, NULL, 0);
		}
	}
	return NULL;
}

/* Unload and reload testobj; registering a kprobe in it pins it a moment. */
static void *churn_main(void *arg)
{
	struct reader *r = arg;
	int err, tries;

	for (int i = 0; i < CHURN_CYCLES; i++) {
		tries = 0;
		do {
			err = vt_module_unload(TESTOBJ);
			note(OP_TESTOBJ_UNLOAD, err, OK(EWOULDBLOCK));
			if (err)
				usleep(1000);
		} while (err == -EWOULDBLOCK && ++tries < 5000);
		usleep(rnd(r) % 20000);		/* readers see it gone */
		err = vt_module_load(VMTEST_TESTOBJ_PATH, "");
		note(OP_TESTOBJ_LOAD, err, OK());
		if (!err && testobj_refresh(r->c))
			unexpected("testobj: loaded but no debugfs file");
		usleep(rnd(r) % 20000);
	}
	atomic_store(&r->c->stop, 1);
	return NULL;
}

START_TEST(readers_under_probe_and_module_churn)
{
	static struct ctx c;
	unsigned long unexpected0 = stats->unexpected;
	int kprobes0 = count_lines(KPROBE_LIST), shared, prober_fd;
	struct reader *r;
	double t0 = now();

	ctx_init(&c);
	shared = vt_open_dev();
	r = readers_new(&c, READERS + 2, shared);
	/* half the readers share one fd, the other half have their own */
	for (unsigned int i = 0; i < READERS; i++) {
		if (i % 2)
			r[i].fd = vt_open_dev();
		ck_assert_int_eq(pthread_create(&r[i].thread, NULL, reader_main, &r[i]), 0);
	}
	prober_fd = r[READERS].fd = vt_open_dev();
	ck_assert_int_eq(pthread_create(&r[READERS].thread, NULL, prober_main, &r[READERS]), 0);
	ck_assert_int_eq(pthread_create(&r[READERS + 1].thread, NULL, churn_main, &r[READERS + 1]),
			 0);
	for (unsigned int i = 0; i < READERS + 2; i++)
		pthread_join(r[i].thread, NULL);
	for (unsigned int i = 0; i < READERS; i++)
		if (i % 2)
			close(r[i].fd);
	close(prober_fd);
	close(shared);
	readers_free(r, READERS + 2);

	ck_assert_msg(stats->unexpected == unexpected0, "%lu unexpected results",
		      stats->unexpected - unexpected0);
	ck_assert_int_eq(vt_module_refcnt(TESTOBJ), 0);		/* loaded, unused */
	ck_assert_int_eq(refcnt_settles(0), 0);
	ck_assert_int_eq(vt_file_has(FTRACE_LIST, OUR_CALLBACK), 0);
	ck_assert_int_eq(count_lines(KPROBE_LIST), kprobes0);
	test_time("churn", t0);
}
END_TEST

/* ---- unload/load cycles of kmem_ro with readers in between ---- */

static void *holder_main(void *arg)
{
	struct reader *r = arg;
	struct kmem_ro_probe_spec s;

	r->fd = open(KMEM_RO_DEVICE, O_RDONLY | O_CLOEXEC);
	if (!note(OP_OPEN, r->fd < 0 ? -errno : 0, OK())) {
		atomic_store(&r->ready, -1);
		return NULL;
	}
	r->held = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, r->fd, (off_t)r->c->text_phys);
	if (!note(OP_MMAP, r->held == MAP_FAILED ? -errno : 0, OK()))
		r->held = NULL;
	if (r->add_probe) {
		vt_probe_spec(&s, "vfs_read", r->c->vmlinux[0].addr, 0, KMEM_RO_PROBE_ENABLED);
		note(OP_PROBE_ADD, vt_probe_add(r->fd, &s, 1, NULL), OK());
		note(OP_PROBE_SPEC, s.result, OK());
	}
	reader_step(r);		/* one of each kind across the holders */
	if (r->drop_fd) {	/* the mapping alone must keep the module */
		close(r->fd);
		r->fd = -1;
	}
	atomic_store(&r->ready, 1);
	while (!atomic_load(&r->c->stop))
		usleep(1000);
	if (r->held)
		munmap(r->held, PAGE);
	if (r->fd >= 0)
		close(r->fd);
	return NULL;
}

/* One cycle: unload, load, n holders, unload refused, holders go. */
static void reload_cycle(struct ctx *c, unsigned int i, bool last)
{
	static const char *const params[] = { "mmap_ram=1", "", "require_rawio=1" };
	const char *p = last ? "" : params[i % 3];
	unsigned int n = 1 + i % READERS;
	struct reader *r;
	double t = now();
	int err;

	err = vt_module_unload("kmem_ro");
	stats->reload_s[0] += now() - t;
	note(OP_KMEM_RO_UNLOAD, err, OK());
	ck_assert_msg(err == 0, "cycle %u: unload: %s", i, strerror(-err));
	ck_assert_msg(access(KMEM_RO_DEVICE, F_OK) == -1, "cycle %u: node left behind", i);
	t = now();
	err = vt_module_load(VMTEST_MODULE_PATH, p);
	note(OP_KMEM_RO_LOAD, err, OK());
	ck_assert_msg(err == 0, "cycle %u: load %s: %s", i, p, strerror(-err));
	ck_assert_int_eq(vt_wait_node(), 0);
	stats->reload_s[1] += now() - t;
	t = now();
	c->mmap_ram = !strcmp(p, "mmap_ram=1");
	atomic_store(&c->stop, 0);

	r = readers_new(c, n, -1);
	for (unsigned int k = 0; k < n; k++) {
		r[k].ops = i;		/* rotates the holders' kinds of reads */
		r[k].add_probe = k == 0 && i % 4 == 1;
		r[k].drop_fd = k == n - 1 && i % 5 == 2;
		ck_assert_int_eq(pthread_create(&r[k].thread, NULL, holder_main, &r[k]), 0);
	}
	for (unsigned int k = 0; k < n; k++)
		while (!atomic_load(&r[k].ready))
			usleep(1000);
	for (unsigned int k = 0; k < n; k++)
		ck_assert_int_eq(atomic_load(&r[k].ready), 1);
	stats->reload_s[2] += now() - t;
	t = now();
	/* each open file pins the module once; a mapping keeps its file open */
	ck_assert_int_eq(vt_module_refcnt("kmem_ro"), n);
	err = vt_module_unload("kmem_ro");
	note(OP_KMEM_RO_UNLOAD, err, OK(EWOULDBLOCK));
	ck_assert_msg(err == -EWOULDBLOCK, "cycle %u: unload with %u holders: %d", i, n, err);
	atomic_store(&c->stop, 1);
	for (unsigned int k = 0; k < n; k++)
		pthread_join(r[k].thread, NULL);
	readers_free(r, n);
	ck_assert_int_eq(refcnt_settles(0), 0);
	stats->reload_s[3] += now() - t;
}

/*
 * Objects in use per unreclaimable slab cache.  Per cache, not SUnreclaim:
 * a leak of one small object per cycle is a few kB, less than SUnreclaim
 * moves on its own.  SLUB counts every object of a per-CPU slab as in use,
 * so a hot cache's count jumps by a slab's worth (512 objects of 8 bytes)
 * whenever a CPU takes a partly free slab; the stress group boots with
 * slub_debug=U, which takes every cache off that per-CPU path (so counts
 * are exact), unmerges them, and records who allocated what
 * (alloc_traces in debugfs), shown when a cache grows.  Reclaimable caches (dentries,
 * inodes) come and go with no leak.
 */
struct slab { char name[64]; long objs; };
#define MAX_SLABS 512
#define SLAB_SYSFS	"/sys/kernel/slab/"

static bool slab_flag(const char *name, const char *flag)
{
	char path[160];

	snprintf(path, sizeof(path), SLAB_SYSFS "%.63s/%s", name, flag);
	return read_hex(path) == 1;
}

/*
 * KASAN (the debug kernel) holds freed objects in a quarantine, still
 * counted in use, until megabytes of others follow; shrinking a cache
 * (kmem_cache_shrink() -> kasan_cache_shrink()) releases its share.
 * Elsewhere a shrink only returns empty slabs: no count changes.
 */
static void slab_shrink_all(void)
{
	DIR *d = opendir(SLAB_SYSFS);
	struct dirent *e;
	char path[300];
	int fd;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), SLAB_SYSFS "%s/shrink", e->d_name);
		fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd >= 0) {
			ck_assert_int_eq(write(fd, "1", 1), 1);
			close(fd);
		}
	}
	closedir(d);
}

static int slab_snapshot(struct slab *s)
{
	char line[512];
	FILE *f;
	int n = 0;

	/*
	 * kfree_rcu() batches frees for seconds; the slab shrinkers that
	 * drop_caches runs (kfree_rcu has one) push them out, and a grace
	 * period later they are done.
	 */
	vt_write_file("/proc/sys/vm/drop_caches", "2");
	/* and what call_rcu() frees (files among them): two grace periods */
	for (int i = 0; i < 2; i++)
		ck_assert_int_eq(syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0), 0);
	slab_shrink_all();
	usleep(300000);
	/* read whole before anything is opened: no file of ours pending */
	f = fopen("/proc/slabinfo", "re");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f) && n < MAX_SLABS)
		n += sscanf(line, "%63s %ld", s[n].name, &s[n].objs) == 2;
	fclose(f);
	for (int i = 0; i < n; i++)
		if (slab_flag(s[i].name, "reclaim_account"))
			s[i--] = s[--n];
	return n;
}

/*
 * Where the objects of @name were allocated, most first (slub_debug=U).
 * Sites are named when read: one in a module's freed init code takes the
 * name of whatever was loaded there since.
 */
static void slab_show_callers(const char *name)
{
	char path[160], line[512];
	FILE *f;
	int n = 0;

	snprintf(path, sizeof(path), "/sys/kernel/debug/slab/%.63s/alloc_traces", name);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f) && n < 30) {
		if (!strstr(line, " age="))	/* one line per call site, not the stacks */
			continue;
		fprintf(stderr, "stress: %s: %s", name, line + strspn(line, " "));
		n++;
	}
	if (f)
		fclose(f);
}

static long slab_objs(const struct slab *s, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(s[i].name, name))
			return s[i].objs;
	return 0;
}

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

/*
 * A leak of one object per cycle adds INTERVAL_CYCLES objects to its cache
 * in every interval.  Other activity moves counts too, mostly objects
 * whose freeing is still pending at one snapshot: that raises one interval
 * and lowers the next.  So the test is on the median interval of each
 * cache: it fails when half the intervals grew by 3/4 of a per-cycle leak,
 * which a real leak of even one small object per cycle does and a few
 * noisy snapshots do not.
 */
#define LEAK_BOUND	(INTERVAL_CYCLES * 3 / 4)

START_TEST(kmem_ro_reload_cycles)
{
	static struct slab snap[INTERVALS + 1][MAX_SLABS];
	static struct ctx c;
	const unsigned int last = WARMUP_CYCLES + INTERVALS * INTERVAL_CYCLES - 1;
	long d[INTERVALS], med, worst_med = LONG_MIN, su0;
	char worst[64] = "-", deltas[128];
	int nsnap[INTERVALS + 1], len = 0;
	unsigned int i = 0;
	double t0 = now();

	ctx_init(&c);
	ck_assert_msg(slab_flag("kmalloc-8", "store_user"),
		      "boot with slub_debug=U: slab counts are not exact without it");
	ck_assert_int_eq(refcnt_settles(0), 0);
	for (; i < WARMUP_CYCLES; i++)
		reload_cycle(&c, i, false);
	su0 = vt_meminfo("SUnreclaim");
	for (int j = 0; j <= INTERVALS; j++) {
		for (int k = 0; j && k < INTERVAL_CYCLES; k++, i++)
			reload_cycle(&c, i, i == last);
		nsnap[j] = slab_snapshot(snap[j]);
		ck_assert_int_gt(nsnap[j], 10);
	}

	for (int k = 0; k < nsnap[INTERVALS]; k++) {
		const char *name = snap[INTERVALS][k].name;

		for (int j = 0; j < INTERVALS; j++)
			d[j] = slab_objs(snap[j + 1], nsnap[j + 1], name) -
			       slab_objs(snap[j], nsnap[j], name);
		qsort(d, INTERVALS, sizeof(*d), cmp_long);
		med = d[(INTERVALS - 1) / 2];	/* the lower median */
		if (med > worst_med) {
			worst_med = med;
			snprintf(worst, sizeof(worst), "%.63s", name);
		}
	}
	/* the worst cache's growth, interval by interval, for the record */
	for (int j = 0; j < INTERVALS; j++)
		len += snprintf(deltas + len, sizeof(deltas) - len, "%s%+ld", j ? "/" : "",
				slab_objs(snap[j + 1], nsnap[j + 1], worst) -
				slab_objs(snap[j], nsnap[j], worst));
	snprintf(stats->leak, sizeof(stats->leak),
		 "leak_cycles=%u leak_interval=%d leak_bound_objs=%d leak_worst_cache=%s "
		 "leak_worst_median=%+ld leak_worst_objs=%s leak_sunreclaim_kb=%+lld",
		 i, INTERVAL_CYCLES, LEAK_BOUND, worst, worst_med, deltas,
		 vt_meminfo("SUnreclaim") - su0);
	printf("stress: %s\n", stats->leak);
	if (worst_med >= LEAK_BOUND)
		slab_show_callers(worst);
	ck_assert_msg(worst_med < LEAK_BOUND,
		      "slab cache %s grew by %s objects in intervals of %d cycles",
		      worst, deltas, INTERVAL_CYCLES);
	ck_assert_int_eq(vt_file_has(FTRACE_LIST, OUR_CALLBACK), 0);
	test_time("reload", t0);
}
END_TEST

/* ---- readers SIGKILLed in the middle of large batches ---- */

struct victim {
	struct ctx *c;
	int fd, kind;
	struct kmem_ro_probe_spec *specs;
	unsigned int nspecs;
	char *big;			/* 16 MiB */
};

#define BIG (16UL << 20)

/* Forever: one kind of large batch.  Runs in the child: counts, no assertions. */
static void *victim_main(void *arg)
{
	struct victim *v = arg;
	struct ctx *c = v->c;
	static struct kmem_ro_iov iov[KMEM_RO_READV_MAX_SEGS];
	struct kmem_ro_field f = { c->pid_off, 4 };

	for (;;) {
		switch (v->kind) {
		case 0: {		/* 1024 segments, 16 MiB of RAM */
			struct kmem_ro_readv rv = { .size = sizeof(rv), .iov_addr = (uintptr_t)iov,
						    .iov_count = KMEM_RO_READV_MAX_SEGS };
			uint64_t seg = BIG / KMEM_RO_READV_MAX_SEGS;

			for (unsigned int i = 0; i < KMEM_RO_READV_MAX_SEGS; i++)
				iov[i] = (struct kmem_ro_iov){
					.addr = c->info.page_offset + c->ram[c->nram - 1].start +
						(i * seg) % (c->ram[c->nram - 1].end -
							     c->ram[c->nram - 1].start - seg),
					.len = seg, .buf = (uintptr_t)v->big + i * seg };
			note(OP_READV, vt_ioctl(v->fd, KMEM_RO_IOC_READV, &rv), OK());
			break;
		}
		case 1: {		/* the task list and testobj's, over and over */
			struct kmem_ro_walk w = {
				.size = sizeof(w), .head = c->init_task + c->tasks_off,
				.link_offset = c->tasks_off, .fields_addr = (uintptr_t)&f,
				.fields_count = 1, .buf_addr = (uintptr_t)v->big, .buf_size = BIG,
			};

			note(OP_WALK, vt_ioctl(v->fd, KMEM_RO_IOC_WALK, &w), OK());
			w.head = c->good_head;
			w.link_offset = c->link_off;
			note(OP_WALK, vt_ioctl(v->fd, KMEM_RO_IOC_WALK, &w), OK());
			break;
		}
		case 2: {		/* 2M flat entries of a sparse space */
			struct kmem_ro_pagemap pm = {
				.size = sizeof(pm), .start = 0, .end = USER_TOP,
				.buf_addr = (uintptr_t)v->big, .buf_size = BIG,
			};

			note(OP_PAGEMAP, vt_ioctl(v->fd, KMEM_RO_IOC_PAGEMAP, &pm), OK());
			break;
		}
		default: {		/* thousands of probes, a few enabled, then none */
			struct kmem_ro_probe_add a = {
				.size = sizeof(a), .specs_addr = (uintptr_t)v->specs,
				.count = v->nspecs,
			};
			struct kmem_ro_probe_spec hot[4];
			struct kmem_ro_probe_add h = { .size = sizeof(h), .specs_addr = (uintptr_t)hot };
			struct kmem_ro_probe_ids all = { .size = sizeof(all),
							 .flags = KMEM_RO_PROBE_ALL };

			/* added disabled: enabling thousands of random functions
			 * can stall a TCG guest (README, Performance) */
			note(OP_PROBE_ADD, vt_ioctl(v->fd, KMEM_RO_IOC_PROBE_ADD, &a), OK());
			for (unsigned int i = 1; i < 5 && i < c->nvmlinux; i++)
				vt_probe_spec(&hot[h.count++], c->vmlinux[i].name, c->vmlinux[i].addr, 0,
					      KMEM_RO_PROBE_ENABLED);
			note(OP_PROBE_ADD, vt_ioctl(v->fd, KMEM_RO_IOC_PROBE_ADD, &h), OK());
			note(OP_PROBE_DEL, vt_ioctl(v->fd, KMEM_RO_IOC_PROBE_DEL, &all), OK());
			break;
		}
		}
	}
	return NULL;
}

static void victim_run(struct ctx *c, int kind, struct kmem_ro_probe_spec *specs,
		       unsigned int nspecs, int ready)
{
	struct victim v[2];
	pthread_t t;

	for (int i = 0; i < 2; i++) {
		v[i] = (struct victim){ c, open(KMEM_RO_DEVICE, O_RDONLY | O_CLOEXEC),
					(kind + i) % 4, specs, nspecs,
					mmap(NULL, BIG, PROT_READ | PROT_WRITE,
					     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) };
		if (v[i].fd < 0 || v[i].big == MAP_FAILED)
			_exit(2);
	}
	/* a held mapping too, released only by the kill */
	if (mmap(NULL, PAGE, PROT_READ, MAP_SHARED, v[0].fd, (off_t)c->text_phys) == MAP_FAILED)
		_exit(3);
	if (pthread_create(&t, NULL, victim_main, &v[1]))
		_exit(4);
	if (write(ready, "x", 1) != 1)
		_exit(5);
	victim_main(&v[0]);
	_exit(6);
}

START_TEST(readers_killed_mid_batch)
{
	static struct ctx c;
	unsigned long unexpected0 = stats->unexpected;
	int kprobes0 = count_lines(KPROBE_LIST), p[2], status;
	uint64_t seed = 0x2545f4914f6cdd1dULL ^ (uint64_t)getpid();
	double t0 = now();
	char x;

	ctx_init(&c);
	ck_assert_uint_gt(nkill_specs, 1000);
	ck_assert_int_eq(refcnt_settles(0), 0);
	for (int k = 0; k < KILLS; k++) {
		pid_t pid;
		long delay_us;

		ck_assert_int_eq(pipe(p), 0);
		pid = fork();
		ck_assert_int_ge(pid, 0);
		if (!pid) {
			close(p[0]);
			victim_run(&c, k % 4, kill_specs, nkill_specs, p[1]);
		}
		close(p[1]);
		ck_assert_int_eq(read(p[0], &x, 1), 1);
		close(p[0]);
		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		/* kinds 2 and 3 run a probe batch of thousands: about a second */
		delay_us = seed % (k % 4 == 3 || k % 4 == 2 ? 1500000 : 200000);
		usleep(delay_us);
		ck_assert_int_eq(kill(pid, SIGKILL), 0);
		ck_assert_int_eq(waitpid(pid, &status, 0), pid);
		ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
			      "victim %d ended with status %#x", k, status);
		note(OP_KILL, 0, OK());
		ck_assert_int_eq(refcnt_settles(0), 0);
	}
	ck_assert_msg(stats->unexpected == unexpected0, "%lu unexpected results",
		      stats->unexpected - unexpected0);
	ck_assert_int_eq(vt_file_has(FTRACE_LIST, OUR_CALLBACK), 0);
	ck_assert_int_eq(count_lines(KPROBE_LIST), kprobes0);
	test_time("kill", t0);
}
END_TEST

/* ---- the summary ---- */

/*
 * One "summary" line and one "op" line per operation (calls, then results:
 * ok or the errno), the format vmtest/record.sh folds into one record.
 */
static void summary(double secs, int failed)
{
	static const char *const walk[] = { "done", "max_reached", "buf_full", "loop", "fault",
					    "interrupted" };
	const char *accel = getenv("VM_ACCEL");
	unsigned long sum;
	struct utsname u;

	uname(&u);
	printf("@@STRESS summary kernel=%s accel=%s duration_s=%.1f result=%s unexpected=%lu",
	       u.release, accel ? accel : "-", secs, failed ? "fail" : "pass", stats->unexpected);
	for (unsigned int i = 0; i < stats->ntests && i < NR_TESTS; i++)
		printf(" %s_s=%.1f", stats->test[i], stats->test_s[i]);
	printf(" kmem_ro_unload_s=%.1f kmem_ro_load_s=%.1f holders_up_s=%.1f holders_gone_s=%.1f",
	       stats->reload_s[0], stats->reload_s[1], stats->reload_s[2], stats->reload_s[3]);
	printf(" probes_seen_gone=%lu %s\n", stats->gone_seen, stats->leak[0] ? stats->leak : "leak=-");
	for (int op = 0; op < NR_OPS; op++) {
		sum = 0;
		for (int e = 0; e < NR_ERRNO; e++)
			sum += stats->hist[op][e];
		printf("@@STRESS op %s n=%lu", op_name[op], sum);
		if (stats->hist[op][0])
			printf(" ok=%lu", stats->hist[op][0]);
		for (int e = 1; e < NR_ERRNO; e++)
			if (stats->hist[op][e])
				printf(" %s=%lu", strerrorname_np(e) ?: "E?", stats->hist[op][e]);
		printf("\n");
	}
	sum = 0;
	for (int i = 0; i < 6; i++)
		sum += stats->walk_status[i];
	printf("@@STRESS op walk_status n=%lu", sum);
	for (int i = 0; i < 6; i++)
		if (stats->walk_status[i])
			printf(" %s=%lu", walk[i], stats->walk_status[i]);
	printf("\n");
	fflush(stdout);
}

int main(void)
{
	/* a case each: a failure names its part, and CK_RUN_CASE picks one */
	const struct { const char *name; const TTest *test; } cases[] = {
		{ "churn", readers_under_probe_and_module_churn },
		{ "kill", readers_killed_mid_batch },
		/* last: it leaves kmem_ro freshly loaded with default parameters */
		{ "reload", kmem_ro_reload_cycles },
	};
	Suite *s = suite_create("stress");
	double t0 = now();
	SRunner *sr;
	int failed;

	stats = mmap(NULL, sizeof(*stats), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (stats == MAP_FAILED)
		return EXIT_FAILURE;
	for (unsigned int i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		TCase *tc = tcase_create(cases[i].name);

		tcase_set_timeout(tc, 900);
		tcase_add_unchecked_fixture(tc, setup, NULL);
		tcase_add_test(tc, cases[i].test);
		suite_add_tcase(s, tc);
	}
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	summary(now() - t0, failed);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
