// SPDX-License-Identifier: GPL-2.0
/*
 * The module-symbol walk (libkmemdev/modsyms.c) on a fake kernel: a
 * sparse memfd holding struct module, mod_kallsyms, symbol, type and
 * string tables and exports at the offsets a driver would serve them
 * from (KMEM_RO_READ_OFFSET(), KMEM_RO_FEAT_PREAD and _READV), member offsets from a BTF built here with
 * libbpf.  The data is what a module that unloads or ends its init under
 * the walk leaves behind: counts and sizes of garbage, pointers out of
 * the module area, links that disagree.  pread() and ioctl() (READV) are
 * counted here, so that the work a walk does is checked, not timed.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/btf.h>

#include "internal.h"

/* x86-64's module area (MODULES_VADDR, MODULES_END) and a vmlinux address. */
#define MOD_LO		0xffffffffc0000000ULL
#define MOD_HI		0xffffffffff000000ULL
#define HEAD		0xffffffff82000000ULL	/* &modules */
#define VMLINUX_DATA	0xffffffff82100000ULL	/* readable, not module memory */
#define MOD_BASE(i)	(MOD_LO + 0x100000ULL * (i) + 0x1000)
#define LIST_POISON2	0xdead000000000122ULL

/* The caps of modsyms.c, from the kernel (see there). */
#define KSYM_NAME_LEN		512
#define MODULE_SYMS_MAX		(1u << 18)
#define MODWALK_BUDGET		((size_t)256 << 20)
#define MODWALK_TRIES		5

/* struct module as the BTF below lays it out (6.4+: mem[]) */
#define M_STATE		0
#define M_LIST		8
#define M_NAME		24
#define M_NAME_LEN	56
#define M_SYMS		80
#define M_NUM_SYMS	88
#define M_MEM		96	/* 7 x struct module_memory { base; size; } */
#define M_KALLSYMS	208
#define M_SIZE		216
/* struct mod_kallsyms */
#define K_SYMTAB	0
#define K_NUM		8
#define K_STRTAB	16
#define K_TYPETAB	24

/* Where a module's parts lie, from its base. */
#define AT_KALLSYMS	0x100
#define AT_SYMTAB	0x200
#define AT_TYPES	0x8000
#define AT_STRTAB	0x9000
#define AT_EXPORTS	0x10000
#define AT_EXSTR	0x14000

static struct kmemdev *h;
static int memfd = -1;
static char btf_path[64];

/* ---- counting the fake device's reads ---- */

static size_t preads, pread_bytes, readvs, head_reads;
static void (*after_read)(size_t nth);

ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	ssize_t r = syscall(SYS_pread64, fd, buf, n, off);

	if (fd == memfd) {
		preads++;
		if (r > 0)
			pread_bytes += (size_t)r;
		if (off == KMEM_RO_READ_OFFSET(HEAD))
			head_reads++;
		if (after_read)
			after_read(preads);
	}
	return r;
}

/* KMEM_RO_IOC_READV on the memfd: each segment a pread() of its own. */
int ioctl(int fd, unsigned long req, ...)
{
	struct kmem_ro_readv *arg;
	struct kmem_ro_iov *iov;
	va_list ap;

	va_start(ap, req);
	arg = va_arg(ap, struct kmem_ro_readv *);
	va_end(ap);
	if (fd != memfd)
		return (int)syscall(SYS_ioctl, fd, req, arg);
	if (req != KMEM_RO_IOC_READV) {
		errno = ENOTTY;
		return -1;
	}
	readvs++;
	iov = (struct kmem_ro_iov *)(uintptr_t)arg->iov_addr;
	for (uint32_t i = 0; i < arg->iov_count; i++) {
		ssize_t r = syscall(SYS_pread64, fd, (void *)(uintptr_t)iov[i].buf,
				    iov[i].len, KMEM_RO_READ_OFFSET(iov[i].addr));

		iov[i].result = r < 0 ? -errno : r;
		if (r > 0)
			pread_bytes += (size_t)r;
	}
	arg->done = arg->iov_count;
	return 0;
}

