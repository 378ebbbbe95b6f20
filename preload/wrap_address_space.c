// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The wrapped calls that change the address space and may take write
 * access away from a buffer: each notes the pages it touched
 * (writable.c).  mmap() of a kcore fd fails as kcore's does.
 */
#include <stdarg.h>
#include <sys/shm.h>

#include "preload.h"

#ifndef MREMAP_DONTUNMAP
#define MREMAP_DONTUNMAP 4
#endif

static bool writable_anon(int prot, int flags)
{
	return (prot & PROT_WRITE) && (flags & MAP_ANONYMOUS);
}

/*
 * What a new or replaced mapping covers: the old pages too if MAP_FIXED.
 * Fresh anonymous writable memory takes a write without a fault (huge
 * pages may SIGBUS when none are left: not those).
 */
static void mapped(void *p, void *addr, size_t len, int prot, int flags)
{
	uintptr_t hi;

	if (writable_anon(prot, flags)) {
		if (p != MAP_FAILED && !(flags & (MAP_HUGETLB | MAP_GROWSDOWN)) &&
		    !__builtin_add_overflow((uintptr_t)p, len, &hi) &&
		    hi <= UINTPTR_MAX - page_size)
			wr_add((uintptr_t)p, (hi + page_size - 1) & ~(page_size - 1));
		return;
	}
	if (flags & (MAP_FIXED | MAP_FIXED_NOREPLACE))
		as_changed(addr, len);
	if (p != MAP_FAILED && p != addr)
		as_changed(p, len);
}

/*
 * kcore has no mmap (kcore_proc_ops): procfs answers EIO (pde_mmap(),
 * fs/proc/inode.c, 6.1 to 7.3), never the memfd's pages.
 */
KCORE_API void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	void *p;

	if (!(flags & MAP_ANONYMOUS) && followed(fd)) {
		errno = EIO;
		return MAP_FAILED;
	}
	p = CALL_REAL(mmap, MAP_FAILED, addr, len, prot, flags, fd, off);
	mapped(p, addr, len, prot, flags);
	return p;
}

/* On LP64 glibc's mmap64 is mmap (one off_t): so is ours. */
_Static_assert(sizeof(off_t) == sizeof(off64_t), "mmap64 is not mmap here");
KCORE_API void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off64_t off)
	__attribute__((alias("mmap")));

KCORE_API int munmap(void *addr, size_t len)
{
	int r = CALL_REAL(munmap, -1, addr, len);

	as_changed(addr, len);
	return r;
}

KCORE_API int mprotect(void *addr, size_t len, int prot)
{
	int r = CALL_REAL(mprotect, -1, addr, len, prot);

	if (!(prot & PROT_WRITE))
		as_changed(addr, len);
	return r;
}

KCORE_API int pkey_mprotect(void *addr, size_t len, int prot, int pkey)
{
	int r = CALL_REAL(pkey_mprotect, -1, addr, len, prot, pkey);

	as_changed(addr, len);
	return r;
}

KCORE_API int pkey_set(int key, unsigned int rights)
{
	int r = CALL_REAL(pkey_set, -1, key, rights);

	as_changed_all();
	return r;
}

KCORE_API void *mremap(void *old, size_t old_len, size_t new_len, int flags, ...)
{
	void *new_addr = NULL, *p;
	va_list ap;

	if (flags & (MREMAP_FIXED | MREMAP_DONTUNMAP)) {
		va_start(ap, flags);
		new_addr = va_arg(ap, void *);
		va_end(ap);
	}
	p = CALL_REAL(mremap, MAP_FAILED, old, old_len, new_len, flags, new_addr);
	as_changed(old, old_len);
	if (flags & MREMAP_FIXED)
		as_changed(new_addr, new_len);
	if (p != MAP_FAILED)
		as_changed(p, new_len);
	return p;
}

/*
 * Advice that keeps pages writable (or only matters at fork, which counts
 * anyway): MADV_NORMAL..MADV_DONTNEED (0-4) and MADV_FREE..MADV_COLLAPSE
 * (8-25).  Poison, soft offline, guard pages and anything newer count.
 */
KCORE_API int madvise(void *addr, size_t len, int advice)
{
	int r = CALL_REAL(madvise, -1, addr, len, advice);

	if (advice < 0 || (advice > 4 && advice < 8) || advice > 25)
		as_changed(addr, len);
	return r;
}

KCORE_API void *shmat(int id, const void *addr, int flags)
{
	void *p = CALL_REAL(shmat, (void *)-1, id, addr, flags);

	as_changed_all();
	return p;
}

KCORE_API int shmdt(const void *addr)
{
	int r = CALL_REAL(shmdt, -1, addr);

	as_changed_all();
	return r;
}

KCORE_API int brk(void *addr)
{
	int r = CALL_REAL(brk, -1, addr);

	as_changed_all();
	return r;
}

KCORE_API void *sbrk(intptr_t delta)
{
	void *p = CALL_REAL(sbrk, (void *)-1, delta);

	if (delta < 0)
		as_changed_all();
	return p;
}

KCORE_API int dlclose(void *handle)
{
	int r = CALL_REAL(dlclose, -1, handle);

	as_changed_all();
	return r;
}
