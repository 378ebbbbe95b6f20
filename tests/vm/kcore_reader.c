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
 *	H			the same, field by field, and the file's size
 *	n			the VMCOREINFO note (the others hold this task)
 *	m			mmap() and mmap64() of the file (kcore has none)
 *	d			go on through dup() of the fd, closing the old one
 *	D FD			the same with dup2() to FD
 *	f ADDR LEN		pread in a forked child
 *	V			vfork(); the child closes every fd and exits
 *	x PATH LEN		pread of another file
 *	R			close /proc/kcore and open it again
 *	C			close it, report the /dev/kmem_ro fds and mappings
 *				left in this process, open it again
 *	I N T0 T1 M0 M1 V0 V1	random reads (pread, lseek + read) in the three
 *				ranges, each checked against the kernel's
 *				answer, until a timer signal has cut N of them
 *				short: its handler reads kcore (pread, dup +
 *				pread + close, lseek + read of a second fd) and
 *				siglongjmps out of the read it interrupted
 *	F N ADDR LEN		fork; parent and child take turns on the shared
 *				file position, then both make N preads (on a
 *				kcore fd each opens) and N 64-byte read()s (on
 *				the shared one) at once inside [ADDR, ADDR+LEN)
 *	E ADDR...		reads into buffers that are, or become, unwritable
 *	P ADDR LEN		preadv(), preadv2() (no flag, RWF_HIPRI,
 *				RWF_NOWAIT, offset -1 at the position), and the
 *				errno of bad offsets and counts
 *	Y ADDR LEN		sendfile() into a memfd, from an offset and from
 *				the position; what it wrote and how far it moved;
 *				then the errno into outputs it refuses
 *	Z ADDR LEN		copy_file_range() into a memfd, the same ways
 *	G ADDR LEN		pread through F_DUPFD, dup2() and dup3() to fds
 *				past HIGH_FD (the soft fd limit raised to the hard)
 *	T			whether stat(), fstatat() and statx() of the path
 *				and of the fd give fstat()'s size
 *	X ADDR LEN		fork and exec this reader (--inherited) on the fd,
 *				which is not close-on-exec: what a pread there
 *				gives, against this process's own pread
 *	W ADDR LEN		pread with errno set to EDOM before it: as v,
 *				and whether a successful read left errno alone
 *	K ADDR LEN		pread in a thread that has a cancellation
 *				request pending (deferred): whether the read
 *				acted on it, as a cancellation point does
 *	N ADDR LEN COUNT	one pread of ADDR, then COUNT more between two
 *				SIGSTOPs to itself, for a tracer that counts
 *				the instructions in between
 *				(kcore_preload_bench); untraced, it stops
 * OUT gets one line per read: operation, where, length, result, FNV-1a
 * hash of the bytes.  Random addresses come from a fixed seed: two runs
 * read exactly the same.
 *
 *	kcore_reader --inherited FD OFF LEN
 *
 * (X) preads FD, inherited over exec, and writes to standard output the
 * result (or -errno) and the FNV-1a hash of the bytes.
 *
 *	kcore_reader --cat fopen|open PATH OUT
 *
 * copies PATH, read through stdio (as crash reads /proc/kallsyms) or
 * open() and read(), to OUT after a first line "# procfs" or "# other":
 * the file system the fd is on (the preload serves a memfd).
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
#include <dirent.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#define KCORE		"/proc/kcore"
#define OUT_BUF		(16 << 20)	/* one write() for the whole output */

static int kfd = -1;
/*
 * The kernel's own /proc/kcore, opened with a raw system call the preload
 * does not see: what every read is checked against ("as-kcore").  The
 * preload serves a file of its own with the same layout, so the same
 * offsets hold.
 */
static int rfd = -1;
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

static uint64_t rnd_from(uint64_t *x)
{
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	return *x * 0x2545f4914f6cdd1dULL;
}

