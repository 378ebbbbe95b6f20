/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * libkmemdev - thin C library over /dev/kmem_ro.
 *
 * Every function that can fail returns 0 (or a non-negative count) on
 * success and a negative errno value on failure; errno itself is not part of
 * the contract.  kmemdev_strerror() turns those values into sentences
 * worded for the operation that failed (enum kmemdev_op).
 *
 * ABI: every function is declared and exported whatever the build options;
 * the library never writes its own sizeof into a struct the caller owns
 * (KMEMDEV_ARG()); parameters that may grow are flags words; an empty
 * vector acts on nothing (kmemdev_probes_*_all() act on everything).
 * `make abi-check` holds the exported ABI to libkmemdev/abi/libkmemdev.abi.
 *
 * A handle may be shared between threads.  Memory mapped by kmemdev_map()
 * stays mapped until kmemdev_close().  Symbol data comes from
 * /proc/kallsyms, read once per handle on first use (a snapshot: reopen the
 * handle, or bind it to an event stream, kmemdev_events_open(), to see
 * modules loaded later); struct layouts from the kernel's BTF, likewise.
 *
 * A handle reads through /dev/kmem_ro or, when the module is not loaded (or
 * on request), /proc/kcore: see KMEMDEV_BACKEND_* and, for what each
 * function does on each, its own comment.
 */
#ifndef KMEMDEV_H
#define KMEMDEV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "kmem_ro.h"
#include "kmem_ro_events.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KMEMDEV_API __attribute__((visibility("default")))

/*
 * The version of this header, the project's VERSION (MAJOR.MINOR.PATCH).
 * kmemdev_version() gives the version of the library actually loaded.
 * Within one MAJOR (the SONAME, libkmemdev.so.MAJOR) a newer library runs
 * every program built against an older header.
 */
#define KMEMDEV_VERSION_MAJOR	0
#define KMEMDEV_VERSION_MINOR	1
#define KMEMDEV_VERSION_PATCH	0

/*
 * KMEMDEV_OPTS(TYPE, NAME, ...) declares `struct TYPE NAME`, zeroed, with
 * .sz set to the size this program was built with, so that a newer library
 * can tell which fields the caller knows about.  The memset also zeroes
 * padding, which a newer library would otherwise read as unknown fields:
 *
 *	KMEMDEV_OPTS(kmemdev_open_opts, opts, .path = "/dev/kmem_ro");
 */
#define KMEMDEV_OPTS(TYPE, NAME, ...)					\
	struct TYPE NAME = ({						\
		__builtin_memset(&NAME, 0, sizeof(struct TYPE));	\
		(struct TYPE){						\
			.sz = sizeof(struct TYPE),			\
			__VA_ARGS__					\
		};							\
	})

/*
 * The library never writes its own sizeof into memory the caller owns.
 * kmemdev_info(), kmemdev_walk() and kmemdev_pagemap() (and the functions
 * built on them) take a kmem_ro.h argument struct whose .size the caller
 * sets: sizeof the struct as the caller was built, from the struct's
 * KMEM_RO_*_SIZE_VER0 up to 4096 (-EINVAL below, -E2BIG above; 0 is
 * -EINVAL).  The library reads and writes no byte past it, and the driver
 * treats it as every ioctl's size (a newer caller's unknown fields must be
 * zero).  KMEMDEV_ARG(TYPE, NAME, ...) declares `struct TYPE NAME`,
 * zeroed, with .size set; the other fields as given:
 *
 *	KMEMDEV_ARG(kmem_ro_walk, w, .head = head, .link_offset = off);
 *
 * Arrays of fixed-size entries (struct kmem_ro_range, kmem_ro_iov,
 * kmem_ro_probe_spec, kmem_ro_pagemap_run, kmem_ro_field) never change
 * size: kmem_ro.h gives a grown entry a new struct.  Structs the library
 * allocates and returns (struct kmemdev_sym, struct kmemdev_event) may
 * grow at their end.
 */
#define KMEMDEV_ARG(TYPE, NAME, ...)					\
	struct TYPE NAME = {						\
		.size = sizeof(struct TYPE),				\
		__VA_ARGS__						\
	}

/* The largest .size the library accepts in an argument struct. */
#define KMEMDEV_ARG_MAX		4096

/*
 * Where a handle reads kernel memory from (struct kmemdev_open_opts.backend).
 *  - KMEMDEV_BACKEND_AUTO: /dev/kmem_ro; when the device is absent (open
 *    fails with ENOENT, ENXIO or ENODEV: module not loaded) /proc/kcore
 *    instead.  A device that refuses the caller (EACCES, EPERM) is an
 *    error, never a reason to fall back.
 *  - KMEMDEV_BACKEND_DEVICE: /dev/kmem_ro only.
 *  - KMEMDEV_BACKEND_KCORE: /proc/kcore only (an ELF core file: @path may
 *    name another one, e.g. for tests).  Only kmemdev_read(), kmemdev_info()
 *    (partly), the symbol and BTF functions work; see each function.
 */
#define KMEMDEV_BACKEND_AUTO	0
#define KMEMDEV_BACKEND_DEVICE	1
#define KMEMDEV_BACKEND_KCORE	2

#define KMEMDEV_KCORE		"/proc/kcore"

/**
 * struct kmemdev_open_opts - options for kmemdev_open()
 * @sz: sizeof(struct kmemdev_open_opts) as the caller knows it; set by
 *	KMEMDEV_OPTS()
 * @path: node to open: the device (AUTO, DEVICE; NULL means
 *	KMEM_RO_DEVICE) or the core file (KCORE; NULL means KMEMDEV_KCORE).
 *	AUTO's fallback always opens KMEMDEV_KCORE.
 * @backend: KMEMDEV_BACKEND_* (0: AUTO)
 *
 * New fields are only ever appended.  Bytes past the last field this
 * library knows must be zero, or kmemdev_open() fails with -E2BIG.
 */
struct kmemdev_open_opts {
	size_t sz;
	const char *path;
	int backend;
};
#define kmemdev_open_opts__last_field backend

/**
 * struct kmemdev_sym - one /proc/kallsyms entry
 * @addr: symbol address
 * @name: symbol name
 * @module: module name for "name [module]" lines, NULL for vmlinux
 * @type: nm-style type letter as printed by kallsyms ('T', 't', 'D', ...)
 *
 * Owned by the handle and valid until kmemdev_close() (a handle bound to
 * an event stream: until kmemdev_events_next() drops its symbols).
 * Allocated by the library only, so fields may be appended in later
 * versions.
 */
struct kmemdev_sym {
	uint64_t addr;
	const char *name;
	const char *module;
	char type;
};

/** Opaque device handle. */
struct kmemdev;

