// SPDX-License-Identifier: GPL-2.0
/*
 * kmemctl probe: hit counts of kernel functions through the driver's bulk
 * probes - live (top), around one command (count), and every probe of
 * every open file (list).  Probes belong to kmemctl's open file: they
 * vanish when it exits, whatever the way.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "json.h"
#include "kmemctl.h"
#include "live.h"
#include "parse.h"
#include "stop.h"

#define TOP_DEFAULT	20
/* The driver's module: its functions count the tool's own work. */
#define SELF_MODULE	"kmem_ro"

/* One probed place: a spec the driver gave an id, and its function group. */
struct ent {
	uint64_t id;
	size_t group;
};

/* Places with one name (duplicate static functions, offsets) count as one. */
struct group {
	const char *name;
	const char *module;	/* NULL: vmlinux */
	uint64_t hits;		/* this interval */
	uint64_t total;
};

struct session {
	struct kmemdev *h;
	struct kmem_ro_probe_spec *specs;
	const char **mods;	/* per spec: its module, NULL for vmlinux */
	size_t nspecs, cap;
	uint32_t offset;	/* of the pattern being expanded */
	bool glob;		/* the pattern has wildcards */
	bool include_self;	/* --include-self */
	size_t matched;		/* names matched, before removing repeats */
	size_t self_skipped;	/* kmem_ro's own functions a glob matched */
	struct ent *ents;
	size_t nents;
	struct group *groups;
	size_t ngroups;
	uint64_t *ids, *counts;
	unsigned int added;
	/* refusals: errno -> count */
	unsigned int refused[256];
	unsigned int refused_other;
};

struct opts {
	bool json, verbose, top_given, include_self;
	uint64_t top;		/* --top; TOP_UNSET until given */
	const char *interval_arg;	/* --interval, parsed into interval */
	double interval;
	uint64_t count;
	const char *file;
	const char *output;	/* -o: the report goes there, not to stdout */
	FILE *out;
	uint64_t filter;	/* KMEM_RO_PROBE_FILTER_* */
	uint64_t pid;		/* --pid; 0: none */
	const char *comm;
};

/* o.top before the command line: no --top (its range stops at LONG_MAX). */
#define TOP_UNSET	UINT64_MAX

static void help(void)
{
	printf("Usage: kmemctl [--device PATH] probe top PATTERN...|--file F "
	       "[--interval S] [--count N]\n"
	       "                                    [--top N] [--json] "
	       "[--verbose] [FILTER] [--output F]\n"
	       "       kmemctl [--device PATH] probe count PATTERN...|--file F "
	       "[--top N] [--json]\n"
	       "                                    [--verbose] [FILTER] "
	       "[--output F] -- COMMAND [ARGS...]\n"
	       "       kmemctl [--device PATH] probe list [--json]\n"
	       "FILTER: [--pid PID] [--comm NAME] [--include-self] (what is "
	       "probed and counted)\n"
	       "Count calls of kernel functions with kmem_ro's bulk probes.\n"
	       "  top    probe the functions, print the busiest of them every "
	       "interval (hits\n"
	       "         in that interval, and since start), until --count "
	       "intervals or SIGINT;\n"
	       "         on a terminal one screen redrawn in place, sorted by "
	       "rate (hits/s),\n"
	       "         the interval at the top, q to quit\n"
	       "  count  probe the functions, run COMMAND, print the hits "
	       "while it ran;\n"
	       "         the exit status is COMMAND's (128+N if killed by "
	       "signal N)\n"
	       "  list   every probe of every open file of the device: owner "
	       "PID, id,\n"
	       "         function+offset, state, backend (ftrace or kprobe), "
	       "hits\n"
	       "PATTERN is a glob over kernel function names (text symbols of "
	       "/proc/kallsyms,\n"
	       "modules included; '__pfx_'/'__cfi_' preambles and '.cold' "
	       "parts skipped),\n"
	       "optionally NAME+OFF for a probe OFF bytes into each match "
	       "(a kprobe).\n"
	       "  -f, --file F        read patterns from F, one per line "
	       "('#' comments; - for stdin)\n"
	       "  -i, --interval S    seconds between tables (default 1; "
	       "fractions allowed)\n"
	       "  -c, --count N       stop after N intervals\n"
	       "  -t, --top N         lines per table (default %d; 0 for "
	       "all)\n"
	       "  -j, --json          JSON: top prints one object per line "
	       "(setup, then each\n"
	       "                      interval), count and list one "
	       "document (durations\n"
	       "                      in interval_ms, elapsed_ms)\n"
	       "  -v, --verbose       name every function the driver "
	       "refused, and why\n"
	       "  -o, --output F      write the tables or JSON to F, not to "
	       "standard output\n"
	       "                      (count: COMMAND's output stays apart)\n"
	       "  -p, --pid PID       count only the calls made by process PID "
	       "(any thread)\n"
	       "  -C, --comm NAME     count only the calls made by tasks named "
	       "NAME exactly\n"
	       "                      (as /proc/PID/comm; with --pid: both "
	       "must match)\n"
	       "      --include-self  let a glob match kmem_ro's own functions "
	       "(skipped by\n"
	       "                      default: they count kmemctl's own work)\n"
	       "Counts are system-wide (every CPU, every process), as perf "
	       "stat -a counts,\n"
	       "unless --pid or --comm filter them in the driver.\n"
	       "Adding probes needs CAP_PERFMON or CAP_SYS_ADMIN (or kmem_ro "
	       "loaded with\n"
	       "probe_group=1), and a kernel whose lockdown allows kprobes.\n",
	       TOP_DEFAULT);
}

