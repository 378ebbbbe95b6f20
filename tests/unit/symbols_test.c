// SPDX-License-Identifier: GPL-2.0
/* kallsyms parsing and lookups, from fixture text: no kernel needed. */
#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

/*
 * Aliases at _text, duplicate names (one whose vmlinux copy sits above the
 * module copy), modules, one out-of-order module symbol.
 */
static const char fixture[] =
	"ffffffff81000000 D data_alias\n"
	"ffffffff81000000 t local_alias\n"
	"ffffffff81000000 T _text\n"
	"ffffffff81000000 T _stext\n"
	"ffffffff81001000 T start_kernel\n"
	"ffffffff81002000 t dup_name\n"
	"ffffffff81003000 t dup_name\n"
	"ffffffff82000000 D jiffies\n"
	"ffffffffff600000 D vsys_dup\n"
	"ffffffffc0001000 t dup_name\t[mod_a]\n"
	"ffffffffc0001000 t mod_init\t[mod_a]\n"
	"ffffffffc0002000 T mod_func\t[mod_a]\n"
	"ffffffffc0003000 T other_func\t[mod_b]\n"
	"ffffffffc0000800 t early_mod\t[mod_b]\n"
	"ffffffffc0004000 t vsys_dup\t[mod_b]\n";

static struct kmemdev_symtab tab;

static int parse_text(const char *text, struct kmemdev_symtab *t)
{
	FILE *f;
	int err;

	/* A real file: fmemopen() has opinions about empty buffers. */
	f = tmpfile();
	ck_assert_ptr_nonnull(f);
	ck_assert_int_ge(fputs(text, f), 0);
	rewind(f);
	err = kmemdev__symtab_parse(f, t);
	fclose(f);
	return err;
}

static void setup_fixture(void)
{
	ck_assert_int_eq(parse_text(fixture, &tab), 0);
}

static void teardown_fixture(void)
{
	kmemdev__symtab_free(&tab);
}

static const struct kmemdev_sym *find(const char *name)
{
	const struct kmemdev_sym *s = NULL;

	ck_assert_int_eq(kmemdev__symtab_find(&tab, name, &s), 0);
	ck_assert_ptr_nonnull(s);
	return s;
}

static const struct kmemdev_sym *nearest(uint64_t addr)
{
	const struct kmemdev_sym *s = NULL;

	ck_assert_int_eq(kmemdev__symtab_nearest(&tab, addr, &s), 0);
	ck_assert_ptr_nonnull(s);
	return s;
}

START_TEST(test_count_and_order)
{
	size_t i;

	ck_assert_uint_eq(tab.count, 15);
	for (i = 1; i < tab.count; i++)
		ck_assert_uint_le(tab.by_addr[i - 1].addr, tab.by_addr[i].addr);
	for (i = 1; i < tab.count; i++)
		ck_assert_int_le(strcmp(tab.by_addr[tab.by_name[i - 1]].name,
					tab.by_addr[tab.by_name[i]].name), 0);
}
END_TEST

START_TEST(test_normal_line)
{
	const struct kmemdev_sym *s = find("start_kernel");

	ck_assert_uint_eq(s->addr, 0xffffffff81001000ULL);
	ck_assert_int_eq(s->type, 'T');
	ck_assert_str_eq(s->name, "start_kernel");
	ck_assert_ptr_null(s->module);

	s = find("jiffies");
	ck_assert_uint_eq(s->addr, 0xffffffff82000000ULL);
	ck_assert_int_eq(s->type, 'D');
}
END_TEST

START_TEST(test_module_symbols)
{
	const struct kmemdev_sym *s = find("mod_func");

	ck_assert_uint_eq(s->addr, 0xffffffffc0002000ULL);
	ck_assert_int_eq(s->type, 'T');
	ck_assert_str_eq(s->name, "mod_func");
	ck_assert_ptr_nonnull(s->module);
	ck_assert_str_eq(s->module, "mod_a");

	s = find("mod_init");
	ck_assert_int_eq(s->type, 't');
	ck_assert_str_eq(s->module, "mod_a");

	s = find("early_mod");
	ck_assert_uint_eq(s->addr, 0xffffffffc0000800ULL);
	ck_assert_str_eq(s->module, "mod_b");
	s = find("other_func");
	ck_assert_str_eq(s->module, "mod_b");
}
END_TEST

