// SPDX-License-Identifier: GPL-2.0
/*
 * Probe semantics without surprises (issue 16, item 4):
 *  - ids are never reused in a file: a stale id acts on nothing, never on
 *    a newer probe;
 *  - a call that acted on an entry returns 0 and says in @done where it
 *    stopped; one that fails did nothing (an unwritable argument or result
 *    included);
 *  - STATS writes one count per position, checks counts_addr/counts_cap
 *    as a pair, and RESET loses no hit: not from another CPU, not from an
 *    interrupt on the reading CPU itself;
 *  - the max_probes_per_file and max_probes caps (ENOSPC per spec);
 *  - probe memory is charged to the caller's memory cgroup.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "vmtest.h"

#define HOT		"__x64_sys_getppid"
#define OTHER		"__x64_sys_getpid"
#define TIMER_CB	"timerfd_tmrproc"	/* hrtimer callback: hard interrupt */
#define UNKNOWN		999999ULL
#define PAGE		4096UL
#define PARAMS		"/sys/module/kmem_ro/parameters/"
#define SENTINEL	0x5a5a5a5a5a5a5a5aULL

static void call_n(long nr, int n)
{
	for (int i = 0; i < n; i++)
		syscall(nr);
}

/* Add one probe on @name (entry, or past the fentry site): its id. */
static uint64_t add_one(int fd, const char *name, bool kprobe, uint32_t flags)
{
	uint64_t addr = vt_kallsyms(name);
	struct kmem_ro_probe_spec s;

	ck_assert_uint_ne(addr, 0);
	vt_probe_spec(&s, name, addr, kprobe ? vt_after_fentry(addr) : 0, flags);
	ck_assert_int_eq(vt_probe_add(fd, &s, 1, NULL), 0);
	ck_assert_msg(s.result > 0, "%s: %lld", name, (long long)s.result);
	return s.result;
}

/* LIST of @fd: the number of probes, and the entry of @id in *@out (if found). */
static unsigned int list(int fd, uint64_t id, struct kmem_ro_probe_info *out)
{
	static struct kmem_ro_probe_info info[64];
	struct kmem_ro_probe_list l = { .size = sizeof(l), .buf_addr = (uintptr_t)info, .cap = 64 };

	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_PROBE_LIST, &l), 0);
	if (out)
		memset(out, 0, sizeof(*out));
	for (unsigned int i = 0; i < l.count && i < 64; i++)
		if (out && info[i].id == id)
			*out = info[i];
	return l.count;
}

static bool enabled(int fd, uint64_t id)
{
	struct kmem_ro_probe_info info;

	list(fd, id, &info);
	ck_assert_uint_eq(info.id, id);		/* it exists */
	return info.flags & KMEM_RO_PROBE_ENABLED;
}

static struct kmem_ro_probe_ids ids_arg(uint64_t flags, uint64_t *ids, unsigned int n)
{
	return (struct kmem_ro_probe_ids){ .size = sizeof(struct kmem_ro_probe_ids),
					   .flags = flags, .ids_addr = (uintptr_t)ids, .count = n };
}

/* ---- ids ---- */

/* Deleted ids are not given again, by the same file, ever. */
START_TEST(ids_never_reused)
{
	uint64_t prev = 0, id;
	int fd = vt_open_dev();

	for (int i = 0; i < 50; i++) {
		id = add_one(fd, HOT, i & 1, 0);
		ck_assert_msg(id > prev, "id %llu after %llu", (unsigned long long)id,
			      (unsigned long long)prev);
		prev = id;
		if (i % 10 == 9)
			ck_assert_int_eq(vt_probe_ids(fd, KMEM_RO_IOC_PROBE_DEL, KMEM_RO_PROBE_ALL,
						      NULL, 0, NULL, NULL), 0);
		else
			ck_assert_int_eq(vt_probe_ids(fd, KMEM_RO_IOC_PROBE_DEL, 0, &id, 1, NULL,
						      NULL), 0);
	}
	close(fd);
}
END_TEST

