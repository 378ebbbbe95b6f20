// SPDX-License-Identifier: GPL-2.0
/*
 * mmap of /dev/kmem_ro: by default kernel text only; with the opt-in
 * mmap_ram=1 the bytes equal /proc/kcore's, refusals get their errnos,
 * holes, secret, poisoned and write-combining pages read as the refused
 * page (never a signal, never zeros), the library and kmemctl read them as
 * the device does, setting mmap_ram back to 0 revokes every mapping,
 * huge faults keep page tables small, and VMA copies (fork, split,
 * mremap) stay safe.  What the opt-in gives up is tested as what it is: a
 * page reused after it was mapped stays visible.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kmemdev.h"
#include "vmtest.h"

#ifndef SYS_memfd_secret
#define SYS_memfd_secret 447
#endif

#define PAGE		4096UL
#define PMD		(2UL << 20)
#define RAW_PARAM	"/sys/module/kmem_ro/parameters/mmap_ram"

struct layout {
	int fd;
	struct kmem_ro_info info;
	struct kmem_ro_range ram[64];
	int nr;
};

static void layout(struct layout *l)
{
	l->fd = vt_open_dev();
	ck_assert_int_eq(vt_info(l->fd, &l->info, l->ram, 64), 0);
	l->nr = l->info.ram_count;
}

/*
 * The page at @p reads as the driver's refused page: no signal, every u64
 * the pattern INFO gives.  The probe comes first: a driver that raises
 * SIGBUS fails here.
 */
static void assert_refused(const struct layout *l, const void *p)
{
	const volatile uint64_t *w = p;
	unsigned char c = 0x77;

	ck_assert_msg(vt_probe_read(p, &c) == 0, "refused page: signal %d, not the refused page",
		      vt_probe_read(p, &c));
	ck_assert(l->info.features & KMEM_RO_FEAT_MMAP_REFUSED);
	ck_assert_uint_ne(l->info.mmap_refused, 0);
	for (size_t i = 0; i < PAGE / 8; i++)
		ck_assert_msg(w[i] == l->info.mmap_refused, "word %zu: %#llx, pattern %#llx", i,
			      (unsigned long long)w[i], (unsigned long long)l->info.mmap_refused);
}

/*
 * The library and kmemctl read kernel address @kaddr of a refused page as
 * the device's pread() does: its errno (and /proc/kcore its zeros), buf
 * untouched, never a signal or the pattern.
 */
static void assert_read_as_device(const struct layout *l, uint64_t kaddr)
{
	static unsigned char dev[PAGE], lib[PAGE], kc[PAGE];
	char addr[32], *argv[] = { "kmemctl", "read", "--raw", addr, "64", NULL };
	static char out[4096], err[4096];
	struct kmemdev *h;
	const void *q;
	ssize_t n;
	int want;

	n = pread(l->fd, dev, PAGE, KMEM_RO_READ_OFFSET(kaddr));
	want = n < 0 ? -errno : 0;
	ck_assert_msg(n < 0 || n == (ssize_t)PAGE, "device pread: %zd", n);
	ck_assert_int_eq(kmemdev_open(&h, NULL), 0);
	ck_assert_int_eq(kmemdev_map(h, kaddr, PAGE, &q), 0);
	ck_assert(kmemdev_map_refused(h, q, PAGE));
	memset(lib, 0x11, PAGE);
	ck_assert_int_eq(kmemdev_read(h, kaddr, lib, PAGE), want);
	if (want) {
		for (size_t i = 0; i < PAGE; i++)
			ck_assert_uint_eq(lib[i], 0x11);
		ck_assert_int_eq(vt_kcore_read(kaddr, kc, PAGE), 0);
		for (size_t i = 0; i < PAGE; i++)
			ck_assert_uint_eq(kc[i], 0);
	} else {
		ck_assert_int_eq(memcmp(lib, dev, PAGE), 0);
	}
	kmemdev_close(h);
	snprintf(addr, sizeof(addr), "0x%llx", (unsigned long long)kaddr);
	ck_assert_int_eq(vt_exec(0, 0, argv, out, sizeof(out), err, sizeof(err)), want ? 1 : 0);
	printf("mmap_test: refused page at %s: device and library %s\n", addr,
	       want ? strerror(-want) : "read it");
}

static uint64_t image_phys(const struct layout *l, uint64_t vaddr)
{
	return vaddr - l->info.kernel_map + l->info.phys_base;
}

/* compare @len bytes at @p with kcore's view of kernel address @kaddr */
static void assert_same_as_kcore(const void *p, uint64_t kaddr, size_t len)
{
	static char buf[1 << 16];

	for (size_t off = 0; off < len; off += sizeof(buf)) {
		size_t n = len - off < sizeof(buf) ? len - off : sizeof(buf);

		ck_assert_int_eq(vt_kcore_read(kaddr + off, buf, n), 0);
		ck_assert_msg(!memcmp(buf, (const char *)p + off, n),
			      "differs from kcore at 0x%llx", (unsigned long long)(kaddr + off));
	}
}

/* the whole kernel text, mapped */
static void *map_text(struct layout *l, size_t *len)
{
	void *p;

	layout(l);
	*len = l->info.text_end - l->info.text_start;
	p = vt_map_phys(l->fd, image_phys(l, l->info.text_start), *len);
	ck_assert_ptr_ne(p, MAP_FAILED);
	return p;
}

START_TEST(text_matches_kcore)
{
	struct layout l;
	size_t len;
	void *p = map_text(&l, &len);

	assert_same_as_kcore(p, l.info.text_start, len);
	munmap(p, len);
	close(l.fd);
}
END_TEST

START_TEST(banner_matches_proc_version)
{
	uint64_t banner = vt_kallsyms("linux_banner"), phys;
	char version[512] = "";
	struct layout l;
	const char *p;
	FILE *f;

	layout(&l);
	phys = image_phys(&l, banner);
	p = vt_map_phys(l.fd, phys & ~(PAGE - 1), 2 * PAGE);
	ck_assert_ptr_ne(p, MAP_FAILED);
	f = fopen("/proc/version", "re");
	ck_assert_ptr_nonnull(fgets(version, sizeof(version), f));
	fclose(f);
	ck_assert_int_eq(strncmp(p + (phys & (PAGE - 1)), version, strlen(version)), 0);
	/* and through the direct map alias, as kcore's RAM segments show it */
	assert_same_as_kcore(p, l.info.page_offset + (phys & ~(PAGE - 1)), 2 * PAGE);
	munmap((void *)p, 2 * PAGE);
	close(l.fd);
}
END_TEST

START_TEST(user_page_is_live)
{
	volatile char *user = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	const volatile char *kview;
	struct layout l;
	uint64_t phys;

	ck_assert_ptr_ne((void *)user, MAP_FAILED);
	ck_assert_int_eq(mlock((void *)user, PAGE), 0);
	memset((void *)user, 0x5a, PAGE);
	layout(&l);
	phys = vt_pagemap_pfn((void *)user) * PAGE;
	kview = vt_map_phys(l.fd, phys, PAGE);
	ck_assert_ptr_ne((const void *)kview, MAP_FAILED);
	ck_assert_int_eq(kview[0], 0x5a);
	ck_assert_int_eq(kview[PAGE - 1], 0x5a);
	user[100] = 0x11;
	ck_assert_int_eq(kview[100], 0x11);
	assert_same_as_kcore((const void *)kview, l.info.page_offset + phys, PAGE);
	munmap((void *)kview, PAGE);
	munmap((void *)user, PAGE);
	close(l.fd);
}
END_TEST

/* ---- refusals ---- */

