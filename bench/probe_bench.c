// SPDX-License-Identifier: GPL-2.0
/*
 * Bulk probes against tracefs kprobe_events.
 *
 * (a) Registration: every probe-able function, then 100, 2k and 8k of them,
 *     as function-entry probes in one KMEM_RO_IOC_PROBE_ADD with
 *     KMEM_RO_PROBE_ENABLED (one ftrace_ops for the whole set), and every
 *     one registered disabled; against the same functions through tracefs:
 *     one "p:kmem_ro_bN FUNC" line appended to kprobe_events per probe,
 *     then events/kprobes/enable.  tracefs registration stops after
 *     TRACEFS_CAP_S seconds and says how far it got; 8k is enabled only
 *     when 2k went fast enough to finish within that cap, else only
 *     registered, which bounds the ratio from below.
 * (b) Cost per hit: CALLS getppid() calls (the fastest of REPS rounds)
 *     with 0, 100, 2k, 8k and all
 *     function-entry probes enabled, every hit of every probe counted, so
 *     the time added per hit can be compared across set sizes; plus 100
 *     kprobe-path probes (offset past the fentry call) and the tracefs
 *     sets, whose hits are trace events.  Every set holds the workload's
 *     own functions: those the run with all enabled saw hit at least once
 *     per call, __x64_sys_getppid first.
 *
 * (c) Offset probes (kprobes, past the fentry call) at 100, 2k and 8k:
 *     set-up, teardown and added ns per hit as for (a) and (b), after the
 *     kernel's optimizer has turned the probes it can into jumps
 *     (debugfs kprobes/list says [OPTIMIZED]): an optimized probe reaches
 *     its handler straight from its detour buffer, an int3 probe through a
 *     lookup in kprobe_table's 64 buckets, longer with every probe.  Then
 *     100 and 8k again with debug.kprobes-optimization=0: what each hit
 *     costs the int3 way.  "probe_bench kprobe" (or BENCH_PROBE_PART=kprobe
 *     in make bench's environment) runs only this part.
 * (d) Unregistering: UNREG_PROBES offset probes (kprobes, registered
 *     disabled) removed by one PROBE_DEL of all, and as many removed by
 *     closing their file.  The driver unregisters a file's kprobes in one
 *     batch, one RCU grace period for all (one each took ~60 ms under
 *     TCG: 10 minutes for 10,000).  "probe_bench unregister [N]" runs only
 *     this part, with N probes (BENCH_PROBE_PART=unregister: UNREG_PROBES).
 * (e) The probe filter (KMEM_RO_IOC_PROBE_FILTER): one probe on HOT, at
 *     its entry (ftrace) and past it (kprobe), the workload timed with no
 *     filter, with filters its calls match (this process, its name) and
 *     with filters they miss (init, another name); added ns per hit over
 *     the unprobed workload, as ratios to the unfiltered probe's.  The
 *     configurations take turns, FILTER_ROUNDS times, the fastest of each
 *     kept.  "probe_bench filter" (BENCH_PROBE_PART=filter) runs only this.
 *
 * "Probe-able" functions: vmlinux text symbols with a unique name that
 * tracefs lists in available_filter_functions and debugfs does not list
 * in kprobes/blacklist - the set both paths should accept.  The sets are
 * prefixes of one fixed-seed shuffle: the same functions every run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "bench.h"
#include "kmemdev.h"

#define HOT		"__x64_sys_getppid"
#define CALLS		200000
#define REPS		3
#define SETTLE_S	5
#define TRACEFS		"/sys/kernel/tracing"
#define BLACKLIST	"/sys/kernel/debug/kprobes/blacklist"
#define TRACEFS_CAP_S	120.0
#define UNREG_PROBES	10000
#define KPROBE_LIST	"/sys/kernel/debug/kprobes/list"
#define KPROBE_OPT	"/proc/sys/debug/kprobes-optimization"
/* The optimizer takes 256 probes a round: done when nothing changed for this long. */
#define OPT_STABLE_S	10.0
#define OPT_CAP_S	900.0
#define MAX_WORKLOAD	64
#define FILTER_ROUNDS	5

struct cand {
	uint64_t addr;
	const char *name;	/* the one kallsyms reports for @addr */
};

struct names {
	char **v;
	size_t n, cap;
};

static const char *kernel, *accel;
static struct cand *cands;
static size_t ncands;
static size_t nworkload = 1;	/* cands[0..nworkload): run by the workload */

static double secs(uint64_t t0)
{
	return (double)(bench_ns() - t0) / 1e9;
}

static int push_name(struct names *s, const char *name, size_t len)
{
	if (s->n == s->cap) {
		size_t ncap = s->cap ? 2 * s->cap : 4096;
		void *p = realloc(s->v, ncap * sizeof(*s->v));

		if (!p)
			return -1;
		s->v = p;
		s->cap = ncap;
	}
	s->v[s->n] = strndup(name, len);
	return s->v[s->n++] ? 0 : -1;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* vmlinux names of a listing: available_filter_functions or the blacklist. */
static int read_names(const char *path, bool blacklist, struct names *s)
{
	FILE *f = fopen(path, "re");
	char line[512];

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *p = line;
		size_t len;

		if (blacklist) {	/* "0xSTART-0xEND\tNAME [mod]" */
			p = strchr(line, '\t');
			if (!p)
				continue;
			p++;
		}
		len = strcspn(p, " \t\n");
		if (!len || strchr(p + len, '['))
			continue;	/* module */
		if (push_name(s, p, len))
			break;
	}
	fclose(f);
	qsort(s->v, s->n, sizeof(*s->v), cmp_str);
	return 0;
}

