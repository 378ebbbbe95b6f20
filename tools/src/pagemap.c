// SPDX-License-Identifier: GPL-2.0
/* kmemctl pagemap: page-table entries of a process, as runs or counts. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json.h"
#include "kmemctl.h"
#include "pagemap_util.h"

/* Addresses at or above this are the kernel's ([vsyscall]): never walked. */
#define USER_LIMIT	(1ULL << 63)

struct pm_ctx {
	struct kmemdev *h;
	pid_t pid;		/* as given: 0 for kmemctl itself */
	uint64_t page_size;
	uint64_t pmd_pages;
	bool json, summary;
	struct json j;
	struct pm_summary sum;
	uint64_t vmas;
	bool header_done;	/* the column header is out */
	bool array_open;	/* --json runs: the '[' is out */
};

/* --json runs: open the array before the first run, not before an error. */
static void json_open_array(struct pm_ctx *c)
{
	if (!c->array_open)
		json_array_begin(&c->j, NULL);
	c->array_open = true;
}

static void help(void)
{
	printf("Usage: kmemctl [--device PATH] pagemap [--summary] [--json] "
	       "PID [START-END]\n"
	       "Page-table entries of a process, as /proc/PID/pagemap has "
	       "them, for exactly\n"
	       "[START, END) or, without a range, for every mapping of "
	       "/proc/PID/maps (each\n"
	       "printed as a header above its runs).  A run is a stretch of "
	       "pages with the\n"
	       "same flags whose frames follow on.\n"
	       "  PID            decimal; 0 or \"self\" is kmemctl itself\n"
	       "  START-END      hex, 0x optional (0x7f0000000000-0x7f0000200000 "
	       "or as in\n"
	       "                 /proc/PID/maps); widened to whole pages, END "
	       "excluded\n"
	       "  -s, --summary  counts instead of runs: pages, present, "
	       "swapped, file,\n"
	       "                 anon (present, not file), exclusive, "
	       "soft-dirty, uffd-wp,\n"
	       "                 pmd-sized runs (present, at least a PMD of "
	       "pages from a\n"
	       "                 PFN multiple of it), RSS (present pages) in "
	       "KiB\n"
	       "  -j, --json     a JSON array of runs, or one object with "
	       "--summary;\n"
	       "                 addresses and PFNs as \"0x...\" strings\n"
	       "Columns: RANGE, PAGES, STATE (present, swapped or -), TYPE "
	       "(file, anon or -),\n"
	       "EXCL (mapped exactly once), SOFT-DIRTY, UFFD-WP, PFN of the "
	       "first page (for a\n"
	       "swapped run TYPE:OFFSET of the swap entry; - when 0: no frame, "
	       "or PFNs hidden\n"
	       "because the device was opened without CAP_SYS_ADMIN).  "
	       "Another process needs\n"
	       "CAP_SYS_PTRACE.\n");
}

static const char *state_name(uint64_t f)
{
	if (f & KMEM_RO_PM_PRESENT)
		return "present";
	if (f & KMEM_RO_PM_SWAP)
		return "swapped";
	return "-";
}

static const char *type_name(uint64_t f)
{
	if (!(f & (KMEM_RO_PM_PRESENT | KMEM_RO_PM_SWAP)))
		return "-";
	return f & KMEM_RO_PM_FILE ? "file" : "anon";
}

static const char *flag_word(uint64_t f, uint64_t bit, const char *word)
{
	return f & bit ? word : "-";
}

/* "0x1234", "3:0x1a0" (swap type:offset) or "-" */
static const char *frame_str(char *buf, size_t len,
			     const struct kmem_ro_pagemap_run *r)
{
	if (!r->frame)
		return "-";
	if (r->flags & KMEM_RO_PM_PRESENT)
		snprintf(buf, len, "0x%" PRIx64, (uint64_t)r->frame);
	else if (r->flags & KMEM_RO_PM_SWAP)
		snprintf(buf, len, "%" PRIu64 ":0x%" PRIx64,
			 (uint64_t)(r->frame & 0x1f), (uint64_t)(r->frame >> 5));
	else
		snprintf(buf, len, "0x%" PRIx64, (uint64_t)r->frame);
	return buf;
}

#define ROW_FMT "%s%-29s %9s %-7s %-4s %-4s %-10s %-7s %s\n"

