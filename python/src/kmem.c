// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The module kmemdev._kmemdev and its handle type Kmem: open, close,
 * backend, info, symbols.  The other calls are in a file per concern.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ext.h"

struct module_state *ext_state(PyObject *self)
{
	return PyType_GetModuleState(Py_TYPE(self));
}

PyObject *ext_oserror_obj(enum kmemdev_op op, int err, PyObject *what)
{
	int e = err < 0 ? -err : err;

	if (what)
		return PyObject_CallFunction(PyExc_OSError, "isO", e,
					     kmemdev_strerror(op, e), what);
	return PyObject_CallFunction(PyExc_OSError, "is", e,
				     kmemdev_strerror(op, e));
}

PyObject *ext_oserror(enum kmemdev_op op, int err, PyObject *what)
{
	PyObject *exc = ext_oserror_obj(op, err, what);

	if (exc) {
		PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
		Py_DECREF(exc);
	}
	return NULL;
}

PyObject *ext_oserror_str(enum kmemdev_op op, int err, const char *what)
{
	PyObject *w = what ? PyUnicode_FromString(what) : NULL;

	if (what && !w)
		return NULL;
	ext_oserror(op, err, w);
	Py_XDECREF(w);
	return NULL;
}

PyObject *ext_closed(void)
{
	PyErr_SetString(PyExc_ValueError, "I/O operation on closed kmemdev handle");
	return NULL;
}

struct kmemdev *ext_hold(KmemObject *self)
{
	struct kmemdev *h;

	Py_BEGIN_ALLOW_THREADS
	pthread_rwlock_rdlock(&self->lock);
	Py_END_ALLOW_THREADS
	h = self->h;
	if (!h) {
		pthread_rwlock_unlock(&self->lock);
		ext_closed();
	}
	return h;
}

void ext_release(KmemObject *self)
{
	pthread_rwlock_unlock(&self->lock);
}

int ext_u64(PyObject *o, uint64_t *v)
{
	unsigned long long x;

	if (!PyLong_Check(o)) {
		PyErr_SetString(PyExc_TypeError, "an int is required");
		return -1;
	}
	x = PyLong_AsUnsignedLongLong(o);
	if (x == (unsigned long long)-1 && PyErr_Occurred())
		return -1;
	*v = x;
	return 0;
}

int ext_u64_conv(PyObject *o, void *v)
{
	return ext_u64(o, v) ? 0 : 1;
}

int ext_addr(struct kmemdev *h, PyObject *o, uint64_t *v)
{
	const char *expr;
	uint64_t a;
	int err;

	if (PyLong_Check(o))
		return ext_u64(o, v);
	if (!PyUnicode_Check(o)) {
		PyErr_SetString(PyExc_TypeError,
				"an address is an int or a str (0xHEX, SYMBOL, SYMBOL+OFF)");
		return -1;
	}
	expr = PyUnicode_AsUTF8AndSize(o, NULL);
	if (!expr)
		return -1;
	Py_BEGIN_ALLOW_THREADS
	err = kmemdev_parse_addr(h, expr, &a);
	Py_END_ALLOW_THREADS
	if (err) {
		ext_oserror(KMEMDEV_OP_SYMBOL, err, o);
		return -1;
	}
	*v = a;
	return 0;
}

/* ---- open and close ---- */

/*
 * Writers first: glibc's default lets readers that keep coming starve a
 * writer, and close() must not wait for ever behind threads that read in
 * a loop.  No thread takes the lock twice (which this kind would deadlock).
 */
