// SPDX-License-Identifier: GPL-2.0
/* Kernel objects printed by BTF type, as text or JSON: see kvalue.h. */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "kvalue.h"

#define REPEAT_MIN	10	/* gdb's threshold for "<repeats N times>" */
#define TEXT_ELEMS_MAX	1000	/* array elements shown as text */
#define MODULE_SYM_REACH 4096	/* bytes past a module symbol still named */

void kvalue_sym_range(struct kvalue *kv)
{
	KMEMDEV_ARG(kmem_ro_info, info);
	uint64_t end = 0;

	kv->sym_lo = kv->sym_hi = 0;
	if (!kv->h || kmemdev_info(kv->h, &info, NULL, 0) < 0)
		return;
	kv->sym_lo = info.text_start;
	if (!kv->sym_lo && kmemdev_symbol(kv->h, "_stext", &kv->sym_lo))
		kv->sym_lo = 0;
	kmemdev_symbol(kv->h, "_end", &end);
	kv->sym_hi = info.modules_end > end ? info.modules_end : end;
	if (!kv->sym_lo || kv->sym_hi <= kv->sym_lo)
		kv->sym_lo = kv->sym_hi = 0;
}

const char *kvalue_symbol(const struct kvalue *kv, uint64_t addr, char *buf,
			  size_t len)
{
	const struct kmemdev_sym *sym;
	uint64_t off;

	buf[0] = '\0';
	if (!kv->h || addr < kv->sym_lo || addr >= kv->sym_hi ||
	    kmemdev_symbolize(kv->h, addr, &sym, &off))
		return buf;
	/*
	 * A module's text, data and rodata are separate allocations: the
	 * nearest symbol below a data address may be a function far away.
	 */
	if (sym->module && off >= MODULE_SYM_REACH)
		return buf;
	if (off)
		snprintf(buf, len, " <%s+0x%" PRIx64 "%s%s%s>", sym->name, off,
			 sym->module ? " [" : "", sym->module ? sym->module : "",
			 sym->module ? "]" : "");
	else
		snprintf(buf, len, " <%s%s%s%s>", sym->name,
			 sym->module ? " [" : "", sym->module ? sym->module : "",
			 sym->module ? "]" : "");
	return buf;
}

/* @bits (1 to 64) at bit @off of little-endian @data. */
static uint64_t load_bits(const unsigned char *data, uint64_t off, uint32_t bits)
{
	const unsigned char *p = data + off / 8;
	unsigned int shift = (unsigned int)(off % 8);
	unsigned int nbytes = (shift + bits + 7) / 8, i;
	unsigned __int128 v = 0;

	for (i = 0; i < nbytes; i++)
		v |= (unsigned __int128)p[i] << (8 * i);
	v >>= shift;
	if (bits < 64)
		v &= ((unsigned __int128)1 << bits) - 1;
	return (uint64_t)v;
}

/* A scalar: kind of value, and the value. */
enum scalar_kind { SC_UNSIGNED, SC_SIGNED, SC_BOOL, SC_PTR, SC_ENUM, SC_RAW };

struct scalar {
	enum scalar_kind kind;
	uint64_t v;
	const char *name;	/* SC_ENUM: enumerator, NULL if none */
	const unsigned char *raw;	/* SC_RAW: bytes */
	size_t rawlen;
};

static bool is_scalar(const struct btf_type *t)
{
	return t && (btf_is_int(t) || btf_is_ptr(t) || btf_is_any_enum(t) ||
		     btf_is_float(t));
}

