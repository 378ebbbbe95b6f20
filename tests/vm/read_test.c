// SPDX-License-Identifier: GPL-2.0
/*
 * pread() and read() on /dev/kmem_ro: the contract above
 * KMEM_RO_READ_OFFSET() in uapi/kmem_ro.h.  Every kind of readable kernel
 * memory (text, rodata, image data, direct-map RAM, vmalloc, module text
 * and data) byte for byte against /proc/kcore, page crossings, large
 * reads, length 0, read() at the file position after lseek(); each refused
 * kind of page with its errno, and the short read when a later page is the
 * refused one (kcore shows zeros there); unwritable and userfaultfd
 * buffers; a raw kernel address as offset (the VFS refuses it: why the
 * offset is encoded); and a member of the device's group (uid 1000, no
 * capability) getting exactly root's answers.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
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

#define PAGE		4096UL
#define MIB		(1UL << 20)
#define GUARD_MS	60000	/* hang guard: what never takes this long */

/* pread() at kernel address @addr: the bytes read, or -errno. */
static ssize_t dev_pread(int fd, void *buf, size_t len, uint64_t addr)
{
	/* the system call itself: glibc's pread() may not take a NULL buffer */
	ssize_t r = syscall(SYS_pread64, fd, buf, len, KMEM_RO_READ_OFFSET(addr));

	return r < 0 ? -errno : r;
}

#define EXPECT_PREAD(want, addr, len, buf) do {					\
		uint64_t a_ = (addr);						\
		ssize_t r_ = dev_pread(fd, (buf), (len), a_);			\
		ck_assert_msg(r_ == (ssize_t)(want), "pread %#llx +%llu: %zd, want %zd", \
			      (unsigned long long)a_, (unsigned long long)(len), r_,	\
			      (ssize_t)(want));					\
	} while (0)

static struct kmem_ro_info layout_of(int fd, struct kmem_ro_range *ram, unsigned int cap)
{
	struct kmem_ro_info info;

	ck_assert_int_eq(vt_info(fd, &info, ram, cap), 0);
	ck_assert_msg(info.features & KMEM_RO_FEAT_PREAD, "no KMEM_RO_FEAT_PREAD");
	return info;
}

/* Physical address of the kernel text, seen through the direct map. */
static uint64_t text_alias(const struct kmem_ro_info *info)
{
	return info->page_offset + info->text_start - info->kernel_map + info->phys_base;
}

static size_t first_difference(const char *a, const char *b, size_t len)
{
	size_t i = 0;

	while (i < len && a[i] == b[i])
		i++;
	return i;
}

/*
 * @len bytes at @addr through the device into @got and through
 * /proc/kcore, equal.  Text is patched under us (static keys, ftrace): a
 * difference counts only if it is still there on a second and third look.
 */
static void read_as_kcore(int fd, char *got, uint64_t addr, size_t len, const char *what)
{
	char *want = malloc(len);
	ssize_t r;

	ck_assert(want);
	for (int tries = 0;; tries++) {
		r = dev_pread(fd, got, len, addr);
		ck_assert_msg(r == (ssize_t)len, "%s: pread %#llx +%zu: %zd", what,
			      (unsigned long long)addr, len, r);
		ck_assert_msg(!vt_kcore_read(addr, want, len), "%s: /proc/kcore cannot read %#llx +%zu",
			      what, (unsigned long long)addr, len);
		if (!memcmp(got, want, len))
			break;
		ck_assert_msg(tries < 2, "%s: %#llx +%zu differs from /proc/kcore at byte %zu", what,
			      (unsigned long long)addr, len, first_difference(got, want, len));
	}
	free(want);
}

/*
 * read_as_kcore() into a buffer whose pages are not there yet (a read
 * above 256 bytes goes through the bounce page, whose copy faults them
 * in), then into the same pages, there (straight from the direct map).
 */
static void assert_as_kcore(int fd, uint64_t addr, size_t len, const char *what)
{
	char *got = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ck_assert_ptr_ne(got, MAP_FAILED);
	read_as_kcore(fd, got, addr, len, what);
	memset(got, 0x5a, len);
	read_as_kcore(fd, got, addr, len, what);
	munmap(got, len);
}

/* /proc/kcore shows @len zero bytes at @addr (where the device refuses). */
static void assert_kcore_zeros(uint64_t addr, size_t len, const char *what)
{
	char buf[64];

	ck_assert_uint_le(len, sizeof(buf));
	memset(buf, 0x77, sizeof(buf));
	ck_assert_msg(!vt_kcore_read(addr, buf, len), "%s: /proc/kcore cannot read %#llx", what,
		      (unsigned long long)addr);
	for (size_t i = 0; i < len; i++)
		ck_assert_msg(!buf[i], "%s: /proc/kcore byte %zu at %#llx is %#x, not 0", what, i,
			      (unsigned long long)addr, (unsigned char)buf[i]);
}

/* testobj's vmalloc buffer: byte i is (i * 7) & 0xff. */
static void assert_vbuf_bytes(const unsigned char *b, uint64_t off, size_t len)
{
	for (size_t i = 0; i < len; i++)
		ck_assert_msg(b[i] == (((off + i) * 7) & 0xff), "vbuf byte %llu: %#x",
			      (unsigned long long)(off + i), b[i]);
}