START_TEST(test_duplicate_names)
{
	/* vmlinux before the module copy, then the lowest address. */
	const struct kmemdev_sym *s = find("dup_name");

	ck_assert_uint_eq(s->addr, 0xffffffff81002000ULL);
	ck_assert_ptr_null(s->module);
	/* vmlinux wins even from a higher address. */
	s = find("vsys_dup");
	ck_assert_uint_eq(s->addr, 0xffffffffff600000ULL);
	ck_assert_ptr_null(s->module);
}
END_TEST

START_TEST(test_name_not_found)
{
	const struct kmemdev_sym *s = NULL;

	ck_assert_int_eq(kmemdev__symtab_find(&tab, "no_such_symbol", &s),
			 -ENOENT);
	ck_assert_int_eq(kmemdev__symtab_find(&tab, "dup", &s), -ENOENT);
	ck_assert_int_eq(kmemdev__symtab_find(&tab, "dup_name_", &s), -ENOENT);
	ck_assert_int_eq(kmemdev__symtab_find(&tab, "", &s), -ENOENT);
	ck_assert_int_eq(kmemdev__symtab_find(&tab, "zzz", &s), -ENOENT);
	/* The module tag is not part of the name. */
	ck_assert_int_eq(kmemdev__symtab_find(&tab, "mod_func [mod_a]", &s),
			 -ENOENT);
	ck_assert_ptr_null(s);
}
END_TEST

START_TEST(test_nearest_exact)
{
	const struct kmemdev_sym *s = nearest(0xffffffff81001000ULL);

	ck_assert_str_eq(s->name, "start_kernel");
	ck_assert_uint_eq(s->addr, 0xffffffff81001000ULL);
}
END_TEST

START_TEST(test_nearest_inside)
{
	const struct kmemdev_sym *s = nearest(0xffffffff81001fffULL);

	ck_assert_str_eq(s->name, "start_kernel");
	s = nearest(0xffffffff81002001ULL);
	ck_assert_str_eq(s->name, "dup_name");
	ck_assert_uint_eq(s->addr, 0xffffffff81002000ULL);
	/* The module listed last in the file but lowest in address. */
	s = nearest(0xffffffffc0000fffULL);
	ck_assert_str_eq(s->name, "early_mod");
}
END_TEST

START_TEST(test_nearest_aliases)
{
	/* Global text beats local text beats data; file order after that. */
	const struct kmemdev_sym *s = nearest(0xffffffff81000000ULL);

	ck_assert_str_eq(s->name, "_text");
	s = nearest(0xffffffff81000abcULL);
	ck_assert_str_eq(s->name, "_text");
	/* Two module symbols at one address: same rank, file order. */
	s = nearest(0xffffffffc0001000ULL);
	ck_assert_str_eq(s->name, "dup_name");
	ck_assert_str_eq(s->module, "mod_a");
}
END_TEST

START_TEST(test_nearest_past_last)
{
	const struct kmemdev_sym *s = nearest(UINT64_MAX);

	ck_assert_str_eq(s->name, "vsys_dup");
	ck_assert_uint_eq(s->addr, 0xffffffffff600000ULL);
	ck_assert_ptr_null(s->module);
	s = nearest(0xffffffffc0003fffULL);
	ck_assert_str_eq(s->name, "other_func");
	s = nearest(0xffffffffc0004001ULL);
	ck_assert_str_eq(s->name, "vsys_dup");
	ck_assert_str_eq(s->module, "mod_b");
}
END_TEST

START_TEST(test_nearest_before_first)
{
	const struct kmemdev_sym *s = NULL;

	ck_assert_int_eq(kmemdev__symtab_nearest(&tab, 0xffffffff80ffffffULL,
						 &s), -ENOENT);
	ck_assert_int_eq(kmemdev__symtab_nearest(&tab, 0, &s), -ENOENT);
	ck_assert_ptr_null(s);
}
END_TEST