static uint64_t rnd(void)
{
	static uint64_t x = 0x9e3779b97f4a7c15ULL;

	return rnd_from(&x);
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
	/* a member of the device's group may not: only u, I and F need it */
	if (rfd < 0)
		rfd = (int)syscall(SYS_openat, AT_FDCWD, KCORE, O_RDONLY | O_CLOEXEC);
	if (rfd < 0 && errno != EPERM && errno != EACCES)
		die(KCORE " (raw)");
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

/* A read that succeeds leaves errno as it was, as libc's pread() does. */
static void do_errno_kept(uint64_t where, off_t off, size_t len)
{
	ssize_t r;
	bool kept;

	errno = EDOM;
	r = pread(kfd, need(len), len, off);
	kept = errno == EDOM;
	report('W', where, len, r);
	if (r >= 0)
		fprintf(out, "W errno %s\n", kept ? "kept" : "changed");
}

/*
 * The same pread count times, between two stops a tracer counts between;
 * after one read that makes what a first read makes (the buffer learnt
 * writable).
 */
static void do_counted(uint64_t where, off_t off, size_t len, unsigned long long count)
{
	unsigned char *b = need(len);
	ssize_t r = pread(kfd, b, len, off);

	raise(SIGSTOP);
	for (unsigned long long i = 0; i < count && r == (ssize_t)len; i++)
		r = pread(kfd, b, len, off);
	raise(SIGSTOP);
	report('N', where, len, r);
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
		k = syscall(SYS_pread64, rfd, raw, len, off);
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
			else	/* NT_TASKSTRUCT holds this task: its size only */
				fprintf(out, "n %.*s type %u size %u %016" PRIx64 "\n",
					(int)strnlen((char *)p + sizeof(*nh), nh->n_namesz),
					(char *)p + sizeof(*nh), nh->n_type, nh->n_descsz,
					nh->n_type == NT_TASKSTRUCT ? 0 : fnv1a(d, nh->n_descsz));
			p = d + desc;
		}
	}
}

/* kcore has no mmap (kcore_proc_ops): EIO, the served file's too. */
static void do_mmap(void)
{
	void *p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, kfd, 0);
	int e = p == MAP_FAILED ? errno : 0;
	void *p64 = mmap64(NULL, 4096, PROT_READ, MAP_SHARED, kfd, 0);
	int e64 = p64 == MAP_FAILED ? errno : 0;

	fprintf(out, "m mmap %s mmap64 %s\n", e ? strerrorname_np(e) : "mapped",
		e64 ? strerrorname_np(e64) : "mapped");
	if (!e)
		munmap(p, 4096);
	if (!e64)
		munmap(p64, 4096);
}

