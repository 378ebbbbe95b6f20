// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel page-table walks check every table page before reading it.
 *
 * kmem_ro_testobj.ko points the PMD entry of its own vmalloc area
 * (ptarea) at a page of our choice, as a PMD table freed and reused under
 * the driver's walk would: a stale entry can name any page as the next
 * table.  READV of an address in ptarea must then:
 *  - follow a healthy RAM page as a table (its entries are checked PFNs);
 *  - refuse an MMIO page (the VGA window, which the direct map maps) with
 *    ENXIO, without reading it: QEMU's trace of device reads
 *    (memory_region_ops_read, see +qemu-trace in tests/vm/groups) must
 *    not show the entry's offset in "vga-lowmem" (@@TRACE_ABSENT below,
 *    judged by run.sh);
 *  - refuse a hwpoisoned page with EPERM.
 * The real entry is put back after each case and the area reads right.
 * A table page poisoned between two segments of one READV group (the
 * flag set by the test module at the second segment's start) refuses the
 * second: a group once took its table pages as checked for all its
 * segments.
 *
 * Poison cannot be undone: this suite runs alone in its VM.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "vmtest.h"

#define PAGE		4096UL
#define PTAREA_MAGIC	0x7074000000000000ULL	/* kmem_ro_testobj.c */
#define PMD_FILE	"/sys/kernel/debug/kmem_ro_testobj_pmd"
#define POISON_FILE	"/sys/kernel/debug/kmem_ro_testobj_poison_pmd"
#define VGA_PFN		0xa0UL			/* 0xa0000: QEMU's "vga-lowmem" */
/* The page of ptarea read: its PTE is entry IDX of whatever the PMD names. */
#define IDX		0x1abUL
#define PTE_PRESENT	0x63ULL			/* present, rw, accessed, dirty */

static uint64_t ptarea;

static int64_t readv_u64(int fd, uint64_t addr, uint64_t *val)
{
	struct kmem_ro_iov iov = { .addr = addr, .len = sizeof(*val),
				   .buf = (uintptr_t)val, .result = 0x7777 };
	struct kmem_ro_readv rv = { .size = sizeof(rv), .iov_addr = (uintptr_t)&iov,
				    .iov_count = 1 };

	*val = 0;
	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_READV, &rv), 0);
	ck_assert_uint_eq(rv.done, 1);
	return iov.result;
}

static void fake_pmd(uint64_t pfn)
{
	char val[32];

	snprintf(val, sizeof(val), "%#llx", (unsigned long long)pfn);
	vt_write_file(PMD_FILE, val);
}

/* With the real entry, ptarea reads its own marks. */
static void assert_real(int fd)
{
	uint64_t val;

	vt_write_file(PMD_FILE, "restore");
	ck_assert_int_eq(readv_u64(fd, ptarea + IDX * PAGE, &val), sizeof(val));
	ck_assert_uint_eq(val, PTAREA_MAGIC | IDX);
}

static void setup(void)
{
	ptarea = vt_testobj("ptarea");
	ck_assert_uint_eq(ptarea % (2UL << 20), 0);
}

/* A RAM page as the table: its entry IDX is followed, and checked. */
START_TEST(ram_table_followed)
{
	uint64_t *table = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	uint64_t val, pfn0 = vt_testobj("ptarea_pfn");
	int fd = vt_open_dev();

	ck_assert_ptr_ne(table, MAP_FAILED);
	assert_real(fd);
	for (unsigned long i = 0; i < PAGE / 8; i++)
		table[i] = (pfn0 * PAGE) | PTE_PRESENT;
	table[IDX + 1] = 0;		/* not present: EFAULT */
	table[IDX + 2] = (VGA_PFN * PAGE) | PTE_PRESENT;	/* MMIO data: ENXIO */
	fake_pmd(vt_pagemap_pfn(table));
	ck_assert_int_eq(readv_u64(fd, ptarea + IDX * PAGE, &val), sizeof(val));
	ck_assert_uint_eq(val, PTAREA_MAGIC | 0);	/* page 0 through entry IDX */
	ck_assert_int_eq(readv_u64(fd, ptarea + (IDX + 1) * PAGE, &val), -EFAULT);
	ck_assert_int_eq(readv_u64(fd, ptarea + (IDX + 2) * PAGE, &val), -ENXIO);
	assert_real(fd);
	munmap(table, PAGE);
	close(fd);
}
END_TEST

