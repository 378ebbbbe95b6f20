// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * libkmemdev-kcore.so: run an unmodified /proc/kcore reader (drgn, crash, a
 * script) on /dev/kmem_ro with LD_PRELOAD.
 *
 * A /proc/kcore fd stays a real kcore fd: fstat, mmap-less ops, close and
 * dup semantics are the kernel's.  The shim only answers pread()/read() at
 * file offsets inside one kcore PT_LOAD segment (the program headers are
 * read once, at open, with the real pread()):
 *  - direct-map RAM, and kernel text [text_start, text_end), from
 *    libkmemdev's read-only mapping: no system call at all;
 *  - every other segment (vmalloc, modules, vmemmap, the rest of the
 *    kernel image) with one READV segment.
 * Anything else goes to the real call: the ELF header, program headers and
 * notes, holes, a read that leaves its segment, reads over 16 MiB, and any
 * READV segment that does not come back whole.  kcore reads a page it
 * cannot read as zeros, READV fails it (EFAULT, ENXIO, EPERM): handing
 * such reads to kcore keeps the bytes identical.  Where the two could still
 * differ: README.md, "/proc/kcore readers, unchanged" (a mapped page later
 * reused for memfd_secret; BPF arena pages, which kcore shows as zeros).
 *
 * read() and lseek() are served against a file position the shim keeps.
 * It is written back to the kernel (one lseek) before any call the shim
 * passes through on that open file (read, readv, other lseeks, fdopen) and
 * at close, dup2 over it and fork.  After fork (and fdopen) the position is
 * shared with someone who does not see the shim's copy, so from then on
 * read() and lseek() of that file go to the kernel; pread() stays fast.
 * Not seen: a position moved by calls the shim does not wrap (sendfile,
 * splice, preadv2 with offset -1, io_uring) or read by a program the fd is
 * passed to over exec.
 *
 * Process-wide state (a preload shim cannot avoid it; libkmemdev itself has
 * none): the wrapped libc functions, one libkmemdev handle opened with the
 * first kcore fd and closed with the last, and the open kcore files indexed
 * by fd (fds below KCORE_FD_MAX; others are left to the kernel).  A
 * rwlock guards them; fds[] is also read without it, so that calls on
 * other fds cost one load.  Serving a pread() takes the lock with trylock:
 * it never blocks, and a pread() from a signal handler that interrupted the
 * shim just goes to the kernel.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <sys/uio.h>
#include <unistd.h>

#include "internal.h"

#define KCORE_API	__attribute__((visibility("default")))

/* fds at or above this are not followed: they read through the kernel. */
#define KCORE_FD_MAX	1024
/* Larger reads go to the kernel: they are rare and already amortized. */
#define SERVE_MAX	KMEM_RO_READV_MAX_BYTES

#define NO_PADDR	UINT64_MAX

enum seg_kind { SEG_OTHER, SEG_RAM, SEG_IMAGE };

/* A PT_LOAD segment by file offset: [off, end) holds [vaddr, ...). */
struct kseg {
	uint64_t off;
	uint64_t end;
	uint64_t vaddr;
	uint64_t paddr;
	enum seg_kind kind;
};

/**
 * struct kfile - one open /proc/kcore (an open file description)
 * @refs: fds of this process that name it
 * @shared: another process (fork) or stdio (fdopen) shares the file
 *	position: read() and lseek() go to the kernel
 * @pos: the file position the program sees
 * @kpos: the kernel's file position; != @pos until written back
 * @seg: PT_LOAD segments, sorted by file offset, not overlapping
 * @nr: number of @seg
 */
struct kfile {
	unsigned int refs;
	bool shared;
	off_t pos;
	off_t kpos;
	struct kseg *seg;
	unsigned int nr;
};

static struct {
	pthread_rwlock_t lock;
	struct kmemdev *dev;	/* open while files > 0 */
	unsigned int files;
} g = { .lock = PTHREAD_RWLOCK_INITIALIZER };

