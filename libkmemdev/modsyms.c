// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Module symbols through the device: the kernel's module list (the
 * "modules" list_head) and each module's kallsyms, as module_get_kallsym()
 * and s_show() print them (kernel/module/kallsyms.c, kernel/kallsyms.c;
 * the same in 6.1, 6.12 and 7.3), member offsets from BTF.
 *
 * Nothing here holds the kernel's locks.  A module that leaves while it is
 * read (free_module(): state UNFORMED, list_del_rcu(), synchronize_rcu(),
 * then its memory freed) or ends its init (do_init_module(): mod->kallsyms
 * moves from the init copy to core_kallsyms, the init memory freed) leaves
 * torn data: any count, size or pointer.  So the walk trusts none of it:
 *
 *  - every count and size has a cap from the kernel (below), and every
 *    pointer it follows must lie in the module area (INFO's modules_start
 *    and modules_end: module_alloc() in 6.1, execmem's ranges in 6.12 and
 *    7.3 on x86-64, arch/x86/mm/init.c), struct module included (the
 *    .gnu.linkonce.this_module section of the module's own data);
 *  - each node's links must agree with the walk: node->prev is the node it
 *    came from (list_del_rcu() poisons a removed node's prev and relinks
 *    its neighbours), checked when the node is read and again, with its
 *    kallsyms pointer and memory bases, after its tables are read: a node
 *    still linked then was not freed while they were read; at the end the
 *    head's prev must be the last node;
 *  - one walk reads and keeps at most MODWALK_BUDGET bytes;
 *  - the symbols are gathered first and handed out only after a whole
 *    walk passed every check; a walk that did not starts again, up to
 *    MODWALK_TRIES times, then -EAGAIN (-E2BIG if the last one ran out of
 *    budget).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "internal.h"

/* include/linux/kallsyms.h, 6.1+: module_get_kallsym() truncates to it. */
#define KSYM_NAME_LEN		512
/* MODULE_NAME_LEN is 64 - sizeof(unsigned long) in 6.1, 6.12 and 7.3. */
#define MODULE_NAME_MAX		64
/*
 * Symbols (mod_kallsyms.num_symtab) or exports (num_syms) of one module.
 * The largest module of Debian's 6.12, amdgpu, has 45,103 ELF symbols
 * (kallsyms keeps those of allocated sections after init); this is over
 * five times that.
 */
#define MODULE_SYMS_MAX		(1u << 18)
/* Modules on the list: Debian's 6.12 ships 4,230; more is a list that loops. */
#define MODULES_MAX		16384
/*
 * Bytes one walk reads and keeps.  Every module of Debian's 6.12 loaded at
 * once (4,230 of them, 1.12 million ELF symbols, 17.8 MiB of names) would
 * take about 125 MiB: 45 MiB of tables read, the entries and names kept
 * (allocated by doubling); a real system needs a tenth of that.
 */
#define MODWALK_BUDGET		((size_t)256 << 20)
/* Whole walks before the list counts as changing too fast to read. */
#define MODWALK_TRIES		5
/*
 * Memory bases compared before and after a module's tables are read:
 * 6.4+ has one per enum mod_mem_type (7), 6.1 core and init layouts.
 */
#define BASES_MAX		16

/* Elf64_Sym: st_name at 0, st_value at 8, 24 bytes. */
#define ELF_SYM_SIZE		24
/* MODULE_STATE_UNFORMED: the same value in 6.1, 6.12 and 7.3. */
#define MODULE_STATE_UNFORMED	3

/* Offsets from BTF of the members the walk reads. */
struct module_layout {
	uint32_t list, state, name, name_size, kallsyms, syms, num_syms;
	uint32_t symtab, num_symtab, strtab, typetab;
	uint32_t base[BASES_MAX];	/* of each memory region's base */
	unsigned int nbases;
	uint32_t ksym_size;		/* struct kernel_symbol */
	bool ksym_prel32;		/* {int value_offset, name_offset, ...} */
	size_t mod_len;			/* bytes of struct module read */
	size_t ks_len;			/* bytes of struct mod_kallsyms read */
};

static void grow_to(size_t *len, size_t end)
{
	if (*len < end)
		*len = end;
}

/* Where each region's base is: mem[i].base (6.4+), or core/init_layout.base. */
static int layout_bases(struct kmemdev *h, struct module_layout *l)
{
	static const char *const old[] = { "core_layout", "init_layout" };
	const struct btf *btf;
	uint32_t off, size, base_off;
	long elem;
	int id, err;

	if (!kmemdev_btf_member(h, "module", "mem", &off, &size)) {
		err = kmemdev_btf_member(h, "module_memory", "base", &base_off, NULL);
		if (!err)
			err = kmemdev_btf(h, &btf);
		if (err)
			return err;
		id = btf__find_by_name_kind(btf, "module_memory", BTF_KIND_STRUCT);
		elem = id > 0 ? btf__resolve_size(btf, (uint32_t)id) : -1;
		if (elem <= 0 || size % elem)
			return -EPROTO;
		for (uint32_t i = 0; i < size / elem && l->nbases < BASES_MAX; i++)
			l->base[l->nbases++] = off + i * (uint32_t)elem + base_off;
		return 0;
	}
	for (size_t i = 0; i < sizeof(old) / sizeof(old[0]); i++) {
		if (kmemdev_btf_member(h, "module", old[i], &off, NULL))
			continue;
		err = kmemdev_btf_member(h, "module_layout", "base", &base_off, NULL);
		if (err)
			return err;
		l->base[l->nbases++] = off + base_off;
	}
	return 0;
}

static int module_layout(struct kmemdev *h, struct module_layout *l)
{
	static const struct {
		const char *type, *member;
		size_t at;
	} want[] = {
		{ "module", "list", offsetof(struct module_layout, list) },
		{ "module", "state", offsetof(struct module_layout, state) },
		{ "module", "kallsyms", offsetof(struct module_layout, kallsyms) },
		{ "module", "syms", offsetof(struct module_layout, syms) },
		{ "module", "num_syms", offsetof(struct module_layout, num_syms) },
		{ "mod_kallsyms", "symtab", offsetof(struct module_layout, symtab) },
		{ "mod_kallsyms", "num_symtab", offsetof(struct module_layout, num_symtab) },
		{ "mod_kallsyms", "strtab", offsetof(struct module_layout, strtab) },
		{ "mod_kallsyms", "typetab", offsetof(struct module_layout, typetab) },
	};
	uint32_t off, size;
	size_t i;
	int err;

	memset(l, 0, sizeof(*l));
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		err = kmemdev_btf_member(h, want[i].type, want[i].member,
					 (uint32_t *)((char *)l + want[i].at), NULL);
		if (err)
			return err;
	}
	err = kmemdev_btf_member(h, "module", "name", &l->name, &l->name_size);
	if (err)
		return err;
	if (!l->name_size || l->name_size > MODULE_NAME_MAX)
		return -EPROTO;
	err = layout_bases(h, l);
	if (err)
		return err;
	/* CONFIG_HAVE_ARCH_PREL32_RELOCATIONS (x86_64) or plain pointers. */
	l->ksym_prel32 = !kmemdev_btf_member(h, "kernel_symbol", "namespace_offset",
					     &off, &size);
	l->ksym_size = l->ksym_prel32 ? 3 * 4 : 3 * 8;

	grow_to(&l->mod_len, (size_t)l->list + 16);
	grow_to(&l->mod_len, (size_t)l->state + 4);
	grow_to(&l->mod_len, (size_t)l->name + l->name_size);
	grow_to(&l->mod_len, (size_t)l->kallsyms + 8);
	grow_to(&l->mod_len, (size_t)l->syms + 8);
	grow_to(&l->mod_len, (size_t)l->num_syms + 4);
	for (i = 0; i < l->nbases; i++)
		grow_to(&l->mod_len, (size_t)l->base[i] + 8);
	/* struct mod_kallsyms may end its allocation: read only what is used */
	grow_to(&l->ks_len, (size_t)l->symtab + 8);
	grow_to(&l->ks_len, (size_t)l->num_symtab + 4);
	grow_to(&l->ks_len, (size_t)l->strtab + 8);
	grow_to(&l->ks_len, (size_t)l->typetab + 8);
	if (l->mod_len > 4096 || l->ks_len > 64)
		return -EPROTO;
	return 0;
}

