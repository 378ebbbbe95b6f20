// SPDX-License-Identifier: GPL-2.0
/*
 * Events: the kmem_ro generic netlink family, KMEM_RO_IOC_EVENTS_SNAPSHOT,
 * libkmemdev's kmemdev_events_*() and kmemctl watch.
 *
 *  - Loading and unloading kmem_ro_testobj gives two concurrent
 *    subscribers exactly LOADED then UNLOADED, with the name, base and
 *    size /proc/modules shows, and nothing else.
 *  - A handle bound to a stream resolves a module's symbols once the
 *    module's event arrived (an unbound handle still does not).
 *  - Snapshot counts equal what STATS reads once the probes are frozen;
 *    large sets arrive in bounded parts; the rate limit drops whole
 *    snapshots and counts them; an overrun is counted and reported.
 *  - Every bad input has its errno; closing or dying stops the snapshots;
 *    unprivileged subscribers are refused.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kmemdev.h"
#include "vmtest.h"

#define TESTOBJ		"kmem_ro_testobj"
#define TESTOBJ_SYM	"testobj_show"		/* a core text symbol of it */
#define HOT		"__x64_sys_getppid"
#define CALLS		1000
#define RATE_PARAM	"/sys/module/kmem_ro/parameters/events_rate"
#define BIG		384	/* probes for the split and rate tests */
#define UNLOADED_JSON	"{\"event\":\"module_unloaded\","

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Load or unload the test module unless it already is. */
static void testobj_set(bool loaded)
{
	if ((vt_module_refcnt(TESTOBJ) >= 0) == loaded)
		return;
	if (loaded)
		ck_assert_int_eq(vt_module_load(VMTEST_TESTOBJ_PATH, ""), 0);
	else
		ck_assert_int_eq(vt_module_unload(TESTOBJ), 0);
}

/* A module's address and size as /proc/modules shows them. */
static void proc_module(const char *name, uint64_t *base, uint64_t *size)
{
	FILE *f = fopen("/proc/modules", "re");
	char line[512], n[64];
	unsigned long long sz;
	bool found = false;

	ck_assert_ptr_nonnull(f);
	while (!found && fgets(line, sizeof(line), f)) {
		char *addr = strstr(line, " 0x");

		if (sscanf(line, "%63s %llu", n, &sz) == 2 && !strcmp(n, name) && addr) {
			*base = strtoull(addr + 1, NULL, 16);
			*size = sz;
			found = true;
		}
	}
	fclose(f);
	ck_assert_msg(found, "%s not in /proc/modules", name);
}

static uint64_t section_text(const char *name)
{
	char path[128];
	unsigned long long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/module/%s/sections/.text", name);
	f = fopen(path, "re");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fscanf(f, "%llx", &v), 1);
	fclose(f);
	return v;
}

static struct kmemdev_events *stream(struct kmemdev *h, unsigned int groups)
{
	struct kmemdev_events *ev;

	ck_assert_int_eq(kmemdev_events_open(&ev, h), 0);
	ck_assert_int_eq(kmemdev_events_subscribe(ev, groups), 0);
	return ev;
}

static unsigned int running_snapshots(void)
{
	struct kmemdev_events *ev;
	unsigned int n = ~0U;

	ck_assert_int_eq(kmemdev_events_open(&ev, NULL), 0);
	ck_assert_int_eq(kmemdev_events_info(ev, NULL, &n), 0);
	kmemdev_events_close(ev);
	return n;
}

static uint64_t dropped_now(void)
{
	struct kmemdev_events *ev;
	uint64_t n = 0;

	ck_assert_int_eq(kmemdev_events_open(&ev, NULL), 0);
	ck_assert_int_eq(kmemdev_events_info(ev, &n, NULL), 0);
	kmemdev_events_close(ev);
	return n;
}

/*
 * GET_INFO again and again on one stream: its reply and its ack are two
 * datagrams, and the library once left the ack queued for the next call
 * to take as its answer (EPROTO every other call, as kmemctl watch asks).
 */
START_TEST(info_repeats_on_one_stream)
{
	struct kmemdev_events *ev;
	unsigned int n;
	uint64_t dropped;

	ck_assert_int_eq(kmemdev_events_open(&ev, NULL), 0);
	for (int i = 0; i < 4; i++) {
		int err = kmemdev_events_info(ev, &dropped, &n);

		ck_assert_msg(err == 0, "GET_INFO %d on one stream: %d", i, err);
	}
	ck_assert_int_eq(kmemdev_events_subscribe(ev, KMEMDEV_EVENTS_MODULES), 0);
	for (int i = 0; i < 4; i++)
		ck_assert_int_eq(kmemdev_events_info(ev, &dropped, &n), 0);
	kmemdev_events_close(ev);
}
END_TEST

/* ---- module events ---- */

struct modev {
	int type;
	uint64_t seq, base, size, text_size;
	char name[64];
};

struct collector {
	struct kmemdev_events *ev;
	struct modev got[8];
	int n, err;
};

/* Module events until 2 s of silence after the second (20 s before it). */
static void *collect_modules(void *arg)
{
	struct collector *c = arg;
	const struct kmemdev_event *e;
	int r;

	while ((r = kmemdev_events_next(c->ev, c->n < 2 ? 20000 : 2000, &e)) > 0) {
		if (c->n < 8) {
			struct modev *m = &c->got[c->n];

			m->type = e->type;
			m->seq = e->seq;
			m->base = e->module.base;
			m->size = e->module.size;
			m->text_size = e->module.text_size;
			memcpy(m->name, e->module.name, sizeof(m->name));
		}
		c->n++;
	}
	c->err = r;
	return NULL;
}

