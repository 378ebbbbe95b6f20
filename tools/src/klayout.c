// SPDX-License-Identifier: GPL-2.0
/* Type layouts from BTF, as text or JSON: see klayout.h. */
#include <inttypes.h>
#include <stdbool.h>
#include <string.h>

#include "klayout.h"

#define OFF_COL	12	/* width of the "[offset]" column */

static const char *off_col(char *buf, size_t len, uint64_t bit_off,
			   uint32_t bits)
{
	if (bits)
		snprintf(buf, len, "[%" PRIu64 ":%" PRIu64 "]", bit_off / 8,
			 bit_off % 8);
	else
		snprintf(buf, len, "[%" PRIu64 "]", bit_off / 8);
	return buf;
}

/* The width of an old-style bitfield, kept in its int type. */
static uint32_t member_bits(const struct btf *btf, const struct btf_type *t,
			    unsigned int i, uint64_t *off)
{
	const struct btf_member *m = btf_members(t) + i;
	const struct btf_type *mt = btf__type_by_id(btf, ktype_skip(btf, m->type));
	uint32_t bits = btf_member_bitfield_size(t, i);

	if (!bits && mt && btf_is_int(mt) &&
	    (btf_int_offset(mt) || btf_int_bits(mt) != mt->size * 8)) {
		*off += btf_int_offset(mt);
		bits = btf_int_bits(mt);
	}
	return bits;
}

static bool expand(const struct btf *btf, uint32_t id, const char *name,
		   int depth, int max_depth)
{
	const struct btf_type *t = btf__type_by_id(btf, ktype_skip(btf, id));

	if (!t || !btf_is_composite(t))
		return false;
	return !name || !*name || max_depth < 0 || depth < max_depth;
}

static void text_members(FILE *f, const struct btf *btf, uint32_t id,
			 uint64_t base, int depth, int max_depth, int indent)
{
	const struct btf_type *t = btf__type_by_id(btf, ktype_skip(btf, id));
	const struct btf_member *m = btf_members(t);
	char col[48], decl[512];
	unsigned int i;

	for (i = 0; i < btf_vlen(t); i++, m++) {
		const char *name = btf__name_by_offset(btf, m->name_off);
		uint64_t off = base + btf_member_bit_offset(t, i);
		uint32_t bits = member_bits(btf, t, i, &off);
		bool anon = !name || !*name;

		off_col(col, sizeof(col), off, bits);
		if (expand(btf, m->type, name, depth, max_depth)) {
			const struct btf_type *mt =
				btf__type_by_id(btf, ktype_skip_quals(btf, m->type));

			/* an anonymous type is written as C writes it: "union {" */
			if (mt && btf_is_composite(mt) && !mt->name_off)
				snprintf(decl, sizeof(decl), "%s",
					 btf_is_union(mt) ? "union" : "struct");
			else
				ktype_name(btf, m->type, decl, sizeof(decl));
			fprintf(f, "%*s%*s%s {\n", OFF_COL, col, indent, "", decl);
			text_members(f, btf, m->type, off,
				     anon ? depth : depth + 1, max_depth,
				     indent + 4);
			fprintf(f, "%*s%*s}%s%s;\n", OFF_COL, "", indent, "",
				anon ? "" : " ", anon ? "" : name);
			continue;
		}
		fprintf(f, "%*s%*s%s", OFF_COL, col, indent, "",
			ktype_decl(btf, m->type, name, decl, sizeof(decl)));
		if (bits)
			fprintf(f, ":%" PRIu32, bits);
		fputs(";\n", f);
	}
}

void klayout_text(FILE *f, const struct kplace *p, const char *title,
		  int max_depth)
{
	const struct btf *btf = p->btf;
	char decl[512], col[48];
	bool comp = expand(btf, p->type, "x", 0, max_depth);

	if (!title) {
		fprintf(f, "%s {\n", ktype_name(btf, p->type, decl, sizeof(decl)));
		text_members(f, btf, p->type, p->bit_off, 1, max_depth, 4);
		fputs("}\n", f);
	} else if (comp) {
		fprintf(f, "%*s %s {\n", OFF_COL,
			off_col(col, sizeof(col), p->bit_off, p->bit_size),
			ktype_name(btf, p->type, decl, sizeof(decl)));
		text_members(f, btf, p->type, p->bit_off, 1, max_depth, 5);
		fprintf(f, "%*s } %s;\n", OFF_COL, "", title);
	} else {
		fprintf(f, "%*s %s", OFF_COL,
			off_col(col, sizeof(col), p->bit_off, p->bit_size),
			ktype_decl(btf, p->type, title, decl, sizeof(decl)));
		if (p->bit_size)
			fprintf(f, ":%" PRIu32, p->bit_size);
		fputs(";\n", f);
	}
	fprintf(f, "SIZE: %" PRIu64 "\n", p->bit_size ? 0 :
		ktype_size(btf, p->type));
}

static void json_place(struct json *j, const struct btf *btf, uint32_t id,
		       uint64_t off, uint32_t bits)
{
	char decl[512];

	json_str(j, "type", ktype_name(btf, id, decl, sizeof(decl)));
	json_u64(j, "offset", off / 8);
	json_u64(j, "size", bits ? (bits + 7) / 8 : ktype_size(btf, id));
	if (bits) {
		json_u64(j, "bit_offset", off);
		json_u64(j, "bit_size", bits);
	}
}

static void json_members(struct json *j, const struct btf *btf, uint32_t id,
			 uint64_t base, int depth, int max_depth)
{
	const struct btf_type *t = btf__type_by_id(btf, ktype_skip(btf, id));
	const struct btf_member *m = btf_members(t);
	unsigned int i;

	json_array_begin(j, "members");
	for (i = 0; i < btf_vlen(t); i++, m++) {
		const char *name = btf__name_by_offset(btf, m->name_off);
		uint64_t off = base + btf_member_bit_offset(t, i);
		uint32_t bits = member_bits(btf, t, i, &off);
		bool anon = !name || !*name;

		json_object_begin(j, NULL);
		if (anon)
			json_null(j, "name");
		else
			json_str(j, "name", name);
		json_place(j, btf, m->type, off, bits);
		if (expand(btf, m->type, name, depth, max_depth) &&
		    j->depth + 3 < JSON_MAX_DEPTH)
			json_members(j, btf, m->type, off,
				     anon ? depth : depth + 1, max_depth);
		json_object_end(j);
	}
	json_array_end(j);
}

void klayout_json(struct json *j, const struct kplace *p, const char *title,
		  int max_depth)
{
	json_object_begin(j, NULL);
	if (title)
		json_str(j, "path", title);
	json_place(j, p->btf, p->type, p->bit_off, p->bit_size);
	if (expand(p->btf, p->type, "x", 0, max_depth))
		json_members(j, p->btf, p->type, p->bit_off, 1, max_depth);
	json_object_end(j);
}