static bool has_name(const struct names *s, const char *name)
{
	return s->n && bsearch(&name, s->v, s->n, sizeof(*s->v), cmp_str);
}

struct ksym {
	uint64_t addr;
	size_t idx;		/* line number: file order */
	char *name;
	char type;
	bool dup;		/* another text symbol has this name */
};

static int cmp_ksym_addr(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int cmp_ksym_name(const void *a, const void *b)
{
	const struct ksym *x = *(struct ksym *const *)a, *y = *(struct ksym *const *)b;

	return strcmp(x->name, y->name);
}

static bool is_text(char t)
{
	return t == 't' || t == 'T';
}

/*
 * Probe-able candidates under the name the kernel itself gives their
 * address (the first of its aliases in /proc/kallsyms, which is what the
 * driver checks against), shuffled with a fixed seed (the same sets every
 * run) with HOT's function first, so that every prefix holds it.
 */
static int build_candidates(size_t *listed)
{
	struct names avail = { 0 }, black = { 0 };
	FILE *f = fopen("/proc/kallsyms", "re");
	struct ksym *k = NULL, **byname;
	size_t nk = 0, kcap = 0, i, j;
	unsigned long long addr;
	char line[512], name[256], type;
	uint64_t hot = 0;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (strchr(line, '[') ||
		    sscanf(line, "%llx %c %255s", &addr, &type, name) != 3)
			continue;	/* modules, malformed */
		if (nk == kcap) {
			kcap = kcap ? 2 * kcap : 65536;
			k = realloc(k, kcap * sizeof(*k));
			if (!k)
				return -ENOMEM;
		}
		k[nk] = (struct ksym){ .addr = addr, .idx = nk, .type = type,
				       .name = strdup(name) };
		if (!strcmp(name, HOT))
			hot = addr;
		nk++;
	}
	fclose(f);
	if (!hot)
		return -ENOENT;

	/* Names shared by several text symbols: ambiguous for tracefs. */
	byname = malloc(nk * sizeof(*byname));
	if (!byname)
		return -ENOMEM;
	for (i = 0; i < nk; i++)
		byname[i] = &k[i];
	qsort(byname, nk, sizeof(*byname), cmp_ksym_name);
	for (i = 0; i + 1 < nk; i++)
		if (!strcmp(byname[i]->name, byname[i + 1]->name) &&
		    is_text(byname[i]->type) && is_text(byname[i + 1]->type))
			byname[i]->dup = byname[i + 1]->dup = true;
	free(byname);

	if (read_names(TRACEFS "/available_filter_functions", false, &avail))
		fprintf(stderr, "probe_bench: no available_filter_functions: "
			"every unique text symbol is a candidate\n");
	read_names(BLACKLIST, true, &black);
	*listed = avail.n;

	qsort(k, nk, sizeof(*k), cmp_ksym_addr);
	cands = calloc(nk, sizeof(*cands));
	if (!cands)
		return -ENOMEM;
	for (i = 0; i < nk; i++) {
		const struct ksym *c = &k[i];

		if (i && k[i - 1].addr == c->addr)
			continue;	/* not the name the kernel reports */
		if (!is_text(c->type) || c->dup ||
		    strlen(c->name) >= KMEM_RO_PROBE_NAME_LEN ||
		    !strncmp(c->name, "__pfx_", 6) ||
		    !strncmp(c->name, "__cfi_", 6) || strstr(c->name, ".cold") ||
		    (avail.n && !has_name(&avail, c->name)) ||
		    has_name(&black, c->name))
			continue;
		cands[ncands++] = (struct cand){ .addr = c->addr, .name = c->name };
	}
	srand(1);
	for (i = ncands - 1; i > 0; i--) {
		struct cand t;

		j = (size_t)rand() % (i + 1);
		t = cands[i];
		cands[i] = cands[j];
		cands[j] = t;
	}
	for (i = 0; i < ncands && cands[i].addr != hot; i++)
		;
	if (i == ncands)
		return -ENOENT;
	{
		struct cand t = cands[0];

		cands[0] = cands[i];
		cands[i] = t;
	}
	fprintf(stderr, "probe_bench: %s probed as %s\n", HOT, cands[0].name);
	return 0;	/* k and its names stay: cands point into them */
}

static void workload(long n)
{
	for (long i = 0; i < n; i++)
		syscall(SYS_getppid);
}

/*
 * REPS rounds of CALLS calls: ns per call of the fastest round (the others
 * lost time to the rest of this shared machine).  Hits counted across
 * them are divided by REPS.
 */
static double timed_calls(void)
{
	double best = 0;

	for (int i = 0; i < REPS; i++) {
		uint64_t t0 = bench_ns();
		double ns;

		workload(CALLS);
		ns = (double)(bench_ns() - t0) / CALLS;
		if (!i || ns < best)
			best = ns;
	}
	return best;
}

static double ns_per_call(void)
{
	workload(CALLS / 20);
	return timed_calls();
}

static struct kmemdev *open_dev(void)
{
	KMEMDEV_OPTS(kmemdev_open_opts, opts, .backend = KMEMDEV_BACKEND_DEVICE);
	struct kmemdev *h;
	int err = kmemdev_open(&h, &opts);

