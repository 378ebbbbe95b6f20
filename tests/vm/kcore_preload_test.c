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
 * unopenable, or RAM mmap off, the output stays identical; with RAM mmap
 * off, each kcore pread() the mapping does not serve is exactly one
 * device pread() and no other system call.
 *
 * A read the device serves is a cancellation point, as kcore's pread():
 * a thread with a cancellation pending is cancelled in it, and the shim
 * lets go of the device after.
 *
 * Under signals and fork (issue #16): a thousand reads cut short by a
 * signal whose handler reads kcore itself and siglongjmps out; a reader
 * that forks and reads on in both processes, on one shared file position,
 * each at a fraction of the plain reader's system calls; reads into
 * buffers that are or become unwritable (EFAULT, as kcore).
 *
 * /proc/kallsyms: a group member under the preload reads root's text
 * (through stdio and read()), root the real file.
 *
 * Pages the driver refuses under mmap_ram=1 (a memfd_secret page, a
 * poisoned page): the mapping shows its refused page, the preload reads
 * them through the device, and kcore_reader and drgn print kcore's zeros,
 * never killed by a signal.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>
#include <linux/capability.h>

#include "bench.h"
#include "kmemdev.h"
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

/* Signals and fork. */
#define CUTS		1000
#define HANG_SECONDS	240
#define FORK_READS	2000
#define FORK_REGION	(2 * FORK_READS * 64)

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

/* The first few lines that differ from line @from on, for the log. */
static void print_differing_lines(const char *a, const char *b, size_t from)
{
	size_t line = 1, shown = 0;

	while (*a && *b && shown < 12) {
		size_t la = strcspn(a, "\n"), lb = strcspn(b, "\n");

		if (line >= from && (la != lb || memcmp(a, b, la))) {
			printf("line %zu plain:   %.*s\nline %zu preload: %.*s\n",
			       line, (int)la, a, line, (int)lb, b);
			shown++;
		}
		a += la + (a[la] == '\n');
		b += lb + (b[lb] == '\n');
		line++;
	}
}

/* The two outputs are the same bytes; else name the first line that is not. */
static void assert_same_output(void)
{
	size_t na, nb, i, line = 1, start = 0;
	char *a = vt_slurp(OUT_PLAIN, &na), *b = vt_slurp(OUT_PRELOAD, &nb);

	ck_assert_msg(na > 0 && memchr(a, '\n', na), "no output");
	for (i = 0; i < na && i < nb && a[i] == b[i]; i++)
		if (a[i] == '\n') {
			line++;
			start = i + 1;
		}
	if (na != nb || i != na)
		print_differing_lines(a, b, line);
	ck_assert_msg(na == nb && i == na,
		      "outputs differ at line %zu:\n plain:   %.*s\n preload: %.*s",
		      line, (int)strcspn(a + start, "\n"), a + start,
		      (int)strcspn(b + start, "\n"), b + start);
	free(a);
	free(b);
}

/* The output holds this text (a line, or lines, with their newlines). */
static bool output_has(const char *path, const char *line)
{
	size_t n;
	char *text = vt_slurp(path, &n);
	bool found = strstr(text, line) != NULL;

	free(text);
	return found;
}

/* Physical address of an image address, seen through the direct map. */
static uint64_t direct(const struct kmem_ro_info *in, uint64_t image)
{
	return in->page_offset + (image - in->kernel_map + in->phys_base);
}

/*
 * rodata's bounds (1 MiB if kallsyms has no __end_rodata) and, if @mod,
 * an address in kmem_ro's text: one pass over kallsyms (200,000 lines
 * under TCG).
 */
static void rodata(uint64_t *rs, uint64_t *re, uint64_t *mod)
{
	static const char *const syms[] = {
		"__start_rodata", "__end_rodata", "kmem_ro_readv_ioctl",
	};
	uint64_t at[3];

	vt_kallsyms_many(syms, at, mod ? 3 : 2);
	*rs = at[0];
	*re = at[1] ? at[1] : at[0] + (1 << 20);
	if (mod)
		*mod = at[2];
}

/*
 * Every kind of read the shim treats differently, then @text random reads
 * of kernel text and @ram of its direct-map alias and of rodata's.
 */
static void write_spec(unsigned int text, unsigned int ram)
{
	static const char *const syms[] = {
		"kmem_ro_readv_ioctl", "__start_rodata", "__end_rodata", "__init_begin",
	};
	uint64_t vbuf = vt_testobj("vbuf"), vlen = vt_testobj("vbuf_len"), at[4];
	uint64_t ts, te, rs, re, init, mod;
	struct kmem_ro_info in;
	FILE *f, *k;
	int fd = vt_open_dev();

	ck_assert_int_eq(vt_info(fd, &in, NULL, 0), 0);
	close(fd);
	ts = in.text_start;
	te = in.text_end;
	vt_kallsyms_many(syms, at, 4);		/* one pass: 200,000 lines under TCG */
	mod = at[0];
	rs = at[1];
	re = at[2] ? at[2] : rs + (1 << 20);
	init = at[3];
	ck_assert(ts && te > ts + 0x10000 && rs >= te && re > rs && init > re && mod);

	/* Named kcore, not /proc/kcore: must be read as it is. */
	k = fopen("/tmp/kcore", "we");
	ck_assert_ptr_nonnull(k);
	fprintf(k, "an ordinary file that happens to be called kcore\n");
	fclose(k);

	f = fopen(SPEC, "we");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "H\ne\nn\nm\nh 64\ns 64\nS 64\np 4096\n");	/* kcore's own */
	fprintf(f, "l %#jx 64\np 128\nc 4096 64\n", (uintmax_t)ts + 0x1000);
	fprintf(f, "L 0 64\np 64\n");			/* back to the header */
	fprintf(f, "v %#jx %ju\n", (uintmax_t)vbuf, (uintmax_t)vlen);
	fprintf(f, "v %#jx 32\n", (uintmax_t)(vbuf + vlen - 16));
	fprintf(f, "v %#jx 8\n", (uintmax_t)vt_testobj("vguard"));
	fprintf(f, "v %#jx 8\n", (uintmax_t)vt_testobj("mmio"));
	/* errno after a read served by the mapping, the device, kcore's zeros */
	fprintf(f, "W %#jx 8\nW %#jx 8\nW %#jx 8\nW %#jx 8\n", (uintmax_t)ts + 0x800,
		(uintmax_t)direct(&in, rs) + 0x800, (uintmax_t)vbuf + 8,
		(uintmax_t)vt_testobj("vguard"));
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

/*
 * The module's default (mmap_ram=0): text still mapped, RAM read by the
 * device; same bytes, and the text reads cost no syscall; a read that
 * succeeds leaves errno as it was (W lines).  A device read
 * is a cancellation point as kcore's pread() is (the shim's own system
 * call, not libc's pread()): the thread is cancelled in it, and the shim
 * still lets go of the device with the last fd.
 */
START_TEST(default_ram_through_device)
{
	long plain, pre;
	FILE *f;

	ck_assert_int_eq(vt_file_has(MMAP_RAM, "N"), 1);
	write_spec(200, 100);
	f = fopen(SPEC, "ae");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "K %#jx 64\nC\n", (uintmax_t)vt_testobj("vbuf"));
	ck_assert_int_eq(fclose(f), 0);
	plain = run_reader(OUT_PLAIN, false, NULL);
	pre = run_reader(OUT_PRELOAD, true, NULL);
	ck_assert_int_gt(plain, 0);
	ck_assert_int_gt(pre, 0);
	ck_assert(output_has(OUT_PLAIN, " 64 cancelled\nC devfds 0 maps 0\n"));
	ck_assert(output_has(OUT_PLAIN, "W errno kept\n"));
	ck_assert(!output_has(OUT_PLAIN, "W errno changed\n"));
	assert_same_output();
	ck_assert_msg(pre < plain, "%ld syscalls with the preload, %ld without", pre, plain);
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
		per[i] = (double)(calls[i] - base[i]) / DRGN_READS;
	}
	printf("kcore_preload: drgn, %d reads: %ld syscalls plain, %ld with the preload;"
	       " per read %.3f vs %.3f\n", DRGN_READS, calls[0], calls[1], per[0], per[1]);
	assert_same_output();
	/* drgn answers a few reads without a pread() of its own */
	ck_assert_msg(per[0] >= 0.5, "drgn made %.3f syscalls per read: not kcore?", per[0]);
	/*
	 * Python's start-up varies by a few calls from run to run, so the
	 * preload's difference may fall either side of zero: bound its size.
	 */
	ck_assert_msg(fabs(per[1]) * 100 <= per[0], "per read: %.3f with the preload", per[1]);
}
END_TEST

