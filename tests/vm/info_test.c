// SPDX-License-Identifier: GPL-2.0
/*
 * KMEM_RO_IOC_INFO: every field against an independent source in the guest,
 * then every bad input against its documented errno.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kmemdev.h"
#include "vmtest.h"

#define RAM_CAP 256

static uint64_t read_u64_kcore(const char *sym)
{
	uint64_t addr = vt_kallsyms(sym), val = 0;

	ck_assert_msg(addr, "%s not in /proc/kallsyms", sym);
	ck_assert_int_eq(vt_kcore_read(addr, &val, sizeof(val)), 0);
	return val;
}

START_TEST(abi_handshake)
{
	struct kmem_ro_info info;
	int fd = vt_open_dev();

	ck_assert_int_eq(vt_info(fd, &info, NULL, 0), 0);
	ck_assert_uint_eq(info.abi_version, KMEM_RO_ABI_VERSION);
	ck_assert(info.features & KMEM_RO_FEAT_INFO);
	ck_assert(info.ioctls & (1ULL << _IOC_NR(KMEM_RO_IOC_INFO)));
	ck_assert_uint_eq(info.size, sizeof(info));
	ck_assert_uint_eq(info.reserved[0] | info.reserved[1], 0);
	close(fd);
}
END_TEST

START_TEST(page_and_pmd_size)
{
	struct kmem_ro_info info;
	unsigned long long hpage = 0;
	int fd = vt_open_dev();
	FILE *f;

	ck_assert_int_eq(vt_info(fd, &info, NULL, 0), 0);
	ck_assert_uint_eq(info.page_size, sysconf(_SC_PAGESIZE));
	f = fopen("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size", "re");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fscanf(f, "%llu", &hpage), 1);
	fclose(f);
	ck_assert_uint_eq(info.pmd_size, hpage);
	close(fd);
}
END_TEST

START_TEST(text_matches_kallsyms_and_kcore)
{
	uint64_t stext = vt_kallsyms("_stext"), etext = vt_kallsyms("_etext");
	uint64_t seg_vaddr, seg_paddr;
	struct kmem_ro_info info;
	int fd = vt_open_dev();

	ck_assert_int_eq(vt_info(fd, &info, NULL, 0), 0);
	ck_assert_msg(stext && etext, "kallsyms hides _stext/_etext");
	ck_assert_uint_eq(info.text_start, stext);
	ck_assert_uint_eq(info.text_end, (etext + info.page_size - 1) & ~(uint64_t)(info.page_size - 1));
	/* kcore's KCORE_TEXT segment starts at _text and names its phys address */
	ck_assert_int_eq(vt_kcore_segment(stext, &seg_vaddr, &seg_paddr), 0);
	ck_assert_uint_eq(seg_vaddr, info.text_start);
	ck_assert_uint_eq(seg_paddr, info.text_start - info.kernel_map + info.phys_base);
	close(fd);
}
END_TEST

START_TEST(bases_match_kernel_variables)
{
	struct kmem_ro_info info;
	int fd = vt_open_dev();

	ck_assert_int_eq(vt_info(fd, &info, NULL, 0), 0);
	ck_assert_uint_eq(info.page_offset, read_u64_kcore("page_offset_base"));
	ck_assert_uint_eq(info.phys_base, read_u64_kcore("phys_base"));
	ck_assert_uint_eq(info.vmalloc_start, read_u64_kcore("vmalloc_base"));
	close(fd);
}
END_TEST

START_TEST(ram_matches_iomem_and_kcore)
{
	static struct kmem_ro_range ram[RAM_CAP], iomem[RAM_CAP];
	uint64_t seg_vaddr, seg_paddr;
	struct kmem_ro_info info;
	int fd = vt_open_dev(), n, i;

	ck_assert_int_eq(vt_info(fd, &info, ram, RAM_CAP), 0);
	n = vt_iomem_ram(iomem, RAM_CAP);
	ck_assert_int_gt(n, 0);
	ck_assert_int_eq(info.ram_count, n);
	for (i = 0; i < n; i++) {
		ck_assert_uint_eq(ram[i].start, iomem[i].start);
		ck_assert_uint_eq(ram[i].end, iomem[i].end);
	}
	/* kcore maps each RAM page at page_offset + phys */
	for (i = 0; i < n; i++) {
		uint64_t page = (ram[i].start + info.page_size - 1) & ~(uint64_t)(info.page_size - 1);

		if (page >= ram[i].end)
			continue;
		ck_assert_int_eq(vt_kcore_segment(info.page_offset + page, &seg_vaddr, &seg_paddr), 0);
		ck_assert_uint_eq(seg_vaddr - seg_paddr, info.page_offset);
	}
	close(fd);
}
END_TEST

