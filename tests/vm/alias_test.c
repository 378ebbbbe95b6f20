// SPDX-License-Identifier: GPL-2.0
/*
 * One read path: READV and WALK read every page through the direct map of
 * a checked PFN, whatever alias was asked for.  The kernel-image alias is
 * where that matters: without PTI (QEMU's -cpu max has no Meltdown), freed
 * init memory and the image's last 2 MiB tail stay mapped there while the
 * page allocator hands the pages out again.  memfd_secret pages that land
 * there are gone from the direct map, and must stay secret through the
 * image alias too.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kmemdev.h"
#include "vmtest.h"

#ifndef SYS_memfd_secret
#define SYS_memfd_secret 447
#endif

#define PAGE		4096UL
#define CHUNK		(8UL << 20)
/*
 * Init memory is freed a page at a time onto the freeing CPU's per-CPU
 * list of its pageblock's migrate type.  Where boot had turned that block
 * unmovable, the first secret pages (unmovable) come from there: every
 * boot that landed any did within 16 MiB.  Where it stayed movable, 500 MiB
 * landed none (/proc/kpageflags: the span's free pages waited there all
 * along): stop early, for +retry's next boot.
 */
#define MAX_CHUNKS	8		/* 64 MiB */
#define WANT_LANDED	8
static const char secret[] = "kmem_ro secret page ";

struct landed {
	uint64_t pfn;
	char *user;
};

static sigjmp_buf fault_jmp;

static void on_sigbus(int sig)
{
	siglongjmp(fault_jmp, sig);
}

/*
 * Secret pages whose image alias is inside the image's 2 MiB-rounded span.
 * A secret page the kernel cannot allocate is a SIGBUS at first touch:
 * then the pages so far are all there is.
 */