#ifndef SYS_memfd_secret
#define SYS_memfd_secret 447
#endif

/*
 * Under mmap_ram=1 the shim maps all RAM; a memfd_secret page and a
 * poisoned page read as the driver's refused page there.  kcore_reader and
 * drgn, with and without the preload, print the same (kcore's zeros) and
 * exit normally: a driver that raised SIGBUS killed them under the preload.
 */
/*
 * Run @r untraced (a traced reader's fault signal is not passed on, so a
 * SIGBUS would fault again for ever) and say how it ended.
 */
static void run_free(struct run *r)
{
	int status;
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (!pid)
		exec_reader(r, 0);
	ck_assert_int_eq(vt_wait_child(pid, 120000, &status), 0);
	ck_assert_msg(WIFEXITED(status) && !WEXITSTATUS(status), "%s %s: %s %d",
		      r->drgn ? "drgn" : "kcore_reader", r->preload ? "with preload" : "plain",
		      WIFSIGNALED(status) ? "killed by signal" : "exit status",
		      WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
}

START_TEST(refused_pages_read_as_kcore)
{
	struct run plain = { OUT_PLAIN, false, NULL, false }, pre = { OUT_PRELOAD, true, NULL, false };
	int mfd = syscall(SYS_memfd_secret, 0), fd = vt_open_dev();
	uint64_t poisoned = vt_hwpoison_page() * 4096, secret_at, poisoned_at;
	struct kmem_ro_info in;
	char *secret;
	FILE *f;

	ck_assert_msg(mfd >= 0, "memfd_secret: %s", strerror(errno));
	ck_assert_int_eq(ftruncate(mfd, 4096), 0);
	secret = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	ck_assert_ptr_ne(secret, MAP_FAILED);
	memset(secret, 0xa5, 4096);
	ck_assert_int_eq(vt_info(fd, &in, NULL, 0), 0);
	ck_assert(in.features & KMEM_RO_FEAT_MMAP_RAM);
	secret_at = in.page_offset + vt_pagemap_pfn(secret) * 4096;
	poisoned_at = in.page_offset + poisoned;
	f = fopen(SPEC, "we");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "v %#jx 4096\nv %#jx 64\n", (uintmax_t)secret_at, (uintmax_t)secret_at + 100);
	fprintf(f, "v %#jx 4096\nv %#jx 8\n", (uintmax_t)poisoned_at,
		(uintmax_t)poisoned_at + 4088);
	ck_assert_int_eq(fclose(f), 0);

	run_free(&plain);
	run_free(&pre);
	assert_same_output();
	plain.drgn = pre.drgn = true;
	run_free(&plain);
	run_free(&pre);
	assert_same_output();
	printf("kcore_preload: a secret and a poisoned page read as kcore's, with and "
	       "without the preload, by kcore_reader and drgn\n");
	munmap(secret, 4096);
	close(mfd);
	close(fd);
}
END_TEST

/* ---- a member of the device's group, no capability ---------------------- */

#define WALK_ROOT	"/tmp/kcore_walk_root.out"
#define WALK_ROOT2	"/tmp/kcore_walk_root2.out"
#define WALK_MEMBER	"/tmp/kcore_walk_member.out"

struct drgn_job {
	bool preload;
	bool walk;		/* the task walk, else the spec's reads */
	const char *out;
	char args[4][24];	/* init_task, and the offsets of tasks, pid, comm */
};

