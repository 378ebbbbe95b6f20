// SPDX-License-Identifier: GPL-2.0
/* Kernel types from BTF: names, member paths, C spellings.  See ktype.h. */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kmemdev.h"
#include "ktype.h"
#include "parse.h"

#define BTF_SYSFS	"/sys/kernel/btf"

int ktypes_load(struct ktypes *kt)
{
	const struct btf *btf;
	struct kmemdev *h;
	int err;

	memset(kt, 0, sizeof(*kt));
	if (!kmemdev_open(&h, NULL)) {
		if (!kmemdev_btf(h, &btf)) {
			/* modules' split BTF only reads its base */
			kt->vmlinux = (struct btf *)btf;
			kt->owner = h;
			return 0;
		}
		kmemdev_close(h);
	}
	/* libbpf 1.x: NULL and errno on failure */
	errno = 0;
	kt->vmlinux = btf__load_vmlinux_btf();
	if (!kt->vmlinux) {
		err = errno ? -errno : -ENODATA;
		return err == -ENOENT ? -ENODATA : err;
	}
	return 0;
}

int ktypes_load_with(struct ktypes *kt, struct kmemdev *h)
{
	const struct btf *btf;
	int err;

	memset(kt, 0, sizeof(*kt));
	err = kmemdev_btf(h, &btf);
	if (err)
		return err;
	kt->vmlinux = (struct btf *)btf;
	kt->borrowed = true;
	return 0;
}

void ktypes_free(struct ktypes *kt)
{
	size_t i;

	for (i = 0; i < kt->nmods; i++) {
		btf__free(kt->mods[i]);
		free(kt->mod_names[i]);
	}
	free(kt->mods);
	free(kt->mod_names);
	if (kt->owner)
		kmemdev_close(kt->owner);
	else if (!kt->borrowed)
		btf__free(kt->vmlinux);
	memset(kt, 0, sizeof(*kt));
}

/* Every module's BTF, once; a module that fails to parse is skipped. */
static void load_modules(struct ktypes *kt)
{
	struct dirent *d;
	DIR *dir;

	kt->mods_loaded = true;
	dir = opendir(BTF_SYSFS);
	if (!dir)
		return;
	while ((d = readdir(dir))) {
		struct btf *b, **mods;
		char **names;

		if (d->d_name[0] == '.' || !strcmp(d->d_name, "vmlinux"))
			continue;
		b = btf__load_module_btf(d->d_name, kt->vmlinux);
		if (!b)
			continue;
		mods = realloc(kt->mods, (kt->nmods + 1) * sizeof(*mods));
		if (mods)
			kt->mods = mods;
		names = realloc(kt->mod_names, (kt->nmods + 1) * sizeof(*names));
		if (names)
			kt->mod_names = names;
		if (!mods || !names) {
			btf__free(b);
			break;
		}
		kt->mods[kt->nmods] = b;
		kt->mod_names[kt->nmods] = strdup(d->d_name);
		kt->nmods++;
	}
	closedir(dir);
}

static const struct {
	const char *prefix;
	int kinds[2];
} keywords[] = {
	{ "struct ", { BTF_KIND_STRUCT, -1 } },
	{ "union ", { BTF_KIND_UNION, -1 } },
	{ "enum ", { BTF_KIND_ENUM, BTF_KIND_ENUM64 } },
};

static int find_in(const struct btf *b, const char *name, const int *kinds,
		   size_t nkinds, uint32_t *id)
{
	size_t i;

	for (i = 0; i < nkinds && kinds[i] >= 0; i++) {
		__s32 r = btf__find_by_name_kind(b, name, (__u32)kinds[i]);

		if (r > 0) {
			*id = (uint32_t)r;
			return 0;
		}
	}
	return -ENOENT;
}

