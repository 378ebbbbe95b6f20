// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel address -> physical address -> mappable region: the pure
 * translation of kmemdev_map(), on realistic x86-64 layouts.  A second part
 * backs a handle with a memfd (an ordinary file: its offsets play the
 * physical addresses) to check the region cache and its pointers; the
 * device itself is tested in the VM suite.
 */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"

/* 5-level paging, KASLR'd physical load address, 1 GiB of RAM (QEMU-like). */
#define PAGE_OFFSET	0xff11000000000000ULL
#define KERNEL_MAP	0xffffffff80000000ULL
#define PHYS_BASE	0x1a000000ULL
#define TEXT_START	0xffffffff81000000ULL
#define TEXT_END	0xffffffff82200000ULL
#define VMALLOC_START	0xffa0000000000000ULL
#define VMALLOC_END	0xffd2000000000000ULL
#define VMEMMAP_START	0xffd4000000000000ULL
#define MODULES_START	0xffffffffc0000000ULL
#define MODULES_END	0xffffffffff000000ULL

/* Physical address of TEXT_START: 0x1000000 into the image. */
#define TEXT_PHYS	(TEXT_START - KERNEL_MAP + PHYS_BASE)

static const struct kmem_ro_info layout = {
	.size = sizeof(struct kmem_ro_info),
	.abi_version = 1,
	.page_size = 4096,
	.features = KMEM_RO_FEAT_INFO | KMEM_RO_FEAT_MMAP_TEXT |
		    KMEM_RO_FEAT_MMAP_RAM | KMEM_RO_FEAT_MMAP_REFUSED,
	.mmap_refused = 0x6b5e0d1c2a3f4e59ULL,
	.pmd_size = 2 << 20,
	.page_offset = PAGE_OFFSET,
	.phys_base = PHYS_BASE,
	.kernel_map = KERNEL_MAP,
	.text_start = TEXT_START,
	.text_end = TEXT_END,
	.vmalloc_start = VMALLOC_START,
	.vmalloc_end = VMALLOC_END,
	.modules_start = MODULES_START,
	.modules_end = MODULES_END,
};

/* /proc/iomem "System RAM" of a 1 GiB QEMU guest. */
static const struct kmem_ro_range ram[] = {
	{ 0x1000, 0x9fc00 },
	{ 0x100000, 0x3ffe0000 },
};
#define NR_RAM ((unsigned int)(sizeof(ram) / sizeof(ram[0])))

/* Translate against the fixture; phys poisoned so a stale value shows. */
static int xlate(uint64_t kaddr, size_t len, uint64_t *phys)
{
	*phys = 0xdeadbeefULL;
	return kmemdev__translate(&layout, ram, NR_RAM, kaddr, len, phys);
}

static void expect_phys(uint64_t kaddr, size_t len, int idx, uint64_t want)
{
	uint64_t phys;

	ck_assert_int_eq(xlate(kaddr, len, &phys), idx);
	ck_assert_uint_eq(phys, want);
}

static void expect_err(uint64_t kaddr, size_t len, int err)
{
	uint64_t phys;

	ck_assert_int_eq(xlate(kaddr, len, &phys), err);
	ck_assert_uint_eq(phys, 0xdeadbeefULL);
}

START_TEST(test_direct_map)
{
	expect_phys(PAGE_OFFSET + 0x1000, 1, 0, 0x1000);
	expect_phys(PAGE_OFFSET + 0x5678, 8, 0, 0x5678);
	expect_phys(PAGE_OFFSET + 0x100000, 8, 1, 0x100000);
	expect_phys(PAGE_OFFSET + 0x12345678, 4096, 1, 0x12345678);
	/* Last whole byte of the last range (its end is page-aligned). */
	expect_phys(PAGE_OFFSET + 0x3ffdffff, 1, 1, 0x3ffdffff);
	expect_phys(PAGE_OFFSET + 0x3ffdfff8, 8, 1, 0x3ffdfff8);
	/* All of a range at once. */
	expect_phys(PAGE_OFFSET + 0x100000, 0x3ffe0000 - 0x100000, 1, 0x100000);
}
END_TEST

