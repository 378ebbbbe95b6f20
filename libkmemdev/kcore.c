// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The kcore backend: kernel memory through /proc/kcore, an ELF64 core file
 * whose PT_LOAD segments are the kernel's address space.  The program
 * headers are read once at open; a read is a lookup plus pread().
 *
 * What the segments are (fs/proc/kcore.c): RAM (the direct map, p_paddr =
 * physical address), TEXT (the kernel image from _text to _end, p_paddr =
 * its physical address), and, with p_paddr = -1, vmalloc, modules,
 * vmemmap and the vsyscall page.  The kernel decides what an unreadable
 * page reads as (zeros); this file only finds the right file offset.
 */
#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "internal.h"

/* Far more than any kernel lists (one per RAM range, plus a handful). */
#define KCORE_MAX_PHDRS	(1U << 20)

#if defined(__x86_64__)
#define KCORE_MACHINE		EM_X86_64
#define KCORE_KERNEL_MAP	0xffffffff80000000ULL	/* __START_KERNEL_map */
#elif defined(__aarch64__)
#define KCORE_MACHINE		EM_AARCH64
#endif

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define KCORE_DATA	ELFDATA2LSB
#else
#define KCORE_DATA	ELFDATA2MSB
#endif

#define NO_PADDR	UINT64_MAX