/* exec drgn (the python script) as whoever calls it */
static int exec_drgn(void *arg)
{
	struct drgn_job *j = arg;
	char *walk[] = { PYTHON, "-S", DRGN_READER, "--walk", j->args[0], j->args[1],
			 j->args[2], j->args[3], (char *)j->out, NULL };
	char *reads[] = { PYTHON, "-S", DRGN_READER, SPEC, (char *)j->out, NULL };
	char *plain[] = { "PATH=/bin", "HOME=/", NULL };
	char *pre[] = { "PATH=/bin", "HOME=/", "LD_PRELOAD=" PRELOAD, NULL };

	execve(PYTHON, j->walk ? walk : reads, j->preload ? pre : plain);
	return 127;
}

/* Root runs fn (an exec) in a child; its exit status. */
static int run_root(int (*fn)(void *), void *arg)
{
	pid_t pid = fork();
	int status;

	ck_assert_int_ge(pid, 0);
	if (!pid)
		_exit(fn(arg));
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

static int run_drgn_root(void *arg)
{
	return run_root(exec_drgn, arg);
}

/* An empty file anyone may write: the member's output. */
static void writable_by_all(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fchmod(fd, 0666), 0);
	close(fd);
}

static void job_walk(struct drgn_job *j, bool preload, const char *out)
{
	struct kmemdev *h;
	uint32_t off[3];
	static const char *const member[] = { "tasks", "pid", "comm" };
	uint64_t init_task = vt_kallsyms("init_task");
	KMEMDEV_OPTS(kmemdev_open_opts, opts, .backend = KMEMDEV_BACKEND_DEVICE);

	ck_assert_int_eq(kmemdev_open(&h, &opts), 0);
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(kmemdev_btf_member(h, "task_struct", member[i], &off[i], NULL), 0);
	kmemdev_close(h);
	ck_assert(init_task);
	memset(j, 0, sizeof(*j));
	j->preload = preload;
	j->walk = true;
	j->out = out;
	snprintf(j->args[0], sizeof(j->args[0]), "%#jx", (uintmax_t)init_task);
	for (int i = 0; i < 3; i++)
		snprintf(j->args[i + 1], sizeof(j->args[i + 1]), "%u", off[i]);
}

static bool same_file(const char *a, const char *b)
{
	size_t na, nb;
	char *x = vt_slurp(a, &na), *y = vt_slurp(b, &nb);
	bool same = na == nb && !memcmp(x, y, na);

	free(x);
	free(y);
	return same;
}

/*
 * Debian's drgn, as a member of the device's group (no capability, kcore
 * refused): without the preload set_kernel() fails; with it, the task
 * list walked through init_task.tasks (pid and comm of every task) is
 * root's on plain /proc/kcore (walked before and after: a task may come
 * or go in between), and Program.read() gives root's bytes.
 */
START_TEST(drgn_group_member)
{
	struct drgn_job j;
	size_t n;
	char *walked;
	int lines = 0;

	/* without the preload: kcore refuses the member */
	job_walk(&j, false, WALK_MEMBER);
	writable_by_all(WALK_MEMBER);
	ck_assert_int_ne(vt_run_as_monitor(exec_drgn, &j), 0);

	job_walk(&j, false, WALK_ROOT);
	ck_assert_int_eq(run_drgn_root(&j), 0);
	job_walk(&j, true, WALK_MEMBER);
	ck_assert_int_eq(vt_run_as_monitor(exec_drgn, &j), 0);
	job_walk(&j, false, WALK_ROOT2);
	ck_assert_int_eq(run_drgn_root(&j), 0);
	walked = vt_slurp(WALK_MEMBER, &n);
	for (size_t i = 0; i < n; i++)
		lines += walked[i] == '\n';
	printf("kcore_preload: drgn as a group member walked %d tasks\n", lines);
	ck_assert_msg(!strncmp(walked, "0 swapper/0\n", 12), "first task: %.40s", walked);
	ck_assert_msg(strstr(walked, "\n1 "), "no pid 1 in:\n%s", walked);
	free(walked);
	ck_assert_msg(same_file(WALK_MEMBER, WALK_ROOT) || same_file(WALK_MEMBER, WALK_ROOT2),
		      "the member's task list is not root's");

	/* Program.read(): the same bytes as root's plain kcore */
	write_spec(DRGN_TEXT / 4, DRGN_RAM / 4);
	memset(&j, 0, sizeof(j));
	j.out = OUT_PLAIN;
	ck_assert_int_eq(run_drgn_root(&j), 0);
	j.preload = true;
	j.out = OUT_PRELOAD;
	writable_by_all(OUT_PRELOAD);
	ck_assert_int_eq(vt_run_as_monitor(exec_drgn, &j), 0);
	assert_same_output();
}
END_TEST

#define KSYMS_ROOT	"/tmp/kallsyms_root.out"
#define KSYMS_ROOT_PRE	"/tmp/kallsyms_root_preload.out"
#define KSYMS_MEMBER	"/tmp/kallsyms_member.out"

struct cat_job {
	const char *how;	/* fopen, open */
	const char *out;
	bool preload;
};

/* kcore_reader --cat of /proc/kallsyms as whoever calls it */
static int exec_cat(void *arg)
{
	struct cat_job *j = arg;
	char *argv[] = { READER, "--cat", (char *)j->how, "/proc/kallsyms",
			 (char *)j->out, NULL };
	char *plain[] = { "PATH=/bin", NULL };
	char *pre[] = { "PATH=/bin", "LD_PRELOAD=" PRELOAD, NULL };

	execve(READER, argv, j->preload ? pre : plain);
	return 127;
}

/* The lines of a --cat output after its "# fs" line (which *fs gets). */
struct lines {
	char **v;
	size_t n, cap;
	char *text;
};

static void lines_of(const char *path, struct lines *l, char *fs, size_t fs_len)
{
	char *p, *nl;

	memset(l, 0, sizeof(*l));
	l->text = vt_slurp(path, NULL);
	nl = strchr(l->text, '\n');
	ck_assert_ptr_nonnull(nl);
	*nl = '\0';
	snprintf(fs, fs_len, "%s", l->text);
	for (p = nl + 1; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		ck_assert_ptr_nonnull(nl);
		*nl = '\0';
		if (l->n == l->cap) {
			l->cap = l->cap ? 2 * l->cap : 4096;
			l->v = realloc(l->v, l->cap * sizeof(*l->v));
			ck_assert_ptr_nonnull(l->v);
		}
		l->v[l->n++] = p;
	}
}