START_TEST(test_direct_map_outside_ram)
{
	expect_err(PAGE_OFFSET, 1, -ENXIO);		/* page 0: not RAM */
	expect_err(PAGE_OFFSET + 0xfff, 1, -ENXIO);
	expect_err(PAGE_OFFSET + 0xa0000, 8, -ENXIO);	/* legacy VGA hole */
	expect_err(PAGE_OFFSET + 0xfffff, 1, -ENXIO);
	expect_err(PAGE_OFFSET + 0x3ffe0000, 1, -ENXIO);	/* past the end */
	expect_err(PAGE_OFFSET + 0x3ffdfff8, 9, -ENXIO);
	expect_err(PAGE_OFFSET + 0x80000000, 8, -ENXIO);	/* PCI hole */
	expect_err(PAGE_OFFSET + 0x100000000ULL, 8, -ENXIO);
	/* A range bigger than any RAM range, starting in one. */
	expect_err(PAGE_OFFSET + 0x100000, 0x40000000, -ENXIO);
}
END_TEST

START_TEST(test_page_rounding)
{
	/* 0x9fc00 ends mid-page: the page [0x9f000, 0xa0000) is not whole. */
	expect_phys(PAGE_OFFSET + 0x9efff, 1, 0, 0x9efff);
	expect_phys(PAGE_OFFSET + 0x9e000, 0x1000, 0, 0x9e000);
	expect_err(PAGE_OFFSET + 0x9f000, 1, -ENXIO);
	expect_err(PAGE_OFFSET + 0x9fbff, 1, -ENXIO);	/* RAM, yet refused */
	expect_err(PAGE_OFFSET + 0x9eff8, 16, -ENXIO);
}
END_TEST

START_TEST(test_page_rounding_start)
{
	/* e820 ranges need not start on a page; nor be a page long. */
	static const struct kmem_ro_range odd[] = {
		{ 0x1000800, 0x1003000 },
		{ 0x2000100, 0x2000f00 },	/* no whole page at all */
		{ 0x3000000, 0x3000fff },	/* one byte short of a page */
	};
	struct kmem_ro_info in = layout;
	uint64_t phys;

	ck_assert_int_eq(kmemdev__translate(&in, odd, 3, PAGE_OFFSET + 0x1000800,
					    1, &phys), -ENXIO);
	ck_assert_int_eq(kmemdev__translate(&in, odd, 3, PAGE_OFFSET + 0x1000fff,
					    1, &phys), -ENXIO);
	ck_assert_int_eq(kmemdev__translate(&in, odd, 3, PAGE_OFFSET + 0x1001000,
					    1, &phys), 0);
	ck_assert_uint_eq(phys, 0x1001000);
	ck_assert_int_eq(kmemdev__translate(&in, odd, 3, PAGE_OFFSET + 0x1001000,
					    0x2000, &phys), 0);
	ck_assert_int_eq(kmemdev__translate(&in, odd, 3, PAGE_OFFSET + 0x1000ff8,
					    16, &phys), -ENXIO);
	ck_assert_int_eq(kmemdev__translate(&in, odd, 3, PAGE_OFFSET + 0x2000800,
					    1, &phys), -ENXIO);
	ck_assert_int_eq(kmemdev__translate(&in, odd, 3, PAGE_OFFSET + 0x3000000,
					    1, &phys), -ENXIO);

	/* A bigger page size rounds to it: 64 KiB pages (arm64 style). */
	in.page_size = 0x10000;
	ck_assert_int_eq(kmemdev__translate(&in, ram, NR_RAM,
					    PAGE_OFFSET + 0x100000, 1, &phys), 1);
	ck_assert_int_eq(kmemdev__translate(&in, ram, NR_RAM,
					    PAGE_OFFSET + 0x8ffff, 1, &phys), 0);
	ck_assert_int_eq(kmemdev__translate(&in, ram, NR_RAM,
					    PAGE_OFFSET + 0x90000, 1, &phys),
			 -ENXIO);
	ck_assert_int_eq(kmemdev__translate(&in, ram, NR_RAM,
					    PAGE_OFFSET + 0x1000, 1, &phys),
			 -ENXIO);
	ck_assert_int_eq(kmemdev__translate(&in, ram, NR_RAM,
					    PAGE_OFFSET + 0x10000, 1, &phys), 0);
}
END_TEST

START_TEST(test_straddle_two_ranges)
{
	/* Adjacent System RAM ranges still map as separate regions. */
	static const struct kmem_ro_range adj[] = {
		{ 0x100000, 0x200000 },
		{ 0x200000, 0x300000 },
	};
	uint64_t phys;

	ck_assert_int_eq(kmemdev__translate(&layout, adj, 2,
					    PAGE_OFFSET + 0x1ffff8, 8, &phys), 0);
	ck_assert_int_eq(kmemdev__translate(&layout, adj, 2,
					    PAGE_OFFSET + 0x200000, 8, &phys), 1);
	ck_assert_int_eq(kmemdev__translate(&layout, adj, 2,
					    PAGE_OFFSET + 0x1ffff8, 16, &phys),
			 -ENXIO);
	/* Across the hole between the fixture's two ranges. */
	expect_err(PAGE_OFFSET + 0x9e000, 0x63000, -ENXIO);
	expect_err(PAGE_OFFSET + 0x1000, 0x200000, -ENXIO);
}
END_TEST