/**
 * @brief Open the kmem_ro device (or /proc/kcore) and check its format.
 *
 * Device: opens the node read-only and close-on-exec, then issues
 * KMEM_RO_IOC_INFO as a handshake and caches the answer.  kcore: opens the
 * file and parses its ELF64 program headers once.  With the default
 * backend (AUTO) a missing device falls back to /proc/kcore; if that fails
 * too, the device's error is returned.  kmemdev_backend_name() tells which
 * one was opened.
 *
 * @param out receives the new handle; set to NULL on failure
 * @param opts options, or NULL for defaults (see struct kmemdev_open_opts)
 * @return 0 on success, negative errno otherwise: -ENOENT (module not
 *	loaded), -EACCES (not in the device's group), -EPERM (kernel lockdown
 *	or require_rawio), -ENOTTY (not a kmem_ro device), -EISDIR, -EPROTO
 *	(driver lacks the INFO ioctl or reports an ABI version below 1),
 *	-ENOEXEC (KCORE: not an ELF64 core file of this machine),
 *	-EINVAL/-E2BIG (bad arguments, options or backend), -ENOMEM
 */
KMEMDEV_API int kmemdev_open(struct kmemdev **out,
			     const struct kmemdev_open_opts *opts);

/**
 * @brief Close a handle and free everything it owns.
 *
 * Pointers returned by the symbol functions become invalid, and memory
 * returned by kmemdev_map() is unmapped: touching it then faults.
 *
 * @param h handle from kmemdev_open(), or NULL (no-op)
 */
KMEMDEV_API void kmemdev_close(struct kmemdev *h);

/**
 * @brief File descriptor of the open device, e.g. for mmap() or poll().
 *
 * The descriptor stays owned by the handle: do not close it.
 *
 * @param h handle
 * @return the descriptor (>= 0) on success, negative errno otherwise
 *	(-EINVAL for a NULL handle or a kcore handle, which has no device)
 */
KMEMDEV_API int kmemdev_fd(const struct kmemdev *h);

/**
 * @brief Which source a handle reads: "kmem_ro" or "kcore".
 *
 * @param h handle
 * @return a static string: "kmem_ro" (the device), "kcore" (/proc/kcore or
 *	the core file named at open), or "none" for a NULL handle
 */
KMEMDEV_API const char *kmemdev_backend_name(const struct kmemdev *h);

/**
 * @brief Query ABI version, features and kernel layout (KMEM_RO_IOC_INFO).
 *
 * Pass ram = NULL and ram_cap = 0 to learn the number of System RAM ranges,
 * then call again with a buffer that large.  Only min(result, ram_cap)
 * entries of @p ram are written.
 *
 * @p info is an out argument of the size its .size states (see
 * KMEMDEV_ARG()): on success every byte of it from the flags on is
 * written, fields the answer lacks as 0, and .size keeps its value; on
 * failure it is left as it was.  ram_addr and ram_cap show @p ram and
 * @p ram_cap.
 *
 * kcore handle: built from the core file's program headers, not asked
 * of a driver, and only the fields kcore can tell are set; the others are
 * 0 (abi_version, features, ioctls, pmd_size, vmalloc_start/end):
 *  - page_size = the system page size;
 *  - page_offset = p_vaddr - p_paddr of a RAM segment (one with a
 *    physical address, below the image);
 *  - kernel_map = __START_KERNEL_map (x86-64: 0xffffffff80000000), and
 *    phys_base = p_paddr - (p_vaddr - kernel_map) of the image segment (the
 *    one with a physical address at or above kernel_map); x86-64 only, 0
 *    elsewhere;
 *  - text_start/text_end = _stext and _etext rounded up to a page, from
 *    /proc/kallsyms (the image segment runs to _end, so kcore alone cannot
 *    tell where text ends); both 0 when kallsyms hides them;
 *  - modules_start/end = the largest segment above the image that has no
 *    physical address (kcore does not label vmalloc and vmemmap apart,
 *    so vmalloc_start/end stay 0);
 *  - the RAM ranges = the RAM segments' physical ranges (whole pages).
 *
 * @param h handle
 * @param info .size in (KMEM_RO_INFO_SIZE_VER0 to KMEMDEV_ARG_MAX), the
 *	rest filled in by the driver
 * @param ram array receiving System RAM ranges, or NULL
 * @param ram_cap number of entries @p ram holds (0 iff @p ram is NULL)
 * @return total number of System RAM ranges (>= 0) on success, negative
 *	errno otherwise (-EINVAL for bad arguments or .size below
 *	KMEM_RO_INFO_SIZE_VER0, -E2BIG for .size above KMEMDEV_ARG_MAX or a
 *	tail the driver does not know that is not zero, -EFAULT, -ENOMEM)
 */
KMEMDEV_API int kmemdev_info(struct kmemdev *h, struct kmem_ro_info *info,
			     struct kmem_ro_range *ram, unsigned int ram_cap);

/**
 * @brief kmemdev_info() with the RAM ranges in a buffer of the right size.
 *
 * Asks for the count, then the ranges, and asks again while memory hotplug
 * makes the list grow in between.  Every one of the @p nr entries is one
 * the driver wrote.
 *
 * @param h handle
 * @param info .size in, filled in as by kmemdev_info()
 * @param ram receives a malloc()ed array (free() it), NULL if none
 * @param nr receives the number of ranges
 * @return 0 on success, negative errno otherwise (as kmemdev_info(),
 *	-EAGAIN if the list kept changing, -EPROTO if the driver counted
 *	more ranges than it wrote)
 */
KMEMDEV_API int kmemdev_info_alloc(struct kmemdev *h, struct kmem_ro_info *info,
				   struct kmem_ro_range **ram, unsigned int *nr);

/**
 * @brief Address of a kernel or module symbol, by name.
 *
 * When several symbols share the name, vmlinux wins over modules and the
 * lowest address wins after that.
 *
 * Where symbols come from (docs/symbols.md): a device handle whose driver
 * reports KMEM_RO_FEAT_VMCOREINFO answers the first vmlinux names from the
 * kernel's own kallsyms tables, decoded through the device for that name
 * alone.  Otherwise, and for everything else, the handle builds one table:
 * from /proc/kallsyms where that shows the caller real addresses, else
 * from the kernel's tables and the module list through the device (the
 * monitoring group on Debian, where /proc/kallsyms shows zeros without
 * CAP_SYSLOG).  Entries are those /proc/kallsyms prints, except, from the
 * device, its bpf, kprobe and ftrace pseudo-entries ("[bpf]",
 * "[__builtin__kprobes]", "[__builtin__ftrace]", freed module init code).
 *
 * @param h handle
 * @param name symbol name as printed by /proc/kallsyms, without "[module]"
 * @param addr receives the address
 * @return 0 on success, negative errno otherwise: -ENOENT (no such
 *	symbol), -EACCES (/proc/kallsyms hides addresses: kernel.kptr_restrict
 *	or missing CAP_SYSLOG, and no device with KMEM_RO_FEAT_VMCOREINFO),
 *	-EPROTO (the kernel's tables do not decode), -EINVAL, -ENOMEM, or an
 *	error reading /proc/kallsyms, the device or BTF
 */
