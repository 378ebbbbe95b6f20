// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Struct layouts from the kernel's BTF (kmemdev_btf()): member paths as
 * kmemctl takes them ("se.group_node", "signal->rlim[7].rlim_cur" up to
 * a pointer, "->" read as "."), searched through anonymous members as C
 * does.  A path cannot go on through a pointer: an offset is within one
 * object.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "ext.h"

/* What a place holds, for walk() to decode its bytes (kmemdev.Field.kind). */
enum field_kind { KIND_BYTES, KIND_UINT, KIND_INT, KIND_PTR, KIND_STR };

struct place {
	uint32_t type;
	uint64_t bit_off;
	uint32_t bit_size;
};

/* A resolution failure: errno and its sentence. */
struct why {
	int err;
	char text[160];
};

static int fail(struct why *w, int err, const char *fmt, const char *arg, int n)
{
	w->err = err;
	snprintf(w->text, sizeof(w->text), fmt, n, arg);
	return -err;
}

static uint32_t skip(const struct btf *btf, uint32_t id)
{
	const struct btf_type *t;

	while ((t = btf__type_by_id(btf, id)) &&
	       (btf_is_mod(t) || btf_is_typedef(t) ||
		btf_kind(t) == BTF_KIND_TYPE_TAG))
		id = t->type;
	return id;
}

static int find_member(const struct btf *btf, uint32_t id, const char *name,
		       size_t n, struct place *p)
{
	const struct btf_type *t = btf__type_by_id(btf, skip(btf, id));
	const struct btf_member *m;

	if (!t || !btf_is_composite(t))
		return -EINVAL;
	m = btf_members(t);
	for (unsigned int i = 0; i < btf_vlen(t); i++, m++) {
		const char *mn = btf__name_by_offset(btf, m->name_off);
		uint64_t moff = btf_member_bit_offset(t, i);

		if (mn && *mn) {
			if (strlen(mn) != n || strncmp(mn, name, n))
				continue;
			p->type = m->type;
			p->bit_off += moff;
			p->bit_size = btf_member_bitfield_size(t, i);
			return 0;
		}
		{
			struct place sub = { 0 };

			if (!find_member(btf, m->type, name, n, &sub)) {
				p->type = sub.type;
				p->bit_off += moff + sub.bit_off;
				p->bit_size = sub.bit_size;
				return 0;
			}
		}
	}
	return -ENOENT;
}

static bool is_ptr(const struct btf *btf, uint32_t id)
{
	const struct btf_type *t = btf__type_by_id(btf, skip(btf, id));

	return t && btf_is_ptr(t);
}

/* A struct, union or typedef by name ("struct " / "union " prefix dropped). */
static int find_type(const struct btf *btf, const char *name, uint32_t *id)
{
	static const int kinds[] = { BTF_KIND_STRUCT, BTF_KIND_UNION, BTF_KIND_TYPEDEF };
	int first = 0, last = 2;

	if (!strncmp(name, "struct ", 7)) {
		name += 7;
		last = 0;
	} else if (!strncmp(name, "union ", 6)) {
		name += 6;
		first = last = 1;
	}
	for (int i = first; i <= last; i++) {
		__s32 r = btf__find_by_name_kind(btf, name, (__u32)kinds[i]);

		if (r > 0) {
			*id = (uint32_t)r;
			return 0;
		}
	}
	return -ENOENT;
}

static int resolve(const struct btf *btf, uint32_t id, const char *path,
		   struct place *out, struct why *w)
{
	struct place p = { .type = id };
	const char *s = path;

	while (*s) {
		if (*s == '[') {
			const struct btf_type *t = btf__type_by_id(btf, skip(btf, p.type));
			const char *close = strchr(s, ']');
			unsigned long long idx;
			char *end;

			if (!close || close == s + 1)
				return fail(w, EINVAL, "malformed index in '%.*s'", path, 60);
			if (!t || !btf_is_array(t))
				return fail(w, EINVAL, "an index into something not an array in '%.*s'",
					    path, 60);
			errno = 0;
			idx = strtoull(s + 1, &end, 0);
			if (end != close || errno || s[1] == '-' || s[1] == '+')
				return fail(w, EINVAL, "malformed index in '%.*s'", path, 60);
			if (btf_array(t)->nelems && idx >= btf_array(t)->nelems)
				return fail(w, ERANGE, "index past the array in '%.*s'", path, 60);
			p.type = btf_array(t)->type;
			p.bit_off += idx * (uint64_t)btf__resolve_size(btf, p.type) * 8;
			p.bit_size = 0;
			s = close + 1;
		} else {
			size_t n = strcspn(s, ".[-");

			if (!n)
				return fail(w, EINVAL, "malformed member path '%.*s'", path, 60);
			if (is_ptr(btf, p.type))
				return fail(w, EINVAL, "the path goes on through a pointer: "
					    "an offset is inside one object ('%.*s')", path, 60);
			if (p.bit_size)
				return fail(w, EINVAL, "a bitfield has no members ('%.*s')",
					    path, 60);
			switch (find_member(btf, p.type, s, n, &p)) {
			case 0:
				break;
			case -ENOENT:
				return fail(w, ENOENT, "no such member '%.*s'", s, (int)n);
			default:
				return fail(w, EINVAL, "a member of something not a struct "
					    "or union in '%.*s'", path, 60);
			}
			s += n;
		}
		if (*s == '.')
			s++;
		else if (!strncmp(s, "->", 2))
			s += 2;
		else if (*s && *s != '[')
			return fail(w, EINVAL, "malformed member path '%.*s'", path, 60);
		else
			continue;
		if (!*s)
			return fail(w, EINVAL, "malformed member path '%.*s'", path, 60);
	}
	*out = p;
	return 0;
}