/* pread() all of it: EINTR retried, a short file is -EIO. */
static int pread_full(int fd, void *buf, size_t len, uint64_t off)
{
	unsigned char *p = buf;

	while (len) {
		ssize_t n;

		if (off > (uint64_t)INT64_MAX)
			return -EOVERFLOW;
		n = pread(fd, p, len, (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

static int check_ehdr(const Elf64_Ehdr *eh)
{
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_ident[EI_DATA] != KCORE_DATA ||
	    eh->e_ident[EI_VERSION] != EV_CURRENT ||
	    eh->e_type != ET_CORE ||
	    eh->e_phentsize != sizeof(Elf64_Phdr))
		return -ENOEXEC;
#ifdef KCORE_MACHINE
	if (eh->e_machine != KCORE_MACHINE)
		return -ENOEXEC;
#endif
	return 0;
}

/* e_phnum, or with PN_XNUM the real count from section header 0. */
static int phdr_count(int fd, const Elf64_Ehdr *eh, uint32_t *count)
{
	Elf64_Shdr sh;
	int err;

	if (eh->e_phnum != PN_XNUM) {
		*count = eh->e_phnum;
		return 0;
	}
	if (!eh->e_shoff || eh->e_shentsize != sizeof(Elf64_Shdr))
		return -ENOEXEC;
	err = pread_full(fd, &sh, sizeof(sh), eh->e_shoff);
	if (err)
		return err;
	*count = sh.sh_info;
	return 0;
}

static int cmp_seg(const void *pa, const void *pb)
{
	const struct kmemdev_kseg *a = pa, *b = pb;

	return a->vaddr < b->vaddr ? -1 : a->vaddr > b->vaddr;
}

int kmemdev__kcore_parse(int fd, struct kmemdev_kcore *kc)
{
	struct kmemdev_kseg *segs = NULL;
	Elf64_Phdr *ph = NULL;
	unsigned int nr = 0;
	uint32_t count, i;
	Elf64_Ehdr eh;
	int err;

	err = pread_full(fd, &eh, sizeof(eh), 0);
	if (err)
		return err == -EIO ? -ENOEXEC : err;
	err = check_ehdr(&eh);
	if (err)
		return err;
	err = phdr_count(fd, &eh, &count);
	if (err)
		return err == -EIO ? -ENOEXEC : err;
	if (!count || count > KCORE_MAX_PHDRS || !eh.e_phoff)
		return -ENOEXEC;

	ph = calloc(count, sizeof(*ph));
	segs = calloc(count, sizeof(*segs));
	if (!ph || !segs) {
		err = -ENOMEM;
		goto out;
	}
	err = pread_full(fd, ph, count * sizeof(*ph), eh.e_phoff);
	if (err == -EIO)	/* the file ends inside its own headers */
		err = -ENOEXEC;
	if (err)
		goto out;
	for (i = 0; i < count; i++) {
		const Elf64_Phdr *p = &ph[i];

		if (p->p_type != PT_LOAD || !p->p_memsz)
			continue;
		/* Wrapping segments or file ranges: not a core we can read. */
		if (p->p_vaddr + (p->p_memsz - 1) < p->p_vaddr ||
		    (p->p_filesz &&
		     p->p_offset + (p->p_filesz - 1) < p->p_offset)) {
			err = -ENOEXEC;
			goto out;
		}
		segs[nr].vaddr = p->p_vaddr;
		segs[nr].paddr = p->p_paddr;
		segs[nr].memsz = p->p_memsz;
		segs[nr].filesz = p->p_filesz < p->p_memsz ? p->p_filesz :
							     p->p_memsz;
		segs[nr].offset = p->p_offset;
		nr++;
	}
	qsort(segs, nr, sizeof(*segs), cmp_seg);
	kc->load = segs;
	kc->nr = nr;
	segs = NULL;
out:
	free(segs);
	free(ph);
	return err;
}

void kmemdev__kcore_release(struct kmemdev_kcore *kc)
{
	free(kc->load);
	kc->load = NULL;
	kc->nr = 0;
	if (kc->fd >= 0)
		close(kc->fd);
	kc->fd = -1;
}

static bool seg_has(const struct kmemdev_kseg *s, uint64_t kaddr)
{
	return kaddr >= s->vaddr && kaddr - s->vaddr < s->memsz;
}

const struct kmemdev_kseg *kmemdev__kcore_find(const struct kmemdev_kcore *kc,
					       uint64_t kaddr)
{
	unsigned int lo = 0, hi = kc->nr;

	/* Last segment starting at or below kaddr... */
	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (kc->load[mid].vaddr <= kaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* ...or, should segments ever overlap, an earlier one holding it. */
	while (lo-- > 0)
		if (seg_has(&kc->load[lo], kaddr))
			return &kc->load[lo];
	return NULL;
}

int kmemdev__kcore_read(struct kmemdev *h, uint64_t kaddr, void *buf,
			size_t len)
{
	const struct kmemdev_kcore *kc = &h->kcore;
	const struct kmemdev_kseg *s;
	unsigned char *p = buf;
	uint64_t addr, left;
	int err;

	if (!len || (uint64_t)len - 1 > UINT64_MAX - kaddr)
		return -EINVAL;

	/* Check coverage first: a range partly outside kcore reads nothing. */
	for (addr = kaddr, left = len; left; ) {
		uint64_t n;

		s = kmemdev__kcore_find(kc, addr);
		if (!s)
			return -ENXIO;
		n = s->memsz - (addr - s->vaddr);
		if (n >= left)
			break;
		left -= n;
		addr += n;
	}

	for (addr = kaddr, left = len; left; ) {
		uint64_t in, n, file;

		s = kmemdev__kcore_find(kc, addr);
		in = addr - s->vaddr;
		n = s->memsz - in < left ? s->memsz - in : left;
		/* Bytes below p_filesz come from the file, the rest are zero. */
		file = in < s->filesz ? s->filesz - in : 0;
		if (file > n)
			file = n;
		if (file) {
			err = pread_full(kc->fd, p, file, s->offset + in);
			if (err)
				return err;
		}
		memset(p + file, 0, n - file);
		p += n;
		addr += n;
		left -= n;
	}
	return 0;
}

/* _stext and _etext (page-rounded), if kallsyms tells and they make sense. */
static void text_from_kallsyms(struct kmemdev *h, const struct kmemdev_kseg *img,
			       uint64_t page, struct kmem_ro_info *info)
{
	uint64_t stext, etext;

	if (!img || kmemdev_symbol(h, "_stext", &stext) ||
	    kmemdev_symbol(h, "_etext", &etext))
		return;
	etext = (etext + page - 1) & ~(page - 1);
	if (!seg_has(img, stext) || etext <= stext ||
	    etext - img->vaddr > img->memsz)
		return;
	info->text_start = stext;
	info->text_end = etext;
}

int kmemdev__kcore_info(struct kmemdev *h, struct kmem_ro_info *info,
			struct kmem_ro_range *ram, unsigned int ram_cap)
{
	const struct kmemdev_kcore *kc = &h->kcore;
	const struct kmemdev_kseg *img = NULL, *mod = NULL;
	struct kmem_ro_info in;
	uint64_t kernel_map = 0;
	unsigned int i, n = 0;
	long page;

	memset(&in, 0, sizeof(in));	/* kmemdev_info() sets the size */
	page = sysconf(_SC_PAGESIZE);
	if (page <= 0 || (page & (page - 1)))
		return -EPROTO;
	in.page_size = (uint32_t)page;
#ifdef KCORE_KERNEL_MAP
	kernel_map = KCORE_KERNEL_MAP;
#endif

	for (i = 0; i < kc->nr; i++) {
		const struct kmemdev_kseg *s = &kc->load[i];

		if (kernel_map && s->vaddr >= kernel_map) {
			/* The image has a physical address; modules none. */
			if (s->paddr != NO_PADDR && !img)
				img = s;
			else if (s->paddr == NO_PADDR &&
				 (!mod || s->memsz > mod->memsz))
				mod = s;
			continue;
		}
		if (s->paddr == NO_PADDR || s->vaddr < s->paddr)
			continue;
		/* A RAM segment: the direct map at page_offset + phys. */
		if (!in.page_offset)
			in.page_offset = s->vaddr - s->paddr;
		if (n < ram_cap) {
			ram[n].start = s->paddr;
			ram[n].end = s->paddr + s->memsz;
		}
		n++;
	}
	if (img) {
		in.kernel_map = kernel_map;
		in.phys_base = img->paddr - (img->vaddr - kernel_map);
		text_from_kallsyms(h, img, (uint64_t)page, &in);
	}
	/* Only above the image: the vsyscall page is the other candidate. */
	if (mod && img && mod->vaddr > img->vaddr) {
		in.modules_start = mod->vaddr;
		in.modules_end = mod->vaddr + mod->memsz;
	}
	in.ram_count = n;
	*info = in;
	return n > INT32_MAX ? -EOVERFLOW : (int)n;
}