static void check_modev(const struct modev *m, int type, uint64_t base, uint64_t size,
			uint64_t text)
{
	ck_assert_int_eq(m->type, type);
	ck_assert_str_eq(m->name, TESTOBJ);
	ck_assert_uint_eq(m->base, base);
	ck_assert_uint_eq(m->size, size);
	ck_assert_uint_gt(m->text_size, 0);
	ck_assert_uint_le(m->text_size, m->size);
	ck_assert(text >= m->base && text < m->base + m->text_size);
}

START_TEST(module_events_two_subscribers)
{
	struct collector c[2] = { 0 };
	pthread_t t[2];
	uint64_t base, size, text;

	testobj_set(false);
	for (int i = 0; i < 2; i++) {
		c[i].ev = stream(NULL, KMEMDEV_EVENTS_MODULES);
		ck_assert_int_eq(pthread_create(&t[i], NULL, collect_modules, &c[i]), 0);
	}
	ck_assert_int_eq(vt_module_load(VMTEST_TESTOBJ_PATH, ""), 0);
	proc_module(TESTOBJ, &base, &size);
	text = section_text(TESTOBJ);
	ck_assert_int_eq(vt_module_unload(TESTOBJ), 0);
	for (int i = 0; i < 2; i++) {
		pthread_join(t[i], NULL);
		kmemdev_events_close(c[i].ev);
		ck_assert_int_eq(c[i].err, 0);		/* ended by silence */
		ck_assert_int_eq(c[i].n, 2);		/* and nothing else */
		check_modev(&c[i].got[0], KMEMDEV_EVENT_MODULE_LOADED, base, size, text);
		check_modev(&c[i].got[1], KMEMDEV_EVENT_MODULE_UNLOADED, base, size, text);
		ck_assert_uint_eq(c[i].got[1].seq, c[i].got[0].seq + 1);
	}
	/* one multicast each: both saw the same messages */
	ck_assert_uint_eq(c[0].got[0].seq, c[1].got[0].seq);
	testobj_set(true);
}
END_TEST

/* The next module event for TESTOBJ of @type, within 20 s. */
static void wait_module(struct kmemdev_events *ev, int type)
{
	const struct kmemdev_event *e;

	for (;;) {
		ck_assert_int_eq(kmemdev_events_next(ev, 20000, &e), 1);
		if (e->type == type && !strcmp(e->module.name, TESTOBJ))
			return;
	}
}

START_TEST(symbols_follow_module_events)
{
	struct kmemdev *h, *stale;
	struct kmemdev_events *ev;
	uint64_t addr;

	testobj_set(false);
	ck_assert_int_eq(kmemdev_open(&h, NULL), 0);
	ck_assert_int_eq(kmemdev_open(&stale, NULL), 0);
	/* both tables loaded now, without the module */
	ck_assert_int_eq(kmemdev_symbol(h, TESTOBJ_SYM, &addr), -ENOENT);
	ck_assert_int_eq(kmemdev_symbol(stale, TESTOBJ_SYM, &addr), -ENOENT);
	ev = stream(h, KMEMDEV_EVENTS_MODULES);

	ck_assert_int_eq(vt_module_load(VMTEST_TESTOBJ_PATH, ""), 0);
	wait_module(ev, KMEMDEV_EVENT_MODULE_LOADED);
	ck_assert_int_eq(kmemdev_symbol(h, TESTOBJ_SYM, &addr), 0);
	ck_assert_uint_eq(addr, vt_kallsyms(TESTOBJ_SYM));
	/* the cache is real: a handle without a stream still misses it */
	ck_assert_int_eq(kmemdev_symbol(stale, TESTOBJ_SYM, &addr), -ENOENT);

	ck_assert_int_eq(vt_module_unload(TESTOBJ), 0);
	wait_module(ev, KMEMDEV_EVENT_MODULE_UNLOADED);
	ck_assert_int_eq(kmemdev_symbol(h, TESTOBJ_SYM, &addr), -ENOENT);
	ck_assert_int_eq(kmemdev_symbol(h, "linux_banner", &addr), 0);

	kmemdev_events_close(ev);
	kmemdev_close(stale);
	kmemdev_close(h);
	testobj_set(true);
}
END_TEST

/* ---- snapshots ---- */

/* One whole snapshot, assembled from its parts. */
struct snap {
	uint64_t id, tick, time_ns;
	uint64_t seq_first, seq_last, dropped_first, dropped_last;
	uint32_t owner, interval_ms, total, have, parts;
	uint64_t ids[BIG], counts[BIG];
};

/* The next part of stream @id; fails the test after @ms. */
static const struct kmemdev_event *next_part(struct kmemdev_events *ev, uint64_t id, int ms)
{
	int64_t end = now_ms() + ms;
	const struct kmemdev_event *e;

	for (;;) {
		int64_t left = end - now_ms();

		ck_assert_msg(left > 0, "no snapshot of stream %" PRIu64 " within %d ms", id, ms);
		ck_assert_int_eq(kmemdev_events_next(ev, (int)left, &e), 1);
		if (e->type == KMEMDEV_EVENT_SNAPSHOT && e->snapshot.id == id)
			return e;
	}
}

