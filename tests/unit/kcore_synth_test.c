// SPDX-License-Identifier: GPL-2.0
/*
 * kcore_synth.c on a fake kernel: a VMCOREINFO note and kallsyms tables
 * (the token table, "big" names, _end followed by .init.scratch's
 * symbols, as on x86-64) in a buffer read through the callback.  The
 * layout must be fs/proc/kcore.c's (segments, offsets masked to the
 * virtual address bits, file size, the vmemmap cut) and the header an ELF
 * core with kcore's notes; bad notes, missing tables and unreadable
 * memory are refused.  The real kcore is compared in the VM suite
 * (kcore_preload_test).
 */
#include <check.h>
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kcore_synth.h"

#define PAGE_OFFSET	0xff11000000000000ULL
#define KERNEL_MAP	0xffffffff80000000ULL
#define PHYS_BASE	0x1a000000ULL
#define TEXT		0xffffffff81000000ULL
#define END		(TEXT + 0x2c30000)
#define SCRATCH_END	(TEXT + 0x3200000)
#define VMEMMAP		0xffd4000000000000ULL
#define VMALLOC		0xffa0000000000000ULL
#define MODULES		0xffffffffc0000000ULL
#define MODULES_END	0xffffffffff000000ULL
#define KSYMS		0xffffffff82000000ULL	/* the fake tables live here */
/* in 6.1's order: the decoder reads each table up to the next one */
#define OFFS_AT		(KSYMS + 0x0)
#define BASE_AT		(KSYMS + 0x100)
#define NUM_AT		(KSYMS + 0x108)
#define NAMES_AT	(KSYMS + 0x200)
#define TT_AT		(KSYMS + 0x400)
#define TI_AT		(KSYMS + 0x800)
#define MEM_LEN		0xa00

static unsigned char mem[MEM_LEN];
static int reads_failing;

static int fake_read(void *arg, uint64_t kaddr, void *buf, size_t len)
{
	(void)arg;
	if (reads_failing || kaddr < KSYMS || kaddr - KSYMS > MEM_LEN ||
	    len > MEM_LEN - (kaddr - KSYMS))
		return -EFAULT;
	memcpy(buf, mem + (kaddr - KSYMS), len);
	return 0;
}

static const char *const names[] = {
	"T_stext", "Tsome_function_with_a_name_longer_than_one_hundred_and_twenty_seven_"
	"characters_to_need_the_two_byte_length_of_big_symbols_in_6_1_and_later",
	"B_end", "Bsme_workarea", "B__init_scratch_end",
};
static const uint32_t offs[] = {
	0, 0x1000, 0x2c30000, 0x2e00000, 0x3200000,
};

/* Token t is the single character t: the names are their own tokens. */
static void fake_kernel(void)
{
	uint32_t num = sizeof(names) / sizeof(names[0]);
	uint64_t base = TEXT;
	unsigned char *p = mem + (NAMES_AT - KSYMS);

	memset(mem, 0, sizeof(mem));
	memcpy(mem + (NUM_AT - KSYMS), &num, sizeof(num));
	memcpy(mem + (OFFS_AT - KSYMS), offs, sizeof(offs));
	memcpy(mem + (BASE_AT - KSYMS), &base, sizeof(base));
	for (int t = 0; t < 256; t++) {
		uint16_t at = (uint16_t)(2 * t);

		mem[TT_AT - KSYMS + 2 * t] = (unsigned char)t;
		memcpy(mem + (TI_AT - KSYMS) + 2 * t, &at, sizeof(at));
	}
	for (uint32_t i = 0; i < num; i++) {
		size_t len = strlen(names[i]);

		if (len > 127) {
			*p++ = (unsigned char)(0x80 | (len & 0x7f));
			*p++ = (unsigned char)(len >> 7);
		} else {
			*p++ = (unsigned char)len;
		}
		memcpy(p, names[i], len);
		p += len;
	}
}

static unsigned char *mem_at(uint64_t kaddr)
{
	return mem + (kaddr - KSYMS);
}

static char vmci[1024];

static void note_text(bool with_vmemmap)
{
	snprintf(vmci, sizeof(vmci),
		 "OSRELEASE=6.12.0\nPAGESIZE=4096\nSYMBOL(_stext)=%llx\n"
		 "SYMBOL(kallsyms_names)=%llx\nSYMBOL(kallsyms_num_syms)=%llx\n"
		 "SYMBOL(kallsyms_token_table)=%llx\nSYMBOL(kallsyms_token_index)=%llx\n"
		 "SYMBOL(kallsyms_offsets)=%llx\nSYMBOL(kallsyms_relative_base)=%llx\n"
		 "SIZE(page)=64\n%s",
		 TEXT, NAMES_AT, NUM_AT, TT_AT, TI_AT, OFFS_AT, BASE_AT,
		 with_vmemmap ? "SYMBOL(vmemmap)=ffd4000000000000\n" : "");
}

