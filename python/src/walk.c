// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * walk(): the chosen fields of every node of a kernel list, gathered by
 * the driver's WALK ioctl (kmemdev_walk_all(): one call unless the buffer
 * fills), each record decoded to a tuple (node address, field values...).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ext.h"

/* Field kinds, as btf.c's member() gives them. */
enum { KIND_BYTES, KIND_UINT, KIND_INT, KIND_PTR, KIND_STR };

struct field {
	uint32_t len;
	int kind;
};

static PyObject *decode(const unsigned char *p, const struct field *f)
{
	uint64_t v = 0;

	switch (f->kind) {
	case KIND_UINT:
	case KIND_INT:
	case KIND_PTR:
		if (f->len != 1 && f->len != 2 && f->len != 4 && f->len != 8)
			break;
		for (int i = (int)f->len - 1; i >= 0; i--)
			v = v << 8 | p[i];
		if (f->kind == KIND_INT) {
			if (f->len < 8 && (v >> (f->len * 8 - 1)) & 1)
				v |= ~0ULL << (f->len * 8);
			return PyLong_FromLongLong((long long)v);
		}
		return PyLong_FromUnsignedLongLong(v);
	case KIND_STR: {
		const unsigned char *nul = memchr(p, 0, f->len);

		return PyUnicode_DecodeUTF8((const char *)p,
					    nul ? nul - p : (Py_ssize_t)f->len,
					    "surrogateescape");
	}
	default:
		break;
	}
	return PyBytes_FromStringAndSize((const char *)p, f->len);
}

static PyObject *records(const unsigned char *buf, uint32_t nodes,
			 const struct field *fields, uint32_t nf, size_t rec)
{
	PyObject *list = PyList_New(nodes);

	if (!list)
		return NULL;
	for (uint32_t i = 0; i < nodes; i++) {
		const unsigned char *r = buf + (size_t)i * rec, *p = r + 8;
		PyObject *t = PyTuple_New(nf + 1), *v;
		uint64_t addr;

		if (!t)
			goto fail;
		PyList_SetItem(list, i, t);
		memcpy(&addr, r, 8);
		v = PyLong_FromUnsignedLongLong(addr);
		if (!v)
			goto fail;
		PyTuple_SetItem(t, 0, v);
		for (uint32_t j = 0; j < nf; j++) {
			v = decode(p, &fields[j]);
			if (!v)
				goto fail;
			PyTuple_SetItem(t, j + 1, v);
			p += fields[j].len;
		}
	}
	return list;
fail:
	Py_DECREF(list);
	return NULL;
}

/* The walk's error, with the nodes gathered before it (exc.nodes) and where it failed. */
static PyObject *walk_error(int err, const struct kmem_ro_walk *w, PyObject *nodes)
{
	PyObject *exc = ext_oserror_obj(KMEMDEV_OP_WALK, err, NULL), *fa;

	if (!exc)
		return NULL;
	fa = PyLong_FromUnsignedLongLong(w->status == KMEM_RO_WALK_FAULT ?
					 w->fault_addr : 0);
	if (!fa || PyObject_SetAttrString(exc, "nodes", nodes ? nodes : Py_None) ||
	    PyObject_SetAttrString(exc, "fault_addr", fa)) {
		Py_XDECREF(fa);
		Py_DECREF(exc);
		return NULL;
	}
	Py_DECREF(fa);
	PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
	Py_DECREF(exc);
	return NULL;
}

EXT_METHOD(kmem_walk)
{
	static char *kwlist[] = { "head", "link_offset", "fields", "max_nodes", NULL };
	struct kmem_ro_field kf[KMEM_RO_WALK_MAX_FIELDS];
	struct field fields[KMEM_RO_WALK_MAX_FIELDS];
	PyObject *head, *flist, *seq, *out = NULL;
	uint64_t link;
	unsigned int max_nodes = 0;
	size_t rec = 8, cap;
	uint32_t nodes = 0, nf;
	struct kmemdev *h;
	void *buf;
	int err;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO&O|I:walk", kwlist, &head,
					 ext_u64_conv, &link, &flist, &max_nodes))
		return NULL;
	seq = PySequence_List(flist);
	if (!seq)
		return NULL;
	if (PyList_Size(seq) > KMEM_RO_WALK_MAX_FIELDS) {
		Py_DECREF(seq);
		/* the driver's limit, said as the library says it */
		return ext_oserror(KMEMDEV_OP_WALK, -E2BIG, NULL);
	}
	nf = (uint32_t)PyList_Size(seq);
	for (uint32_t i = 0; i < nf; i++) {
		unsigned int off, len;
		int kind;

		if (!PyArg_ParseTuple(PyList_GetItem(seq, i), "IIi:walk field", &off,
				      &len, &kind)) {
			Py_DECREF(seq);
			return NULL;
		}
		kf[i].offset = off;
		kf[i].len = len;
		fields[i].len = len;
		fields[i].kind = kind;
		rec += len;
	}
	Py_DECREF(seq);
	h = ext_hold((KmemObject *)self);
	if (!h)
		return NULL;
	{
		KMEMDEV_ARG(kmem_ro_walk, w,
			.flags = KMEM_RO_WALK_NODE_ADDR,
			.link_offset = link,
			.fields_addr = (uintptr_t)kf,
			.fields_count = nf,
			.max_nodes = max_nodes);

		uint64_t head_addr;

		if (ext_addr(h, head, &head_addr)) {
			ext_release((KmemObject *)self);
			return NULL;
		}
		w.head = head_addr;
		/* room for a few hundred tasks at once; walk_all doubles it */
		cap = rec <= KMEM_RO_WALK_MAX_RECORD + 8 ? rec * 512 : 0;
		buf = cap ? malloc(cap) : NULL;
		if (cap && !buf) {
			ext_release((KmemObject *)self);
			return PyErr_NoMemory();
		}
		Py_BEGIN_ALLOW_THREADS
		err = kmemdev_walk_all(h, &w, &buf, &cap, &nodes);
		Py_END_ALLOW_THREADS
		ext_release((KmemObject *)self);
		/* records gathered before an error are kept: the driver checked them */
		out = records(buf, nodes, fields, nf, rec);
		free(buf);
		if (err && out) {
			walk_error(err, &w, out);
			Py_CLEAR(out);
		}
	}
	return out;
}
