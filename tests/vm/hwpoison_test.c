// SPDX-License-Identifier: GPL-2.0
/*
 * Hardware poison in a hugetlb folio the kernel cannot dissolve: a page of
 * a hugetlbfs file stays in its page cache when a subpage is poisoned
 * (hugetlbfs_error_remove_folio() keeps it), and memory failure then flags
 * only the folio's head.  The poisoned subpage's own PG_hwpoison is clear;
 * only is_page_hwpoison() -- what read_kcore_iter() asks -- sees it.  On
 * hardware, reading it is a machine check.  READV and WALK must refuse
 * every page of that folio with EPERM, as kcore does, and a mapping made
 * under the opt-in mmap_ram=1 shows the driver's refused page there.
 *
 * A page poisoned after a reader mapped it (mapped_then_poisoned): nothing
 * tells the driver, so the old entry stays.  With software poison the
 * reader goes on seeing the bytes the page held; on hardware, touching it
 * is a machine check.  That is what the opt-in gives up (README); by
 * default there is no such mapping, and setting mmap_ram back to 0 revokes
 * the old entry.
 *
 * Poison cannot be undone: this suite runs last in its own VM.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vmtest.h"

#ifndef MADV_HWPOISON
#define MADV_HWPOISON 100
#endif

#define PAGE		4096UL
#define HPAGE		(2UL << 20)
#define POISONED	5		/* the subpage hit; not the head */
#define KPF_HWPOISON	19		/* include/uapi/linux/kernel-page-flags.h */

/* every page of the folio is refused, as read_kcore_iter() does */
static const unsigned long subpages[] = { 0, POISONED, POISONED + 1, HPAGE / PAGE - 1 };

static uint64_t kpageflags(uint64_t pfn)
{
	uint64_t flags = 0;
	FILE *f = fopen("/proc/kpageflags", "r");

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fseeko(f, (off_t)(pfn * 8), SEEK_SET), 0);
	ck_assert_int_eq(fread(&flags, 8, 1, f), 1);
	fclose(f);
	return flags;
}

static int64_t readv_one(int fd, uint64_t addr, void *buf, uint64_t len)
{
	struct kmem_ro_iov iov = { .addr = addr, .len = len, .buf = (uintptr_t)buf,
				   .result = 0x7777 };
	struct kmem_ro_readv rv = { .size = sizeof(rv), .iov_addr = (uintptr_t)&iov,
				    .iov_count = 1 };

	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_READV, &rv), 0);
	return iov.result;
}

/* Map @memfd in a child and poison one subpage there: the child may get
 * SIGBUS (action required), the file keeps the folio. */
static void poison_in_child(int memfd, unsigned long subpage)
{
	pid_t pid = fork();
	int status;

	ck_assert_int_ge(pid, 0);
	if (!pid) {
		char *p = mmap(NULL, HPAGE, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);

		if (p == MAP_FAILED)
			_exit(2);
		(void)*(volatile char *)p;
		_exit(madvise(p + subpage * PAGE, PAGE, MADV_HWPOISON) ? 3 : 0);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg((WIFEXITED(status) && !WEXITSTATUS(status)) ||
		      (WIFSIGNALED(status) && WTERMSIG(status) == SIGBUS),
		      "poisoning child: status %#x", status);
}

START_TEST(poisoned_hugetlb_subpage)
{
	struct kmem_ro_info info;
	uint64_t head_pfn;
	char buf[PAGE];
	int fd = vt_open_dev(), memfd;
	char *p;

	ck_assert_int_eq(vt_info(fd, &info, NULL, 0), 0);
	vt_write_file("/proc/sys/vm/nr_hugepages", "2");
	memfd = memfd_create("kmem_ro-hwpoison", MFD_HUGETLB);
	ck_assert_msg(memfd >= 0, "memfd_create(MFD_HUGETLB): %s", strerror(errno));
	ck_assert_int_eq(ftruncate(memfd, HPAGE), 0);
	p = mmap(NULL, HPAGE, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
	ck_assert_ptr_ne(p, MAP_FAILED);
	memset(p, 0xa5, HPAGE);
	head_pfn = vt_pagemap_pfn(p);
	ck_assert_uint_eq(head_pfn % (HPAGE / PAGE), 0);

	/* before: every subpage reads back */
	ck_assert_int_eq(readv_one(fd, info.page_offset + (head_pfn + POISONED) * PAGE,
				   buf, sizeof(buf)), sizeof(buf));
	ck_assert_int_eq((unsigned char)buf[0], 0xa5);

	ck_assert_int_eq(munmap(p, HPAGE), 0);	/* the page cache keeps the folio */
	poison_in_child(memfd, POISONED);
	ck_assert_int_eq(vt_file_has("/proc/meminfo", "HardwareCorrupted:"), 1);

	printf("hwpoison_test: kpageflags head %#llx, poisoned subpage %#llx\n",
	       (unsigned long long)kpageflags(head_pfn),
	       (unsigned long long)kpageflags(head_pfn + POISONED));
	ck_assert_msg(kpageflags(head_pfn) & (1ULL << KPF_HWPOISON), "head not poisoned");

	for (unsigned int i = 0; i < sizeof(subpages) / sizeof(subpages[0]); i++) {
		unsigned long sub = subpages[i];
		uint64_t phys = (head_pfn + sub) * PAGE;
		struct kmem_ro_field field = { .offset = 0, .len = 8 };
		struct kmem_ro_walk w = {
			.size = sizeof(w), .head = info.text_start,
			.start = info.page_offset + phys,
			.fields_addr = (uintptr_t)&field, .fields_count = 1,
			.buf_addr = (uintptr_t)buf, .buf_size = sizeof(buf),
		};
		unsigned char byte = 0x77;
		uint64_t word;
		char *map;
		int sig;

		memset(buf, 0, sizeof(buf));
		ck_assert_msg(readv_one(fd, info.page_offset + phys, buf, sizeof(buf)) == -EPERM,
			      "READV of subpage %lu of a poisoned hugetlb folio", sub);
		ck_assert_int_eq((unsigned char)buf[0], 0);
		ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_WALK, &w), 0);
		ck_assert_uint_eq(w.status, KMEM_RO_WALK_FAULT);
		ck_assert_int_eq(w.fault_errno, -EPERM);
		ck_assert_uint_eq(w.nodes, 0);

		vt_mmap_ram_on();
		map = vt_map_phys(fd, phys, PAGE);
		sig = map == MAP_FAILED ? -1 : vt_probe_read(map, &byte);
		word = sig ? 0 : *(volatile uint64_t *)map;
		vt_mmap_ram_off();
		ck_assert_ptr_ne(map, MAP_FAILED);
		ck_assert_msg(!sig, "mmap of poisoned subpage %lu raises signal %d", sub, sig);
		ck_assert_msg(word == info.mmap_refused,
			      "mmap of poisoned subpage %lu is not the refused page", sub);
		ck_assert_int_eq(munmap(map, PAGE), 0);
	}
	close(memfd);
	close(fd);
}
END_TEST