/* A stale id names nothing: every call refuses it, the newer probe is untouched. */
START_TEST(stale_id_never_acts)
{
	int fd = vt_open_dev();
	uint64_t stale = add_one(fd, HOT, false, KMEM_RO_PROBE_ENABLED), fresh, count;

	ck_assert_int_eq(vt_probe_ids(fd, KMEM_RO_IOC_PROBE_DEL, 0, &stale, 1, NULL, NULL), 0);
	fresh = add_one(fd, HOT, false, 0);	/* the same place, disabled */
	ck_assert_uint_ne(fresh, stale);

	ck_assert_int_eq(vt_probe_ids(fd, KMEM_RO_IOC_PROBE_ENABLE, 0, &stale, 1, NULL, NULL),
			 -ENOENT);
	ck_assert(!enabled(fd, fresh));
	call_n(SYS_getppid, 10);
	ck_assert_uint_eq(vt_probe_hits(fd, fresh), 0);
	ck_assert_int_eq(vt_probe_ids(fd, KMEM_RO_IOC_PROBE_ENABLE, 0, &fresh, 1, NULL, NULL), 0);
	call_n(SYS_getppid, 10);
	ck_assert_int_eq(vt_probe_ids(fd, KMEM_RO_IOC_PROBE_DISABLE, 0, &stale, 1, NULL, NULL),
			 -ENOENT);
	ck_assert(enabled(fd, fresh));
	count = SENTINEL;
	ck_assert_int_eq(vt_probe_ids(fd, KMEM_RO_IOC_PROBE_STATS, KMEM_RO_PROBE_RESET, &stale, 1,
				      &count, NULL), -ENOENT);
	ck_assert_uint_eq(count, SENTINEL);
	ck_assert_uint_eq(vt_probe_hits(fd, fresh), 10);
	ck_assert_int_eq(vt_probe_ids(fd, KMEM_RO_IOC_PROBE_DEL, 0, &stale, 1, NULL, NULL),
			 -ENOENT);
	ck_assert_uint_eq(list(fd, 0, NULL), 1);
	close(fd);
}
END_TEST

/* ---- where a call stops ---- */

/* An unknown id past the first: the ids before it are done, the call returns 0. */
START_TEST(stop_at_unknown_id)
{
	int fd = vt_open_dev();
	uint64_t a = add_one(fd, HOT, false, 0), b = add_one(fd, HOT, true, 0);
	uint64_t ids[3] = { a, UNKNOWN, b }, counts[3];
	unsigned int done = 77;

	ck_assert_int_eq(vt_probe_ids(fd, KMEM_RO_IOC_PROBE_ENABLE, 0, ids, 3, NULL, &done), 0);
	ck_assert_uint_eq(done, 1);
	ck_assert(enabled(fd, a));
	ck_assert(!enabled(fd, b));
	call_n(SYS_getppid, 10);

	for (int i = 0; i < 3; i++)
		counts[i] = SENTINEL;
	ck_assert_int_eq(vt_probe_ids(fd, KMEM_RO_IOC_PROBE_STATS, 0, ids, 3, counts, &done), 0);
	ck_assert_uint_eq(done, 1);
	ck_assert_uint_eq(counts[0], 10);
	ck_assert_uint_eq(counts[1], SENTINEL);
	ck_assert_uint_eq(counts[2], SENTINEL);

	ck_assert_int_eq(vt_probe_ids(fd, KMEM_RO_IOC_PROBE_DISABLE, 0, ids, 3, NULL, &done), 0);
	ck_assert_uint_eq(done, 1);
	ck_assert(!enabled(fd, a));

	/* the first id unknown: its errno, nothing done */
	ids[0] = UNKNOWN;
	ids[1] = a;
	ck_assert_int_eq(vt_probe_ids(fd, KMEM_RO_IOC_PROBE_ENABLE, 0, ids, 2, NULL, &done),
			 -ENOENT);
	ck_assert_uint_eq(done, 0);
	ck_assert(!enabled(fd, a));
	ck_assert_int_eq(vt_probe_ids(fd, KMEM_RO_IOC_PROBE_DEL, 0, ids, 2, NULL, &done), -ENOENT);
	ck_assert_uint_eq(list(fd, 0, NULL), 2);

	/* DEL: the same */
	ids[0] = a;
	ids[1] = UNKNOWN;
	ids[2] = b;
	ck_assert_int_eq(vt_probe_ids(fd, KMEM_RO_IOC_PROBE_DEL, 0, ids, 3, NULL, &done), 0);
	ck_assert_uint_eq(done, 1);
	ck_assert_uint_eq(list(fd, 0, NULL), 1);
	ck_assert(!enabled(fd, b));

	/* an id named twice acts once and counts at each position */
	ids[0] = b;
	ids[1] = b;
	ck_assert_int_eq(vt_probe_ids(fd, KMEM_RO_IOC_PROBE_ENABLE, 0, ids, 2, NULL, &done), 0);
	ck_assert_uint_eq(done, 2);
	ck_assert(enabled(fd, b));
	ck_assert_int_eq(vt_probe_ids(fd, KMEM_RO_IOC_PROBE_DEL, 0, ids, 2, NULL, &done), 0);
	ck_assert_uint_eq(done, 2);
	ck_assert_uint_eq(list(fd, 0, NULL), 0);
	close(fd);
}
END_TEST