START_TEST(write_or_exec_refused)
{
	struct layout l;
	unsigned char c;
	uint64_t text;
	void *p;

	layout(&l);
	text = image_phys(&l, l.info.text_start);
	errno = 0;
	ck_assert_ptr_eq(mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE, l.fd, text), MAP_FAILED);
	ck_assert_int_eq(errno, EPERM);
	ck_assert_ptr_eq(mmap(NULL, PAGE, PROT_READ | PROT_EXEC, MAP_SHARED, l.fd, text), MAP_FAILED);
	ck_assert_int_eq(errno, EPERM);
	ck_assert_ptr_eq(mmap(NULL, PAGE, PROT_EXEC, MAP_PRIVATE, l.fd, text), MAP_FAILED);
	ck_assert_int_eq(errno, EPERM);
	/* the VFS refuses a shared writable map of a read-only fd first */
	ck_assert_ptr_eq(mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, l.fd, text), MAP_FAILED);
	ck_assert_int_eq(errno, EACCES);

	for (int flags = MAP_SHARED; flags; flags = flags == MAP_SHARED ? MAP_PRIVATE : 0) {
		p = mmap(NULL, PAGE, PROT_READ, flags, l.fd, text);
		ck_assert_ptr_ne(p, MAP_FAILED);
		ck_assert_int_eq(mprotect(p, PAGE, PROT_READ | PROT_WRITE), -1);
		ck_assert_int_eq(errno, EACCES);
		ck_assert_int_eq(mprotect(p, PAGE, PROT_READ | PROT_EXEC), -1);
		ck_assert_int_eq(errno, EACCES);
		ck_assert_int_eq(mprotect(p, PAGE, PROT_NONE), 0);
		ck_assert_int_eq(vt_probe_read(p, &c), SIGSEGV);
		ck_assert_int_eq(mprotect(p, PAGE, PROT_READ), 0);
		ck_assert_int_eq(vt_probe_read(p, &c), 0);
		ck_assert_int_eq(mprotect(p, PAGE, PROT_READ | PROT_GROWSDOWN), -1);
		ck_assert_int_eq(errno, EINVAL);
		munmap(p, PAGE);
	}
	close(l.fd);
}
END_TEST

#ifndef MAP_SYNC
#define MAP_SYNC		0x80000
#endif
#ifndef MAP_SHARED_VALIDATE
#define MAP_SHARED_VALIDATE	0x03
#endif
#ifndef MREMAP_DONTUNMAP
#define MREMAP_DONTUNMAP	4
#endif

/* mmap of @len at physical @off with @prot/@flags: 0 or errno (unmapped again). */
static int map_errno(int fd, size_t len, int prot, int flags, off_t off)
{
	void *p;

	errno = 0;
	p = mmap(NULL, len, prot, flags, fd, off);
	if (p == MAP_FAILED)
		return errno;
	munmap(p, len);
	return 0;
}

/* Refusals of mmap(2) itself, by the VFS before the driver sees the call. */
START_TEST(vfs_refusals)
{
	struct layout l;
	uint64_t text;

	layout(&l);
	text = image_phys(&l, l.info.text_start);
	ck_assert_int_eq(map_errno(l.fd, PAGE, PROT_READ, MAP_SHARED, text), 0);
	ck_assert_int_eq(map_errno(l.fd, PAGE, PROT_READ, MAP_SHARED, text + 1), EINVAL);
	ck_assert_int_eq(map_errno(l.fd, PAGE, PROT_READ, MAP_SHARED, text + PAGE / 2), EINVAL);
	ck_assert_int_eq(map_errno(l.fd, 0, PROT_READ, MAP_SHARED, text), EINVAL);
	ck_assert_int_eq(map_errno(l.fd, PAGE, PROT_READ, 0, text), EINVAL);	/* no type */
	ck_assert_int_eq(map_errno(l.fd, PAGE, PROT_READ, MAP_SHARED | MAP_HUGETLB, text), EINVAL);
	ck_assert_int_eq(map_errno(l.fd, PAGE, PROT_READ, MAP_PRIVATE | MAP_HUGETLB, text), EINVAL);
	ck_assert_int_eq(map_errno(l.fd, PMD, PROT_READ, MAP_SHARED | MAP_HUGETLB,
				   text & ~(PMD - 1)), EINVAL);
	ck_assert_int_eq(map_errno(l.fd, PAGE, PROT_READ, MAP_SHARED_VALIDATE | MAP_SYNC, text),
			 EOPNOTSUPP);
	/* MAP_SYNC means nothing without _VALIDATE (legacy flags are ignored) */
	ck_assert_int_eq(map_errno(l.fd, PAGE, PROT_READ, MAP_SHARED_VALIDATE, text), 0);
	ck_assert_int_eq(map_errno(l.fd, PAGE, PROT_READ, MAP_SHARED | MAP_SYNC, text), 0);
	/* offset + length past 2^64 */
	ck_assert_int_eq(map_errno(l.fd, 2 * PAGE, PROT_READ, MAP_SHARED, -(off_t)PAGE), EOVERFLOW);
	/* longer than user space ((1 << 56) with 5-level paging), or rounding to 0 */
	ck_assert_int_eq(map_errno(l.fd, 1ULL << 57, PROT_READ, MAP_SHARED, text), ENOMEM);
	ck_assert_int_eq(map_errno(l.fd, 1ULL << 63, PROT_READ, MAP_SHARED, text), ENOMEM);
	ck_assert_int_eq(map_errno(l.fd, SIZE_MAX - PAGE, PROT_READ, MAP_SHARED, text), ENOMEM);
	ck_assert_int_eq(map_errno(l.fd, SIZE_MAX, PROT_READ, MAP_SHARED, text), ENOMEM);
	close(l.fd);
}
END_TEST

/*
 * madvise(2) on a kmem_ro mapping (VM_PFNMAP | VM_IO | VM_DONTEXPAND |
 * VM_DONTDUMP), every advice the kernels know and a few they do not.
 */
static const struct { int advice; int err; } advices[] = {
	{ MADV_NORMAL, 0 }, { MADV_RANDOM, 0 }, { MADV_SEQUENTIAL, 0 }, { MADV_WILLNEED, 0 },
	{ MADV_DONTNEED, EINVAL }, { 5, EINVAL }, { 6, EINVAL }, { 7, EINVAL },
	{ 8 /* MADV_FREE */, EINVAL }, { MADV_REMOVE, EACCES }, { MADV_DONTFORK, 0 },
	{ MADV_DOFORK, EINVAL }, { MADV_MERGEABLE, 0 }, { MADV_UNMERGEABLE, 0 },
	{ MADV_HUGEPAGE, 0 }, { MADV_NOHUGEPAGE, 0 }, { MADV_DONTDUMP, 0 },
	{ MADV_DODUMP, EINVAL }, { 18 /* MADV_WIPEONFORK */, EINVAL },
	{ 19 /* MADV_KEEPONFORK */, 0 }, { 20 /* MADV_COLD */, EINVAL },
	{ 21 /* MADV_PAGEOUT */, EINVAL }, { 22 /* MADV_POPULATE_READ */, EINVAL },
	{ 23 /* MADV_POPULATE_WRITE */, EINVAL }, { 24 /* MADV_DONTNEED_LOCKED */, EINVAL },
	{ 25 /* MADV_COLLAPSE */, EINVAL }, { 26, EINVAL }, { 99, EINVAL },
	/* root: get_user_pages() refuses VM_PFNMAP before any page is touched */
	{ 100 /* MADV_HWPOISON */, EFAULT }, { 101 /* MADV_SOFT_OFFLINE */, EFAULT },
};

START_TEST(madvise_each_advice)
{
	struct layout l;
	unsigned char before, after;
	char *p;
	int err, want = advices[_i].err;

	/* without KSM (a debug kernel's config) the madvise core refuses these */
	if ((advices[_i].advice == MADV_MERGEABLE || advices[_i].advice == MADV_UNMERGEABLE) &&
	    access("/sys/kernel/mm/ksm", F_OK))
		want = EINVAL;

	layout(&l);
	for (int shared = 0; shared < 2; shared++) {
		p = mmap(NULL, 4 * PAGE, PROT_READ, shared ? MAP_SHARED : MAP_PRIVATE, l.fd,
			 image_phys(&l, l.info.text_start));
		ck_assert_ptr_ne(p, MAP_FAILED);
		before = p[PAGE];
		err = madvise(p, 4 * PAGE, advices[_i].advice) ? errno : 0;
		ck_assert_msg(err == want, "madvise %d (%s): %s, want %s",
			      advices[_i].advice, shared ? "shared" : "private", strerror(err),
			      strerror(want));
		ck_assert_int_eq(vt_probe_read(p + PAGE, &after), 0);
		ck_assert_int_eq(after, before);	/* the mapping still reads text */
		munmap(p, 4 * PAGE);
	}
	close(l.fd);
}
END_TEST