/*
 * A child's anonymous page holding 0x5a, mapped by the reader (opt-in)
 * and touched, then poisoned by the child.  Memory failure unmaps it from
 * the child through the rmap; the reader's PFN entry has none and stays.
 */
START_TEST(mapped_then_poisoned)
{
	int to_parent[2], to_child[2], status, fd = vt_open_dev();
	const unsigned char *old, *fresh;
	struct kmem_ro_info info;
	unsigned char byte = 0;
	char buf[PAGE], go = 'g';
	uint64_t pfn = 0;
	pid_t pid;

	ck_assert_int_eq(vt_info(fd, &info, NULL, 0), 0);
	ck_assert_int_eq(pipe(to_parent), 0);
	ck_assert_int_eq(pipe(to_child), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		char *p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			_exit(1);
		memset(p, 0x5a, PAGE);
		pfn = vt_pagemap_pfn(p);
		if (write(to_parent[1], &pfn, sizeof(pfn)) != sizeof(pfn) ||
		    read(to_child[0], &go, 1) != 1)
			_exit(1);
		_exit(madvise(p, PAGE, MADV_HWPOISON) ? 2 : 0);
	}
	ck_assert_int_eq(read(to_parent[0], &pfn, sizeof(pfn)), sizeof(pfn));

	/* by default there is no mapping to keep */
	errno = 0;
	ck_assert_ptr_eq(vt_map_phys(fd, pfn * PAGE, PAGE), MAP_FAILED);
	ck_assert_int_eq(errno, EPERM);

	vt_mmap_ram_on();
	old = vt_map_phys(fd, pfn * PAGE, PAGE);
	ck_assert_ptr_ne(old, MAP_FAILED);
	ck_assert_int_eq(vt_probe_read(old, &byte), 0);
	ck_assert_int_eq(byte, 0x5a);

	ck_assert_int_eq(write(to_child[1], &go, 1), 1);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg((WIFEXITED(status) && !WEXITSTATUS(status)) ||
		      (WIFSIGNALED(status) && WTERMSIG(status) == SIGBUS),
		      "poisoning child: status %#x", status);
	ck_assert_msg(kpageflags(pfn) & (1ULL << KPF_HWPOISON), "page not poisoned");

	/* the old entry stays and shows the old bytes (software poison) */
	byte = 0;
	ck_assert_int_eq(vt_probe_read(old, &byte), 0);
	printf("hwpoison_test: a page poisoned after it was mapped reads %#x "
	       "through the old mapping\n", byte);
	ck_assert_int_eq(byte, 0x5a);
	/* a mapping made now refuses it, as READV does */
	fresh = vt_map_phys(fd, pfn * PAGE, PAGE);
	ck_assert_ptr_ne(fresh, MAP_FAILED);
	byte = 0x77;
	ck_assert_msg(vt_probe_read(fresh, &byte) == 0,
		      "poisoned page mapped after the poison raises a signal");
	ck_assert_uint_eq(*(const volatile uint64_t *)fresh, info.mmap_refused);
	/* mmap_ram=0 revokes the old entry: the refused page, not the bytes */
	vt_mmap_ram_off();
	ck_assert_int_eq(vt_probe_read(old, &byte), 0);
	ck_assert_uint_eq(*(const volatile uint64_t *)old, info.mmap_refused);
	ck_assert_int_eq(readv_one(fd, info.page_offset + pfn * PAGE, buf, sizeof(buf)), -EPERM);
	munmap((void *)fresh, PAGE);
	munmap((void *)old, PAGE);
	close(fd);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("hwpoison");
	TCase *tc = tcase_create("hwpoison");

	tcase_add_test(tc, poisoned_hugetlb_subpage);
	tcase_add_test(tc, mapped_then_poisoned);
	suite_add_tcase(s, tc);
	return vt_main(s);
}