/* Short reasons for the per-spec errors of kmem_ro.h. */
static const char *refusal_text(int err)
{
	switch (err) {
	case ENOENT:
		return "address is not the start of that name (stale "
		       "kallsyms?)";
	case EEXIST:
		return "already probed by this file";
	case EINVAL:
		return "offset past the function or not on an instruction";
	case EOPNOTSUPP:
		return "not probe-able: data, notrace or blacklisted";
	case ENOMEM:
		return "out of memory";
	default:
		return strerror(err);
	}
}

static const char *errno_name(int err)
{
	const char *s = strerrorname_np(err);

	return s ? s : "E?";
}

static int parse_seconds(const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(*v) || *v < 0.001 ||
	    *v > 86400.0)
		return -EINVAL;
	return 0;
}

/*
 * kmemdev_probe_glob() callback: one spec per matching function.  A glob
 * skips kmem_ro's own functions unless --include-self: kmemctl's own
 * ioctls would count in them.  A name without wildcards is taken as asked.
 */
static int collect(const struct kmemdev_sym *sym, void *arg)
{
	struct session *s = arg;
	struct kmem_ro_probe_spec *sp;
	int err;

	s->matched++;
	if (s->glob && !s->include_self && sym->module &&
	    !strcmp(sym->module, SELF_MODULE)) {
		s->self_skipped++;
		return 0;
	}
	if (s->nspecs == s->cap) {
		size_t ncap = s->cap ? s->cap * 2 : 1024;
		void *p = realloc(s->specs, ncap * sizeof(*s->specs));
		void *q;

		if (!p)
			return -ENOMEM;
		s->specs = p;
		q = realloc(s->mods, ncap * sizeof(*s->mods));
		if (!q)
			return -ENOMEM;
		s->mods = q;
		s->cap = ncap;
	}
	sp = &s->specs[s->nspecs];
	err = kmemdev_probe_spec_fill(s->h, sp, sym->name, s->offset,
				      KMEM_RO_PROBE_ENABLED);
	if (err == -ENAMETOOLONG || err == -ENOENT)
		return 0;	/* the driver could not take it either */
	if (err)
		return err;
	/*
	 * Static functions of several files share a name: the library picks
	 * the first of them, the walk names each, at its own address.
	 */
	sp->addr = sym->addr;
	s->mods[s->nspecs++] = sym->module;
	return 0;
}

/* "NAME+OFF": split off OFF (decimal or 0x hex); the glob keeps the rest. */
static int split_offset(char *pat, uint32_t *off)
{
	char *plus = strrchr(pat, '+');
	uint64_t v;

	*off = 0;
	if (!plus)
		return 0;
	if (plus == pat || parse_u64(plus + 1, 0, UINT32_MAX, &v))
		return -EINVAL;
	*plus = '\0';
	*off = (uint32_t)v;
	return 0;
}

static int expand(struct session *s, const char *pattern)
{
	size_t skipped = s->self_skipped;
	char *pat = strdup(pattern);
	int n;

	if (!pat)
		return -ENOMEM;
	if (split_offset(pat, &s->offset)) {
		free(pat);
		kmemctl_usage_err("probe: bad offset in '%s'", pattern);
		return -EINVAL;
	}
	s->glob = strpbrk(pat, "*?[") != NULL;
	n = kmemdev_probe_glob(s->h, pat, collect, s);
	skipped = s->self_skipped - skipped;
	if (n < 0) {
		kmemctl_err(KMEMDEV_OP_SYMBOL, n, "probe: match '%s'", pattern);
	} else if (n == 0) {
		kmemctl_fail("probe: match '%s': no kernel function matches",
			     pattern);
	} else if ((size_t)n == skipped) {
		kmemctl_fail("probe: match '%s': only kmem_ro's own functions "
			     "match (--include-self probes them)", pattern);
	}
	free(pat);
	return n < 0 ? n : 0;
}

static int expand_file(struct session *s, const char *path)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "re") : stdin;
	char *line = NULL;
	size_t sz = 0;
	int err = 0;

	if (!f) {
		err = -errno;
		kmemctl_err(KMEMDEV_OP_ANY, err, "probe: open %s", path);
		return err;
	}
	while (!err && getline(&line, &sz, f) >= 0) {
		char *p = line + strspn(line, " \t"), *e;

		e = p + strcspn(p, "#\n");
		while (e > p && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
			e--;
		*e = '\0';
		if (*p)
			err = expand(s, p);
	}
	if (!err && ferror(f)) {
		kmemctl_err(KMEMDEV_OP_ANY, -EIO, "probe: read %s", path);
		err = -EIO;
	}
	free(line);
	if (f != stdin)
		fclose(f);
	return err;
}

static int cmp_spec_place(const void *a, const void *b)
{
	const struct kmem_ro_probe_spec *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	return strcmp(x->name, y->name);
}

