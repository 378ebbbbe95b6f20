// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's module list (the "modules" list_head), walked once with the
 * fields /proc/modules shows and each memory region: for `modules` and for
 * `watch`, which polls it where module events are not open to the caller.
 * struct module changed in 6.4: one layout per region type (mem[]) instead
 * of core_layout/init_layout; both are read from BTF, so neither is
 * hard-coded.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "kmemctl.h"
#include "kwalk.h"
#include "mem.h"
#include "modlist.h"


enum {
	F_NAME, F_STATE, F_REFCNT,
	/* 6.4+: mem[i].base and mem[i].size from F_MEM on */
	/* before: core_layout and init_layout, data_layout if present */
	F_CORE_BASE, F_CORE_SIZE, F_TEXT_SIZE, F_RO_SIZE, F_RO_AFTER_SIZE,
	F_INIT_BASE, F_INIT_SIZE, F_DATA_BASE, F_DATA_SIZE,
	F_OLD_END,
	F_MEM = F_REFCNT + 1,
};

struct modlayout {
	const struct btf *btf;
	uint32_t module_id;
	struct kplace place[F_MEM + 2 * REGIONS_MAX];
	bool have[F_MEM + 2 * REGIONS_MAX];
	struct kmem_ro_field fields[F_MEM + 2 * REGIONS_MAX];
	unsigned int idx[F_MEM + 2 * REGIONS_MAX];	/* field of each item */
	unsigned int nfields;
	bool mem;			/* 6.4+ layout */
	unsigned int nregions;		/* mem[] entries */
	char region[REGIONS_MAX][24];	/* their names: "text", "rodata" */
	uint64_t link_offset;
	const char *verb;		/* for messages: "modules", "watch" */
};


/* Resolve @path in struct module as item @item; @need: fail if absent. */
static int want(struct modlayout *l, unsigned int item, const char *path,
		bool need)
{
	struct kplace p;
	char bad[64];

	if (ktype_path(l->btf, l->module_id, path, &p, bad, sizeof(bad)) ||
	    p.bit_size || !ktype_size(l->btf, p.type)) {
		if (need)
			kmemctl_fail("%s: struct module.%s: not in this "
				     "kernel's BTF", l->verb, path);
		return need ? -ENOENT : 0;
	}
	l->place[item] = p;
	l->have[item] = true;
	l->idx[item] = l->nfields;
	l->fields[l->nfields].offset = (uint32_t)(p.bit_off / 8);
	l->fields[l->nfields].len = (uint32_t)ktype_size(l->btf, p.type);
	l->nfields++;
	return 0;
}

/* "MOD_RO_AFTER_INIT" -> "ro_after_init"; "MODULE_STATE_LIVE" -> "live". */
void modlist_lower_suffix(char *dst, size_t len, const char *name,
			 const char *prefix)
{
	size_t i, n = strlen(prefix);

	if (!strncmp(name, prefix, n))
		name += n;
	for (i = 0; name[i] && i + 1 < len; i++)
		dst[i] = (char)tolower((unsigned char)name[i]);
	dst[i] = '\0';
}

static int layout(struct ktypes *kt, struct modlayout *l, const char *verb,
		  struct kmemdev *h)
{
	struct kplace link, mem;
	char bad[64], path[48];
	const struct btf_type *t;
	unsigned int i;
	int err;

	memset(l, 0, sizeof(*l));
	l->verb = verb;
	/* the handle's BTF: no second open (refcnt counts each) */
	err = ktypes_load_with(kt, h);
	if (err) {
		kmemctl_err(KMEMDEV_OP_BTF, err, "%s: load BTF", l->verb);
		return err;
	}
	l->btf = kt->vmlinux;
	err = ktypes_find(kt, "struct module", &l->btf, &l->module_id);
	if (!err)
		err = ktype_path(l->btf, l->module_id, "list", &link, bad,
				 sizeof(bad));
	if (err) {
		kmemctl_fail("%s: no struct module with a list member in "
			     "the kernel's BTF", l->verb);
		return -ENOENT;
	}
	l->link_offset = link.bit_off / 8;
	if (want(l, F_NAME, "name", true) || want(l, F_STATE, "state", true))
		return -ENOENT;
	want(l, F_REFCNT, "refcnt.counter", false);

