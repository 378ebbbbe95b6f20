// SPDX-License-Identifier: GPL-2.0
/*
 * KMEM_RO_IOC_READV: a mixed batch gets the right result per segment,
 * every class of kernel address gets its exact result (README, "READV
 * segments"), nothing but RAM is ever touched, secret and poisoned pages
 * stay hidden, limits give E2BIG, and a signal returns partial progress
 * without losing results.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vmtest.h"

#ifndef SYS_memfd_secret
#define SYS_memfd_secret 447
#endif

#define PAGE 4096UL
#define PMD_BYTES (2UL << 20)

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
	/* twice: then into buffers whose pages are there (straight to them) */
	for (int pass = 0; pass < 2; pass++) {
		if (pass) {
			memset(text, 0x5a, sizeof(text));
			memset(vb, 0x5a, sizeof(vb));
			memset(edge, 0x5a, sizeof(edge));
		}
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
	}
	close(fd);
}
END_TEST

/* One segment: its result (the call must succeed). */
static int64_t read1(int fd, uint64_t addr, uint64_t len, void *buf)
{
	struct kmem_ro_iov iov;
	unsigned int done = 0;

	seg(&iov, addr, len, buf);
	ck_assert_int_eq(readv_call(fd, &iov, 1, &done), 0);
	ck_assert_uint_eq(done, 1);
	return iov.result;
}

#define EXPECT_RESULT(want, addr, len, buf) do {				\
		uint64_t a_ = (addr);						\
		int64_t r_ = read1(fd, a_, (len), (buf));			\
		ck_assert_msg(r_ == (int64_t)(want), "READV %#llx +%llu: %lld, want %lld", \
			      (unsigned long long)a_, (unsigned long long)(len),	\
			      (long long)r_, (long long)(want));		\
	} while (0)

static struct kmem_ro_info layout_of(int fd)
{
	struct kmem_ro_info info;

	ck_assert_int_eq(vt_info(fd, &info, NULL, 0), 0);
	return info;
}

/* Addresses below the direct map, and ranges that wrap: never looked at. */
START_TEST(below_direct_map_and_wrap_are_einval)
{
	int fd = vt_open_dev();
	struct kmem_ro_info info = layout_of(fd);
	char buf[16];

	EXPECT_RESULT(-EINVAL, 0, 8, buf);			/* NULL page */
	EXPECT_RESULT(-EINVAL, 0x10, 8, buf);
	EXPECT_RESULT(-EINVAL, (uintptr_t)buf, 8, buf);		/* user space: our stack */
	EXPECT_RESULT(-EINVAL, 0x8000000000000000ULL, 8, buf);	/* non-canonical */
	EXPECT_RESULT(-EINVAL, 0xff00000000000000ULL, 8, buf);	/* guard hole (LA57) */
	EXPECT_RESULT(-EINVAL, info.page_offset - PAGE, 8, buf);	/* just below the direct map */
	EXPECT_RESULT(-EINVAL, info.page_offset - 8, 16, buf);	/* runs into it */
	EXPECT_RESULT(-EINVAL, 0xfffffffffffff000ULL, 0x2000, buf);	/* wraps past 2^64 */
	EXPECT_RESULT(-EINVAL, UINT64_MAX, 2, buf);
	/* length 0: nothing to read, whatever the address */
	EXPECT_RESULT(0, 0, 0, buf);
	EXPECT_RESULT(0, 0x8000000000000000ULL, 0, buf);
	EXPECT_RESULT(0, info.page_offset - PAGE, 0, buf);
	EXPECT_RESULT(0, UINT64_MAX, 0, NULL);
	close(fd);
}
END_TEST