/* Parts of stream @id until one snapshot is whole (a partial one restarts). */
static void whole_snap(struct kmemdev_events *ev, uint64_t id, int ms, struct snap *s)
{
	bool started = false;

	for (;;) {
		const struct kmemdev_event *e = next_part(ev, id, ms);

		if (e->snapshot.first == 0) {
			started = true;
			memset(s, 0, sizeof(*s));
			s->id = id;
			s->tick = e->snapshot.tick;
			s->time_ns = e->snapshot.time_ns;
			s->owner = e->snapshot.owner;
			s->interval_ms = e->snapshot.interval_ms;
			s->total = e->snapshot.total;
			s->seq_first = e->seq;
			s->dropped_first = e->dropped;
		} else if (!started || e->snapshot.tick != s->tick ||
			   e->snapshot.first != s->have) {
			started = false;		/* a part of another one */
			continue;
		}
		ck_assert_uint_le(e->snapshot.first + e->snapshot.count, BIG);
		ck_assert_uint_eq(e->snapshot.time_ns, s->time_ns);
		memcpy(s->ids + e->snapshot.first, e->snapshot.ids,
		       e->snapshot.count * sizeof(uint64_t));
		memcpy(s->counts + e->snapshot.first, e->snapshot.counts,
		       e->snapshot.count * sizeof(uint64_t));
		s->have = e->snapshot.first + e->snapshot.count;
		s->seq_last = e->seq;
		s->dropped_last = e->dropped;
		s->parts++;
		if (s->have == s->total)
			return;
	}
}

/*
 * The two getppid probes (entry: ftrace, offset: kprobe), disabled; ids
 * ascending, as snapshots list them.  No assertion: children call it too.
 */
static int try_add_hot(struct kmemdev *h, uint64_t ids[2])
{
	struct kmem_ro_probe_spec s[2];
	uint64_t addr;
	int err;

	err = kmemdev_probe_spec_fill(h, &s[0], HOT, 0, 0);
	if (err)
		return err;
	addr = s[0].addr;
	err = kmemdev_probe_spec_fill(h, &s[1], HOT, vt_after_fentry(addr), 0);
	if (!err)
		err = kmemdev_probes_add(h, s, 2, NULL);
	if (err)
		return err;
	if (s[0].result <= 0 || s[1].result <= 0)
		return -EPROTO;
	ids[0] = s[0].result < s[1].result ? s[0].result : s[1].result;
	ids[1] = s[0].result < s[1].result ? s[1].result : s[0].result;
	return 0;
}

static void add_hot(struct kmemdev *h, uint64_t ids[2])
{
	ck_assert_int_eq(try_add_hot(h, ids), 0);
}

/* Count CALLS getppid() calls, then freeze the counts; when they froze. */
static uint64_t count_calls(struct kmemdev *h, const uint64_t ids[2])
{
	ck_assert_int_eq(kmemdev_probes_enable(h, ids, 2), 0);
	vt_call_getppid(CALLS);
	ck_assert_int_eq(kmemdev_probes_disable(h, ids, 2), 0);
	return now_ns();
}

/* The first whole snapshot whose counts were read after @after_ns. */
static void snap_after(struct kmemdev_events *ev, uint64_t id, uint64_t after_ns,
		       struct snap *s)
{
	do
		whole_snap(ev, id, 10000, s);
	while (s->time_ns <= after_ns);
}

START_TEST(snapshot_counts_match_stats)
{
	struct kmemdev_events *ev;
	struct kmemdev *h;
	uint64_t ids[2], stats[2], id, id2, frozen, stopped;
	struct snap *s = calloc(2, sizeof(*s));
	const struct kmemdev_event *e;
	int r;

	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(kmemdev_open(&h, NULL), 0);
	add_hot(h, ids);
	ev = stream(NULL, KMEMDEV_EVENTS_SNAPSHOTS);
	ck_assert_uint_eq(running_snapshots(), 0);

	frozen = count_calls(h, ids);
	ck_assert_int_eq(kmemdev_events_snapshot(h, 100, &id), 0);
	ck_assert_uint_gt(id, 0);
	ck_assert_uint_eq(running_snapshots(), 1);
	snap_after(ev, id, frozen, &s[0]);
	ck_assert_uint_eq(s[0].owner, getpid());
	ck_assert_uint_eq(s[0].interval_ms, 100);
	ck_assert_uint_eq(s[0].total, 2);
	ck_assert_uint_eq(s[0].parts, 1);
	ck_assert_uint_eq(s[0].ids[0], ids[0]);
	ck_assert_uint_eq(s[0].ids[1], ids[1]);
	ck_assert_int_eq(kmemdev_probes_stats(h, ids, 2, stats, 0), 2);
	ck_assert_uint_eq(s[0].counts[0], stats[0]);
	ck_assert_uint_eq(s[0].counts[1], stats[1]);
	ck_assert_uint_ge(stats[0], CALLS);
	ck_assert_uint_ge(stats[1], CALLS);

	/* the next snapshot comes one interval later */
	whole_snap(ev, id, 10000, &s[1]);
	if (s[1].tick == s[0].tick + 1)
		ck_assert_uint_ge(s[1].time_ns - s[0].time_ns, 90 * 1000000ULL);
	ck_assert_uint_gt(s[1].tick, s[0].tick);

	/* counts are live: more calls show up, still equal to STATS */
	frozen = count_calls(h, ids);
	snap_after(ev, id, frozen, &s[1]);
	ck_assert_int_eq(kmemdev_probes_stats(h, ids, 2, stats, 0), 2);
	ck_assert_uint_eq(s[1].counts[0], stats[0]);
	ck_assert_uint_eq(s[1].counts[1], stats[1]);
	ck_assert_uint_ge(s[1].counts[0], s[0].counts[0] + CALLS);

	/* a new interval keeps the stream */
	ck_assert_int_eq(kmemdev_events_snapshot(h, 300, &id2), 0);
	ck_assert_uint_eq(id2, id);
	do
		whole_snap(ev, id, 10000, &s[1]);
	while (s[1].interval_ms != 300);

	/* no probes left: one empty part per snapshot */
	ck_assert_int_eq(kmemdev_probes_del_all(h), 0);
	snap_after(ev, id, now_ns(), &s[1]);
	ck_assert_uint_eq(s[1].total, 0);
	ck_assert_uint_eq(s[1].parts, 1);

	/* stop: nothing read after it returned */
	ck_assert_int_eq(kmemdev_events_snapshot(h, 0, &id2), 0);
	stopped = now_ns();
	ck_assert_uint_eq(id2, id);
	ck_assert_uint_eq(running_snapshots(), 0);
	while ((r = kmemdev_events_next(ev, 1000, &e)) > 0)
		if (e->type == KMEMDEV_EVENT_SNAPSHOT)
			ck_assert_uint_lt(e->snapshot.time_ns, stopped);
	ck_assert_int_eq(r, 0);
	ck_assert_int_eq(kmemdev_events_snapshot(h, 0, NULL), -ENOENT);

	kmemdev_events_close(ev);
	kmemdev_close(h);
	free(s);
}
END_TEST

