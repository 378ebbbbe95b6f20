// SPDX-License-Identifier: GPL-2.0
/*
 * A /proc/kcore reader in the style of drgn and crash: it parses the
 * program headers with plain pread() and reads kernel addresses at their
 * file offsets.  Linked dynamically, so that LD_PRELOAD=libkmemdev-kcore.so
 * can take it over; kcore_preload_test runs it with and without and
 * compares the outputs byte for byte.
 *
 *	kcore_reader SPEC OUT
 *
 * SPEC has one operation per line (numbers in C syntax):
 *	v ADDR LEN		pread at the file offset of kernel address ADDR
 *	u ADDR LEN		the same for memory the kernel freed (live bytes)
 *	r START END COUNT MAX	COUNT preads of 1..MAX bytes in [START, END)
 *	q START END COUNT MAX	the same, one line for all (for timing)
 *	l ADDR LEN		lseek(SEEK_SET) to ADDR's offset, then read()
 *	L OFF LEN		lseek(SEEK_SET) to file offset OFF, then read()
 *	c DELTA LEN		lseek(SEEK_CUR, DELTA), then read()
 *	p LEN			read() where the file position is
 *	h LEN			pread in the first hole after a PT_LOAD segment
 *	s LEN			pread across the end of that segment into the hole
 *	S LEN			the same with lseek() and read()
 *	e			pread of the ELF header and program headers
 *	n			the VMCOREINFO note (the others hold this task)
 *	d			go on through dup() of the fd, closing the old one
 *	D FD			the same with dup2() to FD
 *	f ADDR LEN		pread in a forked child
 *	V			vfork(); the child closes every fd and exits
 *	x PATH LEN		pread of another file
 *	R			close /proc/kcore and open it again
 * OUT gets one line per read: operation, where, length, result, FNV-1a
 * hash of the bytes.  Random addresses come from a fixed seed: two runs
 * read exactly the same.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define KCORE		"/proc/kcore"
#define OUT_BUF		(16 << 20)	/* one write() for the whole output */

static int kfd = -1;
static Elf64_Phdr *ph;
static unsigned int phnum;
static unsigned char *buf;
static size_t bufsz;
static FILE *out;

static void die(const char *what)
{
	fprintf(stderr, "kcore_reader: %s: %s\n", what, strerror(errno));
	exit(2);
}

static uint64_t fnv1a(const unsigned char *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	while (n--)
		h = (h ^ *p++) * 0x100000001b3ULL;
	return h;
}

static uint64_t rnd(void)
{
	static uint64_t x = 0x9e3779b97f4a7c15ULL;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	return x * 0x2545f4914f6cdd1dULL;
}

static void *need(size_t n)
{
	if (n > bufsz) {
		free(buf);
		buf = malloc(n);
		if (!buf)
			die("malloc");
		bufsz = n;
	}
	return buf;
}

static void report(char op, uint64_t where, size_t len, ssize_t r)
{
	fprintf(out, "%c %#" PRIx64 " %zu %zd %016" PRIx64 "\n", op, where, len,
		r < 0 ? -errno : r, r > 0 ? fnv1a(buf, (size_t)r) : 0);
}

static void open_kcore(void)
{
	Elf64_Ehdr eh;

	kfd = open(KCORE, O_RDONLY);
	if (kfd < 0)
		die(KCORE);
	if (pread(kfd, &eh, sizeof(eh), 0) != sizeof(eh))
		die("ELF header");
	free(ph);
	phnum = eh.e_phnum;
	ph = calloc(phnum, sizeof(*ph));
	if (!ph || pread(kfd, ph, phnum * sizeof(*ph), eh.e_phoff) !=
		   (ssize_t)(phnum * sizeof(*ph)))
		die("program headers");
}

static bool holds(const Elf64_Phdr *p, uint64_t addr, size_t len)
{
	return p->p_type == PT_LOAD && addr >= p->p_vaddr &&
	       addr - p->p_vaddr < p->p_filesz &&
	       len <= p->p_filesz - (addr - p->p_vaddr);
}

/* File offset of [addr, addr + len) inside one PT_LOAD segment, or -1. */
static off_t offset_of(uint64_t addr, size_t len)
{
	static unsigned int last;

	if (last >= phnum || !holds(&ph[last], addr, len))
		for (last = 0; last < phnum && !holds(&ph[last], addr, len); last++)
			;
	if (last == phnum)
		return -1;
	return (off_t)(ph[last].p_offset + (addr - ph[last].p_vaddr));
}