	if (err) {
		fprintf(stderr, "probe_bench: open: %s\n",
			kmemdev_strerror(KMEMDEV_OP_OPEN, err));
		exit(1);
	}
	return h;
}

/*
 * Offset of the first instruction after the fentry site (a NOP5, a call
 * while traced), which comes first or, on IBT kernels, after 4 bytes:
 * ENDBR64 or, in functions whose address is never taken, the NOP that
 * boot-time sealing wrote over it (66 0f 1f 00 on 6.12).
 */
static uint32_t after_fentry(struct kmemdev *h, uint64_t addr)
{
	unsigned char code[5];

	if (kmemdev_read(h, addr, code, sizeof(code)))
		return 5;
	return !memcmp(code, "\x0f\x1f\x44\x00\x00", 5) || code[0] == 0xe8 ? 5 : 9;
}

/* One line with how many specs got which errno, if any was refused. */
static void print_refused(const char *path, const char *set,
			  const struct kmem_ro_probe_spec *s, size_t n)
{
	unsigned int count[256] = { 0 }, other = 0;
	bool any = false;
	int e;

	for (size_t i = 0; i < n; i++) {
		if (s[i].result > 0)
			continue;
		any = true;
		if (s[i].result < 0 && -s[i].result < 256)
			count[-s[i].result]++;
		else
			other++;
	}
	if (!any)
		return;
	printf("bench probe_refused kernel=%s accel=%s path=%s set=%s", kernel,
	       accel, path, set);
	for (e = 1; e < 256; e++)
		if (count[e])
			printf(" %s=%u", strerrorname_np(e) ?: "errno", count[e]);
	if (other)
		printf(" other=%u", other);
	printf("\n");
	fflush(stdout);
}

struct ftrace_run {
	size_t probes;
	unsigned int added;
	double add_s, close_s, ns, hits_per_call;
	uint64_t hits, hot;
	/* kprobes: optimized in all, of the workload's functions, HOT's */
	size_t optimized, optimized_workload;
	bool hot_optimized, workload_optimized[MAX_WORKLOAD];
	double optimize_s;	/* from the end of the add until the last one */
	/* the same, once the workload's int3 probes are deleted */
	double jump_ns;
	uint64_t jump_hits;
	unsigned int int3_deleted;
};

/* Index among the workload's functions of @sym ("name+0x9"), or -1. */
static int workload_index(const char *sym)
{
	size_t len = strcspn(sym, "+");

	for (size_t i = 0; i < nworkload; i++)
		if (strlen(cands[i].name) == len && !strncmp(cands[i].name, sym, len))
			return (int)i;
	return -1;
}

/*
 * Count the optimized kprobes in debugfs kprobes/list: lines
 * "ADDR  k  SYM+OFF  [FLAGS]".  Returns how many kprobes are listed.
 */
static size_t count_optimized(struct ftrace_run *r)
{
	FILE *f = fopen(KPROBE_LIST, "re");
	char line[512], type[8], sym[256];
	size_t listed = 0;

	r->optimized = r->optimized_workload = 0;
	memset(r->workload_optimized, 0, sizeof(r->workload_optimized));
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		int w;

		if (sscanf(line, "%*s %7s %255s", type, sym) != 2 || strcmp(type, "k"))
			continue;
		listed++;
		if (!strstr(line, "[OPTIMIZED]"))
			continue;
		r->optimized++;
		w = workload_index(sym);
		if (w >= 0) {
			r->optimized_workload++;
			r->workload_optimized[w] = true;
		}
	}
	r->hot_optimized = r->workload_optimized[0];
	fclose(f);
	return listed;
}

/*
 * The kprobe optimizer works in the background, OPTIMIZE_DELAY after a
 * registration and 256 probes a round: wait until the count of optimized
 * probes has not moved for OPT_STABLE_S (at most OPT_CAP_S).
 */
static void wait_optimized(struct ftrace_run *r)
{
	uint64_t t0 = bench_ns(), changed = t0;
	size_t last = (size_t)-1;

	for (;;) {
		count_optimized(r);
		if (r->optimized != last) {
			last = r->optimized;
			changed = bench_ns();
		}
		if (secs(changed) >= OPT_STABLE_S || secs(t0) >= OPT_CAP_S)
			break;
		usleep(200000);
	}
	r->optimize_s = (double)(changed - t0) / 1e9;
	fprintf(stderr, "probe_bench: %zu optimized after %.1f s\n", r->optimized,
		r->optimize_s);
}

/*
 * Delete the probes of the workload's functions the kernel did not
 * optimize, then time the workload again: every hit left is a jump to a
 * detour buffer, none an int3 looked up in kprobe_table.
 */
