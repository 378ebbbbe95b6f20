/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * kmemdev._kmemdev: the CPython extension over libkmemdev, on the stable
 * ABI of Python 3.11 (one abi3 build for 3.11 and later).
 *
 * No global state: the types live in the module's state.  A Kmem object
 * owns one libkmemdev handle.  libkmemdev's handle may be shared between
 * threads (kmemdev.h), so calls on it need no lock of their own; what the
 * per-object read-write lock guards is the handle's life: every call holds
 * it for reading (taken with the GIL released), close() and the bound
 * event stream's symbol refresh (kmemdev_events_next() drops the handle's
 * symbols) hold it for writing.  The GIL is released around every library
 * call: each one may make a system call.
 */
#ifndef KMEMDEV_PY_EXT_H
#define KMEMDEV_PY_EXT_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <pthread.h>
#include <stdint.h>

#include "kmemdev.h"

struct module_state {
	PyTypeObject *kmem_type;
	PyTypeObject *events_type;
};

typedef struct {
	PyObject_HEAD
	pthread_rwlock_t lock;
	struct kmemdev *h;	/* NULL once closed */
} KmemObject;

/* The module state of an object of one of our types. */
struct module_state *ext_state(PyObject *self);

/*
 * Raise OSError(err, kmemdev_strerror(op, err), what): Python makes it
 * the subclass of that errno (FileNotFoundError, PermissionError, ...).
 * @what names the object (a symbol, an address), or NULL.  Returns NULL.
 */
PyObject *ext_oserror(enum kmemdev_op op, int err, PyObject *what);
/* The exception object itself, for per-entry results; NULL on failure. */
PyObject *ext_oserror_obj(enum kmemdev_op op, int err, PyObject *what);
/* ext_oserror() with a C string naming the object. */
PyObject *ext_oserror_str(enum kmemdev_op op, int err, const char *what);

/* ValueError "I/O operation on closed kmemdev handle". */
PyObject *ext_closed(void);

/*
 * The handle for one call: takes the lock for reading with the GIL
 * released.  NULL (ValueError raised, lock not held) when closed.  Every
 * success is paired with ext_release().
 */
struct kmemdev *ext_hold(KmemObject *self);
void ext_release(KmemObject *self);

/* An unsigned 64-bit int from a Python int: -1 with OverflowError/TypeError. */
int ext_u64(PyObject *o, uint64_t *v);
/* ext_u64() as a PyArg "O&" converter into a uint64_t. */
int ext_u64_conv(PyObject *o, void *v);

/*
 * An address: an int, or a str the library parses (0xHEX, SYMBOL,
 * SYMBOL+OFF...; kmemdev_parse_addr()).  Call with the handle held.
 */
int ext_addr(struct kmemdev *h, PyObject *o, uint64_t *v);

/* Methods of Kmem, by concern (one file each); kmem.c lists them. */
#define EXT_METHOD(name) \
	PyObject *name(PyObject *self, PyObject *args, PyObject *kw)
/* read.c */
EXT_METHOD(kmem_read);
EXT_METHOD(kmem_readinto);
EXT_METHOD(kmem_read_int);
EXT_METHOD(kmem_readv);
EXT_METHOD(kmem_readv_ints);
/* btf.c */
EXT_METHOD(kmem_member);
EXT_METHOD(kmem_type_size);
/* walk.c */
EXT_METHOD(kmem_walk);
PyObject *ext_node_type(PyObject *module, PyObject *args);
/* pagemap.c */
EXT_METHOD(kmem_pagemap);
/* probes.c */
EXT_METHOD(kmem_probe_add);
EXT_METHOD(kmem_probe_ids);
EXT_METHOD(kmem_probe_counts);
EXT_METHOD(kmem_probe_list);
EXT_METHOD(kmem_probe_filter);
EXT_METHOD(kmem_probe_glob);
/* events.c */
EXT_METHOD(kmem_events);
EXT_METHOD(kmem_snapshots);

/* The event stream type (events.c). */
extern PyType_Spec ext_events_spec;

#endif /* KMEMDEV_PY_EXT_H */