/* End of the first PT_LOAD segment (by offset) that no segment follows. */
static uint64_t hole(void)
{
	uint64_t best = UINT64_MAX;

	for (unsigned int i = 0; i < phnum; i++) {
		uint64_t end = ph[i].p_offset + ph[i].p_filesz;
		bool followed = false;

		if (ph[i].p_type != PT_LOAD)
			continue;
		for (unsigned int j = 0; j < phnum; j++)
			followed |= ph[j].p_type == PT_LOAD &&
				    ph[j].p_offset <= end &&
				    end < ph[j].p_offset + ph[j].p_filesz;
		if (!followed && end < best)
			best = end;
	}
	return best;
}

static void do_pread(char op, uint64_t where, off_t off, size_t len)
{
	ssize_t r = pread(kfd, need(len), len, off);

	report(op, where, len, r);
}

/*
 * Freed image memory (the text/rodata gap, init) is reused by whoever gets
 * its pages: two runs cannot compare its bytes.  Compare, within the run,
 * the pread (served, under the preload) with the kernel's own read by a raw
 * system call no preload sees, retried as the bytes may change in between.
 */
static void do_live(uint64_t where, off_t off, size_t len)
{
	unsigned char *raw = malloc(len);
	ssize_t r = -1, k = -1;
	int tries, err = 0;

	if (!raw)
		die("malloc");
	for (tries = 0; tries < 5; tries++) {
		r = pread(kfd, need(len), len, off);
		err = errno;
		k = syscall(SYS_pread64, kfd, raw, len, off);
		if (r == k && (r <= 0 || !memcmp(buf, raw, (size_t)r)))
			break;
	}
	fprintf(out, "u %#" PRIx64 " %zu %zd %s\n", where, len, r < 0 ? -err : r,
		tries < 5 ? "as-kcore" : "differs");
	free(raw);
}

static void do_seek_read(char op, uint64_t where, off_t off, int whence, size_t len)
{
	off_t pos = lseek(kfd, off, whence);
	ssize_t r;

	fprintf(out, "%c seek %jd\n", op, (intmax_t)(pos < 0 ? -errno : pos));
	r = read(kfd, need(len), len);
	report(op, where, len, r);
}

static void do_random(char op, uint64_t start, uint64_t end,
		      unsigned long count, size_t max)
{
	uint64_t sum = 0, bytes = 0, fails = 0;

	while (count--) {
		uint64_t addr = start + rnd() % (end - start);
		size_t len = 1 + rnd() % max;
		off_t off;

		if (len > end - addr)
			len = end - addr;
		off = offset_of(addr, len);
		if (op == 'r' && off < 0) {
			fprintf(out, "r %#" PRIx64 " %zu nosegment\n", addr, len);
		} else if (op == 'r') {
			do_pread('r', addr, off, len);
		} else if (off < 0 || pread(kfd, need(len), len, off) != (ssize_t)len) {
			fails++;
		} else {
			sum = sum * 31 + fnv1a(buf, len);
			bytes += len;
		}
	}
	if (op == 'q')
		fprintf(out, "q %#" PRIx64 " %" PRIu64 " bytes %" PRIu64 " failed %016" PRIx64 "\n",
			start, bytes, fails, sum);
}

static void do_notes(void)
{
	for (unsigned int i = 0; i < phnum; i++) {
		unsigned char *p, *end;
		ssize_t r;

		if (ph[i].p_type != PT_NOTE)
			continue;
		r = pread(kfd, need(ph[i].p_filesz), ph[i].p_filesz, ph[i].p_offset);
		if (r != (ssize_t)ph[i].p_filesz) {
			report('n', ph[i].p_offset, ph[i].p_filesz, r);
			return;
		}
		for (p = buf, end = buf + r; p + sizeof(Elf64_Nhdr) <= end; ) {
			Elf64_Nhdr *nh = (Elf64_Nhdr *)p;
			size_t name = (nh->n_namesz + 3) & ~3UL;
			size_t desc = (nh->n_descsz + 3) & ~3UL;
			unsigned char *d = p + sizeof(*nh) + name;

			if (d + desc > end)
				break;
			if (nh->n_namesz == sizeof("VMCOREINFO") &&
			    !memcmp(p + sizeof(*nh), "VMCOREINFO", nh->n_namesz))
				fprintf(out, "n vmcoreinfo %u %016" PRIx64 "\n",
					nh->n_descsz, fnv1a(d, nh->n_descsz));
			p = d + desc;
		}
	}
}

static void do_fork(uint64_t addr, size_t len)
{
	off_t off = offset_of(addr, len);
	struct { ssize_t r; uint64_t h; int err; } res = { -1, 0, 0 };
	int pfd[2], status;
	pid_t pid;

	if (off < 0 || pipe(pfd))
		die("fork op");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		res.r = pread(kfd, need(len), len, off);
		res.err = errno;
		res.h = res.r > 0 ? fnv1a(buf, (size_t)res.r) : 0;
		_exit(write(pfd[1], &res, sizeof(res)) != sizeof(res));
	}
	close(pfd[1]);
	if (read(pfd[0], &res, sizeof(res)) != sizeof(res) ||
	    waitpid(pid, &status, 0) != pid || status)
		die("child");
	close(pfd[0]);
	fprintf(out, "f %#" PRIx64 " %zu %zd %016" PRIx64 "\n", addr, len,
		res.r < 0 ? -res.err : res.r, res.h);
}