static void do_headers(void)
{
	Elf64_Ehdr eh;
	struct stat st;

	if (pread(kfd, &eh, sizeof(eh), 0) != sizeof(eh) || fstat(kfd, &st))
		die("ELF header");
	fprintf(out, "H type %u machine %u phoff %#" PRIx64 " phnum %u flags %#x size %#jx mode %o\n",
		eh.e_type, eh.e_machine, eh.e_phoff, eh.e_phnum, eh.e_flags,
		(uintmax_t)st.st_size, st.st_mode);
	for (unsigned int i = 0; i < phnum; i++)
		fprintf(out, "H %u type %u flags %#x offset %#" PRIx64 " vaddr %#" PRIx64
			" paddr %#" PRIx64 " filesz %#" PRIx64 " memsz %#" PRIx64
			" align %#" PRIx64 "\n", i, ph[i].p_type, ph[i].p_flags,
			ph[i].p_offset, ph[i].p_vaddr, ph[i].p_paddr, ph[i].p_filesz,
			ph[i].p_memsz, ph[i].p_align);
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

/* How many fds and mappings of this process are /dev/kmem_ro. */
static void count_device(int *nfds, int *nmaps)
{
	char path[300], target[256], line[512];
	struct dirent *de;
	DIR *d = opendir("/proc/self/fd");
	FILE *f;

	*nfds = *nmaps = 0;
	if (!d)
		die("/proc/self/fd");
	while ((de = readdir(d))) {
		ssize_t n;

		snprintf(path, sizeof(path), "/proc/self/fd/%s", de->d_name);
		n = readlink(path, target, sizeof(target) - 1);
		if (n > 0) {
			target[n] = 0;
			*nfds += strstr(target, "kmem_ro") != NULL;
		}
	}
	closedir(d);
	f = fopen("/proc/self/maps", "re");
	if (!f)
		die("/proc/self/maps");
	while (fgets(line, sizeof(line), f))
		*nmaps += strstr(line, "kmem_ro") != NULL;
	fclose(f);
}

/* Whatever read /proc/kcore for us lets go of everything with its last fd. */
static void do_close_report(void)
{
	int nfds, nmaps;

	if (close(kfd))
		die("close");
	count_device(&nfds, &nmaps);
	fprintf(out, "C devfds %d maps %d\n", nfds, nmaps);
	open_kcore();
}

/* ---- I: reads cut short by a signal whose handler reads and jumps ---- */

#define CUT_READ_MAX	4096
#define CUT_HLEN	256
#define CUT_SECONDS	150

static sigjmp_buf cut_env;
static volatile sig_atomic_t cut_armed;	/* in a read the handler may leave */
static volatile sig_atomic_t cut_bad;	/* handler reads that were wrong */
static int cut_fd2 = -1;		/* a second kcore fd, the handler's */
static off_t cut_hoff;
static unsigned char cut_expect[CUT_HLEN];

static bool cut_same(const unsigned char *b, ssize_t r)
{
	return r == CUT_HLEN && !memcmp(b, cut_expect, CUT_HLEN);
}

/* pread, dup + pread + close, lseek + read, lseek: all on kcore fds. */
static void cut_handler(int sig)
{
	unsigned char b[CUT_HLEN];
	int saved = errno, d;

	(void)sig;
	if (!cut_same(b, pread(kfd, b, CUT_HLEN, cut_hoff)))
		cut_bad++;
	d = dup(kfd);
	if (d < 0 || !cut_same(b, pread(d, b, CUT_HLEN, cut_hoff)) || close(d))
		cut_bad++;
	if (lseek(cut_fd2, cut_hoff, SEEK_SET) != cut_hoff ||
	    !cut_same(b, read(cut_fd2, b, CUT_HLEN)) ||
	    lseek(cut_fd2, 0, SEEK_CUR) != cut_hoff + CUT_HLEN)
		cut_bad++;
	if (lseek(kfd, 0, SEEK_CUR) < 0)
		cut_bad++;
	errno = saved;
	if (cut_armed) {
		cut_armed = 0;
		siglongjmp(cut_env, 1);
	}
}

/*
 * Random preads and lseek + reads in three ranges (r[0..5]: start, end
 * each), each checked against the kernel's own answer (a raw system call),
 * while SIGALRM comes every millisecond, until n reads were cut short.
 */
static void do_cut(unsigned long n, const unsigned long long *r)
{
	struct itimerval it = { { 0, 1000 }, { 0, 1000 } };
	struct sigaction sa = { .sa_handler = cut_handler };
	static volatile unsigned long cuts, reads, bad;
	static uint64_t seed = 0x243f6a8885a308d3ULL;
	unsigned char *raw = malloc(CUT_READ_MAX);
	time_t t0 = time(NULL);

	cut_hoff = offset_of(r[0], CUT_HLEN);
	cut_fd2 = open(KCORE, O_RDONLY);
	if (!raw || cut_hoff < 0 || cut_fd2 < 0 ||
	    syscall(SYS_pread64, rfd, cut_expect, CUT_HLEN, cut_hoff) != CUT_HLEN)
		die("I setup");
	need(CUT_READ_MAX);
	cuts = reads = bad = 0;
	if (sigaction(SIGALRM, &sa, NULL) || setitimer(ITIMER_REAL, &it, NULL))
		die("I timer");
	while (cuts < n && time(NULL) - t0 < CUT_SECONDS) {
		unsigned int which;
		uint64_t start, end, addr;
		bool positioned;
		off_t off, pos = 0;
		ssize_t got, k;
		size_t len;

		if (sigsetjmp(cut_env, 1)) {
			cuts++;
			continue;
		}
		which = reads % 3;
		start = r[2 * which];
		end = r[2 * which + 1];
		addr = start + rnd_from(&seed) % (end - start);
		len = 1 + rnd_from(&seed) % CUT_READ_MAX;
		if (len > end - addr)
			len = end - addr;
		off = offset_of(addr, len);
		if (off < 0)
			die("I: no segment");
		positioned = reads % 2;
		if (positioned && lseek(kfd, off, SEEK_SET) != off)
			bad++;
		cut_armed = 1;
		got = positioned ? read(kfd, buf, len) : pread(kfd, buf, len, off);
		cut_armed = 0;
		if (positioned)
			pos = lseek(kfd, 0, SEEK_CUR);
		reads++;
		k = syscall(SYS_pread64, rfd, raw, len, off);
		if (got != (ssize_t)len || k != got || memcmp(buf, raw, len) ||
		    (positioned && pos != off + got))
			bad++;
	}
	it = (struct itimerval){ { 0, 0 }, { 0, 0 } };
	setitimer(ITIMER_REAL, &it, NULL);
	signal(SIGALRM, SIG_IGN);
	close(cut_fd2);
	free(raw);
	fprintf(stderr, "kcore_reader: I: %lu reads, %lu cut short, %lu wrong, handler %d wrong\n",
		reads, cuts, bad, (int)cut_bad);
	fprintf(out, "I %lu cut: %s, handler reads %s\n", n,
		cuts >= n ? "done" : "TIMED OUT", cut_bad ? "DIFFER" : "as-kcore");
	fprintf(out, "I reads %s\n", bad ? "DIFFER" : "as-kcore");
}

/* ---- F: fork, and both processes read on ---- */

#define FORK_TURNS	9
#define CHUNK		64

/* One step of the turn-taking, as the process that made it saw it. */
struct turn {
	int64_t before;		/* file position before, relative to the base */
	int64_t at;		/* where it read */
	int64_t after;
	int32_t len;
	int32_t ok;		/* the bytes were the kernel's, the position moved */
};

static void xwrite(int fd, const void *p, size_t n)
{
	const char *c = p;

	while (n) {
		ssize_t w = write(fd, c, n);

		if (w <= 0)
			die("pipe write");
		c += w;
		n -= (size_t)w;
	}
}

static void xread(int fd, void *p, size_t n)
{
	char *c = p;

	while (n) {
		ssize_t r = read(fd, c, n);

		if (r <= 0)
			die("pipe read");
		c += r;
		n -= (size_t)r;
	}
}

/*
 * Step i of the turns on the shared position: read, seek + read, set +
 * read; and a pread on the inherited fd.
 */
static struct turn fork_step(int i, off_t base, const unsigned char *raw, size_t len)
{
	struct turn t = { .len = 64 };
	off_t before = lseek(kfd, 0, SEEK_CUR), at = before, after;
	size_t o = 8192 + 64 * (size_t)i;
	unsigned char p[32];
	ssize_t r;

	if (pread(kfd, p, sizeof(p), base + (off_t)o) != sizeof(p) ||
	    memcmp(p, raw + o, sizeof(p))) {
		fprintf(stderr, "kcore_reader: F %d in %d: pread wrong\n", i, (int)getpid());
		return t;
	}

	if (i % 3 == 1) {
		at = lseek(kfd, 128, SEEK_CUR);
		t.len = 32;
	} else if (i % 3 == 2) {
		at = lseek(kfd, base + 4096 * i, SEEK_SET);
		t.len = 16;
	}
	r = read(kfd, need(t.len), t.len);
	after = lseek(kfd, 0, SEEK_CUR);
	t.before = before - base;
	t.at = at - base;
	t.after = after - base;
	t.ok = r == t.len && at >= base && (size_t)(at - base) + t.len <= len &&
	       !memcmp(buf, raw + (at - base), t.len) && after == at + r;
	if (!t.ok)
		fprintf(stderr, "kcore_reader: F %d in %d: at %+jd read %zd (%s), then %+jd\n",
			i, (int)getpid(), (intmax_t)(at - base), r, strerror(errno),
			(intmax_t)(after - base));
	return t;
}

static void print_turn(const char *who, int i, const struct turn *t)
{
	fprintf(out, "F %s %d: at %+jd read %d from %+jd, then at %+jd: %s\n", who, i,
		(intmax_t)t->before, t->len, (intmax_t)t->at, (intmax_t)t->after,
		t->ok ? "ok" : "WRONG");
}

/*
 * n preads at random places of the region, on a kcore fd of this
 * process's own, and n 64-byte read()s on the position the other process
 * moves too: hashes of what read() got in chunk[], the number of wrong
 * preads returned.  (Two processes' preads on one open kcore would race
 * in kcore itself: 6.12 copies through a bounce buffer per open file, and
 * only read() takes the file position's lock.)
 */
static unsigned long fork_bulk(unsigned long n, uint64_t seed, off_t base,
			       const unsigned char *raw, size_t len, uint64_t *chunk)
{
	unsigned char c[CHUNK];
	unsigned long bad = 0;
	int own = open(KCORE, O_RDONLY);

	if (own < 0)
		die(KCORE);
	for (unsigned long k = 0; k < n; k++) {
		size_t o = rnd_from(&seed) % len, l = 1 + rnd_from(&seed) % 64;

		if (l > len - o)
			l = len - o;
		ssize_t r = pread(own, need(l), l, base + (off_t)o);

		if (r != (ssize_t)l || memcmp(buf, raw + o, l)) {
			if (bad++ < 3)
				fprintf(stderr, "kcore_reader: F pread %lu in %d: %zu at +%zu: %zd\n",
					k, (int)getpid(), l, o, r);
		}
		chunk[k] = read(kfd, c, CHUNK) == CHUNK ? fnv1a(c, CHUNK) : 0;
	}
	close(own);
	return bad;
}

static int cmp_u64(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;

	return a < b ? -1 : a > b;
}

static void do_fork_read(unsigned long n, uint64_t addr, size_t len)
{
	int to_child[2], to_parent[2], status;
	off_t base = offset_of(addr, len), end;
	unsigned char *raw = malloc(len);
	uint64_t *chunk = calloc(2 * n, sizeof(*chunk)), *want;
	unsigned long bad[2];
	struct turn t;
	char tok = 't';
	pid_t pid;

	if (base < 0 || !raw || !chunk || 2 * n * CHUNK > len ||
	    syscall(SYS_pread64, rfd, raw, len, base) != (ssize_t)len ||
	    pipe(to_child) || pipe(to_parent) || lseek(kfd, base, SEEK_SET) != base)
		die("F setup");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		for (int i = 0; i < FORK_TURNS; i++) {
			xread(to_child[0], &tok, 1);
			t = fork_step(i, base, raw, len);
			xwrite(to_parent[1], &t, sizeof(t));
		}
		xread(to_child[0], &tok, 1);
		bad[1] = fork_bulk(n, 0x13198a2e03707344ULL, base, raw, len, chunk + n);
		xwrite(to_parent[1], &bad[1], sizeof(bad[1]));
		xwrite(to_parent[1], chunk + n, n * sizeof(*chunk));
		_exit(0);
	}
	for (int i = 0; i < FORK_TURNS; i++) {
		xwrite(to_child[1], &tok, 1);
		xread(to_parent[0], &t, sizeof(t));
		print_turn("child", i, &t);
		t = fork_step(i, base, raw, len);
		print_turn("parent", i, &t);
	}
	if (lseek(kfd, base, SEEK_SET) != base)
		die("F seek");
	xwrite(to_child[1], &tok, 1);
	bad[0] = fork_bulk(n, 0xa4093822299f31d0ULL, base, raw, len, chunk);
	xread(to_parent[0], &bad[1], sizeof(bad[1]));
	xread(to_parent[0], chunk + n, n * sizeof(*chunk));
	if (waitpid(pid, &status, 0) != pid || status)
		die("F child");
	end = lseek(kfd, 0, SEEK_CUR);
	close(to_child[0]);
	close(to_child[1]);
	close(to_parent[0]);
	close(to_parent[1]);

	/* Each chunk of the 2n read by exactly one of the two. */
	want = calloc(2 * n, sizeof(*want));
	if (!want)
		die("malloc");
	for (unsigned long k = 0; k < 2 * n; k++)
		want[k] = fnv1a(raw + k * CHUNK, CHUNK);
	qsort(want, 2 * n, sizeof(*want), cmp_u64);
	qsort(chunk, 2 * n, sizeof(*chunk), cmp_u64);
	for (unsigned long k = 0, shown = 0; k < 2 * n && shown < 3; k++)
		if (want[k] != chunk[k])
			fprintf(stderr, "kcore_reader: F chunks differ from sorted #%lu (%lu)\n",
				k, shown++);
	fprintf(out, "F %lu preads each: parent %s, child %s\n", n,
		bad[0] ? "WRONG" : "as-kcore", bad[1] ? "WRONG" : "as-kcore");
	fprintf(out, "F %lu reads each on one position: %s, position then %+jd\n", n,
		memcmp(want, chunk, 2 * n * sizeof(*want)) ? "WRONG" : "each chunk once",
		(intmax_t)(end - base));
	free(want);
	free(chunk);
	free(raw);
}