static int land_secret_pages(struct landed *out, int cap, uint64_t image_lo,
			     uint64_t image_hi)
{
	struct sigaction sa = { .sa_handler = on_sigbus }, old;
	struct rlimit unlimited = { RLIM_INFINITY, RLIM_INFINITY };
	volatile int n = 0, chunks = 0;
	long long avail = vt_meminfo("MemAvailable");

	ck_assert_int_gt(avail, 0);
	/*
	 * 7.x charges memfd_secret pages to RLIMIT_MEMLOCK, root too
	 * (__secretmem_account_pages(); 6.x let CAP_IPC_LOCK through):
	 * 8 MiB by default, a SIGBUS past it.
	 */
	ck_assert_int_eq(setrlimit(RLIMIT_MEMLOCK, &unlimited), 0);
	ck_assert_int_eq(sigaction(SIGBUS, &sa, &old), 0);
	if (sigsetjmp(fault_jmp, 1)) {
		printf("alias_test: SIGBUS filling secret chunk %d\n", chunks);
		goto out;
	}
	while (n < cap && chunks < MAX_CHUNKS &&
	       (long long)(chunks + 1) * (long long)(CHUNK >> 10) < avail * 6 / 10) {
		int fd = syscall(SYS_memfd_secret, 0);
		cpu_set_t cpu;
		char *p;

		/* free pages also wait in each CPU's own lists: take from each */
		CPU_ZERO(&cpu);
		CPU_SET(chunks % sysconf(_SC_NPROCESSORS_ONLN), &cpu);
		sched_setaffinity(0, sizeof(cpu), &cpu);

		ck_assert_msg(fd >= 0, "memfd_secret: %s", strerror(errno));
		ck_assert_int_eq(ftruncate(fd, CHUNK), 0);
		p = mmap(NULL, CHUNK, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		ck_assert_ptr_ne(p, MAP_FAILED);
		close(fd);	/* the mapping keeps the pages */
		for (unsigned long off = 0; off < CHUNK; off += PAGE) {
			uint64_t pfn;

			snprintf(p + off, PAGE, "%s%lu", secret, off);
			pfn = vt_pagemap_pfn(p + off);
			if (pfn * PAGE >= image_lo && pfn * PAGE < image_hi && n < cap) {
				out[n] = (struct landed){ pfn, p + off };
				n++;
			}
		}
		chunks++;
	}
out:
	ck_assert_int_eq(sigaction(SIGBUS, &old, NULL), 0);
	printf("alias_test: %d MiB of memfd_secret\n", chunks * (int)(CHUNK >> 20));
	return n;
}

static int readv_one(int fd, uint64_t addr, void *buf, uint64_t len, int64_t *result)
{
	struct kmem_ro_iov iov = { .addr = addr, .len = len, .buf = (uintptr_t)buf,
				   .result = 0x7777 };
	struct kmem_ro_readv rv = { .size = sizeof(rv), .iov_addr = (uintptr_t)&iov,
				    .iov_count = 1 };
	int err = vt_ioctl(fd, KMEM_RO_IOC_READV, &rv);

	*result = iov.result;
	return err;
}

/* A WALK whose first read is at @head (the head's next pointer). */
static int walk_from(int fd, uint64_t head, uint64_t start, struct kmem_ro_walk *w,
		     void *buf, size_t len)
{
	struct kmem_ro_field field = { .offset = 8, .len = 8 };

	*w = (struct kmem_ro_walk){
		.size = sizeof(*w), .head = head, .start = start,
		.fields_addr = (uintptr_t)&field, .fields_count = 1,
		.buf_addr = (uintptr_t)buf, .buf_size = len,
	};
	return vt_ioctl(fd, KMEM_RO_IOC_WALK, w);
}

/*
 * Physical page @phys mapped (mmap_ram=1) reads as the refused page, no
 * signal; kmemdev_read() of @kaddr, which the library maps there, gives
 * what the device's pread() gives: its errno, buf untouched.
 */
static void assert_mapped_as_device(int fd, const struct kmem_ro_info *info, uint64_t phys,
				    uint64_t kaddr)
{
	static char dev[PAGE], lib[PAGE];
	const volatile uint64_t *m = vt_map_phys(fd, phys, PAGE);
	struct kmemdev *h;
	unsigned char c;
	ssize_t got;
	int want;

	ck_assert_ptr_ne((void *)m, MAP_FAILED);
	ck_assert_int_eq(vt_probe_read(m, &c), 0);
	ck_assert_uint_eq(m[0], info->mmap_refused);
	munmap((void *)m, PAGE);
	got = pread(fd, dev, PAGE, KMEM_RO_READ_OFFSET(kaddr));
	want = -errno;
	ck_assert_int_lt(got, 0);
	ck_assert_int_eq(kmemdev_open(&h, NULL), 0);
	memset(lib, 0x11, PAGE);
	ck_assert_int_eq(kmemdev_read(h, kaddr, lib, PAGE), want);
	ck_assert_int_eq(lib[0], 0x11);
	ck_assert(!memmem(lib, PAGE, secret, sizeof(secret) - 1));
	kmemdev_close(h);
}

START_TEST(secret_pages_in_image_alias)
{
	static struct landed landed[WANT_LANDED];
	struct kmem_ro_info info;
	uint64_t text = vt_kallsyms("_text"), end = vt_kallsyms("_end");
	uint64_t phys_lo, phys_hi;
	int fd = vt_open_dev(), n, eperm = 0, kcore_leaks = 0;

	ck_assert_int_eq(vt_info(fd, &info, NULL, 0), 0);
	ck_assert_msg(text && end, "_text/_end missing from /proc/kallsyms");
	/* the image's physical span, to the 2 MiB its last PMD maps */
	phys_lo = text - info.kernel_map + info.phys_base;
	phys_hi = ((end + (2UL << 20) - 1) & ~((2UL << 20) - 1)) - info.kernel_map +
		  info.phys_base;
	n = land_secret_pages(landed, WANT_LANDED, phys_lo, phys_hi);
	ck_assert_msg(n > 0, "no memfd_secret page landed in the image span [%#llx, %#llx)",
		      (unsigned long long)phys_lo, (unsigned long long)phys_hi);

	for (int i = 0; i < n; i++) {
		uint64_t phys = landed[i].pfn * PAGE;
		uint64_t alias = info.kernel_map + phys - info.phys_base;
		uint64_t direct = info.page_offset + phys;
		struct kmem_ro_walk w;
		char buf[PAGE];
		int64_t res;

		memset(buf, 0, sizeof(buf));
		ck_assert_int_eq(readv_one(fd, direct, buf, sizeof(buf), &res), 0);
		ck_assert_msg(res == -EPERM, "direct map of secret pfn %#llx: %lld",
			      (unsigned long long)landed[i].pfn, (long long)res);
		ck_assert_int_eq(readv_one(fd, alias, buf, sizeof(buf), &res), 0);
		/* an alias page the kernel unmapped is EFAULT; a mapped one EPERM */
		ck_assert_msg(res == -EPERM || res == -EFAULT,
			      "image alias %#llx of secret pfn %#llx: %lld (secret read)",
			      (unsigned long long)alias, (unsigned long long)landed[i].pfn,
			      (long long)res);
		ck_assert_msg(!memmem(buf, sizeof(buf), secret, sizeof(secret) - 1),
			      "secret bytes copied from %#llx", (unsigned long long)alias);
		/*
		 * Under mmap_ram=1 a mapping shows the refused page there, and the
		 * library reads both addresses as the device's pread() does.
		 */
		vt_mmap_ram_on();
		assert_mapped_as_device(fd, &info, phys, direct);
		assert_mapped_as_device(fd, &info, phys, alias);
		vt_mmap_ram_off();
		if (res == -EFAULT)
			continue;
		eperm++;
		/* what /proc/kcore shows there, for README (not ours to assert) */
		if (!vt_kcore_read(alias, buf, sizeof(buf)) &&
		    memmem(buf, sizeof(buf), secret, sizeof(secret) - 1))
			kcore_leaks++;

		/* WALK: the head's next pointer, then a node's field */
		memset(buf, 0, sizeof(buf));
		ck_assert_int_eq(walk_from(fd, alias, 0, &w, buf, sizeof(buf)), 0);
		ck_assert_uint_eq(w.status, KMEM_RO_WALK_FAULT);
		ck_assert_int_eq(w.fault_errno, -EPERM);
		ck_assert_uint_eq(w.fault_addr, alias);
		ck_assert_uint_eq(w.nodes, 0);
		ck_assert_int_eq(walk_from(fd, info.text_start, alias, &w, buf, sizeof(buf)), 0);
		ck_assert_uint_eq(w.status, KMEM_RO_WALK_FAULT);
		ck_assert_int_eq(w.fault_errno, -EPERM);
		ck_assert_uint_eq(w.fault_addr, alias + 8);
		ck_assert_uint_eq(w.nodes, 0);
		ck_assert_msg(!memmem(buf, sizeof(buf), secret, 8), "WALK copied secret bytes");
	}
	printf("alias_test: %d secret pages in the image span, %d of them mapped there (EPERM); "
	       "/proc/kcore returned the secret of %d\n", n, eperm, kcore_leaks);
	ck_assert_msg(eperm > 0, "no secret page was mapped in the image alias: test proves nothing");
	close(fd);
}
END_TEST

/* The image alias of live kernel data still reads, and equals the direct map. */
START_TEST(image_alias_reads_through_direct_map)
{
	struct kmem_ro_info info;
	uint64_t sym = vt_kallsyms("init_task");
	char a[256], b[256];
	int64_t res;
	int fd = vt_open_dev();

	ck_assert_int_eq(vt_info(fd, &info, NULL, 0), 0);
	ck_assert_int_eq(readv_one(fd, sym, a, sizeof(a), &res), 0);
	ck_assert_int_eq(res, sizeof(a));
	ck_assert_int_eq(readv_one(fd, sym - info.kernel_map + info.phys_base + info.page_offset,
				   b, sizeof(b), &res), 0);
	ck_assert_int_eq(res, sizeof(b));
	ck_assert_int_eq(memcmp(a, b, 64), 0);	/* the start of init_task is stable */
	close(fd);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("alias");
	TCase *tc = tcase_create("alias");

	tcase_add_test(tc, image_alias_reads_through_direct_map);
	tcase_add_test(tc, secret_pages_in_image_alias);
	suite_add_tcase(s, tc);
	return vt_main(s);
}