/* Each kind of readable kernel memory, against an independent copy. */
START_TEST(readable_kinds_match_their_source)
{
	static char got[PAGE], want[PAGE], version[512];
	uint64_t banner = vt_kallsyms("linux_banner"), uts = vt_kallsyms("init_uts_ns");
	uint64_t node_link, node, magic = 0;
	int fd = vt_open_dev();
	struct kmem_ro_info info = layout_of(fd);
	char *user;
	FILE *f;

	/* the direct map of a page of ours */
	user = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE | MAP_LOCKED, -1, 0);
	ck_assert_ptr_ne(user, MAP_FAILED);
	for (size_t i = 0; i < PAGE; i++)
		user[i] = (char)(i * 13);
	EXPECT_RESULT(PAGE, info.page_offset + vt_pagemap_pfn(user) * PAGE, PAGE, got);
	ck_assert_int_eq(memcmp(got, user, PAGE), 0);
	munmap(user, PAGE);
	/* rodata: the banner /proc/version prints */
	f = fopen("/proc/version", "re");
	ck_assert_ptr_nonnull(fgets(version, sizeof(version), f));
	fclose(f);
	EXPECT_RESULT(strlen(version), banner, strlen(version), got);
	ck_assert_int_eq(memcmp(got, version, strlen(version)), 0);
	/* an image data symbol: utsname "Linux" first */
	ck_assert_uint_ne(uts, 0);
	EXPECT_RESULT(65, uts, 65, got);
	ck_assert_int_eq(vt_kcore_read(uts, want, 65), 0);
	ck_assert_int_eq(memcmp(got, want, 65), 0);
	ck_assert_str_eq(got, "Linux");
	/* a kmalloc()ed node of testobj's list */
	EXPECT_RESULT(8, vt_testobj("good_head"), 8, &node_link);
	node = node_link - vt_testobj("link_offset");
	ck_assert_uint_ge(node, info.page_offset);
	ck_assert_uint_lt(node, info.vmalloc_start);
	EXPECT_RESULT(8, node, 8, &magic);
	ck_assert_uint_eq(magic, 0x6b6d656d5f726f21ULL);
	close(fd);
}
END_TEST

/* A page the kernel hides, and reads that run from RAM into it. */
static void assert_hidden(int fd, const struct kmem_ro_info *info, uint64_t pfn)
{
	static char buf[2 * PAGE];
	uint64_t addr = info->page_offset + pfn * PAGE;

	memset(buf, 0, sizeof(buf));
	EXPECT_RESULT(-EPERM, addr, 64, buf);
	EXPECT_RESULT(-EPERM, addr + PAGE - 8, 8, buf);
	for (size_t i = 0; i < sizeof(buf); i++)
		ck_assert_int_eq(buf[i], 0);
	/* the page before is ordinary RAM: exactly its bytes come back */
	EXPECT_RESULT(PAGE, addr - PAGE, PAGE, buf);
	EXPECT_RESULT(100, addr - 100, 200, buf);
	EXPECT_RESULT(PAGE, addr - PAGE, 2 * PAGE, buf);
	for (size_t i = PAGE; i < sizeof(buf); i++)
		ck_assert_int_eq(buf[i], 0);
}

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
	assert_hidden(fd, &info, vt_pagemap_pfn(secret));
	munmap(secret, PAGE);
	close(mfd);
	close(fd);
}
END_TEST

START_TEST(hwpoisoned_page_is_eperm)
{
	int fd = vt_open_dev();
	struct kmem_ro_info info = layout_of(fd);

	assert_hidden(fd, &info, vt_hwpoison_page());
	close(fd);
}
END_TEST

/* A top-level /proc/iomem range that is not System RAM, from 1 MiB up. */
static uint64_t iomem_non_ram(void)
{
	FILE *f = fopen("/proc/iomem", "re");
	unsigned long long s, e, found = 0;
	char line[256];
	int pos;

	ck_assert_ptr_nonnull(f);
	while (!found && fgets(line, sizeof(line), f))
		if (line[0] != ' ' && sscanf(line, "%llx-%llx : %n", &s, &e, &pos) == 2 &&
		    strcmp(line + pos, "System RAM\n") && s >= (1ULL << 20) && e - s + 1 >= PAGE)
			found = (s + PAGE - 1) & ~(PAGE - 1);
	fclose(f);
	ck_assert_msg(found, "no non-RAM range in /proc/iomem");
	return found;
}

