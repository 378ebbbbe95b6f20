// SPDX-License-Identifier: GPL-2.0
/*
 * KMEM_RO_IOC_INFO: every field against an independent source in the guest,
 * then every bad input against its documented errno, and the argument rules
 * every ioctl shares, one change at a time on an argument it accepts.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/utsname.h>
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

/*
 * Every cap gets the whole count and exactly min(count, cap) entries, in
 * /proc/iomem's order; nothing past them is written.  The largest cap
 * (2^32-1) runs over a buffer of exactly ram_count entries that ends at an
 * unmapped page: a write past the count would fault.
 */
START_TEST(ram_exact_for_every_cap)
{
	static struct kmem_ro_range iomem[RAM_CAP], ram[RAM_CAP + 2];
	long page = sysconf(_SC_PAGESIZE);
	struct kmem_ro_range *tight;
	struct kmem_ro_info info;
	int fd = vt_open_dev(), n = vt_iomem_ram(iomem, RAM_CAP);
	char *two;

	ck_assert_int_gt(n, 0);
	ck_assert_int_le(n, RAM_CAP);
	for (unsigned int cap = 1; cap <= (unsigned int)n + 2; cap++) {
		memset(ram, 0xa5, sizeof(ram));
		ck_assert_int_eq(vt_info(fd, &info, ram, cap), 0);
		ck_assert_int_eq(info.ram_count, n);
		for (unsigned int i = 0; i < RAM_CAP + 2; i++) {
			if (i < cap && i < (unsigned int)n) {
				ck_assert_uint_eq(ram[i].start, iomem[i].start);
				ck_assert_uint_eq(ram[i].end, iomem[i].end);
			} else {
				ck_assert_uint_eq(ram[i].start, 0xa5a5a5a5a5a5a5a5ULL);
				ck_assert_uint_eq(ram[i].end, 0xa5a5a5a5a5a5a5a5ULL);
			}
		}
	}
	two = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(two, MAP_FAILED);
	ck_assert_int_eq(munmap(two + page, page), 0);
	tight = (struct kmem_ro_range *)(two + page) - n;
	ck_assert_int_eq(vt_info(fd, &info, tight, UINT32_MAX), 0);
	ck_assert_int_eq(info.ram_count, n);
	ck_assert_int_eq(memcmp(tight, iomem, n * sizeof(*tight)), 0);
	munmap(two, page);
	close(fd);
}
END_TEST

/* The output fields are written, never read: garbage there changes nothing. */
START_TEST(output_fields_ignored)
{
	static struct kmem_ro_range ram[RAM_CAP], ram2[RAM_CAP];
	struct kmem_ro_info clean, junk;
	int fd = vt_open_dev();

	ck_assert_int_eq(vt_info(fd, &clean, ram, RAM_CAP), 0);
	memset(&junk, 0x5a, sizeof(junk));
	junk.size = sizeof(junk);
	junk.flags = 0;
	junk.ram_addr = (uintptr_t)ram2;
	junk.ram_cap = RAM_CAP;
	junk.reserved[0] = junk.reserved[1] = 0;
	junk.reserved2 = 0;
	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_INFO, &junk), 0);
	ck_assert_int_eq(memcmp(&clean, &junk, offsetof(struct kmem_ro_info, ram_addr)), 0);
	ck_assert_uint_eq(junk.vmcoreinfo_addr, clean.vmcoreinfo_addr);
	ck_assert_uint_eq(junk.vmcoreinfo_size, clean.vmcoreinfo_size);
	ck_assert_uint_eq(junk.ram_count, clean.ram_count);
	ck_assert_int_eq(memcmp(ram, ram2, clean.ram_count * sizeof(ram[0])), 0);
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

START_TEST(nonzero_reserved2_is_einval)
{
	struct kmem_ro_info info = { .size = sizeof(info) };
	int fd = vt_open_dev();

	info.reserved2 = 1;
	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_INFO, &info), -EINVAL);
	close(fd);
}
END_TEST