static void lines_free(struct lines *l)
{
	free(l->v);
	free(l->text);
}

/* The module of a line ("ADDR T NAME\t[MOD]"), its length in *len; NULL if none. */
static const char *line_module(const char *line, size_t *len)
{
	const char *m = strstr(line, "\t[");

	if (!m)
		return NULL;
	*len = strlen(m + 2) - 1;
	return m + 2;
}

/*
 * A root line the device does not list (kallsyms_test.c, docs/symbols.md):
 * [bpf], [__builtin__kprobes], [__builtin__ftrace], and ftrace's freed
 * module init functions ('T' under a module, in no line of the member's
 * for that module).
 */
static bool not_listed(const char *line, const struct lines *member)
{
	size_t mlen, nlen;
	const char *mod = line_module(line, &mlen), *name = line + 19;

	if (!mod || strlen(line) < 20)
		return false;
	if ((mlen == 3 && !strncmp(mod, "bpf", 3)) ||
	    (mlen == 18 && !strncmp(mod, "__builtin__kprobes", 18)) ||
	    (mlen == 17 && !strncmp(mod, "__builtin__ftrace", 17)))
		return true;
	if (line[17] != 'T')
		return false;
	nlen = (size_t)(mod - 2 - name);
	for (size_t i = 0; i < member->n; i++) {
		const char *m = member->v[i];

		if (strlen(m) > 19 + nlen && !strncmp(m + 19, name, nlen) && m[19 + nlen] == '\t' &&
		    !strcmp(m + 19 + nlen, mod - 2))
			return false;
	}
	return true;
}

/*
 * /proc/kallsyms through the preload: a member of the device's group (no
 * CAP_SYSLOG, Debian's perf_event_paranoid, which hides the addresses)
 * reads root's text, line for line and in the kernel's order, but for the
 * entries the device does not list, through stdio (crash) and read();
 * root, whom the file shows addresses, gets the real file.
 */
START_TEST(kallsyms_group_member)
{
	static const char *const how[] = { "fopen", "open" };
	struct lines root, member;
	struct cat_job j = { "fopen", KSYMS_ROOT, false };
	char fs[32], mfs[32];
	size_t i, k, bad = 0, zeros = 0;

	vt_write_file("/proc/sys/kernel/perf_event_paranoid", "3");
	vt_write_file("/proc/sys/kernel/kptr_restrict", "0");
	ck_assert_int_eq(run_root(exec_cat, &j), 0);
	lines_of(KSYMS_ROOT, &root, fs, sizeof(fs));
	ck_assert_str_eq(fs, "# procfs");
	ck_assert_uint_gt(root.n, 10000);

	/* root under the preload: the real file, the same bytes */
	j = (struct cat_job){ "fopen", KSYMS_ROOT_PRE, true };
	ck_assert_int_eq(run_root(exec_cat, &j), 0);
	ck_assert_msg(same_file(KSYMS_ROOT, KSYMS_ROOT_PRE),
		      "root's /proc/kallsyms differs under the preload");

	/* the member without the preload: zeros */
	j = (struct cat_job){ "fopen", KSYMS_MEMBER, false };
	writable_by_all(KSYMS_MEMBER);
	ck_assert_int_eq(vt_run_as_monitor(exec_cat, &j), 0);
	lines_of(KSYMS_MEMBER, &member, mfs, sizeof(mfs));
	ck_assert_str_eq(mfs, "# procfs");
	for (i = 0; i < member.n; i++)
		zeros += !strncmp(member.v[i], "0000000000000000 ", 17);
	ck_assert_uint_eq(zeros, member.n);
	lines_free(&member);

	for (int h = 0; h < 2; h++) {
		j = (struct cat_job){ how[h], KSYMS_MEMBER, true };
		writable_by_all(KSYMS_MEMBER);
		ck_assert_int_eq(vt_run_as_monitor(exec_cat, &j), 0);
		lines_of(KSYMS_MEMBER, &member, mfs, sizeof(mfs));
		ck_assert_str_eq(mfs, "# other");
		printf("kcore_preload: /proc/kallsyms by %s as a group member: %zu lines, root's %zu\n",
		       how[h], member.n, root.n);
		bad = 0;
		for (i = k = 0; i < root.n; i++) {
			if (k < member.n && !strcmp(root.v[i], member.v[k])) {
				k++;
				continue;
			}
			if (not_listed(root.v[i], &member))
				continue;
			if (bad++ < 5)
				printf("root's line %zu: %s\nmember's line %zu: %s\n", i + 1,
				       root.v[i], k + 1, k < member.n ? member.v[k] : "(end)");
		}
		if (k < member.n && bad++ < 5)
			printf("member's line %zu is not root's: %s\n", k + 1, member.v[k]);
		lines_free(&member);
		ck_assert_msg(!bad, "%s: %zu lines differ from root's /proc/kallsyms", how[h], bad);
	}
	lines_free(&root);
}
END_TEST

/*
 * Run the reader on SPEC untraced (its signals delivered), killed after
 * HANG_SECONDS: its wait status, or -1 if it hung.
 */
static int run_untraced(const char *out, bool preload)
{
	struct run r = { out, preload, NULL, false };
	int status;
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		exec_reader(&r, 0);
	if (vt_wait_child(pid, HANG_SECONDS * 1000, &status) == 0)
		return status;
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return -1;
}