START_TEST(test_all_zero_addresses)
{
	static const char hidden[] =
		"0000000000000000 T _text\n"
		"0000000000000000 T start_kernel\n"
		"0000000000000000 t mod_init\t[mod_a]\n";
	struct kmemdev_symtab t;

	ck_assert_int_eq(parse_text(hidden, &t), -EACCES);
	ck_assert_uint_eq(t.count, 0);
	ck_assert_ptr_null(t.by_addr);
	ck_assert_ptr_null(t.by_name);
	ck_assert_ptr_null(t.strings);
}
END_TEST

START_TEST(test_some_zero_addresses)
{
	/* Per-CPU symbols legitimately sit at offset 0. */
	static const char percpu[] =
		"0000000000000000 A fixed_percpu_data\n"
		"ffffffff81000000 T _text\n";
	struct kmemdev_symtab t;
	const struct kmemdev_sym *s;

	ck_assert_int_eq(parse_text(percpu, &t), 0);
	ck_assert_uint_eq(t.count, 2);
	ck_assert_int_eq(kmemdev__symtab_nearest(&t, 0x10, &s), 0);
	ck_assert_str_eq(s->name, "fixed_percpu_data");
	kmemdev__symtab_free(&t);
}
END_TEST

START_TEST(test_empty_file)
{
	struct kmemdev_symtab t;
	const struct kmemdev_sym *s;

	ck_assert_int_eq(parse_text("", &t), 0);
	ck_assert_uint_eq(t.count, 0);
	ck_assert_int_eq(kmemdev__symtab_find(&t, "_text", &s), -ENOENT);
	ck_assert_int_eq(kmemdev__symtab_nearest(&t, UINT64_MAX, &s), -ENOENT);
	kmemdev__symtab_free(&t);
}
END_TEST

START_TEST(test_malformed_lines)
{
	static const char text[] =
		"\n"
		"garbage\n"
		"zzzzzzzzzzzzzzzz T bad_hex\n"
		"ffffffff81000000\n"
		"ffffffff81000000 T\n"
		"ffffffff81000000 T \n"
		"ffffffff81000000 TT two_letter_type\n"
		"ffffffff81000000 T unterminated\t[mod\n"
		"ffffffff81000000 T empty_module\t[]\n"
		"ffffffff81000000 T trailing junk\n"
		"1ffffffff81000000 T seventeen_digits\n"
		" ffffffff81000000 T leading_blank\n"
		"ffffffff81000000T glued_type\n"
		"ffffffff81001000 T good_one\n"
		"ffffffffc0001000 t good_two\t[m]"; /* no final newline */
	struct kmemdev_symtab t;
	const struct kmemdev_sym *s;

	ck_assert_int_eq(parse_text(text, &t), 0);
	ck_assert_uint_eq(t.count, 2);
	ck_assert_str_eq(t.by_addr[0].name, "good_one");
	ck_assert_str_eq(t.by_addr[1].name, "good_two");
	ck_assert_str_eq(t.by_addr[1].module, "m");
	ck_assert_int_eq(kmemdev__symtab_find(&t, "trailing", &s), -ENOENT);
	ck_assert_int_eq(kmemdev__symtab_find(&t, "empty_module", &s), -ENOENT);
	kmemdev__symtab_free(&t);
}
END_TEST