START_TEST(ram_short_buffer_reports_full_count)
{
	struct kmem_ro_range ram[2] = { { 0 }, { 0xa5a5, 0xa5a5 } };
	struct kmem_ro_info info;
	int fd = vt_open_dev();

	ck_assert_int_eq(vt_info(fd, &info, ram, 1), 0);
	ck_assert_int_eq(info.ram_count, vt_iomem_ram(NULL, 0));
	ck_assert_uint_ne(ram[0].end, 0);
	ck_assert_uint_eq(ram[1].start, 0xa5a5);	/* past ram_cap: untouched */
	close(fd);
}
END_TEST

START_TEST(vmalloc_matches_meminfo_and_vmallocinfo)
{
	struct kmem_ro_info info;
	unsigned long long start, end;
	int fd = vt_open_dev(), seen = 0;
	char line[512];
	FILE *f;

	ck_assert_int_eq(vt_info(fd, &info, NULL, 0), 0);
	/* %pK in vmallocinfo prints real addresses only with kptr_restrict=1 */
	vt_write_file("/proc/sys/kernel/kptr_restrict", "1");
	/* VmallocTotal is (VMALLOC_END - VMALLOC_START) >> 10, END inclusive */
	ck_assert_int_eq((info.vmalloc_end - 1 - info.vmalloc_start) >> 10,
			 vt_meminfo("VmallocTotal"));
	f = fopen("/proc/vmallocinfo", "re");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "0x%llx-0x%llx", &start, &end) != 2)
			continue;
		if (start >= info.modules_start && end <= info.modules_end)
			continue;	/* module_alloc() allocations are listed too */
		ck_assert_msg(start >= info.vmalloc_start && end <= info.vmalloc_end,
			      "vmallocinfo %s", line);
		seen++;
	}
	fclose(f);
	ck_assert_int_gt(seen, 0);
	close(fd);
}
END_TEST

START_TEST(modules_contain_kmem_ro)
{
	struct kmem_ro_info info;
	unsigned long long base = 0;
	char name[64], line[512];
	int fd = vt_open_dev();
	FILE *f;

	ck_assert_int_eq(vt_info(fd, &info, NULL, 0), 0);
	f = fopen("/proc/modules", "re");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %*s %*s %*s %*s 0x%llx", name, &base) == 2 &&
		    !strcmp(name, "kmem_ro"))
			break;
	fclose(f);
	ck_assert_uint_ne(base, 0);
	ck_assert_uint_ge(base, info.modules_start);
	ck_assert_uint_lt(base, info.modules_end);
	ck_assert_uint_le(info.modules_end, 0xffffffffff000000ULL);
	close(fd);
}
END_TEST

/* ---- bad inputs: each gets its own errno ---- */

START_TEST(unknown_ioctl_is_enotty)
{
	struct kmem_ro_info info = { .size = sizeof(info) };
	int fd = vt_open_dev();

	ck_assert_int_eq(vt_ioctl(fd, _IOWR(KMEM_RO_IOC_MAGIC, 0x3f, struct kmem_ro_info), &info), -ENOTTY);
	ck_assert_int_eq(vt_ioctl(fd, _IOWR('x', 0x00, struct kmem_ro_info), &info), -ENOTTY);
	ck_assert_int_eq(vt_ioctl(fd, _IOR(KMEM_RO_IOC_MAGIC, 0x00, struct kmem_ro_info), &info), -ENOTTY);
	close(fd);
}
END_TEST

static const uint64_t too_small[] = { 0, 8, 16, KMEM_RO_INFO_SIZE_VER0 - 8, KMEM_RO_INFO_SIZE_VER0 - 1 };

START_TEST(size_below_ver0_is_einval)
{
	struct kmem_ro_info info = { .size = too_small[_i] };
	int fd = vt_open_dev();

	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_INFO, &info), -EINVAL);
	close(fd);
}
END_TEST

START_TEST(size_above_page_is_e2big)
{
	static char big[2 * 4096] __attribute__((aligned(8)));
	int fd = vt_open_dev();

	*(uint64_t *)big = 4096 + 8;
	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_INFO, big), -E2BIG);
	close(fd);
}
END_TEST

