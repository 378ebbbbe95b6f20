// SPDX-License-Identifier: GPL-2.0
/*
 * Symbols through the device (libkmemdev/kallsyms.c), as a member of the
 * device's group: uid 1000 with the group as a supplementary group (as
 * after `usermod -aG` and a new login), no capability, the kernel's
 * default kptr_restrict and Debian's perf_event_paranoid=3, under which
 * /proc/kallsyms shows that user only zeros.  Everything is compared with
 * root's /proc/kallsyms, read before the member starts.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "kmemdev.h"
#include "vmtest.h"

#define MEMBER_UID	1000

struct ksym {
	uint64_t addr;
	char type;
	char *name;
	char *mod;	/* NULL: vmlinux */
};

struct ksyms {
	struct ksym *v;
	size_t n, cap;
};

static struct ksyms root;	/* root's /proc/kallsyms, in file order */

static void ksyms_add(struct ksyms *k, uint64_t addr, char type,
		      const char *name, const char *mod)
{
	if (k->n == k->cap) {
		k->cap = k->cap ? 2 * k->cap : 65536;
		k->v = realloc(k->v, k->cap * sizeof(*k->v));
		ck_assert_ptr_nonnull(k->v);
	}
	k->v[k->n++] = (struct ksym){
		.addr = addr, .type = type, .name = strdup(name),
		.mod = mod ? strdup(mod) : NULL,
	};
}

static void ksyms_free(struct ksyms *k)
{
	for (size_t i = 0; i < k->n; i++) {
		free(k->v[i].name);
		free(k->v[i].mod);
	}
	free(k->v);
	memset(k, 0, sizeof(*k));
}

/* Up to @max lines (0: all) of /proc/kallsyms as this process sees it. */
static void read_proc_kallsyms(struct ksyms *k, size_t max)
{
	char line[1024], name[600], mod[300];
	unsigned long long addr;
	FILE *f = fopen("/proc/kallsyms", "re");
	char type;
	int n;

	ck_assert_ptr_nonnull(f);
	while ((!max || k->n < max) && fgets(line, sizeof(line), f)) {
		n = sscanf(line, "%llx %c %599s [%299[^]]]", &addr, &type, name, mod);
		ck_assert_int_ge(n, 3);
		ksyms_add(k, addr, type, name, n == 4 ? mod : NULL);
	}
	fclose(f);
}

static void debian_sysctls(void)
{
	/* Debian's default (CONFIG_SECURITY_PERF_EVENTS_RESTRICT patch). */
	vt_write_file("/proc/sys/kernel/perf_event_paranoid", "3");
	/* The kernel's default. */
	vt_write_file("/proc/sys/kernel/kptr_restrict", "0");
}

static void setup(void)
{
	debian_sysctls();
	read_proc_kallsyms(&root, 0);
	ck_assert_uint_gt(root.n, 10000);
	ck_assert_uint_ne(root.v[root.n / 2].addr, 0);
}

static void teardown(void)
{
	ksyms_free(&root);
}

/* fn as the group member; the device is the group's, as the udev rule makes it. */
static int as_member(int (*fn)(void *), void *arg)
{
	gid_t groups[] = { MONITOR_GID };
	int status;

	ck_assert_int_eq(chown(KMEM_RO_DEVICE, 0, MONITOR_GID), 0);
	ck_assert_int_eq(chmod(KMEM_RO_DEVICE, 0440), 0);
	status = vt_run_as_groups(MEMBER_UID, MEMBER_UID, groups, 1, -1, fn, arg);
	ck_assert_int_eq(chown(KMEM_RO_DEVICE, 0, 0), 0);
	return status;
}

/*
 * Entries of /proc/kallsyms that are in none of the tables the library
 * decodes (kernel/kallsyms.c, update_iter_mod(): after the module
 * symbols):
 *  - get_ksymbol_bpf(): module name "bpf" (bpf_get_kallsym());
 *  - get_ksymbol_kprobe(): "__builtin__kprobes" (kprobe_get_kallsym());
 *  - get_ksymbol_ftrace_mod(): ftrace_mod_get_kallsym() (kernel/trace/
 *    ftrace.c): "__builtin__ftrace" trampolines, and the freed init
 *    functions of modules that ftrace remembers, type 'T' under the
 *    module's name, which its symbol table no longer holds.
 * get_ksymbol_arch() (6.1: x86's arch_get_kallsym(), only with PTI) adds
 * "__entry_SYSCALL_64_trampoline" among the core ones.
 */