START_TEST(test_kernel_image)
{
	ck_assert_uint_eq(TEXT_PHYS, 0x1b000000);
	expect_phys(TEXT_START, 16, 1, 0x1b000000);
	expect_phys(TEXT_START + 0x123456, 8, 1, 0x1b123456);
	expect_phys(TEXT_END - 8, 8, 1, TEXT_PHYS + (TEXT_END - TEXT_START) - 8);
	/* rodata, data, bss: still the image, still RAM. */
	expect_phys(TEXT_END, 8, 1, TEXT_PHYS + (TEXT_END - TEXT_START));
	expect_phys(0xffffffff83000000ULL, 4096, 1, 0x1d000000);
	/* Image address and direct-map alias agree. */
	expect_phys(PAGE_OFFSET + 0x1b000000, 16, 1, 0x1b000000);
}
END_TEST

START_TEST(test_kernel_image_edges)
{
	/* Below _stext: neither the image window nor the direct map. */
	expect_err(KERNEL_MAP, 8, -ENXIO);
	expect_err(TEXT_START - 1, 1, -ENXIO);
	expect_err(TEXT_START - 8, 16, -ENXIO);
	/* Image window runs into the module area. */
	expect_err(MODULES_START - 8, 16, -ENXIO);
	/* In the window but beyond RAM (0x59fff000 > 1 GiB). */
	expect_err(MODULES_START - 0x1000, 8, -ENXIO);
	/* The image must not wrap to low physical addresses (phys_base 0). */
	{
		struct kmem_ro_info in = layout;
		uint64_t phys;

		in.phys_base = 0;
		ck_assert_int_eq(kmemdev__translate(&in, ram, NR_RAM, TEXT_START,
						    8, &phys), 1);
		ck_assert_uint_eq(phys, 0x1000000);
	}
}
END_TEST

START_TEST(test_other_areas)
{
	expect_err(PAGE_OFFSET - 1, 1, -ENXIO);		/* below the direct map */
	expect_err(PAGE_OFFSET - 4, 8, -ENXIO);
	expect_err(0, 8, -ENXIO);			/* user space */
	expect_err(0x400000, 8, -ENXIO);
	expect_err(0x7fffffffe000ULL, 8, -ENXIO);
	expect_err(0xff10ffffffffffffULL, 1, -ENXIO);	/* LDT remap / guard */
	expect_err(VMALLOC_START, 8, -ENXIO);
	expect_err(VMALLOC_START + 0x100000, 4096, -ENXIO);
	expect_err(VMALLOC_END - 8, 8, -ENXIO);
	expect_err(VMEMMAP_START, 64, -ENXIO);
	expect_err(MODULES_START, 8, -ENXIO);
	expect_err(MODULES_START + 0x1000, 8, -ENXIO);
	expect_err(MODULES_END - 8, 8, -ENXIO);
	expect_err(0xffffffffff600000ULL, 8, -ENXIO);	/* vsyscall page */
	expect_err(UINT64_MAX - 7, 8, -ENXIO);		/* ends at 2^64: legal */
	expect_err(UINT64_MAX, 1, -ENXIO);
}
END_TEST

