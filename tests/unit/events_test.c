// SPDX-License-Identifier: GPL-2.0
/*
 * The event parser of libkmemdev (kmemdev__events_parse()) on messages
 * built here with libnl: every field of both event kinds, and each way a
 * message can be malformed, skipped or extended.
 */
#include <check.h>
#include <errno.h>
#include <string.h>

#include <netlink/attr.h>
#include <netlink/errno.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include "events_internal.h"

#define FAMILY	0x1a

struct fixture {
	struct nl_msg *msg;
	struct kmemdev_event ev;
	uint64_t ids[KMEM_RO_EVENTS_SNAP_MAX_IDS];
	uint64_t counts[KMEM_RO_EVENTS_SNAP_MAX_IDS];
};

static struct nl_msg *start(int family, int cmd)
{
	struct nl_msg *msg = nlmsg_alloc_size(16384);

	ck_assert_ptr_nonnull(msg);
	ck_assert_ptr_nonnull(genlmsg_put(msg, 0, 0, family, 0, 0, cmd,
					  KMEM_RO_EVENTS_VERSION));
	return msg;
}

static void put_common(struct nl_msg *msg)
{
	ck_assert_int_eq(nla_put_u64(msg, KMEM_RO_EVENTS_A_SEQ, 7), 0);
	ck_assert_int_eq(nla_put_u64(msg, KMEM_RO_EVENTS_A_DROPPED, 3), 0);
}

static struct nl_msg *module_msg(int cmd, const char *name)
{
	struct nl_msg *msg = start(FAMILY, cmd);

	put_common(msg);
	ck_assert_int_eq(nla_put_string(msg, KMEM_RO_EVENTS_A_MOD_NAME, name), 0);
	ck_assert_int_eq(nla_put_u64(msg, KMEM_RO_EVENTS_A_MOD_BASE, 0xffffffffc0a00000ULL), 0);
	ck_assert_int_eq(nla_put_u64(msg, KMEM_RO_EVENTS_A_MOD_SIZE, 28672), 0);
	ck_assert_int_eq(nla_put_u64(msg, KMEM_RO_EVENTS_A_MOD_TEXT_SIZE, 8192), 0);
	return msg;
}

/* A snapshot part up to its arrays: of @total probes, from the @first. */
static struct nl_msg *snap_start(unsigned int first, unsigned int total)
{
	struct nl_msg *msg = start(FAMILY, KMEM_RO_EVENTS_CMD_SNAPSHOT);

	put_common(msg);
	ck_assert_int_eq(nla_put_u64(msg, KMEM_RO_EVENTS_A_SNAP_ID, 5), 0);
	ck_assert_int_eq(nla_put_u32(msg, KMEM_RO_EVENTS_A_SNAP_OWNER, 1234), 0);
	ck_assert_int_eq(nla_put_u32(msg, KMEM_RO_EVENTS_A_SNAP_INTERVAL_MS, 250), 0);
	ck_assert_int_eq(nla_put_u64(msg, KMEM_RO_EVENTS_A_SNAP_TICK, 9), 0);
	ck_assert_int_eq(nla_put_u64(msg, KMEM_RO_EVENTS_A_SNAP_TIME_NS, 123456789), 0);
	ck_assert_int_eq(nla_put_u32(msg, KMEM_RO_EVENTS_A_SNAP_TOTAL, total), 0);
	ck_assert_int_eq(nla_put_u32(msg, KMEM_RO_EVENTS_A_SNAP_FIRST, first), 0);
	return msg;
}

/* A snapshot part with @n ids (ids[i] = 10 + i, counts[i] = 100 * i). */
static struct nl_msg *snap_msg(unsigned int first, unsigned int n, unsigned int total,
			       unsigned int ncounts)
{
	struct nl_msg *msg = snap_start(first, total);
	uint64_t ids[KMEM_RO_EVENTS_SNAP_MAX_IDS + 1], counts[KMEM_RO_EVENTS_SNAP_MAX_IDS + 1];

	for (unsigned int i = 0; i < n || i < ncounts; i++) {
		ids[i] = 10 + i;
		counts[i] = 100 * i;
	}
	ck_assert_int_eq(nla_put(msg, KMEM_RO_EVENTS_A_SNAP_IDS, n * 8, ids), 0);
	ck_assert_int_eq(nla_put(msg, KMEM_RO_EVENTS_A_SNAP_COUNTS, ncounts * 8, counts), 0);
	return msg;
}

static int parse(struct fixture *f, struct nl_msg *msg)
{
	int r;

	memset(&f->ev, 0x5a, sizeof(f->ev));
	r = kmemdev__events_parse(nlmsg_hdr(msg), FAMILY, &f->ev, f->ids, f->counts);
	nlmsg_free(msg);
	return r;
}