static void print_header(const char *indent)
{
	printf(ROW_FMT, indent, "RANGE", "PAGES", "STATE", "TYPE", "EXCL",
	       "SOFT-DIRTY", "UFFD-WP", "PFN");
}

static void print_run(const char *indent, const struct kmem_ro_pagemap_run *r,
		      uint64_t page_size)
{
	char range[64], pages[24], frame[48];
	uint64_t f = r->flags;

	snprintf(range, sizeof(range), "0x%012" PRIx64 "-0x%012" PRIx64,
		 (uint64_t)r->start, (uint64_t)(r->start + r->pages * page_size));
	snprintf(pages, sizeof(pages), "%" PRIu64, (uint64_t)r->pages);
	printf(ROW_FMT, indent, range, pages, state_name(f), type_name(f),
	       flag_word(f, KMEM_RO_PM_EXCLUSIVE, "excl"),
	       flag_word(f, KMEM_RO_PM_SOFT_DIRTY, "soft-dirty"),
	       flag_word(f, KMEM_RO_PM_UFFD_WP, "uffd-wp"),
	       frame_str(frame, sizeof(frame), r));
}

static void json_run(struct json *j, const struct kmem_ro_pagemap_run *r,
		     uint64_t page_size, const struct pm_vma *v)
{
	uint64_t f = r->flags;

	json_object_begin(j, NULL);
	json_hex(j, "start", r->start);
	json_hex(j, "end", r->start + r->pages * page_size);
	json_u64(j, "pages", r->pages);
	json_str(j, "state", *state_name(f) == '-' ? "none" : state_name(f));
	json_str(j, "type", *type_name(f) == '-' ? "none" : type_name(f));
	json_array_begin(j, "flags");
	if (f & KMEM_RO_PM_EXCLUSIVE)
		json_str(j, NULL, "exclusive");
	if (f & KMEM_RO_PM_SOFT_DIRTY)
		json_str(j, NULL, "soft-dirty");
	if (f & KMEM_RO_PM_UFFD_WP)
		json_str(j, NULL, "uffd-wp");
	json_array_end(j);
	json_hex(j, "entry_flags", f);
	/* omitted when 0: no frame, or PFNs hidden */
	if (r->frame && (f & KMEM_RO_PM_SWAP)) {
		json_u64(j, "swap_type", r->frame & 0x1f);
		json_hex(j, "swap_offset", r->frame >> 5);
	} else if (r->frame) {
		json_hex(j, "pfn", r->frame);
	}
	if (v) {
		json_str(j, "perms", v->perms);
		json_str(j, "mapping", v->path);
	}
	json_object_end(j);
}

static int walk_error(const struct pm_ctx *c, uint64_t start, uint64_t end,
		      int err)
{
	char what[96];

	if (c->pid)
		snprintf(what, sizeof(what), "PID %d", (int)c->pid);
	else
		snprintf(what, sizeof(what), "self");
	if (err == -EINVAL)
		/* the range is well formed: only user space can be wrong */
		return kmemctl_usage_err("pagemap: 0x%" PRIx64 "-0x%" PRIx64
					 " is not a user-space range", start,
					 end);
	kmemctl_err(KMEMDEV_OP_PAGEMAP, err, "pagemap: read page tables of %s",
		    what);
	return KMEMCTL_EXIT_ERROR;
}

/*
 * Describe [start, end) as runs or into the summary.  For a VMA (@v, its
 * maps line @line) the runs follow the line, indented.  Nothing is printed
 * for a range that failed.
 */
static int do_range(struct pm_ctx *c, uint64_t start, uint64_t end,
		    const struct pm_vma *v, const char *line)
{
	const char *indent = v ? "  " : "";
	struct kmem_ro_pagemap_run *runs;
	size_t n, i;
	int err;

	err = kmemdev_pagemap_runs(c->h, c->pid, start, end, &runs, &n);
	if (err)
		return walk_error(c, start, end, err);
	if (c->summary) {
		pm_summary_add(&c->sum, runs, n, c->pmd_pages);
	} else if (c->json) {
		json_open_array(c);
		for (i = 0; i < n; i++)
			json_run(&c->j, &runs[i], c->page_size, v);
	} else {
		if (!c->header_done)
			print_header(indent);
		c->header_done = true;
		if (line)
			printf("%s\n", line);
		for (i = 0; i < n; i++)
			print_run(indent, &runs[i], c->page_size);
	}
	free(runs);
	return KMEMCTL_EXIT_OK;
}