KMEMDEV_API int kmemdev_symbol(struct kmemdev *h, const char *name,
			       uint64_t *addr);

/**
 * @brief Full /proc/kallsyms entry of a symbol, by name.
 *
 * Same choice among duplicate names as kmemdev_symbol().
 *
 * @param h handle
 * @param name symbol name, without "[module]"
 * @param sym receives a pointer valid until kmemdev_close()
 * @return 0 on success, negative errno otherwise (as kmemdev_symbol())
 */
KMEMDEV_API int kmemdev_symbol_find(struct kmemdev *h, const char *name,
				    const struct kmemdev_sym **sym);

/**
 * @brief Nearest symbol at or below an address.
 *
 * kallsyms carries no symbol sizes, so an address past the last symbol
 * resolves to that symbol with a large offset; callers that care should
 * range-check with kmemdev_info() first.  Among symbols sharing an address,
 * text symbols win, then global ones, then the first in /proc/kallsyms.
 *
 * @param h handle
 * @param addr kernel address
 * @param sym receives the symbol's entry: name, and module (NULL for
 *	vmlinux); valid until kmemdev_close()
 * @param offset receives addr minus the symbol address; may be NULL
 * @return 0 on success, negative errno otherwise: -ENOENT (addr below every
 *	symbol, or no symbols), -EACCES, -EINVAL, -ENOMEM
 */
KMEMDEV_API int kmemdev_symbolize(struct kmemdev *h, uint64_t addr,
				  const struct kmemdev_sym **sym,
				  uint64_t *offset);

/**
 * @brief Parse an address expression: 0xHEX, SYMBOL, SYMBOL+OFF, SYMBOL-OFF.
 *
 * HEX is 1 to 16 significant hex digits after "0x" (or "0X").  A bare
 * number is rejected, decimal or not: "1000" could be meant as hex, and a
 * symbol name never starts with a digit, so nothing is guessed.  OFF is
 * "0x" hex or decimal (leading zeros do not make it octal).  SYMBOL is
 * looked up as kmemdev_symbol() does; it may not contain blanks, '+' or
 * '-'.  The expression is checked whole before any symbol is looked up.
 * Also accepted: 0xHEX+OFF and 0xHEX-OFF.
 *
 * @param h handle (used for symbols)
 * @param expr NUL-terminated expression, no surrounding blanks
 * @param addr receives the address; untouched on failure
 * @return 0 on success, negative errno otherwise: -EINVAL (malformed
 *	expression, or NULL argument), -ERANGE (a number or the result does
 *	not fit in 64 bits), or a kmemdev_symbol() error: -ENOENT (no such
 *	symbol), -EACCES (addresses hidden), -ENODATA, -ENOMEM
 */
KMEMDEV_API int kmemdev_parse_addr(struct kmemdev *h, const char *expr,
				   uint64_t *addr);

/**
 * @brief Map kernel memory read-only and return a pointer to it.
 *
 * [kaddr, kaddr + len) is translated with the address model of kmem_ro.h:
 * kernel image addresses (text_start <= kaddr, kaddr + len <= modules_start)
 * to kaddr - kernel_map + phys_base, direct-map addresses (page_offset and
 * above, outside the vmalloc and module areas, below kernel_map) to
 * kaddr - page_offset.  The whole range must then lie inside one System
 * RAM range, counting only the pages wholly inside it (a partial page at
 * either end of a range is never mappable: it is not System RAM).
 *
 * The first use of a RAM range maps all of it (PROT_READ, MAP_SHARED);
 * that costs address space, not memory, as the driver fills page tables on
 * touch.  Later calls make no system call and take no lock.  RAM is
 * mappable only when the module was loaded with the opt-in mmap_ram=1;
 * by default (KMEM_RO_FEAT_MMAP_RAM clear, or mmap answering EPERM) only
 * the physical range of the kernel text is mappable, through its image or
 * its direct-map address.
 *
 * The memory is live: it may change while read, and reads wider than the
 * CPU's natural width are not atomic.  A page the driver will not show
 * (memfd_secret, offline or hardware-poisoned pages, memory whose type is
 * not write-back; /proc/kcore shows them as zeros) and, once mmap_ram is
 * set back to 0, all RAM beyond the kernel text, reads as the driver's
 * refused page: the non-zero pattern kmem_ro_info.mmap_refused
 * (kmemdev_info()) in every aligned u64, never a signal.  Check a copy
 * with kmemdev_map_refused() and read it again with kmemdev_read(), which
 * does both for you.  A driver without KMEM_RO_FEAT_MMAP_REFUSED raised
 * SIGBUS there: with such a driver the library maps only the text.
 *
 * Anything else fails with -ENXIO: vmalloc memory (including vmapped
 * stacks and vmalloc'ed per-CPU chunks), modules, fixmap, user addresses,
 * per-CPU symbol offsets, physical holes.  kmemdev_read() has the driver
 * read those instead (pread() by address, or READV: kmemdev_readv()).
 * A kcore handle maps nothing: -EOPNOTSUPP.
 *
 * @param h handle
 * @param kaddr kernel virtual address
 * @param len number of bytes, at least 1
 * @param ptr receives a pointer to kaddr, valid for len bytes until
 *	kmemdev_close(); set to NULL on failure
 * @return 0 on success, negative errno otherwise: -EINVAL (NULL argument,
 *	len 0, kaddr + len past 2^64), -ENXIO (not mappable, see above),
 *	-EOPNOTSUPP (the driver offers no mmap of this memory), -EPERM (mmap
 *	refused), -EPROTO (the driver reports a bad page size), -ENOMEM,
 *	another mmap(2) error, or a kmemdev_info() error on first use
 */
KMEMDEV_API int kmemdev_map(struct kmemdev *h, uint64_t kaddr, size_t len,
			    const void **ptr);

/**
 * @brief Does a copy from kmemdev_map() memory maybe hold a refused page?
 *
 * Loads one aligned u64 of every page [ptr, ptr + len) touches and
 * compares it with kmem_ro_info.mmap_refused, with fences so that it
 * orders against a copy made before or after it.  Call it before and
 * after copying: if either says true, read the range with kmemdev_read()
 * instead, which gives the driver's answer for it (data, or the errno
 * where /proc/kcore shows zeros).  A page whose data happens to equal the
 * pattern only costs that read.  An entry turns into the refused page,
 * and back, only after the driver unmaps it; a copy between two checks
 * that see no pattern read none, unless the page was revoked and shown
 * again (two unmaps: memory offlined and onlined, mmap_ram written twice)
 * during the copy.
 *
 * @param h handle
 * @param ptr a pointer kmemdev_map() returned for at least len bytes
 * @param len number of bytes
 * @return true if a page shows the pattern; false if none does, for a
 *	driver without KMEM_RO_FEAT_MMAP_REFUSED, or a NULL or 0 argument
 */
KMEMDEV_API bool kmemdev_map_refused(struct kmemdev *h, const void *ptr, size_t len);

