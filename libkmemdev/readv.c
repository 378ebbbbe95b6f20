// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * KMEM_RO_IOC_READV: vectored reads of kernel memory.
 *
 * The driver caps one call at KMEM_RO_READV_MAX_SEGS segments and
 * KMEM_RO_READV_MAX_BYTES bytes and may stop early on a signal (done <
 * count, the call itself still succeeding).  This wrapper hides all three:
 * it batches within the caps, splits oversized segments, and resubmits
 * the rest after a short call, so every segment ends with a result.
 */
#include <errno.h>
#include <sys/ioctl.h>

#include "internal.h"

/*
 * Submit count (<= the caps) segments until all have a result.  A signal
 * before any segment (EINTR) or after some (done < count) only means
 * "again, from there".
 */
static int readv_batch(int fd, struct kmem_ro_iov *iov, unsigned int count,
		       unsigned int *done)
{
	unsigned int off = 0;

	while (off < count) {
		struct kmem_ro_readv arg = {
			.size = sizeof(arg),
			.iov_addr = (uintptr_t)(iov + off),
			.iov_count = count - off,
		};

		if (ioctl(fd, KMEM_RO_IOC_READV, &arg) < 0) {
			if (errno == EINTR)
				continue;
			*done += off;
			return -errno;
		}
		if (arg.done > count - off) {	/* a driver bug; never loop */
			*done += off;
			return -EPROTO;
		}
		off += arg.done;
	}
	*done += off;
	return 0;
}

/*
 * A segment above KMEM_RO_READV_MAX_BYTES, in pieces: the result is the
 * bytes read up to the first piece that fails or comes back short, or that
 * piece's errno when it is the first.
 */
static int readv_big(int fd, struct kmem_ro_iov *seg)
{
	uint64_t total = 0;
	unsigned int done;
	int err;

	while (total < seg->len) {
		uint64_t left = seg->len - total;
		struct kmem_ro_iov piece = {
			.addr = seg->addr + total,
			.len = left < KMEM_RO_READV_MAX_BYTES ?
			       left : KMEM_RO_READV_MAX_BYTES,
			.buf = seg->buf + total,
		};

		done = 0;
		err = readv_batch(fd, &piece, 1, &done);
		if (err)
			return err;
		if (piece.result < 0) {
			seg->result = total ? (int64_t)total : piece.result;
			return 0;
		}
		total += (uint64_t)piece.result;
		if ((uint64_t)piece.result < piece.len)
			break;
	}
	seg->result = (int64_t)total;
	return 0;
}

int kmemdev_readv(struct kmemdev *h, struct kmem_ro_iov *iov, unsigned int n,
		  unsigned int *done)
{
	unsigned int i = 0, fin = 0;
	int err;

	if (done)
		*done = 0;
	if (!h || (!iov && n))
		return -EINVAL;
	err = kmemdev__feature(h, KMEM_RO_FEAT_READV);
	if (err)
		return err;

	while (i < n) {
		unsigned int count = 0;
		uint64_t bytes = 0;

		if (iov[i].len > KMEM_RO_READV_MAX_BYTES) {
			err = readv_big(h->fd, &iov[i]);
			if (err)
				break;
			fin = ++i;
			continue;
		}
		/* As many whole segments as the caps allow. */
		while (i + count < n && count < KMEM_RO_READV_MAX_SEGS &&
		       iov[i + count].len <= KMEM_RO_READV_MAX_BYTES - bytes) {
			bytes += iov[i + count].len;
			count++;
		}
		err = readv_batch(h->fd, iov + i, count, &fin);
		if (err)
			break;
		i += count;
	}
	if (done)
		*done = fin;
	return err;
}
