/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * libkmemdev internals.  Names with a double underscore (kmemdev__*) are
 * never exported: -fvisibility=hidden, the attribute below and the version
 * script (which names each exported function) all keep them in.  Unit
 * tests link libkmemdev.a and may call them.
 */
#ifndef KMEMDEV_INTERNAL_H
#define KMEMDEV_INTERNAL_H

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "kmemdev.h"

#define KMEMDEV_INTERNAL __attribute__((visibility("hidden")))

#define KMEMDEV_KALLSYMS "/proc/kallsyms"

#ifndef offsetofend
#define offsetofend(TYPE, FIELD) \
	(offsetof(TYPE, FIELD) + sizeof(((TYPE *)0)->FIELD))
#endif

/*
 * The size a caller states in a kmem_ro.h argument struct (see
 * KMEMDEV_ARG()): -EINVAL below the struct's first published layout
 * (@ver0), -E2BIG above KMEMDEV_ARG_MAX, else 0.  The library reads and
 * writes no byte of the caller's struct past it.
 */
static inline int kmemdev__arg_size(uint64_t size, size_t ver0)
{
	if (size < ver0)
		return -EINVAL;
	return size > KMEMDEV_ARG_MAX ? -E2BIG : 0;
}

/*
 * Options handling in the style of libbpf's OPTS_VALID/OPTS_GET: a caller
 * built against an older header passes a smaller sz (fields it lacks take
 * their defaults); one built against a newer header passes a larger sz,
 * accepted only when the fields we do not know are all zero.
 */
KMEMDEV_INTERNAL int kmemdev__opts_validate(const void *opts, size_t known_sz);

