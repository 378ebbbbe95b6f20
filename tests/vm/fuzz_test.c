// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzzer for /dev/kmem_ro, run in the guest: seeded and time-bounded.
 *
 * Every ioctl of uapi/kmem_ro.h is called with a valid argument, then with
 * zero to three mutations of it: sizes, flags, reserved fields, counts,
 * pointers (NULL, unmapped, read-only, kernel, non-canonical, straddling a
 * guard page, inside a kmem_ro mapping), kernel addresses drawn from every
 * region of the layout (RAM, text, rodata, vmalloc, ioremap, modules,
 * vmemmap, cpu_entry_area, MMIO, holes, the guard hole, non-canonical),
 * random pids, list heads and probe addresses; plus unknown ioctl numbers.
 * pread() and read() by address take the same addresses and lengths (and
 * lseek() any position), into good and bad buffers.
 * Random physical ranges are mapped with random lengths, protections and
 * flags, touched under a SIGBUS/SIGSEGV handler (also from forked
 * children), mprotect()ed, mremap()ped, split and advised.  Slices run as an
 * unprivileged user on the inherited fds, and under a signal storm.
 * Raw ioctls on the uapi header, never the library: the point is inputs the
 * library would never make.
 *
 * Oracle: every errno must be one the uapi header documents for that call
 * (ENOMEM never: every size here is bounded); one bad field alone must give
 * exactly its errno; an unmutated call must succeed and its output must
 * match what the kernel says elsewhere (/proc/kcore, /proc/iomem,
 * /proc/self/pagemap, the test objects of kmem_ro_testobj.ko, our own
 * bookkeeping of the probes); a memfd_secret and a hwpoisoned page are never
 * shown; a mapping must succeed exactly when the range holds a whole RAM
 * page, and a touched page must be the refused page exactly when it is not
 * readable RAM (judged as uapi/kmem_ro.h tells a reader: touch_judge()).  The
 * kernel log is watched for reports while fuzzing; the harness also judges
 * the whole log and checks that the module unloads.
 *
 * FUZZ_SEED (default: from the clock, printed), FUZZ_DURATION in seconds
 * (default 60), FUZZ_TRACE=1 prints each call before it is made (for a
 * guest that dies).  The summary is a block of "@@FUZZ " lines on stdout,
 * which vmtest/record.sh turns into tests/fuzz/results.txt records.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/klog.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "vmtest.h"

#define PAGE		4096UL
#define MIB		(1UL << 20)
#define NFD		3
#define LIVE_CAP	128	/* probes tracked per fd */
#define MAX_RANDOM	12	/* probes on random functions per fd */
#define MAX_RANDOM_KP	3	/* of which kprobes at random offsets */
#define MAX_ENABLED_RANDOM 6	/* of which enabled by ADD */
#define MAX_MAPS	16
#define RING		32
#define FAILS_SHOWN	40
#define NBUCKETS	1024
#define MAX_SYMS	400000
#define MAX_IOMEM	512
#define MAX_VAREAS	4096
#define PARAM_MMAP_RAM	"/sys/module/kmem_ro/parameters/mmap_ram"

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ	22
#define MADV_POPULATE_WRITE	23
#endif
#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE		25
#endif

/* The arena: argument structs, arrays, output buffers, then a guard page. */
#define ARENA		(4 * MIB)
#define ARGS_AT		0
#define ARRAYS_AT	(64 * 1024)
#define DATA_AT		MIB
#define BIG_SPECS	(KMEM_RO_PROBE_MAX_BATCH * sizeof(struct kmem_ro_probe_spec))
#define NONE_LEN	(1 * MIB)	/* PROT_NONE: "unmapped" pointers */
#define TAIL		(1 * MIB)

/* Histogram codes: 0 ok, errno, or a signal seen when touching a page. */
enum { CODE_SIGBUS = 134, CODE_SIGSEGV, CODE_REFUSED, NCODES };

/* A mutation whose errno alone cannot be predicted: only the allowed set. */
#define ANY	(-1)

struct bucket {
	const char *op;		/* string literals: same address in children */
	const char *cls;
	uint64_t n[NCODES];
};

/* Shared with forked children (unprivileged slices, page touchers). */
struct shared {
	uint64_t calls, touches, iterations, failures;
	unsigned int nbuckets;
	char first_failure[512];
	struct bucket b[NBUCKETS];
};

struct probe {
	uint64_t id, addr;
	uint32_t offset;
	bool enabled, random;
};

enum { SET_NO, SET_YES, SET_MAYBE };

struct fdstate {
	int fd;
	int set;		/* does the file have a probe set yet? */
	int snap;		/* does it send snapshots? (SET_*) */
	uint64_t snap_id;
	unsigned int nlive;
	struct probe live[LIVE_CAP];
};

struct sym {
	uint64_t addr, size;
	char type;
	bool module;
};

struct area {
	uint64_t start, end;
	bool ram;
};

struct map {
	char *p;
	size_t len;		/* page multiple */
	uint64_t phys;
	int prot;
	bool ram_mode;		/* mmap_ram was 1 when it was made */
	bool shared;
	bool dontfork;		/* MADV_DONTFORK stuck: VM_IO refuses MADV_DOFORK */
	int fdi;		/* made through f->fds[fdi]: keeps that file open */
};

/* The expected outcome of a read at a kernel address (READV, WALK). */
enum {
	X_ANY, X_EINVAL, X_EFAULT, X_ENXIO, X_EPERM, X_RAM, X_TEXT, X_READ, X_VBUF, X_IOREMAP,
	X_TOP, X_SHORT,
};

struct kaddr {
	uint64_t addr;
	const char *cls;
	int exp;
	uint64_t limit;		/* bytes from addr that stay in the class */
};

struct fuzz {
	uint64_t rng[4];
	uint64_t seed;
	double end;
	bool trace, unpriv, sigmode, stop;
	int mmap_ram;
	pid_t owner;
	struct shared *sh;
	struct fdstate fds[NFD];

	/* layout */
	struct kmem_ro_info info;
	struct kmem_ro_range info_ram[64];	/* INFO's first answer */
	struct kmem_ro_range ram[64];
	unsigned int nram;
	bool la57;
	uint64_t user_top, noncanon_lo, noncanon_hi, kernel_lo;
	uint64_t text_phys, text_phys_end, max_phys, vmemmap;
	struct area iomem[MAX_IOMEM];
	unsigned int niomem;
	struct area nonram[MAX_IOMEM];	/* page-aligned runs with no RAM page */
	unsigned int nnonram;
	struct sym *syms;
	unsigned int nsyms, *text, ntext, *data, ndata, *mod, nmod;
	uint64_t safe[16];
	uint32_t safe_kp[16];
	unsigned int nsafe, nsafe_kp;
	uint64_t banner, image_end;
	struct area varea[MAX_VAREAS];	/* vmallocinfo: ram = vmalloc, else ioremap */
	unsigned int nvarea;

	/*
	 * RAM the kernel hides from itself: our memfd_secret page, a page we
	 * poisoned with MADV_HWPOISON.  Both held 0x5a: a reader sees zeros.
	 */
	uint64_t hidden[2];
	unsigned int nhidden;
	/* KFENCE's pool, [first, end) pfns: pages come and go from the direct map */
	uint64_t kfence_first, kfence_end;

	/* our own mappings of every kind, for PAGEMAP */
	struct { char *p; size_t len; } zoo[8];
	unsigned int nzoo;

	/* kmem_ro_testobj */
	uint64_t good, loop, corrupt, link_off, id_off, name_off, vbuf, vbuf_len, vguard,
		 mmio, slab;
	uint64_t good_next, good_idx;

	/* memory */
	char *rw, *ro, *none, *edge, *big, *tail;	/* tail: TAIL bytes, then a guard */
	const char *kmap_text;
	const char *kmap_hole;	/* a mapped page that is not RAM: the refused page */
	uint64_t hole_pfn;
	/*
	 * The refused page's own PFN: a RAM page like any other, which mapped
	 * as RAM shows its pattern.
	 */
	uint64_t refused_pfn;
	int kpf_fd;		/* /proc/kpageflags, opened as root, or -1 */

	struct map maps[MAX_MAPS];
	unsigned int nmaps;

	char ring[RING][200];
	unsigned int ringpos;
	int bad_lines;
	double next_check;
};

/* ---- random ---- */

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static uint64_t rnd(struct fuzz *f)	/* xoshiro256** */
{
	uint64_t *s = f->rng, r = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return r;
}

static void seed_rng(struct fuzz *f, uint64_t seed)
{
	for (int i = 0; i < 4; i++) {	/* splitmix64 */
		uint64_t z = (seed += 0x9e3779b97f4a7c15ULL);

		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
		f->rng[i] = z ^ (z >> 31);
	}
}

static uint64_t below(struct fuzz *f, uint64_t n)
{
	return n ? rnd(f) % n : 0;
}

static bool pct(struct fuzz *f, unsigned int p)
{
	return below(f, 100) < p;
}

/* [lo, hi], hi >= lo */
static uint64_t between(struct fuzz *f, uint64_t lo, uint64_t hi)
{
	return hi - lo == UINT64_MAX ? rnd(f) : lo + below(f, hi - lo + 1);
}

/* Mostly small, sometimes any size: counts and lengths. */
static uint64_t skewed(struct fuzz *f, uint64_t max)
{
	switch (below(f, 4)) {
	case 0:
		return below(f, max < 16 ? max + 1 : 17);
	case 1:
		return below(f, max < 256 ? max + 1 : 257);
	case 2:
		return max;
	default:
		return below(f, max + 1 ? max + 1 : max);
	}
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- statistics and failures ---- */

static const char *code_name(int code)
{
	static char buf[16];
	const char *s;

	if (code == 0)
		return "ok";
	if (code == CODE_SIGBUS)
		return "SIGBUS";
	if (code == CODE_SIGSEGV)
		return "SIGSEGV";
	if (code == CODE_REFUSED)
		return "refused_page";
	s = strerrorname_np(code);
	if (s)
		return s;
	snprintf(buf, sizeof(buf), "E%d", code);
	return buf;
}

static void record(struct fuzz *f, const char *op, const char *cls, int code)
{
	struct shared *sh = f->sh;
	unsigned int i;

	if (code < 0 || code >= NCODES)
		return;
	for (i = 0; i < sh->nbuckets; i++)
		if (!strcmp(sh->b[i].op, op) && !strcmp(sh->b[i].cls, cls))
			break;
	if (i == sh->nbuckets) {
		if (i == NBUCKETS)
			return;
		sh->b[i].op = op;
		sh->b[i].cls = cls;
		sh->nbuckets++;
	}
	sh->b[i].n[code]++;
}

static const char *last_call(struct fuzz *f)
{
	return f->ring[(f->ringpos + RING - 1) % RING];
}

static void __attribute__((format(printf, 2, 3))) wrong(struct fuzz *f, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!f->sh->failures)
		snprintf(f->sh->first_failure, sizeof(f->sh->first_failure),
			 "%s (call: %s)", msg, last_call(f));
	if (f->sh->failures++ < FAILS_SHOWN)
		printf("@@FUZZ FAIL iter=%" PRIu64 " %s%s | call: %s\n", f->sh->iterations,
		       f->unpriv ? "[unprivileged] " : "", msg, last_call(f));
	fflush(stdout);
}

static void __attribute__((format(printf, 2, 3))) note_call(struct fuzz *f, const char *fmt, ...)
{
	char *slot = f->ring[f->ringpos++ % RING];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(slot, sizeof(f->ring[0]), fmt, ap);
	va_end(ap);
	if (f->trace) {
		printf("@@FUZZ call %" PRIu64 " %s\n", f->sh->iterations, slot);
		fflush(stdout);
	}
}

/* ---- allowed errnos, from uapi/kmem_ro.h ---- */

static bool in(int err, const int *set)
{
	for (; *set; set++)
		if (*set == err)
			return true;
	return false;
}

static const int ok_info[] = { EINVAL, E2BIG, EFAULT, 0 };
static const int ok_readv[] = { EINVAL, E2BIG, EFAULT, EINTR, 0 };
static const int ok_walk[] = { EINVAL, E2BIG, EFAULT, EINTR, 0 };
static const int ok_pagemap[] = { EINVAL, E2BIG, ESRCH, EPERM, EFAULT, EINTR, 0 };
static const int ok_add[] = { EINVAL, E2BIG, EFAULT, EPERM, 0 };
static const int ok_switch[] = { EINVAL, E2BIG, EFAULT, EPERM, ENOENT, 0 };
static const int ok_del[] = { EINVAL, E2BIG, EFAULT, ENOENT, 0 };
static const int ok_list[] = { EINVAL, E2BIG, EFAULT, 0 };
static const int ok_filter[] = { EINVAL, E2BIG, EFAULT, EPERM, ESRCH, 0 };
static const int ok_badcmd[] = { ENOTTY, 0 };
/* per item: READV segments, WALK faults, PROBE_ADD specs */
static const int ok_read[] = { EINVAL, EFAULT, ENXIO, EPERM, 0 };
static const int ok_spec[] = { ENOENT, EEXIST, EINVAL, EOPNOTSUPP, 0 };
/* mmap(2) and friends: the VFS's own errnos plus the driver's */
static const int ok_mmap[] = { EINVAL, EPERM, EACCES, ENOMEM, EOVERFLOW, EOPNOTSUPP, EAGAIN, 0 };

/* ---- layout: the kernel's own sources ---- */

