// SPDX-License-Identifier: GPL-2.0
/*
 * kmemdev_readv(), kmemdev_walk(), kmemdev_walk_all() and kmemdev_read()'s
 * READV fallback, up to the ioctl: argument checks, feature checks, and
 * which path a read takes.  The handle wraps /dev/null, which answers
 * every ioctl with ENOTTY, so reaching the driver shows as -ENOTTY.  The
 * batching against the real driver is tested in the VM suite.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

static struct kmemdev *h;

/* A device handle on /dev/null whose "driver" claims @features. */
static void open_fake(uint64_t features)
{
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(kmemdev__handle_new(&h, fd), 0);
	h->info.page_size = 4096;
	h->info.features = features;
}

static void teardown(void)
{
	kmemdev_close(h);
	h = NULL;
}

START_TEST(test_readv_arguments)
{
	struct kmem_ro_iov iov = { .len = 8 };
	unsigned int done = 5;

	open_fake(KMEM_RO_FEAT_READV);
	ck_assert_int_eq(kmemdev_readv(NULL, &iov, 1, &done), -EINVAL);
	ck_assert_uint_eq(done, 0);
	ck_assert_int_eq(kmemdev_readv(h, NULL, 1, &done), -EINVAL);
	ck_assert_int_eq(kmemdev_readv(h, NULL, 0, &done), 0);
	ck_assert_int_eq(kmemdev_readv(h, &iov, 0, NULL), 0);
	/* valid: reaches the "driver" */
	done = 5;
	ck_assert_int_eq(kmemdev_readv(h, &iov, 1, &done), -ENOTTY);
	ck_assert_uint_eq(done, 0);
}
END_TEST

START_TEST(test_readv_needs_feature)
{
	struct kmem_ro_iov iov = { .len = 8 };

	open_fake(KMEM_RO_FEAT_INFO | KMEM_RO_FEAT_WALK);
	ck_assert_int_eq(kmemdev_readv(h, &iov, 1, NULL), -EOPNOTSUPP);
}
END_TEST

START_TEST(test_walk_arguments)
{
	struct kmem_ro_field f[2] = { { 0, 8 }, { 16, 4 } };
	KMEMDEV_ARG(kmem_ro_walk, w,
		.head = 0xffffffff82000000ULL,
		.fields_addr = (uintptr_t)f,
		.fields_count = 2,
		.max_nodes = 10,
	);
	uint32_t nodes = 9;
	void *buf = NULL;
	size_t cap = 0;

	open_fake(KMEM_RO_FEAT_WALK);
	ck_assert_int_eq(kmemdev_walk(NULL, &w), -EINVAL);
	ck_assert_int_eq(kmemdev_walk(h, NULL), -EINVAL);
	ck_assert_int_eq(kmemdev_walk(h, &w), -ENOTTY);
	ck_assert_uint_eq(w.size, sizeof(w));

	ck_assert_int_eq(kmemdev_walk_all(h, &w, NULL, &cap, &nodes), -EINVAL);
	ck_assert_int_eq(kmemdev_walk_all(h, &w, &buf, NULL, &nodes), -EINVAL);
	ck_assert_int_eq(kmemdev_walk_all(h, &w, &buf, &cap, NULL), -EINVAL);
	cap = 4;	/* a capacity without a buffer */
	ck_assert_int_eq(kmemdev_walk_all(h, &w, &buf, &cap, &nodes), -EINVAL);
	cap = 0;
	w.fields_count = 0;
	ck_assert_int_eq(kmemdev_walk_all(h, &w, &buf, &cap, &nodes), -EINVAL);
	w.fields_count = KMEM_RO_WALK_MAX_FIELDS + 1;
	ck_assert_int_eq(kmemdev_walk_all(h, &w, &buf, &cap, &nodes), -EINVAL);
	w.fields_count = 2;
	f[1].len = KMEM_RO_WALK_MAX_RECORD + 1;
	ck_assert_int_eq(kmemdev_walk_all(h, &w, &buf, &cap, &nodes), -E2BIG);
	f[1].len = 4;

	/* valid: a buffer is allocated, the "driver" refuses */
	nodes = 9;
	ck_assert_int_eq(kmemdev_walk_all(h, &w, &buf, &cap, &nodes), -ENOTTY);
	ck_assert_uint_eq(nodes, 0);
	ck_assert_ptr_nonnull(buf);
	ck_assert_uint_ge(cap, 2 * 12);
	ck_assert_uint_eq(w.max_nodes, 10);	/* the template's, back */
	free(buf);
}
END_TEST