/*
 * vmcoreinfo_addr/_size: the note paddr_vmcoreinfo_note() names, read at
 * page_offset + addr: an ELF note "VMCOREINFO" whose OSRELEASE is uname's.
 */
START_TEST(vmcoreinfo_note_is_the_kernels)
{
	struct kmem_ro_info info;
	struct kmem_ro_iov iov;
	struct utsname uts;
	uint32_t nh[3];
	char *note, *rel, want[128];
	int fd = vt_open_dev();

	ck_assert_int_eq(vt_info(fd, &info, NULL, 0), 0);
	ck_assert(info.features & KMEM_RO_FEAT_VMCOREINFO);
	ck_assert_uint_ne(info.vmcoreinfo_addr, 0);
	ck_assert_uint_ge(info.vmcoreinfo_size, 64);
	ck_assert_uint_eq(info.reserved2, 0);
	note = calloc(1, info.vmcoreinfo_size + 1);
	ck_assert_ptr_nonnull(note);
	iov = (struct kmem_ro_iov){
		.addr = info.page_offset + info.vmcoreinfo_addr,
		.len = info.vmcoreinfo_size,
		.buf = (uintptr_t)note,
	};
	struct kmem_ro_readv rv = {
		.size = sizeof(rv), .iov_addr = (uintptr_t)&iov, .iov_count = 1,
	};
	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_READV, &rv), 0);
	ck_assert_int_eq(iov.result, info.vmcoreinfo_size);
	memcpy(nh, note, sizeof(nh));
	ck_assert_uint_eq(nh[0], sizeof("VMCOREINFO"));
	ck_assert_str_eq(note + sizeof(nh), "VMCOREINFO");
	ck_assert_uint_le(nh[1], info.vmcoreinfo_size - sizeof(nh) - 12);
	ck_assert_int_eq(uname(&uts), 0);
	snprintf(want, sizeof(want), "OSRELEASE=%s\n", uts.release);
	rel = strstr(note + sizeof(nh) + 12, want);
	ck_assert_msg(rel, "no \"%s\" in the note", want);
	/* It is the first line: VMCOREINFO_OSRELEASE() comes first. */
	ck_assert_ptr_eq(rel, note + sizeof(nh) + 12);
	free(note);
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
	/* and at a kmem_ro mapping (read-only: the copy out faults) */
	{
		struct kmem_ro_info layout;
		void *km;

		ck_assert_int_eq(vt_info(fd, &layout, NULL, 0), 0);
		km = vt_map_phys(fd, layout.text_start - layout.kernel_map + layout.phys_base, page);
		ck_assert_ptr_ne(km, MAP_FAILED);
		info.ram_addr = (uintptr_t)km;
		ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_INFO, &info), -EFAULT);
		munmap(km, page);
	}
	munmap(ro, page);
	munmap(ro_info, page);
	close(fd);
}
END_TEST

/*
 * ---- the rules every ioctl shares (README, "Every ioctl") ----
 *
 * Each ioctl gets an argument it accepts (or refuses with a known errno),
 * then one change at a time: the errno is the one of that change alone.
 */

#define ARG_PAGE	4096

struct ioc {
	const char *name;
	unsigned long cmd;
	size_t size, ver0;
	uint64_t flags_ok;	/* flag bits this ioctl knows */
	size_t rsv32;		/* offset of a __u32 reserved0, or 0 */
	size_t rsv64;		/* offset of __u64 reserved[2] */
	int base_err;		/* what the base argument gets */
};

#define IOC(n, c, st, v0, fl, r32, err) \
	{ n, c, sizeof(struct st), v0, fl, r32, offsetof(struct st, reserved), err }

