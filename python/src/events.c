// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Event streams (kmemdev_events_*()): module loads and unloads, probe
 * hit-count snapshots.  A stream is bound to its handle, whose symbols it
 * keeps current: kmemdev_events_next() then drops the handle's symbol
 * table, so it runs with the handle's lock held for writing, never while
 * another thread reads symbols.  The wait itself is a poll() of the
 * stream's socket with no lock and the GIL released.  One thread at a
 * time per stream (kmemdev.h): the stream's own mutex.
 */
#include <errno.h>
#include <poll.h>
#include <time.h>

#include "ext.h"

typedef struct {
	PyObject_HEAD
	pthread_mutex_t lock;
	struct kmemdev_events *ev;	/* NULL once closed */
	KmemObject *owner;		/* the bound handle, a strong reference */
} EventsObject;

static PyObject *events_error(int err)
{
	return ext_oserror(KMEMDEV_OP_EVENTS, err, NULL);
}

EXT_METHOD(kmem_events)
{
	static char *kwlist[] = { "modules", "snapshots", NULL };
	struct module_state *st = ext_state(self);
	int modules = 1, snapshots = 0, err;
	struct kmemdev_events *ev = NULL;
	unsigned int groups = 0;
	EventsObject *obj;
	struct kmemdev *h;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|pp:events", kwlist, &modules,
					 &snapshots))
		return NULL;
	groups = (modules ? KMEMDEV_EVENTS_MODULES : 0) |
		 (snapshots ? KMEMDEV_EVENTS_SNAPSHOTS : 0);
	h = ext_hold((KmemObject *)self);
	if (!h)
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	err = kmemdev_events_open(&ev, h);
	/* no group: the library's -EINVAL, as for any call without one */
	if (!err)
		err = kmemdev_events_subscribe(ev, groups);
	if (err) {
		kmemdev_events_close(ev);
		ev = NULL;
	}
	Py_END_ALLOW_THREADS
	ext_release((KmemObject *)self);
	if (err)
		return events_error(err);
	obj = (EventsObject *)PyType_GenericAlloc(st->events_type, 0);
	if (!obj) {
		kmemdev_events_close(ev);
		return NULL;
	}
	pthread_mutex_init(&obj->lock, NULL);
	obj->ev = ev;
	obj->owner = (KmemObject *)Py_NewRef(self);
	return (PyObject *)obj;
}

EXT_METHOD(kmem_snapshots)
{
	static char *kwlist[] = { "interval_ms", NULL };
	unsigned int interval;
	struct kmemdev *h;
	uint64_t id = 0;
	long long ms;
	int err;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "L:snapshots", kwlist, &ms))
		return NULL;
	/* out of the driver's range: its EINVAL, through the library */
	interval = ms < 0 || ms > UINT32_MAX ? 1 : (unsigned int)ms;
	h = ext_hold((KmemObject *)self);
	if (!h)
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	err = kmemdev_events_snapshot(h, interval, &id);
	Py_END_ALLOW_THREADS
	ext_release((KmemObject *)self);
	if (err)
		return ext_oserror(KMEMDEV_OP_SNAPSHOT, err, NULL);
	return PyLong_FromUnsignedLongLong(id);
}

static PyObject *event_tuple(const struct kmemdev_event *e)
{
	PyObject *pairs;

	switch (e->type) {
	case KMEMDEV_EVENT_MODULE_LOADED:
	case KMEMDEV_EVENT_MODULE_UNLOADED:
		return Py_BuildValue("(sKKsKKK)",
				     e->type == KMEMDEV_EVENT_MODULE_LOADED ?
				     "loaded" : "unloaded",
				     (unsigned long long)e->seq,
				     (unsigned long long)e->dropped, e->module.name,
				     (unsigned long long)e->module.base,
				     (unsigned long long)e->module.size,
				     (unsigned long long)e->module.text_size);
	case KMEMDEV_EVENT_SNAPSHOT:
		pairs = PyDict_New();
		for (uint32_t i = 0; pairs && i < e->snapshot.count; i++) {
			PyObject *k = PyLong_FromUnsignedLongLong(e->snapshot.ids[i]);
			PyObject *v = PyLong_FromUnsignedLongLong(e->snapshot.counts[i]);

			if (!k || !v || PyDict_SetItem(pairs, k, v))
				Py_CLEAR(pairs);
			Py_XDECREF(k);
			Py_XDECREF(v);
		}
		if (!pairs)
			return NULL;
		return Py_BuildValue("(sKKKKKIIIIN)", "snapshot",
				     (unsigned long long)e->seq,
				     (unsigned long long)e->dropped,
				     (unsigned long long)e->snapshot.id,
				     (unsigned long long)e->snapshot.tick,
				     (unsigned long long)e->snapshot.time_ns,
				     e->snapshot.owner, e->snapshot.interval_ms,
				     e->snapshot.total, e->snapshot.first, pairs);
	default:
		return PyErr_Format(PyExc_RuntimeError, "unknown event type %d", e->type);
	}
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The next event, None after timeout_ms (-1: wait for ever). */
static PyObject *events_next(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "timeout_ms", NULL };
	EventsObject *o = (EventsObject *)self;
	const struct kmemdev_event *e = NULL;
	int timeout = -1, r = 0, closed = 0;
	int64_t deadline;
	PyObject *out;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|i:next", kwlist, &timeout))
		return NULL;
	deadline = timeout > 0 ? now_ms() + timeout : 0;
	Py_BEGIN_ALLOW_THREADS
	pthread_mutex_lock(&o->lock);
	Py_END_ALLOW_THREADS
	if (!o->ev) {
		pthread_mutex_unlock(&o->lock);
		PyErr_SetString(PyExc_ValueError, "next() on a closed event stream");
		return NULL;
	}
	for (;;) {
		struct pollfd pfd = { .fd = kmemdev_events_fd(o->ev), .events = POLLIN };
		int wait = timeout < 0 ? -1 : timeout == 0 ? 0 :
			   (int)(deadline - now_ms() > 0 ? deadline - now_ms() : 0);

		Py_BEGIN_ALLOW_THREADS
		r = poll(&pfd, 1, wait);
		if (r < 0)
			r = -errno;
		if (r > 0) {
			pthread_rwlock_wrlock(&o->owner->lock);
			closed = !o->owner->h;
			r = closed ? 0 : kmemdev_events_next(o->ev, 0, &e);
			pthread_rwlock_unlock(&o->owner->lock);
		}
		Py_END_ALLOW_THREADS
		if (closed) {
			pthread_mutex_unlock(&o->lock);
			return ext_closed();
		}
		if (r == -EINTR) {
			if (PyErr_CheckSignals()) {
				pthread_mutex_unlock(&o->lock);
				return NULL;
			}
			continue;
		}
		if (r < 0) {
			pthread_mutex_unlock(&o->lock);
			return events_error(r);
		}
		if (r > 0)
			break;
		/* a message that was no event (skipped), or the time is up */
		if (timeout == 0 || (timeout > 0 && now_ms() >= deadline)) {
			pthread_mutex_unlock(&o->lock);
			Py_RETURN_NONE;
		}
	}
	out = event_tuple(e);
	pthread_mutex_unlock(&o->lock);
	return out;
}

