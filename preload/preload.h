/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * libkmemdev-kcore.so: run an unmodified /proc/kcore reader (drgn, crash, a
 * script) on /dev/kmem_ro with LD_PRELOAD.
 *
 * With the device there, an open of procfs's kcore never reaches the
 * kernel's read: the program gets an O_PATH fd of procfs's kcore, which no
 * read the shim does not see can read (EBADF: a raw system call, splice,
 * io_uring, stdio, the program it execs), and the shim answers every read
 * it sees itself - the header from a sealed memfd of its own, the rest
 * from a read-only mapping of the device or with one pread() of the
 * device, zeros where kcore gives zeros.  stat of the fd or the path
 * answers as kcore's with the size of the file served, mmap fails as
 * kcore's (EIO).  Where the bytes could still differ: README.md,
 * "/proc/kcore readers, unchanged".
 *
 * The files, each with its part of the story:
 *  - libc_real.c: the wrapped libc functions, as the next object has them;
 *  - reclaim.c: memory of the shim's own, the calls inside it, signals;
 *  - writable.c: buffers known writable (EFAULT as kcore's);
 *  - device.c: /dev/kmem_ro, its handshake and mapping;
 *  - kcore_open.c: an open of procfs's kcore, the file served;
 *  - kcore_synth.c: that file's layout and header;
 *  - fd_table.c: the followed fds, what close, dup and fork do to them;
 *  - kcore_read.c: serving a read;
 *  - file_position.c: the file position, shared over fork();
 *  - kallsyms_serve.c: /proc/kallsyms for a process it shows only zeros;
 *  - wrap_*.c: the wrapped functions, by what they do (wrap_transfer.c:
 *    sendfile() and copy_file_range() from a kcore fd).
 *
 * Process-wide state (a preload shim cannot avoid it; libkmemdev itself has
 * none): the wrapped libc functions, the device (opened with the first
 * kcore fd, closed after the last), the open kcore files indexed by fd
 * (any fd number: a table grown in chunks), the recent address space
 * changes, and per thread a cell and the pages known writable.
 */
#ifndef KMEMDEV_PRELOAD_H
#define KMEMDEV_PRELOAD_H

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#include "internal.h"

#define KCORE_API	__attribute__((visibility("default")))
/* Static TLS: no allocation on first use, so usable in a handler. */
#define TLS		__thread __attribute__((tls_model("initial-exec")))

/* fds per chunk of the fd table; the first chunk is static */
#define FD_CHUNK	4096
/* Granule of the writable-buffer cache: no larger than any page size. */
#define WGRAN		4096UL

enum seg_kind { SEG_OTHER, SEG_RAM, SEG_IMAGE };

/* A PT_LOAD segment by file offset: [off, end) holds [vaddr, ...). */
struct kseg {
	uint64_t off;
	uint64_t end;
	uint64_t vaddr;
	uint64_t paddr;
	enum seg_kind kind;
};

/* Unmapped by reclaim() when no call is inside the shim. */
struct retired {
	struct retired *next;
	void (*free)(struct retired *r);
};

/**
 * struct kshared - what fork() shares of an open kcore: a MAP_SHARED page
 * @pos: the file position (the program's fd, O_PATH, has none)
 * @size: the file's size, as kcore's
 * @data_offset: where the header ends and addresses begin
 * @nr: number of @seg
 * @seg: PT_LOAD segments, sorted by file offset, not overlapping
 * All but @pos are set before the file is published and never changed.
 */
struct kshared {
	_Atomic int64_t pos;
	uint64_t size;
	uint64_t data_offset;
	unsigned int nr;
	struct kseg seg[];
};

struct kdev;

/*
 * What of a segment the device's mapping holds: [lo, hi) of its addresses
 * at base; lo == hi for none.  Found once per file (kfile_new()), so
 * that a read needs a compare, not a translation.
 */
struct kwin {
	uint64_t lo;
	uint64_t hi;
	const unsigned char *base;
};

/**
 * struct kfile - an open /proc/kcore (open file description), this
 *	process's view
 * @node: for reclaim(); first
 * @refs: fds of this process that name it
 * @sh: the shared part
 * @sh_len: its mapping's length
 * @dev: the device it reads through
 * @hdr_fd: the shim's own fd (close-on-exec) of a sealed memfd of the
 *	file's size, holding the header: header and holes are read from it
 *	(zeros past the header); -1 once the program closed it behind our
 *	back (then they fail with EBADF)
 * @win: per segment of @sh, what the device's mapping holds of it
 * @len: length of this allocation
 */
struct kfile {
	struct retired node;
	atomic_uint refs;
	struct kshared *sh;
	size_t sh_len;
	struct kdev *dev;
	atomic_int hdr_fd;
	struct kwin *win;
	size_t len;
};

/* A read-only mapping of one mappable range, rounded inward to pages. */
struct kmap {
	uint64_t start;
	uint64_t len;
	const unsigned char *base;	/* NULL: not mapped, device reads only */
};

/**
 * struct kdev - /dev/kmem_ro, opened for the first kcore file
 * @node: for reclaim(); first
 * @fd: for device reads; -1 once the program closed it behind our back
 * @files: kfiles reading through it; 0 once retired
 * @info: the handshake's answer
 * @nr: number of @range and @map
 * @range: what may be mapped: System RAM, or with mmap_ram=0 the text
 * @map: the mappings, same index
 * @len: length of this allocation
 * @bounds: @image_end and @vmemmap are set
 * @image_end: the served kcore's layout inputs fixed for the boot, found
 *	for the first kcore file (kmemdev__kcore_synth_bounds())
 * @vmemmap: see @image_end
 * @task_size: see @image_end
 * @psargs: see @image_end
 */
struct kdev {
	struct retired node;
	atomic_int fd;
	atomic_uint files;
	struct kmem_ro_info info;
	uintptr_t refused_mask;	/* kmemdev__refused_mask(&info) */
	unsigned int nr;
	struct kmem_ro_range *range;
	struct kmap *map;
	size_t len;
	atomic_bool bounds;
	uint64_t image_end;
	uint64_t vmemmap;
	uint32_t task_size;
	char psargs[80];
};

struct cell;

/* A call inside the shim: what it found stays mapped until it leaves. */
struct in_shim {
	struct _pthread_cleanup_buffer cb;
	struct cell *cell;	/* NULL: counted in overflow, signals blocked */
	unsigned int base;	/* depth before this call */
	sigset_t old;
};

/* ---- libc_real.c ---- */

/* The functions wrapped, as the next object in the lookup order has them. */
struct libc_real {
	int (*open)(const char *, int, ...);
	int (*open64)(const char *, int, ...);
	int (*openat)(int, const char *, int, ...);
	int (*openat64)(int, const char *, int, ...);
	int (*open_2)(const char *, int);
	int (*open64_2)(const char *, int);
	int (*openat_2)(int, const char *, int);
	int (*openat64_2)(int, const char *, int);
	ssize_t (*pread)(int, void *, size_t, off_t);
	ssize_t (*pread64)(int, void *, size_t, off64_t);
	ssize_t (*pread_chk)(int, void *, size_t, off_t, size_t);
	ssize_t (*pread64_chk)(int, void *, size_t, off64_t, size_t);
	ssize_t (*read)(int, void *, size_t);
	ssize_t (*read_chk)(int, void *, size_t, size_t);
	ssize_t (*readv)(int, const struct iovec *, int);
	ssize_t (*preadv)(int, const struct iovec *, int, off_t);
	ssize_t (*preadv64)(int, const struct iovec *, int, off64_t);
	ssize_t (*preadv2)(int, const struct iovec *, int, off_t, int);
	ssize_t (*preadv64v2)(int, const struct iovec *, int, off64_t, int);
	ssize_t (*sendfile)(int, int, off_t *, size_t);
	ssize_t (*sendfile64)(int, int, off64_t *, size_t);
	ssize_t (*copy_file_range)(int, off64_t *, int, off64_t *, size_t, unsigned int);
	off_t (*lseek)(int, off_t, int);
	off64_t (*lseek64)(int, off64_t, int);
	int (*close)(int);
	int (*close_range)(unsigned int, unsigned int, int);
	void (*closefrom)(int);
	int (*dup)(int);
	int (*dup2)(int, int);
	int (*dup3)(int, int, int);
	int (*fcntl)(int, int, ...);
	int (*fcntl64)(int, int, ...);
	FILE *(*fopen)(const char *, const char *);
	FILE *(*fopen64)(const char *, const char *);
	int (*fclose)(FILE *);
	void *(*mmap)(void *, size_t, int, int, int, off_t);
	int (*munmap)(void *, size_t);
	int (*mprotect)(void *, size_t, int);
	int (*pkey_mprotect)(void *, size_t, int, int);
	int (*pkey_set)(int, unsigned int);
	void *(*mremap)(void *, size_t, size_t, int, ...);
	int (*madvise)(void *, size_t, int);
	void *(*shmat)(int, const void *, int);
	int (*shmdt)(const void *);
	int (*brk)(void *);
	void *(*sbrk)(intptr_t);
	int (*dlclose)(void *);
	int (*stat)(const char *, struct stat *);
	int (*stat64)(const char *, struct stat64 *);
	int (*lstat)(const char *, struct stat *);
	int (*lstat64)(const char *, struct stat64 *);
	int (*fstat)(int, struct stat *);
	int (*fstat64)(int, struct stat64 *);
	int (*fstatat)(int, const char *, struct stat *, int);
	int (*fstatat64)(int, const char *, struct stat64 *, int);
	int (*statx)(int, const char *, int, unsigned int, struct statx *);
	int (*fstatfs)(int, struct statfs *);
	int (*fstatfs64)(int, struct statfs64 *);
	/* glibc's; a jump or cancellation runs what the discarded frames pushed */
	void (*cleanup_push)(struct _pthread_cleanup_buffer *, void (*)(void *), void *);
	void (*cleanup_pop)(struct _pthread_cleanup_buffer *, int);
};

extern struct libc_real real;
extern pthread_once_t real_once;
void resolve(void);

/*
 * real.F, resolved on first use (another library's constructor may call us
 * before ours runs; after that, pthread_once() is a load and a compare).
 * A symbol this libc lacks: the program could not have linked against it
 * either, but fail cleanly with ENOSYS all the same.
 */
#define REAL(F) (pthread_once(&real_once, resolve), real.F)
#define CALL_REAL(F, FAIL, ...) \
	(REAL(F) ? real.F(__VA_ARGS__) : (errno = ENOSYS, (FAIL)))

/* ---- reclaim.c ---- */

/* malloc() is not async-signal-safe: whole pages from the kernel. */
void *page_alloc(size_t len, bool shared);
void page_free(const void *p, size_t len);
/* Unmapped (r->free) once no call is inside the shim. */
void retire(struct retired *r);
/* For the few steps that change the table: no handler in between. */
void block_signals(sigset_t *old);
void restore_signals(const sigset_t *old);
/*
 * A call enters the shim before it looks anything up, and leaves it:
 * inline, as every read passes here (reclaim.c has the story).
 */
struct cell {
	atomic_uint depth;
	atomic_int tid;		/* 0: free */
};

extern TLS struct cell *my_cell;
extern _Atomic(struct retired *) retired;
/* This thread's first call: a cell for it, NULL if none is free. */
struct cell *cell_get(void);
void reclaim(void);
void left_by_jump(void *arg);
void enter_uncounted(struct in_shim *c);
void leave_uncounted(struct in_shim *c);

static inline void left(struct in_shim *c)
{
	atomic_store(&c->cell->depth, c->base);
	if (!c->base && atomic_load(&retired))
		reclaim();
}

static inline void enter(struct in_shim *c)
{
	c->cell = my_cell ? my_cell : cell_get();
	if (!c->cell) {
		enter_uncounted(c);
		return;
	}
	c->base = atomic_load_explicit(&c->cell->depth, memory_order_relaxed);
	if (real.cleanup_push)
		real.cleanup_push(&c->cb, left_by_jump, c);
	atomic_store(&c->cell->depth, c->base + 1);
}

static inline void leave(struct in_shim *c)
{
	if (!c->cell) {
		leave_uncounted(c);
		return;
	}
	left(c);
	if (real.cleanup_push)
		real.cleanup_pop(&c->cb, 0);
}
/* In the child of fork(): no other thread is inside. */
void inside_after_fork(void);

/* ---- writable.c ---- */

/* The page size, if larger than WGRAN. */
extern uintptr_t page_size;
/* The number of the last address space change. */
extern atomic_ulong as_gen;
/* [addr, addr + len) may have lost write access; everything. */
void as_changed(const void *addr, size_t len);
void as_changed_all(void);
/* The granules buf..buf+n touches; false if that wraps. */
static inline bool span(const void *buf, size_t n, uintptr_t *lo, uintptr_t *hi)
{
	uintptr_t a = (uintptr_t)buf, e;

	if (__builtin_add_overflow(a, n, &e) || e > UINTPTR_MAX - WGRAN)
		return false;
	*lo = a & ~(WGRAN - 1);
	*hi = (e + WGRAN - 1) & ~(WGRAN - 1);
	return true;
}
/* [lo, hi) known writable at change number gen; the page cache learns it. */
bool known_writable(uintptr_t lo, uintptr_t hi, unsigned long gen);
/* A device read wrote [lo, hi) at change number gen. */
void wc_add(uintptr_t lo, uintptr_t hi, unsigned long gen);
/* This thread mapped [lo, hi) anonymous and writable. */
void wr_add(uintptr_t lo, uintptr_t hi);

/* ---- device.c ---- */

extern _Atomic(struct kdev *) cur_dev;
/* cur_dev's fd, -1 if none: lets close() of other fds skip the shim. */
extern atomic_int dev_fd;
/*
 * n bytes at kernel address vaddr into buf, with one pread() of the
 * device fd by address (KMEM_RO_FEAT_PREAD), else one READV segment (at
 * most KMEM_RO_READV_MAX_BYTES of it); made again after a signal that
 * came before any byte.  Bytes read (short at the first page that fails,
 * or for a signal), or the negative errno of the first page; errno is
 * left as it was.
 */
int64_t device_read(const struct kdev *d, int fd, uint64_t vaddr, void *buf, size_t n);
/* The device for one more file (a reference); inside the shim. */
struct kdev *dev_get(void);
void dev_free(struct retired *r);
void dev_retire(struct kdev *d);
/* The driver's System RAM list, sorted, in pages of ours; NULL on failure. */
struct kmem_ro_range *ram_list(int fd, struct kmem_ro_info *in,
			       unsigned int *nr, size_t *len);
/* Where the device's mapping holds segment s (size bytes of it). */
struct kwin seg_window(const struct kdev *d, const struct kseg *s, uint64_t size);

/* ---- kcore_open.c ---- */

/* Named @name, opened for reading (O_PATH opens are left alone). */
bool named(const char *path, int flags, const char *name);
/* kcore_open(): not procfs's kcore, or not ours to serve. */
#define NOT_KCORE	(-2)
int kcore_open(int dirfd, const char *path, int flags);

/* ---- fd_table.c ---- */

/*
 * A slot holds the kfile an fd names, or with SLOT_HEADER set the kfile
 * whose header memfd (hdr_fd) the fd is: closing that behind our back is
 * seen too.
 */
typedef _Atomic(struct kfile *) fd_slot;
#define SLOT_HEADER	((uintptr_t)1)

/* fds below FD_CHUNK; the chunks above are fd_dir's (fd_table.c). */
extern fd_slot fd_low[FD_CHUNK];
extern _Atomic(fd_slot *) *_Atomic fd_dir;
/* The process the table describes (a vfork() child shares our memory). */
extern atomic_int owner;
bool owner_calls(void);
/* fd's slot, made if need be: NULL if out of memory. */
fd_slot *slot_make(int fd);
void put_file(struct kfile *kf);
bool get_ref(atomic_uint *refs);
void drop(int fd);
void drop_range(unsigned int first, unsigned int last);
bool followed(int fd);
int opened(int fd);
int duped(int oldfd, int newfd);
void atfork_child(void);

/* fd's slot, NULL if it has none (nothing there was ever followed). */
static inline fd_slot *slot_of(int fd)
{
	_Atomic(fd_slot *) *dir;
	fd_slot *chunk;

	if (fd < 0)
		return NULL;
	if (fd < FD_CHUNK)
		return &fd_low[fd];
	dir = atomic_load_explicit(&fd_dir, memory_order_acquire);
	if (!dir)
		return NULL;
	chunk = atomic_load_explicit(&dir[fd / FD_CHUNK], memory_order_acquire);
	return chunk ? &chunk[fd % FD_CHUNK] : NULL;
}

/* The fd of slot s (slot_of()) may be followed. */
static inline bool slot_maybe_tracked(fd_slot *s)
{
	return s && atomic_load_explicit(s, memory_order_relaxed);
}

/* fd may be followed: a load or three, for every fd a wrapper sees. */
static inline bool maybe_tracked(int fd)
{
	return slot_maybe_tracked(slot_of(fd));
}

/* The kfile slot s names (slots are never freed); inside the shim. */
static inline struct kfile *slot_file(fd_slot *s)
{
	struct kfile *kf = s ? atomic_load(s) : NULL;

	return ((uintptr_t)kf & SLOT_HEADER) ? NULL : kf;
}

/* The kfile fd names; inside the shim. */
static inline struct kfile *file_of(int fd)
{
	return slot_file(slot_of(fd));
}

/* ---- kcore_read.c ---- */

ssize_t synth_pread(const struct kfile *kf, void *buf, size_t n, uint64_t off);
ssize_t try_pread(int fd, void *buf, size_t n, off_t off, bool *served);
/* pread() (wide: pread64()) of fd: served if followed, else libc's. */
ssize_t pread_or_real(int fd, void *buf, size_t n, off_t off, bool wide);

/* ---- file_position.c ---- */

ssize_t pos_read(int fd, void *buf, size_t n);
off_t pos_seek(int fd, off_t off, int whence, off_t (*seek)(int, off_t, int));
off_t seek_real(int fd, off_t off, int whence);
off_t seek_real64(int fd, off_t off, int whence);

#endif