/*
 * The same place twice (two patterns matching one function, or aliases at
 * one address) would be refused as EEXIST: keep the first.  Specs and
 * their modules move together: each spec carries its old index in result
 * (ADD overwrites it) through the sort.
 */
static int dedupe(struct session *s)
{
	struct kmem_ro_probe_spec *sp;
	const char **md;
	size_t i, j = 0;

	if (!s->nspecs)
		return 0;
	sp = malloc(s->nspecs * sizeof(*sp));
	md = malloc(s->nspecs * sizeof(*md));
	if (!sp || !md) {
		free(sp);
		free(md);
		return -ENOMEM;
	}
	/* Tag each spec with its index in result (overwritten by ADD). */
	for (i = 0; i < s->nspecs; i++)
		s->specs[i].result = (int64_t)i;
	qsort(s->specs, s->nspecs, sizeof(*s->specs), cmp_spec_place);
	for (i = 0; i < s->nspecs; i++) {
		if (j && sp[j - 1].addr == s->specs[i].addr &&
		    sp[j - 1].offset == s->specs[i].offset)
			continue;
		sp[j] = s->specs[i];
		md[j] = s->mods[(size_t)s->specs[i].result];
		sp[j].result = 0;
		j++;
	}
	free(s->specs);
	free(s->mods);
	s->specs = sp;
	s->mods = md;
	s->nspecs = j;
	s->cap = j;
	return 0;
}

static int cmp_ent_name(const void *a, const void *b, void *arg)
{
	const struct session *s = arg;
	const struct ent *x = a, *y = b;
	const struct kmem_ro_probe_spec *sx = &s->specs[x->group];
	const struct kmem_ro_probe_spec *sy = &s->specs[y->group];
	const char *mx = s->mods[x->group], *my = s->mods[y->group];
	int c = strcmp(sx->name, sy->name);

	if (c)
		return c;
	if (!mx || !my)
		return (mx != NULL) - (my != NULL);
	return strcmp(mx, my);
}

/* Probes that got an id, grouped by function name (and module). */
static int build_groups(struct session *s)
{
	size_t i, n = 0;

	s->ents = calloc(s->added ? s->added : 1, sizeof(*s->ents));
	s->groups = calloc(s->added ? s->added : 1, sizeof(*s->groups));
	s->ids = calloc(s->added ? s->added : 1, sizeof(*s->ids));
	s->counts = calloc(s->added ? s->added : 1, sizeof(*s->counts));
	if (!s->ents || !s->groups || !s->ids || !s->counts)
		return -ENOMEM;
	for (i = 0; i < s->nspecs && n < s->added; i++) {
		if (s->specs[i].result <= 0)
			continue;
		s->ents[n].id = (uint64_t)s->specs[i].result;
		s->ents[n].group = i;	/* spec index until grouped */
		n++;
	}
	s->nents = n;
	qsort_r(s->ents, n, sizeof(*s->ents), cmp_ent_name, s);
	for (i = 0; i < n; i++) {
		size_t k = s->ents[i].group;
		const char *name = s->specs[k].name, *mod = s->mods[k];
		struct group *g = s->ngroups ? &s->groups[s->ngroups - 1] : NULL;

		if (!g || strcmp(g->name, name) ||
		    (g->module != mod && (!g->module || !mod ||
					   strcmp(g->module, mod))))
			g = &s->groups[s->ngroups++];
		g->name = name;
		g->module = mod;
		s->ents[i].group = (size_t)(g - s->groups);
		s->ids[i] = s->ents[i].id;
	}
	return 0;
}

static void summarize_refusals(struct session *s, bool verbose)
{
	size_t i;

	for (i = 0; i < s->nspecs; i++) {
		int64_t r = s->specs[i].result;

		if (r >= 0)
			continue;
		if (-r < (int64_t)(sizeof(s->refused) / sizeof(s->refused[0])))
			s->refused[-r]++;
		else
			s->refused_other++;
		if (verbose)
			fprintf(stderr, "kmemctl: probe: %s%s%s+0x%" PRIx32
				": %s (%s)\n", s->specs[i].name,
				s->mods[i] ? " " : "", s->mods[i] ? s->mods[i] : "",
				s->specs[i].offset, errno_name((int)-r),
				refusal_text((int)-r));
	}
}

/* "N added, M refused: K EOPNOTSUPP (why), ..." */
static void print_setup_text(const struct session *s, FILE *f)
{
	size_t e, refused = s->nspecs - s->added;
	const char *sep = ": ";

	fprintf(f, "probes: %zu functions matched, %u added, %zu refused",
		s->nspecs, s->added, refused);
	for (e = 1; e < sizeof(s->refused) / sizeof(s->refused[0]); e++) {
		if (!s->refused[e])
			continue;
		fprintf(f, "%s%u %s (%s)", sep, s->refused[e],
			errno_name((int)e), refusal_text((int)e));
		sep = ", ";
	}
	if (s->refused_other)
		fprintf(f, "%s%u other", sep, s->refused_other);
	if (s->self_skipped)
		fprintf(f, "; %zu of kmem_ro's own skipped (--include-self)",
			s->self_skipped);
	fputc('\n', f);
}

