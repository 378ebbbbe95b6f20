// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The wrapped calls that close or duplicate fds, or hand one to stdio:
 * the table of followed kcore fds follows them (fd_table.c).
 */
#include <stdarg.h>

#include "preload.h"

KCORE_API int close(int fd)
{
	drop(fd, true);
	return CALL_REAL(close, -1, fd);
}

KCORE_API int close_range(unsigned int first, unsigned int last, int flags)
{
	unsigned int fd;

	if (!(flags & CLOSE_RANGE_CLOEXEC))
		for (fd = first; fd <= last && fd < KCORE_FD_MAX; fd++)
			drop((int)fd, true);
	return CALL_REAL(close_range, -1, first, last, flags);
}

KCORE_API void closefrom(int low)
{
	int fd;

	for (fd = low < 0 ? 0 : low; fd < KCORE_FD_MAX; fd++)
		drop(fd, true);
	if (REAL(closefrom))
		real.closefrom(low);
}

KCORE_API int dup(int fd)
{
	return duped(fd, CALL_REAL(dup, -1, fd));
}

/* dup2/dup3 close newfd first: write its position back while we can. */
KCORE_API int dup2(int oldfd, int newfd)
{
	if (newfd != oldfd)
		drop(newfd, true);
	return duped(oldfd, CALL_REAL(dup2, -1, oldfd, newfd));
}

KCORE_API int dup3(int oldfd, int newfd, int flags)
{
	if (newfd != oldfd)
		drop(newfd, true);
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

/* stdio reads at the kernel's position from now on. */
KCORE_API FILE *fdopen(int fd, const char *mode)
{
	struct in_shim c;
	struct kfile *kf;

	if (maybe_tracked(fd)) {
		enter(&c);
		kf = file_of(fd);
		if (kf)
			to_kernel_pos(fd, kf);
		leave(&c);
	}
	return CALL_REAL(fdopen, NULL, fd, mode);
}

KCORE_API int fclose(FILE *f)
{
	/* fclose(NULL) is undefined (glibc 2.41 declares f nonnull): no check */
	drop(fileno(f), false);
	return CALL_REAL(fclose, EOF, f);
}
