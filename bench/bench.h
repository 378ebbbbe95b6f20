/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the in-VM benchmarks: timing, exact syscall counts, and one
 * result line per measurement ("bench NAME key=value ...") that
 * bench/run.sh appends to bench/results.txt.
 */
#ifndef KMEM_RO_BENCH_H
#define KMEM_RO_BENCH_H

#include <stdint.h>

/* Monotonic nanoseconds. */
uint64_t bench_ns(void);

/*
 * Run @fn(@arg, @n) in a traced child (which may exec) and return the
 * number of system calls it made, -1 if tracing failed; its wait status
 * goes to *@status unless NULL.  Signals it gets are not delivered.
 */
long bench_syscalls(void (*fn)(void *arg, long n), void *arg, long n,
		    int *status);

/*
 * Run @fn(@arg, @n) in a traced child and return the number of system
 * calls it made per unit of @n: (calls(n) - calls(0)) / n.  Exact, unlike
 * timing, and independent of the machine's noise.
 */
double bench_syscalls_per_op(void (*fn)(void *arg, long n), void *arg, long n);

/*
 * Run @fn(@arg, @n) in a traced child that, after it exec'd, stops itself
 * twice with SIGSTOP (kcore_reader's N command); return the user-space
 * instructions it ran in between, single-stepped (a system call counts
 * one), or -1.  Exact: what a code path costs any CPU, not this
 * emulator's timing of it.
 */
long bench_user_insns(void (*fn)(void *arg, long n), void *arg, long n);

/*
 * The RAM mmap opt-in (module parameter mmap_ram=1), for benchmarks that
 * measure RAM mappings; the module's default maps text only.  0 or -1.
 */
int bench_mmap_ram_on(void);

/*
 * Unload kmem_ro and load /lib/kmem_ro.ko again with @params ("" for the
 * module's defaults), waiting for its device node.  0 or -1.
 */
int bench_module_reload(const char *params);

#endif /* KMEM_RO_BENCH_H */
