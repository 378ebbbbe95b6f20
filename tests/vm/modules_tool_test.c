// SPDX-License-Identifier: GPL-2.0
/*
 * kmemctl modules: every module /proc/modules lists, in its order, with
 * its size, address, reference count and state; each module's .text
 * section (/sys/module/NAME/sections/.text) inside the text region it
 * reports - on the device and, with kmem_ro unloaded, on /proc/kcore.
 */
#define _GNU_SOURCE
#include <unistd.h>

#include "tooltest.h"

static uint64_t section_text(const char *mod)
{
	char path[128];
	unsigned long long a = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/module/%s/sections/.text", mod);
	f = fopen(path, "re");
	ck_assert_msg(f, "%s", path);
	ck_assert_int_eq(fscanf(f, "%llx", &a), 1);
	fclose(f);
	return a;
}

/* The next module object of the JSON array from @p, into its fields. */
struct jmod {
	char name[64], state[32];
	long long refcnt, size, text_size;
	uint64_t base, text_base, regions_sum;
	int nregions;
};

static const char *next_mod(const char *p, struct jmod *m)
{
	const char *end, *r;

	p = strstr(p, "{\"name\":");
	if (!p)
		return NULL;
	end = strstr(p, "]}");	/* the end of its regions */
	ck_assert_ptr_nonnull(end);
	memset(m, 0, sizeof(*m));
	ck_assert_int_eq(json_str_of(p, "name", m->name, sizeof(m->name)), 0);
	ck_assert_int_eq(json_str_of(p, "state", m->state, sizeof(m->state)), 0);
	m->refcnt = vt_json_num(p, "refcnt");
	m->size = vt_json_num(p, "size");
	m->text_size = vt_json_num(p, "text_size");
	m->base = json_hex_of(p, "base");
	for (r = strstr(p, "\"regions\":["); r && (r = strstr(r, "{\"type\":")) && r < end; r++) {
		char type[32];

		ck_assert_int_eq(json_str_of(r, "type", type, sizeof(type)), 0);
		if (!strcmp(type, "text"))
			m->text_base = json_hex_of(r, "base");
		m->regions_sum += (uint64_t)vt_json_num(r, "size");
		m->nregions++;
	}
	return end + 2;
}

/*
 * @device: kmemctl reads through /dev/kmem_ro, whose open file holds a
 * reference on kmem_ro while it walks: one more than /proc/modules saw.
 */
static void check_modules(bool device)
{
	struct proc_module pm[64];
	int n = proc_modules(pm, 64), i;
	const char *p = out;
	struct jmod m;

	ck_assert_int_ge(n, 1);
	ck_assert_msg(kmemctl("modules --json") == 0, "%s", err);
	ck_assert_msg(json_valid(out, false), "%s", out);
	for (i = 0; i < n; i++) {
		uint64_t text;

		p = next_mod(p, &m);
		ck_assert_msg(p, "%d modules listed, /proc/modules has %d", i, n);
		ck_assert_str_eq(m.name, pm[i].name);
		ck_assert_str_eq(pm[i].state, "Live");
		ck_assert_str_eq(m.state, "live");
		ck_assert_int_eq(m.size, (long long)pm[i].size);
		ck_assert_uint_eq(m.base, pm[i].addr);
		ck_assert_int_eq(m.refcnt, pm[i].refcnt +
				 (device && !strcmp(m.name, "kmem_ro")));
		ck_assert_uint_eq(m.text_base, m.base);
		text = section_text(m.name);
		ck_assert_msg(text >= m.base && text < m.base + (uint64_t)m.text_size,
			      "%s: .text %#" PRIx64 " outside %#" PRIx64 "+%lld", m.name, text,
			      m.base, m.text_size);
		/* live modules have freed their init memory: regions are the size */
		ck_assert_uint_eq(m.regions_sum, (uint64_t)m.size);
	}
	ck_assert_ptr_null(next_mod(p, &m));

	ck_assert_msg(kmemctl("modules") == 0, "%s", err);
	ck_assert_int_eq(vt_count_lines(out), n + 1);
	ck_assert_msg(!strncmp(out, "NAME ", 5), "%s", out);
	for (i = 0; i < n; i++) {
		char line[256];

		snprintf(line, sizeof(line), "\n%-24.63s live     %6d 0x%016llx %10llu ", pm[i].name,
			 pm[i].refcnt + (device && !strcmp(pm[i].name, "kmem_ro")), pm[i].addr,
			 pm[i].size);
		ck_assert_msg(strstr(out, line), "no '%s' in\n%s", line + 1, out);
	}
}

START_TEST(modules_match_proc)
{
	check_modules(true);
}
END_TEST

/* A module loaded later shows up, with its own reference count. */
START_TEST(load_and_unload_seen)
{
	int refs;

	ck_assert_int_eq(vt_module_unload("kmem_ro_testobj"), 0);
	ck_assert_msg(kmemctl("modules") == 0, "%s", err);
	ck_assert_ptr_null(strstr(out, "\nkmem_ro_testobj "));
	ck_assert_int_eq(vt_module_load(VMTEST_TESTOBJ_PATH, ""), 0);
	refs = vt_module_refcnt("kmem_ro_testobj");
	ck_assert_int_ge(refs, 0);
	check_modules(true);
}
END_TEST

START_TEST(errors_are_one_line)
{
	ck_assert_int_eq(kmemctl("modules extra"), 2);
	ck_assert_msg(one_short_line(err), "%s", err);
	ck_assert_int_eq(kmemctl("modules --bogus"), 2);
	ck_assert_msg(one_short_line(err), "%s", err);
	ck_assert_int_eq(kmemctl("modules --help"), 0);
	ck_assert_ptr_nonnull(strstr(out, "Usage: kmemctl [--device PATH] modules [--json]"));
}
END_TEST

/* --json and --help mean the same before the verb as after it. */
START_TEST(json_and_help_are_global)
{
	static char after[sizeof(out)];

	ck_assert_msg(kmemctl("modules --json") == 0, "%s", err);
	strcpy(after, out);
	ck_assert_msg(kmemctl("--json modules") == 0, "%s", err);
	ck_assert_str_eq(out, after);
	ck_assert_msg(kmemctl("-j modules") == 0, "%s", err);
	ck_assert_str_eq(out, after);
	ck_assert_int_eq(kmemctl("modules --help"), 0);
	strcpy(after, out);
	ck_assert_int_eq(kmemctl("--help modules"), 0);
	ck_assert_str_eq(out, after);
	ck_assert_int_eq(kmemctl("-h"), 0);
	ck_assert_ptr_nonnull(strstr(out, "Verbs:"));
}
END_TEST

static void no_device(void)
{
	unload_kmem_ro();
}

static void device_back(void)
{
	reload_kmem_ro();
}

START_TEST(kcore_modules)
{
	ck_assert_int_eq(vt_open_errno(KMEM_RO_DEVICE, 0), ENOENT);
	check_modules(false);
	ck_assert_ptr_null(strstr(out, "\nkmem_ro "));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("modules_tool");
	TCase *tc = tcase_create("device");

	tcase_add_test(tc, modules_match_proc);
	tcase_add_test(tc, load_and_unload_seen);
	tcase_add_test(tc, errors_are_one_line);
	tcase_add_test(tc, json_and_help_are_global);
	suite_add_tcase(s, tc);

	tc = tcase_create("kcore");
	tcase_add_unchecked_fixture(tc, no_device, device_back);
	tcase_add_test(tc, kcore_modules);
	suite_add_tcase(s, tc);
	return vt_main(s);
}