/* read(), write(), lseek(), pread() and access from another process. */
START_TEST(friends_of_mmap)
{
	struct layout l;
	char c = 0, *p, buf[64];
	int status, mem;
	pid_t pid;

	layout(&l);
	errno = 0;
	ck_assert_int_eq(read(l.fd, &c, 1), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(write(l.fd, &c, 1), -1);
	ck_assert_int_eq(errno, EBADF);
	/* the file position is an address (read_test.c), not the mmap offset */
	ck_assert_int_eq(lseek(l.fd, 0, SEEK_SET), 0);
	ck_assert_int_eq(pread(l.fd, &c, 1, 0), -1);
	ck_assert_int_eq(errno, EINVAL);

	p = vt_map_phys(l.fd, image_phys(&l, l.info.text_start), PAGE);
	ck_assert_ptr_ne(p, MAP_FAILED);
	(void)*(volatile char *)p;
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		struct iovec local = { buf, sizeof(buf) }, remote = { p, sizeof(buf) };
		char path[64];

		if (process_vm_readv(getppid(), &local, 1, &remote, 1, 0) != -1 || errno != EFAULT)
			_exit(1);
		snprintf(path, sizeof(path), "/proc/%d/mem", getppid());
		mem = open(path, O_RDONLY);
		if (mem < 0)
			_exit(2);
		if (pread(mem, buf, sizeof(buf), (off_t)(uintptr_t)p) != -1 || errno != EIO)
			_exit(3);
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 0);
	munmap(p, PAGE);
	close(l.fd);
}
END_TEST

/* a top-level /proc/iomem range that is not System RAM, page aligned */
static int iomem_non_ram(uint64_t *start)
{
	FILE *f = fopen("/proc/iomem", "re");
	unsigned long long s, e;
	char line[256];
	int pos, found = 0;

	ck_assert_ptr_nonnull(f);
	while (!found && fgets(line, sizeof(line), f))
		if (line[0] != ' ' && sscanf(line, "%llx-%llx : %n", &s, &e, &pos) == 2 &&
		    strcmp(line + pos, "System RAM\n") && s >= (1ULL << 20) &&
		    !(s & (PAGE - 1)) && e - s + 1 >= PAGE) {
			*start = s;
			found = 1;
		}
	fclose(f);
	return found;
}

START_TEST(non_ram_is_einval)
{
	struct layout l;
	uint64_t mmio;

	layout(&l);
	ck_assert_msg(iomem_non_ram(&mmio), "no non-RAM range in /proc/iomem");
	errno = 0;
	ck_assert_ptr_eq(vt_map_phys(l.fd, mmio, PAGE), MAP_FAILED);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_ptr_eq(vt_map_phys(l.fd, 1ULL << 46, PAGE), MAP_FAILED);	/* past any RAM */
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_ptr_eq(vt_map_phys(l.fd, l.ram[l.nr - 1].end + PMD, PAGE), MAP_FAILED);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_ptr_eq(vt_map_phys(l.fd, 0, 0), MAP_FAILED);
	ck_assert_int_eq(errno, EINVAL);
	close(l.fd);
}
END_TEST

START_TEST(hole_is_refused)
{
	struct layout l;
	uint64_t first, last, span;
	const char *p;
	unsigned char c;

	layout(&l);
	/* from physical 0 to just past the first RAM range: holes both sides */
	first = (l.ram[0].start + PAGE - 1) & ~(PAGE - 1);
	last = l.ram[0].end & ~(PAGE - 1);	/* first page not wholly RAM */
	ck_assert_msg(l.nr > 1 && l.ram[1].start > last + PAGE, "no hole after RAM range 0");
	span = last + PAGE;
	p = vt_map_phys(l.fd, 0, span);
	ck_assert_ptr_ne(p, MAP_FAILED);
	ck_assert_int_eq(vt_probe_read(p + first, &c), 0);
	ck_assert_int_eq(vt_probe_read(p + last - PAGE, &c), 0);
	assert_refused(&l, p + last);
	ck_assert_uint_gt(first, 0);	/* page 0 is never RAM on x86 */
	assert_refused(&l, p);
	munmap((void *)p, span);
	close(l.fd);
}
END_TEST

/*
 * RAM mmap off (INFO in @l read then): the feature bits say text only, a
 * mapping of the RAM page under @user is EPERM, the text maps.
 */
static void assert_text_only(struct layout *l, const void *user)
{
	void *p;

	ck_assert(!(l->info.features & KMEM_RO_FEAT_MMAP_RAM));
	ck_assert(l->info.features & KMEM_RO_FEAT_MMAP_TEXT);
	errno = 0;
	ck_assert_ptr_eq(vt_map_phys(l->fd, vt_pagemap_pfn(user) * PAGE, PAGE), MAP_FAILED);
	ck_assert_int_eq(errno, EPERM);
	p = vt_map_phys(l->fd, image_phys(l, l->info.text_start), PAGE);
	ck_assert_ptr_ne(p, MAP_FAILED);
	assert_same_as_kcore(p, l->info.text_start, PAGE);
	munmap(p, PAGE);
}

START_TEST(secret_page_is_refused)
{
	int mfd = syscall(SYS_memfd_secret, 0);
	static char kc[PAGE];
	const unsigned char *k;
	struct layout l;
	uint64_t phys;
	unsigned char c = 0x77;
	char *secret;

	ck_assert_msg(mfd >= 0, "memfd_secret: %s", strerror(errno));
	ck_assert_int_eq(ftruncate(mfd, PAGE), 0);
	secret = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	ck_assert_ptr_ne(secret, MAP_FAILED);
	memset(secret, 0xa5, PAGE);
	phys = vt_pagemap_pfn(secret) * PAGE;
	layout(&l);
	k = vt_map_phys(l.fd, phys, PAGE);
	ck_assert_ptr_ne(k, MAP_FAILED);
	assert_refused(&l, k);
	(void)c;
	/* /proc/kcore, checked at every read, shows zeros */
	ck_assert_int_eq(vt_kcore_read(l.info.page_offset + phys, kc, PAGE), 0);
	for (size_t i = 0; i < PAGE; i++)
		ck_assert_int_eq(kc[i], 0);
	assert_read_as_device(&l, l.info.page_offset + phys);
	ck_assert_int_eq((unsigned char)secret[7], 0xa5);
	munmap((void *)k, PAGE);
	munmap(secret, PAGE);
	close(mfd);
	close(l.fd);
}
END_TEST

START_TEST(hwpoisoned_page_is_refused)
{
	static char kc[PAGE];
	uint64_t pfn = vt_hwpoison_page();
	const unsigned char *k;
	unsigned char c = 0x77;
	struct layout l;

	layout(&l);
	k = vt_map_phys(l.fd, pfn * PAGE, PAGE);
	ck_assert_ptr_ne(k, MAP_FAILED);
	assert_refused(&l, k);
	(void)c;
	ck_assert_int_eq(vt_kcore_read(l.info.page_offset + pfn * PAGE, kc, PAGE), 0);
	for (size_t i = 0; i < PAGE; i++)
		ck_assert_int_eq(kc[i], 0);
	assert_read_as_device(&l, l.info.page_offset + pfn * PAGE);
	munmap((void *)k, PAGE);
	close(l.fd);
}
END_TEST

/*
 * A page whose memory type is not write-back (set_memory_wc(), as TTM page
 * pools do) is never inserted: the entry would keep that type after the
 * kernel sets the page back to write-back.  The refused page stands in.
 */
START_TEST(write_combining_page_is_refused)
{
	const unsigned char *k;
	unsigned char c = 0x77;
	struct layout l;
	uint64_t wc;

	ck_assert_msg(vt_testobj("pat_enabled") == 1, "PAT is off: no memory types to test");
	vt_write_file("/sys/kernel/debug/kmem_ro_testobj_wc", "1");
	wc = vt_testobj("wc_page");
	ck_assert_msg(wc, "kmem_ro_testobj: set_memory_wc() failed");
	layout(&l);
	k = vt_map_phys(l.fd, wc - l.info.page_offset, PAGE);
	ck_assert_ptr_ne(k, MAP_FAILED);
	assert_refused(&l, k);
	(void)c;
	munmap((void *)k, PAGE);
	close(l.fd);
}
END_TEST

#define REUSE_PAGES	64
#define PIPES		32
#define SECRET_LEN	(6UL << 20)	/* memfd_secret faults count against RLIMIT_MEMLOCK (8 MiB) */