/* ---- E: buffers that are, or become, unwritable ---- */

static void report_efault(const char *what, uint64_t addr, ssize_t r, int err,
			  const unsigned char *b)
{
	fprintf(out, "E %s %#" PRIx64 " %zd %016" PRIx64 "\n", what, addr,
		r < 0 ? -err : r, r > 0 ? fnv1a(b, (size_t)r) : 0);
}

#define EFAULT_CASE(what, b, call)					\
	do {								\
		ssize_t r_ = (call);					\
		report_efault(what, addr, r_, errno, b);		\
	} while (0)

static void do_efault(uint64_t addr)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	off_t off = offset_of(addr, 64);
	unsigned char *b, *c;

	if (off < 0)
		die("E: no segment");
	b = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	c = mmap(NULL, pg, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (b == MAP_FAILED || c == MAP_FAILED)
		die("E: mmap");
	EFAULT_CASE("writable", b, pread(kfd, b, 64, off));
	EFAULT_CASE("never-writable", c, pread(kfd, c, 64, off));
	if (mprotect(b, 2 * pg, PROT_READ))
		die("mprotect");
	EFAULT_CASE("made-read-only", b, pread(kfd, b, 64, off));
	if (lseek(kfd, off, SEEK_SET) != off)
		die("E: lseek");
	EFAULT_CASE("read()-read-only", b, read(kfd, b, 64));
	fprintf(out, "E position then %+jd\n", (intmax_t)(lseek(kfd, 0, SEEK_CUR) - off));
	if (mprotect(b, pg, PROT_READ | PROT_WRITE))
		die("mprotect");
	EFAULT_CASE("straddling", NULL, pread(kfd, b + pg - 32, 64, off));
	EFAULT_CASE("writable-again", b, pread(kfd, b, 64, off));
	if (munmap(b + pg, pg))
		die("munmap");
	EFAULT_CASE("unmapped", NULL, pread(kfd, b + pg, 64, off));
	munmap(b, pg);
	munmap(c, pg);
}