static const struct ioc iocs[] = {
	IOC("INFO", KMEM_RO_IOC_INFO, kmem_ro_info, KMEM_RO_INFO_SIZE_VER0, 0, 0, 0),
	IOC("READV", KMEM_RO_IOC_READV, kmem_ro_readv, KMEM_RO_READV_SIZE_VER0, 0, 0, 0),
	IOC("WALK", KMEM_RO_IOC_WALK, kmem_ro_walk, KMEM_RO_WALK_SIZE_VER0,
	    KMEM_RO_WALK_NODE_ADDR, offsetof(struct kmem_ro_walk, reserved0), 0),
	IOC("PAGEMAP", KMEM_RO_IOC_PAGEMAP, kmem_ro_pagemap, KMEM_RO_PAGEMAP_SIZE_VER0,
	    KMEM_RO_PAGEMAP_RUNS, offsetof(struct kmem_ro_pagemap, reserved0), 0),
	IOC("PROBE_ADD", KMEM_RO_IOC_PROBE_ADD, kmem_ro_probe_add, KMEM_RO_PROBE_ADD_SIZE_VER0,
	    0, 0, 0),
	IOC("PROBE_ENABLE", KMEM_RO_IOC_PROBE_ENABLE, kmem_ro_probe_ids, KMEM_RO_PROBE_IDS_SIZE_VER0,
	    KMEM_RO_PROBE_ALL, offsetof(struct kmem_ro_probe_ids, reserved0), 0),
	IOC("PROBE_DISABLE", KMEM_RO_IOC_PROBE_DISABLE, kmem_ro_probe_ids, KMEM_RO_PROBE_IDS_SIZE_VER0,
	    KMEM_RO_PROBE_ALL, offsetof(struct kmem_ro_probe_ids, reserved0), 0),
	IOC("PROBE_DEL", KMEM_RO_IOC_PROBE_DEL, kmem_ro_probe_ids, KMEM_RO_PROBE_IDS_SIZE_VER0,
	    KMEM_RO_PROBE_ALL, offsetof(struct kmem_ro_probe_ids, reserved0), 0),
	IOC("PROBE_STATS", KMEM_RO_IOC_PROBE_STATS, kmem_ro_probe_ids, KMEM_RO_PROBE_IDS_SIZE_VER0,
	    KMEM_RO_PROBE_ALL | KMEM_RO_PROBE_RESET, offsetof(struct kmem_ro_probe_ids, reserved0), 0),
	IOC("PROBE_LIST", KMEM_RO_IOC_PROBE_LIST, kmem_ro_probe_list, KMEM_RO_PROBE_LIST_SIZE_VER0,
	    KMEM_RO_PROBE_LIST_ALL_FILES, 0, 0),
	/* flags 0: clears a filter the file never had */
	IOC("PROBE_FILTER", KMEM_RO_IOC_PROBE_FILTER, kmem_ro_probe_filter,
	    KMEM_RO_PROBE_FILTER_SIZE_VER0, KMEM_RO_PROBE_FILTER_PID | KMEM_RO_PROBE_FILTER_COMM,
	    offsetof(struct kmem_ro_probe_filter, reserved0), 0),
	/* STOP on a file without snapshots: the base is refused */
	IOC("EVENTS_SNAPSHOT", KMEM_RO_IOC_EVENTS_SNAPSHOT, kmem_ro_events_snapshot,
	    KMEM_RO_EVENTS_SNAPSHOT_SIZE_VER0, KMEM_RO_EVENTS_SNAPSHOT_STOP,
	    offsetof(struct kmem_ro_events_snapshot, reserved0), -ENOENT),
};

/* What the base arguments point at. */
static struct kmem_ro_field walk_field;
static unsigned char walk_buf[4096];
static uint64_t pm_page[ARG_PAGE / 8] __attribute__((aligned(ARG_PAGE))), pm_entry, counts[1];
static struct kmem_ro_probe_spec null_spec = { .name = "null" };