#define CANDIDATES	4096	/* functions to try: many are not traceable */

struct globbed {
	struct kmem_ro_probe_spec *specs;
	unsigned int n;
};

static int take_vmlinux(const struct kmemdev_sym *sym, void *arg)
{
	struct globbed *g = arg;

	if (sym->module || strlen(sym->name) >= KMEM_RO_PROBE_NAME_LEN)
		return 0;
	memset(&g->specs[g->n], 0, sizeof(g->specs[g->n]));
	g->specs[g->n].addr = sym->addr;
	strcpy(g->specs[g->n].name, sym->name);
	return ++g->n == CANDIDATES ? 1 : 0;
}

/* Between 2 and 3 parts' worth of disabled probes; their ids, ascending. */
static unsigned int add_big(struct kmemdev *h, uint64_t *ids)
{
	struct globbed g = { calloc(CANDIDATES, sizeof(*g.specs)), 0 };
	unsigned int added = 0, n = 0, off, k, got;

	ck_assert_ptr_nonnull(g.specs);
	ck_assert_int_eq(kmemdev_probe_glob(h, "*", take_vmlinux, &g), 1);
	/* 64 at a time, up to 300: never past BIG */
	for (off = 0; off < g.n && added < 300; off += k) {
		k = g.n - off < 64 ? g.n - off : 64;
		ck_assert_int_eq(kmemdev_probes_add(h, g.specs + off, k, &got), 0);
		added += got;
	}
	ck_assert_uint_gt(added, 2 * KMEM_RO_EVENTS_SNAP_MAX_IDS);
	ck_assert_uint_le(added, BIG);
	for (unsigned int i = 0; i < off; i++)
		if (g.specs[i].result > 0)
			ids[n++] = g.specs[i].result;
	ck_assert_uint_eq(n, added);
	free(g.specs);
	/* ids come in the order given: sort for the comparison */
	for (unsigned int i = 1; i < n; i++)
		for (unsigned int j = i; j && ids[j - 1] > ids[j]; j--) {
			uint64_t t = ids[j];

			ids[j] = ids[j - 1];
			ids[j - 1] = t;
		}
	return n;
}

START_TEST(snapshot_large_set_split_and_rate_limited)
{
	struct snap *s = calloc(2, sizeof(*s));
	uint64_t ids[BIG], id, seq0, drop0, got_parts = 0;
	unsigned int n, parts;
	struct kmemdev_events *ev;
	struct kmemdev *h;
	int64_t end;
	char rate[16];

	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(kmemdev_open(&h, NULL), 0);
	n = add_big(h, ids);
	parts = (n + KMEM_RO_EVENTS_SNAP_MAX_IDS - 1) / KMEM_RO_EVENTS_SNAP_MAX_IDS;
	ev = stream(NULL, KMEMDEV_EVENTS_SNAPSHOTS);
	ck_assert_int_eq(kmemdev_events_snapshot(h, 100, &id), 0);

	/* bounded parts, in order, one multicast after the other */
	whole_snap(ev, id, 10000, &s[0]);
	ck_assert_uint_eq(s[0].total, n);
	ck_assert_uint_eq(s[0].parts, parts);
	ck_assert_uint_eq(s[0].seq_last - s[0].seq_first + 1, parts);
	for (unsigned int i = 0; i < n; i++) {
		ck_assert_uint_eq(s[0].ids[i], ids[i]);
		ck_assert_uint_eq(s[0].counts[i], 0);		/* disabled */
	}

	/* a budget of one snapshot per second: the rest are dropped whole */
	snprintf(rate, sizeof(rate), "%u", parts);
	vt_write_file(RATE_PARAM, rate);
	snap_after(ev, id, now_ns(), &s[0]);
	seq0 = s[0].seq_first;
	drop0 = s[0].dropped_first;
	end = now_ms() + 3500;
	got_parts = s[0].parts;
	while (now_ms() < end) {
		whole_snap(ev, id, 10000, &s[1]);
		got_parts += s[1].parts;
		/* admitted at most once per second */
		ck_assert_uint_ge(s[1].time_ns - s[0].time_ns, 950 * 1000000ULL);
		ck_assert_uint_ge(s[1].tick, s[0].tick + 2);
		memcpy(&s[0], &s[1], sizeof(*s));
	}
	vt_write_file(RATE_PARAM, "1024");
	/* every message not received was dropped by the limit, and counted */
	ck_assert_uint_gt(s[0].seq_last - seq0 + 1, got_parts);
	ck_assert_uint_eq(s[0].dropped_last - drop0, s[0].seq_last - seq0 + 1 - got_parts);
	ck_assert_uint_eq((s[0].dropped_last - drop0) % parts, 0);

	ck_assert_int_eq(kmemdev_events_snapshot(h, 0, NULL), 0);
	kmemdev_events_close(ev);
	kmemdev_close(h);
	free(s);
}
END_TEST

