// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The open kcore files this process follows, indexed by fd - any fd
 * number the kernel hands out: the first FD_CHUNK fds in a static table,
 * the others in chunks of as many, each made on first use and kept (a
 * lookup is two loads more, never a lock) - and what close, dup and fork
 * do to them.
 */
#include "preload.h"

fd_slot fd_low[FD_CHUNK];

/*
 * Chunk i holds fds [i * FD_CHUNK, (i + 1) * FD_CHUNK): one pointer per
 * chunk an int can reach (4 MiB of address space, a page of it touched
 * per 512 chunks).  fd_top: above the last chunk made.
 */
#define FD_DIR_LEN	(((size_t)INT_MAX / FD_CHUNK + 1) * sizeof(fd_slot *))
_Atomic(fd_slot *) *_Atomic fd_dir;
static atomic_uint fd_top = 1;

/*
 * The process the table describes.  A vfork() child shares our memory but
 * not our fd table: what it closes or dups must not change the parent's.
 */
atomic_int owner = -1;

bool owner_calls(void)
{
	return getpid() == atomic_load_explicit(&owner, memory_order_relaxed);
}

/* The pages for a table part, zeroed; racing makers keep the first. */
static void *make_once(_Atomic(void *) *where, size_t len)
{
	void *p = atomic_load(where), *none = NULL;

	if (p)
		return p;
	p = page_alloc(len, false);
	if (!p)
		return NULL;
	if (atomic_compare_exchange_strong(where, &none, p))
		return p;
	page_free(p, len);
	return none;
}

fd_slot *slot_make(int fd)
{
	_Atomic(fd_slot *) *dir;
	fd_slot *chunk;
	unsigned int i = (unsigned int)fd / FD_CHUNK, top;

	if (fd < 0)
		return NULL;
	if (fd < FD_CHUNK)
		return &fd_low[fd];
	dir = make_once((_Atomic(void *) *)&fd_dir, FD_DIR_LEN);
	if (!dir)
		return NULL;
	chunk = make_once((_Atomic(void *) *)&dir[i], FD_CHUNK * sizeof(fd_slot));
	if (!chunk)
		return NULL;
	top = atomic_load(&fd_top);
	while (top <= i && !atomic_compare_exchange_weak(&fd_top, &top, i + 1))
		;
	return &chunk[fd % FD_CHUNK];
}

/* The kfile's header memfd: closed, and its slot cleared, with the last fd. */
static void close_header(struct kfile *kf)
{
	int hfd = atomic_exchange(&kf->hdr_fd, -1);
	fd_slot *s = slot_of(hfd);
	struct kfile *mark = (struct kfile *)((uintptr_t)kf | SLOT_HEADER);

	if (hfd < 0)
		return;
	if (s)
		atomic_compare_exchange_strong(s, &mark, NULL);
	CALL_REAL(close, -1, hfd);
}

/* An fd no longer names kf. */
void put_file(struct kfile *kf)
{
	if (atomic_fetch_sub(&kf->refs, 1) != 1)
		return;
	close_header(kf);
	if (atomic_fetch_sub(&kf->dev->files, 1) == 1)
		dev_retire(kf->dev);
	retire(&kf->node);
}

/* Another reference to what kf or d already has one of; false if none left. */
bool get_ref(atomic_uint *refs)
{
	unsigned int r = atomic_load(refs);

	while (r && !atomic_compare_exchange_weak(refs, &r, r + 1))
		;
	return r;
}

/* What a slot held, taken out of it for fd: let go of it. */
static void forget(int fd, struct kfile *was)
{
	struct kfile *kf = (struct kfile *)((uintptr_t)was & ~SLOT_HEADER);
	int expect = fd;

	if (!was)
		return;
	if ((uintptr_t)was & SLOT_HEADER)	/* its header fd went behind our back */
		atomic_compare_exchange_strong(&kf->hdr_fd, &expect, -1);
	else
		put_file(kf);
}

/* Forget fd (closed or about to be). */
void drop(int fd)
{
	struct in_shim c;
	struct kdev *d;
	fd_slot *s;
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
	 * the mapping stays, device reads are gone, and we must never close the
	 * number again - it may be the program's by then.
	 */
	d = atomic_load(&cur_dev);
	if (d && atomic_load(&d->fd) == fd) {
		atomic_store(&d->fd, -1);
		atomic_store(&dev_fd, -1);
	}
	s = slot_of(fd);
	if (s)
		forget(fd, atomic_exchange(s, NULL));
	leave(&c);
	restore_signals(&old);
	errno = saved;
}

/* Forget every fd in [first, last] (close_range(), closefrom()). */
void drop_range(unsigned int first, unsigned int last)
{
	unsigned int top = atomic_load(&fd_top), fd;
	int dfd = atomic_load(&dev_fd);
	_Atomic(fd_slot *) *dir = atomic_load(&fd_dir);

	if (last > INT_MAX)
		last = INT_MAX;
	if (dfd >= 0 && (unsigned int)dfd >= first && (unsigned int)dfd <= last)
		drop(dfd);
	for (fd = first; fd <= last && fd < FD_CHUNK; fd++)
		if (atomic_load_explicit(&fd_low[fd], memory_order_relaxed))
			drop((int)fd);
	for (unsigned int i = first / FD_CHUNK ? first / FD_CHUNK : 1;
	     dir && i < top && i <= last / FD_CHUNK; i++) {
		fd_slot *chunk = atomic_load(&dir[i]);

		for (unsigned int j = 0; chunk && j < FD_CHUNK; j++) {
			fd = i * FD_CHUNK + j;
			if (fd >= first && fd <= last &&
			    atomic_load_explicit(&chunk[j], memory_order_relaxed))
				drop((int)fd);
		}
	}
}

/* fd names a kcore file this process follows. */
bool followed(int fd)
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

/* A real open*() returned fd: forget what a raw close left behind. */
int opened(int fd)
{
	if (fd >= 0)
		drop(fd);
	return fd;
}

/*
 * newfd now names what oldfd names (dup, dup2, dup3, F_DUPFD), whatever
 * its number.  Out of memory for its slot: it stays unfollowed, and
 * reads nothing (EBADF: the fd is O_PATH).
 */
int duped(int oldfd, int newfd)
{
	struct kfile *kf;
	struct in_shim c;
	fd_slot *s;
	sigset_t old;
	int saved;

	if (newfd < 0 || newfd == oldfd ||
	    (!maybe_tracked(oldfd) && !maybe_tracked(newfd)) || !owner_calls())
		return newfd;
	saved = errno;
	block_signals(&old);
	enter(&c);
	s = slot_of(newfd);
	if (s)
		forget(newfd, atomic_exchange(s, NULL));
	kf = file_of(oldfd);
	if (kf && get_ref(&kf->refs)) {
		s = slot_make(newfd);
		if (s)
			forget(newfd, atomic_exchange(s, kf));
		else
			put_file(kf);
	}
	leave(&c);
	restore_signals(&old);
	errno = saved;
	return newfd;
}

/*
 * The child has one thread, under a new tid: only its calls can be inside
 * the shim.  Its pages may differ (MADV_DONTFORK): none known writable.
 */
void atfork_child(void)
{
	atomic_store(&owner, getpid());
	inside_after_fork();
	as_changed_all();
}