static void assert_exited(const char *what, int status)
{
	ck_assert_msg(status != -1, "%s: reader still running after %d s (deadlock?)",
		      what, HANG_SECONDS);
	ck_assert_msg(WIFEXITED(status) && !WEXITSTATUS(status),
		      "%s: reader %s %d", what,
		      WIFSIGNALED(status) ? "killed by signal" : "exited with",
		      WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
}

/* No line of the output says WRONG; else the first that does. */
static void assert_nothing_wrong(const char *path)
{
	size_t n;
	char *text = vt_slurp(path, &n), *w = strstr(text, "WRONG"), *start = w;

	while (start && start > text && start[-1] != '\n')
		start--;
	ck_assert_msg(!w, "%s: %.*s", path, w ? (int)strcspn(start, "\n") : 0, start ? start : "");
	free(text);
}

static FILE *spec_open(void)
{
	FILE *f = fopen(SPEC, "we");

	ck_assert_ptr_nonnull(f);
	return f;
}

/* System calls of one run of the reader, by what they are. */
struct call_kinds {
	long total;
	long dev_preads;	/* pread64() of /dev/kmem_ro */
	long kcore_preads;	/* pread64() of /proc/kcore, or of the memfd served */
	long readv_ioctls;	/* KMEM_RO_IOC_READV */
	int status;
};

/* What the tracee's fd names begins with prefix. */
static bool fd_names(pid_t pid, unsigned long long fd, const char *prefix)
{
	char link[64], target[256];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/%d/fd/%llu", pid, fd);
	n = readlink(link, target, sizeof(target) - 1);
	if (n < 0)
		return false;
	target[n] = '\0';
	return !strncmp(target, prefix, strlen(prefix));
}

/* Run the reader on SPEC under ptrace; count its system calls by kind. */
static void trace_kinds(bool preload, struct call_kinds *c)
{
	struct run r = { preload ? OUT_PRELOAD : OUT_PLAIN, preload, NULL, false };
	pid_t pid;
	int st;

	*c = (struct call_kinds){ .status = -1 };
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
			_exit(121);
		raise(SIGSTOP);
		exec_reader(&r, 0);
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFSTOPPED(st));
	ck_assert_int_eq(ptrace(PTRACE_SETOPTIONS, pid, NULL,
				(void *)(PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEEXEC |
					 PTRACE_O_EXITKILL)), 0);
	ck_assert_int_eq(ptrace(PTRACE_SYSCALL, pid, NULL, NULL), 0);
	for (;;) {
		struct __ptrace_syscall_info info;
		int sig = 0;

		ck_assert_int_eq(waitpid(pid, &st, 0), pid);
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			c->status = st;
			return;
		}
		if (WSTOPSIG(st) == (SIGTRAP | 0x80)) {
			ck_assert_int_gt(ptrace(PTRACE_GET_SYSCALL_INFO, pid,
						(void *)sizeof(info), &info), 0);
			if (info.op != PTRACE_SYSCALL_INFO_ENTRY) {
				/* an exit */
			} else if (c->total++, info.entry.nr == SYS_pread64) {
				if (fd_names(pid, info.entry.args[0], KMEM_RO_DEVICE))
					c->dev_preads++;
				else if (fd_names(pid, info.entry.args[0], "/proc/kcore") ||
					 fd_names(pid, info.entry.args[0], "/memfd:kcore"))
					c->kcore_preads++;
			} else if (info.entry.nr == SYS_ioctl &&
				   info.entry.args[1] == KMEM_RO_IOC_READV) {
				c->readv_ioctls++;
			}
		} else if (!(st >> 16)) {
			sig = WSTOPSIG(st);	/* a signal, not an event (exec) */
		}
		ptrace(PTRACE_SYSCALL, pid, NULL, (void *)(long)sig);
	}
}

/* Reads the device serves with mmap_ram=0, each within one segment. */
#define COUNTED_RANDOM	300
#define COUNTED_FIXED	5

static void write_counted_spec(unsigned int random)
{
	uint64_t vbuf = vt_testobj("vbuf"), vlen = vt_testobj("vbuf_len"), rs, re, mod;
	struct kmem_ro_info in;
	int fd = vt_open_dev();
	FILE *f;

	rodata(&rs, &re, &mod);
	ck_assert_int_eq(vt_info(fd, &in, NULL, 0), 0);
	close(fd);
	ck_assert(rs && re - rs >= 0x20000 && vbuf && vlen >= 4096 && mod);
	f = spec_open();
	fprintf(f, "r %#jx %#jx %u 64\n", (uintmax_t)direct(&in, rs),
		(uintmax_t)direct(&in, re), random);
	fprintf(f, "r %#jx %#jx %u 64\n", (uintmax_t)vbuf, (uintmax_t)(vbuf + vlen), random);
	if (random) {
		/* across pages, 16 pages, vmalloc whole, module text */
		fprintf(f, "v %#jx 4096\n", (uintmax_t)direct(&in, rs) + 0x1800);
		fprintf(f, "v %#jx 65536\n", (uintmax_t)direct(&in, rs) + 0x4000);
		fprintf(f, "v %#jx %ju\n", (uintmax_t)vbuf, (uintmax_t)vlen);
		fprintf(f, "v %#jx 64\n", (uintmax_t)mod);
		fprintf(f, "v %#jx 8\n", (uintmax_t)direct(&in, rs) + 0x3ffc);
	}
	ck_assert_int_eq(fclose(f), 0);
}

/*
 * Each kcore pread() the preload does not serve from its mapping is one
 * device pread(), and nothing else: the reader's system calls with the
 * preload exceed those of a reader making no such reads by exactly the
 * reads, each a pread() of /dev/kmem_ro (none of the memfd, no READV),
 * as they exceed them without the preload by exactly the kcore preads.
 * Random reads of 1..64 bytes (some across a page) of rodata's
 * direct-map alias and a vmalloc buffer, and reads across pages, of 16
 * pages, of the whole buffer and of module text.
 */