START_TEST(larger_struct_tail_rules)
{
	struct { struct kmem_ro_info info; uint64_t tail[4]; } ext;
	int fd = vt_open_dev();

	memset(&ext, 0, sizeof(ext));
	ext.info.size = sizeof(ext);
	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_INFO, &ext), 0);	/* zero tail: accepted */
	ck_assert_uint_eq(ext.info.abi_version, KMEM_RO_ABI_VERSION);
	ck_assert_uint_eq(ext.tail[0] | ext.tail[3], 0);		/* not written past ours */
	ext.tail[3] = 1;
	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_INFO, &ext), -E2BIG);
	close(fd);
}
END_TEST

START_TEST(nonzero_flags_is_einval)
{
	struct kmem_ro_info info = { .size = sizeof(info), .flags = 1ULL << _i };
	int fd = vt_open_dev();

	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_INFO, &info), -EINVAL);
	close(fd);
}
END_TEST

START_TEST(nonzero_reserved_is_einval)
{
	struct kmem_ro_info info = { .size = sizeof(info) };
	int fd = vt_open_dev();

	info.reserved[_i] = 1;
	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_INFO, &info), -EINVAL);
	close(fd);
}
END_TEST

START_TEST(ram_addr_without_cap_is_einval)
{
	struct kmem_ro_range ram[4];
	struct kmem_ro_info info = { .size = sizeof(info), .ram_addr = (uintptr_t)ram };
	int fd = vt_open_dev();

	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_INFO, &info), -EINVAL);
	info.ram_addr = 0;
	info.ram_cap = 4;
	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_INFO, &info), -EINVAL);
	close(fd);
}
END_TEST

static void *map_page(int prot)
{
	void *p = mmap(NULL, sysconf(_SC_PAGESIZE), prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ck_assert_ptr_ne(p, MAP_FAILED);
	return p;
}

START_TEST(bad_pointers_are_efault)
{
	long page = sysconf(_SC_PAGESIZE);
	struct kmem_ro_info info = { .size = sizeof(info), .ram_cap = 4 };
	struct kmem_ro_info *ro_info = map_page(PROT_READ | PROT_WRITE);
	void *ro = map_page(PROT_READ), *gone = map_page(PROT_READ);
	int fd = vt_open_dev();

	munmap(gone, page);
	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_INFO, NULL), -EFAULT);
	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_INFO, gone), -EFAULT);
	/* readable but not writable: the copy back faults */
	ro_info->size = sizeof(*ro_info);
	ck_assert_int_eq(mprotect(ro_info, page, PROT_READ), 0);
	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_INFO, ro_info), -EFAULT);
	/* the RAM list aimed at read-only, unmapped and kernel memory */
	info.ram_addr = (uintptr_t)ro;
	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_INFO, &info), -EFAULT);
	info.ram_addr = (uintptr_t)gone;
	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_INFO, &info), -EFAULT);
	info.ram_addr = 0xffffffff81000000ULL;
	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_INFO, &info), -EFAULT);
	munmap(ro, page);
	munmap(ro_info, page);
	close(fd);
}
END_TEST

/* ---- libkmemdev and kmemctl over the real driver ---- */

START_TEST(library_info_matches_ioctl)
{
	static struct kmem_ro_range ram[RAM_CAP], lram[RAM_CAP];
	struct kmem_ro_info raw, lib;
	struct kmemdev *h;
	int fd = vt_open_dev();

	ck_assert_int_eq(kmemdev_open(&h, NULL), 0);
	ck_assert_int_eq(vt_info(fd, &raw, ram, RAM_CAP), 0);
	ck_assert_int_eq(kmemdev_info(h, &lib, lram, RAM_CAP), raw.ram_count);
	ck_assert_int_eq(memcmp(&raw, &lib, offsetof(struct kmem_ro_info, ram_addr)), 0);
	ck_assert_int_eq(memcmp(ram, lram, raw.ram_count * sizeof(ram[0])), 0);
	ck_assert_int_eq(kmemdev_info(h, &lib, NULL, 0), raw.ram_count);
	ck_assert_int_eq(kmemdev_info(h, &lib, lram, 0), -EINVAL);
	kmemdev_close(h);
	close(fd);
}
END_TEST