START_TEST(overrun_is_counted_and_reported)
{
	struct kmemdev_events *slow, *fast;
	const struct kmemdev_event *e;
	struct kmemdev *h;
	uint64_t ids[2], id, drop0, first_dropped;
	int small = 1, r, overruns = 0;

	ck_assert_int_eq(kmemdev_open(&h, NULL), 0);
	add_hot(h, ids);
	slow = stream(NULL, KMEMDEV_EVENTS_SNAPSHOTS);
	ck_assert_int_eq(setsockopt(kmemdev_events_fd(slow), SOL_SOCKET, SO_RCVBUF, &small,
				    sizeof(small)), 0);
	fast = stream(NULL, KMEMDEV_EVENTS_SNAPSHOTS);
	drop0 = dropped_now();
	ck_assert_int_eq(kmemdev_events_snapshot(h, 100, &id), 0);
	first_dropped = next_part(fast, id, 10000)->dropped;
	for (int i = 0; i < 20; i++)
		next_part(fast, id, 10000);
	/* the fast one saw the count rise while the slow one lost messages */
	ck_assert_uint_gt(next_part(fast, id, 10000)->dropped, first_dropped);
	ck_assert_uint_gt(dropped_now(), drop0);
	/* the slow one hears of it, and goes on */
	while ((r = kmemdev_events_next(slow, 0, &e)) != 0) {
		if (r == -ENOBUFS)
			overruns++;
		else
			ck_assert_int_eq(r, 1);
	}
	ck_assert_int_gt(overruns, 0);
	ck_assert_ptr_nonnull(next_part(slow, id, 10000));

	ck_assert_int_eq(kmemdev_events_snapshot(h, 0, NULL), 0);
	kmemdev_events_close(slow);
	kmemdev_events_close(fast);
	kmemdev_close(h);
}
END_TEST

/* ---- closing, dying ---- */

/* Stream @id has stopped: nothing it sends may be stamped after now. */
static void no_snapshot_after_now(struct kmemdev_events *ev, uint64_t id)
{
	const struct kmemdev_event *e;
	uint64_t closed = now_ns();
	int r;

	ck_assert_uint_eq(running_snapshots(), 0);
	while ((r = kmemdev_events_next(ev, 1000, &e)) > 0)
		if (e->type == KMEMDEV_EVENT_SNAPSHOT && e->snapshot.id == id)
			ck_assert_uint_lt(e->snapshot.time_ns, closed);
	ck_assert_int_eq(r, 0);
}

START_TEST(close_and_death_stop_snapshots)
{
	struct kmemdev_events *ev = stream(NULL, KMEMDEV_EVENTS_SNAPSHOTS);
	uint64_t ids[2], id;
	int pipefd[2], status;
	struct kmemdev *h;
	pid_t pid;

	ck_assert_int_eq(kmemdev_open(&h, NULL), 0);
	add_hot(h, ids);
	ck_assert_int_eq(kmemdev_events_snapshot(h, 100, &id), 0);
	next_part(ev, id, 10000);
	kmemdev_close(h);
	no_snapshot_after_now(ev, id);

	/* a process killed with its stream running */
	ck_assert_int_eq(pipe(pipefd), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		close(pipefd[0]);
		if (kmemdev_open(&h, NULL) || try_add_hot(h, ids) ||
		    kmemdev_events_snapshot(h, 100, &id))
			_exit(1);
		write(pipefd[1], &id, sizeof(id));
		pause();
		_exit(0);
	}
	close(pipefd[1]);
	ck_assert_int_eq(read(pipefd[0], &id, sizeof(id)), sizeof(id));
	close(pipefd[0]);
	ck_assert_uint_eq(next_part(ev, id, 10000)->snapshot.owner, pid);
	kill(pid, SIGKILL);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	no_snapshot_after_now(ev, id);
	kmemdev_events_close(ev);
}
END_TEST

/* ---- rules ---- */

static int snap_ioctl(int fd, uint64_t flags, uint32_t interval_ms, uint64_t *id)
{
	struct kmem_ro_events_snapshot a = {
		.size = sizeof(a), .flags = flags, .interval_ms = interval_ms,
	};
	int err = vt_ioctl(fd, KMEM_RO_IOC_EVENTS_SNAPSHOT, &a);

	if (id)
		*id = a.id;
	return err;
}

static int start_without_caps(void *arg)
{
	return snap_ioctl(*(int *)arg, 0, 100, NULL) == -EPERM ? 0 : 1;
}

static int start_with_perfmon(void *arg)
{
	return snap_ioctl(*(int *)arg, 0, 100, NULL) ? 1 : 0;
}