static void counters_reset(void)
{
	preads = pread_bytes = readvs = head_reads = 0;
}

/* ---- the fake kernel ---- */

static void put(uint64_t addr, const void *p, size_t len)
{
	ck_assert_int_eq(pwrite(memfd, p, len, KMEM_RO_READ_OFFSET(addr)), (ssize_t)len);
}

static void put64(uint64_t addr, uint64_t v)
{
	put(addr, &v, 8);
}

static void put32(uint64_t addr, uint32_t v)
{
	put(addr, &v, 4);
}

static uint64_t get64(uint64_t addr)
{
	uint64_t v = 0;

	ck_assert_int_eq(syscall(SYS_pread64, memfd, &v, 8, KMEM_RO_READ_OFFSET(addr)), 8);
	return v;
}

/* The BTF of the members the walk reads, laid out as above. */
static void write_btf(void)
{
	struct btf *b = btf__new_empty();
	int u8, u32, i32, u64, ptr, lh, arr, mm, mem, t;
	const void *raw;
	uint32_t size;
	int fd;

	ck_assert_ptr_nonnull(b);
	u8 = btf__add_int(b, "unsigned char", 1, 0);
	u32 = btf__add_int(b, "unsigned int", 4, 0);
	i32 = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	u64 = btf__add_int(b, "long unsigned int", 8, 0);
	ptr = btf__add_ptr(b, u8);
	ck_assert(u8 > 0 && u32 > 0 && i32 > 0 && u64 > 0 && ptr > 0);

	lh = btf__add_struct(b, "list_head", 16);
	ck_assert_int_eq(btf__add_field(b, "next", ptr, 0, 0), 0);
	ck_assert_int_eq(btf__add_field(b, "prev", ptr, 64, 0), 0);
	arr = btf__add_array(b, u32, u8, M_NAME_LEN);
	mm = btf__add_struct(b, "module_memory", 16);
	ck_assert_int_eq(btf__add_field(b, "base", ptr, 0, 0), 0);
	ck_assert_int_eq(btf__add_field(b, "size", u32, 64, 0), 0);
	mem = btf__add_array(b, u32, mm, 7);
	t = btf__add_struct(b, "module", M_SIZE);
	ck_assert(lh > 0 && arr > 0 && mm > 0 && mem > 0 && t > 0);
	ck_assert_int_eq(btf__add_field(b, "state", u32, M_STATE * 8, 0), 0);
	ck_assert_int_eq(btf__add_field(b, "list", lh, M_LIST * 8, 0), 0);
	ck_assert_int_eq(btf__add_field(b, "name", arr, M_NAME * 8, 0), 0);
	ck_assert_int_eq(btf__add_field(b, "syms", ptr, M_SYMS * 8, 0), 0);
	ck_assert_int_eq(btf__add_field(b, "num_syms", u32, M_NUM_SYMS * 8, 0), 0);
	ck_assert_int_eq(btf__add_field(b, "mem", mem, M_MEM * 8, 0), 0);
	ck_assert_int_eq(btf__add_field(b, "kallsyms", ptr, M_KALLSYMS * 8, 0), 0);
	t = btf__add_struct(b, "mod_kallsyms", 32);
	ck_assert_int_gt(t, 0);
	ck_assert_int_eq(btf__add_field(b, "symtab", ptr, K_SYMTAB * 8, 0), 0);
	ck_assert_int_eq(btf__add_field(b, "num_symtab", u32, K_NUM * 8, 0), 0);
	ck_assert_int_eq(btf__add_field(b, "strtab", ptr, K_STRTAB * 8, 0), 0);
	ck_assert_int_eq(btf__add_field(b, "typetab", ptr, K_TYPETAB * 8, 0), 0);
	t = btf__add_struct(b, "kernel_symbol", 12);
	ck_assert_int_gt(t, 0);
	ck_assert_int_eq(btf__add_field(b, "value_offset", i32, 0, 0), 0);
	ck_assert_int_eq(btf__add_field(b, "name_offset", i32, 32, 0), 0);
	ck_assert_int_eq(btf__add_field(b, "namespace_offset", i32, 64, 0), 0);

	raw = btf__raw_data(b, &size);
	ck_assert_ptr_nonnull(raw);
	snprintf(btf_path, sizeof(btf_path), "/tmp/modsyms_test.%d.btf", (int)getpid());
	fd = open(btf_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, raw, size), (ssize_t)size);
	close(fd);
	btf__free(b);
}