int ktypes_find(struct ktypes *kt, const char *name, const struct btf **btf,
		uint32_t *id)
{
	static const int any[] = {
		BTF_KIND_STRUCT, BTF_KIND_UNION, BTF_KIND_TYPEDEF,
		BTF_KIND_ENUM, BTF_KIND_ENUM64, BTF_KIND_INT, BTF_KIND_FLOAT,
	};
	const int *kinds = any;
	size_t nkinds = sizeof(any) / sizeof(any[0]), i;

	for (i = 0; i < sizeof(keywords) / sizeof(keywords[0]); i++) {
		size_t n = strlen(keywords[i].prefix);

		if (!strncmp(name, keywords[i].prefix, n)) {
			name += n;
			kinds = keywords[i].kinds;
			nkinds = 2;
			break;
		}
	}
	while (*name == ' ')
		name++;
	if (!*name)
		return -ENOENT;
	if (!find_in(kt->vmlinux, name, kinds, nkinds, id)) {
		*btf = kt->vmlinux;
		return 0;
	}
	if (!kt->mods_loaded)
		load_modules(kt);
	for (i = 0; i < kt->nmods; i++) {
		if (!find_in(kt->mods[i], name, kinds, nkinds, id)) {
			*btf = kt->mods[i];
			return 0;
		}
	}
	return -ENOENT;
}

int ktype_split(const char *spec, char *type, size_t len, const char **path)
{
	/* no type name has '-': "TYPE->member" is "TYPE.member" */
	size_t n = strcspn(spec, ".[-");

	if (n >= len)
		return -ENAMETOOLONG;
	memcpy(type, spec, n);
	type[n] = '\0';
	while (n && type[n - 1] == ' ')
		type[--n] = '\0';
	n = strcspn(spec, ".[-");
	if (!spec[n])
		*path = NULL;
	else if (spec[n] == '.')
		*path = spec + n + 1;
	else if (!strncmp(spec + n, "->", 2))
		*path = spec + n + 2;
	else
		*path = spec + n;
	return 0;
}

uint32_t ktype_skip_quals(const struct btf *btf, uint32_t id)
{
	const struct btf_type *t;

	while ((t = btf__type_by_id(btf, id)) &&
	       (btf_is_mod(t) || btf_kind(t) == BTF_KIND_TYPE_TAG))
		id = t->type;
	return id;
}

uint32_t ktype_skip(const struct btf *btf, uint32_t id)
{
	const struct btf_type *t;

	while ((t = btf__type_by_id(btf, id)) &&
	       (btf_is_mod(t) || btf_is_typedef(t) ||
		btf_kind(t) == BTF_KIND_TYPE_TAG))
		id = t->type;
	return id;
}

uint64_t ktype_size(const struct btf *btf, uint32_t id)
{
	__s64 s = btf__resolve_size(btf, id);

	return s > 0 ? (uint64_t)s : 0;
}

/*
 * Member @name of the struct or union @id, searching anonymous members
 * too: its type, and bit offset and bitfield size added to *@off / set.
 */
static int find_member(const struct btf *btf, uint32_t id, const char *name,
		       size_t nlen, uint32_t *type, uint64_t *off,
		       uint32_t *bits)
{
	const struct btf_type *t = btf__type_by_id(btf, ktype_skip(btf, id));
	const struct btf_member *m;
	unsigned int i;

	if (!t || !btf_is_composite(t))
		return -EINVAL;
	m = btf_members(t);
	for (i = 0; i < btf_vlen(t); i++, m++) {
		const char *mn = btf__name_by_offset(btf, m->name_off);
		uint64_t moff = btf_member_bit_offset(t, i);

		if (mn && *mn) {
			if (strlen(mn) != nlen || strncmp(mn, name, nlen))
				continue;
			*type = m->type;
			*off += moff;
			*bits = btf_member_bitfield_size(t, i);
			return 0;
		}
		/* anonymous struct or union: its members are the parent's */
		{
			uint64_t sub = 0;

			if (!find_member(btf, m->type, name, nlen, type, &sub,
					 bits)) {
				*off += moff + sub;
				return 0;
			}
		}
	}
	return -ENOENT;
}

