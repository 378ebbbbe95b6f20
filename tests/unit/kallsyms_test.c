// SPDX-License-Identifier: GPL-2.0
/*
 * The VMCOREINFO note parser and the kallsyms table decoder
 * (libkmemdev/kallsyms.c) on synthetic input built here the way the
 * kernel builds it (append_elf_note(), scripts/kallsyms.c).
 */
#include <check.h>
#include <stdbool.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* ---- the note ---- */

static size_t make_note(unsigned char *buf, const char *name, const char *desc)
{
	uint32_t nh[3] = { (uint32_t)strlen(name) + 1, (uint32_t)strlen(desc), 0 };
	size_t off = sizeof(nh);

	memset(buf, 0, 4096);
	memcpy(buf, nh, sizeof(nh));
	memcpy(buf + off, name, nh[0]);
	off += (nh[0] + 3) & ~3u;
	memcpy(buf + off, desc, nh[1]);
	return off + ((nh[1] + 3) & ~3u) + 12;	/* + the empty final note */
}

static const char info_text[] =
	"OSRELEASE=6.12.0-test\n"
	"PAGESIZE=4096\n"
	"SYMBOL(kallsyms_names_x)=ffffffff00000000\n"
	"SYMBOL(kallsyms_names)=ffffffff82a00010\n"
	"SYMBOL(bad_hex)=ffffzz\n"
	"SYMBOL(too_long)=1ffffffff82a00010\n"
	"KERNELOFFSET=1e000000\n";

START_TEST(note_parses)
{
	unsigned char buf[4096];
	size_t len = make_note(buf, "VMCOREINFO", info_text), dlen, vlen;
	const char *desc, *val;
	uint64_t addr;

	ck_assert_int_eq(kmemdev__vmcoreinfo_parse(buf, len, &desc, &dlen), 0);
	ck_assert_uint_eq(dlen, strlen(info_text));
	ck_assert(!memcmp(desc, info_text, dlen));
	ck_assert_int_eq(kmemdev__vmcoreinfo_value(desc, dlen, "OSRELEASE", &val, &vlen), 0);
	ck_assert_uint_eq(vlen, strlen("6.12.0-test"));
	ck_assert(!memcmp(val, "6.12.0-test", vlen));
	/* Whole keys only: not the _x one listed first. */
	ck_assert_int_eq(kmemdev__vmcoreinfo_symbol(desc, dlen, "kallsyms_names", &addr), 0);
	ck_assert_uint_eq(addr, 0xffffffff82a00010ull);
	ck_assert_int_eq(kmemdev__vmcoreinfo_value(desc, dlen, "KERNELOFFSET", &val, &vlen), 0);
	ck_assert_uint_eq(vlen, 8);
	/* The last line has no newline once cut at the descriptor's end. */
	ck_assert_int_eq(kmemdev__vmcoreinfo_value(desc, dlen - 1, "KERNELOFFSET", &val, &vlen), 0);
	ck_assert_uint_eq(vlen, 8);
}
END_TEST

