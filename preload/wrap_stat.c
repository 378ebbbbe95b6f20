// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * What a followed kcore fd looks like: fstat(), statx() and fstatfs()
 * answer as for procfs's kcore, with the size of the file served.
 */
#include <sys/statfs.h>

#include "preload.h"

/*
 * A followed fd stats as procfs's kcore (stat of the path, which needs no
 * permission) with the size of the file served; statfs as procfs (drgn
 * takes an ELF core with NT_TASKSTRUCT in procfs for the live kernel).
 */
static int kcore_size(int fd, uint64_t *size)
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

KCORE_API int fstat(int fd, struct stat *st)
{
	uint64_t size;

	if (!kcore_size(fd, &size))
		return CALL_REAL(fstat, -1, fd, st);
	if (stat("/proc/kcore", st))
		return -1;
	st->st_size = (off_t)size;
	return 0;
}

KCORE_API int fstat64(int fd, struct stat64 *st)
{
	uint64_t size;

	if (!kcore_size(fd, &size))
		return CALL_REAL(fstat64, -1, fd, st);
	if (stat64("/proc/kcore", st))
		return -1;
	st->st_size = (off64_t)size;
	return 0;
}

KCORE_API int fstatat(int dirfd, const char *path, struct stat *st, int flags)
{
	if (empty_path(path, flags) && maybe_tracked(dirfd))
		return fstat(dirfd, st);
	return CALL_REAL(fstatat, -1, dirfd, path, st, flags);
}

KCORE_API int fstatat64(int dirfd, const char *path, struct stat64 *st, int flags)
{
	if (empty_path(path, flags) && maybe_tracked(dirfd))
		return fstat64(dirfd, st);
	return CALL_REAL(fstatat64, -1, dirfd, path, st, flags);
}

KCORE_API int statx(int dirfd, const char *path, int flags, unsigned int mask,
		    struct statx *stx)
{
	uint64_t size;

	if (!empty_path(path, flags) || !kcore_size(dirfd, &size))
		return CALL_REAL(statx, -1, dirfd, path, flags, mask, stx);
	if (CALL_REAL(statx, -1, AT_FDCWD, "/proc/kcore", flags & ~AT_EMPTY_PATH,
		      mask, stx))
		return -1;
	stx->stx_size = size;
	return 0;
}

KCORE_API int fstatfs(int fd, struct statfs *sfs)
{
	uint64_t size;

	if (kcore_size(fd, &size))
		return statfs("/proc/kcore", sfs);
	return CALL_REAL(fstatfs, -1, fd, sfs);
}

KCORE_API int fstatfs64(int fd, struct statfs64 *sfs)
{
	uint64_t size;

	if (kcore_size(fd, &size))
		return statfs64("/proc/kcore", sfs);
	return CALL_REAL(fstatfs64, -1, fd, sfs);
}