static int cmp_sym(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	if (x->module != y->module)
		return x->module - y->module;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static const char *const safe_names[] = {
	"__x64_sys_getppid", "__x64_sys_getpid", "__x64_sys_getuid", "__x64_sys_getgid",
	"vfs_read", "vfs_write", "do_sys_openat2", "__x64_sys_close", "do_nanosleep",
	"__x64_sys_sched_yield",
};

static void load_kallsyms(struct fuzz *f)
{
	FILE *k = fopen("/proc/kallsyms", "re");
	char line[512], name[256], type;
	uint64_t addr;
	unsigned int i, j;
	int pos;

	ck_assert_ptr_nonnull(k);
	f->syms = calloc(MAX_SYMS, sizeof(*f->syms));
	ck_assert_ptr_nonnull(f->syms);
	while (fgets(line, sizeof(line), k) && f->nsyms < MAX_SYMS) {
		struct sym *s = &f->syms[f->nsyms];

		if (sscanf(line, "%" SCNx64 " %c %255s%n", &addr, &type, name, &pos) != 3)
			continue;
		/* absolute symbols stay: they bound the sizes kallsyms computes */
		if (addr < f->kernel_lo)
			continue;	/* per-cpu offsets */
		s->addr = addr;
		s->type = type;
		s->module = strchr(line + pos, '[') != NULL;
		if (!strcmp(name, "linux_banner"))
			f->banner = addr;
		if (!strcmp(name, "_end"))
			f->image_end = addr;
		if (!strcmp(name, "vmemmap_base"))
			f->vmemmap = addr;	/* the variable; read below */
		for (i = 0; i < sizeof(safe_names) / sizeof(*safe_names); i++)
			if (!s->module && !strcmp(name, safe_names[i]) && f->nsafe < 16)
				f->safe[f->nsafe++] = addr;
		f->nsyms++;
	}
	fclose(k);
	qsort(f->syms, f->nsyms, sizeof(*f->syms), cmp_sym);
	/* size: up to the next symbol at a higher address, as kallsyms does */
	for (i = 0; i < f->nsyms; i = j) {
		for (j = i + 1; j < f->nsyms && f->syms[j].addr == f->syms[i].addr &&
				f->syms[j].module == f->syms[i].module; j++)
			;
		for (unsigned int a = i; a < j; a++)
			f->syms[a].size = j < f->nsyms && f->syms[j].module == f->syms[i].module ?
					  f->syms[j].addr - f->syms[i].addr : 0;
	}
	ck_assert_msg(f->image_end, "no _end in /proc/kallsyms");
	/* kallsyms knows nothing of the image past _end */
	for (i = 0; i < f->nsyms; i++) {
		struct sym *s = &f->syms[i];

		if (!s->module && s->addr >= f->image_end)
			s->size = 0;
		else if (!s->module && s->addr + s->size > f->image_end)
			s->size = f->image_end - s->addr;
	}
	f->text = calloc(f->nsyms, sizeof(unsigned int));
	f->data = calloc(f->nsyms, sizeof(unsigned int));
	f->mod = calloc(f->nsyms, sizeof(unsigned int));
	ck_assert(f->text && f->data && f->mod);
	for (i = 0; i < f->nsyms; i++) {
		struct sym *s = &f->syms[i];
		bool text = s->type == 't' || s->type == 'T';

		if (!s->size || s->size > 64 * MIB)
			continue;
		if (s->module && text)
			f->mod[f->nmod++] = i;
		else if (!s->module && text && s->addr >= f->info.text_start &&
			 s->addr < f->info.text_end)
			f->text[f->ntext++] = i;
		else if (!s->module && strchr("dDbBrR", s->type))
			f->data[f->ndata++] = i;
	}
	ck_assert_msg(f->ntext > 1000 && f->ndata > 100 && f->nmod > 10,
		      "kallsyms: %u text, %u data, %u module symbols", f->ntext, f->ndata, f->nmod);
	ck_assert_msg(f->nsafe >= 4, "only %u safe functions found", f->nsafe);
}

/*
 * The first instruction after the fentry site takes a kprobe, unless
 * something else sits there (jump label, static call, alternative): keep
 * only the offsets the driver accepts once, so later answers are exact.
 */
static void check_safe_kprobes(struct fuzz *f)
{
	int fd = vt_open_dev();
	unsigned int i, n = 0;

	for (i = 0; i < f->nsafe; i++) {
		struct kmem_ro_probe_spec s = { .addr = f->safe[i],
						.offset = vt_after_fentry(f->safe[i]) };
		struct kmem_ro_probe_add a = { .size = sizeof(a), .specs_addr = (uintptr_t)&s,
					       .count = 1 };

		snprintf(s.name, sizeof(s.name), "safe%u", i);
		ck_assert_int_eq(ioctl(fd, KMEM_RO_IOC_PROBE_ADD, &a), 0);
		f->safe_kp[i] = s.result > 0 ? s.offset : 0;
		n += s.result > 0;
	}
	close(fd);
	f->nsafe_kp = n;
	ck_assert_msg(n > 0, "no safe function takes a kprobe after its fentry site");
}

/* Every line of /proc/iomem; the System RAM ones at any depth. */
static void load_iomem(struct fuzz *f)
{
	FILE *io = fopen("/proc/iomem", "re");
	char line[256];
	uint64_t s, e;
	int pos;

	ck_assert_ptr_nonnull(io);
	while (fgets(line, sizeof(line), io) && f->niomem < MAX_IOMEM) {
		const char *p = line + strspn(line, " ");

		if (sscanf(p, "%" SCNx64 "-%" SCNx64 " : %n", &s, &e, &pos) != 2)
			continue;
		f->iomem[f->niomem++] = (struct area){ s, e + 1, !strcmp(p + pos, "System RAM\n") };
		if (!strcmp(p + pos, "System RAM\n") && f->nram < 64)
			f->ram[f->nram++] = (struct kmem_ro_range){ s, e + 1 };
		if (e + 1 > f->max_phys && !strcmp(p + pos, "System RAM\n"))
			f->max_phys = e + 1;
	}
	fclose(io);
}

/* First and last PFN of whole pages of a RAM range. */
static uint64_t ram_first(const struct kmem_ro_range *r)
{
	return (r->start + PAGE - 1) / PAGE;
}

static uint64_t ram_last(const struct kmem_ro_range *r)
{
	return r->end / PAGE;
}

/* Is this page wholly System RAM (the driver's rule, ram.c)? */
static bool pfn_is_ram(struct fuzz *f, uint64_t pfn)
{
	for (unsigned int i = 0; i < f->nram; i++)
		if (pfn >= ram_first(&f->ram[i]) && pfn < ram_last(&f->ram[i]))
			return true;
	return false;
}

/* Does [first, last) hold a whole RAM page? */
static bool pfns_have_ram(struct fuzz *f, uint64_t first, uint64_t last)
{
	for (unsigned int i = 0; i < f->nram; i++) {
		uint64_t a = ram_first(&f->ram[i]), b = ram_last(&f->ram[i]);

		if (a < b && a < last && b > first)
			return true;
	}
	return false;
}

static bool pfn_is_hidden(struct fuzz *f, uint64_t pfn)
{
	for (unsigned int i = 0; i < f->nhidden; i++)
		if (f->hidden[i] == pfn)
			return true;
	return false;
}

static bool pfn_is_kfence(struct fuzz *f, uint64_t pfn)
{
	return pfn >= f->kfence_first && pfn < f->kfence_end;
}

static bool pfn_is_text(struct fuzz *f, uint64_t pfn)
{
	return pfn >= f->text_phys / PAGE && pfn < f->text_phys_end / PAGE;
}

/* Page-aligned runs below the top of RAM that hold no RAM page. */
static void find_nonram(struct fuzz *f)
{
	uint64_t pfn = 0, top = f->max_phys / PAGE;

	while (pfn < top && f->nnonram < MAX_IOMEM) {
		uint64_t next = top, start;

		for (unsigned int i = 0; i < f->nram; i++)
			if (ram_first(&f->ram[i]) < ram_last(&f->ram[i]) &&
			    ram_last(&f->ram[i]) > pfn && ram_first(&f->ram[i]) <= pfn)
				pfn = ram_last(&f->ram[i]);
		if (pfn >= top)
			break;
		start = pfn;
		for (unsigned int i = 0; i < f->nram; i++)
			if (ram_first(&f->ram[i]) < ram_last(&f->ram[i]) &&
			    ram_first(&f->ram[i]) > start && ram_first(&f->ram[i]) < next)
				next = ram_first(&f->ram[i]);
		if (next > start)
			f->nonram[f->nnonram++] = (struct area){ start * PAGE, next * PAGE, false };
		pfn = next;
	}
	ck_assert_msg(f->nnonram > 0, "no hole below the top of RAM");
}

/* vmalloc and ioremap areas; %pK shows real addresses at kptr_restrict=1 */
static void load_vmallocinfo(struct fuzz *f)
{
	FILE *v, *k = fopen("/proc/sys/kernel/kptr_restrict", "re");
	char line[512], old[16] = "0\n";
	uint64_t s, e;

	if (k) {
		if (!fgets(old, sizeof(old), k))
			snprintf(old, sizeof(old), "0\n");
		fclose(k);
	}
	vt_write_file("/proc/sys/kernel/kptr_restrict", "1");
	v = fopen("/proc/vmallocinfo", "re");
	ck_assert_ptr_nonnull(v);
	while (fgets(line, sizeof(line), v) && f->nvarea < MAX_VAREAS) {
		bool io = strstr(line, " ioremap") != NULL, vm = strstr(line, " vmalloc") != NULL;

		if (sscanf(line, "0x%" SCNx64 "-0x%" SCNx64, &s, &e) != 2 || (!io && !vm) ||
		    s < f->info.vmalloc_start || e > f->info.vmalloc_end || e < s + 2 * PAGE)
			continue;
		/* the last page is the guard */
		f->varea[f->nvarea++] = (struct area){ s, e - PAGE, vm };
	}
	fclose(v);
	vt_write_file("/proc/sys/kernel/kptr_restrict", old);
	ck_assert_msg(f->nvarea > 10, "only %u areas in /proc/vmallocinfo", f->nvarea);
}

/*
 * KFENCE's pool (active on the debug kernel; Debian's kernels boot with
 * kfence.sample_interval=0 and allocate none): its guard pages and the
 * pages of freed objects are cleared from the direct map
 * (mm/kfence/core.c, kfence_protect()), so the driver refuses them as it
 * refuses a secretmem page, and which pages those are changes all the
 * time.  A touch there may be ok or SIGBUS.
 */
static void find_kfence(struct fuzz *f)
{
	uint64_t sym = vt_kallsyms("__kfence_pool"), pool = 0;
	unsigned long long bytes = 0;
	int len = klogctl(10, NULL, 0);		/* SYSLOG_ACTION_SIZE_BUFFER */
	char *log, *p;

	if (!sym)
		return;
	ck_assert_int_eq(vt_kcore_read(sym, &pool, 8), 0);
	ck_assert_int_gt(len, 0);
	log = calloc(1, (size_t)len + 1);
	ck_assert_ptr_nonnull(log);
	len = klogctl(3, log, len);		/* SYSLOG_ACTION_READ_ALL */
	ck_assert_int_ge(len, 0);
	p = strstr(log, "kfence: initialized - using ");
	if (p)
		bytes = strtoull(p + strlen("kfence: initialized - using "), NULL, 10);
	free(log);
	if (!pool || !bytes)
		return;
	f->kfence_first = (pool - f->info.page_offset) / PAGE;
	f->kfence_end = f->kfence_first + bytes / PAGE;
}

static void load_layout(struct fuzz *f, int fd)
{
	uint64_t node_link;
	struct kmem_ro_range top[64];
	int ntop = vt_iomem_ram(top, 64);

	ck_assert_int_eq(vt_info(fd, &f->info, f->info_ram, 64), 0);
	ck_assert_int_eq(f->info.ram_count, ntop);
	ck_assert_int_eq(memcmp(f->info_ram, top, ntop * sizeof(*top)), 0);
	/* 5-level paging moves the direct map below the 4-level hole */
	f->la57 = f->info.page_offset < 0xffff800000000000ULL;
	f->user_top = f->la57 ? (1ULL << 56) - PAGE : (1ULL << 47) - PAGE;
	f->noncanon_lo = f->la57 ? 1ULL << 56 : 1ULL << 47;
	f->noncanon_hi = f->la57 ? 0xff00000000000000ULL - 1 : 0xffff800000000000ULL - 1;
	f->kernel_lo = f->noncanon_hi + 1;
	f->text_phys = f->info.text_start - f->info.kernel_map + f->info.phys_base;
	f->text_phys_end = f->text_phys + (f->info.text_end - f->info.text_start);

	load_iomem(f);
	find_nonram(f);
	find_kfence(f);
	load_kallsyms(f);
	check_safe_kprobes(f);
	load_vmallocinfo(f);
	if (f->vmemmap)
		ck_assert_int_eq(vt_kcore_read(f->vmemmap, &f->vmemmap, 8), 0);

	f->good = vt_testobj("good_head");
	f->loop = vt_testobj("loop_head");
	f->corrupt = vt_testobj("corrupt_head");
	f->link_off = vt_testobj("link_offset");
	f->id_off = vt_testobj("id_offset");
	f->name_off = vt_testobj("name_offset");
	f->vbuf = vt_testobj("vbuf");
	f->vbuf_len = vt_testobj("vbuf_len");
	f->vguard = vt_testobj("vguard");
	f->mmio = vt_testobj("mmio");
	ck_assert_int_eq(vt_kcore_read(f->good, &node_link, 8), 0);
	f->slab = node_link - f->link_off;	/* a kmalloc()ed node */
}

/* ---- memory the fuzzer points the kernel at ---- */

/*
 * The refused page's PFN: /proc/self/pagemap shows nothing of a VM_PFNMAP
 * mapping (walk_page_test() skips it), so it is the driver's pointer
 * (mmap.c: kmem_ro_refused_page, a static symbol /proc/kallsyms lists)
 * read through /proc/kcore, and its index in the memory map (64-byte
 * struct pages, as the vmemmap class assumes).
 */
static void find_refused_page(struct fuzz *f)
{
	uint64_t sym = vt_kallsyms("kmem_ro_refused_page"), page = 0;

	ck_assert_msg(sym && f->vmemmap, "no kmem_ro_refused_page or vmemmap_base in kallsyms");
	ck_assert_int_eq(vt_kcore_read(sym, &page, 8), 0);
	ck_assert_uint_ge(page, f->vmemmap);
	f->refused_pfn = (page - f->vmemmap) / 64;
	ck_assert_msg(pfn_is_ram(f, f->refused_pfn), "refused page at pfn %#" PRIx64,
		      f->refused_pfn);
	ck_assert_int_eq(vt_kcore_read(f->info.page_offset + f->refused_pfn * PAGE, &page, 8), 0);
	ck_assert_uint_eq(page, f->info.mmap_refused);
}

static void setup_memory(struct fuzz *f)
{
	char *p;
	int fd;

	/* arena + guard page: any overrun faults instead of hitting our heap */
	p = mmap(NULL, ARENA + PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(p, MAP_FAILED);
	ck_assert_int_eq(mprotect(p + ARENA, PAGE, PROT_NONE), 0);
	f->rw = p;
	p = mmap(NULL, BIG_SPECS + PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	ck_assert_ptr_ne(p, MAP_FAILED);
	ck_assert_int_eq(mprotect(p + BIG_SPECS, PAGE, PROT_NONE), 0);
	f->big = p;
	p = mmap(NULL, TAIL + PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(p, MAP_FAILED);
	ck_assert_int_eq(mprotect(p + TAIL, PAGE, PROT_NONE), 0);
	f->tail = p;
	f->ro = mmap(NULL, 2 * PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	f->none = mmap(NULL, NONE_LEN, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	/* a RW page followed by a PROT_NONE one: structs that straddle */
	f->edge = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert(f->ro != MAP_FAILED && f->none != MAP_FAILED && f->edge != MAP_FAILED);
	ck_assert_int_eq(mprotect(f->edge + PAGE, PAGE, PROT_NONE), 0);
	/* through a file of its own: closing a fuzzed fd must release it */
	fd = vt_open_dev();
	f->kmap_text = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, f->text_phys);
	ck_assert_ptr_ne(f->kmap_text, MAP_FAILED);
	/* from 0 to the first page past the first RAM range: a hole there */
	f->hole_pfn = ram_last(&f->ram[0]);
	ck_assert(!pfn_is_ram(f, f->hole_pfn));
	p = mmap(NULL, (f->hole_pfn + 1) * PAGE, PROT_READ, MAP_SHARED, fd, 0);
	ck_assert_ptr_ne(p, MAP_FAILED);
	f->kmap_hole = p + f->hole_pfn * PAGE;
	close(fd);
	find_refused_page(f);
	f->kpf_fd = open("/proc/kpageflags", O_RDONLY | O_CLOEXEC);
}

static void ro_fill(struct fuzz *f, const void *src, size_t len)
{
	ck_assert_int_eq(mprotect(f->ro, 2 * PAGE, PROT_READ | PROT_WRITE), 0);
	memset(f->ro, 0, 2 * PAGE);
	memcpy(f->ro, src, len);
	ck_assert_int_eq(mprotect(f->ro, 2 * PAGE, PROT_READ), 0);
}

/*
 * Pages the driver must never show: a memfd_secret page (missing from the
 * direct map; 6.1 needs secretmem.enable=1) and a page poisoned with
 * MADV_HWPOISON.  Each is the only hidden page in its neighbourhood of RAM.
 */
static void setup_hidden(struct fuzz *f)
{
	int sfd = syscall(SYS_memfd_secret, 0), pfd[2], kfd;
	uint64_t pfn = 0, flags = 0;
	char *p;
	pid_t pid;

	if (sfd >= 0 && !ftruncate(sfd, PAGE)) {
		p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, sfd, 0);
		ck_assert_ptr_ne(p, MAP_FAILED);
		memset(p, 0x5a, PAGE);	/* stays mapped, and secret, to the end */
		f->hidden[f->nhidden++] = vt_pagemap_pfn(p);
	}
	/* in a child: the kernel may kill the owner of a poisoned page */
	ck_assert_int_eq(pipe(pfd), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			_exit(1);
		memset(p, 0x5a, PAGE);
		pfn = vt_pagemap_pfn(p);
		if (write(pfd[1], &pfn, sizeof(pfn)) != sizeof(pfn))
			_exit(1);
		_exit(madvise(p, PAGE, MADV_HWPOISON) ? 1 : 0);
	}
	close(pfd[1]);
	if (read(pfd[0], &pfn, sizeof(pfn)) == sizeof(pfn))
		f->hidden[f->nhidden] = pfn;
	close(pfd[0]);
	waitpid(pid, NULL, 0);
	/* KPF_HWPOISON (bit 19) in /proc/kpageflags: did it take? */
	kfd = open("/proc/kpageflags", O_RDONLY | O_CLOEXEC);
	if (kfd >= 0 && pread(kfd, &flags, 8, pfn * 8) == 8 && (flags & (1ULL << 19)))
		f->nhidden++;
	if (kfd >= 0)
		close(kfd);
	for (unsigned int i = 0; i < f->nhidden; i++)
		ck_assert(pfn_is_ram(f, f->hidden[i] - 1) && pfn_is_ram(f, f->hidden[i] + 1));
}

static void zoo_add(struct fuzz *f, char *p, size_t len)
{
	ck_assert_ptr_ne(p, MAP_FAILED);
	f->zoo[f->nzoo].p = p;
	f->zoo[f->nzoo++].len = len;
}

/* Mappings of every kind for PAGEMAP: THP, shmem, tmpfs file, hugetlb, COW. */
static void setup_zoo(struct fuzz *f)
{
	size_t huge = 2 * MIB;
	char *p, *q;
	int fd;

	p = mmap(NULL, 3 * huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(p, MAP_FAILED);
	q = (char *)(((uintptr_t)p + huge - 1) & ~(huge - 1));
	madvise(q, huge, MADV_HUGEPAGE);
	memset(q, 1, huge);
	memset(q + huge, 1, huge / 2);		/* half a huge page: 4 KiB pages */
	zoo_add(f, p, 3 * huge);
	p = mmap(NULL, 64 * 1024, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	zoo_add(f, p, 64 * 1024);
	memset(p, 2, 32 * 1024);
	fd = open("/tmp/fuzz-file", O_RDWR | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, 64 * 1024), 0);
	p = mmap(NULL, 64 * 1024, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	zoo_add(f, p, 64 * 1024);
	memset(p + 16 * 1024, 3, 16 * 1024);
	p = mmap(NULL, 64 * 1024, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	zoo_add(f, p, 64 * 1024);
	for (int i = 0; i < 16; i++)
		(void)*(volatile char *)(p + i * PAGE * 2);	/* file pages */
	memset(p + 40 * 1024, 4, 8 * 1024);			/* COW copies */
	close(fd);
	p = mmap(NULL, 64 * 1024, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	zoo_add(f, p, 64 * 1024);
	vt_write_file("/proc/sys/vm/nr_hugepages", "2");
	p = mmap(NULL, huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB,
		 -1, 0);
	if (p != MAP_FAILED) {
		memset(p, 5, PAGE);
		zoo_add(f, p, huge);
	}
}

/* A pointer the kernel can neither read nor write: EFAULT. */
static uint64_t bad_ptr(struct fuzz *f)
{
	switch (below(f, 6)) {
	case 5:
		/*
		 * The end of a user mapping: a device hole no longer is one (the
		 * refused page reads), but the guard page after TAIL faults.
		 */
		return (uintptr_t)f->tail + TAIL + below(f, PAGE);
	case 0:
		return (uintptr_t)f->none + below(f, NONE_LEN);
	case 1:
		return f->info.text_start + below(f, PAGE);	/* kernel */
	case 2:
		return between(f, f->noncanon_lo, f->noncanon_hi);
	case 3:
		return between(f, 1, 0xffff);		/* below mmap_min_addr */
	default:
		return UINT64_MAX - below(f, PAGE);
	}
}

/* An array of @len bytes that runs into a PROT_NONE page. */
static uint64_t straddle_ptr(struct fuzz *f, const void *src, size_t len)
{
	size_t keep = len > 1 ? below(f, len < PAGE ? len : PAGE) : 0;
	char *p = f->edge + PAGE - keep;

	memcpy(p, src, keep);
	return (uintptr_t)p;
}

/* ---- kernel addresses from every region ---- */

static const struct sym *pick_sym(struct fuzz *f, const unsigned int *idx, unsigned int n)
{
	return &f->syms[idx[below(f, n)]];
}

static void gen_kaddr(struct fuzz *f, struct kaddr *k)
{
	const struct kmem_ro_range *r;
	const struct area *a;
	const struct sym *s;
	uint64_t pfn, span;

	k->limit = UINT64_MAX;
	k->exp = X_ANY;
	switch (below(f, 27)) {
	case 25:
		if (!f->nhidden)
			return gen_kaddr(f, k);
		k->cls = "directmap_secret_or_hwpoison";
		k->addr = f->info.page_offset + f->hidden[below(f, f->nhidden)] * PAGE +
			  below(f, PAGE);
		k->exp = X_EPERM;
		break;
	case 26:
		/* a readable page, then a hidden one: a short count */
		if (!f->nhidden)
			return gen_kaddr(f, k);
		k->cls = "directmap_into_secret_or_hwpoison";
		k->limit = 1 + below(f, PAGE);
		pfn = f->hidden[below(f, f->nhidden)];
		if (pfn_is_hidden(f, pfn - 1))
			return gen_kaddr(f, k);
		k->addr = f->info.page_offset + pfn * PAGE - k->limit;
		k->exp = X_SHORT;
		break;
	case 0:
		k->cls = "user";
		k->addr = pct(f, 50) ? (uintptr_t)f->rw + below(f, ARENA) : below(f, f->user_top);
		k->exp = X_EINVAL;
		break;
	case 1:
		k->cls = "null";
		k->addr = below(f, PAGE);
		k->exp = X_EINVAL;
		break;
	case 2:
		k->cls = "noncanonical";
		k->addr = between(f, f->noncanon_lo, f->noncanon_hi);
		k->exp = X_EINVAL;
		break;
	case 3:
		k->cls = "guard_hole";
		k->addr = between(f, f->kernel_lo, f->info.page_offset - 1);
		k->exp = X_EINVAL;
		break;
	case 4:
	case 5:
		k->cls = "directmap_ram";
		r = &f->ram[below(f, f->nram)];
		if (ram_first(r) >= ram_last(r))
			r = &f->ram[f->nram - 1];
		pfn = between(f, ram_first(r), ram_last(r) - 1);
		k->addr = f->info.page_offset + pfn * PAGE + below(f, PAGE);
		k->limit = ram_last(r) * PAGE - (k->addr - f->info.page_offset);
		k->exp = X_RAM;
		break;
	case 6:
		k->cls = "directmap_hole_mmio";
		a = &f->nonram[below(f, f->nnonram)];
		k->addr = f->info.page_offset + between(f, a->start, a->end - 1);
		k->exp = X_ENXIO;
		break;
	case 7:
		k->cls = "directmap_beyond_ram";
		span = f->info.vmalloc_start - f->info.page_offset - f->max_phys;
		k->addr = f->info.page_offset + f->max_phys + skewed(f, span - 1);
		k->exp = X_ENXIO;
		break;
	case 8:
	case 9:
		k->cls = "text";
		k->addr = between(f, f->info.text_start, f->info.text_end - 1);
		k->limit = f->info.text_end - k->addr;
		k->exp = X_TEXT;
		break;
	case 10:
		k->cls = "rodata_banner";
		k->addr = f->banner + below(f, 32);
		k->limit = 64 - (k->addr - f->banner);
		k->exp = X_TEXT;
		break;
	case 11:
		k->cls = "image_data_sym";
		s = pick_sym(f, f->data, f->ndata);
		k->addr = s->addr + below(f, s->size);
		break;
	case 12:
		k->cls = "image_past_end";
		k->addr = between(f, f->image_end, f->info.modules_start - 1);
		break;
	case 13:
		k->cls = "vmalloc_random";
		k->addr = between(f, f->info.vmalloc_start, f->info.vmalloc_end - 1);
		break;
	case 14:
	case 15:
		a = f->nvarea ? &f->varea[below(f, f->nvarea)] : NULL;
		if (!a) {
			k->cls = "vmalloc_random";
			k->addr = between(f, f->info.vmalloc_start, f->info.vmalloc_end - 1);
			break;
		}
		k->cls = a->ram ? "vmalloc_area" : "ioremap_area";
		k->addr = between(f, a->start, a->end - 1);
		k->exp = a->ram ? X_ANY : X_IOREMAP;
		k->limit = a->end - k->addr;
		break;
	case 16:
		k->cls = "testobj_vmalloc";
		k->addr = f->vbuf + below(f, f->vbuf_len);
		k->limit = f->vbuf + f->vbuf_len - k->addr;
		k->exp = X_VBUF;
		break;
	case 17:
		k->cls = "testobj_vmalloc_guard";
		k->addr = f->vguard + below(f, PAGE);
		k->exp = X_EFAULT;
		break;
	case 18:
		k->cls = "testobj_ioremap_mmio";
		k->addr = f->mmio + below(f, PAGE);
		k->exp = X_ENXIO;
		break;
	case 19:
		/* the page of a function start is mapped; the next may not be */
		k->cls = "module_text";
		s = pick_sym(f, f->mod, f->nmod);
		span = PAGE - (s->addr & (PAGE - 1));
		k->addr = s->addr + below(f, s->size < span ? s->size : span);
		k->limit = ((s->addr | (PAGE - 1)) + 1) - k->addr;
		k->exp = X_READ;
		break;
	case 20:
		k->cls = "modules_random";
		k->addr = between(f, f->info.modules_start, f->info.modules_end - 1);
		break;
	case 21:
		k->cls = "vmemmap";
		k->addr = f->vmemmap + skewed(f, (f->max_phys / PAGE) * 64 * 2);
		break;
	case 22:
		k->cls = "cpu_entry_area_espfix_efi_fixmap";
		k->addr = between(f, 0xfffffe0000000000ULL, UINT64_MAX - 2 * PAGE);
		break;
	case 23:
		k->cls = "top_of_address_space";
		k->addr = UINT64_MAX - below(f, 2 * PAGE);
		k->exp = X_TOP;
		break;
	default:
		k->cls = "testobj_slab_node";
		k->addr = f->slab + below(f, 48);
		k->limit = 48 - (k->addr - f->slab);
		k->exp = X_RAM;
		break;
	}
}

static uint64_t gen_len(struct fuzz *f, const struct kaddr *k)
{
	bool exact = k->exp == X_TEXT || k->exp == X_READ;

	if (pct(f, 5))
		return 0;
	if (exact)
		return 1 + below(f, k->limit < 256 ? k->limit : 256);
	switch (below(f, 6)) {
	case 0:
	case 1:
		return 1 + below(f, 64);
	case 2:
		return 1 + below(f, 2 * PAGE);
	case 3:
		return 1 + below(f, 64 * 1024);
	case 4:
		return k->limit < 2 * MIB ? k->limit + below(f, 64) : 1 + below(f, MIB);
	default:
		return PAGE;
	}
}

/* ---- one call: a valid argument, then mutations ---- */

enum {
	G_SIZE = 1 << 0, G_ARGPTR = 1 << 1, G_FLAGS = 1 << 2, G_RESERVED = 1 << 3,
	G_A = 1 << 4, G_B = 1 << 5, G_C = 1 << 6, G_D = 1 << 7, G_E = 1 << 8,
};

struct call {
	const char *op;
	unsigned long cmd;
	int fd;
	size_t ksize, ver0;
	uint64_t flag_mask;
	size_t res_off[3], res_len[3];
	int nres;
	uint64_t size;
	const char *argcls;	/* where the struct goes */
	const char *mut[4];
	int mexp[4];
	int nmut;
	unsigned int groups;
	bool loose;		/* valid, but the output is not predictable */
	int valid_err;		/* an unmutated call's errno (EPERM unprivileged), ANY */
	const int *allowed;
	void *uarg;
	int err;
	_Alignas(16) unsigned char s[PAGE];	/* the struct, and its tail */
};

static void call_init(struct fuzz *f, struct call *c, const char *op, unsigned long cmd,
		      size_t ksize, size_t ver0, uint64_t flag_mask, const int *allowed)
{
	memset(c, 0, sizeof(*c));
	c->op = op;
	c->cmd = cmd;
	c->fd = f->fds[below(f, NFD)].fd;
	c->ksize = ksize;
	c->ver0 = ver0;
	c->flag_mask = flag_mask;
	c->allowed = allowed;
	c->size = ksize;
	c->argcls = "ok";
	*(uint64_t *)c->s = ksize;
}

static struct fdstate *fdstate_of(struct fuzz *f, int fd)
{
	for (int i = 0; i < NFD; i++)
		if (f->fds[i].fd == fd)
			return &f->fds[i];
	return &f->fds[0];
}

static void reserved(struct call *c, size_t off, size_t len)
{
	c->res_off[c->nres] = off;
	c->res_len[c->nres++] = len;
}

/* Claim @groups for a mutation; false if one of them is taken. */
static bool take(struct call *c, unsigned int groups, const char *name, int expect)
{
	if ((c->groups & groups) || c->nmut == 4)
		return false;
	c->groups |= groups;
	c->mut[c->nmut] = name;
	c->mexp[c->nmut++] = expect;
	return true;
}

/* Errors found after the privilege check: EPERM comes first. */
static int late(const struct call *c, int err)
{
	return c->valid_err == ANY ? ANY : c->valid_err ? c->valid_err : err;
}

static int nmuts(struct fuzz *f)
{
	unsigned int r = below(f, 100);

	return r < 35 ? 0 : r < 80 ? 1 : 2 + below(f, 2);
}

static void set_size(struct call *c, uint64_t size)
{
	c->size = size;
	*(uint64_t *)c->s = size;
}

static void generic_mutate(struct fuzz *f, struct call *c)
{
	uint64_t sz, bit;
	unsigned int r;

	switch (below(f, 9)) {
	case 0:
		if (take(c, G_SIZE, "size_zero", EINVAL))
			set_size(c, 0);
		break;
	case 1:
		if (take(c, G_SIZE, "size_below_ver0", EINVAL))
			set_size(c, 1 + below(f, c->ver0 - 1));
		break;
	case 2:
		if (take(c, G_SIZE, "size_above_page", E2BIG)) {
			const uint64_t big[] = { PAGE + 1, PAGE + 8, MIB, 1ULL << 63, UINT64_MAX };

			set_size(c, pct(f, 50) ? big[below(f, 5)] :
				    between(f, PAGE + 1, UINT64_MAX));
		}
		break;
	case 3:
		if (take(c, G_SIZE, "size_larger_zero_tail", 0))
			set_size(c, between(f, c->ksize + 1, PAGE));
		break;
	case 4:
		if (take(c, G_SIZE, "size_larger_nonzero_tail", E2BIG)) {
			sz = between(f, c->ksize + 1, PAGE);
			set_size(c, sz);
			c->s[c->ksize + below(f, sz - c->ksize)] = 1 + below(f, 255);
		}
		break;
	case 5:
		/* the struct fits, its declared tail runs into a PROT_NONE page */
		if (take(c, G_SIZE | G_ARGPTR, "size_tail_unmapped", EFAULT)) {
			set_size(c, between(f, c->ksize + 8, PAGE));
			c->argcls = "tail_fault";
		}
		break;
	case 6:
		r = below(f, 7);
		if (r == 0 && take(c, G_ARGPTR, "arg_readonly", late(c, EFAULT)))
			c->argcls = "ro";
		else if (r == 1 && take(c, G_ARGPTR, "arg_straddles_unmapped", EFAULT))
			c->argcls = "straddle";
		else if (r == 2 && take(c, G_ARGPTR, "arg_in_kmem_ro_mapping", ANY))
			c->argcls = "kmap";
		else if (r == 3 && take(c, G_ARGPTR, "arg_null", EFAULT))
			c->argcls = "null";
		else if (r >= 4 && take(c, G_ARGPTR, "arg_unmapped_kernel_noncanonical", EFAULT))
			c->argcls = "bad";
		break;
	case 7:
		if (~c->flag_mask && take(c, G_FLAGS, "flags_unknown_bit", EINVAL)) {
			do
				bit = 1ULL << below(f, 64);
			while (bit & c->flag_mask);
			*(uint64_t *)(c->s + 8) |= bit;
		}
		break;
	default:
		if (c->nres && take(c, G_RESERVED, "reserved_nonzero", EINVAL)) {
			r = below(f, c->nres);
			c->s[c->res_off[r] + below(f, c->res_len[r])] = 1 + below(f, 255);
		}
		break;
	}
}

static void *place_arg(struct fuzz *f, struct call *c)
{
	size_t keep;
	char *p;

	if (!strcmp(c->argcls, "ok")) {
		memcpy(f->rw + ARGS_AT, c->s, PAGE);
		return f->rw + ARGS_AT;
	}
	if (!strcmp(c->argcls, "ro")) {
		ro_fill(f, c->s, PAGE);
		return f->ro;
	}
	if (!strcmp(c->argcls, "straddle")) {
		keep = between(f, 8, c->ksize - 1);
		p = f->edge + PAGE - keep;
		memcpy(p, c->s, keep);
		return p;
	}
	if (!strcmp(c->argcls, "tail_fault")) {
		keep = between(f, c->ksize, c->size - 1);
		p = f->edge + PAGE - keep;
		memcpy(p, c->s, keep);
		return p;
	}
	if (!strcmp(c->argcls, "kmap"))
		return (void *)(f->kmap_text + below(f, PAGE / 8 - 32) * 8);
	if (!strcmp(c->argcls, "null"))
		return NULL;
	return (void *)(uintptr_t)bad_ptr(f);
}

static const char *call_cls(const struct call *c)
{
	if (!c->nmut)
		return "valid";
	return c->nmut == 1 ? c->mut[0] : "multi";
}

static void call_desc(struct fuzz *f, const struct call *c, const char *extra)
{
	char muts[120] = "";

	for (int i = 0; i < c->nmut; i++)
		snprintf(muts + strlen(muts), sizeof(muts) - strlen(muts), "%s%s",
			 i ? "," : "", c->mut[i]);
	note_call(f, "%s fd=%d size=%" PRIu64 " arg=%s muts=[%s] %s", c->op, c->fd, c->size,
		  c->argcls, muts, extra);
}

/*
 * Make the call; judge the errno.  True when it succeeded as it had to:
 * then c->s holds the output (c->loose: not predictable in detail).
 */
static bool call_run(struct fuzz *f, struct call *c, const char *extra)
{
	bool any = false, nonzero = false, match = false;

	call_desc(f, c, extra);
	c->uarg = place_arg(f, c);
	c->err = ioctl(c->fd, c->cmd, c->uarg) ? errno : 0;
	f->sh->calls++;
	if (c->err >= NCODES) {
		wrong(f, "%s: errno %d out of range", c->op, c->err);
		return false;
	}
	record(f, c->op, call_cls(c), c->err);
	if (c->err && !in(c->err, c->allowed)) {
		wrong(f, "%s: undocumented errno %s", c->op, code_name(c->err));
		return false;
	}
	if (c->err == EINTR && !f->sigmode)
		wrong(f, "%s: EINTR without a signal", c->op);
	if (c->err == EINTR)
		return false;
	for (int i = 0; i < c->nmut; i++) {
		if (c->mexp[i] == ANY)
			any = true;
		else if (c->mexp[i])
			nonzero = true;
		if (c->mexp[i] == c->err)
			match = true;
	}
	if (any)
		return false;
	if (!nonzero && c->valid_err != ANY && c->err != c->valid_err)
		wrong(f, "%s: expected %s, got %s", c->op, code_name(c->valid_err),
		     code_name(c->err));
	if (nonzero && !match)
		wrong(f, "%s: expected the errno of one of its mutations, got %s", c->op,
		     code_name(c->err));
	if (c->err || nonzero)
		return false;
	memcpy(c->s, c->uarg, c->ksize);	/* placed "ok": read the output */
	return true;
}

/* ---- /proc/kcore as the reference for text ---- */

struct kcore_ref {
	uint64_t addr;
	size_t len;
	unsigned char before[256];
	bool have;
};

static void kcore_before(struct fuzz *f, struct kcore_ref *k, uint64_t addr, size_t len)
{
	k->addr = addr;
	k->len = len < sizeof(k->before) ? len : sizeof(k->before);
	k->have = !f->unpriv && !vt_kcore_read(addr, k->before, k->len);
}

/*
 * Text is patched under us (ftrace, static keys, the kprobe optimizer): a
 * difference counts only when /proc/kcore read the same before and after.
 */
static void kcore_after(struct fuzz *f, const struct kcore_ref *k, const void *got,
			const char *what)
{
	unsigned char after[256];

	if (!k->have || !memcmp(k->before, got, k->len))
		return;
	if (vt_kcore_read(k->addr, after, k->len) || memcmp(after, k->before, k->len))
		return;
	wrong(f, "%s at %#" PRIx64 ": %zu bytes differ from /proc/kcore", what, k->addr, k->len);
}

/* ---- INFO ---- */

static void op_info(struct fuzz *f)
{
	struct kmem_ro_range *ram = (void *)(f->rw + DATA_AT);
	struct kmem_ro_info *a;
	struct call c;
	uint32_t cap = pct(f, 20) ? 0 : below(f, 32);
	unsigned int n;

	call_init(f, &c, "INFO", KMEM_RO_IOC_INFO, sizeof(*a), KMEM_RO_INFO_SIZE_VER0, 0, ok_info);
	reserved(&c, offsetof(struct kmem_ro_info, reserved), 16);
	reserved(&c, offsetof(struct kmem_ro_info, reserved2), 4);
	a = (void *)c.s;
	a->ram_addr = cap ? (uintptr_t)ram : 0;
	a->ram_cap = cap;
	memset(ram, 0xa5, 64 * sizeof(*ram));
	for (n = nmuts(f); n; n--) {
		if (pct(f, 50)) {
			generic_mutate(f, &c);
			continue;
		}
		switch (below(f, 5)) {
		case 0:
			if (take(&c, G_A, "ram_addr_without_cap", EINVAL)) {
				a->ram_addr = (uintptr_t)ram;
				a->ram_cap = 0;
			}
			break;
		case 1:
			if (take(&c, G_A, "ram_cap_without_addr", EINVAL)) {
				a->ram_addr = 0;
				a->ram_cap = 1 + below(f, UINT32_MAX);
			}
			break;
		case 2:
			if (take(&c, G_A, "ram_addr_bad", EFAULT)) {
				a->ram_addr = pct(f, 30) ? (uintptr_t)f->ro :
					      pct(f, 30) ? (uintptr_t)f->kmap_text : bad_ptr(f);
				a->ram_cap = 1 + below(f, 64);
			}
			break;
		case 3:
			/* only what exists is written */
			if (take(&c, G_A, "ram_cap_huge", 0)) {
				a->ram_addr = (uintptr_t)ram;
				a->ram_cap = UINT32_MAX - below(f, 1000);
				cap = a->ram_cap;
			}
			break;
		default:
			if (take(&c, G_B, "output_fields_garbage", 0)) {
				a->abi_version = rnd(f);
				a->features = rnd(f);
				a->text_start = rnd(f);
				a->ram_count = rnd(f);
			}
			break;
		}
	}
	if (!call_run(f, &c, ""))
		return;
	a = (void *)c.s;
	if (a->abi_version != KMEM_RO_ABI_VERSION || a->page_size != PAGE ||
	    a->page_offset != f->info.page_offset || a->text_start != f->info.text_start ||
	    a->text_end != f->info.text_end || a->vmalloc_start != f->info.vmalloc_start ||
	    a->modules_end != f->info.modules_end || a->phys_base != f->info.phys_base ||
	    a->ioctls != f->info.ioctls || a->reserved[0] || a->reserved[1] ||
	    (c.size >= KMEM_RO_INFO_SIZE_VER1 &&
	     (a->vmcoreinfo_addr != f->info.vmcoreinfo_addr ||
	      a->vmcoreinfo_size != f->info.vmcoreinfo_size || a->reserved2)))
		wrong(f, "INFO: layout differs from the first answer");
	if (!!(a->features & KMEM_RO_FEAT_MMAP_RAM) != f->mmap_ram)
		wrong(f, "INFO: FEAT_MMAP_RAM %d with mmap_ram=%d",
		     !!(a->features & KMEM_RO_FEAT_MMAP_RAM), f->mmap_ram);
	if (a->ram_count != f->info.ram_count)
		wrong(f, "INFO: ram_count %u, first answer %u", a->ram_count, f->info.ram_count);
	n = a->ram_count < cap ? a->ram_count : cap;
	if (n > 64 || memcmp(ram, f->info_ram, n * sizeof(*ram)))
		wrong(f, "INFO: RAM ranges differ from the first answer (= /proc/iomem)");
	else if (n < 64 && ram[n].start != 0xa5a5a5a5a5a5a5a5ULL)
		wrong(f, "INFO: wrote past min(ram_count, ram_cap) = %u", n);
}

/* ---- READV ---- */

struct seg {
	struct kaddr k;
	bool bufok;
	const char *bufcls;
	struct kcore_ref ref;
};

/*
 * One read of @s->k as READV segment @iov or as a pread() (@op "PREAD",
 * its result as a segment's): the count and errno its class allows.
 */
/* wrong(), naming the call: READV or PREAD */
#define seg_wrong(fmt, ...)	wrong(f, "%s: " fmt, op, ##__VA_ARGS__)

static void check_seg(struct fuzz *f, const char *op, const struct kmem_ro_iov *iov,
		      struct seg *s)
{
	int64_t r = iov->result;
	int code = r < 0 ? (int)-r : 0;
	const char *cls = s->bufok ? s->k.cls : s->bufcls;

	if (r > 0 && (uint64_t)r > iov->len) {
		seg_wrong("segment result %" PRId64 " > len %" PRIu64, r, (uint64_t)iov->len);
		return;
	}
	if (r < 0 && (r < -133 || !in(-r, ok_read))) {
		seg_wrong("segment errno %" PRId64 " undocumented (%s)", -r, cls);
		return;
	}
	record(f, strcmp(op, "READV") ? op : "READV.segment", iov->len ? cls : "len_zero",
	       code);
	if (!iov->len) {
		if (r)
			seg_wrong("len 0 gave %" PRId64, r);
		return;
	}
	switch (s->k.exp) {
	case X_EINVAL:
		if (r != -EINVAL)
			seg_wrong("%s %#" PRIx64 " gave %" PRId64 ", want -EINVAL", s->k.cls,
			     (uint64_t)iov->addr, r);
		return;
	case X_EFAULT:
		if (r != -EFAULT)
			seg_wrong("%s %#" PRIx64 " gave %" PRId64 ", want -EFAULT", s->k.cls,
			     (uint64_t)iov->addr, r);
		return;
	case X_ENXIO:
		if (r != -ENXIO)
			seg_wrong("%s %#" PRIx64 " gave %" PRId64 ", want -ENXIO", s->k.cls,
			     (uint64_t)iov->addr, r);
		return;
	case X_EPERM:
		if (r != -EPERM)
			seg_wrong("%s %#" PRIx64 " gave %" PRId64 ", want -EPERM", s->k.cls,
			     (uint64_t)iov->addr, r);
		return;
	case X_TOP:
		if (iov->addr + iov->len < iov->addr && r != -EINVAL)
			seg_wrong("wrapping segment gave %" PRId64, r);
		return;
	}
	if (!s->bufok)
		return;
	switch (s->k.exp) {
	case X_RAM:
		if (r <= 0 && r != -EPERM)
			seg_wrong("RAM %#" PRIx64 " gave %" PRId64, (uint64_t)iov->addr, r);
		break;
	case X_TEXT:
		if ((uint64_t)r != iov->len)
			seg_wrong("%s %#" PRIx64 " len %" PRIu64 " gave %" PRId64, s->k.cls,
			     (uint64_t)iov->addr, (uint64_t)iov->len, r);
		else
			kcore_after(f, &s->ref, (void *)(uintptr_t)iov->buf, op);
		break;
	case X_READ:
		if ((uint64_t)r != iov->len)
			seg_wrong("%s %#" PRIx64 " len %" PRIu64 " gave %" PRId64, s->k.cls,
			     (uint64_t)iov->addr, (uint64_t)iov->len, r);
		break;
	case X_VBUF: {
		uint64_t want = iov->len < s->k.limit ? iov->len : s->k.limit;
		uint64_t off = iov->addr - f->vbuf;
		const unsigned char *b = (void *)(uintptr_t)iov->buf;

		if ((uint64_t)r != want) {
			seg_wrong("vmalloc buffer +%#" PRIx64 " len %" PRIu64 " gave %" PRId64
			     ", want %" PRIu64, off, (uint64_t)iov->len, r, want);
			break;
		}
		for (uint64_t i = 0; i < want; i++)
			if (b[i] != (((off + i) * 7) & 0xff)) {
				seg_wrong("vmalloc buffer byte %#" PRIx64 " wrong", off + i);
				break;
			}
		break;
	}
	case X_SHORT:
		if ((uint64_t)r != (iov->len < s->k.limit ? iov->len : s->k.limit))
			seg_wrong("%s len %" PRIu64 " gave %" PRId64 ", %" PRIu64
			      " bytes before the hidden page", s->k.cls, (uint64_t)iov->len, r,
			      s->k.limit);
		break;
	case X_IOREMAP:
		if (r != -ENXIO && r != -EFAULT)
			seg_wrong("ioremap %#" PRIx64 " gave %" PRId64, (uint64_t)iov->addr,
			      r);
		break;
	}
}

#undef seg_wrong

static void op_readv(struct fuzz *f)
{
	struct kmem_ro_iov *iov = (void *)(f->rw + ARRAYS_AT);
	static struct seg segs[KMEM_RO_READV_MAX_SEGS];
	uint64_t data = DATA_AT, total = 0;
	struct kmem_ro_readv *a;
	unsigned int n, i, r, checked = 0;
	bool results_visible = true;
	struct call c;
	char extra[96];

	call_init(f, &c, "READV", KMEM_RO_IOC_READV, sizeof(*a), KMEM_RO_READV_SIZE_VER0, 0,
		  ok_readv);
	reserved(&c, offsetof(struct kmem_ro_readv, reserved), 16);
	a = (void *)c.s;
	r = below(f, 100);
	n = r < 3 ? 0 : r < 75 ? 1 + below(f, 8) : r < 95 ? 9 + below(f, 56) :
	    65 + below(f, KMEM_RO_READV_MAX_SEGS - 64);
	for (i = 0; i < n; i++) {
		struct seg *s = &segs[i];

		gen_kaddr(f, &s->k);
		iov[i].addr = s->k.addr;
		iov[i].len = gen_len(f, &s->k);
		if (total + iov[i].len > KMEM_RO_READV_MAX_BYTES)
			iov[i].len = 0;
		total += iov[i].len;
		iov[i].result = 0x7777777777;
		if (data + iov[i].len > ARENA)	/* the output area is used up */
			iov[i].len = below(f, 64);
		s->bufok = pct(f, 88) && data + iov[i].len <= ARENA;
		if (s->bufok) {
			iov[i].buf = (uintptr_t)f->rw + data;
			data += (iov[i].len + 15) & ~15ULL;
		} else {
			r = below(f, 4);
			s->bufcls = r == 0 ? "buffer_readonly" :
				    r == 1 ? "buffer_in_kmem_ro_mapping" :
				    r == 2 ? "buffer_runs_into_guard" : "buffer_unmapped";
			iov[i].buf = r == 0 ? (uintptr_t)f->ro : r == 1 ? (uintptr_t)f->kmap_text :
				     r == 2 ? (uintptr_t)f->tail + TAIL -
					      below(f, (iov[i].len < TAIL ? iov[i].len : TAIL) +
						    1) :
				     bad_ptr(f);
		}
		s->ref.have = false;
		if (s->bufok && s->k.exp == X_TEXT && checked < 2 && iov[i].len) {
			kcore_before(f, &s->ref, iov[i].addr, iov[i].len);
			checked++;
		}
	}
	a->iov_addr = n ? (uintptr_t)iov : 0;
	a->iov_count = n;
	for (unsigned int m = nmuts(f); m; m--) {
		if (pct(f, 40)) {
			generic_mutate(f, &c);
			continue;
		}
		switch (below(f, 8)) {
		case 0:
			if (take(&c, G_A, "iov_addr_without_count", EINVAL)) {
				a->iov_addr = (uintptr_t)iov;
				a->iov_count = 0;
			}
			break;
		case 1:
			if (n && take(&c, G_A, "iov_count_without_addr", EINVAL))
				a->iov_addr = 0;
			break;
		case 2:
			if (take(&c, G_A, "iov_count_above_max", E2BIG)) {
				a->iov_addr = (uintptr_t)iov;
				a->iov_count = between(f, KMEM_RO_READV_MAX_SEGS + 1, UINT32_MAX);
			}
			break;
		case 3:
			if (n && take(&c, G_B, "segment_len_above_max", E2BIG))
				iov[below(f, n)].len =
					between(f, KMEM_RO_READV_MAX_BYTES + 1,
						pct(f, 50) ? UINT64_MAX : 1ULL << 32);
			break;
		case 4:
			if (n >= 2 && take(&c, G_B, "total_len_above_max", E2BIG)) {
				iov[0].len = KMEM_RO_READV_MAX_BYTES - below(f, 100);
				iov[n - 1].len = 101 + below(f, KMEM_RO_READV_MAX_BYTES - 100);
			}
			break;
		case 5:
			if (n && take(&c, G_A, "iov_array_unmapped", EFAULT))
				a->iov_addr = bad_ptr(f);
			break;
		case 6:
			/* read, but the results cannot be written back */
			if (n && n * sizeof(*iov) <= 2 * PAGE &&
			    take(&c, G_A, "iov_array_readonly", EFAULT)) {
				ro_fill(f, iov, n * sizeof(*iov));
				a->iov_addr = (uintptr_t)f->ro;
				results_visible = false;
			}
			break;
		default:
			if (n && take(&c, G_A, "iov_array_straddles_unmapped", EFAULT)) {
				a->iov_addr = straddle_ptr(f, iov, n * sizeof(*iov));
				results_visible = false;
			}
			break;
		}
	}
	snprintf(extra, sizeof(extra), "segs=%u first=%s:%#" PRIx64 "+%" PRIu64, n,
		 n ? segs[0].k.cls : "-", n ? (uint64_t)iov[0].addr : 0,
		 n ? (uint64_t)iov[0].len : 0);
	if (!call_run(f, &c, extra) || !results_visible)
		return;
	a = (void *)c.s;
	if (a->done > n || (a->done < n && !f->sigmode)) {
		wrong(f, "READV: done %u of %u", a->done, n);
		return;
	}
	for (i = 0; i < a->done; i++)
		check_seg(f, "READV", &iov[i], &segs[i]);
	for (; i < n; i++)
		if (iov[i].result != 0x7777777777) {
			wrong(f, "READV: segment %u past done=%u was written", i, a->done);
			break;
		}
}

/* ---- pread() and read() by address (KMEM_RO_READ_OFFSET()) ---- */

/*
 * pread() of a random (address, length) from gen_kaddr()'s pools, or
 * read() at the file position after lseek() there, into a good or a bad
 * buffer.  The count is 0..len, the errno one of ok_pread; a good
 * buffer's result must be what its address class allows (check_seg(), as
 * for a READV segment), the bytes too.  A signal may cut a read of more
 * than 256 bytes short between pages (a whole number of the driver's
 * page-sized steps, or where a page of the address starts); a raw
 * (negative) address as offset is the VFS's EINVAL.
 */
static const int ok_pread[] = { EINVAL, EFAULT, ENXIO, EPERM, EINTR, 0 };

static void op_pread(struct fuzz *f)
{
	int fd = f->fds[below(f, NFD)].fd, err;
	bool via_read = pct(f, 25), raw = pct(f, 4);
	uint64_t len, limit = ARENA - DATA_AT, want_pos;
	struct kmem_ro_iov iov;
	const char *cls;
	struct seg s;
	off_t off, pos;
	ssize_t r;

	gen_kaddr(f, &s.k);
	len = gen_len(f, &s.k);
	if (s.k.exp != X_TEXT && s.k.exp != X_READ && pct(f, 3))
		len = between(f, MIB, limit);	/* beyond READV's usual sizes */
	if (len > limit)
		len = limit;
	s.bufok = pct(f, 88);
	s.bufcls = NULL;
	iov = (struct kmem_ro_iov){ .addr = s.k.addr, .len = len,
				    .buf = (uintptr_t)f->rw + DATA_AT };
	if (!s.bufok) {
		unsigned int b = below(f, 4);

		s.bufcls = b == 0 ? "buffer_readonly" : b == 1 ? "buffer_in_kmem_ro_mapping" :
			   b == 2 ? "buffer_runs_into_guard" : "buffer_unmapped";
		iov.buf = b == 0 ? (uintptr_t)f->ro : b == 1 ? (uintptr_t)f->kmap_text :
			  b == 2 ? (uintptr_t)f->tail + TAIL - below(f, (len < TAIL ? len : TAIL) + 1) :
			  bad_ptr(f);
	}
	s.ref.have = false;
	if (s.bufok && s.k.exp == X_TEXT && len)
		kcore_before(f, &s.ref, s.k.addr, len);
	off = raw ? (off_t)s.k.addr : KMEM_RO_READ_OFFSET(s.k.addr);
	cls = raw ? "raw_address_offset" : s.bufok ? s.k.cls : s.bufcls;
	/* an address with bit 63 clear (user space, some non-canonical) reads with it set */
	if (KMEM_RO_READ_ADDR(off) != s.k.addr) {
		s.k.addr = iov.addr = KMEM_RO_READ_ADDR(off);
		s.k.exp = s.k.addr < f->info.page_offset ? X_EINVAL : X_ANY;
		s.ref.have = false;
	}
	note_call(f, "%s fd=%d %s %#" PRIx64 "+%" PRIu64 " buf=%s", via_read ? "lseek+read" : "pread",
		  fd, s.k.cls, s.k.addr, len, s.bufok ? "ok" : s.bufcls);
	f->sh->calls++;
	if (via_read) {
		pos = lseek(fd, off, SEEK_SET);
		if (pos != off) {
			/* only a raw, negative offset is refused */
			if (!(off < 0 && pos < 0 && errno == EINVAL))
				wrong(f, "lseek to %#llx gave %lld (%s)", (unsigned long long)off,
				      (long long)pos, code_name(errno));
			record(f, "PREAD.lseek", cls, pos < 0 ? errno : 0);
			return;
		}
		r = read(fd, (void *)(uintptr_t)iov.buf, len);
	} else {
		r = syscall(SYS_pread64, fd, (void *)(uintptr_t)iov.buf, len, off);
	}
	err = r < 0 ? errno : 0;
	if (via_read) {
		want_pos = off + (r > 0 ? r : 0);
		pos = lseek(fd, 0, SEEK_CUR);
		if ((uint64_t)pos != want_pos)
			wrong(f, "read of %zd bytes left the position at %#llx, want %#llx", r,
			      (unsigned long long)pos, (unsigned long long)want_pos);
	}
	if (err >= NCODES || (err && !in(err, ok_pread))) {
		record(f, "PREAD", cls, err < NCODES ? err : 0);
		wrong(f, "PREAD: undocumented errno %s (%s)", code_name(err), cls);
		return;
	}
	if (r > (ssize_t)len) {
		wrong(f, "PREAD: %zd bytes of %" PRIu64, r, len);
		return;
	}
	if (err == EINTR && !f->sigmode)
		wrong(f, "PREAD: EINTR without a signal");
	if (raw && off < 0) {
		record(f, "PREAD", cls, err);
		if (err != EINVAL)
			wrong(f, "PREAD: raw address %#" PRIx64 " as offset gave %s, want EINVAL "
			      "(the VFS's)", s.k.addr, code_name(err));
		return;
	}
	if (!s.bufok || err == EINTR) {
		/* a buffer the VFS refuses (access_ok()) fails before the address is seen */
		record(f, "PREAD", cls, err);
		if (!s.bufok && r > 0 && strcmp(s.bufcls, "buffer_runs_into_guard"))
			wrong(f, "PREAD: %zd bytes into a %s", r, s.bufcls);
		return;
	}
	if (f->sigmode && r > 0 && (uint64_t)r < len && len > 256 &&
	    (!(r & (PAGE - 1)) || !((s.k.addr + r) & (PAGE - 1)))) {
		record(f, "PREAD", "cut_by_signal", 0);
		return;
	}
	iov.result = r < 0 ? -err : r;
	check_seg(f, "PREAD", &iov, &s);
}

/* ---- WALK ---- */

static const char *const walk_status[] = {
	"DONE", "MAX_REACHED", "BUF_FULL", "LOOP", "FAULT", "INTERRUPTED",
};

static void op_walk(struct fuzz *f)
{
	struct kmem_ro_field *fields = (void *)(f->rw + ARRAYS_AT);
	unsigned char *buf = (void *)(f->rw + DATA_AT);
	uint64_t head, start = 0, idx = 0, maxeff, bufcap, rec = 0;
	const char *headcls;
	struct kmem_ro_walk *a;
	unsigned int nf, i, which = below(f, 100);
	bool at_head = false;
	struct kaddr k;
	struct call c;
	char extra[96];

	call_init(f, &c, "WALK", KMEM_RO_IOC_WALK, sizeof(*a), KMEM_RO_WALK_SIZE_VER0,
		  KMEM_RO_WALK_NODE_ADDR, ok_walk);
	reserved(&c, offsetof(struct kmem_ro_walk, reserved0), 4);
	reserved(&c, offsetof(struct kmem_ro_walk, reserved), 16);
	a = (void *)c.s;
	a->flags = pct(f, 50) ? KMEM_RO_WALK_NODE_ADDR : 0;
	if (which < 75) {
		/* the test objects: known answers */
		head = which < 45 ? f->good : which < 60 ? f->loop : f->corrupt;
		headcls = which < 45 ? "good" : which < 60 ? "loop" : "corrupt";
		a->link_offset = f->link_off;
		nf = 1 + below(f, 3);
		fields[0] = (struct kmem_ro_field){ f->id_off, 4 };
		fields[1] = (struct kmem_ro_field){ f->name_off, 12 };
		fields[2] = (struct kmem_ro_field){ 0, 8 };
		if (head == f->good && f->good_next && pct(f, 30)) {
			start = f->good_next;
			idx = f->good_idx;
		}
	} else {
		gen_kaddr(f, &k);
		if (k.addr < f->info.page_offset)
			k.addr = f->info.text_start;	/* bad heads are a mutation */
		head = k.addr;
		headcls = k.cls;
		c.loose = true;
		a->link_offset = pct(f, 60) ? 0 : pct(f, 50) ? below(f, 4096) : rnd(f);
		nf = 1 + below(f, 4);
		for (i = 0; i < nf; i++)
			fields[i] = (struct kmem_ro_field){ pct(f, 80) ? below(f, 512) : rnd(f),
							    1 + below(f, 64) };
	}
	for (i = 0; i < nf; i++)
		rec += fields[i].len;
	rec += a->flags ? 8 : 0;
	a->head = head;
	a->start = start;
	a->fields_addr = (uintptr_t)fields;
	a->fields_count = nf;
	a->max_nodes = pct(f, 30) ? 0 : 1 + below(f, 1200);
	bufcap = 1 + below(f, c.loose ? 256 : 1100);
	a->buf_addr = (uintptr_t)buf;
	a->buf_size = bufcap * rec + (pct(f, 50) ? below(f, rec) : 0);
	for (unsigned int m = nmuts(f); m; m--) {
		if (pct(f, 35)) {
			generic_mutate(f, &c);
			continue;
		}
		switch (below(f, 15)) {
		case 13:
			if (take(&c, G_B, "start_is_head", 0)) {
				a->start = a->head;
				at_head = true;
			}
			break;
		case 0:
			if (take(&c, G_A, "head_not_kernel", EINVAL)) {
				gen_kaddr(f, &k);
				a->head = k.addr < f->info.page_offset ? k.addr :
					  below(f, f->user_top);
			}
			break;
		case 1:
			if (take(&c, G_B, "start_not_kernel", EINVAL))
				a->start = 1 + below(f, f->info.page_offset - 1);
			break;
		case 2:
			if (take(&c, G_B, "start_random_kernel", 0)) {
				gen_kaddr(f, &k);
				a->start = k.addr < f->info.page_offset ? f->slab : k.addr;
				c.loose = true;
			}
			break;
		case 3:
			if (take(&c, G_C, "fields_count_zero", EINVAL))
				a->fields_count = 0;
			break;
		case 4:
			if (take(&c, G_C, "fields_count_above_max", E2BIG))
				a->fields_count = between(f, KMEM_RO_WALK_MAX_FIELDS + 1,
							  UINT32_MAX);
			break;
		case 5:
			if (take(&c, G_C, "fields_addr_zero", EINVAL))
				a->fields_addr = 0;
			else if (take(&c, G_C, "fields_addr_unmapped", EFAULT))
				a->fields_addr = pct(f, 50) ? bad_ptr(f) :
						 straddle_ptr(f, fields, nf * sizeof(*fields));
			break;
		case 6:
			if (take(&c, G_C, "field_len_zero", EINVAL))
				fields[below(f, nf)].len = 0;
			break;
		case 7:
			if (take(&c, G_C, "record_above_max", E2BIG))
				fields[below(f, nf)].len = between(f, KMEM_RO_WALK_MAX_RECORD + 1,
								   UINT32_MAX);
			break;
		case 8:
			if (take(&c, G_D, "buf_addr_zero", EINVAL))
				a->buf_addr = 0;
			break;
		case 9:
			if (take(&c, G_D, "buf_size_zero", EINVAL))
				a->buf_size = 0;
			else if (take(&c, G_D, "buf_smaller_than_record", EINVAL))
				a->buf_size = below(f, rec);
			break;
		case 10:
			/* the first node of a test list is always readable */
			if (take(&c, G_D, "buf_unwritable", c.loose ? ANY : EFAULT)) {
				i = below(f, 3);
				a->buf_addr = i == 0 ? (uintptr_t)f->ro : i == 1 ?
					      (uintptr_t)f->kmap_text : bad_ptr(f);
				a->buf_size = rec * (1 + below(f, 4));
			}
			break;
		case 11:
			if (take(&c, G_E, "link_offset_random", 0)) {
				a->link_offset = rnd(f);
				c.loose = true;
			}
			break;
		case 12:
			if (take(&c, G_E, "max_nodes_above_max", 0))
				a->max_nodes = between(f, KMEM_RO_WALK_MAX_NODES + 1, UINT32_MAX);
			break;
		default:
			if (take(&c, G_E, "output_fields_garbage", 0)) {
				a->nodes = rnd(f);
				a->status = rnd(f);
				a->next = rnd(f);
				a->fault_addr = rnd(f);
				a->fault_errno = rnd(f);
			}
			break;
		}
	}
	snprintf(extra, sizeof(extra), "head=%s:%#" PRIx64 " start=%#" PRIx64 " fields=%u max=%u",
		 headcls, (uint64_t)a->head, (uint64_t)a->start, a->fields_count, a->max_nodes);
	if (!call_run(f, &c, extra))
		return;
	a = (void *)c.s;
	if (a->status > KMEM_RO_WALK_INTERRUPTED) {
		wrong(f, "WALK: status %u", a->status);
		return;
	}
	record(f, "WALK.status", walk_status[a->status], 0);
	if (a->status == KMEM_RO_WALK_INTERRUPTED && !f->sigmode)
		wrong(f, "WALK: INTERRUPTED without a signal");
	if ((uint64_t)a->nodes * rec > a->buf_size)
		wrong(f, "WALK: %u records of %" PRIu64 " bytes in %" PRIu64, a->nodes, rec,
		     (uint64_t)a->buf_size);
	if (a->status == KMEM_RO_WALK_FAULT) {
		int e = -a->fault_errno;

		if (e <= 0 || e > 133 || !in(e, ok_read))
			wrong(f, "WALK: fault_errno %d undocumented", a->fault_errno);
		else
			record(f, "WALK.fault", headcls, e);
	}
	if (at_head && !c.loose && (a->nodes || a->status != KMEM_RO_WALK_DONE))
		wrong(f, "WALK: starting at the head gave %u nodes, %s", a->nodes,
		      walk_status[a->status]);
	if (c.loose || f->sigmode || at_head)
		return;
	maxeff = a->max_nodes && a->max_nodes < KMEM_RO_WALK_MAX_NODES ? a->max_nodes :
		 KMEM_RO_WALK_MAX_NODES;
	bufcap = a->buf_size / rec;
	if (head == f->good) {
		uint64_t left = 1000 - idx, want = left;
		unsigned int st = KMEM_RO_WALK_DONE;

		if (want > maxeff || want > bufcap) {
			want = maxeff < bufcap ? maxeff : bufcap;
			st = maxeff <= bufcap ? KMEM_RO_WALK_MAX_REACHED : KMEM_RO_WALK_BUF_FULL;
		}
		if (a->status != st || a->nodes != want) {
			wrong(f, "WALK: good list from %" PRIu64 ": %u nodes %s, want %" PRIu64
			      " %s",
			     idx, a->nodes, walk_status[a->status], want, walk_status[st]);
			return;
		}
		for (i = 0; i < a->nodes; i++) {
			const unsigned char *r = buf + i * rec + (a->flags ? 8 : 0);
			char name[13];
			uint32_t id;

			memcpy(&id, r, 4);
			snprintf(name, sizeof(name), "node-%" PRIu64, idx + i);
			if (id != idx + i || (nf > 1 && strncmp((const char *)r + 4, name, 12)) ||
			    (nf > 2 && memcmp(r + 16, "!or_memk", 8))) {
				wrong(f, "WALK: good list record %" PRIu64 " wrong", idx + i);
				return;
			}
		}
		if (st != KMEM_RO_WALK_DONE) {
			f->good_next = a->next;
			f->good_idx = idx + want;
		}
	} else {
		bool loop = head == f->loop;
		uint64_t full = loop ? 3 : 2, want = full;

		if (want > maxeff || want > bufcap)
			want = maxeff < bufcap ? maxeff : bufcap;
		if (a->nodes != want) {
			wrong(f, "WALK: %s list: %u nodes, want %" PRIu64, headcls, a->nodes, want);
			return;
		}
		if (want < full || (!loop && maxeff == 2) || (!loop && bufcap == 2)) {
			if (a->status != KMEM_RO_WALK_MAX_REACHED &&
			    a->status != KMEM_RO_WALK_BUF_FULL)
				wrong(f, "WALK: %s list cut short: %s", headcls,
				      walk_status[a->status]);
		} else if (loop && a->status != KMEM_RO_WALK_LOOP) {
			wrong(f, "WALK: loop list: %s", walk_status[a->status]);
		} else if (!loop && (a->status != KMEM_RO_WALK_FAULT || a->fault_errno != -EINVAL ||
				     a->fault_addr != 0xdead000000000100ULL - f->link_off +
						      fields[0].offset)) {
			wrong(f, "WALK: corrupt list: %s errno %d at %#" PRIx64,
			      walk_status[a->status],
			     a->fault_errno, (uint64_t)a->fault_addr);
		}
	}
}

/* ---- PAGEMAP ---- */

static bool in_kmem_map(struct fuzz *f, uint64_t start, uint64_t end)
{
	for (unsigned int i = 0; i < f->nmaps; i++)
		if (start >= (uintptr_t)f->maps[i].p &&
		    end <= (uintptr_t)f->maps[i].p + f->maps[i].len)
			return true;
	return false;
}

#define PM_CMP_PAGES	4096

/* /proc/self/pagemap for [start, end) if it is small enough to compare. */
static bool proc_pagemap(uint64_t start, uint64_t end, uint64_t *out)
{
	size_t n = (end - start) / PAGE;
	int fd;
	bool ok;

	if (n > PM_CMP_PAGES)
		return false;
	fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ok = pread(fd, out, n * 8, start / PAGE * 8) == (ssize_t)(n * 8);
	close(fd);
	return ok;
}

/*
 * The driver's entries must be the kernel's own, bit for bit (PFNs hidden
 * from an unprivileged reader of /proc, not from our fd, opened by root).
 * Memory may change around the call: only a difference that two reads of
 * /proc/self/pagemap around it agree on counts.
 */
static void compare_pagemap(struct fuzz *f, const struct kmem_ro_pagemap *a,
			    const uint64_t *before, uint64_t *after, const uint64_t *got)
{
	uint64_t n = (a->walk_end - a->start) / PAGE, mask = ~0ULL;

	if (!proc_pagemap(a->start, a->end, after) || memcmp(before, after, n * 8))
		return;
	if (f->unpriv)
		mask = ~KMEM_RO_PM_FRAME_MASK;
	for (uint64_t i = 0; i < n; i++)
		if ((got[i] ^ before[i]) & mask) {
			wrong(f, "PAGEMAP: page %#" PRIx64 ": %#" PRIx64 ", /proc/self/pagemap %#"
			      PRIx64, (uint64_t)a->start + i * PAGE, got[i], before[i]);
			return;
		}
	record(f, "PAGEMAP.same_as_proc", a->flags ? "runs" : "flat", 0);
}

static void op_pagemap(struct fuzz *f)
{
	void *buf = f->rw + DATA_AT;
	struct kmem_ro_pagemap *a;
	uint64_t base, item, cap, pages, want;
	unsigned int r = below(f, 100), i;
	static uint64_t before[PM_CMP_PAGES], after[PM_CMP_PAGES], got[PM_CMP_PAGES];
	pid_t child = 0;
	bool ran, same;
	int stackvar;
	struct call c;
	char extra[96];

	call_init(f, &c, "PAGEMAP", KMEM_RO_IOC_PAGEMAP, sizeof(*a), KMEM_RO_PAGEMAP_SIZE_VER0,
		  KMEM_RO_PAGEMAP_RUNS, ok_pagemap);
	reserved(&c, offsetof(struct kmem_ro_pagemap, reserved0), 4);
	reserved(&c, offsetof(struct kmem_ro_pagemap, reserved), 16);
	a = (void *)c.s;
	a->flags = pct(f, 50) ? KMEM_RO_PAGEMAP_RUNS : 0;
	item = a->flags ? sizeof(struct kmem_ro_pagemap_run) : 8;
	a->pid = r < 70 ? 0 : r < 85 ? (uint32_t)getpid() : 1;
	if (a->pid == 1)
		c.loose = true;		/* not our memory */
	r = below(f, 8);
	pages = 1 + skewed(f, a->flags ? 1 << 20 : 4096);
	if (r >= 6) {
		i = below(f, f->nzoo);
		base = (uintptr_t)f->zoo[i].p + below(f, f->zoo[i].len / PAGE) * PAGE;
		pages = 1 + below(f, f->zoo[i].len / PAGE + 2);
	} else {
		base = r == 0 ? (uintptr_t)f->rw : r == 1 ? (uintptr_t)&stackvar :
		       r == 2 ? (uintptr_t)&op_pagemap :
		       r == 3 && f->nmaps ? (uintptr_t)f->maps[below(f, f->nmaps)].p :
		       below(f, f->user_top);
	}
	base &= ~(PAGE - 1);
	if (base + pages * PAGE > f->user_top || base + pages * PAGE < base)
		pages = (f->user_top - base) / PAGE;
	if (!pages) {
		base -= PAGE;
		pages = 1;
	}
	a->start = base;
	a->end = base + pages * PAGE;
	cap = 1 + below(f, 1024);
	a->buf_addr = (uintptr_t)buf;
	a->buf_size = cap * item + below(f, item);
	if (f->unpriv && a->pid == 1)
		c.valid_err = EPERM;
	for (unsigned int m = nmuts(f); m; m--) {
		if (pct(f, 35)) {
			generic_mutate(f, &c);
			continue;
		}
		switch (below(f, 13)) {
		case 11:
			/* exited, not reaped: no mm */
			if (take(&c, G_C, "pid_zombie", ESRCH)) {
				siginfo_t si;

				child = fork();
				if (!child)
					_exit(0);
				waitid(P_PID, child, &si, WEXITED | WNOWAIT);
				a->pid = child;
			}
			break;
		case 12:
			/* another process: CAP_SYS_PTRACE decides */
			if (take(&c, G_C, "pid_other_process", f->unpriv ? EPERM : 0)) {
				child = fork();
				if (!child) {
					pause();
					_exit(0);
				}
				a->pid = child;
				c.loose = true;
			}
			break;
		case 0:
			if (take(&c, G_A, "start_unaligned", EINVAL))
				a->start += 1 + below(f, PAGE - 1);
			break;
		case 1:
			if (take(&c, G_A, "end_unaligned", EINVAL))
				a->end -= 1 + below(f, PAGE - 1);
			break;
		case 2:
			if (take(&c, G_A, "range_empty_or_reversed", EINVAL))
				a->end = a->start - PAGE * below(f, 4);
			break;
		case 3:
			if (take(&c, G_A, "end_beyond_user_space", EINVAL))
				a->end = (f->user_top + PAGE + below(f, 1ULL << 40)) & ~(PAGE - 1);
			break;
		case 4:
			if (take(&c, G_A, "range_all_user_space", 0)) {
				a->start = 0;
				a->end = f->user_top;
				c.loose = true;
			}
			break;
		case 5:
			if (take(&c, G_B, "buf_addr_zero", EINVAL))
				a->buf_addr = 0;
			break;
		case 6:
			if (take(&c, G_B, "buf_size_below_one_item", EINVAL))
				a->buf_size = below(f, item);
			break;
		case 7:
			if (take(&c, G_B, "buf_unwritable", late(&c, EFAULT))) {
				i = below(f, 3);
				a->buf_addr = i == 0 ? (uintptr_t)f->ro : i == 1 ?
					      (uintptr_t)f->kmap_text : bad_ptr(f);
			}
			break;
		case 8:
			if (take(&c, G_B, "buf_size_larger_than_buffer", ANY))
				a->buf_size = between(f, ARENA, UINT64_MAX);
			break;
		case 9:
			if (take(&c, G_C, "pid_nonexistent", ESRCH))
				a->pid = pct(f, 50) ? between(f, 4194305, UINT32_MAX) : 4194304;
			break;
		default:
			if (take(&c, G_C, "pid_kernel_thread", ESRCH))
				a->pid = 2;	/* kthreadd */
			break;
		}
	}
	snprintf(extra, sizeof(extra), "pid=%u [%#" PRIx64 ", %#" PRIx64 ") flags=%#" PRIx64,
		 a->pid, (uint64_t)a->start, (uint64_t)a->end, (uint64_t)a->flags);
	same = (!a->pid || a->pid == (uint32_t)getpid()) && !c.nmut &&
	       proc_pagemap(a->start, a->end, before);
	ran = call_run(f, &c, extra);
	if (child) {
		kill(child, SIGKILL);
		while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
			;
	}
	if (!ran)
		return;
	a = (void *)c.s;
	cap = a->buf_size / item;
	if (a->count > cap || a->walk_end <= a->start || a->walk_end > a->end ||
	    (a->count < cap && a->walk_end != a->end)) {
		wrong(f, "PAGEMAP: count %" PRIu64 " of %" PRIu64 ", walk_end %#" PRIx64,
		      (uint64_t)a->count,
		     cap, (uint64_t)a->walk_end);
		return;
	}
	want = (a->walk_end - a->start) / PAGE;
	same = same && want <= PM_CMP_PAGES;
	if (!a->flags) {
		const uint64_t *e = buf;

		if (same && a->count == want) {
			memcpy(got, e, want * 8);
			compare_pagemap(f, a, before, after, got);
		}
		bool pfnmap = (!a->pid || a->pid == (uint32_t)getpid()) &&
			      in_kmem_map(f, a->start, a->walk_end);

		if (a->count != want)
			wrong(f, "PAGEMAP: %" PRIu64 " entries for %" PRIu64 " pages",
			      (uint64_t)a->count, want);
		for (i = 0; i < a->count; i++)
			if ((e[i] & (7ULL << 58)) ||
			    (pfnmap && (e[i] & ~KMEM_RO_PM_SOFT_DIRTY))) {
				wrong(f, "PAGEMAP: entry %u = %#" PRIx64, i, e[i]);
				break;
			}
	} else {
		const struct kmem_ro_pagemap_run *run = buf;
		uint64_t at = a->start, sum = 0;

		for (i = 0; i < a->count; i++) {
			if (run[i].start != at || !run[i].pages ||
			    (run[i].flags & ((1ULL << 55) - 1)) || (run[i].flags & (7ULL << 58)) ||
			    (run[i].frame & ~KMEM_RO_PM_FRAME_MASK)) {
				wrong(f, "PAGEMAP: run %u bad", i);
				return;
			}
			at += run[i].pages * PAGE;
			sum += run[i].pages;
		}
		if (sum != want) {
			wrong(f, "PAGEMAP: runs cover %" PRIu64 " pages, walk_end says %" PRIu64,
			      sum,
			     want);
		} else if (same) {
			uint64_t k = 0;

			for (i = 0; i < a->count; i++)
				for (uint64_t j = 0; j < run[i].pages; j++, k++) {
					/* PFNs count up by one, swap offsets (bit 5) too */
					uint64_t step = !run[i].frame ? 0 :
							run[i].flags & KMEM_RO_PM_PRESENT ? 1 :
							run[i].flags & KMEM_RO_PM_SWAP ? 32 : 0;

					got[k] = run[i].flags | (run[i].frame + j * step);
				}
			compare_pagemap(f, a, before, after, got);
		}
	}
}

/* ---- probes: bookkeeping ---- */

static bool is_safe(struct fuzz *f, uint64_t addr)
{
	for (unsigned int i = 0; i < f->nsafe; i++)
		if (f->safe[i] == addr)
			return true;
	return false;
}

static struct probe *live_find(struct fdstate *s, uint64_t id)
{
	for (unsigned int i = 0; i < s->nlive; i++)
		if (s->live[i].id == id)
			return &s->live[i];
	return NULL;
}

static bool live_key(struct fdstate *s, uint64_t key)
{
	for (unsigned int i = 0; i < s->nlive; i++)
		if (s->live[i].addr + s->live[i].offset == key)
			return true;
	return false;
}

static void live_count(struct fdstate *s, unsigned int *random, unsigned int *kp,
		       unsigned int *enabled)
{
	*random = *kp = *enabled = 0;
	for (unsigned int i = 0; i < s->nlive; i++) {
		*random += s->live[i].random;
		*kp += s->live[i].random && s->live[i].offset;
		*enabled += s->live[i].random && s->live[i].enabled;
	}
}

static int raw_list(int fd, struct kmem_ro_probe_info *buf, uint32_t cap, uint64_t flags,
		    uint32_t *count)
{
	struct kmem_ro_probe_list l = { .size = sizeof(l), .flags = flags,
					.buf_addr = cap ? (uintptr_t)buf : 0, .cap = cap };
	int err = ioctl(fd, KMEM_RO_IOC_PROBE_LIST, &l) ? errno : 0;

	*count = l.count;
	return err;
}

/* Our view of a file's probes, from LIST: after calls whose effect is unknown. */
static void resync(struct fuzz *f, struct fdstate *s)
{
	struct kmem_ro_probe_info *info = (void *)(f->rw + DATA_AT);
	uint32_t count;
	int err;

	note_call(f, "LIST resync fd=%d", s->fd);
	err = raw_list(s->fd, info, LIVE_CAP, 0, &count);
	f->sh->calls++;
	record(f, "PROBE_LIST", "resync", err);
	if (err) {
		wrong(f, "PROBE_LIST resync: %s", code_name(err));
		return;
	}
	if (count > LIVE_CAP) {
		struct kmem_ro_probe_ids d = { .size = sizeof(d), .flags = KMEM_RO_PROBE_ALL };

		note_call(f, "DEL all fd=%d (over %u probes)", s->fd, LIVE_CAP);
		f->sh->calls++;
		if (ioctl(s->fd, KMEM_RO_IOC_PROBE_DEL, &d))
			wrong(f, "PROBE_DEL all: %s", code_name(errno));
		s->nlive = 0;
		return;
	}
	s->nlive = count;
	for (unsigned int i = 0; i < count; i++)
		s->live[i] = (struct probe){ info[i].id, info[i].addr, info[i].offset,
					     info[i].flags & KMEM_RO_PROBE_ENABLED,
					     !is_safe(f, info[i].addr) };
	if (count)
		s->set = SET_YES;
}

/* ---- PROBE_ADD ---- */

enum { S_ID, S_ENOENT, S_EINVAL, S_EOPNOTSUPP, S_ANY };

struct specgen {
	const char *cls;
	int exp;
	bool random;
};

static void gen_spec(struct fuzz *f, struct kmem_ro_probe_spec *s,
		     struct specgen *g, unsigned int *nrandom, unsigned int *nkp,
		     unsigned int *nenabled)
{
	const struct sym *y;
	unsigned int r = below(f, 100), i;
	struct kaddr k;

	memset(s, 0, sizeof(*s));
	s->result = 0x7777;
	g->random = false;
	if (r >= 25 && r < 65 && *nrandom >= MAX_RANDOM)
		r = 70;		/* over budget: a harmless class instead */
	if (((r >= 40 && r < 46) || (r >= 51 && r < 54)) && *nkp >= MAX_RANDOM_KP)
		r = 70;
	if (r < 18) {
		i = below(f, f->nsafe);
		g->cls = "safe_function";
		s->addr = f->safe[i];
		g->exp = S_ID;
		if (pct(f, 50))
			s->flags = KMEM_RO_PROBE_ENABLED;
	} else if (r < 25) {
		do
			i = below(f, f->nsafe);
		while (!f->safe_kp[i]);
		g->cls = "safe_function_after_fentry";
		s->addr = f->safe[i];
		s->offset = f->safe_kp[i];
		g->exp = S_ID;
		if (pct(f, 50))
			s->flags = KMEM_RO_PROBE_ENABLED;
	} else if (r < 40) {
		y = pick_sym(f, f->text, f->ntext);
		g->cls = "random_function";
		s->addr = y->addr;
		g->exp = S_ANY;
		g->random = true;
	} else if (r < 46) {
		y = pick_sym(f, f->text, f->ntext);
		g->cls = "random_function_random_offset";
		s->addr = y->addr;
		s->offset = y->size > 1 ? 1 + below(f, y->size - 1) : 0;
		g->exp = S_ANY;
		g->random = true;
		++*nkp;
	} else if (r < 51) {
		/* kmem_ro's own functions among them, the probe paths too */
		y = pick_sym(f, f->mod, f->nmod);
		g->cls = "module_function";
		s->addr = y->addr;
		g->exp = S_ANY;
		g->random = true;
	} else if (r < 54) {
		y = pick_sym(f, f->mod, f->nmod);
		g->cls = "module_function_random_offset";
		s->addr = y->addr;
		s->offset = y->size > 1 ? 1 + below(f, y->size - 1) : 0;
		g->exp = S_ANY;
		g->random = true;
		++*nkp;
	} else if (r < 65) {
		gen_kaddr(f, &k);
		g->cls = "random_kernel_address";
		s->addr = k.addr;
		s->offset = pct(f, 80) ? 0 : below(f, 64);
		g->exp = S_ANY;
		g->random = true;
	} else if (r < 70) {
		y = pick_sym(f, f->text, f->ntext);
		g->cls = "offset_past_function";
		s->addr = y->addr;
		s->offset = y->size + skewed(f, UINT32_MAX - y->size);
		g->exp = S_EINVAL;
	} else if (r < 78) {
		y = pick_sym(f, f->text, f->ntext);
		if (y->size < 2)
			y = &f->syms[f->text[0]];
		g->cls = "inside_function";
		s->addr = y->addr + 1 + below(f, y->size - 1);
		g->exp = S_ENOENT;
	} else if (r < 80) {
		y = pick_sym(f, f->data, f->ndata);
		g->cls = "data_symbol";
		s->addr = y->addr;
		g->exp = S_EOPNOTSUPP;	/* no ftrace site */
	} else if (r < 84) {
		y = pick_sym(f, f->data, f->ndata);
		g->cls = "data_symbol_offset";
		s->addr = y->addr;
		s->offset = y->size > 1 ? 1 + below(f, y->size - 1) : 0;
		g->exp = S_EOPNOTSUPP;	/* no ftrace site; not text for a kprobe */
	} else if (r < 88) {
		g->cls = "user_or_null_address";
		s->addr = pct(f, 50) ? 0 : below(f, f->user_top);
		g->exp = S_ENOENT;
	} else if (r < 94) {
		g->cls = "name_not_terminated";
		s->addr = f->safe[below(f, f->nsafe)];
		g->exp = S_EINVAL;
	} else {
		g->cls = "spec_flags_unknown";
		s->addr = f->safe[below(f, f->nsafe)];
		s->flags = (1U << (1 + below(f, 31))) | (rnd(f) & KMEM_RO_PROBE_ENABLED);
		g->exp = S_EINVAL;
	}
	if (g->random) {
		++*nrandom;
		if (*nenabled < MAX_ENABLED_RANDOM && pct(f, 20)) {
			s->flags = KMEM_RO_PROBE_ENABLED;
			++*nenabled;
		}
	}
	if (strcmp(g->cls, "name_not_terminated"))
		snprintf(s->name, sizeof(s->name), "fz%" PRIx64, (uint64_t)s->addr);
	else
		memset(s->name, 'x', sizeof(s->name));
}

static void del_all(struct fuzz *f, struct fdstate *s)
{
	struct kmem_ro_probe_ids d = { .size = sizeof(d), .flags = KMEM_RO_PROBE_ALL };

	note_call(f, "DEL all fd=%d", s->fd);
	f->sh->calls++;
	if (ioctl(s->fd, KMEM_RO_IOC_PROBE_DEL, &d))
		wrong(f, "PROBE_DEL all: %s", code_name(errno));
	else if (d.done != s->nlive)
		wrong(f, "PROBE_DEL all: done %u, %u live", d.done, s->nlive);
	s->nlive = 0;
}

static void op_add(struct fuzz *f)
{
	struct kmem_ro_probe_spec *specs = (void *)(f->rw + ARRAYS_AT);
	static struct specgen gens[300];
	struct kmem_ro_probe_add *a;
	struct fdstate *st;
	unsigned int n, i, r, nrandom, nkp, nenabled, added = 0, nbulk = 0;
	bool visible = true, huge = false;
	struct call c;
	char extra[96];

	call_init(f, &c, "PROBE_ADD", KMEM_RO_IOC_PROBE_ADD, sizeof(*a),
		  KMEM_RO_PROBE_ADD_SIZE_VER0, 0, ok_add);
	reserved(&c, offsetof(struct kmem_ro_probe_add, reserved), 16);
	st = fdstate_of(f, c.fd);
	if (st->nlive > LIVE_CAP - 40)
		del_all(f, st);
	c.valid_err = f->unpriv ? EPERM : 0;
	a = (void *)c.s;
	r = below(f, 100);
	n = r < 75 ? 1 + below(f, 4) : r < 95 ? 5 + below(f, 36) : 250 + below(f, 51);
	live_count(st, &nrandom, &nkp, &nenabled);
	for (i = 0; i < n; i++)
		gen_spec(f, &specs[i], &gens[i], &nrandom, &nkp, &nenabled);
	if (n > 1 && pct(f, 10)) {	/* the same place twice in one call */
		i = 1 + below(f, n - 1);
		specs[i] = specs[below(f, i)];
		specs[i].result = 0x7777;
		gens[i] = (struct specgen){ "duplicate_in_call", S_ANY, false };
	}
	a->specs_addr = (uintptr_t)specs;
	a->count = n;
	for (unsigned int m = nmuts(f); m; m--) {
		if (pct(f, 40)) {
			generic_mutate(f, &c);
			continue;
		}
		switch (below(f, 7)) {
		case 0:
			if (take(&c, G_A, "specs_addr_zero", EINVAL))
				a->specs_addr = 0;
			break;
		case 1:
			if (take(&c, G_B, "count_zero", EINVAL))
				a->count = 0;
			break;
		case 2:
			if (take(&c, G_B, "count_above_max", E2BIG))
				a->count = between(f, KMEM_RO_PROBE_MAX_BATCH + 1, UINT32_MAX);
			break;
		case 3:
			if (take(&c, G_A, "specs_unmapped", late(&c, EFAULT))) {
				a->specs_addr = pct(f, 50) ? bad_ptr(f) :
						straddle_ptr(f, specs, n * sizeof(*specs));
				visible = false;
			}
			break;
		case 4:
			/* read, but no result can be written: side effects, then EFAULT */
			if (n * sizeof(*specs) <= 2 * PAGE &&
			    take(&c, G_A, "specs_readonly", late(&c, EFAULT))) {
				ro_fill(f, specs, n * sizeof(*specs));
				a->specs_addr = (uintptr_t)f->ro;
				visible = false;
			}
			break;
		case 5:
			if (pct(f, 20) && take(&c, G_A | G_B, "count_max_all_null", c.valid_err)) {
				memset(f->big, 0, BIG_SPECS);
				a->specs_addr = (uintptr_t)f->big;
				a->count = KMEM_RO_PROBE_MAX_BATCH;
				huge = true;
			}
			break;
		case 6:
			/* many chunks, bad functions among them: the bisection */
			if (pct(f, 30) &&
			    take(&c, G_A | G_B, "bulk_random_functions", c.valid_err)) {
				struct kmem_ro_probe_spec *b = (void *)f->big;

				nbulk = 300 + below(f, 2700);
				for (i = 0; i < nbulk; i++) {
					memset(&b[i], 0, sizeof(b[i]));
					b[i].addr = pick_sym(f, f->text, f->ntext)->addr;
					b[i].result = 0x7777;
					snprintf(b[i].name, sizeof(b[i].name), "bulk%u", i);
				}
				a->specs_addr = (uintptr_t)b;
				a->count = nbulk;
			}
			break;
		default:
			if (take(&c, G_C, "output_added_garbage", 0))
				a->added = rnd(f);
			break;
		}
	}
	snprintf(extra, sizeof(extra), "count=%u first=%s:%#" PRIx64 "+%u", a->count,
		 gens[0].cls, (uint64_t)specs[0].addr, specs[0].offset);
	if (!call_run(f, &c, extra)) {
		if (c.err == EFAULT && st->set == SET_NO && !f->unpriv)
			st->set = SET_MAYBE;
		if (c.err && st->set != SET_NO)
			resync(f, st);
		return;
	}
	st->set = SET_YES;
	a = (void *)c.s;
	if (huge) {
		const struct kmem_ro_probe_spec *b = (void *)f->big;

		for (i = 0; i < KMEM_RO_PROBE_MAX_BATCH; i += 1 + below(f, 4096))
			if (b[i].result != -ENOENT)
				wrong(f, "PROBE_ADD: NULL spec %u gave %" PRId64, i,
				      (int64_t)b[i].result);
		if (a->added)
			wrong(f, "PROBE_ADD: %u of 65536 NULL specs added", a->added);
		return;
	}
	if (nbulk) {
		const struct kmem_ro_probe_spec *b = (void *)f->big;

		for (i = 0; i < nbulk; i++) {
			if (b[i].result != -EOPNOTSUPP && b[i].result != -EEXIST &&
			    b[i].result <= 0) {
				wrong(f, "PROBE_ADD: bulk spec %u gave %" PRId64, i,
				      (int64_t)b[i].result);
				break;
			}
			added += b[i].result > 0;
			record(f, "PROBE_ADD.spec", "bulk_random_function",
			       b[i].result > 0 ? 0 : (int)-b[i].result);
		}
		if (a->added != added)
			wrong(f, "PROBE_ADD: bulk added %u, %u results are ids", a->added, added);
		resync(f, st);	/* more than we track and enable: all go */
		if (st->nlive)
			del_all(f, st);
		return;
	}
	if (!visible)
		return;
	for (i = 0; i < n; i++) {
		struct kmem_ro_probe_spec *s = &specs[i];
		int64_t res = s->result;
		uint64_t key = s->addr + s->offset;
		bool dup = live_key(st, key);
		int code = res > 0 ? 0 : (int)-res;

		if (res <= 0 && (res < -133 || res == 0 || !in(-res, ok_spec))) {
			wrong(f, "PROBE_ADD: spec %u (%s) result %" PRId64 " undocumented", i,
			     gens[i].cls, res);
			continue;
		}
		record(f, "PROBE_ADD.spec", gens[i].cls, code);
		switch (gens[i].exp) {
		case S_ID:
			if (dup ? res != -EEXIST : res <= 0)
				wrong(f, "PROBE_ADD: %s +%u gave %" PRId64 " (already probed: %d)",
				     gens[i].cls, s->offset, res, dup);
			break;
		case S_ENOENT:
			if (res != -ENOENT)
				wrong(f, "PROBE_ADD: %s %#" PRIx64 " gave %" PRId64
				      ", want -ENOENT",
				     gens[i].cls, (uint64_t)s->addr, res);
			break;
		case S_EINVAL:
			if (res != -EINVAL)
				wrong(f, "PROBE_ADD: %s %#" PRIx64 "+%u gave %" PRId64
				      ", want -EINVAL",
				     gens[i].cls, (uint64_t)s->addr, s->offset, res);
			break;
		case S_EOPNOTSUPP:
			if (res != -EOPNOTSUPP)
				wrong(f, "PROBE_ADD: %s %#" PRIx64 " gave %" PRId64
				      ", want -EOPNOTSUPP",
				     gens[i].cls, (uint64_t)s->addr, res);
			break;
		}
		if (res > 0) {
			added++;
			if (live_find(st, res) || dup) {
				wrong(f, "PROBE_ADD: id %" PRId64 " or place given twice", res);
				continue;
			}
			if (st->nlive < LIVE_CAP)
				st->live[st->nlive++] = (struct probe){
					res, s->addr, s->offset, s->flags & KMEM_RO_PROBE_ENABLED,
					!is_safe(f, s->addr) };
		}
	}
	if (a->added != added)
		wrong(f, "PROBE_ADD: added %u, %u results are ids", a->added, added);
}

/* ---- PROBE_ENABLE, _DISABLE, _DEL, _STATS ---- */

static void op_ids(struct fuzz *f, int op)
{
	static const char *const names[] = { "PROBE_ENABLE", "PROBE_DISABLE", "PROBE_DEL",
					     "PROBE_STATS" };
	static const unsigned long cmds[] = { KMEM_RO_IOC_PROBE_ENABLE, KMEM_RO_IOC_PROBE_DISABLE,
					      KMEM_RO_IOC_PROBE_DEL, KMEM_RO_IOC_PROBE_STATS };
	uint64_t *ids = (void *)(f->rw + ARRAYS_AT);
	uint64_t *counts = (void *)(f->rw + DATA_AT);
	bool stats = op == 3, all, visible = true;
	unsigned int k = 0, distinct = 0, i, j, expect_n, stop, at;
	struct kmem_ro_probe_ids *a;
	struct probe *picked[8];
	struct fdstate *st;
	struct call c;
	char extra[64];

	call_init(f, &c, names[op], cmds[op], sizeof(*a), KMEM_RO_PROBE_IDS_SIZE_VER0,
		  KMEM_RO_PROBE_ALL | (stats ? KMEM_RO_PROBE_RESET : 0),
		  op <= 1 ? ok_switch : ok_del);
	reserved(&c, offsetof(struct kmem_ro_probe_ids, reserved0), 4);
	reserved(&c, offsetof(struct kmem_ro_probe_ids, reserved), 16);
	st = fdstate_of(f, c.fd);
	c.valid_err = f->unpriv && op <= 1 ? EPERM : 0;
	a = (void *)c.s;
	all = !st->nlive || pct(f, 25);
	if (all) {
		a->flags = KMEM_RO_PROBE_ALL;
	} else {
		k = 1 + below(f, st->nlive < 8 ? st->nlive : 8);
		for (i = 0; i < k; i++) {
			struct probe *p = &st->live[below(f, st->nlive)];

			ids[i] = p->id;
			for (j = 0; j < distinct && picked[j] != p; j++)
				;
			if (j == distinct)
				picked[distinct++] = p;
		}
		a->ids_addr = (uintptr_t)ids;
		a->count = k;
	}
	stop = k;	/* by ids: where the call stops (an unknown id) */
	if (stats) {
		a->flags |= pct(f, 30) ? KMEM_RO_PROBE_RESET : 0;
		/* one count per position; with ALL, cap 0 only counts */
		a->counts_cap = all ? below(f, st->nlive + 3) : k + below(f, 3);
		a->counts_addr = a->counts_cap ? (uintptr_t)counts : 0;
		memset(counts, 0xa5, (LIVE_CAP + 8) * 8);
	}
	for (unsigned int m = nmuts(f); m; m--) {
		if (pct(f, 35)) {
			generic_mutate(f, &c);
			continue;
		}
		switch (below(f, 8)) {
		case 0:
			if (take(&c, G_A, "all_with_ids", EINVAL)) {
				a->flags |= KMEM_RO_PROBE_ALL;
				a->ids_addr = (uintptr_t)ids;
				a->count = 1 + below(f, 4);
			}
			break;
		case 1:
			if (!all && take(&c, G_A, "ids_addr_zero", EINVAL))
				a->ids_addr = 0;
			break;
		case 2:
			if (!all && take(&c, G_A, "count_zero", EINVAL))
				a->count = 0;
			break;
		case 3:
			if (!all && take(&c, G_A, "count_above_max", E2BIG))
				a->count = between(f, KMEM_RO_PROBE_MAX_BATCH + 1, UINT32_MAX);
			break;
		case 4:
			if (stats && a->counts_cap && take(&c, G_B, "counts_without_cap", EINVAL)) {
				if (pct(f, 50))
					a->counts_addr = 0;
				else if (all || pct(f, 50))
					a->counts_cap = 0;
				else
					a->counts_cap = below(f, k);	/* fewer than the ids */
			} else if (!stats && take(&c, G_B, "counts_given", EINVAL)) {
				if (pct(f, 50))
					a->counts_addr = (uintptr_t)counts;
				else
					a->counts_cap = 1 + below(f, UINT32_MAX);
			}
			break;
		case 5:
			/*
			 * An id this file does not have: the call stops there,
			 * with its errno only if it is the first.
			 */
			at = all ? 0 : below(f, k);
			if (!all && take(&c, G_C, "unknown_id", late(&c, at ? 0 : ENOENT))) {
				uint64_t bad;

				do
					bad = pct(f, 30) ? 0 :
					      pct(f, 50) ? rnd(f) : 1 + below(f, 300);
				while (bad && live_find(st, bad));
				ids[at] = bad;
				stop = at;
				visible = false;
			}
			break;
		case 6:
			if (!all && take(&c, G_A, "ids_unmapped",
					 c.valid_err ? c.valid_err : st->set == SET_YES ? EFAULT :
					 st->set == SET_NO ? ENOENT : ANY))
				a->ids_addr = pct(f, 50) ? bad_ptr(f) :
					      straddle_ptr(f, ids, k * sizeof(*ids));
			break;
		default:
			if (stats) {
				unsigned int n = all ? (st->nlive < a->counts_cap ? st->nlive :
							a->counts_cap) : k;
				int e = st->set == SET_MAYBE ? ANY :
					st->set == SET_NO ? (all ? 0 : ENOENT) : n ? EFAULT : 0;

				if (a->counts_cap && take(&c, G_B, "counts_unwritable", e))
					a->counts_addr = pct(f, 30) ? (uintptr_t)f->ro : bad_ptr(f);
			}
			break;
		}
	}
	snprintf(extra, sizeof(extra), "flags=%#" PRIx64 " count=%u live=%u",
		 (uint64_t)a->flags, a->count,
		 st->nlive);
	if (!call_run(f, &c, extra)) {
		if (c.err && st->set != SET_NO && (c.err == ENOENT || c.err == EFAULT))
			resync(f, st);
		return;
	}
	a = (void *)c.s;
	/* positions: an id named twice counts at each */
	expect_n = all ? st->nlive : stop;
	if (a->done != expect_n)
		wrong(f, "%s: done %u, want %u", c.op, a->done, expect_n);
	if (stats) {
		unsigned int w = all ? (st->nlive < a->counts_cap ? st->nlive : a->counts_cap) :
				 stop;

		if (counts[w] != 0xa5a5a5a5a5a5a5a5ULL)
			wrong(f, "%s: wrote past %u counts", c.op, w);
		return;
	}
	if (!visible) {		/* acted on the ids before the unknown one */
		resync(f, st);
		return;
	}
	for (i = 0; i < (all ? st->nlive : distinct); i++) {
		struct probe *p = all ? &st->live[i] : picked[i];

		if (op == 2)
			p->id = 0;	/* removed below */
		else
			p->enabled = op == 0;
	}
	if (op == 2) {
		for (i = j = 0; i < st->nlive; i++)
			if (st->live[i].id)
				st->live[j++] = st->live[i];
		st->nlive = j;
	}
}

/* ---- PROBE_LIST ---- */

#ifdef KMEM_RO_PROBE_GONE
#define PROBE_OUT_FLAGS	(KMEM_RO_PROBE_ENABLED | KMEM_RO_PROBE_KPROBE | KMEM_RO_PROBE_GONE)
#else
#define PROBE_OUT_FLAGS	(KMEM_RO_PROBE_ENABLED | KMEM_RO_PROBE_KPROBE)
#endif

static void op_list(struct fuzz *f)
{
	struct kmem_ro_probe_info *info = (void *)(f->rw + DATA_AT);
	struct kmem_ro_probe_list *a;
	struct fdstate *st;
	unsigned int total = 0, want, i, w;
	bool allfiles = pct(f, 30);
	struct call c;
	char extra[64];

	call_init(f, &c, "PROBE_LIST", KMEM_RO_IOC_PROBE_LIST, sizeof(*a),
		  KMEM_RO_PROBE_LIST_SIZE_VER0, KMEM_RO_PROBE_LIST_ALL_FILES, ok_list);
	reserved(&c, offsetof(struct kmem_ro_probe_list, reserved), 16);
	st = fdstate_of(f, c.fd);
	for (i = 0; i < NFD; i++)
		total += f->fds[i].nlive;
	want = allfiles ? total : st->nlive;
	a = (void *)c.s;
	a->flags = allfiles ? KMEM_RO_PROBE_LIST_ALL_FILES : 0;
	a->cap = pct(f, 20) ? 0 : below(f, want + 4);
	a->buf_addr = a->cap ? (uintptr_t)info : 0;
	memset(info, 0xa5, (3 * LIVE_CAP + 8) * sizeof(*info));
	for (unsigned int m = nmuts(f); m; m--) {
		if (pct(f, 45)) {
			generic_mutate(f, &c);
			continue;
		}
		switch (below(f, 4)) {
		case 0:
			if (take(&c, G_A, "buf_without_cap", EINVAL)) {
				a->buf_addr = (uintptr_t)info;
				a->cap = 0;
			}
			break;
		case 1:
			if (take(&c, G_A, "cap_without_buf", EINVAL)) {
				a->buf_addr = 0;
				a->cap = 1 + below(f, UINT32_MAX);
			}
			break;
		case 2:
			if (take(&c, G_A, "buf_unwritable", want ? EFAULT : 0)) {
				a->buf_addr = pct(f, 30) ? (uintptr_t)f->ro : pct(f, 30) ?
					      (uintptr_t)f->kmap_text : bad_ptr(f);
				a->cap = 1 + below(f, 8);
			}
			break;
		default:
			/* only what exists is written */
			if (take(&c, G_A, "cap_huge", 0)) {
				a->buf_addr = (uintptr_t)info;
				a->cap = UINT32_MAX - below(f, 100);
			}
			break;
		}
	}
	snprintf(extra, sizeof(extra), "flags=%#" PRIx64 " cap=%u want=%u", (uint64_t)a->flags,
		 a->cap, want);
	if (!call_run(f, &c, extra))
		return;
	a = (void *)c.s;
	if (a->count != want) {
		wrong(f, "PROBE_LIST: count %u, we know of %u", a->count, want);
		resync(f, st);
		return;
	}
	w = a->count < a->cap ? a->count : a->cap;
	for (i = 0; i < w; i++) {
		const struct kmem_ro_probe_info *p = &info[i];
		const struct probe *q = NULL;

		for (unsigned int s = 0; s < NFD && !q; s++) {
			if (!allfiles && &f->fds[s] != st)
				continue;
			q = live_find(&f->fds[s], p->id);
			if (q && (q->addr != p->addr || q->offset != p->offset))
				q = NULL;
		}
		if (!q || p->owner != (uint32_t)f->owner || p->reserved ||
		    (p->flags & ~PROBE_OUT_FLAGS) ||
		    !!(p->flags & KMEM_RO_PROBE_KPROBE) != !!p->offset ||
		    (!allfiles && !!(p->flags & KMEM_RO_PROBE_ENABLED) != q->enabled) ||
		    !memchr(p->name, 0, sizeof(p->name)) || !p->name[0]) {
			wrong(f, "PROBE_LIST: entry %u (id %" PRIu64 " %#" PRIx64 "+%u flags %#x) "
			     "is not what we added", i, (uint64_t)p->id, (uint64_t)p->addr,
			     p->offset, p->flags);
			resync(f, st);
			return;
		}
		if (!allfiles && i && p->id <= info[i - 1].id)
			wrong(f, "PROBE_LIST: ids not in order");
	}
	if (info[w].id != 0xa5a5a5a5a5a5a5a5ULL)
		wrong(f, "PROBE_LIST: wrote past %u entries", w);
}

/* ---- PROBE_FILTER ---- */

#ifdef KMEM_RO_IOC_PROBE_FILTER
#define FILTER_FLAGS	(KMEM_RO_PROBE_FILTER_PID | KMEM_RO_PROBE_FILTER_COMM)

/* A filter by this process, init, a name, both, or none (clear). */
static void op_filter(struct fuzz *f)
{
	static const char *const names[] = { "fuzz_test", "init", "", "kworker/0:1" };
	struct kmem_ro_probe_filter *a;
	struct fdstate *st;
	struct call c;
	char extra[64];

	call_init(f, &c, "PROBE_FILTER", KMEM_RO_IOC_PROBE_FILTER, sizeof(*a),
		  KMEM_RO_PROBE_FILTER_SIZE_VER0, FILTER_FLAGS, ok_filter);
	reserved(&c, offsetof(struct kmem_ro_probe_filter, reserved0), 4);
	reserved(&c, offsetof(struct kmem_ro_probe_filter, reserved), 16);
	st = fdstate_of(f, c.fd);
	a = (void *)c.s;
	a->flags = below(f, 4);
	if (a->flags & KMEM_RO_PROBE_FILTER_PID)
		a->pid = pct(f, 50) ? (uint32_t)getpid() : 1;
	if (a->flags & KMEM_RO_PROBE_FILTER_COMM)
		snprintf(a->comm, sizeof(a->comm), "%s", names[below(f, 4)]);
	c.valid_err = f->unpriv ? EPERM : 0;
	for (unsigned int m = nmuts(f); m; m--) {
		if (pct(f, 45)) {
			generic_mutate(f, &c);
			continue;
		}
		switch (below(f, 5)) {
		case 0:
			if (!(a->flags & KMEM_RO_PROBE_FILTER_PID) &&
			    take(&c, G_A, "pid_without_flag", EINVAL))
				a->pid = 1 + below(f, UINT32_MAX - 1);
			break;
		case 1:
			if (!(a->flags & KMEM_RO_PROBE_FILTER_COMM) &&
			    take(&c, G_B, "comm_without_flag", EINVAL))
				a->comm[below(f, sizeof(a->comm))] = 1 + below(f, 255);
			break;
		case 2:
			if ((a->flags & KMEM_RO_PROBE_FILTER_PID) &&
			    take(&c, G_A, "pid_zero", EINVAL))
				a->pid = 0;
			break;
		case 3:
			if ((a->flags & KMEM_RO_PROBE_FILTER_COMM) &&
			    take(&c, G_B, "comm_without_nul", EINVAL))
				memset(a->comm, 'a' + below(f, 26), sizeof(a->comm));
			break;
		default:
			/* above PID_MAX_LIMIT (4M), or not a pid_t */
			if ((a->flags & KMEM_RO_PROBE_FILTER_PID) &&
			    take(&c, G_A, "pid_nonexistent", late(&c, ESRCH)))
				a->pid = pct(f, 50) ? between(f, 1U << 23, INT32_MAX) :
					 between(f, 1U << 31, UINT32_MAX);
			break;
		}
	}
	snprintf(extra, sizeof(extra), "flags=%#" PRIx64 " pid=%u", (uint64_t)a->flags, a->pid);
	if (!call_run(f, &c, extra))
		return;
	if (((struct kmem_ro_probe_filter *)c.s)->flags)
		st->set = SET_YES;	/* a filter makes the file's probe set */
}
#else
static void op_filter(struct fuzz *f)
{
	op_list(f);
}
#endif

/* ---- EVENTS_SNAPSHOT ---- */

#ifdef KMEM_RO_IOC_EVENTS_SNAPSHOT
static const int ok_snapshot[] = { EINVAL, E2BIG, EFAULT, EPERM, ENOENT, 0 };

static void op_snapshot(struct fuzz *f)
{
	struct kmem_ro_events_snapshot *a;
	struct fdstate *st;
	bool stop = pct(f, 40);
	struct call c;
	char extra[64];

	call_init(f, &c, "EVENTS_SNAPSHOT", KMEM_RO_IOC_EVENTS_SNAPSHOT, sizeof(*a),
		  KMEM_RO_EVENTS_SNAPSHOT_SIZE_VER0, KMEM_RO_EVENTS_SNAPSHOT_STOP, ok_snapshot);
	reserved(&c, offsetof(struct kmem_ro_events_snapshot, reserved0), 4);
	reserved(&c, offsetof(struct kmem_ro_events_snapshot, reserved), 16);
	st = fdstate_of(f, c.fd);
	a = (void *)c.s;
	if (stop) {
		a->flags = KMEM_RO_EVENTS_SNAPSHOT_STOP;
		c.valid_err = st->snap == SET_YES ? 0 : st->snap == SET_NO ? ENOENT : ANY;
	} else {
		a->interval_ms = pct(f, 50) ? KMEM_RO_EVENTS_SNAPSHOT_MIN_MS :
				 between(f, KMEM_RO_EVENTS_SNAPSHOT_MIN_MS,
					 KMEM_RO_EVENTS_SNAPSHOT_MAX_MS);
		c.valid_err = f->unpriv ? EPERM : st->nlive ? 0 : ENOENT;
	}
	for (unsigned int m = nmuts(f); m; m--) {
		if (pct(f, 50)) {
			generic_mutate(f, &c);
			continue;
		}
		switch (below(f, 3)) {
		case 0:
			if (!stop && take(&c, G_A, "interval_below_min", EINVAL))
				a->interval_ms = below(f, KMEM_RO_EVENTS_SNAPSHOT_MIN_MS);
			break;
		case 1:
			if (!stop && take(&c, G_A, "interval_above_max", EINVAL))
				a->interval_ms = between(f, KMEM_RO_EVENTS_SNAPSHOT_MAX_MS + 1,
							 UINT32_MAX);
			break;
		default:
			if (stop && take(&c, G_A, "stop_with_interval", EINVAL))
				a->interval_ms = 1 + below(f, UINT32_MAX);
			break;
		}
	}
	snprintf(extra, sizeof(extra), "%s interval=%u live=%u", stop ? "stop" : "start",
		 a->interval_ms, st->nlive);
	if (!call_run(f, &c, extra)) {
		if (c.err == EFAULT)	/* a write-back fault comes after the deed */
			st->snap = SET_MAYBE;
		else if (stop && c.err == ENOENT)
			st->snap = SET_NO;
		return;
	}
	a = (void *)c.s;
	if (!stop && st->snap == SET_YES && a->id != st->snap_id)
		wrong(f, "EVENTS_SNAPSHOT: interval change gave id %" PRIu64 ", was %" PRIu64,
		      (uint64_t)a->id, st->snap_id);
	if (!stop)
		st->snap_id = a->id;
	st->snap = stop ? SET_NO : SET_YES;
}
#else
static void op_snapshot(struct fuzz *f)
{
	op_list(f);
}
#endif

/* ---- unknown ioctls ---- */

/* Every ioctl and the smallest struct size its command may encode. */
static const struct {
	unsigned long cmd;
	unsigned int ver0_size;
} known_cmds[] = {
	{ KMEM_RO_IOC_INFO, KMEM_RO_INFO_SIZE_VER0 },
	{ KMEM_RO_IOC_READV, KMEM_RO_READV_SIZE_VER0 },
	{ KMEM_RO_IOC_WALK, KMEM_RO_WALK_SIZE_VER0 },
	{ KMEM_RO_IOC_PAGEMAP, KMEM_RO_PAGEMAP_SIZE_VER0 },
	{ KMEM_RO_IOC_PROBE_ADD, KMEM_RO_PROBE_ADD_SIZE_VER0 },
	{ KMEM_RO_IOC_PROBE_ENABLE, KMEM_RO_PROBE_IDS_SIZE_VER0 },
	{ KMEM_RO_IOC_PROBE_DISABLE, KMEM_RO_PROBE_IDS_SIZE_VER0 },
	{ KMEM_RO_IOC_PROBE_DEL, KMEM_RO_PROBE_IDS_SIZE_VER0 },
	{ KMEM_RO_IOC_PROBE_STATS, KMEM_RO_PROBE_IDS_SIZE_VER0 },
	{ KMEM_RO_IOC_PROBE_LIST, KMEM_RO_PROBE_LIST_SIZE_VER0 },
#ifdef KMEM_RO_IOC_PROBE_FILTER
	{ KMEM_RO_IOC_PROBE_FILTER, KMEM_RO_PROBE_FILTER_SIZE_VER0 },
#endif
	{ KMEM_RO_IOC_EVENTS_SNAPSHOT, KMEM_RO_EVENTS_SNAPSHOT_SIZE_VER0 },
};
#define NKNOWN	(sizeof(known_cmds) / sizeof(*known_cmds))
#define IOC_SIZE_BITS	((unsigned long)_IOC_SIZEMASK << _IOC_SIZESHIFT)

static bool known_nr(unsigned int nr)
{
	for (unsigned int i = 0; i < NKNOWN; i++)
		if (_IOC_NR(known_cmds[i].cmd) == nr)
			return true;
	return false;
}

/* What the driver takes: magic, number and direction, a size from VER0 on. */
static bool known_cmd(unsigned long cmd)
{
	for (unsigned int i = 0; i < NKNOWN; i++)
		if ((cmd & ~IOC_SIZE_BITS) == (known_cmds[i].cmd & ~IOC_SIZE_BITS) &&
		    _IOC_SIZE(cmd) >= known_cmds[i].ver0_size)
			return true;
	return false;
}

static void op_badcmd(struct fuzz *f)
{
	/* handled by the VFS before any driver: not ours to judge */
	static const unsigned int vfs_magic[] = { 0x00, 0x15, 'T', 'X', 'f', 0x94 };
	const char *cls;
	unsigned long cmd;
	unsigned int dir, nr, size, magic, i;
	int err, fd = f->fds[below(f, NFD)].fd;
	void *arg;

	switch (below(f, 4)) {
	case 0:
		cls = "unknown_number";
		do
			nr = below(f, 256);
		while (known_nr(nr));
		cmd = _IOC(below(f, 4), KMEM_RO_IOC_MAGIC, nr, below(f, 1 << 14));
		break;
	case 1:
		/* a known number with the wrong direction or a size below VER0 */
		cls = "known_number_wrong_dir_or_size";
		nr = _IOC_NR(known_cmds[below(f, NKNOWN)].cmd);
		do {
			dir = below(f, 4);
			size = pct(f, 50) ? below(f, 1 << 14) : 1 + below(f, 256);
			cmd = _IOC(dir, KMEM_RO_IOC_MAGIC, nr, size);
		} while (known_cmd(cmd));
		break;
	case 2:
		cls = "tty_ioctl";
		cmd = 0x5401;	/* TCGETS: isatty() */
		break;
	default:
		cls = "other_magic";
		do {
			magic = below(f, 256);
			for (i = 0; i < sizeof(vfs_magic) / sizeof(*vfs_magic); i++)
				if (magic == vfs_magic[i])
					break;
		} while (magic == KMEM_RO_IOC_MAGIC || i < sizeof(vfs_magic) / sizeof(*vfs_magic));
		cmd = _IOC(below(f, 4), magic, below(f, 256), below(f, 1 << 14));
		break;
	}
	arg = pct(f, 50) ? (void *)(f->rw + ARGS_AT) : (void *)(uintptr_t)bad_ptr(f);
	note_call(f, "ioctl fd=%d cmd=%#lx (%s)", fd, cmd, cls);
	err = ioctl(fd, cmd, arg) ? errno : 0;
	f->sh->calls++;
	record(f, "unknown_ioctl", cls, err < NCODES ? err : 0);
	if (!in(err, ok_badcmd))
		wrong(f, "ioctl %#lx: %s, want ENOTTY", cmd, code_name(err));
}

/* ---- mmap and friends ---- */

static int touch_expect(struct fuzz *f, const struct map *m, uint64_t off, bool child)
{
	uint64_t pfn = (m->phys + off) / PAGE;

	if (m->prot == PROT_NONE || (child && m->dontfork))
		return CODE_SIGSEGV;
	/*
	 * The refused page stands in for a hidden page and a hole, and for
	 * RAM beyond the text since mmap_ram went to 0 (revoked): never a
	 * signal.
	 */
	if (pfn_is_text(f, pfn))
		return 0;
	if (m->ram_mode && f->mmap_ram)
		return pfn_is_ram(f, pfn) && !pfn_is_hidden(f, pfn) ? 0 : CODE_REFUSED;
	return CODE_REFUSED;
}

static const char *page_cls(struct fuzz *f, const struct map *m, uint64_t off)
{
	uint64_t pfn = (m->phys + off) / PAGE;

	if (m->prot == PROT_NONE)
		return "prot_none";
	if (pfn_is_text(f, pfn))
		return m->ram_mode ? "text" : "text_mmap_ram_0";
	if (pfn_is_hidden(f, pfn))
		return m->ram_mode ? "secret_or_hwpoison" : "ram_mmap_ram_0";
	if (pfn_is_kfence(f, pfn))
		return m->ram_mode ? "kfence" : "ram_mmap_ram_0";
	if (pfn == f->refused_pfn)
		return m->ram_mode ? "refused_page_itself" : "ram_mmap_ram_0";
	if (pfn_is_ram(f, pfn))
		return m->ram_mode ? "ram" : "ram_mmap_ram_0";
	return "not_ram";
}

/* Does every aligned u64 of this page equal the refused page's pattern? */
static bool all_pattern(struct fuzz *f, const volatile uint64_t *page)
{
	for (size_t i = 0; i < PAGE / 8; i++)
		if (page[i] != f->info.mmap_refused)
			return false;
	return true;
}

/* Touch verdicts beyond the codes: a page that is its own refused copy. */
#define TOUCH_EITHER	(-1)

/*
 * A touch read; the page shows the pattern at its start: did the driver
 * map its refused page there?  The pattern alone does not say so: the
 * refused page is RAM too, and so is every page a copy of it lands in (a
 * buffer pread() filled from it, the driver's read bounce page), and
 * mapped as RAM each shows the pattern.  So as uapi/kmem_ro.h tells a
 * reader: a page showing anything but the pattern in some u64 is not the
 * refused page; else it is read again through the device with pread().
 * Returns CODE_REFUSED if the mapping shows the refused page where the
 * device reads other bytes or an errno, 0 if it shows the real page, and
 * TOUCH_EITHER if the device reads the pattern throughout too: the page
 * holds the refused page's bytes, and no reader can tell the two apart
 * (the refused page itself, refused_page_as_ram).  @dev returns what the
 * pread() gave (0 or an errno), for a report.
 */
static int touch_judge(struct fuzz *f, const struct map *m, uint64_t off, int *dev)
{
	const volatile uint64_t *shown = (const volatile uint64_t *)(m->p + (off & ~(PAGE - 1)));
	uint64_t addr = f->info.page_offset + ((m->phys + off) & ~(PAGE - 1));
	static uint64_t buf[PAGE / 8];
	ssize_t n;

	*dev = 0;
	if (!all_pattern(f, shown))
		return 0;
	n = pread(f->fds[m->fdi].fd, buf, PAGE, KMEM_RO_READ_OFFSET(addr));
	*dev = n < 0 ? errno : n == PAGE ? 0 : EIO;
	if (n == PAGE && all_pattern(f, buf))
		return TOUCH_EITHER;
	/* the real page changed between the two reads: the mapping follows it */
	return all_pattern(f, shown) ? CODE_REFUSED : 0;
}

/*
 * A touch of @m at @off gave the refused page where a readable page was
 * wanted: print what can be known of it now, so that a failure explains
 * itself.  The device's pread() (EPERM: out of the direct map, poisoned,
 * offline), its /proc/kpageflags (kpf_fd: opened as root, so a slice as
 * the member reads it too), and a touch of a fresh mapping of that page.
 */
static void touch_explain(struct fuzz *f, const struct map *m, uint64_t off, int dev)
{
	uint64_t phys = (m->phys + off) & ~(PAGE - 1), flags = 0;
	int fd = f->fds[m->fdi].fd, again = -2, again_dev = 0;
	bool kpf = f->kpf_fd >= 0 && pread(f->kpf_fd, &flags, 8, phys / PAGE * 8) == 8;
	struct map fresh = { .len = PAGE, .phys = phys, .prot = PROT_READ, .fdi = m->fdi };
	unsigned char c;

	fresh.p = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, (off_t)phys);
	if (fresh.p != MAP_FAILED) {
		again = vt_probe_read(fresh.p, &c);
		if (!again)
			again = touch_judge(f, &fresh, 0, &again_dev);
		munmap(fresh.p, PAGE);
	}
	printf("@@FUZZ DIAG pfn %#" PRIx64 ": pread %s; kpageflags %s%#" PRIx64
	       " (hwpoison %d offline %d buddy %d slab %d pgtable %d); fresh mapping %s"
	       " (pread %s); refused page at pfn %#" PRIx64 "\n",
	       phys / PAGE, code_name(dev), kpf ? "" : "unread ", flags,
	       !!(flags & 1ULL << 19), !!(flags & 1ULL << 23), !!(flags & 1ULL << 10),
	       !!(flags & 1ULL << 7), !!(flags & 1ULL << 26),
	       again == -2 ? "not made" : again == TOUCH_EITHER ? "holds the pattern" :
	       code_name(again), code_name(again_dev), f->refused_pfn);
	fflush(stdout);
}

/*
 * Touch pages of @m; returns the number that behaved unexpectedly.  Quiet:
 * in a forked child, which records nothing.
 */
static int touch_map(struct fuzz *f, const struct map *m, bool quiet)
{
	uint64_t pages = m->len / PAGE, offs[4] = { 0, (pages - 1) * PAGE, 0, 0 };
	int bad = 0;

	offs[2] = below(f, pages) * PAGE;
	offs[3] = below(f, pages) * PAGE + below(f, PAGE);
	for (int i = 0; i < 4; i++) {
		int want = touch_expect(f, m, offs[i], quiet), got, dev = 0;
		struct kcore_ref ref;
		unsigned char c;
		uint64_t pfn = (m->phys + offs[i]) / PAGE;
		bool text = want == 0 && pfn_is_text(f, pfn) && !quiet && pct(f, 30);

		if (text) {
			uint64_t va = f->info.text_start + (pfn * PAGE - f->text_phys) +
				      (offs[i] & (PAGE - 1));
			size_t len = PAGE - (offs[i] & (PAGE - 1));

			kcore_before(f, &ref, va, len < 64 ? len : 64);
		}
		got = vt_probe_read(m->p + offs[i], &c);
		got = got == SIGBUS ? CODE_SIGBUS : got == SIGSEGV ? CODE_SIGSEGV : got;
		if (!got)
			got = touch_judge(f, m, offs[i], &dev);
		if (got == TOUCH_EITHER)
			got = want == CODE_REFUSED ? CODE_REFUSED : 0;
		f->sh->touches++;
		if (!quiet)
			record(f, "touch", page_cls(f, m, offs[i]), got);
		/* a KFENCE page unmapped at the fault stays refused until a zap */
		if (got == CODE_REFUSED && want == 0 && m->ram_mode && pfn_is_kfence(f, pfn))
			continue;
		if (got != want) {
			bad++;
			if (!quiet)
				wrong(f, "touch: phys %#" PRIx64 " (%s) gave %s, want %s",
				     m->phys + offs[i], page_cls(f, m, offs[i]), code_name(got),
				     code_name(want));
			if (!quiet && got == CODE_REFUSED && want == 0)
				touch_explain(f, m, offs[i], dev);
		} else if (text) {
			kcore_after(f, &ref, m->p + offs[i], "mmap");
		} else if (want == 0 && pfn_is_hidden(f, pfn)) {
			static const char zero[64];
			size_t at = offs[i] & ~(sizeof(zero) - 1);

			if (memcmp(m->p + at, zero, sizeof(zero))) {
				bad++;
				if (!quiet)
					wrong(f, "touch: hidden page %#" PRIx64 " shows its bytes",
					      pfn);
			}
		}
	}
	return bad;
}

static void drop_map(struct fuzz *f, unsigned int i)
{
	f->maps[i] = f->maps[--f->nmaps];
}

static void unmap_whole(struct fuzz *f, unsigned int i, const char *why)
{
	int err;

	note_call(f, "munmap %p %#zx", f->maps[i].p, f->maps[i].len);
	err = munmap(f->maps[i].p, f->maps[i].len) ? errno : 0;
	f->sh->calls++;
	record(f, "munmap", why, err);
	if (err)
		wrong(f, "munmap: %s", code_name(err));
	drop_map(f, i);
}


static void op_mmap(struct fuzz *f)
{
	const struct kmem_ro_range *r;
	uint64_t phys, len, alen, pages, pfn;
	int prot, flags, want, err, fd, fdi = below(f, NFD);
	const char *cls;
	bool clean = true;
	char *p;

	if (f->nmaps == MAX_MAPS)
		unmap_whole(f, below(f, f->nmaps), "whole");
	fd = f->fds[fdi].fd;
	pages = 1 + skewed(f, 63);
	switch (below(f, 11)) {
	case 0:
	case 1:
	case 2:
		if (pct(f, 5)) {
			cls = "refused_page_as_ram";
			phys = (f->refused_pfn - below(f, 2)) * PAGE;
			pages = 1 + below(f, 3);
			break;
		}
		cls = "ram";
		r = &f->ram[below(f, f->nram)];
		if (ram_first(r) >= ram_last(r))
			r = &f->ram[f->nram - 1];
		pfn = between(f, ram_first(r), ram_last(r) - 1);
		phys = pfn * PAGE;
		break;
	case 3:
		cls = "ram_2mib_aligned";
		r = &f->ram[f->nram - 1];
		phys = ((r->start + (2 * MIB - 1)) & ~(2 * MIB - 1)) +
		       below(f, (r->end - r->start) / (2 * MIB)) * 2 * MIB;
		if (phys + 2 * MIB > r->end)
			phys = (r->end - 2 * MIB) & ~(2 * MIB - 1);
		pages = 512 * (1 + below(f, 2)) + (pct(f, 50) ? 0 : below(f, 512));
		break;
	case 4:
		if (f->nhidden && pct(f, 50)) {
			cls = "around_secret_or_hwpoison";
			phys = (f->hidden[below(f, f->nhidden)] - below(f, 2)) * PAGE;
			pages = 1 + below(f, 3);
			break;
		}
		/* fall through */
	case 5:
		cls = "text";
		phys = f->text_phys + below(f, (f->text_phys_end - f->text_phys) / PAGE) * PAGE;
		break;
	case 6:
		cls = "from_zero_across_first_ram";
		phys = 0;
		pages = ram_last(&f->ram[0]) + 1 + below(f, 4);
		break;
	case 7:
		cls = "hole_or_mmio";
		{
			const struct area *a = &f->nonram[below(f, f->nnonram)];

			phys = (a->start + below(f, (a->end - a->start) / PAGE) * PAGE);
		}
		break;
	case 8:
		cls = "beyond_ram";
		phys = ((f->max_phys + PAGE - 1) & ~(PAGE - 1)) + skewed(f, 1ULL << 34) * PAGE;
		break;
	case 9:
		cls = "offset_at_top";
		phys = ((1ULL << 52) - 1 - below(f, 64)) * PAGE;
		break;
	default:
		cls = "offset_unaligned";
		phys = below(f, f->max_phys) | (1 + below(f, PAGE - 1));
		break;
	}
	len = pages * PAGE - (pct(f, 30) ? below(f, PAGE) : 0);
	switch (below(f, 20)) {
	case 0:
		prot = PROT_NONE;
		break;
	case 1:
		prot = PROT_READ | PROT_WRITE;
		break;
	case 2:
		prot = PROT_WRITE;
		break;
	case 3:
		prot = PROT_READ | PROT_EXEC;
		break;
	case 4:
		prot = PROT_EXEC | (rnd(f) & (PROT_READ | PROT_WRITE));
		break;
	default:
		prot = PROT_READ;
		break;
	}
	flags = pct(f, 45) ? MAP_SHARED : pct(f, 80) ? MAP_PRIVATE : MAP_SHARED_VALIDATE;
	if (pct(f, 10))
		flags |= MAP_POPULATE;
	if (pct(f, 5))
		flags |= MAP_LOCKED;	/* unprivileged: EAGAIN past RLIMIT_MEMLOCK */
	if ((flags & MAP_LOCKED) && f->unpriv)
		clean = false;
	if (pct(f, 5))
		flags |= MAP_NORESERVE;
	switch (below(f, 40)) {
	case 0:
		cls = "flags_no_type";
		flags &= ~MAP_SHARED_VALIDATE;
		clean = false;
		break;
	case 1:
		cls = "flags_hugetlb";
		flags |= MAP_HUGETLB;
		clean = false;
		break;
	case 2:
		cls = "flags_sync_validate";
		flags = (flags & ~MAP_SHARED_VALIDATE) | MAP_SHARED_VALIDATE | MAP_SYNC;
		clean = false;
		break;
	case 3:
		cls = "len_zero";
		len = 0;
		clean = false;
		break;
	case 4:
		cls = "len_huge";
		len = f->user_top + below(f, 1ULL << 40);
		clean = false;
		break;
	}

	/* the expected errno of a clean call, in the kernel's order */
	pfn = phys / PAGE;
	alen = (len + PAGE - 1) & ~(PAGE - 1);
	want = 0;
	if (phys & (PAGE - 1))
		want = EINVAL;
	else if (pfn > (UINT64_MAX - alen) / PAGE)
		want = EOVERFLOW;	/* file_mmap_ok(): a char device ends at 2^64 */
	else if ((flags & MAP_TYPE) != MAP_PRIVATE && (prot & PROT_WRITE))
		want = EACCES;		/* the fd is read-only: the VFS says no */
	else if (prot & (PROT_WRITE | PROT_EXEC))
		want = EPERM;
	else if (f->mmap_ram ? !pfns_have_ram(f, pfn, pfn + (len + PAGE - 1) / PAGE) :
		 !(pfn < f->text_phys_end / PAGE &&
		   pfn + (len + PAGE - 1) / PAGE > f->text_phys / PAGE))
		want = f->mmap_ram ? EINVAL : EPERM;

	note_call(f, "mmap fd=%d phys=%#" PRIx64 " len=%#" PRIx64 " prot=%#x flags=%#x (%s)", fd,
		  phys, len, prot, flags, cls);
	p = mmap(NULL, len, prot, flags, fd, (off_t)phys);
	err = p == MAP_FAILED ? errno : 0;
	f->sh->calls++;
	record(f, "mmap", cls, err < NCODES ? err : 0);
	if (err && !in(err, ok_mmap))
		wrong(f, "mmap: undocumented errno %s", code_name(err));
	if (!err && (prot & (PROT_WRITE | PROT_EXEC)))
		wrong(f, "mmap: prot %#x granted", prot);
	if (clean && err != want)
		wrong(f, "mmap %s phys %#" PRIx64 " len %#" PRIx64 ": %s, want %s", cls, phys, len,
		     code_name(err), code_name(want));
	if (err)
		return;
	f->maps[f->nmaps++] = (struct map){ p, alen, phys, prot, f->mmap_ram,
					    (flags & MAP_TYPE) != MAP_PRIVATE, false, fdi };
	touch_map(f, &f->maps[f->nmaps - 1], false);
}

static void op_touch(struct fuzz *f)
{
	if (!f->nmaps)
		return op_mmap(f);
	note_call(f, "touch");
	touch_map(f, &f->maps[below(f, f->nmaps)], false);
}

static void op_mprotect(struct fuzz *f)
{
	static const int prots[] = { PROT_READ, PROT_NONE, PROT_WRITE, PROT_EXEC,
				     PROT_READ | PROT_WRITE, PROT_READ | PROT_EXEC,
				     PROT_READ | PROT_GROWSDOWN };
	struct map *m;
	int prot, err, want;

	if (!f->nmaps)
		return op_mmap(f);
	m = &f->maps[below(f, f->nmaps)];
	prot = prots[below(f, 7)];
	want = prot & PROT_GROWSDOWN ? EINVAL : prot & (PROT_WRITE | PROT_EXEC) ? EACCES : 0;
	note_call(f, "mprotect %p+%#zx prot=%#x", m->p, m->len, prot);
	err = mprotect(m->p, m->len, prot) ? errno : 0;
	f->sh->calls++;
	record(f, "mprotect", prot & PROT_GROWSDOWN ? "growsdown" :
	       prot & PROT_WRITE ? "write" : prot & PROT_EXEC ? "exec" :
	       prot ? "read" : "none", err);
	if (err != want)
		wrong(f, "mprotect %#x: %s, want %s", prot, code_name(err), code_name(want));
	if (!err)
		m->prot = prot;
}

static void op_mremap(struct fuzz *f)
{
	unsigned int i, r = below(f, 5);
	struct map *m;
	const char *cls;
	size_t nlen, extra;
	char *p, *res, *q = NULL;
	int err, want;

	if (!f->nmaps)
		return op_mmap(f);
	i = below(f, f->nmaps);
	m = &f->maps[i];
	nlen = m->len;
	switch (r) {
	case 0:
		cls = "grow";
		nlen = m->len + PAGE * (1 + below(f, 16));
		want = EFAULT;
		note_call(f, "mremap grow %p %#zx -> %#zx", m->p, m->len, nlen);
		res = mremap(m->p, m->len, nlen, pct(f, 50) ? MREMAP_MAYMOVE : 0);
		break;
	case 1:
		if (m->len == PAGE)
			return;
		cls = "shrink";
		nlen = PAGE * (1 + below(f, m->len / PAGE - 1));
		want = 0;
		note_call(f, "mremap shrink %p %#zx -> %#zx", m->p, m->len, nlen);
		res = mremap(m->p, m->len, nlen, 0);
		break;
	case 2:
		/* move to a fresh place, aligned or not (6.12 moves PMDs) */
		cls = "move";
		extra = 2 * MIB;
		q = mmap(NULL, m->len + extra, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (q == MAP_FAILED)
			return;
		p = q + below(f, extra / PAGE) * PAGE;
		want = 0;
		note_call(f, "mremap move %p %#zx -> %p", m->p, m->len, p);
		res = mremap(m->p, m->len, m->len, MREMAP_MAYMOVE | MREMAP_FIXED, p);
		if (res != MAP_FAILED) {
			if (p > q)
				munmap(q, p - q);
			munmap(p + m->len, q + m->len + extra - (p + m->len));
		} else {
			munmap(q, m->len + extra);
		}
		break;
	case 3:
		cls = "dontunmap";
		want = EINVAL;
		note_call(f, "mremap dontunmap %p %#zx", m->p, m->len);
		res = mremap(m->p, m->len, m->len, MREMAP_MAYMOVE | MREMAP_DONTUNMAP);
		break;
	default:
		/* old_len 0 asks for a duplicate: shared only, and it may not grow */
		cls = "duplicate_old_len_zero";
		want = m->shared ? EFAULT : EINVAL;
		note_call(f, "mremap dup %p", m->p);
		res = mremap(m->p, 0, m->len, MREMAP_MAYMOVE);
		break;
	}
	err = res == MAP_FAILED ? errno : 0;
	f->sh->calls++;
	record(f, "mremap", cls, err < NCODES ? err : 0);
	if (err != want)
		wrong(f, "mremap %s: %s, want %s", cls, code_name(err), code_name(want));
	if (err)
		return;
	if (r == 4) {	/* a duplicate was made after all: keep it to unmap */
		if (f->nmaps < MAX_MAPS)
			f->maps[f->nmaps++] = (struct map){ res, m->len, m->phys, m->prot,
							    m->ram_mode, m->shared, m->dontfork,
							    m->fdi };
		else
			munmap(res, m->len);
		return;
	}
	m->p = res;
	m->len = nlen;
	touch_map(f, m, false);
}

static void op_munmap(struct fuzz *f)
{
	unsigned int i;
	struct map *m;
	size_t cut;
	int err;

	if (!f->nmaps)
		return;
	i = below(f, f->nmaps);
	m = &f->maps[i];
	if (m->len > PAGE && pct(f, 50)) {
		/* split: cut the head or the tail off */
		cut = PAGE * (1 + below(f, m->len / PAGE - 1));
		note_call(f, "munmap part %p %#zx of %#zx", m->p, cut, m->len);
		if (pct(f, 50)) {
			err = munmap(m->p, cut) ? errno : 0;
			m->p += cut;
			m->phys += cut;
		} else {
			err = munmap(m->p + m->len - cut, cut) ? errno : 0;
		}
		m->len -= cut;
	} else {
		unmap_whole(f, i, "whole");
		return;
	}
	f->sh->calls++;
	record(f, "munmap", "head_or_tail", err);
	if (err)
		wrong(f, "munmap: %s", code_name(err));
}

static void op_madvise(struct fuzz *f)
{
	static const struct { int advice; const char *name; } adv[] = {
		{ MADV_DONTNEED, "DONTNEED" }, { MADV_WILLNEED, "WILLNEED" },
		{ MADV_NORMAL, "NORMAL" }, { MADV_RANDOM, "RANDOM" },
		{ MADV_SEQUENTIAL, "SEQUENTIAL" }, { MADV_DONTFORK, "DONTFORK" },
		{ MADV_DOFORK, "DOFORK" }, { MADV_DONTDUMP, "DONTDUMP" },
		{ MADV_DODUMP, "DODUMP" }, { MADV_COLD, "COLD" }, { MADV_PAGEOUT, "PAGEOUT" },
		{ MADV_POPULATE_READ, "POPULATE_READ" }, { MADV_POPULATE_WRITE, "POPULATE_WRITE" },
		{ MADV_HUGEPAGE, "HUGEPAGE" }, { MADV_NOHUGEPAGE, "NOHUGEPAGE" },
		{ MADV_MERGEABLE, "MERGEABLE" }, { MADV_REMOVE, "REMOVE" }, { MADV_FREE, "FREE" },
		{ MADV_WIPEONFORK, "WIPEONFORK" }, { MADV_COLLAPSE, "COLLAPSE" },
	};
	unsigned int a = below(f, sizeof(adv) / sizeof(*adv));
	struct map *m;
	int err;

	if (!f->nmaps)
		return op_mmap(f);
	m = &f->maps[below(f, f->nmaps)];
	note_call(f, "madvise %p %#zx %s", m->p, m->len, adv[a].name);
	err = madvise(m->p, m->len, adv[a].advice) ? errno : 0;
	f->sh->calls++;
	record(f, "madvise", adv[a].name, err < NCODES ? err : 0);
	if (err == EIO)
		wrong(f, "madvise %s: EIO", adv[a].name);
	if (adv[a].advice == MADV_DONTFORK && !err)
		m->dontfork = true;
	if (adv[a].advice == MADV_DOFORK && !err)
		m->dontfork = false;
	touch_map(f, m, false);
}

/* A forked child sees the same pages: copied page tables, its own faults. */
static void op_fork_touch(struct fuzz *f)
{
	int status;
	pid_t pid;

	if (!f->nmaps)
		return op_mmap(f);
	note_call(f, "fork and touch %u mappings", f->nmaps);
	pid = fork();
	if (pid == 0) {
		int bad = 0;

		for (unsigned int i = 0; i < f->nmaps; i++)
			bad += touch_map(f, &f->maps[i], true);
		_exit(bad ? 1 : 0);
	}
	if (pid < 0) {
		wrong(f, "fork: %s", strerror(errno));
		return;
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	record(f, "fork_touch", "child", WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : EFAULT);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		wrong(f, "fork_touch: the child saw unexpected faults (status %#x)", status);
}

/*
 * lseek(): SEEK_SET and SEEK_CUR to any position from 0 to LLONG_MAX (an
 * address's KMEM_RO_READ_OFFSET()); a negative one, SEEK_END, SEEK_DATA
 * and SEEK_HOLE: EINVAL, the position unchanged.
 */
static void op_lseek(struct fuzz *f, int fd)
{
	static const int whences[] = { SEEK_SET, SEEK_CUR, SEEK_END, SEEK_DATA, SEEK_HOLE };
	static const char *const names[] = { "lseek_set", "lseek_cur", "lseek_end",
					     "lseek_data", "lseek_hole" };
	unsigned int w = pct(f, 80) ? below(f, 2) : below(f, 5);
	off_t cur = lseek(fd, 0, SEEK_CUR), off, want, got, after;
	struct kaddr k;

	switch (below(f, 4)) {
	case 0:
		gen_kaddr(f, &k);
		off = KMEM_RO_READ_OFFSET(k.addr);
		break;
	case 1:
		off = (off_t)rnd(f);			/* any sign */
		break;
	case 2:
		off = (off_t)below(f, 1 << 20) - (1 << 19);	/* near here */
		break;
	default:
		off = INT64_MAX - (off_t)below(f, 1 << 20);
		break;
	}
	if (w == 0)
		want = off < 0 ? -EINVAL : off;
	else if (w == 1)
		want = __builtin_add_overflow(cur, off, &want) || want < 0 ? -EINVAL : want;
	else
		want = -EINVAL;
	note_call(f, "file op %s fd=%d at %#llx by %lld", names[w], fd, (unsigned long long)cur,
		  (long long)off);
	f->sh->calls++;
	got = lseek(fd, off, whences[w]);
	if (got < 0)
		got = -errno;
	record(f, "file", names[w], got < 0 ? (int)-got : 0);
	if (got != want)
		wrong(f, "%s by %lld from %#llx: %lld, want %lld", names[w], (long long)off,
		      (unsigned long long)cur, (long long)got, (long long)want);
	after = lseek(fd, 0, SEEK_CUR);
	if (after != (want < 0 ? cur : want))
		wrong(f, "%s left the position at %#llx", names[w], (unsigned long long)after);
}

/* Other ways in through the same file and the same pages. */
static void op_fileops(struct fuzz *f)
{
	char buf[64] = "";
	int fd = f->fds[below(f, NFD)].fd, err, want;
	const char *cls;
	struct iovec liov = { buf, sizeof(buf) }, riov;
	struct pollfd pfd = { fd, POLLIN, 0 };
	struct stat stt;

	switch (below(f, 8)) {
	case 0:
		/* a new file is at 0: address 1 << 63, not canonical */
		cls = "read_new_file";
		want = EINVAL;
		fd = open(KMEM_RO_DEVICE, O_RDONLY | O_CLOEXEC);
		if (fd < 0 && f->unpriv)	/* the node is root's: only inherited fds */
			return;
		if (fd < 0) {
			err = errno;
			break;
		}
		err = read(fd, buf, sizeof(buf)) < 0 ? errno : 0;
		close(fd);
		break;
	case 1:
		cls = "write";
		want = EBADF;
		err = write(fd, buf, sizeof(buf)) < 0 ? errno : 0;
		break;
	case 2:
		op_lseek(f, fd);
		return;
	case 3: {
		/* offset 0 is address 1 << 63, not canonical; a negative one the VFS refuses */
		bool zero = pct(f, 50);

		cls = zero ? "pread_offset_0" : "pread_negative_offset";
		want = EINVAL;
		err = pread(fd, buf, sizeof(buf), zero ? 0 : (off_t)(rnd(f) | 1ULL << 63)) < 0 ?
		      errno : 0;
		break;
	}
	case 4:
		cls = "fstat_poll";
		want = 0;
		err = fstat(fd, &stt) || poll(&pfd, 1, 0) < 0 ? errno : 0;
		break;
	case 5:
		cls = "open_for_writing";
		want = EPERM;
		fd = open(KMEM_RO_DEVICE, pct(f, 50) ? O_RDWR : O_WRONLY);
		err = fd < 0 ? errno : 0;
		if (fd >= 0)
			close(fd);
		if (f->unpriv)
			want = EACCES;
		break;
	case 6:
		/* GUP cannot reach VM_PFNMAP pages: another process cannot read them */
		if (!f->nmaps)
			return;
		cls = "process_vm_readv_of_mapping";
		riov = (struct iovec){ f->maps[below(f, f->nmaps)].p, 8 };
		want = EFAULT;
		err = process_vm_readv(getpid(), &liov, 1, &riov, 1, 0) < 0 ? errno : 0;
		break;
	default:
		if (!f->nmaps)
			return;
		cls = "proc_self_mem_of_mapping";
		fd = open("/proc/self/mem", O_RDONLY);
		if (fd < 0)
			return;
		want = EIO;
		err = pread(fd, buf, 8, (off_t)(uintptr_t)f->maps[below(f, f->nmaps)].p) < 0 ?
		      errno : 0;
		close(fd);
		break;
	}
	note_call(f, "file op %s", cls);
	f->sh->calls++;
	record(f, "file", cls, err < NCODES ? err : 0);
	if (err != want)
		wrong(f, "%s: %s, want %s", cls, code_name(err), code_name(want));
}

/*
 * Close a file with its probes (enabled ones too) and open a new one.  Its
 * mappings keep it open: they go first, so that the close releases it.
 */
static void op_reopen(struct fuzz *f)
{
	unsigned int fdi = below(f, NFD), i;
	struct fdstate *s = &f->fds[fdi];
	uint32_t before, after;
	int err;

	for (i = 0; i < f->nmaps;) {
		if (f->maps[i].fdi != (int)fdi) {
			i++;
			continue;
		}
		unmap_whole(f, i, "before_closing_its_file");
	}
	if (raw_list(s->fd, NULL, 0, KMEM_RO_PROBE_LIST_ALL_FILES, &before))
		return;
	note_call(f, "close fd=%d with %u probes, reopen", s->fd, s->nlive);
	err = close(s->fd) ? errno : 0;
	f->sh->calls += 2;
	record(f, "close_reopen", "close", err);
	s->fd = open(KMEM_RO_DEVICE, O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(s->fd, 0);
	if (raw_list(s->fd, NULL, 0, KMEM_RO_PROBE_LIST_ALL_FILES, &after))
		wrong(f, "PROBE_LIST after reopen failed");
	else if (after != before - s->nlive)
		wrong(f, "close left probes: %u before, %u after, the file had %u", before, after,
		     s->nlive);
	s->nlive = 0;
	s->set = SET_NO;
	s->snap = SET_NO;
}

static void op_param(struct fuzz *f)
{
	int v = pct(f, 60);

	note_call(f, "mmap_ram=%d", v);
	vt_write_file(PARAM_MMAP_RAM, v ? "1" : "0");
	f->mmap_ram = v;
	record(f, "module_param", v ? "mmap_ram=1" : "mmap_ram=0", 0);
}

/* ---- the loop ---- */

static struct fuzz *crash_ctx;

/* The fuzzer's own crash: say where, and what it was doing. */
static void on_crash(int sig)
{
	struct fuzz *f = crash_ctx;
	void *bt[32];
	int n = backtrace(bt, 32);

	printf("@@FUZZ CRASH signal %d after iteration %" PRIu64 "; the last calls were:\n", sig,
	       f->sh->iterations);
	for (unsigned int i = 0; i < RING; i++)
		if (f->ring[(f->ringpos + i) % RING][0])
			printf("@@FUZZ RECENT %s\n", f->ring[(f->ringpos + i) % RING]);
	for (int i = 0; i < n; i++)
		printf("@@FUZZ BACKTRACE %p\n", bt[i]);
	fflush(stdout);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void on_alarm(int sig)
{
	(void)sig;
}

static void sigstorm(struct fuzz *f, bool on)
{
	struct itimerval it = { { 0, 0 }, { 0, 0 } };

	if (on) {
		long us = 1000 + below(f, 9000);

		it.it_interval.tv_usec = it.it_value.tv_usec = us;
	}
	setitimer(ITIMER_REAL, &it, NULL);
	f->sigmode = on;
}

static const char *const bad_words[] = {
	"BUG:", "WARNING:", "Oops", "Call Trace", "UBSAN", "KASAN", "general protection",
	"Kernel panic",
};

static int kernel_reports(void)
{
	int len = klogctl(10, NULL, 0), n = 0;
	char *buf, *line, *save = NULL;

	if (len <= 0)
		return 0;
	buf = malloc(len + 1);
	if (!buf)
		return 0;
	len = klogctl(3, buf, len);
	buf[len > 0 ? len : 0] = '\0';
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		for (unsigned int i = 0; i < sizeof(bad_words) / sizeof(*bad_words); i++)
			if (strstr(line, bad_words[i])) {
				n++;
				break;
			}
	free(buf);
	return n;
}

static void check_kernel_log(struct fuzz *f)
{
	int n;

	if (f->unpriv)
		return;
	n = kernel_reports();
	if (n > f->bad_lines) {
		wrong(f, "the kernel log has %d new report lines; the last calls were:",
		      n - f->bad_lines);
		for (unsigned int i = 0; i < RING; i++) {
			const char *s = f->ring[(f->ringpos + i) % RING];

			if (*s)
				printf("@@FUZZ RECENT %s\n", s);
		}
		f->bad_lines = n;
		f->stop = true;
	}
}

static void one_iteration(struct fuzz *f)
{
	unsigned int r = below(f, 1000);

	f->sh->iterations++;
	if (r < 40)
		op_info(f);
	else if (r < 160)
		op_readv(f);
	else if (r < 220)
		op_pread(f);
	else if (r < 340)
		op_walk(f);
	else if (r < 430)
		op_pagemap(f);
	else if (r < 520)
		op_add(f);
	else if (r < 560)
		op_ids(f, 0);
	else if (r < 600)
		op_ids(f, 1);
	else if (r < 630)
		op_ids(f, 2);
	else if (r < 670)
		op_ids(f, 3);
	else if (r < 690)
		op_list(f);
	else if (r < 705)
		op_filter(f);
	else if (r < 720)
		op_snapshot(f);
	else if (r < 760)
		op_badcmd(f);
	else if (r < 820)
		op_mmap(f);
	else if (r < 870)
		op_touch(f);
	else if (r < 890)
		op_mprotect(f);
	else if (r < 910)
		op_mremap(f);
	else if (r < 930)
		op_munmap(f);
	else if (r < 950)
		op_madvise(f);
	else if (r < 960)
		op_fork_touch(f);
	else if (r < 985)
		op_fileops(f);
	else if (r < 990 && !f->unpriv)
		op_reopen(f);
	else if (r < 995 && !f->unpriv)
		op_param(f);
	else
		sigstorm(f, !f->sigmode);
}

static void fuzz_loop(struct fuzz *f, double until)
{
	while (!f->stop && now() < until) {
		one_iteration(f);
		if (now() >= f->next_check) {
			check_kernel_log(f);
			f->next_check = now() + 1;
		}
	}
	sigstorm(f, false);
}

/*
 * A slice as nobody, on the fds opened as root (as a monitoring agent that
 * dropped privileges would): probes and other processes' pagemaps refused.
 */
static void unprivileged_slice(struct fuzz *f, double secs)
{
	int status;
	pid_t pid;

	rnd(f);		/* the child's stream differs from ours from here */
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY))
			_exit(100);
		f->unpriv = true;
		for (unsigned int i = 0; i < f->nmaps;)	/* not inherited */
			if (f->maps[i].dontfork)
				drop_map(f, i);
			else
				i++;
		seed_rng(f, rnd(f));
		fuzz_loop(f, now() + secs);
		fflush(stdout);
		_exit(0);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		wrong(f, "unprivileged slice died: status %#x", status);
	/* it may have deleted probes of our files, stopped their snapshots */
	for (int i = 0; i < NFD; i++) {
		if (f->fds[i].set != SET_NO)
			resync(f, &f->fds[i]);
		if (f->fds[i].snap == SET_YES)
			f->fds[i].snap = SET_MAYBE;
	}
}

static void print_summary(struct fuzz *f, double elapsed)
{
	struct shared *sh = f->sh;
	struct utsname u;
	const char *ops[64];
	unsigned int nops = 0, i, j;

	uname(&u);
	printf("@@FUZZ summary kernel=%s seed=%#" PRIx64 " duration_s=%.0f iterations=%" PRIu64
	       " calls=%" PRIu64 " touches=%" PRIu64 " failures=%" PRIu64 "\n", u.release, f->seed,
	       elapsed, sh->iterations, sh->calls, sh->touches, sh->failures);
	/* per operation, every class summed */
	for (i = 0; i < sh->nbuckets; i++) {
		for (j = 0; j < nops && strcmp(ops[j], sh->b[i].op); j++)
			;
		if (j == nops && nops < 64)
			ops[nops++] = sh->b[i].op;
	}
	for (j = 0; j < nops; j++) {
		uint64_t sum[NCODES] = { 0 }, tot = 0;

		for (i = 0; i < sh->nbuckets; i++)
			if (!strcmp(sh->b[i].op, ops[j]))
				for (int c = 0; c < NCODES; c++)
					sum[c] += sh->b[i].n[c];
		printf("@@FUZZ op %s", ops[j]);
		for (int c = 0; c < NCODES; c++)
			tot += sum[c];
		printf(" n=%" PRIu64, tot);
		for (int c = 0; c < NCODES; c++)
			if (sum[c])
				printf(" %s=%" PRIu64, code_name(c), sum[c]);
		printf("\n");
	}
	for (i = 0; i < sh->nbuckets; i++) {
		printf("@@FUZZ class %s %s", sh->b[i].op, sh->b[i].cls);
		for (int c = 0; c < NCODES; c++)
			if (sh->b[i].n[c])
				printf(" %s=%" PRIu64, code_name(c), sh->b[i].n[c]);
		printf("\n");
	}
	printf("@@FUZZ end\n");
	fflush(stdout);
}

static unsigned long env_num(const char *name, unsigned long def)
{
	const char *v = getenv(name);

	return v && *v ? strtoull(v, NULL, 0) : def;
}

START_TEST(fuzz)
{
	static struct fuzz fz;
	struct fuzz *f = &fz;
	struct sigaction sa = { .sa_handler = on_alarm, .sa_flags = SA_RESTART };
	double start, slice_at;
	unsigned long duration = env_num("FUZZ_DURATION", 60);
	struct timespec ts;
	int i;

	clock_gettime(CLOCK_REALTIME, &ts);
	f->seed = env_num("FUZZ_SEED", ((uint64_t)ts.tv_sec << 20) ^ ts.tv_nsec ^ getpid());
	f->trace = env_num("FUZZ_TRACE", 0);
	seed_rng(f, f->seed);
	printf("@@FUZZ seed=%#" PRIx64 " duration_s=%lu (replay: FUZZ_SEED=%#" PRIx64
	       "; add nokaslr to the kernel command line for the same addresses)\n",
	       f->seed, duration, f->seed);
	fflush(stdout);

	f->sh = mmap(NULL, sizeof(*f->sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		     -1, 0);
	ck_assert_ptr_ne(f->sh, MAP_FAILED);
	f->owner = getpid();
	for (i = 0; i < NFD; i++)
		f->fds[i] = (struct fdstate){ .fd = vt_open_dev(), .set = SET_NO };
	/* the opt-in: the fuzzer maps RAM (the module's default maps text only) */
	vt_write_file(PARAM_MMAP_RAM, "1");
	f->mmap_ram = 1;
	load_layout(f, f->fds[0].fd);
	setup_memory(f);
	setup_hidden(f);
	setup_zoo(f);
	sigaction(SIGALRM, &sa, NULL);
	crash_ctx = f;
	signal(SIGSEGV, on_crash);
	signal(SIGBUS, on_crash);
	signal(SIGABRT, on_crash);
	f->bad_lines = kernel_reports();
	printf("@@FUZZ layout page_offset=%#" PRIx64 " text=%#" PRIx64 "-%#" PRIx64
	       " vmalloc=%#" PRIx64 " modules=%#" PRIx64 " ram_ranges=%u holes=%u text_syms=%u"
	       " data_syms=%u module_syms=%u vmalloc_areas=%u la57=%d hidden=%u zoo=%u\n",
	       (uint64_t)f->info.page_offset, (uint64_t)f->info.text_start,
	       (uint64_t)f->info.text_end, (uint64_t)f->info.vmalloc_start,
	       (uint64_t)f->info.modules_start, f->nram, f->nnonram, f->ntext, f->ndata, f->nmod,
	       f->nvarea, f->la57, f->nhidden, f->nzoo);
	printf("@@FUZZ layout safe_functions=%u of them after fentry=%u\n", f->nsafe,
	       f->nsafe_kp);
	fflush(stdout);

	start = now();
	f->end = start + duration;
	slice_at = start + 5;
	while (!f->stop && now() < f->end) {
		/* every 10 s, 1.5 s as an unprivileged user */
		fuzz_loop(f, slice_at < f->end ? slice_at : f->end);
		if (f->stop || now() >= f->end)
			break;
		unprivileged_slice(f, 1.5);
		slice_at = now() + 8.5;
	}
	sigstorm(f, false);

	while (f->nmaps)
		unmap_whole(f, 0, "at_exit");
	for (i = 0; i < NFD; i++)
		close(f->fds[i].fd);
	munmap((void *)f->kmap_text, PAGE);
	munmap((void *)(f->kmap_hole - f->hole_pfn * PAGE), (f->hole_pfn + 1) * PAGE);
	if (f->kpf_fd >= 0)
		close(f->kpf_fd);
	vt_write_file(PARAM_MMAP_RAM, "0");	/* the module's default */
	check_kernel_log(f);
	print_summary(f, now() - start);
	ck_assert_msg(f->sh->iterations > 0, "no iteration ran");
	ck_assert_msg(!f->sh->failures, "%" PRIu64 " failures; first: %s (seed %#" PRIx64 ")",
		      f->sh->failures, f->sh->first_failure, f->seed);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("fuzz");
	TCase *tc = tcase_create("fuzz");

	/* the fuzz itself, plus setup, plus a slow machine */
	tcase_set_timeout(tc, env_num("FUZZ_DURATION", 60) + 600);
	tcase_add_test(tc, fuzz);
	suite_add_tcase(s, tc);
	return vt_main(s);
}
