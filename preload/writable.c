// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Buffers known writable.  kcore's pread() fails with EFAULT where a
 * memcpy() would fault.  A thread copies from the mapping only into pages
 * a device read wrote (the driver's copy_to_user() fails cleanly) and no
 * change to the address space has met since.  The shim wraps what can
 * take write access away (wrap_address_space.c) - munmap, mprotect,
 * mremap, mmap of anything but anonymous writable memory, madvise that
 * poisons or guards, pkey_mprotect - and notes the pages each touched
 * (the last CHANGES of them; shmat/shmdt, brk/sbrk, dlclose, pkey_set and
 * fork touch everything).  Not seen: raw system calls, memory libc unmaps
 * on its own (free()) and reuses for a read-only mapping, a buffer
 * unmapped by another thread or a handler during the read, a shared file
 * mapping whose file shrinks.
 */
#include "preload.h"

#define WC_SETS		32	/* a power of two */
#define WC_WAYS		4
#define WR_N		32

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

atomic_ulong as_gen = 1;
static struct change changes[CHANGES];
uintptr_t page_size = WGRAN;

/*
 * Pages this thread knows writable: [lo, hi) where a device read wrote,
 * valid while no change since number gen met them; set by the first page
 * lo.  Written only by this thread and the handlers that interrupt it:
 * seq is odd during a write, and a reader that sees it change (a handler
 * wrote meanwhile) does not trust what it read.  A write left by a jump
 * leaves its entry unused for good.
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

/* [addr, addr + len) in whole pages, everything if that wraps. */
void as_changed(const void *addr, size_t len)
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

void as_changed_all(void)
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
void wc_add(uintptr_t lo, uintptr_t hi, unsigned long gen)
{
	volatile struct wentry *set = wc_set(lo), *e = NULL;

	for (unsigned int w = 0; w < WC_WAYS && !e; w++)
		if (gen - set[w].gen >= CHANGES)
			e = &set[w];
	went_set(e ? e : &set[wc_victim++ % WC_WAYS], lo, hi, gen);
}

/* [lo, hi) known writable at change number gen; the page cache learns it. */
bool known_writable(uintptr_t lo, uintptr_t hi, unsigned long gen)
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
void wr_add(uintptr_t lo, uintptr_t hi)
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