static void *ro_copy(const void *src, size_t len)
{
	void *p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ck_assert_ptr_ne(p, MAP_FAILED);
	memcpy(p, src, len);
	ck_assert_int_eq(mprotect(p, PAGE, PROT_READ), 0);
	return p;
}

/* ENABLE, DISABLE and DEL whose argument is read-only: EFAULT, and nothing done. */
START_TEST(unwritable_done_does_nothing)
{
	int fd = vt_open_dev();
	uint64_t id = add_one(fd, HOT, false, 0);
	struct kmem_ro_probe_ids a = ids_arg(0, &id, 1), *ro = ro_copy(&a, sizeof(a));

	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_PROBE_ENABLE, ro), -EFAULT);
	ck_assert(!enabled(fd, id));
	ck_assert_int_eq(vt_probe_ids(fd, KMEM_RO_IOC_PROBE_ENABLE, 0, &id, 1, NULL, NULL), 0);
	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_PROBE_DISABLE, ro), -EFAULT);
	ck_assert(enabled(fd, id));
	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_PROBE_DEL, ro), -EFAULT);
	ck_assert_uint_eq(list(fd, 0, NULL), 1);
	munmap(ro, PAGE);
	ro = ro_copy(&(struct kmem_ro_probe_ids){ .size = sizeof(a), .flags = KMEM_RO_PROBE_ALL },
		     sizeof(a));
	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_PROBE_DEL, ro), -EFAULT);
	ck_assert_uint_eq(list(fd, 0, NULL), 1);
	munmap(ro, PAGE);
	close(fd);
}
END_TEST

/* An ADD that cannot hand its results over leaves no probe behind. */
START_TEST(add_efault_adds_nothing)
{
	uint64_t hot = vt_kallsyms(HOT);
	size_t len = (256 + 1) * sizeof(struct kmem_ro_probe_spec);
	size_t pages = (len + PAGE - 1) / PAGE;
	struct kmem_ro_probe_spec s[2], *ro, *big;
	struct kmem_ro_probe_add a = { .size = sizeof(a), .count = 2 }, *ro_arg;
	char *map;
	int fd = vt_open_dev();

	vt_probe_spec(&s[0], HOT, hot, 0, KMEM_RO_PROBE_ENABLED);
	vt_probe_spec(&s[1], HOT, hot, vt_after_fentry(hot), KMEM_RO_PROBE_ENABLED);

	/* results not writable */
	ro = ro_copy(s, sizeof(s));
	ck_assert_int_eq(vt_probe_add(fd, ro, 2, NULL), -EFAULT);
	ck_assert_uint_eq(list(fd, 0, NULL), 0);
	munmap(ro, PAGE);

	/* @added not writable: results were written, the probes are gone again */
	a.specs_addr = (uintptr_t)s;
	ro_arg = ro_copy(&a, sizeof(a));
	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_PROBE_ADD, ro_arg), -EFAULT);
	ck_assert_int_gt(s[0].result, 0);
	ck_assert_uint_eq(list(fd, 0, NULL), 0);
	munmap(ro_arg, PAGE);

	/* the second step (256 specs a step) runs into an unmapped page */
	map = mmap(NULL, (pages + 1) * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		   -1, 0);
	ck_assert_ptr_ne(map, MAP_FAILED);
	ck_assert_int_eq(munmap(map + pages * PAGE, PAGE), 0);
	/* the last spec's result lies on the unmapped page */
	big = (struct kmem_ro_probe_spec *)(map + pages * PAGE - len + 8);
	for (int i = 0; i < 256; i++)
		vt_probe_spec(&big[i], HOT, hot, i ? 0 : vt_after_fentry(hot), 0);
	vt_probe_spec(&s[0], HOT, hot, 0, 0);
	memcpy(&big[256], &s[0], offsetof(struct kmem_ro_probe_spec, result));
	ck_assert_int_eq(vt_probe_add(fd, big, 257, NULL), -EFAULT);
	ck_assert_int_gt(big[0].result, 0);	/* said so, then undone */
	ck_assert_int_gt(big[1].result, 0);
	ck_assert_uint_eq(list(fd, 0, NULL), 0);
	ck_assert_int_eq(vt_file_has("/sys/kernel/debug/kprobes/list", HOT), 0);
	munmap(map, pages * PAGE);
	close(fd);
}
END_TEST