/* The direct map of what is not RAM: refused without a look. */
START_TEST(direct_map_non_ram_is_enxio)
{
	static struct kmem_ro_range ram[64];
	struct kmem_ro_info info;
	char buf[8];
	int fd = vt_open_dev(), n;

	ck_assert_int_eq(vt_info(fd, &info, ram, 64), 0);
	n = info.ram_count;
	ck_assert_uint_gt(ram[0].start, 0);			/* page 0 is not RAM */
	EXPECT_RESULT(-ENXIO, info.page_offset, 8, buf);
	EXPECT_RESULT(-ENXIO, info.page_offset + ram[0].end + PAGE, 8, buf);	/* a hole */
	EXPECT_RESULT(-ENXIO, info.page_offset + iomem_non_ram(), 8, buf);	/* MMIO, reserved */
	EXPECT_RESULT(-ENXIO, info.page_offset + 0xfed00000, 8, buf);		/* the HPET */
	EXPECT_RESULT(-ENXIO, info.page_offset + ram[n - 1].end, 8, buf);	/* past RAM */
	EXPECT_RESULT(-ENXIO, info.page_offset + (1ULL << 46), 8, buf);
	close(fd);
}
END_TEST

/*
 * Every ioremap() area the kernel has (HPET, ACPI tables, testobj's):
 * each mapped page is -ENXIO, never touched; /proc/vmallocinfo's size
 * counts the guard page after it, which is unmapped: -EFAULT.
 */
START_TEST(every_ioremap_page_is_enxio)
{
	uint64_t mmio = vt_testobj("mmio");
	unsigned long long s, e;
	int fd = vt_open_dev(), areas = 0, seen_mmio = 0;
	char line[512], buf[8];
	FILE *f;

	vt_write_file("/proc/sys/kernel/kptr_restrict", "1");
	f = fopen("/proc/vmallocinfo", "re");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		if (!strstr(line, " ioremap") || sscanf(line, "0x%llx-0x%llx", &s, &e) != 2)
			continue;
		ck_assert_uint_ge(e - s, 2 * PAGE);
		for (uint64_t a = s; a < e - PAGE; a += PAGE) {
			EXPECT_RESULT(-ENXIO, a, 8, buf);
			EXPECT_RESULT(-ENXIO, a + PAGE - 4, 4, buf);
		}
		EXPECT_RESULT(-EFAULT, e - PAGE, 8, buf);
		seen_mmio += mmio >= s && mmio < e;
		areas++;
	}
	fclose(f);
	ck_assert_int_eq(seen_mmio, 1);
	ck_assert_int_ge(areas, 2);
	printf("readv: %d ioremap areas, every page -ENXIO\n", areas);
	close(fd);
}
END_TEST

/* The middle of the largest gap between /proc/vmallocinfo areas in [lo, hi). */
static uint64_t vmalloc_gap(uint64_t lo, uint64_t hi)
{
	unsigned long long s, e;
	uint64_t best = 0, best_len = 0, prev = lo;
	uint64_t *starts = calloc(65536, 8), *ends = calloc(65536, 8);
	char line[512];
	int n = 0;
	FILE *f;

	vt_write_file("/proc/sys/kernel/kptr_restrict", "1");
	f = fopen("/proc/vmallocinfo", "re");
	ck_assert_ptr_nonnull(f);
	while (n < 65536 && fgets(line, sizeof(line), f))
		if (sscanf(line, "0x%llx-0x%llx", &s, &e) == 2 && e > lo && s < hi) {
			starts[n] = s;
			ends[n++] = e;
		}
	fclose(f);
	/* vmallocinfo lists areas in address order */
	for (int i = 0; i <= n; i++) {
		uint64_t next = i < n ? starts[i] : hi;

		if (next > prev && next - prev > best_len) {
			best_len = next - prev;
			best = prev + (best_len / 2 & ~(PAGE - 1));
		}
		if (i < n && ends[i] > prev)
			prev = ends[i];
	}
	free(starts);
	free(ends);
	ck_assert_uint_ge(best_len, 64 * PAGE);
	return best;
}