/* Run on CPU 0 only: pages freed here go to its per-CPU lists, where the
 * next allocations of the same kind here find them first. */
static void pin_cpu0(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	ck_assert_int_eq(sched_setaffinity(0, sizeof(set), &set), 0);
}

/* The PFN of every page of @p (populated), from /proc/self/pagemap. */
static void pagemap_pfns(const char *p, size_t len, uint64_t *pfns)
{
	int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	size_t n = len / PAGE;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pread(fd, pfns, n * 8, (off_t)((uintptr_t)p / PAGE * 8)),
			 (ssize_t)(n * 8));
	close(fd);
	for (size_t i = 0; i < n; i++) {
		ck_assert_msg(pfns[i] >> 63, "page %zu not present", i);
		pfns[i] &= (1ULL << 55) - 1;
	}
}

static sigjmp_buf touch_jmp;

static void touch_handler(int sig)
{
	siglongjmp(touch_jmp, sig);
}

/*
 * Read a byte of every page of @p (@len bytes) into @first (one per page,
 * may be NULL); set bit i of @ok (may be NULL) when page i read.  The
 * handler stays installed and SIGBUS unblocked (SA_NODEFER), so a page
 * costs no system call.  Returns how many pages raised SIGBUS.
 */
static size_t touch_pages(const volatile unsigned char *p, size_t len, unsigned char *ok)
{
	struct sigaction sa = { .sa_handler = touch_handler, .sa_flags = SA_NODEFER }, old;
	volatile size_t off = 0, bad = 0;

	sigaction(SIGBUS, &sa, &old);
	if (sigsetjmp(touch_jmp, 0)) {
		bad++;
		off += PAGE;
	}
	for (; off < len; off += PAGE) {
		(void)p[off];
		if (ok)
			ok[off / PAGE / 8] |= 1 << (off / PAGE % 8);
	}
	sigaction(SIGBUS, &old, NULL);
	return bad;
}

/*
 * A page the kernel cannot read when it is touched (a memfd_secret page)
 * reads as the refused page, never zeros.  Once the page is freed and
 * reused as ordinary RAM (pipe buffers: unmovable order-0 pages, as
 * memfd_secret's are) the refused entry stays, the pattern telling a
 * reader to ask the device; the next zap (mmap_ram written) drops it and
 * the same mapping shows the page's bytes.  A zero page inserted in its
 * place would have read zeros for the new owner, indistinguishable.
 */