static _Atomic(struct kfile *) fds[KCORE_FD_MAX];
/* g.dev's fd, -1 if none: read without the lock, like fds[]. */
static atomic_int dev_fd = -1;
/*
 * The process the table describes.  A vfork() child shares our memory but
 * not our fd table: what it closes or dups must not change the parent's.
 */
static atomic_int owner = -1;

static bool owner_calls(void)
{
	return getpid() == atomic_load_explicit(&owner, memory_order_relaxed);
}

/* The functions wrapped, as the next object in the lookup order has them. */
static struct {
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
	FILE *(*fdopen)(int, const char *);
	int (*fclose)(FILE *);
} real;

static pthread_once_t real_once = PTHREAD_ONCE_INIT;

static void atfork_prepare(void);
static void atfork_parent(void);
static void atfork_child(void);

static void resolve(void)
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
	RESOLVE(fdopen, "fdopen");
	RESOLVE(fclose, "fclose");
#undef RESOLVE
	atomic_store(&owner, getpid());
	pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
}

/*
 * real.F, resolved on first use (another library's constructor may call us
 * before ours runs).  A symbol this libc lacks: the program could not have
 * linked against it either, but fail cleanly with ENOSYS all the same.
 */
#define REAL(F) (pthread_once(&real_once, resolve), real.F)
#define CALL_REAL(F, FAIL, ...) \
	(REAL(F) ? real.F(__VA_ARGS__) : (errno = ENOSYS, (FAIL)))

__attribute__((constructor)) static void kcore_preload_init(void)
{
	pthread_once(&real_once, resolve);
}

/* Might fd be a followed kcore fd?  One load; confirm under the lock. */
static bool maybe_tracked(int fd)
{
	return fd >= 0 && fd < KCORE_FD_MAX &&
	       atomic_load_explicit(&fds[fd], memory_order_relaxed);
}

static struct kfile *file_of(int fd)
{
	if (fd < 0 || fd >= KCORE_FD_MAX)
		return NULL;
	return atomic_load_explicit(&fds[fd], memory_order_relaxed);
}

/* ---- serving reads ---------------------------------------------------- */

static const struct kseg *seg_find(const struct kfile *kf, uint64_t off)
{
	unsigned int lo = 0, hi = kf->nr;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (kf->seg[mid].off <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || off >= kf->seg[lo - 1].end)
		return NULL;
	return &kf->seg[lo - 1];
}

/* Safe to serve from the mapping: mapped as kcore maps it, for good. */
static bool mappable(const struct kseg *s, uint64_t vaddr, size_t n)
{
	const struct kmem_ro_info *in = &g.dev->info;

	if (s->kind == SEG_RAM)
		return true;
	/*
	 * Past the text the image has holes the kernel freed (init, the
	 * gaps around rodata): kcore reads them as zeros through the
	 * unmapped image address, a mapping of their physical pages would
	 * show whatever reuses them.  READV reads the image address too.
	 */
	return s->kind == SEG_IMAGE && vaddr >= in->text_start &&
	       vaddr < in->text_end && n <= in->text_end - vaddr;
}

/* Fill buf as pread(fd, buf, n, off) of /proc/kcore would; under g.lock. */
static bool serve(const struct kfile *kf, void *buf, size_t n, off_t off)
{
	struct kmem_ro_iov iov;
	const struct kseg *s;
	const void *src;
	uint64_t vaddr;

	if (!n || n > SERVE_MAX || off < 0)
		return false;
	s = seg_find(kf, (uint64_t)off);
	if (!s || n > s->end - (uint64_t)off)
		return false;
	vaddr = s->vaddr + ((uint64_t)off - s->off);

	if (mappable(s, vaddr, n) && !kmemdev_map(g.dev, vaddr, n, &src)) {
		memcpy(buf, src, n);
		return true;
	}
	/* Straight into buf: on failure the real pread() overwrites it. */
	iov = (struct kmem_ro_iov){
		.addr = vaddr,
		.len = n,
		.buf = (uintptr_t)buf,
	};
	return !kmemdev_readv(g.dev, &iov, 1, NULL) && iov.result == (int64_t)n;
}

