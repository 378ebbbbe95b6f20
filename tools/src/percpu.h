/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-CPU variables: a symbol between __per_cpu_start and __per_cpu_end
 * names the template of a variable every possible CPU has a copy of, at
 * the symbol plus __per_cpu_offset[cpu] (the kernel's per_cpu_ptr()).
 * On x86-64 before 6.15 the section is linked at 0 (the symbols are small
 * offsets: "runqueues" is 0x36040); later it lies in the kernel image.
 * The same sum works for both.
 */
#ifndef KMEMCTL_PERCPU_H
#define KMEMCTL_PERCPU_H

#include <stdbool.h>
#include <stdint.h>

#include "kmemdev.h"

struct percpu {
	uint64_t start, end;	/* __per_cpu_start, __per_cpu_end */
	uint32_t nr_cpu_ids;	/* CPUs 0 to nr_cpu_ids - 1 may exist */
	uint64_t *offset;	/* __per_cpu_offset[0 .. nr_cpu_ids) */
	uint64_t *possible;	/* __cpu_possible_mask's words */
};

/*
 * Read what per_cpu_ptr() needs.  On failure print "kmemctl: <what>:
 * <reason>" and return the -errno.  percpu_free() either way.
 */
int percpu_load(struct kmemdev *h, const char *what, struct percpu *pc);
void percpu_free(struct percpu *pc);

/* Is @addr a per-CPU variable's template? (Only the symbols are read.) */
bool percpu_is_var(struct kmemdev *h, uint64_t addr);

/* Is @cpu in the possible mask? */
bool percpu_possible(const struct percpu *pc, uint64_t cpu);

/* The last possible CPU. */
uint32_t percpu_last(const struct percpu *pc);

/* CPU @cpu's copy of the variable at @addr. */
uint64_t percpu_addr(const struct percpu *pc, uint64_t addr, uint32_t cpu);

#endif /* KMEMCTL_PERCPU_H */