static int init_lock(pthread_rwlock_t *lock)
{
	pthread_rwlockattr_t attr;
	int err;

	if (pthread_rwlockattr_init(&attr))
		return -1;
	err = pthread_rwlockattr_setkind_np(&attr,
					    PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	if (!err)
		err = pthread_rwlock_init(lock, &attr);
	pthread_rwlockattr_destroy(&attr);
	return err ? -1 : 0;
}

static PyObject *mod_open(PyObject *module, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "path", "backend", NULL };
	struct module_state *st = PyModule_GetState(module);
	PyObject *path = Py_None, *bytes = NULL;
	KmemObject *self;
	struct kmemdev *h = NULL;
	int backend = KMEMDEV_BACKEND_AUTO, err;
	freefunc tp_free;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|Oi:open", kwlist, &path,
					 &backend))
		return NULL;
	if (path != Py_None && !PyUnicode_FSConverter(path, &bytes))
		return NULL;
	{
		KMEMDEV_OPTS(kmemdev_open_opts, opts, .backend = backend);
		opts.path = bytes ? PyBytes_AsString(bytes) : NULL;
		Py_BEGIN_ALLOW_THREADS
		err = kmemdev_open(&h, &opts);
		Py_END_ALLOW_THREADS
	}
	if (err) {
		PyObject *what = path != Py_None ? path : NULL;

		/* kcore: the file's own error, not the device's sentences */
		ext_oserror(backend == KMEMDEV_BACKEND_KCORE && err != -ENOEXEC ?
			    KMEMDEV_OP_ANY : KMEMDEV_OP_OPEN, err, what);
		Py_XDECREF(bytes);
		return NULL;
	}
	Py_XDECREF(bytes);
	self = (KmemObject *)PyType_GenericAlloc(st->kmem_type, 0);
	if (!self) {
		kmemdev_close(h);
		return NULL;
	}
	if (init_lock(&self->lock)) {
		kmemdev_close(h);
		tp_free = PyType_GetSlot(st->kmem_type, Py_tp_free);
		tp_free(self);
		return PyErr_NoMemory();
	}
	self->h = h;
	return (PyObject *)self;
}

static void close_handle(KmemObject *self)
{
	struct kmemdev *h;

	Py_BEGIN_ALLOW_THREADS
	pthread_rwlock_wrlock(&self->lock);
	h = self->h;
	self->h = NULL;
	pthread_rwlock_unlock(&self->lock);
	kmemdev_close(h);
	Py_END_ALLOW_THREADS
}

static PyObject *kmem_close(PyObject *self, PyObject *unused)
{
	(void)unused;
	close_handle((KmemObject *)self);
	Py_RETURN_NONE;
}

static void kmem_dealloc(PyObject *self)
{
	PyTypeObject *tp = Py_TYPE(self);
	freefunc tp_free = PyType_GetSlot(tp, Py_tp_free);

	close_handle((KmemObject *)self);
	pthread_rwlock_destroy(&((KmemObject *)self)->lock);
	tp_free(self);
	Py_DECREF(tp);
}

static PyObject *kmem_closed(PyObject *self, void *unused)
{
	KmemObject *k = (KmemObject *)self;
	bool closed;

	(void)unused;
	Py_BEGIN_ALLOW_THREADS
	pthread_rwlock_rdlock(&k->lock);
	Py_END_ALLOW_THREADS
	closed = !k->h;
	pthread_rwlock_unlock(&k->lock);
	return PyBool_FromLong(closed);
}

static PyObject *kmem_backend(PyObject *self, void *unused)
{
	struct kmemdev *h = ext_hold((KmemObject *)self);
	PyObject *r;

	(void)unused;
	if (!h)
		return NULL;
	r = PyUnicode_FromString(kmemdev_backend_name(h));
	ext_release((KmemObject *)self);
	return r;
}

static PyObject *kmem_fileno(PyObject *self, PyObject *unused)
{
	struct kmemdev *h = ext_hold((KmemObject *)self);
	int fd;

	(void)unused;
	if (!h)
		return NULL;
	fd = kmemdev_fd(h);
	ext_release((KmemObject *)self);
	if (fd < 0)
		return ext_oserror(KMEMDEV_OP_ANY, fd, NULL);
	return PyLong_FromLong(fd);
}

/* ---- info ---- */

static int set_u64(PyObject *d, const char *key, uint64_t v)
{
	PyObject *o = PyLong_FromUnsignedLongLong(v);
	int rc;

	if (!o)
		return -1;
	rc = PyDict_SetItemString(d, key, o);
	Py_DECREF(o);
	return rc;
}