/* n if served, -1 to let the kernel do it. */
static ssize_t try_pread(int fd, void *buf, size_t n, off_t off)
{
	struct kfile *kf;
	ssize_t ret = -1;
	int saved = errno;

	if (!maybe_tracked(fd) || pthread_rwlock_tryrdlock(&g.lock))
		return -1;
	kf = file_of(fd);
	if (kf && serve(kf, buf, n, off))
		ret = (ssize_t)n;
	pthread_rwlock_unlock(&g.lock);
	errno = saved;
	return ret;
}

/* ---- the file position ------------------------------------------------ */

/* Write the position back to the kernel; under the write lock. */
static int sync_pos(int fd, struct kfile *kf)
{
	off_t r;

	if (kf->shared || kf->pos == kf->kpos)
		return 0;
	r = CALL_REAL(lseek, -1, fd, kf->pos, SEEK_SET);
	if (r < 0)
		return -1;
	kf->kpos = r;
	return 0;
}

static ssize_t pos_read(int fd, void *buf, size_t n)
{
	struct kfile *kf;
	ssize_t ret;
	int saved = errno;

	if (!maybe_tracked(fd))
		return CALL_REAL(read, -1, fd, buf, n);
	pthread_rwlock_wrlock(&g.lock);
	kf = file_of(fd);
	if (kf && !kf->shared && serve(kf, buf, n, kf->pos)) {
		kf->pos += (off_t)n;
		errno = saved;
		ret = (ssize_t)n;
	} else if (kf && sync_pos(fd, kf)) {
		ret = -1;
	} else {
		errno = saved;
		ret = CALL_REAL(read, -1, fd, buf, n);
		if (kf && !kf->shared && ret > 0)
			kf->pos = kf->kpos += ret;
	}
	pthread_rwlock_unlock(&g.lock);
	return ret;
}

/* lseek of either width (off_t and off64_t are one type on LP64). */
static off_t pos_seek(int fd, off_t off, int whence,
		      off_t (*seek)(int, off_t, int))
{
	struct kfile *kf;
	off_t ret, cur;

	if (!maybe_tracked(fd))
		return seek(fd, off, whence);
	pthread_rwlock_wrlock(&g.lock);
	kf = file_of(fd);
	if (kf && !kf->shared && whence == SEEK_SET && off >= 0) {
		ret = kf->pos = off;
	} else if (kf && !kf->shared && whence == SEEK_CUR &&
		   !__builtin_add_overflow(kf->pos, off, &cur) && cur >= 0) {
		ret = kf->pos = cur;
	} else if (kf && sync_pos(fd, kf)) {
		ret = -1;
	} else {
		/* SEEK_END, SEEK_DATA, errors: the kernel decides. */
		ret = seek(fd, off, whence);
		if (kf && !kf->shared && ret >= 0)
			kf->pos = kf->kpos = ret;
	}
	pthread_rwlock_unlock(&g.lock);
	return ret;
}

static off_t seek_real(int fd, off_t off, int whence)
{
	return CALL_REAL(lseek, -1, fd, off, whence);
}

static off_t seek_real64(int fd, off_t off, int whence)
{
	return CALL_REAL(lseek64, -1, fd, off, whence);
}

/* ---- following kcore fds ---------------------------------------------- */

static void kfile_free(struct kfile *kf)
{
	free(kf->seg);
	free(kf);
}

static void dev_close_locked(void)
{
	atomic_store_explicit(&dev_fd, -1, memory_order_relaxed);
	kmemdev_close(g.dev);
	g.dev = NULL;
}

