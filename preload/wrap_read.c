// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The wrapped reads and seeks: pread*(), read*(), readv(), lseek*() of a
 * followed kcore fd are served (kcore_read.c, file_position.c).
 */
#include <sys/uio.h>

#include "preload.h"

KCORE_API ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	bool served;
	ssize_t r = try_pread(fd, buf, n, off, &served);

	return served ? r : CALL_REAL(pread, -1, fd, buf, n, off);
}

KCORE_API ssize_t pread64(int fd, void *buf, size_t n, off64_t off)
{
	bool served;
	ssize_t r = try_pread(fd, buf, n, off, &served);

	return served ? r : CALL_REAL(pread64, -1, fd, buf, n, off);
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

KCORE_API off_t lseek(int fd, off_t off, int whence)
{
	return pos_seek(fd, off, whence, seek_real);
}

KCORE_API off64_t lseek64(int fd, off64_t off, int whence)
{
	return pos_seek(fd, off, whence, seek_real64);
}