static PyObject *kmem_info(PyObject *self, PyObject *unused)
{
	KMEMDEV_ARG(kmem_ro_info, info);
	struct kmem_ro_range *ram = NULL;
	struct kmemdev *h = ext_hold((KmemObject *)self);
	PyObject *d = NULL, *list = NULL;
	unsigned int nr = 0, i;
	int err;

	(void)unused;
	if (!h)
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	err = kmemdev_info_alloc(h, &info, &ram, &nr);
	Py_END_ALLOW_THREADS
	ext_release((KmemObject *)self);
	if (err)
		return ext_oserror(KMEMDEV_OP_INFO, err, NULL);
	d = PyDict_New();
	list = PyList_New(nr);
	if (!d || !list)
		goto fail;
	for (i = 0; i < nr; i++) {
		PyObject *r = Py_BuildValue("(KK)", (unsigned long long)ram[i].start,
					    (unsigned long long)ram[i].end);

		if (!r)
			goto fail;
		PyList_SetItem(list, i, r);
	}
	if (set_u64(d, "abi_version", info.abi_version) ||
	    set_u64(d, "page_size", info.page_size) ||
	    set_u64(d, "features", info.features) ||
	    set_u64(d, "ioctls", info.ioctls) ||
	    set_u64(d, "pmd_size", info.pmd_size) ||
	    set_u64(d, "page_offset", info.page_offset) ||
	    set_u64(d, "phys_base", info.phys_base) ||
	    set_u64(d, "kernel_map", info.kernel_map) ||
	    set_u64(d, "text_start", info.text_start) ||
	    set_u64(d, "text_end", info.text_end) ||
	    set_u64(d, "vmalloc_start", info.vmalloc_start) ||
	    set_u64(d, "vmalloc_end", info.vmalloc_end) ||
	    set_u64(d, "modules_start", info.modules_start) ||
	    set_u64(d, "modules_end", info.modules_end) ||
	    set_u64(d, "vmcoreinfo_addr", info.vmcoreinfo_addr) ||
	    set_u64(d, "vmcoreinfo_size", info.vmcoreinfo_size) ||
	    PyDict_SetItemString(d, "ram", list))
		goto fail;
	Py_DECREF(list);
	free(ram);
	return d;
fail:
	Py_XDECREF(d);
	Py_XDECREF(list);
	free(ram);
	return NULL;
}

/* ---- symbols ---- */

static PyObject *sym_tuple(const struct kmemdev_sym *s, uint64_t offset)
{
	return Py_BuildValue("(KsNCK)", (unsigned long long)s->addr, s->name,
			     s->module ? PyUnicode_FromString(s->module) :
			     Py_NewRef(Py_None), (int)(unsigned char)s->type,
			     (unsigned long long)offset);
}

static PyObject *kmem_symbol(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "name", NULL };
	const struct kmemdev_sym *sym = NULL;
	struct kmemdev *h;
	const char *name;
	PyObject *r;
	int err;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "s:symbol_entry", kwlist, &name))
		return NULL;
	h = ext_hold((KmemObject *)self);
	if (!h)
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	err = kmemdev_symbol_find(h, name, &sym);
	Py_END_ALLOW_THREADS
	/* the entry is the handle's: copied before the lock is let go */
	r = err ? ext_oserror_str(KMEMDEV_OP_SYMBOL, err, name) : sym_tuple(sym, 0);
	ext_release((KmemObject *)self);
	return r;
}

static PyObject *kmem_symbolize(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "addr", NULL };
	const struct kmemdev_sym *sym = NULL;
	uint64_t addr, off = 0;
	struct kmemdev *h;
	PyObject *a, *r;
	int err;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O:symbolize", kwlist, &a))
		return NULL;
	h = ext_hold((KmemObject *)self);
	if (!h)
		return NULL;
	if (ext_addr(h, a, &addr)) {
		ext_release((KmemObject *)self);
		return NULL;
	}
	Py_BEGIN_ALLOW_THREADS
	err = kmemdev_symbolize(h, addr, &sym, &off);
	Py_END_ALLOW_THREADS
	if (err) {
		char what[24];

		snprintf(what, sizeof(what), "0x%llx", (unsigned long long)addr);
		r = ext_oserror_str(KMEMDEV_OP_SYMBOLIZE, err, what);
	} else {
		r = sym_tuple(sym, off);
	}
	ext_release((KmemObject *)self);
	return r;
}

