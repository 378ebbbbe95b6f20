// SPDX-License-Identifier: GPL-2.0
/*
 * libkmemdev-kcore.so: kcore_reader, an unmodified, dynamically linked
 * /proc/kcore reader, gets byte-identical output with and without
 * LD_PRELOAD - over kernel text, direct-map RAM, rodata, vmalloc, module
 * text, the guard page after a vmalloc area, an ioremap, freed init memory,
 * a hole, a read across a segment's end, the ELF headers and notes, lseek +
 * read, dup, dup2, fork, vfork, reopening, files that are not kcore - and
 * makes >= 100x fewer system calls (counted with ptrace, bench.c).  drgn
 * (Debian's python3-drgn) reads the same bytes too, at >= 100x fewer system
 * calls per read.  With the device absent,
 * unopenable, or RAM mmap off, the output stays identical.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/capability.h>

#include "bench.h"
#include "vmtest.h"

#define READER		"/tests/kcore_reader"
#define PYTHON		"/usr/bin/python3"
#define DRGN_READER	"/tests/kcore_drgn_reader.py"
#define PRELOAD		"/tests/libkmemdev-kcore.so"
#define SPEC		"/tmp/kcore_spec"
#define OUT_PLAIN	"/tmp/kcore_plain.out"
#define OUT_PRELOAD	"/tmp/kcore_preload.out"
#define MMAP_RAM	"/sys/module/kmem_ro/parameters/mmap_ram"
#define MOVED_DEV	"/dev/kmem_ro.away"

/* Reads served from the mapping in the syscall test. */
#define BULK_TEXT	15000
#define BULK_RAM	7500
#define DRGN_TEXT	2000
#define DRGN_RAM	1000
#define DRGN_READS	(DRGN_TEXT + 2 * DRGN_RAM)

struct run {
	const char *out;
	bool preload;
	int (*prep)(void);	/* in the child, before exec */
	bool drgn;		/* kcore_drgn_reader.py, not kcore_reader */
};

static void exec_reader(void *arg, long n)
{
	struct run *r = arg;
	char *argv[] = { READER, SPEC, (char *)r->out, NULL };
	char *drgn[] = { PYTHON, "-S", DRGN_READER, SPEC, (char *)r->out, NULL };
	char *plain[] = { "PATH=/bin", NULL };
	char *pre[] = { "PATH=/bin", "LD_PRELOAD=" PRELOAD, NULL };

	(void)n;
	if (r->prep && r->prep())
		_exit(120);
	execve(r->drgn ? PYTHON : READER, r->drgn ? drgn : argv,
	       r->preload ? pre : plain);
	_exit(127);
}

static long run_traced(struct run *r)
{
	int status = -1;
	long calls = bench_syscalls(exec_reader, r, 1, &status);

	if (calls < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "%s %s: status %#x\n", r->drgn ? "drgn" : "kcore_reader",
			r->preload ? "with preload" : "plain", status);
		return -1;
	}
	return calls;
}

/* Run the reader on SPEC; its system calls, -1 if it failed. */
static long run_reader(const char *out, bool preload, int (*prep)(void))
{
	struct run r = { out, preload, prep, false };

	return run_traced(&r);
}

static char *slurp_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "re");
	char *buf;
	long n;

	ck_assert_msg(f, "%s: %s", path, strerror(errno));
	ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	ck_assert_int_ge(n, 0);
	rewind(f);
	buf = malloc(n + 1);
	ck_assert_ptr_nonnull(buf);
	ck_assert_int_eq(fread(buf, 1, n, f), n);
	buf[n] = 0;
	fclose(f);
	*len = n;
	return buf;
}

/* The two outputs are the same bytes; else name the first line that is not. */
static void assert_same_output(void)
{
	size_t na, nb, i, line = 1, start = 0;
	char *a = slurp_file(OUT_PLAIN, &na), *b = slurp_file(OUT_PRELOAD, &nb);

	ck_assert_msg(na > 0 && memchr(a, '\n', na), "no output");
	for (i = 0; i < na && i < nb && a[i] == b[i]; i++)
		if (a[i] == '\n') {
			line++;
			start = i + 1;
		}
	ck_assert_msg(na == nb && i == na,
		      "outputs differ at line %zu:\n plain:   %.*s\n preload: %.*s",
		      line, (int)strcspn(a + start, "\n"), a + start,
		      (int)strcspn(b + start, "\n"), b + start);
	free(a);
	free(b);
}

/* Physical address of an image address, seen through the direct map. */
static uint64_t direct(const struct kmem_ro_info *in, uint64_t image)
{
	return in->page_offset + (image - in->kernel_map + in->phys_base);
}