START_TEST(note_bad_inputs)
{
	unsigned char buf[4096];
	size_t len = make_note(buf, "VMCOREINFO", info_text), dlen, vlen;
	const char *desc, *val;
	uint64_t addr;
	uint32_t big;

	ck_assert_int_eq(kmemdev__vmcoreinfo_parse(NULL, len, &desc, &dlen), -EINVAL);
	ck_assert_int_eq(kmemdev__vmcoreinfo_parse(buf, len, NULL, &dlen), -EINVAL);
	ck_assert_int_eq(kmemdev__vmcoreinfo_parse(buf, 11, &desc, &dlen), -EPROTO);
	/* Header and name, but the descriptor runs past the buffer. */
	ck_assert_int_eq(kmemdev__vmcoreinfo_parse(buf, 12 + 12 + 10, &desc, &dlen), -EPROTO);
	big = UINT32_MAX;
	memcpy(buf + 4, &big, 4);
	ck_assert_int_eq(kmemdev__vmcoreinfo_parse(buf, len, &desc, &dlen), -EPROTO);
	/* Another note's name, and one of the right length but other text. */
	len = make_note(buf, "CORE", info_text);
	ck_assert_int_eq(kmemdev__vmcoreinfo_parse(buf, len, &desc, &dlen), -EPROTO);
	len = make_note(buf, "VMCOREINFX", info_text);
	ck_assert_int_eq(kmemdev__vmcoreinfo_parse(buf, len, &desc, &dlen), -EPROTO);
	/* An all-zero buffer (no note written). */
	memset(buf, 0, sizeof(buf));
	ck_assert_int_eq(kmemdev__vmcoreinfo_parse(buf, sizeof(buf), &desc, &dlen), -EPROTO);

	len = make_note(buf, "VMCOREINFO", info_text);
	ck_assert_int_eq(kmemdev__vmcoreinfo_parse(buf, len, &desc, &dlen), 0);
	ck_assert_int_eq(kmemdev__vmcoreinfo_value(desc, dlen, "OSREL", &val, &vlen), -ENOENT);
	ck_assert_int_eq(kmemdev__vmcoreinfo_symbol(desc, dlen, "nope", &addr), -ENOENT);
	ck_assert_int_eq(kmemdev__vmcoreinfo_symbol(desc, dlen, "bad_hex", &addr), -EPROTO);
	ck_assert_int_eq(kmemdev__vmcoreinfo_symbol(desc, dlen, "too_long", &addr), -EPROTO);
}
END_TEST

/* ---- the tables ---- */

/*
 * Tokens as scripts/kallsyms.c makes them: the type letter is the first
 * character of a symbol's first token, often merged with more text.
 */
static const char *const tokens_src[] = {
	"Tsched", "ule", "d", "init_", "task", "T", "a", "A", "__per_cpu_x",
};

struct tables {
	char tokens[4096];
	uint16_t index[256];
	uint8_t names[4096];
	size_t names_len;
	int32_t offsets[8];
	struct kmemdev_kallsyms t;
};

static void add_name(struct tables *tb, const uint8_t *tok, size_t n)
{
	if (n > 0x7f) {
		tb->names[tb->names_len++] = 0x80 | (n & 0x7f);
		tb->names[tb->names_len++] = (uint8_t)(n >> 7);
	} else {
		tb->names[tb->names_len++] = (uint8_t)n;
	}
	memcpy(tb->names + tb->names_len, tok, n);
	tb->names_len += n;
}

/*
 * Symbols: "Tschedule", "dinit_task", "T" + 200 'a' (a "big" one), a
 * nameless "T", "T" + 600 'a' (truncated to 511), "A__per_cpu_x".
 */
static void build(struct tables *tb)
{
	uint8_t tok[700];
	size_t off = 0, i;

	memset(tb, 0, sizeof(*tb));
	for (i = 0; i < 256; i++) {
		const char *s = i < sizeof(tokens_src) / sizeof(tokens_src[0]) ?
				tokens_src[i] : "?";

		tb->index[i] = (uint16_t)off;
		strcpy(tb->tokens + off, s);
		off += strlen(s) + 1;
	}
	add_name(tb, (const uint8_t[]){ 0, 1 }, 2);
	add_name(tb, (const uint8_t[]){ 2, 3, 4 }, 3);
	tok[0] = 5;
	memset(tok + 1, 6, 200);
	add_name(tb, tok, 201);
	add_name(tb, tok, 1);
	memset(tok + 1, 6, 600);
	add_name(tb, tok, 601);
	add_name(tb, (const uint8_t[]){ 7, 8 }, 2);
	tb->t = (struct kmemdev_kallsyms){
		.names = tb->names, .names_len = tb->names_len,
		.tokens = tb->tokens, .tokens_len = off,
		.token_index = tb->index, .offsets = tb->offsets, .num_syms = 6,
	};
}

struct got {
	uint64_t addr[8];
	char type[8];
	char name[8][600];
	int n, stop_at;
};

static int record(void *arg, uint64_t addr, char type, const char *name,
		  const char *module)
{
	struct got *g = arg;

	ck_assert_ptr_null(module);
	ck_assert_int_lt(g->n, 8);
	g->addr[g->n] = addr;
	g->type[g->n] = type;
	snprintf(g->name[g->n], sizeof(g->name[0]), "%s", name);
	if (++g->n == g->stop_at)
		return -ECANCELED;
	return 0;
}

