// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Kernel symbols: from /proc/kallsyms where it shows real addresses, else
 * from the kernel's own tables through the device (kallsyms.c).
 *
 * Lines look like "ffffffff81000000 T _text" or, for modules,
 * "ffffffffc0a01000 t foo_init\t[foo]".  A full kernel with modules has
 * ~200k of them, so lookups are binary searches over two sorted views
 * instead of a scan.  The table is built once per handle under its mutex
 * and never changes afterwards, so lookups need no lock.  Only an event
 * stream bound to the handle drops it (kmemdev__symbols_invalidate()), at
 * a time its caller guarantees no lookup runs (see kmemdev.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct parser {
	struct kmemdev_sym *syms;	/* name/module hold arena offsets */
	size_t count, cap;
	char *strings;
	size_t len, strcap;
	size_t last_mod;		/* offset + 1 of the last module, 0 if none */
	bool any_nonzero;
};

static int grow(void **buf, size_t *cap, size_t need, size_t elem)
{
	size_t ncap = *cap ? *cap : 4096;
	void *p;

	if (need <= *cap)
		return 0;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2 / elem)
			return -ENOMEM;
		ncap *= 2;
	}
	p = realloc(*buf, ncap * elem);
	if (!p)
		return -ENOMEM;
	*buf = p;
	*cap = ncap;
	return 0;
}