/**
 * @brief Copy kernel memory into a buffer, from whichever source serves it.
 *
 * Device handle: through kmemdev_map() when the range is mappable; the
 * copy is a snapshot only as far as memcpy() of live memory is one.  A
 * range in which kmemdev_map_refused() sees the refused page, before or
 * after the copy, is read by the driver as below: a page it refuses gives
 * the driver's errno, never the pattern or a signal.  When it is not
 * (kmemdev_map() says -ENXIO or -EOPNOTSUPP: vmalloc, modules, per-CPU
 * chunks, RAM by default: mmap_ram=0), the driver reads the range: with
 * one pread() of the device at KMEM_RO_READ_OFFSET(kaddr) when it has
 * KMEM_RO_FEAT_PREAD, else (an older driver) with one READV segment
 * (KMEM_RO_FEAT_READV).  Either way its errors become the function's, the
 * same for both: -EINVAL (not a kernel address), -EFAULT (unmapped, or
 * the read stopped short: the unread remainder counts as unreadable),
 * -ENXIO (not RAM), -EPERM (RAM the kernel hides from itself).  A pread()
 * that a signal cut short is resumed, one it stopped before any byte
 * (EINTR) made again.
 *
 * kcore handle: pread() of the PT_LOAD segments covering the range (it may
 * span adjacent ones); what kcore returns for unreadable pages (zeros) is
 * the kernel's business.  -ENXIO when some byte lies in no segment.
 *
 * All or nothing: on failure @p buf is left as it was, except after an
 * I/O error of /proc/kcore itself, or when a page of a mapping was revoked
 * during the copy and the driver then refused it.
 *
 * @param h handle
 * @param kaddr kernel virtual address
 * @param buf receives len bytes
 * @param len number of bytes, at least 1
 * @return 0 on success, negative errno otherwise (as kmemdev_map() and
 *	above; also -EINVAL for a NULL buf, -ENOMEM)
 */
KMEMDEV_API int kmemdev_read(struct kmemdev *h, uint64_t kaddr, void *buf,
			     size_t len);

/**
 * @brief Read many kernel ranges with as few READV ioctls as possible.
 *
 * Segments are submitted in order, in batches within the driver's limits
 * (KMEM_RO_READV_MAX_SEGS segments, KMEM_RO_READV_MAX_BYTES bytes); a
 * segment longer than KMEM_RO_READV_MAX_BYTES is read in pieces and its
 * result summed (short at the first piece that fails, that piece's
 * negative errno if it is the first).  A call that a signal cut short is
 * resubmitted from where it stopped, an -EINTR call (no progress) retried,
 * so the function returns only once every segment has its result or a call
 * failed.
 *
 * Per-segment failures are not failures of the function: each
 * iov[i].result holds the bytes read or a negative errno (see kmem_ro.h:
 * -EINVAL, -EFAULT, -ENXIO, -EPERM).
 *
 * @param h handle (device)
 * @param iov segments: addr, len and buf in; result out
 * @param n number of segments (0 is a no-op)
 * @param done receives the number of segments whose result is written
 *	(n on success); may be NULL
 * @return 0 on success, negative errno otherwise: -EINVAL (NULL handle,
 *	NULL iov with n > 0), -EOPNOTSUPP (kcore handle, or the driver lacks
 *	KMEM_RO_FEAT_READV), or the ioctl's error (-EFAULT, -ENOMEM, -E2BIG)
 */
KMEMDEV_API int kmemdev_readv(struct kmemdev *h, struct kmem_ro_iov *iov,
			      unsigned int n, unsigned int *done);

/**
 * @brief One KMEM_RO_IOC_WALK call: gather fields of every node of a list.
 *
 * Passes @p w to the driver as it is: the caller sets w->size (see
 * KMEMDEV_ARG()), fills the in fields and reads the out fields as
 * kmem_ro.h describes.  An -EINTR call (a signal before any node) is
 * retried.
 *
 * @param h handle (device)
 * @param w walk argument, in and out
 * @return 0 on success (see w->status), negative errno otherwise: -EINVAL
 *	(NULL argument, w->size below KMEM_RO_WALK_SIZE_VER0, or the
 *	driver's EINVAL), -E2BIG (w->size above KMEMDEV_ARG_MAX),
 *	-EOPNOTSUPP (kcore handle, or the driver lacks KMEM_RO_FEAT_WALK),
 *	or the ioctl's error
 */
KMEMDEV_API int kmemdev_walk(struct kmemdev *h, struct kmem_ro_walk *w);

/**
 * @brief Walk a whole list into a buffer that grows as needed.
 *
 * Calls kmemdev_walk() until the walk comes back to the head, resuming at
 * w->next after KMEM_RO_WALK_BUF_FULL (the buffer is doubled first),
 * KMEM_RO_WALK_MAX_REACHED and KMEM_RO_WALK_INTERRUPTED.  The list is
 * not locked between calls: a list that changes meanwhile gives a
 * snapshot of no single instant.
 *
 * w: size, head, flags, link_offset, fields_addr, fields_count are used
 * as given; w->max_nodes caps the total number of nodes (0: no cap beyond
 * KMEM_RO_WALK_MAX_NODES) and is given back as it was; start, buf_addr
 * and buf_size are overwritten.  On return w holds the last call's out
 * fields.
 *
 * @param h handle (device)
 * @param w walk template, see above
 * @param buf in/out: a malloc()ed buffer or NULL; grown with realloc() and
 *	left to the caller to free (even on failure).  Reusing it across
 *	calls avoids regrowing.
 * @param cap in/out: capacity of *buf in bytes
 * @param nodes receives the number of records in *buf, also on failure
 * @return 0 when the walk reached the head again; negative errno
 *	otherwise: -ELOOP (KMEM_RO_WALK_LOOP), w->fault_errno
 *	(KMEM_RO_WALK_FAULT; w->fault_addr says where), -E2BIG (the cap was
 *	reached with nodes left), -ENOMEM, or a kmemdev_walk() error.  The
 *	records gathered so far stay in *buf.
 */
KMEMDEV_API int kmemdev_walk_all(struct kmemdev *h, struct kmem_ro_walk *w,
				 void **buf, size_t *cap, uint32_t *nodes);

/**
 * @brief One KMEM_RO_IOC_PAGEMAP call: page-table entries of a process.
 *
 * Passes @p arg to the driver as it is: the caller sets arg->size (see
 * KMEMDEV_ARG()), fills the in fields (pid, start, end, flags, buffer)
 * and reads count and walk_end as kmem_ro.h describes.  Entries are those of
 * /proc/PID/pagemap, PFNs hidden unless the handle's opener had
 * CAP_SYS_ADMIN.  An -EINTR call is retried.
 *
 * @param h handle (device)
 * @param arg pagemap argument, in and out
 * @return 0 on success (arg->walk_end < arg->end: call again from there),
 *	negative errno otherwise: -EINVAL (NULL argument, arg->size below
 *	KMEM_RO_PAGEMAP_SIZE_VER0, or the driver's EINVAL: range, flags,
 *	buffer), -E2BIG (arg->size above KMEMDEV_ARG_MAX, or the driver's
 *	E2BIG), -EOPNOTSUPP (kcore handle, or the driver lacks
 *	KMEM_RO_FEAT_PAGEMAP), -ESRCH (no such process, a kernel thread, or
 *	one that exited), -EPERM (another process without CAP_SYS_PTRACE),
 *	-EFAULT, -ENOMEM
 */