/* ---- STATS ---- */

/* One count per position; RESET restarts a probe named twice once. */
START_TEST(stats_duplicate_ids)
{
	int fd = vt_open_dev();
	uint64_t a = add_one(fd, HOT, false, KMEM_RO_PROBE_ENABLED);
	uint64_t b = add_one(fd, OTHER, true, KMEM_RO_PROBE_ENABLED);
	uint64_t ids[5] = { a, b, a, b, a }, counts[6];
	unsigned int done;

	call_n(SYS_getppid, 10);
	call_n(SYS_getpid, 20);
	for (int i = 0; i < 6; i++)
		counts[i] = SENTINEL;
	ck_assert_int_eq(vt_probe_ids(fd, KMEM_RO_IOC_PROBE_STATS, 0, ids, 5, counts, &done), 0);
	ck_assert_uint_eq(done, 5);
	for (int i = 0; i < 5; i++)
		ck_assert_uint_eq(counts[i], i & 1 ? 20 : 10);
	ck_assert_uint_eq(counts[5], SENTINEL);

	ck_assert_int_eq(vt_probe_ids(fd, KMEM_RO_IOC_PROBE_STATS, KMEM_RO_PROBE_RESET, ids, 3,
				      counts, &done), 0);
	ck_assert_uint_eq(done, 3);
	ck_assert_uint_eq(counts[0], 10);
	ck_assert_uint_eq(counts[1], 20);
	ck_assert_uint_eq(counts[2], 10);
	call_n(SYS_getppid, 3);
	ck_assert_uint_eq(vt_probe_hits(fd, a), 3);	/* restarted once, not twice */
	ck_assert_uint_eq(vt_probe_hits(fd, b), 0);
	close(fd);
}
END_TEST

/* counts_addr and counts_cap: a pair, as every address and size. */
START_TEST(stats_counts_pair)
{
	int fd = vt_open_dev();
	uint64_t ids[2] = { add_one(fd, HOT, false, 0), add_one(fd, HOT, true, 0) }, counts[4];
	struct kmem_ro_probe_ids a;

#define STATS(want, flags, ids_, n, addr, cap) do {				\
		a = ids_arg(flags, ids_, n);					\
		a.counts_addr = (uintptr_t)(addr);				\
		a.counts_cap = cap;						\
		ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_PROBE_STATS, &a), want);	\
	} while (0)
	counts[1] = SENTINEL;
	STATS(-EINVAL, 0, ids, 1, counts, 0);				/* address, no size */
	STATS(-EINVAL, 0, ids, 1, NULL, 1);				/* size, no address */
	STATS(-EINVAL, 0, ids, 2, counts, 1);				/* too small */
	ck_assert_uint_eq(counts[1], SENTINEL);
	STATS(0, 0, ids, 2, counts, 2);
	ck_assert_uint_eq(a.done, 2);
	STATS(0, 0, ids, 1, counts, 4);					/* room to spare */
	STATS(-EINVAL, KMEM_RO_PROBE_ALL, NULL, 0, counts, 0);
	STATS(-EINVAL, KMEM_RO_PROBE_ALL, NULL, 0, NULL, 4);
	STATS(0, KMEM_RO_PROBE_ALL, NULL, 0, NULL, 0);			/* only count */
	ck_assert_uint_eq(a.done, 2);
	counts[1] = SENTINEL;
	STATS(0, KMEM_RO_PROBE_ALL, NULL, 0, counts, 1);
	ck_assert_uint_eq(a.done, 2);
	ck_assert_uint_eq(counts[1], SENTINEL);