START_TEST(test_vmalloc_over_ram)
{
	/*
	 * A layout where vmalloc addresses would land in RAM through the
	 * direct-map formula, as would image addresses near the window's
	 * edges: they must still be refused.
	 */
	static const struct kmem_ro_range big[] = { { 0x0, 1ULL << 62 } };
	struct kmem_ro_info in = layout;
	uint64_t phys;

	in.vmalloc_start = PAGE_OFFSET + (1ULL << 40);
	in.vmalloc_end = PAGE_OFFSET + (2ULL << 40);
	ck_assert_int_eq(kmemdev__translate(&in, big, 1, PAGE_OFFSET + 0x1000,
					    8, &phys), 0);
	ck_assert_int_eq(kmemdev__translate(&in, big, 1, in.vmalloc_start, 8,
					    &phys), -ENXIO);
	ck_assert_int_eq(kmemdev__translate(&in, big, 1, in.vmalloc_start - 4,
					    8, &phys), -ENXIO);
	ck_assert_int_eq(kmemdev__translate(&in, big, 1, in.vmalloc_end - 4,
					    8, &phys), -ENXIO);
	ck_assert_int_eq(kmemdev__translate(&in, big, 1, in.vmalloc_end, 8,
					    &phys), 0);
	/* Nor may the image window run past its ends into RAM. */
	ck_assert_int_eq(kmemdev__translate(&in, big, 1, TEXT_START, 8, &phys),
			 0);
	ck_assert_int_eq(kmemdev__translate(&in, big, 1, TEXT_START - 8, 16,
					    &phys), -ENXIO);
	ck_assert_int_eq(kmemdev__translate(&in, big, 1, KERNEL_MAP, 8,
					    &phys), -ENXIO);
	ck_assert_int_eq(kmemdev__translate(&in, big, 1, MODULES_START - 8, 8,
					    &phys), 0);
	ck_assert_int_eq(kmemdev__translate(&in, big, 1, MODULES_START - 8, 16,
					    &phys), -ENXIO);
	ck_assert_int_eq(kmemdev__translate(&in, big, 1, MODULES_START, 8,
					    &phys), -ENXIO);
	ck_assert_int_eq(kmemdev__translate(&in, big, 1, MODULES_END, 8,
					    &phys), -ENXIO);
	ck_assert_int_eq(kmemdev__translate(&in, big, 1, MODULES_END - 4, 8,
					    &phys), -ENXIO);
	/* Fixmap, vsyscall: above the image, never direct map. */
	ck_assert_int_eq(kmemdev__translate(&in, big, 1, 0xffffffffff600000ULL,
					    8, &phys), -ENXIO);

	/* Without an image window the module area is still excluded. */
	in.kernel_map = 0;
	in.text_start = 0;
	in.text_end = 0;
	ck_assert_int_eq(kmemdev__translate(&in, big, 1, TEXT_START, 8, &phys),
			 0);
	ck_assert_uint_eq(phys, TEXT_START - PAGE_OFFSET);
	ck_assert_int_eq(kmemdev__translate(&in, big, 1, MODULES_START, 8,
					    &phys), -ENXIO);
	ck_assert_int_eq(kmemdev__translate(&in, big, 1, MODULES_START - 4, 8,
					    &phys), -ENXIO);
	ck_assert_int_eq(kmemdev__translate(&in, big, 1, MODULES_END, 8,
					    &phys), 0);
}
END_TEST

START_TEST(test_bad_lengths)
{
	expect_err(PAGE_OFFSET + 0x100000, 0, -EINVAL);
	expect_err(UINT64_MAX, 2, -EINVAL);
	expect_err(UINT64_MAX - 7, 9, -EINVAL);
	expect_err(PAGE_OFFSET + 0x100000, SIZE_MAX, -EINVAL);
	expect_err(2, SIZE_MAX, -EINVAL);
	/* Ending exactly at 2^64 is no overflow, just not mappable. */
	expect_err(1, SIZE_MAX, -ENXIO);
	/* len 0 is invalid even where nothing is mappable. */
	expect_err(0, 0, -EINVAL);
}
END_TEST

START_TEST(test_bad_page_size)
{
	struct kmem_ro_info in = layout;
	uint64_t phys;

	in.page_size = 0;
	ck_assert_int_eq(kmemdev__translate(&in, ram, NR_RAM, TEXT_START, 8,
					    &phys), -EPROTO);
	in.page_size = 4095;
	ck_assert_int_eq(kmemdev__translate(&in, ram, NR_RAM, TEXT_START, 8,
					    &phys), -EPROTO);
}
END_TEST

START_TEST(test_no_ram)
{
	uint64_t phys;

	ck_assert_int_eq(kmemdev__translate(&layout, NULL, 0, TEXT_START, 8,
					    &phys), -ENXIO);
	ck_assert_int_eq(kmemdev__translate(&layout, NULL, 0,
					    PAGE_OFFSET + 0x100000, 8, &phys),
			 -ENXIO);
}
END_TEST

START_TEST(test_many_ranges)
{
	/* Binary search over a long list: every range and every gap. */
	enum { N = 257 };
	struct kmem_ro_range r[N];
	uint64_t phys;
	int i;

	for (i = 0; i < N; i++) {
		r[i].start = (uint64_t)i * 0x200000 + 0x1000;
		r[i].end = r[i].start + 0x100000;
	}
	for (i = 0; i < N; i++) {
		ck_assert_int_eq(kmemdev__translate(&layout, r, N,
						    PAGE_OFFSET + r[i].start,
						    0x100000, &phys), i);
		ck_assert_uint_eq(phys, r[i].start);
		ck_assert_int_eq(kmemdev__translate(&layout, r, N,
						    PAGE_OFFSET + r[i].end - 1,
						    1, &phys), i);
		ck_assert_int_eq(kmemdev__translate(&layout, r, N,
						    PAGE_OFFSET + r[i].end,
						    1, &phys), -ENXIO);
		ck_assert_int_eq(kmemdev__translate(&layout, r, N,
						    PAGE_OFFSET + r[i].start - 1,
						    1, &phys), -ENXIO);
	}
}
END_TEST