static uint64_t kallsyms_or(const char *name, uint64_t fallback)
{
	uint64_t v = vt_kallsyms(name);

	return v ? v : fallback;
}

/*
 * Every kind of read the shim treats differently, then @text random reads
 * of kernel text and @ram of its direct-map alias and of rodata's.
 */
static void write_spec(unsigned int text, unsigned int ram)
{
	uint64_t vbuf = vt_testobj("vbuf"), vlen = vt_testobj("vbuf_len");
	uint64_t ts, te, rs, re, init, mod = vt_kallsyms("kmem_ro_readv_ioctl");
	struct kmem_ro_info in;
	FILE *f, *k;
	int fd = vt_open_dev();

	ck_assert_int_eq(vt_info(fd, &in, NULL, 0), 0);
	close(fd);
	ts = in.text_start;
	te = in.text_end;
	rs = vt_kallsyms("__start_rodata");
	re = kallsyms_or("__end_rodata", rs + (1 << 20));
	init = vt_kallsyms("__init_begin");
	ck_assert(ts && te > ts + 0x10000 && rs >= te && re > rs && init > re && mod);

	/* Named kcore, not /proc/kcore: must be read as it is. */
	k = fopen("/tmp/kcore", "we");
	ck_assert_ptr_nonnull(k);
	fprintf(k, "an ordinary file that happens to be called kcore\n");
	fclose(k);

	f = fopen(SPEC, "we");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "e\nn\nh 64\ns 64\nS 64\np 4096\n");		/* kcore's own */
	fprintf(f, "l %#jx 64\np 128\nc 4096 64\n", (uintmax_t)ts + 0x1000);
	fprintf(f, "L 0 64\np 64\n");			/* back to the header */
	fprintf(f, "v %#jx %ju\n", (uintmax_t)vbuf, (uintmax_t)vlen);
	fprintf(f, "v %#jx 32\n", (uintmax_t)(vbuf + vlen - 16));
	fprintf(f, "v %#jx 8\n", (uintmax_t)vt_testobj("vguard"));
	fprintf(f, "v %#jx 8\n", (uintmax_t)vt_testobj("mmio"));
	fprintf(f, "v %#jx 64\n", (uintmax_t)mod);
	fprintf(f, "v %#jx 64\n", (uintmax_t)rs + 64);
	fprintf(f, "u %#jx 64\n", (uintmax_t)te);	/* text/rodata gap */
	fprintf(f, "u %#jx 64\n", (uintmax_t)te - 32);	/* text into it */
	fprintf(f, "u %#jx 64\n", (uintmax_t)init);	/* freed */
	fprintf(f, "v %#jx 4096\n", (uintmax_t)direct(&in, rs));
	fprintf(f, "v %#jx 65536\n", (uintmax_t)ts);
	fprintf(f, "d\nv %#jx 64\n", (uintmax_t)ts);
	fprintf(f, "D 100\nl %#jx 64\np 64\n", (uintmax_t)ts + 0x2000);
	fprintf(f, "f %#jx 64\n", (uintmax_t)ts + 0x3000);
	fprintf(f, "f %#jx 64\n", (uintmax_t)direct(&in, rs) + 0x100);
	fprintf(f, "x /tmp/kcore 64\nx /tests/list 64\n");
	fprintf(f, "R\nv %#jx 64\nV\n", (uintmax_t)ts + 0x4000);	/* reads on */
	fprintf(f, "r %#jx %#jx %u 64\n", (uintmax_t)ts, (uintmax_t)te, text);
	fprintf(f, "r %#jx %#jx %u 64\n", (uintmax_t)direct(&in, ts),
		(uintmax_t)direct(&in, te), ram);
	fprintf(f, "r %#jx %#jx %u 64\n", (uintmax_t)direct(&in, rs),
		(uintmax_t)direct(&in, re), ram);
	ck_assert_int_eq(fclose(f), 0);
}

START_TEST(same_bytes_fewer_syscalls)
{
	long plain, pre;

	write_spec(BULK_TEXT, BULK_RAM);
	plain = run_reader(OUT_PLAIN, false, NULL);
	pre = run_reader(OUT_PRELOAD, true, NULL);
	ck_assert_int_gt(plain, 0);
	ck_assert_int_gt(pre, 0);
	printf("kcore_preload: %d reads, %ld syscalls plain, %ld with the preload (%.1fx fewer)\n",
	       BULK_TEXT + 2 * BULK_RAM, plain, pre, (double)plain / pre);
	assert_same_output();
	ck_assert_msg(plain >= 100 * pre, "only %.1fx fewer syscalls", (double)plain / pre);
}
END_TEST