/* A locked page of ours holding a known pattern; its direct-map address. */
static char *pattern_page(const struct kmem_ro_info *info, uint64_t *addr)
{
	char *p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE | MAP_LOCKED, -1, 0);

	ck_assert_ptr_ne(p, MAP_FAILED);
	for (size_t i = 0; i < PAGE; i++)
		p[i] = (char)(i * 13 + 5);
	*addr = info->page_offset + vt_pagemap_pfn(p) * PAGE;
	return p;
}

/* ---- readable memory, against /proc/kcore ---- */

START_TEST(readable_kinds_match_kcore)
{
	static char got[PAGE], version[512];
	uint64_t banner = vt_kallsyms("linux_banner"), uts = vt_kallsyms("init_uts_ns");
	uint64_t vbuf = vt_testobj("vbuf"), vlen = vt_testobj("vbuf_len");
	uint64_t modtext = vt_kallsyms("testobj_show"), good = vt_testobj("good_head");
	uint64_t own, node_link, node, magic = 0;
	int fd = vt_open_dev();
	struct kmem_ro_info info = layout_of(fd, NULL, 0);
	char *page, *vb = malloc(vlen);
	FILE *f;

	ck_assert(banner && uts && modtext && vb);
	/* kernel text, rodata, image data (utsname: "Linux" first) */
	assert_as_kcore(fd, info.text_start, 3 * PAGE + 17, "text");
	assert_as_kcore(fd, banner, 256, "rodata");
	f = fopen("/proc/version", "re");
	ck_assert_ptr_nonnull(fgets(version, sizeof(version), f));
	fclose(f);
	EXPECT_PREAD(strlen(version), banner, strlen(version), got);
	ck_assert_int_eq(memcmp(got, version, strlen(version)), 0);
	assert_as_kcore(fd, uts, 6 * 65, "init_uts_ns");
	EXPECT_PREAD(6, uts, 6, got);
	ck_assert_str_eq(got, "Linux");
	/* direct-map RAM: a page of ours, and the text's own physical pages */
	page = pattern_page(&info, &own);
	EXPECT_PREAD(PAGE, own, PAGE, got);
	ck_assert_int_eq(memcmp(got, page, PAGE), 0);
	assert_as_kcore(fd, own, PAGE, "direct map of our page");
	assert_as_kcore(fd, text_alias(&info), 2 * PAGE, "direct map of the text");
	/* vmalloc: testobj's buffer, whole */
	EXPECT_PREAD(vlen, vbuf, vlen, vb);
	assert_vbuf_bytes((unsigned char *)vb, 0, vlen);
	assert_as_kcore(fd, vbuf, vlen, "vmalloc");
	/* module text and data (kmem_ro_testobj.ko) */
	assert_as_kcore(fd, modtext, 128, "module text");
	assert_as_kcore(fd, good, 16, "module data");
	/* a kmalloc()ed node of testobj's list */
	EXPECT_PREAD(8, good, 8, &node_link);
	node = node_link - vt_testobj("link_offset");
	ck_assert_uint_lt(node, info.vmalloc_start);
	EXPECT_PREAD(8, node, 8, &magic);
	ck_assert_uint_eq(magic, 0x6b6d656d5f726f21ULL);
	munmap(page, PAGE);
	free(vb);
	close(fd);
}
END_TEST

/* Reads that start anywhere near a page boundary and cross it, or several. */
START_TEST(page_crossings_match_kcore)
{
	static const size_t starts[] = { 0, 1, 8, PAGE / 2, PAGE - 8, PAGE - 1 };
	static const size_t lens[] = { 1, 2, 8, 9, 64, PAGE - 1, PAGE, PAGE + 1, 2 * PAGE + 3,
				       5 * PAGE };
	uint64_t vbuf = vt_testobj("vbuf");
	int fd = vt_open_dev();
	struct kmem_ro_info info = layout_of(fd, NULL, 0);
	unsigned char got[256];
	char what[64];

	for (size_t s = 0; s < sizeof(starts) / sizeof(*starts); s++)
		for (size_t l = 0; l < sizeof(lens) / sizeof(*lens); l++) {
			snprintf(what, sizeof(what), "text +%zu len %zu", starts[s], lens[l]);
			assert_as_kcore(fd, info.text_start + 4 * PAGE + starts[s], lens[l], what);
			snprintf(what, sizeof(what), "direct map +%zu len %zu", starts[s], lens[l]);
			assert_as_kcore(fd, text_alias(&info) + 4 * PAGE + starts[s], lens[l], what);
		}
	/* vmalloc pages are not contiguous in RAM: each page is looked up */
	for (uint64_t off = PAGE - 80; off < 2 * PAGE + 80; off += 3) {
		if (off == PAGE + 80)
			off = 2 * PAGE - 80;
		memset(got, 0, sizeof(got));
		EXPECT_PREAD(160, vbuf + off, 160, got);
		assert_vbuf_bytes(got, off, 160);
	}
	close(fd);
}
END_TEST