static void json_setup_members(struct json *j, const struct session *s,
			       const struct opts *o)
{
	size_t e;

	json_u64(j, "matched", s->nspecs);
	json_u64(j, "added", s->added);
	json_u64(j, "refused", s->nspecs - s->added);
	json_object_begin(j, "refused_by_errno");
	for (e = 1; e < sizeof(s->refused) / sizeof(s->refused[0]); e++)
		if (s->refused[e])
			json_u64(j, errno_name((int)e), s->refused[e]);
	if (s->refused_other)
		json_u64(j, "other", s->refused_other);
	json_object_end(j);
	json_u64(j, "self_skipped", s->self_skipped);
	if (!o->filter)
		return;
	json_object_begin(j, "filter");
	if (o->filter & KMEM_RO_PROBE_FILTER_PID)
		json_u64(j, "pid", (uint64_t)o->pid);
	if (o->filter & KMEM_RO_PROBE_FILTER_COMM)
		json_str(j, "comm", o->comm);
	json_object_end(j);
}

/*
 * May this process add probes?  Asked first with one spec the driver
 * refuses by itself (address 0, -ENOENT), so that a user without
 * CAP_PERFMON gets the one line that says what to do, not a symbol error.
 */
static int may_probe(struct session *s)
{
	struct kmem_ro_probe_spec none = { 0 };
	int err = kmemdev_probes_add(s->h, &none, 1, NULL);

	if (err)
		kmemctl_err(KMEMDEV_OP_PROBES, err, "probe");
	return err;
}

/* --pid, --comm: set in the driver before any probe counts. */
static int set_filter(struct session *s, const struct opts *o)
{
	int err;

	if (!o->filter)
		return 0;
	err = kmemdev_probe_filter(s->h, o->filter, (pid_t)o->pid, o->comm);
	if (err == -EOPNOTSUPP)
		kmemctl_fail("probe: filter: the loaded kmem_ro driver has no "
			     "probe filter (KMEM_RO_FEAT_PROBE_FILTER)");
	else if (err == -ESRCH)
		kmemctl_fail("probe: filter --pid %d: no such process",
			     (int)o->pid);
	else if (err)
		kmemctl_err(KMEMDEV_OP_PROBES, err, "probe: filter");
	return err;
}

/* Expand every pattern, add and enable everything in one batch. */
static int setup(struct session *s, char **pats, int npats,
		 const struct opts *o)
{
	int err, i;

	err = may_probe(s);
	if (!err)
		err = set_filter(s, o);
	s->include_self = o->include_self;
	for (i = 0; i < npats && !err; i++)
		err = expand(s, pats[i]);
	if (!err && o->file)
		err = expand_file(s, o->file);
	if (err)
		return err == -EINVAL ? KMEMCTL_EXIT_USAGE : KMEMCTL_EXIT_ERROR;
	err = dedupe(s);
	if (err) {
		kmemctl_err(KMEMDEV_OP_ANY, err, "probe: sort the matches");
		return KMEMCTL_EXIT_ERROR;
	}
	if (!s->nspecs) {
		kmemctl_fail("probe: nothing to probe");
		return KMEMCTL_EXIT_ERROR;
	}
	err = kmemdev_probes_add(s->h, s->specs, (unsigned int)s->nspecs,
				 &s->added);
	if (err) {
		kmemctl_err(KMEMDEV_OP_PROBES, err, "probe: add %zu probes",
			    s->nspecs);
		return KMEMCTL_EXIT_ERROR;
	}
	summarize_refusals(s, o->verbose);
	if (!s->added) {
		print_setup_text(s, stderr);
		kmemctl_fail("probe: add %zu probes: the driver refused every "
			     "probe", s->nspecs);
		return KMEMCTL_EXIT_ERROR;
	}
	if (build_groups(s)) {
		kmemctl_err(KMEMDEV_OP_ANY, -ENOMEM, "probe: group the probes");
		return KMEMCTL_EXIT_ERROR;
	}
	return KMEMCTL_EXIT_OK;
}

static void session_fini(struct session *s)
{
	free(s->specs);
	free(s->mods);
	free(s->ents);
	free(s->groups);
	free(s->ids);
	free(s->counts);
	kmemdev_close(s->h);	/* the probes go with the file */
}

/* Fold counts[] (per ent) into the groups; interval hits start over. */
static uint64_t fold(struct session *s)
{
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i < s->ngroups; i++)
		s->groups[i].hits = 0;
	for (i = 0; i < s->nents; i++) {
		struct group *g = &s->groups[s->ents[i].group];

		g->hits += s->counts[i];
		g->total += s->counts[i];
		sum += s->counts[i];
	}
	return sum;
}