START_TEST(test_long_name)
{
	/* KSYM_NAME_LEN is 512 since 6.1 (Rust symbols). */
	char name[511], *text;
	struct kmemdev_symtab t;
	const struct kmemdev_sym *s;

	memset(name, 'x', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	ck_assert_int_ge(asprintf(&text, "ffffffff81000000 T %s\n", name), 0);
	ck_assert_int_eq(parse_text(text, &t), 0);
	ck_assert_int_eq(kmemdev__symtab_find(&t, name, &s), 0);
	ck_assert_uint_eq(strlen(s->name), sizeof(name) - 1);
	kmemdev__symtab_free(&t);
	free(text);
}
END_TEST

/* A kernel-sized table: every name and address must resolve. */
START_TEST(test_large_table)
{
	enum { N = 200000 };
	struct kmemdev_symtab t;
	const struct kmemdev_sym *s;
	char *text = NULL, name[32];
	size_t len = 0;
	FILE *f;
	int i;

	f = open_memstream(&text, &len);
	ck_assert_ptr_nonnull(f);
	/* Descending addresses: the parser must sort. */
	for (i = 0; i < N; i++)
		fprintf(f, "%016" PRIx64 " t sym_%d%s\n",
			(uint64_t)(0xffffffff81000000ULL + (uint64_t)(N - i) * 16), i,
			i % 10 ? "" : "\t[big_mod]");
	fclose(f);
	ck_assert_int_eq(parse_text(text, &t), 0);
	free(text);
	ck_assert_uint_eq(t.count, N);

	for (i = 0; i < N; i += 997) {
		uint64_t addr = 0xffffffff81000000ULL + (uint64_t)(N - i) * 16;

		snprintf(name, sizeof(name), "sym_%d", i);
		ck_assert_int_eq(kmemdev__symtab_find(&t, name, &s), 0);
		ck_assert_uint_eq(s->addr, addr);
		ck_assert_int_eq(kmemdev__symtab_nearest(&t, addr + 15, &s), 0);
		ck_assert_str_eq(s->name, name);
		if (i % 10 == 0)
			ck_assert_str_eq(s->module, "big_mod");
		else
			ck_assert_ptr_null(s->module);
	}
	kmemdev__symtab_free(&t);
}
END_TEST

/* --- Through a handle, as the public API sees it. --- */

static char fixture_path[] = "/tmp/kmemdev_kallsyms_XXXXXX";

static void write_file(char *tmpl, const char *text)
{
	int fd = mkstemp(tmpl);
	size_t len = strlen(text);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, len), (ssize_t)len);
	close(fd);
}

static struct kmemdev *handle_for(const char *path)
{
	struct kmemdev *h = NULL;

	ck_assert_int_eq(kmemdev__handle_new(&h, -1), 0);
	ck_assert_int_eq(kmemdev__set_kallsyms_path(h, path), 0);
	return h;
}

static void setup_file(void)
{
	strcpy(fixture_path, "/tmp/kmemdev_kallsyms_XXXXXX");
	write_file(fixture_path, fixture);
}

static void teardown_file(void)
{
	unlink(fixture_path);
}

START_TEST(test_api_lookups)
{
	struct kmemdev *h = handle_for(fixture_path);
	const struct kmemdev_sym *s;
	uint64_t addr = 0, off = 0;

	ck_assert_int_eq(kmemdev_symbol(h, "mod_func", &addr), 0);
	ck_assert_uint_eq(addr, 0xffffffffc0002000ULL);
	ck_assert_int_eq(kmemdev_symbol(h, "no_such_symbol", &addr), -ENOENT);

	ck_assert_int_eq(kmemdev_symbol_find(h, "mod_func", &s), 0);
	ck_assert_int_eq(s->type, 'T');
	ck_assert_str_eq(s->module, "mod_a");

	ck_assert_int_eq(kmemdev_symbolize(h, 0xffffffff81001234ULL, &s,
					   &off), 0);
	ck_assert_str_eq(s->name, "start_kernel");
	ck_assert_ptr_null(s->module);		/* vmlinux */
	ck_assert_int_eq(s->type, 'T');
	ck_assert_uint_eq(s->addr, 0xffffffff81001000ULL);
	ck_assert_uint_eq(off, 0x234);
	ck_assert_int_eq(kmemdev_symbolize(h, 0xffffffff81001000ULL, &s,
					   NULL), 0);
	ck_assert_str_eq(s->name, "start_kernel");
	/* A module's symbol names its module. */
	ck_assert_int_eq(kmemdev_symbolize(h, 0xffffffffc0002010ULL, &s,
					   &off), 0);
	ck_assert_str_eq(s->name, "mod_func");
	ck_assert_str_eq(s->module, "mod_a");
	ck_assert_uint_eq(off, 0x10);
	s = (const struct kmemdev_sym *)&addr;	/* poison */
	ck_assert_int_eq(kmemdev_symbolize(h, 0x1000, &s, &off), -ENOENT);
	ck_assert_ptr_eq(s, (const struct kmemdev_sym *)&addr);	/* untouched */

	/* Loaded now: the source can no longer change under readers. */
	ck_assert_int_eq(kmemdev__set_kallsyms_path(h, "/nonexistent"), -EBUSY);
	kmemdev_close(h);
}
END_TEST

