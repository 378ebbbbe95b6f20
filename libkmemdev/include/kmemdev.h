/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * libkmemdev - thin C library over /dev/kmem_ro.
 *
 * Every function that can fail returns 0 (or a non-negative count) on
 * success and a negative errno value on failure; errno itself is not part of
 * the contract.  kmemdev_strerror() turns those values into kmem_ro-specific
 * sentences.
 *
 * A handle may be shared between threads.  Symbol data comes from
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
 * Pointers returned by the symbol functions become invalid.
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