/* Append a NUL-terminated copy of s[0..n) to the arena; returns its offset. */
static int intern(struct parser *ps, const char *s, size_t n, size_t *off)
{
	int err;

	err = grow((void **)&ps->strings, &ps->strcap, ps->len + n + 1, 1);
	if (err)
		return err;
	memcpy(ps->strings + ps->len, s, n);
	ps->strings[ps->len + n] = '\0';
	*off = ps->len;
	ps->len += n + 1;
	return 0;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static bool is_xdigit(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
	       (c >= 'A' && c <= 'F');
}

struct line {
	uint64_t addr;
	char type;
	const char *name, *mod;
	size_t name_len, mod_len;	/* mod_len 0: vmlinux */
};

/* Split one line; false for anything that is not a well-formed entry. */
static bool parse_line(const char *p, struct line *l)
{
	uint64_t v = 0;
	int digits = 0;

	for (; is_xdigit(*p); p++) {
		if (++digits > 16)
			return false;
		v = v << 4 | (uint64_t)(*p <= '9' ? *p - '0' : (*p | 0x20) - 'a' + 10);
	}
	if (!digits || !is_blank(*p))
		return false;
	while (is_blank(*p))
		p++;
	if (!*p || *p == '\n' || !is_blank(p[1]))
		return false;
	l->addr = v;
	l->type = *p++;
	while (is_blank(*p))
		p++;

	l->name = p;
	while (*p && !is_blank(*p) && *p != '\n')
		p++;
	l->name_len = p - l->name;
	if (!l->name_len)
		return false;
	while (is_blank(*p))
		p++;

	l->mod = NULL;
	l->mod_len = 0;
	if (*p == '[') {
		l->mod = ++p;
		while (*p && *p != ']' && *p != '\n')
			p++;
		l->mod_len = p - l->mod;
		if (*p != ']' || !l->mod_len)
			return false;
		p++;
		while (is_blank(*p))
			p++;
	}
	return *p == '\0' || (*p == '\n' && p[1] == '\0');
}

static int add_line(struct parser *ps, const struct line *l)
{
	struct kmemdev_sym *s;
	size_t name_off, mod_off;
	int err;

	if (ps->count >= UINT32_MAX)
		return -EOVERFLOW;
	err = grow((void **)&ps->syms, &ps->cap, ps->count + 1, sizeof(*s));
	if (err)
		return err;
	err = intern(ps, l->name, l->name_len, &name_off);
	if (err)
		return err;
	if (l->mod_len) {
		/* kallsyms lists a module's symbols together: share one copy. */
		const char *last = ps->last_mod ? ps->strings + ps->last_mod - 1 : NULL;

		if (last && strlen(last) == l->mod_len &&
		    !memcmp(last, l->mod, l->mod_len)) {
			mod_off = ps->last_mod;
		} else {
			err = intern(ps, l->mod, l->mod_len, &mod_off);
			if (err)
				return err;
			ps->last_mod = ++mod_off;
		}
	} else {
		mod_off = 0;
	}

	/* Offsets for now: the arena may still move.  Fixed up in build(). */
	s = &ps->syms[ps->count++];
	s->addr = l->addr;
	s->type = l->type;
	s->name = (const char *)(uintptr_t)name_off;
	s->module = (const char *)(uintptr_t)mod_off;
	if (l->addr)
		ps->any_nonzero = true;
	return 0;
}

static bool is_text(char type)
{
	return type == 'T' || type == 't' || type == 'W' || type == 'w';
}

/*
 * Among symbols at one address (aliases), which one names it best: text
 * before data, global before local.  File order breaks the remaining ties.
 */
static int addr_rank(const struct kmemdev_sym *s)
{
	return (is_text(s->type) ? 0 : 2) +
	       (s->type >= 'A' && s->type <= 'Z' ? 0 : 1);
}

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

static int cmp_by_addr(const void *pa, const void *pb, void *arg)
{
	const struct kmemdev_sym *syms = arg;
	uint32_t ia = *(const uint32_t *)pa, ib = *(const uint32_t *)pb;
	const struct kmemdev_sym *a = &syms[ia], *b = &syms[ib];
	int c;

	c = cmp_u64(a->addr, b->addr);
	if (!c)
		c = addr_rank(a) - addr_rank(b);
	return c ? c : cmp_u64(ia, ib);
}

/* Duplicate names: vmlinux before modules, then the lowest address. */
static int cmp_by_name(const void *pa, const void *pb, void *arg)
{
	const struct kmemdev_sym *syms = arg;
	uint32_t ia = *(const uint32_t *)pa, ib = *(const uint32_t *)pb;
	const struct kmemdev_sym *a = &syms[ia], *b = &syms[ib];
	int c;

	c = strcmp(a->name, b->name);
	if (!c)
		c = (a->module != NULL) - (b->module != NULL);
	if (!c)
		c = cmp_u64(a->addr, b->addr);
	return c ? c : cmp_u64(ia, ib);
}

/* Turn the parser's file-ordered entries into the two sorted views. */
static int build(struct parser *ps, struct kmemdev_symtab *tab)
{
	struct kmemdev_sym *by_addr;
	uint32_t *order;
	size_t i;

	tab->count = ps->count;
	tab->strings = ps->strings;
	ps->strings = NULL;
	if (!ps->count)
		return 0;

	for (i = 0; i < ps->count; i++) {
		struct kmemdev_sym *s = &ps->syms[i];
		uintptr_t mod = (uintptr_t)s->module;

		s->name = tab->strings + (uintptr_t)s->name;
		s->module = mod ? tab->strings + mod - 1 : NULL;
	}

	order = malloc(ps->count * sizeof(*order));
	by_addr = malloc(ps->count * sizeof(*by_addr));
	if (!order || !by_addr) {
		free(order);
		free(by_addr);
		return -ENOMEM;
	}
	for (i = 0; i < ps->count; i++)
		order[i] = i;
	qsort_r(order, ps->count, sizeof(*order), cmp_by_addr, ps->syms);
	for (i = 0; i < ps->count; i++)
		by_addr[i] = ps->syms[order[i]];

	/* Reuse the permutation as the name index, now over by_addr. */
	for (i = 0; i < ps->count; i++)
		order[i] = i;
	qsort_r(order, ps->count, sizeof(*order), cmp_by_name, by_addr);

	tab->by_addr = by_addr;
	tab->by_name = order;
	return 0;
}

int kmemdev__symtab_parse(FILE *f, struct kmemdev_symtab *tab)
{
	struct parser ps = { 0 };
	char *buf = NULL;
	size_t bufsz = 0;
	struct line l;
	int err = 0;

	memset(tab, 0, sizeof(*tab));
	errno = 0;
	while (getline(&buf, &bufsz, f) >= 0) {
		if (!parse_line(buf, &l))
			continue;
		err = add_line(&ps, &l);
		if (err)
			goto out;
	}
	if (ferror(f)) {
		err = errno ? -errno : -EIO;
		goto out;
	}
	/* kptr_restrict prints every address as zero: the table would lie. */
	if (ps.count && !ps.any_nonzero) {
		err = -EACCES;
		goto out;
	}
	err = build(&ps, tab);
out:
	if (err) {
		free(tab->strings);
		memset(tab, 0, sizeof(*tab));
	}
	free(ps.syms);
	free(ps.strings);
	free(buf);
	return err;
}

void kmemdev__symtab_free(struct kmemdev_symtab *tab)
{
	free(tab->by_addr);
	free(tab->by_name);
	free(tab->strings);
	memset(tab, 0, sizeof(*tab));
}

int kmemdev__symtab_find(const struct kmemdev_symtab *tab, const char *name,
			 const struct kmemdev_sym **sym)
{
	size_t lo = 0, hi = tab->count;

	/* Lower bound: the first, i.e. preferred, of equal names. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(tab->by_addr[tab->by_name[mid]].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == tab->count || strcmp(tab->by_addr[tab->by_name[lo]].name, name))
		return -ENOENT;
	*sym = &tab->by_addr[tab->by_name[lo]];
	return 0;
}

/* First index whose address is > addr (upper) or >= addr (!upper). */
static size_t addr_bound(const struct kmemdev_symtab *tab, uint64_t addr,
			 bool upper)
{
	size_t lo = 0, hi = tab->count;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t a = tab->by_addr[mid].addr;

		if (a < addr || (upper && a == addr))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int kmemdev__symtab_nearest(const struct kmemdev_symtab *tab, uint64_t addr,
			    const struct kmemdev_sym **sym)
{
	size_t i = addr_bound(tab, addr, true);

	if (!i)
		return -ENOENT;
	/* Step back to the preferred alias at that address. */
	i = addr_bound(tab, tab->by_addr[i - 1].addr, false);
	*sym = &tab->by_addr[i];
	return 0;
}

static bool syms_loaded(const struct kmemdev *h)
{
	return h->sym_loaded;
}

int kmemdev__set_kallsyms_path(struct kmemdev *h, const char *path)
{
	if (!h)
		return -EINVAL;
	return kmemdev__set_path(h, &h->sym_lock, syms_loaded, &h->kallsyms_path, path);
}

static int device_sym(void *arg, uint64_t addr, char type, const char *name,
		      const char *module)
{
	struct line l = {
		.addr = addr,
		.type = type,
		.name = name,
		.name_len = strlen(name),
		.mod = module,
		.mod_len = module ? strlen(module) : 0,
	};

	return add_line(arg, &l);
}

/*
 * The kernel's own tables through the device (kallsyms.c, modsyms.c: the
 * module walk starts again by itself when the list changes under it).
 */
static int load_device(struct kmemdev *h)
{
	struct parser ps = { 0 };
	int err;

	err = kmemdev__kallsyms_read(h, device_sym, &ps);
	if (!err)
		err = build(&ps, &h->syms);
	if (err) {
		free(ps.strings);
		kmemdev__symtab_free(&h->syms);
	}
	free(ps.syms);
	return err;
}

/* Lines read before /proc/kallsyms counts as showing only zeros. */
#define KALLSYMS_PROBE_LINES	1024

/*
 * Does this open /proc/kallsyms show real addresses?  kallsyms_show_value()
 * decides once per open file; a few leading symbols (x86_64 percpu ones)
 * are really at 0, so look until one is not.
 */
static bool shows_addresses(FILE *f)
{
	char *buf = NULL;
	size_t bufsz = 0;
	struct line l;
	bool real = false;
	int n;

	for (n = 0; n < KALLSYMS_PROBE_LINES && getline(&buf, &bufsz, f) >= 0; n++)
		if (parse_line(buf, &l) && l.addr) {
			real = true;
			break;
		}
	free(buf);
	rewind(f);
	return real;
}

static int load(struct kmemdev *h)
{
	const char *path = h->kallsyms_path ? h->kallsyms_path : KMEMDEV_KALLSYMS;
	bool device = !h->kallsyms_path &&
		      !kmemdev__feature(h, KMEM_RO_FEAT_VMCOREINFO);
	FILE *f;
	int err;

	f = fopen(path, "re");
	if (!f) {
		if (device)
			return load_device(h);
		/* ENOENT is reserved for "no such symbol". */
		return errno == ENOENT ? -ENODATA : -errno;
	}
	/* /proc/kallsyms where it shows real addresses, else the device. */
	if (device && !shows_addresses(f)) {
		fclose(f);
		return load_device(h);
	}
	err = kmemdev__symtab_parse(f, &h->syms);
	fclose(f);
	return err;
}

/*
 * Load on first use; a failure sticks unless retrying could help: out of
 * memory, or a module list that kept changing while it was read.
 */
static int symbols(struct kmemdev *h, const struct kmemdev_symtab **tab)
{
	int err;

	pthread_mutex_lock(&h->sym_lock);
	if (h->sym_loaded) {
		err = h->sym_err;
	} else {
		err = load(h);
		if (err != -ENOMEM && err != -EAGAIN) {
			h->sym_loaded = true;
			h->sym_err = err;
		}
	}
	pthread_mutex_unlock(&h->sym_lock);
	*tab = &h->syms;
	return err;
}

/* A by-name answer kept until the table replaces it (see find_one()). */
struct kmemdev_sym_one {
	struct kmemdev_sym_one *next;
	struct kmemdev_sym sym;
	char name[];
};

/* By-name passes before the whole table is worth building. */
#define FIND_ONE_MAX	4

static void found_free(struct kmemdev *h)
{
	while (h->found) {
		struct kmemdev_sym_one *n = h->found->next;

		free(h->found);
		h->found = n;
	}
}

void kmemdev__symbols_invalidate(struct kmemdev *h)
{
	pthread_mutex_lock(&h->sym_lock);
	found_free(h);
	h->find_passes = 0;
	kmemdev__symtab_free(&h->syms);
	h->sym_loaded = false;
	h->sym_err = 0;
	pthread_mutex_unlock(&h->sym_lock);
}

void kmemdev__symbols_release(struct kmemdev *h)
{
	found_free(h);
	kmemdev__symtab_free(&h->syms);
	free(h->kallsyms_path);
	h->kallsyms_path = NULL;
	h->sym_loaded = false;
	h->sym_err = 0;
}

/*
 * A one-shot command needs a symbol or two (init_task): decoding the
 * vmlinux tables through the device for that name costs a fraction of
 * building the sorted table of every symbol (or of reading /proc/kallsyms,
 * which the kernel formats line by line), and needs no BTF.  Same answer:
 * vmlinux wins over modules, the lowest address among equal names, and
 * the device's vmlinux entries are /proc/kallsyms' (tests/vm/
 * kallsyms_test.c).  0 with *sym, or 1: use the table.
 */
/* Keep a by-name answer for the handle's later lookups. */
static int found_add(struct kmemdev *h, const char *name, const struct kmemdev_sym *s)
{
	struct kmemdev_sym_one *one = malloc(sizeof(*one) + strlen(name) + 1);

	if (!one)
		return -ENOMEM;
	strcpy(one->name, name);
	one->sym = *s;
	one->sym.name = one->name;
	one->next = h->found;
	h->found = one;
	return 0;
}

static const struct kmemdev_sym *found_get(const struct kmemdev *h, const char *name)
{
	for (const struct kmemdev_sym_one *one = h->found; one; one = one->next)
		if (!strcmp(one->name, name))
			return &one->sym;
	return NULL;
}

/*
 * Names a pass also looks for, whatever was asked: the bounds of the
 * image, of the per-CPU section and of the BTF (btf.c reads it through
 * the device from there), and where the per-CPU copies are, which
 * one-shot commands ask for next.
 */
static const char *const prefetch[] = {
	KMEMDEV_BTF_START, KMEMDEV_BTF_STOP, "_stext", "_end",
	"__per_cpu_start", "__per_cpu_end", "__per_cpu_offset", "nr_cpu_ids",
};
#define NPREFETCH	(sizeof(prefetch) / sizeof(prefetch[0]))

static int find_one(struct kmemdev *h, const char *name,
		    const struct kmemdev_sym **sym)
{
	const char *names[1 + NPREFETCH] = { name };
	struct kmemdev_sym s[1 + NPREFETCH];
	bool found[1 + NPREFETCH];
	int ret = 1;

	if (h->kallsyms_path || kmemdev__feature(h, KMEM_RO_FEAT_VMCOREINFO))
		return 1;
	pthread_mutex_lock(&h->sym_lock);
	if (h->sym_loaded)
		goto out;
	*sym = found_get(h, name);
	if (*sym) {
		ret = 0;
		goto out;
	}
	memcpy(names + 1, prefetch, sizeof(prefetch));
	if (h->find_passes >= FIND_ONE_MAX ||
	    kmemdev__kallsyms_find_core(h, names, 1 + NPREFETCH, s, found))
		goto out;
	h->find_passes++;
	if (found[1] && found[2]) {
		atomic_store(&h->btf_start, s[1].addr);
		atomic_store(&h->btf_stop, s[2].addr);
	}
	for (size_t i = 0; i < 1 + NPREFETCH; i++)
		if (found[i] && !found_get(h, names[i]) && found_add(h, names[i], &s[i]))
			goto out;
	*sym = found_get(h, name);
	ret = !*sym;	/* not in vmlinux (a module's symbol): the table says */
out:
	pthread_mutex_unlock(&h->sym_lock);
	return ret;
}

int kmemdev_symbol_find(struct kmemdev *h, const char *name,
			const struct kmemdev_sym **sym)
{
	const struct kmemdev_symtab *tab;
	int err;

	if (!h || !name || !sym)
		return -EINVAL;
	if (!find_one(h, name, sym))
		return 0;
	err = symbols(h, &tab);
	if (err)
		return err;
	return kmemdev__symtab_find(tab, name, sym);
}

int kmemdev_symbol(struct kmemdev *h, const char *name, uint64_t *addr)
{
	const struct kmemdev_sym *sym;
	int err;

	if (!addr)
		return -EINVAL;
	err = kmemdev_symbol_find(h, name, &sym);
	if (err)
		return err;
	*addr = sym->addr;
	return 0;
}

int kmemdev_symbolize(struct kmemdev *h, uint64_t addr,
		      const struct kmemdev_sym **sym, uint64_t *offset)
{
	const struct kmemdev_symtab *tab;
	const struct kmemdev_sym *s;
	int err;

	if (!h || !sym)
		return -EINVAL;
	err = symbols(h, &tab);
	if (err)
		return err;
	err = kmemdev__symtab_nearest(tab, addr, &s);
	if (err)
		return err;
	*sym = s;
	if (offset)
		*offset = addr - s->addr;
	return 0;
}