START_TEST(library_symbols_match_kallsyms)
{
	const char *name = NULL;
	struct kmem_ro_info info;
	uint64_t addr = 0, off = 1;
	struct kmemdev *h;

	ck_assert_int_eq(kmemdev_open(&h, NULL), 0);
	ck_assert_int_ge(kmemdev_info(h, &info, NULL, 0), 0);
	ck_assert_int_eq(kmemdev_symbol(h, "init_task", &addr), 0);
	ck_assert_uint_eq(addr, vt_kallsyms("init_task"));
	ck_assert_int_eq(kmemdev_symbol(h, "kmem_ro_info_ioctl", &addr), 0);	/* a module's */
	ck_assert_uint_ge(addr, info.modules_start);
	ck_assert_uint_lt(addr, info.modules_end);
	ck_assert_int_eq(kmemdev_symbolize(h, addr + 3, &name, &off), 0);
	ck_assert_str_eq(name, "kmem_ro_info_ioctl");
	ck_assert_uint_eq(off, 3);
	ck_assert_int_eq(kmemdev_symbol(h, "no_such_symbol_in_any_kernel", &addr), -ENOENT);
	kmemdev_close(h);
}
END_TEST

START_TEST(kmemctl_info_text_and_json)
{
	char *text[] = { "kmemctl", "info", NULL }, *json[] = { "kmemctl", "info", "--json", NULL };
	static char out[16384], err[4096];
	struct kmem_ro_info info;
	char want[64];
	int fd = vt_open_dev();

	ck_assert_int_eq(vt_info(fd, &info, NULL, 0), 0);
	snprintf(want, sizeof(want), "0x%016llx", (unsigned long long)info.text_start);
	ck_assert_int_eq(vt_exec(0, 0, text, out, sizeof(out), err, sizeof(err)), 0);
	ck_assert_str_eq(err, "");
	ck_assert_ptr_nonnull(strstr(out, want));
	ck_assert_ptr_nonnull(strstr(out, "System RAM"));
	ck_assert_int_eq(vt_exec(0, 0, json, out, sizeof(out), err, sizeof(err)), 0);
	ck_assert_str_eq(err, "");
	ck_assert_int_eq(out[0], '{');
	ck_assert_int_eq(vt_json_num(out, "abi_version"), KMEM_RO_ABI_VERSION);
	ck_assert_ptr_nonnull(strstr(out, want));
	close(fd);
}
END_TEST

START_TEST(kmemctl_missing_device_is_one_line)
{
	char *argv[] = { "kmemctl", "--device", "/dev/kmem_ro_absent", "info", NULL };
	static char out[4096], err[4096];

	ck_assert_int_eq(vt_exec(0, 0, argv, out, sizeof(out), err, sizeof(err)), 1);
	ck_assert_str_eq(out, "");
	ck_assert_int_eq(vt_count_lines(err), 1);
	ck_assert_ptr_nonnull(strstr(err, "module loaded"));
}
END_TEST

static Suite *info_suite(void)
{
	Suite *s = suite_create("info");
	TCase *tc = tcase_create("fields");

	tcase_add_test(tc, abi_handshake);
	tcase_add_test(tc, page_and_pmd_size);
	tcase_add_test(tc, text_matches_kallsyms_and_kcore);
	tcase_add_test(tc, bases_match_kernel_variables);
	tcase_add_test(tc, ram_matches_iomem_and_kcore);
	tcase_add_test(tc, ram_short_buffer_reports_full_count);
	tcase_add_test(tc, vmalloc_matches_meminfo_and_vmallocinfo);
	tcase_add_test(tc, modules_contain_kmem_ro);
	suite_add_tcase(s, tc);

	tc = tcase_create("bad_input");
	tcase_add_test(tc, unknown_ioctl_is_enotty);
	tcase_add_loop_test(tc, size_below_ver0_is_einval, 0, sizeof(too_small) / sizeof(too_small[0]));
	tcase_add_test(tc, size_above_page_is_e2big);
	tcase_add_test(tc, larger_struct_tail_rules);
	tcase_add_loop_test(tc, nonzero_flags_is_einval, 0, 64);
	tcase_add_loop_test(tc, nonzero_reserved_is_einval, 0, 2);
	tcase_add_test(tc, ram_addr_without_cap_is_einval);
	tcase_add_test(tc, bad_pointers_are_efault);
	suite_add_tcase(s, tc);

	tc = tcase_create("library");
	tcase_add_test(tc, library_info_matches_ioctl);
	tcase_add_test(tc, library_symbols_match_kallsyms);
	tcase_add_test(tc, kmemctl_info_text_and_json);
	tcase_add_test(tc, kmemctl_missing_device_is_one_line);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return vt_main(info_suite());
}