/* Forget fd (closed or about to be); under the write lock. */
static void drop_locked(int fd, bool write_back)
{
	struct kfile *kf = file_of(fd);

	/*
	 * The program closes our device fd (closefrom() before exec, say):
	 * the mapping stays, READV is gone, and we must never close the
	 * number again - it may be the program's by then.
	 */
	if (g.dev && fd == g.dev->fd) {
		g.dev->fd = -1;
		atomic_store_explicit(&dev_fd, -1, memory_order_relaxed);
	}
	if (!kf)
		return;
	atomic_store_explicit(&fds[fd], NULL, memory_order_relaxed);
	if (--kf->refs)
		return;
	/* A description inherited over exec keeps the program's position. */
	if (write_back)
		sync_pos(fd, kf);
	kfile_free(kf);
	if (--g.files == 0)
		dev_close_locked();
}

static void drop(int fd, bool write_back)
{
	int saved = errno;

	if (!maybe_tracked(fd) &&
	    (fd < 0 || fd != atomic_load_explicit(&dev_fd, memory_order_relaxed)))
		return;
	if (!owner_calls())
		return;
	pthread_rwlock_wrlock(&g.lock);
	drop_locked(fd, write_back);
	pthread_rwlock_unlock(&g.lock);
	errno = saved;
}

static int cmp_kseg(const void *pa, const void *pb)
{
	const struct kseg *a = pa, *b = pb;

	return a->off < b->off ? -1 : a->off > b->off;
}

static enum seg_kind seg_kind(const struct kmem_ro_info *in,
			      const struct kseg *s)
{
	if (s->paddr == NO_PADDR)
		return SEG_OTHER;
	if (in->kernel_map > in->page_offset && s->vaddr >= in->kernel_map)
		return SEG_IMAGE;
	if (s->vaddr >= in->page_offset && s->vaddr - in->page_offset == s->paddr)
		return SEG_RAM;
	return SEG_OTHER;
}

/*
 * The PT_LOAD segments of a kcore fd, by file offset; NULL if unusable.
 * Its pread()s reach our wrapper, which leaves an fd not yet followed to
 * the kernel.
 */
static struct kfile *kfile_new(int fd)
{
	struct kmemdev_kcore kc = { .fd = -1 };
	struct kfile *kf;
	unsigned int i, n = 0;

	if (kmemdev__kcore_parse(fd, &kc))
		return NULL;
	kf = calloc(1, sizeof(*kf));
	if (kf)
		kf->seg = calloc(kc.nr ? kc.nr : 1, sizeof(*kf->seg));
	if (!kf || !kf->seg)
		goto fail;
	for (i = 0; i < kc.nr; i++) {
		const struct kmemdev_kseg *s = &kc.load[i];

		if (!s->filesz)
			continue;
		kf->seg[n++] = (struct kseg){
			.off = s->offset,
			.end = s->offset + s->filesz,
			.vaddr = s->vaddr,
			.paddr = s->paddr,
		};
	}
	qsort(kf->seg, n, sizeof(*kf->seg), cmp_kseg);
	/* Overlapping file ranges would make an offset ambiguous. */
	for (i = 1; i < n; i++)
		if (kf->seg[i].off < kf->seg[i - 1].end)
			goto fail;
	kf->nr = n;
	kf->refs = 1;
	kmemdev__kcore_release(&kc);
	return kf;
fail:
	if (kf)
		kfile_free(kf);
	kmemdev__kcore_release(&kc);
	return NULL;
}

static int device_open(struct kmemdev **out)
{
	KMEMDEV_OPTS(kmemdev_open_opts, opts, .backend = KMEMDEV_BACKEND_DEVICE);
	struct kmemdev *h;

	if (kmemdev_open(&h, &opts))
		return -1;
	if (!(h->info.features & KMEM_RO_FEAT_READV)) {
		kmemdev_close(h);
		return -1;
	}
	*out = h;
	return 0;
}

static bool named_kcore(const char *path, int flags)
{
	const char *base;

	if ((flags & O_ACCMODE) != O_RDONLY || (flags & O_PATH) || !path)
		return false;
	base = strrchr(path, '/');
	return !strcmp(base ? base + 1 : path, "kcore");
}

/*
 * A successful open*() returned fd: follow it if it is /proc/kcore.  The
 * device is opened outside the lock: its open() comes back through here.
 */