START_TEST(unreadable_page_is_refused_then_live)
{
	static uint64_t pfn[REUSE_PAGES];
	static char chunk[PAGE];
	const unsigned char *view[REUSE_PAGES];
	int mfd = syscall(SYS_memfd_secret, 0), pipes[PIPES][2];
	int refused = 0, kept = 0, live = 0, stale = 0;
	unsigned char c, kc[64];
	struct layout l;
	char *secret;

	pin_cpu0();
	layout(&l);
	ck_assert_msg(mfd >= 0, "memfd_secret: %s", strerror(errno));
	ck_assert_int_eq(ftruncate(mfd, REUSE_PAGES * PAGE), 0);
	secret = mmap(NULL, REUSE_PAGES * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	ck_assert_ptr_ne(secret, MAP_FAILED);
	memset(secret, 0xa5, REUSE_PAGES * PAGE);
	pagemap_pfns(secret, REUSE_PAGES * PAGE, pfn);
	for (int i = 0; i < REUSE_PAGES; i++) {
		view[i] = vt_map_phys(l.fd, pfn[i] * PAGE, PAGE);
		ck_assert_ptr_ne(view[i], MAP_FAILED);
		assert_refused(&l, view[i]);
		refused++;
	}
	/* freed: zeroed, back in the direct map and in the allocator */
	ck_assert_int_eq(munmap(secret, REUSE_PAGES * PAGE), 0);
	close(mfd);
	memset(chunk, 0xc3, sizeof(chunk));
	for (int i = 0; i < PIPES; i++) {
		ck_assert_int_eq(pipe2(pipes[i], O_NONBLOCK), 0);
		while (write(pipes[i][1], chunk, sizeof(chunk)) == (ssize_t)sizeof(chunk))
			;
	}
	for (int i = 0; i < REUSE_PAGES; i++)
		kept += *(const volatile uint64_t *)view[i] == l.info.mmap_refused;
	/* a zap of every mapping: the refused entries go */
	vt_mmap_ram_off();
	vt_mmap_ram_on();
	for (int i = 0; i < REUSE_PAGES; i++) {
		c = 0x77;
		ck_assert_msg(vt_probe_read(view[i], &c) == 0,
			      "page %d, ordinary RAM again, raises a signal", i);
		/* kcore, checked at this read, is the truth */
		ck_assert_int_eq(vt_kcore_read(l.info.page_offset + pfn[i] * PAGE, kc, sizeof(kc)), 0);
		live += kc[0] == 0xc3 && c == 0xc3;
		stale += kc[0] == 0xc3 && c != 0xc3;
	}
	printf("mmap_test: %d of %d pages unreadable when touched read as the refused page, "
	       "%d still after they were freed; after mmap_ram was written %d hold pipe data: "
	       "%d read it through the same mapping, %d stale\n",
	       refused, REUSE_PAGES, kept, live + stale, live, stale);
	ck_assert_int_eq(kept, REUSE_PAGES);
	ck_assert_msg(!stale, "%d pages now holding pipe data read stale through the mapping",
		      stale);
	ck_assert_msg(live > 0, "no freed page was reused for pipe data");
	for (int i = 0; i < PIPES; i++) {
		close(pipes[i][0]);
		close(pipes[i][1]);
	}
	for (int i = 0; i < REUSE_PAGES; i++)
		munmap((void *)view[i], PAGE);
	close(l.fd);
}
END_TEST

/*
 * What the opt-in gives up: memfd_secret takes free pages that a RAM
 * mapping already shows, and nothing tells the driver (secretmem_fault()
 * only removes the direct map's entry; a PFN mapping has no rmap), so the
 * old entries show the secret.  Here every RAM page is mapped and touched
 * first, so the secret pages are among them.  A mapping made after that
 * cannot show them, and by default there is no RAM mapping at all.
 */
START_TEST(secret_reuse_under_opt_in)
{
	static uint64_t secret_pfns[SECRET_LEN / PAGE];
	const unsigned char *view[64];
	unsigned char *ok[64];
	int mfd = syscall(SYS_memfd_secret, 0), reused = 0, shown = 0, checked = 0, gone = 0;
	uint64_t first[64], pages[64], last = 0;
	size_t bad = 0;
	struct layout l;
	char *secret;

	pin_cpu0();
	layout(&l);
	ck_assert_msg(mfd >= 0, "memfd_secret: %s", strerror(errno));
	ck_assert_int_le(l.nr, 64);
	for (int i = 0; i < l.nr; i++) {
		first[i] = (l.ram[i].start + PAGE - 1) / PAGE;
		pages[i] = l.ram[i].end / PAGE > first[i] ? l.ram[i].end / PAGE - first[i] : 0;
		view[i] = NULL;
		ok[i] = calloc(pages[i] / 8 + 1, 1);
		ck_assert_ptr_nonnull(ok[i]);
		if (!pages[i])
			continue;
		view[i] = vt_map_phys(l.fd, first[i] * PAGE, pages[i] * PAGE);
		ck_assert_ptr_ne(view[i], MAP_FAILED);
		bad += touch_pages(view[i], pages[i] * PAGE, ok[i]);
	}
	ck_assert_int_eq(ftruncate(mfd, SECRET_LEN), 0);
	secret = mmap(NULL, SECRET_LEN, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	ck_assert_ptr_ne(secret, MAP_FAILED);
	mark_point();
	memset(secret, 0xa5, SECRET_LEN);
	mark_point();
	pagemap_pfns(secret, SECRET_LEN, secret_pfns);
	for (size_t j = 0; j < SECRET_LEN / PAGE; j++) {
		uint64_t pfn = secret_pfns[j], k;
		const unsigned char *now;
		int i;

		for (i = 0; i < l.nr; i++)
			if (pfn >= first[i] && pfn < first[i] + pages[i])
				break;
		ck_assert_int_lt(i, l.nr);
		k = pfn - first[i];
		if (!(ok[i][k / 8] & (1 << (k % 8))))
			continue;
		reused++;
		if (touch_pages(view[i] + k * PAGE, PAGE, NULL)) {
			gone++;
			continue;
		}
		shown += view[i][k * PAGE] == 0xa5 && view[i][k * PAGE + PAGE - 1] == 0xa5;
		if (checked++ >= 8)
			continue;
		now = vt_map_phys(l.fd, pfn * PAGE, PAGE);
		ck_assert_ptr_ne(now, MAP_FAILED);
		assert_refused(&l, now);
		munmap((void *)now, PAGE);
		if (checked == 1)
			last = pfn;
	}
	printf("mmap_test: %zu RAM pages signalled when touched; memfd_secret took %d pages "
	       "mapped before, the old mapping shows the secret in %d, %d gone "
	       "(the opt-in's limit)\n", bad, reused, shown, gone);
	ck_assert_int_eq(bad, 0);
	ck_assert_int_eq(gone, 0);
	ck_assert_int_gt(reused, 0);
	/* README's opt-in table says so: if this changes, change README */
	ck_assert_int_eq(shown, reused);
	/* mmap_ram=0 revokes: the old mapping no longer shows the secret */
	vt_mmap_ram_off();
	errno = 0;
	ck_assert_ptr_eq(vt_map_phys(l.fd, last * PAGE, PAGE), MAP_FAILED);
	ck_assert_int_eq(errno, EPERM);
	ck_assert_int_eq(vt_info(l.fd, &l.info, NULL, 0), 0);
	for (int i = 0; i < l.nr; i++)
		if (last >= first[i] && last < first[i] + pages[i])
			assert_refused(&l, view[i] + (last - first[i]) * PAGE);
	vt_mmap_ram_on();
	for (int i = 0; i < l.nr; i++) {
		if (view[i])
			munmap((void *)view[i], pages[i] * PAGE);
		free(ok[i]);
	}
	munmap(secret, SECRET_LEN);
	close(mfd);
	close(l.fd);
}
END_TEST

/*
 * The module as init loads it, without parameters: only the text is
 * mappable, INFO says so, RAM mmap is EPERM, the library reads RAM
 * through READV.
 */
START_TEST(default_maps_text_only)
{
	char *user = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	static char lib[PAGE], kc[PAGE];
	struct kmemdev *h;
	struct layout l;
	const void *q;

	ck_assert_ptr_ne(user, MAP_FAILED);
	memset(user, 0x3c, PAGE);
	ck_assert_msg(vt_file_has(RAW_PARAM, "N") == 1, "mmap_ram is not off by default");
	layout(&l);
	assert_text_only(&l, user);
	ck_assert_int_eq(kmemdev_open(&h, NULL), 0);
	ck_assert_int_eq(kmemdev_map(h, l.info.page_offset + vt_pagemap_pfn(user) * PAGE,
				     8, &q), -ENXIO);
	ck_assert_int_eq(kmemdev_read(h, l.info.page_offset + vt_pagemap_pfn(user) * PAGE,
				      lib, PAGE), 0);
	ck_assert_int_eq(memcmp(lib, user, PAGE), 0);
	ck_assert_int_eq(vt_kcore_read(l.info.page_offset + vt_pagemap_pfn(user) * PAGE,
				       kc, PAGE), 0);
	ck_assert_int_eq(memcmp(lib, kc, PAGE), 0);
	kmemdev_close(h);
	munmap(user, PAGE);
	close(l.fd);
}
END_TEST

/*
 * A process holding a mapping of RAM pages @a and @b (physical), made while
 * mmap_ram=1, as root (a fork child) or as the member: it touches @a at
 * once and answers each command byte on @cmd with the first u64 of that
 * page ('a' or 'b') on @ans, or the signal the touch raised; 'q' ends it.
 */
struct viewer_answer {
	int sig;
	uint64_t word;
};

static void __attribute__((noreturn)) viewer(int fd, uint64_t a, uint64_t b, int cmd, int ans)
{
	const volatile uint64_t *pa, *pb;
	struct viewer_answer r;
	unsigned char c;
	char op;

	if (fd < 0)
		fd = open(KMEM_RO_DEVICE, O_RDONLY | O_CLOEXEC);
	pa = vt_map_phys(fd, a, PAGE);
	pb = vt_map_phys(fd, b, PAGE);
	if (fd < 0 || pa == MAP_FAILED || pb == MAP_FAILED)
		_exit(1);
	(void)pa[0];
	while (read(cmd, &op, 1) == 1 && op != 'q') {
		const volatile uint64_t *p = op == 'a' ? pa : pb;

		r.sig = vt_probe_read(p, &c);
		r.word = r.sig ? 0 : p[0];
		if (write(ans, &r, sizeof(r)) != sizeof(r))
			_exit(2);
	}
	_exit(0);
}

struct viewer_proc {
	pid_t pid;
	int cmd, ans;
};

static void viewer_start(struct viewer_proc *v, bool member, int fd, uint64_t a, uint64_t b)
{
	static const gid_t groups[] = { MONITOR_GID };
	int cmd[2], ans[2];

	ck_assert_int_eq(pipe2(cmd, O_CLOEXEC), 0);
	ck_assert_int_eq(pipe2(ans, O_CLOEXEC), 0);
	v->pid = member ? vt_fork_as(MEMBER_UID, MEMBER_UID, groups, 1) : fork();
	ck_assert_int_ge(v->pid, 0);
	if (!v->pid)
		viewer(member ? -1 : fd, a, b, cmd[0], ans[1]);
	close(cmd[0]);
	close(ans[1]);
	v->cmd = cmd[1];
	v->ans = ans[0];
}

/* The first u64 of page @op as the viewer reads it; fails on a signal. */
static uint64_t viewer_word(struct viewer_proc *v, char op)
{
	struct viewer_answer r;

	ck_assert_int_eq(write(v->cmd, &op, 1), 1);
	ck_assert_msg(vt_wait_readable(v->ans, 60000), "viewer did not answer");
	ck_assert_int_eq(read(v->ans, &r, sizeof(r)), sizeof(r));
	ck_assert_msg(!r.sig, "viewer's page %c: signal %d", op, r.sig);
	return r.word;
}

static void viewer_end(struct viewer_proc *v)
{
	int status;

	ck_assert_int_eq(write(v->cmd, "q", 1), 1);
	ck_assert_int_eq(vt_wait_child(v->pid, 60000, &status), 0);
	ck_assert_msg(WIFEXITED(status) && !WEXITSTATUS(status), "viewer: status %#x", status);
	close(v->cmd);
	close(v->ans);
}

/*
 * Setting mmap_ram back to 0 takes back what it gave: every mapping of RAM,
 * in this process, a fork child and the member's process, shows the
 * refused page from then on, on a page touched before (the entry is
 * zapped) as on one touched first now (the fault refuses it), while the
 * text of the same mapping reads on.  INFO says text only, a new RAM mmap
 * is EPERM.  Setting it to 1 again shows the pages once more.
 */
START_TEST(mmap_ram_off_revokes_every_mapping)
{
	char *user = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	const volatile uint64_t *pa, *pb;
	struct viewer_proc v[2];
	uint64_t a, b, data, end_phys;
	struct kmem_ro_info info;
	struct layout l;
	const char *t;

	ck_assert_ptr_ne(user, MAP_FAILED);
	memset(user, 0x3c, 2 * PAGE);
	memcpy(&data, user, 8);
	ck_assert_int_eq(mlock(user, 2 * PAGE), 0);
	a = vt_pagemap_pfn(user) * PAGE;
	b = vt_pagemap_pfn(user + PAGE) * PAGE;
	layout(&l);
	ck_assert(l.info.features & KMEM_RO_FEAT_MMAP_RAM);
	pa = vt_map_phys(l.fd, a, PAGE);
	pb = vt_map_phys(l.fd, b, PAGE);
	ck_assert_ptr_ne((void *)pa, MAP_FAILED);
	ck_assert_ptr_ne((void *)pb, MAP_FAILED);
	ck_assert_uint_eq(pa[0], data);
	/* the last text page and the RAM page after it, in one RAM mapping */
	end_phys = image_phys(&l, l.info.text_end);
	t = vt_map_phys(l.fd, end_phys - PAGE, 2 * PAGE);
	ck_assert_ptr_ne(t, MAP_FAILED);
	ck_assert_int_eq(vt_probe_read(t + PAGE, &(unsigned char){ 0 }), 0);
	ck_assert_int_eq(chown(KMEM_RO_DEVICE, 0, MONITOR_GID), 0);
	viewer_start(&v[0], false, l.fd, a, b);
	viewer_start(&v[1], true, l.fd, a, b);
	for (int i = 0; i < 2; i++)
		ck_assert_uint_eq(viewer_word(&v[i], 'a'), data);

	vt_write_file(RAW_PARAM, "0");
	ck_assert_msg(pa[0] != data, "mapping made under mmap_ram=1 still shows the page");
	ck_assert_int_eq(vt_info(l.fd, &l.info, NULL, 0), 0);
	assert_text_only(&l, user);
	assert_refused(&l, (const void *)pa);
	assert_refused(&l, (const void *)pb);
	assert_same_as_kcore(t, l.info.text_end - PAGE, PAGE);
	assert_refused(&l, t + PAGE);
	for (int i = 0; i < 2; i++) {
		ck_assert_uint_eq(viewer_word(&v[i], 'a'), l.info.mmap_refused);
		ck_assert_uint_eq(viewer_word(&v[i], 'b'), l.info.mmap_refused);
	}

	/* and back: the refused entries go, the pages show again */
	vt_write_file(RAW_PARAM, "1");
	ck_assert_int_eq(vt_info(l.fd, &info, NULL, 0), 0);
	ck_assert(info.features & KMEM_RO_FEAT_MMAP_RAM);
	ck_assert_uint_eq(pa[0], data);
	ck_assert_uint_eq(pb[0], data);
	ck_assert_int_eq(memcmp(t + PAGE, &l.info.mmap_refused, 8) != 0, 1);
	for (int i = 0; i < 2; i++) {
		ck_assert_uint_eq(viewer_word(&v[i], 'a'), data);
		ck_assert_uint_eq(viewer_word(&v[i], 'b'), data);
		viewer_end(&v[i]);
	}
	ck_assert_int_eq(chown(KMEM_RO_DEVICE, 0, 0), 0);
	munmap((void *)t, 2 * PAGE);
	munmap((void *)pa, PAGE);
	munmap((void *)pb, PAGE);
	munmap(user, 2 * PAGE);
	close(l.fd);
}
END_TEST

/*
 * A mapping made while mmap_ram=0 shows the text and nothing else, even
 * after mmap_ram is back on: the RAM page right after the text reads as
 * the refused page, the last text page reads.
 */
START_TEST(mmap_ram_off_at_mmap_time_sticks)
{
	uint64_t end_phys;
	unsigned char c;
	struct layout l;
	const char *p;

	layout(&l);
	end_phys = image_phys(&l, l.info.text_end);
	ck_assert_msg(vt_file_has("/proc/iomem", "Kernel code") == 1, "no Kernel code in iomem");
	vt_write_file(RAW_PARAM, "0");
	p = vt_map_phys(l.fd, end_phys - PAGE, 2 * PAGE);
	vt_write_file(RAW_PARAM, "1");
	ck_assert_ptr_ne(p, MAP_FAILED);
	ck_assert_int_eq(vt_probe_read(p, &c), 0);
	assert_same_as_kcore(p, l.info.text_end - PAGE, PAGE);
	assert_refused(&l, p + PAGE);
	munmap((void *)p, 2 * PAGE);
	/* the same range mapped now, with RAM on, reads on */
	p = vt_map_phys(l.fd, end_phys - PAGE, 2 * PAGE);
	ck_assert_ptr_ne(p, MAP_FAILED);
	ck_assert_int_eq(vt_probe_read(p + PAGE, &c), 0);
	munmap((void *)p, 2 * PAGE);
	close(l.fd);
}
END_TEST

/*
 * The text faults by PMD where the kernel has huge PFN faults (6.12 on;
 * 6.1 rejects them all); RAM always by 4 KiB (kmem_ro_pmd_in_text()).
 */
START_TEST(huge_mapping_page_table_cost)
{
	uint64_t best_start = 0, best_len = 0, text, text_len, text_blocks = 0;
	long long before, after;
	volatile const char *p;
	struct layout l;
	size_t len;

	layout(&l);
	ck_assert_int_eq(!!(l.info.features & KMEM_RO_FEAT_MMAP_HUGE), vt_kernel_at_least(6, 12));
	/* the text's whole 2 MiB blocks */
	text = (image_phys(&l, l.info.text_start) + PMD - 1) & ~(PMD - 1);
	text_len = (image_phys(&l, l.info.text_end) & ~(PMD - 1)) - text;
	ck_assert_uint_ge(text_len, 4 * PMD);
	before = vt_status_kb("VmPTE");
	p = vt_map_phys(l.fd, text, text_len);
	ck_assert_ptr_ne((void *)p, MAP_FAILED);
	if (l.info.features & KMEM_RO_FEAT_MMAP_HUGE)
		ck_assert_uint_eq(((uintptr_t)p - text) % PMD, 0);
	ck_assert_uint_eq(touch_pages((volatile const unsigned char *)p, text_len, NULL), 0);
	after = vt_status_kb("VmPTE");
	printf("mmap: touched %llu MiB of text: VmPTE %+lld kB (%s)\n",
	       (unsigned long long)text_len >> 20, after - before,
	       l.info.features & KMEM_RO_FEAT_MMAP_HUGE ? "PMD faults" : "4 KiB faults");
	/* a debug kernel's direct map has 4 KiB pieces (KFENCE): a few fall back */
	if (l.info.features & KMEM_RO_FEAT_MMAP_HUGE)
		ck_assert_int_le(after - before, (long long)(text_len / PMD) * 4 / 16 + 32);
	else
		ck_assert_int_ge(after - before, (long long)(text_len / PMD) * 4);
	munmap((void *)p, text_len);

	for (int i = 0; i < l.nr; i++) {
		uint64_t s = (l.ram[i].start + PMD - 1) & ~(PMD - 1), e = l.ram[i].end & ~(PMD - 1);

		if (e > s && e - s > best_len) {
			best_start = s;
			best_len = e - s;
		}
	}
	len = best_len > (256UL << 20) ? 256UL << 20 : best_len;
	ck_assert_uint_ge(len, 64UL << 20);
	before = vt_status_kb("VmPTE");
	p = vt_map_phys(l.fd, best_start, len);
	ck_assert_ptr_ne((void *)p, MAP_FAILED);
	/* pages poisoned or made write-combining by the tests before: refused */
	ck_assert_uint_eq(touch_pages((volatile const unsigned char *)p, len, NULL), 0);
	after = vt_status_kb("VmPTE");
	printf("mmap: touched %zu MiB of RAM: VmPTE %+lld kB (4 KiB faults)\n", len >> 20,
	       after - before);
	/* 4 KiB entries: one PTE page per 2 MiB (but the text's), plus upper levels */
	if (l.info.features & KMEM_RO_FEAT_MMAP_HUGE) {
		uint64_t lo = text > best_start ? text : best_start;
		uint64_t hi = text + text_len < best_start + len ? text + text_len : best_start + len;

		text_blocks = hi > lo ? (hi - lo) / PMD : 0;
	}
	ck_assert_int_ge(after - before, (long long)(len / PMD - text_blocks) * 4);
	ck_assert_int_le(after - before, (long long)(len / PMD) * 4 + 64);
	munmap((void *)p, len);
	close(l.fd);
}
END_TEST

/*
 * RAM the page allocator hands out may become the huge zero folio at any
 * time, and 7.3's munmap() takes a PMD over that folio's PFN for one with
 * a deposited page table, whatever the VMA (has_deposited_pgtable() in
 * zap_huge_pmd(), mm/huge_memory.c): a PMD of ours over it was a NULL
 * dereference.  Make the folio (a read fault of anonymous THP memory), map
 * its 2 MiB through the device, read zeros, unmap.
 */
START_TEST(huge_zero_folio_maps_and_unmaps)
{
	static const char zeros[PAGE];
	volatile const char *anon, *p;
	uint64_t pfn;
	struct layout l;
	char *raw;

	raw = mmap(NULL, 2 * PMD, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(raw, MAP_FAILED);
	anon = (const char *)(((uintptr_t)raw + PMD - 1) & ~(PMD - 1));
	ck_assert_int_eq(madvise((void *)anon, PMD, MADV_HUGEPAGE), 0);
	ck_assert_int_eq(anon[0], 0);
	pfn = vt_pagemap_pfn((const void *)anon);
	ck_assert_msg(vt_pagemap_pfn((const void *)(anon + PMD - PAGE)) == pfn + PMD / PAGE - 1,
		      "no huge zero folio under a read fault of THP memory (pfn 0x%llx)",
		      (unsigned long long)pfn);

	layout(&l);
	p = vt_map_phys(l.fd, pfn * PAGE, PMD);
	ck_assert_ptr_ne((void *)p, MAP_FAILED);
	for (size_t off = 0; off < PMD; off += PAGE)
		ck_assert_msg(!memcmp((const void *)(p + off), zeros, PAGE),
			      "huge zero folio not zero at +0x%zx", off);
	ck_assert_int_eq(munmap((void *)p, PMD), 0);
	ck_assert_int_eq(munmap(raw, 2 * PMD), 0);
	close(l.fd);
}
END_TEST

struct reader {
	const unsigned char *map, *snap;
	size_t len;
	unsigned int seed;
	long reads, bad;
	time_t until;
};

static void *read_randomly(void *arg)
{
	struct reader *r = arg;

	while (time(NULL) < r->until) {
		for (int i = 0; i < 1000; i++) {
			size_t off = (size_t)rand_r(&r->seed) % (r->len - 8);

			r->bad += memcmp(r->map + off, r->snap + off, 8) != 0;
			r->reads++;
		}
	}
	return NULL;
}

START_TEST(twenty_threads_read_text)
{
	struct reader r[20];
	pthread_t t[20];
	unsigned char *snap;
	struct layout l;
	size_t len;
	void *p = map_text(&l, &len);

	snap = malloc(len);
	memcpy(snap, p, len);
	for (int i = 0; i < 20; i++) {
		r[i] = (struct reader){ .map = p, .snap = snap, .len = len, .seed = i,
					.until = time(NULL) + 3 };
		ck_assert_int_eq(pthread_create(&t[i], NULL, read_randomly, &r[i]), 0);
	}
	for (int i = 0; i < 20; i++) {
		pthread_join(t[i], NULL);
		ck_assert_int_gt(r[i].reads, 0);
		ck_assert_int_eq(r[i].bad, 0);
	}
	assert_same_as_kcore(p, l.info.text_start, len);
	free(snap);
	munmap(p, len);
	close(l.fd);
}
END_TEST

START_TEST(fork_split_mremap)
{
	struct layout l;
	char *p, *copy, *q, *target;
	size_t len;
	pid_t pid;
	int status;

	layout(&l);
	len = (l.info.text_end - l.info.text_start) & ~(PMD - 1);
	ck_assert_uint_ge(len, 4 * PMD);
	p = vt_map_phys(l.fd, image_phys(&l, l.info.text_start), len);
	ck_assert_ptr_ne(p, MAP_FAILED);
	copy = malloc(len);
	memcpy(copy, p, len);

	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid)
		_exit(memcmp(p, copy, len) != 0);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);

	/* a hole inside what may be one PMD: the VMA splits, both sides read */
	ck_assert_int_eq(munmap(p + PMD + PAGE, PAGE), 0);
	ck_assert_int_eq(memcmp(p + PMD, copy + PMD, PAGE), 0);
	ck_assert_int_eq(memcmp(p + PMD + 2 * PAGE, copy + PMD + 2 * PAGE, PMD), 0);

	/* cannot grow; can move */
	ck_assert_ptr_eq(mremap(p + PMD + 2 * PAGE, len - PMD - 2 * PAGE,
				len - PMD - PAGE, 0), MAP_FAILED);
	ck_assert_int_eq(errno, EFAULT);
	target = mmap(NULL, 2 * PMD, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(target, MAP_FAILED);
	target = (char *)(((uintptr_t)target + PMD - 1) & ~(PMD - 1));
	q = mremap(p, PMD, PMD, MREMAP_MAYMOVE | MREMAP_FIXED, target);
	ck_assert_ptr_eq(q, target);
	ck_assert_int_eq(memcmp(q, copy, PMD), 0);

	/* a child that exits with live mappings */
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		(void)*(volatile char *)vt_map_phys(l.fd, image_phys(&l, l.info.text_start), PMD);
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);

	munmap(q, PMD);
	munmap(p + PMD, PAGE);
	munmap(p + PMD + 2 * PAGE, len - PMD - 2 * PAGE);
	free(copy);
	close(l.fd);
}
END_TEST

/* mremap(2) and munmap(2) on both kinds of mapping. */
START_TEST(mremap_and_munmap_rules)
{
	struct layout l;
	char *p, *q, *target, *copy;
	uint64_t text;

	layout(&l);
	text = image_phys(&l, l.info.text_start);
	copy = malloc(8 * PAGE);
	ck_assert_int_eq(vt_kcore_read(l.info.text_start, copy, 8 * PAGE), 0);
	for (int shared = 0; shared < 2; shared++) {
		int type = shared ? MAP_SHARED : MAP_PRIVATE;

		p = mmap(NULL, 8 * PAGE, PROT_READ, type, l.fd, text);
		ck_assert_ptr_ne(p, MAP_FAILED);
		/* old_len 0 duplicates a shared mapping: refused both ways */
		errno = 0;
		ck_assert_ptr_eq(mremap(p, 0, PAGE, MREMAP_MAYMOVE), MAP_FAILED);
		ck_assert_int_eq(errno, shared ? EFAULT : EINVAL);
		ck_assert_ptr_eq(mremap(p, 8 * PAGE, 8 * PAGE,
					MREMAP_MAYMOVE | MREMAP_DONTUNMAP), MAP_FAILED);
		ck_assert_int_eq(errno, EINVAL);
		ck_assert_ptr_eq(mremap(p, 8 * PAGE, 9 * PAGE, MREMAP_MAYMOVE), MAP_FAILED);
		ck_assert_int_eq(errno, EFAULT);
		/* shrink in place, then head and tail off */
		ck_assert_ptr_eq(mremap(p, 8 * PAGE, 6 * PAGE, 0), p);
		ck_assert_int_eq(munmap(p, PAGE), 0);
		ck_assert_int_eq(munmap(p + 5 * PAGE, PAGE), 0);
		ck_assert_int_eq(memcmp(p + PAGE, copy + PAGE, 4 * PAGE), 0);
		/* move to an address one page off the offset's PMD alignment */
		q = mmap(NULL, 3 * PMD, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		ck_assert_ptr_ne(q, MAP_FAILED);
		target = (char *)(((uintptr_t)q + PMD - 1) & ~(PMD - 1)) +
			 ((text + 2 * PAGE) & (PMD - 1));
		ck_assert_ptr_eq(mremap(p + PAGE, 4 * PAGE, 4 * PAGE, MREMAP_MAYMOVE | MREMAP_FIXED,
					target), target);
		ck_assert_int_eq(memcmp(target, copy + PAGE, 4 * PAGE), 0);
		munmap(q, 3 * PMD);
	}
	free(copy);
	close(l.fd);
}
END_TEST

START_TEST(mapping_pins_module)
{
	struct layout l;
	char *p;

	layout(&l);
	p = vt_map_phys(l.fd, image_phys(&l, l.info.text_start), PAGE);
	ck_assert_ptr_ne(p, MAP_FAILED);
	close(l.fd);
	ck_assert_int_eq(vt_module_unload("kmem_ro"), -EWOULDBLOCK);
	assert_same_as_kcore(p, l.info.text_start, PAGE);
	munmap(p, PAGE);
	ck_assert_int_eq(vt_module_unload("kmem_ro"), 0);
	ck_assert_int_eq(vt_module_load(VMTEST_MODULE_PATH, ""), 0);
}
END_TEST

/* ---- libkmemdev and kmemctl over the real mapping ---- */

START_TEST(library_read_matches_kcore)
{
	uint64_t banner = vt_kallsyms("linux_banner"), vmalloc_sym;
	static char lib[8192], kc[8192];
	struct kmemdev *h;
	struct layout l;
	const void *p;

	layout(&l);
	ck_assert_int_eq(kmemdev_open(&h, NULL), 0);
	/* image address, its direct-map alias, and text */
	ck_assert_int_eq(kmemdev_read(h, banner, lib, sizeof(lib)), 0);
	ck_assert_int_eq(vt_kcore_read(banner, kc, sizeof(kc)), 0);
	ck_assert_int_eq(memcmp(lib, kc, sizeof(lib)), 0);
	ck_assert_int_eq(kmemdev_read(h, l.info.page_offset + image_phys(&l, banner), lib, 64), 0);
	ck_assert_int_eq(memcmp(lib, kc, 64), 0);
	ck_assert_int_eq(kmemdev_read(h, l.info.text_start, lib, sizeof(lib)), 0);
	ck_assert_int_eq(vt_kcore_read(l.info.text_start, kc, sizeof(kc)), 0);
	ck_assert_int_eq(memcmp(lib, kc, sizeof(lib)), 0);
	/* the same pointer twice: mappings are cached per handle */
	ck_assert_int_eq(kmemdev_map(h, banner, 64, &p), 0);
	{
		const void *again;

		ck_assert_int_eq(kmemdev_map(h, banner, 64, &again), 0);
		ck_assert_ptr_eq(p, again);
	}
	/* module memory is not mappable: kmemdev_map says so, kmemdev_read
	 * serves it through READV all the same */
	vmalloc_sym = vt_kallsyms("kmem_ro_info_ioctl");
	ck_assert_int_eq(kmemdev_map(h, vmalloc_sym, 8, &p), -ENXIO);
	ck_assert_int_eq(kmemdev_read(h, vmalloc_sym, lib, 64), 0);
	ck_assert_int_eq(vt_kcore_read(vmalloc_sym, kc, 64), 0);
	ck_assert_int_eq(memcmp(lib, kc, 64), 0);
	ck_assert_int_eq(kmemdev_read(h, banner, lib, 0), -EINVAL);
	kmemdev_close(h);
	close(l.fd);
}
END_TEST

START_TEST(library_text_only_when_ram_off)
{
	static char lib[4096], kc[4096];
	struct kmemdev *h;
	const void *p;
	struct layout l;

	layout(&l);
	vt_write_file(RAW_PARAM, "0");
	ck_assert_int_eq(kmemdev_open(&h, NULL), 0);
	ck_assert_int_eq(kmemdev_read(h, l.info.text_start + 4096, lib, sizeof(lib)), 0);
	ck_assert_int_eq(vt_kcore_read(l.info.text_start + 4096, kc, sizeof(kc)), 0);
	ck_assert_int_eq(memcmp(lib, kc, sizeof(lib)), 0);
	ck_assert_int_eq(kmemdev_map(h, vt_kallsyms("init_task"), 8, &p), -ENXIO);
	ck_assert_int_eq(kmemdev_read(h, vt_kallsyms("init_task"), lib, 8), 0);	/* READV */
	kmemdev_close(h);
	vt_write_file(RAW_PARAM, "1");
	close(l.fd);
}
END_TEST

/*
 * READ_IMPLIES_EXEC (legacy binaries, setarch -X): do_mmap() turns
 * PROT_READ into PROT_READ|PROT_EXEC for a file on an exec mount, and the
 * driver cannot tell that from an asked-for PROT_EXEC: EPERM.  libkmemdev
 * reads through READV then, as a kcore reader reads with pread().
 */
static int read_implies_exec_child(void *unused)
{
	static char lib[4096], kc[4096];
	struct kmemdev *h;
	struct layout l;
	void *p;

	(void)unused;
	layout(&l);
	if (personality(READ_IMPLIES_EXEC) < 0)
		return 10;
	p = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, l.fd, image_phys(&l, l.info.text_start));
	if (p != MAP_FAILED || errno != EPERM)
		return 11;
	if (kmemdev_open(&h, NULL) ||
	    kmemdev_read(h, l.info.text_start + 4096, lib, sizeof(lib)) ||
	    vt_kcore_read(l.info.text_start + 4096, kc, sizeof(kc)) ||
	    memcmp(lib, kc, sizeof(lib)))
		return 12;
	kmemdev_close(h);
	/* without the personality: the same mmap is fine */
	if (personality(PER_LINUX) < 0)
		return 13;
	p = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, l.fd, image_phys(&l, l.info.text_start));
	if (p == MAP_FAILED)
		return 14;
	return 0;
}