/* 1 MiB, and the whole kernel text in one read. */
START_TEST(large_reads_match_kcore)
{
	int fd = vt_open_dev();
	struct kmem_ro_info info = layout_of(fd, NULL, 0);
	uint64_t text_len = info.text_end - info.text_start;
	char *a = malloc(MIB), *b = malloc(MIB);

	assert_as_kcore(fd, info.text_start, MIB, "1 MiB of text");
	assert_as_kcore(fd, text_alias(&info) + 3, MIB, "1 MiB of the direct map");
	/* the same bytes through both aliases */
	ck_assert(a && b);
	EXPECT_PREAD(MIB, info.text_start + MIB, MIB, a);
	EXPECT_PREAD(MIB, text_alias(&info) + MIB, MIB, b);
	ck_assert_int_eq(memcmp(a, b, MIB), 0);
	ck_assert_uint_gt(text_len, 4 * MIB);
	assert_as_kcore(fd, info.text_start, text_len, "the whole text");
	free(a);
	free(b);
	close(fd);
}
END_TEST

/* Length 0: nothing to read, whatever the address or buffer. */
START_TEST(length_zero_reads_nothing)
{
	int fd = vt_open_dev();
	struct kmem_ro_info info = layout_of(fd, NULL, 0);
	char buf[8];

	EXPECT_PREAD(0, info.text_start, 0, buf);
	EXPECT_PREAD(0, info.text_start, 0, NULL);
	EXPECT_PREAD(0, vt_testobj("vguard"), 0, buf);
	EXPECT_PREAD(0, vt_testobj("mmio"), 0, buf);
	EXPECT_PREAD(0, info.page_offset - PAGE, 0, buf);
	ck_assert_int_eq(lseek(fd, KMEM_RO_READ_OFFSET(info.text_start), SEEK_SET),
			 KMEM_RO_READ_OFFSET(info.text_start));
	ck_assert_int_eq(read(fd, buf, 0), 0);
	ck_assert_int_eq(lseek(fd, 0, SEEK_CUR), KMEM_RO_READ_OFFSET(info.text_start));
	close(fd);
}
END_TEST