/* Old-style BTF bitfields carry their width in the int type. */
static void int_bits(const struct btf *btf, struct kplace *p)
{
	const struct btf_type *t = btf__type_by_id(btf, ktype_skip(btf, p->type));

	if (!p->bit_size && t && btf_is_int(t) &&
	    (btf_int_offset(t) || btf_int_bits(t) != t->size * 8)) {
		p->bit_off += btf_int_offset(t);
		p->bit_size = btf_int_bits(t);
	}
}

/* Is @id a pointer (through typedefs and qualifiers)? */
static bool is_pointer(const struct btf *btf, uint32_t id)
{
	const struct btf_type *t = btf__type_by_id(btf, ktype_skip(btf, id));

	return t && btf_is_ptr(t);
}

/* Past the '.' or '->' after one step of a path; what else may follow is '['. */
static int skip_separator(const char **s)
{
	if (**s == '.')
		(*s)++;
	else if (!strncmp(*s, "->", 2))
		*s += 2;
	else if (**s && **s != '[')
		return -EINVAL;
	return 0;
}

int ktype_path_step(const struct btf *btf, uint32_t id, const char *path,
		    struct kplace *out, const char **rest, char *bad,
		    size_t badlen)
{
	struct kplace p = { .btf = btf, .type = id };
	const char *s = path ? path : "";

	*rest = NULL;
	if (bad && badlen)
		bad[0] = '\0';
	while (*s) {
		const struct btf_type *t;

		if (*s == '[') {
			const char *close = strchr(s, ']');
			char num[32];
			uint64_t idx, esz;
			const struct btf_array *a;

			if (is_pointer(btf, p.type)) {
				/* ptr[N]: the caller reads the pointer */
				*rest = s;
				break;
			}
			t = btf__type_by_id(btf, ktype_skip(btf, p.type));
			if (!close || (size_t)(close - s - 1) >= sizeof(num))
				return -EINVAL;
			memcpy(num, s + 1, (size_t)(close - s - 1));
			num[close - s - 1] = '\0';
			if (bad)
				snprintf(bad, badlen, "[%s]", num);
			if (!t || !btf_is_array(t))
				return -EINVAL;
			if (parse_u64(num, 0, UINT32_MAX, &idx))
				return -EINVAL;
			a = btf_array(t);
			/* a flexible array ([0] or []) has no bound to check */
			if (a->nelems && idx >= a->nelems)
				return -ERANGE;
			esz = ktype_size(btf, a->type);
			p.type = a->type;
			p.bit_off += idx * esz * 8;
			p.bit_size = 0;
			s = close + 1;
			if (skip_separator(&s))
				return -EINVAL;
			continue;
		}
		if (is_pointer(btf, p.type)) {
			/* ptr.member or ptr->member: follow it first */
			*rest = s;
			break;
		}
		{
			size_t n = strcspn(s, ".[-");
			int err;

			if (!n || p.bit_size)
				return -EINVAL;
			if (bad)
				snprintf(bad, badlen, "%.*s", (int)n, s);
			err = find_member(btf, p.type, s, n, &p.type,
					  &p.bit_off, &p.bit_size);
			if (err)
				return err;
			int_bits(btf, &p);
			s += n;
			if (skip_separator(&s))
				return -EINVAL;
			if (!*s && (s[-1] == '.' || s[-1] == '>'))
				return -EINVAL;
		}
	}
	if (bad && badlen && !*rest)
		bad[0] = '\0';
	*out = p;
	return 0;
}

int ktype_path(const struct btf *btf, uint32_t id, const char *path,
	       struct kplace *out, char *bad, size_t badlen)
{
	const char *rest;
	int err;

	err = ktype_path_step(btf, id, path, out, &rest, bad, badlen);
	if (!err && rest)
		return -ENOTDIR;
	return err;
}

/* A string builder that truncates. */
struct sb {
	char *buf;
	size_t len, pos;
};

