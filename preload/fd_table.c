// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The open kcore files this process follows, indexed by fd (fds below
 * KCORE_FD_MAX; others are left to the kernel): what close, dup and fork
 * do to them.
 */
#include "preload.h"

_Atomic(struct kfile *) fds[KCORE_FD_MAX];

/*
 * The process the table describes.  A vfork() child shares our memory but
 * not our fd table: what it closes or dups must not change the parent's.
 */
atomic_int owner = -1;

bool owner_calls(void)
{
	return getpid() == atomic_load_explicit(&owner, memory_order_relaxed);
}


/* An fd no longer names kf. */
void put_file(struct kfile *kf)
{
	if (atomic_fetch_sub(&kf->refs, 1) != 1)
		return;
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

/* Forget fd (closed or about to be). */
void drop(int fd, bool want_write_back)
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
	 * the mapping stays, device reads are gone, and we must never close the
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

/* A real open*() returned fd: forget what a raw close left behind. */
int opened(int fd)
{
	if (fd >= 0)
		drop(fd, false);
	return fd;
}

/* newfd now names what oldfd names (dup, dup2, dup3, F_DUPFD). */
int duped(int oldfd, int newfd)
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

/* For a child that execs: the kernel's positions as the shim's. */
void atfork_prepare(void)
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
void atfork_child(void)
{
	atomic_store(&owner, getpid());
	inside_after_fork();
	as_changed_all();
}
