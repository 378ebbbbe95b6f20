// SPDX-License-Identifier: GPL-2.0
/*
 * The kcore backend on a small ELF64 core file this test writes itself,
 * laid out like /proc/kcore on x86-64 (RAM segments at page_offset + phys,
 * the image with its physical address, modules/vmalloc/vsyscall without
 * one): program header parsing, segment lookup, reads (across adjacent
 * segments, past p_filesz, outside every segment), kmemdev_info(), and the
 * files it must refuse.  /proc/kcore itself is tested in the VM suite.
 */
#include <check.h>
#include <elf.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

#define PAGE_OFFSET	0xff11000000000000ULL
#define KERNEL_MAP	0xffffffff80000000ULL
#define PHYS_BASE	0x1a000000ULL
#define TEXT_START	0xffffffff81000000ULL
#define MODULES_START	0xffffffffc0000000ULL
#define VSYSCALL	0xffffffffff600000ULL
#define VMALLOC_START	0xffa0000000000000ULL
#define NO_PADDR	UINT64_MAX
#define DATA_START	0x1000

struct seg {
	uint32_t type;
	uint64_t vaddr, paddr, memsz, filesz;
};

/* Deliberately not sorted by address; the PT_NOTE must be ignored. */
static const struct seg segs[] = {
	{ PT_NOTE, 0, 0, 0x40, 0x40 },
	{ PT_LOAD, TEXT_START, TEXT_START - KERNEL_MAP + PHYS_BASE, 0x3000, 0x3000 },
	{ PT_LOAD, PAGE_OFFSET + 0x3000, 0x3000, 0x1000, 0x1000 },
	{ PT_LOAD, PAGE_OFFSET + 0x1000, 0x1000, 0x2000, 0x2000 },
	{ PT_LOAD, VMALLOC_START, NO_PADDR, 1ULL << 45, 0 },
	{ PT_LOAD, MODULES_START, NO_PADDR, 0x3f000000, 0x1000 },
	{ PT_LOAD, VSYSCALL, NO_PADDR, 0x1000, 0x1000 },
	{ PT_LOAD, PAGE_OFFSET + 0x100000, 0x100000, 0x4000, 0x4000 },
};
#define NR_SEGS ((int)(sizeof(segs) / sizeof(segs[0])))

/* Byte @in of segment @i as the file holds it; 0 past p_filesz. */
static unsigned char expect_byte(int i, uint64_t in)
{
	if (in >= segs[i].filesz)
		return 0;
	return (unsigned char)(in ^ (in >> 8) ^ (uint64_t)(i * 0x35 + 1));
}

/* Where the segment containing @vaddr is, or -1. */
static int seg_of(uint64_t vaddr)
{
	for (int i = 0; i < NR_SEGS; i++)
		if (segs[i].type == PT_LOAD && vaddr >= segs[i].vaddr &&
		    vaddr - segs[i].vaddr < segs[i].memsz)
			return i;
	return -1;
}

static char core_path[64], syms_path[64];

struct core_opts {
	unsigned char class, data;
	uint16_t type, machine;
	bool xnum;		/* e_phnum = PN_XNUM, count in shdr 0 */
	size_t truncate;	/* write only this many bytes, if non-zero */
};

static void write_core(const char *path, const struct core_opts *o)
{
	size_t phoff = sizeof(Elf64_Ehdr), shoff, data = DATA_START, size;
	Elf64_Ehdr eh = { 0 };
	Elf64_Phdr ph[NR_SEGS];
	unsigned char *img;
	FILE *f;

	memset(ph, 0, sizeof(ph));
	for (int i = 0; i < NR_SEGS; i++) {
		ph[i].p_type = segs[i].type;
		ph[i].p_flags = PF_R | PF_W | PF_X;
		ph[i].p_vaddr = segs[i].vaddr;
		ph[i].p_paddr = segs[i].paddr;
		ph[i].p_memsz = segs[i].memsz;
		ph[i].p_filesz = segs[i].filesz;
		ph[i].p_offset = data;
		data += segs[i].filesz;
	}
	shoff = data;
	size = shoff + sizeof(Elf64_Shdr);
	img = calloc(1, size);
	ck_assert_ptr_nonnull(img);

	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = o->class ? o->class : ELFCLASS64;
	eh.e_ident[EI_DATA] = o->data ? o->data : ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = o->type ? o->type : ET_CORE;
	eh.e_machine = o->machine ? o->machine : EM_X86_64;
	eh.e_version = EV_CURRENT;
	eh.e_phoff = phoff;
	eh.e_ehsize = sizeof(eh);
	eh.e_phentsize = sizeof(Elf64_Phdr);
	eh.e_phnum = o->xnum ? PN_XNUM : NR_SEGS;
	if (o->xnum) {
		Elf64_Shdr sh = { .sh_info = NR_SEGS };

		eh.e_shoff = shoff;
		eh.e_shentsize = sizeof(Elf64_Shdr);
		eh.e_shnum = 0;
		memcpy(img + shoff, &sh, sizeof(sh));
	}
	memcpy(img, &eh, sizeof(eh));
	memcpy(img + phoff, ph, sizeof(ph));
	for (int i = 0; i < NR_SEGS; i++)
		for (uint64_t in = 0; in < segs[i].filesz; in++)
			img[ph[i].p_offset + in] = expect_byte(i, in);

	f = fopen(path, "we");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(img, 1, o->truncate ? o->truncate : size, f),
			  o->truncate ? o->truncate : size);
	ck_assert_int_eq(fclose(f), 0);
	free(img);
}

