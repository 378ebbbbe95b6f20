// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * /proc/kcore's header, rebuilt from /dev/kmem_ro for a reader that may
 * not open kcore (a member of the device's group: kcore wants
 * CAP_SYS_RAWIO).  The layout is fs/proc/kcore.c's, the same in 6.1, 6.12
 * and 7.3 (x86_64):
 *  - the list (proc_kcore_init(), kcore_update_ram()): the image [_text,
 *    _end) (KCORE_TEXT, p_paddr __pa_symbol()), vmalloc [VMALLOC_START,
 *    VMALLOC_END) (VMALLOC_END is inclusive on x86: one byte short of the
 *    area), modules [MODULES_VADDR, MODULES_END), then per System RAM
 *    range from walk_system_ram_range() its direct map (KCORE_RAM, whole
 *    pages: kclist_add_private()) and the vmemmap of its struct pages
 *    rounded to pages, cut where an earlier one overlaps
 *    (get_sparsemem_vmemmap_info()); p_paddr -1 for all but RAM and text;
 *  - get_kcore_size(): one PT_NOTE first, notes NT_PRSTATUS (zeros),
 *    NT_PRPSINFO ('R', "vmlinux", the command line), NT_TASKSTRUCT
 *    (arch_task_struct_size bytes), the VMCOREINFO note; data at the page
 *    after them; file offset of an address is that plus the address
 *    masked to the virtual address bits (x86's kc_vaddr_to_offset()).
 * What the device does not report comes from VMCOREINFO (the note kcore
 * serves): _text is SYMBOL(_stext) (the same address in all three
 * linker scripts), _end from the kallsyms tables VMCOREINFO names (the
 * entry "_end" near their end, decoded by libkmemdev's kallsyms.c), the
 * vmemmap base SYMBOL(vmemmap) (6.9+) or, on 6.1, section 0's encoded mem_map (sparse_encode_mem_map()
 * stores vmemmap itself for section 0).
 */
#include <elf.h>
#include <string.h>
#include <sys/procfs.h>

#include "kcore_synth.h"

#define NOTE_NAME	"VMCOREINFO"
#define CORE_NAME	"CORE"
#define NO_PADDR	UINT64_MAX

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) & ~(a - 1);
}

/* The number KEY holds in VMCOREINFO, in @base; false if absent. */
static bool vmci(const struct kcore_synth *k, const char *key, int base,
		 uint64_t *val)
{
	return !kmemdev__vmcoreinfo_number(k->note, k->note_len, key, base, val);
}

static bool vmci_symbol(const struct kcore_synth *k, const char *name,
			uint64_t *addr)
{
	return !kmemdev__vmcoreinfo_symbol(k->note, k->note_len, name, addr);
}

#define END_TAIL	16	/* _end is among the last symbols */

static int find_end(void *arg, uint64_t addr, char type, const char *name,
		    const char *module)
{
	(void)type;
	(void)module;
	if (strcmp(name, "_end"))
		return 0;
	*(uint64_t *)arg = addr;
	return 1;
}

/*
 * _end, the end of the image kcore's KCORE_TEXT entry covers: the entry
 * named "_end" among the last of the kallsyms tables (sorted by address;
 * only .init.scratch's symbols follow it), decoded by libkmemdev's
 * kallsyms.c.  0 if the tables cannot say.
 */
static uint64_t image_end(const struct kcore_synth *k, kmemdev__read_fn read,
			  void *arg, const struct kcore_synth_mem *mem)
{
	struct kmemdev_kallsyms t;
	struct kmemdev_kallsyms_at at;
	uint16_t index[256];
	unsigned char *buf;
	size_t len;
	uint64_t end = 0;

	if (kmemdev__kallsyms_locate(k->note, k->note_len, read, arg, index, &t, &at))
		return 0;
	len = at.names_len + at.tokens_len + at.offsets_len;
	buf = mem->alloc(len);
	if (!buf)
		return 0;
	/* offsets first: the allocation is page-aligned */
	t.offsets = (const int32_t *)buf;
	t.names = buf + at.offsets_len;
	t.names_len = at.names_len;
	t.tokens = (const char *)t.names + at.names_len;
	t.tokens_len = at.tokens_len;
	t.first = t.num_syms > END_TAIL ? t.num_syms - END_TAIL : 0;
	if (read(arg, at.offsets, buf, at.offsets_len) ||
	    read(arg, at.names, buf + at.offsets_len, at.names_len) ||
	    read(arg, at.tokens, buf + at.offsets_len + at.names_len, at.tokens_len) ||
	    kmemdev__kallsyms_decode(&t, find_end, &end) != 1)
		end = 0;
	mem->free(buf, len);
	return end;
}