/* read() at the file position; lseek() SEEK_SET and SEEK_CUR move it. */
START_TEST(read_follows_the_file_position)
{
	uint64_t banner = vt_kallsyms("linux_banner");
	uint64_t vbuf = vt_testobj("vbuf"), vlen = vt_testobj("vbuf_len");
	off_t off = KMEM_RO_READ_OFFSET(banner), voff;
	char want[64], got[64];
	unsigned char vb[64];
	int fd = vt_open_dev();
	struct kmem_ro_info info = layout_of(fd, NULL, 0);

	ck_assert_int_eq(vt_kcore_read(banner, want, sizeof(want)), 0);
	/* a new file is at 0: address 1 << 63, not canonical */
	ck_assert_int_eq(lseek(fd, 0, SEEK_CUR), 0);
	ck_assert_int_eq(read(fd, got, 8), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(lseek(fd, 0, SEEK_CUR), 0);

	ck_assert_int_eq(lseek(fd, off, SEEK_SET), off);
	ck_assert_int_eq(read(fd, got, 16), 16);
	ck_assert_int_eq(memcmp(got, want, 16), 0);
	ck_assert_int_eq(lseek(fd, 0, SEEK_CUR), off + 16);
	ck_assert_int_eq(lseek(fd, 9, SEEK_CUR), off + 25);
	ck_assert_int_eq(read(fd, got, 20), 20);
	ck_assert_int_eq(memcmp(got, want + 25, 20), 0);
	ck_assert_int_eq(lseek(fd, -45, SEEK_CUR), off);
	ck_assert_int_eq(read(fd, got, 5), 5);
	ck_assert_int_eq(memcmp(got, "Linux", 5), 0);

	/* a short read moves the position by what it read; a failed one not */
	voff = KMEM_RO_READ_OFFSET(vbuf + vlen - 16);
	ck_assert_int_eq(lseek(fd, voff, SEEK_SET), voff);
	ck_assert_int_eq(read(fd, vb, sizeof(vb)), 16);
	assert_vbuf_bytes(vb, vlen - 16, 16);
	ck_assert_int_eq(lseek(fd, 0, SEEK_CUR), voff + 16);
	ck_assert_int_eq(read(fd, vb, sizeof(vb)), -1);
	ck_assert_int_eq(errno, EFAULT);
	ck_assert_int_eq(lseek(fd, 0, SEEK_CUR), voff + 16);

	/* many pages at the position, the same bytes as pread() */
	{
		char *a = malloc(3 * PAGE + 5), *b = malloc(3 * PAGE + 5);
		off_t t = KMEM_RO_READ_OFFSET(info.text_start + 7);

		ck_assert(a && b);
		ck_assert_int_eq(lseek(fd, t, SEEK_SET), t);
		ck_assert_int_eq(read(fd, a, 3 * PAGE + 5), 3 * PAGE + 5);
		ck_assert_int_eq(lseek(fd, 0, SEEK_CUR), t + 3 * PAGE + 5);
		EXPECT_PREAD(3 * PAGE + 5, info.text_start + 7, 3 * PAGE + 5, b);
		ck_assert_int_eq(memcmp(a, b, 3 * PAGE + 5), 0);
		free(a);
		free(b);
	}
	/* no end to seek from; no negative position */
	off = lseek(fd, 0, SEEK_CUR);
	errno = 0;
	ck_assert_int_eq(lseek(fd, 0, SEEK_END), -1);
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_int_eq(lseek(fd, 0, SEEK_DATA), -1);
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_int_eq(lseek(fd, -1, SEEK_SET), -1);
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_int_eq(lseek(fd, -off - 1, SEEK_CUR), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(lseek(fd, 0, SEEK_CUR), off);
	/* pread() leaves the position alone */
	EXPECT_PREAD(8, banner, 8, got);
	ck_assert_int_eq(lseek(fd, 0, SEEK_CUR), KMEM_RO_READ_OFFSET(info.text_start + 7) +
			 3 * PAGE + 5);
	close(fd);
}
END_TEST

/*
 * The address as a raw off_t is negative (bit 63): pread64() refuses it
 * before any driver sees it, which is why the offset is encoded.
 */
START_TEST(raw_kernel_address_is_refused_by_the_vfs)
{
	int fd = vt_open_dev();
	struct kmem_ro_info info = layout_of(fd, NULL, 0);
	char buf[8];

	ck_assert_int_lt((off_t)info.text_start, 0);
	errno = 0;
	ck_assert_int_eq(pread(fd, buf, 8, (off_t)info.text_start), -1);
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_int_eq(pread(fd, buf, 8, (off_t)info.page_offset), -1);
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_int_eq(pread(fd, buf, 8, -1), -1);
	ck_assert_int_eq(errno, EINVAL);
	EXPECT_PREAD(8, info.text_start, 8, buf);
	close(fd);
}
END_TEST

/* ---- refused pages: the errno, and a short read when a later page is one ---- */

/* Below the direct map: user space, non-canonical, the guard hole, wraps. */
START_TEST(below_direct_map_is_einval)
{
	int fd = vt_open_dev();
	struct kmem_ro_info info = layout_of(fd, NULL, 0);
	static char buf[3 * PAGE];	/* room for what a wrong answer would write */

	EXPECT_PREAD(-EINVAL, info.page_offset - PAGE, 8, buf);
	EXPECT_PREAD(-EINVAL, info.page_offset - 8, 16, buf);	/* the first page fails */
	EXPECT_PREAD(-EINVAL, KMEM_RO_READ_ADDR(0), 8, buf);		/* offset 0 */
	EXPECT_PREAD(-EINVAL, KMEM_RO_READ_ADDR(0x400000), 8, buf);	/* user space's bits */
	EXPECT_PREAD(-EINVAL, 0xff00000000000000ULL, 8, buf);
	EXPECT_PREAD(-EINVAL, 0xfffffffffffff000ULL, 0x2000, buf);	/* wraps past 2^64 */
	close(fd);
}
END_TEST

/* Not mapped: testobj's vmalloc guard page, the top of the address space. */
START_TEST(unmapped_is_efault_and_cuts_a_read_short)
{
	uint64_t vbuf = vt_testobj("vbuf"), vlen = vt_testobj("vbuf_len");
	uint64_t guard = vt_testobj("vguard");
	unsigned char *vb = malloc(vlen + PAGE);
	int fd = vt_open_dev();

	ck_assert_ptr_nonnull(vb);
	ck_assert_uint_eq(guard, vbuf + vlen);
	EXPECT_PREAD(-EFAULT, guard, 8, vb);
	EXPECT_PREAD(-EFAULT, guard + PAGE - 4, 4, vb);
	EXPECT_PREAD(-EFAULT, 0xfffffffffffff000ULL, 8, vb);
	EXPECT_PREAD(16, vbuf + vlen - 16, 32, vb);
	assert_vbuf_bytes(vb, vlen - 16, 16);
	EXPECT_PREAD(vlen, vbuf, vlen + PAGE, vb);
	assert_vbuf_bytes(vb, 0, vlen);
	assert_kcore_zeros(guard, 64, "vmalloc guard page");
	free(vb);
	close(fd);
}
END_TEST

/* Not System RAM: testobj's ioremap()ed HPET page, direct-map holes. */
START_TEST(not_ram_is_enxio_and_cuts_a_read_short)
{
	static struct kmem_ro_range ram[64];
	uint64_t mmio = vt_testobj("mmio"), last;
	int fd = vt_open_dev();
	struct kmem_ro_info info = layout_of(fd, ram, 64);
	static char two[2 * PAGE];
	char buf[64];

	EXPECT_PREAD(-ENXIO, mmio, 8, buf);
	EXPECT_PREAD(-ENXIO, mmio + PAGE - 4, 4, buf);
	EXPECT_PREAD(-ENXIO, info.page_offset + 0xfed00000, 8, buf);	/* the HPET */
	EXPECT_PREAD(-ENXIO, info.page_offset, 8, buf);			/* page 0 */
	assert_kcore_zeros(mmio, 64, "ioremap page");
	/* the last whole page of the first RAM range, then a hole */
	ck_assert_uint_ge(info.ram_count, 2);
	last = ram[0].end / PAGE * PAGE;
	ck_assert_uint_gt(ram[1].start, last + PAGE);
	EXPECT_PREAD(-ENXIO, info.page_offset + last, 8, buf);
	EXPECT_PREAD(16, info.page_offset + last - 16, 32, buf);
	assert_as_kcore(fd, info.page_offset + last - 16, 16, "RAM before a hole");
	EXPECT_PREAD(PAGE, info.page_offset + last - PAGE, 2 * PAGE, two);
	close(fd);
}
END_TEST

/* A hidden RAM page: -EPERM, a read running into it stops before it. */
static void assert_hidden(int fd, uint64_t addr, const char *what)
{
	static char buf[2 * PAGE];

	memset(buf, 0x77, sizeof(buf));
	EXPECT_PREAD(-EPERM, addr, 64, buf);
	EXPECT_PREAD(-EPERM, addr + PAGE - 8, 8, buf);
	for (size_t i = 0; i < 64; i++)
		ck_assert_int_eq(buf[i], 0x77);		/* nothing written */
	assert_kcore_zeros(addr, 64, what);
	EXPECT_PREAD(100, addr - 100, 200, buf);
	EXPECT_PREAD(PAGE, addr - PAGE, 2 * PAGE, buf);
	for (size_t i = PAGE; i < sizeof(buf); i++)
		ck_assert_int_eq(buf[i], 0x77);
}

START_TEST(secret_page_is_eperm_and_cuts_a_read_short)
{
	int mfd = syscall(SYS_memfd_secret, 0), fd = vt_open_dev();
	struct kmem_ro_info info = layout_of(fd, NULL, 0);
	char *secret;

	ck_assert_msg(mfd >= 0, "memfd_secret: %s (secretmem.enable=1?)", strerror(errno));
	ck_assert_int_eq(ftruncate(mfd, PAGE), 0);
	secret = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	ck_assert_ptr_ne(secret, MAP_FAILED);
	memset(secret, 0xa5, PAGE);
	assert_hidden(fd, info.page_offset + vt_pagemap_pfn(secret) * PAGE, "memfd_secret page");
	munmap(secret, PAGE);
	close(mfd);
	close(fd);
}
END_TEST

START_TEST(hwpoisoned_page_is_eperm)
{
	int fd = vt_open_dev();
	struct kmem_ro_info info = layout_of(fd, NULL, 0);

	assert_hidden(fd, info.page_offset + vt_hwpoison_page() * PAGE, "hwpoisoned page");
	close(fd);
}
END_TEST

/* ---- output buffers ---- */

START_TEST(unwritable_buffer_is_efault)
{
	int fd = vt_open_dev();
	struct kmem_ro_info info = layout_of(fd, NULL, 0);
	char *ro, *km, want[PAGE];

	ro = mmap(NULL, 2 * PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(ro, MAP_FAILED);
	km = vt_map_phys(fd, info.text_start - info.kernel_map + info.phys_base, 2 * PAGE);
	ck_assert_ptr_ne(km, MAP_FAILED);
	ck_assert_int_eq(vt_kcore_read(info.text_start, want, 8), 0);

	EXPECT_PREAD(-EFAULT, info.text_start, 8, ro);
	EXPECT_PREAD(-EFAULT, info.text_start, 4, ro);
	EXPECT_PREAD(-EFAULT, info.text_start, 2 * PAGE, ro);
	EXPECT_PREAD(-EFAULT, info.text_start, 8, NULL);
	EXPECT_PREAD(-EFAULT, info.text_start, 8, (void *)(uintptr_t)info.text_start);
	EXPECT_PREAD(-EFAULT, info.text_start, 4, (void *)(uintptr_t)info.text_start);
	EXPECT_PREAD(-EFAULT, info.text_start, 2 * PAGE, (void *)(uintptr_t)info.text_start);
	EXPECT_PREAD(-EFAULT, info.text_start, 2 * PAGE, (void *)(uintptr_t)0x0ede33c3cb89a000ULL);
	EXPECT_PREAD(-EFAULT, info.text_start, 8, km);		/* a kmem_ro mapping */
	ck_assert_int_eq(memcmp(km, want, 8), 0);
	munmap(km, 2 * PAGE);
	munmap(ro, 2 * PAGE);
	close(fd);
}
END_TEST

/* A buffer whose second page cannot be written: the bytes before it. */
START_TEST(buffer_with_unwritable_second_page_is_short)
{
	int fd = vt_open_dev();
	struct kmem_ro_info info = layout_of(fd, NULL, 0);
	char *two, *hole, want[PAGE];

	ck_assert_int_eq(vt_kcore_read(info.text_start, want, PAGE), 0);
	two = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(two, MAP_FAILED);
	ck_assert_int_eq(mprotect(two + PAGE, PAGE, PROT_READ), 0);
	EXPECT_PREAD(PAGE, info.text_start, 2 * PAGE, two);
	ck_assert_int_eq(memcmp(two, want, PAGE), 0);
	hole = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(hole, MAP_FAILED);
	ck_assert_int_eq(munmap(hole + PAGE, PAGE), 0);
	EXPECT_PREAD(PAGE, info.text_start, 2 * PAGE + 8, hole);
	ck_assert_int_eq(memcmp(hole, want, PAGE), 0);
	/* the buffer faults part way: the bytes before the fault */
	memset(two, 0, PAGE);
	EXPECT_PREAD(100, info.text_start, 200, two + PAGE - 100);
	ck_assert_int_eq(memcmp(two + PAGE - 100, want, 100), 0);
	EXPECT_PREAD(100, info.text_start + 8, PAGE, hole + PAGE - 100);
	ck_assert_int_eq(memcmp(hole + PAGE - 100, want + 8, 100), 0);
	/* a pointer or an int across the fault (one store on 6.1): the bytes before it */
	memset(two, 0, PAGE);
	EXPECT_PREAD(5, info.text_start, 8, two + PAGE - 5);
	ck_assert_int_eq(memcmp(two + PAGE - 5, want, 5), 0);
	EXPECT_PREAD(3, info.text_start + 16, 4, hole + PAGE - 3);
	ck_assert_int_eq(memcmp(hole + PAGE - 3, want + 16, 3), 0);
	munmap(hole, PAGE);
	munmap(two, 2 * PAGE);
	close(fd);
}
END_TEST

/* ---- a userfaultfd buffer: the read waits for the fault, then completes ---- */

struct stalled_read {
	int fd;
	void *buf;
	size_t len;
	uint64_t addr;
	ssize_t ret;
	atomic_bool returned;
};

static void *stalled_read_main(void *arg)
{
	struct stalled_read *s = arg;

	s->ret = dev_pread(s->fd, s->buf, s->len, s->addr);
	atomic_store(&s->returned, true);
	return NULL;
}

START_TEST(userfaultfd_buffer_waits_then_gets_the_bytes)
{
	int fd = vt_open_dev(), uffd;
	struct kmem_ro_info info = layout_of(fd, NULL, 0);
	struct stalled_read s = { .fd = fd, .len = 2 * PAGE, .addr = info.text_start + 5 };
	char *fill = aligned_alloc(PAGE, 2 * PAGE), want[2 * PAGE];
	uint64_t fault;
	pthread_t t;

	ck_assert_int_eq(vt_kcore_read(s.addr, want, sizeof(want)), 0);
	s.buf = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(s.buf, MAP_FAILED);
	uffd = vt_uffd_missing(s.buf, 2 * PAGE);
	ck_assert_msg(uffd >= 0, "userfaultfd: %s", strerror(-uffd));
	ck_assert_int_eq(pthread_create(&t, NULL, stalled_read_main, &s), 0);
	fault = vt_uffd_fault(uffd, GUARD_MS);
	ck_assert_msg(fault, "the pread never faulted on its buffer (returned: %d, %zd)",
		      atomic_load(&s.returned), s.ret);
	ck_assert_uint_eq(fault & ~(PAGE - 1), (uintptr_t)s.buf);
	ck_assert_msg(!atomic_load(&s.returned), "pread returned %zd before its fault was resolved",
		      s.ret);
	memset(fill, 0xee, 2 * PAGE);
	ck_assert_int_eq(vt_uffd_copy(uffd, s.buf, fill, 2 * PAGE), 0);
	pthread_join(t, NULL);
	ck_assert_int_eq(s.ret, 2 * PAGE);
	ck_assert_int_eq(memcmp(s.buf, want, sizeof(want)), 0);
	close(uffd);
	munmap(s.buf, 2 * PAGE);
	free(fill);
	close(fd);
}
END_TEST

START_TEST(userfaultfd_stalled_reader_dies_on_sigkill)
{
	int fd = vt_open_dev(), pfd[2], status;
	struct kmem_ro_info info = layout_of(fd, NULL, 0);
	char msg[512] = "";
	pid_t pid;

	ck_assert_int_eq(pipe2(pfd, O_CLOEXEC), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct stalled_read s = { .fd = fd, .len = PAGE, .addr = info.text_start };
		pthread_t t;
		int uffd;

		s.buf = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		uffd = vt_uffd_missing(s.buf, PAGE);
		if (s.buf == MAP_FAILED || uffd < 0 ||
		    pthread_create(&t, NULL, stalled_read_main, &s))
			_exit(1);
		if (!vt_uffd_fault(uffd, GUARD_MS) || write(pfd[1], "s", 1) != 1)
			_exit(2);
		for (;;)		/* never resolved */
			pause();
	}
	close(pfd[1]);
	ck_assert_msg(vt_wait_readable(pfd[0], GUARD_MS) && read(pfd[0], msg, 1) == 1,
		      "the reader never stalled on its userfaultfd buffer");
	ck_assert_int_eq(kill(pid, SIGKILL), 0);
	if (vt_wait_child(pid, GUARD_MS, &status)) {
		vt_task_state(pid, msg, sizeof(msg));
		ck_abort_msg("a reader stalled in its buffer survives SIGKILL: %s", msg);
	}
	ck_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	close(pfd[0]);
	close(fd);
}
END_TEST

/* ---- a signal stops a long read between pages ---- */

static void on_alarm(int sig)
{
	(void)sig;
}

START_TEST(signal_stops_between_pages)
{
	struct sigaction sa = { .sa_handler = on_alarm };	/* no SA_RESTART */
	struct itimerval t = { .it_interval = { 0, 2000 }, .it_value = { 0, 2000 } };
	int fd = vt_open_dev(), tries, interrupted = 0;
	struct kmem_ro_info info = layout_of(fd, NULL, 0);
	size_t len = info.text_end - info.text_start;
	char *buf = malloc(len), *want = malloc(len);
	ssize_t r;

	ck_assert(buf && want);
	ck_assert_int_eq(vt_kcore_read(info.text_start, want, len), 0);
	sigaction(SIGALRM, &sa, NULL);
	for (tries = 0; tries < 20 && !interrupted; tries++) {
		setitimer(ITIMER_REAL, &t, NULL);
		r = dev_pread(fd, buf, len, info.text_start);
		setitimer(ITIMER_REAL, &(struct itimerval){ 0 }, NULL);
		if (r == (ssize_t)len)
			continue;
		/* never before the first page: no EINTR */
		interrupted = 1;
		ck_assert_msg(r > 0 && r < (ssize_t)len, "pread of the text: %zd", r);
		ck_assert_msg((info.text_start + r) % PAGE == 0,
			      "interrupted at %#zx, not between pages", (size_t)r);
		ck_assert_int_eq(memcmp(buf, want, r), 0);
	}
	ck_assert_msg(interrupted, "no interrupted read in %d tries", tries);
	free(buf);
	free(want);
	close(fd);
}
END_TEST

/* ---- a member of the device's group gets root's answers ---- */

/* BUF_SPANS_READONLY: the buffer ends want bytes before a page it cannot write */
enum buf_kind { BUF_OK, BUF_READONLY, BUF_NULL, BUF_SPANS_READONLY };

struct read_case {
	const char *what;
	uint64_t addr;
	size_t len;
	enum buf_kind buf;
	ssize_t want;		/* bytes, or -errno */
	bool raw;		/* the address as a raw (negative) offset */
	bool changing;		/* bytes someone else may change: compare the count */
};

struct answer {
	ssize_t ret;
	uint64_t hash;
};

#define MAX_CASES	32

struct member_run {
	const struct read_case *cases;
	unsigned int n;
	struct answer *out;	/* MAP_SHARED: written by the member */
};

static uint64_t fnv1a(const unsigned char *p, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return h;
}

/* Every case on a file of its own opening; 0, or 1 if it cannot open. */
static int run_cases(void *arg)
{
	struct member_run *m = arg;
	char *ro = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *span = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			  -1, 0);
	int fd = open(KMEM_RO_DEVICE, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || ro == MAP_FAILED || span == MAP_FAILED ||
	    mprotect(span + PAGE, PAGE, PROT_READ))
		return 1;
	for (unsigned int i = 0; i < m->n; i++) {
		const struct read_case *c = &m->cases[i];
		unsigned char *buf = c->buf == BUF_OK ? malloc(c->len + 1) : NULL;
		void *dst = c->buf == BUF_READONLY ? (void *)ro : buf;
		ssize_t r;

		if (c->buf == BUF_SPANS_READONLY)
			dst = span + PAGE - c->want;

		if (c->buf == BUF_OK && !buf)
			return 1;
		if (c->raw) {
			r = syscall(SYS_pread64, fd, dst, c->len, (off_t)c->addr);
			r = r < 0 ? -errno : r;
		} else {
			r = dev_pread(fd, dst, c->len, c->addr);
		}
		m->out[i] = (struct answer){ r, r > 0 && dst ? fnv1a(dst, r) : 0 };
		/* again into the buffer's pages, now there: a large read goes straight */
		if (buf && !c->raw) {
			memset(buf, 0x5a, c->len);
			r = dev_pread(fd, dst, c->len, c->addr);
			if (r != m->out[i].ret ||
			    (!c->changing && r > 0 && fnv1a(buf, r) != m->out[i].hash))
				return 2;
		}
		free(buf);
	}
	close(fd);
	return 0;
}

START_TEST(member_gets_roots_answers)
{
	static const gid_t groups[] = { MONITOR_GID };
	static struct kmem_ro_range ram[64];
	int fd = vt_open_dev(), mfd = syscall(SYS_memfd_secret, 0), status;
	struct kmem_ro_info info = layout_of(fd, ram, 64);
	uint64_t vbuf = vt_testobj("vbuf"), vlen = vt_testobj("vbuf_len"), own, secret_addr;
	uint64_t last = ram[0].end / PAGE * PAGE;
	struct answer root[MAX_CASES], *member;
	struct member_run run;
	char *page, *secret;
	pid_t pid;
	unsigned int n;

	ck_assert_int_ge(mfd, 0);
	ck_assert_int_eq(ftruncate(mfd, PAGE), 0);
	secret = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	ck_assert_ptr_ne(secret, MAP_FAILED);
	memset(secret, 0xa5, PAGE);
	secret_addr = info.page_offset + vt_pagemap_pfn(secret) * PAGE;
	page = pattern_page(&info, &own);
	{
#define CASE(w, a, l, x)	{ .what = (w), .addr = (a), .len = (l), .want = (x) }
		const struct read_case cases[] = {
			CASE("text", info.text_start, 4 * PAGE + 17, 4 * PAGE + 17),
			CASE("rodata", vt_kallsyms("linux_banner"), 200, 200),
			CASE("image data", vt_kallsyms("init_uts_ns"), 65, 65),
			CASE("direct map of the text", text_alias(&info), 64 * 1024, 64 * 1024),
			CASE("1 MiB of text", info.text_start, MIB, MIB),
			CASE("our page", own, PAGE, PAGE),
			CASE("vmalloc", vbuf + PAGE - 3, 10, 10),
			CASE("vmalloc into its guard", vbuf, vlen + PAGE, vlen),
			CASE("vmalloc guard", vbuf + vlen, 8, -EFAULT),
			CASE("module text", vt_kallsyms("testobj_show"), 128, 128),
			CASE("module data", vt_testobj("good_head"), 16, 16),
			CASE("ioremap", vt_testobj("mmio"), 8, -ENXIO),
			CASE("direct map of the HPET", info.page_offset + 0xfed00000, 8, -ENXIO),
			CASE("RAM into a hole", info.page_offset + last - 16, 32, 16),
			CASE("memfd_secret", secret_addr, 64, -EPERM),
			{ .what = "RAM into memfd_secret", .addr = secret_addr - 100, .len = 200,
			  .want = 100, .changing = true },
			CASE("below the direct map", info.page_offset - PAGE, 8, -EINVAL),
			CASE("offset 0", KMEM_RO_READ_ADDR(0), 8, -EINVAL),
			CASE("length 0", vbuf + vlen, 0, 0),
			{ .what = "read-only buffer", .addr = info.text_start, .len = 8,
			  .want = -EFAULT, .buf = BUF_READONLY },
			{ .what = "NULL buffer", .addr = info.text_start, .len = 8, .want = -EFAULT,
			  .buf = BUF_NULL },
			{ .what = "raw kernel address", .addr = info.text_start, .len = 8,
			  .want = -EINVAL, .raw = true },
			/* a pointer and an int (6.1: one put_user() each) */
			CASE("a word of rodata", vt_kallsyms("linux_banner") + 8, 8, 8),
			CASE("an int of rodata", vt_kallsyms("linux_banner") + 4, 4, 4),
			CASE("a word of our page", own + 8, 8, 8),
			CASE("an int of our page", own + 20, 4, 4),
			{ .what = "a word across an unwritable page", .addr = own + 8, .len = 8,
			  .want = 5, .buf = BUF_SPANS_READONLY },
			{ .what = "an int across an unwritable page", .addr = own + 20, .len = 4,
			  .want = 3, .buf = BUF_SPANS_READONLY },
		};
#undef CASE

		n = sizeof(cases) / sizeof(*cases);
		ck_assert_uint_le(n, MAX_CASES);
		member = mmap(NULL, sizeof(root), PROT_READ | PROT_WRITE,
			      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		ck_assert_ptr_ne(member, MAP_FAILED);
		run = (struct member_run){ cases, n, root };
		ck_assert_int_eq(run_cases(&run), 0);
		for (unsigned int i = 0; i < n; i++)
			ck_assert_msg(root[i].ret == cases[i].want, "root: %s: %zd, want %zd",
				      cases[i].what, root[i].ret, cases[i].want);

		ck_assert_int_eq(chown(KMEM_RO_DEVICE, 0, MONITOR_GID), 0);
		ck_assert_int_eq(chmod(KMEM_RO_DEVICE, 0440), 0);
		run.out = member;
		pid = vt_fork_as(MEMBER_UID, MEMBER_UID, groups, 1);
		ck_assert_int_ge(pid, 0);
		if (pid == 0)
			_exit(run_cases(&run));
		ck_assert_int_eq(waitpid(pid, &status, 0), pid);
		ck_assert_int_eq(chown(KMEM_RO_DEVICE, 0, 0), 0);
		ck_assert_msg(WIFEXITED(status) && !WEXITSTATUS(status), "member: status %#x",
			      status);
		for (unsigned int i = 0; i < n; i++)
			ck_assert_msg(member[i].ret == root[i].ret &&
				      (cases[i].changing || member[i].hash == root[i].hash),
				      "%s: member %zd (%#llx), root %zd (%#llx)", cases[i].what,
				      member[i].ret, (unsigned long long)member[i].hash, root[i].ret,
				      (unsigned long long)root[i].hash);
	}
	munmap(member, sizeof(root));
	munmap(page, PAGE);
	munmap(secret, PAGE);
	close(mfd);
	close(fd);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("read");
	TCase *tc = tcase_create("readable");

	tcase_add_test(tc, readable_kinds_match_kcore);
	tcase_add_test(tc, page_crossings_match_kcore);
	tcase_add_test(tc, large_reads_match_kcore);
	tcase_add_test(tc, length_zero_reads_nothing);
	tcase_add_test(tc, read_follows_the_file_position);
	tcase_add_test(tc, raw_kernel_address_is_refused_by_the_vfs);
	suite_add_tcase(s, tc);

	tc = tcase_create("refused");
	tcase_add_test(tc, below_direct_map_is_einval);
	tcase_add_test(tc, unmapped_is_efault_and_cuts_a_read_short);
	tcase_add_test(tc, not_ram_is_enxio_and_cuts_a_read_short);
	tcase_add_test(tc, secret_page_is_eperm_and_cuts_a_read_short);
	tcase_add_test(tc, hwpoisoned_page_is_eperm);
	suite_add_tcase(s, tc);

	tc = tcase_create("buffers");
	tcase_add_test(tc, unwritable_buffer_is_efault);
	tcase_add_test(tc, buffer_with_unwritable_second_page_is_short);
	tcase_add_test(tc, userfaultfd_buffer_waits_then_gets_the_bytes);
	tcase_add_test(tc, userfaultfd_stalled_reader_dies_on_sigkill);
	tcase_add_test(tc, signal_stops_between_pages);
	suite_add_tcase(s, tc);

	tc = tcase_create("member");
	tcase_add_test(tc, member_gets_roots_answers);
	suite_add_tcase(s, tc);
	return vt_main(s);
}