static uint64_t get_u64(const unsigned char *buf, uint32_t off)
{
	uint64_t v;

	memcpy(&v, buf + off, sizeof(v));
	return v;
}

static uint32_t get_u32(const unsigned char *buf, uint32_t off)
{
	uint32_t v;

	memcpy(&v, buf + off, sizeof(v));
	return v;
}

/* One symbol of the snapshot: offsets into the walk's strings. */
struct msym {
	uint64_t addr;
	uint32_t name, module;
	char type;
};

struct walk {
	struct kmemdev *h;
	const struct module_layout *l;
	uint64_t lo, hi;		/* the module area */
	size_t budget;			/* bytes this walk may still read or keep */
	struct msym *syms;
	size_t nsyms, cap;
	char *strings;
	size_t len, strcap;
};

/* A walk that must start again: the list changed, or its data is torn. */
#define TORN	(-EAGAIN)

static int charge(struct walk *w, size_t n)
{
	if (n > w->budget)
		return -E2BIG;
	w->budget -= n;
	return 0;
}

/* [addr, addr + len) inside the module area. */
static bool in_area(const struct walk *w, uint64_t addr, uint64_t len)
{
	return len <= w->hi - w->lo && addr >= w->lo &&
	       addr - w->lo <= w->hi - w->lo - len;
}

