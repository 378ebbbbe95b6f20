// SPDX-License-Identifier: GPL-2.0
/*
 * The uapi layout is a contract with every built driver and program: pin it
 * down byte by byte so that an accidental change fails here first.
 */
#include <check.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "kmemdev.h"

#define offsetofend(T, F) (offsetof(T, F) + sizeof(((T *)0)->F))
#define FIELD_SIZE(T, F) sizeof(((T *)0)->F)

START_TEST(test_range_layout)
{
	ck_assert_uint_eq(sizeof(struct kmem_ro_range), 16);
	ck_assert_uint_eq(offsetof(struct kmem_ro_range, start), 0);
	ck_assert_uint_eq(offsetof(struct kmem_ro_range, end), 8);
}
END_TEST

START_TEST(test_info_layout)
{
	typedef struct kmem_ro_info I;

	ck_assert_uint_eq(sizeof(I), 176);
	ck_assert_uint_eq(offsetof(I, size), 0);
	ck_assert_uint_eq(offsetof(I, flags), 8);
	ck_assert_uint_eq(offsetof(I, abi_version), 16);
	ck_assert_uint_eq(offsetof(I, page_size), 20);
	ck_assert_uint_eq(offsetof(I, features), 24);
	ck_assert_uint_eq(offsetof(I, ioctls), 32);
	ck_assert_uint_eq(offsetof(I, pmd_size), 40);
	ck_assert_uint_eq(offsetof(I, page_offset), 48);
	ck_assert_uint_eq(offsetof(I, phys_base), 56);
	ck_assert_uint_eq(offsetof(I, kernel_map), 64);
	ck_assert_uint_eq(offsetof(I, text_start), 72);
	ck_assert_uint_eq(offsetof(I, text_end), 80);
	ck_assert_uint_eq(offsetof(I, vmalloc_start), 88);
	ck_assert_uint_eq(offsetof(I, vmalloc_end), 96);
	ck_assert_uint_eq(offsetof(I, modules_start), 104);
	ck_assert_uint_eq(offsetof(I, modules_end), 112);
	ck_assert_uint_eq(offsetof(I, ram_addr), 120);
	ck_assert_uint_eq(offsetof(I, ram_cap), 128);
	ck_assert_uint_eq(offsetof(I, ram_count), 132);
	ck_assert_uint_eq(offsetof(I, reserved), 136);
	ck_assert_uint_eq(FIELD_SIZE(I, reserved), 16);
	ck_assert_uint_eq(offsetof(I, vmcoreinfo_addr), 152);
	ck_assert_uint_eq(offsetof(I, vmcoreinfo_size), 160);
	ck_assert_uint_eq(offsetof(I, reserved2), 164);
	ck_assert_uint_eq(offsetof(I, mmap_refused), 168);
}
END_TEST

START_TEST(test_info_size_ver0)
{
	ck_assert_uint_eq(KMEM_RO_INFO_SIZE_VER0, 152);
	ck_assert_uint_eq(KMEM_RO_INFO_SIZE_VER0,
			  offsetofend(struct kmem_ro_info, reserved));
	ck_assert_uint_eq(KMEM_RO_INFO_SIZE_VER1,
			  offsetofend(struct kmem_ro_info, reserved2));
	ck_assert_uint_eq(KMEM_RO_INFO_SIZE_VER2,
			  offsetofend(struct kmem_ro_info, mmap_refused));
	/* No implicit tail padding for the driver to leak or reject. */
	ck_assert_uint_eq(sizeof(struct kmem_ro_info), KMEM_RO_INFO_SIZE_VER2);
}
END_TEST

/*
 * i386 aligns __u64 to 4 inside structs; natural 8-byte offsets keep the
 * layout identical for 32-bit callers on a 64-bit kernel (compat ioctl).
 */
START_TEST(test_u64_alignment)
{
	static const struct {
		const char *name;
		size_t off, size, elem;
	} f[] = {
#define F(x) { #x, offsetof(struct kmem_ro_info, x), \
	       FIELD_SIZE(struct kmem_ro_info, x), \
	       FIELD_SIZE(struct kmem_ro_info, x) }
		F(size), F(flags), F(abi_version), F(page_size), F(features),
		F(ioctls), F(pmd_size), F(page_offset), F(phys_base), F(kernel_map),
		F(text_start), F(text_end), F(vmalloc_start), F(vmalloc_end),
		F(modules_start), F(modules_end), F(ram_addr), F(ram_cap),
		F(ram_count),
		{ "reserved", offsetof(struct kmem_ro_info, reserved),
		  FIELD_SIZE(struct kmem_ro_info, reserved),
		  FIELD_SIZE(struct kmem_ro_info, reserved[0]) },
		F(vmcoreinfo_addr), F(vmcoreinfo_size), F(reserved2),
		F(mmap_refused),
#undef F
	};
	size_t i, next = 0;

	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		ck_assert_msg(f[i].elem == 4 || f[i].elem == 8,
			      "%s: only __u32/__u64 fields", f[i].name);
		ck_assert_msg(f[i].off % f[i].elem == 0, "%s misaligned: %zu",
			      f[i].name, f[i].off);
		ck_assert_msg(f[i].off == next, "%s: hole before it",
			      f[i].name);
		next = f[i].off + f[i].size;
	}
	ck_assert_uint_eq(next, sizeof(struct kmem_ro_info));
}
END_TEST

