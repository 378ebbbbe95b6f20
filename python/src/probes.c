// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Probes: hit counters on kernel functions, owned by the handle
 * (kmemdev_probes_*()).  Adding reports per spec, as the library does: an
 * id, or the OSError of that spec.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ext.h"

static PyObject *probe_error(int err)
{
	return ext_oserror(KMEMDEV_OP_PROBES, err, NULL);
}

/* A list of ids from a Python iterable of ints; *n set.  NULL with an exception. */
static uint64_t *ids_of(PyObject *o, unsigned int *n)
{
	PyObject *seq = PySequence_List(o);
	uint64_t *ids;
	Py_ssize_t len;

	if (!seq)
		return NULL;
	len = PyList_Size(seq);
	if (len > (Py_ssize_t)UINT32_MAX) {
		Py_DECREF(seq);
		PyErr_SetString(PyExc_OverflowError, "too many ids");
		return NULL;
	}
	ids = malloc(((size_t)len ? (size_t)len : 1) * sizeof(*ids));
	if (!ids) {
		Py_DECREF(seq);
		PyErr_NoMemory();
		return NULL;
	}
	for (Py_ssize_t i = 0; i < len; i++)
		if (ext_u64(PyList_GetItem(seq, i), &ids[i])) {
			free(ids);
			Py_DECREF(seq);
			return NULL;
		}
	Py_DECREF(seq);
	*n = (unsigned int)len;
	return ids;
}

EXT_METHOD(kmem_probe_add)
{
	static char *kwlist[] = { "specs", "enabled", NULL };
	struct kmem_ro_probe_spec *specs = NULL;
	PyObject *in, *seq, *out = NULL;
	int enabled = 0, err = 0, *fill = NULL;
	unsigned int n, *slot = NULL, nadd = 0;
	struct kmemdev *h;
	const char **names = NULL;
	uint32_t *offs = NULL;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|p:probe_add", kwlist, &in,
					 &enabled))
		return NULL;
	seq = PySequence_List(in);
	if (!seq)
		return NULL;
	n = (unsigned int)PyList_Size(seq);
	specs = calloc(n ? n : 1, sizeof(*specs));
	fill = calloc(n ? n : 1, sizeof(*fill));
	slot = calloc(n ? n : 1, sizeof(*slot));
	names = calloc(n ? n : 1, sizeof(*names));
	offs = calloc(n ? n : 1, sizeof(*offs));
	if (!specs || !fill || !slot || !names || !offs) {
		PyErr_NoMemory();
		goto out;
	}
	for (unsigned int i = 0; i < n; i++) {
		unsigned int off;

		if (!PyArg_ParseTuple(PyList_GetItem(seq, i), "sI:probe spec",
				      &names[i], &off))
			goto out;
		offs[i] = off;
	}
	h = ext_hold((KmemObject *)self);
	if (!h)
		goto out;
	Py_BEGIN_ALLOW_THREADS
	/* each name looked up; those found go to the driver together */
	for (unsigned int i = 0; i < n; i++) {
		fill[i] = kmemdev_probe_spec_fill(h, &specs[nadd], names[i], offs[i],
						  enabled ? KMEM_RO_PROBE_ENABLED : 0);
		if (!fill[i])
			slot[i] = nadd++;
	}
	err = kmemdev_probes_add(h, specs, nadd, NULL);
	Py_END_ALLOW_THREADS
	ext_release((KmemObject *)self);
	if (err) {
		probe_error(err);
		goto out;
	}
	out = PyList_New(n);
	for (unsigned int i = 0; out && i < n; i++) {
		PyObject *r, *what = PyUnicode_FromString(names[i]);
		int64_t res = fill[i] ? 0 : specs[slot[i]].result;

		if (!what) {
			Py_CLEAR(out);
			break;
		}
		if (fill[i])
			r = ext_oserror_obj(KMEMDEV_OP_SYMBOL, fill[i], what);
		else if (res < 0)
			r = ext_oserror_obj(KMEMDEV_OP_PROBES, (int)res, what);
		else
			r = PyLong_FromLongLong(res);
		Py_DECREF(what);
		if (!r)
			Py_CLEAR(out);
		else
			PyList_SetItem(out, i, r);
	}
out:
	Py_DECREF(seq);
	free(specs);
	free(fill);
	free(slot);
	free(names);
	free(offs);
	return out;
}