/* ---- every way of reading: data or an error, never other bytes ---- */

/* Past the fd table the preload once had (1024): G dups here and above. */
#define HIGH_FD		2000

/* P: the vectored reads, split in two buffers. */
static void do_preadv(uint64_t addr, off_t off, size_t len)
{
	volatile int negative = -1;	/* not a constant: no compiler warning */
	static const int flags[] = { 0, RWF_HIPRI, RWF_NOWAIT };
	unsigned char *b = need(len);
	struct iovec iov[2] = { { b, len / 2 }, { b + len / 2, len - len / 2 } };

	report('P', addr, len, preadv(kfd, iov, 2, off));
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		fprintf(out, "P preadv2 flags %#x\n", flags[i]);
		report('P', addr, len, preadv2(kfd, iov, 2, off, flags[i]));
	}
	if (lseek(kfd, off, SEEK_SET) != off)
		die("P: lseek");
	report('P', addr, len, preadv2(kfd, iov, 2, -1, 0));
	fprintf(out, "P position then %+jd\n", (intmax_t)(lseek(kfd, 0, SEEK_CUR) - off));
	/* bad input: negative offsets, a negative count */
	fprintf(out, "P bad: preadv -2 %d, preadv2 -2 %d, count -1 %d\n",
		preadv(kfd, iov, 2, -2) < 0 ? -errno : 0,
		preadv2(kfd, iov, 2, -2, 0) < 0 ? -errno : 0,
		preadv(kfd, iov, negative, off) < 0 ? -errno : 0);
}