#undef STATS
	a = ids_arg(0, ids, 1);
	a.counts_cap = 1;
	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_PROBE_DEL, &a), -EINVAL);
	close(fd);
}
END_TEST

struct caller {
	long nr;
	int calls, cpu;
	atomic_int running;
};

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	ck_assert_int_eq(sched_setaffinity(0, sizeof(set), &set), 0);
}

static void *caller_main(void *arg)
{
	struct caller *c = arg;

	pin(c->cpu);
	call_n(c->nr, c->calls);
	atomic_store(&c->running, 0);
	return NULL;
}

/*
 * A thread on the other CPU calls getppid() CALLS times while this one
 * reads both probes on it with RESET over and over: the counts read add
 * up to CALLS exactly.
 */
START_TEST(reset_loses_no_hit_from_another_cpu)
{
	enum { CALLS = 100000 };
	int fd = vt_open_dev();
	uint64_t ids[2] = { add_one(fd, HOT, false, KMEM_RO_PROBE_ENABLED),
			    add_one(fd, HOT, true, KMEM_RO_PROBE_ENABLED) };
	struct caller c = { .nr = SYS_getppid, .calls = CALLS, .cpu = 1, .running = 1 };
	uint64_t sum[2] = { 0, 0 }, counts[2];
	unsigned long reads = 0;
	pthread_t t;

	ck_assert_int_ge(sysconf(_SC_NPROCESSORS_ONLN), 2);
	pin(0);
	ck_assert_int_eq(pthread_create(&t, NULL, caller_main, &c), 0);
	do {
		ck_assert_int_eq(vt_probe_ids(fd, KMEM_RO_IOC_PROBE_STATS, KMEM_RO_PROBE_RESET, ids,
					      2, counts, NULL), 0);
		sum[0] += counts[0];
		sum[1] += counts[1];
		reads++;
	} while (atomic_load(&c.running));
	pthread_join(t, NULL);
	ck_assert_int_eq(vt_probe_ids(fd, KMEM_RO_IOC_PROBE_STATS, KMEM_RO_PROBE_RESET, ids, 2,
				      counts, NULL), 0);
	sum[0] += counts[0];
	sum[1] += counts[1];
	printf("probe_semantics: %d calls on cpu 1, %lu resets on cpu 0: %llu, %llu counted\n",
	       CALLS, reads, (unsigned long long)sum[0], (unsigned long long)sum[1]);
	ck_assert_uint_eq(sum[0], CALLS);
	ck_assert_uint_eq(sum[1], CALLS);
	close(fd);
}
END_TEST

/*
 * 7.3's timerfd_settime() handles a timer that expired before it was
 * armed itself (hrtimer_start_range_ns_user() returns false, fs/timerfd.c
 * timerfd_hrtimer_start()): no interrupt, no TIMER_CB.  Under TCG a 50 us
 * timer sometimes has.  The tracepoint timer:hrtimer_start_expired marks
 * each, in the task that armed it; 6.x always queues the timer.
 */
#define TRACEFS		"/sys/kernel/tracing"
#define EXPIRED_EVENT	TRACEFS "/events/timer/hrtimer_start_expired/enable"

static bool expired_events_on(void)
{
	if (mount("tracefs", TRACEFS, "tracefs", 0, NULL) && errno != EBUSY)
		ck_abort_msg("mount tracefs: %s", strerror(errno));
	if (access(EXPIRED_EVENT, W_OK)) {
		ck_assert(!vt_kernel_at_least(7, 3));
		return false;
	}
	vt_write_file(TRACEFS "/trace", "");
	vt_write_file(EXPIRED_EVENT, "1");
	return true;
}

