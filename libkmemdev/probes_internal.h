/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Internals of probes.c that the unit tests reach (libkmemdev.a): the pure
 * parts of the probe helpers, with no device or /proc/kallsyms behind them.
 */
#ifndef KMEMDEV_PROBES_INTERNAL_H
#define KMEMDEV_PROBES_INTERNAL_H

#include "internal.h"

/*
 * Whether kmemdev_probe_glob() and kmemdev_probe_spec_fill() take @s as a
 * function: type 't' or 'T', not a 6.12 "__pfx_"/"__cfi_" preamble, no
 * ".cold" part.
 */
KMEMDEV_INTERNAL bool kmemdev__probe_sym_ok(const struct kmemdev_sym *s);

/* Specs or ids of the ioctl starting at @off of @n: the batch splitting. */
KMEMDEV_INTERNAL unsigned int kmemdev__probe_chunk(unsigned int n,
						   unsigned int off);

/* kmemdev_probe_glob() over a parsed table. */
KMEMDEV_INTERNAL int kmemdev__probe_glob_tab(const struct kmemdev_symtab *tab,
					     const char *pattern,
					     kmemdev_sym_fn fn, void *arg);

/*
 * The @k-th (from 0) other function name at @addr, provided kallsyms shows
 * function @name there too; NULL when there is none (see kmemdev.h,
 * kmemdev_probes_add()).
 */
KMEMDEV_INTERNAL const char *kmemdev__probe_alias(const struct kmemdev_symtab *tab,
						  uint64_t addr, const char *name,
						  unsigned int k);

/* Fill @spec from @sym (zeroing the rest); -ENAMETOOLONG, -EINVAL. */
KMEMDEV_INTERNAL int kmemdev__probe_spec_set(struct kmem_ro_probe_spec *spec,
					     const struct kmemdev_sym *sym,
					     uint32_t offset, uint32_t flags);

#endif /* KMEMDEV_PROBES_INTERNAL_H */