static int out_file(void)
{
	int fd = memfd_create("kcore_reader_out", MFD_CLOEXEC);

	if (fd < 0)
		die("memfd_create");
	return fd;
}

/* What a copy into ofd returned, the bytes it holds, how far the source moved. */
static void report_copy(char op, const char *how, uint64_t addr, size_t len,
			ssize_t r, int err, int ofd, off_t moved)
{
	ssize_t got = r > 0 ? pread(ofd, need(len), (size_t)r, 0) : 0;

	fprintf(out, "%c %s %#" PRIx64 " %zu %zd %016" PRIx64 " moved %+jd\n", op, how,
		addr, len, r < 0 ? -err : r, got > 0 ? fnv1a(buf, (size_t)got) : 0,
		(intmax_t)moved);
	close(ofd);
}

/* A copy's errno into ofd (0 if it copied), from offset 0 and from off. */
static void copy_bad(char op, const char *what, int ofd, off_t off, size_t len,
		     unsigned int flags)
{
	off_t o0 = 0, o1 = off;
	int e0, e1;

	e0 = (op == 'Y' ? sendfile(ofd, kfd, &o0, len) :
			  copy_file_range(kfd, &o0, ofd, NULL, len, flags)) < 0 ? errno : 0;
	e1 = (op == 'Y' ? sendfile(ofd, kfd, &o1, len) :
			  copy_file_range(kfd, &o1, ofd, NULL, len, flags)) < 0 ? errno : 0;
	fprintf(out, "%c bad: %s from 0 %d, from the address %d\n", op, what, -e0, -e1);
}

/* The outputs the calls refuse, and (Z) a flag. */
static void do_copy_bad(char op, off_t off, size_t len)
{
	int ro = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	int dir = open("/tmp", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int app = memfd_create("kcore_reader_append", MFD_CLOEXEC);
	int pfd[2];

	if (ro < 0 || dir < 0 || app < 0 || pipe2(pfd, O_CLOEXEC | O_NONBLOCK) ||
	    fcntl(app, F_SETFL, O_APPEND))
		die("Y/Z bad setup");
	copy_bad(op, "read-only", ro, off, len, 0);
	copy_bad(op, "directory", dir, off, len, 0);
	copy_bad(op, "appending", app, off, len, 0);
	copy_bad(op, "negative offset", app, -4096, len, 0);
	if (op == 'Z') {
		copy_bad(op, "pipe", pfd[1], off, len, 0);
		copy_bad(op, "flags", app, off, len, 1);
	}
	close(ro);
	close(dir);
	close(app);
	close(pfd[0]);
	close(pfd[1]);
}

/* Y and Z: sendfile() or copy_file_range() from an offset, then the position. */
static void do_copy(char op, uint64_t addr, off_t off, size_t len)
{
	int ofd = out_file();
	off_t o = off;
	ssize_t r;

	r = op == 'Y' ? sendfile(ofd, kfd, &o, len) :
			copy_file_range(kfd, &o, ofd, NULL, len, 0);
	report_copy(op, "offset", addr, len, r, errno, ofd, o - off);
	if (lseek(kfd, off, SEEK_SET) != off)
		die("Y/Z: lseek");
	ofd = out_file();
	r = op == 'Y' ? sendfile(ofd, kfd, NULL, len) :
			copy_file_range(kfd, NULL, ofd, NULL, len, 0);
	report_copy(op, "position", addr, len, r, errno, ofd,
		    lseek(kfd, 0, SEEK_CUR) - off);
	do_copy_bad(op, off, len);
}

/* G: fds past HIGH_FD name the file as kfd does. */
static void do_high_dups(uint64_t addr, off_t off, size_t len)
{
	struct rlimit rl;
	int fd;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_max < HIGH_FD + 16)
		die("G: fd limit");
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		die("G: setrlimit");
	fd = fcntl(kfd, F_DUPFD, HIGH_FD);
	fprintf(out, "G F_DUPFD %s\n", fd >= HIGH_FD ? "high" : "low");
	report('G', addr, len, pread(fd, need(len), len, off));
	close(fd);
	fd = dup2(kfd, HIGH_FD + 1);
	if (fd != HIGH_FD + 1 || lseek(fd, off, SEEK_SET) != off)
		die("G: dup2");
	report('G', addr, len, read(fd, need(len), len));
	fprintf(out, "G position of kfd then %+jd\n", (intmax_t)(lseek(kfd, 0, SEEK_CUR) - off));
	close(fd);
	fd = dup3(kfd, HIGH_FD + 2, O_CLOEXEC);
	if (fd != HIGH_FD + 2)
		die("G: dup3");
	report('G', addr, len, pread(fd, need(len), len, off));
	close(fd);
}