static bool pseudo_module(const char *mod)
{
	return mod && (!strcmp(mod, "bpf") || !strcmp(mod, "__builtin__kprobes") ||
		       !strcmp(mod, "__builtin__ftrace"));
}

static bool ksym_eq(const struct ksym *a, const struct ksym *b)
{
	return a->addr == b->addr && a->type == b->type && !strcmp(a->name, b->name) &&
	       !a->mod == !b->mod && (!a->mod || !strcmp(a->mod, b->mod));
}

static void ksym_print(const char *who, const struct ksym *s)
{
	fprintf(stderr, "  %s: %016llx %c %s%s%s%s\n", who, (unsigned long long)s->addr,
		s->type, s->name, s->mod ? " [" : "", s->mod ? s->mod : "",
		s->mod ? "]" : "");
}

static int collect(void *arg, uint64_t addr, char type, const char *name,
		   const char *module)
{
	ksyms_add(arg, addr, type, name, module);
	return 0;
}

/* Did /proc/kallsyms show this process only zeros (its first lines)? */
static bool kallsyms_hidden(void)
{
	struct ksyms mine = { 0 };
	bool hidden;

	read_proc_kallsyms(&mine, 4096);
	hidden = mine.n > 0;
	for (size_t i = 0; i < mine.n; i++)
		if (mine.v[i].addr)
			hidden = false;
	ksyms_free(&mine);
	return hidden;
}

/*
 * root's list, in its order, is the library's (core, then each module's),
 * then only the pseudo-entries above.
 */
static int member_decodes_root_kallsyms(void *unused)
{
	struct ksyms lib = { 0 };
	struct kmemdev *h;
	size_t i, bad = 0;
	int err;

	(void)unused;
	if (!kallsyms_hidden()) {
		fprintf(stderr, "/proc/kallsyms shows the member real addresses\n");
		return 10;
	}
	err = kmemdev_open(&h, NULL);
	if (err) {
		fprintf(stderr, "kmemdev_open: %s\n", strerror(-err));
		return 11;
	}
	err = kmemdev__kallsyms_read(h, collect, &lib);
	kmemdev_close(h);
	if (err) {
		fprintf(stderr, "kmemdev__kallsyms_read: %s\n", strerror(-err));
		return 12;
	}
	fprintf(stderr, "library: %zu symbols, root's /proc/kallsyms: %zu lines\n",
		lib.n, root.n);
	for (i = 0; i < lib.n && i < root.n; i++) {
		if (ksym_eq(&lib.v[i], &root.v[i]))
			continue;
		if (bad++ < 5) {
			fprintf(stderr, "entry %zu differs:\n", i);
			ksym_print("library", &lib.v[i]);
			ksym_print("root", &root.v[i]);
		}
	}
	if (lib.n > root.n) {
		fprintf(stderr, "library has %zu more symbols\n", lib.n - root.n);
		bad++;
	}
	for (; i < root.n; i++) {
		const struct ksym *s = &root.v[i];

		if (pseudo_module(s->mod))
			continue;
		/* ftrace's freed module init functions: 'T', in no live table. */
		if (s->mod && s->type == 'T') {
			bool live = false;

			for (size_t j = 0; j < lib.n && !live; j++)
				live = lib.v[j].mod && !strcmp(lib.v[j].mod, s->mod) &&
				       !strcmp(lib.v[j].name, s->name);
			if (!live)
				continue;
		}
		if (bad++ < 10) {
			fprintf(stderr, "root's entry %zu is missing:\n", i);
			ksym_print("root", s);
		}
	}
	ksyms_free(&lib);
	return bad ? 1 : 0;
}

START_TEST(member_symbols_are_roots)
{
	ck_assert_int_eq(as_member(member_decodes_root_kallsyms, NULL), 0);
}
END_TEST

/* Some of root's entries: vmlinux data and text, and a module's. */
static const struct ksym *root_find(const char *name, const char *mod)
{
	for (size_t i = 0; i < root.n; i++)
		if (!strcmp(root.v[i].name, name) && !root.v[i].mod == !mod &&
		    (!mod || !strcmp(root.v[i].mod, mod)))
			return &root.v[i];
	return NULL;
}