	if (!ktype_path(l->btf, l->module_id, "mem", &mem, bad, sizeof(bad))) {
		uint32_t enum_id = 0;
		const struct btf *eb;

		t = btf__type_by_id(l->btf, ktype_skip(l->btf, mem.type));
		if (!t || !btf_is_array(t))
			return -ENOENT;
		l->mem = true;
		l->nregions = btf_array(t)->nelems;
		if (l->nregions > REGIONS_MAX)
			l->nregions = REGIONS_MAX;
		if (ktypes_find(kt, "enum mod_mem_type", &eb, &enum_id))
			enum_id = 0;
		for (i = 0; i < l->nregions; i++) {
			const char *n = enum_id ?
				ktype_enum_name(l->btf, enum_id, i) : NULL;

			if (n)
				modlist_lower_suffix(l->region[i], sizeof(l->region[i]),
					     n, "MOD_");
			else
				snprintf(l->region[i], sizeof(l->region[i]),
					 "mem%u", i);
			snprintf(path, sizeof(path), "mem[%u].base", i);
			if (want(l, F_MEM + 2 * i, path, true))
				return -ENOENT;
			snprintf(path, sizeof(path), "mem[%u].size", i);
			if (want(l, F_MEM + 2 * i + 1, path, true))
				return -ENOENT;
		}
		return 0;
	}
	if (want(l, F_CORE_BASE, "core_layout.base", true) ||
	    want(l, F_CORE_SIZE, "core_layout.size", true) ||
	    want(l, F_TEXT_SIZE, "core_layout.text_size", true) ||
	    want(l, F_RO_SIZE, "core_layout.ro_size", true) ||
	    want(l, F_INIT_BASE, "init_layout.base", true) ||
	    want(l, F_INIT_SIZE, "init_layout.size", true))
		return -ENOENT;
	want(l, F_RO_AFTER_SIZE, "core_layout.ro_after_init_size", false);
	/* CONFIG_ARCH_WANTS_MODULES_DATA_IN_VMALLOC: /proc counts it too */
	want(l, F_DATA_BASE, "data_layout.base", false);
	want(l, F_DATA_SIZE, "data_layout.size", false);
	return 0;
}

static uint64_t get(const struct modlayout *l, const unsigned char *rec,
		    unsigned int item)
{
	const unsigned char *p = rec + 8;
	uint64_t v = 0;
	unsigned int i;

	if (!l->have[item])
		return 0;
	for (i = 0; i < l->idx[item]; i++)
		p += l->fields[i].len;
	memcpy(&v, p, l->fields[l->idx[item]].len < 8 ?
	       l->fields[l->idx[item]].len : 8);
	return v;
}

static void add_region(struct mod *m, const char *type, uint64_t base,
		       uint64_t size)
{
	if (!size || m->nregions >= REGIONS_MAX)
		return;
	m->r[m->nregions].type = type;
	m->r[m->nregions].base = base;
	m->r[m->nregions].size = size;
	m->nregions++;
}

static void decode(const struct modlayout *l, const unsigned char *rec,
		   struct mod *m)
{
	const unsigned char *name = rec + 8;
	uint32_t nlen = l->fields[l->idx[F_NAME]].len;
	const char *st;
	unsigned int i;
	size_t n;

