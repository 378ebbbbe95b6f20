/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The three ways a benchmark reads a few bytes of kernel memory, side by
 * side: a kcore pread() (its file offset found through kcore's program
 * headers), one KMEM_RO_IOC_READV of one segment, and a pread() of the
 * device by address (KMEM_RO_READ_OFFSET()).  Shared by read_cost_bench
 * and read_scaling_bench, so that both time exactly the same calls.
 */
#ifndef KMEM_RO_BENCH_READ_PATHS_H
#define KMEM_RO_BENCH_READ_PATHS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <elf.h>

#define KCORE_PHDR_MAX	4096

/* /proc/kcore, open, with its program headers. */
struct kcore_file {
	int fd;
	unsigned int nphdr;
	Elf64_Phdr phdr[KCORE_PHDR_MAX];
};

/* Open /proc/kcore and read its program headers; 0 or -1. */
int kcore_file_open(struct kcore_file *k);
void kcore_file_close(struct kcore_file *k);

/* The file offset of kernel address @vaddr (in a PT_LOAD segment); false if none. */
bool kcore_file_offset(const struct kcore_file *k, uint64_t vaddr, uint64_t *off);

/* The kernel address at file offset @off (in a PT_LOAD segment); false if none. */
bool kcore_file_vaddr(const struct kcore_file *k, uint64_t off, uint64_t *vaddr);

/*
 * Call @fn(@arg, start, end) for each PT_LOAD segment of the direct map
 * (p_vaddr - p_paddr == @page_offset: kcore's KCORE_RAM entries, System
 * RAM).  Returns the number of segments.
 */
unsigned int kcore_file_ram(const struct kcore_file *k, uint64_t page_offset,
			    void (*fn)(void *arg, uint64_t start, uint64_t end), void *arg);

/* One KMEM_RO_IOC_READV of one segment on @dev: the segment's result, or -1. */
int64_t readv_one(int dev, uint64_t vaddr, void *buf, size_t len);

/* One pread() of the device at kernel address @vaddr: pread()'s return. */
ssize_t dev_pread(int dev, uint64_t vaddr, void *buf, size_t len);

/*
 * Whether the device answers pread() by address: true if an 8-byte read
 * at @vaddr returned 8; false with errno ESPIPE on a driver without it
 * (the device was not seekable before), false with another errno if the
 * read failed otherwise.
 */
bool dev_pread_works(int dev, uint64_t vaddr);

#endif /* KMEM_RO_BENCH_READ_PATHS_H */