static void check_names(const struct got *g)
{
	char a[600];

	ck_assert_int_eq(g->n, 5);	/* the nameless one is skipped */
	ck_assert_str_eq(g->name[0], "schedule");
	ck_assert_int_eq(g->type[0], 'T');
	ck_assert_str_eq(g->name[1], "init_task");
	ck_assert_int_eq(g->type[1], 'd');
	memset(a, 'a', 200);
	a[200] = '\0';
	ck_assert_str_eq(g->name[2], a);
	memset(a, 'a', 511);
	a[511] = '\0';
	ck_assert_str_eq(g->name[3], a);
	ck_assert_str_eq(g->name[4], "__per_cpu_x");
	ck_assert_int_eq(g->type[4], 'A');
}

/*
 * kallsyms_sym_address() of each version, for symbols 0, 1 and 5 (the
 * percpu one; symbol 3 has no name, so it is the fifth reported).
 */
static const struct encoding {
	const char *what;
	bool has_base;
	uint64_t base, offsets_addr;
	int32_t offsets[6];
	uint64_t want[3];
} encodings[] = {
	{ "6.1/6.12 without CONFIG_KALLSYMS_ABSOLUTE_PERCPU: base + (u32)offset",
	  true, 0xffffffff81000000ull, 0,
	  { 0, 0x1000, 0x2000, 0x3000, 0x4000, 0x5000 },
	  { 0xffffffff81000000ull, 0xffffffff81001000ull, 0xffffffff81005000ull } },
	{ "x86_64 SMP up to 6.14: percpu absolute, the rest base - 1 - offset",
	  true, 0xffffffff81000000ull, 0,
	  { -1, -1 - 0x1000, -1 - 0x2000, -1 - 0x3000, -1 - 0x4000, 0x2a000 },
	  { 0xffffffff81000000ull, 0xffffffff81001000ull, 0x2a000 } },
	{ "7.3: offset_to_ptr(&kallsyms_offsets[i])",
	  false, 0, 0xffffffff83000000ull,
	  { -0x2000000, 0x100, 0, 0, 0, -0x100 },
	  { 0xffffffff81000000ull, 0xffffffff83000000ull + 4 + 0x100,
	    0xffffffff83000000ull + 20 - 0x100 } },
};

START_TEST(decode_encodings)
{
	const struct encoding *e = &encodings[_i];
	struct tables tb;
	struct got g = { 0 };

	build(&tb);
	tb.t.has_relative_base = e->has_base;
	tb.t.relative_base = e->base;
	tb.t.offsets_addr = e->offsets_addr;
	memcpy(tb.offsets, e->offsets, sizeof(e->offsets));
	ck_assert_int_eq(kmemdev__kallsyms_decode(&tb.t, record, &g), 0);
	check_names(&g);
	ck_assert_msg(g.addr[0] == e->want[0] && g.addr[1] == e->want[1] &&
		      g.addr[4] == e->want[2], "%s", e->what);
}
END_TEST

START_TEST(decode_bad_tables)
{
	struct tables tb;
	struct got g = { 0 };

	/* A token index past the token table. */
	build(&tb);
	tb.index[200] = (uint16_t)tb.t.tokens_len;
	ck_assert_int_eq(kmemdev__kallsyms_decode(&tb.t, record, &g), -EPROTO);
	/* A last token without its NUL inside the table. */
	build(&tb);
	tb.t.tokens_len--;
	ck_assert_int_eq(kmemdev__kallsyms_decode(&tb.t, record, &g), -EPROTO);
	/* Names cut inside the last symbol, and in a big length. */
	build(&tb);
	tb.t.names_len--;
	ck_assert_int_eq(kmemdev__kallsyms_decode(&tb.t, record, &g), -EPROTO);
	build(&tb);
	tb.t.names_len = 3 + 4 + 1;
	ck_assert_int_eq(kmemdev__kallsyms_decode(&tb.t, record, &g), -EPROTO);
	/* More symbols than names. */
	build(&tb);
	tb.t.num_syms = 7;
	g.n = 0;
	ck_assert_int_eq(kmemdev__kallsyms_decode(&tb.t, record, &g), -EPROTO);
}
END_TEST