struct fsym {
	const char *name;
	uint64_t value;
	char type;
};

/*
 * Module @i named @name at MOD_BASE(i) with @n symbols (symbol 0 is the
 * ELF null symbol, nameless, as add_kallsyms() keeps it) and @nex exports
 * of @ex's names and values; not linked yet.
 */
static void put_module(int i, const char *name, const struct fsym *s, uint32_t n,
		       const struct fsym *ex, uint32_t nex)
{
	uint64_t base = MOD_BASE(i), str = base + AT_STRTAB, exstr = base + AT_EXSTR;
	unsigned char mod[M_SIZE] = { 0 };
	uint32_t off = 1;

	memcpy(mod + M_NAME, name, strlen(name) + 1);
	memcpy(mod + M_SYMS, &(uint64_t){ base + AT_EXPORTS }, 8);
	memcpy(mod + M_NUM_SYMS, &nex, 4);
	memcpy(mod + M_MEM, &(uint64_t){ base + 0x80000 }, 8);	/* text */
	memcpy(mod + M_KALLSYMS, &(uint64_t){ base + AT_KALLSYMS }, 8);
	mod[M_STATE] = 0;	/* MODULE_STATE_LIVE */
	put(base, mod, sizeof(mod));

	put64(base + AT_KALLSYMS + K_SYMTAB, base + AT_SYMTAB);
	put32(base + AT_KALLSYMS + K_NUM, n + 1);
	put64(base + AT_KALLSYMS + K_STRTAB, str);
	put64(base + AT_KALLSYMS + K_TYPETAB, base + AT_TYPES);
	put(str, "", 1);
	put(base + AT_SYMTAB, (unsigned char[24]){ 0 }, 24);
	put(base + AT_TYPES, "U", 1);
	for (uint32_t k = 0; k < n; k++) {
		unsigned char e[24] = { 0 };

		memcpy(e, &off, 4);
		memcpy(e + 8, &s[k].value, 8);
		put(base + AT_SYMTAB + 24 * (k + 1), e, 24);
		put(base + AT_TYPES + k + 1, &s[k].type, 1);
		put(str + off, s[k].name, strlen(s[k].name) + 1);
		off += strlen(s[k].name) + 1;
	}
	for (uint32_t k = 0; k < nex; k++) {
		uint64_t ks = base + AT_EXPORTS + 12 * k;
		int32_t rel[3] = { (int32_t)(ex[k].value - ks), (int32_t)(exstr - (ks + 4)), 0 };

		put(ks, rel, sizeof(rel));
		put(exstr, ex[k].name, strlen(ex[k].name) + 1);
		exstr += strlen(ex[k].name) + 1;
		put(exstr, "", 1);	/* its namespace */
		exstr += 1;
	}
}

/* Link modules @idx[0..n) after the head, in that order (newest first). */
static void link_modules(const int *idx, int n)
{
	uint64_t prev = HEAD + 0;

	for (int k = 0; k < n; k++) {
		uint64_t link = MOD_BASE(idx[k]) + M_LIST;

		put64(prev, link);		/* prev->next */
		put64(link + 8, prev == HEAD ? HEAD : prev);	/* this->prev */
		prev = link;
	}
	put64(prev, HEAD);
	put64(HEAD + 8, n ? prev : HEAD);
}