static const struct kmem_ro_info info = {
	.page_size = 4096,
	.page_offset = PAGE_OFFSET,
	.phys_base = PHYS_BASE,
	.kernel_map = KERNEL_MAP,
	.text_start = TEXT,
	.text_end = TEXT + 0x1000000,
	.vmalloc_start = VMALLOC,
	.vmalloc_end = VMALLOC + 0x32000000000000ULL,
	.modules_start = MODULES,
	.modules_end = MODULES_END,
};

static const struct kmem_ro_range ram[] = {
	{ 0x1000, 0x9f000 },
	{ 0x100000, 0x40000000 },
};

static struct kcore_synth_seg segs[KCORE_SYNTH_SEGS(2)];
static int allocs_failing;

static void *test_alloc(size_t len)
{
	return allocs_failing ? NULL : malloc(len);
}

static void test_free(const void *p, size_t len)
{
	(void)len;
	free((void *)p);
}

static const struct kcore_synth_mem table_mem = { test_alloc, test_free };

static void synth(struct kcore_synth *k, bool with_vmemmap)
{
	fake_kernel();
	note_text(with_vmemmap);
	memset(k, 0, sizeof(*k));
	k->seg = segs;
	k->note = vmci;
	k->note_len = (uint32_t)strlen(vmci);
	k->task_size = 9000;
	strcpy(k->psargs, "console=ttyS0 quiet");
	ck_assert_int_eq(kmemdev__kcore_synth_bounds(k, 4096, fake_read, NULL, &table_mem), 0);
	ck_assert_int_eq(kmemdev__kcore_synth_layout(k, &info, ram, 2), 0);
}

START_TEST(test_layout_is_kcores)
{
	static const struct kcore_synth_seg want[] = {
		{ TEXT, TEXT - KERNEL_MAP + PHYS_BASE, END - TEXT },
		{ VMALLOC, UINT64_MAX, 0x32000000000000ULL - 1 },
		{ MODULES, UINT64_MAX, MODULES_END - MODULES },
		{ PAGE_OFFSET + 0x1000, 0x1000, 0x9e000 },
		{ VMEMMAP, UINT64_MAX, 0x3000 },	/* pfn 1..0x9e, rounded out */
		{ PAGE_OFFSET + 0x100000, 0x100000, 0x3ff00000 },
		{ VMEMMAP + 0x4000, UINT64_MAX, 0xffc000 },
	};
	struct kcore_synth k;
	uint64_t notes;

	synth(&k, true);
	ck_assert_uint_eq(k.image_end, END);
	ck_assert_uint_eq(k.nseg, 7);
	for (unsigned int i = 0; i < k.nseg; i++) {
		ck_assert_uint_eq(segs[i].vaddr, want[i].vaddr);
		ck_assert_uint_eq(segs[i].paddr, want[i].paddr);
		ck_assert_uint_eq(segs[i].size, want[i].size);
	}
	notes = 4 * 12 + 3 * 8 + 12 + 336 + 136 + 9000 + ((strlen(vmci) + 3) & ~3UL);
	ck_assert_uint_eq(k.notes_len, notes);
	ck_assert_uint_eq(k.header_len, 64 + 8 * 56 + notes);
	ck_assert_uint_eq(k.data_offset, (k.header_len + 4095) & ~4095UL);
	/* 5-level paging: offsets keep 56 bits (x86 kc_vaddr_to_offset()) */
	ck_assert_uint_eq(kmemdev__kcore_synth_offset(&k, PAGE_OFFSET + 0x1000),
			  0x11000000001000ULL + k.data_offset);
	ck_assert_uint_eq(k.size, k.data_offset + (MODULES_END & ((1ULL << 56) - 1)));
}
END_TEST