static void get_scalar(const struct btf *btf, uint32_t id,
		       const unsigned char *data, uint64_t off, uint32_t bits,
		       struct scalar *s)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	uint32_t size = t ? (btf_is_ptr(t) ? 8 : t->size) : 0;
	uint32_t width = bits ? bits : size * 8;
	bool sign = false;

	memset(s, 0, sizeof(*s));
	if (!t || width == 0 || width > 64 || btf_is_float(t)) {
		s->kind = SC_RAW;
		s->raw = data + off / 8;
		s->rawlen = size;
		return;
	}
	s->v = load_bits(data, off, width);
	if (btf_is_ptr(t)) {
		s->kind = SC_PTR;
		return;
	}
	if (btf_is_any_enum(t)) {
		sign = btf_kflag(t);
		s->kind = SC_ENUM;
	} else {
		uint8_t enc = btf_int_encoding(t);

		if (enc & BTF_INT_BOOL) {
			s->kind = SC_BOOL;
			return;
		}
		sign = enc & BTF_INT_SIGNED;
		s->kind = sign ? SC_SIGNED : SC_UNSIGNED;
	}
	if (sign && width < 64 && (s->v >> (width - 1)) & 1)
		s->v |= ~0ULL << width;
	if (s->kind == SC_ENUM)
		s->name = ktype_enum_name(btf, id, s->v);
	if (s->kind == SC_ENUM && sign && !s->name)
		s->kind = SC_SIGNED;
	else if (s->kind == SC_ENUM && !s->name)
		s->kind = SC_UNSIGNED;
}

static void raw_hex(FILE *f, const unsigned char *p, size_t n)
{
	size_t i;

	/* little-endian bytes, most significant first */
	fputs("0x", f);
	for (i = n; i > 0; i--)
		fprintf(f, "%02x", p[i - 1]);
}

static void text_scalar(const struct kvalue *kv, const struct scalar *s)
{
	char sym[256];

	switch (s->kind) {
	case SC_UNSIGNED:
		fprintf(kv->f, "%" PRIu64, s->v);
		break;
	case SC_SIGNED:
		fprintf(kv->f, "%" PRId64, (int64_t)s->v);
		break;
	case SC_BOOL:
		fputs(s->v ? "true" : "false", kv->f);
		break;
	case SC_ENUM:
		fputs(s->name, kv->f);
		break;
	case SC_PTR:
		fprintf(kv->f, "0x%" PRIx64 "%s", s->v,
			s->v ? kvalue_symbol(kv, s->v, sym, sizeof(sym)) : "");
		break;
	case SC_RAW:
		raw_hex(kv->f, s->raw, s->rawlen);
		break;
	}
}

static bool same_scalar(const struct scalar *a, const struct scalar *b)
{
	if (a->kind != b->kind)
		return false;
	if (a->kind == SC_RAW)
		return a->rawlen == b->rawlen && !memcmp(a->raw, b->raw, a->rawlen);
	return a->v == b->v;
}

/* The bytes of a char array up to its first NUL. */
static size_t str_len(const unsigned char *p, size_t n)
{
	const unsigned char *z = memchr(p, 0, n);

	return z ? (size_t)(z - p) : n;
}

struct ctx {
	const struct kvalue *kv;
	const unsigned char *data;
	bool inl;
};

static void text_val(const struct ctx *c, uint32_t id, uint64_t off,
		     uint32_t bits, int indent, int depth);

static void pad(FILE *f, int n)
{
	fprintf(f, "%*s", n, "");
}

/* Separator before the next item of a block: ", " inline, ",\n" else. */
static void sep(const struct ctx *c, bool *first)
{
	if (!*first)
		fputs(c->inl ? ", " : ",\n", c->kv->f);
	else if (!c->inl)
		fputc('\n', c->kv->f);
	*first = false;
}

static void close_block(const struct ctx *c, bool empty, int indent)
{
	if (!c->inl && !empty) {
		fputc('\n', c->kv->f);
		pad(c->kv->f, indent);
	}
	fputc('}', c->kv->f);
}

/* One member of a struct or union, as both outputs walk them. */
struct member {
	const char *name;	/* NULL or "": anonymous */
	uint32_t type;
	uint64_t off;		/* bits from the start of the value */
	uint32_t bits;		/* a bitfield's width; 0 if not one */
};

/* Member @i of struct or union @t, which starts @off bits in. */
static struct member member_at(const struct btf *btf, const struct btf_type *t,
			       unsigned int i, uint64_t off)
{
	const struct btf_member *m = btf_members(t) + i;

	return (struct member){
		.name = btf__name_by_offset(btf, m->name_off),
		.type = m->type,
		.off = off + btf_member_bit_offset(t, i),
		.bits = btf_member_bitfield_size(t, i),
	};
}