START_TEST(module_events)
{
	struct fixture f;

	ck_assert_int_eq(parse(&f, module_msg(KMEM_RO_EVENTS_CMD_MODULE_LOADED, "nf_tables")), 1);
	ck_assert_int_eq(f.ev.type, KMEMDEV_EVENT_MODULE_LOADED);
	ck_assert_uint_eq(f.ev.seq, 7);
	ck_assert_uint_eq(f.ev.dropped, 3);
	ck_assert_str_eq(f.ev.module.name, "nf_tables");
	ck_assert_uint_eq(f.ev.module.base, 0xffffffffc0a00000ULL);
	ck_assert_uint_eq(f.ev.module.size, 28672);
	ck_assert_uint_eq(f.ev.module.text_size, 8192);
	ck_assert_int_eq(parse(&f, module_msg(KMEM_RO_EVENTS_CMD_MODULE_UNLOADED, "x")), 1);
	ck_assert_int_eq(f.ev.type, KMEMDEV_EVENT_MODULE_UNLOADED);
	ck_assert_str_eq(f.ev.module.name, "x");
}
END_TEST

START_TEST(snapshot_parts)
{
	struct fixture f;

	ck_assert_int_eq(parse(&f, snap_msg(128, 3, 131, 3)), 1);
	ck_assert_int_eq(f.ev.type, KMEMDEV_EVENT_SNAPSHOT);
	ck_assert_uint_eq(f.ev.snapshot.id, 5);
	ck_assert_uint_eq(f.ev.snapshot.owner, 1234);
	ck_assert_uint_eq(f.ev.snapshot.interval_ms, 250);
	ck_assert_uint_eq(f.ev.snapshot.tick, 9);
	ck_assert_uint_eq(f.ev.snapshot.time_ns, 123456789);
	ck_assert_uint_eq(f.ev.snapshot.total, 131);
	ck_assert_uint_eq(f.ev.snapshot.first, 128);
	ck_assert_uint_eq(f.ev.snapshot.count, 3);
	ck_assert_ptr_eq(f.ev.snapshot.ids, f.ids);
	ck_assert_ptr_eq(f.ev.snapshot.counts, f.counts);
	for (int i = 0; i < 3; i++) {
		ck_assert_uint_eq(f.ids[i], 10 + i);
		ck_assert_uint_eq(f.counts[i], 100 * i);
	}
	/* a full part, and the empty part of a file without probes */
	ck_assert_int_eq(parse(&f, snap_msg(0, KMEM_RO_EVENTS_SNAP_MAX_IDS, 1000,
					    KMEM_RO_EVENTS_SNAP_MAX_IDS)), 1);
	ck_assert_uint_eq(f.ev.snapshot.count, KMEM_RO_EVENTS_SNAP_MAX_IDS);
	ck_assert_uint_eq(f.ids[KMEM_RO_EVENTS_SNAP_MAX_IDS - 1], 10 + KMEM_RO_EVENTS_SNAP_MAX_IDS - 1);
	ck_assert_int_eq(parse(&f, snap_msg(0, 0, 0, 0)), 1);
	ck_assert_uint_eq(f.ev.snapshot.count, 0);
	ck_assert_uint_eq(f.ev.snapshot.total, 0);
}
END_TEST

START_TEST(skipped)
{
	struct fixture f;
	struct nl_msg *msg;

	msg = module_msg(KMEM_RO_EVENTS_CMD_MODULE_LOADED, "m");
	nlmsg_hdr(msg)->nlmsg_type = FAMILY + 1;		/* another family */
	ck_assert_int_eq(parse(&f, msg), 0);
	msg = module_msg(KMEM_RO_EVENTS_CMD_MAX + 1, "m");	/* a newer command */
	ck_assert_int_eq(parse(&f, msg), 0);
	msg = module_msg(KMEM_RO_EVENTS_CMD_GET_INFO, "m");	/* a reply, not an event */
	ck_assert_int_eq(parse(&f, msg), 0);
	/* a newer attribute is ignored */
	msg = module_msg(KMEM_RO_EVENTS_CMD_MODULE_LOADED, "m");
	ck_assert_int_eq(nla_put_u32(msg, KMEM_RO_EVENTS_A_MAX + 1, 1), 0);
	ck_assert_int_eq(parse(&f, msg), 1);
	ck_assert_str_eq(f.ev.module.name, "m");
}
END_TEST