/* T: one size, whichever way it is asked. */
static void do_sizes(void)
{
	struct stat path, fd, at, at_fd;
	struct statx x_path, x_fd;

	if (stat(KCORE, &path) || fstat(kfd, &fd) ||
	    fstatat(AT_FDCWD, KCORE, &at, 0) || fstatat(kfd, "", &at_fd, AT_EMPTY_PATH) ||
	    statx(AT_FDCWD, KCORE, 0, STATX_SIZE, &x_path) ||
	    statx(kfd, "", AT_EMPTY_PATH, STATX_SIZE, &x_fd))
		die("T: stat");
	fprintf(out, "T size of the fd: stat() of the path %s, fstatat() %s, statx() %s, "
		"of the fd: fstatat() %s, statx() %s\n",
		path.st_size == fd.st_size ? "same" : "DIFFERS",
		at.st_size == fd.st_size ? "same" : "DIFFERS",
		(off_t)x_path.stx_size == fd.st_size ? "same" : "DIFFERS",
		at_fd.st_size == fd.st_size ? "same" : "DIFFERS",
		(off_t)x_fd.stx_size == fd.st_size ? "same" : "DIFFERS");
}

/* X: the program exec'd with kfd (not close-on-exec) reads it. */
static void do_exec_read(uint64_t addr, off_t off, size_t len)
{
	char sfd[16], soff[32], slen[32], line[128] = "";
	char *argv[] = { "kcore_reader", "--inherited", sfd, soff, slen, NULL };
	unsigned long long h = 0;
	ssize_t own = pread(kfd, need(len), len, off), r;
	uint64_t own_h = own > 0 ? fnv1a(buf, (size_t)own) : 0;
	long long got = 0;
	int pfd[2], status;
	pid_t pid;

	snprintf(sfd, sizeof(sfd), "%d", kfd);
	snprintf(soff, sizeof(soff), "%jd", (intmax_t)off);
	snprintf(slen, sizeof(slen), "%zu", len);
	if (own <= 0 || pipe2(pfd, O_CLOEXEC))
		die("X setup");
	fflush(out);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		if (dup2(pfd[1], 1) != 1)
			_exit(125);
		execv("/proc/self/exe", argv);
		_exit(126);
	}
	close(pfd[1]);
	r = read(pfd[0], line, sizeof(line) - 1);
	close(pfd[0]);
	if (r <= 0 || waitpid(pid, &status, 0) != pid || status ||
	    sscanf(line, "%lld %llx", &got, &h) != 2)
		die("X child");
	if (got < 0)
		fprintf(out, "X %#" PRIx64 " %zu exec'd program: error %lld\n", addr, len, got);
	else
		fprintf(out, "X %#" PRIx64 " %zu exec'd program: %s\n", addr, len,
			got == own && h == own_h ? "as-read" : "WRONG bytes");
}

/* --inherited FD OFF LEN: see the top. */
static int inherited(const char *sfd, const char *soff, const char *slen)
{
	size_t len = strtoul(slen, NULL, 0);
	ssize_t r = pread(atoi(sfd), need(len), len, strtoll(soff, NULL, 0));

	printf("%zd %016" PRIx64 "\n", r < 0 ? -errno : r, r > 0 ? fnv1a(buf, (size_t)r) : 0);
	return 0;
}