START_TEST(decode_callback_stops)
{
	struct tables tb;
	struct got g = { .stop_at = 2 };

	build(&tb);
	ck_assert_int_eq(kmemdev__kallsyms_decode(&tb.t, record, &g), -ECANCELED);
	ck_assert_int_eq(g.n, 2);
}
END_TEST

/* From entry @first on: earlier ones (big and truncated too) only skipped. */
START_TEST(decode_from_first)
{
	struct tables tb;
	struct got g = { 0 };

	build(&tb);
	tb.offsets[5] = 0x5000;
	tb.t.has_relative_base = true;
	tb.t.relative_base = 0xffffffff81000000ull;
	tb.t.first = 5;
	ck_assert_int_eq(kmemdev__kallsyms_decode(&tb.t, record, &g), 0);
	ck_assert_int_eq(g.n, 1);
	ck_assert_str_eq(g.name[0], "__per_cpu_x");
	ck_assert_uint_eq(g.addr[0], 0xffffffff81005000ull);
	/* a length still cut short in the skipped part is found */
	build(&tb);
	tb.t.first = 5;
	tb.t.names_len = 3 + 4 + 1;
	ck_assert_int_eq(kmemdev__kallsyms_decode(&tb.t, record, &g), -EPROTO);
}
END_TEST

/* Only wanted names reach the callback; a big one is skipped whole. */
START_TEST(decode_wanted_only)
{
	static const char *const want[] = { "__per_cpu_x", "init_task" };
	struct tables tb;
	struct got g = { 0 };

	build(&tb);
	tb.t.want = want;
	tb.t.nwant = 2;
	ck_assert_int_eq(kmemdev__kallsyms_decode(&tb.t, record, &g), 0);
	ck_assert_int_eq(g.n, 2);
	ck_assert_str_eq(g.name[0], "init_task");
	ck_assert_str_eq(g.name[1], "__per_cpu_x");
}
END_TEST

/* Decimal and hex values; overflow and stray characters refused. */
START_TEST(note_numbers)
{
	static const char desc[] = "SIZE(page)=64\nOFFSET(x)=18446744073709551616\n"
				   "SYMBOL(y)=ffffffff81000000\nPAGESIZE=4k\n";
	uint64_t v;

	ck_assert_int_eq(kmemdev__vmcoreinfo_number(desc, sizeof(desc) - 1, "SIZE(page)", 10, &v), 0);
	ck_assert_uint_eq(v, 64);
	ck_assert_int_eq(kmemdev__vmcoreinfo_number(desc, sizeof(desc) - 1, "OFFSET(x)", 10, &v), -EPROTO);
	ck_assert_int_eq(kmemdev__vmcoreinfo_number(desc, sizeof(desc) - 1, "SYMBOL(y)", 10, &v), -EPROTO);
	ck_assert_int_eq(kmemdev__vmcoreinfo_number(desc, sizeof(desc) - 1, "SYMBOL(y)", 16, &v), 0);
	ck_assert_uint_eq(v, 0xffffffff81000000ull);
	ck_assert_int_eq(kmemdev__vmcoreinfo_number(desc, sizeof(desc) - 1, "PAGESIZE", 10, &v), -EPROTO);
	ck_assert_int_eq(kmemdev__vmcoreinfo_number(desc, sizeof(desc) - 1, "NONE", 10, &v), -ENOENT);
}
END_TEST

static Suite *kallsyms_suite(void)
{
	Suite *s = suite_create("kallsyms");
	TCase *tc = tcase_create("note");

	tcase_add_test(tc, note_parses);
	tcase_add_test(tc, note_bad_inputs);
	tcase_add_test(tc, note_numbers);
	suite_add_tcase(s, tc);
	tc = tcase_create("decode");
	tcase_add_loop_test(tc, decode_encodings, 0,
			    sizeof(encodings) / sizeof(encodings[0]));
	tcase_add_test(tc, decode_bad_tables);
	tcase_add_test(tc, decode_callback_stops);
	tcase_add_test(tc, decode_from_first);
	tcase_add_test(tc, decode_wanted_only);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(kallsyms_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
