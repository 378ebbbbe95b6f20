// SPDX-License-Identifier: GPL-2.0
/*
 * What stands on KMEM_RO_IOC_PAGEMAP: libkmemdev's kmemdev_pagemap_runs()
 * against /proc/self/pagemap (through kmemdev_pagemap_entry(), as root and
 * with PFNs hidden), and kmemctl pagemap: its JSON runs against the
 * library's, its --summary counts against pages this test touched, its
 * text output, and one-line errors with the documented exit statuses.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "kmemdev.h"
#include "vmtest.h"

#define PAGE	4096UL
#define GUARD	16		/* PROT_NONE pages on each side of a mapping */

static char out[256 << 10], err[4096];

/*
 * @pages of private anonymous memory between two PROT_NONE guards, so no
 * other mapping (malloc's included) can move into the range looked at.
 * No THP: khugepaged must not change it under the test.
 */
static char *guarded_map(size_t pages)
{
	char *p = mmap(NULL, (pages + 2 * GUARD) * PAGE, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	ck_assert_ptr_ne(p, MAP_FAILED);
	p += GUARD * PAGE;
	ck_assert_int_eq(mprotect(p, pages * PAGE, PROT_READ | PROT_WRITE), 0);
	ck_assert_int_eq(madvise(p, pages * PAGE, MADV_NOHUGEPAGE), 0);
	return p;
}

static int proc_pagemap(uint64_t start, uint64_t end, uint64_t *e)
{
	int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	size_t len = (end - start) / PAGE * 8;
	ssize_t got = fd < 0 ? -1 : pread(fd, e, len, start / PAGE * 8);

	if (fd >= 0)
		close(fd);
	return got == (ssize_t)len ? 0 : -1;
}

/*
 * kmemdev_pagemap_runs() over a mapping of 4096 pages (every other one
 * touched, a stretch of zero-page reads, a stretch written whole) and its
 * guards: back-to-back runs whose expansion is /proc/self/pagemap.
 * Returns 0 or a code saying what differed (run in a child, too).
 */
static int runs_vs_proc(void *want_pfns)
{
	const size_t pages = 4096;
	struct kmem_ro_pagemap_run *runs = NULL;
	uint64_t start, end, pos, *e;
	struct kmemdev *h;
	size_t n, i, bad = 0;
	char *p;

	if (kmemdev_open(&h, NULL))
		return 100;
	p = guarded_map(pages);
	for (i = 0; i < 2048; i += 2)
		p[i * PAGE] = 1;
	for (i = 2048; i < 2304; i++)
		(void)*(volatile char *)(p + i * PAGE);
	memset(p + 3000 * PAGE, 2, 500 * PAGE);
	start = (uintptr_t)p - GUARD * PAGE;
	end = (uintptr_t)p + (pages + GUARD) * PAGE;
	e = calloc((end - start) / PAGE, 8);
	if (!e)
		return 101;

	if (kmemdev_pagemap_runs(h, 0, start, end, &runs, &n))
		return 1;
	if (proc_pagemap(start, end, e))
		return 2;
	if (n < 1024)		/* every other page: more than a buffer's worth */
		return 3;
	for (pos = start, i = 0; i < n; i++) {
		if (runs[i].start != pos || !runs[i].pages)
			return 4;
		for (uint64_t j = 0; j < runs[i].pages; j++, pos += PAGE) {
			uint64_t ours = kmemdev_pagemap_entry(&runs[i], pos);
			uint64_t theirs = e[(pos - start) / PAGE];

			if (ours != theirs && bad++ < 5)
				fprintf(stderr, "page %#" PRIx64 ": ours %#018" PRIx64
					" /proc %#018" PRIx64 "\n", pos, ours, theirs);
		}
		/* runs are maximal: no two neighbours could be one */
		if (i && runs[i - 1].flags == runs[i].flags &&
		    kmemdev_pagemap_entry(&runs[i - 1], runs[i].start - PAGE) +
		    (runs[i].frame ? (runs[i].flags & KMEM_RO_PM_SWAP ? 32 : 1) : 0) ==
		    (runs[i].frame | runs[i].flags))
			return 5;
	}
	if (bad)
		return 6;
	if (pos != end)
		return 7;
	/* PFNs: shown to root, hidden from the rest, as /proc shows them */
	if (!!(e[GUARD] & KMEM_RO_PM_FRAME_MASK) != !!want_pfns)
		return 8;
	free(runs);
	free(e);
	kmemdev_close(h);
	return 0;
}

START_TEST(runs_expand_to_proc_pagemap_as_root)
{
	ck_assert_int_eq(runs_vs_proc((void *)1), 0);
}
END_TEST

static int runs_vs_proc_user(void *unused)
{
	(void)unused;
	prctl(PR_SET_DUMPABLE, 1);	/* setuid() hid our /proc files */
	return runs_vs_proc(NULL);
}

START_TEST(runs_expand_to_proc_pagemap_pfns_hidden)
{
	ck_assert_int_eq(vt_run_as_monitor(runs_vs_proc_user, NULL), 0);
}
END_TEST

START_TEST(library_arguments_and_backends)
{
	KMEMDEV_OPTS(kmemdev_open_opts, kc, .backend = KMEMDEV_BACKEND_KCORE);
	struct kmem_ro_pagemap_run *runs = (void *)1, one;
	KMEMDEV_ARG(kmem_ro_pagemap, a);
	struct kmemdev *h;
	size_t n = 3;

	/* kcore has no page tables to offer */
	ck_assert_int_eq(kmemdev_open(&h, &kc), 0);
	ck_assert_int_eq(kmemdev_pagemap(h, &a), -EOPNOTSUPP);
	ck_assert_int_eq(kmemdev_pagemap_runs(h, 0, 0x10000, 0x20000, &runs, &n), -EOPNOTSUPP);
	ck_assert_ptr_null(runs);
	ck_assert_uint_eq(n, 0);
	kmemdev_close(h);

	ck_assert_int_eq(kmemdev_open(&h, NULL), 0);
	/* the driver's rules come through */
	ck_assert_int_eq(kmemdev_pagemap_runs(h, 0, 0x10001, 0x20000, &runs, &n), -EINVAL);
	ck_assert_int_eq(kmemdev_pagemap_runs(h, 0, 0x10000, 0xffff800000000000ULL, &runs, &n),
			 -EINVAL);
	ck_assert_int_eq(kmemdev_pagemap_runs(h, 2, 0x10000, 0x20000, &runs, &n), -ESRCH);
	ck_assert_int_eq(kmemdev_pagemap_runs(h, 4000000, 0x10000, 0x20000, &runs, &n), -ESRCH);
	/* one call, by hand: below mmap_min_addr nothing is ever mapped */
	a = (struct kmem_ro_pagemap){
		.size = sizeof(a),
		.flags = KMEM_RO_PAGEMAP_RUNS, .start = 0x1000, .end = 0x3000,
		.buf_addr = (uintptr_t)&one, .buf_size = sizeof(one),
	};
	ck_assert_int_eq(kmemdev_pagemap(h, &a), 0);
	ck_assert_uint_eq(a.size, sizeof(a));
	ck_assert_uint_eq(a.count, 1);
	ck_assert_uint_eq(a.walk_end, 0x3000);
	ck_assert_uint_eq(one.start, 0x1000);
	ck_assert_uint_eq(one.pages, 2);
	ck_assert_uint_eq(one.flags & (KMEM_RO_PM_PRESENT | KMEM_RO_PM_SWAP), 0);
	kmemdev_close(h);
}
END_TEST

/* ---- kmemctl pagemap ---- */

struct jrun {
	uint64_t start, end, pages;
	char state[16];
};

/* The run objects of kmemctl's JSON array, in order; -1 if malformed. */
static int parse_json_runs(const char *s, struct jrun *r, int cap)
{
	int n = 0;

	if (s[0] != '[')
		return -1;
	while ((s = strstr(s, "{\"start\":\"")) && n < cap) {
		if (sscanf(s, "{\"start\":\"0x%" SCNx64 "\",\"end\":\"0x%" SCNx64
			   "\",\"pages\":%" SCNu64 ",\"state\":\"%15[a-z]\"",
			   &r[n].start, &r[n].end, &r[n].pages, r[n].state) != 4)
			return -1;
		n++;
		s++;
	}
	return n;
}

static int kmemctl(char **argv)
{
	out[0] = err[0] = '\0';
	return vt_exec(0, 0, argv, out, sizeof(out), err, sizeof(err));
}

START_TEST(kmemctl_json_runs_match_library)
{
	static struct jrun jr[64];
	char *p = guarded_map(64), pid[16], range[64];
	char *argv[] = { "kmemctl", "pagemap", pid, range, "--json", NULL };
	struct kmem_ro_pagemap_run *runs;
	struct kmemdev *h;
	uint64_t start = (uintptr_t)p, end = start + 64 * PAGE, total = 0;
	int got, known = 0;
	size_t n;

	memset(p, 1, 16 * PAGE);	/* 16 present pages, 48 never touched */
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	snprintf(range, sizeof(range), "0x%" PRIx64 "-0x%" PRIx64, start, end);
	ck_assert_msg(kmemctl(argv) == 0, "%s", err);
	ck_assert_str_eq(err, "");
	got = parse_json_runs(out, jr, 64);
	ck_assert_msg(got > 0, "%s", out);

	ck_assert_int_eq(kmemdev_open(&h, NULL), 0);
	ck_assert_int_eq(kmemdev_pagemap_runs(h, 0, start, end, &runs, &n), 0);
	ck_assert_int_eq(got, (int)n);
	for (int i = 0; i < got; i++) {
		ck_assert_uint_eq(jr[i].start, runs[i].start);
		ck_assert_uint_eq(jr[i].pages, runs[i].pages);
		ck_assert_uint_eq(jr[i].end, runs[i].start + runs[i].pages * PAGE);
		ck_assert_str_eq(jr[i].state, runs[i].flags & KMEM_RO_PM_PRESENT ?
				 "present" : "none");
		total += jr[i].pages;
		/* the known run: the 48 untouched pages, one hole */
		if (jr[i].start == start + 16 * PAGE && jr[i].pages == 48 &&
		    !strcmp(jr[i].state, "none"))
			known = 1;
	}
	ck_assert_uint_eq(total, 64);
	ck_assert_msg(known, "no 48-page hole run in %s", out);
	ck_assert_msg(strstr(out, "\"type\":\"anon\""), "%s", out);
	ck_assert_msg(strstr(out, "\"pfn\":\"0x"), "%s", out);
	free(runs);
	kmemdev_close(h);
}
END_TEST

START_TEST(kmemctl_self_is_kmemctl)
{
	static struct jrun jr[4];
	char *json[] = { "kmemctl", "pagemap", "self", "0x1000-0x3000", "--json", NULL };
	char *zero[] = { "kmemctl", "pagemap", "--json", "0", "1000-2fff", NULL };
	char *all[] = { "kmemctl", "pagemap", "self", NULL };
	char *sum[] = { "kmemctl", "pagemap", "--summary", "--json", "self", NULL };

	/* below mmap_min_addr: one run, nothing there */
	ck_assert_msg(kmemctl(json) == 0, "%s", err);
	ck_assert_int_eq(parse_json_runs(out, jr, 4), 1);
	ck_assert_uint_eq(jr[0].start, 0x1000);
	ck_assert_uint_eq(jr[0].pages, 2);
	ck_assert_str_eq(jr[0].state, "none");
	/* PID 0, options first, maps-style range rounded up to the page */
	ck_assert_msg(kmemctl(zero) == 0, "%s", err);
	ck_assert_int_eq(parse_json_runs(out, jr, 4), 1);
	ck_assert_uint_eq(jr[0].end, 0x3000);
	/* every VMA: header, then each maps line and its runs */
	ck_assert_msg(kmemctl(all) == 0, "%s", err);
	ck_assert_msg(!strncmp(out, "  RANGE ", 8), "%s", out);
	ck_assert_msg(strstr(out, " [stack]\n  0x"), "%s", out);
	ck_assert_msg(strstr(out, " present "), "%s", out);
	ck_assert_ptr_null(strstr(out, "vsyscall"));
	/* kmemctl runs: some of its own pages are present */
	ck_assert_msg(kmemctl(sum) == 0, "%s", err);
	ck_assert_int_gt(vt_json_num(out, "present"), 0);
	ck_assert_int_gt(vt_json_num(out, "vmas"), 3);
	ck_assert_int_eq(vt_json_num(out, "pid") > 1, 1);
}
END_TEST

START_TEST(kmemctl_summary_counts_touched_pages)
{
	char *p = guarded_map(64), pid[16], range[64];
	char *json[] = { "kmemctl", "pagemap", pid, range, "--summary", "--json", NULL };
	char *text[] = { "kmemctl", "pagemap", "-s", pid, range, NULL };

	memset(p + 8 * PAGE, 1, 16 * PAGE);
	(void)*(volatile char *)(p + 40 * PAGE);	/* the zero page */
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	snprintf(range, sizeof(range), "0x%" PRIxPTR "-0x%" PRIxPTR, (uintptr_t)p,
		 (uintptr_t)p + 64 * PAGE);
	ck_assert_msg(kmemctl(json) == 0, "%s", err);
	ck_assert_int_eq(vt_count_lines(out), 1);
	ck_assert_int_eq(vt_json_num(out, "pages"), 64);
	ck_assert_int_eq(vt_json_num(out, "present"), 17);
	ck_assert_int_eq(vt_json_num(out, "anon"), 17);
	ck_assert_int_eq(vt_json_num(out, "exclusive"), 16);	/* not the zero page */
	ck_assert_int_eq(vt_json_num(out, "file"), 0);
	ck_assert_int_eq(vt_json_num(out, "swapped"), 0);
	ck_assert_int_eq(vt_json_num(out, "rss_kib"), 17 * 4);
	ck_assert_int_eq(vt_json_num(out, "pmd_sized_runs"), 0);
	ck_assert_int_eq(vt_json_num(out, "pid"), getpid());
	ck_assert_msg(strstr(out, "\"pfns\":\"visible\""), "%s", out);

	ck_assert_msg(kmemctl(text) == 0, "%s", err);
	ck_assert_msg(strstr(out, "\npresent:         17\n"), "%s", out);
	ck_assert_msg(strstr(out, "\nrss:             68 KiB\n"), "%s", out);
}
END_TEST

START_TEST(kmemctl_bad_input_is_one_line)
{
	static char *const usage[][7] = {
		{ "kmemctl", "pagemap", NULL },
		{ "kmemctl", "pagemap", "abc", NULL },
		{ "kmemctl", "pagemap", "-5", NULL },
		{ "kmemctl", "pagemap", "self", "0x2000-0x1000", NULL },
		{ "kmemctl", "pagemap", "self", "0x1000-0x1000", NULL },
		{ "kmemctl", "pagemap", "self", "0x1000", NULL },
		{ "kmemctl", "pagemap", "self", "0xzz-0x2000", NULL },
		{ "kmemctl", "pagemap", "self", "0x1000-0x12345678901234567", NULL },
		{ "kmemctl", "pagemap", "self", "0x1000-0x2000", "extra", NULL },
		{ "kmemctl", "pagemap", "--bogus", "self", NULL },
		{ "kmemctl", "pagemap", "self", "0x1000-0xffff800000001000", NULL },
		/* canonical, but beyond this machine's user space: the driver says */
		{ "kmemctl", "pagemap", "self", "0x1000-0x7ffffffff000000", NULL },
	};
	static char *const runtime[][6] = {
		{ "kmemctl", "pagemap", "4000000", "0x1000-0x2000", NULL },
		{ "kmemctl", "pagemap", "4000000", "0x1000-0x2000", "--json", NULL },
		{ "kmemctl", "pagemap", "4000000", NULL },
		{ "kmemctl", "pagemap", "2", "0x1000-0x2000", NULL },
		{ "kmemctl", "--device", "/dev/kmem_ro_absent", "pagemap", "self", NULL },
	};

	for (size_t i = 0; i < sizeof(usage) / sizeof(usage[0]); i++) {
		ck_assert_msg(kmemctl((char **)usage[i]) == 2, "case %zu: %s", i, err);
		ck_assert_msg(vt_count_lines(err) == 1, "case %zu: %s", i, err);
		ck_assert_msg(!strncmp(err, "kmemctl: ", 9), "case %zu: %s", i, err);
		ck_assert_msg(out[0] == '\0', "case %zu: %s", i, out);
	}
	for (size_t i = 0; i < sizeof(runtime) / sizeof(runtime[0]); i++) {
		ck_assert_msg(kmemctl((char **)runtime[i]) == 1, "case %zu: %s", i, err);
		ck_assert_msg(vt_count_lines(err) == 1, "case %zu: %s", i, err);
		ck_assert_msg(out[0] == '\0', "case %zu: %s", i, out);
	}
	ck_assert_msg(strstr(err, "kmem_ro_absent"), "%s", err);
}
END_TEST

START_TEST(kmemctl_other_process_needs_ptrace)
{
	char *argv[] = { "kmemctl", "pagemap", "1", "0x400000-0x401000", NULL };

	ck_assert_int_eq(chown(KMEM_RO_DEVICE, 0, MONITOR_GID), 0);
	out[0] = err[0] = '\0';
	ck_assert_int_eq(vt_exec(NOBODY, MONITOR_GID, argv, out, sizeof(out), err,
				 sizeof(err)), 1);
	ck_assert_int_eq(chown(KMEM_RO_DEVICE, 0, 0), 0);
	ck_assert_int_eq(vt_count_lines(err), 1);
	ck_assert_msg(strstr(err, "CAP_SYS_PTRACE"), "%s", err);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pagemap_tool");
	TCase *tc = tcase_create("library");

	tcase_add_test(tc, runs_expand_to_proc_pagemap_as_root);
	tcase_add_test(tc, runs_expand_to_proc_pagemap_pfns_hidden);
	tcase_add_test(tc, library_arguments_and_backends);
	suite_add_tcase(s, tc);

	tc = tcase_create("kmemctl");
	tcase_add_test(tc, kmemctl_json_runs_match_library);
	tcase_add_test(tc, kmemctl_self_is_kmemctl);
	tcase_add_test(tc, kmemctl_summary_counts_touched_pages);
	tcase_add_test(tc, kmemctl_bad_input_is_one_line);
	tcase_add_test(tc, kmemctl_other_process_needs_ptrace);
	suite_add_tcase(s, tc);
	return vt_main(s);
}