static int cmp_group_hits(const void *a, const void *b, void *arg)
{
	const struct group *g = arg;
	const struct group *x = &g[*(const size_t *)a], *y = &g[*(const size_t *)b];

	if (x->hits != y->hits)
		return x->hits > y->hits ? -1 : 1;
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Groups with hits (by_total: since start), busiest first; returns how many. */
static size_t rank(struct session *s, size_t *order, bool by_total)
{
	size_t i, n = 0;

	for (i = 0; i < s->ngroups; i++)
		if (by_total ? s->groups[i].total : s->groups[i].hits)
			order[n++] = i;
	qsort_r(order, n, sizeof(*order), cmp_group_hits, s->groups);
	return n;
}

static void group_label(const struct group *g, char *buf, size_t sz)
{
	if (g->module)
		snprintf(buf, sz, "%s [%s]", g->name, g->module);
	else
		snprintf(buf, sz, "%s", g->name);
}

static void print_rows(FILE *f, const struct session *s, const size_t *order,
		       size_t n, long top, bool with_total)
{
	size_t i, shown = top && (size_t)top < n ? (size_t)top : n;
	char label[KMEM_RO_PROBE_NAME_LEN + 72];

	if (with_total)
		fprintf(f, "%-48s %14s %14s\n", "FUNC", "HITS", "TOTAL");
	else
		fprintf(f, "%-48s %14s\n", "FUNC", "HITS");
	for (i = 0; i < shown; i++) {
		const struct group *g = &s->groups[order[i]];

		group_label(g, label, sizeof(label));
		if (with_total)
			fprintf(f, "%-48s %14" PRIu64 " %14" PRIu64 "\n", label,
				g->hits, g->total);
		else
			fprintf(f, "%-48s %14" PRIu64 "\n", label, g->total);
	}
	if (shown < n)
		fprintf(f, "... %zu more functions with hits\n", n - shown);
}

static void json_rows(struct json *j, const struct session *s,
		      const size_t *order, size_t n, long top, bool interval)
{
	size_t i, shown = top && (size_t)top < n ? (size_t)top : n;

	json_array_begin(j, "functions");
	for (i = 0; i < shown; i++) {
		const struct group *g = &s->groups[order[i]];

		json_object_begin(j, NULL);
		json_str(j, "name", g->name);
		if (g->module)
			json_str(j, "module", g->module);
		if (interval)
			json_u64(j, "hits", g->hits);
		json_u64(j, "total", g->total);
		json_object_end(j);
	}
	json_array_end(j);
	json_u64(j, "functions_with_hits", n);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Sleep until the absolute monotonic time @ns; false if a signal came. */
static bool sleep_until(uint64_t ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(ns / 1000000000ULL),
		.tv_nsec = (long)(ns % 1000000000ULL),
	};

	while (!stop_sig) {
		int r = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);

		if (!r)
			return !stop_sig;
		if (r != EINTR)
			return false;
	}
	return false;
}

/* One screen of the live view: a title, a summary, the busiest functions. */
static void live_frame(const struct session *s, const struct opts *o,
		       const size_t *order, size_t n, long interval,
		       uint64_t sum, double secs)
{
	size_t i, shown, room;
	int rows, cols, fw;
	char label[KMEM_RO_PROBE_NAME_LEN + 72], hms[16];
	char *text = NULL;
	size_t len = 0;
	time_t t = time(NULL);
	FILE *f;

	live_size(&rows, &cols);
	fw = cols - 3 * 13;
	fw = fw < 16 ? 16 : fw > 64 ? 64 : fw;
	f = open_memstream(&text, &len);
	if (!f)
		return;
	strftime(hms, sizeof(hms), "%H:%M:%S", localtime(&t));
	fprintf(f, "kmemctl probe top - every %g s - %s - interval %ld"
		"    q: quit\n", o->interval, hms, interval);
	if (interval)
		fprintf(f, "%u probes, %zu functions: %" PRIu64 " hits in %.2f s "
			"(%.0f/s), %zu functions hit\n", s->added, s->ngroups,
			sum, secs, secs > 0 ? (double)sum / secs : 0.0, n);
	else
		fprintf(f, "%u probes, %zu functions: waiting for the first "
			"interval\n", s->added, s->ngroups);
	fputc('\n', f);
	fprintf(f, "%-*s %12s %12s %12s\n", fw, "FUNC", "HITS/S", "HITS",
		"TOTAL");
	room = rows > 5 ? (size_t)rows - 5 : 1;
	if (o->top_given && o->top && (size_t)o->top < room)
		room = (size_t)o->top;
	shown = n < room ? n : room;
	for (i = 0; i < shown; i++) {
		const struct group *g = &s->groups[order[i]];

		group_label(g, label, sizeof(label));
		fprintf(f, "%-*.*s %12.1f %12" PRIu64 " %12" PRIu64 "\n", fw, fw,
			label, secs > 0 ? (double)g->hits / secs : 0.0, g->hits,
			g->total);
	}
	if (shown < n)
		fprintf(f, "... %zu more functions with hits\n", n - shown);
	fclose(f);
	if (text)
		live_draw(text);
	free(text);
}

/* top on a terminal: one screen redrawn in place, sorted by rate. */
static int do_top_live(struct session *s, const struct opts *o, size_t *order)
{
	uint64_t start, prev, now, sum = 0, step = (uint64_t)(o->interval * 1e9);
	double secs = 0;
	size_t n = 0;
	long i = 0;
	int err;

	catch_stop();
	err = kmemdev_probes_stats(s->h, s->ids, (unsigned int)s->nents,
				   s->counts, KMEM_RO_PROBE_RESET);
	if (err < 0) {
		kmemctl_err(KMEMDEV_OP_PROBES, err, "probe: read counts");
		return KMEMCTL_EXIT_ERROR;
	}
	live_start(&stop_sig);
	start = prev = mono_ns();
	live_frame(s, o, order, 0, 0, 0, 0);
	for (;;) {
		enum live_event ev = live_wait(start + step * (uint64_t)(i + 1));

		if (ev == LIVE_QUIT)
			break;
		if (ev == LIVE_RESIZE) {
			live_frame(s, o, order, n, i, sum, secs);
			continue;
		}
		err = kmemdev_probes_stats(s->h, s->ids, (unsigned int)s->nents,
					   s->counts, KMEM_RO_PROBE_RESET);
		if (err < 0)
			break;
		err = 0;
		i++;
		now = mono_ns();
		secs = (double)(now - prev) / 1e9;
		prev = now;
		sum = fold(s);
		n = rank(s, order, false);
		live_frame(s, o, order, n, i, sum, secs);
		if (o->count && (uint64_t)i >= o->count)
			break;
	}
	live_stop();
	if (err < 0) {
		kmemctl_err(KMEMDEV_OP_PROBES, err, "probe: read counts");
		return KMEMCTL_EXIT_ERROR;
	}
	return KMEMCTL_EXIT_OK;
}