START_TEST(test_walk_needs_feature)
{
	KMEMDEV_ARG(kmem_ro_walk, w);

	open_fake(KMEM_RO_FEAT_READV);
	ck_assert_int_eq(kmemdev_walk(h, &w), -EOPNOTSUPP);
}
END_TEST

/* Nothing mappable (no RAM): kmemdev_map() says -ENXIO. */
static void no_ram(void)
{
	ck_assert_int_eq(kmemdev__maps_init(h, NULL, 0), 0);
}

START_TEST(test_read_falls_back_to_readv)
{
	unsigned char buf[300];
	const void *p;

	open_fake(KMEM_RO_FEAT_READV | KMEM_RO_FEAT_MMAP_RAM | KMEM_RO_FEAT_MMAP_REFUSED);
	no_ram();
	ck_assert_int_eq(kmemdev_map(h, 0xffffffffc0001000ULL, 8, &p), -ENXIO);
	memset(buf, 0xa5, sizeof(buf));
	/* -ENOTTY: the READV ioctl was issued, on the stack bounce... */
	ck_assert_int_eq(kmemdev_read(h, 0xffffffffc0001000ULL, buf, 8),
			 -ENOTTY);
	/* ...and on a heap one; either way buf stays as it was */
	ck_assert_int_eq(kmemdev_read(h, 0xffffffffc0001000ULL, buf,
				      sizeof(buf)), -ENOTTY);
	for (size_t i = 0; i < sizeof(buf); i++)
		ck_assert_uint_eq(buf[i], 0xa5);
	/* invalid ranges are not the driver's business */
	ck_assert_int_eq(kmemdev_read(h, 0xffffffffc0001000ULL, buf, 0),
			 -EINVAL);
	ck_assert_int_eq(kmemdev_read(h, UINT64_MAX, buf, 2), -EINVAL);
}
END_TEST

START_TEST(test_read_unmappable_falls_back)
{
	unsigned char buf[8];
	const void *p;

	/* no mmap at all (-EOPNOTSUPP from kmemdev_map): READV too */
	open_fake(KMEM_RO_FEAT_READV);
	no_ram();
	ck_assert_int_eq(kmemdev_map(h, 0xffffffffc0001000ULL, 8, &p),
			 -EOPNOTSUPP);
	ck_assert_int_eq(kmemdev_read(h, 0xffffffffc0001000ULL, buf, 8),
			 -ENOTTY);
}
END_TEST

START_TEST(test_read_without_readv_is_enxio)
{
	unsigned char buf[8];

	open_fake(KMEM_RO_FEAT_MMAP_RAM | KMEM_RO_FEAT_MMAP_REFUSED);
	no_ram();
	ck_assert_int_eq(kmemdev_read(h, 0xffffffffc0001000ULL, buf, 8),
			 -ENXIO);
}
END_TEST

static Suite *readv_suite(void)
{
	Suite *s = suite_create("readv");
	TCase *tc = tcase_create("readv");

	tcase_add_checked_fixture(tc, NULL, teardown);
	tcase_add_test(tc, test_readv_arguments);
	tcase_add_test(tc, test_readv_needs_feature);
	tcase_add_test(tc, test_walk_arguments);
	tcase_add_test(tc, test_walk_needs_feature);
	tcase_add_test(tc, test_read_falls_back_to_readv);
	tcase_add_test(tc, test_read_unmappable_falls_back);
	tcase_add_test(tc, test_read_without_readv_is_enxio);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(readv_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