/* vmlinux's end of the fake: something readable outside the module area. */
static void put_vmlinux_data(void)
{
	unsigned char page[4096];

	memset(page, 0, sizeof(page));
	put(VMLINUX_DATA, page, sizeof(page));
}

static const struct fsym a_syms[] = {
	{ "a_init", MOD_BASE(0) + 0x80000, 't' },
	{ "a_exported", MOD_BASE(0) + 0x80100, 'T' },
	{ "a_data", MOD_BASE(0) + 0x90000, 'd' },
	{ "a_same_value", MOD_BASE(0) + 0x80100, 't' },	/* an alias: not the export */
	{ "a_wrong_value", MOD_BASE(0) + 0x80200, 'T' },	/* the name, another value */
};
static const struct fsym a_ex[] = {
	{ "a_exported", MOD_BASE(0) + 0x80100, 0 },
	{ "a_wrong_value", MOD_BASE(0) + 0x80300, 0 },
	{ "a_data", MOD_BASE(0) + 0x90000, 0 },
};
static const struct fsym b_syms[] = {
	{ "b_fn", MOD_BASE(1) + 0x80000, 't' },
	{ "b_var", MOD_BASE(1) + 0x90000, 'b' },
};

static void setup(void)
{
	memfd = memfd_create("kmem_ro", MFD_CLOEXEC);
	ck_assert_int_ge(memfd, 0);
	/* all of the module area reads (zeros where nothing was put) */
	ck_assert_int_eq(ftruncate(memfd, KMEM_RO_READ_OFFSET(MOD_HI)), 0);
	write_btf();
	ck_assert_int_eq(kmemdev__handle_new(&h, memfd), 0);
	h->info.page_size = 4096;
	h->info.features = KMEM_RO_FEAT_PREAD | KMEM_RO_FEAT_READV;
	h->info.modules_start = MOD_LO;
	h->info.modules_end = MOD_HI;
	ck_assert_int_eq(kmemdev__maps_init(h, NULL, 0), 0);
	ck_assert_int_eq(kmemdev__set_btf_path(h, btf_path), 0);
	put_vmlinux_data();
	put_module(0, "mod_a", a_syms, 5, a_ex, 3);
	put_module(1, "mod_b", b_syms, 2, NULL, 0);
	link_modules((const int[]){ 0, 1 }, 2);
	after_read = NULL;
	counters_reset();
}

static void teardown(void)
{
	kmemdev_close(h);	/* closes memfd */
	h = NULL;
	memfd = -1;
	after_read = NULL;
	unlink(btf_path);
}

/* What the walk hands out. */
struct got {
	size_t n;
	char line[64][600];
};

static int record(void *arg, uint64_t addr, char type, const char *name,
		  const char *module)
{
	struct got *g = arg;

	ck_assert_ptr_nonnull(module);
	if (g->n < 64)
		snprintf(g->line[g->n], sizeof(g->line[0]), "%016llx %c %s\t[%s]",
			 (unsigned long long)addr, type, name, module);
	g->n++;
	return 0;
}

static int walk(struct got *g)
{
	memset(g, 0, sizeof(*g));
	counters_reset();
	return kmemdev__kallsyms_modules(h, HEAD, record, g);
}