/* Every VMA of /proc/PID/maps, read whole before the first walk. */
static int do_maps(struct pm_ctx *c)
{
	char path[64], *line = NULL, **lines = NULL, **p;
	size_t cap = 0, n = 0, i, lcap = 0;
	int status = KMEMCTL_EXIT_OK;
	FILE *f;

	if (c->pid)
		snprintf(path, sizeof(path), "/proc/%d/maps", (int)c->pid);
	else
		snprintf(path, sizeof(path), "/proc/self/maps");
	f = fopen(path, "re");
	if (!f) {
		if (errno == ENOENT)
			return walk_error(c, 0, 0, -ESRCH);
		kmemctl_err(KMEMDEV_OP_ANY, -errno, "pagemap: open %s", path);
		return KMEMCTL_EXIT_ERROR;
	}
	while (getline(&line, &lcap, f) > 0) {
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			p = realloc(lines, cap * sizeof(*lines));
			if (!p) {
				status = KMEMCTL_EXIT_ERROR;
				kmemctl_err(KMEMDEV_OP_ANY, -ENOMEM,
					    "pagemap: read %s", path);
				goto out;
			}
			lines = p;
		}
		lines[n++] = line;
		line = NULL;
		lcap = 0;
	}
	if (ferror(f)) {
		kmemctl_err(KMEMDEV_OP_ANY, -errno, "pagemap: read %s", path);
		status = KMEMCTL_EXIT_ERROR;
		goto out;
	}
	for (i = 0; i < n && status == KMEMCTL_EXIT_OK; i++) {
		struct pm_vma v;

		if (pm_parse_maps_line(lines[i], &v)) {
			kmemctl_fail("pagemap: parse %s: unexpected line '%s'",
				     path, lines[i]);
			status = KMEMCTL_EXIT_ERROR;
			break;
		}
		if (v.start >= USER_LIMIT)
			continue;	/* [vsyscall]: no page tables of ours */
		c->vmas++;
		status = do_range(c, v.start, v.end, &v, lines[i]);
	}
	if (status == KMEMCTL_EXIT_OK && !c->vmas) {
		/* no maps: a kernel thread, or gone?  the driver knows */
		struct kmem_ro_pagemap_run *r;
		size_t nr;
		int err = kmemdev_pagemap_runs(c->h, c->pid, 0, c->page_size,
					       &r, &nr);

		if (err)
			status = walk_error(c, 0, c->page_size, err);
		else
			free(r);
	}
out:
	for (i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
	free(line);
	fclose(f);
	return status;
}

static void print_summary(struct pm_ctx *c, bool ranged, uint64_t start,
			  uint64_t end)
{
	const struct pm_summary *s = &c->sum;
	bool hidden = s->hidden != 0;
	uint64_t rss_kib = s->present * c->page_size / 1024;
	pid_t pid = c->pid ? c->pid : getpid();
	struct json *j = &c->j;

	if (!c->json) {
		printf("%-16s %d%s\n", "pid:", (int)pid, c->pid ? "" : " (self)");
		if (ranged)
			printf("%-16s 0x%012" PRIx64 "-0x%012" PRIx64 "\n",
			       "range:", start, end);
		else
			printf("%-16s %" PRIu64 "\n", "vmas:", c->vmas);
		printf("%-16s %" PRIu64 "\n", "runs:", s->runs);
		printf("%-16s %" PRIu64 " (%" PRIu64 " KiB)\n", "pages:",
		       s->pages, s->pages * c->page_size / 1024);
		printf("%-16s %" PRIu64 "\n", "present:", s->present);
		printf("%-16s %" PRIu64 "\n", "swapped:", s->swapped);
		printf("%-16s %" PRIu64 "\n", "file:", s->file);
		printf("%-16s %" PRIu64 "\n", "anon:", s->anon);
		printf("%-16s %" PRIu64 "\n", "exclusive:", s->exclusive);
		printf("%-16s %" PRIu64 "\n", "soft-dirty:", s->soft_dirty);
		printf("%-16s %" PRIu64 "\n", "uffd-wp:", s->uffd_wp);
		if (hidden)
			printf("%-16s - (PFNs hidden)\n", "pmd-sized runs:");
		else
			printf("%-16s %" PRIu64 "\n", "pmd-sized runs:",
			       s->pmd_runs);
		printf("%-16s %" PRIu64 " KiB\n", "rss:", rss_kib);
		return;
	}
	json_object_begin(j, NULL);
	json_u64(j, "pid", (uint64_t)pid);
	if (ranged) {
		json_hex(j, "start", start);
		json_hex(j, "end", end);
	} else {
		json_u64(j, "vmas", c->vmas);
	}
	json_u64(j, "runs", s->runs);
	json_u64(j, "pages", s->pages);
	json_u64(j, "present", s->present);
	json_u64(j, "swapped", s->swapped);
	json_u64(j, "file", s->file);
	json_u64(j, "anon", s->anon);
	json_u64(j, "exclusive", s->exclusive);
	json_u64(j, "soft_dirty", s->soft_dirty);
	json_u64(j, "uffd_wp", s->uffd_wp);
	json_str(j, "pfns", hidden ? "hidden" : "visible");
	if (!hidden)	/* unknown without PFNs */
		json_u64(j, "pmd_sized_runs", s->pmd_runs);
	json_u64(j, "rss_kib", rss_kib);
	json_object_end(j);
}

