// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* Reading kernel memory: read, readinto, read_int, readv. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ext.h"

static PyObject *addr_str(uint64_t addr)
{
	char buf[24];

	/* PyUnicode_FromFormat() has no %llx */
	snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)addr);
	return PyUnicode_FromString(buf);
}

static PyObject *read_error(int err, uint64_t addr)
{
	PyObject *what = addr_str(addr);

	if (what)
		ext_oserror(KMEMDEV_OP_READ, err, what);
	Py_XDECREF(what);
	return NULL;
}

static int to_size(PyObject *o, size_t *n)
{
	if (!PyLong_Check(o)) {
		PyErr_SetString(PyExc_TypeError, "a length is an int");
		return -1;
	}
	*n = PyLong_AsSize_t(o);
	return *n == (size_t)-1 && PyErr_Occurred() ? -1 : 0;
}

EXT_METHOD(kmem_read)
{
	static char *kwlist[] = { "addr", "size", NULL };
	PyObject *a, *len, *out;
	struct kmemdev *h;
	uint64_t addr;
	char none;
	size_t n;
	void *buf;
	int err;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO:read", kwlist, &a, &len) ||
	    to_size(len, &n))
		return NULL;
	out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)n);
	if (!out)
		return NULL;
	/* 0 bytes: the library's answer (-EINVAL), not a write to b"" */
	buf = n ? PyBytes_AsString(out) : &none;
	h = ext_hold((KmemObject *)self);
	if (!h || ext_addr(h, a, &addr)) {
		if (h)
			ext_release((KmemObject *)self);
		Py_DECREF(out);
		return NULL;
	}
	Py_BEGIN_ALLOW_THREADS
	err = kmemdev_read(h, addr, buf, n);
	Py_END_ALLOW_THREADS
	ext_release((KmemObject *)self);
	if (err) {
		Py_DECREF(out);
		return read_error(err, addr);
	}
	return out;
}

EXT_METHOD(kmem_readinto)
{
	static char *kwlist[] = { "addr", "buffer", NULL };
	struct kmemdev *h;
	PyObject *a, *b;
	uint64_t addr;
	Py_buffer view;
	int err;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO:readinto", kwlist, &a, &b))
		return NULL;
	if (PyObject_GetBuffer(b, &view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS))
		return NULL;
	h = ext_hold((KmemObject *)self);
	if (!h || ext_addr(h, a, &addr)) {
		if (h)
			ext_release((KmemObject *)self);
		PyBuffer_Release(&view);
		return NULL;
	}
	Py_BEGIN_ALLOW_THREADS
	err = kmemdev_read(h, addr, view.buf, (size_t)view.len);
	Py_END_ALLOW_THREADS
	ext_release((KmemObject *)self);
	PyBuffer_Release(&view);
	if (err)
		return read_error(err, addr);
	return PyLong_FromSsize_t(view.len);
}

EXT_METHOD(kmem_read_int)
{
	static char *kwlist[] = { "addr", "size", "signed", NULL };
	int size, is_signed = 0, err;
	unsigned char b[8];
	struct kmemdev *h;
	uint64_t addr, v = 0;
	PyObject *a;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "Oi|p:read_int", kwlist, &a,
					 &size, &is_signed))
		return NULL;
	if (size != 1 && size != 2 && size != 4 && size != 8) {
		PyErr_Format(PyExc_ValueError, "an integer is 1, 2, 4 or 8 bytes, not %d",
			     size);
		return NULL;
	}
	h = ext_hold((KmemObject *)self);
	if (!h || ext_addr(h, a, &addr)) {
		if (h)
			ext_release((KmemObject *)self);
		return NULL;
	}
	Py_BEGIN_ALLOW_THREADS
	err = kmemdev_read(h, addr, b, (size_t)size);
	Py_END_ALLOW_THREADS
	ext_release((KmemObject *)self);
	if (err)
		return read_error(err, addr);
	/* x86-64 only (the driver's one architecture): little endian */
	for (int i = size - 1; i >= 0; i--)
		v = v << 8 | b[i];
	if (is_signed && size < 8 && (v >> (size * 8 - 1)) & 1)
		v |= ~0ULL << (size * 8);
	if (is_signed)
		return PyLong_FromLongLong((long long)v);
	return PyLong_FromUnsignedLongLong(v);
}

/* One segment's result: its bytes (short if a later page failed), or the OSError. */
static PyObject *segment_result(PyObject *buf, const struct kmem_ro_iov *iov)
{
	PyObject *what, *exc;

	if (iov->result >= 0 && (uint64_t)iov->result == iov->len)
		return Py_NewRef(buf);
	if (iov->result >= 0)
		return PyBytes_FromStringAndSize(PyBytes_AsString(buf),
						 (Py_ssize_t)iov->result);
	what = addr_str(iov->addr);
	if (!what)
		return NULL;
	exc = ext_oserror_obj(KMEMDEV_OP_READ, (int)iov->result, what);
	Py_DECREF(what);
	return exc;
}