static PyObject *events_info(PyObject *self, PyObject *unused)
{
	EventsObject *o = (EventsObject *)self;
	unsigned int snapshots = 0;
	uint64_t dropped = 0;
	int err;

	(void)unused;
	Py_BEGIN_ALLOW_THREADS
	pthread_mutex_lock(&o->lock);
	err = o->ev ? kmemdev_events_info(o->ev, &dropped, &snapshots) : 1;
	pthread_mutex_unlock(&o->lock);
	Py_END_ALLOW_THREADS
	if (err == 1) {
		PyErr_SetString(PyExc_ValueError, "info() on a closed event stream");
		return NULL;
	}
	if (err)
		return events_error(err);
	return Py_BuildValue("(KI)", (unsigned long long)dropped, snapshots);
}

static void close_stream(EventsObject *o)
{
	Py_BEGIN_ALLOW_THREADS
	pthread_mutex_lock(&o->lock);
	kmemdev_events_close(o->ev);
	o->ev = NULL;
	pthread_mutex_unlock(&o->lock);
	Py_END_ALLOW_THREADS
}

static PyObject *events_close(PyObject *self, PyObject *unused)
{
	(void)unused;
	close_stream((EventsObject *)self);
	Py_RETURN_NONE;
}

static PyObject *events_fileno(PyObject *self, PyObject *unused)
{
	EventsObject *o = (EventsObject *)self;
	int fd;

	(void)unused;
	/* never wait for the stream's lock holding the GIL: next() holds it */
	Py_BEGIN_ALLOW_THREADS
	pthread_mutex_lock(&o->lock);
	fd = o->ev ? kmemdev_events_fd(o->ev) : -EBADF;
	pthread_mutex_unlock(&o->lock);
	Py_END_ALLOW_THREADS
	if (fd < 0)
		return PyErr_Format(PyExc_ValueError, "fileno() on a closed event stream");
	return PyLong_FromLong(fd);
}

static void events_dealloc(PyObject *self)
{
	EventsObject *o = (EventsObject *)self;
	PyTypeObject *tp = Py_TYPE(self);
	freefunc tp_free = PyType_GetSlot(tp, Py_tp_free);

	close_stream(o);
	pthread_mutex_destroy(&o->lock);
	Py_CLEAR(o->owner);
	tp_free(self);
	Py_DECREF(tp);
}

static PyMethodDef events_methods[] = {
	{ "next", (PyCFunction)(void (*)(void))events_next,
	  METH_VARARGS | METH_KEYWORDS, NULL },
	{ "info", events_info, METH_NOARGS, NULL },
	{ "close", events_close, METH_NOARGS, NULL },
	{ "fileno", events_fileno, METH_NOARGS, NULL },
	{ NULL, NULL, 0, NULL }
};

static PyType_Slot events_slots[] = {
	{ Py_tp_doc, "An event stream: see kmemdev.Events." },
	{ Py_tp_dealloc, events_dealloc },
	{ Py_tp_methods, events_methods },
	{ 0, NULL }
};

PyType_Spec ext_events_spec = {
	.name = "kmemdev._kmemdev.EventStream",
	.basicsize = sizeof(EventsObject),
	.flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION,
	.slots = events_slots,
};