static int member_lookups(void *unused)
{
	static const struct {
		const char *name, *mod;
	} want[] = {
		{ "init_task", NULL }, { "linux_banner", NULL }, { "modules", NULL },
		{ "schedule", NULL }, { "testobj_show", "kmem_ro_testobj" },
	};
	const struct kmemdev_sym *s;
	struct kmemdev *h;
	uint64_t off;
	int bad = 0, err;

	(void)unused;
	err = kmemdev_open(&h, NULL);
	if (err)
		return 11;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct ksym *r = root_find(want[i].name, want[i].mod);

		if (!r) {
			fprintf(stderr, "%s not in root's /proc/kallsyms\n", want[i].name);
			bad++;
			continue;
		}
		err = kmemdev_symbol_find(h, want[i].name, &s);
		if (err || s->addr != r->addr || s->type != r->type ||
		    !s->module != !r->mod || (s->module && strcmp(s->module, r->mod))) {
			fprintf(stderr, "kmemdev_symbol_find(%s): %d\n", want[i].name, err);
			ksym_print("root", r);
			bad++;
			continue;
		}
		/* And back: the address names a symbol at that address. */
		err = kmemdev_symbolize(h, r->addr + 1, &s, &off);
		if (err || s->addr != r->addr || off != 1) {
			fprintf(stderr, "kmemdev_symbolize(%s + 1): %d\n", want[i].name, err);
			bad++;
		}
	}
	kmemdev_close(h);
	return bad;
}

START_TEST(member_lookups_are_roots)
{
	ck_assert_int_eq(as_member(member_lookups, NULL), 0);
}
END_TEST

/* A handle with no VMCOREINFO to read: kcore, or not a device. */
START_TEST(kcore_handle_is_eopnotsupp)
{
	struct kmemdev_open_opts opts = {
		.sz = sizeof(opts), .backend = KMEMDEV_BACKEND_KCORE,
	};
	struct ksyms lib = { 0 };
	struct kmemdev *h;
	char *note;
	size_t len;

	ck_assert_int_eq(kmemdev_open(&h, &opts), 0);
	ck_assert_int_eq(kmemdev__kallsyms_read(h, collect, &lib), -EOPNOTSUPP);
	ck_assert_int_eq(kmemdev__vmcoreinfo_read(h, &note, &len), -EOPNOTSUPP);
	ck_assert_int_eq(kmemdev__kallsyms_read(NULL, collect, &lib), -EINVAL);
	kmemdev_close(h);
	ck_assert_uint_eq(lib.n, 0);
}
END_TEST

/* The note the library reads is the kernel's: OSRELEASE and _stext. */
START_TEST(note_names_running_kernel)
{
	const struct ksym *stext = root_find("_stext", NULL);
	const char *desc, *val;
	size_t len, dlen, vlen;
	struct kmemdev *h;
	uint64_t addr;
	char *note;

	ck_assert_ptr_nonnull(stext);
	ck_assert_int_eq(kmemdev_open(&h, NULL), 0);
	ck_assert_int_eq(kmemdev__vmcoreinfo_read(h, &note, &len), 0);
	ck_assert_int_eq(kmemdev__vmcoreinfo_parse(note, len, &desc, &dlen), 0);
	ck_assert_int_eq(kmemdev__vmcoreinfo_symbol(desc, dlen, "_stext", &addr), 0);
	ck_assert_uint_eq(addr, stext->addr);
	ck_assert_int_eq(kmemdev__vmcoreinfo_value(desc, dlen, "PAGESIZE", &val, &vlen), 0);
	ck_assert_int_eq(vlen, 4);
	ck_assert(!memcmp(val, "4096", 4));
	free(note);
	kmemdev_close(h);
}
END_TEST

static Suite *kallsyms_suite(void)
{
	Suite *s = suite_create("kallsyms");
	TCase *tc = tcase_create("member");

	/* Once, before the tests fork: 200k lines are slow to read under TCG. */
	tcase_add_unchecked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, member_symbols_are_roots);
	tcase_add_test(tc, member_lookups_are_roots);
	tcase_add_test(tc, kcore_handle_is_eopnotsupp);
	tcase_add_test(tc, note_names_running_kernel);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return vt_main(kallsyms_suite());
}