/*
 * A read of module memory: charged to the budget, and any failure but
 * ENOMEM means the memory went away (or never was the module's).
 */
static int read_mod(struct walk *w, uint64_t addr, void *buf, size_t len)
{
	int err = charge(w, len);

	if (!err && len)
		err = kmemdev__read_scratch(w->h, addr, buf, len);
	return err && err != -ENOMEM && err != -E2BIG ? TORN : err;
}

/*
 * Several reads of module memory: one READV where the driver has it (one
 * system call for a module's tables), else one read each.
 */
static int read_mod_v(struct walk *w, struct kmem_ro_iov *iov, unsigned int n)
{
	unsigned int i, k = 0;
	size_t total = 0;
	int err;

	for (i = 0; i < n; i++) {
		total += iov[i].len;
		if (iov[i].len)
			iov[k++] = iov[i];
	}
	err = charge(w, total);
	if (err)
		return err;
	if (k < 2 || kmemdev__feature(w->h, KMEM_RO_FEAT_READV)) {
		for (i = 0; i < k && !err; i++)
			err = kmemdev__read_scratch(w->h, iov[i].addr,
						    (void *)(uintptr_t)iov[i].buf,
						    iov[i].len);
	} else {
		err = kmemdev_readv(w->h, iov, k, NULL);
		for (i = 0; i < k && !err; i++)
			if (iov[i].result != (int64_t)iov[i].len)
				err = -EFAULT;
	}
	return err && err != -ENOMEM ? TORN : err;
}

/*
 * A NUL-terminated string of at most @cap - 1 bytes at @addr in the module
 * area, a page at a time (it may end the allocation).
 */
static int read_cstr(struct walk *w, uint64_t addr, char *buf, size_t cap)
{
	uint64_t page = w->h->info.page_size ? w->h->info.page_size : 4096;
	size_t got = 0;
	int err;

	while (got < cap - 1) {
		size_t n = page - (addr + got) % page;

		if (n > cap - 1 - got)
			n = cap - 1 - got;
		if (!in_area(w, addr + got, n))
			return TORN;
		err = read_mod(w, addr + got, buf + got, n);
		if (err)
			return err;
		if (memchr(buf + got, '\0', n))
			return 0;
		got += n;
	}
	buf[cap - 1] = '\0';
	return 0;
}

static int grow(struct walk *w, void **buf, size_t *cap, size_t need, size_t elem)
{
	size_t ncap = *cap ? *cap : 4096;
	void *p;

	if (need <= *cap)
		return 0;
	while (ncap < need)
		ncap *= 2;
	/* kept bytes count as read ones: what is allocated, not what is used */
	if (charge(w, (ncap - *cap) * elem))
		return -E2BIG;
	p = realloc(*buf, ncap * elem);
	if (!p)
		return -ENOMEM;
	*buf = p;
	*cap = ncap;
	return 0;
}

static int intern(struct walk *w, const char *s, size_t n, uint32_t *off)
{
	int err = grow(w, (void **)&w->strings, &w->strcap, w->len + n + 1, 1);

	if (err)
		return err;
	memcpy(w->strings + w->len, s, n);
	w->strings[w->len + n] = '\0';
	*off = (uint32_t)w->len;
	w->len += n + 1;
	return 0;
}