/* The base argument of @c, written at @arg: @c->size bytes. */
static void base_arg(const struct ioc *c, void *arg)
{
	memset(arg, 0, c->size);
	*(uint64_t *)arg = c->size;
	switch (c->cmd) {
	case KMEM_RO_IOC_WALK: {
		struct kmem_ro_walk *w = arg;

		walk_field = (struct kmem_ro_field){ vt_testobj("id_offset"), 4 };
		w->head = vt_testobj("good_head");
		w->link_offset = vt_testobj("link_offset");
		w->fields_addr = (uintptr_t)&walk_field;
		w->fields_count = 1;
		w->buf_addr = (uintptr_t)walk_buf;
		w->buf_size = sizeof(walk_buf);
		break;
	}
	case KMEM_RO_IOC_PAGEMAP: {
		struct kmem_ro_pagemap *pm = arg;

		pm_page[0] = 1;
		pm->start = (uintptr_t)pm_page;
		pm->end = pm->start + ARG_PAGE;
		pm->buf_addr = (uintptr_t)&pm_entry;
		pm->buf_size = sizeof(pm_entry);
		break;
	}
	case KMEM_RO_IOC_PROBE_ADD: {
		struct kmem_ro_probe_add *a = arg;

		a->specs_addr = (uintptr_t)&null_spec;	/* address 0: -ENOENT, call 0 */
		a->count = 1;
		break;
	}
	case KMEM_RO_IOC_PROBE_ENABLE:
	case KMEM_RO_IOC_PROBE_DISABLE:
	case KMEM_RO_IOC_PROBE_DEL:
	case KMEM_RO_IOC_PROBE_STATS: {
		struct kmem_ro_probe_ids *ids = arg;

		ids->flags = KMEM_RO_PROBE_ALL;
		if (c->cmd == KMEM_RO_IOC_PROBE_STATS) {
			ids->counts_addr = (uintptr_t)counts;
			ids->counts_cap = 1;
		}
		break;
	}
	case KMEM_RO_IOC_EVENTS_SNAPSHOT:
		((struct kmem_ro_events_snapshot *)arg)->flags = KMEM_RO_EVENTS_SNAPSHOT_STOP;
		break;
	}
}

/* The ioctl on a fresh fd (no probes, no snapshots): 0 or -errno. */
static int call(const struct ioc *c, void *arg)
{
	int fd = vt_open_dev(), err = vt_ioctl(fd, c->cmd, arg);

	close(fd);
	return err;
}

