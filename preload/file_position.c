// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The file position of a followed kcore fd.  It lives in a MAP_SHARED
 * page per open file, which fork() shares as the kernel shares the open
 * file description: read() and lseek() stay served in parent and child
 * alike, and a read() claims its bytes with a compare-and-swap of the
 * position, as the kernel's f_pos lock makes two reads of one description
 * take turns.  A read the shim passes on is a pread() at that position.
 * The kernel's own position is written back at close, at fork (for a
 * child that execs), and before fdopen() or a dup to an fd the shim does
 * not follow: from then on the position is the kernel's and read()/lseek()
 * are too; pread() stays fast.  Not seen: a position moved by calls the
 * shim does not wrap (sendfile, splice, preadv2 with offset -1, io_uring)
 * or read by another program the fd reaches over exec or a socket after
 * it moved.
 */
#include "preload.h"

static bool kernel_pos(const struct kfile *kf)
{
	return atomic_load(&kf->sh->kernel_pos);
}

/* Tell the kernel the position, for those who ask it (close, fork, ...). */
void write_back(int fd, const struct kfile *kf)
{
	int saved = errno;

	if (!kernel_pos(kf))
		CALL_REAL(lseek, -1, fd, (off_t)atomic_load(&kf->sh->pos), SEEK_SET);
	errno = saved;
}

/* Someone who reads the kernel's position shares it: it is theirs now. */
void to_kernel_pos(int fd, struct kfile *kf)
{
	write_back(fd, kf);
	atomic_store(&kf->sh->kernel_pos, true);
}

/*
 * Bytes at the position, which moves by what was read: the reads of two
 * threads or processes take turns as under the kernel's f_pos lock.  Once
 * the position is the kernel's (stdio, an fd we do not follow), it is
 * read and moved there.
 */
ssize_t pos_read(int fd, void *buf, size_t n)
{
	struct in_shim c;
	struct kfile *kf;
	int64_t p;
	ssize_t ret;
	int saved;

	if (!maybe_tracked(fd))
		return CALL_REAL(read, -1, fd, buf, n);
	saved = errno;
	enter(&c);
	kf = file_of(fd);
	if (!kf) {
		leave(&c);
		return CALL_REAL(read, -1, fd, buf, n);
	}
	if (kernel_pos(kf)) {
		p = CALL_REAL(lseek64, -1, fd, 0, SEEK_CUR);
		ret = p < 0 ? -1 : synth_pread(fd, kf, buf, n, (uint64_t)p);
		if (ret > 0)
			CALL_REAL(lseek64, -1, fd, p + ret, SEEK_SET);
	} else {
		do {
			p = atomic_load(&kf->sh->pos);
			ret = synth_pread(fd, kf, buf, n, (uint64_t)p);
		} while (ret > 0 &&
			 !atomic_compare_exchange_strong(&kf->sh->pos, &p, p + ret));
	}
	if (ret >= 0)
		errno = saved;
	leave(&c);
	return ret;
}

/* lseek of either width (off_t and off64_t are one type on LP64). */
off_t pos_seek(int fd, off_t off, int whence,
	     off_t (*seek)(int, off_t, int))
{
	struct in_shim c;
	struct kfile *kf;
	int64_t p, np;
	off_t ret;

	if (!maybe_tracked(fd))
		return seek(fd, off, whence);
	enter(&c);
	kf = file_of(fd);
	if (!kf || kernel_pos(kf)) {
		leave(&c);
		return seek(fd, off, whence);
	}
	if (whence == SEEK_SET && off >= 0) {
		atomic_store(&kf->sh->pos, off);
		ret = off;
	} else if (whence == SEEK_CUR) {
		p = atomic_load(&kf->sh->pos);
		for (;;) {
			/* The kernel's answer too: EINVAL below 0 or past the top. */
			if (__builtin_add_overflow(p, (int64_t)off, &np) || np < 0) {
				errno = EINVAL;
				ret = -1;
				break;
			}
			if (!off || atomic_compare_exchange_weak(&kf->sh->pos, &p, np)) {
				ret = np;
				break;
			}
		}
	} else {
		/* SEEK_END, SEEK_DATA/HOLE, errors: not from the position. */
		ret = seek(fd, off, whence);
		if (ret >= 0)
			atomic_store(&kf->sh->pos, ret);
	}
	leave(&c);
	return ret;
}

off_t seek_real(int fd, off_t off, int whence)
{
	return CALL_REAL(lseek, -1, fd, off, whence);
}

off_t seek_real64(int fd, off_t off, int whence)
{
	return CALL_REAL(lseek64, -1, fd, off, whence);
}