static int do_top(struct session *s, const struct opts *o)
{
	uint64_t start, prev, now, sum;
	size_t *order;
	long i;
	int err;

	order = malloc((s->ngroups ? s->ngroups : 1) * sizeof(*order));
	if (!order) {
		kmemctl_err(KMEMDEV_OP_ANY, -ENOMEM, "probe: rank the counts");
		return KMEMCTL_EXIT_ERROR;
	}
	if (!o->json && !o->output && live_possible()) {
		err = do_top_live(s, o, order);
		free(order);
		return err;
	}
	if (o->json) {
		struct json j;

		json_init(&j, o->out);
		json_object_begin(&j, NULL);
		json_str(&j, "event", "setup");
		json_setup_members(&j, s, o);
		json_object_end(&j);
	} else {
		print_setup_text(s, o->out);
	}
	fflush(o->out);
	catch_stop();
	/* Count from here: hits while the probes were armed do not count. */
	err = kmemdev_probes_stats(s->h, s->ids, (unsigned int)s->nents,
				   s->counts, KMEM_RO_PROBE_RESET);
	if (err > 0)
		err = 0;
	start = prev = mono_ns();
	for (i = 1; !err; i++) {
		bool more = sleep_until(start +
					(uint64_t)(o->interval * 1e9 * (double)i));
		size_t n;

		/* the last record is "final", whatever ended the run */
		if (o->count && (uint64_t)i >= o->count)
			more = false;
		err = kmemdev_probes_stats(s->h, s->ids, (unsigned int)s->nents,
					   s->counts, KMEM_RO_PROBE_RESET);
		if (err < 0)
			break;
		err = 0;
		now = mono_ns();
		sum = fold(s);
		n = rank(s, order, false);
		if (o->json) {
			struct json j;

			json_init(&j, o->out);
			json_object_begin(&j, NULL);
			json_str(&j, "event", more ? "interval" : "final");
			json_u64(&j, "interval", (uint64_t)i);
			json_u64(&j, "interval_ms", (now - prev) / 1000000);
			json_u64(&j, "hits", sum);
			json_rows(&j, s, order, n, (long)o->top, true);
			json_object_end(&j);
		} else {
			time_t t = time(NULL);
			char hms[16];

			strftime(hms, sizeof(hms), "%H:%M:%S", localtime(&t));
			fprintf(o->out, "\n[%s] interval %ld%s: %.2f s, %" PRIu64
				" hits in %zu functions\n", hms, i,
				more ? "" : " (final)",
				(double)(now - prev) / 1e9, sum, n);
			print_rows(o->out, s, order, n, (long)o->top, true);
		}
		fflush(o->out);
		prev = now;
		if (!more)
			break;
	}
	free(order);
	if (err < 0) {
		kmemctl_err(KMEMDEV_OP_PROBES, err, "probe: read counts");
		return KMEMCTL_EXIT_ERROR;
	}
	return KMEMCTL_EXIT_OK;
}

/* Run argv, wait for it; its exit status as a shell reports it. */
static int run_command(char **argv, int *status)
{
	struct sigaction ign = { .sa_handler = SIG_IGN }, old_int, old_quit;
	pid_t pid;
	int ws;

	fflush(NULL);
	sigemptyset(&ign.sa_mask);
	/* ^C is for the command, as with time(1) and perf stat. */
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	pid = fork();
	if (pid < 0) {
		int e = errno;

		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGQUIT, &old_quit, NULL);
		return -e;
	}
	if (!pid) {
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGQUIT, &old_quit, NULL);
		execvp(argv[0], argv);
		fprintf(stderr, "kmemctl: probe: run %s: %s\n", argv[0],
			strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	while (waitpid(pid, &ws, 0) < 0) {
		if (errno != EINTR) {
			int e = errno;

			sigaction(SIGINT, &old_int, NULL);
			sigaction(SIGQUIT, &old_quit, NULL);
			return -e;
		}
	}
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	*status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
	return 0;
}