START_TEST(test_api_bad_args)
{
	struct kmemdev *h = handle_for(fixture_path);
	const struct kmemdev_sym *s;
	uint64_t addr;

	ck_assert_int_eq(kmemdev_symbol(NULL, "x", &addr), -EINVAL);
	ck_assert_int_eq(kmemdev_symbol(h, NULL, &addr), -EINVAL);
	ck_assert_int_eq(kmemdev_symbol(h, "x", NULL), -EINVAL);
	ck_assert_int_eq(kmemdev_symbol_find(h, "x", NULL), -EINVAL);
	ck_assert_int_eq(kmemdev_symbol_find(NULL, "x", &s), -EINVAL);
	ck_assert_int_eq(kmemdev_symbolize(NULL, 0, &s, NULL), -EINVAL);
	ck_assert_int_eq(kmemdev_symbolize(h, 0, NULL, NULL), -EINVAL);
	ck_assert_int_eq(kmemdev__set_kallsyms_path(NULL, "/x"), -EINVAL);
	kmemdev_close(h);
}
END_TEST

START_TEST(test_api_hidden_addresses)
{
	char path[] = "/tmp/kmemdev_kallsyms_XXXXXX";
	struct kmemdev *h;
	uint64_t addr;

	write_file(path, "0000000000000000 T _text\n"
			 "0000000000000000 T start_kernel\n");
	h = handle_for(path);
	ck_assert_int_eq(kmemdev_symbol(h, "_text", &addr), -EACCES);
	/* Sticky: the second call must not silently succeed or re-read. */
	unlink(path);
	ck_assert_int_eq(kmemdev_symbol(h, "_text", &addr), -EACCES);
	ck_assert_ptr_nonnull(strstr(kmemdev_strerror(KMEMDEV_OP_SYMBOL, -EACCES),
				     "kptr_restrict"));
	kmemdev_close(h);
}
END_TEST

START_TEST(test_api_missing_kallsyms)
{
	struct kmemdev *h = handle_for("/nonexistent/kallsyms");
	uint64_t addr;

	/* Not -ENOENT: that means "no such symbol". */
	ck_assert_int_eq(kmemdev_symbol(h, "_text", &addr), -ENODATA);
	ck_assert_ptr_nonnull(strstr(kmemdev_strerror(KMEMDEV_OP_SYMBOL, -ENODATA),
				     "/proc/kallsyms"));
	kmemdev_close(h);
}
END_TEST

/* --- kmemdev_parse_addr(): address expressions. --- */

static uint64_t parse_ok(struct kmemdev *h, const char *expr)
{
	uint64_t addr = 0xdeadbeefULL;

	ck_assert_msg(kmemdev_parse_addr(h, expr, &addr) == 0,
		      "'%s' did not parse", expr);
	return addr;
}

static void parse_fails(struct kmemdev *h, const char *expr, int err)
{
	uint64_t addr = 0xdeadbeefULL;
	int ret = kmemdev_parse_addr(h, expr, &addr);

	ck_assert_msg(ret == err, "'%s': got %d, want %d", expr, ret, err);
	ck_assert_uint_eq(addr, 0xdeadbeefULL);	/* untouched */
}

START_TEST(test_parse_hex)
{
	struct kmemdev *h = handle_for(fixture_path);

	ck_assert_uint_eq(parse_ok(h, "0xffffffff81000000"),
			  0xffffffff81000000ULL);
	ck_assert_uint_eq(parse_ok(h, "0XFFFFFFFF81000000"),
			  0xffffffff81000000ULL);
	ck_assert_uint_eq(parse_ok(h, "0xAbC"), 0xabc);
	ck_assert_uint_eq(parse_ok(h, "0x0"), 0);
	ck_assert_uint_eq(parse_ok(h, "0xffffffffffffffff"), UINT64_MAX);
	/* Leading zeros are not significant digits. */
	ck_assert_uint_eq(parse_ok(h, "0x00000000000000000001"), 1);
	ck_assert_uint_eq(parse_ok(h, "0xffffffff81000000+0x10"),
			  0xffffffff81000010ULL);
	ck_assert_uint_eq(parse_ok(h, "0xffffffff81000000-16"),
			  0xffffffff80fffff0ULL);
	kmemdev_close(h);
}
END_TEST