/* Kernel addresses with nothing mapped, or nothing this kernel maps there. */
START_TEST(unmapped_kernel_space_is_efault)
{
	int fd = vt_open_dev();
	struct kmem_ro_info info = layout_of(fd);
	char buf[8];

	EXPECT_RESULT(-EFAULT, vmalloc_gap(info.vmalloc_start, info.vmalloc_end), 8, buf);
	EXPECT_RESULT(-EFAULT, vmalloc_gap(info.modules_start, info.modules_end), 8, buf);
	EXPECT_RESULT(-EFAULT, vt_testobj("vguard"), 8, buf);
	/* ESPFIX's base (its stacks sit at random pages above it) */
	EXPECT_RESULT(-EFAULT, 0xffffff0000000000ULL, 8, buf);
	/* the EFI region: a BIOS boot maps nothing there */
	ck_assert_int_eq(access("/sys/firmware/efi", F_OK), -1);
	EXPECT_RESULT(-EFAULT, 0xffffffef00000000ULL, 8, buf);
	/*
	 * The vsyscall fixmap slot: only vsyscall=emulate maps it (Debian's
	 * default is none, xonly does not map it either): user space cannot
	 * read it then.
	 */
	{
		unsigned char b;

		ck_assert_int_ne(vt_probe_read((const void *)0xffffffffff600000ULL, &b), 0);
	}
	EXPECT_RESULT(-EFAULT, 0xffffffffff600000ULL, 8, buf);
	/* the top page of the address space */
	EXPECT_RESULT(-EFAULT, 0xfffffffffffff000ULL, 8, buf);
	close(fd);
}
END_TEST

/*
 * cpu_entry_area: its first page is the read-only alias of idt_table (RAM):
 * the bytes.  Its far end, past every CPU's entry area: -EFAULT.
 */
START_TEST(cpu_entry_area)
{
	static char got[PAGE], want[PAGE];
	uint64_t idt = vt_kallsyms("idt_table");
	int fd = vt_open_dev();

	ck_assert_uint_ne(idt, 0);
	ck_assert_int_eq(vt_kcore_read(idt, want, PAGE), 0);
	EXPECT_RESULT(PAGE, 0xfffffe0000000000ULL, PAGE, got);
	ck_assert_int_eq(memcmp(got, want, PAGE), 0);
	EXPECT_RESULT(-EFAULT, 0xfffffe7ffffff000ULL, 8, got);
	close(fd);
}
END_TEST

/*
 * The kernel image past _end: mapped up to the next 2 MiB boundary (no PTI
 * on this CPU: free_kernel_image_pages() leaves it), unmapped after it.
 */
START_TEST(image_past_end)
{
	static struct kmem_ro_range ram[64];
	uint64_t end = vt_kallsyms("_end"), edge, phys;
	struct kmem_ro_info info;
	int fd = vt_open_dev(), in_ram = 0;
	char buf[8];

	ck_assert_int_eq(vt_info(fd, &info, ram, 64), 0);
	ck_assert_uint_ne(end, 0);
	edge = (end + PMD_BYTES - 1) & ~(PMD_BYTES - 1);
	if (edge == end)
		edge += PMD_BYTES;
	EXPECT_RESULT(8, (end + PAGE - 1) & ~(PAGE - 1), 8, buf);
	EXPECT_RESULT(8, edge - 8, 8, buf);
	EXPECT_RESULT(4, edge - 4, 8, buf);			/* short: the rest faulted */
	phys = edge - info.kernel_map + info.phys_base;
	for (unsigned int i = 0; i < info.ram_count && i < 64; i++)
		in_ram |= phys >= ram[i].start && phys + PAGE <= ram[i].end;
	EXPECT_RESULT(in_ram ? -EFAULT : -ENXIO, edge, 8, buf);
	close(fd);
}
END_TEST

/* struct pages: populated ones read as kcore shows them, the rest -EFAULT. */
START_TEST(vmemmap)
{
	uint64_t base = 0, text_pfn, sym = vt_kallsyms("vmemmap_base");
	char got[64], want[64];
	int fd = vt_open_dev();
	struct kmem_ro_info info = layout_of(fd);

	ck_assert_uint_ne(sym, 0);
	ck_assert_int_eq(vt_kcore_read(sym, &base, 8), 0);
	text_pfn = (info.text_start - info.kernel_map + info.phys_base) / PAGE;
	EXPECT_RESULT(64, base + text_pfn * 64, 64, got);
	ck_assert_int_eq(vt_kcore_read(base + text_pfn * 64, want, 64), 0);
	ck_assert_int_eq(memcmp(got, want, 64), 0);
	EXPECT_RESULT(-EFAULT, base + (1ULL << 34) * 64, 64, got);	/* 64 TiB: no memory */
	close(fd);
}
END_TEST

