// SPDX-License-Identifier: GPL-2.0
/*
 * The parts of the probe API that need no kernel: globbing and spec
 * filling over a fixture /proc/kallsyms, argument checks made before any
 * ioctl, and how a large batch is cut into driver-sized calls.  The ioctls
 * themselves are tested in the VM (tests/vm/probe_tool_test.c).
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "probes_internal.h"

/* Text and data, duplicates, a module, 6.12 preambles, optimised clones. */
static const char fixture[] =
	"ffffffff81000000 T _text\n"
	"ffffffff81001000 t __pfx_vfs_read\n"
	"ffffffff81001010 T vfs_read\n"
	"ffffffff81002000 T vfs_write\n"
	"ffffffff81003000 t vfs_write.cold\n"
	"ffffffff81004000 t vfs_helper.isra.0\n"
	"ffffffff81005000 D vfs_data\n"
	"ffffffff81006000 t dup_fn\n"
	"ffffffff81007000 t dup_fn\n"
	"ffffffff81008000 t __do_sys_getppid\n"
	"ffffffff81008000 T __ia32_sys_getppid\n"
	"ffffffff81008000 T __x64_sys_getppid\n"
	"ffffffff81008000 D getppid_data_alias\n"
	"ffffffff81009000 T __cfi___x64_sys_getpid\n"
	"ffffffff8100a000 T __x64_sys_getpid\n"
	"ffffffff8100b000 W weak_fn\n"
	"ffffffff8100c000 r vfs_rodata\n"
	"ffffffffc0001000 t dup_fn\t[mod_a]\n"
	"ffffffffc0002000 t vfs_mod_fn\t[mod_a]\n"
	"ffffffffc0003000 d mod_only_data\t[mod_a]\n";

static char path[64];
static struct kmemdev *h;

