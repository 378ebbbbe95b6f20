// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * pagemap(): a process's page-table entries as /proc/PID/pagemap gives
 * them, as runs (kmemdev_pagemap_runs()) or one entry per page
 * (kmemdev_pagemap() resumed at walk_end).
 */
#include <errno.h>
#include <stdlib.h>

#include "ext.h"

#define FLAT_CHUNK	8192	/* entries per call: the driver's lock hold */

static PyObject *pagemap_error(int err, int pid)
{
	PyObject *what = PyUnicode_FromFormat("pid %d", pid);

	if (what)
		ext_oserror(KMEMDEV_OP_PAGEMAP, err, what);
	Py_XDECREF(what);
	return NULL;
}

static PyObject *as_runs(struct kmemdev *h, int pid, uint64_t start, uint64_t end,
			 int *err)
{
	struct kmem_ro_pagemap_run *runs = NULL;
	size_t count = 0;
	PyObject *list;

	Py_BEGIN_ALLOW_THREADS
	*err = kmemdev_pagemap_runs(h, pid, start, end, &runs, &count);
	Py_END_ALLOW_THREADS
	if (*err)
		return NULL;
	list = PyList_New((Py_ssize_t)count);
	for (size_t i = 0; list && i < count; i++) {
		PyObject *t = Py_BuildValue("(KKKK)", (unsigned long long)runs[i].start,
					    (unsigned long long)runs[i].pages,
					    (unsigned long long)runs[i].flags,
					    (unsigned long long)runs[i].frame);

		if (!t)
			Py_CLEAR(list);
		else
			PyList_SetItem(list, (Py_ssize_t)i, t);
	}
	free(runs);
	return list;
}

static PyObject *as_entries(struct kmemdev *h, int pid, uint64_t start,
			    uint64_t end, int *err)
{
	uint64_t *buf = malloc(FLAT_CHUNK * sizeof(*buf));
	PyObject *list = PyList_New(0);

	*err = 0;
	if (!buf || !list) {
		free(buf);
		Py_XDECREF(list);
		return PyErr_NoMemory();
	}
	do {
		KMEMDEV_ARG(kmem_ro_pagemap, arg, .pid = (uint32_t)pid,
			    .start = start, .end = end,
			    .buf_addr = (uintptr_t)buf,
			    .buf_size = FLAT_CHUNK * sizeof(*buf));

		/* a negative pid is the library's EINVAL, not a huge number */
		Py_BEGIN_ALLOW_THREADS
		*err = pid < 0 ? -EINVAL : kmemdev_pagemap(h, &arg);
		Py_END_ALLOW_THREADS
		if (*err)
			break;
		if (arg.walk_end <= start || arg.count > FLAT_CHUNK) {
			*err = -EPROTO;
			break;
		}
		for (uint64_t i = 0; i < arg.count; i++) {
			PyObject *v = PyLong_FromUnsignedLongLong(buf[i]);

			if (!v || PyList_Append(list, v)) {
				Py_XDECREF(v);
				Py_DECREF(list);
				free(buf);
				return NULL;
			}
			Py_DECREF(v);
		}
		start = arg.walk_end;
	} while (start < end);
	free(buf);
	if (*err) {
		Py_DECREF(list);
		return NULL;
	}
	return list;
}

EXT_METHOD(kmem_pagemap)
{
	static char *kwlist[] = { "pid", "start", "end", "runs", NULL };
	uint64_t start, end;
	int pid, runs = 1, err = 0;
	struct kmemdev *h;
	PyObject *out;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "iO&O&|p:pagemap", kwlist, &pid,
					 ext_u64_conv, &start, ext_u64_conv, &end, &runs))
		return NULL;
	h = ext_hold((KmemObject *)self);
	if (!h)
		return NULL;
	out = runs ? as_runs(h, pid, start, end, &err) :
		     as_entries(h, pid, start, end, &err);
	ext_release((KmemObject *)self);
	if (err)
		return pagemap_error(err, pid);
	return out;
}
