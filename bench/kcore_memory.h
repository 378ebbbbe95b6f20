/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The file libkcore-memory.so records (KCORE_MEMORY_RECORD) and serves
 * from (KCORE_MEMORY): one record per pread() of /proc/kcore, in order,
 * each this header then its bytes (@ret of them, padded to 8).
 */
#ifndef KMEM_RO_BENCH_KCORE_MEMORY_H
#define KMEM_RO_BENCH_KCORE_MEMORY_H

#include <stdint.h>

struct kcore_memory_read {
	uint64_t t;	/* when the call started, CLOCK_MONOTONIC ns */
	int64_t off;	/* file offset */
	uint64_t len;	/* bytes asked for */
	int64_t ret;	/* pread()'s return */
	int64_t err;	/* its errno when @ret is -1 */
};

static inline uint64_t kcore_memory_size(const struct kcore_memory_read *r)
{
	return sizeof(*r) + (r->ret > 0 ? ((uint64_t)r->ret + 7) & ~7ULL : 0);
}

#endif /* KMEM_RO_BENCH_KCORE_MEMORY_H */