/* Up to 8 numbers (C syntax, the full 64-bit range) into v; how many. */
static int nums(const char *s, unsigned long long *v)
{
	char *end;
	int n;

	for (n = 0; n < 8; n++, s = end) {
		errno = 0;
		v[n] = strtoull(s, &end, 0);
		if (end == s || errno)
			break;
	}
	return n;
}

/* --cat: PATH to OUT, see the top; 0, or 1 on an error. */
static int cat(const char *how, const char *path, const char *to)
{
	bool stdio = !strcmp(how, "fopen");
	FILE *in = stdio ? fopen(path, "r") : NULL;
	int fd = stdio ? (in ? fileno(in) : -1) : open(path, O_RDONLY | O_CLOEXEC);
	FILE *o = fopen(to, "w");
	struct statfs sfs;
	char buf[65536];
	ssize_t n;
	size_t got;

	if (fd < 0 || !o || fstatfs(fd, &sfs)) {
		perror(path);
		return 1;
	}
	fprintf(o, "# %s\n", sfs.f_type == 0x9fa0 ? "procfs" : "other");	/* PROC_SUPER_MAGIC */
	if (stdio) {
		while ((got = fread(buf, 1, sizeof(buf), in)) > 0)
			fwrite(buf, 1, got, o);
		if (ferror(in))
			return 1;
		fclose(in);
	} else {
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			fwrite(buf, 1, (size_t)n, o);
		if (n < 0)
			return 1;
		close(fd);
	}
	return fclose(o) ? 1 : 0;
}

/* ---- K: a pread() that must act on a pending cancellation ---- */

struct cancel_read {
	off_t off;
	size_t len;
};

static void *cancel_reader(void *arg)
{
	const struct cancel_read *c = arg;

	/* deferred: pending until the next cancellation point, the pread */
	pthread_cancel(pthread_self());
	pread(kfd, need(c->len), c->len, c->off);
	return NULL;
}

static void do_cancel_read(uint64_t where, off_t off, size_t len)
{
	struct cancel_read c = { off, len };
	pthread_t t;
	void *ret;

	if (pthread_create(&t, NULL, cancel_reader, &c) || pthread_join(t, &ret))
		die("pthread");
	fprintf(out, "K %#jx %zu %s\n", (uintmax_t)where, len,
		ret == PTHREAD_CANCELED ? "cancelled" : "not-cancelled");
}

int main(int argc, char **argv)
{
	unsigned long long v[8], a, b;
	char line[512], path[256];
	FILE *spec;
	off_t off;
	int fd, n;

	if (argc == 5 && !strcmp(argv[1], "--cat"))
		return cat(argv[2], argv[3], argv[4]);
	if (argc == 5 && !strcmp(argv[1], "--inherited"))
		return inherited(argv[2], argv[3], argv[4]);
	if (argc != 3) {
		fprintf(stderr, "usage: kcore_reader SPEC OUT\n"
			"       kcore_reader --inherited FD OFF LEN\n"
			"       kcore_reader --cat fopen|open PATH OUT\n");
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
		case 'H':
			do_headers();
			break;
		case 'n':
			do_notes();
			break;
		case 'm':
			do_mmap();
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
		case 'C':
			do_close_report();
			break;
		case 'I':
			if (n != 7)
				goto bad;
			for (int i = 1; i < 7; i += 2)
				if (v[i + 1] <= v[i])
					goto bad;
			do_cut(v[0], v + 1);
			break;
		case 'F':
			if (n != 3 || !v[0] || !v[2])
				goto bad;
			do_fork_read(v[0], v[1], v[2]);
			break;
		case 'E':
			if (n < 1)
				goto bad;
			for (int i = 0; i < n; i++)
				do_efault(v[i]);
			break;
		case 'P':
		case 'Y':
		case 'Z':
		case 'G':
		case 'X':
		case 'K':
		case 'W':
			if (n != 2)
				goto bad;
			off = offset_of(a, b);
			if (off < 0)
				goto bad;
			if (line[0] == 'P')
				do_preadv(a, off, b);
			else if (line[0] == 'G')
				do_high_dups(a, off, b);
			else if (line[0] == 'X')
				do_exec_read(a, off, b);
			else if (line[0] == 'K')
				do_cancel_read(a, off, b);
			else if (line[0] == 'W')
				do_errno_kept(a, off, b);
			else
				do_copy(line[0], a, off, b);
			break;
		case 'N':
			if (n != 3)
				goto bad;
			off = offset_of(a, b);
			if (off < 0)
				goto bad;
			do_counted(a, off, b, v[2]);
			break;
		case 'T':
			do_sizes();
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