/* --- mmap_ram=0: only the kernel text. --- */

START_TEST(test_text_range)
{
	struct kmem_ro_range t;
	struct kmem_ro_info in = layout;

	ck_assert_int_eq(kmemdev__text_range(&layout, &t), 0);
	ck_assert_uint_eq(t.start, 0x1b000000);
	ck_assert_uint_eq(t.end, 0x1b000000 + (TEXT_END - TEXT_START));

	in.text_end = in.text_start;
	ck_assert_int_eq(kmemdev__text_range(&in, &t), -ENXIO);
	in = layout;
	in.text_start = 0;
	ck_assert_int_eq(kmemdev__text_range(&in, &t), -ENXIO);
	in = layout;
	in.kernel_map = TEXT_START + 1;
	ck_assert_int_eq(kmemdev__text_range(&in, &t), -ENXIO);
}
END_TEST

START_TEST(test_text_only)
{
	struct kmem_ro_range t;
	uint64_t phys;

	ck_assert_int_eq(kmemdev__text_range(&layout, &t), 0);
	ck_assert_int_eq(kmemdev__translate(&layout, &t, 1, TEXT_START, 16,
					    &phys), 0);
	ck_assert_uint_eq(phys, TEXT_PHYS);
	ck_assert_int_eq(kmemdev__translate(&layout, &t, 1, TEXT_END - 8, 8,
					    &phys), 0);
	/* The whole text in one go. */
	ck_assert_int_eq(kmemdev__translate(&layout, &t, 1, TEXT_START,
					    TEXT_END - TEXT_START, &phys), 0);
	/* rodata and data are not text. */
	ck_assert_int_eq(kmemdev__translate(&layout, &t, 1, TEXT_END, 1,
					    &phys), -ENXIO);
	ck_assert_int_eq(kmemdev__translate(&layout, &t, 1, TEXT_END - 4, 8,
					    &phys), -ENXIO);
	ck_assert_int_eq(kmemdev__translate(&layout, &t, 1, TEXT_START - 1, 1,
					    &phys), -ENXIO);
	/* Direct map: the text's alias only. */
	ck_assert_int_eq(kmemdev__translate(&layout, &t, 1,
					    PAGE_OFFSET + TEXT_PHYS + 0x40, 8,
					    &phys), 0);
	ck_assert_uint_eq(phys, TEXT_PHYS + 0x40);
	ck_assert_int_eq(kmemdev__translate(&layout, &t, 1,
					    PAGE_OFFSET + 0x100000, 8, &phys),
			 -ENXIO);
	ck_assert_int_eq(kmemdev__translate(&layout, &t, 1,
					    PAGE_OFFSET + TEXT_PHYS - 8, 16,
					    &phys), -ENXIO);
}
END_TEST

/* --- Through a handle backed by a memfd instead of the device. --- */

/* A recognizable byte for every file offset ("physical address"). */
static unsigned char pattern(uint64_t phys)
{
	return (unsigned char)(phys * 7 + (phys >> 12));
}

static void fill(int fd, uint64_t phys, size_t len)
{
	unsigned char *b = malloc(len);
	size_t i;

	ck_assert_ptr_nonnull(b);
	for (i = 0; i < len; i++)
		b[i] = pattern(phys + i);
	ck_assert_int_eq(pwrite(fd, b, len, (off_t)phys), (ssize_t)len);
	free(b);
}

/* Handle over a sparse 1 GiB memfd holding patterns where reads go. */
static struct kmemdev *file_handle(uint64_t features)
{
	struct kmemdev *h = NULL;
	int fd;

	fd = memfd_create("kmemdev_map_test", MFD_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, 0x40000000), 0);
	fill(fd, 0x1000, 0x2000);
	fill(fd, 0x100000, 0x2000);
	fill(fd, TEXT_PHYS, 0x3000);
	fill(fd, 0x3ffde000, 0x2000);
	ck_assert_int_eq(kmemdev__handle_new(&h, fd), 0);
	h->info = layout;
	h->info.features = features;
	return h;
}

static void check_bytes(const unsigned char *b, uint64_t phys, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		ck_assert_uint_eq(b[i], pattern(phys + i));
}

