// SPDX-License-Identifier: GPL-2.0
/*
 * KMEM_RO_IOC_READV: a mixed batch gets the right result per segment,
 * nothing but RAM is ever touched, secret pages stay secret, limits give
 * E2BIG, and a signal returns partial progress without losing results.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

#include "vmtest.h"

#ifndef SYS_memfd_secret
#define SYS_memfd_secret 447
#endif

#define PAGE 4096UL

static int readv_call(int fd, struct kmem_ro_iov *iov, unsigned int n, unsigned int *done)
{
	struct kmem_ro_readv rv = {
		.size = sizeof(rv), .iov_addr = (uintptr_t)iov, .iov_count = n,
	};
	int err = vt_ioctl(fd, KMEM_RO_IOC_READV, &rv);

	if (done)
		*done = rv.done;
	return err;
}

static void seg(struct kmem_ro_iov *iov, uint64_t addr, uint64_t len, void *buf)
{
	*iov = (struct kmem_ro_iov){ .addr = addr, .len = len, .buf = (uintptr_t)buf,
				     .result = 0x7777 };
}

START_TEST(mixed_batch_results)
{
	static char text[64], kc[PAGE * 3], vb[PAGE * 3], modtext[32], task[16], edge[32];
	static char user[8], mmio[8], guard[8], noncanon[8], zero[1];
	uint64_t vbuf = vt_testobj("vbuf"), vlen = vt_testobj("vbuf_len");
	uint64_t modsym = vt_kallsyms("kmem_ro_readv_ioctl");
	struct kmem_ro_info info;
	struct kmem_ro_iov iov[11];
	unsigned int done;
	int fd = vt_open_dev();

	ck_assert_int_eq(vt_info(fd, &info, NULL, 0), 0);
	seg(&iov[0], info.text_start, sizeof(text), text);
	seg(&iov[1], vt_kallsyms("init_task"), sizeof(task), task);
	seg(&iov[2], vbuf, vlen, vb);			/* vmalloc */
	seg(&iov[3], modsym, sizeof(modtext), modtext);	/* module text */
	seg(&iov[4], vt_testobj("vguard"), 8, guard);	/* unmapped */
	seg(&iov[5], 0x400000, 8, user);			/* user space */
	seg(&iov[6], 0x8000000000000000ULL, 8, noncanon);	/* non-canonical */
	seg(&iov[7], vt_testobj("mmio"), 8, mmio);		/* ioremap: not RAM */
	seg(&iov[8], vbuf + vlen - 16, 32, edge);		/* runs into the guard */
	seg(&iov[9], info.text_start, 0, zero);
	seg(&iov[10], info.text_start, 8, (void *)info.text_start);	/* kernel "user" buffer */
	ck_assert_int_eq(readv_call(fd, iov, 11, &done), 0);
	ck_assert_uint_eq(done, 11);

	ck_assert_int_eq(iov[0].result, sizeof(text));
	ck_assert_int_eq(vt_kcore_read(info.text_start, kc, sizeof(text)), 0);
	ck_assert_int_eq(memcmp(text, kc, sizeof(text)), 0);
	ck_assert_int_eq(iov[1].result, sizeof(task));
	ck_assert_int_eq(iov[2].result, vlen);
	for (uint64_t i = 0; i < vlen; i++)
		ck_assert_msg((unsigned char)vb[i] == ((i * 7) & 0xff), "vbuf byte %llu",
			      (unsigned long long)i);
	ck_assert_int_eq(iov[3].result, sizeof(modtext));
	ck_assert_int_eq(vt_kcore_read(modsym, kc, sizeof(modtext)), 0);
	ck_assert_int_eq(memcmp(modtext, kc, sizeof(modtext)), 0);
	ck_assert_int_eq(iov[4].result, -EFAULT);
	ck_assert_int_eq(iov[5].result, -EINVAL);
	ck_assert_int_eq(iov[6].result, -EINVAL);
	ck_assert_int_eq(iov[7].result, -ENXIO);
	ck_assert_int_eq(iov[8].result, 16);		/* short: the rest faulted */
	ck_assert_int_eq(memcmp(edge, vb + vlen - 16, 16), 0);
	ck_assert_int_eq(iov[9].result, 0);
	ck_assert_int_eq(iov[10].result, -EFAULT);
	close(fd);
}
END_TEST

START_TEST(secret_page_is_eperm)
{
	int mfd = syscall(SYS_memfd_secret, 0), fd = vt_open_dev();
	struct kmem_ro_info info;
	struct kmem_ro_iov iov;
	char *secret, buf[64];

	ck_assert_msg(mfd >= 0, "memfd_secret: %s", strerror(errno));
	ck_assert_int_eq(ftruncate(mfd, PAGE), 0);
	secret = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	ck_assert_ptr_ne(secret, MAP_FAILED);
	memset(secret, 0xa5, PAGE);
	ck_assert_int_eq(vt_info(fd, &info, NULL, 0), 0);
	memset(buf, 0, sizeof(buf));
	seg(&iov, info.page_offset + vt_pagemap_pfn(secret) * PAGE, sizeof(buf), buf);
	ck_assert_int_eq(readv_call(fd, &iov, 1, NULL), 0);
	ck_assert_int_eq(iov.result, -EPERM);
	for (size_t i = 0; i < sizeof(buf); i++)
		ck_assert_int_eq(buf[i], 0);
	munmap(secret, PAGE);
	close(mfd);
	close(fd);
}
END_TEST