START_TEST(test_parse_symbol)
{
	struct kmemdev *h = handle_for(fixture_path);

	ck_assert_uint_eq(parse_ok(h, "start_kernel"), 0xffffffff81001000ULL);
	ck_assert_uint_eq(parse_ok(h, "start_kernel+0x10"),
			  0xffffffff81001010ULL);
	ck_assert_uint_eq(parse_ok(h, "start_kernel+0X1f"),
			  0xffffffff8100101fULL);
	ck_assert_uint_eq(parse_ok(h, "start_kernel+16"), 0xffffffff81001010ULL);
	ck_assert_uint_eq(parse_ok(h, "start_kernel+010"),	/* not octal */
			  0xffffffff8100100aULL);
	ck_assert_uint_eq(parse_ok(h, "start_kernel+0"), 0xffffffff81001000ULL);
	ck_assert_uint_eq(parse_ok(h, "start_kernel-0x1000"),
			  0xffffffff81000000ULL);
	ck_assert_uint_eq(parse_ok(h, "start_kernel-4096"),
			  0xffffffff81000000ULL);
	/* Same choice among duplicates as kmemdev_symbol(). */
	ck_assert_uint_eq(parse_ok(h, "dup_name+1"), 0xffffffff81002001ULL);
	ck_assert_uint_eq(parse_ok(h, "mod_func"), 0xffffffffc0002000ULL);
	kmemdev_close(h);
}
END_TEST

START_TEST(test_parse_malformed)
{
	static const char *const bad[] = {
		"", "1234", "0", "81000000", "0x",
		"0xg", "0x12 ", " 0x12", "0x-1", "0x+1", "0x1.0",
		"+0x10", "-1", "+", "-", "start_kernel+", "start_kernel-",
		"start_kernel+0x", "start_kernel+0xz", "start_kernel+1+2",
		"start_kernel-1-2", "start_kernel+-1", "start_kernel +1",
		"start_kernel+ 1", "start_kernel+1 ", " start_kernel",
		"start kernel", "start_kernel\n", "start_kernel\t",
		"start_kernel+1a", "start_kernel+0b1", "9lives",
		"mod_func [mod_a]",
	};
	struct kmemdev *h = handle_for(fixture_path);
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		parse_fails(h, bad[i], -EINVAL);
	kmemdev_close(h);
}
END_TEST

START_TEST(test_parse_range)
{
	struct kmemdev *h = handle_for(fixture_path);

	parse_fails(h, "0x1ffffffffffffffff", -ERANGE);
	parse_fails(h, "0x10000000000000000", -ERANGE);
	parse_fails(h, "0x10-0x11", -ERANGE);
	parse_fails(h, "0xffffffffffffffff+1", -ERANGE);
	parse_fails(h, "start_kernel+0xffffffffffffffff", -ERANGE);
	parse_fails(h, "start_kernel+18446744073709551615", -ERANGE);
	parse_fails(h, "start_kernel+18446744073709551616", -ERANGE);
	parse_fails(h, "start_kernel-0xffffffff81001001", -ERANGE);
	ck_assert_uint_eq(parse_ok(h, "start_kernel-0xffffffff81001000"), 0);
	ck_assert_uint_eq(parse_ok(h, "0x1+18446744073709551614"), UINT64_MAX);
	kmemdev_close(h);
}
END_TEST

