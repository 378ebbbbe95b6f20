// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The wrapped calls that close or duplicate fds: the table of followed
 * kcore fds follows them (fd_table.c), to any fd number.
 */
#include <stdarg.h>

#include "preload.h"

KCORE_API int close(int fd)
{
	drop(fd);
	return CALL_REAL(close, -1, fd);
}

KCORE_API int close_range(unsigned int first, unsigned int last, int flags)
{
	if (!(flags & CLOSE_RANGE_CLOEXEC) && first <= last)
		drop_range(first, last);
	return CALL_REAL(close_range, -1, first, last, flags);
}

KCORE_API void closefrom(int low)
{
	drop_range(low < 0 ? 0 : (unsigned int)low, UINT_MAX);
	if (REAL(closefrom))
		real.closefrom(low);
}

KCORE_API int dup(int fd)
{
	return duped(fd, CALL_REAL(dup, -1, fd));
}

/* dup2/dup3 close newfd first. */
KCORE_API int dup2(int oldfd, int newfd)
{
	if (newfd != oldfd)
		drop(newfd);
	return duped(oldfd, CALL_REAL(dup2, -1, oldfd, newfd));
}

KCORE_API int dup3(int oldfd, int newfd, int flags)
{
	if (newfd != oldfd)
		drop(newfd);
	return duped(oldfd, CALL_REAL(dup3, -1, oldfd, newfd, flags));
}

/* Every fcntl argument is passed in one register; forward it as glibc does. */
static int fcntl_common(int (*fn)(int, int, ...), int fd, int cmd, void *arg)
{
	int ret;

	if (!fn) {
		errno = ENOSYS;
		return -1;
	}
	ret = fn(fd, cmd, arg);
	if (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC)
		return duped(fd, ret);
	return ret;
}

KCORE_API int fcntl(int fd, int cmd, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, cmd);
	arg = va_arg(ap, void *);
	va_end(ap);
	return fcntl_common(REAL(fcntl), fd, cmd, arg);
}

KCORE_API int fcntl64(int fd, int cmd, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, cmd);
	arg = va_arg(ap, void *);
	va_end(ap);
	return fcntl_common(REAL(fcntl64), fd, cmd, arg);
}

KCORE_API int fclose(FILE *f)
{
	/* fclose(NULL) is undefined (glibc 2.41 declares f nonnull): no check */
	drop(fileno(f));
	return CALL_REAL(fclose, EOF, f);
}
