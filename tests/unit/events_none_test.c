// SPDX-License-Identifier: GPL-2.0
/*
 * The event functions of a libkmemdev built without libnl-genl: this
 * binary links libkmemdev/events_none.c (what such a build compiles in
 * place of events.c) and libkmemdev.a, and no libnl at all.  Every stream
 * function is there and fails with -EOPNOTSUPP; kmemdev_events_snapshot()
 * is a plain ioctl and still reaches the driver (/dev/null: -ENOTTY).
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

START_TEST(test_stream_functions_say_eopnotsupp)
{
	struct kmemdev_events *ev = (void *)1;
	const struct kmemdev_event *e = (void *)1;
	uint64_t dropped = 7;
	unsigned int snaps = 7;

	ck_assert_int_eq(kmemdev_events_open(NULL, NULL), -EINVAL);
	ck_assert_int_eq(kmemdev_events_open(&ev, NULL), -EOPNOTSUPP);
	ck_assert_ptr_null(ev);
	ck_assert_int_eq(kmemdev_events_subscribe(ev, KMEMDEV_EVENTS_MODULES),
			 -EOPNOTSUPP);
	ck_assert_int_eq(kmemdev_events_fd(ev), -EOPNOTSUPP);
	ck_assert_int_eq(kmemdev_events_next(ev, 0, &e), -EOPNOTSUPP);
	ck_assert_int_eq(kmemdev_events_info(ev, &dropped, &snaps), -EOPNOTSUPP);
	ck_assert_uint_eq(dropped, 7);
	ck_assert_uint_eq(snaps, 7);
	kmemdev_events_close(ev);
	kmemdev_events_close(NULL);
	/* What kmemctl watch then says. */
	ck_assert_ptr_nonnull(strstr(kmemdev_strerror(KMEMDEV_OP_EVENTS,
						      -EOPNOTSUPP), "libnl"));
}
END_TEST

START_TEST(test_snapshot_needs_no_libnl)
{
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	struct kmemdev *h;
	uint64_t id = 3;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(kmemdev__handle_new(&h, fd), 0);
	h->info.features = KMEM_RO_FEAT_EVENTS;
	ck_assert_int_eq(kmemdev_events_snapshot(h, 100, &id), -ENOTTY);
	ck_assert_int_eq(kmemdev_events_snapshot(h, 0, NULL), -ENOTTY);
	ck_assert_uint_eq(id, 3);
	kmemdev_close(h);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("events_none");
	TCase *tc = tcase_create("stubs");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_stream_functions_say_eopnotsupp);
	tcase_add_test(tc, test_snapshot_needs_no_libnl);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