START_TEST(snapshot_bad_input)
{
	struct kmem_ro_events_snapshot a;
	struct kmem_ro_probe_spec s;
	struct kmem_ro_probe_add add = { .size = sizeof(add), .specs_addr = (uintptr_t)&s,
					 .count = 1 };
	struct kmem_ro_info info;
	int fd = vt_open_dev(), other = vt_open_dev();
	uint64_t id, id2;
	char big[8192];

	ck_assert_int_eq(vt_info(fd, &info, NULL, 0), 0);
	ck_assert(info.features & KMEM_RO_FEAT_EVENTS);
	ck_assert(info.ioctls & (1ULL << _IOC_NR(KMEM_RO_IOC_EVENTS_SNAPSHOT)));
#define SNAP(errno_, stmt) do {							\
		a = (struct kmem_ro_events_snapshot){ .size = sizeof(a),	\
			.interval_ms = 100 };					\
		stmt;								\
		ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_EVENTS_SNAPSHOT, &a), errno_); \
	} while (0)
	SNAP(-EINVAL, a.size = KMEM_RO_EVENTS_SNAPSHOT_SIZE_VER0 - 8);
	SNAP(-EINVAL, a.flags = 2);
	SNAP(-EINVAL, a.reserved0 = 1);
	SNAP(-EINVAL, a.reserved[1] = 1);
	SNAP(-EINVAL, a.interval_ms = KMEM_RO_EVENTS_SNAPSHOT_MIN_MS - 1);
	SNAP(-EINVAL, a.interval_ms = KMEM_RO_EVENTS_SNAPSHOT_MAX_MS + 1);
	SNAP(-EINVAL, a.interval_ms = 0);
	SNAP(-EINVAL, a.flags = KMEM_RO_EVENTS_SNAPSHOT_STOP);	/* with an interval */
	SNAP(-ENOENT, (void)0);				/* no probes yet */
	SNAP(-ENOENT, (a.flags = KMEM_RO_EVENTS_SNAPSHOT_STOP, a.interval_ms = 0));
#undef SNAP
	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_EVENTS_SNAPSHOT, (void *)0x10), -EFAULT);
	/* larger than known: a zero tail is fine, anything else E2BIG */
	memset(big, 0, sizeof(big));
	((struct kmem_ro_events_snapshot *)big)->size = 64;
	((struct kmem_ro_events_snapshot *)big)->interval_ms = 100;
	big[60] = 1;
	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_EVENTS_SNAPSHOT, big), -E2BIG);
	((struct kmem_ro_events_snapshot *)big)->size = sizeof(big);
	big[60] = 0;
	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_EVENTS_SNAPSHOT, big), -E2BIG);

	/* with a probe: start, retime (same id), other files cannot touch it */
	memset(&s, 0, sizeof(s));
	s.addr = vt_kallsyms(HOT);
	strcpy(s.name, HOT);
	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_PROBE_ADD, &add), 0);
	ck_assert_int_gt(s.result, 0);
	((struct kmem_ro_events_snapshot *)big)->size = 64;
	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_EVENTS_SNAPSHOT, big), 0);	/* zero tail */
	ck_assert_uint_gt(((struct kmem_ro_events_snapshot *)big)->id, 0);
	ck_assert_int_eq(snap_ioctl(fd, 0, 100, &id), 0);
	ck_assert_uint_eq(id, ((struct kmem_ro_events_snapshot *)big)->id);
	ck_assert_int_eq(snap_ioctl(fd, 0, KMEM_RO_EVENTS_SNAPSHOT_MAX_MS, &id2), 0);
	ck_assert_uint_eq(id2, id);
	ck_assert_int_eq(snap_ioctl(other, KMEM_RO_EVENTS_SNAPSHOT_STOP, 0, NULL), -ENOENT);
	ck_assert_int_eq(snap_ioctl(other, 0, 100, NULL), -ENOENT);
	ck_assert_uint_eq(running_snapshots(), 1);
	ck_assert_int_eq(snap_ioctl(fd, KMEM_RO_EVENTS_SNAPSHOT_STOP, 0, &id2), 0);
	ck_assert_uint_eq(id2, id);
	ck_assert_int_eq(snap_ioctl(fd, KMEM_RO_EVENTS_SNAPSHOT_STOP, 0, NULL), -ENOENT);

	/* the same file in a process without CAP_PERFMON or CAP_SYS_ADMIN */
	ck_assert_int_eq(vt_run_as(NOBODY, NOBODY, -1, start_without_caps, &fd), 0);
	ck_assert_uint_eq(running_snapshots(), 0);
	/* CAP_PERFMON alone is enough; the stream is the file's, not the process's */
	ck_assert_int_eq(vt_run_as(0, 0, CAP_SYS_ADMIN, start_with_perfmon, &fd), 0);
	ck_assert_uint_eq(running_snapshots(), 1);
	ck_assert_int_eq(snap_ioctl(fd, KMEM_RO_EVENTS_SNAPSHOT_STOP, 0, NULL), 0);
	/* probe_group=1: the fd is enough, for a group member without caps */
	ck_assert_int_eq(vt_run_as_monitor(start_without_caps, &fd), 0);
	vt_write_file(PROBE_GROUP_PARAM, "1");
	ck_assert_int_eq(vt_run_as_monitor(start_with_perfmon, &fd), 0);
	ck_assert_uint_eq(running_snapshots(), 1);
	/* turning it off stops the stream it allowed; root's probe stays */
	vt_write_file(PROBE_GROUP_PARAM, "0");
	ck_assert_uint_eq(running_snapshots(), 0);
	ck_assert_int_eq(snap_ioctl(fd, KMEM_RO_EVENTS_SNAPSHOT_STOP, 0, NULL), -ENOENT);
	ck_assert_int_eq(vt_run_as_monitor(start_without_caps, &fd), 0);
	/* a stream root started while probe_group was on is root's: it stays */
	vt_write_file(PROBE_GROUP_PARAM, "1");
	ck_assert_int_eq(snap_ioctl(fd, 0, 100, NULL), 0);
	vt_write_file(PROBE_GROUP_PARAM, "0");
	ck_assert_uint_eq(running_snapshots(), 1);
	ck_assert_int_eq(snap_ioctl(fd, KMEM_RO_EVENTS_SNAPSHOT_STOP, 0, NULL), 0);
	close(other);
	close(fd);
}
END_TEST