static void text_members(const struct ctx *c, uint32_t id, uint64_t off,
			 int indent, int depth, bool *first)
{
	const struct btf *btf = c->kv->btf;
	const struct btf_type *t = btf__type_by_id(btf, ktype_skip(btf, id));
	unsigned int i;

	for (i = 0; i < btf_vlen(t); i++) {
		struct member m = member_at(btf, t, i, off);

		sep(c, first);
		if (!c->inl)
			pad(c->kv->f, indent + 2);
		if (m.name && *m.name)
			fprintf(c->kv->f, "%s = ", m.name);
		text_val(c, m.type, m.off, m.bits, indent + 2, depth);
	}
}

static void text_array(const struct ctx *c, uint32_t id, uint64_t off,
		       int indent, int depth)
{
	const struct btf *btf = c->kv->btf;
	const struct btf_type *t = btf__type_by_id(btf, ktype_skip(btf, id));
	const struct btf_array *a = btf_array(t);
	uint32_t eid = ktype_skip(btf, a->type);
	const struct btf_type *e = btf__type_by_id(btf, eid);
	uint64_t esz = ktype_size(btf, a->type) * 8;
	bool first = true;
	uint32_t i, shown = a->nelems;

	if (ktype_is_char_array(btf, id)) {
		text_quoted(c->kv->f, c->data + off / 8,
			    str_len(c->data + off / 8, a->nelems));
		return;
	}
	fputc('{', c->kv->f);
	if (shown > TEXT_ELEMS_MAX)
		shown = TEXT_ELEMS_MAX;
	if (is_scalar(e)) {
		for (i = 0; i < shown;) {
			struct scalar s, n;
			uint32_t run = 1;

			get_scalar(btf, eid, c->data, off + i * esz, 0, &s);
			while (i + run < shown) {
				get_scalar(btf, eid, c->data,
					   off + (i + run) * esz, 0, &n);
				if (!same_scalar(&s, &n))
					break;
				run++;
			}
			if (i)
				fputs(", ", c->kv->f);
			text_scalar(c->kv, &s);
			if (run >= REPEAT_MIN) {
				fprintf(c->kv->f, " <repeats %" PRIu32 " times>",
					run);
				i += run;
			} else {
				i++;
			}
		}
		if (shown < a->nelems)
			fputs(", ...", c->kv->f);
		fputc('}', c->kv->f);
		return;
	}
	for (i = 0; i < shown; i++) {
		sep(c, &first);
		if (!c->inl)
			pad(c->kv->f, indent + 2);
		fprintf(c->kv->f, "[%" PRIu32 "] = ", i);
		text_val(c, a->type, off + i * esz, 0, indent + 2, depth);
	}
	if (shown < a->nelems) {
		sep(c, &first);
		if (!c->inl)
			pad(c->kv->f, indent + 2);
		fputs("...", c->kv->f);
	}
	close_block(c, first, indent);
}

static void text_val(const struct ctx *c, uint32_t id, uint64_t off,
		     uint32_t bits, int indent, int depth)
{
	const struct btf *btf = c->kv->btf;
	uint32_t rid = ktype_skip(btf, id);
	const struct btf_type *t = btf__type_by_id(btf, rid);
	struct scalar s;

	if (!t) {
		fputs("<unknown type>", c->kv->f);
		return;
	}
	if (is_scalar(t)) {
		get_scalar(btf, rid, c->data, off, bits, &s);
		text_scalar(c->kv, &s);
		return;
	}
	if (btf_is_array(t)) {
		text_array(c, id, off, indent, depth);
		return;
	}
	if (btf_is_composite(t)) {
		bool first = true;

		if (c->kv->max_depth >= 0 && depth >= c->kv->max_depth) {
			fputs(btf_vlen(t) ? "{...}" : "{}", c->kv->f);
			return;
		}
		fputc('{', c->kv->f);
		text_members(c, rid, off, indent, depth + 1, &first);
		close_block(c, first, indent);
		return;
	}
	if (btf_is_fwd(t)) {
		fputs("<incomplete type>", c->kv->f);
		return;
	}
	fputs("<no value>", c->kv->f);
}