static void write_file(const char *text)
{
	FILE *f;
	int fd;

	strcpy(path, "/tmp/probes_test.XXXXXX");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	f = fdopen(fd, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_ge(fputs(text, f), 0);
	ck_assert_int_eq(fclose(f), 0);
}

static void setup_text(const char *text)
{
	write_file(text);
	ck_assert_int_eq(kmemdev__handle_new(&h, -1), 0);
	ck_assert_int_eq(kmemdev__set_kallsyms_path(h, path), 0);
}

static void setup(void)
{
	setup_text(fixture);
}

static void teardown(void)
{
	kmemdev_close(h);
	h = NULL;
	unlink(path);
}

struct seen {
	int n;
	char names[16][64];
	const char *mods[16];
	uint64_t addrs[16];
	int stop_at;	/* return 42 at this match (1-based), 0: never */
};

static int record(const struct kmemdev_sym *sym, void *arg)
{
	struct seen *s = arg;

	ck_assert_int_lt(s->n, 16);
	snprintf(s->names[s->n], sizeof(s->names[0]), "%s", sym->name);
	s->mods[s->n] = sym->module;
	s->addrs[s->n] = sym->addr;
	s->n++;
	return s->stop_at && s->n == s->stop_at ? 42 : 0;
}

static int glob(const char *pattern, struct seen *s)
{
	memset(s, 0, sizeof(*s));
	return kmemdev_probe_glob(h, pattern, record, s);
}

START_TEST(test_glob_text_only_sorted)
{
	struct seen s;

	/* vfs_data (D), vfs_rodata (r), __pfx_, .cold: never functions. */
	ck_assert_int_eq(glob("vfs_*", &s), 4);
	ck_assert_str_eq(s.names[0], "vfs_helper.isra.0");
	ck_assert_str_eq(s.names[1], "vfs_mod_fn");
	ck_assert_str_eq(s.mods[1], "mod_a");
	ck_assert_str_eq(s.names[2], "vfs_read");
	ck_assert_ptr_null(s.mods[2]);
	ck_assert_uint_eq(s.addrs[2], 0xffffffff81001010ULL);
	ck_assert_str_eq(s.names[3], "vfs_write");
}
END_TEST

START_TEST(test_glob_preambles_and_cold)
{
	struct seen s;

	ck_assert_int_eq(glob("*vfs_read*", &s), 1);
	ck_assert_str_eq(s.names[0], "vfs_read");
	ck_assert_int_eq(glob("__pfx_*", &s), 0);
	ck_assert_int_eq(glob("*.cold", &s), 0);
	ck_assert_int_eq(glob("*getpid*", &s), 1);
	ck_assert_str_eq(s.names[0], "__x64_sys_getpid");
	/* Weak text ('W') is not one of the types the helpers take. */
	ck_assert_int_eq(glob("weak_fn", &s), 0);
}
END_TEST

START_TEST(test_glob_duplicates)
{
	struct seen s;

	/* Each copy has its own address: three places to probe. */
	ck_assert_int_eq(glob("dup_fn", &s), 3);
	ck_assert_ptr_null(s.mods[0]);
	ck_assert_ptr_null(s.mods[1]);
	ck_assert_str_eq(s.mods[2], "mod_a");
	ck_assert_uint_eq(s.addrs[0], 0xffffffff81006000ULL);
	ck_assert_uint_eq(s.addrs[1], 0xffffffff81007000ULL);
}
END_TEST

START_TEST(test_glob_syntax)
{
	struct seen s;

	ck_assert_int_eq(glob("__x64_sys_get*pid", &s), 2);
	ck_assert_int_eq(glob("__x64_sys_getp?id", &s), 1);
	ck_assert_int_eq(glob("__x64_sys_getp[p]id", &s), 1);
	ck_assert_str_eq(s.names[0], "__x64_sys_getppid");
	ck_assert_int_eq(glob("*", &s), 12);
	ck_assert_int_eq(glob("vfs_read", &s), 1);
	ck_assert_int_eq(glob("vfs_rea", &s), 0);
	ck_assert_int_eq(glob("nothing*", &s), 0);
	/* An escaped wildcard is literal; the prefix search stops before it. */
	ck_assert_int_eq(glob("vfs\\_read", &s), 1);
	ck_assert_int_eq(glob("vfs_\\*", &s), 0);
}
END_TEST

START_TEST(test_glob_callback)
{
	struct seen s;

	ck_assert_int_eq(kmemdev_probe_glob(h, "*", NULL, NULL), 12);
	memset(&s, 0, sizeof(s));
	s.stop_at = 2;
	ck_assert_int_eq(kmemdev_probe_glob(h, "vfs_*", record, &s), 42);
	ck_assert_int_eq(s.n, 2);
}
END_TEST

START_TEST(test_glob_bad_args)
{
	ck_assert_int_eq(kmemdev_probe_glob(NULL, "x", NULL, NULL), -EINVAL);
	ck_assert_int_eq(kmemdev_probe_glob(h, NULL, NULL, NULL), -EINVAL);
	ck_assert_int_eq(kmemdev_probe_glob(h, "", NULL, NULL), -EINVAL);
}
END_TEST

START_TEST(test_spec_fill)
{
	struct kmem_ro_probe_spec sp;

	memset(&sp, 0xff, sizeof(sp));
	ck_assert_int_eq(kmemdev_probe_spec_fill(h, &sp, "vfs_read", 0,
						 KMEM_RO_PROBE_ENABLED), 0);
	ck_assert_uint_eq(sp.addr, 0xffffffff81001010ULL);
	ck_assert_uint_eq(sp.offset, 0);
	ck_assert_uint_eq(sp.flags, KMEM_RO_PROBE_ENABLED);
	ck_assert_str_eq(sp.name, "vfs_read");
	ck_assert_int_eq(sp.result, 0);
	/* The rest of the name buffer is zeroed: nothing leaks to the driver. */
	for (size_t i = strlen("vfs_read"); i < sizeof(sp.name); i++)
		ck_assert_int_eq(sp.name[i], 0);

	ck_assert_int_eq(kmemdev_probe_spec_fill(h, &sp, "dup_fn", 16, 0), 0);
	ck_assert_uint_eq(sp.addr, 0xffffffff81006000ULL);	/* vmlinux, lowest */
	ck_assert_uint_eq(sp.offset, 16);
	ck_assert_uint_eq(sp.flags, 0);

	ck_assert_int_eq(kmemdev_probe_spec_fill(h, &sp, "vfs_mod_fn", 0, 0), 0);
	ck_assert_uint_eq(sp.addr, 0xffffffffc0002000ULL);
}
END_TEST

START_TEST(test_spec_fill_refusals)
{
	struct kmem_ro_probe_spec sp;
	char longname[KMEM_RO_PROBE_NAME_LEN + 1];

	ck_assert_int_eq(kmemdev_probe_spec_fill(h, &sp, "vfs_data", 0, 0),
			 -ENOENT);
	ck_assert_int_eq(kmemdev_probe_spec_fill(h, &sp, "vfs_write.cold", 0, 0),
			 -ENOENT);
	ck_assert_int_eq(kmemdev_probe_spec_fill(h, &sp, "__pfx_vfs_read", 0, 0),
			 -ENOENT);
	ck_assert_int_eq(kmemdev_probe_spec_fill(h, &sp, "mod_only_data", 0, 0),
			 -ENOENT);
	ck_assert_int_eq(kmemdev_probe_spec_fill(h, &sp, "no_such_fn", 0, 0),
			 -ENOENT);
	ck_assert_int_eq(kmemdev_probe_spec_fill(h, &sp, "vfs_read", 0, 2),
			 -EINVAL);
	ck_assert_int_eq(kmemdev_probe_spec_fill(h, &sp, "", 0, 0), -EINVAL);
	ck_assert_int_eq(kmemdev_probe_spec_fill(h, NULL, "vfs_read", 0, 0),
			 -EINVAL);
	ck_assert_int_eq(kmemdev_probe_spec_fill(NULL, &sp, "vfs_read", 0, 0),
			 -EINVAL);
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	ck_assert_int_eq(kmemdev_probe_spec_fill(h, &sp, longname, 0, 0),
			 -ENAMETOOLONG);
	longname[KMEM_RO_PROBE_NAME_LEN - 1] = '\0';	/* fits, unknown */
	ck_assert_int_eq(kmemdev_probe_spec_fill(h, &sp, longname, 0, 0),
			 -ENOENT);
}
END_TEST

/* Other function names at a probe's address, for the driver's ENOENT. */
START_TEST(test_aliases)
{
	const struct kmemdev_symtab *tab;
	const struct kmemdev_sym *sym;
	const uint64_t a = 0xffffffff81008000ULL;

	/* Loads the table, which the handle then keeps. */
	ck_assert_int_eq(kmemdev_symbol_find(h, "__x64_sys_getppid", &sym), 0);
	tab = &h->syms;
	/* Global text first (file order after that), never data. */
	ck_assert_str_eq(kmemdev__probe_alias(tab, a, "__x64_sys_getppid", 0),
			 "__ia32_sys_getppid");
	ck_assert_str_eq(kmemdev__probe_alias(tab, a, "__x64_sys_getppid", 1),
			 "__do_sys_getppid");
	ck_assert_ptr_null(kmemdev__probe_alias(tab, a, "__x64_sys_getppid", 2));
	ck_assert_str_eq(kmemdev__probe_alias(tab, a, "__do_sys_getppid", 0),
			 "__ia32_sys_getppid");
	/* A name kallsyms does not show there: no guessing. */
	ck_assert_ptr_null(kmemdev__probe_alias(tab, a, "vfs_read", 0));
	ck_assert_ptr_null(kmemdev__probe_alias(tab, a, "getppid_data_alias", 0));
	ck_assert_ptr_null(kmemdev__probe_alias(tab, a + 1, "__x64_sys_getppid", 0));
	/* No alias at all. */
	ck_assert_ptr_null(kmemdev__probe_alias(tab, 0xffffffff81001010ULL,
						"vfs_read", 0));
}
END_TEST

START_TEST(test_spec_set_long_name)
{
	char name[KMEM_RO_PROBE_NAME_LEN];
	struct kmemdev_sym sym = { .addr = 1, .name = name, .type = 'T' };
	struct kmem_ro_probe_spec sp;

	memset(name, 'b', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';	/* 127 characters: fits */
	ck_assert_int_eq(kmemdev__probe_spec_set(&sp, &sym, 0, 0), 0);
	ck_assert_int_eq(sp.name[KMEM_RO_PROBE_NAME_LEN - 1], 0);
	ck_assert_int_eq(kmemdev__probe_spec_set(&sp, &sym, 0, 4), -EINVAL);
}
END_TEST

START_TEST(test_sym_ok)
{
	struct kmemdev_sym s = { .name = "f", .type = 'T' };

	ck_assert(kmemdev__probe_sym_ok(&s));
	s.type = 't';
	ck_assert(kmemdev__probe_sym_ok(&s));
	s.type = 'D';
	ck_assert(!kmemdev__probe_sym_ok(&s));
	s.type = 't';
	s.name = "f.part.0";
	ck_assert(kmemdev__probe_sym_ok(&s));
	s.name = "f.constprop.0.cold";
	ck_assert(!kmemdev__probe_sym_ok(&s));
	s.name = "__cfi_f";
	ck_assert(!kmemdev__probe_sym_ok(&s));
}
END_TEST

START_TEST(test_hidden_addresses)
{
	kmemdev_close(h);
	unlink(path);
	setup_text("0000000000000000 T vfs_read\n0000000000000000 T vfs_write\n");
	ck_assert_int_eq(kmemdev_probe_glob(h, "vfs_*", NULL, NULL), -EACCES);
}
END_TEST

START_TEST(test_chunks)
{
	const unsigned int max = KMEM_RO_PROBE_MAX_BATCH;
	unsigned int n, off, calls, sum;

	ck_assert_uint_eq(kmemdev__probe_chunk(0, 0), 0);
	ck_assert_uint_eq(kmemdev__probe_chunk(1, 0), 1);
	ck_assert_uint_eq(kmemdev__probe_chunk(max, 0), max);
	ck_assert_uint_eq(kmemdev__probe_chunk(max + 1, 0), max);
	ck_assert_uint_eq(kmemdev__probe_chunk(max + 1, max), 1);
	ck_assert_uint_eq(kmemdev__probe_chunk(5, 7), 0);
	ck_assert_uint_eq(kmemdev__probe_chunk(UINT32_MAX, 0), max);

	/* The loop the wrappers run: every item once, fewest calls. */
	for (n = 0; n < 4 * max + 3; n += max / 2 + 1) {
		calls = sum = 0;
		for (off = 0; off < n; off += kmemdev__probe_chunk(n, off)) {
			calls++;
			sum += kmemdev__probe_chunk(n, off);
		}
		ck_assert_uint_eq(sum, n);
		ck_assert_uint_eq(calls, (n + max - 1) / max);
	}
}
END_TEST

/* A handle with no device (or a driver without probes): no ioctl at all. */
START_TEST(test_no_device)
{
	struct kmem_ro_probe_spec sp = { 0 };
	struct kmem_ro_probe_info *pi = (void *)1;
	uint64_t id = 1, cnt;
	unsigned int added = 7, n = 7;

	ck_assert_int_eq(kmemdev_probes_add(h, &sp, 1, &added), -EOPNOTSUPP);
	ck_assert_uint_eq(added, 0);
	ck_assert_int_eq(kmemdev_probes_enable(h, &id, 1), -EOPNOTSUPP);
	ck_assert_int_eq(kmemdev_probes_enable_all(h), -EOPNOTSUPP);
	ck_assert_int_eq(kmemdev_probes_disable(h, &id, 1), -EOPNOTSUPP);
	ck_assert_int_eq(kmemdev_probes_disable_all(h), -EOPNOTSUPP);
	ck_assert_int_eq(kmemdev_probes_del(h, &id, 1), -EOPNOTSUPP);
	ck_assert_int_eq(kmemdev_probes_del_all(h), -EOPNOTSUPP);
	ck_assert_int_eq(kmemdev_probes_stats(h, &id, 1, &cnt, 0),
			 -EOPNOTSUPP);
	ck_assert_int_eq(kmemdev_probes_stats_all(h, NULL, 0, 0), -EOPNOTSUPP);
	ck_assert_int_eq(kmemdev_probes_list(h, KMEM_RO_PROBE_LIST_ALL_FILES,
					     &pi, &n), -EOPNOTSUPP);
	ck_assert_ptr_null(pi);
	ck_assert_uint_eq(n, 0);
	/* The feature is checked first, even with nothing to add. */
	ck_assert_int_eq(kmemdev_probes_add(h, NULL, 0, NULL), -EOPNOTSUPP);
}
END_TEST

START_TEST(test_bad_args)
{
	struct kmem_ro_probe_info *pi;
	uint64_t id = 1, cnt;
	unsigned int n;

	ck_assert_int_eq(kmemdev_probes_add(NULL, NULL, 0, NULL), -EINVAL);
	ck_assert_int_eq(kmemdev_probes_add(h, NULL, 3, NULL), -EINVAL);
	ck_assert_int_eq(kmemdev_probes_enable(NULL, NULL, 0), -EINVAL);
	ck_assert_int_eq(kmemdev_probes_enable(h, NULL, 3), -EINVAL);
	ck_assert_int_eq(kmemdev_probes_disable(h, NULL, 3), -EINVAL);
	ck_assert_int_eq(kmemdev_probes_del(h, NULL, 3), -EINVAL);
	ck_assert_int_eq(kmemdev_probes_del(NULL, &id, 0), -EINVAL);
	ck_assert_int_eq(kmemdev_probes_enable_all(NULL), -EINVAL);
	ck_assert_int_eq(kmemdev_probes_disable_all(NULL), -EINVAL);
	ck_assert_int_eq(kmemdev_probes_del_all(NULL), -EINVAL);
	/* n == 0: nothing to act on, whatever the pointer. */
	ck_assert_int_eq(kmemdev_probes_enable(h, &id, 0), 0);
	ck_assert_int_eq(kmemdev_probes_enable(h, NULL, 0), 0);
	ck_assert_int_eq(kmemdev_probes_disable(h, NULL, 0), 0);
	ck_assert_int_eq(kmemdev_probes_del(h, NULL, 0), 0);
	ck_assert_int_eq(kmemdev_probes_stats(h, &id, 0, NULL, 0), 0);
	ck_assert_int_eq(kmemdev_probes_stats(h, NULL, 0, NULL, 0), 0);
	ck_assert_int_eq(kmemdev_probes_stats(NULL, &id, 1, &cnt, 0), -EINVAL);
	ck_assert_int_eq(kmemdev_probes_stats(h, &id, 1, NULL, 0), -EINVAL);
	ck_assert_int_eq(kmemdev_probes_stats(h, NULL, 4, &cnt, 0), -EINVAL);
	ck_assert_int_eq(kmemdev_probes_stats(h, NULL, 4, NULL, 0), -EINVAL);
	ck_assert_int_eq(kmemdev_probes_stats_all(NULL, &cnt, 1, 0), -EINVAL);
	ck_assert_int_eq(kmemdev_probes_stats_all(h, NULL, 4, 0), -EINVAL);
	/* flags words: unknown bits, and ALL where *_all() is meant */
	ck_assert_int_eq(kmemdev_probes_stats(h, &id, 1, &cnt, 1ULL << 63),
			 -EINVAL);
	ck_assert_int_eq(kmemdev_probes_stats(h, &id, 1, &cnt,
					      KMEM_RO_PROBE_ALL), -EINVAL);
	ck_assert_int_eq(kmemdev_probes_stats_all(h, &cnt, 1,
						  KMEM_RO_PROBE_ALL), -EINVAL);
	ck_assert_int_eq(kmemdev_probes_list(h, 1ULL << 63, &pi, &n), -EINVAL);
	ck_assert_int_eq(kmemdev_probes_list(NULL, 0, &pi, &n), -EINVAL);
	ck_assert_int_eq(kmemdev_probes_list(h, 0, NULL, &n), -EINVAL);
	ck_assert_int_eq(kmemdev_probes_list(h, 0, &pi, NULL), -EINVAL);
}
END_TEST

static Suite *probes_suite(void)
{
	Suite *s = suite_create("probes");
	TCase *glob_tc = tcase_create("glob");
	TCase *spec = tcase_create("spec");
	TCase *args = tcase_create("args");

	tcase_add_checked_fixture(glob_tc, setup, teardown);
	tcase_add_test(glob_tc, test_glob_text_only_sorted);
	tcase_add_test(glob_tc, test_glob_preambles_and_cold);
	tcase_add_test(glob_tc, test_glob_duplicates);
	tcase_add_test(glob_tc, test_glob_syntax);
	tcase_add_test(glob_tc, test_glob_callback);
	tcase_add_test(glob_tc, test_glob_bad_args);
	tcase_add_test(glob_tc, test_hidden_addresses);
	suite_add_tcase(s, glob_tc);

	tcase_add_checked_fixture(spec, setup, teardown);
	tcase_add_test(spec, test_spec_fill);
	tcase_add_test(spec, test_spec_fill_refusals);
	tcase_add_test(spec, test_aliases);
	tcase_add_test(spec, test_spec_set_long_name);
	tcase_add_test(spec, test_sym_ok);
	suite_add_tcase(s, spec);

	tcase_add_checked_fixture(args, setup, teardown);
	tcase_add_test(args, test_chunks);
	tcase_add_test(args, test_no_device);
	tcase_add_test(args, test_bad_args);
	suite_add_tcase(s, args);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(probes_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