/* Good kernel addresses, bad output buffers. */
START_TEST(unwritable_output_buffer_is_efault)
{
	int fd = vt_open_dev();
	struct kmem_ro_info info = layout_of(fd);
	char *two, *ro, *km;

	two = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(two, MAP_FAILED);
	ck_assert_int_eq(munmap(two + PAGE, PAGE), 0);
	ro = mmap(NULL, 2 * PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(ro, MAP_FAILED);
	km = vt_map_phys(fd, info.text_start - info.kernel_map + info.phys_base, 2 * PAGE);
	ck_assert_ptr_ne(km, MAP_FAILED);

	EXPECT_RESULT(-EFAULT, info.text_start, 8, two + PAGE);		/* unmapped */
	EXPECT_RESULT(-EFAULT, info.text_start, 8, NULL);
	EXPECT_RESULT(-EFAULT, info.text_start, 8, ro);			/* read-only */
	EXPECT_RESULT(-EFAULT, info.text_start, 2 * PAGE, ro);
	EXPECT_RESULT(-EFAULT, info.text_start, 8, km);			/* kmem_ro mapping */
	EXPECT_RESULT(-EFAULT, info.text_start, 2 * PAGE, km);
	/* a whole page fits before the hole: that page's bytes come back */
	EXPECT_RESULT(PAGE, info.text_start, 2 * PAGE, two);
	ck_assert_int_eq(memcmp(two, km, PAGE), 0);
	munmap(km, 2 * PAGE);
	munmap(ro, 2 * PAGE);
	munmap(two, PAGE);
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

/*
 * The call's own memory: no segments at all, a segment array that runs
 * into a hole or cannot take the results, an argument that cannot take
 * @done.  Whatever was read before the fault stays read.
 */
START_TEST(call_memory_rules)
{
	static char a[64], b[64], kc[64];
	struct kmem_ro_readv rv = { .size = sizeof(rv) }, *ro_rv;
	struct kmem_ro_iov *iov, *ro_iov;
	char *two;
	int fd = vt_open_dev();
	struct kmem_ro_info info = layout_of(fd);

	ck_assert_int_eq(vt_kcore_read(info.text_start, kc, sizeof(kc)), 0);
	/* both 0: nothing to do */
	rv.done = 77;
	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_READV, &rv), 0);
	ck_assert_uint_eq(rv.done, 0);

	/* two segments, the second running into an unmapped page */
	two = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(two, MAP_FAILED);
	ck_assert_int_eq(munmap(two + PAGE, PAGE), 0);
	iov = (struct kmem_ro_iov *)(two + PAGE) - 1;
	seg(&iov[-1], info.text_start, sizeof(a), a);
	seg(&iov[0], info.text_start, sizeof(b), b);
	rv.iov_addr = (uintptr_t)&iov[-1];
	rv.iov_count = 2;
	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_READV, &rv), 0);
	ck_assert_int_eq(iov[-1].result, sizeof(a));
	ck_assert_int_eq(iov[0].result, sizeof(b));
	rv.iov_count = 3;
	memset(a, 0, sizeof(a));
	iov[-1].result = 0x7777;
	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_READV, &rv), -EFAULT);
	ck_assert_int_eq(iov[-1].result, 0x7777);	/* copied in first: nothing read */
	ck_assert_int_eq(a[0], 0);

	/* a read-only segment array: read, then the result cannot be written */
	ro_iov = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(ro_iov, MAP_FAILED);
	seg(&ro_iov[0], info.text_start, sizeof(a), a);
	seg(&ro_iov[1], info.text_start, sizeof(b), b);
	ck_assert_int_eq(mprotect(ro_iov, PAGE, PROT_READ), 0);
	memset(a, 0, sizeof(a));
	rv.iov_addr = (uintptr_t)ro_iov;
	rv.iov_count = 2;
	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_READV, &rv), -EFAULT);
	ck_assert_int_eq(memcmp(a, kc, sizeof(a)), 0);

	/* a read-only argument: every segment read, results written, no done */
	ro_rv = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(ro_rv, MAP_FAILED);
	*ro_rv = (struct kmem_ro_readv){ .size = sizeof(*ro_rv), .iov_addr = (uintptr_t)&iov[-1],
					 .iov_count = 2 };
	ck_assert_int_eq(mprotect(ro_rv, PAGE, PROT_READ), 0);
	memset(a, 0, sizeof(a));
	memset(b, 0, sizeof(b));
	iov[-1].result = iov[0].result = 0x7777;
	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_READV, ro_rv), -EFAULT);
	ck_assert_int_eq(iov[-1].result, sizeof(a));
	ck_assert_int_eq(iov[0].result, sizeof(b));
	ck_assert_int_eq(memcmp(a, kc, sizeof(a)), 0);
	ck_assert_int_eq(memcmp(b, kc, sizeof(b)), 0);
	ck_assert_uint_eq(ro_rv->done, 0);

	munmap(ro_rv, PAGE);
	munmap(ro_iov, PAGE);
	munmap(two, PAGE);
	close(fd);
}
END_TEST