static int keep(struct walk *w, uint64_t addr, char type, const char *name,
		size_t n, uint32_t module)
{
	struct msym *s;
	int err;

	err = grow(w, (void **)&w->syms, &w->cap, w->nsyms + 1, sizeof(*s));
	if (err)
		return err;
	s = &w->syms[w->nsyms];
	err = intern(w, name, n, &s->name);
	if (err)
		return err;
	s->addr = addr;
	s->type = type;
	s->module = module;
	w->nsyms++;
	return 0;
}

/* One export (mod->syms[i]): its value and where its name is. */
struct export {
	uint64_t value;
	const char *name;
};

static int cmp_export(const void *pa, const void *pb)
{
	const struct export *a = pa, *b = pb;

	if (a->value != b->value)
		return a->value < b->value ? -1 : 1;
	return strcmp(a->name, b->name);
}

/*
 * is_exported() (kernel/module/kallsyms.c): an export of that name with
 * that value.  @ex is sorted by value, then name: a binary search.
 */
static bool is_exported(const struct export *ex, uint32_t n, const char *name,
			uint64_t value)
{
	struct export key = { value, name };

	return n && bsearch(&key, ex, n, sizeof(*ex), cmp_export);
}

/* What one module's tables are, from its struct mod_kallsyms. */
struct mod_tables {
	uint64_t symtab, strtab, typetab, syms;
	uint32_t nsym, nex;
};

/* Read a run of strings [lo, hi] (@hi: the last one's start) into *out. */
static int read_strings(struct walk *w, uint64_t lo, uint64_t hi, char **out)
{
	size_t span = (size_t)(hi - lo);
	char *buf;
	int err;

	buf = malloc(span + KSYM_NAME_LEN + 1);
	if (!buf)
		return -ENOMEM;
	err = read_mod(w, lo, buf, span);
	if (!err)
		err = read_cstr(w, hi, buf + span, KSYM_NAME_LEN + 1);
	if (err) {
		free(buf);
		return err;
	}
	buf[span + KSYM_NAME_LEN] = '\0';
	*out = buf;
	return 0;
}

/*
 * mod->syms, sorted for is_exported(); names from __ksymtab_strings, one
 * read for all of them: each export's name and namespace lie there
 * (include/linux/export-internal.h), so the names of @t->nex exports span
 * at most @t->nex * 2 * KSYM_NAME_LEN bytes.
 */
static int module_exports(struct walk *w, const struct mod_tables *t,
			  const unsigned char *raw, struct export **out,
			  char **names)
{
	const struct module_layout *l = w->l;
	uint64_t *at, lo = UINT64_MAX, hi = 0;
	struct export *ex;
	uint32_t i;
	int err;

	*out = NULL;
	*names = NULL;
	if (!t->nex)
		return 0;
	at = malloc(t->nex * sizeof(*at));
	if (!at)
		return -ENOMEM;
	for (i = 0; i < t->nex; i++) {
		uint64_t ks = t->syms + (uint64_t)i * l->ksym_size;
		const unsigned char *p = raw + (size_t)i * l->ksym_size;

		/* offset_to_ptr() of each field, or plain pointers */
		at[i] = l->ksym_prel32 ? ks + 4 + (int64_t)(int32_t)get_u32(p, 4) :
					 get_u64(p, 8);
		if (!in_area(w, at[i], 1)) {
			free(at);
			return TORN;
		}
		lo = at[i] < lo ? at[i] : lo;
		hi = at[i] > hi ? at[i] : hi;
	}
	if (hi - lo > (uint64_t)t->nex * 2 * KSYM_NAME_LEN) {
		free(at);
		return TORN;
	}
	err = read_strings(w, lo, hi, names);
	ex = err ? NULL : malloc(t->nex * sizeof(*ex));
	if (!err && !ex)
		err = -ENOMEM;
	if (err) {
		free(at);
		free(*names);
		*names = NULL;
		return err;
	}
	for (i = 0; i < t->nex; i++) {
		const unsigned char *p = raw + (size_t)i * l->ksym_size;
		uint64_t ks = t->syms + (uint64_t)i * l->ksym_size;

		ex[i].value = l->ksym_prel32 ? ks + (int64_t)(int32_t)get_u32(p, 0) :
					       get_u64(p, 0);
		ex[i].name = *names + (at[i] - lo);
	}
	free(at);
	qsort(ex, t->nex, sizeof(*ex), cmp_export);
	*out = ex;
	return 0;
}