static int jump_only(struct kmemdev *h, const struct kmem_ro_probe_spec *s,
		     size_t n, uint64_t *counts, struct ftrace_run *r)
{
	uint64_t ids[MAX_WORKLOAD];
	unsigned int k = 0;
	int err;

	for (size_t i = 0; i < nworkload && i < n && i < MAX_WORKLOAD; i++)
		if (s[i].result > 0 && !r->workload_optimized[i])
			ids[k++] = (uint64_t)s[i].result;
	r->int3_deleted = k;
	err = kmemdev_probes_del(h, ids, k);
	if (!err)
		err = kmemdev_probes_stats_all(h, counts, (unsigned int)n,
					       KMEM_RO_PROBE_RESET);
	if (err >= 0) {
		r->jump_ns = timed_calls();
		err = kmemdev_probes_stats_all(h, counts, (unsigned int)n, 0);
	}
	if (err < 0) {
		fprintf(stderr, "probe_bench: jump-only: %s\n",
			kmemdev_strerror(KMEMDEV_OP_PROBES, err));
		return err;
	}
	r->jump_hits = 0;
	for (size_t i = 0; i < (size_t)err && i < n; i++)
		r->jump_hits += counts[i] / REPS;
	return 0;
}

/*
 * Add the first n candidates enabled in one call, time it, run the
 * workload with every hit counted, close (which removes them).  kprobe:
 * probes past the fentry call instead of on it.  The workload's hits of
 * each candidate go to cand_hits[] unless NULL.
 */
static int ftrace_run(size_t n, bool kprobe, bool disabled, const char *set,
		      struct ftrace_run *r, uint64_t *cand_hits)
{
	struct kmemdev *h = open_dev();
	struct kmem_ro_probe_spec *s = calloc(n, sizeof(*s));
	uint64_t *counts = calloc(n, sizeof(*counts)), t0;
	int err = -ENOMEM;
	size_t i;

	memset(r, 0, sizeof(*r));
	r->probes = n;
	if (!s || !counts)
		goto out;
	for (i = 0; i < n; i++) {
		s[i].addr = cands[i].addr;
		s[i].offset = kprobe ? after_fentry(h, cands[i].addr) : 0;
		s[i].flags = disabled ? 0 : KMEM_RO_PROBE_ENABLED;
		snprintf(s[i].name, sizeof(s[i].name), "%s", cands[i].name);
	}
	fprintf(stderr, "probe_bench: adding %zu %s probes\n", n,
		kprobe ? "kprobe" : "ftrace");
	t0 = bench_ns();
	err = kmemdev_probes_add(h, s, (unsigned int)n, &r->added);
	r->add_s = secs(t0);
	fprintf(stderr, "probe_bench: added %u in %.3f s\n", r->added, r->add_s);
	if (!err)
		print_refused(kprobe ? "kprobe" : "ftrace", set, s, n);
	if (disabled) {
		err = 0;
		goto out;
	}
	if (err) {
		fprintf(stderr, "probe_bench: add %zu: %s\n", n,
			kmemdev_strerror(KMEMDEV_OP_PROBES, err));
		goto out;
	}
	if (s[0].result <= 0) {
		fprintf(stderr, "probe_bench: %s refused: %lld\n", HOT,
			(long long)s[0].result);
		err = -EINVAL;
		goto out;
	}
	if (kprobe)
		wait_optimized(r);
	workload(CALLS / 20);
	err = kmemdev_probes_stats_all(h, counts, (unsigned int)n,
				       KMEM_RO_PROBE_RESET);
	if (err >= 0) {
		r->ns = timed_calls();
		err = kmemdev_probes_stats_all(h, counts, (unsigned int)n, 0);
	}
	if (err < 0) {
		fprintf(stderr, "probe_bench: stats: %s\n",
			kmemdev_strerror(KMEMDEV_OP_PROBES, err));
		goto out;
	}
	for (i = 0; i < (size_t)err && i < n; i++) {
		counts[i] /= REPS;	/* per CALLS calls */
		r->hits += counts[i];
	}
	/* Ids count up from 1 in a fresh file: HOT, added first, is first. */
	r->hot = counts[0];
	if (cand_hits) {	/* STATS of all: the added ones, in id order */
		size_t k = 0;

		for (i = 0; i < n; i++)
			cand_hits[i] = s[i].result > 0 && k < (size_t)err ? counts[k++] : 0;
	}
	r->hits_per_call = (double)r->hits / CALLS;
	err = kprobe && r->optimized ? jump_only(h, s, n, counts, r) : 0;
out:
	t0 = bench_ns();
	kmemdev_close(h);
	r->close_s = secs(t0);
	free(s);
	free(counts);
	return err;
}

static int write_str(const char *path, const char *s, int flags)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC | flags);
	ssize_t len = (ssize_t)strlen(s), w;

	if (fd < 0)
		return -errno;
	w = write(fd, s, len);
	w = w == len ? 0 : w < 0 ? -errno : -EIO;
	close(fd);
	return (int)w;
}

/* Sum of the hit column of kprobe_profile: "  EVENT  NHIT  NMISSED". */
static uint64_t tracefs_hits(void)
{
	FILE *f = fopen(TRACEFS "/kprobe_profile", "re");
	char ev[256];
	unsigned long long hit, miss;
	uint64_t sum = 0;

	if (!f)
		return 0;
	while (fscanf(f, "%255s %llu %llu", ev, &hit, &miss) == 3)
		sum += hit;
	fclose(f);
	return sum;
}

struct tracefs_run {
	size_t probes, reached, failed;
	bool capped;
	double reg_s, enable_s, cleanup_s, ns;
	uint64_t hits;
};