/* Every symbol as s_show() prints it: exported ones upper case, nameless skipped. */
START_TEST(walk_lists_modules)
{
	struct got g;
	char want[600];

	ck_assert_int_eq(walk(&g), 0);
	ck_assert_uint_eq(g.n, 7);
	snprintf(want, sizeof(want), "%016llx t a_init\t[mod_a]",
		 (unsigned long long)MOD_BASE(0) + 0x80000);
	ck_assert_str_eq(g.line[0], want);
	snprintf(want, sizeof(want), "%016llx T a_exported\t[mod_a]",
		 (unsigned long long)MOD_BASE(0) + 0x80100);
	ck_assert_str_eq(g.line[1], want);
	snprintf(want, sizeof(want), "%016llx D a_data\t[mod_a]",
		 (unsigned long long)MOD_BASE(0) + 0x90000);
	ck_assert_str_eq(g.line[2], want);
	ck_assert_ptr_nonnull(strstr(g.line[3], " t a_same_value\t[mod_a]"));
	ck_assert_ptr_nonnull(strstr(g.line[4], " t a_wrong_value\t[mod_a]"));
	ck_assert_ptr_nonnull(strstr(g.line[5], " t b_fn\t[mod_b]"));
	ck_assert_ptr_nonnull(strstr(g.line[6], " b b_var\t[mod_b]"));
}
END_TEST

/* module_get_kallsym() copies names into KSYM_NAME_LEN: 511 characters. */
START_TEST(walk_truncates_long_names)
{
	static char longname[700];
	struct fsym s[2] = { { longname, MOD_BASE(0) + 0x80000, 't' },
			     { "after", MOD_BASE(0) + 0x80010, 't' } };
	struct got g;

	memset(longname, 'x', sizeof(longname) - 1);
	put_module(0, "mod_a", s, 2, NULL, 0);
	link_modules((const int[]){ 0, 1 }, 2);
	ck_assert_int_eq(walk(&g), 0);
	ck_assert_uint_eq(g.n, 4);
	ck_assert_uint_eq(strlen(strchr(g.line[0], 'x')), 511 + strlen("\t[mod_a]"));
	ck_assert_ptr_nonnull(strstr(g.line[1], " t after\t[mod_a]"));
}
END_TEST

/*
 * A torn st_name of nearly 4 GiB: today's code sized a malloc() and one
 * read by it.  Now the strtab may span at most KSYM_NAME_LEN bytes a
 * symbol, and nothing near that size is read.
 */
START_TEST(torn_name_offset)
{
	struct got g;

	put32(MOD_BASE(0) + AT_SYMTAB + 24 * 2, 0xfffffff0u);
	ck_assert_int_eq(walk(&g), -EAGAIN);
	ck_assert_uint_eq(g.n, 0);
	ck_assert_uint_lt(pread_bytes, 1u << 20);
}
END_TEST

/* Counts past the caps: millions of symbols or exports, never read. */
START_TEST(torn_counts)
{
	static const struct { uint64_t at; uint32_t v; } bad[] = {
		{ MOD_BASE(0) + AT_KALLSYMS + K_NUM, 2000000 },
		{ MOD_BASE(0) + AT_KALLSYMS + K_NUM, MODULE_SYMS_MAX + 1 },
		{ MOD_BASE(1) + M_NUM_SYMS, 3000000 },
		{ MOD_BASE(1) + M_NUM_SYMS, MODULE_SYMS_MAX + 1 },
	};
	struct got g;

	put32(bad[_i].at, bad[_i].v);
	ck_assert_int_eq(walk(&g), -EAGAIN);
	ck_assert_uint_eq(g.n, 0);
	ck_assert_uint_lt(pread_bytes, 1u << 20);
}
END_TEST

/*
 * Pointers that leave the module area, to readable memory that is not
 * the module's: today's code followed each and listed what it found.
 */
START_TEST(pointers_outside_module_area)
{
	static const struct { uint64_t at; bool ex; } bad[] = {
		{ MOD_BASE(0) + M_KALLSYMS, false },
		{ MOD_BASE(0) + AT_KALLSYMS + K_SYMTAB, false },
		{ MOD_BASE(0) + AT_KALLSYMS + K_STRTAB, false },
		{ MOD_BASE(0) + AT_KALLSYMS + K_TYPETAB, false },
		{ MOD_BASE(0) + M_SYMS, false },
		{ MOD_BASE(0) + AT_EXPORTS, true },	/* an export's name */
	};
	struct got g;

	if (bad[_i].ex)		/* name_offset to vmlinux data: "" there */
		put32(bad[_i].at + 4, (uint32_t)(VMLINUX_DATA - (bad[_i].at + 4)));
	else
		put64(bad[_i].at, VMLINUX_DATA);
	ck_assert_int_eq(walk(&g), -EAGAIN);
	ck_assert_uint_eq(g.n, 0);
}
END_TEST