/* Two pages, the second unmapped: returns the first. */
static char *page_then_hole(void)
{
	char *p = mmap(NULL, 2 * ARG_PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ck_assert_ptr_ne(p, MAP_FAILED);
	ck_assert_int_eq(munmap(p + ARG_PAGE, ARG_PAGE), 0);
	return p;
}

#define EXPECT(err, what, expr) \
	ck_assert_msg((got = (expr)) == (err), "%s: %s: got %d, want %d", c->name, what, got, err)

START_TEST(every_ioctl_size_rules)
{
	static const uint64_t small[] = { 0, 8, 16 }, big[] = { ARG_PAGE + 1, 1ULL << 32, UINT64_MAX };
	const struct ioc *c = &iocs[_i];
	static unsigned char arg[2 * ARG_PAGE] __attribute__((aligned(8)));
	char *p = page_then_hole();
	int got;

	EXPECT(c->base_err, "base", (base_arg(c, arg), call(c, arg)));
	for (unsigned int i = 0; i < 3; i++) {
		base_arg(c, arg);
		*(uint64_t *)arg = small[i];
		EXPECT(-EINVAL, "size below VER0", call(c, arg));
		*(uint64_t *)arg = big[i];
		EXPECT(-E2BIG, "size above PAGE_SIZE", call(c, arg));
	}
	base_arg(c, arg);
	*(uint64_t *)arg = c->ver0 - 1;
	EXPECT(-EINVAL, "size VER0-1", call(c, arg));

	/* larger than known: a zero tail is accepted, anything else E2BIG */
	memset(arg, 0, sizeof(arg));
	base_arg(c, arg);
	*(uint64_t *)arg = ARG_PAGE;
	EXPECT(c->base_err, "zero tail up to PAGE_SIZE", call(c, arg));
	arg[ARG_PAGE - 1] = 1;
	EXPECT(-E2BIG, "non-zero byte in the tail", call(c, arg));
	arg[ARG_PAGE - 1] = 0;
	arg[c->size] = 1;
	EXPECT(-E2BIG, "non-zero first tail byte", call(c, arg));
	arg[c->size] = 0;
	/* the struct ends at the hole; its claimed tail is in it */
	base_arg(c, p + ARG_PAGE - c->size);
	*(uint64_t *)(p + ARG_PAGE - c->size) = c->size + 8;
	EXPECT(-EFAULT, "tail in an unmapped page", call(c, p + ARG_PAGE - c->size));
	munmap(p, ARG_PAGE);
}
END_TEST

START_TEST(every_ioctl_pointer_rules)
{
	static unsigned char good[ARG_PAGE] __attribute__((aligned(8)));
	const struct ioc *c = &iocs[_i];
	char *p = page_then_hole(), *ro = page_then_hole();
	struct kmem_ro_info info;
	uint64_t text_word;
	char *km, *mine, *view;
	int fd = vt_open_dev(), got;

	ck_assert_int_eq(vt_info(fd, &info, NULL, 0), 0);
	EXPECT(-EFAULT, "NULL", call(c, NULL));
	EXPECT(-EFAULT, "unmapped", call(c, p + ARG_PAGE));
	EXPECT(-EFAULT, "kernel address", call(c, (void *)(uintptr_t)info.text_start));
	EXPECT(-EFAULT, "non-canonical", call(c, (void *)0x8000000000000000ULL));
	/* size and flags readable, the rest in the hole */
	base_arg(c, good);
	memcpy(p + ARG_PAGE - 16, good, 16);
	EXPECT(-EFAULT, "running into an unmapped page", call(c, p + ARG_PAGE - 16));

	/* read-only: copied in, and the call acts; the copy back faults */
	base_arg(c, ro);
	ck_assert_int_eq(mprotect(ro, ARG_PAGE, PROT_READ), 0);
	EXPECT(c->base_err ? c->base_err : -EFAULT, "read-only", call(c, ro));

	/* kernel text through a kmem_ro mapping: its first word is the size */
	km = vt_map_phys(fd, info.text_start - info.kernel_map + info.phys_base, ARG_PAGE);
	ck_assert_ptr_ne(km, MAP_FAILED);
	memcpy(&text_word, km, sizeof(text_word));
	ck_assert_uint_gt(text_word, ARG_PAGE);
	EXPECT(-E2BIG, "kernel text in a kmem_ro mapping", call(c, km));

	/* a good argument seen through a kmem_ro mapping of our own page */
	mine = mmap(NULL, ARG_PAGE, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE | MAP_LOCKED, -1, 0);
	ck_assert_ptr_ne(mine, MAP_FAILED);
	base_arg(c, mine);
	vt_mmap_ram_on();
	view = vt_map_phys(fd, vt_pagemap_pfn(mine) * ARG_PAGE, ARG_PAGE);
	ck_assert_ptr_ne(view, MAP_FAILED);
	ck_assert_int_eq(memcmp(view, mine, c->size), 0);
	EXPECT(c->base_err ? c->base_err : -EFAULT, "good argument in a kmem_ro mapping",
	       call(c, view));
	/* mmap_ram=0 revokes the mapping: the refused page, never our bytes */
	vt_mmap_ram_off();
	ck_assert_uint_eq(*(volatile uint64_t *)view, info.mmap_refused);

	munmap(view, ARG_PAGE);
	munmap(mine, ARG_PAGE);
	munmap(km, ARG_PAGE);
	munmap(ro, ARG_PAGE);
	munmap(p, ARG_PAGE);
	close(fd);
}
END_TEST

START_TEST(every_ioctl_flags_and_reserved)
{
	const struct ioc *c = &iocs[_i];
	static unsigned char arg[ARG_PAGE] __attribute__((aligned(8)));
	char what[64];
	int got;

	for (int bit = 0; bit < 64; bit++) {
		if (c->flags_ok & (1ULL << bit))
			continue;
		base_arg(c, arg);
		((uint64_t *)arg)[1] |= 1ULL << bit;
		snprintf(what, sizeof(what), "flag bit %d", bit);
		EXPECT(-EINVAL, what, call(c, arg));
	}
	for (int i = 0; i < 2; i++) {
		base_arg(c, arg);
		*(uint64_t *)(arg + c->rsv64 + 8 * i) = 1ULL << (i * 63);
		snprintf(what, sizeof(what), "reserved[%d]", i);
		EXPECT(-EINVAL, what, call(c, arg));
	}
	if (c->rsv32) {
		base_arg(c, arg);
		*(uint32_t *)(arg + c->rsv32) = 1;
		EXPECT(-EINVAL, "reserved0", call(c, arg));
	}
}
END_TEST

static bool known_nr(unsigned int nr)
{
	for (size_t i = 0; i < sizeof(iocs) / sizeof(iocs[0]); i++)
		if (_IOC_NR(iocs[i].cmd) == nr)
			return true;
	return false;
}

/* @cmd on a fresh fd: 0 or -errno. */
static int call_cmd(unsigned long cmd, void *arg)
{
	int fd = vt_open_dev(), err = vt_ioctl(fd, cmd, arg);

	close(fd);
	return err;
}

START_TEST(every_ioctl_number_rules)
{
	static unsigned char arg[2 * ARG_PAGE] __attribute__((aligned(8)));
	const struct ioc *c = &iocs[_i];
	unsigned int nr = _IOC_NR(c->cmd);
	const struct { const char *what; unsigned long cmd; int err; } other[] = {
		{ "no direction", _IOC(_IOC_NONE, KMEM_RO_IOC_MAGIC, nr, c->size), -ENOTTY },
		{ "read only", _IOC(_IOC_READ, KMEM_RO_IOC_MAGIC, nr, c->size), -ENOTTY },
		{ "write only", _IOC(_IOC_WRITE, KMEM_RO_IOC_MAGIC, nr, c->size), -ENOTTY },
		{ "magic 'x'", _IOC(_IOC_READ | _IOC_WRITE, 'x', nr, c->size), -ENOTTY },
		{ "old magic 0xB7", _IOC(_IOC_READ | _IOC_WRITE, 0xB7, nr, c->size), -ENOTTY },
		/* the encoded size: at least VER0, else not this command */
		{ "size below VER0", _IOC(_IOC_READ | _IOC_WRITE, KMEM_RO_IOC_MAGIC, nr, c->ver0 - 8),
		  -ENOTTY },
		{ "size 0", _IOC(_IOC_READ | _IOC_WRITE, KMEM_RO_IOC_MAGIC, nr, 0), -ENOTTY },
		{ "size VER0", _IOC(_IOC_READ | _IOC_WRITE, KMEM_RO_IOC_MAGIC, nr, c->ver0),
		  c->base_err },
		{ "a newer header's size", _IOC(_IOC_READ | _IOC_WRITE, KMEM_RO_IOC_MAGIC, nr,
						c->size + 8), c->base_err },
		{ "the largest size", _IOC(_IOC_READ | _IOC_WRITE, KMEM_RO_IOC_MAGIC, nr, _IOC_SIZEMASK),
		  c->base_err },
	};
	int got;

	for (size_t i = 0; i < sizeof(other) / sizeof(other[0]); i++) {
		base_arg(c, arg);
		EXPECT(other[i].err, other[i].what, call_cmd(other[i].cmd, arg));
	}
}
END_TEST

START_TEST(unknown_numbers_are_enotty)
{
	static unsigned char arg[ARG_PAGE] __attribute__((aligned(8)));
	int fd = vt_open_dev();

	*(uint64_t *)arg = 64;
	for (unsigned int nr = 0; nr < 0x40; nr++) {
		if (known_nr(nr))
			continue;
		ck_assert_msg(vt_ioctl(fd, _IOWR(KMEM_RO_IOC_MAGIC, nr, uint64_t[8]), arg) == -ENOTTY,
			      "nr %#x", nr);
		ck_assert_msg(vt_ioctl(fd, _IO(KMEM_RO_IOC_MAGIC, nr), arg) == -ENOTTY, "nr %#x", nr);
	}
	ck_assert_int_eq(vt_ioctl(fd, TCGETS, arg), -ENOTTY);
	ck_assert_int_eq(vt_ioctl(fd, FIONREAD, arg), -ENOTTY);
	close(fd);
}
END_TEST

/* INFO's mask names exactly the ioctls above: the ones that answer. */
START_TEST(ioctls_mask_is_every_ioctl)
{
	struct kmem_ro_info info;
	uint64_t want = 0;
	int fd = vt_open_dev();

	for (size_t i = 0; i < sizeof(iocs) / sizeof(iocs[0]); i++)
		want |= 1ULL << _IOC_NR(iocs[i].cmd);
	ck_assert_int_eq(vt_info(fd, &info, NULL, 0), 0);
	ck_assert_msg(info.ioctls == want, "ioctls %#llx, want %#llx",
		      (unsigned long long)info.ioctls, (unsigned long long)want);
	close(fd);
}
END_TEST

#undef EXPECT

/* ---- libkmemdev and kmemctl over the real driver ---- */

START_TEST(library_info_matches_ioctl)
{
	static struct kmem_ro_range ram[RAM_CAP], lram[RAM_CAP];
	KMEMDEV_ARG(kmem_ro_info, lib);
	struct kmem_ro_info raw;
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

START_TEST(library_info_alloc_is_exact)
{
	static struct kmem_ro_range iomem[RAM_CAP];
	struct kmem_ro_range *ram = NULL;
	KMEMDEV_ARG(kmem_ro_info, info);
	unsigned int nr = 0;
	struct kmemdev *h;
	int n = vt_iomem_ram(iomem, RAM_CAP);

	ck_assert_int_eq(kmemdev_open(&h, NULL), 0);
	ck_assert_int_eq(kmemdev_info_alloc(h, &info, &ram, &nr), 0);
	ck_assert_int_eq(nr, n);
	ck_assert_uint_eq(info.ram_count, nr);
	ck_assert_int_eq(memcmp(ram, iomem, nr * sizeof(*ram)), 0);
	free(ram);
	kmemdev_close(h);
}
END_TEST

START_TEST(library_symbols_match_kallsyms)
{
	const struct kmemdev_sym *sym = NULL;
	KMEMDEV_ARG(kmem_ro_info, info);
	uint64_t addr = 0, off = 1;
	struct kmemdev *h;

	ck_assert_int_eq(kmemdev_open(&h, NULL), 0);
	ck_assert_int_ge(kmemdev_info(h, &info, NULL, 0), 0);
	ck_assert_int_eq(kmemdev_symbol(h, "init_task", &addr), 0);
	ck_assert_uint_eq(addr, vt_kallsyms("init_task"));
	ck_assert_int_eq(kmemdev_symbol(h, "kmem_ro_info_ioctl", &addr), 0);	/* a module's */
	ck_assert_uint_ge(addr, info.modules_start);
	ck_assert_uint_lt(addr, info.modules_end);
	ck_assert_int_eq(kmemdev_symbolize(h, addr + 3, &sym, &off), 0);
	ck_assert_str_eq(sym->name, "kmem_ro_info_ioctl");
	ck_assert_str_eq(sym->module, "kmem_ro");
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
	char want[128];
	int fd = vt_open_dev();

	ck_assert_int_eq(vt_info(fd, &info, NULL, 0), 0);
	snprintf(want, sizeof(want), "0x%016llx", (unsigned long long)info.text_start);
	ck_assert_int_eq(vt_exec(0, 0, text, out, sizeof(out), err, sizeof(err)), 0);
	ck_assert_str_eq(err, "");
	ck_assert_ptr_nonnull(strstr(out, want));
	ck_assert_ptr_nonnull(strstr(out, "System RAM"));
	ck_assert_ptr_nonnull(strstr(out, "ioctl magic:  0xBE\n"));
	snprintf(want, sizeof(want), "vmcoreinfo:   0x%016llx (physical, %u bytes)\n",
		 (unsigned long long)info.vmcoreinfo_addr, info.vmcoreinfo_size);
	ck_assert_msg(strstr(out, want), "%s", out);
	snprintf(want, sizeof(want), "0x%016llx", (unsigned long long)info.text_start);
	ck_assert_int_eq(vt_exec(0, 0, json, out, sizeof(out), err, sizeof(err)), 0);
	ck_assert_str_eq(err, "");
	ck_assert_int_eq(out[0], '{');
	ck_assert_int_eq(vt_json_num(out, "abi_version"), KMEM_RO_ABI_VERSION);
	ck_assert_ptr_nonnull(strstr(out, "\"ioctl_magic\":\"0xbe\""));
	ck_assert_int_eq(vt_json_num(out, "vmcoreinfo_size"), info.vmcoreinfo_size);
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
	tcase_add_test(tc, ram_exact_for_every_cap);
	tcase_add_test(tc, output_fields_ignored);
	tcase_add_test(tc, vmalloc_matches_meminfo_and_vmallocinfo);
	tcase_add_test(tc, modules_contain_kmem_ro);
	tcase_add_test(tc, vmcoreinfo_note_is_the_kernels);
	suite_add_tcase(s, tc);

	tc = tcase_create("bad_input");
	tcase_add_test(tc, unknown_ioctl_is_enotty);
	tcase_add_loop_test(tc, size_below_ver0_is_einval, 0, sizeof(too_small) / sizeof(too_small[0]));
	tcase_add_test(tc, size_above_page_is_e2big);
	tcase_add_test(tc, larger_struct_tail_rules);
	tcase_add_loop_test(tc, nonzero_flags_is_einval, 0, 64);
	tcase_add_loop_test(tc, nonzero_reserved_is_einval, 0, 2);
	tcase_add_test(tc, nonzero_reserved2_is_einval);
	tcase_add_test(tc, ram_addr_without_cap_is_einval);
	tcase_add_test(tc, bad_pointers_are_efault);
	suite_add_tcase(s, tc);

	tc = tcase_create("every_ioctl");
	tcase_add_loop_test(tc, every_ioctl_size_rules, 0, sizeof(iocs) / sizeof(iocs[0]));
	tcase_add_loop_test(tc, every_ioctl_pointer_rules, 0, sizeof(iocs) / sizeof(iocs[0]));
	tcase_add_loop_test(tc, every_ioctl_flags_and_reserved, 0, sizeof(iocs) / sizeof(iocs[0]));
	tcase_add_loop_test(tc, every_ioctl_number_rules, 0, sizeof(iocs) / sizeof(iocs[0]));
	tcase_add_test(tc, unknown_numbers_are_enotty);
	tcase_add_test(tc, ioctls_mask_is_every_ioctl);
	suite_add_tcase(s, tc);

	tc = tcase_create("library");
	tcase_add_test(tc, library_info_matches_ioctl);
	tcase_add_test(tc, library_info_alloc_is_exact);
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