/* Counts and pointers of struct mod_kallsyms, checked against the caps. */
static int module_tables(struct walk *w, const unsigned char *mod,
			 struct mod_tables *t)
{
	const struct module_layout *l = w->l;
	unsigned char ks[64];
	uint64_t kallsyms = get_u64(mod, l->kallsyms);
	int err;

	if (!in_area(w, kallsyms, l->ks_len))
		return TORN;
	err = read_mod(w, kallsyms, ks, l->ks_len);
	if (err)
		return err;
	t->symtab = get_u64(ks, l->symtab);
	t->nsym = get_u32(ks, l->num_symtab);
	t->strtab = get_u64(ks, l->strtab);
	t->typetab = get_u64(ks, l->typetab);
	t->syms = get_u64(mod, l->syms);
	t->nex = get_u32(mod, l->num_syms);
	if (t->nsym > MODULE_SYMS_MAX || t->nex > MODULE_SYMS_MAX)
		return TORN;
	if (t->nsym && (!in_area(w, t->symtab, (uint64_t)t->nsym * ELF_SYM_SIZE) ||
			!in_area(w, t->typetab, t->nsym)))
		return TORN;
	if (t->nex && !in_area(w, t->syms, (uint64_t)t->nex * l->ksym_size))
		return TORN;
	return 0;
}

/* One module's symbols into the snapshot, as module_get_kallsym() gives them. */
static int module_symbols(struct walk *w, const unsigned char *mod)
{
	const struct module_layout *l = w->l;
	struct mod_tables t;
	unsigned char *symtab = NULL, *types = NULL, *raw = NULL;
	char *strtab = NULL, *exnames = NULL;
	struct export *ex = NULL;
	uint32_t i, modname, max_name = 0;
	int err;

	err = module_tables(w, mod, &t);
	if (err || !t.nsym)
		return err;
	symtab = malloc((size_t)t.nsym * ELF_SYM_SIZE);
	types = malloc(t.nsym);
	raw = malloc((size_t)t.nex * l->ksym_size + 1);
	if (!symtab || !types || !raw) {
		err = -ENOMEM;
		goto out;
	}
	err = read_mod_v(w, (struct kmem_ro_iov[]){
		{ .addr = t.symtab, .len = (uint64_t)t.nsym * ELF_SYM_SIZE,
		  .buf = (uintptr_t)symtab },
		{ .addr = t.typetab, .len = t.nsym, .buf = (uintptr_t)types },
		{ .addr = t.syms, .len = (uint64_t)t.nex * l->ksym_size,
		  .buf = (uintptr_t)raw },
	}, 3);
	if (err)
		goto out;
	for (i = 0; i < t.nsym; i++)
		if (get_u32(symtab + (size_t)i * ELF_SYM_SIZE, 0) > max_name)
			max_name = get_u32(symtab + (size_t)i * ELF_SYM_SIZE, 0);
	/*
	 * add_kallsyms() packs the kept names one after another, so no name
	 * starts KSYM_NAME_LEN bytes a symbol or more into the strtab.
	 */
	if (max_name >= (uint64_t)t.nsym * KSYM_NAME_LEN ||
	    !in_area(w, t.strtab, (uint64_t)max_name + 1)) {
		err = TORN;
		goto out;
	}
	err = read_strings(w, t.strtab, t.strtab + max_name, &strtab);
	if (!err)
		err = module_exports(w, &t, raw, &ex, &exnames);
	if (!err)
		err = intern(w, (const char *)mod + l->name,
			     strlen((const char *)mod + l->name), &modname);
	for (i = 0; i < t.nsym && !err; i++) {
		const unsigned char *s = symtab + (size_t)i * ELF_SYM_SIZE;
		const char *name = strtab + get_u32(s, 0);
		size_t n = strnlen(name, KSYM_NAME_LEN - 1);
		uint64_t value = get_u64(s, 8);
		char type = (char)types[i], trunc[KSYM_NAME_LEN];

		if (!n)		/* s_show() skips nameless symbols */
			continue;
		memcpy(trunc, name, n);
		trunc[n] = '\0';
		/* s_show(): "global" if exported, "local" if not */
		if (is_exported(ex, t.nex, trunc, value))
			type = type >= 'a' && type <= 'z' ? type - 'a' + 'A' : type;
		else
			type = type >= 'A' && type <= 'Z' ? type - 'A' + 'a' : type;
		err = keep(w, value, type, trunc, n, modname);
	}
out:
	free(ex);
	free(exnames);
	free(strtab);
	free(raw);
	free(types);
	free(symtab);
	return err;
}