/* A list node outside the module area (a vmlinux page that looks like one). */
START_TEST(node_outside_module_area)
{
	unsigned char mod[M_SIZE] = { 0 };
	struct got g;

	memcpy(mod + M_LIST, &(uint64_t){ HEAD }, 8);
	memcpy(mod + M_LIST + 8, &(uint64_t){ MOD_BASE(0) + M_LIST }, 8);
	memcpy(mod + M_NAME, "fake", 5);
	mod[M_STATE] = 3;	/* UNFORMED: no tables to follow */
	put(VMLINUX_DATA, mod, sizeof(mod));
	put64(MOD_BASE(0) + M_LIST, VMLINUX_DATA + M_LIST);
	put64(HEAD + 8, VMLINUX_DATA + M_LIST);
	ck_assert_int_eq(walk(&g), -EAGAIN);
	ck_assert_uint_eq(g.n, 0);
}
END_TEST

/*
 * Links that disagree: a node removed under the walk (list_del_rcu()
 * poisons its prev), one whose prev is another node, a head whose prev
 * is not the last node.  Nothing is handed out of a torn walk.
 */
START_TEST(links_disagree)
{
	static const struct { uint64_t at, v; } bad[] = {
		{ MOD_BASE(1) + M_LIST + 8, LIST_POISON2 },
		{ MOD_BASE(1) + M_LIST + 8, MOD_BASE(1) + M_LIST },
		{ MOD_BASE(0) + M_LIST + 8, MOD_BASE(1) + M_LIST },
		{ HEAD + 8, MOD_BASE(0) + M_LIST },
	};
	struct got g;

	put64(bad[_i].at, bad[_i].v);
	ck_assert_int_eq(walk(&g), -EAGAIN);
	ck_assert_uint_eq(g.n, 0);
}
END_TEST

/* A cycle that never comes back to the head: its first link back disagrees. */
START_TEST(list_loops)
{
	struct got g;

	put64(MOD_BASE(1) + M_LIST, MOD_BASE(0) + M_LIST);
	ck_assert_int_eq(walk(&g), -EAGAIN);
	ck_assert_uint_eq(g.n, 0);
	ck_assert_uint_lt(pread_bytes, 1u << 20);
}
END_TEST

/* A module name with no NUL in MODULE_NAME_LEN bytes. */
START_TEST(name_unterminated)
{
	char name[M_NAME_LEN];
	struct got g;

	memset(name, 'n', sizeof(name));
	put(MOD_BASE(1) + M_NAME, name, sizeof(name));
	ck_assert_int_eq(walk(&g), -EAGAIN);
	ck_assert_uint_eq(g.n, 0);
}
END_TEST

/* Writes the fake kernel makes after the @change_after-th read. */
struct change {
	uint64_t at, v;
};
static struct change changes[4];
static size_t nchanges, change_after;

static void apply_changes(size_t nth)
{
	if (nth != change_after)
		return;
	/* not through put(): pwrite() is not counted anyway */
	for (size_t i = 0; i < nchanges; i++)
		ck_assert_int_eq(pwrite(memfd, &changes[i].v, 8,
					KMEM_RO_READ_OFFSET(changes[i].at)), 8);
}

/*
 * mod_a is read (the head, it, its kallsyms: three reads), then its
 * tables; before the second look at it, it goes (list_del_rcu(): prev
 * poisoned, the head relinked to mod_b) or its kallsyms moves from the
 * init copy to core_kallsyms (do_init_module()).  The walk starts again
 * and hands out the second walk's symbols, once.
 */