static PyObject *kmem_parse_addr(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "expr", NULL };
	struct kmemdev *h;
	uint64_t addr;
	PyObject *a;
	int err;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O:address", kwlist, &a))
		return NULL;
	h = ext_hold((KmemObject *)self);
	if (!h)
		return NULL;
	err = ext_addr(h, a, &addr);
	ext_release((KmemObject *)self);
	return err ? NULL : PyLong_FromUnsignedLongLong(addr);
}

static PyObject *kmem_enter(PyObject *self, PyObject *unused)
{
	(void)unused;
	return Py_NewRef(self);
}

static PyObject *kmem_exit(PyObject *self, PyObject *args)
{
	(void)args;
	close_handle((KmemObject *)self);
	Py_RETURN_NONE;
}

#define KW (METH_VARARGS | METH_KEYWORDS)
#define M(name, fn, flags) { name, (PyCFunction)(void (*)(void))fn, flags, NULL }

static PyMethodDef kmem_methods[] = {
	M("close", kmem_close, METH_NOARGS),
	M("fileno", kmem_fileno, METH_NOARGS),
	M("__enter__", kmem_enter, METH_NOARGS),
	M("__exit__", kmem_exit, METH_VARARGS),
	M("info", kmem_info, METH_NOARGS),
	M("symbol_entry", kmem_symbol, KW),
	M("symbolize", kmem_symbolize, KW),
	M("address", kmem_parse_addr, KW),
	M("read", kmem_read, KW),
	M("readinto", kmem_readinto, KW),
	M("read_int", kmem_read_int, KW),
	M("readv", kmem_readv, KW),
	M("readv_ints", kmem_readv_ints, KW),
	M("member", kmem_member, KW),
	M("type_size", kmem_type_size, KW),
	M("walk", kmem_walk, KW),
	M("pagemap", kmem_pagemap, KW),
	M("probe_add", kmem_probe_add, KW),
	M("probe_ids", kmem_probe_ids, KW),
	M("probe_counts", kmem_probe_counts, KW),
	M("probe_list", kmem_probe_list, KW),
	M("probe_filter", kmem_probe_filter, KW),
	M("probe_glob", kmem_probe_glob, KW),
	M("events", kmem_events, KW),
	M("snapshots", kmem_snapshots, KW),
	{ NULL, NULL, 0, NULL }
};

static PyGetSetDef kmem_getset[] = {
	{ "closed", kmem_closed, NULL, NULL, NULL },
	{ "backend", kmem_backend, NULL, NULL, NULL },
	{ NULL, NULL, NULL, NULL, NULL }
};

static PyType_Slot kmem_slots[] = {
	{ Py_tp_doc, "A libkmemdev handle: see kmemdev.Kmem." },
	{ Py_tp_dealloc, kmem_dealloc },
	{ Py_tp_methods, kmem_methods },
	{ Py_tp_getset, kmem_getset },
	{ 0, NULL }
};

static PyType_Spec kmem_spec = {
	.name = "kmemdev._kmemdev.Handle",
	.basicsize = sizeof(KmemObject),
	.flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION,
	.slots = kmem_slots,
};

/* ---- the module ---- */

static PyObject *mod_strerror(PyObject *module, PyObject *args)
{
	int op, err;

	(void)module;
	if (!PyArg_ParseTuple(args, "ii:strerror", &op, &err))
		return NULL;
	return PyUnicode_FromString(kmemdev_strerror((enum kmemdev_op)op, err));
}

static PyObject *mod_version(PyObject *module, PyObject *unused)
{
	(void)module;
	(void)unused;
	return PyUnicode_FromString(kmemdev_version());
}

static PyMethodDef module_methods[] = {
	M("open", mod_open, KW),
	M("strerror", mod_strerror, METH_VARARGS),
	M("library_version", mod_version, METH_NOARGS),
	M("node_type", ext_node_type, METH_VARARGS),
	{ NULL, NULL, 0, NULL }
};

static int add_int(PyObject *m, const char *name, long long v)
{
	PyObject *o = PyLong_FromLongLong(v);
	int rc;

	if (!o)
		return -1;
	rc = PyModule_AddObjectRef(m, name, o);
	Py_DECREF(o);
	return rc;
}