START_TEST(one_device_pread_per_read)
{
	const long reads = 2 * COUNTED_RANDOM + COUNTED_FIXED;
	struct call_kinds plain[2], pre[2];
	struct kmem_ro_info in;
	int fd = vt_open_dev();

	ck_assert_int_eq(vt_info(fd, &in, NULL, 0), 0);
	close(fd);
	ck_assert_msg(in.features & KMEM_RO_FEAT_PREAD, "the driver has no pread()");
	ck_assert_int_eq(vt_file_has(MMAP_RAM, "N"), 1);
	for (int i = 0; i < 2; i++) {
		write_counted_spec(i ? COUNTED_RANDOM : 0);
		trace_kinds(false, &plain[i]);
		trace_kinds(true, &pre[i]);
		assert_exited("plain", plain[i].status);
		assert_exited("with the preload", pre[i].status);
	}
	assert_same_output();
	printf("kcore_preload: %ld reads by the device: plain %ld kcore preads, %ld syscalls;"
	       " with the preload %ld device preads, %ld READV, %ld syscalls\n", reads,
	       plain[1].kcore_preads - plain[0].kcore_preads, plain[1].total - plain[0].total,
	       pre[1].dev_preads - pre[0].dev_preads, pre[1].readv_ioctls,
	       pre[1].total - pre[0].total);
	ck_assert_int_eq(plain[1].kcore_preads - plain[0].kcore_preads, reads);
	ck_assert_int_eq(pre[1].dev_preads - pre[0].dev_preads, reads);
	ck_assert_int_eq(pre[1].kcore_preads, pre[0].kcore_preads);
	ck_assert_int_eq(pre[0].readv_ioctls + pre[1].readv_ioctls, 0);
	ck_assert_int_eq(pre[1].total - pre[0].total, plain[1].total - plain[0].total);
}
END_TEST

/*
 * CUTS reads cut short by SIGALRM, whose handler reads kcore (pread, dup
 * + pread + close, lseek + read of a second fd) and siglongjmps out of the
 * interrupted read: kernel text and rodata's direct-map alias (the
 * mapping) and a vmalloc buffer (READV), every read checked against the
 * kernel's answer.  Then the fd reads on as before, and closing it lets
 * go of the device.  The shim once took a lock in these calls: a handler
 * that interrupted it waited for itself.
 */
START_TEST(signal_longjmp)
{
	uint64_t vbuf = vt_testobj("vbuf"), vlen = vt_testobj("vbuf_len"), rs, re;
	struct kmem_ro_info in;
	int fd = vt_open_dev();
	char want[128];
	FILE *f;

	rodata(&rs, &re, NULL);
	ck_assert_int_eq(vt_info(fd, &in, NULL, 0), 0);
	close(fd);
	ck_assert(rs && re > rs && vlen >= 4096);
	f = spec_open();
	fprintf(f, "I %d %#jx %#jx %#jx %#jx %#jx %#jx\n", CUTS,
		(uintmax_t)in.text_start, (uintmax_t)in.text_end,
		(uintmax_t)direct(&in, rs), (uintmax_t)direct(&in, re),
		(uintmax_t)vbuf, (uintmax_t)(vbuf + vlen));
	fprintf(f, "l %#jx 64\np 128\nc 4096 64\n", (uintmax_t)in.text_start + 0x5000);
	fprintf(f, "v %#jx 4096\nv %#jx 4096\nv %#jx 64\n", (uintmax_t)in.text_start + 0x6000,
		(uintmax_t)direct(&in, rs), (uintmax_t)vbuf);
	fprintf(f, "C\nv %#jx 64\n", (uintmax_t)in.text_start);
	ck_assert_int_eq(fclose(f), 0);

	assert_exited("plain", run_untraced(OUT_PLAIN, false));
	assert_exited("with the preload", run_untraced(OUT_PRELOAD, true));
	snprintf(want, sizeof(want),
		 "I %d cut: done, handler reads as-kcore\nI reads as-kcore\n", CUTS);
	ck_assert_msg(output_has(OUT_PLAIN, want), "plain kcore: not %s", want);
	ck_assert(output_has(OUT_PLAIN, "C devfds 0 maps 0\n"));
	assert_same_output();
}
END_TEST

/* System calls of a process tree: the reader and the child it forks. */
struct tree_calls {
	long reader;
	long child;
	int children;
	int status;
};

static bool was_seen(const pid_t *seen, int n, pid_t pid)
{
	for (int i = 0; i < n; i++)
		if (seen[i] == pid)
			return true;
	return false;
}

/*
 * Run the reader under ptrace, following its forks; count each process's
 * system calls (entries).  Signals are delivered.  PTRACE_O_EXITKILL: the
 * tracees die with the test.
 */
static void trace_tree(bool preload, struct tree_calls *c)
{
	struct run r = { OUT_PLAIN, preload, NULL, false };
	pid_t root, pid, seen[16];
	int st, nseen = 0;

	if (preload)
		r.out = OUT_PRELOAD;
	*c = (struct tree_calls){ .status = -1 };
	root = fork();
	ck_assert_int_ge(root, 0);
	if (root == 0) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
			_exit(121);
		raise(SIGSTOP);
		exec_reader(&r, 0);
	}
	ck_assert_int_eq(waitpid(root, &st, 0), root);
	ck_assert(WIFSTOPPED(st));
	ck_assert_int_eq(ptrace(PTRACE_SETOPTIONS, root, NULL,
				(void *)(PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEFORK |
					 PTRACE_O_TRACEVFORK | PTRACE_O_TRACEEXEC |
					 PTRACE_O_EXITKILL)), 0);
	ck_assert_int_eq(ptrace(PTRACE_SYSCALL, root, NULL, NULL), 0);
	for (;;) {
		struct __ptrace_syscall_info info;
		unsigned long msg;
		int sig = 0;

		pid = waitpid(-1, &st, __WALL);
		ck_assert_int_gt(pid, 0);
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			if (pid == root) {
				c->status = st;
				return;
			}
			continue;
		}
		if (WSTOPSIG(st) == (SIGTRAP | 0x80)) {
			ck_assert_int_gt(ptrace(PTRACE_GET_SYSCALL_INFO, pid,
						(void *)sizeof(info), &info), 0);
			if (info.op == PTRACE_SYSCALL_INFO_ENTRY)
				(pid == root ? &c->reader : &c->child)[0]++;
		} else if (st >> 16 == PTRACE_EVENT_FORK || st >> 16 == PTRACE_EVENT_VFORK) {
			ck_assert_int_eq(ptrace(PTRACE_GETEVENTMSG, pid, NULL, &msg), 0);
			c->children++;
		} else if (st >> 16) {
			/* exec, ...: an event, not a signal */
		} else if (pid != root && WSTOPSIG(st) == SIGSTOP && !was_seen(seen, nseen, pid)) {
			/* a new child's first stop, maybe before its fork event */
			ck_assert_int_lt(nseen, 16);
			seen[nseen++] = pid;
		} else {
			sig = WSTOPSIG(st);
		}
		ptrace(PTRACE_SYSCALL, pid, NULL, (void *)(long)sig);
	}
}