KMEMDEV_API int kmemdev_pagemap(struct kmemdev *h, struct kmem_ro_pagemap *arg);

/**
 * @brief Describe a whole range of a process as runs, in a growing array.
 *
 * Calls kmemdev_pagemap() with KMEM_RO_PAGEMAP_RUNS, resuming at walk_end,
 * until [start, end) is described, doubling the array whenever less than
 * half of it is free.  Runs are back to back from @p start to @p end
 * (holes are runs too, with no PRESENT or SWAP bit); a run that continues
 * the one before it across two calls is merged into it, so the answer
 * does not depend on how the range was cut.  The process is not stopped:
 * the calls see its page tables at slightly different times.
 *
 * @param h handle (device)
 * @param pid process in the caller's PID namespace; 0 for the caller
 * @param start first address, page aligned
 * @param end end of the range (exclusive), page aligned, above @p start,
 *	in user space
 * @param runs receives a malloc()ed array the caller frees; NULL on failure
 * @param count receives its number of runs (at least 1); 0 on failure
 * @return 0 on success, negative errno otherwise: -EINVAL (NULL argument,
 *	negative pid, empty or reversed range, or the driver's EINVAL),
 *	-EPROTO (the driver answered something inconsistent), -ENOMEM, or a
 *	kmemdev_pagemap() error
 */
KMEMDEV_API int kmemdev_pagemap_runs(struct kmemdev *h, pid_t pid,
				     uint64_t start, uint64_t end,
				     struct kmem_ro_pagemap_run **runs,
				     size_t *count);

/**
 * @brief The /proc/PID/pagemap entry of one page of a run.
 *
 * Pure: the run's flags with its frame carried on to the page, one per
 * page for a present run, 1 << 5 per page (the swap offset, above the
 * 5-bit swap type) for a swapped one, and not at all when the frame is 0
 * (PFNs hidden, or a run with no frame).
 *
 * @param run a run from kmemdev_pagemap() or kmemdev_pagemap_runs()
 * @param addr any address inside the run (rounded down to its page)
 * @return the 64-bit entry; 0 (a hole's entry) for a NULL run or an
 *	address outside it
 */
KMEMDEV_API uint64_t kmemdev_pagemap_entry(const struct kmem_ro_pagemap_run *run,
					   uint64_t addr);

/**
 * @brief Offset and size of a struct or union member, from kernel BTF.
 *
 * The type information is the running kernel's BTF, the bytes of
 * /sys/kernel/btf/vmlinux (mapped where the kernel allows it, since 6.16;
 * else, on a device handle, read in one call from where the kernel keeps
 * them, checked against the file's first page; else read from the file),
 * parsed by libbpf's btf__new() on first use and kept by the handle.  @p type names a struct or union (an optional "struct " or
 * "union " prefix is ignored) or a typedef of one.  Members of anonymous
 * struct and union members are searched too, their offsets added; dotted
 * paths ("a.b") are not supported.
 *
 * @param h handle (either backend)
 * @param type type name, e.g. "task_struct"
 * @param member member name, e.g. "pid"
 * @param offset receives the byte offset of the member; may be NULL
 * @param size receives its size in bytes; may be NULL
 * @return 0 on success, negative errno otherwise: -ENOENT (no such type or
 *	member), -EINVAL (NULL argument, or a bitfield or a member that does
 *	not start on a byte), -ENODATA (the kernel has no BTF), -ENOMEM, or
 *	the error of loading it
 */
KMEMDEV_API int kmemdev_btf_member(struct kmemdev *h, const char *type,
				   const char *member, uint32_t *offset,
				   uint32_t *size);

struct btf;

/**
 * @brief The running kernel's BTF, as the handle loads it.
 *
 * The BTF kmemdev_btf_member() reads (see there for where it comes from),
 * loaded on first use, for callers that walk types with libbpf's btf__*()
 * functions.  It belongs to the handle: valid until kmemdev_close(), not
 * to be freed or changed.
 *
 * @param h handle (either backend)
 * @param btf receives libbpf's struct btf
 * @return 0 on success, negative errno otherwise: -EINVAL (NULL
 *	argument), -ENODATA (the kernel has no BTF), -ENOMEM, or the error of
 *	loading it
 */
KMEMDEV_API int kmemdev_btf(struct kmemdev *h, const struct btf **btf);

/*
 * Probes (KMEM_RO_IOC_PROBE_*): hit counters on kernel functions, owned by
 * the handle's open file and gone with kmemdev_close().  Adding, enabling
 * and disabling need CAP_PERFMON or CAP_SYS_ADMIN, or the driver's
 * probe_group=1 parameter (-EPERM otherwise, also
 * under lockdown of kprobes); counts and lists need only the handle.  All
 * of them want a device handle whose driver has KMEM_RO_FEAT_PROBES
 * (-EOPNOTSUPP otherwise).  Each wrapper splits its work into calls of at
 * most KMEM_RO_PROBE_MAX_BATCH specs or ids and resubmits whatever a signal
 * left undone.
 */

/**
 * @brief Add probes, in as few KMEM_RO_IOC_PROBE_ADD calls as possible.
 *
 * Fill each spec with kmemdev_probe_spec_fill() (or by hand: addr, name,
 * offset, flags; KMEM_RO_PROBE_ENABLED arms it at once).  Per-spec
 * failures are not failures of the function: each specs[i].result holds
 * the new probe id (> 0) or a negative errno (-ENOENT, -EEXIST, -EINVAL,
 * -EOPNOTSUPP, -ENOSPC, -ENOMEM, -EBUSY, see kmem_ro.h).  Ids are never
 * given twice within a handle.
 *
 * Aliases: the driver checks a name against the one the kernel's own
 * lookup gives for the address, and where several names share one address
 * (the compiler merges identical functions: __x64_sys_getppid,
 * __ia32_sys_getppid and __do_sys_getppid are one function) that is only
 * one of them.  A spec refused with -ENOENT whose name /proc/kallsyms does
 * show as a function at that address is therefore tried again under the
 * other function names there (up to 8); the spec keeps the caller's name
 * and gets the probe's id.
 *
 * @param h handle (device)
 * @param specs probes to add; result out
 * @param n number of specs (0 is a no-op)
 * @param added receives the number of specs that got an id, also on
 *	failure (then counting the batches done); may be NULL
 * @return 0 on success, negative errno otherwise: -EINVAL (NULL handle,
 *	NULL specs with n > 0, or the driver's EINVAL), -EOPNOTSUPP, -EPERM
 *	(no CAP_PERFMON/CAP_SYS_ADMIN, or lockdown), -EFAULT, -ENOMEM,
 *	-EPROTO (the driver answered without progress)
 */