/* Without a usable device every read goes to the kernel: same bytes. */
static void assert_fallback(long plain, long pre)
{
	ck_assert_int_gt(plain, 0);
	ck_assert_int_gt(pre, 0);
	assert_same_output();
	ck_assert_msg(pre >= plain, "%ld syscalls with the preload, %ld without: served?",
		      pre, plain);
}

START_TEST(device_absent)
{
	long plain, pre;

	write_spec(200, 100);
	plain = run_reader(OUT_PLAIN, false, NULL);
	ck_assert_int_eq(rename(KMEM_RO_DEVICE, MOVED_DEV), 0);
	pre = run_reader(OUT_PRELOAD, true, NULL);
	ck_assert_int_eq(rename(MOVED_DEV, KMEM_RO_DEVICE), 0);
	assert_fallback(plain, pre);
}
END_TEST

/* Root without the DAC capabilities: kcore (root's, 0400) opens, the device
 * (mode 000 for the test) does not. */
static int drop_dac(void)
{
	return prctl(PR_CAPBSET_DROP, CAP_DAC_OVERRIDE, 0, 0, 0) ||
	       prctl(PR_CAPBSET_DROP, CAP_DAC_READ_SEARCH, 0, 0, 0);
}

START_TEST(device_unopenable)
{
	struct stat st;
	long plain, pre;

	write_spec(200, 100);
	plain = run_reader(OUT_PLAIN, false, drop_dac);
	ck_assert_int_eq(stat(KMEM_RO_DEVICE, &st), 0);
	ck_assert_int_eq(chmod(KMEM_RO_DEVICE, 0), 0);
	pre = run_reader(OUT_PRELOAD, true, drop_dac);
	ck_assert_int_eq(chmod(KMEM_RO_DEVICE, st.st_mode & 07777), 0);
	assert_fallback(plain, pre);
}
END_TEST

/* mmap_ram=0: text still mapped, RAM through READV; same bytes. */
START_TEST(mmap_ram_off)
{
	long plain, pre;

	write_spec(200, 100);
	plain = run_reader(OUT_PLAIN, false, NULL);
	vt_write_file(MMAP_RAM, "0");
	pre = run_reader(OUT_PRELOAD, true, NULL);
	vt_write_file(MMAP_RAM, "1");
	ck_assert_int_gt(plain, 0);
	ck_assert_int_gt(pre, 0);
	assert_same_output();
}
END_TEST

/*
 * drgn from Debian's python3-drgn: Program.read() of the same text and
 * direct-map addresses, same bytes; per read (N reads minus none, so that
 * Python's start-up cancels out) most reads cost a pread() without, none
 * with.
 */
START_TEST(drgn_same_bytes)
{
	struct run plain = { OUT_PLAIN, false, NULL, true };
	struct run pre = { OUT_PRELOAD, true, NULL, true };
	long base[2], calls[2];
	double per[2];

	write_spec(0, 0);
	base[0] = run_traced(&plain);
	base[1] = run_traced(&pre);
	write_spec(DRGN_TEXT, DRGN_RAM);
	calls[0] = run_traced(&plain);
	calls[1] = run_traced(&pre);
	for (int i = 0; i < 2; i++) {
		ck_assert_int_gt(base[i], 0);
		ck_assert_int_ge(calls[i], base[i]);
		per[i] = (double)(calls[i] - base[i]) / DRGN_READS;
	}
	printf("kcore_preload: drgn, %d reads: %ld syscalls plain, %ld with the preload;"
	       " per read %.3f vs %.3f\n", DRGN_READS, calls[0], calls[1], per[0], per[1]);
	assert_same_output();
	/* drgn answers a few reads without a pread() of its own */
	ck_assert_msg(per[0] >= 0.5, "drgn made %.3f syscalls per read: not kcore?", per[0]);
	ck_assert_msg(per[1] * 100 <= per[0], "per read: %.3f with the preload", per[1]);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("kcore_preload");
	TCase *tc = tcase_create("identical");

	tcase_add_test(tc, same_bytes_fewer_syscalls);
	tcase_add_test(tc, drgn_same_bytes);
	suite_add_tcase(s, tc);

	tc = tcase_create("fallback");
	tcase_add_test(tc, device_absent);
	tcase_add_test(tc, device_unopenable);
	tcase_add_test(tc, mmap_ram_off);
	suite_add_tcase(s, tc);
	return vt_main(s);
}