START_TEST(test_header_is_an_elf_core)
{
	struct kcore_synth k;
	unsigned char *buf;
	const Elf64_Ehdr *eh;
	const Elf64_Phdr *ph;
	const Elf64_Nhdr *n;
	const unsigned char *p;
	static const uint32_t types[] = { NT_PRSTATUS, NT_PRPSINFO, NT_TASKSTRUCT, 0 };
	static const uint32_t sizes[] = { 336, 136, 9000, 0 };

	synth(&k, true);
	buf = calloc(1, k.header_len);
	ck_assert_ptr_nonnull(buf);
	kmemdev__kcore_synth_header(&k, buf);
	eh = (const Elf64_Ehdr *)buf;
	ck_assert(!memcmp(eh->e_ident, ELFMAG, SELFMAG));
	ck_assert_uint_eq(eh->e_type, ET_CORE);
	ck_assert_uint_eq(eh->e_machine, EM_X86_64);
	ck_assert_uint_eq(eh->e_phnum, 8);
	ph = (const Elf64_Phdr *)(buf + eh->e_phoff);
	ck_assert_uint_eq(ph[0].p_type, PT_NOTE);
	ck_assert_uint_eq(ph[0].p_offset, 64 + 8 * 56);
	ck_assert_uint_eq(ph[0].p_filesz, k.notes_len);
	for (int i = 1; i < 8; i++) {
		ck_assert_uint_eq(ph[i].p_type, PT_LOAD);
		ck_assert_uint_eq(ph[i].p_flags, PF_R | PF_W | PF_X);
		ck_assert_uint_eq(ph[i].p_offset, kmemdev__kcore_synth_offset(&k, ph[i].p_vaddr));
		ck_assert_uint_eq(ph[i].p_filesz, ph[i].p_memsz);
		ck_assert_uint_eq(ph[i].p_align, 4096);
	}
	p = buf + ph[0].p_offset;
	for (int i = 0; i < 4; i++) {
		n = (const Elf64_Nhdr *)p;
		ck_assert_uint_eq(n->n_type, types[i]);
		if (i < 3) {
			ck_assert_uint_eq(n->n_descsz, sizes[i]);
			ck_assert_str_eq((const char *)(n + 1), "CORE");
			if (types[i] == NT_PRPSINFO) {
				const char *d = (const char *)(n + 1) + 8;

				ck_assert_int_eq(d[1], 'R');
				ck_assert_str_eq(d + 40, "vmlinux");
				ck_assert_str_eq(d + 56, "console=ttyS0 quiet");
			}
		} else {
			ck_assert_str_eq((const char *)(n + 1), "VMCOREINFO");
			ck_assert_uint_eq(n->n_descsz, strlen(vmci));
			ck_assert(!memcmp((const char *)(n + 1) + 12, vmci, strlen(vmci)));
		}
		p += 12 + ((n->n_namesz + 3) & ~3U) + ((n->n_descsz + 3) & ~3U);
	}
	ck_assert_uint_eq((uint64_t)(p - (buf + ph[0].p_offset)), k.notes_len);
	free(buf);
}
END_TEST

/* 6.1: no SYMBOL(vmemmap) and no mem_section either: no vmemmap segments. */
START_TEST(test_no_vmemmap)
{
	struct kcore_synth k;

	synth(&k, false);
	ck_assert_uint_eq(k.vmemmap, 0);
	ck_assert_uint_eq(k.nseg, 5);
}
END_TEST

START_TEST(test_refused)
{
	struct kcore_synth k;

	/* the tables unreadable, or not named: no _end, no layout */
	fake_kernel();
	note_text(true);
	memset(&k, 0, sizeof(k));
	k.seg = segs;
	k.note = vmci;
	k.note_len = (uint32_t)strlen(vmci);
	reads_failing = 1;
	ck_assert_int_eq(kmemdev__kcore_synth_bounds(&k, 4096, fake_read, NULL, &table_mem), -EPROTO);
	reads_failing = 0;
	allocs_failing = 1;
	ck_assert_int_eq(kmemdev__kcore_synth_bounds(&k, 4096, fake_read, NULL, &table_mem), -EPROTO);
	allocs_failing = 0;
	ck_assert_int_eq(kmemdev__kcore_synth_bounds(&k, 4095, fake_read, NULL, &table_mem), -EINVAL);
	/* no "_end" among the last entries */
	memset(mem_at(NAMES_AT) + 1 + strlen(names[0]) + 2 + strlen(names[1]) + 2, 'X', 1);
	ck_assert_int_eq(kmemdev__kcore_synth_bounds(&k, 4096, fake_read, NULL, &table_mem), -EPROTO);
	fake_kernel();
	k.note = "OSRELEASE=6.12.0\n";
	k.note_len = strlen(k.note);
	ck_assert_int_eq(kmemdev__kcore_synth_bounds(&k, 4096, fake_read, NULL, &table_mem), -EPROTO);
	k.image_end = 0;
	ck_assert_int_eq(kmemdev__kcore_synth_layout(&k, &info, ram, 2), -EPROTO);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("kcore_synth");
	TCase *tc = tcase_create("kcore_synth");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_layout_is_kcores);
	tcase_add_test(tc, test_header_is_an_elf_core);
	tcase_add_test(tc, test_no_vmemmap);
	tcase_add_test(tc, test_refused);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