KMEMDEV_API int kmemdev_probes_add(struct kmemdev *h,
				   struct kmem_ro_probe_spec *specs,
				   unsigned int n, unsigned int *added);

/**
 * @brief Enable probes of this handle (KMEM_RO_IOC_PROBE_ENABLE).
 *
 * An empty vector acts on nothing: n == 0 is a no-op, whatever @p ids is.
 * kmemdev_probes_enable_all() acts on every probe of the handle.
 *
 * @param h handle (device)
 * @param ids probe ids from kmemdev_probes_add(); NULL only with n == 0
 * @param n number of ids
 * @return 0 on success, negative errno otherwise: -ENOENT (an unknown id;
 *	the ids before it were acted on), -EBUSY (kprobes or ftrace refused
 *	a probe; the ids before it were acted on), -EINVAL, -EOPNOTSUPP,
 *	-EPERM, -EFAULT, -ENOMEM, -EPROTO
 */
KMEMDEV_API int kmemdev_probes_enable(struct kmemdev *h, const uint64_t *ids,
				      unsigned int n);

/**
 * @brief Enable every probe of this handle (KMEM_RO_PROBE_ALL).
 *
 * @param h handle (device)
 * @return 0 on success, negative errno otherwise: as
 *	kmemdev_probes_enable(), but no -ENOENT
 */
KMEMDEV_API int kmemdev_probes_enable_all(struct kmemdev *h);

/**
 * @brief Disable probes of this handle (KMEM_RO_IOC_PROBE_DISABLE).
 *
 * Arguments and return values as kmemdev_probes_enable().  Counts are kept.
 */
KMEMDEV_API int kmemdev_probes_disable(struct kmemdev *h, const uint64_t *ids,
				       unsigned int n);

/**
 * @brief Disable every probe of this handle (KMEM_RO_PROBE_ALL).
 *
 * Return values as kmemdev_probes_enable_all().
 */
KMEMDEV_API int kmemdev_probes_disable_all(struct kmemdev *h);

/**
 * @brief Remove probes of this handle (KMEM_RO_IOC_PROBE_DEL).
 *
 * Arguments and return values as kmemdev_probes_enable(): n == 0 removes
 * nothing.
 */
KMEMDEV_API int kmemdev_probes_del(struct kmemdev *h, const uint64_t *ids,
				   unsigned int n);

/**
 * @brief Remove every probe of this handle (KMEM_RO_PROBE_ALL).
 *
 * Return values as kmemdev_probes_enable_all().
 */
KMEMDEV_API int kmemdev_probes_del_all(struct kmemdev *h);

/**
 * @brief Hit counts of probes of this handle (KMEM_RO_IOC_PROBE_STATS).
 *
 * counts[i] receives the count of ids[i]; n == 0 reads nothing.
 *
 * @param h handle (device)
 * @param ids probe ids; NULL only with n == 0
 * @param n number of ids
 * @param counts receives the counts; NULL only with n == 0
 * @param flags 0, or KMEM_RO_PROBE_RESET: restart each count read from 0
 *	(no hit is lost)
 * @return n on success, negative errno otherwise: -ENOENT (an unknown
 *	id), -EINVAL (also unknown flags), -EOPNOTSUPP, -EFAULT, -EPROTO
 */
KMEMDEV_API int kmemdev_probes_stats(struct kmemdev *h, const uint64_t *ids,
				     unsigned int n, uint64_t *counts,
				     uint64_t flags);

/**
 * @brief Hit counts of every probe of this handle (KMEM_RO_PROBE_ALL).
 *
 * counts[] in id order (the order of kmemdev_probes_list() of this
 * handle), at most @p cap of them; counts NULL and cap 0 learn the number
 * of probes only (and reset none).
 *
 * @param h handle (device)
 * @param counts receives the counts; NULL only with cap == 0
 * @param cap entries @p counts holds
 * @param flags 0 or KMEM_RO_PROBE_RESET, as kmemdev_probes_stats()
 * @return the number of probes the handle has (which may exceed @p cap:
 *	only @p cap counts were read) on success, negative errno otherwise:
 *	-EINVAL, -EOPNOTSUPP, -EFAULT, -EOVERFLOW
 */
KMEMDEV_API int kmemdev_probes_stats_all(struct kmemdev *h, uint64_t *counts,
					 unsigned int cap, uint64_t flags);

/**
 * @brief Every probe of this handle, or of every open file of the device.
 *
 * Counts first, then lists into a buffer of that size plus some room, and
 * asks again (at most 8 times, then -EAGAIN) while probes are added faster
 * than that in between.  Entries come in the driver's order.
 *
 * @param h handle (device)
 * @param flags 0, or KMEM_RO_PROBE_LIST_ALL_FILES: every open file's
 *	probes (see kmem_ro_probe_info.owner), not only this handle's
 * @param out receives a malloc()ed array (free() it); NULL when empty or
 *	on failure
 * @param count receives the number of entries
 * @return 0 on success, negative errno otherwise: -EINVAL (also unknown
 *	flags), -EOPNOTSUPP, -EFAULT, -ENOMEM, -EAGAIN, -EOVERFLOW
 */
KMEMDEV_API int kmemdev_probes_list(struct kmemdev *h, uint64_t flags,
				    struct kmem_ro_probe_info **out,
				    unsigned int *count);

/**
 * @brief Count only the hits of one process, of one task name, or both.
 *
 * Sets the handle's probe filter (KMEM_RO_IOC_PROBE_FILTER): from the
 * return on, a hit of any of its probes, present or later, counts only
 * when the task running the probed code belongs to process @p pid (any of
 * its threads) and/or is named exactly @p comm (as /proc/PID/comm shows
 * it).  A new filter replaces the old one; flags 0 clears it.  Counts made
 * before stay.  The filter holds the process itself: once it has exited,
 * no hit matches, even if its number is used again.
 *
 * @param h handle (device)
 * @param flags KMEM_RO_PROBE_FILTER_PID, KMEM_RO_PROBE_FILTER_COMM, both
 *	(a hit must match both), or 0 to clear the filter
 * @param pid with KMEM_RO_PROBE_FILTER_PID, a process id (thread-group
 *	id) in the caller's pid namespace; else ignored
 * @param comm with KMEM_RO_PROBE_FILTER_COMM, a task name of at most
 *	KMEM_RO_PROBE_COMM_LEN - 1 bytes; else ignored (may be NULL)
 * @return 0 on success, negative errno otherwise: -EINVAL (NULL handle,
 *	unknown flags, a pid of 0 or less, a NULL comm), -ENAMETOOLONG (comm
 *	of KMEM_RO_PROBE_COMM_LEN bytes or more), -ESRCH (no process has
 *	that id), -EOPNOTSUPP (kcore handle, or the driver lacks
 *	KMEM_RO_FEAT_PROBE_FILTER), -EPERM (as kmemdev_probes_add()),
 *	-EFAULT, -ENOMEM
 */