START_TEST(test_ioctl_number)
{
	unsigned long cmd = KMEM_RO_IOC_INFO;

	ck_assert_uint_eq(KMEM_RO_IOC_MAGIC, 0xBE);
	ck_assert_uint_eq(_IOC_TYPE(cmd), KMEM_RO_IOC_MAGIC);
	ck_assert_uint_eq(_IOC_NR(cmd), 0x00);
	ck_assert_uint_eq(_IOC_SIZE(cmd), sizeof(struct kmem_ro_info));
	/* _IOWR: the caller writes size/flags/ram_*, the driver reads back. */
	ck_assert_uint_eq(_IOC_DIR(cmd), _IOC_READ | _IOC_WRITE);
#if defined(__x86_64__) || defined(__i386__) || defined(__aarch64__) || \
	defined(__riscv)
	/*
	 * The raw number as programs built against this header know it
	 * (generic _IOC layout; the size field is 176 since ABI version 4,
	 * 168 from version 2).  Programs built before use 0xC0A8BE00 or
	 * 0xC098BE00 (152): the driver ignores the size bits above
	 * KMEM_RO_INFO_SIZE_VER0 (driver/main.c).
	 */
	ck_assert_uint_eq(cmd, 0xC0B0BE00UL);
#endif
}
END_TEST

START_TEST(test_probe_filter_layout)
{
	typedef struct kmem_ro_probe_filter F;

	ck_assert_uint_eq(sizeof(F), KMEM_RO_PROBE_FILTER_SIZE_VER0);
	ck_assert_uint_eq(offsetof(F, flags), 8);
	ck_assert_uint_eq(offsetof(F, pid), 16);
	ck_assert_uint_eq(offsetof(F, reserved0), 20);
	ck_assert_uint_eq(offsetof(F, comm), 24);
	ck_assert_uint_eq(FIELD_SIZE(F, comm), 16);	/* TASK_COMM_LEN */
	ck_assert_uint_eq(offsetof(F, reserved), 40);
	ck_assert_uint_eq(_IOC_NR(KMEM_RO_IOC_PROBE_FILTER), 0x16);
	ck_assert_uint_eq(_IOC_SIZE(KMEM_RO_IOC_PROBE_FILTER), sizeof(F));
	ck_assert_uint_eq(_IOC_DIR(KMEM_RO_IOC_PROBE_FILTER), _IOC_READ | _IOC_WRITE);
}
END_TEST

START_TEST(test_constants)
{
	ck_assert_str_eq(KMEM_RO_DEVICE, "/dev/kmem_ro");
	ck_assert_int_ge(KMEM_RO_ABI_VERSION, 1);
	ck_assert_uint_eq(KMEM_RO_FEAT_INFO, 1);
}
END_TEST

START_TEST(test_open_opts)
{
	KMEMDEV_OPTS(kmemdev_open_opts, opts, .path = "/x");
	KMEMDEV_OPTS(kmemdev_open_opts, dflt);

	ck_assert_uint_eq(offsetof(struct kmemdev_open_opts, sz), 0);
	ck_assert_uint_eq(offsetof(struct kmemdev_open_opts, path),
			  sizeof(size_t));
	ck_assert_uint_eq(opts.sz, sizeof(struct kmemdev_open_opts));
	ck_assert_str_eq(opts.path, "/x");
	ck_assert_uint_eq(dflt.sz, sizeof(struct kmemdev_open_opts));
	ck_assert_ptr_null(dflt.path);
}
END_TEST

static Suite *abi_suite(void)
{
	Suite *s = suite_create("abi");
	TCase *tc = tcase_create("layout");

	tcase_add_test(tc, test_range_layout);
	tcase_add_test(tc, test_info_layout);
	tcase_add_test(tc, test_info_size_ver0);
	tcase_add_test(tc, test_u64_alignment);
	tcase_add_test(tc, test_ioctl_number);
	tcase_add_test(tc, test_probe_filter_layout);
	tcase_add_test(tc, test_constants);
	tcase_add_test(tc, test_open_opts);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(abi_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