/* The vmemmap base (struct page of PFN 0); 0 if unknown. */
static uint64_t vmemmap_base(const struct kcore_synth *k, uint64_t page_size,
			     kmemdev__read_fn read, void *arg)
{
	uint64_t v, roots, root0, off, map;

	if (vmci_symbol(k, "vmemmap", &v))
		return v;
	/* SPARSEMEM_EXTREME: mem_section is an array of root pointers. */
	if (!vmci_symbol(k, "mem_section", &roots) ||
	    !vmci(k, "OFFSET(mem_section.section_mem_map)", 10, &off) ||
	    read(arg, roots, &root0, sizeof(root0)) || !root0 ||
	    read(arg, root0 + off, &map, sizeof(map)))
		return 0;
	return map & ~(page_size - 1);
}

static void add_seg(struct kcore_synth *k, uint64_t vaddr, uint64_t paddr,
		    uint64_t size)
{
	k->seg[k->nseg++] = (struct kcore_synth_seg){ vaddr, paddr, size };
}

int kmemdev__kcore_synth_bounds(struct kcore_synth *k, uint64_t page_size,
				kmemdev__read_fn read, void *arg,
				const struct kcore_synth_mem *mem)
{
	uint64_t page_sz;

	if (!page_size || (page_size & (page_size - 1)))
		return -EINVAL;
	k->image_end = image_end(k, read, arg, mem);
	k->vmemmap = vmci(k, "SIZE(page)", 10, &page_sz) ?
		     vmemmap_base(k, page_size, read, arg) : 0;
	return k->image_end ? 0 : -EPROTO;
}

int kmemdev__kcore_synth_layout(struct kcore_synth *k,
				const struct kmem_ro_info *in,
				const struct kmem_ro_range *ram, unsigned int nr)
{
	uint64_t ps = in->page_size, text, end = k->image_end, vmemmap = k->vmemmap;
	uint64_t page_sz = 0, top = 0;
	unsigned int first_vmm;

	if (!ps || (ps & (ps - 1)))
		return -EPROTO;
	k->page_size = ps;
	if (!vmci_symbol(k, "_stext", &text))
		text = in->text_start;
	if (!text || end <= text)
		return -EPROTO;
	k->nseg = 0;
	add_seg(k, text, text - in->kernel_map + in->phys_base, end - text);
	add_seg(k, in->vmalloc_start, NO_PADDR, in->vmalloc_end - 1 - in->vmalloc_start);
	if (in->modules_start != in->vmalloc_start &&
	    in->modules_end != in->vmalloc_end - 1)
		add_seg(k, in->modules_start, NO_PADDR, in->modules_end - in->modules_start);
	if (!vmci(k, "SIZE(page)", 10, &page_sz))
		vmemmap = 0;
	first_vmm = k->nseg;
	for (unsigned int i = 0; i < nr; i++) {
		uint64_t pfn = align_up(ram[i].start, ps) / ps;
		uint64_t end_pfn = ram[i].end / ps, vs, ve;

		if (end_pfn <= pfn)
			continue;
		add_seg(k, in->page_offset + pfn * ps, pfn * ps, (end_pfn - pfn) * ps);
		if (!vmemmap)
			continue;
		vs = (vmemmap + pfn * page_sz) & ~(ps - 1);
		ve = align_up(vmemmap + end_pfn * page_sz - 1, ps);
		for (unsigned int j = first_vmm; j < k->nseg; j++) {
			const struct kcore_synth_seg *s = &k->seg[j];

			if (s->paddr == NO_PADDR && vs < s->vaddr + s->size && ve > s->vaddr)
				ve = s->vaddr;
		}
		if (vs < ve)
			add_seg(k, vs, NO_PADDR, ve - vs);
	}
	k->notes_len = 4 * sizeof(Elf64_Nhdr) + 3 * align_up(sizeof(CORE_NAME), 4) +
		       align_up(sizeof(NOTE_NAME), 4) +
		       align_up(sizeof(prstatus_t), 4) + align_up(sizeof(prpsinfo_t), 4) +
		       align_up(k->task_size, 4) + align_up(k->note_len, 4);
	k->header_len = sizeof(Elf64_Ehdr) + (1 + (uint64_t)k->nseg) * sizeof(Elf64_Phdr) +
			k->notes_len;
	k->data_offset = align_up(k->header_len, ps);
	/*
	 * x86's kc_vaddr_to_offset() (asm/pgtable_64.h): the address masked
	 * to __VIRTUAL_MASK, 56 bits with 5-level paging (the direct map
	 * then starts below the 4-level kernel half), else 47.
	 */
	k->vmask = in->page_offset < 0xffff800000000000ULL ? (1ULL << 56) - 1 :
							      (1ULL << 47) - 1;
	for (unsigned int i = 0; i < k->nseg; i++) {
		uint64_t t = (k->seg[i].vaddr + k->seg[i].size) & k->vmask;

		if (t > top)
			top = t;
	}
	k->size = k->data_offset + top;
	return 0;
}