/*
 * A page holding the refused pattern (here written into the file, as the
 * driver maps its refused page) is seen before the copy, and the read goes
 * to the device: pread() of a memfd past its end, which reads nothing, so
 * -EFAULT and buf as it was, never the pattern.
 */
START_TEST(test_file_refused_page_read_by_device)
{
	struct kmemdev *h = file_handle(layout.features);
	uint64_t words[512], buf[4] = { 1, 2, 3, 4 };
	const void *p;
	size_t i;

	for (i = 0; i < 512; i++)
		words[i] = layout.mmap_refused;
	ck_assert_int_eq(pwrite(kmemdev_fd(h), words, sizeof(words), 0x101000),
			 (ssize_t)sizeof(words));
	ck_assert_int_eq(kmemdev__maps_init(h, ram, NR_RAM), 0);
	ck_assert_int_eq(kmemdev_map(h, PAGE_OFFSET + 0x101ff0, 16, &p), 0);
	ck_assert(kmemdev_map_refused(h, p, 16));
	/* a copy that ends in the refused page, one that starts before it */
	ck_assert(kmemdev_map_refused(h, (const char *)p - 0x1000, 0x1001));
	ck_assert(!kmemdev_map_refused(h, (const char *)p - 0x1000, 0x10));
	ck_assert(!kmemdev_map_refused(h, p, 0));
	ck_assert(!kmemdev_map_refused(NULL, p, 16));
	ck_assert_int_eq(kmemdev_read(h, PAGE_OFFSET + 0x101ff0, buf, sizeof(buf)), -EFAULT);
	ck_assert_uint_eq(buf[0], 1);
	ck_assert_uint_eq(buf[3], 4);
	/* the page before reads from the mapping */
	ck_assert_int_eq(kmemdev_read(h, PAGE_OFFSET + 0x100010, buf, 16), 0);
	check_bytes((const unsigned char *)buf, 0x100010, 16);
	kmemdev_close(h);
}
END_TEST

/*
 * An older driver (no KMEM_RO_FEAT_MMAP_REFUSED) raises SIGBUS on a page
 * it refuses: RAM beyond the text is never mapped, the text still is.
 */
START_TEST(test_file_old_driver_maps_text_only)
{
	struct kmemdev *h = file_handle(layout.features & ~KMEM_RO_FEAT_MMAP_REFUSED);
	const void *p;

	ck_assert_int_eq(kmemdev__maps_init(h, ram, NR_RAM), 0);
	ck_assert_int_eq(kmemdev_map(h, PAGE_OFFSET + 0x100000, 8, &p), -ENXIO);
	ck_assert_int_eq(kmemdev_map(h, TEXT_START, 8, &p), 0);
	ck_assert(!kmemdev_map_refused(h, p, 8));
	kmemdev_close(h);
}
END_TEST

START_TEST(test_file_read)
{
	struct kmemdev *h = file_handle(layout.features);
	const void *p1, *p2, *p3;
	unsigned char buf[64];

	ck_assert_int_eq(kmemdev__maps_init(h, ram, NR_RAM), 0);
	ck_assert_int_eq(kmemdev_read(h, PAGE_OFFSET + 0x100010, buf, 64), 0);
	check_bytes(buf, 0x100010, 64);
	ck_assert_int_eq(kmemdev_read(h, PAGE_OFFSET + 0x1ff8, buf, 16), 0);
	check_bytes(buf, 0x1ff8, 16);
	ck_assert_int_eq(kmemdev_read(h, TEXT_START + 0x1ff0, buf, 32), 0);
	check_bytes(buf, TEXT_PHYS + 0x1ff0, 32);
	ck_assert_int_eq(kmemdev_read(h, PAGE_OFFSET + 0x3ffdfff8, buf, 8), 0);
	check_bytes(buf, 0x3ffdfff8, 8);

	/* One mapping per region: image, alias and neighbour agree. */
	ck_assert_int_eq(kmemdev_map(h, TEXT_START, 8, &p1), 0);
	ck_assert_int_eq(kmemdev_map(h, PAGE_OFFSET + TEXT_PHYS, 8, &p2), 0);
	ck_assert_int_eq(kmemdev_map(h, PAGE_OFFSET + 0x100000, 8, &p3), 0);
	ck_assert_ptr_eq(p1, p2);
	ck_assert_int_eq((const char *)p1 - (const char *)p3,
			 TEXT_PHYS - 0x100000);
	check_bytes(p1, TEXT_PHYS, 8);
	kmemdev_close(h);
}
END_TEST