static enum field_kind kind_of(const struct btf *btf, uint32_t id)
{
	const struct btf_type *t = btf__type_by_id(btf, skip(btf, id));

	if (!t)
		return KIND_BYTES;
	if (btf_is_ptr(t))
		return KIND_PTR;
	if (btf_is_int(t))
		return btf_int_encoding(t) & BTF_INT_SIGNED ? KIND_INT : KIND_UINT;
	if (btf_is_any_enum(t))
		return btf_kflag(t) ? KIND_INT : KIND_UINT;
	if (btf_is_array(t)) {
		const struct btf_type *e = btf__type_by_id(btf, skip(btf, btf_array(t)->type));

		if (e && btf_is_int(e) && e->size == 1 &&
		    (btf_int_encoding(e) & BTF_INT_CHAR ||
		     !strcmp(btf__name_by_offset(btf, e->name_off), "char")))
			return KIND_STR;
	}
	return KIND_BYTES;
}

static int load(KmemObject *self, const struct btf **btf)
{
	struct kmemdev *h = ext_hold(self);
	int err;

	if (!h)
		return -1;
	Py_BEGIN_ALLOW_THREADS
	err = kmemdev_btf(h, btf);
	Py_END_ALLOW_THREADS
	if (err) {
		ext_release(self);
		ext_oserror(KMEMDEV_OP_BTF, err, NULL);
		return -1;
	}
	return 0;
}

static PyObject *why_error(const struct why *w, const char *type, const char *path)
{
	PyObject *exc, *what = PyUnicode_FromFormat("%s%s%s", type, *path ? "." : "", path);

	if (!what)
		return NULL;
	exc = PyObject_CallFunction(PyExc_OSError, "isO", w->err, w->text, what);
	Py_DECREF(what);
	if (exc) {
		PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
		Py_DECREF(exc);
	}
	return NULL;
}

EXT_METHOD(kmem_member)
{
	static char *kwlist[] = { "type", "path", NULL };
	const char *type, *path = "";
	const struct btf *btf;
	struct why w = { 0 };
	enum field_kind kind;
	struct place p;
	uint32_t id;
	int64_t size;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "s|s:member", kwlist, &type, &path))
		return NULL;
	if (load((KmemObject *)self, &btf))
		return NULL;
	/* BTF is the handle's, parsed once: no system call from here */
	if (find_type(btf, type, &id)) {
		ext_release((KmemObject *)self);
		w.err = ENOENT;
		snprintf(w.text, sizeof(w.text), "%s", kmemdev_strerror(KMEMDEV_OP_BTF, ENOENT));
		return why_error(&w, type, "");
	}
	if (resolve(btf, id, path, &p, &w)) {
		ext_release((KmemObject *)self);
		return why_error(&w, type, path);
	}
	size = btf__resolve_size(btf, p.type);
	kind = kind_of(btf, p.type);
	ext_release((KmemObject *)self);
	if (p.bit_size || p.bit_off % 8) {
		w.err = EINVAL;
		snprintf(w.text, sizeof(w.text), "%s", kmemdev_strerror(KMEMDEV_OP_BTF, EINVAL));
		return why_error(&w, type, path);
	}
	return Py_BuildValue("(KLi)", (unsigned long long)(p.bit_off / 8),
			     (long long)(size > 0 ? size : 0), (int)kind);
}

EXT_METHOD(kmem_type_size)
{
	static char *kwlist[] = { "type", NULL };
	const struct btf *btf;
	struct why w = { 0 };
	const char *type;
	int64_t size;
	uint32_t id;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "s:type_size", kwlist, &type))
		return NULL;
	if (load((KmemObject *)self, &btf))
		return NULL;
	size = find_type(btf, type, &id) ? -ENOENT : btf__resolve_size(btf, id);
	ext_release((KmemObject *)self);
	if (size < 0) {
		w.err = ENOENT;
		snprintf(w.text, sizeof(w.text), "%s", kmemdev_strerror(KMEMDEV_OP_BTF, ENOENT));
		return why_error(&w, type, "");
	}
	return PyLong_FromLongLong(size);
}