/* ---- a signal during a long batch ---- */

static void on_alarm(int sig)
{
	(void)sig;
}

/*
 * Run @fn with the device open, as root and then as a member of the
 * device's group (uid 1000, no capability) in a child: READV's copies of
 * its argument and segments are the same for both.
 */
static void as_root_and_member(void (*fn)(int fd, const struct kmem_ro_info *info,
					  const char *kc), int kcore_bytes)
{
	static const gid_t groups[] = { MONITOR_GID };
	int fd = vt_open_dev(), status;
	struct kmem_ro_info info = layout_of(fd);
	char kc[64];
	pid_t pid;

	ck_assert_uint_le(kcore_bytes, sizeof(kc));
	ck_assert_int_eq(vt_kcore_read(info.text_start, kc, kcore_bytes), 0);
	fn(fd, &info, kc);
	close(fd);

	ck_assert_int_eq(chown(KMEM_RO_DEVICE, 0, MONITOR_GID), 0);
	ck_assert_int_eq(chmod(KMEM_RO_DEVICE, 0440), 0);
	pid = vt_fork_as(MEMBER_UID, MEMBER_UID, groups, 1);
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		fd = open(KMEM_RO_DEVICE, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			_exit(101);
		fn(fd, &info, kc);
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_int_eq(chown(KMEM_RO_DEVICE, 0, 0), 0);
	ck_assert_msg(WIFEXITED(status) && !WEXITSTATUS(status), "member: status %#x", status);
}

/* The direct map of a locked page of the test's own, and that page (below). */
static uint64_t own_alias;
static const char *own_page;

static void kernel_buffer_calls(int fd, const struct kmem_ro_info *info, const char *kc)
{
	(void)kc;
	EXPECT_RESULT(-EFAULT, info->text_start, PAGE, (void *)(uintptr_t)own_alias);
	EXPECT_RESULT(-EFAULT, info->text_start, PAGE / 2, (void *)(uintptr_t)(own_alias + 8));
	EXPECT_RESULT(-EFAULT, info->text_start, PAGE, (void *)(uintptr_t)0x0ede33c3cb89a000ULL);
	for (size_t i = 0; i < PAGE; i++)
		ck_assert_msg(own_page[i] == 0x3c, "byte %zu of our page written through the direct map", i);
}

/*
 * A buffer outside user memory, for a segment above the group's size
 * (read a page at a time, straight to the buffer where its pages are
 * there): EFAULT and nothing written, as root and as a member.  The
 * kernel address is the direct map of a page of ours (the member's
 * child shares it until written), so a write through it would show in
 * that page; the other is non-canonical (a general protection fault,
 * not a page fault, if it were touched).
 */
START_TEST(large_segment_into_kernel_memory_is_efault)
{
	int fd = vt_open_dev();
	struct kmem_ro_info info = layout_of(fd);
	char *own = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE | MAP_LOCKED, -1, 0);

	ck_assert_ptr_ne(own, MAP_FAILED);
	memset(own, 0x3c, PAGE);
	own_alias = info.page_offset + vt_pagemap_pfn(own) * PAGE;
	own_page = own;
	close(fd);
	as_root_and_member(kernel_buffer_calls, 8);
	munmap(own, PAGE);
}
END_TEST

/*
 * Of the argument only @done is written: its first fields may sit in a
 * read-only page when @done sits in a writable one.
 */
