// SPDX-License-Identifier: GPL-2.0
/*
 * kmemdev_read() through the driver's pread() by address
 * (KMEM_RO_FEAT_PREAD), up to the system call: which path a read takes,
 * the offset it reads at (KMEM_RO_READ_OFFSET()), and how pread()'s
 * results become the function's, those of one READV segment.  The
 * "device" is a sparse memfd holding bytes at the offsets a driver would
 * serve them from (its end plays a page that cannot be read), or a
 * directory (every pread() fails with EISDIR).  The driver's own answers
 * are tested in the VM suite.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"

/* A direct-map address of a 5-level kernel, a vmalloc one, their file offsets. */
#define ADDR		0xff11000000001000ULL
#define VADDR		0xffa0000000002000ULL
/* Bytes the memfd holds at each one's KMEM_RO_READ_OFFSET(); it ends after VADDR's. */
#define HELD		1000

static struct kmemdev *h;

/* A device handle on fd whose "driver" claims @features; nothing mappable. */
static void open_fake(int fd, uint64_t features)
{
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(kmemdev__handle_new(&h, fd), 0);
	h->info.page_size = 4096;
	h->info.features = features;
	ck_assert_int_eq(kmemdev__maps_init(h, NULL, 0), 0);
}

/* byte i of what the fake device holds at ADDR */
static unsigned char held(size_t i)
{
	return (unsigned char)(i * 7 + 3);
}

/* A memfd with HELD bytes at ADDR's offset and at VADDR's, ending after the last. */
static int fake_memory(void)
{
	unsigned char bytes[HELD];
	int fd = memfd_create("kmem_ro", MFD_CLOEXEC);

	ck_assert_int_ge(fd, 0);
	for (size_t i = 0; i < HELD; i++)
		bytes[i] = held(i);
	ck_assert_int_eq(pwrite(fd, bytes, HELD, KMEM_RO_READ_OFFSET(ADDR)), HELD);
	ck_assert_int_eq(pwrite(fd, bytes, HELD, KMEM_RO_READ_OFFSET(VADDR)), HELD);
	return fd;
}

static void teardown(void)
{
	kmemdev_close(h);
	h = NULL;
}

static void assert_held(const unsigned char *buf, size_t len)
{
	for (size_t i = 0; i < len; i++)
		ck_assert_uint_eq(buf[i], held(i));
}

static void assert_untouched(const unsigned char *buf, size_t len)
{
	for (size_t i = 0; i < len; i++)
		ck_assert_uint_eq(buf[i], 0xa5);
}

/*
 * With KMEM_RO_FEAT_PREAD the bytes come from pread() at the offset, not
 * from READV (which a memfd would answer with -ENOTTY): through the stack
 * bounce, the heap one, and straight into a scratch buffer.
 */
START_TEST(test_read_by_pread)
{
	unsigned char buf[HELD];

	open_fake(fake_memory(), KMEM_RO_FEAT_PREAD | KMEM_RO_FEAT_READV |
		  KMEM_RO_FEAT_MMAP_RAM);
	memset(buf, 0, sizeof(buf));
	ck_assert_int_eq(kmemdev_read(h, ADDR, buf, 8), 0);
	assert_held(buf, 8);
	memset(buf, 0, sizeof(buf));
	ck_assert_int_eq(kmemdev_read(h, ADDR, buf, HELD), 0);
	assert_held(buf, HELD);
	memset(buf, 0, sizeof(buf));
	ck_assert_int_eq(kmemdev__read_scratch(h, VADDR, buf, HELD), 0);
	assert_held(buf, HELD);
	/* an address inside: its own offset */
	ck_assert_int_eq(kmemdev_read(h, ADDR + 100, buf, 16), 0);
	for (size_t i = 0; i < 16; i++)
		ck_assert_uint_eq(buf[i], held(100 + i));
}
END_TEST

/* Without the bit (an older driver) the read is a READV segment. */
START_TEST(test_read_without_pread_is_readv)
{
	unsigned char buf[8];

	open_fake(fake_memory(), KMEM_RO_FEAT_READV | KMEM_RO_FEAT_MMAP_RAM);
	ck_assert_int_eq(kmemdev_read(h, ADDR, buf, sizeof(buf)), -ENOTTY);
}
END_TEST

/*
 * A read that comes back short is asked for again from where it stopped;
 * when that fails, the read is -EFAULT (READV: short, the remainder
 * unreadable), and buf is left as it was.
 */
START_TEST(test_short_is_efault)
{
	unsigned char buf[HELD + 8];

	open_fake(fake_memory(), KMEM_RO_FEAT_PREAD);
	memset(buf, 0xa5, sizeof(buf));
	ck_assert_int_eq(kmemdev_read(h, VADDR + HELD - 8, buf, 16), -EFAULT);
	assert_untouched(buf, 16);
	ck_assert_int_eq(kmemdev_read(h, VADDR, buf, sizeof(buf)), -EFAULT);
	assert_untouched(buf, sizeof(buf));
	/* nothing at all to read past the end: no errno from the kernel */
	ck_assert_int_eq(kmemdev_read(h, VADDR + HELD, buf, 8), -EFAULT);
	assert_untouched(buf, 8);
}
END_TEST

/* The first page's errno is the function's; buf is left as it was. */
START_TEST(test_first_page_errno)
{
	unsigned char buf[300];

	open_fake(open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC), KMEM_RO_FEAT_PREAD);
	memset(buf, 0xa5, sizeof(buf));
	ck_assert_int_eq(kmemdev_read(h, ADDR, buf, 8), -EISDIR);
	ck_assert_int_eq(kmemdev_read(h, ADDR, buf, sizeof(buf)), -EISDIR);
	assert_untouched(buf, sizeof(buf));
}
END_TEST

/* Ranges the driver would refuse as READV does are not its business. */
START_TEST(test_bad_ranges)
{
	unsigned char buf[8];

	open_fake(fake_memory(), KMEM_RO_FEAT_PREAD);
	ck_assert_int_eq(kmemdev_read(h, UINT64_MAX, buf, 2), -EINVAL);
	ck_assert_int_eq(kmemdev_read(h, UINT64_MAX - 7, buf, 8), -EINVAL);
	ck_assert_int_eq(kmemdev_read(h, ADDR, NULL, 8), -EINVAL);
	ck_assert_int_eq(kmemdev_read(NULL, ADDR, buf, 8), -EINVAL);
}
END_TEST

/* The offset is the address with bit 63 cleared, and back. */
START_TEST(test_read_offset)
{
	ck_assert_int_eq(KMEM_RO_READ_OFFSET(ADDR), 0x7f11000000001000LL);
	ck_assert_int_ge(KMEM_RO_READ_OFFSET(UINT64_MAX), 0);
	ck_assert_uint_eq(KMEM_RO_READ_ADDR(KMEM_RO_READ_OFFSET(ADDR)), ADDR);
	ck_assert_uint_eq(KMEM_RO_READ_ADDR(KMEM_RO_READ_OFFSET(VADDR)), VADDR);
}
END_TEST

static Suite *read_suite(void)
{
	Suite *s = suite_create("read");
	TCase *tc = tcase_create("pread");

	tcase_add_checked_fixture(tc, NULL, teardown);
	tcase_add_test(tc, test_read_by_pread);
	tcase_add_test(tc, test_read_without_pread_is_readv);
	tcase_add_test(tc, test_short_is_efault);
	tcase_add_test(tc, test_first_page_errno);
	tcase_add_test(tc, test_bad_ranges);
	tcase_add_test(tc, test_read_offset);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(read_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