/* What a vfork() child closes is its own: the parent reads on. */
static void do_vfork(void)
{
	int status;
	pid_t pid = vfork();

	if (pid < 0)
		die("vfork");
	if (pid == 0) {
		close(kfd);
		close_range(3, ~0U, 0);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid || status)
		die("vfork child");
	fprintf(out, "V done\n");
}

static void do_file(const char *path, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t r;

	if (fd < 0)
		die(path);
	r = pread(fd, need(len), len, 0);
	report('x', 0, len, r);
	close(fd);
}

/* Up to 4 numbers (C syntax, the full 64-bit range) into v; how many. */
static int nums(const char *s, unsigned long long *v)
{
	char *end;
	int n;

	for (n = 0; n < 4; n++, s = end) {
		errno = 0;
		v[n] = strtoull(s, &end, 0);
		if (end == s || errno)
			break;
	}
	return n;
}

int main(int argc, char **argv)
{
	unsigned long long v[4], a, b;
	char line[512], path[256];
	FILE *spec;
	off_t off;
	int fd, n;

	if (argc != 3) {
		fprintf(stderr, "usage: kcore_reader SPEC OUT\n");
		return 2;
	}
	spec = fopen(argv[1], "r");
	out = fopen(argv[2], "w");
	/* glibc would ignore the size with a NULL buffer */
	if (!spec || !out || setvbuf(out, malloc(OUT_BUF), _IOFBF, OUT_BUF))
		die("open spec/out");
	open_kcore();

	while (fgets(line, sizeof(line), spec)) {
		n = nums(line + 1, v);
		a = v[0];
		b = v[1];
		switch (line[0]) {
		case 'v':
			if (n != 2)
				goto bad;
			off = offset_of(a, b);
			if (off < 0)
				fprintf(out, "v %#llx %llu nosegment\n", a, b);
			else
				do_pread('v', a, off, b);
			break;
		case 'u':
			if (n != 2)
				goto bad;
			off = offset_of(a, b);
			if (off < 0)
				goto bad;
			do_live(a, off, b);
			break;
		case 'r':
		case 'q':
			if (n != 4 || v[1] <= v[0] || !v[3])
				goto bad;
			do_random(line[0], v[0], v[1], v[2], v[3]);
			break;
		case 'l':
			if (n != 2)
				goto bad;
			off = offset_of(a, b);
			if (off < 0)
				goto bad;
			do_seek_read('l', a, off, SEEK_SET, b);
			break;
		case 'L':
			if (n != 2)
				goto bad;
			do_seek_read('L', a, a, SEEK_SET, b);
			break;
		case 'c':
			if (n != 2)
				goto bad;
			do_seek_read('c', a, a, SEEK_CUR, b);
			break;
		case 'p':
			if (n != 1)
				goto bad;
			report('p', 0, a, read(kfd, need(a), a));
			break;
		case 'h':
			if (n != 1)
				goto bad;
			do_pread('h', hole(), hole(), a);
			break;
		case 's':
			if (n != 1)
				goto bad;
			do_pread('s', hole(), hole() - a / 2, a);
			break;
		case 'S':
			if (n != 1)
				goto bad;
			do_seek_read('S', hole(), hole() - a / 2, SEEK_SET, a);
			break;
		case 'e':
			do_pread('e', 0, 0, sizeof(Elf64_Ehdr) + phnum * sizeof(*ph));
			break;
		case 'n':
			do_notes();
			break;
		case 'd':
			fd = dup(kfd);
			if (fd < 0 || close(kfd))
				die("dup");
			kfd = fd;
			break;
		case 'D':
			if (n != 1)
				goto bad;
			if (dup2(kfd, a) != (int)a || close(kfd))
				die("dup2");
			kfd = a;
			break;
		case 'f':
			if (n != 2)
				goto bad;
			do_fork(a, b);
			break;
		case 'V':
			do_vfork();
			break;
		case 'x':
			if (sscanf(line + 1, "%255s %llu", path, &a) != 2)
				goto bad;
			do_file(path, a);
			break;
		case 'R':
			if (close(kfd))
				die("close");
			open_kcore();
			break;
		case '#':
		case '\n':
			break;
		default:
			goto bad;
		}
	}
	if (ferror(spec) || fclose(out))
		die("spec/out");
	return 0;
bad:
	fprintf(stderr, "kcore_reader: bad spec line: %s", line);
	return 2;
}