KMEMDEV_API int kmemdev_probe_filter(struct kmemdev *h, uint64_t flags,
				     pid_t pid, const char *comm);

/**
 * @brief Fill a probe spec for a kernel function, by name.
 *
 * Looks the name up in /proc/kallsyms among text symbols only (types 't'
 * and 'T'), skipping what is never a function entry: 6.12's "__pfx_" and
 * "__cfi_" preambles and ".cold" parts.  Among duplicate names (static
 * functions of several files), vmlinux wins over modules, then the lowest
 * address; kmemdev_probe_glob() reaches the others.  The whole spec is
 * rewritten: addr, name, @p offset, @p flags, and result 0.
 *
 * @param h handle (either backend: only kallsyms is read)
 * @param spec receives the spec
 * @param name function name, without "[module]"
 * @param offset bytes into the function (0: entry, served by ftrace;
 *	otherwise by a kprobe, which the driver checks lands on an
 *	instruction)
 * @param flags 0 or KMEM_RO_PROBE_ENABLED
 * @return 0 on success, negative errno otherwise: -ENOENT (no text symbol
 *	of that name), -ENAMETOOLONG (KMEM_RO_PROBE_NAME_LEN or more), -EINVAL
 *	(NULL or empty argument, unknown flags), or a kmemdev_symbol() error
 *	(-EACCES: addresses hidden, -ENODATA, -ENOMEM)
 */
KMEMDEV_API int kmemdev_probe_spec_fill(struct kmemdev *h,
					struct kmem_ro_probe_spec *spec,
					const char *name, uint32_t offset,
					uint32_t flags);

/**
 * Callback of kmemdev_probe_glob(): return 0 to go on, anything else to
 * stop the walk and have kmemdev_probe_glob() return that value (use
 * negative errno values, or values above any match count you expect).
 */
typedef int (*kmemdev_sym_fn)(const struct kmemdev_sym *sym, void *arg);

/**
 * @brief Every kernel function whose name matches a glob.
 *
 * Walks the text symbols of /proc/kallsyms (vmlinux and modules) in name
 * order, duplicates included (each has its own address), with the same
 * exclusions as kmemdev_probe_spec_fill(), and calls @p fn for each whose
 * name matches @p pattern as fnmatch(3) with no flags does ('*', '?',
 * "[...]", backslash escapes).  Optimised suffixes such as ".isra.0",
 * ".constprop.0" or ".part.0" are separate functions and are kept; the
 * driver refuses those it cannot probe (notrace, blacklisted) with
 * EOPNOTSUPP in the spec's result.  A literal prefix before the first
 * wildcard narrows the walk to a binary-searched range.
 *
 * @param h handle (either backend)
 * @param pattern glob matched against the whole name, without "[module]"
 * @param fn called for each match; may be NULL to only count
 * @param arg passed to @p fn
 * @return the number of matches (0: none) on success, the callback's
 *	non-zero value if it stopped the walk, or negative errno: -EINVAL
 *	(NULL handle or empty pattern), -EOVERFLOW, or a kmemdev_symbol()
 *	error (-EACCES, -ENODATA, -ENOMEM)
 */
KMEMDEV_API int kmemdev_probe_glob(struct kmemdev *h, const char *pattern,
				   kmemdev_sym_fn fn, void *arg);

/**
 * enum kmemdev_op - what a failed call was doing, for kmemdev_strerror()
 *
 * One errno means different things to different calls (-ENOENT: no
 * device, no such symbol, no such probe id): the text depends on the call.
 */
enum kmemdev_op {
	KMEMDEV_OP_ANY = 0,	/* not known: the errno's own meaning */
	KMEMDEV_OP_OPEN,	/* kmemdev_open() */
	KMEMDEV_OP_INFO,	/* kmemdev_info(), kmemdev_info_alloc() */
	KMEMDEV_OP_SYMBOL,	/* by name: kmemdev_symbol(), _symbol_find(),
				 * _parse_addr(), _probe_spec_fill(), _probe_glob() */
	KMEMDEV_OP_SYMBOLIZE,	/* by address: kmemdev_symbolize() */
	KMEMDEV_OP_READ,	/* kmemdev_read(), kmemdev_map(), kmemdev_readv() */
	KMEMDEV_OP_WALK,	/* kmemdev_walk(), kmemdev_walk_all() */
	KMEMDEV_OP_PAGEMAP,	/* kmemdev_pagemap(), kmemdev_pagemap_runs() */
	KMEMDEV_OP_BTF,		/* kmemdev_btf_member(), kmemdev_btf() */
	KMEMDEV_OP_PROBES,	/* kmemdev_probes_*() */
	KMEMDEV_OP_EVENTS,	/* kmemdev_events_*() but _snapshot() */
	KMEMDEV_OP_SNAPSHOT,	/* kmemdev_events_snapshot() */
};

/**
 * @brief Describe an error code returned by this library.
 *
 * The reason, worded for the operation that failed and naming what it
 * lacked ("no such symbol in /proc/kallsyms", "no kmem_ro device: ..."),
 * for the codes that operation produces; the C library's text for the
 * others and for KMEMDEV_OP_ANY.  One line, no operation or object name
 * of the caller's: "<operation> <object>: <reason>" is the caller's to
 * print.  Thread-safe; the string is static.
 *
 * @param op the call that failed (an unknown value counts as
 *	KMEMDEV_OP_ANY)
 * @param err negative errno as returned by libkmemdev (a positive errno is
 *	accepted too)
 * @return a non-empty, static, NUL-terminated string
 */
KMEMDEV_API const char *kmemdev_strerror(enum kmemdev_op op, int err);

/**
 * @brief Version of the library running, "MAJOR.MINOR.PATCH".
 *
 * The KMEMDEV_VERSION_* macros give the version of the header a program
 * was built with; this one the library it runs with, which may be newer.
 *
 * @return a static string, e.g. "0.1.0"
 */
KMEMDEV_API const char *kmemdev_version(void);

/*
 * Events (uapi/kmem_ro_events.h): module loads and unloads, and periodic
 * hit-count snapshots of a handle's probes, pushed by the kernel over
 * generic netlink.  The stream functions need libnl-genl: a library built
 * without it (the build says so) declares and exports them all the same,
 * and they fail with -EOPNOTSUPP (kmemdev_events_close() does nothing).
 * kmemdev_events_snapshot() is a plain ioctl and works either way.
 *
 * A stream (struct kmemdev_events) is one netlink socket: subscribe it to
 * groups, then wait for events with kmemdev_events_next(), or poll() its
 * kmemdev_events_fd() for POLLIN first.  One thread at a time per stream.
 *
 * Bound to a handle (kmemdev_events_open()'s @h), a stream keeps the
 * handle's symbols current: each module event, and each overrun (a module
 * event may be among the lost ones), drops the handle's symbol table, and
 * the next lookup reads /proc/kallsyms again.  The pointers earlier
 * lookups returned then become invalid, so kmemdev_events_next() on a
 * bound stream must not run while another thread uses the handle's
 * symbol functions or their results.
 */