START_TEST(changed_while_read_walks_again)
{
	struct got g;

	if (_i == 0) {
		changes[0] = (struct change){ MOD_BASE(0) + M_LIST + 8, LIST_POISON2 };
		changes[1] = (struct change){ HEAD, MOD_BASE(1) + M_LIST };
		changes[2] = (struct change){ MOD_BASE(1) + M_LIST + 8, HEAD };
		nchanges = 3;
	} else {
		/* the init copy: the same tables, elsewhere */
		for (int k = 0; k < 4; k++)
			put64(MOD_BASE(0) + AT_KALLSYMS + 0x40 + 8 * k,
			      get64(MOD_BASE(0) + AT_KALLSYMS + 8 * k));
		put64(MOD_BASE(0) + M_KALLSYMS, MOD_BASE(0) + AT_KALLSYMS + 0x40);
		changes[0] = (struct change){ MOD_BASE(0) + M_KALLSYMS,
					      MOD_BASE(0) + AT_KALLSYMS };
		nchanges = 1;
	}
	change_after = 3;
	after_read = apply_changes;
	ck_assert_int_eq(walk(&g), 0);
	ck_assert_uint_eq(g.n, _i == 0 ? 2 : 7);
	ck_assert_uint_eq(head_reads, 2);	/* one walk more */
	ck_assert_ptr_nonnull(strstr(g.line[g.n - 1], " b b_var\t[mod_b]"));
}
END_TEST

/* A list that stays torn: MODWALK_TRIES walks, then -EAGAIN. */
START_TEST(gives_up_after_tries)
{
	struct got g;

	put64(MOD_BASE(1) + M_LIST + 8, LIST_POISON2);
	ck_assert_int_eq(walk(&g), -EAGAIN);
	ck_assert_uint_eq(head_reads, MODWALK_TRIES);
}
END_TEST

/*
 * A byte budget per walk: modules whose tables are each under the caps
 * but add up to more than MODWALK_BUDGET.  -E2BIG, after MODWALK_TRIES
 * walks that each stopped at the budget.
 */
START_TEST(budget_per_walk)
{
	enum { N = 48 };	/* 48 x (6 MiB + 256 KiB) > 256 MiB */
	int idx[N];
	struct got g;

	for (int i = 0; i < N; i++) {
		uint64_t base = MOD_BASE(2 + i);
		unsigned char mod[M_SIZE] = { 0 };

		memcpy(mod + M_NAME, "big", 4);
		memcpy(mod + M_KALLSYMS, &(uint64_t){ base + AT_KALLSYMS }, 8);
		put(base, mod, sizeof(mod));
		/* all share one table of nameless symbols (zeros) */
		put64(base + AT_KALLSYMS + K_SYMTAB, MOD_LO + 0x10000000);
		put32(base + AT_KALLSYMS + K_NUM, MODULE_SYMS_MAX);
		put64(base + AT_KALLSYMS + K_STRTAB, MOD_LO + 0x20000000);
		put64(base + AT_KALLSYMS + K_TYPETAB, MOD_LO + 0x18000000);
		idx[i] = 2 + i;
	}
	put(MOD_LO + 0x10000000 + (size_t)MODULE_SYMS_MAX * 24 - 1, "", 1);
	put(MOD_LO + 0x18000000 + MODULE_SYMS_MAX - 1, "", 1);
	put(MOD_LO + 0x20000000, "", 1);
	link_modules(idx, N);
	ck_assert_int_eq(walk(&g), -E2BIG);
	ck_assert_uint_eq(g.n, 0);
	ck_assert_uint_eq(head_reads, MODWALK_TRIES);
	ck_assert_uint_le(pread_bytes, MODWALK_TRIES * MODWALK_BUDGET);
	/* fewer such modules fit */
	link_modules(idx, 4);
	ck_assert_int_eq(walk(&g), 0);
}
END_TEST