static int monitor_reads_mmio_table(void *arg)
{
	int fd = vt_open_dev();
	uint64_t val;

	(void)arg;
	ck_assert_int_eq(readv_u64(fd, ptarea + IDX * PAGE, &val), -ENXIO);
	ck_assert_uint_eq(val, 0);
	close(fd);
	return 0;
}

/* The VGA window as the table: refused before its entry IDX is read. */
START_TEST(mmio_table_refused)
{
	int fd = vt_open_dev();
	uint64_t val;

	assert_real(fd);
	/* run.sh fails the group if QEMU saw a read of any byte of entry IDX */
	printf("@@TRACE_ABSENT memory_region_ops_read .* addr 0x%lx[89a-f] .*name 'vga-lowmem'\n",
	       (VGA_PFN * PAGE + IDX * 8) >> 4);
	fflush(stdout);
	fake_pmd(VGA_PFN);
	ck_assert_int_eq(readv_u64(fd, ptarea + IDX * PAGE, &val), -ENXIO);
	ck_assert_uint_eq(val, 0);
	ck_assert_int_eq(vt_run_as_monitor(monitor_reads_mmio_table, NULL), 0);
	assert_real(fd);
	close(fd);
}
END_TEST

/* A poisoned page as the table: refused, never read (a machine check). */
START_TEST(poisoned_table_refused)
{
	uint64_t val, pfn = vt_hwpoison_page();
	int fd = vt_open_dev();

	assert_real(fd);
	fake_pmd(pfn);
	ck_assert_int_eq(readv_u64(fd, ptarea + IDX * PAGE, &val), -EPERM);
	ck_assert_uint_eq(val, 0);
	assert_real(fd);
	close(fd);
}
END_TEST

/* One READV of two u64 segments, one group: their results. */
static void readv_two(int fd, uint64_t a, uint64_t b, int64_t res[2], uint64_t val[2])
{
	struct kmem_ro_iov iov[2] = {
		{ .addr = a, .len = 8, .buf = (uintptr_t)&val[0], .result = 0x7777 },
		{ .addr = b, .len = 8, .buf = (uintptr_t)&val[1], .result = 0x7777 },
	};
	struct kmem_ro_readv rv = { .size = sizeof(rv), .iov_addr = (uintptr_t)iov,
				    .iov_count = 2 };

	val[0] = val[1] = 0;
	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_READV, &rv), 0);
	ck_assert_uint_eq(rv.done, 2);
	res[0] = iov[0].result;
	res[1] = iov[1].result;
}

/*
 * The table page holding ptarea's PMD entry gets PG_hwpoison as the
 * second segment of a group starts: the first read it, the second is
 * refused (EPERM) without reading it.  Flag cleared, both read again.
 */
START_TEST(poisoned_between_segments)
{
	uint64_t val[2], a = ptarea + IDX * PAGE, b = ptarea + (IDX + 1) * PAGE;
	int64_t res[2];
	int fd = vt_open_dev();

	assert_real(fd);
	vt_write_file(POISON_FILE, "2");
	readv_two(fd, a, b, res, val);
	vt_write_file(POISON_FILE, "clear");
	ck_assert_int_eq(res[0], 8);
	ck_assert_uint_eq(val[0], PTAREA_MAGIC | IDX);
	ck_assert_msg(res[1] == -EPERM, "second segment through the poisoned table: %lld, %#llx",
		      (long long)res[1], (unsigned long long)val[1]);
	ck_assert_uint_eq(val[1], 0);
	readv_two(fd, a, b, res, val);
	ck_assert_int_eq(res[0], 8);
	ck_assert_int_eq(res[1], 8);
	ck_assert_uint_eq(val[1], PTAREA_MAGIC | (IDX + 1));
	close(fd);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pgtable");
	TCase *tc = tcase_create("pgtable");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, ram_table_followed);
	tcase_add_test(tc, mmio_table_refused);
	tcase_add_test(tc, poisoned_table_refused);
	tcase_add_test(tc, poisoned_between_segments);
	suite_add_tcase(s, tc);
	return vt_main(s);
}
