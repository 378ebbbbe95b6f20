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

/* A record as a tuple, or as an instance of @type (node_type()'s). */
static PyObject *record(const unsigned char *r, const struct field *fields,
			uint32_t nf, PyTypeObject *type)
{
	PyObject *t = type ? PyStructSequence_New(type) : PyTuple_New(nf + 1), *v;
	const unsigned char *p = r + 8;
	uint64_t addr;

	if (!t)
		return NULL;
	memcpy(&addr, r, 8);
	for (uint32_t j = 0; j <= nf; j++) {
		v = j ? decode(p, &fields[j - 1]) : PyLong_FromUnsignedLongLong(addr);
		if (!v) {
			Py_DECREF(t);
			return NULL;
		}
		if (j)
			p += fields[j - 1].len;
		if (type)
			PyStructSequence_SetItem(t, j, v);
		else
			PyTuple_SetItem(t, j, v);
	}
	return t;
}

static PyObject *records(const unsigned char *buf, uint32_t nodes,
			 const struct field *fields, uint32_t nf, size_t rec,
			 PyTypeObject *type)
{
	PyObject *list = PyList_New(nodes);

	for (uint32_t i = 0; list && i < nodes; i++) {
		PyObject *t = record(buf + (size_t)i * rec, fields, nf, type);

		if (!t)
			Py_CLEAR(list);
		else
			PyList_SetItem(list, i, t);
	}
	return list;
}

/*
 * node_type(names): a struct sequence type "kmemdev.Node" with the fields
 * addr and @names (valid identifiers, distinct), for walk()'s records: a
 * tuple with named fields, made in C.  The field names live in a bytes
 * object the type keeps (the type points at them).
 */
PyObject *ext_node_type(PyObject *module, PyObject *args)
{
	PyStructSequence_Field *f;
	PyStructSequence_Desc desc = { "kmemdev.Node", "A node of a kernel list "
				       "(kmemdev.Kmem.walk()): addr, then its fields.", NULL, 0 };
	PyObject *names, *seq, *keep = NULL, *type = NULL;
	Py_ssize_t n, i, bytes;
	char *at;

	(void)module;
	if (!PyArg_ParseTuple(args, "O:node_type", &names))
		return NULL;
	seq = PySequence_List(names);
	if (!seq)
		return NULL;
	n = PyList_Size(seq);
	bytes = (n + 2) * (Py_ssize_t)sizeof(*f) + 5;
	for (i = 0; i < n; i++) {
		Py_ssize_t len;

		if (!PyUnicode_AsUTF8AndSize(PyList_GetItem(seq, i), &len))
			goto out;
		bytes += len + 1;
	}
	keep = PyBytes_FromStringAndSize(NULL, bytes);
	if (!keep)
		goto out;
	f = (PyStructSequence_Field *)(void *)PyBytes_AsString(keep);
	at = (char *)(f + n + 2);
	memcpy(at, "addr", 5);
	f[0] = (PyStructSequence_Field){ at, NULL };
	at += 5;
	for (i = 0; i < n; i++) {
		Py_ssize_t len;
		const char *name = PyUnicode_AsUTF8AndSize(PyList_GetItem(seq, i), &len);

		memcpy(at, name, (size_t)len + 1);
		f[i + 1] = (PyStructSequence_Field){ at, NULL };
		at += len + 1;
	}
	f[n + 1] = (PyStructSequence_Field){ NULL, NULL };
	desc.fields = f;
	desc.n_in_sequence = (int)n + 1;
	type = (PyObject *)PyStructSequence_NewType(&desc);
	if (type && PyObject_SetAttrString(type, "_kmemdev_names", keep))
		Py_CLEAR(type);
out:
	Py_XDECREF(keep);
	Py_DECREF(seq);
	return type;
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
	static char *kwlist[] = { "head", "link_offset", "fields", "max_nodes",
				  "node_type", NULL };
	PyObject *node_type = Py_None;
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

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO&O|IO:walk", kwlist, &head,
					 ext_u64_conv, &link, &flist, &max_nodes,
					 &node_type))
		return NULL;
	if (node_type != Py_None && !PyType_Check(node_type)) {
		PyErr_SetString(PyExc_TypeError, "node_type is a type from node_type()");
		return NULL;
	}
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
		out = records(buf, nodes, fields, nf, rec, node_type == Py_None ? NULL :
			      (PyTypeObject *)node_type);
		free(buf);
		if (err && out) {
			walk_error(err, &w, out);
			Py_CLEAR(out);
		}
	}
	return out;
}