/*
 * 1000 exports: their names come in one read, not one each; a module's
 * tables in one READV.  Each export is found by name and value.
 */
START_TEST(exports_batched)
{
	enum { NEX = 1000 };
	static struct fsym s[NEX], ex[NEX];
	static char names[NEX][16];
	struct got g;

	for (int i = 0; i < NEX; i++) {
		snprintf(names[i], sizeof(names[i]), "e%04d", i);
		s[i] = (struct fsym){ names[i], MOD_BASE(0) + 0x80000 + 16 * i, 't' };
		ex[i] = (struct fsym){ names[i], s[i].value, 0 };
	}
	/* the last one's export has another value: not "global" */
	ex[NEX - 1].value += 8;
	put_module(0, "mod_a", s, NEX, ex, NEX);
	link_modules((const int[]){ 0, 1 }, 2);
	ck_assert_int_eq(walk(&g), 0);
	ck_assert_uint_eq(g.n, NEX + 2);
	ck_assert_ptr_nonnull(strstr(g.line[0], " T e0000\t[mod_a]"));
	ck_assert_ptr_nonnull(strstr(g.line[63], " T e0063\t[mod_a]"));
	/* two modules: 2 READVs of tables; the rest a handful of reads each */
	ck_assert_uint_eq(readvs, 2);
	ck_assert_uint_le(preads, 2 * 8 + 2);
}
END_TEST

START_TEST(last_export_value_differs)
{
	enum { NEX = 3 };
	struct fsym s[NEX] = {
		{ "x0", MOD_BASE(0) + 0x80000, 't' }, { "x1", MOD_BASE(0) + 0x80010, 't' },
		{ "x2", MOD_BASE(0) + 0x80020, 't' },
	};
	struct fsym ex[NEX] = { { "x2", MOD_BASE(0) + 0x80020, 0 },
				{ "x0", MOD_BASE(0) + 0x80000, 0 },
				{ "x1", MOD_BASE(0) + 0x80018, 0 } };
	struct got g;

	put_module(0, "mod_a", s, NEX, ex, NEX);
	link_modules((const int[]){ 0, 1 }, 2);
	ck_assert_int_eq(walk(&g), 0);
	ck_assert_ptr_nonnull(strstr(g.line[0], " T x0\t[mod_a]"));
	ck_assert_ptr_nonnull(strstr(g.line[1], " t x1\t[mod_a]"));
	ck_assert_ptr_nonnull(strstr(g.line[2], " T x2\t[mod_a]"));
}
END_TEST

/* Without a module area from INFO nothing can be checked: not walked. */
START_TEST(needs_module_area)
{
	struct got g;

	h->info.modules_start = h->info.modules_end = 0;
	ck_assert_int_eq(walk(&g), -EOPNOTSUPP);
	ck_assert_uint_eq(preads, 0);
}
END_TEST

static Suite *modsyms_suite(void)
{
	Suite *s = suite_create("modsyms");
	TCase *tc = tcase_create("walk");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, walk_lists_modules);
	tcase_add_test(tc, walk_truncates_long_names);
	tcase_add_test(tc, exports_batched);
	tcase_add_test(tc, last_export_value_differs);
	tcase_add_test(tc, needs_module_area);
	suite_add_tcase(s, tc);

	tc = tcase_create("torn");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, torn_name_offset);
	tcase_add_loop_test(tc, torn_counts, 0, 4);
	tcase_add_loop_test(tc, pointers_outside_module_area, 0, 6);
	tcase_add_test(tc, node_outside_module_area);
	tcase_add_loop_test(tc, links_disagree, 0, 4);
	tcase_add_test(tc, list_loops);
	tcase_add_test(tc, name_unterminated);
	tcase_add_loop_test(tc, changed_while_read_walks_again, 0, 2);
	tcase_add_test(tc, gives_up_after_tries);
	tcase_add_test(tc, budget_per_walk);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(modsyms_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
