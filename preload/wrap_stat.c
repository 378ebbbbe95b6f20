// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * What a followed kcore fd, and procfs's kcore by path, look like: stat
 * answers as for procfs's kcore (the program's fd is an O_PATH fd of it:
 * its fstat() and fstatfs() are kcore's) with the size of the file
 * served.  By path too: a stat of procfs's kcore answers as an open and
 * fstat() of it would (the size the served file would have now; kcore's
 * own inode keeps its size from boot, or from the last open of a root,
 * until the next one after memory hotplug).
 */
#include <sys/statfs.h>

#include "preload.h"

/* The served file's size for a followed fd; false for any other fd. */
static bool kcore_size(int fd, uint64_t *size)
{
	struct in_shim c;
	struct kfile *kf;

	if (!maybe_tracked(fd))
		return false;
	enter(&c);
	kf = file_of(fd);
	if (kf)
		*size = kf->sh->size;
	leave(&c);
	return kf != NULL;
}

static bool empty_path(const char *path, int flags)
{
	return (flags & AT_EMPTY_PATH) && path && !*path;
}

/*
 * dirfd/path is procfs's kcore, served: *size is what an open of it would
 * serve.  One open, fstat and close of the shim (the device's header
 * built, no byte of memory read but VMCOREINFO's).
 */
static bool path_size(int dirfd, const char *path, uint64_t *size)
{
	int fd, saved = errno;
	bool yes;

	if (!path || !*path)
		return false;
	fd = kcore_open(dirfd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		errno = saved;
		return false;
	}
	yes = kcore_size(fd, size);
	close(fd);
	errno = saved;
	return yes;
}

/* A stat of a path that found a regular file: kcore's gets the served size. */
#define SIZE_BY_PATH(ret, dirfd, path, st, size_field)			\
	({								\
		uint64_t size_;						\
		if (!(ret) && S_ISREG((st)->st_mode) &&			\
		    path_size((dirfd), (path), &size_))			\
			(st)->size_field = size_;			\
		(ret);							\
	})

KCORE_API int stat(const char *path, struct stat *st)
{
	int ret = CALL_REAL(stat, -1, path, st);

	return SIZE_BY_PATH(ret, AT_FDCWD, path, st, st_size);
}

KCORE_API int stat64(const char *path, struct stat64 *st)
{
	int ret = CALL_REAL(stat64, -1, path, st);

	return SIZE_BY_PATH(ret, AT_FDCWD, path, st, st_size);
}

KCORE_API int lstat(const char *path, struct stat *st)
{
	int ret = CALL_REAL(lstat, -1, path, st);

	return SIZE_BY_PATH(ret, AT_FDCWD, path, st, st_size);
}

KCORE_API int lstat64(const char *path, struct stat64 *st)
{
	int ret = CALL_REAL(lstat64, -1, path, st);

	return SIZE_BY_PATH(ret, AT_FDCWD, path, st, st_size);
}

KCORE_API int fstat(int fd, struct stat *st)
{
	uint64_t size;
	int ret = CALL_REAL(fstat, -1, fd, st);

	if (!ret && kcore_size(fd, &size))
		st->st_size = (off_t)size;
	return ret;
}

KCORE_API int fstat64(int fd, struct stat64 *st)
{
	uint64_t size;
	int ret = CALL_REAL(fstat64, -1, fd, st);

	if (!ret && kcore_size(fd, &size))
		st->st_size = (off64_t)size;
	return ret;
}

KCORE_API int fstatat(int dirfd, const char *path, struct stat *st, int flags)
{
	int ret;

	if (empty_path(path, flags))
		return fstat(dirfd, st);
	ret = CALL_REAL(fstatat, -1, dirfd, path, st, flags);
	return SIZE_BY_PATH(ret, dirfd, path, st, st_size);
}

KCORE_API int fstatat64(int dirfd, const char *path, struct stat64 *st, int flags)
{
	int ret;

	if (empty_path(path, flags))
		return fstat64(dirfd, st);
	ret = CALL_REAL(fstatat64, -1, dirfd, path, st, flags);
	return SIZE_BY_PATH(ret, dirfd, path, st, st_size);
}

KCORE_API int statx(int dirfd, const char *path, int flags, unsigned int mask,
		    struct statx *stx)
{
	uint64_t size;
	int ret = CALL_REAL(statx, -1, dirfd, path, flags, mask, stx);

	if (ret || !(stx->stx_mask & STATX_TYPE) || !S_ISREG(stx->stx_mode))
		return ret;
	if (empty_path(path, flags) ? kcore_size(dirfd, &size) : path_size(dirfd, path, &size))
		stx->stx_size = size;
	return ret;
}