/* The timers this process armed already expired, and stop counting. */
static unsigned int expired_events_off(void)
{
	FILE *f = fopen(TRACEFS "/trace", "re");
	char line[512], me[32];
	unsigned int n = 0;

	vt_write_file(EXPIRED_EVENT, "0");
	ck_assert_ptr_nonnull(f);
	snprintf(me, sizeof(me), "-%d ", getpid());
	while (fgets(line, sizeof(line), f))
		if (line[0] != '#' && strstr(line, me) && strstr(line, "hrtimer_start_expired"))
			n++;
	fclose(f);
	return n;
}

/*
 * Hits from a hard interrupt on the reading CPU itself, at any point of
 * the RESET: one-shot timerfd timers, each firing once (its hrtimer
 * callback), armed and awaited on CPU 0 while CPU 0 reads with RESET in a
 * loop.  The counts read add up to the number of timers exactly, less
 * those the kernel found expired when arming them (7.3, above).
 */
START_TEST(reset_loses_no_hit_from_an_interrupt)
{
	enum { TIMERS = 50000 };
	struct itimerspec its = { .it_value = { .tv_nsec = 50000 } };
	int fd = vt_open_dev(), tfd;
	uint64_t id, sum = 0, count, fired;
	unsigned long reads = 0;
	unsigned int expired = 0;
	bool events;

	if (!vt_kallsyms(TIMER_CB))
		ck_abort_msg("no %s in kallsyms", TIMER_CB);
	id = add_one(fd, TIMER_CB, false, KMEM_RO_PROBE_ENABLED);
	pin(0);
	events = expired_events_on();
	tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	ck_assert_int_ge(tfd, 0);
	for (int i = 0; i < TIMERS; i++) {
		ck_assert_int_eq(timerfd_settime(tfd, 0, &its, NULL), 0);
		do {
			ck_assert_int_eq(vt_probe_ids(fd, KMEM_RO_IOC_PROBE_STATS,
						      KMEM_RO_PROBE_RESET, &id, 1, &count, NULL), 0);
			sum += count;
			reads++;
		} while (read(tfd, &fired, sizeof(fired)) != sizeof(fired));
		ck_assert_uint_eq(fired, 1);
	}
	ck_assert_int_eq(vt_probe_ids(fd, KMEM_RO_IOC_PROBE_STATS, KMEM_RO_PROBE_RESET, &id, 1,
				      &count, NULL), 0);
	sum += count;
	if (events)
		expired = expired_events_off();
	printf("probe_semantics: %d timers on cpu 0, %lu resets there: %llu counted, %u expired when armed\n",
	       TIMERS, reads, (unsigned long long)sum, expired);
	ck_assert_uint_eq(sum + expired, TIMERS);
	close(tfd);
	close(fd);
}
END_TEST

/* ---- caps ---- */

static char saved_per_file[32], saved_global[32];

static void read_param(const char *name, char *buf, size_t len)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), PARAMS "%s", name);
	f = fopen(path, "re");
	buf[0] = '\0';
	if (!f)
		return;
	if (!fgets(buf, (int)len, f))
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

/* Unchecked fixture: runs in the parent, restores the caps after the case. */
static void caps_save(void)
{
	read_param("max_probes_per_file", saved_per_file, sizeof(saved_per_file));
	read_param("max_probes", saved_global, sizeof(saved_global));
}

static void caps_restore(void)
{
	if (saved_per_file[0])
		vt_write_file(PARAMS "max_probes_per_file", saved_per_file);
	if (saved_global[0])
		vt_write_file(PARAMS "max_probes", saved_global);
}

static void set_cap(const char *name, unsigned long val)
{
	char path[128], buf[32];

	snprintf(path, sizeof(path), PARAMS "%s", name);
	snprintf(buf, sizeof(buf), "%lu", val);
	vt_write_file(path, buf);
}

START_TEST(caps_defaults)
{
	char buf[32];
	struct stat st;

	read_param("max_probes_per_file", buf, sizeof(buf));
	ck_assert_str_eq(buf, "65536");
	read_param("max_probes", buf, sizeof(buf));
	ck_assert_str_eq(buf, "262144");
	ck_assert_int_eq(stat(PARAMS "max_probes", &st), 0);
	ck_assert_uint_eq(st.st_mode & 0777, 0644);
}
END_TEST

