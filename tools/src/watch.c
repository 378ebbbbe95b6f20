// SPDX-License-Identifier: GPL-2.0
/*
 * kmemctl watch: print kmem_ro events as they arrive - module loads and
 * unloads, and probe-count snapshots of any process that asked for them
 * (KMEM_RO_IOC_EVENTS_SNAPSHOT) - as text or one JSON object per line.
 *
 * The netlink groups are CAP_SYS_ADMIN's: genl_bind() (6.1, 6.12, 7.3)
 * lets a family gate a multicast group by a capability flag only, never by
 * who holds the device, and module addresses must not reach every user.
 * A member of the device's group may read the module list itself, so for
 * them module events come from polling it through the device.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <time.h>
#include <unistd.h>

#include "json.h"
#include "kmemctl.h"
#include "modlist.h"
#include "parse.h"
#include "stop.h"

#define WATCH_USAGE "Usage: kmemctl watch [--json] [--modules] [--snapshots] [--count N] [--interval MS]\n"
#define POLL_MS_DEFAULT	250

static const char *type_name(int type)
{
	switch (type) {
	case KMEMDEV_EVENT_MODULE_LOADED:
		return "module_loaded";
	case KMEMDEV_EVENT_MODULE_UNLOADED:
		return "module_unloaded";
	default:
		return "snapshot";
	}
}

static void print_json(const struct kmemdev_event *e)
{
	struct json j;
	uint32_t i;

	json_init(&j, stdout);
	json_object_begin(&j, NULL);
	json_str(&j, "event", type_name(e->type));
	json_u64(&j, "seq", e->seq);
	json_u64(&j, "dropped", e->dropped);
	if (e->type == KMEMDEV_EVENT_SNAPSHOT) {
		json_u64(&j, "id", e->snapshot.id);
		json_u64(&j, "tick", e->snapshot.tick);
		json_u64(&j, "time_ns", e->snapshot.time_ns);
		json_u64(&j, "owner", e->snapshot.owner);
		json_u64(&j, "interval_ms", e->snapshot.interval_ms);
		json_u64(&j, "total", e->snapshot.total);
		json_u64(&j, "first", e->snapshot.first);
		json_array_begin(&j, "ids");
		for (i = 0; i < e->snapshot.count; i++)
			json_u64(&j, NULL, e->snapshot.ids[i]);
		json_array_end(&j);
		json_array_begin(&j, "counts");
		for (i = 0; i < e->snapshot.count; i++)
			json_u64(&j, NULL, e->snapshot.counts[i]);
		json_array_end(&j);
	} else {
		json_str(&j, "name", e->module.name);
		json_hex(&j, "base", e->module.base);
		json_u64(&j, "size", e->module.size);
		json_u64(&j, "text_size", e->module.text_size);
	}
	json_object_end(&j);
}

static void print_text(const struct kmemdev_event *e)
{
	uint32_t i;

	if (e->type != KMEMDEV_EVENT_SNAPSHOT) {
		printf("%-15s %s base 0x%016" PRIx64 " size %" PRIu64 " text %" PRIu64 "\n",
		       type_name(e->type), e->module.name, e->module.base,
		       e->module.size, e->module.text_size);
		return;
	}
	printf("snapshot id %" PRIu64 " tick %" PRIu64 " pid %" PRIu32
	       " every %" PRIu32 " ms, probes %" PRIu32 "-%" PRIu32 " of %" PRIu32 ":",
	       e->snapshot.id, e->snapshot.tick, e->snapshot.owner,
	       e->snapshot.interval_ms, e->snapshot.first,
	       e->snapshot.first + e->snapshot.count, e->snapshot.total);
	for (i = 0; i < e->snapshot.count; i++)
		printf(" %" PRIu64 "=%" PRIu64, e->snapshot.ids[i], e->snapshot.counts[i]);
	putchar('\n');
}

/* Events lost before this one: the driver's counter moved. */
static void print_lost(bool json, const char *why, uint64_t dropped)
{
	if (json) {
		struct json j;

		json_init(&j, stdout);
		json_object_begin(&j, NULL);
		json_str(&j, "event", "lost");
		json_str(&j, "reason", why);
		json_u64(&j, "dropped", dropped);
		json_object_end(&j);
	} else {
		printf("lost events: %s (driver's dropped count %" PRIu64 ")\n", why, dropped);
	}
}

