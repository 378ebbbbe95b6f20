/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside the task-list snapshot: ps_snapshot.c takes the list,
 * ps_detail.c what lies behind each task's mm and signal (threads, VSZ,
 * RSS).  Not for other users: they call ps_snapshot.h.
 */
#ifndef KMEMCTL_PS_DETAIL_H
#define KMEMCTL_PS_DETAIL_H

#include "ps_snapshot.h"

/* ps_detail.c */

/* s->mm from BTF and the per-CPU offsets; 0 or -errno (err_obj set). */
int ps_detail_layout(struct ps_snap *s);

/* Append every thread that is not a leader (s->threads). */
int ps_detail_threads(struct ps_snap *s);

/* Fill nr_threads, vsz_pages and rss_pages of every task. */
int ps_detail_memory(struct ps_snap *s);

/* ps_snapshot.c */

/* Remember which step failed (s->err_op, s->err_obj); returns @err. */
int ps_snap_failed(struct ps_snap *s, enum kmemdev_op op, int err,
		   const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* A member of @type: 0, or the BTF error with s->err_* set. */
int ps_snap_member(struct ps_snap *s, const char *type, const char *name,
		   struct ps_member *m);

/* Read @n segments the way the backend reads; 0 or the first failure. */
int ps_snap_read_batch(struct ps_snap *s, struct kmem_ro_iov *iov, size_t n);

/* Decode a record (s->f's members, packed) of the task at @node into s->task. */
int ps_snap_push(struct ps_snap *s, const unsigned char *rec, uint64_t node);

/* Make *@p hold @need elements of @elem bytes (doubling); 0 or -ENOMEM. */
int ps_snap_grow(void **p, size_t *cap, size_t need, size_t elem);

#endif /* KMEMCTL_PS_DETAIL_H */
