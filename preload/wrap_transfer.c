// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The wrapped calls that move a file's bytes to another fd in the kernel,
 * from a followed kcore fd: answered as kcore answers them on 6.1 to 7.3,
 * so that a reader that tries them (Python's shutil, cp) sees kcore's
 * bytes or kcore's error, never the program fd's EBADF.
 *  - sendfile(): procfs's s_maxbytes is MAX_NON_LFS, so do_sendfile()
 *    (fs/read_write.c) refuses a start at or past 2 GiB with EOVERFLOW
 *    and cuts a transfer there: every kernel address of kcore is past it,
 *    only the header and the hole after it can be sent.  Served the same
 *    way, through a buffer (one device read and one write per 64 KiB),
 *    with its errors in its order (EINVAL for a negative offset, EBADF for
 *    an output not open for writing, EOVERFLOW, EINVAL for an appending
 *    output).
 *  - copy_file_range(): kcore has no copy_file_range and no other file
 *    a reader can write is on procfs, so generic_copy_file_checks()
 *    answers EXDEV (before it: EINVAL for flags, EISDIR for a directory,
 *    EINVAL for no regular file, EBADF for an output not open for
 *    writing, or appending); so does the shim, and callers fall back to
 *    read() and write().
 */
#include <sys/sendfile.h>

#include "preload.h"

#define BOUNCE		65536
/* procfs's s_maxbytes (alloc_super()'s default), sendfile's limit */
#define PROC_MAXBYTES	((int64_t)INT32_MAX)
/* the kernel's MAX_RW_COUNT on 4 KiB pages */
#define RW_MAX		((size_t)INT32_MAX & ~(size_t)4095)

/* out's file status flags, -1 for no fd the kernel would take (O_PATH). */
static int out_flags(int out)
{
	int fl = CALL_REAL(fcntl, -1, out, F_GETFL);

	return fl < 0 || (fl & O_PATH) ? -1 : fl;
}

/*
 * sendfile() from followed fd: -1 with *served false for any other fd.
 * The position, when offset is NULL, moves by what was written.
 */
static ssize_t try_sendfile(int out, int fd, int64_t *offset, size_t count,
			    bool *served)
{
	struct in_shim c;
	struct kfile *kf;
	unsigned char *b;
	int64_t pos;
	size_t done = 0;
	int err = 0, saved = errno, fl;

	*served = false;
	if (!maybe_tracked(fd))
		return -1;
	enter(&c);
	kf = file_of(fd);
	pos = kf ? (offset ? *offset : atomic_load(&kf->sh->pos)) : 0;
	leave(&c);
	if (!kf)
		return -1;
	*served = true;
	if (pos < 0) {
		errno = EINVAL;
		return -1;
	}
	/* do_sendfile()'s order: the output, its size limit, then splice's O_APPEND */
	fl = out_flags(out);
	if (fl < 0 || (fl & O_ACCMODE) == O_RDONLY) {
		errno = EBADF;
		return -1;
	}
	if (pos >= PROC_MAXBYTES) {
		errno = EOVERFLOW;
		return -1;
	}
	if (fl & O_APPEND) {
		errno = EINVAL;
		return -1;
	}
	if (count > RW_MAX)
		count = RW_MAX;
	if ((uint64_t)pos + count > (uint64_t)PROC_MAXBYTES)
		count = (size_t)(PROC_MAXBYTES - pos);
	b = count ? page_alloc(BOUNCE, false) : NULL;
	if (count && !b) {
		errno = ENOMEM;
		return -1;
	}
	while (done < count) {
		size_t n = count - done < BOUNCE ? count - done : BOUNCE;
		ssize_t r = -1, w;

		/* not inside the shim while the write may block */
		enter(&c);
		kf = file_of(fd);
		if (kf)
			r = synth_pread(kf, b, n, (uint64_t)pos + done);
		else
			errno = EBADF;
		leave(&c);
		if (r <= 0) {
			err = r < 0 ? errno : 0;
			break;
		}
		w = write(out, b, (size_t)r);
		if (w < 0) {
			err = errno;
			break;
		}
		done += (size_t)w;
		if (w < r)
			break;
	}
	if (b)
		page_free(b, BOUNCE);
	if (done && offset) {
		*offset = pos + (int64_t)done;
	} else if (done) {
		enter(&c);
		kf = file_of(fd);
		if (kf)
			atomic_store(&kf->sh->pos, pos + (int64_t)done);
		leave(&c);
	}
	if (!done && err) {
		errno = err;
		return -1;
	}
	errno = saved;
	return (ssize_t)done;
}

KCORE_API ssize_t sendfile(int out, int in, off_t *offset, size_t count)
{
	int64_t off = offset ? *offset : 0;
	bool served;
	ssize_t r = try_sendfile(out, in, offset ? &off : NULL, count, &served);

	if (!served)
		return CALL_REAL(sendfile, -1, out, in, offset, count);
	if (offset)
		*offset = (off_t)off;
	return r;
}

KCORE_API ssize_t sendfile64(int out, int in, off64_t *offset, size_t count)
{
	int64_t off = offset ? *offset : 0;
	bool served;
	ssize_t r = try_sendfile(out, in, offset ? &off : NULL, count, &served);

	if (!served)
		return CALL_REAL(sendfile64, -1, out, in, offset, count);
	if (offset)
		*offset = (off64_t)off;
	return r;
}

/* copy_file_range()'s answer from kcore to out (see the top): an errno. */
static int copy_errno(int out, unsigned int flags)
{
	int fl = out_flags(out);
	struct stat st;

	if (fl < 0 || CALL_REAL(fstat, -1, out, &st))
		return EBADF;
	if (flags)
		return EINVAL;
	/* generic_file_rw_checks() */
	if (S_ISDIR(st.st_mode))
		return EISDIR;
	if (!S_ISREG(st.st_mode))
		return EINVAL;
	if ((fl & O_ACCMODE) == O_RDONLY || (fl & O_APPEND))
		return EBADF;
	return EXDEV;
}

KCORE_API ssize_t copy_file_range(int in, off64_t *in_off, int out, off64_t *out_off,
				  size_t len, unsigned int flags)
{
	if (!followed(in))
		return CALL_REAL(copy_file_range, -1, in, in_off, out, out_off, len, flags);
	errno = copy_errno(out, flags);
	return -1;
}