/*
 * The reader forks; parent and child take turns on the file position they
 * share (and pread the fd they share), then each makes FORK_READS 64-byte
 * read()s on that one position, and FORK_READS preads of a kcore fd it
 * opens, at once; in rodata's direct-map alias.  Same bytes as kcore, each chunk read by
 * exactly one of them, and the position ends where kcore's would - at a
 * fraction of the plain reader's system calls in each process (the shim
 * once gave read() and lseek() back to the kernel after fork).
 */
START_TEST(fork_reads_on)
{
	uint64_t rs, re;
	struct tree_calls plain, pre;
	struct kmem_ro_info in;
	int fd = vt_open_dev();
	char want[128];
	FILE *f;

	rodata(&rs, &re, NULL);
	ck_assert_int_eq(vt_info(fd, &in, NULL, 0), 0);
	close(fd);
	/* rodata, through the direct map: stable bytes, the RAM mapping */
	ck_assert(rs && re - rs >= FORK_REGION + 0x1000);
	f = spec_open();
	fprintf(f, "F %d %#jx %d\n", FORK_READS, (uintmax_t)direct(&in, rs) + 0x1000, FORK_REGION);
	fprintf(f, "p 64\nl %#jx 64\np 64\n", (uintmax_t)in.text_start + 0x3000);
	ck_assert_int_eq(fclose(f), 0);

	trace_tree(false, &plain);
	trace_tree(true, &pre);
	printf("kcore_preload: fork, %d preads + %d read()s in each process: "
	       "syscalls plain %ld reader / %ld child, with the preload %ld / %ld\n",
	       FORK_READS, FORK_READS, plain.reader, plain.child, pre.reader, pre.child);
	assert_exited("plain", plain.status);
	assert_exited("with the preload", pre.status);
	ck_assert_int_eq(plain.children, 1);
	ck_assert_int_eq(pre.children, 1);
	snprintf(want, sizeof(want),
		 "F %d reads each on one position: each chunk once, position then %+d\n",
		 FORK_READS, FORK_REGION);
	ck_assert_msg(output_has(OUT_PLAIN, want), "plain kcore: %s", want);
	assert_nothing_wrong(OUT_PLAIN);
	assert_nothing_wrong(OUT_PRELOAD);
	assert_same_output();
	ck_assert_int_ge(plain.child, 2 * FORK_READS);
	ck_assert_msg(pre.child * 50 <= plain.child,
		      "child: %ld system calls with the preload, %ld without",
		      pre.child, plain.child);
	ck_assert_msg(pre.reader * 10 <= plain.reader,
		      "parent: %ld system calls with the preload, %ld without",
		      pre.reader, plain.reader);
}
END_TEST

/*
 * pread() and read() into a buffer that was never writable, was made
 * read-only after a read, straddles into a read-only page, or was
 * unmapped: -1/EFAULT as kcore gives, for the mapping (text, direct map)
 * and READV (vmalloc) alike; the position stays where kcore leaves it.
 */
START_TEST(unwritable_buffer)
{
	static const char *const failing[] = {
		"never-writable", "made-read-only", "read()-read-only", "unmapped",
	};
	uint64_t rs = vt_kallsyms("__start_rodata"), addr[3];
	struct kmem_ro_info in;
	int fd = vt_open_dev();
	char want[128];
	FILE *f;

	ck_assert_int_eq(vt_info(fd, &in, NULL, 0), 0);
	close(fd);
	addr[0] = in.text_start + 0x7000;
	addr[1] = direct(&in, rs) + 0x200;
	addr[2] = vt_testobj("vbuf");
	f = spec_open();
	fprintf(f, "E %#jx %#jx %#jx\n", (uintmax_t)addr[0], (uintmax_t)addr[1],
		(uintmax_t)addr[2]);
	fprintf(f, "v %#jx 64\n", (uintmax_t)addr[0]);
	ck_assert_int_eq(fclose(f), 0);

	assert_exited("plain", run_untraced(OUT_PLAIN, false));
	assert_exited("with the preload", run_untraced(OUT_PRELOAD, true));
	/* What kcore does is the reference; make sure it is EFAULT. */
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 4; j++) {
			snprintf(want, sizeof(want), "E %s %#jx -14 ", failing[j],
				 (uintmax_t)addr[i]);
			ck_assert_msg(output_has(OUT_PLAIN, want), "plain kcore: no \"%s\"", want);
		}
	assert_same_output();
}
END_TEST

/* ---- every way of reading the fd: data or an error (issue #33) ------ */

#define OUT_MEMBER	"/tmp/kcore_member.out"
#define EVERY_LEN	512

static void write_every_read_spec(void)
{
	uint64_t rs = vt_kallsyms("__start_rodata"), vbuf = vt_testobj("vbuf");
	uint64_t vlen = vt_testobj("vbuf_len"), addr[3];
	struct kmem_ro_info in;
	int fd = vt_open_dev();
	FILE *f;

	ck_assert_int_eq(vt_info(fd, &in, NULL, 0), 0);
	close(fd);
	ck_assert(rs && vbuf && vlen >= EVERY_LEN);
	/* the text mapping, RAM (the mapping or the device), vmalloc (the device) */
	addr[0] = in.text_start + 0x8000;
	addr[1] = direct(&in, rs) + 0x300;
	addr[2] = vbuf;
	f = spec_open();
	fprintf(f, "T\n");
	for (int i = 0; i < 3; i++)
		fprintf(f, "P %#jx %d\nY %#jx %d\nZ %#jx %d\nG %#jx %d\n",
			(uintmax_t)addr[i], EVERY_LEN, (uintmax_t)addr[i], EVERY_LEN,
			(uintmax_t)addr[i], EVERY_LEN, (uintmax_t)addr[i], EVERY_LEN);
	/* on through an fd past the old table (G raised the fd limit) */
	fprintf(f, "D 3000\nT\nv %#jx 64\nP %#jx 64\nd\nv %#jx 64\n",
		(uintmax_t)addr[0], (uintmax_t)addr[1], (uintmax_t)addr[2]);
	/* errno kept (mapping, device, kcore's zeros); a device read cancels */
	fprintf(f, "W %#jx 8\nW %#jx 8\nW %#jx 8\nK %#jx 64\nC\n", (uintmax_t)addr[0],
		(uintmax_t)addr[2], (uintmax_t)vt_testobj("vguard"), (uintmax_t)addr[2]);
	ck_assert_int_eq(fclose(f), 0);
}