START_TEST(malformed)
{
	char name[80];
	struct fixture f;
	struct nl_msg *msg;

	/* no room for a genetlink header */
	msg = nlmsg_alloc();
	ck_assert_ptr_nonnull(nlmsg_put(msg, 0, 0, FAMILY, 0, 0));
	ck_assert_int_eq(parse(&f, msg), -EPROTO);
	/* no SEQ */
	msg = start(FAMILY, KMEM_RO_EVENTS_CMD_MODULE_LOADED);
	ck_assert_int_eq(nla_put_u64(msg, KMEM_RO_EVENTS_A_DROPPED, 3), 0);
	ck_assert_int_eq(parse(&f, msg), -EPROTO);
	/* a u64 of 4 bytes */
	msg = start(FAMILY, KMEM_RO_EVENTS_CMD_MODULE_LOADED);
	ck_assert_int_eq(nla_put_u32(msg, KMEM_RO_EVENTS_A_SEQ, 1), 0);
	ck_assert_int_eq(nla_put_u64(msg, KMEM_RO_EVENTS_A_DROPPED, 3), 0);
	ck_assert_int_eq(parse(&f, msg), -EPROTO);
	/* module fields missing */
	msg = start(FAMILY, KMEM_RO_EVENTS_CMD_MODULE_UNLOADED);
	put_common(msg);
	ck_assert_int_eq(nla_put_string(msg, KMEM_RO_EVENTS_A_MOD_NAME, "m"), 0);
	ck_assert_int_eq(parse(&f, msg), -EPROTO);
	/* names: too long, empty, not NUL-terminated */
	memset(name, 'a', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	ck_assert_int_eq(parse(&f, module_msg(KMEM_RO_EVENTS_CMD_MODULE_LOADED, name)), -EPROTO);
	name[63] = '\0';			/* 63 characters: just fits */
	ck_assert_int_eq(parse(&f, module_msg(KMEM_RO_EVENTS_CMD_MODULE_LOADED, name)), 1);
	ck_assert_int_eq(parse(&f, module_msg(KMEM_RO_EVENTS_CMD_MODULE_LOADED, "")), -EPROTO);
	msg = start(FAMILY, KMEM_RO_EVENTS_CMD_MODULE_LOADED);
	put_common(msg);
	ck_assert_int_eq(nla_put(msg, KMEM_RO_EVENTS_A_MOD_NAME, 3, "abc"), 0);
	ck_assert_int_eq(nla_put_u64(msg, KMEM_RO_EVENTS_A_MOD_BASE, 1), 0);
	ck_assert_int_eq(nla_put_u64(msg, KMEM_RO_EVENTS_A_MOD_SIZE, 1), 0);
	ck_assert_int_eq(nla_put_u64(msg, KMEM_RO_EVENTS_A_MOD_TEXT_SIZE, 1), 0);
	ck_assert_int_eq(parse(&f, msg), -EPROTO);
	/* snapshots: arrays of different lengths, too long, past the total */
	ck_assert_int_eq(parse(&f, snap_msg(0, 3, 3, 2)), -EPROTO);
	ck_assert_int_eq(parse(&f, snap_msg(0, KMEM_RO_EVENTS_SNAP_MAX_IDS + 1, 1000,
					    KMEM_RO_EVENTS_SNAP_MAX_IDS + 1)), -EPROTO);
	ck_assert_int_eq(parse(&f, snap_msg(2, 3, 4, 3)), -EPROTO);
	ck_assert_int_eq(parse(&f, snap_msg(5, 0, 4, 0)), -EPROTO);
	ck_assert_int_eq(parse(&f, snap_msg(4, 0, 4, 0)), 1);
	/* an array that is not whole __u64s */
	msg = snap_start(0, 1);
	ck_assert_int_eq(nla_put(msg, KMEM_RO_EVENTS_A_SNAP_IDS, 4, "abcd"), 0);
	ck_assert_int_eq(nla_put(msg, KMEM_RO_EVENTS_A_SNAP_COUNTS, 4, "abcd"), 0);
	ck_assert_int_eq(parse(&f, msg), -EPROTO);
}
END_TEST

START_TEST(nl_errors)
{
	ck_assert_int_eq(kmemdev__nl_errno(0), 0);
	ck_assert_int_eq(kmemdev__nl_errno(-NLE_OBJ_NOTFOUND), -ENOENT);
	ck_assert_int_eq(kmemdev__nl_errno(NLE_OBJ_NOTFOUND), -ENOENT);
	ck_assert_int_eq(kmemdev__nl_errno(-NLE_PERM), -EPERM);
	ck_assert_int_eq(kmemdev__nl_errno(-NLE_NOMEM), -ENOMEM);
	ck_assert_int_eq(kmemdev__nl_errno(-NLE_INVAL), -EINVAL);
	ck_assert_int_eq(kmemdev__nl_errno(-NLE_MSG_TOOSHORT), -EPROTO);
	ck_assert_int_eq(kmemdev__nl_errno(-NLE_FAILURE), -EIO);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("events");
	TCase *tc = tcase_create("parse");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, module_events);
	tcase_add_test(tc, snapshot_parts);
	tcase_add_test(tc, skipped);
	tcase_add_test(tc, malformed);
	tcase_add_test(tc, nl_errors);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