static int opened(const char *path, int flags, int fd)
{
	struct kmemdev *h = NULL;
	struct kfile *kf;
	struct statfs sfs;
	unsigned int i;
	bool have;
	int saved = errno;

	if (fd < 0)
		return fd;
	drop(fd, false);	/* closed behind our back (e.g. by a raw syscall) */
	if (fd >= KCORE_FD_MAX || !named_kcore(path, flags) || !owner_calls() ||
	    fstatfs(fd, &sfs) || sfs.f_type != PROC_SUPER_MAGIC)
		goto out;
	kf = kfile_new(fd);
	if (!kf)
		goto out;
	pthread_rwlock_rdlock(&g.lock);
	have = g.dev;
	pthread_rwlock_unlock(&g.lock);
	if (!have && device_open(&h)) {
		kfile_free(kf);
		goto out;
	}

	pthread_rwlock_wrlock(&g.lock);
	if (!g.dev && h) {
		g.dev = h;
		h = NULL;
		atomic_store_explicit(&dev_fd, g.dev->fd, memory_order_relaxed);
	}
	if (g.dev) {
		for (i = 0; i < kf->nr; i++)
			kf->seg[i].kind = seg_kind(&g.dev->info, &kf->seg[i]);
		atomic_store_explicit(&fds[fd], kf, memory_order_relaxed);
		g.files++;
		kf = NULL;
	}
	pthread_rwlock_unlock(&g.lock);
	if (kf)
		kfile_free(kf);
	kmemdev_close(h);	/* another thread was first */
out:
	errno = saved;
	return fd;
}

/* newfd now names what oldfd names (dup, dup2, dup3, F_DUPFD). */
static int duped(int oldfd, int newfd)
{
	struct kfile *kf;
	int saved = errno;

	if (newfd < 0 || newfd == oldfd ||
	    (!maybe_tracked(oldfd) && !maybe_tracked(newfd)) || !owner_calls())
		return newfd;
	pthread_rwlock_wrlock(&g.lock);
	drop_locked(newfd, false);
	kf = file_of(oldfd);
	if (kf && newfd < KCORE_FD_MAX) {
		kf->refs++;
		atomic_store_explicit(&fds[newfd], kf, memory_order_relaxed);
	} else if (kf) {
		/* reads through newfd use the kernel's position from now on */
		sync_pos(oldfd, kf);
		kf->shared = true;
	}
	pthread_rwlock_unlock(&g.lock);
	errno = saved;
	return newfd;
}

/* ---- fork ---------------------------------------------------------------- */

/*
 * Hold the lock over fork (so the child's copy of the state is whole) and
 * write every position back: parent and child share them from now on.
 */
static void atfork_prepare(void)
{
	int fd;

	pthread_rwlock_wrlock(&g.lock);
	for (fd = 0; fd < KCORE_FD_MAX; fd++) {
		struct kfile *kf = file_of(fd);

		if (kf) {
			sync_pos(fd, kf);
			kf->shared = true;
		}
	}
}

static void atfork_parent(void)
{
	pthread_rwlock_unlock(&g.lock);
}

/* The child's thread is not the one that locked: start a fresh lock. */
static void atfork_child(void)
{
	atomic_store(&owner, getpid());
	pthread_rwlock_init(&g.lock, NULL);
}

/* ---- the wrapped functions ---------------------------------------------- */

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

KCORE_API int open(const char *path, int flags, ...)
{
	mode_t mode = 0;

	MODE_ARG(flags, mode);
	return opened(path, flags, CALL_REAL(open, -1, path, flags, mode));
}

KCORE_API int open64(const char *path, int flags, ...)
{
	mode_t mode = 0;

	MODE_ARG(flags, mode);
	return opened(path, flags, CALL_REAL(open64, -1, path, flags, mode));
}

KCORE_API int openat(int dirfd, const char *path, int flags, ...)
{
	mode_t mode = 0;

	MODE_ARG(flags, mode);
	return opened(path, flags,
		      CALL_REAL(openat, -1, dirfd, path, flags, mode));
}