static int do_count(struct session *s, const struct opts *o, char **cmd)
{
	uint64_t t0, t1, sum;
	size_t *order, n;
	int status = 0, err;

	order = malloc((s->ngroups ? s->ngroups : 1) * sizeof(*order));
	if (!order) {
		kmemctl_err(KMEMDEV_OP_ANY, -ENOMEM, "probe: rank the counts");
		return KMEMCTL_EXIT_ERROR;
	}
	if (!o->json)
		print_setup_text(s, stderr);
	/* Start from zero: arming took a while and hits came meanwhile. */
	err = kmemdev_probes_stats(s->h, s->ids, (unsigned int)s->nents,
				   s->counts, KMEM_RO_PROBE_RESET);
	if (err < 0) {
		free(order);
		kmemctl_err(KMEMDEV_OP_PROBES, err, "probe: read counts");
		return KMEMCTL_EXIT_ERROR;
	}
	t0 = mono_ns();
	err = run_command(cmd, &status);
	if (err < 0) {
		free(order);
		kmemctl_err(KMEMDEV_OP_ANY, err, "probe: run %s", cmd[0]);
		return KMEMCTL_EXIT_ERROR;
	}
	err = kmemdev_probes_stats(s->h, s->ids, (unsigned int)s->nents,
				   s->counts, 0);
	t1 = mono_ns();
	if (err < 0) {
		free(order);
		kmemctl_err(KMEMDEV_OP_PROBES, err, "probe: read counts");
		return KMEMCTL_EXIT_ERROR;
	}
	sum = fold(s);
	n = rank(s, order, true);
	if (o->json) {
		struct json j;
		int i;

		json_init(&j, o->out);
		json_object_begin(&j, NULL);
		json_array_begin(&j, "command");
		for (i = 0; cmd[i]; i++)
			json_str(&j, NULL, cmd[i]);
		json_array_end(&j);
		json_u64(&j, "exit_status", (uint64_t)status);
		json_u64(&j, "elapsed_ms", (t1 - t0) / 1000000);
		json_setup_members(&j, s, o);
		json_u64(&j, "hits", sum);
		json_rows(&j, s, order, n, (long)o->top, false);
		json_object_end(&j);
	} else {
		fprintf(o->out, "\n Probe hits (%s) while running '%s':"
			" %.3f s, %" PRIu64 " hits in %zu of %zu functions\n\n",
			o->filter ? "filtered" : "system-wide", cmd[0],
			(double)(t1 - t0) / 1e9, sum, n, s->ngroups);
		print_rows(o->out, s, order, n, (long)o->top, false);
	}
	free(order);
	return status;
}

/* "gone": its module was unloaded; it keeps its id and count until DEL. */
static const char *probe_state(uint32_t flags)
{
	if (flags & KMEM_RO_PROBE_GONE)
		return "gone";
	return flags & KMEM_RO_PROBE_ENABLED ? "enabled" : "disabled";
}

static int probe_list(const struct kmemctl *ctx, const struct opts *o)
{
	struct kmem_ro_probe_info *pi;
	unsigned int n, i;
	struct kmemdev *h;
	int err;

	h = kmemctl_open_dev(ctx, "probe list",
			     "/proc/kcore has no probes to list");
	if (!h)
		return KMEMCTL_EXIT_ERROR;
	err = kmemdev_probes_list(h, KMEM_RO_PROBE_LIST_ALL_FILES, &pi, &n);
	if (err) {
		kmemctl_err(KMEMDEV_OP_PROBES, err, "probe list: list probes");
		kmemdev_close(h);
		return KMEMCTL_EXIT_ERROR;
	}
	if (o->json) {
		struct json j;

		json_init(&j, stdout);
		json_array_begin(&j, NULL);
		for (i = 0; i < n; i++) {
			char name[KMEM_RO_PROBE_NAME_LEN];

			snprintf(name, sizeof(name), "%.*s",
				 KMEM_RO_PROBE_NAME_LEN - 1, pi[i].name);
			json_object_begin(&j, NULL);
			json_u64(&j, "owner", pi[i].owner);
			json_u64(&j, "id", pi[i].id);
			json_str(&j, "function", name);
			json_u64(&j, "offset", pi[i].offset);
			json_hex(&j, "addr", pi[i].addr);
			json_str(&j, "state", probe_state(pi[i].flags));
			json_str(&j, "backend", pi[i].flags & KMEM_RO_PROBE_KPROBE ?
				 "kprobe" : "ftrace");
			json_u64(&j, "hits", pi[i].hits);
			json_object_end(&j);
		}
		json_array_end(&j);
	} else {
		printf("%7s %8s %-48s %-8s %-7s %14s\n", "OWNER", "ID",
		       "FUNCTION", "STATE", "BACKEND", "HITS");
		for (i = 0; i < n; i++) {
			char fn[KMEM_RO_PROBE_NAME_LEN + 16];

			snprintf(fn, sizeof(fn), "%.*s+0x%" PRIx32,
				 KMEM_RO_PROBE_NAME_LEN - 1, pi[i].name,
				 pi[i].offset);
			printf("%7" PRIu32 " %8" PRIu64 " %-48s %-8s %-7s %14"
			       PRIu64 "\n", pi[i].owner, (uint64_t)pi[i].id, fn,
			       probe_state(pi[i].flags),
			       pi[i].flags & KMEM_RO_PROBE_KPROBE ? "kprobe" :
			       "ftrace", (uint64_t)pi[i].hits);
		}
	}
	free(pi);
	kmemdev_close(h);
	return KMEMCTL_EXIT_OK;
}

/* --comm's limit as errors say it: the kernel's TASK_COMM_LEN less the NUL. */
#define COMM_RANGE	"a task name has at most 15 bytes"
_Static_assert(KMEM_RO_PROBE_COMM_LEN == 16, "COMM_RANGE names the limit");

