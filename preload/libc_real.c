// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The libc functions the shim wraps, as the next object in the lookup
 * order has them (real.F), resolved once.
 */
#include <dlfcn.h>

#include "preload.h"

struct libc_real real;

pthread_once_t real_once = PTHREAD_ONCE_INIT;

void resolve(void)
{
#define RESOLVE(field, name) (*(void **)&real.field = dlsym(RTLD_NEXT, name))
	RESOLVE(open, "open");
	RESOLVE(open64, "open64");
	RESOLVE(openat, "openat");
	RESOLVE(openat64, "openat64");
	RESOLVE(open_2, "__open_2");
	RESOLVE(open64_2, "__open64_2");
	RESOLVE(openat_2, "__openat_2");
	RESOLVE(openat64_2, "__openat64_2");
	RESOLVE(pread, "pread");
	RESOLVE(pread64, "pread64");
	RESOLVE(pread_chk, "__pread_chk");
	RESOLVE(pread64_chk, "__pread64_chk");
	RESOLVE(read, "read");
	RESOLVE(read_chk, "__read_chk");
	RESOLVE(readv, "readv");
	RESOLVE(preadv, "preadv");
	RESOLVE(preadv64, "preadv64");
	RESOLVE(preadv2, "preadv2");
	RESOLVE(preadv64v2, "preadv64v2");
	RESOLVE(sendfile, "sendfile");
	RESOLVE(sendfile64, "sendfile64");
	RESOLVE(copy_file_range, "copy_file_range");
	RESOLVE(lseek, "lseek");
	RESOLVE(lseek64, "lseek64");
	RESOLVE(close, "close");
	RESOLVE(close_range, "close_range");
	RESOLVE(closefrom, "closefrom");
	RESOLVE(dup, "dup");
	RESOLVE(dup2, "dup2");
	RESOLVE(dup3, "dup3");
	RESOLVE(fcntl, "fcntl");
	RESOLVE(fcntl64, "fcntl64");
	RESOLVE(fopen, "fopen");
	RESOLVE(fopen64, "fopen64");
	RESOLVE(fclose, "fclose");
	RESOLVE(mmap, "mmap");
	RESOLVE(munmap, "munmap");
	RESOLVE(mprotect, "mprotect");
	RESOLVE(pkey_mprotect, "pkey_mprotect");
	RESOLVE(pkey_set, "pkey_set");
	RESOLVE(mremap, "mremap");
	RESOLVE(madvise, "madvise");
	RESOLVE(shmat, "shmat");
	RESOLVE(shmdt, "shmdt");
	RESOLVE(brk, "brk");
	RESOLVE(sbrk, "sbrk");
	RESOLVE(dlclose, "dlclose");
	RESOLVE(stat, "stat");
	RESOLVE(stat64, "stat64");
	RESOLVE(lstat, "lstat");
	RESOLVE(lstat64, "lstat64");
	RESOLVE(fstat, "fstat");
	RESOLVE(fstat64, "fstat64");
	RESOLVE(fstatat, "fstatat");
	RESOLVE(fstatat64, "fstatat64");
	RESOLVE(statx, "statx");
	RESOLVE(fstatfs, "fstatfs");
	RESOLVE(fstatfs64, "fstatfs64");
#undef RESOLVE
	*(void **)&real.cleanup_push = dlsym(RTLD_DEFAULT, "_pthread_cleanup_push");
	*(void **)&real.cleanup_pop = dlsym(RTLD_DEFAULT, "_pthread_cleanup_pop");
	if (!real.cleanup_push || !real.cleanup_pop)
		real.cleanup_push = NULL;
	if (getpagesize() > (int)WGRAN)
		page_size = (uintptr_t)getpagesize();
	atomic_store(&owner, getpid());
	pthread_atfork(NULL, NULL, atfork_child);
}

__attribute__((constructor)) static void kcore_preload_init(void)
{
	pthread_once(&real_once, resolve);
}