/* A module is announced once it is live, and gone once it is not. */
static bool live(const struct mod *m)
{
	return !strcmp(m->state, "MODULE_STATE_LIVE");
}

static bool listed(const struct mod *m, const struct mod *in, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (live(&in[i]) && in[i].base == m->base &&
		    !strcmp(in[i].name, m->name))
			return true;
	return false;
}

/*
 * Its size as /proc/modules shows it once init is over: a module is live
 * a moment before do_init_module() zeroes its init regions' sizes.
 */
static uint64_t settled_size(const struct mod *m)
{
	uint64_t size = 0;

	for (unsigned int i = 0; i < m->nregions; i++)
		if (strncmp(m->r[i].type, "init", 4))
			size += m->r[i].size;
	return size;
}

static void poll_event(bool json, int type, const struct mod *m, uint64_t seq)
{
	struct kmemdev_event e = { .type = type, .seq = seq };

	snprintf(e.module.name, sizeof(e.module.name), "%s", m->name);
	e.module.base = m->base;
	e.module.size = settled_size(m);
	e.module.text_size = m->text_size;
	if (json)
		print_json(&e);
	else
		print_text(&e);
}

static void sleep_ms(unsigned long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);	/* a stop signal ends it early */
}

/*
 * Module events by polling the module list every @ms: the differences
 * between two reads, unloads first.  A module loaded and unloaded within
 * one interval is not seen.
 */
static int watch_by_polling(const struct kmemctl *ctx, bool json,
			    unsigned long count, unsigned long ms)
{
	struct mod *old = NULL, *cur;
	size_t nold = 0, ncur, i;
	uint64_t seen = 0;
	struct modlist ml;
	int err;

	if (modlist_open(&ml, ctx, "watch"))
		return KMEMCTL_EXIT_ERROR;
	err = modlist_read(&ml, &old, &nold);
	if (err)
		goto out;
	fprintf(stderr, "kmemctl: watching modules (polling the module list "
		"every %lu ms: module events need CAP_SYS_ADMIN)\n", ms);
	while (!stop_sig && (!count || seen < count)) {
		sleep_ms(ms);
		if (stop_sig)
			break;
		err = modlist_read(&ml, &cur, &ncur);
		if (err)
			break;
		for (i = 0; i < nold && (!count || seen < count); i++)
			if (live(&old[i]) && !listed(&old[i], cur, ncur))
				poll_event(json, KMEMDEV_EVENT_MODULE_UNLOADED,
					   &old[i], ++seen);
		for (i = 0; i < ncur && (!count || seen < count); i++)
			if (live(&cur[i]) && !listed(&cur[i], old, nold))
				poll_event(json, KMEMDEV_EVENT_MODULE_LOADED,
					   &cur[i], ++seen);
		fflush(stdout);
		free(old);
		old = cur;
		nold = ncur;
	}
out:
	free(old);
	modlist_close(&ml);
	return err ? KMEMCTL_EXIT_ERROR : KMEMCTL_EXIT_OK;
}

static void help(void)
{
	printf(WATCH_USAGE
	       "Print kmem_ro events as they arrive, until interrupted: module\n"
	       "loads and unloads, and the probe-count snapshots that probe owners\n"
	       "request.  The event groups need CAP_SYS_ADMIN; a member of the\n"
	       "device's group without it gets module events by polling the\n"
	       "module list through the device (snapshots need CAP_SYS_ADMIN).\n"
	       "  -j, --json       one JSON object per line; \"event\" is\n"
	       "                   module_loaded, module_unloaded, snapshot or lost\n"
	       "  -m, --modules    module events only\n"
	       "  -s, --snapshots  snapshot events only (default: both kinds)\n"
	       "  -n, --count N    exit after N events\n"
	       "  -i, --interval MS  polling period without CAP_SYS_ADMIN "
	       "(default %d)\n", POLL_MS_DEFAULT);
}

struct watch_opts {
	bool modules, snapshots;	/* neither: both */
	uint64_t count;			/* 0 for no end */
	uint64_t poll_ms;
};

