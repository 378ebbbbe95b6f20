/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * libkmemdev - thin C library over /dev/kmem_ro.
 *
 * Every function that can fail returns 0 (or a non-negative count) on
 * success and a negative errno value on failure; errno itself is not part of
 * the contract.  kmemdev_strerror() turns those values into kmem_ro-specific
 * sentences.
 *
 * A handle may be shared between threads.  Memory mapped by kmemdev_map()
 * stays mapped until kmemdev_close().  Symbol data comes from
 * /proc/kallsyms, read once per handle on first use (a snapshot: reopen the
 * handle to see modules loaded later).
 */
#ifndef KMEMDEV_H
#define KMEMDEV_H

#include <stddef.h>
#include <stdint.h>

#include "kmem_ro.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KMEMDEV_API __attribute__((visibility("default")))

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

/**
 * struct kmemdev_open_opts - options for kmemdev_open()
 * @sz: sizeof(struct kmemdev_open_opts) as the caller knows it; set by
 *	KMEMDEV_OPTS()
 * @path: device node to open; NULL means KMEM_RO_DEVICE
 *
 * New fields are only ever appended.  Bytes past the last field this
 * library knows must be zero, or kmemdev_open() fails with -E2BIG.
 */
struct kmemdev_open_opts {
	size_t sz;
	const char *path;
};
#define kmemdev_open_opts__last_field path

/**
 * struct kmemdev_sym - one /proc/kallsyms entry
 * @addr: symbol address
 * @name: symbol name
 * @module: module name for "name [module]" lines, NULL for vmlinux
 * @type: nm-style type letter as printed by kallsyms ('T', 't', 'D', ...)
 *
 * Owned by the handle and valid until kmemdev_close().  Allocated by the
 * library only, so fields may be appended in later versions.
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
 * @brief Open the kmem_ro device and check that it speaks this ABI.
 *
 * Opens the node read-only and close-on-exec, then issues KMEM_RO_IOC_INFO
 * as a handshake and caches the answer.
 *
 * @param out receives the new handle; set to NULL on failure
 * @param opts options, or NULL for defaults (see struct kmemdev_open_opts)
 * @return 0 on success, negative errno otherwise: -ENOENT (module not
 *	loaded), -EACCES (not in the device's group), -EPERM (kernel lockdown
 *	or require_rawio), -ENOTTY (not a kmem_ro device), -EISDIR, -EPROTO
 *	(driver lacks the INFO ioctl or reports an ABI version below 1),
 *	-EINVAL/-E2BIG (bad arguments or options), -ENOMEM
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
 *	(-EINVAL for a NULL handle)
 */
KMEMDEV_API int kmemdev_fd(const struct kmemdev *h);

/**
 * @brief Query ABI version, features and kernel layout (KMEM_RO_IOC_INFO).
 *
 * Pass ram = NULL and ram_cap = 0 to learn the number of System RAM ranges,
 * then call again with a buffer that large.  Only min(result, ram_cap)
 * entries of @p ram are written.
 *
 * @param h handle
 * @param info filled in by the driver
 * @param ram array receiving System RAM ranges, or NULL
 * @param ram_cap number of entries @p ram holds (0 iff @p ram is NULL)
 * @return total number of System RAM ranges (>= 0) on success, negative
 *	errno otherwise (-EINVAL for bad arguments, -EFAULT, -ENOMEM)
 */
KMEMDEV_API int kmemdev_info(struct kmemdev *h, struct kmem_ro_info *info,
			     struct kmem_ro_range *ram, unsigned int ram_cap);

/**
 * @brief Address of a kernel or module symbol, by name.
 *
 * When several symbols share the name, vmlinux wins over modules and the
 * lowest address wins after that.
 *
 * @param h handle
 * @param name symbol name as printed by /proc/kallsyms, without "[module]"
 * @param addr receives the address
 * @return 0 on success, negative errno otherwise: -ENOENT (no such
 *	symbol), -EACCES (/proc/kallsyms hides addresses: kernel.kptr_restrict
 *	or missing CAP_SYSLOG), -EINVAL, -ENOMEM, or an error reading
 *	/proc/kallsyms
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
 * @param name receives the symbol name, valid until kmemdev_close()
 * @param offset receives addr minus the symbol address; may be NULL
 * @return 0 on success, negative errno otherwise: -ENOENT (addr below every
 *	symbol, or no symbols), -EACCES, -EINVAL, -ENOMEM
 */
KMEMDEV_API int kmemdev_symbolize(struct kmemdev *h, uint64_t addr,
				  const char **name, uint64_t *offset);

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
 * either end of a range is never mappable: the driver would raise SIGBUS).
 *
 * The first use of a RAM range maps all of it (PROT_READ, MAP_SHARED);
 * that costs address space, not memory, as the driver fills page tables on
 * touch.  Later calls make no system call and take no lock.  With the
 * module parameter mmap_ram=0 (KMEM_RO_FEAT_MMAP_RAM clear, or mmap
 * answering EPERM) only the physical range of the kernel text is mappable,
 * through its image or its direct-map address.
 *
 * The memory is live: it may change while read, and reads wider than the
 * CPU's natural width are not atomic.  Pages the kernel cannot read through
 * its own direct map (memfd_secret, offline or hardware-poisoned pages)
 * read as zeros, as they do through /proc/kcore.
 *
 * Anything else fails with -ENXIO: vmalloc memory (including vmapped
 * stacks and vmalloc'ed per-CPU chunks), modules, fixmap, user addresses,
 * per-CPU symbol offsets, physical holes.  Those need the driver's
 * vectored-read ioctl, not (yet) wrapped by this library.
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
 * @brief Copy kernel memory into a buffer, through kmemdev_map().
 *
 * All or nothing: on failure @p buf is left as it was.  Everything said
 * about kmemdev_map() applies, zero-filled pages included; the copy is a
 * snapshot only as far as memcpy() of live memory is one.
 *
 * @param h handle
 * @param kaddr kernel virtual address
 * @param buf receives len bytes
 * @param len number of bytes, at least 1
 * @return 0 on success, negative errno otherwise (as kmemdev_map(); also
 *	-EINVAL for a NULL buf)
 */
KMEMDEV_API int kmemdev_read(struct kmemdev *h, uint64_t kaddr, void *buf,
			     size_t len);

/**
 * @brief Describe an error code returned by this library.
 *
 * kmem_ro-specific sentences for the codes the library itself produces
 * (they describe kmemdev_open() failures first), the C library's text for
 * the others.  Thread-safe; the string is static.
 *
 * @param err negative errno as returned by libkmemdev (a positive errno is
 *	accepted too)
 * @return a non-empty, static, NUL-terminated string
 */
KMEMDEV_API const char *kmemdev_strerror(int err);

#ifdef __cplusplus
}
#endif

#endif /* KMEMDEV_H */
