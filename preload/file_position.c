// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The file position of a followed kcore fd.  It lives in a MAP_SHARED
 * page per open file, which fork() shares as the kernel shares the open
 * file description: read() and lseek() stay served in parent and child
 * alike, and a read() claims its bytes with a compare-and-swap of the
 * position, as the kernel's f_pos lock makes two reads of one description
 * take turns.  The program's fd is O_PATH: the kernel has no position for
 * it, and nothing but the shim reads it.
 */
#include "preload.h"

/*
 * Bytes at the position, which moves by what was read: the reads of two
 * threads or processes take turns as under the kernel's f_pos lock.
 * Flattened as try_pread() is.
 */
__attribute__((flatten))
ssize_t pos_read(int fd, void *buf, size_t n)
{
	struct in_shim c;
	struct kfile *kf;
	int64_t p;
	ssize_t ret;

	if (!maybe_tracked(fd))
		return CALL_REAL(read, -1, fd, buf, n);
	enter(&c);
	kf = file_of(fd);
	if (!kf) {
		leave(&c);
		return CALL_REAL(read, -1, fd, buf, n);
	}
	do {
		p = atomic_load(&kf->sh->pos);
		ret = synth_pread(kf, buf, n, (uint64_t)p);
	} while (ret > 0 && !atomic_compare_exchange_strong(&kf->sh->pos, &p, p + ret));
	leave(&c);
	return ret;
}

/*
 * Where lseek(off, whence) puts the position, as default_llseek() (kcore's,
 * fs/read_write.c, 6.1 to 7.3) answers for a file of size bytes: -errno
 * for none.
 */
static int64_t seek_to(int64_t p, int64_t off, int whence, uint64_t size)
{
	int64_t np;

	switch (whence) {
	case SEEK_SET:
		np = off;
		break;
	case SEEK_CUR:
		if (__builtin_add_overflow(p, off, &np))
			return -EINVAL;
		break;
	case SEEK_END:
		if (__builtin_add_overflow((int64_t)size, off, &np))
			return -EINVAL;
		break;
	case SEEK_DATA:
		if (off >= (int64_t)size)
			return -ENXIO;
		np = off;
		break;
	case SEEK_HOLE:
		if (off >= (int64_t)size)
			return -ENXIO;
		np = (int64_t)size;
		break;
	default:
		return -EINVAL;
	}
	return np < 0 ? -EINVAL : np;
}

/* lseek of either width (off_t and off64_t are one type on LP64). */
off_t pos_seek(int fd, off_t off, int whence,
	       off_t (*seek)(int, off_t, int))
{
	struct in_shim c;
	struct kfile *kf;
	int64_t p, np;

	if (!maybe_tracked(fd))
		return seek(fd, off, whence);
	enter(&c);
	kf = file_of(fd);
	if (!kf) {
		leave(&c);
		return seek(fd, off, whence);
	}
	p = atomic_load(&kf->sh->pos);
	do {
		np = seek_to(p, off, whence, kf->sh->size);
		/* the kernel's SEEK_CUR of 0 only reads the position */
	} while (np >= 0 && !(whence == SEEK_CUR && !off) &&
		 !atomic_compare_exchange_weak(&kf->sh->pos, &p, np));
	leave(&c);
	if (np < 0) {
		errno = (int)-np;
		return -1;
	}
	return (off_t)np;
}

off_t seek_real(int fd, off_t off, int whence)
{
	return CALL_REAL(lseek, -1, fd, off, whence);
}

off_t seek_real64(int fd, off_t off, int whence)
{
	return CALL_REAL(lseek64, -1, fd, off, whence);
}
