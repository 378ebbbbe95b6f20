// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <kmem_ro.h>

#include "read_paths.h"

int kcore_file_open(struct kcore_file *k)
{
	Elf64_Ehdr eh;
	size_t bytes;

	k->fd = open("/proc/kcore", O_RDONLY | O_CLOEXEC);
	if (k->fd < 0)
		return -1;
	if (pread(k->fd, &eh, sizeof(eh), 0) != sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_phentsize != sizeof(Elf64_Phdr) ||
	    eh.e_phnum > KCORE_PHDR_MAX)
		goto fail;
	k->nphdr = eh.e_phnum;
	bytes = k->nphdr * sizeof(k->phdr[0]);
	if (pread(k->fd, k->phdr, bytes, (off_t)eh.e_phoff) != (ssize_t)bytes)
		goto fail;
	return 0;
fail:
	close(k->fd);
	k->fd = -1;
	return -1;
}

void kcore_file_close(struct kcore_file *k)
{
	if (k->fd >= 0)
		close(k->fd);
	k->fd = -1;
}

/* The PT_LOAD header holding @at: a kernel address, or a file offset if @by_offset. */
static const Elf64_Phdr *kcore_file_load(const struct kcore_file *k, uint64_t at, bool by_offset)
{
	for (unsigned int i = 0; i < k->nphdr; i++) {
		const Elf64_Phdr *p = &k->phdr[i];
		uint64_t start = by_offset ? p->p_offset : p->p_vaddr;

		if (p->p_type == PT_LOAD && at >= start && at - start < p->p_filesz)
			return p;
	}
	return NULL;
}

bool kcore_file_offset(const struct kcore_file *k, uint64_t vaddr, uint64_t *off)
{
	const Elf64_Phdr *p = kcore_file_load(k, vaddr, false);

	if (p)
		*off = p->p_offset + (vaddr - p->p_vaddr);
	return p;
}

bool kcore_file_vaddr(const struct kcore_file *k, uint64_t off, uint64_t *vaddr)
{
	const Elf64_Phdr *p = kcore_file_load(k, off, true);

	if (p)
		*vaddr = p->p_vaddr + (off - p->p_offset);
	return p;
}

unsigned int kcore_file_ram(const struct kcore_file *k, uint64_t page_offset,
			    void (*fn)(void *arg, uint64_t start, uint64_t end), void *arg)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < k->nphdr; i++) {
		const Elf64_Phdr *p = &k->phdr[i];

		if (p->p_type != PT_LOAD || p->p_vaddr - p->p_paddr != page_offset)
			continue;
		fn(arg, p->p_vaddr, p->p_vaddr + p->p_filesz);
		n++;
	}
	return n;
}

int64_t readv_one(int dev, uint64_t vaddr, void *buf, size_t len)
{
	struct kmem_ro_iov iov = { .addr = vaddr, .len = len, .buf = (uintptr_t)buf };
	struct kmem_ro_readv arg = {
		.size = sizeof(arg),
		.iov_addr = (uintptr_t)&iov,
		.iov_count = 1,
	};

	if (ioctl(dev, KMEM_RO_IOC_READV, &arg) < 0 || arg.done != 1)
		return -1;
	return iov.result;
}

ssize_t dev_pread(int dev, uint64_t vaddr, void *buf, size_t len)
{
	return pread(dev, buf, len, (off_t)KMEM_RO_READ_OFFSET(vaddr));
}

bool dev_pread_works(int dev, uint64_t vaddr)
{
	uint64_t word;

	return dev_pread(dev, vaddr, &word, sizeof(word)) == sizeof(word);
}