int kmemctl_watch(const struct kmemctl *ctx, int argc, char **argv)
{
	static const struct kmemctl_opt opts[] = {
		KMEMCTL_FLAG("modules", 'm', struct watch_opts, modules),
		KMEMCTL_FLAG("snapshots", 's', struct watch_opts, snapshots),
		KMEMCTL_U64("count", 'n', struct watch_opts, count, 1, ULONG_MAX, NULL,
			    "a count from 1"),
		KMEMCTL_U64("interval", 'i', struct watch_opts, poll_ms, 10, 60000, NULL,
			    "10 to 60000 ms"),
		{ NULL }
	};
	static const struct kmemctl_cli cli = {
		.verb = "watch", .help = help, .opts = opts, .in_order = true,
	};
	struct watch_opts o = { .poll_ms = POLL_MS_DEFAULT };
	const struct kmemdev_event *e;
	struct kmemdev_events *ev;
	unsigned int groups;
	uint64_t seen = 0, dropped = 0;
	unsigned long count, poll_ms;
	bool json, base;
	int err;

	err = kmemctl_parse(ctx, &cli, argc, argv, &o, &json);
	if (err != KMEMCTL_PARSED)
		return err;
	groups = (o.modules ? KMEMDEV_EVENTS_MODULES : 0) |
		 (o.snapshots ? KMEMDEV_EVENTS_SNAPSHOTS : 0);
	count = (unsigned long)o.count;
	poll_ms = (unsigned long)o.poll_ms;
	if (!groups)
		groups = KMEMDEV_EVENTS_MODULES | KMEMDEV_EVENTS_SNAPSHOTS;

	/* EOPNOTSUPP: a libkmemdev built without libnl-genl */
	err = kmemdev_events_open(&ev, NULL);
	if (err) {
		if (err == -ENOENT)
			kmemctl_fail("watch: no kmem_ro event family (modprobe "
				     "kmem_ro): /proc/kcore has no events");
		else
			kmemctl_err(KMEMDEV_OP_EVENTS, err, "watch: open the "
				    "event stream");
		return KMEMCTL_EXIT_ERROR;
	}
	err = kmemdev_events_subscribe(ev, groups);
	/* Not root, but may read the module list: poll it (see the top). */
	if (err == -EPERM && groups != KMEMDEV_EVENTS_SNAPSHOTS &&
	    !access(ctx->device, R_OK)) {
		kmemdev_events_close(ev);
		catch_stop();
		return watch_by_polling(ctx, json, count, poll_ms);
	}
	if (err) {
		kmemctl_err(KMEMDEV_OP_EVENTS, err, "watch: subscribe to %s%s%s",
			    groups & KMEMDEV_EVENTS_MODULES ? "modules" : "",
			    groups == (KMEMDEV_EVENTS_MODULES | KMEMDEV_EVENTS_SNAPSHOTS) ?
			    " and " : "",
			    groups & KMEMDEV_EVENTS_SNAPSHOTS ? "snapshots" : "");
		kmemdev_events_close(ev);
		return KMEMCTL_EXIT_ERROR;
	}
	/* Drops before we came are not ours to report. */
	base = !kmemdev_events_info(ev, &dropped, NULL);
	catch_stop();
	/* Like tcpdump: say on stderr when events can no longer be missed. */
	fprintf(stderr, "kmemctl: watching %s%s%s\n",
		groups & KMEMDEV_EVENTS_MODULES ? "modules" : "",
		groups == (KMEMDEV_EVENTS_MODULES | KMEMDEV_EVENTS_SNAPSHOTS) ? " and " : "",
		groups & KMEMDEV_EVENTS_SNAPSHOTS ? "snapshots" : "");

	while (!stop_sig && (!count || seen < count)) {
		err = kmemdev_events_next(ev, -1, &e);
		if (err == -EINTR)
			continue;
		if (err == -ENOBUFS) {
			print_lost(json, "receive buffer overrun", dropped);
			fflush(stdout);
			continue;
		}
		if (err < 0)
			break;
		if (base && e->dropped > dropped)
			print_lost(json, "dropped by the driver", e->dropped);
		if (!base || e->dropped > dropped)
			dropped = e->dropped;
		base = true;
		if (json)
			print_json(e);
		else
			print_text(e);
		fflush(stdout);
		seen++;
	}
	kmemdev_events_close(ev);
	if (err < 0 && err != -EINTR) {
		kmemctl_err(KMEMDEV_OP_EVENTS, err, "watch: receive events");
		return KMEMCTL_EXIT_ERROR;
	}
	return KMEMCTL_EXIT_OK;
}