START_TEST(test_file_errors)
{
	struct kmemdev *h = file_handle(layout.features);
	unsigned char buf[16];
	const void *p = &p;

	ck_assert_int_eq(kmemdev__maps_init(h, ram, NR_RAM), 0);
	ck_assert_int_eq(kmemdev__maps_init(h, ram, NR_RAM), -EBUSY);

	memset(buf, 0xa5, sizeof(buf));
	ck_assert_int_eq(kmemdev_read(h, VMALLOC_START, buf, 8), -ENXIO);
	ck_assert_int_eq(kmemdev_read(h, PAGE_OFFSET + 0x9fbf0, buf, 8),
			 -ENXIO);
	ck_assert_int_eq(kmemdev_read(h, PAGE_OFFSET + 0x100000, buf, 0),
			 -EINVAL);
	ck_assert_uint_eq(buf[0], 0xa5);	/* all or nothing */
	ck_assert_int_eq(kmemdev_map(h, MODULES_START, 8, &p), -ENXIO);
	ck_assert_ptr_null(p);
	ck_assert_int_eq(kmemdev_read(h, PAGE_OFFSET, NULL, 8), -EINVAL);
	ck_assert_int_eq(kmemdev_map(h, TEXT_START, 8, NULL), -EINVAL);
	ck_assert_int_eq(kmemdev_map(NULL, TEXT_START, 8, &p), -EINVAL);
	ck_assert_int_eq(kmemdev_read(NULL, TEXT_START, buf, 8), -EINVAL);
	kmemdev_close(h);
}
END_TEST

START_TEST(test_file_text_only)
{
	struct kmemdev *h = file_handle(KMEM_RO_FEAT_INFO |
					KMEM_RO_FEAT_MMAP_TEXT);
	unsigned char buf[32];

	ck_assert_int_eq(kmemdev__maps_init(h, ram, NR_RAM), 0);
	ck_assert_int_eq(kmemdev_read(h, TEXT_START + 0x10, buf, 32), 0);
	check_bytes(buf, TEXT_PHYS + 0x10, 32);
	ck_assert_int_eq(kmemdev_read(h, PAGE_OFFSET + TEXT_PHYS, buf, 8), 0);
	check_bytes(buf, TEXT_PHYS, 8);
	ck_assert_int_eq(kmemdev_read(h, PAGE_OFFSET + 0x100000, buf, 8),
			 -ENXIO);
	ck_assert_int_eq(kmemdev_read(h, TEXT_END, buf, 8), -ENXIO);
	kmemdev_close(h);
}
END_TEST

START_TEST(test_file_no_mmap)
{
	/* A driver offering no mmap at all. */
	struct kmemdev *h = file_handle(KMEM_RO_FEAT_INFO);
	unsigned char buf[8];

	ck_assert_int_eq(kmemdev__maps_init(h, ram, NR_RAM), 0);
	ck_assert_int_eq(kmemdev_read(h, TEXT_START, buf, 8), -EOPNOTSUPP);
	kmemdev_close(h);
}
END_TEST

START_TEST(test_file_unmapped_on_close)
{
	struct kmemdev *h = file_handle(layout.features);
	const void *p;
	void *page;

	ck_assert_int_eq(kmemdev__maps_init(h, ram, NR_RAM), 0);
	ck_assert_int_eq(kmemdev_map(h, PAGE_OFFSET + 0x100000, 8, &p), 0);
	page = (void *)((uintptr_t)p & ~(uintptr_t)4095);
	ck_assert_int_eq(msync(page, 4096, MS_ASYNC), 0);
	kmemdev_close(h);
	/* msync() fails with ENOMEM on an address no longer mapped. */
	ck_assert_int_eq(msync(page, 4096, MS_ASYNC), -1);
	ck_assert_int_eq(errno, ENOMEM);
}
END_TEST

START_TEST(test_file_unsorted_ram)
{
	/* The driver's order does not matter: the handle sorts. */
	static const struct kmem_ro_range rev[] = {
		{ 0x100000, 0x3ffe0000 },
		{ 0x1000, 0x9fc00 },
	};
	struct kmemdev *h = file_handle(layout.features);
	unsigned char buf[8];

	ck_assert_int_eq(kmemdev__maps_init(h, rev, 2), 0);
	ck_assert_int_eq(kmemdev_read(h, PAGE_OFFSET + 0x1000, buf, 8), 0);
	check_bytes(buf, 0x1000, 8);
	ck_assert_int_eq(kmemdev_read(h, PAGE_OFFSET + 0x100000, buf, 8), 0);
	check_bytes(buf, 0x100000, 8);
	kmemdev_close(h);
}
END_TEST