static void sb_add(struct sb *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void sb_add(struct sb *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->pos >= b->len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(b->buf + b->pos, b->len - b->pos, fmt, ap);
	va_end(ap);
	if (n > 0)
		b->pos += (size_t)n;
	if (b->pos >= b->len)
		b->pos = b->len - 1;
}

static void name_rec(const struct btf *btf, uint32_t id, struct sb *b, int lvl);

static void proto(const struct btf *btf, const struct btf_type *t,
		  struct sb *b, bool ptr, int lvl)
{
	const struct btf_param *p = btf_params(t);
	unsigned int i;

	name_rec(btf, t->type, b, lvl + 1);
	sb_add(b, ptr ? " (*)(" : " (");
	for (i = 0; i < btf_vlen(t); i++) {
		if (i)
			sb_add(b, ", ");
		if (!p[i].type)
			sb_add(b, "...");
		else
			name_rec(btf, p[i].type, b, lvl + 1);
	}
	if (!btf_vlen(t))
		sb_add(b, "void");
	sb_add(b, ")");
}

static void name_rec(const struct btf *btf, uint32_t id, struct sb *b, int lvl)
{
	const struct btf_type *t = id ? btf__type_by_id(btf, id) : NULL;
	const char *n;

	if (lvl > 16) {
		sb_add(b, "...");
		return;
	}
	if (!id) {
		sb_add(b, "void");
		return;
	}
	if (!t) {
		sb_add(b, "<type %" PRIu32 ">", id);
		return;
	}
	n = btf__name_by_offset(btf, t->name_off);
	if (!n || !*n)
		n = NULL;
	switch (btf_kind(t)) {
	case BTF_KIND_INT:
	case BTF_KIND_FLOAT:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_FUNC:
		sb_add(b, "%s", n ? n : "<anon>");
		break;
	case BTF_KIND_STRUCT:
		sb_add(b, "struct %s", n ? n : "<anon>");
		break;
	case BTF_KIND_UNION:
		sb_add(b, "union %s", n ? n : "<anon>");
		break;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		sb_add(b, "enum %s", n ? n : "<anon>");
		break;
	case BTF_KIND_FWD:
		sb_add(b, "%s %s", btf_kflag(t) ? "union" : "struct",
		       n ? n : "<anon>");
		break;
	case BTF_KIND_CONST:
		sb_add(b, "const ");
		name_rec(btf, t->type, b, lvl + 1);
		break;
	case BTF_KIND_VOLATILE:
		sb_add(b, "volatile ");
		name_rec(btf, t->type, b, lvl + 1);
		break;
	case BTF_KIND_PTR: {
		const struct btf_type *to =
			btf__type_by_id(btf, ktype_skip_quals(btf, t->type));

		if (to && btf_is_func_proto(to)) {
			proto(btf, to, b, true, lvl);
			break;
		}
		name_rec(btf, t->type, b, lvl + 1);
		sb_add(b, b->pos && b->buf[b->pos - 1] == '*' ? "*" : " *");
		break;
	}
	case BTF_KIND_ARRAY: {
		const struct btf_type *e = t;
		uint32_t eid = id;

		while (e && btf_is_array(e)) {
			eid = btf_array(e)->type;
			e = btf__type_by_id(btf, eid);
		}
		name_rec(btf, eid, b, lvl + 1);
		for (e = t; e && btf_is_array(e);
		     e = btf__type_by_id(btf, btf_array(e)->type))
			sb_add(b, "[%" PRIu32 "]", btf_array(e)->nelems);
		break;
	}
	case BTF_KIND_FUNC_PROTO:
		proto(btf, t, b, false, lvl);
		break;
	default:
		/* restrict, type tags: the type they qualify */
		name_rec(btf, t->type, b, lvl + 1);
	}
}

const char *ktype_name(const struct btf *btf, uint32_t id, char *buf,
		       size_t len)
{
	struct sb b = { .buf = buf, .len = len };

	if (!len)
		return buf;
	buf[0] = '\0';
	name_rec(btf, id, &b, 0);
	return buf;
}

const char *ktype_decl(const struct btf *btf, uint32_t id, const char *name,
		       char *buf, size_t len)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	struct sb b = { .buf = buf, .len = len };
	const char *n = name && *name ? name : "";

	if (!len)
		return buf;
	buf[0] = '\0';
	if (t && btf_is_array(t)) {
		const struct btf_type *e = t;
		uint32_t eid = id;
		char dims[128];
		struct sb d = { .buf = dims, .len = sizeof(dims) };

		dims[0] = '\0';
		while (e && btf_is_array(e)) {
			sb_add(&d, "[%" PRIu32 "]", btf_array(e)->nelems);
			eid = btf_array(e)->type;
			e = btf__type_by_id(btf, eid);
		}
		name_rec(btf, eid, &b, 0);
		sb_add(&b, "%s%s%s", b.pos && buf[b.pos - 1] == '*' ? "" : " ",
		       n, dims);
		return buf;
	}
	if (t && btf_is_ptr(t)) {
		const struct btf_type *to =
			btf__type_by_id(btf, ktype_skip_quals(btf, t->type));

		if (to && btf_is_func_proto(to)) {
			const struct btf_param *p = btf_params(to);
			unsigned int i;

			name_rec(btf, to->type, &b, 0);
			sb_add(&b, " (*%s)(", n);
			for (i = 0; i < btf_vlen(to); i++) {
				if (i)
					sb_add(&b, ", ");
				if (!p[i].type)
					sb_add(&b, "...");
				else
					name_rec(btf, p[i].type, &b, 1);
			}
			sb_add(&b, "%s)", btf_vlen(to) ? "" : "void");
			return buf;
		}
	}
	name_rec(btf, id, &b, 0);
	if (*n)
		sb_add(&b, "%s%s", b.pos && buf[b.pos - 1] == '*' ? "" : " ", n);
	return buf;
}