/* kcore_reader on SPEC into OUT_MEMBER with the preload, as whoever calls it */
static int exec_reader_member(void *unused)
{
	char *argv[] = { READER, SPEC, OUT_MEMBER, NULL };
	char *pre[] = { "PATH=/bin", "LD_PRELOAD=" PRELOAD, NULL };

	(void)unused;
	execve(READER, argv, pre);
	return 127;
}

static void run_member_reader(void)
{
	writable_by_all(OUT_MEMBER);
	ck_assert_int_eq(vt_run_as_monitor(exec_reader_member, NULL), 0);
}

/*
 * errno after a successful read, a device read with a cancellation
 * pending; preadv() and preadv2(), sendfile() and copy_file_range() from
 * the fd, fds past 1024 made by F_DUPFD, dup2() and dup3(), stat() of
 * the path beside fstat(): kcore's answers, byte for byte, for root and for a
 * member of the device's group (root's plain kcore as the reference; no
 * absolute file offset is printed: the member's file is laid out for an
 * NT_TASKSTRUCT note of unknown size, see kcore_open.c).  The shim once
 * let the first four read its file's hole (zeros), left the high fds to
 * the kernel (zeros again), and sized the path by the kernel (for the
 * member, two pages more than the fd).
 */
START_TEST(every_read_as_kcore)
{
	write_every_read_spec();
	assert_exited("plain", run_untraced(OUT_PLAIN, false));
	ck_assert(output_has(OUT_PLAIN, "Z offset "));
	ck_assert(!output_has(OUT_PLAIN, "DIFFERS"));
	ck_assert(output_has(OUT_PLAIN, " 64 cancelled\nC devfds 0 maps 0\n"));
	ck_assert(!output_has(OUT_PLAIN, "W errno changed\n"));
	assert_exited("with the preload", run_untraced(OUT_PRELOAD, true));
	assert_same_output();
	run_member_reader();
	ck_assert_int_eq(rename(OUT_MEMBER, OUT_PRELOAD), 0);
	assert_same_output();
}
END_TEST

/* Each X line of path: the exec'd program read the bytes, or an error. */
static void assert_exec_data_or_error(const char *path, int lines)
{
	char *text = vt_slurp(path, NULL), *end;
	int seen = 0;

	for (char *line = text; *line; line = end + 1) {
		end = strchr(line, '\n');
		ck_assert_ptr_nonnull(end);
		*end = '\0';
		if (line[0] != 'X')
			continue;
		ck_assert_msg(strstr(line, ": as-read") || strstr(line, ": error -"),
			      "%s: %s", path, line);
		seen++;
	}
	ck_assert_int_eq(seen, lines);
	free(text);
}

/*
 * A program exec'd with the fd (not close-on-exec) reads kcore's bytes
 * through it or gets an error, for root and for a member: never the
 * zeros of the shim's file, which the shim no longer follows there.
 */
START_TEST(exec_reads_data_or_error)
{
	uint64_t rs = vt_kallsyms("__start_rodata");
	struct kmem_ro_info in;
	int fd = vt_open_dev();
	FILE *f;

	ck_assert_int_eq(vt_info(fd, &in, NULL, 0), 0);
	close(fd);
	f = spec_open();
	fprintf(f, "X %#jx 256\nX %#jx 256\n", (uintmax_t)in.text_start + 0x9000,
		(uintmax_t)direct(&in, rs) + 0x500);
	ck_assert_int_eq(fclose(f), 0);
	assert_exited("plain", run_untraced(OUT_PLAIN, false));
	ck_assert(output_has(OUT_PLAIN, "exec'd program: as-read"));
	assert_exited("with the preload", run_untraced(OUT_PRELOAD, true));
	assert_exec_data_or_error(OUT_PRELOAD, 2);
	run_member_reader();
	assert_exec_data_or_error(OUT_MEMBER, 2);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("kcore_preload");
	/* first: the module as init loaded it */
	TCase *tc = tcase_create("default");

	tcase_add_test(tc, default_ram_through_device);
	tcase_add_test(tc, one_device_pread_per_read);
	suite_add_tcase(s, tc);

	tc = tcase_create("identical");

	/* RAM served by the mapping: the opt-in */
	tcase_add_checked_fixture(tc, vt_mmap_ram_on, vt_mmap_ram_off);

	tcase_add_test(tc, same_bytes_fewer_syscalls);
	tcase_add_test(tc, drgn_same_bytes);
	tcase_add_test(tc, drgn_group_member);
	tcase_add_test(tc, kallsyms_group_member);
	tcase_add_test(tc, refused_pages_read_as_kcore);
	suite_add_tcase(s, tc);

	tc = tcase_create("signals_fork");
	tcase_add_checked_fixture(tc, vt_mmap_ram_on, vt_mmap_ram_off);
	tcase_add_test(tc, signal_longjmp);
	tcase_add_test(tc, fork_reads_on);
	tcase_add_test(tc, unwritable_buffer);
	suite_add_tcase(s, tc);

	tc = tcase_create("every_read");
	tcase_add_test(tc, every_read_as_kcore);
	tcase_add_test(tc, exec_reads_data_or_error);
	suite_add_tcase(s, tc);

	tc = tcase_create("fallback");
	tcase_add_test(tc, device_absent);
	tcase_add_test(tc, device_unopenable);
	suite_add_tcase(s, tc);
	return vt_main(s);
}