	memset(m, 0, sizeof(*m));
	for (i = 0; i < l->idx[F_NAME]; i++)
		name += l->fields[i].len;
	n = strnlen((const char *)name, nlen);
	if (n >= sizeof(m->name))
		n = sizeof(m->name) - 1;
	memcpy(m->name, name, n);
	st = ktype_enum_name(l->btf, l->place[F_STATE].type,
			     get(l, rec, F_STATE));
	m->state = st ? st : "unknown";
	if (l->have[F_REFCNT]) {
		/* module_refcount(): the count starts at MODULE_REF_BASE, 1 */
		m->refcnt = (int32_t)get(l, rec, F_REFCNT) - 1;
		m->have_refcnt = true;
	}
	if (l->mem) {
		for (i = 0; i < l->nregions; i++) {
			uint64_t base = get(l, rec, F_MEM + 2 * i);
			uint64_t size = get(l, rec, F_MEM + 2 * i + 1);

			m->size += size;	/* module_total_size() */
			add_region(m, l->region[i], base, size);
		}
		m->base = get(l, rec, F_MEM);		/* MOD_TEXT: 0 */
		m->text_size = get(l, rec, F_MEM + 1);
		return;
	}
	{
		uint64_t base = get(l, rec, F_CORE_BASE);
		uint64_t size = get(l, rec, F_CORE_SIZE);
		uint64_t text = get(l, rec, F_TEXT_SIZE);
		uint64_t ro = get(l, rec, F_RO_SIZE);
		uint64_t ro_after = l->have[F_RO_AFTER_SIZE] ?
				    get(l, rec, F_RO_AFTER_SIZE) : ro;

		m->base = base;
		m->text_size = text;
		m->size = size + get(l, rec, F_INIT_SIZE) +
			  get(l, rec, F_DATA_SIZE);
		/* core_layout: text, then rodata, ro_after_init, data */
		add_region(m, "text", base, text);
		add_region(m, "rodata", base + text, ro - text);
		add_region(m, "ro_after_init", base + ro, ro_after - ro);
		add_region(m, "data", base + ro_after, size - ro_after);
		add_region(m, "init", get(l, rec, F_INIT_BASE),
			   get(l, rec, F_INIT_SIZE));
		add_region(m, "data_layout", get(l, rec, F_DATA_BASE),
			   get(l, rec, F_DATA_SIZE));
	}
}

int modlist_open(struct modlist *ml, const struct kmemctl *ctx,
		 const char *verb)
{
	int err;

	memset(ml, 0, sizeof(*ml));
	ml->verb = verb;
	ml->l = calloc(1, sizeof(*ml->l));
	if (!ml->l) {
		kmemctl_err(KMEMDEV_OP_ANY, -ENOMEM, "%s", verb);
		return -ENOMEM;
	}
	ml->h = mem_open(ctx, verb);
	if (!ml->h) {
		err = -ENODEV;
		goto fail;
	}
	err = layout(&ml->kt, ml->l, verb, ml->h);
	if (err)
		goto fail;
	err = kmemdev_symbol(ml->h, "modules", &ml->head);
	if (err) {
		kmemctl_err(KMEMDEV_OP_SYMBOL, err, "%s: look up symbol "
			    "modules", verb);
		goto fail;
	}
	return 0;
fail:
	modlist_close(ml);
	return err;
}

int modlist_read(struct modlist *ml, struct mod **modsp, size_t *n)
{
	struct kwalk w = { 0 };
	struct mod *mods;
	uint32_t i;
	int err;

	w.head = ml->head;
	w.link_offset = ml->l->link_offset;
	w.fields = ml->l->fields;
	w.nfields = ml->l->nfields;
	err = kwalk_run(ml->h, &w);
	if (err) {
		if (w.fault_addr)
			kmemctl_fail("%s: walk the module list: node at "
				     "0x%" PRIx64 ": %s", ml->verb, w.fault_addr,
				     mem_reason(ml->h, err));
		else
			kmemctl_err(KMEMDEV_OP_WALK, err, "%s: walk the "
				    "module list", ml->verb);
		free(w.buf);
		return err;
	}
	mods = calloc(w.nodes ? w.nodes : 1, sizeof(*mods));
	if (!mods) {
		kmemctl_err(KMEMDEV_OP_ANY, -ENOMEM, "%s", ml->verb);
		free(w.buf);
		return -ENOMEM;
	}
	for (i = 0; i < w.nodes; i++)
		decode(ml->l, w.buf + (size_t)i * w.rec_size, &mods[i]);
	free(w.buf);
	*modsp = mods;
	*n = w.nodes;
	return 0;
}

void modlist_close(struct modlist *ml)
{
	ktypes_free(&ml->kt);	/* its BTF is the handle's */
	kmemdev_close(ml->h);
	ml->h = NULL;
	free(ml->l);
	ml->l = NULL;
}