static int module_exec(PyObject *m)
{
	struct module_state *st = PyModule_GetState(m);

	st->kmem_type = (PyTypeObject *)PyType_FromModuleAndSpec(m, &kmem_spec, NULL);
	if (!st->kmem_type)
		return -1;
	st->events_type = (PyTypeObject *)PyType_FromModuleAndSpec(m, &ext_events_spec, NULL);
	if (!st->events_type)
		return -1;
	if (PyModule_AddObjectRef(m, "Handle", (PyObject *)st->kmem_type) ||
	    PyModule_AddObjectRef(m, "EventStream", (PyObject *)st->events_type))
		return -1;
	return add_int(m, "BACKEND_AUTO", KMEMDEV_BACKEND_AUTO) ||
	       add_int(m, "BACKEND_DEVICE", KMEMDEV_BACKEND_DEVICE) ||
	       add_int(m, "BACKEND_KCORE", KMEMDEV_BACKEND_KCORE) ||
	       add_int(m, "OP_ANY", KMEMDEV_OP_ANY) ||
	       add_int(m, "OP_OPEN", KMEMDEV_OP_OPEN) ||
	       add_int(m, "OP_READ", KMEMDEV_OP_READ) ||
	       add_int(m, "OP_WALK", KMEMDEV_OP_WALK) ||
	       add_int(m, "OP_BTF", KMEMDEV_OP_BTF) ||
	       add_int(m, "OP_PROBES", KMEMDEV_OP_PROBES) ||
	       add_int(m, "OP_EVENTS", KMEMDEV_OP_EVENTS) ||
	       add_int(m, "WALK_MAX_FIELDS", KMEM_RO_WALK_MAX_FIELDS) ||
	       add_int(m, "READV_MAX_SEGS", KMEM_RO_READV_MAX_SEGS) ||
	       add_int(m, "PROBE_ENABLED", KMEM_RO_PROBE_ENABLED) ||
	       add_int(m, "PROBE_KPROBE", KMEM_RO_PROBE_KPROBE) ||
	       add_int(m, "PROBE_GONE", KMEM_RO_PROBE_GONE) ||
	       add_int(m, "FEAT_READV", (long long)KMEM_RO_FEAT_READV) ||
	       add_int(m, "FEAT_WALK", (long long)KMEM_RO_FEAT_WALK) ||
	       add_int(m, "FEAT_PAGEMAP", (long long)KMEM_RO_FEAT_PAGEMAP) ||
	       add_int(m, "FEAT_PROBES", (long long)KMEM_RO_FEAT_PROBES) ||
	       add_int(m, "FEAT_EVENTS", (long long)KMEM_RO_FEAT_EVENTS) ||
	       add_int(m, "PM_PRESENT", (long long)KMEM_RO_PM_PRESENT) ||
	       add_int(m, "PM_SWAP", (long long)KMEM_RO_PM_SWAP) ||
	       add_int(m, "PM_FILE", (long long)KMEM_RO_PM_FILE) ||
	       add_int(m, "PM_EXCLUSIVE", (long long)KMEM_RO_PM_EXCLUSIVE) ||
	       add_int(m, "PM_SOFT_DIRTY", (long long)KMEM_RO_PM_SOFT_DIRTY) ? -1 : 0;
}

static int module_traverse(PyObject *m, visitproc visit, void *arg)
{
	struct module_state *st = PyModule_GetState(m);

	Py_VISIT(st->kmem_type);
	Py_VISIT(st->events_type);
	return 0;
}

static int module_clear(PyObject *m)
{
	struct module_state *st = PyModule_GetState(m);

	Py_CLEAR(st->kmem_type);
	Py_CLEAR(st->events_type);
	return 0;
}

static void module_free(void *m)
{
	module_clear(m);
}

static PyModuleDef_Slot module_slots[] = {
	{ Py_mod_exec, module_exec },
	{ 0, NULL }
};

static struct PyModuleDef module_def = {
	PyModuleDef_HEAD_INIT,
	.m_name = "kmemdev._kmemdev",
	.m_doc = "libkmemdev's calls; use the kmemdev package, not this module.",
	.m_size = sizeof(struct module_state),
	.m_methods = module_methods,
	.m_slots = module_slots,
	.m_traverse = module_traverse,
	.m_clear = module_clear,
	.m_free = module_free,
};

PyMODINIT_FUNC PyInit__kmemdev(void)
{
	return PyModuleDef_Init(&module_def);
}
