// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The wrapped reads and seeks: pread*(), read*(), readv(), preadv*(),
 * lseek*() of a followed kcore fd are served (kcore_read.c,
 * file_position.c).
 */
#include <sys/uio.h>

#include "preload.h"

KCORE_API ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	return pread_or_real(fd, buf, n, off, false);
}

KCORE_API ssize_t pread64(int fd, void *buf, size_t n, off64_t off)
{
	return pread_or_real(fd, buf, n, off, true);
}

ssize_t __pread_chk(int fd, void *buf, size_t n, off_t off, size_t buflen);
ssize_t __pread64_chk(int fd, void *buf, size_t n, off64_t off, size_t buflen);
ssize_t __read_chk(int fd, void *buf, size_t n, size_t buflen);

/* n > buflen: the real one reports the overflow and aborts. */
KCORE_API ssize_t __pread_chk(int fd, void *buf, size_t n, off_t off,
			      size_t buflen)
{
	bool served = false;
	ssize_t r = n <= buflen ? try_pread(fd, buf, n, off, &served) : -1;

	return served ? r : CALL_REAL(pread_chk, -1, fd, buf, n, off, buflen);
}

KCORE_API ssize_t __pread64_chk(int fd, void *buf, size_t n, off64_t off,
				size_t buflen)
{
	bool served = false;
	ssize_t r = n <= buflen ? try_pread(fd, buf, n, off, &served) : -1;

	return served ? r : CALL_REAL(pread64_chk, -1, fd, buf, n, off, buflen);
}

KCORE_API ssize_t read(int fd, void *buf, size_t n)
{
	return pos_read(fd, buf, n);
}

KCORE_API ssize_t __read_chk(int fd, void *buf, size_t n, size_t buflen)
{
	if (n > buflen)
		return CALL_REAL(read_chk, -1, fd, buf, n, buflen);
	return pos_read(fd, buf, n);
}

/* One read() per buffer, as the kernel's readv() of kcore. */
KCORE_API ssize_t readv(int fd, const struct iovec *iov, int cnt)
{
	ssize_t total = 0;

	if (!maybe_tracked(fd))
		return CALL_REAL(readv, -1, fd, iov, cnt);
	if (cnt < 0 || cnt > IOV_MAX) {
		errno = EINVAL;
		return -1;
	}
	for (int i = 0; i < cnt; i++) {
		ssize_t r = pos_read(fd, iov[i].iov_base, iov[i].iov_len);

		if (r < 0)
			return total ? total : r;
		total += r;
		if ((size_t)r < iov[i].iov_len)
			break;
	}
	return total;
}

/*
 * preadv()/preadv2() at an offset: one pread() per buffer, as readv() is
 * one read() per buffer.  RWF_ flags: those kcore takes for a read on 6.1
 * to 7.3 (kiocb_set_rw_flags(): HIPRI, DSYNC, SYNC and APPEND change
 * nothing there) are served; any other is refused with EOPNOTSUPP, as
 * kcore refuses RWF_NOWAIT (no FMODE_NOWAIT), RWF_ATOMIC (not a write),
 * RWF_DONTCACHE (no FOP_DONTCACHE) and bits a kernel does not know (6.12
 * and 7.3 would serve RWF_NOAPPEND, 7.3 RWF_NOSIGNAL: an error here,
 * never other bytes).  Offset -1 of preadv2(): at the position, as
 * readv().  *served false for an fd not followed.
 */
#define RWF_SERVED	(RWF_HIPRI | RWF_DSYNC | RWF_SYNC | RWF_APPEND)

static ssize_t try_preadv(int fd, const struct iovec *iov, int cnt, off_t off,
			  bool v2, int flags, bool *served)
{
	ssize_t total = 0;

	*served = false;
	if (!maybe_tracked(fd))
		return -1;
	*served = true;
	if (cnt < 0 || cnt > IOV_MAX) {
		errno = EINVAL;
		return -1;
	}
	if (v2 && (flags & ~RWF_SERVED)) {
		errno = EOPNOTSUPP;
		return -1;
	}
	if (v2 && off == -1)
		return readv(fd, iov, cnt);
	for (int i = 0; i < cnt; i++) {
		ssize_t r = try_pread(fd, iov[i].iov_base, iov[i].iov_len,
				      off < 0 ? off : off + total, served);

		if (!*served)
			return -1;
		if (r < 0)
			return total ? total : r;
		total += r;
		if ((size_t)r < iov[i].iov_len)
			break;
	}
	*served = true;
	return total;
}

KCORE_API ssize_t preadv(int fd, const struct iovec *iov, int cnt, off_t off)
{
	bool served;
	ssize_t r = try_preadv(fd, iov, cnt, off, false, 0, &served);

	return served ? r : CALL_REAL(preadv, -1, fd, iov, cnt, off);
}

KCORE_API ssize_t preadv64(int fd, const struct iovec *iov, int cnt, off64_t off)
{
	bool served;
	ssize_t r = try_preadv(fd, iov, cnt, off, false, 0, &served);

	return served ? r : CALL_REAL(preadv64, -1, fd, iov, cnt, off);
}

KCORE_API ssize_t preadv2(int fd, const struct iovec *iov, int cnt, off_t off,
			  int flags)
{
	bool served;
	ssize_t r = try_preadv(fd, iov, cnt, off, true, flags, &served);

	return served ? r : CALL_REAL(preadv2, -1, fd, iov, cnt, off, flags);
}

KCORE_API ssize_t preadv64v2(int fd, const struct iovec *iov, int cnt, off64_t off,
			     int flags)
{
	bool served;
	ssize_t r = try_preadv(fd, iov, cnt, off, true, flags, &served);

	return served ? r : CALL_REAL(preadv64v2, -1, fd, iov, cnt, off, flags);
}

KCORE_API off_t lseek(int fd, off_t off, int whence)
{
	return pos_seek(fd, off, whence, seek_real);
}

KCORE_API off64_t lseek64(int fd, off64_t off, int whence)
{
	return pos_seek(fd, off, whence, seek_real64);
}
