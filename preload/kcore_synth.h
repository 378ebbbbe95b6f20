/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The /proc/kcore file a member of the device's group may not open,
 * rebuilt from what /dev/kmem_ro tells: see kcore_synth.c.  Its kallsyms
 * and VMCOREINFO parsing is libkmemdev's (internal.h).
 */
#ifndef KMEMDEV_KCORE_SYNTH_H
#define KMEMDEV_KCORE_SYNTH_H

#include <stddef.h>
#include <stdint.h>

#include "internal.h"

/* Segments: text, vmalloc, modules, then RAM and its vmemmap per range. */
#define KCORE_SYNTH_SEGS(nr_ram)	(3 + 2 * (size_t)(nr_ram))

/*
 * Memory for the kallsyms tables while _end is looked up (a few MiB; the
 * preload may not malloc()).
 */
struct kcore_synth_mem {
	void *(*alloc)(size_t len);
	void (*free)(const void *p, size_t len);
};

/**
 * struct kcore_synth_seg - one PT_LOAD segment, as kcore lists it
 * @vaddr: p_vaddr
 * @paddr: p_paddr (UINT64_MAX: none, kcore's (elf_addr_t)-1)
 * @size: p_filesz and p_memsz
 */
struct kcore_synth_seg {
	uint64_t vaddr;
	uint64_t paddr;
	uint64_t size;
};

/**
 * struct kcore_synth - a kcore file's layout
 * @seg: its PT_LOAD segments, in kcore's order; caller-allocated,
 *	KCORE_SYNTH_SEGS() entries
 * @nseg: how many are used
 * @note: the VMCOREINFO note's descriptor (points into the caller's buffer)
 * @note_len: its length
 * @task_size: bytes of the NT_TASKSTRUCT note (arch_task_struct_size)
 * @image_end: _end, where the image's segment ends
 * @vmemmap: the vmemmap base, 0 if unknown (no vmemmap segments)
 * @psargs: the NT_PRPSINFO note's pr_psargs: the kernel command line
 * @notes_len: the PT_NOTE segment's length (get_kcore_size())
 * @header_len: ELF header + program headers + notes, unpadded
 * @data_offset: file offset of page_offset: header_len rounded to a page
 * @size: the file size (proc_root_kcore->size)
 * @page_size: PAGE_SIZE (p_align)
 * @vmask: the virtual address bits a file offset keeps
 */
struct kcore_synth {
	struct kcore_synth_seg *seg;
	unsigned int nseg;
	const char *note;
	size_t note_len;
	uint32_t task_size;
	uint64_t image_end;
	uint64_t vmemmap;
	char psargs[80];
	uint64_t notes_len;
	uint64_t header_len;
	uint64_t data_offset;
	uint64_t size;
	uint64_t page_size;
	uint64_t vmask;
};

/*
 * What the layout needs from kernel memory, fixed for the boot: set
 * @k->image_end and @k->vmemmap (@k->note set), reading through @read,
 * the kallsyms tables into memory from @mem.  0, -EINVAL for a bad
 * @page_size, or -EPROTO when the tables do not name _end.
 */
KMEMDEV_INTERNAL int kmemdev__kcore_synth_bounds(struct kcore_synth *k,
						 uint64_t page_size,
						 kmemdev__read_fn read,
						 void *arg,
						 const struct kcore_synth_mem *mem);

/*
 * Fill @k (whose @seg, @note, @note_len, @task_size, @image_end, @vmemmap
 * and @psargs the caller set) from @info and its System RAM ranges (@ram,
 * @nr, sorted).  0, or -EPROTO when @info describes no kernel image.
 */
KMEMDEV_INTERNAL int kmemdev__kcore_synth_layout(struct kcore_synth *k,
						 const struct kmem_ro_info *info,
						 const struct kmem_ro_range *ram,
						 unsigned int nr);

/*
 * Write the first @k->header_len bytes of the file into @buf (that many
 * bytes, zeroed by the caller): ELF header, program headers, notes.
 */
KMEMDEV_INTERNAL void kmemdev__kcore_synth_header(const struct kcore_synth *k,
						  unsigned char *buf);

/* The file offset of kernel address @vaddr (inside a segment). */
KMEMDEV_INTERNAL uint64_t kmemdev__kcore_synth_offset(const struct kcore_synth *k,
						      uint64_t vaddr);

#endif