/* enable, disable or remove: ids, or None for every probe of the handle. */
EXT_METHOD(kmem_probe_ids)
{
	static char *kwlist[] = { "op", "ids", NULL };
	PyObject *in = Py_None;
	uint64_t *ids = NULL;
	unsigned int n = 0;
	struct kmemdev *h;
	const char *op;
	int err, which;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "s|O:probe_ids", kwlist, &op, &in))
		return NULL;
	if (!strcmp(op, "enable"))
		which = 0;
	else if (!strcmp(op, "disable"))
		which = 1;
	else if (!strcmp(op, "remove"))
		which = 2;
	else
		return PyErr_Format(PyExc_ValueError, "unknown probe operation '%s'", op);
	if (in != Py_None && !(ids = ids_of(in, &n)))
		return NULL;
	h = ext_hold((KmemObject *)self);
	if (!h) {
		free(ids);
		return NULL;
	}
	Py_BEGIN_ALLOW_THREADS
	if (!ids)
		err = which == 0 ? kmemdev_probes_enable_all(h) :
		      which == 1 ? kmemdev_probes_disable_all(h) :
		      kmemdev_probes_del_all(h);
	else
		err = which == 0 ? kmemdev_probes_enable(h, ids, n) :
		      which == 1 ? kmemdev_probes_disable(h, ids, n) :
		      kmemdev_probes_del(h, ids, n);
	Py_END_ALLOW_THREADS
	ext_release((KmemObject *)self);
	free(ids);
	if (err < 0)
		return probe_error(err);
	Py_RETURN_NONE;
}

/* Hit counts of @ids (a list in their order), or of every probe (a dict by id). */
EXT_METHOD(kmem_probe_counts)
{
	static char *kwlist[] = { "ids", "reset", NULL };
	struct kmem_ro_probe_info *list = NULL;
	uint64_t *ids = NULL, *counts = NULL;
	PyObject *in = Py_None, *out = NULL;
	unsigned int n = 0;
	int reset = 0, err;
	struct kmemdev *h;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|Op:probe_counts", kwlist, &in,
					 &reset))
		return NULL;
	if (in != Py_None && !(ids = ids_of(in, &n)))
		return NULL;
	h = ext_hold((KmemObject *)self);
	if (!h) {
		free(ids);
		return NULL;
	}
	Py_BEGIN_ALLOW_THREADS
	if (ids) {
		counts = calloc(n ? n : 1, sizeof(*counts));
		err = !counts ? -ENOMEM :
		      kmemdev_probes_stats(h, ids, n, n ? counts : NULL,
					   reset ? KMEM_RO_PROBE_RESET : 0);
	} else {
		/* ids in id order, then the counts in the same order */
		err = kmemdev_probes_list(h, 0, &list, &n);
		if (!err) {
			counts = calloc(n ? n : 1, sizeof(*counts));
			err = !counts ? -ENOMEM :
			      kmemdev_probes_stats_all(h, n ? counts : NULL, n,
						       reset ? KMEM_RO_PROBE_RESET : 0);
			/* probes added or removed in between: the lists do not pair */
			if (err >= 0 && (unsigned int)err != n)
				err = -EAGAIN;
		}
	}
	Py_END_ALLOW_THREADS
	ext_release((KmemObject *)self);
	if (err < 0) {
		probe_error(err);
		goto out;
	}
	out = ids ? PyList_New(n) : PyDict_New();
	for (unsigned int i = 0; out && i < n; i++) {
		PyObject *c = PyLong_FromUnsignedLongLong(counts[i]), *k;
		int rc = -1;

		if (c && ids) {
			PyList_SetItem(out, i, c);
			continue;
		}
		k = PyLong_FromUnsignedLongLong(list[i].id);
		if (c && k)
			rc = PyDict_SetItem(out, k, c);
		Py_XDECREF(c);
		Py_XDECREF(k);
		if (rc)
			Py_CLEAR(out);
	}
out:
	free(ids);
	free(counts);
	free(list);
	return out;
}