START_TEST(test_parse_symbol_errors)
{
	char path[] = "/tmp/kmemdev_kallsyms_XXXXXX";
	struct kmemdev *h = handle_for(fixture_path);
	uint64_t addr;

	parse_fails(h, "no_such_symbol", -ENOENT);
	parse_fails(h, "no_such_symbol+0x10", -ENOENT);
	parse_fails(h, "start_kernel_", -ENOENT);
	parse_fails(h, "mod_func[mod_a]", -ENOENT);
	/* Hex without 0x is a name: looked up, never read as a number. */
	parse_fails(h, "ffffffff81000000", -ENOENT);
	parse_fails(h, "deadbeef+0x10", -ENOENT);
	ck_assert_int_eq(kmemdev_parse_addr(NULL, "0x1", &addr), -EINVAL);
	ck_assert_int_eq(kmemdev_parse_addr(h, NULL, &addr), -EINVAL);
	ck_assert_int_eq(kmemdev_parse_addr(h, "0x1", NULL), -EINVAL);
	kmemdev_close(h);

	/* Syntax first: neither a bad offset nor a number loads kallsyms. */
	h = handle_for("/nonexistent/kallsyms");
	parse_fails(h, "start_kernel+zz", -EINVAL);
	ck_assert_uint_eq(parse_ok(h, "0x10+0x10"), 0x20);
	parse_fails(h, "start_kernel", -ENODATA);
	kmemdev_close(h);

	write_file(path, "0000000000000000 T _text\n"
			 "0000000000000000 T start_kernel\n");
	h = handle_for(path);
	parse_fails(h, "start_kernel+0x10", -EACCES);
	unlink(path);
	kmemdev_close(h);
}
END_TEST

struct race {
	struct kmemdev *h;
	pthread_barrier_t *go;
	int err;
	uint64_t addr;
};

static void *race_thread(void *arg)
{
	struct race *r = arg;

	pthread_barrier_wait(r->go);
	r->err = kmemdev_symbol(r->h, "jiffies", &r->addr);
	return NULL;
}

/* Many first users at once: one load, every caller sees the full table. */
START_TEST(test_api_concurrent_first_use)
{
	enum { T = 8 };
	struct kmemdev *h = handle_for(fixture_path);
	pthread_barrier_t go;
	pthread_t tid[T];
	struct race r[T];
	int i;

	ck_assert_int_eq(pthread_barrier_init(&go, NULL, T), 0);
	for (i = 0; i < T; i++) {
		r[i] = (struct race){ .h = h, .go = &go, .err = 1 };
		ck_assert_int_eq(pthread_create(&tid[i], NULL, race_thread,
						&r[i]), 0);
	}
	for (i = 0; i < T; i++) {
		pthread_join(tid[i], NULL);
		ck_assert_int_eq(r[i].err, 0);
		ck_assert_uint_eq(r[i].addr, 0xffffffff82000000ULL);
	}
	pthread_barrier_destroy(&go);
	kmemdev_close(h);
}
END_TEST

static Suite *symbols_suite(void)
{
	Suite *s = suite_create("symbols");
	TCase *parse = tcase_create("parse");
	TCase *edge = tcase_create("edge");
	TCase *api = tcase_create("api");

	tcase_add_checked_fixture(parse, setup_fixture, teardown_fixture);
	tcase_add_test(parse, test_count_and_order);
	tcase_add_test(parse, test_normal_line);
	tcase_add_test(parse, test_module_symbols);
	tcase_add_test(parse, test_duplicate_names);
	tcase_add_test(parse, test_name_not_found);
	tcase_add_test(parse, test_nearest_exact);
	tcase_add_test(parse, test_nearest_inside);
	tcase_add_test(parse, test_nearest_aliases);
	tcase_add_test(parse, test_nearest_past_last);
	tcase_add_test(parse, test_nearest_before_first);
	suite_add_tcase(s, parse);

	tcase_add_test(edge, test_all_zero_addresses);
	tcase_add_test(edge, test_some_zero_addresses);
	tcase_add_test(edge, test_empty_file);
	tcase_add_test(edge, test_malformed_lines);
	tcase_add_test(edge, test_long_name);
	tcase_add_test(edge, test_large_table);
	tcase_set_timeout(edge, 30);
	suite_add_tcase(s, edge);

	tcase_add_checked_fixture(api, setup_file, teardown_file);
	tcase_add_test(api, test_api_lookups);
	tcase_add_test(api, test_api_bad_args);
	tcase_add_test(api, test_api_hidden_addresses);
	tcase_add_test(api, test_api_missing_kallsyms);
	tcase_add_test(api, test_api_concurrent_first_use);
	tcase_add_test(api, test_parse_hex);
	tcase_add_test(api, test_parse_symbol);
	tcase_add_test(api, test_parse_malformed);
	tcase_add_test(api, test_parse_range);
	tcase_add_test(api, test_parse_symbol_errors);
	suite_add_tcase(s, api);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(symbols_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