void kvalue_text(const struct kvalue *kv, const char *name,
		 const struct kplace *p, const unsigned char *data, int indent)
{
	struct ctx c = { .kv = kv, .data = data };

	pad(kv->f, indent);
	if (name)
		fprintf(kv->f, "%s = ", name);
	text_val(&c, p->type, p->bit_off, p->bit_size, indent, 0);
}

void kvalue_text_inline(const struct kvalue *kv, const struct kplace *p,
			const unsigned char *data)
{
	struct ctx c = { .kv = kv, .data = data, .inl = true };

	text_val(&c, p->type, p->bit_off, p->bit_size, 0, 0);
}

/* ---- JSON ---- */

static void json_val(const struct ctx *c, struct json *j, const char *key,
		     uint32_t id, uint64_t off, uint32_t bits, int depth);

static void json_scalar(struct json *j, const char *key, const struct scalar *s)
{
	char buf[80];
	size_t i, n;

	switch (s->kind) {
	case SC_UNSIGNED:
		json_u64(j, key, s->v);
		break;
	case SC_SIGNED:
		json_i64(j, key, (int64_t)s->v);
		break;
	case SC_BOOL:
		json_bool(j, key, s->v);
		break;
	case SC_ENUM:
		json_str(j, key, s->name);
		break;
	case SC_PTR:
		json_hex(j, key, s->v);
		break;
	case SC_RAW:
		n = s->rawlen < 32 ? s->rawlen : 32;
		strcpy(buf, "0x");
		for (i = n; i > 0; i--)
			snprintf(buf + 2 + 2 * (n - i), 3, "%02x", s->raw[i - 1]);
		json_str(j, key, buf);
		break;
	}
}

static void json_members(const struct ctx *c, struct json *j, uint32_t id,
			 uint64_t off, int depth)
{
	const struct btf *btf = c->kv->btf;
	const struct btf_type *t = btf__type_by_id(btf, ktype_skip(btf, id));
	unsigned int i;

	for (i = 0; i < btf_vlen(t); i++) {
		struct member m = member_at(btf, t, i, off);
		const struct btf_type *mt =
			btf__type_by_id(btf, ktype_skip(btf, m.type));

		if ((!m.name || !*m.name) && mt && btf_is_composite(mt)) {
			json_members(c, j, m.type, m.off, depth);
			continue;
		}
		json_val(c, j, m.name, m.type, m.off, m.bits, depth);
	}
}

static void json_val(const struct ctx *c, struct json *j, const char *key,
		     uint32_t id, uint64_t off, uint32_t bits, int depth)
{
	const struct btf *btf = c->kv->btf;
	uint32_t rid = ktype_skip(btf, id);
	const struct btf_type *t = btf__type_by_id(btf, rid);
	struct scalar s;

	if (t && is_scalar(t)) {
		get_scalar(btf, rid, c->data, off, bits, &s);
		json_scalar(j, key, &s);
	} else if (t && btf_is_array(t)) {
		const struct btf_array *a = btf_array(t);
		uint64_t esz = ktype_size(btf, a->type) * 8;
		uint32_t i;

		if (ktype_is_char_array(btf, rid)) {
			json_str_n(j, key, c->data + off / 8,
				   str_len(c->data + off / 8, a->nelems));
			return;
		}
		if (j->depth + 2 >= JSON_MAX_DEPTH) {
			json_null(j, key);
			return;
		}
		json_array_begin(j, key);
		for (i = 0; i < a->nelems; i++)
			json_val(c, j, NULL, a->type, off + i * esz, 0, depth);
		json_array_end(j);
	} else if (t && btf_is_composite(t)) {
		/* the writer nests at most JSON_MAX_DEPTH levels */
		if ((c->kv->max_depth >= 0 && depth >= c->kv->max_depth) ||
		    j->depth + 2 >= JSON_MAX_DEPTH) {
			json_null(j, key);
			return;
		}
		json_object_begin(j, key);
		json_members(c, j, rid, off, depth + 1);
		json_object_end(j);
	} else {
		json_null(j, key);
	}
}

void kvalue_json(const struct kvalue *kv, struct json *j, const char *key,
		 const struct kplace *p, const unsigned char *data)
{
	struct ctx c = { .kv = kv, .data = data };

	json_val(&c, j, key, p->type, p->bit_off, p->bit_size, 0);
}