/* ---- limits and bad arguments ---- */

START_TEST(limits_are_e2big)
{
	static struct kmem_ro_iov iov[KMEM_RO_READV_MAX_SEGS + 1];
	static char buf[PAGE];
	struct kmem_ro_info info;
	int fd = vt_open_dev();

	ck_assert_int_eq(vt_info(fd, &info, NULL, 0), 0);
	for (unsigned int i = 0; i <= KMEM_RO_READV_MAX_SEGS; i++)
		seg(&iov[i], info.text_start, 8, buf);
	ck_assert_int_eq(readv_call(fd, iov, KMEM_RO_READV_MAX_SEGS + 1, NULL), -E2BIG);
	ck_assert_int_eq(readv_call(fd, iov, KMEM_RO_READV_MAX_SEGS, NULL), 0);
	/* bytes: 16 MiB is the most, counted before anything is read */
	seg(&iov[0], info.text_start, KMEM_RO_READV_MAX_BYTES + 1ULL, buf);
	ck_assert_int_eq(readv_call(fd, iov, 1, NULL), -E2BIG);
	for (int i = 0; i < 3; i++)
		seg(&iov[i], info.text_start, KMEM_RO_READV_MAX_BYTES / 2, buf);
	ck_assert_int_eq(readv_call(fd, iov, 3, NULL), -E2BIG);
	ck_assert_int_eq(iov[0].result, 0x7777);		/* nothing was read */
	close(fd);
}
END_TEST

START_TEST(bad_arguments)
{
	struct kmem_ro_iov iov[1];
	char buf[8];
	struct kmem_ro_readv rv = { .size = sizeof(rv), .iov_addr = (uintptr_t)iov, .iov_count = 1 };
	int fd = vt_open_dev();

	seg(&iov[0], 0xffffffff81000000ULL, 8, buf);
	rv.flags = 1;
	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_READV, &rv), -EINVAL);
	rv.flags = 0;
	rv.reserved[1] = 1;
	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_READV, &rv), -EINVAL);
	rv.reserved[1] = 0;
	rv.iov_addr = 0;
	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_READV, &rv), -EINVAL);
	rv.iov_addr = (uintptr_t)iov;
	rv.iov_count = 0;
	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_READV, &rv), -EINVAL);
	rv.iov_count = 1;
	rv.iov_addr = 0x10;				/* unmapped segment array */
	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_READV, &rv), -EFAULT);
	rv.iov_addr = (uintptr_t)iov;
	rv.size = KMEM_RO_READV_SIZE_VER0 - 8;
	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_READV, &rv), -EINVAL);
	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_READV, NULL), -EFAULT);
	close(fd);
}
END_TEST

/* ---- a signal during a long batch ---- */

static void on_alarm(int sig)
{
	(void)sig;
}

START_TEST(signal_returns_partial_progress)
{
	static struct kmem_ro_iov iov[KMEM_RO_READV_MAX_SEGS];
	static char buf[16384];
	struct sigaction sa = { .sa_handler = on_alarm };	/* no SA_RESTART */
	struct itimerval t = { .it_interval = { 0, 2000 }, .it_value = { 0, 2000 } };
	struct kmem_ro_info info;
	unsigned int done = KMEM_RO_READV_MAX_SEGS;
	int fd = vt_open_dev(), tries, err = 0;

	ck_assert_int_eq(vt_info(fd, &info, NULL, 0), 0);
	sigaction(SIGALRM, &sa, NULL);
	for (tries = 0; tries < 20 && (done == KMEM_RO_READV_MAX_SEGS || done == 0); tries++) {
		for (int i = 0; i < KMEM_RO_READV_MAX_SEGS; i++)
			seg(&iov[i], info.text_start + (i % 64) * sizeof(buf), sizeof(buf), buf);
		setitimer(ITIMER_REAL, &t, NULL);
		err = readv_call(fd, iov, KMEM_RO_READV_MAX_SEGS, &done);
		setitimer(ITIMER_REAL, &(struct itimerval){ 0 }, NULL);
		if (err == -EINTR)
			done = 0;
		else
			ck_assert_int_eq(err, 0);
	}
	ck_assert_msg(done > 0 && done < KMEM_RO_READV_MAX_SEGS,
		      "no interrupted batch in %d tries (done %u)", tries, done);
	for (unsigned int i = 0; i < KMEM_RO_READV_MAX_SEGS; i++)
		ck_assert_int_eq(iov[i].result, i < done ? (int64_t)sizeof(buf) : 0x7777);
	close(fd);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("readv");
	TCase *tc = tcase_create("results");

	tcase_add_test(tc, mixed_batch_results);
	tcase_add_test(tc, secret_page_is_eperm);
	suite_add_tcase(s, tc);

	tc = tcase_create("bad_input");
	tcase_add_test(tc, limits_are_e2big);
	tcase_add_test(tc, bad_arguments);
	tcase_add_test(tc, signal_returns_partial_progress);
	suite_add_tcase(s, tc);
	return vt_main(s);
}