EXT_METHOD(kmem_probe_list)
{
	static char *kwlist[] = { "all_files", NULL };
	struct kmem_ro_probe_info *list = NULL;
	unsigned int n = 0;
	int all = 0, err;
	struct kmemdev *h;
	PyObject *out;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|p:probe_list", kwlist, &all))
		return NULL;
	h = ext_hold((KmemObject *)self);
	if (!h)
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	err = kmemdev_probes_list(h, all ? KMEM_RO_PROBE_LIST_ALL_FILES : 0, &list, &n);
	Py_END_ALLOW_THREADS
	ext_release((KmemObject *)self);
	if (err)
		return probe_error(err);
	out = PyList_New(n);
	for (unsigned int i = 0; out && i < n; i++) {
		const struct kmem_ro_probe_info *p = &list[i];
		PyObject *t = Py_BuildValue("(KKIIIKs)", (unsigned long long)p->id,
					    (unsigned long long)p->addr, p->offset,
					    p->flags, p->owner,
					    (unsigned long long)p->hits, p->name);

		if (!t)
			Py_CLEAR(out);
		else
			PyList_SetItem(out, i, t);
	}
	free(list);
	return out;
}

EXT_METHOD(kmem_probe_filter)
{
	static char *kwlist[] = { "pid", "comm", NULL };
	PyObject *pid_o = Py_None, *comm_o = Py_None;
	const char *comm = NULL;
	uint64_t flags = 0;
	struct kmemdev *h;
	long pid = 0;
	int err;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|OO:probe_filter", kwlist,
					 &pid_o, &comm_o))
		return NULL;
	if (pid_o != Py_None) {
		pid = PyLong_AsLong(pid_o);
		if (pid == -1 && PyErr_Occurred())
			return NULL;
		/* beyond pid_t: the library's -EINVAL for a pid it cannot be */
		if (pid > INT32_MAX || pid < INT32_MIN)
			pid = 0;
		flags |= KMEM_RO_PROBE_FILTER_PID;
	}
	if (comm_o != Py_None) {
		comm = PyUnicode_AsUTF8AndSize(comm_o, NULL);
		if (!comm)
			return NULL;
		flags |= KMEM_RO_PROBE_FILTER_COMM;
	}
	h = ext_hold((KmemObject *)self);
	if (!h)
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	err = kmemdev_probe_filter(h, flags, (pid_t)pid, comm);
	Py_END_ALLOW_THREADS
	ext_release((KmemObject *)self);
	if (err)
		return probe_error(err);
	Py_RETURN_NONE;
}

struct glob_acc {
	struct kmemdev_sym *syms;	/* names and modules strdup()ed */
	size_t n, cap;
};

static int glob_one(const struct kmemdev_sym *sym, void *arg)
{
	struct glob_acc *a = arg;

	if (a->n == a->cap) {
		size_t cap = a->cap ? 2 * a->cap : 64;
		struct kmemdev_sym *p = realloc(a->syms, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		a->syms = p;
		a->cap = cap;
	}
	a->syms[a->n] = *sym;
	a->syms[a->n].name = strdup(sym->name);
	a->syms[a->n].module = sym->module ? strdup(sym->module) : NULL;
	if (!a->syms[a->n].name || (sym->module && !a->syms[a->n].module)) {
		free((char *)a->syms[a->n].name);
		free((char *)a->syms[a->n].module);
		return -ENOMEM;
	}
	a->n++;
	return 0;
}

EXT_METHOD(kmem_probe_glob)
{
	static char *kwlist[] = { "pattern", NULL };
	struct glob_acc acc = { NULL, 0, 0 };
	PyObject *out = NULL;
	const char *pattern;
	struct kmemdev *h;
	int err;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "s:probe_glob", kwlist, &pattern))
		return NULL;
	h = ext_hold((KmemObject *)self);
	if (!h)
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	err = kmemdev_probe_glob(h, pattern, glob_one, &acc);
	Py_END_ALLOW_THREADS
	ext_release((KmemObject *)self);
	if (err < 0) {
		ext_oserror_str(KMEMDEV_OP_SYMBOL, err, pattern);
	} else {
		out = PyList_New((Py_ssize_t)acc.n);
		for (size_t i = 0; out && i < acc.n; i++) {
			const struct kmemdev_sym *s = &acc.syms[i];
			PyObject *t = Py_BuildValue("(KsNC)", (unsigned long long)s->addr,
						    s->name, s->module ?
						    PyUnicode_FromString(s->module) :
						    Py_NewRef(Py_None),
						    (int)(unsigned char)s->type);

			if (!t)
				Py_CLEAR(out);
			else
				PyList_SetItem(out, (Py_ssize_t)i, t);
		}
	}
	for (size_t i = 0; i < acc.n; i++) {
		free((char *)acc.syms[i].name);
		free((char *)acc.syms[i].module);
	}
	free(acc.syms);
	return out;
}