START_TEST(read_implies_exec_is_eperm_library_reads)
{
	ck_assert_int_eq(vt_run_as(0, 0, -1, read_implies_exec_child, NULL), 0);
}
END_TEST

START_TEST(kmemctl_read_hexdump_and_raw)
{
	char *hex[] = { "kmemctl", "read", "linux_banner", "64", NULL };
	char *raw[] = { "kmemctl", "read", "--raw", "linux_banner+6", "7", NULL };
	char *bad[] = { "kmemctl", "read", "no_such_symbol_anywhere", "8", NULL };
	static char out[16384], err[4096];

	ck_assert_msg(vt_exec(0, 0, hex, out, sizeof(out), err, sizeof(err)) == 0, "%s", err);
	ck_assert_ptr_nonnull(strstr(out, "<linux_banner"));
	ck_assert_ptr_nonnull(strstr(out, "|Linux version "));
	ck_assert_msg(vt_exec(0, 0, raw, out, sizeof(out), err, sizeof(err)) == 0, "%s", err);
	ck_assert_str_eq(out, "version");
	ck_assert_int_eq(vt_exec(0, 0, bad, out, sizeof(out), err, sizeof(err)), 1);
	ck_assert_int_eq(vt_count_lines(err), 1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("mmap");
	TCase *tc = tcase_create("default");

	tcase_add_test(tc, default_maps_text_only);
	suite_add_tcase(s, tc);

	/* the rest under the opt-in */
	tc = tcase_create("content");
	tcase_add_checked_fixture(tc, vt_mmap_ram_on, vt_mmap_ram_off);
	tcase_add_test(tc, text_matches_kcore);
	tcase_add_test(tc, banner_matches_proc_version);
	tcase_add_test(tc, user_page_is_live);
	tcase_add_test(tc, secret_page_is_refused);
	tcase_add_test(tc, hwpoisoned_page_is_refused);
	tcase_add_test(tc, write_combining_page_is_refused);
	tcase_add_test(tc, unreadable_page_is_refused_then_live);
	tcase_add_test(tc, secret_reuse_under_opt_in);
	tcase_add_test(tc, huge_mapping_page_table_cost);
	tcase_add_test(tc, huge_zero_folio_maps_and_unmaps);
	tcase_add_test(tc, twenty_threads_read_text);
	suite_add_tcase(s, tc);

	tc = tcase_create("refusals");
	tcase_add_checked_fixture(tc, vt_mmap_ram_on, vt_mmap_ram_off);
	tcase_add_test(tc, write_or_exec_refused);
	tcase_add_test(tc, read_implies_exec_is_eperm_library_reads);
	tcase_add_test(tc, vfs_refusals);
	tcase_add_loop_test(tc, madvise_each_advice, 0, sizeof(advices) / sizeof(advices[0]));
	tcase_add_test(tc, friends_of_mmap);
	tcase_add_test(tc, mmap_ram_off_at_mmap_time_sticks);
	tcase_add_test(tc, non_ram_is_einval);
	tcase_add_test(tc, hole_is_refused);
	tcase_add_test(tc, mmap_ram_off_revokes_every_mapping);
	suite_add_tcase(s, tc);

	tc = tcase_create("library");
	tcase_add_checked_fixture(tc, vt_mmap_ram_on, vt_mmap_ram_off);
	tcase_add_test(tc, library_read_matches_kcore);
	tcase_add_test(tc, library_text_only_when_ram_off);
	tcase_add_test(tc, kmemctl_read_hexdump_and_raw);
	suite_add_tcase(s, tc);

	tc = tcase_create("lifetime");
	tcase_add_checked_fixture(tc, vt_mmap_ram_on, vt_mmap_ram_off);
	tcase_add_test(tc, fork_split_mremap);
	tcase_add_test(tc, mremap_and_munmap_rules);
	tcase_add_test(tc, mapping_pins_module);	/* reloads the module: last */
	suite_add_tcase(s, tc);
	return vt_main(s);
}
