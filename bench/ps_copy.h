/* SPDX-License-Identifier: GPL-2.0 */
/* ps_bench's physical limit: a task-list snapshot of a copy in user memory. */
#ifndef KMEM_RO_PS_COPY_H
#define KMEM_RO_PS_COPY_H

#include "ps_snapshot.h"

/*
 * @s becomes a snapshot (backend PS_BACKEND_COPY, fields
 * PS_FIELDS_PID_COMM only) of a copy, in this process's memory, of the
 * memory @from's last snapshot touched: for each of its tasks the members
 * read and tasks.next, at the same offsets from the same cache-line
 * alignment as in the kernel, the links pointing at the copies.
 * ps_snap_take(@s) then runs the same code as every backend, each read a
 * memcpy() from the copy.  Reads through @from's handle.  Returns 0 or a
 * negative errno (-EOPNOTSUPP for PS_FIELDS_PS: parents are not copied).
 */
int ps_snap_copy(struct ps_snap *s, const struct ps_snap *from);

#endif /* KMEM_RO_PS_COPY_H */