KCORE_API int openat64(int dirfd, const char *path, int flags, ...)
{
	mode_t mode = 0;

	MODE_ARG(flags, mode);
	return opened(path, flags,
		      CALL_REAL(openat64, -1, dirfd, path, flags, mode));
}

/* _FORTIFY_SOURCE's checked entry points (open without a needed mode). */
int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);
int __openat_2(int dirfd, const char *path, int flags);
int __openat64_2(int dirfd, const char *path, int flags);

KCORE_API int __open_2(const char *path, int flags)
{
	return opened(path, flags, CALL_REAL(open_2, -1, path, flags));
}

KCORE_API int __open64_2(const char *path, int flags)
{
	return opened(path, flags, CALL_REAL(open64_2, -1, path, flags));
}

KCORE_API int __openat_2(int dirfd, const char *path, int flags)
{
	return opened(path, flags, CALL_REAL(openat_2, -1, dirfd, path, flags));
}

KCORE_API int __openat64_2(int dirfd, const char *path, int flags)
{
	return opened(path, flags,
		      CALL_REAL(openat64_2, -1, dirfd, path, flags));
}

KCORE_API ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	ssize_t r = try_pread(fd, buf, n, off);

	return r >= 0 ? r : CALL_REAL(pread, -1, fd, buf, n, off);
}

KCORE_API ssize_t pread64(int fd, void *buf, size_t n, off64_t off)
{
	ssize_t r = try_pread(fd, buf, n, off);

	return r >= 0 ? r : CALL_REAL(pread64, -1, fd, buf, n, off);
}

ssize_t __pread_chk(int fd, void *buf, size_t n, off_t off, size_t buflen);
ssize_t __pread64_chk(int fd, void *buf, size_t n, off64_t off, size_t buflen);
ssize_t __read_chk(int fd, void *buf, size_t n, size_t buflen);

/* n > buflen: the real one reports the overflow and aborts. */
KCORE_API ssize_t __pread_chk(int fd, void *buf, size_t n, off_t off,
			      size_t buflen)
{
	ssize_t r = n <= buflen ? try_pread(fd, buf, n, off) : -1;

	return r >= 0 ? r : CALL_REAL(pread_chk, -1, fd, buf, n, off, buflen);
}

KCORE_API ssize_t __pread64_chk(int fd, void *buf, size_t n, off64_t off,
				size_t buflen)
{
	ssize_t r = n <= buflen ? try_pread(fd, buf, n, off) : -1;

	return r >= 0 ? r :
	       CALL_REAL(pread64_chk, -1, fd, buf, n, off, buflen);
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

KCORE_API ssize_t readv(int fd, const struct iovec *iov, int cnt)
{
	struct kfile *kf;
	ssize_t ret;

	if (!maybe_tracked(fd))
		return CALL_REAL(readv, -1, fd, iov, cnt);
	pthread_rwlock_wrlock(&g.lock);
	kf = file_of(fd);
	if (kf && sync_pos(fd, kf)) {
		ret = -1;
	} else {
		ret = CALL_REAL(readv, -1, fd, iov, cnt);
		if (kf && !kf->shared && ret > 0)
			kf->pos = kf->kpos += ret;
	}
	pthread_rwlock_unlock(&g.lock);
	return ret;
}

KCORE_API off_t lseek(int fd, off_t off, int whence)
{
	return pos_seek(fd, off, whence, seek_real);
}

KCORE_API off64_t lseek64(int fd, off64_t off, int whence)
{
	return pos_seek(fd, off, whence, seek_real64);
}

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
	struct kfile *kf;

	if (maybe_tracked(fd)) {
		pthread_rwlock_wrlock(&g.lock);
		kf = file_of(fd);
		if (kf) {
			sync_pos(fd, kf);
			kf->shared = true;
		}
		pthread_rwlock_unlock(&g.lock);
	}
	return CALL_REAL(fdopen, NULL, fd, mode);
}

KCORE_API int fclose(FILE *f)
{
	if (f)
		drop(fileno(f), false);
	return CALL_REAL(fclose, EOF, f);
}
