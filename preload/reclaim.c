// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * What a call inside the shim may still reach stays mapped: memory of
 * the shim's own (whole pages, as malloc() is not async-signal-safe),
 * retired objects unmapped only while no call is inside, and the count
 * of the calls inside, per thread.
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
 */
#include <sys/syscall.h>

#include "preload.h"

_Atomic(struct retired *) retired;

/*
 * Who is inside the shim: per thread, how deep (calls nested by signal
 * handlers), in a cell only that thread and its handlers write.  A call
 * notes the depth it found and puts it back when it leaves, or when a
 * jump discards it: a step done twice or skipped by a jump never leaves a
 * count behind.  A thread without a cell (more than CELLS at once) blocks
 * signals for its calls and counts in overflow.
 */
#define CELLS	1024

static struct cell cells[CELLS];
static atomic_uint cells_hi;	/* cells in use are below */
static atomic_uint overflow;
TLS struct cell *my_cell;

/* malloc() is not async-signal-safe: whole pages from the kernel. */
void *page_alloc(size_t len, bool shared)
{
	void *p = CALL_REAL(mmap, MAP_FAILED, NULL, len, PROT_READ | PROT_WRITE,
			    (shared ? MAP_SHARED : MAP_PRIVATE) | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

void page_free(const void *p, size_t len)
{
	CALL_REAL(munmap, -1, (void *)p, len);
}

void retire(struct retired *r)
{
	struct retired *head = atomic_load(&retired);

	do
		r->next = head;
	while (!atomic_compare_exchange_weak(&retired, &head, r));
}

/* For the few steps that change the table: no handler in between. */
void block_signals(sigset_t *old)
{
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, old);
}

void restore_signals(const sigset_t *old)
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
void reclaim(void)
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

/* A cell for this thread: a free one, or one whose thread has exited. */
struct cell *cell_get(void)
{
	unsigned int i, hi;
	int me, t, saved;

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

/* glibc runs this for a frame a siglongjmp() or cancellation discards. */
void left_by_jump(void *arg)
{
	left(arg);
}

/* More threads inside than cells: signals blocked, counted in overflow. */
void enter_uncounted(struct in_shim *c)
{
	block_signals(&c->old);
	atomic_fetch_add(&overflow, 1);
}

void leave_uncounted(struct in_shim *c)
{
	if (atomic_fetch_sub(&overflow, 1) == 1 && atomic_load(&retired))
		reclaim();
	restore_signals(&c->old);
}

/*
 * The child of fork() has one thread, under a new tid: only its calls can
 * be inside the shim.
 */
void inside_after_fork(void)
{
	unsigned int hi = atomic_load(&cells_hi);

	for (unsigned int i = 0; i < hi; i++)
		if (&cells[i] != my_cell) {
			atomic_store(&cells[i].depth, 0);
			atomic_store(&cells[i].tid, 0);
		}
	if (my_cell)
		atomic_store(&my_cell->tid, gettid());
	atomic_store(&overflow, 0);
}
