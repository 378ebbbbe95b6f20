// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The wrapped open*() and fopen*(): procfs's kcore is served (kcore_open.c);
 * so is procfs's kallsyms where it shows this process only zeros.
 *
 * /proc/kallsyms.  An open or fopen() of procfs's kallsyms that shows this
 * process only zeros (no CAP_SYSLOG) reads root's text, decoded through
 * the device, from a memfd under the same fd (kallsyms_serve.c): crash
 * takes the KASLR offset from it.  The one path that calls malloc()
 * (libkmemdev): not for signal handlers.  Where the file shows real
 * addresses it is left alone.
 */
#include <stdarg.h>

#include "kallsyms_serve.h"
#include "preload.h"

/* Building the served /proc/kallsyms: its own opens are the real ones. */
static TLS bool serving_kallsyms;

/*
 * fd, a real open of @path: if it is procfs's kallsyms and shows this
 * process only zeros, from now on fd reads root's text from the device
 * (kallsyms_serve.c), same number, position 0; else fd untouched.
 */
static int kallsyms_opened(const char *path, int flags, int fd)
{
	struct statfs sfs;
	sigset_t old;
	int saved = errno, text;

	if (fd < 0 || !named(path, flags, "kallsyms") || serving_kallsyms ||
	    !owner_calls() || CALL_REAL(fstatfs, -1, fd, &sfs) ||
	    sfs.f_type != PROC_SUPER_MAGIC)
		goto out;
	block_signals(&old);
	serving_kallsyms = true;
	text = kmemdev__kallsyms_serve(fd, flags & O_CLOEXEC);
	serving_kallsyms = false;
	if (text >= 0) {
		if (CALL_REAL(dup3, -1, text, fd, flags & O_CLOEXEC) < 0)
			lseek(fd, 0, SEEK_SET);
		CALL_REAL(close, -1, text);
	}
	restore_signals(&old);
out:
	errno = saved;
	return fd;
}

#define OPEN_NEEDS_MODE(flags) \
	(((flags) & O_CREAT) || ((flags) & O_TMPFILE) == O_TMPFILE)

#define MODE_ARG(flags, mode)						\
	do {								\
		if (OPEN_NEEDS_MODE(flags)) {				\
			va_list ap;					\
			va_start(ap, flags);				\
			mode = va_arg(ap, mode_t);			\
			va_end(ap);					\
		}							\
	} while (0)

/* kcore_open() first; the real call when it is not ours. */
#define OPEN_AS(dirfd, path, flags, real_call)				\
	({								\
		int fd_ = kcore_open((dirfd), (path), (flags));		\
		fd_ != NOT_KCORE ? fd_ :				\
			kallsyms_opened((path), (flags), opened(real_call)); \
	})

KCORE_API int open(const char *path, int flags, ...)
{
	mode_t mode = 0;

	MODE_ARG(flags, mode);
	return OPEN_AS(AT_FDCWD, path, flags, CALL_REAL(open, -1, path, flags, mode));
}

KCORE_API int open64(const char *path, int flags, ...)
{
	mode_t mode = 0;

	MODE_ARG(flags, mode);
	return OPEN_AS(AT_FDCWD, path, flags, CALL_REAL(open64, -1, path, flags, mode));
}

KCORE_API int openat(int dirfd, const char *path, int flags, ...)
{
	mode_t mode = 0;

	MODE_ARG(flags, mode);
	return OPEN_AS(dirfd, path, flags,
		       CALL_REAL(openat, -1, dirfd, path, flags, mode));
}

KCORE_API int openat64(int dirfd, const char *path, int flags, ...)
{
	mode_t mode = 0;

	MODE_ARG(flags, mode);
	return OPEN_AS(dirfd, path, flags,
		       CALL_REAL(openat64, -1, dirfd, path, flags, mode));
}

/* _FORTIFY_SOURCE's checked entry points (open without a needed mode). */
int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);
int __openat_2(int dirfd, const char *path, int flags);
int __openat64_2(int dirfd, const char *path, int flags);

KCORE_API int __open_2(const char *path, int flags)
{
	return OPEN_AS(AT_FDCWD, path, flags, CALL_REAL(open_2, -1, path, flags));
}

KCORE_API int __open64_2(const char *path, int flags)
{
	return OPEN_AS(AT_FDCWD, path, flags, CALL_REAL(open64_2, -1, path, flags));
}

KCORE_API int __openat_2(int dirfd, const char *path, int flags)
{
	return OPEN_AS(dirfd, path, flags, CALL_REAL(openat_2, -1, dirfd, path, flags));
}

KCORE_API int __openat64_2(int dirfd, const char *path, int flags)
{
	return OPEN_AS(dirfd, path, flags,
		       CALL_REAL(openat64_2, -1, dirfd, path, flags));
}

/*
 * stdio opens through libc's internal open(), which no wrapper sees:
 * /proc/kallsyms read by fopen() (crash) is served here.  kcore is not:
 * its readers pread() the fd.
 */
static FILE *fopen_as(const char *path, const char *mode, FILE *f)
{
	if (f && mode && mode[0] == 'r' && !strchr(mode, '+'))
		kallsyms_opened(path, O_RDONLY | (strchr(mode, 'e') ? O_CLOEXEC : 0),
				fileno(f));
	return f;
}

KCORE_API FILE *fopen(const char *path, const char *mode)
{
	return fopen_as(path, mode, CALL_REAL(fopen, NULL, path, mode));
}

KCORE_API FILE *fopen64(const char *path, const char *mode)
{
	return fopen_as(path, mode, CALL_REAL(fopen64, NULL, path, mode));
}
