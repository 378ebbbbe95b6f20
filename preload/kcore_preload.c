// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * libkmemdev-kcore.so: run an unmodified /proc/kcore reader (drgn, crash, a
 * script) on /dev/kmem_ro with LD_PRELOAD.
 *
 * With the device there, an open of procfs's kcore never reaches the
 * kernel (kcore wants CAP_SYS_RAWIO, a member of the device's group has
 * none; root gets the same file, so both read through one code path): the
 * shim serves the kcore the device describes (kcore_synth.c), its header
 * in a sealed memfd of the file's size, and answers reads itself:
 *  - the header from the memfd, holes as zeros (the memfd's hole);
 *  - direct-map RAM (with mmap_ram=1) and kernel text [text_start,
 *    text_end) from a read-only mapping of the device: no system call;
 *  - every other segment byte (vmalloc, modules, vmemmap, the rest of the
 *    image, RAM with mmap_ram=0) with READV; a page READV refuses (EFAULT,
 *    ENXIO, EPERM) reads as zeros, as kcore zeroes a page it cannot copy.
 * fstat/statx/fstatfs answer as kcore's, mmap fails with ENODEV.  Where the
 * bytes could still differ: README.md, "/proc/kcore readers, unchanged".
 *
 * Signals.  Any wrapper may run in a signal handler that interrupted
 * another on the same thread, and the interrupted call may never resume
 * (crash siglongjmps out on SIGINT).  So no wrapper takes a lock or calls
 * malloc(): the shim's objects are mmap()ed, published with atomic stores
 * and found with atomic loads, and a read keeps its state on its stack.
 * open, close and dup of a followed fd block signals for the few steps
 * that change the table (two more system calls on calls that make one
 * anyway); reads and lseeks do not.  What a close retires is unmapped
 * only while no call is inside the shim: a read that a handler or another
 * thread's close() overtook finishes on it first.  Each thread counts its
 * calls in a cell of its own; a call notes the count it found and puts it
 * back when it returns, or when a siglongjmp or cancellation discards its
 * frame (glibc runs the cleanup buffer it pushed, _pthread_cleanup_push).
 * Without that, objects would only stay mapped.
 *
 * The file position lives in a MAP_SHARED page per open file, which fork()
 * shares as the kernel shares the open file description: read() and
 * lseek() stay served in parent and child alike, and a read() claims its
 * bytes with a compare-and-swap of the position, as the kernel's f_pos
 * lock makes two reads of one description take turns.  A read the shim
 * passes on is a pread() at that position.  The kernel's own position is
 * written back at close, at fork (for a child that execs), and before
 * fdopen() or a dup to an fd the shim does not follow: from then on the
 * position is the kernel's and read()/lseek() are too; pread() stays fast.
 * Not seen: a position moved by calls the shim does not wrap (sendfile,
 * splice, preadv2 with offset -1, io_uring) or read by another program
 * the fd reaches over exec or a socket after it moved.
 *
 * Unwritable buffers.  kcore's pread() fails with EFAULT where a memcpy()
 * would fault.  A thread copies from the mapping only into pages a READV
 * wrote (the driver's copy_to_user() fails cleanly) and no change to the
 * address space has met since.  The shim wraps what can take write access
 * away - munmap, mprotect, mremap, mmap of anything but anonymous writable
 * memory, madvise that poisons or guards, pkey_mprotect - and notes the
 * pages each touched (the last CHANGES of them; shmat/shmdt, brk/sbrk,
 * dlclose, pkey_set and fork touch everything).  Not seen: raw system
 * calls, memory libc unmaps on its own (free()) and reuses for a
 * read-only mapping, a buffer unmapped by another thread or a handler
 * during the read, a shared file mapping whose file shrinks.
 *
 * /proc/kallsyms.  An open or fopen() of procfs's kallsyms that shows this
 * process only zeros (no CAP_SYSLOG) reads root's text, decoded through
 * the device, from a memfd under the same fd (kallsyms_serve.c): crash
 * takes the KASLR offset from it.  The one path that calls malloc()
 * (libkmemdev): not for signal handlers.  Where the file shows real
 * addresses it is left alone.
 *
 * Process-wide state (a preload shim cannot avoid it; libkmemdev itself has
 * none): the wrapped libc functions, the device (opened with the first
 * kcore fd, closed after the last), the open kcore files indexed by fd
 * (fds below KCORE_FD_MAX; others are left to the kernel), the recent
 * address space changes, and per thread a cell and the pages known
 * writable.
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "internal.h"
#include "kallsyms_serve.h"
#include "kcore_synth.h"

#define KCORE_API	__attribute__((visibility("default")))
/* Static TLS: no allocation on first use, so usable in a handler. */
#define TLS		__thread __attribute__((tls_model("initial-exec")))

/* fds at or above this are not followed: they read through the kernel. */
#define KCORE_FD_MAX	1024
/* Larger reads go to the kernel: they are rare and already amortized. */
#define SERVE_MAX	KMEM_RO_READV_MAX_BYTES
#define NO_PADDR	UINT64_MAX
#define PHDR_MAX	(1U << 20)
#define PHDR_CHUNK	32
#define RAM_TRIES	8
#define RAM_FEW		32	/* RAM ranges asked for on the stack */
#define READV_TRIES	64
/* Granule of the writable-buffer cache: no larger than any page size. */
#define WGRAN		4096UL
#define WC_SETS		32	/* a power of two */
#define WC_WAYS		4
#define WR_N		32

#ifndef MREMAP_DONTUNMAP
#define MREMAP_DONTUNMAP 4
#endif

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
 * @pos: the file position, unless @kernel_pos
 * @kernel_pos: stdio, or an fd the shim does not follow, uses the
 *	position: it is the kernel's for good
 * @size: the file's size, as kcore's
 * @data_offset: where the header ends and addresses begin
 * @nr: number of @seg
 * @seg: PT_LOAD segments, sorted by file offset, not overlapping
 * All but @pos and @kernel_pos are set before the file is published and
 * never changed.
 */
struct kshared {
	_Atomic int64_t pos;
	atomic_bool kernel_pos;
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
 * @win: per segment of @sh, what the device's mapping holds of it
 * @len: length of this allocation
 */
struct kfile {
	struct retired node;
	atomic_uint refs;
	struct kshared *sh;
	size_t sh_len;
	struct kdev *dev;
	struct kwin *win;
	size_t len;
};

/* A read-only mapping of one mappable range, rounded inward to pages. */
struct kmap {
	uint64_t start;
	uint64_t len;
	const unsigned char *base;	/* NULL: not mapped, READV only */
};

/**
 * struct kdev - /dev/kmem_ro, opened for the first kcore file
 * @node: for reclaim(); first
 * @fd: for READV; -1 once the program closed it behind our back
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

static _Atomic(struct kfile *) fds[KCORE_FD_MAX];
static _Atomic(struct kdev *) cur_dev;
/* cur_dev's fd, -1 if none: lets close() of other fds skip the shim. */
static atomic_int dev_fd = -1;
/*
 * The process the table describes.  A vfork() child shares our memory but
 * not our fd table: what it closes or dups must not change the parent's.
 */
static atomic_int owner = -1;
static _Atomic(struct retired *) retired;

/*
 * Changes to the address space that may take write access away, numbered:
 * as_gen is the last one's number, changes[] the last CHANGES ranges.  A
 * writer claims a slot (BUSY) or gives up; a number whose slot does not
 * hold it, whole, counts as a change of everything.
 */
#define CHANGES		64	/* a power of two */
#define BUSY		ULONG_MAX

struct change {
	atomic_ulong seq;
	_Atomic uintptr_t lo;
	_Atomic uintptr_t hi;
};

static atomic_ulong as_gen = 1;
static struct change changes[CHANGES];
static uintptr_t page_size = WGRAN;

/*
 * Who is inside the shim: per thread, how deep (calls nested by signal
 * handlers), in a cell only that thread and its handlers write.  A call
 * notes the depth it found and puts it back when it leaves, or when a
 * jump discards it: a step done twice or skipped by a jump never leaves a
 * count behind.  A thread without a cell (more than CELLS at once) blocks
 * signals for its calls and counts in overflow.
 */
#define CELLS	1024

struct cell {
	atomic_uint depth;
	atomic_int tid;		/* 0: free */
};

static struct cell cells[CELLS];
static atomic_uint cells_hi;	/* cells in use are below */
static atomic_uint overflow;
static TLS struct cell *my_cell;

/*
 * Pages this thread knows writable: [lo, hi) where a READV wrote, valid
 * while no change since number gen met them; set by the first page lo.
 * Written only by
 * this thread and the handlers that interrupt it: seq is odd during a
 * write, and a reader that sees it change (a handler wrote meanwhile) does
 * not trust what it read.  A write left by a jump leaves its entry unused
 * for good.
 */
struct wentry {
	unsigned int seq;
	uintptr_t lo;
	uintptr_t hi;
	unsigned long gen;
};

static TLS volatile struct wentry wc[WC_SETS][WC_WAYS];
static TLS unsigned int wc_victim;
/* Anonymous writable memory this thread mapped itself (allocators' arenas). */
static TLS volatile struct wentry wr[WR_N];
static TLS unsigned int wr_next;

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
	ssize_t (*preadv)(int, const struct iovec *, int, off_t);
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
} real;

static pthread_once_t real_once = PTHREAD_ONCE_INIT;

static void atfork_prepare(void);
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
	RESOLVE(preadv, "preadv");
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
	pthread_atfork(atfork_prepare, NULL, atfork_child);
}

/*
 * real.F, resolved on first use (another library's constructor may call us
 * before ours runs; after that, pthread_once() is a load and a compare).
 * A symbol this libc lacks: the program could not have linked against it
 * either, but fail cleanly with ENOSYS all the same.
 */
#define REAL(F) (pthread_once(&real_once, resolve), real.F)
#define CALL_REAL(F, FAIL, ...) \
	(REAL(F) ? real.F(__VA_ARGS__) : (errno = ENOSYS, (FAIL)))

__attribute__((constructor)) static void kcore_preload_init(void)
{
	pthread_once(&real_once, resolve);
}

/* ---- memory and its reclamation ------------------------------------------ */

/* malloc() is not async-signal-safe: whole pages from the kernel. */
static void *page_alloc(size_t len, bool shared)
{
	void *p = CALL_REAL(mmap, MAP_FAILED, NULL, len, PROT_READ | PROT_WRITE,
			    (shared ? MAP_SHARED : MAP_PRIVATE) | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static void page_free(const void *p, size_t len)
{
	CALL_REAL(munmap, -1, (void *)p, len);
}

static void retire(struct retired *r)
{
	struct retired *head = atomic_load(&retired);

	do
		r->next = head;
	while (!atomic_compare_exchange_weak(&retired, &head, r));
}

/* For the few steps that change the table: no handler in between. */
static void block_signals(sigset_t *old)
{
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, old);
}

static void restore_signals(const sigset_t *old)
{
	pthread_sigmask(SIG_SETMASK, old, NULL);
}

static bool anyone_inside(void)
{
	unsigned int hi = atomic_load(&cells_hi);

	if (atomic_load(&overflow))
		return true;
	for (unsigned int i = 0; i < hi; i++)
		if (atomic_load(&cells[i].depth))
			return true;
	return false;
}

/*
 * Unmap what was retired if no call is inside the shim: any call that can
 * still reach an object came in before it was retired.  Else put it back
 * for the last one out; loop in case that one left meanwhile.
 */
static void reclaim(void)
{
	struct retired *list, *last, *head;
	int saved = errno;

	while ((list = atomic_exchange(&retired, NULL))) {
		if (!anyone_inside()) {
			while (list) {
				struct retired *next = list->next;

				list->free(list);
				list = next;
			}
			continue;
		}
		for (last = list; last->next; last = last->next)
			;
		head = atomic_load(&retired);
		do
			last->next = head;
		while (!atomic_compare_exchange_weak(&retired, &head, list));
		if (anyone_inside())
			break;
	}
	errno = saved;
}

/* This thread's cell: a free one, or one whose thread has exited. */
static struct cell *cell_get(void)
{
	unsigned int i, hi;
	int me, t, saved;

	if (my_cell)
		return my_cell;
	me = gettid();
	for (i = 0; i < CELLS; i++) {
		t = 0;
		if (!atomic_load(&cells[i].tid) &&
		    atomic_compare_exchange_strong(&cells[i].tid, &t, me))
			goto found;
	}
	saved = errno;
	for (i = 0; i < CELLS; i++) {
		t = atomic_load(&cells[i].tid);
		if (!atomic_load(&cells[i].depth) && t != me &&
		    syscall(SYS_tgkill, getpid(), t, 0) && errno == ESRCH &&
		    atomic_compare_exchange_strong(&cells[i].tid, &t, me))
			break;
	}
	errno = saved;
	if (i == CELLS)
		return NULL;
found:
	hi = atomic_load(&cells_hi);
	while (hi <= i && !atomic_compare_exchange_weak(&cells_hi, &hi, i + 1))
		;
	my_cell = &cells[i];
	return my_cell;
}

/* A call inside the shim: what it found stays mapped until it leaves. */
struct in_shim {
	struct _pthread_cleanup_buffer cb;
	struct cell *cell;	/* NULL: counted in overflow, signals blocked */
	unsigned int base;	/* depth before this call */
	sigset_t old;
};

static void left(struct in_shim *c)
{
	atomic_store(&c->cell->depth, c->base);
	if (!c->base && atomic_load(&retired))
		reclaim();
}

/* glibc runs this for a frame a siglongjmp() or cancellation discards. */
static void left_by_jump(void *arg)
{
	left(arg);
}

static void enter(struct in_shim *c)
{
	c->cell = cell_get();
	if (!c->cell) {
		block_signals(&c->old);
		atomic_fetch_add(&overflow, 1);
		return;
	}
	c->base = atomic_load_explicit(&c->cell->depth, memory_order_relaxed);
	if (real.cleanup_push)
		real.cleanup_push(&c->cb, left_by_jump, c);
	atomic_store(&c->cell->depth, c->base + 1);
}

static void leave(struct in_shim *c)
{
	if (!c->cell) {
		if (atomic_fetch_sub(&overflow, 1) == 1 && atomic_load(&retired))
			reclaim();
		restore_signals(&c->old);
		return;
	}
	left(c);
	if (real.cleanup_push)
		real.cleanup_pop(&c->cb, 0);
}

/* ---- buffers known writable ------------------------------------------------ */

/* [addr, addr + len) in whole pages, everything if that wraps. */
static void as_changed(const void *addr, size_t len)
{
	uintptr_t lo = (uintptr_t)addr & ~(page_size - 1), hi;
	unsigned long g = atomic_fetch_add(&as_gen, 1) + 1, s;
	struct change *c = &changes[g % CHANGES];

	if (__builtin_add_overflow((uintptr_t)addr, len, &hi) ||
	    hi > UINTPTR_MAX - page_size) {
		lo = 0;
		hi = UINTPTR_MAX;
	} else {
		hi = (hi + page_size - 1) & ~(page_size - 1);
	}
	s = atomic_load(&c->seq);
	if (s == BUSY || !atomic_compare_exchange_strong(&c->seq, &s, BUSY))
		return;
	atomic_store_explicit(&c->lo, lo, memory_order_relaxed);
	atomic_store_explicit(&c->hi, hi, memory_order_relaxed);
	atomic_store(&c->seq, g);
}

static void as_changed_all(void)
{
	as_changed(NULL, SIZE_MAX);
}

/* No change after number from, up to now, met [lo, hi). */
static bool unchanged(uintptr_t lo, uintptr_t hi, unsigned long from,
		      unsigned long now)
{
	if (now - from >= CHANGES)
		return false;
	for (unsigned long g = from + 1; g - from <= now - from; g++) {
		struct change *c = &changes[g % CHANGES];
		uintptr_t clo, chi;

		if (atomic_load(&c->seq) != g)
			return false;
		clo = atomic_load_explicit(&c->lo, memory_order_relaxed);
		chi = atomic_load_explicit(&c->hi, memory_order_relaxed);
		atomic_thread_fence(memory_order_acquire);
		if (atomic_load_explicit(&c->seq, memory_order_relaxed) != g ||
		    (clo < hi && lo < chi))
			return false;
	}
	return true;
}

/* The granules buf..buf+n touches; false if that wraps. */
static bool span(const void *buf, size_t n, uintptr_t *lo, uintptr_t *hi)
{
	uintptr_t a = (uintptr_t)buf, e;

	if (__builtin_add_overflow(a, n, &e) || e > UINTPTR_MAX - WGRAN)
		return false;
	*lo = a & ~(WGRAN - 1);
	*hi = (e + WGRAN - 1) & ~(WGRAN - 1);
	return true;
}

/* Hashed: buffers at the same offset of 1 MiB arenas must not collide. */
static volatile struct wentry *wc_set(uintptr_t lo)
{
	uint64_t h = (uint64_t)(lo / WGRAN) * 0x9e3779b97f4a7c15ULL;

	return wc[h >> (64 - __builtin_ctz(WC_SETS))];
}

/* Write an entry; not into one whose writing this call interrupted. */
static void went_set(volatile struct wentry *e, uintptr_t lo, uintptr_t hi,
		     unsigned long gen)
{
	unsigned int seq = e->seq;

	if (seq & 1)
		return;
	e->seq = seq + 1;
	atomic_signal_fence(memory_order_seq_cst);
	e->lo = lo;
	e->hi = hi;
	e->gen = gen;
	atomic_signal_fence(memory_order_seq_cst);
	e->seq = seq + 2;
}

/*
 * One of the n entries from e holds [lo, hi) and is still good at change
 * number gen.  An entry found good after later changes is brought up to
 * gen; a handler that rewrote it meanwhile verified at gen or later, so
 * an older gen is only cautious.
 */
static bool went_find(volatile struct wentry *e, unsigned int n, uintptr_t lo,
		      uintptr_t hi, unsigned long gen)
{
	for (; n--; e++) {
		unsigned int seq = e->seq;
		uintptr_t elo, ehi;
		unsigned long egen;

		atomic_signal_fence(memory_order_seq_cst);
		elo = e->lo;
		ehi = e->hi;
		egen = e->gen;
		atomic_signal_fence(memory_order_seq_cst);
		if ((seq & 1) || e->seq != seq || lo < elo || hi > ehi)
			continue;
		if (egen == gen)
			return true;
		if (!unchanged(elo, ehi, egen, gen))
			continue;
		if (e->seq == seq)
			went_set(e, elo, ehi, gen);
		return true;
	}
	return false;
}

/* Into a way whose entry is stale, else the next in turn. */
static void wc_add(uintptr_t lo, uintptr_t hi, unsigned long gen)
{
	volatile struct wentry *set = wc_set(lo), *e = NULL;

	for (unsigned int w = 0; w < WC_WAYS && !e; w++)
		if (gen - set[w].gen >= CHANGES)
			e = &set[w];
	went_set(e ? e : &set[wc_victim++ % WC_WAYS], lo, hi, gen);
}

/* [lo, hi) known writable at change number gen; the page cache learns it. */
static bool known_writable(uintptr_t lo, uintptr_t hi, unsigned long gen)
{
	if (went_find(wc_set(lo), WC_WAYS, lo, hi, gen))
		return true;
	if (!went_find(wr, WR_N, lo, hi, gen))
		return false;
	wc_add(lo, hi, gen);
	return true;
}

/*
 * This thread mapped [lo, hi) anonymous and writable: grow an entry it
 * touches that is still good, else take the next.
 */
static void wr_add(uintptr_t lo, uintptr_t hi)
{
	unsigned long gen = atomic_load_explicit(&as_gen, memory_order_acquire);

	for (unsigned int i = 0; i < WR_N; i++) {
		volatile struct wentry *e = &wr[i];
		unsigned int seq = e->seq;
		uintptr_t elo, ehi;
		unsigned long egen;

		atomic_signal_fence(memory_order_seq_cst);
		elo = e->lo;
		ehi = e->hi;
		egen = e->gen;
		atomic_signal_fence(memory_order_seq_cst);
		if ((seq & 1) || e->seq != seq || elo == ehi || ehi < lo || hi < elo ||
		    !unchanged(elo, ehi, egen, gen))
			continue;
		if (e->seq == seq)
			went_set(e, elo < lo ? elo : lo, ehi > hi ? ehi : hi, gen);
		return;
	}
	went_set(&wr[wr_next++ % WR_N], lo, hi, gen);
}

/* ---- serving reads ---------------------------------------------------- */

/* One READV segment straight into buf: bytes read (short if a later page
 * failed), or a negative errno. */
static int64_t readv_some(int fd, uint64_t vaddr, void *buf, size_t n)
{
	struct kmem_ro_iov iov = {
		.addr = vaddr,
		.len = n,
		.buf = (uintptr_t)buf,
	};

	for (int tries = 0; tries < READV_TRIES; tries++) {
		struct kmem_ro_readv arg = {
			.size = sizeof(arg),
			.iov_addr = (uintptr_t)&iov,
			.iov_count = 1,
		};

		if (ioctl(fd, KMEM_RO_IOC_READV, &arg) < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (arg.done == 1)	/* else a signal came first: again */
			return iov.result;
	}
	return -EINTR;
}

/* What the file holds at off, and how far that lasts: the segment, or
 * NULL with *len cut at the next segment (the header, or a hole). */
static const struct kseg *piece(const struct kshared *sh, uint64_t off,
				size_t *len)
{
	unsigned int lo = 0, hi = sh->nr;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (sh->seg[mid].end <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* seg[lo] is the first segment that ends after off */
	if (lo < sh->nr && sh->seg[lo].off <= off) {
		if (*len > sh->seg[lo].end - off)
			*len = sh->seg[lo].end - off;
		return &sh->seg[lo];
	}
	if (lo < sh->nr && *len > sh->seg[lo].off - off)
		*len = sh->seg[lo].off - off;
	return NULL;
}

/*
 * Segment bytes [off, off + n) into buf, as kcore reads them: from the
 * mapping into pages known writable, else READV; a page the device will
 * not read is zeros (kcore: read_kcore_iter() zeroes what it cannot
 * copy), taken from the memfd's hole at the same offset so that an
 * unwritable buffer fails with EFAULT as kcore's copy does.  n, or -1
 * with errno (EFAULT: the whole read fails, as kcore's).
 */
static ssize_t seg_read(int fd, const struct kfile *kf, const struct kseg *s,
			unsigned char *buf, size_t n, uint64_t off)
{
	const struct kdev *d = kf->dev;
	const struct kwin *w = &kf->win[s - kf->sh->seg];
	uint64_t vaddr = s->vaddr + (off - s->off);
	unsigned long gen = 0;
	uintptr_t lo = 0, hi = 0;
	size_t done = 0;
	bool known = true;	/* READV only: nothing to learn */
	int dfd;

	if (vaddr >= w->lo && vaddr < w->hi && n <= w->hi - vaddr) {
		if (!span(buf, n, &lo, &hi)) {
			errno = EFAULT;
			return -1;
		}
		gen = atomic_load_explicit(&as_gen, memory_order_acquire);
		known = known_writable(lo, hi, gen);
		if (known) {
			memcpy(buf, w->base + (vaddr - w->lo), n);
			return (ssize_t)n;
		}
	}
	dfd = atomic_load(&d->fd);
	while (done < n) {
		int64_t r = dfd < 0 ? -EBADF : readv_some(dfd, vaddr + done, buf + done, n - done);
		size_t z;
		ssize_t got;

		if (r > 0) {
			done += (size_t)r;
			continue;
		}
		/* the page at vaddr + done failed: zeros up to its end */
		z = d->info.page_size - ((vaddr + done) & (d->info.page_size - 1));
		if (z > n - done)
			z = n - done;
		got = CALL_REAL(pread64, -1, fd, buf + done, z, (off_t)(off + done));
		if (got <= 0)	/* the buffer faulted: all of it, as kcore */
			return -1;
		done += (size_t)got;
	}
	if (!known && done == n)
		wc_add(lo, hi, gen);
	return (ssize_t)done;
}

/*
 * pread(fd, buf, n, off) of the kcore fd names: header and holes from
 * the memfd (zeros past the header), segments from the device.  Bytes
 * read (0 at the end), or -1 with errno, as kcore's read; inside the
 * shim.
 */
static ssize_t synth_pread(int fd, const struct kfile *kf, void *buf, size_t n,
			   uint64_t off)
{
	const struct kshared *sh = kf->sh;
	unsigned char *p = buf;
	size_t done = 0;

	if (off >= sh->size)
		return 0;
	if (n > sh->size - off)
		n = (size_t)(sh->size - off);
	while (done < n) {
		uint64_t o = off + done;
		size_t len = n - done;
		const struct kseg *s;
		ssize_t got;

		if (len > SERVE_MAX)
			len = SERVE_MAX;
		if (o < sh->data_offset) {
			s = NULL;
			if (len > sh->data_offset - o)
				len = (size_t)(sh->data_offset - o);
		} else {
			s = piece(sh, o, &len);
		}
		if (s)
			got = seg_read(fd, kf, s, p + done, len, o);
		else
			got = CALL_REAL(pread64, -1, fd, p + done, len, (off_t)o);
		if (got < 0 && errno == EINTR)
			continue;
		/* kcore fails the whole read when a copy faults (EFAULT) */
		if (got < 0)
			return -1;
		if (!got)
			break;
		done += (size_t)got;
	}
	return (ssize_t)done;
}

static bool maybe_tracked(int fd)
{
	return fd >= 0 && fd < KCORE_FD_MAX &&
	       atomic_load_explicit(&fds[fd], memory_order_relaxed);
}

/* The kfile fd names; inside the shim. */
static struct kfile *file_of(int fd)
{
	if (fd < 0 || fd >= KCORE_FD_MAX)
		return NULL;
	return atomic_load(&fds[fd]);
}

/* pread() of a followed fd: *served false for any other fd. */
static ssize_t try_pread(int fd, void *buf, size_t n, off_t off, bool *served)
{
	struct in_shim c;
	struct kfile *kf;
	ssize_t ret = -1;
	int saved, err = 0;

	*served = false;
	if (!maybe_tracked(fd))
		return -1;
	saved = errno;
	enter(&c);
	kf = file_of(fd);
	if (kf) {
		*served = true;
		if (off < 0) {
			err = EINVAL;
		} else {
			ret = synth_pread(fd, kf, buf, n, (uint64_t)off);
			err = ret < 0 ? errno : 0;
		}
	}
	leave(&c);
	errno = err ? err : saved;
	return ret;
}
/* ---- the file position ------------------------------------------------ */

static bool kernel_pos(const struct kfile *kf)
{
	return atomic_load(&kf->sh->kernel_pos);
}

/* Tell the kernel the position, for those who ask it (close, fork, ...). */
static void write_back(int fd, const struct kfile *kf)
{
	int saved = errno;

	if (!kernel_pos(kf))
		CALL_REAL(lseek, -1, fd, (off_t)atomic_load(&kf->sh->pos), SEEK_SET);
	errno = saved;
}

/* Someone who reads the kernel's position shares it: it is theirs now. */
static void to_kernel_pos(int fd, struct kfile *kf)
{
	write_back(fd, kf);
	atomic_store(&kf->sh->kernel_pos, true);
}

/*
 * Bytes at the position, which moves by what was read: the reads of two
 * threads or processes take turns as under the kernel's f_pos lock.  Once
 * the position is the kernel's (stdio, an fd we do not follow), it is
 * read and moved there.
 */
static ssize_t pos_read(int fd, void *buf, size_t n)
{
	struct in_shim c;
	struct kfile *kf;
	int64_t p;
	ssize_t ret;
	int saved;

	if (!maybe_tracked(fd))
		return CALL_REAL(read, -1, fd, buf, n);
	saved = errno;
	enter(&c);
	kf = file_of(fd);
	if (!kf) {
		leave(&c);
		return CALL_REAL(read, -1, fd, buf, n);
	}
	if (kernel_pos(kf)) {
		p = CALL_REAL(lseek64, -1, fd, 0, SEEK_CUR);
		ret = p < 0 ? -1 : synth_pread(fd, kf, buf, n, (uint64_t)p);
		if (ret > 0)
			CALL_REAL(lseek64, -1, fd, p + ret, SEEK_SET);
	} else {
		do {
			p = atomic_load(&kf->sh->pos);
			ret = synth_pread(fd, kf, buf, n, (uint64_t)p);
		} while (ret > 0 &&
			 !atomic_compare_exchange_strong(&kf->sh->pos, &p, p + ret));
	}
	if (ret >= 0)
		errno = saved;
	leave(&c);
	return ret;
}

/* lseek of either width (off_t and off64_t are one type on LP64). */
static off_t pos_seek(int fd, off_t off, int whence,
		      off_t (*seek)(int, off_t, int))
{
	struct in_shim c;
	struct kfile *kf;
	int64_t p, np;
	off_t ret;

	if (!maybe_tracked(fd))
		return seek(fd, off, whence);
	enter(&c);
	kf = file_of(fd);
	if (!kf || kernel_pos(kf)) {
		leave(&c);
		return seek(fd, off, whence);
	}
	if (whence == SEEK_SET && off >= 0) {
		atomic_store(&kf->sh->pos, off);
		ret = off;
	} else if (whence == SEEK_CUR) {
		p = atomic_load(&kf->sh->pos);
		for (;;) {
			/* The kernel's answer too: EINVAL below 0 or past the top. */
			if (__builtin_add_overflow(p, (int64_t)off, &np) || np < 0) {
				errno = EINVAL;
				ret = -1;
				break;
			}
			if (!off || atomic_compare_exchange_weak(&kf->sh->pos, &p, np)) {
				ret = np;
				break;
			}
		}
	} else {
		/* SEEK_END, SEEK_DATA/HOLE, errors: not from the position. */
		ret = seek(fd, off, whence);
		if (ret >= 0)
			atomic_store(&kf->sh->pos, ret);
	}
	leave(&c);
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

static void kfile_free(struct retired *r)
{
	struct kfile *kf = (struct kfile *)r;

	page_free(kf->sh, kf->sh_len);
	page_free(kf, kf->len);
}

static void dev_unmap(struct kdev *d);

static void dev_free(struct retired *r)
{
	struct kdev *d = (struct kdev *)r;
	int fd = atomic_load(&d->fd);

	dev_unmap(d);
	if (fd >= 0)
		CALL_REAL(close, -1, fd);
	page_free(d, d->len);
}

static void dev_retire(struct kdev *d)
{
	struct kdev *cur = d;
	int fd = atomic_load(&d->fd);

	atomic_compare_exchange_strong(&cur_dev, &cur, NULL);
	if (fd >= 0)
		atomic_compare_exchange_strong(&dev_fd, &fd, -1);
	retire(&d->node);
}

/* An fd no longer names kf. */
static void put_file(struct kfile *kf)
{
	if (atomic_fetch_sub(&kf->refs, 1) != 1)
		return;
	if (atomic_fetch_sub(&kf->dev->files, 1) == 1)
		dev_retire(kf->dev);
	retire(&kf->node);
}

/* Another reference to what kf or d already has one of; false if none left. */
static bool get_ref(atomic_uint *refs)
{
	unsigned int r = atomic_load(refs);

	while (r && !atomic_compare_exchange_weak(refs, &r, r + 1))
		;
	return r;
}

/* Forget fd (closed or about to be). */
static void drop(int fd, bool want_write_back)
{
	struct in_shim c;
	struct kfile *kf;
	struct kdev *d;
	sigset_t old;
	int saved;

	if (fd < 0 || (!maybe_tracked(fd) &&
		       fd != atomic_load_explicit(&dev_fd, memory_order_relaxed)) ||
	    !owner_calls())
		return;
	saved = errno;
	block_signals(&old);
	enter(&c);
	/*
	 * The program closes our device fd (closefrom() before exec, say):
	 * the mapping stays, READV is gone, and we must never close the
	 * number again - it may be the program's by then.
	 */
	d = atomic_load(&cur_dev);
	if (d && atomic_load(&d->fd) == fd) {
		atomic_store(&d->fd, -1);
		atomic_store(&dev_fd, -1);
	}
	kf = fd < KCORE_FD_MAX ? atomic_exchange(&fds[fd], NULL) : NULL;
	if (kf) {
		/* A description inherited over exec keeps the program's position. */
		if (want_write_back)
			write_back(fd, kf);
		put_file(kf);
	}
	leave(&c);
	restore_signals(&old);
	errno = saved;
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

/* qsort() may malloc(): a heapsort by file offset. */
static void sift(struct kseg *a, size_t i, size_t n)
{
	for (;;) {
		size_t c = 2 * i + 1;
		struct kseg t;

		if (c >= n)
			return;
		if (c + 1 < n && a[c + 1].off > a[c].off)
			c++;
		if (a[i].off >= a[c].off)
			return;
		t = a[i];
		a[i] = a[c];
		a[c] = t;
		i = c;
	}
}

static void sort_segs(struct kseg *a, size_t n)
{
	size_t i;

	for (i = n / 2; i-- > 0;)
		sift(a, i, n);
	for (i = n; i-- > 1;) {
		struct kseg t = a[0];

		a[0] = a[i];
		a[i] = t;
		sift(a, 0, i);
	}
}

/* The driver's System RAM list, sorted, in pages of ours; NULL on failure. */
static struct kmem_ro_range *ram_list(int fd, struct kmem_ro_info *in,
				      unsigned int *nr, size_t *len)
{
	struct kmem_ro_range *ram = NULL;
	unsigned int cap = 0;

	for (int tries = 0; tries < RAM_TRIES; tries++) {
		struct kmem_ro_info arg = {
			.size = sizeof(arg),
			.ram_addr = (uintptr_t)ram,
			.ram_cap = cap,
		};

		if (ioctl(fd, KMEM_RO_IOC_INFO, &arg) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (arg.ram_count <= cap) {
			*in = arg;
			*nr = arg.ram_count;
			/* Insertion sort: a few ranges, and no malloc(). */
			for (unsigned int i = 1; i < *nr; i++)
				for (unsigned int j = i;
				     j && ram[j].start < ram[j - 1].start; j--) {
					struct kmem_ro_range t = ram[j];

					ram[j] = ram[j - 1];
					ram[j - 1] = t;
				}
			for (unsigned int i = 0; i < *nr; i++)
				if (ram[i].end <= ram[i].start)	/* counted, not written */
					goto fail;
			if (!ram)
				return (*len = 1, page_alloc(1, false));
			*len = cap * sizeof(*ram);
			return ram;
		}
		if (ram)
			page_free(ram, cap * sizeof(*ram));
		cap = arg.ram_count;
		ram = page_alloc(cap * sizeof(*ram), false);
		if (!ram)
			return NULL;
	}
fail:
	if (ram)
		page_free(ram, cap * sizeof(*ram));
	return NULL;
}

/* Map range i of d rounded inward to pages; -errno of mmap(), 0 if done. */
static int dev_map_range(struct kdev *d, unsigned int i, int fd)
{
	uint64_t mask = (uint64_t)d->info.page_size - 1;
	const struct kmem_ro_range *r = &d->range[i];
	uint64_t start = r->start > UINT64_MAX - mask ? UINT64_MAX : (r->start + mask) & ~mask;
	uint64_t end = r->end & ~mask;
	void *p;

	if (end <= start || start > (uint64_t)INT64_MAX || end - start > SIZE_MAX)
		return 0;
	p = CALL_REAL(mmap, MAP_FAILED, NULL, end - start, PROT_READ, MAP_SHARED, fd,
		      (off_t)start);
	if (p == MAP_FAILED)
		return -errno;
	as_changed(p, end - start);	/* read-only where a buffer may have been */
	d->map[i] = (struct kmap){ .start = start, .len = end - start, .base = p };
	return 0;
}

static struct kdev *dev_alloc(const struct kmem_ro_info *in, unsigned int n)
{
	size_t len = sizeof(struct kdev) +
		     n * (sizeof(struct kmem_ro_range) + sizeof(struct kmap));
	struct kdev *d = page_alloc(len, false);

	if (!d)
		return NULL;
	d->len = len;
	d->info = *in;
	d->range = (struct kmem_ro_range *)(d + 1);
	d->map = (struct kmap *)(d->range + n);
	return d;
}

static void dev_unmap(struct kdev *d)
{
	for (unsigned int i = 0; i < d->nr; i++)
		if (d->map[i].base)
			page_free(d->map[i].base, d->map[i].len);
}

/*
 * Open the device, shake hands and map what may be mapped: all System RAM,
 * or (mmap_ram=0) the text only.  Signals are blocked.
 */
static struct kdev *dev_new(void)
{
	struct kmem_ro_range *ram;
	struct kmem_ro_info in;
	struct kdev *d = NULL;
	unsigned int nr = 0, i;
	size_t ram_len = 0;
	struct stat st;
	int fd;

	fd = CALL_REAL(open, -1, KMEM_RO_DEVICE, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || !S_ISCHR(st.st_mode))
		goto out_close;
	ram = ram_list(fd, &in, &nr, &ram_len);
	if (!ram)
		goto out_close;
	if (in.abi_version < 1 || !(in.ioctls & (1ULL << _IOC_NR(KMEM_RO_IOC_INFO))) ||
	    !(in.features & KMEM_RO_FEAT_READV))
		goto out_ram;
	if (in.features & KMEM_RO_FEAT_MMAP_RAM) {
		d = dev_alloc(&in, nr);
		if (!d)
			goto out_ram;
		memcpy(d->range, ram, nr * sizeof(*ram));
		d->nr = nr;
		for (i = 0; i < nr && dev_map_range(d, i, fd) != -EPERM; i++)
			;
		if (i < nr) {	/* mmap_ram=0 since the handshake */
			dev_unmap(d);
			page_free(d, d->len);
			d = NULL;
		}
	}
	if (!d) {
		d = dev_alloc(&in, 1);
		if (!d)
			goto out_ram;
		if ((in.features & KMEM_RO_FEAT_MMAP_TEXT) &&
		    !kmemdev__text_range(&in, &d->range[0])) {
			d->nr = 1;
			dev_map_range(d, 0, fd);
		}
	}
	page_free(ram, ram_len);
	atomic_init(&d->fd, fd);
	atomic_init(&d->files, 1);
	d->node.free = dev_free;
	return d;

out_ram:
	page_free(ram, ram_len);
out_close:
	CALL_REAL(close, -1, fd);
	return NULL;
}

/* The device for one more file (a reference); inside the shim. */
static struct kdev *dev_get(void)
{
	for (;;) {
		struct kdev *d = atomic_load(&cur_dev), *none = NULL;

		if (d) {
			if (get_ref(&d->files))
				return d;
			/* Its last file went: whoever retires it clears this too. */
			atomic_compare_exchange_strong(&cur_dev, &d, NULL);
			continue;
		}
		d = dev_new();
		if (!d)
			return NULL;
		if (atomic_compare_exchange_strong(&cur_dev, &none, d)) {
			atomic_store(&dev_fd, atomic_load(&d->fd));
			return d;
		}
		dev_free(&d->node);	/* another thread was first */
	}
}

/* Named @name, opened for reading (O_PATH opens are left alone). */
static bool named(const char *path, int flags, const char *name)
{
	const char *base;

	if ((flags & O_ACCMODE) != O_RDONLY || (flags & O_PATH) || !path)
		return false;
	base = strrchr(path, '/');
	return !strcmp(base ? base + 1 : path, name);
}

/* dirfd/path is procfs's kcore: the only file procfs names kcore. */
static bool is_proc_kcore(int dirfd, const char *path)
{
	struct statfs sfs;
	bool yes;
	int fd;

	if (path[0] == '/' || dirfd == AT_FDCWD)
		return !statfs(path, &sfs) && sfs.f_type == PROC_SUPER_MAGIC;
	fd = CALL_REAL(openat, -1, dirfd, path, O_PATH | O_CLOEXEC, 0);
	if (fd < 0)
		return false;
	yes = !CALL_REAL(fstatfs, -1, fd, &sfs) && sfs.f_type == PROC_SUPER_MAGIC;
	CALL_REAL(close, -1, fd);
	return yes;
}

/* A small file's first line (cut at its newline) into buf; false if none. */
static bool read_line(const char *path, char *buf, size_t cap)
{
	int fd = CALL_REAL(open, -1, path, O_RDONLY | O_CLOEXEC, 0);
	ssize_t n;

	if (fd < 0)
		return false;
	n = CALL_REAL(read, -1, fd, buf, cap - 1);
	CALL_REAL(close, -1, fd);
	if (n <= 0)
		return false;
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return true;
}

static int synth_read_fn(void *arg, uint64_t kaddr, void *buf, size_t len)
{
	int64_t r = readv_some(*(int *)arg, kaddr, buf, len);

	return r == (int64_t)len ? 0 : r < 0 ? (int)r : -EFAULT;
}

/*
 * The header in a sealed memfd of the file's size (reads past the header
 * are zeros: a hole).  Read-write, unlike kcore's fd, but sealed against
 * writes.
 */
static int synth_file(const unsigned char *hdr, size_t len, uint64_t size,
		      int flags)
{
	size_t done = 0;
	int fd = (int)syscall(SYS_memfd_create, "kcore",
			      ((flags & O_CLOEXEC) ? MFD_CLOEXEC : 0) | MFD_ALLOW_SEALING);

	if (fd < 0)
		return -1;
	while (done < len) {
		ssize_t n = pwrite(fd, hdr + done, len - done, (off_t)done);

		if (n <= 0 && errno != EINTR)
			goto fail;
		if (n > 0)
			done += (size_t)n;
	}
	if (size <= INT64_MAX && !ftruncate(fd, (off_t)size) &&
	    !CALL_REAL(fcntl, -1, fd, F_ADD_SEALS,
		       F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL))
		return fd;
fail:
	CALL_REAL(close, -1, fd);
	return -1;
}

/* Layout inputs fixed for the boot: found once per device (racing
 * threads find the same). */
static void *synth_alloc(size_t len)
{
	return page_alloc(len, false);
}

static int synth_bounds(struct kdev *d, struct kcore_synth *k, int dfd)
{
	static const struct kcore_synth_mem mem = { synth_alloc, page_free };
	int err;

	char line[128];
	uint64_t task = 0;

	if (atomic_load(&d->bounds))
		goto out;
	/* arch_task_struct_size: the task_struct cache's object size (never merged) */
	if (read_line("/sys/kernel/slab/task_struct/object_size", line, sizeof(line)))
		for (const char *c = line; *c >= '0' && *c <= '9' && task < UINT32_MAX; c++)
			task = task * 10 + (uint64_t)(*c - '0');
	d->task_size = task < UINT32_MAX ? (uint32_t)task : 0;
	/* strscpy() of saved_command_line, which /proc/cmdline shows */
	if (read_line("/proc/cmdline", line, sizeof(line)))
		memcpy(d->psargs, line, strnlen(line, sizeof(d->psargs) - 1));
	err = kmemdev__kcore_synth_bounds(k, d->info.page_size, synth_read_fn, &dfd,
					  &mem);
	if (err)
		return err;
	d->image_end = k->image_end;
	d->vmemmap = k->vmemmap;
	atomic_store(&d->bounds, true);
out:
	k->image_end = d->image_end;
	k->vmemmap = d->vmemmap;
	k->task_size = d->task_size;
	memcpy(k->psargs, d->psargs, sizeof(k->psargs));
	return 0;
}

/*
 * Where the device's mapping holds segment s: the part of [a, b) (its
 * addresses that may come from the mapping) that one mapped range holds,
 * phys = vaddr - delta.  RAM: the whole segment.  The image: its text
 * only; past the text the image has holes the kernel freed (init, the
 * gaps around rodata): kcore reads them as zeros through the unmapped
 * image address, a mapping of their physical pages would show whatever
 * reuses them.  READV reads the image address too.
 */
static struct kwin seg_window(const struct kdev *d, const struct kseg *s, uint64_t size)
{
	const struct kmem_ro_info *in = &d->info;
	uint64_t a = s->vaddr, b = s->vaddr + size, delta;

	if (s->kind == SEG_RAM) {
		delta = in->page_offset;
	} else if (s->kind == SEG_IMAGE && in->text_start < in->text_end) {
		delta = in->kernel_map - in->phys_base;
		a = a > in->text_start ? a : in->text_start;
		b = b < in->text_end ? b : in->text_end;
	} else {
		return (struct kwin){ 0 };
	}
	for (unsigned int i = 0; a < b && i < d->nr; i++) {
		const struct kmap *m = &d->map[i];
		uint64_t lo = a - delta, hi = b - delta;

		if (!m->base)
			continue;
		lo = lo > m->start ? lo : m->start;
		hi = hi < m->start + m->len ? hi : m->start + m->len;
		if (lo < hi)
			return (struct kwin){ lo + delta, hi + delta, m->base + (lo - m->start) };
	}
	return (struct kwin){ 0 };
}

/* The kfile for sh read through d, its windows found; NULL if out of memory. */
static struct kfile *kfile_new(struct kdev *d, struct kshared *sh, size_t sh_len)
{
	size_t len = sizeof(struct kfile) + sh->nr * sizeof(struct kwin);
	struct kfile *kf = page_alloc(len, false);

	if (!kf)
		return NULL;
	kf->len = len;
	kf->win = (struct kwin *)(kf + 1);
	for (unsigned int i = 0; i < sh->nr; i++)
		kf->win[i] = seg_window(d, &sh->seg[i], sh->seg[i].end - sh->seg[i].off);
	atomic_init(&kf->refs, 1);
	kf->sh = sh;
	kf->sh_len = sh_len;
	kf->dev = d;
	kf->node.free = kfile_free;
	return kf;
}

/*
 * The kcore this device serves (kcore_synth.c): its segments in a
 * MAP_SHARED page (*shp, *lenp), its header in the file returned; -1 with
 * errno (EPERM: the device refuses reads, as kcore under lockdown).
 */
static int synth_new(struct kdev *d, int flags, struct kshared **shp, size_t *lenp)
{
	const struct kmem_ro_info *in = &d->info;
	struct kcore_synth k = { 0 };
	struct kmem_ro_range few[RAM_FEW], *ram = few;
	struct kmem_ro_info now = {
		.size = sizeof(now),
		.ram_addr = (uintptr_t)few,
		.ram_cap = RAM_FEW,
	};
	struct kshared *sh = NULL;
	unsigned char *note = NULL, *hdr = NULL;
	size_t ram_len = 0, work_len = 0, len = 0, hdr_len = 0;
	unsigned int nr = 0;
	int64_t r;
	int dfd = atomic_load(&d->fd), fd = -1, err = ENOMEM;

	if (dfd < 0 || !(in->features & KMEM_RO_FEAT_VMCOREINFO) || !in->vmcoreinfo_size) {
		errno = ENODEV;
		return -1;
	}
	/* the System RAM list now (hotplug): on the stack if it fits */
	if (!ioctl(dfd, KMEM_RO_IOC_INFO, &now) && now.ram_count <= RAM_FEW) {
		nr = now.ram_count;
		for (unsigned int i = 1; i < nr; i++)	/* sorted, as ram_list() */
			for (unsigned int j = i; j && few[j].start < few[j - 1].start; j--) {
				struct kmem_ro_range t = few[j];

				few[j] = few[j - 1];
				few[j - 1] = t;
			}
	} else {
		ram = ram_list(dfd, &now, &nr, &ram_len);
		if (!ram)
			return -1;
	}
	/* the note, then the segments: one allocation */
	work_len = in->vmcoreinfo_size + KCORE_SYNTH_SEGS(nr) * sizeof(*k.seg);
	note = page_alloc(work_len, false);
	if (!note)
		goto out;
	k.seg = (struct kcore_synth_seg *)(note + ((in->vmcoreinfo_size + 7) & ~7U));
	work_len += 8;
	r = readv_some(dfd, in->page_offset + in->vmcoreinfo_addr, note, in->vmcoreinfo_size);
	if (r != (int64_t)in->vmcoreinfo_size) {
		err = r < 0 ? (int)-r : EIO;
		goto out;
	}
	err = EPROTO;
	if (kmemdev__vmcoreinfo_parse(note, in->vmcoreinfo_size, &k.note, &k.note_len))
		goto out;
	if (synth_bounds(d, &k, dfd) || kmemdev__kcore_synth_layout(&k, &now, ram, nr))
		goto out;
	err = ENOMEM;
	hdr_len = k.header_len;
	hdr = page_alloc(hdr_len, false);
	len = sizeof(*sh) + k.nseg * sizeof(sh->seg[0]);
	sh = page_alloc(len, true);
	if (!hdr || !sh)
		goto out;
	kmemdev__kcore_synth_header(&k, hdr);
	for (unsigned int i = 0; i < k.nseg; i++) {
		uint64_t off = kmemdev__kcore_synth_offset(&k, k.seg[i].vaddr);

		sh->seg[i] = (struct kseg){
			.off = off,
			.end = off + k.seg[i].size,
			.vaddr = k.seg[i].vaddr,
			.paddr = k.seg[i].paddr,
		};
		sh->seg[i].kind = seg_kind(in, &sh->seg[i]);
	}
	sort_segs(sh->seg, k.nseg);
	sh->nr = k.nseg;
	sh->size = k.size;
	sh->data_offset = k.data_offset;
	fd = synth_file(hdr, hdr_len, k.size, flags);
	err = errno;
out:
	if (ram != few)
		page_free(ram, ram_len);
	if (note)
		page_free(note, work_len);
	if (hdr)
		page_free(hdr, hdr_len);
	if (fd >= 0) {
		*shp = sh;
		*lenp = len;
		return fd;
	}
	if (sh)
		page_free(sh, len);
	errno = err;
	return -1;
}

/*
 * An open of procfs's kcore: the file this device serves, followed, or
 * NOT_KCORE to let the real call do it (not kcore, no usable device, fds
 * past KCORE_FD_MAX).  EPERM when the device refuses reads (lockdown): so
 * would kcore.
 */
#define NOT_KCORE	(-2)

static int kcore_open(int dirfd, const char *path, int flags)
{
	struct kshared *sh = NULL;
	struct kfile *kf = NULL, *prev;
	struct in_shim c;
	struct kdev *d;
	sigset_t old;
	size_t len = 0;
	int fd = NOT_KCORE, saved = errno, err = 0;

	if (!named(path, flags, "kcore") || !owner_calls() || !is_proc_kcore(dirfd, path)) {
		errno = saved;
		return NOT_KCORE;
	}
	block_signals(&old);
	enter(&c);
	d = dev_get();
	if (d) {
		fd = synth_new(d, flags, &sh, &len);
		kf = fd >= 0 ? kfile_new(d, sh, len) : NULL;
		if (fd < 0) {
			err = errno;
			fd = err == EPERM ? -1 : NOT_KCORE;
		} else if (fd >= KCORE_FD_MAX || !kf) {
			CALL_REAL(close, -1, fd);
			page_free(sh, len);
			if (kf)
				page_free(kf, kf->len);
			fd = NOT_KCORE;
		}
	}
	if (fd >= 0) {
		drop(fd, false);	/* closed behind our back (a raw syscall) */
		atomic_store(&sh->pos, 0);
		prev = atomic_exchange(&fds[fd], kf);
		if (prev)
			put_file(prev);
	} else if (d && atomic_fetch_sub(&d->files, 1) == 1) {
		dev_retire(d);
	}
	leave(&c);
	restore_signals(&old);
	errno = err && fd == -1 ? err : saved;
	return fd;
}

/* A real open*() returned fd: forget what a raw close left behind. */
static int opened(int fd)
{
	if (fd >= 0)
		drop(fd, false);
	return fd;
}

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

/* newfd now names what oldfd names (dup, dup2, dup3, F_DUPFD). */
static int duped(int oldfd, int newfd)
{
	struct kfile *kf, *prev;
	struct in_shim c;
	sigset_t old;
	int saved;

	if (newfd < 0 || newfd == oldfd ||
	    (!maybe_tracked(oldfd) && !maybe_tracked(newfd)) || !owner_calls())
		return newfd;
	saved = errno;
	block_signals(&old);
	enter(&c);
	prev = newfd < KCORE_FD_MAX ? atomic_exchange(&fds[newfd], NULL) : NULL;
	if (prev)
		put_file(prev);
	kf = file_of(oldfd);
	if (kf && newfd < KCORE_FD_MAX) {
		if (get_ref(&kf->refs)) {
			prev = atomic_exchange(&fds[newfd], kf);
			if (prev)
				put_file(prev);
		}
	} else if (kf) {
		/* reads through newfd use the kernel's position from now on */
		to_kernel_pos(oldfd, kf);
	}
	leave(&c);
	restore_signals(&old);
	errno = saved;
	return newfd;
}

/* ---- fork ---------------------------------------------------------------- */

/* For a child that execs: the kernel's positions as the shim's. */
static void atfork_prepare(void)
{
	struct in_shim c;

	enter(&c);
	for (int fd = 0; fd < KCORE_FD_MAX; fd++) {
		struct kfile *kf = file_of(fd);

		if (kf)
			write_back(fd, kf);
	}
	leave(&c);
}

/*
 * The child has one thread, under a new tid: only its calls can be inside
 * the shim.  Its pages may differ (MADV_DONTFORK): none known writable.
 */
static void atfork_child(void)
{
	unsigned int hi = atomic_load(&cells_hi);

	atomic_store(&owner, getpid());
	for (unsigned int i = 0; i < hi; i++)
		if (&cells[i] != my_cell) {
			atomic_store(&cells[i].depth, 0);
			atomic_store(&cells[i].tid, 0);
		}
	if (my_cell)
		atomic_store(&my_cell->tid, gettid());
	atomic_store(&overflow, 0);
	as_changed_all();
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

KCORE_API int fclose(FILE *f)
{
	/* fclose(NULL) is undefined (glibc 2.41 declares f nonnull): no check */
	drop(fileno(f), false);
	return CALL_REAL(fclose, EOF, f);
}

/* ---- address space changes that may take write access away ---------------- */

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
static bool kcore_fd(int fd)
{
	struct in_shim c;
	bool yes;

	if (!maybe_tracked(fd))
		return false;
	enter(&c);
	yes = file_of(fd);
	leave(&c);
	return yes;
}

KCORE_API void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	void *p;

	if (!(flags & MAP_ANONYMOUS) && kcore_fd(fd)) {
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

/* ---- what the file looks like ------------------------------------------- */

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