static void only_done_calls(int fd, const struct kmem_ro_info *info, const char *kc)
{
	static char a[64];
	struct kmem_ro_iov iov[1];
	struct kmem_ro_readv *rv;
	char *two;

	two = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(two, MAP_FAILED);
	/* size, flags and iov_addr in the first page; iov_count, done, reserved in the second */
	rv = (struct kmem_ro_readv *)(two + PAGE - offsetof(struct kmem_ro_readv, iov_count));
	seg(&iov[0], info->text_start, sizeof(a), a);
	*rv = (struct kmem_ro_readv){ .size = sizeof(*rv), .iov_addr = (uintptr_t)iov,
				      .iov_count = 1, .done = 77 };
	memset(a, 0, sizeof(a));
	ck_assert_int_eq(mprotect(two, PAGE, PROT_READ), 0);
	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_READV, rv), 0);
	ck_assert_uint_eq(rv->done, 1);
	ck_assert_int_eq(iov[0].result, sizeof(a));
	ck_assert_int_eq(memcmp(a, kc, sizeof(a)), 0);
	ck_assert_uint_eq(rv->size, sizeof(*rv));
	ck_assert_uint_eq(rv->iov_count, 1);

	/* and the reverse: done in a read-only page: every segment read, EFAULT */
	ck_assert_int_eq(mprotect(two, PAGE, PROT_READ | PROT_WRITE), 0);
	rv = (struct kmem_ro_readv *)(two + PAGE - offsetof(struct kmem_ro_readv, done));
	*rv = (struct kmem_ro_readv){ .size = sizeof(*rv), .iov_addr = (uintptr_t)iov,
				      .iov_count = 1, .done = 77 };
	ck_assert_int_eq(mprotect(two + PAGE, PAGE, PROT_READ), 0);
	memset(a, 0, sizeof(a));
	iov[0].result = 0x7777;
	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_READV, rv), -EFAULT);
	ck_assert_int_eq(iov[0].result, sizeof(a));
	ck_assert_int_eq(memcmp(a, kc, sizeof(a)), 0);
	ck_assert_uint_eq(rv->done, 77);

	munmap(two, 2 * PAGE);
}

/*
 * One segment, which has a path of its own (its argument and segment come
 * in together, its results go out together): a segment array running
 * into an unmapped page, and a read-only one.
 */
static void one_segment_fault_calls(int fd, const struct kmem_ro_info *info, const char *kc)
{
	static char a[64];
	struct kmem_ro_readv rv = { .size = sizeof(rv), .iov_count = 1, .done = 77 };
	struct kmem_ro_iov *ro_iov;
	char *two;

	two = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(two, MAP_FAILED);
	ck_assert_int_eq(munmap(two + PAGE, PAGE), 0);
	seg((struct kmem_ro_iov *)(two + PAGE - sizeof(*ro_iov)), info->text_start, sizeof(a), a);
	memset(a, 0, sizeof(a));
	rv.iov_addr = (uintptr_t)(two + PAGE - sizeof(*ro_iov) / 2);
	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_READV, &rv), -EFAULT);
	ck_assert_uint_eq(rv.done, 77);
	ck_assert_int_eq(a[0], 0);

	/* read-only: read, then the result cannot be written; done untouched */
	ro_iov = (struct kmem_ro_iov *)two;
	seg(ro_iov, info->text_start, sizeof(a), a);
	ck_assert_int_eq(mprotect(two, PAGE, PROT_READ), 0);
	rv.iov_addr = (uintptr_t)ro_iov;
	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_READV, &rv), -EFAULT);
	ck_assert_int_eq(memcmp(a, kc, sizeof(a)), 0);
	ck_assert_uint_eq(rv.done, 77);
	munmap(two, PAGE);
}

START_TEST(one_segment_copy_faults)
{
	as_root_and_member(one_segment_fault_calls, 64);
}
END_TEST

START_TEST(only_done_is_written_back)
{
	as_root_and_member(only_done_calls, 64);
}
END_TEST

/*
 * The argument and a few segments come in as word loads, from 6.12 with
 * the address masked instead of checked (kmem_ro_readv_in(),
 * kmem_ro_copy_in()): the last bytes of user memory are read, a struct
 * that runs past them faults in the guard page above, and a kernel
 * address faults too, even with the top page of user memory mapped (a
 * masked address points there).
 */