static int subscribe_as_user(void *unused)
{
	struct kmemdev_events *ev;
	unsigned int n;

	(void)unused;
	if (kmemdev_events_open(&ev, NULL))
		return 10;		/* resolving the family needs nothing */
	if (kmemdev_events_subscribe(ev, KMEMDEV_EVENTS_MODULES) != -EPERM)
		return 11;
	if (kmemdev_events_subscribe(ev, KMEMDEV_EVENTS_SNAPSHOTS) != -EPERM)
		return 12;
	if (kmemdev_events_info(ev, NULL, &n))
		return 13;		/* nor does GET_INFO */
	kmemdev_events_close(ev);
	return 0;
}

START_TEST(unprivileged_subscribers_refused)
{
	struct kmemdev_events *ev;

	ck_assert_int_eq(vt_run_as(NOBODY, NOBODY, -1, subscribe_as_user, NULL), 0);
	/* CAP_PERFMON is not enough either: the kernel checks CAP_SYS_ADMIN */
	ck_assert_int_eq(vt_run_as(0, 0, CAP_SYS_ADMIN, subscribe_as_user, NULL), 0);
	ck_assert_int_eq(kmemdev_events_open(&ev, NULL), 0);
	ck_assert_int_eq(kmemdev_events_subscribe(ev, 0), -EINVAL);
	ck_assert_int_eq(kmemdev_events_subscribe(ev, 4), -EINVAL);
	ck_assert_int_eq(kmemdev_events_subscribe(ev, KMEMDEV_EVENTS_MODULES |
						      KMEMDEV_EVENTS_SNAPSHOTS), 0);
	kmemdev_events_close(ev);
}
END_TEST

/* ---- kmemctl watch ---- */

struct child {
	pid_t pid;
	int out, err;
};

/* @argv as @uid in group @gid (0: as we are), stdout and stderr piped. */
static void spawn_as(char *const argv[], struct child *c, uid_t uid, gid_t gid)
{
	int out[2], err[2];

	ck_assert_int_eq(pipe2(out, O_CLOEXEC), 0);
	ck_assert_int_eq(pipe2(err, O_CLOEXEC), 0);
	c->pid = fork();
	ck_assert_int_ge(c->pid, 0);
	if (!c->pid) {
		dup2(out[1], STDOUT_FILENO);
		dup2(err[1], STDERR_FILENO);
		if (uid && (setgroups(1, &gid) || setgid(gid) || setuid(uid)))
			_exit(126);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(out[1]);
	close(err[1]);
	c->out = out[0];
	c->err = err[0];
}

static void spawn(char *const argv[], struct child *c)
{
	spawn_as(argv, c, 0, 0);
}

/* Read @fd into @buf until @needle shows up (NULL: EOF); false on timeout. */
static bool read_until(int fd, const char *needle, char *buf, size_t sz, int ms)
{
	int64_t end = now_ms() + ms;
	size_t len = 0;

	buf[0] = '\0';
	while (!needle || !strstr(buf, needle)) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int64_t left = end - now_ms();
		ssize_t n;

		if (left <= 0 || poll(&p, 1, (int)left) <= 0)
			return false;
		n = read(fd, buf + len, sz - 1 - len);
		if (n <= 0)
			return !needle;
		len += n;
		buf[len] = '\0';
	}
	return true;
}

static int finish(struct child *c)
{
	int status;

	close(c->out);
	close(c->err);
	ck_assert_int_eq(waitpid(c->pid, &status, 0), c->pid);
	ck_assert(WIFEXITED(status));
	return WEXITSTATUS(status);
}