EXT_METHOD(kmem_readv)
{
	static char *kwlist[] = { "segments", NULL };
	PyObject *segs, *seq = NULL, *bufs = NULL, *out = NULL;
	struct kmem_ro_iov *iov = NULL;
	unsigned int done = 0;
	struct kmemdev *h = NULL;
	Py_ssize_t n, i;
	int err;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O:readv", kwlist, &segs))
		return NULL;
	seq = PySequence_List(segs);
	if (!seq)
		return NULL;
	n = PyList_Size(seq);
	if (n > (Py_ssize_t)UINT32_MAX) {
		PyErr_SetString(PyExc_OverflowError, "too many segments for one call");
		goto out;
	}
	iov = calloc((size_t)n ? (size_t)n : 1, sizeof(*iov));
	bufs = PyList_New(n);
	if (!iov || !bufs) {
		if (!iov)
			PyErr_NoMemory();
		goto out;
	}
	h = ext_hold((KmemObject *)self);
	if (!h)
		goto out;
	for (i = 0; i < n; i++) {
		PyObject *item = PyList_GetItem(seq, i), *a, *len, *b;
		uint64_t addr;
		size_t sz;

		if (!PyTuple_Check(item) || PyTuple_Size(item) != 2) {
			PyErr_Format(PyExc_TypeError,
				     "segment %zd is not an (addr, size) tuple", i);
			goto out;
		}
		a = PyTuple_GetItem(item, 0);
		len = PyTuple_GetItem(item, 1);
		if (ext_addr(h, a, &addr) || to_size(len, &sz))
			goto out;
		iov[i].addr = addr;
		b = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)sz);
		if (!b)
			goto out;
		PyList_SetItem(bufs, i, b);
		iov[i].len = sz;
		iov[i].buf = (uintptr_t)PyBytes_AsString(b);
	}
	Py_BEGIN_ALLOW_THREADS
	err = kmemdev_readv(h, iov, (unsigned int)n, &done);
	Py_END_ALLOW_THREADS
	if (err) {
		ext_oserror(KMEMDEV_OP_READ, err, NULL);
		goto out;
	}
	out = PyList_New(n);
	if (!out)
		goto out;
	for (i = 0; i < n; i++) {
		PyObject *r = segment_result(PyList_GetItem(bufs, i), &iov[i]);

		if (!r) {
			Py_CLEAR(out);
			goto out;
		}
		PyList_SetItem(out, i, r);
	}
out:
	if (h)
		ext_release((KmemObject *)self);
	Py_XDECREF(bufs);
	Py_XDECREF(seq);
	free(iov);
	return out;
}

/* Little-endian integer of @size bytes at @b, sign-extended if @is_signed. */
static PyObject *int_at(const unsigned char *b, int size, int is_signed)
{
	uint64_t v = 0;

	for (int i = size - 1; i >= 0; i--)
		v = v << 8 | b[i];
	if (is_signed && size < 8 && (v >> (size * 8 - 1)) & 1)
		v |= ~0ULL << (size * 8);
	return is_signed ? PyLong_FromLongLong((long long)v) :
			   PyLong_FromUnsignedLongLong(v);
}

/*
 * readv_ints(addrs, size, signed): one integer at each address, all in one
 * kmemdev_readv(); per address its int, or the OSError of that segment (a
 * short read counts as EFAULT, as for read_int()).
 */
EXT_METHOD(kmem_readv_ints)
{
	static char *kwlist[] = { "addrs", "size", "signed", NULL };
	PyObject *in, *seq, *out = NULL;
	struct kmem_ro_iov *iov = NULL;
	unsigned char *buf = NULL;
	int size = 8, is_signed = 0, err;
	struct kmemdev *h = NULL;
	Py_ssize_t n, i;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|ip:readv_ints", kwlist, &in, &size,
					 &is_signed))
		return NULL;
	if (size != 1 && size != 2 && size != 4 && size != 8)
		return PyErr_Format(PyExc_ValueError,
				    "an integer is 1, 2, 4 or 8 bytes, not %d", size);
	seq = PySequence_List(in);
	if (!seq)
		return NULL;
	n = PyList_Size(seq);
	if (n > (Py_ssize_t)UINT32_MAX) {
		PyErr_SetString(PyExc_OverflowError, "too many addresses for one call");
		goto out;
	}
	iov = malloc(((size_t)n ? (size_t)n : 1) * sizeof(*iov));
	buf = malloc(((size_t)n ? (size_t)n : 1) * (size_t)size);
	if (!iov || !buf) {
		PyErr_NoMemory();
		goto out;
	}
	h = ext_hold((KmemObject *)self);
	if (!h)
		goto out;
	for (i = 0; i < n; i++) {
		uint64_t addr;

		if (ext_addr(h, PyList_GetItem(seq, i), &addr))
			goto out;
		iov[i] = (struct kmem_ro_iov){ .addr = addr, .len = (uint64_t)size,
					       .buf = (uintptr_t)(buf + i * size) };
	}
	Py_BEGIN_ALLOW_THREADS
	err = kmemdev_readv(h, iov, (unsigned int)n, NULL);
	Py_END_ALLOW_THREADS
	if (err) {
		ext_oserror(KMEMDEV_OP_READ, err, NULL);
		goto out;
	}
	out = PyList_New(n);
	for (i = 0; out && i < n; i++) {
		PyObject *r, *what;

		if (iov[i].result == size) {
			r = int_at(buf + i * size, size, is_signed);
		} else {
			what = addr_str(iov[i].addr);
			r = what ? ext_oserror_obj(KMEMDEV_OP_READ, iov[i].result < 0 ?
						   (int)iov[i].result : -EFAULT, what) : NULL;
			Py_XDECREF(what);
		}
		if (!r)
			Py_CLEAR(out);
		else
			PyList_SetItem(out, i, r);
	}
out:
	if (h)
		ext_release((KmemObject *)self);
	Py_DECREF(seq);
	free(iov);
	free(buf);
	return out;
}