/* append_kcore_note(): header, name and descriptor, each 4-aligned. */
static size_t put_note(unsigned char *p, const char *name, uint32_t type,
		       const void *desc, size_t len)
{
	Elf64_Nhdr n = {
		.n_namesz = (Elf64_Word)strlen(name) + 1,
		.n_descsz = (Elf64_Word)len,
		.n_type = type,
	};
	size_t i = sizeof(n);

	memcpy(p, &n, sizeof(n));
	memcpy(p + i, name, n.n_namesz);
	i = align_up(i + n.n_namesz, 4);
	if (desc)
		memcpy(p + i, desc, len);
	return align_up(i + len, 4);
}

uint64_t kmemdev__kcore_synth_offset(const struct kcore_synth *k, uint64_t vaddr)
{
	return (vaddr & k->vmask) + k->data_offset;
}

void kmemdev__kcore_synth_header(const struct kcore_synth *k, unsigned char *buf)
{
	uint64_t phoff = sizeof(Elf64_Ehdr);
	uint64_t notes = phoff + (1 + (uint64_t)k->nseg) * sizeof(Elf64_Phdr);
	Elf64_Ehdr eh = {
		.e_ident = { ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS64,
			     ELFDATA2LSB, EV_CURRENT, ELFOSABI_NONE },
		.e_type = ET_CORE,
		.e_machine = EM_X86_64,
		.e_version = EV_CURRENT,
		.e_phoff = phoff,
		.e_ehsize = sizeof(Elf64_Ehdr),
		.e_phentsize = sizeof(Elf64_Phdr),
		.e_phnum = (Elf64_Half)(1 + k->nseg),
	};
	Elf64_Phdr note = {
		.p_type = PT_NOTE,
		.p_offset = notes,
		.p_filesz = k->notes_len,
	};
	prstatus_t prstatus = { 0 };
	prpsinfo_t prpsinfo = { .pr_sname = 'R', .pr_fname = "vmlinux" };
	unsigned char *p = buf + notes;

	memcpy(buf, &eh, sizeof(eh));
	memcpy(buf + phoff, &note, sizeof(note));
	for (unsigned int i = 0; i < k->nseg; i++) {
		const struct kcore_synth_seg *s = &k->seg[i];
		Elf64_Phdr ph = {
			.p_type = PT_LOAD,
			.p_flags = PF_R | PF_W | PF_X,
			.p_offset = kmemdev__kcore_synth_offset(k, s->vaddr),
			.p_vaddr = s->vaddr,
			.p_paddr = s->paddr,
			.p_filesz = s->size,
			.p_memsz = s->size,
			.p_align = k->page_size,
		};

		memcpy(buf + phoff + (1 + (uint64_t)i) * sizeof(ph), &ph, sizeof(ph));
	}
	memcpy(prpsinfo.pr_psargs, k->psargs, strnlen(k->psargs, sizeof(prpsinfo.pr_psargs) - 1));
	p += put_note(p, CORE_NAME, NT_PRSTATUS, &prstatus, sizeof(prstatus));
	p += put_note(p, CORE_NAME, NT_PRPSINFO, &prpsinfo, sizeof(prpsinfo));
	/* kcore: the reader's own task_struct; here zeros of its size */
	p += put_note(p, CORE_NAME, NT_TASKSTRUCT, NULL, k->task_size);
	put_note(p, NOTE_NAME, 0, k->note, k->note_len);
}