/* After kmemctl_parse(): --interval, and what the options imply. */
static int check_opts(struct opts *o, const char *sub, bool is_top)
{
	if (o->interval_arg && parse_seconds(o->interval_arg, &o->interval))
		return kmemctl_bad_value("probe", "interval", o->interval_arg,
					 "seconds, 0.001 to 86400");
	if (o->pid)
		o->filter |= KMEM_RO_PROBE_FILTER_PID;
	if (o->comm)
		o->filter |= KMEM_RO_PROBE_FILTER_COMM;
	o->top_given = o->top != TOP_UNSET;
	if (!is_top && (o->count || o->interval != 1.0))
		return kmemctl_usage_err("probe %s: --interval and --count are "
					 "for top", sub);
	return 0;
}

int kmemctl_probe(const struct kmemctl *ctx, int argc, char **argv)
{
	static const struct kmemctl_opt opts[] = {
		KMEMCTL_STR("file", 'f', struct opts, file),
		KMEMCTL_STR("interval", 'i', struct opts, interval_arg),
		KMEMCTL_U64("count", 'c', struct opts, count, 1, LONG_MAX, NULL,
			    "a count from 1"),
		KMEMCTL_U64("top", 't', struct opts, top, 0, LONG_MAX, NULL,
			    "0 (all) or more"),
		KMEMCTL_FLAG("verbose", 'v', struct opts, verbose),
		KMEMCTL_STR("output", 'o', struct opts, output),
		KMEMCTL_U64("pid", 'p', struct opts, pid, 1, INT_MAX, NULL,
			    "a process id from 1"),
		KMEMCTL_STR_MAX("comm", 'C', struct opts, comm,
				KMEM_RO_PROBE_COMM_LEN - 1, COMM_RANGE),
		KMEMCTL_FLAG("include-self", 0, struct opts, include_self),
		{ NULL }
	};
	static const struct kmemctl_cli cli = {
		.verb = "probe", .help = help, .opts = opts, .max = -1,
	};
	struct opts o = { .interval = 1.0, .top = TOP_UNSET, .out = stdout };
	struct session s = { 0 };
	char **cmd = NULL;
	const char *sub;
	int i, nargs, rc;
	bool is_top, is_count;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		if (argc < 2)
			return kmemctl_usage_err("probe: missing top, count or "
						 "list");
		help();
		return KMEMCTL_EXIT_OK;
	}
	sub = argv[1];
	is_top = !strcmp(sub, "top");
	is_count = !strcmp(sub, "count");
	if (!is_top && !is_count && strcmp(sub, "list"))
		return kmemctl_usage_err("probe: unknown subcommand '%s' (top, "
					 "count, list)", sub);
	argc--;
	argv++;
	/* count: options and patterns end at "--", the command follows. */
	nargs = argc;
	if (is_count) {
		bool asks_help = false;

		for (i = 1; i < argc && strcmp(argv[i], "--"); i++)
			asks_help |= !strcmp(argv[i], "--help") || !strcmp(argv[i], "-h");
		if (asks_help) {
			help();
			return KMEMCTL_EXIT_OK;
		}
		if (i >= argc || i + 1 >= argc)
			return kmemctl_usage_err("probe count: missing '-- "
						 "COMMAND'");
		nargs = i;
		cmd = argv + i + 1;
	}

	optind = 0;	/* argv moved past the subcommand: a full rescan */
	rc = kmemctl_parse(ctx, &cli, nargs, argv, &o, &o.json);
	if (rc != KMEMCTL_PARSED)
		return rc;
	rc = check_opts(&o, sub, is_top);
	if (rc)
		return rc;
	if (!is_top && !is_count) {
		if (optind < nargs || o.file || o.top_given || o.verbose ||
		    o.output || o.filter || o.include_self)
			return kmemctl_usage_err("probe list: takes only --json");
		return probe_list(ctx, &o);
	}
	if (optind >= nargs && !o.file)
		return kmemctl_usage_err("probe %s: no PATTERN and no --file",
					 sub);
	if (!o.top_given)
		o.top = is_top ? TOP_DEFAULT : 0;

	/* before the command runs: it inherits no descriptor of it */
	if (o.output) {
		o.out = fopen(o.output, "we");
		if (!o.out) {
			kmemctl_err(KMEMDEV_OP_ANY, -errno, "probe: open %s",
				    o.output);
			return KMEMCTL_EXIT_ERROR;
		}
	}
	s.h = kmemctl_open_dev(ctx, is_top ? "probe top" : "probe count",
			       "/proc/kcore cannot count calls");
	rc = s.h ? setup(&s, argv + optind, nargs - optind, &o) :
		   KMEMCTL_EXIT_ERROR;
	if (rc == KMEMCTL_EXIT_OK)
		rc = is_top ? do_top(&s, &o) : do_count(&s, &o, cmd);
	if (s.h)
		session_fini(&s);
	if (o.output && fclose(o.out) && rc == KMEMCTL_EXIT_OK) {
		kmemctl_err(KMEMDEV_OP_ANY, -errno, "probe: write %s", o.output);
		rc = KMEMCTL_EXIT_ERROR;
	}
	return rc;
}