/* Register n kprobe events, then enable them unless register_only. */
static int tracefs_run(size_t n, bool register_only, struct tracefs_run *r)
{
	char line[KMEM_RO_PROBE_NAME_LEN + 64];
	uint64_t t0, h0;
	size_t i;
	int fd, err;

	memset(r, 0, sizeof(*r));
	r->probes = n;
	err = write_str(TRACEFS "/kprobe_events", "", O_TRUNC);
	if (err)
		return err;
	fd = open(TRACEFS "/kprobe_events", O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	t0 = bench_ns();
	for (i = 0; i < n; i++) {
		int len = snprintf(line, sizeof(line), "p:kmem_ro_b%zu %s\n", i,
				   cands[i].name);

		if (write(fd, line, (size_t)len) != len)
			r->failed++;
		r->reached = i + 1;
		if (secs(t0) > TRACEFS_CAP_S) {
			r->capped = r->reached < n;
			break;
		}
	}
	r->reg_s = secs(t0);
	close(fd);
	fprintf(stderr, "probe_bench: tracefs: %zu of %zu registered in %.1f s\n",
		r->reached - r->failed, n, r->reg_s);
	if (register_only)
		return 0;
	t0 = bench_ns();
	err = write_str(TRACEFS "/events/kprobes/enable", "1", 0);
	r->enable_s = secs(t0);
	if (!err) {
		workload(CALLS / 20);
		h0 = tracefs_hits();
		r->ns = timed_calls();
		r->hits = (tracefs_hits() - h0) / REPS;
	}
	return err;
}

/* Disable and remove every kprobe event (slow: one at a time inside). */
static void tracefs_cleanup(struct tracefs_run *r)
{
	uint64_t t0 = bench_ns();

	write_str(TRACEFS "/events/kprobes/enable", "0", 0);
	write_str(TRACEFS "/kprobe_events", "", O_TRUNC);
	r->cleanup_s = secs(t0);
	printf("bench probe_unregister kernel=%s accel=%s path=tracefs"
	       " probes=%zu cleanup_s=%.3f\n", kernel, accel,
	       r->reached - r->failed, r->cleanup_s);
	fflush(stdout);
}

static void print_ftrace(const char *path, const char *set,
			 const struct ftrace_run *r, double base)
{
	bool enabled = !strstr(set, "disabled");

	printf("bench probe_register kernel=%s accel=%s path=%s set=%s"
	       " probes=%zu added=%u enabled=%d add_s=%.3f close_s=%.3f\n",
	       kernel, accel, path, set, r->probes, r->added, enabled,
	       r->add_s, r->close_s);
	if (!enabled) {
		fflush(stdout);
		return;
	}
	printf("bench probe_hit kernel=%s accel=%s path=%s set=%s probes=%u"
	       " calls=%d base_ns_per_call=%.1f ns_per_call=%.1f"
	       " hot_hits=%llu hits=%llu hits_per_call=%.2f"
	       " added_ns_per_hit=%.1f",
	       kernel, accel, path, set, r->added, CALLS, base, r->ns,
	       (unsigned long long)r->hot, (unsigned long long)r->hits,
	       r->hits_per_call,
	       r->hits ? (r->ns - base) * CALLS / (double)r->hits : 0.0);
	if (!strncmp(path, "kprobe", 6))
		printf(" optimized=%zu optimize_s=%.1f workload_functions=%zu"
		       " workload_optimized=%zu hot_optimized=%d", r->optimized,
		       r->optimize_s, nworkload, r->optimized_workload, r->hot_optimized);
	printf("\n");
	if (!strcmp(path, "kprobe"))
		printf("bench probe_hit kernel=%s accel=%s path=kprobe-jump set=%s"
		       " probes=%u int3_deleted=%u calls=%d base_ns_per_call=%.1f"
		       " ns_per_call=%.1f hits=%llu hits_per_call=%.2f"
		       " added_ns_per_hit=%.1f\n", kernel, accel, set,
		       r->added - r->int3_deleted, r->int3_deleted, CALLS, base,
		       r->jump_ns, (unsigned long long)r->jump_hits,
		       (double)r->jump_hits / CALLS,
		       r->jump_hits ? (r->jump_ns - base) * CALLS / (double)r->jump_hits : 0.0);
	fflush(stdout);
}

static void print_tracefs(const char *set, const struct tracefs_run *r,
			  const struct ftrace_run *same, double base)
{
	double total = r->reg_s + r->enable_s;

	printf("bench probe_register kernel=%s accel=%s path=tracefs set=%s"
	       " probes=%zu reached=%zu failed=%zu capped=%d cap_s=%.0f"
	       " register_s=%.3f enable_s=%.3f ftrace_add_enable_s=%.3f"
	       " ratio=%.1f\n",
	       kernel, accel, set, r->probes, r->reached, r->failed,
	       r->capped, TRACEFS_CAP_S, r->reg_s, r->enable_s,
	       same->add_s, same->add_s > 0 ? total / same->add_s : 0.0);
	printf("bench probe_hit kernel=%s accel=%s path=tracefs set=%s"
	       " probes=%zu calls=%d base_ns_per_call=%.1f ns_per_call=%.1f"
	       " hits=%llu hits_per_call=%.2f added_ns_per_hit=%.1f\n",
	       kernel, accel, set, r->reached - r->failed, CALLS, base, r->ns,
	       (unsigned long long)r->hits, (double)r->hits / CALLS,
	       r->hits ? (r->ns - base) * CALLS / (double)r->hits : 0.0);
	fflush(stdout);
}

/*
 * Move the functions the workload ran at least once per call (cand_hits,
 * from the run with all enabled) to the front, HOT's staying first, so
 * that every set holds them; return how many there are.
 */
static size_t workload_first(const uint64_t *cand_hits)
{
	struct cand *tmp = malloc(ncands * sizeof(*tmp));
	size_t i, j, k = 0;

	if (!tmp)
		return 1;
	for (i = 0; i < ncands; i++)
		if (!i || cand_hits[i] >= CALLS)
			tmp[k++] = cands[i];
	for (i = 1, j = k; i < ncands; i++)
		if (cand_hits[i] < CALLS)
			tmp[j++] = cands[i];
	memcpy(cands, tmp, ncands * sizeof(*tmp));
	free(tmp);
	printf("bench probe_workload kernel=%s accel=%s functions=%zu names=",
	       kernel, accel, k);
	for (i = 0; i < k; i++)
		printf("%s%s", i ? "," : "", cands[i].name);
	printf("\n");
	fflush(stdout);
	nworkload = k;
	return k;
}

static double ns_per_hit(const struct ftrace_run *r, double base)
{
	return r->hits ? (r->ns - base) * CALLS / (double)r->hits : 0.0;
}

/* Is the added cost per hit at 8k within 1.3x of that at 100? */
static void print_flat(const char *path, const struct ftrace_run *r100,
		       const struct ftrace_run *r8k, const struct ftrace_run *all,
		       double base)
{
	double a = ns_per_hit(r100, base), b = ns_per_hit(r8k, base);

	printf("bench probe_flat kernel=%s accel=%s path=%s base_ns_per_call=%.1f"
	       " added_ns_per_hit_100=%.1f added_ns_per_hit_8k=%.1f ratio=%.2f"
	       " target_max=1.3", kernel, accel, path, base, a, b, a > 0 ? b / a : 0.0);
	if (all)
		printf(" added_ns_per_hit_all=%.1f", ns_per_hit(all, base));
	printf("\n");
	fflush(stdout);
}

/*
 * (c): offset probes at 100, 2k and 8k as the kernel optimizes them, then
 * 100 and 8k with optimization off.
 */
static void kprobe_runs(double base)
{
	static const size_t sizes[] = { 100, 2000, 8000 };
	static const char *const names[] = { "100", "2k", "8k" };
	struct ftrace_run opt[3], int3[2];
	bool ok = true;

	for (size_t i = 0; i < 3 && ok; i++) {
		ok = sizes[i] <= ncands &&
		     !ftrace_run(sizes[i], true, false, names[i], &opt[i], NULL);
		if (ok)
			print_ftrace("kprobe", names[i], &opt[i], base);
		sleep(SETTLE_S);
	}
	if (ok) {
		struct ftrace_run j100 = { .ns = opt[0].jump_ns, .hits = opt[0].jump_hits },
				  j8k = { .ns = opt[2].jump_ns, .hits = opt[2].jump_hits };

		print_flat("kprobe", &opt[0], &opt[2], NULL, base);
		print_flat("kprobe-jump", &j100, &j8k, NULL, base);
	}
	if (write_str(KPROBE_OPT, "0", 0)) {
		fprintf(stderr, "probe_bench: cannot turn kprobe optimization off\n");
		return;
	}
	ok = !ftrace_run(sizes[0], true, false, names[0], &int3[0], NULL) &&
	     !ftrace_run(sizes[2], true, false, names[2], &int3[1], NULL);
	write_str(KPROBE_OPT, "1", 0);
	if (!ok)
		return;
	print_ftrace("kprobe-int3", names[0], &int3[0], base);
	print_ftrace("kprobe-int3", names[2], &int3[1], base);
	print_flat("kprobe-int3", &int3[0], &int3[1], NULL, base);
}

/* PROBE_ADD of @n specs on a raw fd: 0 or -errno, the ids in the specs. */
static int raw_add(int fd, struct kmem_ro_probe_spec *s, size_t n, unsigned int *added)
{
	struct kmem_ro_probe_add a = { .size = sizeof(a), .specs_addr = (uintptr_t)s,
				       .count = (uint32_t)n };

	if (ioctl(fd, KMEM_RO_IOC_PROBE_ADD, &a))
		return -errno;
	*added = a.added;
	return 0;
}

static int raw_del(int fd, uint64_t *ids, size_t n)
{
	struct kmem_ro_probe_ids a = { .size = sizeof(a), .ids_addr = (uintptr_t)ids,
				       .count = (uint32_t)n, .flags = ids ? 0 : KMEM_RO_PROBE_ALL };

	return ioctl(fd, KMEM_RO_IOC_PROBE_DEL, &a) ? -errno : 0;
}

/*
 * (c): exactly @want kprobes (the first candidates that take one past
 * their fentry site), deleted by PROBE_DEL of all; then added again to
 * another file, which is closed.
 */
static int unregister_run(size_t want)
{
	struct kmemdev *h = open_dev();
	size_t n = ncands < want + want / 4 ? ncands : want + want / 4, k = 0, nx = 0, i;
	struct kmem_ro_probe_spec *s = calloc(n, sizeof(*s));
	uint64_t *extra = calloc(n, sizeof(*extra)), t0;
	double add_s, del_s, close_s;
	unsigned int added;
	int fd, err;

	if (!s || !extra)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		s[i].addr = cands[i].addr;
		s[i].offset = after_fentry(h, cands[i].addr);
		snprintf(s[i].name, sizeof(s[i].name), "%s", cands[i].name);
	}
	kmemdev_close(h);
	fd = open(KMEM_RO_DEVICE, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	fprintf(stderr, "probe_bench: adding %zu kprobes, keeping %zu\n", n, want);
	err = raw_add(fd, s, n, &added);
	if (err)
		goto out;
	print_refused("kprobe", "unregister", s, n);
	/* the first @want added stay, the others go (untimed) */
	for (i = 0; i < n; i++) {
		if (s[i].result <= 0)
			continue;
		if (k < want)
			s[k++] = s[i];
		else
			extra[nx++] = (uint64_t)s[i].result;
	}
	err = -ENOENT;
	if (k < want || (nx && raw_del(fd, extra, nx)))
		goto out;
	fprintf(stderr, "probe_bench: deleting %zu kprobes\n", want);
	t0 = bench_ns();
	err = raw_del(fd, NULL, 0);
	del_s = secs(t0);
	if (err)
		goto out;
	close(fd);
	fd = open(KMEM_RO_DEVICE, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	t0 = bench_ns();
	err = raw_add(fd, s, want, &added);
	add_s = secs(t0);
	if (err || added != want) {
		err = err ?: -EAGAIN;
		goto out;
	}
	fprintf(stderr, "probe_bench: closing %zu kprobes\n", want);
	t0 = bench_ns();
	close(fd);
	close_s = secs(t0);
	fd = -1;
	printf("bench probe_unregister kernel=%s accel=%s path=kprobe enabled=0 probes=%zu"
	       " add_s=%.3f del_s=%.3f close_s=%.3f\n", kernel, accel, want, add_s, del_s,
	       close_s);
	fflush(stdout);
out:
	if (fd >= 0)
		close(fd);
	free(s);
	free(extra);
	return err;
}

/* (e): one filter configuration of filter_run(). */
struct filter_conf {
	const char *name;
	uint64_t flags;
	pid_t pid;
	const char *comm;
	double ns;		/* fastest round */
	uint64_t hits;		/* per CALLS calls */
};

/* One probe on HOT, each configuration of @c in turn; 0 or -errno. */
static int filter_run(bool kprobe, struct filter_conf *c, size_t nc, double *base)
{
	struct kmemdev *h = open_dev();
	struct kmem_ro_probe_spec s;
	uint64_t id, count;
	int err;

	err = kmemdev_probe_spec_fill(h, &s, HOT, 0, KMEM_RO_PROBE_ENABLED);
	if (!err && kprobe)
		s.offset = after_fentry(h, s.addr);
	if (!err)
		err = kmemdev_probes_add(h, &s, 1, NULL);
	if (!err && s.result <= 0)
		err = s.result ? (int)s.result : -EPROTO;
	id = (uint64_t)s.result;
	for (int round = 0; !err && round < FILTER_ROUNDS; round++) {
		double ns;

		/* the unprobed workload takes its turn too: disabled */
		err = kmemdev_probes_disable(h, &id, 1);
		ns = err ? 0 : timed_calls();
		if (!err && (!round || ns < *base))
			*base = ns;
		if (!err)
			err = kmemdev_probes_enable(h, &id, 1);
		for (size_t i = 0; !err && i < nc; i++) {
			err = kmemdev_probe_filter(h, c[i].flags, c[i].pid, c[i].comm);
			if (!err)
				err = kmemdev_probes_stats(h, &id, 1, &count, KMEM_RO_PROBE_RESET);
			if (err < 0)
				break;
			ns = timed_calls();
			err = kmemdev_probes_stats(h, &id, 1, &count, 0);
			if (err < 0)
				break;
			err = 0;
			if (!round || ns < c[i].ns)
				c[i].ns = ns;
			c[i].hits = count / REPS;
		}
	}
	if (err < 0)
		fprintf(stderr, "probe_bench: filter: %s\n",
			kmemdev_strerror(KMEMDEV_OP_PROBES, err));
	kmemdev_close(h);
	return err < 0 ? err : 0;
}

static void filter_runs(void)
{
	char comm[KMEM_RO_PROBE_COMM_LEN] = "";
	FILE *f = fopen("/proc/self/comm", "re");

	if (!f || !fgets(comm, sizeof(comm), f)) {
		fprintf(stderr, "probe_bench: filter: no /proc/self/comm\n");
		if (f)
			fclose(f);
		return;
	}
	fclose(f);
	comm[strcspn(comm, "\n")] = '\0';
	for (int kprobe = 0; kprobe < 2; kprobe++) {
		struct filter_conf c[] = {
			{ "none", 0, 0, NULL, 0, 0 },
			{ "pid_match", KMEM_RO_PROBE_FILTER_PID, getpid(), NULL, 0, 0 },
			{ "pid_miss", KMEM_RO_PROBE_FILTER_PID, 1, NULL, 0, 0 },
			{ "comm_match", KMEM_RO_PROBE_FILTER_COMM, 0, comm, 0, 0 },
			{ "comm_miss", KMEM_RO_PROBE_FILTER_COMM, 0, "no_such_task", 0, 0 },
			{ "both_match", KMEM_RO_PROBE_FILTER_PID | KMEM_RO_PROBE_FILTER_COMM,
			  getpid(), comm, 0, 0 },
		};
		size_t nc = sizeof(c) / sizeof(c[0]);
		double base = 0, none;

		if (filter_run(kprobe, c, nc, &base))
			return;
		none = c[0].ns - base;
		printf("bench probe_filter kernel=%s accel=%s path=%s calls=%d rounds=%d"
		       " base_ns_per_call=%.1f", kernel, accel, kprobe ? "kprobe" : "ftrace",
		       CALLS, FILTER_ROUNDS, base);
		for (size_t i = 0; i < nc; i++)
			printf(" %s_added_ns=%.1f %s_hits=%llu", c[i].name, c[i].ns - base,
			       c[i].name, (unsigned long long)c[i].hits);
		for (size_t i = 1; i < nc; i++)
			printf(" ratio_%s=%.2f", c[i].name,
			       none > 0 ? (c[i].ns - base) / none : 0.0);
		printf("\n");
		fflush(stdout);
	}
}

int main(int argc, char **argv)
{
	static const size_t sizes[] = { 100, 2000, 8000 };
	static const char *const names[] = { "100", "2k", "8k" };
	struct ftrace_run fr[3], all, off;
	const char *part;
	struct tracefs_run tr;
	struct utsname u;
	size_t listed = 0, i;
	uint64_t *cand_hits;
	double base, again, prev_s;
	int err;

	part = argc > 1 ? argv[1] : getenv("BENCH_PROBE_PART");
	uname(&u);
	kernel = u.release;
	accel = getenv("VM_ACCEL") ? getenv("VM_ACCEL") : "unknown";
	if (access(TRACEFS "/kprobe_events", F_OK))
		mount("tracefs", TRACEFS, "tracefs", 0, NULL);

	err = build_candidates(&listed);
	if (err) {
		fprintf(stderr, "probe_bench: candidates: %s\n",
			kmemdev_strerror(KMEMDEV_OP_ANY, err));
		return 1;
	}
	printf("bench probe_candidates kernel=%s accel=%s"
	       " available_filter_functions=%zu candidates=%zu\n",
	       kernel, accel, listed, ncands);
	fflush(stdout);
	if (part && !strcmp(part, "unregister"))
		return unregister_run(argc > 2 ? strtoul(argv[2], NULL, 0) : UNREG_PROBES) ? 1 : 0;
	if (part && !strcmp(part, "filter")) {
		filter_runs();
		return 0;
	}

	base = ns_per_call();
	/* Every candidate enabled: also tells which ones the workload runs. */
	cand_hits = calloc(ncands, sizeof(*cand_hits));
	if (!cand_hits || ftrace_run(ncands, false, false, "all", &all, cand_hits))
		return 1;
	print_ftrace("ftrace", "all", &all, base);
	workload_first(cand_hits);
	if (part && !strcmp(part, "kprobe")) {
		sleep(SETTLE_S);
		kprobe_runs(base);
		return 0;
	}
	/*
	 * Freeing tens of thousands of ftrace hash entries goes on in RCU
	 * callbacks after close; under one-thread TCG that work would be
	 * timed with the next set.
	 */
	sleep(SETTLE_S);

	for (i = 0; i < 3; i++) {
		if (sizes[i] > ncands ||
		    ftrace_run(sizes[i], false, false, names[i], &fr[i], NULL))
			return 1;
		print_ftrace("ftrace", names[i], &fr[i], base);
	}
	kprobe_runs(base);
	/* Every candidate, registered (validated, hashed), not enabled. */
	if (ftrace_run(ncands, false, true, "all-disabled", &off, NULL))
		return 1;
	print_ftrace("ftrace", "all-disabled", &off, base);
	err = unregister_run(UNREG_PROBES);
	if (err)
		printf("bench probe_unregister kernel=%s accel=%s path=kprobe probes=%d"
		       " error=%d\n", kernel, accel, UNREG_PROBES, err);

	/* The baseline again, after all that: take the faster. */
	again = ns_per_call();
	if (again < base)
		base = again;
	print_flat("ftrace", &fr[0], &fr[2], &all, base);

	err = tracefs_run(2000, false, &tr);
	if (err)
		printf("bench probe_register kernel=%s accel=%s path=tracefs"
		       " set=2k error=%d\n", kernel, accel, err);
	else
		print_tracefs("2k", &tr, &fr[1], base);
	tracefs_cleanup(&tr);
	prev_s = tr.reg_s + tr.enable_s;

	/* Last: no cleanup (minutes for 8k); the guest powers off. */
	if (!err && !tr.capped && prev_s * 4 <= TRACEFS_CAP_S) {
		if (!tracefs_run(8000, false, &tr))
			print_tracefs("8k", &tr, &fr[2], base);
	} else if (!tracefs_run(8000, true, &tr)) {
		/*
		 * 2k took too long for 8k to finish in the time of a bench:
		 * registering alone (capped) bounds the ratio from below.
		 */
		printf("bench probe_register kernel=%s accel=%s path=tracefs"
		       " set=8k enabled=0 reason=2k-took-%.0fs probes=%zu"
		       " reached=%zu failed=%zu capped=%d cap_s=%.0f register_s=%.3f"
		       " ftrace_add_enable_s=%.3f ratio_at_least=%.1f\n", kernel, accel,
		       prev_s, tr.probes, tr.reached, tr.failed, tr.capped,
		       TRACEFS_CAP_S, tr.reg_s, fr[2].add_s,
		       fr[2].add_s > 0 ? tr.reg_s / fr[2].add_s : 0.0);
	}
	return 0;
}
