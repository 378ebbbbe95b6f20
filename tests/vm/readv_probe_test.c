// SPDX-License-Identifier: GPL-2.0
/*
 * READV's user-access windows under kprobes: a kprobe on every instruction
 * of the driver's user-copy paths (argument in, segments in, the group's
 * data and results out in kmem_ro_readv_flush(), done out in
 * kmem_ro_readv_ioctl()) and of its reader sections, while the argument,
 * the segment array and the buffers fault inside the windows: file pages not
 * yet mapped (a memfd mapped anew per call), fresh anonymous buffers, the
 * argument in a kmem_ro mapping of text, bad pointers.  A kprobe on a
 * load that faults is single-stepped out of line with interrupts off
 * (arch/x86/kernel/kprobes/core.c; instructions with an exception-table
 * entry are never boosted), and its fault is handled back at the probed
 * address.  Two processes at once.  Every call must give its exact
 * result, the probes must be hit, and the guest must stay up with a
 * clean log (the harness judges it).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vmtest.h"

#define PAGE 4096UL
/*
 * Rounds per process: each round takes every probed window, faulting in it
 * (1 to 4 segments, in turn), in both processes at once; more rounds only
 * repeat the same paths (docs/testing.md: the time `make check` takes).
 * 600: the kprobes cover all of the ioctl now, about twice the old set.
 */
#define ROUNDS 600

/*
 * kprobes at offsets 1..max-1 of each function, the driver refusing what
 * is no instruction or lies past the function: all of the ioctl (about
 * 2.5 KiB on 7.3), which holds the one-segment call's two user-access
 * windows and its inline reader; the start of the general path, and the
 * group's window (kmem_ro_readv_flush(), about 400 bytes on 6.12).
 */
static const struct {
	const char *name;
	unsigned int max;
} funcs[] = {
	{ "kmem_ro_readv_ioctl", 3072 }, { "kmem_ro_readv_many", 512 },
	{ "kmem_ro_readv_flush", 512 }, { "kmem_ro_arg_in_sized", 256 },
	{ "kmem_ro_reader_begin", 64 }, { "kmem_ro_reader_end", 64 },
};

#define MAX_OFFSET 3072
static unsigned int arm(int fd)
{
	static struct kmem_ro_probe_spec specs[MAX_OFFSET];
	unsigned int n, ok = 0;

	for (unsigned int i = 0; i < sizeof(funcs) / sizeof(*funcs); i++) {
		uint64_t addr = vt_kallsyms(funcs[i].name);
		struct kmem_ro_probe_add a = { .size = sizeof(a), .specs_addr = (uintptr_t)specs };

		if (!addr)
			continue;
		n = 0;
		for (unsigned int off = 1; off < funcs[i].max; off++) {
			specs[n] = (struct kmem_ro_probe_spec){ .addr = addr, .offset = off,
								 .flags = KMEM_RO_PROBE_ENABLED };
			snprintf(specs[n].name, sizeof(specs[n].name), "%s", funcs[i].name);
			n++;
		}
		a.count = n;
		ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_PROBE_ADD, &a), 0);
		for (unsigned int k = 0; k < n; k++)
			ok += specs[k].result > 0;
	}
	return ok;
}

static uint64_t hits(int fd)
{
	static struct kmem_ro_probe_info info[4096];
	struct kmem_ro_probe_list l = { .size = sizeof(l), .buf_addr = (uintptr_t)info,
					.cap = 4096 };
	uint64_t h = 0;

	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_PROBE_LIST, &l), 0);
	for (unsigned int i = 0; i < l.count && i < 4096; i++)
		h += info[i].hits;
	return h;
}

static void work(int fd, uint64_t text, uint64_t text_phys, unsigned long rounds)
{
	int mfd = memfd_create("args", 0);
	struct kmem_ro_readv rv;
	struct kmem_ro_iov iov[4];
	char kc[16];
	unsigned long calls;

	ck_assert_int_ge(mfd, 0);
	ck_assert_int_eq(vt_kcore_read(text, kc, sizeof(kc)), 0);
	for (calls = 0; calls < rounds; calls++) {
		char *out = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		char *m, *km;
		struct kmem_ro_readv *marg;
		struct kmem_ro_iov *miov;
		unsigned int n = 1 + calls % 4;

		ck_assert_ptr_ne(out, MAP_FAILED);
		for (unsigned int i = 0; i < n; i++)
			iov[i] = (struct kmem_ro_iov){ .addr = text, .len = 16,
						       .buf = (uintptr_t)(out + 64 * i),
						       .result = 0x7777 };
		/* argument and segments in a file page not yet mapped: faulted in the window */
		ck_assert_int_eq(pwrite(mfd, iov, sizeof(iov), 0), sizeof(iov));
		rv = (struct kmem_ro_readv){ .size = sizeof(rv), .iov_count = n };
		m = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
		ck_assert_ptr_ne(m, MAP_FAILED);
		rv.iov_addr = (uintptr_t)m;
		ck_assert_int_eq(pwrite(mfd, &rv, sizeof(rv), PAGE), sizeof(rv));
		ck_assert_int_eq(munmap(m, 2 * PAGE), 0);
		m = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
		ck_assert_ptr_ne(m, MAP_FAILED);
		marg = (struct kmem_ro_readv *)(m + PAGE);
		marg->iov_addr = (uintptr_t)m;	/* faults the argument's page in, not the array's */
		ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_READV, marg), 0);
		ck_assert_uint_eq(marg->done, n);
		miov = (struct kmem_ro_iov *)m;
		for (unsigned int i = 0; i < n; i++) {
			ck_assert_int_eq(miov[i].result, 16);
			ck_assert_int_eq(memcmp(out + 64 * i, kc, 16), 0);
		}
		ck_assert_int_eq(munmap(m, 2 * PAGE), 0);
		/* bad pointers: the fault is fixed up to EFAULT */
		ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_READV, NULL), -EFAULT);
		rv.iov_addr = 8;
		ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_READV, &rv), -EFAULT);
		rv.iov_addr = (uintptr_t)out + PAGE;	/* unmapped next page, most likely */
		if (mmap(out + PAGE, PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS |
			 MAP_FIXED_NOREPLACE, -1, 0) == out + PAGE) {
			ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_READV, &rv), -EFAULT);
			munmap(out + PAGE, PAGE);
		}
		/* the argument inside a kmem_ro mapping of text, mapped anew */
		km = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd,
			  (off_t)(text_phys & ~(PAGE - 1)));
		if (km != MAP_FAILED) {
			ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_READV, km), -E2BIG);
			munmap(km, PAGE);
		}
		munmap(out, PAGE);
	}
	close(mfd);
}

START_TEST(readv_windows_under_probes)
{
	int fd = vt_open_dev();
	uint64_t text, phys;
	unsigned int armed;
	struct kmem_ro_info info;
	pid_t pid;
	int status;

	alarm(600);
	ck_assert_int_eq(vt_info(fd, &info, NULL, 0), 0);
	text = info.text_start;
	phys = info.text_start - info.kernel_map + info.phys_base;
	armed = arm(fd);
	/* instructions of the windows, not only of their set-up */
	ck_assert_uint_gt(armed, 100);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		work(fd, text, phys, ROUNDS);
		_exit(0);
	}
	work(fd, text, phys, ROUNDS);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* every call passes the probed windows several times */
	ck_assert_uint_gt(hits(fd), 2 * ROUNDS * 10);
	close(fd);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("readv_probe");
	TCase *tc = tcase_create("windows");

	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, readv_windows_under_probes);
	suite_add_tcase(s, tc);
	return vt_main(s);
}