int kmemctl_pagemap(const struct kmemctl *ctx, int argc, char **argv)
{
	static const struct kmemctl_opt opts[] = {
		KMEMCTL_FLAG("summary", 's', struct pm_ctx, summary),
		{ NULL }
	};
	/* No in_order: options may follow the operands ("pagemap self --json"). */
	static const struct kmemctl_cli cli = {
		.verb = "pagemap", .help = help, .opts = opts,
		.min = 1, .max = 2, .missing = "PID",
	};
	struct pm_ctx c = { .page_size = 4096 };
	uint64_t start = 0, end = 0;
	KMEMDEV_ARG(kmem_ro_info, info);
	bool ranged = false;
	long ps = sysconf(_SC_PAGESIZE);
	int err, status;

	status = kmemctl_parse(ctx, &cli, argc, argv, &c, &c.json);
	if (status != KMEMCTL_PARSED)
		return status;
	if (pm_parse_pid(argv[optind], &c.pid))
		return kmemctl_usage_err("pagemap: bad PID '%s': use decimal "
					 "or \"self\"", argv[optind]);
	if (ps > 0)
		c.page_size = (uint64_t)ps;
	if (argc - optind == 2) {
		const char *r = argv[optind + 1];

		err = pm_parse_range(r, c.page_size, &start, &end);
		if (err)
			return kmemctl_usage_err("pagemap: bad range '%s': %s", r,
						 err == -ERANGE ?
						 "a number does not fit in 64 bits" :
						 "use START-END in hex, START "
						 "below END");
		if (end > USER_LIMIT)
			return kmemctl_usage_err("pagemap: 0x%" PRIx64 "-0x%"
						 PRIx64 " is not a user-space "
						 "range", start, end);
		ranged = true;
	}

	c.h = kmemctl_open_dev(ctx, "pagemap",
			       "/proc/kcore has no page tables");
	if (!c.h)
		return KMEMCTL_EXIT_ERROR;
	err = kmemdev_info(c.h, &info, NULL, 0);
	if (err < 0) {
		kmemctl_err(KMEMDEV_OP_INFO, err, "pagemap: query %s",
			    ctx->device);
		kmemdev_close(c.h);
		return KMEMCTL_EXIT_ERROR;
	}
	if (info.page_size)
		c.page_size = info.page_size;
	c.pmd_pages = info.pmd_size / c.page_size;

	if (c.json)
		json_init(&c.j, stdout);
	if (ranged) {
		status = do_range(&c, start, end, NULL, NULL);
	} else {
		status = do_maps(&c);
	}
	if (status == KMEMCTL_EXIT_OK && c.summary)
		print_summary(&c, ranged, start, end);
	if (c.json && !c.summary && (status == KMEMCTL_EXIT_OK || c.array_open)) {
		json_open_array(&c);	/* "[]" for a process without VMAs */
		json_array_end(&c.j);	/* and well formed after an error */
	}
	kmemdev_close(c.h);
	return status;
}