#define KMEMDEV_EVENTS_MODULES		(1U << 0)	/* KMEM_RO_EVENTS_MCGRP_MODULES */
#define KMEMDEV_EVENTS_SNAPSHOTS	(1U << 1)	/* KMEM_RO_EVENTS_MCGRP_SNAPSHOTS */

/* struct kmemdev_event.type */
#define KMEMDEV_EVENT_MODULE_LOADED	KMEM_RO_EVENTS_CMD_MODULE_LOADED
#define KMEMDEV_EVENT_MODULE_UNLOADED	KMEM_RO_EVENTS_CMD_MODULE_UNLOADED
#define KMEMDEV_EVENT_SNAPSHOT		KMEM_RO_EVENTS_CMD_SNAPSHOT

/**
 * struct kmemdev_event - one event, as kmemdev_events_next() returns it
 * @type: KMEMDEV_EVENT_*
 * @seq: number of the message in its group (a gap: messages were lost)
 * @dropped: messages the driver dropped since it was loaded, all groups
 * @module: MODULE_LOADED and MODULE_UNLOADED
 * @module.name: the module's name
 * @module.base: start of its core text, as /proc/modules shows it
 * @module.size: bytes of its core memory, as /proc/modules shows it
 * @module.text_size: bytes of core text from @module.base
 * @snapshot: SNAPSHOT: one part of one snapshot of a probe owner's probes
 * @snapshot.id: the stream, as kmemdev_events_snapshot() returned it
 * @snapshot.tick: number of the snapshot in its stream, from 1
 * @snapshot.time_ns: CLOCK_MONOTONIC time the counts were read
 * @snapshot.owner: PID of the process that started the stream
 * @snapshot.interval_ms: the stream's interval
 * @snapshot.total: probes in the whole snapshot
 * @snapshot.first: index of this part's first probe (complete when
 *	@snapshot.first + @snapshot.count == @snapshot.total)
 * @snapshot.count: entries in @snapshot.ids and @snapshot.counts
 * @snapshot.ids: probe ids, ascending
 * @snapshot.counts: hit counts, one per id
 *
 * Owned by the stream and valid until the next kmemdev_events_next() or
 * kmemdev_events_close() on it; fields may be appended in later versions.
 */
struct kmemdev_event {
	int type;
	uint64_t seq;
	uint64_t dropped;
	union {
		struct {
			char name[64];
			uint64_t base;
			uint64_t size;
			uint64_t text_size;
		} module;
		struct {
			uint64_t id;
			uint64_t tick;
			uint64_t time_ns;
			uint32_t owner;
			uint32_t interval_ms;
			uint32_t total;
			uint32_t first;
			uint32_t count;
			const uint64_t *ids;
			const uint64_t *counts;
		} snapshot;
	};
};

/** Opaque event stream. */
struct kmemdev_events;

/**
 * @brief Open an event stream: a generic netlink socket that knows the
 * kmem_ro family, subscribed to nothing yet.
 *
 * @param out receives the new stream; set to NULL on failure
 * @param h handle whose symbols the stream keeps current (see above), or
 *	NULL; it must outlive the stream
 * @return 0 on success, negative errno otherwise: -ENOENT (no kmem_ro
 *	family: the module is not loaded, or runs in another network
 *	namespace), -EOPNOTSUPP (this library was built without
 *	libnl-genl), -EINVAL (@out NULL), -ENOMEM, or the socket's error
 */
KMEMDEV_API int kmemdev_events_open(struct kmemdev_events **out,
				    struct kmemdev *h);

/**
 * @brief Join multicast groups.
 *
 * @param ev stream
 * @param groups KMEMDEV_EVENTS_MODULES and/or KMEMDEV_EVENTS_SNAPSHOTS
 * @return 0 on success, negative errno otherwise: -EPERM (joining needs
 *	CAP_SYS_ADMIN), -EINVAL (no or unknown group bits), -EOPNOTSUPP
 *	(the driver lacks the group)
 */
KMEMDEV_API int kmemdev_events_subscribe(struct kmemdev_events *ev,
					 unsigned int groups);

/**
 * @brief The stream's socket, to poll() for POLLIN.
 *
 * @param ev stream
 * @return a file descriptor owned by the stream, or -EINVAL
 */
KMEMDEV_API int kmemdev_events_fd(const struct kmemdev_events *ev);

/**
 * @brief Wait for the next event.
 *
 * Messages the library does not know (a newer driver's) are skipped.
 *
 * @param ev stream
 * @param timeout_ms how long to wait: 0 not at all, -1 forever
 * @param event receives the event (see struct kmemdev_event)
 * @return 1 with an event, 0 on timeout, negative errno otherwise:
 *	-ENOBUFS (the socket's buffer overflowed: events were lost; the
 *	stream stays usable), -EINTR (a signal), -EPROTO (a malformed
 *	message, skipped), -EINVAL
 */
KMEMDEV_API int kmemdev_events_next(struct kmemdev_events *ev, int timeout_ms,
				    const struct kmemdev_event **event);

/**
 * @brief Ask the driver for its event counters (KMEM_RO_EVENTS_CMD_GET_INFO;
 * no privilege needed, no subscription either).
 *
 * @param ev stream
 * @param dropped receives the messages dropped since the module was
 *	loaded, or NULL
 * @param snapshots receives the number of snapshot streams running, or NULL
 * @return 0 on success, negative errno otherwise
 */
KMEMDEV_API int kmemdev_events_info(struct kmemdev_events *ev, uint64_t *dropped,
				    unsigned int *snapshots);

/**
 * @brief Close a stream (its socket and the event it last returned).
 *
 * @param ev stream, or NULL (no-op)
 */
KMEMDEV_API void kmemdev_events_close(struct kmemdev_events *ev);

/**
 * @brief Start, retime or stop the hit-count snapshots of this handle's
 * probes (KMEM_RO_IOC_EVENTS_SNAPSHOT).
 *
 * @param h device handle that owns the probes
 * @param interval_ms KMEM_RO_EVENTS_SNAPSHOT_MIN_MS to _MAX_MS: start, or
 *	change the interval of a running stream; 0: stop (returns once no
 *	snapshot of this handle is in flight)
 * @param id receives the stream id, or NULL
 * @return 0 on success, negative errno otherwise: -EPERM (starting needs
 *	CAP_PERFMON or CAP_SYS_ADMIN, or the driver's probe_group=1), -ENOENT (start: no probes; stop: no
 *	snapshots running), -EINVAL (interval out of range), -EOPNOTSUPP (a
 *	kcore handle, or a driver without KMEM_RO_FEAT_EVENTS)
 */
KMEMDEV_API int kmemdev_events_snapshot(struct kmemdev *h, unsigned int interval_ms,
					uint64_t *id);

#ifdef __cplusplus
}
#endif

#endif /* KMEMDEV_H */