START_TEST(watch_tool)
{
	char *json[] = { "kmemctl", "watch", "--json", "--modules", "--count", "2", NULL };
	char *text[] = { "kmemctl", "watch", "--snapshots", "--count", "1", NULL };
	char *plain[] = { "kmemctl", "watch", NULL };
	char *zero[] = { "kmemctl", "watch", "--count", "0", NULL };
	char *extra[] = { "kmemctl", "watch", "now", NULL };
	static char out[16384], err[4096];
	uint64_t base, size, ids[2], id;
	char want[256], *second;
	struct kmemdev *h;
	struct child c;

	/* JSON, one object per line: exactly the two module events */
	testobj_set(true);
	spawn(json, &c);
	ck_assert_msg(read_until(c.err, "watching", err, sizeof(err), 20000), "stderr: %s", err);
	ck_assert_int_eq(vt_module_unload(TESTOBJ), 0);
	ck_assert_int_eq(vt_module_load(VMTEST_TESTOBJ_PATH, ""), 0);
	proc_module(TESTOBJ, &base, &size);
	ck_assert(read_until(c.out, NULL, out, sizeof(out), 30000));
	ck_assert_int_eq(finish(&c), 0);
	ck_assert_int_eq(vt_count_lines(out), 2);
	ck_assert_msg(!strncmp(out, UNLOADED_JSON, strlen(UNLOADED_JSON)), "got: %s", out);
	second = strchr(out, '\n') + 1;
	ck_assert_ptr_nonnull(strstr(second, "{\"event\":\"module_loaded\","));
	ck_assert_ptr_nonnull(strstr(second, "\"name\":\"" TESTOBJ "\""));
	snprintf(want, sizeof(want), "\"base\":\"0x%016" PRIx64 "\"", base);
	ck_assert_ptr_nonnull(strstr(second, want));
	ck_assert_int_eq(vt_json_num(second, "size"), (long long)size);

	/* text: a snapshot line naming the stream, its owner and the probes */
	ck_assert_int_eq(kmemdev_open(&h, NULL), 0);
	add_hot(h, ids);
	spawn(text, &c);
	ck_assert(read_until(c.err, "watching snapshots", err, sizeof(err), 20000));
	ck_assert_int_eq(kmemdev_events_snapshot(h, 100, &id), 0);
	ck_assert(read_until(c.out, NULL, out, sizeof(out), 30000));
	ck_assert_int_eq(finish(&c), 0);
	snprintf(want, sizeof(want), "snapshot id %" PRIu64 " tick ", id);
	ck_assert_msg(!strncmp(out, want, strlen(want)), "got: %s", out);
	snprintf(want, sizeof(want), " pid %d every 100 ms, probes 0-2 of 2: %" PRIu64
		 "=0 %" PRIu64 "=0\n", getpid(), ids[0], ids[1]);
	ck_assert_msg(strstr(out, want), "got: %s", out);
	kmemdev_close(h);

	/* refusals */
	ck_assert_int_eq(vt_exec(NOBODY, NOBODY, plain, out, sizeof(out), err, sizeof(err)), 1);
	ck_assert_msg(strstr(err, "CAP_SYS_ADMIN"), "stderr: %s", err);
	ck_assert_int_eq(vt_exec(0, 0, zero, out, sizeof(out), err, sizeof(err)), 2);
	ck_assert_int_eq(vt_exec(0, 0, extra, out, sizeof(out), err, sizeof(err)), 2);
}
END_TEST

/*
 * A member of the device's group, without CAP_SYS_ADMIN, may not join the
 * netlink groups; watch polls the module list through the device instead
 * and prints the same events root gets.
 */
START_TEST(watch_tool_as_group_member)
{
	char *json[] = { "kmemctl", "watch", "--json", "--modules", "--count", "2",
			 "--interval", "50", NULL };
	char *snaps[] = { "kmemctl", "watch", "--snapshots", "--count", "1", NULL };
	static char out[16384], err[4096];
	uint64_t base, size;
	char want[256], *second;
	struct child c;

	testobj_set(true);
	ck_assert_int_eq(chown(KMEM_RO_DEVICE, 0, MONITOR_GID), 0);
	spawn_as(json, &c, NOBODY, MONITOR_GID);
	ck_assert_msg(read_until(c.err, "watching modules (polling", err, sizeof(err), 20000),
		      "stderr: %s", err);
	ck_assert_int_eq(vt_module_unload(TESTOBJ), 0);
	usleep(500 * 1000);	/* ten polling periods: the unload is seen alone */
	ck_assert_int_eq(vt_module_load(VMTEST_TESTOBJ_PATH, ""), 0);
	proc_module(TESTOBJ, &base, &size);
	ck_assert(read_until(c.out, NULL, out, sizeof(out), 30000));
	ck_assert_int_eq(finish(&c), 0);
	ck_assert_int_eq(vt_count_lines(out), 2);
	ck_assert_msg(!strncmp(out, UNLOADED_JSON, strlen(UNLOADED_JSON)), "got: %s", out);
	second = strchr(out, '\n') + 1;
	ck_assert_ptr_nonnull(strstr(second, "{\"event\":\"module_loaded\","));
	ck_assert_ptr_nonnull(strstr(second, "\"name\":\"" TESTOBJ "\""));
	snprintf(want, sizeof(want), "\"base\":\"0x%016" PRIx64 "\"", base);
	ck_assert_msg(strstr(second, want), "want %s in %s", want, second);
	ck_assert_int_eq(vt_json_num(second, "size"), (long long)size);

	/* snapshots cannot be polled: one line saying what is needed */
	ck_assert_int_eq(vt_exec(NOBODY, MONITOR_GID, snaps, out, sizeof(out), err,
				 sizeof(err)), 1);
	ck_assert_msg(strstr(err, "CAP_SYS_ADMIN") && vt_count_lines(err) == 1,
		      "stderr: %s", err);
	ck_assert_int_eq(chown(KMEM_RO_DEVICE, 0, 0), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("events");
	TCase *tc = tcase_create("modules");

	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, info_repeats_on_one_stream);
	tcase_add_test(tc, module_events_two_subscribers);
	tcase_add_test(tc, symbols_follow_module_events);
	suite_add_tcase(s, tc);

	tc = tcase_create("snapshots");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, snapshot_counts_match_stats);
	tcase_add_test(tc, snapshot_large_set_split_and_rate_limited);
	tcase_add_test(tc, overrun_is_counted_and_reported);
	tcase_add_test(tc, close_and_death_stop_snapshots);
	suite_add_tcase(s, tc);

	tc = tcase_create("rules");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, snapshot_bad_input);
	tcase_add_test(tc, unprivileged_subscribers_refused);
	tcase_add_test(tc, watch_tool);
	tcase_add_test(tc, watch_tool_as_group_member);
	suite_add_tcase(s, tc);
	return vt_main(s);
}