/* Beyond max_probes_per_file: ENOSPC per spec, the call still succeeds. */
START_TEST(cap_per_file)
{
	uint64_t hot = vt_kallsyms(HOT), other = vt_kallsyms(OTHER);
	struct kmem_ro_probe_spec s[6];
	unsigned int added = 77;
	int fd = vt_open_dev(), fd2 = vt_open_dev();

	set_cap("max_probes_per_file", 3);
	vt_probe_spec(&s[0], HOT, hot, 0, 0);
	vt_probe_spec(&s[1], "null", 0, 0, 0);			/* its own errno first */
	vt_probe_spec(&s[2], HOT, hot, vt_after_fentry(hot), KMEM_RO_PROBE_ENABLED);
	vt_probe_spec(&s[3], OTHER, other, 0, KMEM_RO_PROBE_ENABLED);
	vt_probe_spec(&s[4], OTHER, other, vt_after_fentry(other), 0);
	vt_probe_spec(&s[5], HOT, hot, 0, 0);			/* EEXIST, not ENOSPC */
	ck_assert_int_eq(vt_probe_add(fd, s, 6, &added), 0);
	ck_assert_uint_eq(added, 3);
	ck_assert_int_gt(s[0].result, 0);
	ck_assert_int_eq(s[1].result, -ENOENT);
	ck_assert_int_gt(s[2].result, 0);
	ck_assert_int_gt(s[3].result, 0);
	ck_assert_int_eq(s[4].result, -ENOSPC);
	ck_assert_int_eq(s[5].result, -EEXIST);
	ck_assert_uint_eq(list(fd, 0, NULL), 3);
	/* full: every spec ENOSPC, the call 0 */
	ck_assert_int_eq(vt_probe_add(fd, &s[4], 1, &added), 0);
	ck_assert_uint_eq(added, 0);
	ck_assert_int_eq(s[4].result, -ENOSPC);
	/* another file has its own room */
	ck_assert_int_eq(vt_probe_add(fd2, s, 1, &added), 0);
	ck_assert_int_gt(s[0].result, 0);
	/* a deleted probe makes room */
	ck_assert_int_eq(vt_probe_ids(fd, KMEM_RO_IOC_PROBE_DEL, 0, (uint64_t *)&s[3].result, 1,
				      NULL, NULL), 0);
	ck_assert_int_eq(vt_probe_add(fd, &s[4], 1, &added), 0);
	ck_assert_int_gt(s[4].result, 0);
	/* a lower cap removes nothing */
	set_cap("max_probes_per_file", 1);
	ck_assert_uint_eq(list(fd, 0, NULL), 3);
	call_n(SYS_getppid, 5);
	ck_assert_uint_eq(vt_probe_hits(fd, s[2].result), 5);
	caps_restore();
	close(fd2);
	close(fd);
}
END_TEST

static unsigned int probes_everywhere(void)
{
	struct kmem_ro_probe_list l = { .size = sizeof(l), .flags = KMEM_RO_PROBE_LIST_ALL_FILES };
	int fd = vt_open_dev();

	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_PROBE_LIST, &l), 0);
	close(fd);
	return l.count;
}

/* Beyond max_probes, all files together: ENOSPC per spec. */
START_TEST(cap_global)
{
	uint64_t hot = vt_kallsyms(HOT), other = vt_kallsyms(OTHER);
	struct kmem_ro_probe_spec s[2];
	int fd = vt_open_dev(), fd2 = vt_open_dev();
	unsigned int base = probes_everywhere(), added;

	set_cap("max_probes", base + 3);
	vt_probe_spec(&s[0], HOT, hot, 0, 0);
	vt_probe_spec(&s[1], OTHER, other, 0, 0);
	ck_assert_int_eq(vt_probe_add(fd, s, 2, &added), 0);
	ck_assert_uint_eq(added, 2);
	ck_assert_int_eq(vt_probe_add(fd2, s, 2, &added), 0);
	ck_assert_uint_eq(added, 1);
	ck_assert_int_gt(s[0].result, 0);
	ck_assert_int_eq(s[1].result, -ENOSPC);
	close(fd);		/* its two go back */
	ck_assert_int_eq(vt_probe_add(fd2, &s[1], 1, &added), 0);
	ck_assert_int_gt(s[1].result, 0);
	ck_assert_uint_eq(probes_everywhere(), base + 2);
	caps_restore();
	close(fd2);
}
END_TEST