#define OPTS_VALID(opts, TYPE)						\
	kmemdev__opts_validate((opts), offsetofend(struct TYPE, TYPE##__last_field))
#define OPTS_HAS(opts, FIELD)						\
	((opts) && (opts)->sz >= offsetofend(__typeof__(*(opts)), FIELD))
#define OPTS_GET(opts, FIELD, FALLBACK)					\
	(OPTS_HAS(opts, FIELD) ? (opts)->FIELD : (FALLBACK))

/**
 * struct kmemdev_symtab - parsed /proc/kallsyms
 * @by_addr: every entry, sorted by address (ties: see symbols.c)
 * @by_name: indices into @by_addr, sorted by name, preferred duplicate first
 * @count: number of entries
 * @strings: one block holding every name and module string
 */
struct kmemdev_symtab {
	struct kmemdev_sym *by_addr;
	uint32_t *by_name;
	size_t count;
	char *strings;
};

/**
 * struct kmemdev_region - one whole-range mmap of /dev/kmem_ro
 * @start: physical start, page-aligned: the mmap offset
 * @end: physical end, page-aligned, exclusive (== @start: nothing mappable)
 * @base: the mapping of [@start, @end), NULL until first use.  Stored once,
 *	with release order, under kmemdev.map_lock; read with acquire order
 *	and no lock.
 */
struct kmemdev_region {
	uint64_t start;
	uint64_t end;
	_Atomic(const unsigned char *) base;
};

/**
 * struct kmemdev_maps - what a handle can map; built once, then immutable
 *	except for the atomics
 * @ram: System RAM ranges as the driver reports them, sorted by start
 * @regions: @ram[i] rounded inward to whole pages, same index
 * @nr: number of entries in @ram and @regions
 * @text: physical range of the kernel text, for mmap_ram=0
 * @text_region: its mapping
 * @have_text: @text is valid and the driver offers text mmap
 * @text_only: RAM mmap is off (feature bit clear, or the driver answered
 *	EPERM): translate against @text only.  Only ever goes false -> true.
 */
struct kmemdev_maps {
	struct kmem_ro_range *ram;
	struct kmemdev_region *regions;
	unsigned int nr;
	struct kmem_ro_range text;
	struct kmemdev_region text_region;
	bool have_text;
	atomic_bool text_only;
};

/**
 * struct kmemdev_kcore - an ELF64 core file (/proc/kcore), parsed at open
 * @fd: the open file
 * @load: its PT_LOAD headers with p_memsz > 0, sorted by p_vaddr
 * @nr: number of entries in @load
 */
struct kmemdev_kcore {
	int fd;
	struct kmemdev_kseg *load;
	unsigned int nr;
};

/**
 * struct kmemdev_kseg - one PT_LOAD segment of a core file
 * @vaddr: p_vaddr
 * @paddr: p_paddr; UINT64_MAX (-1) when the kernel gives none
 * @memsz: p_memsz (bytes of address space)
 * @filesz: p_filesz, at most @memsz; bytes past it read as zeros
 * @offset: p_offset, where the segment's bytes start in the file
 */
struct kmemdev_kseg {
	uint64_t vaddr;
	uint64_t paddr;
	uint64_t memsz;
	uint64_t filesz;
	uint64_t offset;
};

struct btf;
struct kmemdev_sym_one;

struct kmemdev {
	int fd;				/* the device; -1 for kcore */
	int backend;			/* KMEMDEV_BACKEND_DEVICE or _KCORE */
	struct kmem_ro_info info;	/* handshake answer, from open */
	struct kmemdev_kcore kcore;	/* KMEMDEV_BACKEND_KCORE only */

	/* Mappings (map.c): built on first use; lookups take no lock. */
	pthread_mutex_t map_lock;	/* serializes building and mmap() */
	_Atomic(struct kmemdev_maps *) maps;	/* NULL until first use */

	/* Symbols: loaded once, read-only afterwards. */
	pthread_mutex_t sym_lock;
	bool sym_loaded;
	int sym_err;			/* sticky load error, 0 if none */
	char *kallsyms_path;		/* NULL: KMEMDEV_KALLSYMS */
	struct kmemdev_symtab syms;
	struct kmemdev_sym_one *found;	/* by-name answers before a table */
	unsigned int find_passes;	/* decode passes that gave them */
	/* [__start_BTF, __stop_BTF) as a by-name pass saw it, 0 if not yet */
	_Atomic uint64_t btf_start, btf_stop;

	/* Kernel BTF (btf.c): loaded once, read-only afterwards. */
	pthread_mutex_t btf_lock;
	_Atomic(struct btf *) btf;	/* NULL until loaded */
	int btf_err;			/* sticky load error, 0 if none */
	char *btf_path;			/* NULL: the running kernel's */
};

/*
 * Allocate a handle around fd (which it then owns; -1 for none) without any
 * handshake.  kmemdev_open() builds on it; tests use it to exercise the
 * symbol code with no device present.
 */
KMEMDEV_INTERNAL int kmemdev__handle_new(struct kmemdev **out, int fd);

/* Point a lazily loaded table at another file; before first use only. */
KMEMDEV_INTERNAL int kmemdev__set_path(struct kmemdev *h, pthread_mutex_t *lock,
				       bool (*loaded)(const struct kmemdev *),
				       char **slot, const char *path);
/* Read symbols from path instead of /proc/kallsyms; before first use only. */
KMEMDEV_INTERNAL int kmemdev__set_kallsyms_path(struct kmemdev *h,
						const char *path);

/*
 * Parse kallsyms text.  Malformed lines are skipped.  Returns 0 (possibly
 * with tab->count == 0 for an empty file), -EACCES when there are symbols
 * but every address is zero (kptr_restrict), -ENOMEM, or -errno from a read
 * error.  On failure *tab is left empty.
 */
KMEMDEV_INTERNAL int kmemdev__symtab_parse(FILE *f, struct kmemdev_symtab *tab);
KMEMDEV_INTERNAL void kmemdev__symtab_free(struct kmemdev_symtab *tab);

/* Lookups on a parsed table; -ENOENT when nothing matches. */
KMEMDEV_INTERNAL int kmemdev__symtab_find(const struct kmemdev_symtab *tab,
					  const char *name,
					  const struct kmemdev_sym **sym);
KMEMDEV_INTERNAL int kmemdev__symtab_nearest(const struct kmemdev_symtab *tab,
					     uint64_t addr,
					     const struct kmemdev_sym **sym);

/*
 * Symbols through the device (kallsyms.c).  A symbol callback: module is
 * NULL for vmlinux; name is valid for the call only.  A non-zero return
 * stops the walk and is returned.
 */
typedef int (*kmemdev__sym_fn)(void *arg, uint64_t addr, char type,
			       const char *name, const char *module);

/*
 * The VMCOREINFO note: an ELF note named "VMCOREINFO" whose descriptor is
 * "KEY=VALUE\n" lines.  parse: the descriptor of the note in note[0..len),
 * -EPROTO if it is not one.  value: the VALUE of KEY (not NUL-terminated),
 * -ENOENT if absent.  symbol: SYMBOL(name)'s hex address, -EPROTO if it is
 * not hex.
 */
KMEMDEV_INTERNAL int kmemdev__vmcoreinfo_parse(const void *note, size_t len,
					       const char **desc,
					       size_t *desc_len);
KMEMDEV_INTERNAL int kmemdev__vmcoreinfo_value(const char *desc, size_t len,
					       const char *key,
					       const char **val,
					       size_t *val_len);
KMEMDEV_INTERNAL int kmemdev__vmcoreinfo_symbol(const char *desc, size_t len,
						const char *name,
						uint64_t *addr);
/* KEY's VALUE as a number in @base (10 or 16): -EPROTO if it is not one. */
KMEMDEV_INTERNAL int kmemdev__vmcoreinfo_number(const char *desc, size_t len,
						const char *key, int base,
						uint64_t *val);
/* Read the running kernel's note (INFO's vmcoreinfo_addr) into *note (free()). */
KMEMDEV_INTERNAL int kmemdev__vmcoreinfo_read(struct kmemdev *h, char **note,
					      size_t *len);

/**
 * struct kmemdev_kallsyms - the kernel's kallsyms tables, read into memory
 * @names: kallsyms_names: per symbol a length (one byte, or two when the
 *	first has bit 7 set: "big" symbols, 6.1+) and that many token bytes
 * @names_len: bytes readable at @names (may extend past the table)
 * @tokens: kallsyms_token_table: 256 NUL-terminated strings
 * @tokens_len: bytes readable at @tokens
 * @token_index: kallsyms_token_index: offset of token i in @tokens
 * @offsets: kallsyms_offsets, @num_syms of them
 * @num_syms: kallsyms_num_syms
 * @offsets_addr: kernel address of kallsyms_offsets (7.3: each offset is
 *	relative to its own address, offset_to_ptr())
 * @relative_base: kallsyms_relative_base (6.1, 6.12)
 * @has_relative_base: VMCOREINFO names kallsyms_relative_base
 * @first: decode from this entry on; the ones before are only skipped
 * @want: if set, only names that may be one of these @nwant are expanded
 *	in full (the callback must still compare: a name that shares the
 *	first few characters of one also reaches it)
 * @nwant: how many
 */
struct kmemdev_kallsyms {
	const uint8_t *names;
	size_t names_len;
	const char *tokens;
	size_t tokens_len;
	const uint16_t *token_index;
	const int32_t *offsets;
	uint32_t num_syms;
	uint64_t offsets_addr;
	uint64_t relative_base;
	bool has_relative_base;
	uint32_t first;
	const char *const *want;
	size_t nwant;
};

/* Read len bytes at kernel address kaddr: 0, or a negative errno. */
typedef int (*kmemdev__read_fn)(void *arg, uint64_t kaddr, void *buf,
				size_t len);

/**
 * struct kmemdev_kallsyms_at - where the tables a decode reads lie
 * @names: kernel address of kallsyms_names, @names_len bytes to read
 * @tokens: kallsyms_token_table, @tokens_len bytes
 * @offsets: kallsyms_offsets, @offsets_len bytes
 */
struct kmemdev_kallsyms_at {
	uint64_t names, tokens, offsets;
	size_t names_len, tokens_len, offsets_len;
};

/*
 * Locate the kallsyms tables the VMCOREINFO descriptor @desc names and
 * read their small parts through @read: fills @t but for names, tokens
 * and offsets (which the caller reads from @at, in memory it chooses:
 * the kcore preload may not malloc()), @t->token_index pointing at
 * @index.  -EOPNOTSUPP when the note names no such tables (before 6.0),
 * -EPROTO when their sizes make no sense, else @read's error.
 */
KMEMDEV_INTERNAL int kmemdev__kallsyms_locate(const char *desc, size_t dlen,
					      kmemdev__read_fn read, void *arg,
					      uint16_t index[256],
					      struct kmemdev_kallsyms *t,
					      struct kmemdev_kallsyms_at *at);

/*
 * Call fn for each named symbol of the tables in their order (from
 * @t->first on), as /proc/kallsyms prints core symbols (type letter: the
 * first character of the expanded name).  -EPROTO for tables that do not
 * decode.
 */
KMEMDEV_INTERNAL int kmemdev__kallsyms_decode(const struct kmemdev_kallsyms *t,
					      kmemdev__sym_fn fn, void *arg);

/*
 * Symbols of every module on the list at head (&modules), as
 * module_get_kallsym() and s_show() print them (modsyms.c).  Needs BTF
 * and INFO's module area (-EOPNOTSUPP without).  fn sees one walk that
 * passed every check, or nothing: -EAGAIN when every walk found the list
 * changing or torn, -E2BIG when the last ran out of its byte budget.
 */
KMEMDEV_INTERNAL int kmemdev__kallsyms_modules(struct kmemdev *h, uint64_t head,
					       kmemdev__sym_fn fn, void *arg);

/*
 * Every symbol through the device: core, then modules.  -EOPNOTSUPP when
 * the handle is no device or the driver lacks KMEM_RO_FEAT_VMCOREINFO, or
 * the kernel's VMCOREINFO names no kallsyms tables (before 6.0).
 */
KMEMDEV_INTERNAL int kmemdev__kallsyms_read(struct kmemdev *h,
					    kmemdev__sym_fn fn, void *arg);

/*
 * Vmlinux symbols by name through the device, in one pass and without
 * building a table: for each of the @n @names that vmlinux has, @found[i]
 * and @syms[i]'s addr and type (name is left to the caller; the lowest
 * address among equal names).  0, else as kmemdev__kallsyms_read().
 */
KMEMDEV_INTERNAL int kmemdev__kallsyms_find_core(struct kmemdev *h,
						 const char *const *names,
						 size_t n,
						 struct kmemdev_sym *syms,
						 bool *found);

/*
 * Names every by-name pass also looks for, for btf.c: the bounds of the
 * kernel's BTF (the bytes /sys/kernel/btf/vmlinux serves,
 * kernel/bpf/sysfs_btf.c).
 */
#define KMEMDEV_BTF_START	"__start_BTF"
#define KMEMDEV_BTF_STOP	"__stop_BTF"

/* Release the symbol state of a handle (called by kmemdev_close()). */
KMEMDEV_INTERNAL void kmemdev__symbols_release(struct kmemdev *h);

/*
 * Forget the symbol table (module events): the next lookup reads
 * /proc/kallsyms again.  Pointers into the old table become invalid.
 */
KMEMDEV_INTERNAL void kmemdev__symbols_invalidate(struct kmemdev *h);

/*
 * Pure address translation, the address model of uapi/kmem_ro.h: where
 * [kaddr, kaddr + len) lives in physical memory, and which of the nr ranges
 * in ram (sorted by start, non-overlapping) holds all of it once each range
 * is rounded inward to whole pages of info->page_size.
 *  - kernel image, text_start <= kaddr, kaddr + len <= modules_start:
 *    phys = kaddr - kernel_map + phys_base;
 *  - direct map, page_offset <= kaddr, outside the vmalloc and module
 *    areas and below kernel_map: phys = kaddr - page_offset.
 * Returns the index into ram (>= 0) and sets *phys, or -EINVAL (len 0, or
 * kaddr + len wraps past 2^64), -ENXIO (any other address, or a range not
 * wholly inside one rounded RAM range), -EPROTO (page_size not a power of
 * two).
 */
KMEMDEV_INTERNAL int kmemdev__translate(const struct kmem_ro_info *info,
					const struct kmem_ro_range *ram,
					unsigned int nr, uint64_t kaddr,
					size_t len, uint64_t *phys);

/*
 * Physical range of the kernel text, the only one mappable with
 * mmap_ram=0: [text_start, text_end) moved by phys_base - kernel_map.
 * -ENXIO when info describes no text.
 */
KMEMDEV_INTERNAL int kmemdev__text_range(const struct kmem_ro_info *info,
					 struct kmem_ro_range *text);

/*
 * Build the handle's mapping state from h->info and this RAM list instead
 * of asking the driver (which kmemdev_map() does on first use): lets tests
 * back a handle with an ordinary file.  -EBUSY once built.
 */
KMEMDEV_INTERNAL int kmemdev__maps_init(struct kmemdev *h,
					const struct kmem_ro_range *ram,
					unsigned int nr);

/* Unmap and free the mapping state (called by kmemdev_close()). */
KMEMDEV_INTERNAL void kmemdev__maps_release(struct kmemdev *h);

/*
 * kmemdev_read() for a buffer the caller discards on failure: what it
 * holds then is undefined (READV writes into it directly, no bounce).
 */
KMEMDEV_INTERNAL int kmemdev__read_scratch(struct kmemdev *h, uint64_t kaddr,
					   void *buf, size_t len);

/*
 * 0 if the handle is a device whose driver has feature bit @feat (an ioctl
 * of the kmem_ro.h KMEM_RO_FEAT_* list), -EOPNOTSUPP otherwise.
 */
static inline int kmemdev__feature(const struct kmemdev *h, uint64_t feat)
{
	if (h->backend != KMEMDEV_BACKEND_DEVICE || h->fd < 0 ||
	    !(h->info.features & feat))
		return -EOPNOTSUPP;
	return 0;
}

/*
 * The page mask kmemdev__refused() checks @in's mappings with; 0 if they
 * need no check (a driver without the refused page, or a page size that
 * is no power of two).
 */
static inline uintptr_t kmemdev__refused_mask(const struct kmem_ro_info *in)
{
	uintptr_t mask = (uintptr_t)in->page_size - 1;

	if (!(in->features & KMEM_RO_FEAT_MMAP_REFUSED) || !in->page_size ||
	    (in->page_size & mask))
		return 0;
	return mask;
}

/*
 * The check itself, for a reader that took the page mask once
 * (kmemdev__refused_mask(), not 0) and len > 0: the kcore preload.
 */
static inline bool kmemdev__refused_in(uint64_t pattern, uintptr_t mask, const void *ptr,
				       size_t len)
{
	uintptr_t p = (uintptr_t)ptr & ~(uintptr_t)7;
	uintptr_t last = ((uintptr_t)ptr + (len - 1)) & ~mask;
	bool refused = false;

	atomic_thread_fence(memory_order_acquire);
	for (;;) {
		if (*(const volatile uint64_t *)p == pattern)
			refused = true;
		if ((p & ~mask) == last)
			break;
		p = (p & ~mask) + mask + 1;
	}
	atomic_thread_fence(memory_order_acquire);
	return refused;
}

/*
 * Does a copy from a mapping of the device, [ptr, ptr + len), hold the
 * refused page (uapi/kmem_ro.h: every aligned u64 of it is
 * in->mmap_refused)?  One aligned u64 per page - under ptr's first byte,
 * then each later page's first: lines the copy reads anyway - loaded
 * between two fences so that neither the loads before (a copy this
 * checks) nor those after (a copy that follows) move across.  An entry
 * turns into the refused page only after the driver zapped it, and back
 * only after another zap: a copy checked before and after that read any
 * byte of the refused page sees the pattern in one of the checks, unless
 * two zaps (memory offlined and onlined, or mmap_ram written twice) came
 * during the copy itself.  Inline: the kcore preload checks every read.
 */
static inline bool kmemdev__refused(const struct kmem_ro_info *in, const void *ptr,
				    size_t len)
{
	uintptr_t mask = kmemdev__refused_mask(in);

	return mask && len && kmemdev__refused_in(in->mmap_refused, mask, ptr, len);
}

/*
 * Core files (kcore.c).  Parse the ELF64 header and program headers of an
 * open core file into *kc (fd is not stored: the caller sets kc->fd).
 * -ENOEXEC for anything that is not an ELF64 ET_CORE of this machine's
 * byte order and architecture, -EIO for a short file, -ENOMEM, -errno.
 */
KMEMDEV_INTERNAL int kmemdev__kcore_parse(int fd, struct kmemdev_kcore *kc);
KMEMDEV_INTERNAL void kmemdev__kcore_release(struct kmemdev_kcore *kc);

/* The segment holding kaddr, or NULL. */
KMEMDEV_INTERNAL const struct kmemdev_kseg *
kmemdev__kcore_find(const struct kmemdev_kcore *kc, uint64_t kaddr);

/* kmemdev_read() and kmemdev_info() of a kcore handle. */
KMEMDEV_INTERNAL int kmemdev__kcore_read(struct kmemdev *h, uint64_t kaddr,
					 void *buf, size_t len);
KMEMDEV_INTERNAL int kmemdev__kcore_info(struct kmemdev *h,
					 struct kmem_ro_info *info,
					 struct kmem_ro_range *ram,
					 unsigned int ram_cap);

/* Read BTF from path (raw or ELF) instead of the kernel's; before first use. */
KMEMDEV_INTERNAL int kmemdev__set_btf_path(struct kmemdev *h, const char *path);

/* Release the BTF state of a handle (called by kmemdev_close()). */
KMEMDEV_INTERNAL void kmemdev__btf_release(struct kmemdev *h);

#endif /* KMEMDEV_INTERNAL_H */