/*
 * What must not change while a module's tables are read: its links back,
 * its name, kallsyms pointer, exports and memory bases.
 */
static bool same_module(const struct module_layout *l, const unsigned char *a,
			const unsigned char *b)
{
	if (memcmp(a + l->list + 8, b + l->list + 8, 8) ||
	    memcmp(a + l->name, b + l->name, l->name_size) ||
	    memcmp(a + l->kallsyms, b + l->kallsyms, 8) ||
	    memcmp(a + l->syms, b + l->syms, 8) ||
	    memcmp(a + l->num_syms, b + l->num_syms, 4))
		return false;
	for (unsigned int i = 0; i < l->nbases; i++)
		if (memcmp(a + l->base[i], b + l->base[i], 8))
			return false;
	return true;
}

/*
 * The node whose list_head is at @link, reached from @prev: its symbols
 * into the snapshot, its next link into *next.
 */
static int module_node(struct walk *w, uint64_t link, uint64_t prev,
		       unsigned char *mod, unsigned char *again, uint64_t *next)
{
	const struct module_layout *l = w->l;
	uint64_t node = link - l->list;
	int err;

	if (link < l->list || !in_area(w, node, l->mod_len))
		return TORN;
	err = read_mod(w, node, mod, l->mod_len);
	if (err)
		return err;
	if (get_u64(mod, l->list + 8) != prev ||
	    !memchr(mod + l->name, '\0', l->name_size))
		return TORN;
	if (get_u32(mod, l->state) != MODULE_STATE_UNFORMED) {
		err = module_symbols(w, mod);
		if (err)
			return err;
		/* still linked where it was: not freed while its tables were read */
		err = read_mod(w, node, again, l->mod_len);
		if (err)
			return err;
		if (!same_module(l, mod, again))
			return TORN;
		mod = again;
	}
	*next = get_u64(mod, l->list);
	return 0;
}

/* One walk of the list at @head into the snapshot. */
static int walk_once(struct walk *w, uint64_t head)
{
	const struct module_layout *l = w->l;
	unsigned char *mod, *again;
	uint64_t links[2], prev = head, link;
	unsigned int n = 0;
	int err;

	mod = malloc(l->mod_len);
	again = malloc(l->mod_len);
	if (!mod || !again) {
		free(mod);
		free(again);
		return -ENOMEM;
	}
	/* &modules is vmlinux's: any kernel address, its errors its own */
	err = kmemdev_read(w->h, head, links, sizeof(links));
	link = links[0];
	while (!err && link != head) {
		uint64_t next;

		if (++n > MODULES_MAX) {
			err = TORN;
			break;
		}
		err = module_node(w, link, prev, mod, again, &next);
		prev = link;
		link = next;
	}
	/* the list ends where the head says it does */
	if (!err)
		err = kmemdev_read(w->h, head + 8, &link, sizeof(link));
	if (!err && link != prev)
		err = TORN;
	free(mod);
	free(again);
	return err;
}

static void walk_reset(struct walk *w)
{
	free(w->syms);
	free(w->strings);
	w->syms = NULL;
	w->strings = NULL;
	w->nsyms = w->cap = w->len = w->strcap = 0;
	w->budget = MODWALK_BUDGET;
}

int kmemdev__kallsyms_modules(struct kmemdev *h, uint64_t head,
			      kmemdev__sym_fn fn, void *arg)
{
	struct module_layout l;
	struct walk w = { .h = h, .l = &l };
	int err, tries = 0;

	if (!h || !fn)
		return -EINVAL;
	if (h->info.modules_start >= h->info.modules_end)
		return -EOPNOTSUPP;
	w.lo = h->info.modules_start;
	w.hi = h->info.modules_end;
	err = module_layout(h, &l);
	if (err)
		return err;
	do {
		walk_reset(&w);
		err = walk_once(&w, head);
	} while ((err == TORN || err == -E2BIG) && ++tries < MODWALK_TRIES);
	for (size_t i = 0; !err && i < w.nsyms; i++)
		err = fn(arg, w.syms[i].addr, w.syms[i].type,
			 w.strings + w.syms[i].name, w.strings + w.syms[i].module);
	free(w.syms);
	free(w.strings);
	return err;
}