/* ---- memory cgroup ---- */

#define CGROOT	"/sys/fs/cgroup"
#define CG	CGROOT "/kmem_ro_probes"

static long long cg_stat(const char *key)
{
	char line[256], name[64];
	long long val = -1, v;
	FILE *f = fopen(CG "/memory.stat", "re");

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %lld", name, &v) == 2 && !strcmp(name, key))
			val = v;
	fclose(f);
	ck_assert_msg(val >= 0, "memory.stat has no %s", key);
	return val;
}

/*
 * The test moves itself into a memory cgroup of its own and adds probes
 * on 10,000 functions: the cgroup's slab and percpu counts grow by at
 * least half the size of a probe each (~500 bytes of slab, 8 bytes a CPU).
 */
START_TEST(probe_memory_is_charged)
{
	enum { SPECS = 20000 };
	struct kmem_ro_probe_spec *s = calloc(SPECS, sizeof(*s));
	long long slab0, pcpu0, slab1, pcpu1;
	unsigned int n, added;
	char pid[16];
	int fd = vt_open_dev();

	ck_assert_ptr_nonnull(s);
	if (mount("cgroup2", CGROOT, "cgroup2", 0, NULL) && errno != EBUSY)
		ck_abort_msg("mount cgroup2: %s", strerror(errno));
	vt_write_file(CGROOT "/cgroup.subtree_control", "+memory");
	if (mkdir(CG, 0755) && errno != EEXIST)
		ck_abort_msg("mkdir %s: %s", CG, strerror(errno));
	n = vt_text_probe_specs(s, SPECS);		/* touched before: not counted */
	snprintf(pid, sizeof(pid), "%d", getpid());
	vt_write_file(CG "/cgroup.procs", pid);
	slab0 = cg_stat("slab_unreclaimable");
	pcpu0 = cg_stat("percpu");
	ck_assert_int_eq(vt_probe_add(fd, s, n, &added), 0);
	slab1 = cg_stat("slab_unreclaimable");
	pcpu1 = cg_stat("percpu");
	printf("probe_semantics: %u probes: slab +%lld, percpu +%lld bytes in the cgroup\n", added,
	       slab1 - slab0, pcpu1 - pcpu0);
	ck_assert_uint_ge(added, 5000);
	ck_assert_int_ge(slab1 - slab0, (long long)added * 256);
	ck_assert_int_ge(pcpu1 - pcpu0, (long long)added * 8);
	close(fd);
	vt_write_file(CGROOT "/cgroup.procs", pid);
	free(s);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("probe_semantics");
	TCase *tc = tcase_create("ids");

	tcase_add_test(tc, ids_never_reused);
	tcase_add_test(tc, stale_id_never_acts);
	tcase_add_test(tc, stop_at_unknown_id);
	tcase_add_test(tc, unwritable_done_does_nothing);
	tcase_add_test(tc, add_efault_adds_nothing);
	suite_add_tcase(s, tc);
	tc = tcase_create("stats");
	tcase_add_test(tc, stats_duplicate_ids);
	tcase_add_test(tc, stats_counts_pair);
	tcase_add_test(tc, reset_loses_no_hit_from_another_cpu);
	tcase_add_test(tc, reset_loses_no_hit_from_an_interrupt);
	suite_add_tcase(s, tc);
	tc = tcase_create("caps");
	tcase_add_unchecked_fixture(tc, caps_save, caps_restore);
	tcase_add_test(tc, caps_defaults);
	tcase_add_test(tc, cap_per_file);
	tcase_add_test(tc, cap_global);
	suite_add_tcase(s, tc);
	tc = tcase_create("memcg");
	tcase_add_test(tc, probe_memory_is_charged);
	suite_add_tcase(s, tc);
	return vt_main(s);
}