bool ktype_is_char_array(const struct btf *btf, uint32_t id)
{
	const struct btf_type *t = btf__type_by_id(btf, ktype_skip(btf, id));
	const struct btf_type *e;
	const char *n;

	if (!t || !btf_is_array(t))
		return false;
	e = btf__type_by_id(btf, ktype_skip_quals(btf, btf_array(t)->type));
	if (!e || !btf_is_int(e) || e->size != 1)
		return false;
	n = btf__name_by_offset(btf, e->name_off);
	return n && !strcmp(n, "char");
}

const char *ktype_enum_name(const struct btf *btf, uint32_t id, uint64_t v)
{
	const struct btf_type *t = btf__type_by_id(btf, ktype_skip(btf, id));
	unsigned int i;

	if (!t)
		return NULL;
	if (btf_is_enum(t)) {
		const struct btf_enum *e = btf_enum(t);
		uint64_t mask = t->size >= 8 ? UINT64_MAX :
				(1ULL << (t->size * 8)) - 1;

		for (i = 0; i < btf_vlen(t); i++)
			if (((uint64_t)(int64_t)e[i].val & mask) == (v & mask))
				return btf__name_by_offset(btf, e[i].name_off);
	} else if (btf_is_enum64(t)) {
		const struct btf_enum64 *e = btf_enum64(t);

		for (i = 0; i < btf_vlen(t); i++)
			if (btf_enum64_value(&e[i]) == v)
				return btf__name_by_offset(btf, e[i].name_off);
	}
	return NULL;
}

int ktype_enum_value(const struct btf *btf, const char *name, int64_t *v)
{
	uint32_t n = btf__type_cnt(btf), id;

	for (id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		unsigned int i;

		if (btf_is_enum(t)) {
			const struct btf_enum *e = btf_enum(t);

			for (i = 0; i < btf_vlen(t); i++) {
				if (!strcmp(btf__name_by_offset(btf, e[i].name_off),
					    name)) {
					*v = e[i].val;
					return 0;
				}
			}
		} else if (btf_is_enum64(t)) {
			const struct btf_enum64 *e = btf_enum64(t);

			for (i = 0; i < btf_vlen(t); i++) {
				if (!strcmp(btf__name_by_offset(btf, e[i].name_off),
					    name)) {
					*v = (int64_t)btf_enum64_value(&e[i]);
					return 0;
				}
			}
		}
	}
	return -ENOENT;
}