static int open_core(const char *path, struct kmemdev **h)
{
	KMEMDEV_OPTS(kmemdev_open_opts, opts, .path = path,
		     .backend = KMEMDEV_BACKEND_KCORE);

	return kmemdev_open(h, &opts);
}

static struct kmemdev *h;

static void setup(void)
{
	static const struct core_opts plain;
	FILE *f;
	int fd;

	strcpy(core_path, "/tmp/kmemdev_kcore_XXXXXX");
	fd = mkstemp(core_path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	write_core(core_path, &plain);

	strcpy(syms_path, "/tmp/kmemdev_ksyms_XXXXXX");
	fd = mkstemp(syms_path);
	ck_assert_int_ge(fd, 0);
	f = fdopen(fd, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "ffffffff81000000 T _stext\n"
		   "ffffffff81000010 T start_kernel\n"
		   "ffffffff81001800 T _etext\n");
	ck_assert_int_eq(fclose(f), 0);

	ck_assert_int_eq(open_core(core_path, &h), 0);
	ck_assert_int_eq(kmemdev__set_kallsyms_path(h, syms_path), 0);
}

static void teardown(void)
{
	kmemdev_close(h);
	h = NULL;
	unlink(core_path);
	unlink(syms_path);
}

/* Read through the library and compare with what the file says. */
static void expect_read(uint64_t kaddr, size_t len)
{
	unsigned char *buf = malloc(len);

	ck_assert_ptr_nonnull(buf);
	ck_assert_int_eq(kmemdev_read(h, kaddr, buf, len), 0);
	for (size_t k = 0; k < len; k++) {
		int i = seg_of(kaddr + k);

		ck_assert_int_ge(i, 0);
		ck_assert_msg(buf[k] == expect_byte(i, kaddr + k - segs[i].vaddr),
			      "byte %zu of 0x%llx", k, (unsigned long long)kaddr);
	}
	free(buf);
}

static void expect_read_err(uint64_t kaddr, size_t len, int err)
{
	unsigned char buf[64];

	ck_assert_uint_le(len, sizeof(buf));
	memset(buf, 0xa5, sizeof(buf));
	ck_assert_int_eq(kmemdev_read(h, kaddr, buf, len), err);
	for (size_t k = 0; k < sizeof(buf); k++)
		ck_assert_uint_eq(buf[k], 0xa5);	/* untouched */
}

START_TEST(test_backend_name_and_fd)
{
	ck_assert_str_eq(kmemdev_backend_name(h), "kcore");
	ck_assert_str_eq(kmemdev_backend_name(NULL), "none");
	ck_assert_int_eq(kmemdev_fd(h), -EINVAL);
}
END_TEST

START_TEST(test_parse_keeps_sorted_loads)
{
	const struct kmemdev_kcore *kc = &h->kcore;

	ck_assert_uint_eq(kc->nr, NR_SEGS - 1);		/* no PT_NOTE */
	for (unsigned int i = 1; i < kc->nr; i++)
		ck_assert_uint_lt(kc->load[i - 1].vaddr, kc->load[i].vaddr);
	ck_assert_uint_eq(kc->load[0].vaddr, PAGE_OFFSET + 0x1000);
	ck_assert_uint_eq(kc->load[kc->nr - 1].vaddr, VSYSCALL);
}
END_TEST

START_TEST(test_find)
{
	const struct kmemdev_kcore *kc = &h->kcore;

	for (int i = 0; i < NR_SEGS; i++) {
		const struct kmemdev_kseg *s;

		if (segs[i].type != PT_LOAD)
			continue;
		s = kmemdev__kcore_find(kc, segs[i].vaddr);
		ck_assert_ptr_nonnull(s);
		ck_assert_uint_eq(s->vaddr, segs[i].vaddr);
		ck_assert_uint_eq(s->paddr, segs[i].paddr);
		s = kmemdev__kcore_find(kc, segs[i].vaddr + segs[i].memsz - 1);
		ck_assert_ptr_nonnull(s);
		ck_assert_uint_eq(s->vaddr, segs[i].vaddr);
	}
	ck_assert_ptr_null(kmemdev__kcore_find(kc, 0));
	ck_assert_ptr_null(kmemdev__kcore_find(kc, PAGE_OFFSET));
	ck_assert_ptr_null(kmemdev__kcore_find(kc, PAGE_OFFSET + 0x4000));
	ck_assert_ptr_null(kmemdev__kcore_find(kc, TEXT_START + 0x3000));
	ck_assert_ptr_null(kmemdev__kcore_find(kc, VSYSCALL + 0x1000));
	ck_assert_ptr_null(kmemdev__kcore_find(kc, UINT64_MAX));
}
END_TEST

START_TEST(test_read)
{
	expect_read(PAGE_OFFSET + 0x1000, 8);
	expect_read(PAGE_OFFSET + 0x1ff8, 64);		/* inside one segment */
	expect_read(PAGE_OFFSET + 0x2fe0, 64);		/* across two */
	expect_read(PAGE_OFFSET + 0x1000, 0x3000);	/* both, whole */
	expect_read(TEXT_START + 0x123, 1000);
	expect_read(MODULES_START + 0xfe0, 64);		/* past p_filesz */
	expect_read(MODULES_START + 0x20000000, 64);	/* all zero */
	expect_read(VMALLOC_START + 0x1000, 64);	/* p_filesz 0 */
	expect_read(VSYSCALL + 0xfff, 1);
}
END_TEST

START_TEST(test_read_outside)
{
	expect_read_err(PAGE_OFFSET, 8, -ENXIO);		/* hole */
	expect_read_err(PAGE_OFFSET + 0xff8, 16, -ENXIO);	/* starts in it */
	expect_read_err(PAGE_OFFSET + 0x3ff8, 16, -ENXIO);	/* ends in it */
	expect_read_err(TEXT_START + 0x2ff8, 16, -ENXIO);
	expect_read_err(0x1000, 8, -ENXIO);			/* user */
	expect_read_err(UINT64_MAX - 7, 8, -ENXIO);
	expect_read_err(UINT64_MAX - 7, 9, -EINVAL);		/* wraps */
	expect_read_err(PAGE_OFFSET + 0x1000, 0, -EINVAL);
	ck_assert_int_eq(kmemdev_read(h, PAGE_OFFSET + 0x1000, NULL, 8), -EINVAL);
	ck_assert_int_eq(kmemdev_read(NULL, PAGE_OFFSET + 0x1000, core_path, 8),
			 -EINVAL);
}
END_TEST

START_TEST(test_info)
{
	struct kmem_ro_range ram[4] = { { 0 } };
	struct kmem_ro_info info;

	memset(&info, 0xa5, sizeof(info));
	info.size = sizeof(info);
	ck_assert_int_eq(kmemdev_info(h, &info, NULL, 0), 3);
	ck_assert_uint_eq(info.ram_count, 3);
	memset(&info, 0xa5, sizeof(info));
	info.size = sizeof(info);
	ck_assert_int_eq(kmemdev_info(h, &info, ram, 2), 3);
	ck_assert_uint_eq(ram[0].start, 0x1000);
	ck_assert_uint_eq(ram[0].end, 0x3000);
	ck_assert_uint_eq(ram[1].start, 0x3000);
	ck_assert_uint_eq(ram[1].end, 0x4000);
	ck_assert_uint_eq(ram[2].end, 0);		/* past ram_cap */
	ck_assert_int_eq(kmemdev_info(h, &info, ram, 4), 3);
	ck_assert_uint_eq(ram[2].start, 0x100000);
	ck_assert_uint_eq(ram[2].end, 0x104000);

	ck_assert_uint_eq(info.size, sizeof(info));
	ck_assert_uint_eq(info.flags, 0);
	ck_assert_uint_eq(info.abi_version, 0);
	ck_assert_uint_eq(info.features, 0);
	ck_assert_uint_eq(info.ioctls, 0);
	ck_assert_uint_eq(info.page_size, sysconf(_SC_PAGESIZE));
	ck_assert_uint_eq(info.pmd_size, 0);
	ck_assert_uint_eq(info.page_offset, PAGE_OFFSET);
	ck_assert_uint_eq(info.kernel_map, KERNEL_MAP);
	ck_assert_uint_eq(info.phys_base, PHYS_BASE);
	ck_assert_uint_eq(info.text_start, TEXT_START);
	ck_assert_uint_eq(info.text_end, TEXT_START + 0x2000);
	ck_assert_uint_eq(info.vmalloc_start, 0);
	ck_assert_uint_eq(info.vmalloc_end, 0);
	ck_assert_uint_eq(info.modules_start, MODULES_START);
	ck_assert_uint_eq(info.modules_end, MODULES_START + 0x3f000000);
	ck_assert_uint_eq(info.ram_addr, (uintptr_t)ram);
	ck_assert_uint_eq(info.ram_cap, 4);
	ck_assert_uint_eq(info.reserved[0] | info.reserved[1], 0);
}
END_TEST

/*
 * The caller's .size says how much of its struct is there: the answer is
 * written up to it, whatever the library's own sizeof, and never past it.
 */
START_TEST(test_info_caller_size)
{
	enum { TAIL = 16, GUARD = 16 };
	union {
		struct kmem_ro_info info;
		unsigned char raw[sizeof(struct kmem_ro_info) + TAIL + GUARD];
	} u;
	unsigned char *tail = u.raw + sizeof(u.info), *guard = tail + TAIL;
	struct kmem_ro_range *ram = NULL;
	unsigned int nr = 0;

	/* A newer caller: its size kept, its unknown fields answered 0. */
	memset(&u, 0xa5, sizeof(u));
	u.info.size = sizeof(u.info) + TAIL;
	ck_assert_int_eq(kmemdev_info(h, &u.info, NULL, 0), 3);
	ck_assert_uint_eq(u.info.size, sizeof(u.info) + TAIL);
	ck_assert_uint_eq(u.info.page_offset, PAGE_OFFSET);
	for (int i = 0; i < TAIL; i++)
		ck_assert_uint_eq(tail[i], 0);
	for (int i = 0; i < GUARD; i++)
		ck_assert_uint_eq(guard[i], 0xa5);

	/* The first layout exactly: nothing past it is touched. */
	memset(&u, 0xa5, sizeof(u));
	u.info.size = KMEM_RO_INFO_SIZE_VER0;
	ck_assert_int_eq(kmemdev_info_alloc(h, &u.info, &ram, &nr), 0);
	ck_assert_uint_eq(nr, 3);
	free(ram);
	ck_assert_uint_eq(u.info.size, KMEM_RO_INFO_SIZE_VER0);
	ck_assert_uint_eq(u.info.modules_start, MODULES_START);
	for (size_t i = KMEM_RO_INFO_SIZE_VER0; i < sizeof(u); i++)
		ck_assert_uint_eq(u.raw[i], 0xa5);

	/* Sizes it cannot take: refused, the struct untouched. */
	memset(&u, 0xa5, sizeof(u));
	u.info.size = 0;
	ck_assert_int_eq(kmemdev_info(h, &u.info, NULL, 0), -EINVAL);
	ck_assert_uint_eq(u.info.page_offset, 0xa5a5a5a5a5a5a5a5ULL);
	u.info.size = KMEMDEV_ARG_MAX + 1;
	ck_assert_int_eq(kmemdev_info(h, &u.info, NULL, 0), -E2BIG);
	ck_assert_uint_eq(u.info.page_offset, 0xa5a5a5a5a5a5a5a5ULL);
}
END_TEST

START_TEST(test_info_without_kallsyms)
{
	KMEMDEV_ARG(kmem_ro_info, info);
	struct kmemdev *h2;

	ck_assert_int_eq(open_core(core_path, &h2), 0);
	ck_assert_int_eq(kmemdev__set_kallsyms_path(h2, "/nonexistent/kallsyms"), 0);
	ck_assert_int_eq(kmemdev_info(h2, &info, NULL, 0), 3);
	ck_assert_uint_eq(info.text_start, 0);
	ck_assert_uint_eq(info.text_end, 0);
	ck_assert_uint_eq(info.phys_base, PHYS_BASE);	/* from the segment */
	kmemdev_close(h2);
}
END_TEST

START_TEST(test_device_calls_unsupported)
{
	struct kmem_ro_iov iov = { .addr = PAGE_OFFSET + 0x1000, .len = 8 };
	KMEMDEV_ARG(kmem_ro_walk, w);
	unsigned int done = 7;
	const void *p = &p;
	uint32_t nodes;
	size_t cap = 0;
	void *buf = NULL;

	ck_assert_int_eq(kmemdev_map(h, PAGE_OFFSET + 0x1000, 8, &p), -EOPNOTSUPP);
	ck_assert_ptr_null(p);
	ck_assert_int_eq(kmemdev_readv(h, &iov, 1, &done), -EOPNOTSUPP);
	ck_assert_uint_eq(done, 0);
	ck_assert_int_eq(kmemdev_walk(h, &w), -EOPNOTSUPP);
	ck_assert_int_eq(kmemdev_walk_all(h, &w, &buf, &cap, &nodes), -EINVAL);
}
END_TEST

/* A variant header, written beside the good file; returns open's result. */
static int open_variant(const struct core_opts *o)
{
	char path[] = "/tmp/kmemdev_kbad_XXXXXX";
	struct kmemdev *h2 = (struct kmemdev *)path;	/* poison */
	int fd = mkstemp(path), err;

	ck_assert_int_ge(fd, 0);
	close(fd);
	write_core(path, o);
	err = open_core(path, &h2);
	if (err)
		ck_assert_ptr_null(h2);
	else
		kmemdev_close(h2);
	unlink(path);
	return err;
}

START_TEST(test_refused_files)
{
	const struct core_opts class32 = { .class = ELFCLASS32 };
	const struct core_opts msb = { .data = ELFDATA2MSB };
	const struct core_opts exec = { .type = ET_EXEC };
	const struct core_opts arm = { .machine = EM_AARCH64 };
	const struct core_opts short_ehdr = { .truncate = 40 };
	const struct core_opts short_phdrs = { .truncate = 100 };

	ck_assert_int_eq(open_variant(&class32), -ENOEXEC);
	ck_assert_int_eq(open_variant(&msb), -ENOEXEC);
	ck_assert_int_eq(open_variant(&exec), -ENOEXEC);
	ck_assert_int_eq(open_variant(&arm), -ENOEXEC);
	ck_assert_int_eq(open_variant(&short_ehdr), -ENOEXEC);
	ck_assert_int_eq(open_variant(&short_phdrs), -ENOEXEC);
	ck_assert_int_eq(open_core("/nonexistent/kcore", &h), -ENOENT);
	ck_assert_int_eq(open_core(syms_path, &h), -ENOEXEC);	/* text */
	ck_assert_int_eq(open_core("/dev/null", &h), -ENOEXEC);
}
END_TEST

START_TEST(test_pn_xnum)
{
	const struct core_opts xnum = { .xnum = true };
	char path[] = "/tmp/kmemdev_kxnum_XXXXXX";
	unsigned char a[32], b[32];
	struct kmemdev *h2;
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	close(fd);
	write_core(path, &xnum);
	ck_assert_int_eq(open_core(path, &h2), 0);
	ck_assert_uint_eq(h2->kcore.nr, NR_SEGS - 1);
	ck_assert_int_eq(kmemdev_read(h2, TEXT_START + 77, a, sizeof(a)), 0);
	ck_assert_int_eq(kmemdev_read(h, TEXT_START + 77, b, sizeof(b)), 0);
	ck_assert_mem_eq(a, b, sizeof(a));
	kmemdev_close(h2);
	unlink(path);
}
END_TEST

static Suite *kcore_suite(void)
{
	Suite *s = suite_create("kcore");
	TCase *tc = tcase_create("kcore");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_backend_name_and_fd);
	tcase_add_test(tc, test_parse_keeps_sorted_loads);
	tcase_add_test(tc, test_find);
	tcase_add_test(tc, test_read);
	tcase_add_test(tc, test_read_outside);
	tcase_add_test(tc, test_info);
	tcase_add_test(tc, test_info_caller_size);
	tcase_add_test(tc, test_info_without_kallsyms);
	tcase_add_test(tc, test_device_calls_unsupported);
	tcase_add_test(tc, test_refused_files);
	tcase_add_test(tc, test_pn_xnum);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr;
	int failed;

#ifndef __x86_64__
	/* The library checks e_machine against the host's. */
	printf("kcore_test: SKIP: the test core file is x86-64's\n");
	return EXIT_SUCCESS;
#endif
	sr = srunner_create(kcore_suite());
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