static void top_of_user_memory_calls(int fd, const struct kmem_ro_info *info, const char *kc)
{
	static char a[16], b[16];
	/* 5-level paging moves the direct map below the 4-level hole */
	uint64_t top = info->page_offset < 0xffff800000000000ULL ? (1ULL << 56) - PAGE :
								    (1ULL << 47) - PAGE;
	struct kmem_ro_readv *rv, ok;
	struct kmem_ro_iov *iov;
	char *page;

	page = mmap((void *)(uintptr_t)(top - PAGE), PAGE, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	ck_assert_ptr_eq(page, (void *)(uintptr_t)(top - PAGE));

	/* a segment array in the last bytes of user memory */
	iov = (struct kmem_ro_iov *)(page + PAGE) - 1;
	seg(iov, info->text_start, sizeof(a), a);
	ok = (struct kmem_ro_readv){ .size = sizeof(ok), .iov_addr = (uintptr_t)iov,
				     .iov_count = 1 };
	memset(a, 0, sizeof(a));
	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_READV, &ok), 0);
	ck_assert_uint_eq(ok.done, 1);
	ck_assert_int_eq(iov->result, sizeof(a));
	ck_assert_int_eq(memcmp(a, kc, sizeof(a)), 0);

	/* the argument there too */
	rv = (struct kmem_ro_readv *)(page + PAGE) - 1;
	iov = (struct kmem_ro_iov *)page;
	seg(iov, info->text_start, sizeof(b), b);
	*rv = (struct kmem_ro_readv){ .size = sizeof(*rv), .iov_addr = (uintptr_t)iov,
				      .iov_count = 1 };
	memset(b, 0, sizeof(b));
	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_READV, rv), 0);
	ck_assert_uint_eq(rv->done, 1);
	ck_assert_int_eq(memcmp(b, kc, sizeof(b)), 0);

	/* two segments, the second running into the guard page: nothing read */
	iov = (struct kmem_ro_iov *)(page + PAGE - sizeof(*iov) - 8);
	seg(&iov[0], info->text_start, sizeof(a), a);
	ok.iov_addr = (uintptr_t)iov;
	ok.iov_count = 2;
	memset(a, 0, sizeof(a));
	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_READV, &ok), -EFAULT);
	ck_assert_int_eq(a[0], 0);
	ck_assert_int_eq(iov[0].result, 0x7777);

	/* the argument running into the guard page */
	rv = (struct kmem_ro_readv *)(page + PAGE - sizeof(*rv) + 8);
	memset(rv, 0, sizeof(*rv) - 8);
	rv->size = sizeof(*rv);
	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_READV, rv), -EFAULT);

	/* kernel addresses as the argument and as the segment array */
	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_READV, (void *)(uintptr_t)info->text_start),
			 -EFAULT);
	ok.iov_addr = info->text_start;
	ok.iov_count = 1;
	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_READV, &ok), -EFAULT);
	ok.iov_addr = 0xffffffffffffffffULL - 7;
	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_READV, &ok), -EFAULT);

	munmap(page, PAGE);
}

START_TEST(call_memory_at_the_top_of_user_memory)
{
	as_root_and_member(top_of_user_memory_calls, 16);
}
END_TEST

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
	tcase_add_test(tc, below_direct_map_and_wrap_are_einval);
	tcase_add_test(tc, readable_kinds_match_their_source);
	tcase_add_test(tc, secret_page_is_eperm);
	tcase_add_test(tc, hwpoisoned_page_is_eperm);
	tcase_add_test(tc, direct_map_non_ram_is_enxio);
	tcase_add_test(tc, every_ioremap_page_is_enxio);
	tcase_add_test(tc, unmapped_kernel_space_is_efault);
	tcase_add_test(tc, cpu_entry_area);
	tcase_add_test(tc, image_past_end);
	tcase_add_test(tc, vmemmap);
	tcase_add_test(tc, unwritable_output_buffer_is_efault);
	tcase_add_test(tc, large_segment_into_kernel_memory_is_efault);
	suite_add_tcase(s, tc);

	tc = tcase_create("bad_input");
	tcase_add_test(tc, limits_are_e2big);
	tcase_add_test(tc, bad_arguments);
	tcase_add_test(tc, call_memory_rules);
	tcase_add_test(tc, one_segment_copy_faults);
	tcase_add_test(tc, only_done_is_written_back);
	tcase_add_test(tc, call_memory_at_the_top_of_user_memory);
	tcase_add_test(tc, signal_returns_partial_progress);
	suite_add_tcase(s, tc);
	return vt_main(s);
}