struct racer {
	struct kmemdev *h;
	pthread_barrier_t *go;
	uint64_t kaddr, phys;
	const void *ptr;
	int err;
};

static void *race_thread(void *arg)
{
	struct racer *r = arg;
	unsigned char b[8];
	int i;

	pthread_barrier_wait(r->go);
	r->err = kmemdev_map(r->h, r->kaddr, 8, &r->ptr);
	/* The benchmark's loop: 8-byte reads, mostly lock-free. */
	for (i = 0; !r->err && i < 10000; i++) {
		r->err = kmemdev_read(r->h, r->kaddr + (i & 0xff) * 8, b, 8);
		if (!r->err && b[0] != pattern(r->phys + (i & 0xff) * 8))
			r->err = -EIO;
	}
	return NULL;
}

/* Many first users of two regions at once: each mapped exactly once. */
START_TEST(test_file_concurrent_first_use)
{
	enum { T = 8 };
	struct kmemdev *h = file_handle(layout.features);
	pthread_barrier_t go;
	pthread_t tid[T];
	struct racer r[T];
	int i;

	ck_assert_int_eq(kmemdev__maps_init(h, ram, NR_RAM), 0);
	ck_assert_int_eq(pthread_barrier_init(&go, NULL, T), 0);
	for (i = 0; i < T; i++) {
		r[i] = (struct racer){ .h = h, .go = &go, .err = 1 };
		r[i].phys = i & 1 ? 0x1000 : 0x100000;
		r[i].kaddr = PAGE_OFFSET + r[i].phys;
		ck_assert_int_eq(pthread_create(&tid[i], NULL, race_thread,
						&r[i]), 0);
	}
	for (i = 0; i < T; i++) {
		pthread_join(tid[i], NULL);
		ck_assert_int_eq(r[i].err, 0);
		ck_assert_ptr_eq(r[i].ptr, r[i & 1].ptr);
	}
	pthread_barrier_destroy(&go);
	kmemdev_close(h);
}
END_TEST

START_TEST(test_handle_without_device)
{
	/* No fd: the RAM list cannot be fetched, nothing is published. */
	struct kmemdev *h = NULL;
	const void *p;

	ck_assert_int_eq(kmemdev__handle_new(&h, -1), 0);
	h->info = layout;
	ck_assert_int_eq(kmemdev_map(h, TEXT_START, 8, &p), -EINVAL);
	ck_assert_int_eq(kmemdev_map(h, TEXT_START, 8, &p), -EINVAL);
	ck_assert_int_eq(kmemdev__maps_init(h, NULL, 1), -EINVAL);
	ck_assert_int_eq(kmemdev__maps_init(NULL, ram, NR_RAM), -EINVAL);
	kmemdev_close(h);
}
END_TEST

static Suite *map_suite(void)
{
	Suite *s = suite_create("map");
	TCase *xl = tcase_create("translate");
	TCase *text = tcase_create("text_only");
	TCase *file = tcase_create("file");

	tcase_add_test(xl, test_direct_map);
	tcase_add_test(xl, test_direct_map_outside_ram);
	tcase_add_test(xl, test_page_rounding);
	tcase_add_test(xl, test_page_rounding_start);
	tcase_add_test(xl, test_straddle_two_ranges);
	tcase_add_test(xl, test_kernel_image);
	tcase_add_test(xl, test_kernel_image_edges);
	tcase_add_test(xl, test_other_areas);
	tcase_add_test(xl, test_vmalloc_over_ram);
	tcase_add_test(xl, test_bad_lengths);
	tcase_add_test(xl, test_bad_page_size);
	tcase_add_test(xl, test_no_ram);
	tcase_add_test(xl, test_many_ranges);
	suite_add_tcase(s, xl);

	tcase_add_test(text, test_text_range);
	tcase_add_test(text, test_text_only);
	suite_add_tcase(s, text);

	tcase_add_test(file, test_file_read);
	tcase_add_test(file, test_file_errors);
	tcase_add_test(file, test_file_text_only);
	tcase_add_test(file, test_file_no_mmap);
	tcase_add_test(file, test_file_unmapped_on_close);
	tcase_add_test(file, test_file_unsorted_ram);
	tcase_add_test(file, test_file_concurrent_first_use);
	tcase_add_test(file, test_file_refused_page_read_by_device);
	tcase_add_test(file, test_file_old_driver_maps_text_only);
	tcase_add_test(file, test_handle_without_device);
	tcase_set_timeout(file, 30);
	suite_add_tcase(s, file);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(map_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
