// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>
#include <inttypes.h>
#include <linux/capability.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/klog.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vmtest.h"

int vt_open_dev(void)
{
	int fd = open(KMEM_RO_DEVICE, O_RDONLY | O_CLOEXEC);

	ck_assert_msg(fd >= 0, "open %s: %s", KMEM_RO_DEVICE, strerror(errno));
	return fd;
}

int vt_ioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? -errno : 0;
}

int vt_info(int fd, struct kmem_ro_info *info, struct kmem_ro_range *ram,
	    unsigned int cap)
{
	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	info->ram_addr = (uintptr_t)ram;
	info->ram_cap = cap;
	return vt_ioctl(fd, KMEM_RO_IOC_INFO, info);
}

int vt_ksym_split(char *line, uint64_t *addr, char *type, char **name, char **mod)
{
	uint64_t a = 0;
	char *p, *e;

	for (p = line;; p++) {
		char c = *p;

		if (c >= '0' && c <= '9')
			a = a << 4 | (uint64_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			a = a << 4 | (uint64_t)(c - 'a' + 10);
		else
			break;
	}
	if (p == line || p[0] != ' ' || !p[1] || p[2] != ' ')
		return 0;
	*type = p[1];
	p += 3;
	e = p + strcspn(p, " \t\n");
	if (e == p)
		return 0;
	*mod = NULL;
	if (e[0] == '\t' && e[1] == '[') {
		*mod = e + 2;
		(*mod)[strcspn(*mod, "]\n")] = '\0';
	}
	*e = '\0';
	*addr = a;
	*name = p;
	return 1;
}

void vt_kallsyms_many(const char *const *names, uint64_t *addrs, int n)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512], type, *sym, *mod, *found = calloc(n + 1, 1);
	uint64_t addr;
	int left = n;

	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(found);
	for (int i = 0; i < n; i++)
		addrs[i] = 0;
	while (left && fgets(line, sizeof(line), f)) {
		if (!vt_ksym_split(line, &addr, &type, &sym, &mod))
			continue;
		for (int i = 0; i < n; i++)
			if (!found[i] && !strcmp(sym, names[i])) {	/* the first line of it */
				found[i] = 1;
				addrs[i] = addr;
				left--;
			}
	}
	fclose(f);
	free(found);
}

uint64_t vt_kallsyms(const char *name)
{
	uint64_t addr;

	vt_kallsyms_many(&name, &addr, 1);
	return addr;
}

int vt_iomem_ram(struct kmem_ro_range *out, int cap)
{
	FILE *f = fopen("/proc/iomem", "re");
	char line[256];
	uint64_t start, end;
	int n = 0, pos;

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		/* top level only: children are indented */
		if (line[0] == ' ')
			continue;
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " : %n", &start, &end, &pos) < 2)
			continue;
		if (strcmp(line + pos, "System RAM\n"))
			continue;
		if (n < cap) {
			out[n].start = start;
			out[n].end = end + 1;
		}
		n++;
	}
	fclose(f);
	return n;
}

static int kcore_phdrs(int fd, Elf64_Phdr **phdrs)
{
	Elf64_Ehdr eh;
	size_t sz;

	ck_assert_int_eq(pread(fd, &eh, sizeof(eh), 0), sizeof(eh));
	ck_assert_int_eq(memcmp(eh.e_ident, ELFMAG, SELFMAG), 0);
	sz = (size_t)eh.e_phnum * sizeof(Elf64_Phdr);
	*phdrs = malloc(sz);
	ck_assert_ptr_nonnull(*phdrs);
	ck_assert_int_eq(pread(fd, *phdrs, sz, eh.e_phoff), (ssize_t)sz);
	return eh.e_phnum;
}

static const Elf64_Phdr *kcore_find(const Elf64_Phdr *ph, int n, uint64_t vaddr)
{
	for (int i = 0; i < n; i++)
		if (ph[i].p_type == PT_LOAD && vaddr >= ph[i].p_vaddr &&
		    vaddr - ph[i].p_vaddr < ph[i].p_memsz)
			return &ph[i];
	return NULL;
}

int vt_kcore_segment(uint64_t vaddr, uint64_t *seg_vaddr, uint64_t *seg_paddr)
{
	int fd = open("/proc/kcore", O_RDONLY | O_CLOEXEC);
	const Elf64_Phdr *seg;
	Elf64_Phdr *ph;
	int n, err = -ENOENT;

	ck_assert_int_ge(fd, 0);
	n = kcore_phdrs(fd, &ph);
	seg = kcore_find(ph, n, vaddr);
	if (seg) {
		*seg_vaddr = seg->p_vaddr;
		*seg_paddr = seg->p_paddr;
		err = 0;
	}
	free(ph);
	close(fd);
	return err;
}

int vt_kcore_read(uint64_t addr, void *buf, size_t len)
{
	int fd = open("/proc/kcore", O_RDONLY | O_CLOEXEC);
	const Elf64_Phdr *seg;
	Elf64_Phdr *ph;
	int n, err = -ENOENT;

	ck_assert_int_ge(fd, 0);
	n = kcore_phdrs(fd, &ph);
	seg = kcore_find(ph, n, addr);
	if (seg)
		err = pread(fd, buf, len, seg->p_offset + (addr - seg->p_vaddr)) ==
		      (ssize_t)len ? 0 : -EIO;
	free(ph);
	close(fd);
	return err;
}

int64_t vt_kcore_offset(uint64_t vaddr)
{
	int fd = open("/proc/kcore", O_RDONLY | O_CLOEXEC);
	const Elf64_Phdr *seg;
	Elf64_Phdr *ph;
	int64_t off = -1;
	int n;

	ck_assert_int_ge(fd, 0);
	n = kcore_phdrs(fd, &ph);
	seg = kcore_find(ph, n, vaddr);
	if (seg)
		off = seg->p_offset + (vaddr - seg->p_vaddr);
	free(ph);
	close(fd);
	return off;
}

void vt_write_file(const char *path, const char *val)
{
	FILE *f = fopen(path, "we");

	ck_assert_msg(f, "%s: %s", path, strerror(errno));
	ck_assert_int_gt(fputs(val, f), 0);
	ck_assert_int_eq(fclose(f), 0);
}

/* "Key:  N kB" lines, as in /proc/meminfo and /proc/self/status */
static long long key_value(const char *path, const char *key)
{
	FILE *f = fopen(path, "re");
	char line[256];
	size_t klen = strlen(key);
	long long val = -1;

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, klen) && line[klen] == ':') {
			val = strtoll(line + klen + 1, NULL, 10);
			break;
		}
	fclose(f);
	return val;
}

long long vt_meminfo(const char *key)
{
	return key_value("/proc/meminfo", key);
}

int vt_dmesg_count(const char *needle)
{
	int len = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0);
	char *buf, *line, *save = NULL;
	int n = 0;

	ck_assert_int_gt(len, 0);
	buf = malloc(len + 1);
	ck_assert_ptr_nonnull(buf);
	len = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, len);
	ck_assert_int_ge(len, 0);
	buf[len] = '\0';
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		n += strstr(line, needle) != NULL;
	free(buf);
	return n;
}

static int drop_capability(int cap)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];

	if (syscall(SYS_capget, &hdr, data))
		return -1;
	data[cap / 32].effective &= ~(1u << (cap % 32));
	data[cap / 32].permitted &= ~(1u << (cap % 32));
	return syscall(SYS_capset, &hdr, data);
}

int vt_run_as(uid_t uid, gid_t gid, int drop_cap, int (*fn)(void *), void *arg)
{
	return vt_run_as_groups(uid, gid, NULL, 0, drop_cap, fn, arg);
}

int vt_run_as_groups(uid_t uid, gid_t gid, const gid_t *groups, int ngroups,
		     int drop_cap, int (*fn)(void *), void *arg)
{
	pid_t pid = fork();
	int status;

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		if (setgroups(ngroups, groups) || setgid(gid) || setuid(uid))
			_exit(100);
		if (drop_cap >= 0 && drop_capability(drop_cap))
			_exit(101);
		_exit(fn(arg));
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	return WEXITSTATUS(status);
}

int vt_open_errno(const char *path, int flags)
{
	int fd = open(path, flags | O_CLOEXEC);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

uint64_t vt_pagemap_pfn(const void *addr)
{
	int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	long page = sysconf(_SC_PAGESIZE);
	uint64_t entry = 0;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pread(fd, &entry, sizeof(entry),
			       (uintptr_t)addr / page * sizeof(entry)), sizeof(entry));
	close(fd);
	ck_assert_msg(entry >> 63, "page not present");
	ck_assert_msg(entry & ((1ULL << 55) - 1), "pagemap hides PFNs");
	return entry & ((1ULL << 55) - 1);
}

static sigjmp_buf probe_jmp;

static void probe_handler(int sig)
{
	siglongjmp(probe_jmp, sig);
}

int vt_probe_read(const volatile void *p, unsigned char *val)
{
	struct sigaction sa = { .sa_handler = probe_handler }, old_bus, old_segv;
	int sig;

	sigaction(SIGBUS, &sa, &old_bus);
	sigaction(SIGSEGV, &sa, &old_segv);
	sig = sigsetjmp(probe_jmp, 1);
	if (!sig)
		*val = *(const volatile unsigned char *)p;
	sigaction(SIGBUS, &old_bus, NULL);
	sigaction(SIGSEGV, &old_segv, NULL);
	return sig;
}

uint64_t vt_hwpoison_page(void)
{
	uint64_t pfn = 0, flags = 0;
	int pfd[2], kfd, status;
	pid_t pid;

	ck_assert_int_eq(pipe(pfd), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			_exit(1);
		memset(p, 0x5a, 4096);
		pfn = vt_pagemap_pfn(p);
		if (write(pfd[1], &pfn, sizeof(pfn)) != sizeof(pfn))
			_exit(1);
		_exit(madvise(p, 4096, MADV_HWPOISON) ? 2 : 0);
	}
	close(pfd[1]);
	ck_assert_int_eq(read(pfd[0], &pfn, sizeof(pfn)), sizeof(pfn));
	close(pfd[0]);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	/* 6.12 kills the owner at once (SIGBUS), 6.1 on its next touch */
	ck_assert_msg((WIFEXITED(status) && !WEXITSTATUS(status)) ||
		      (WIFSIGNALED(status) && WTERMSIG(status) == SIGBUS),
		      "MADV_HWPOISON failed: %#x", status);
	kfd = open("/proc/kpageflags", O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(kfd, 0);
	ck_assert_int_eq(pread(kfd, &flags, 8, pfn * 8), 8);
	close(kfd);
	ck_assert_msg(flags & (1ULL << 19), "PFN %#llx not KPF_HWPOISON",
		      (unsigned long long)pfn);
	return pfn;
}

long long vt_status_kb(const char *key)
{
	return key_value("/proc/self/status", key);
}

#define MMAP_RAM_PARAM	"/sys/module/kmem_ro/parameters/mmap_ram"

void vt_mmap_ram_on(void)
{
	vt_write_file(MMAP_RAM_PARAM, "1");
}

void vt_mmap_ram_off(void)
{
	vt_write_file(MMAP_RAM_PARAM, "0");
}

void *vt_map_phys(int fd, uint64_t phys, size_t len)
{
	return mmap(NULL, len, PROT_READ, MAP_SHARED, fd, (off_t)phys);
}

uint64_t vt_testobj(const char *name)
{
	FILE *f = fopen("/sys/kernel/debug/kmem_ro_testobj", "re");
	char key[64], val[64];
	int found = 0;

	ck_assert_msg(f, "kmem_ro_testobj not loaded: %s", strerror(errno));
	while (!found && fscanf(f, "%63s %63s", key, val) == 2)
		found = !strcmp(key, name);
	fclose(f);
	ck_assert_msg(found, "kmem_ro_testobj has no %s", name);
	return strtoull(val, NULL, 0);
}

int vt_module_load(const char *path, const char *params)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;

	ck_assert_msg(fd >= 0, "%s: %s", path, strerror(errno));
	err = syscall(SYS_finit_module, fd, params, 0) ? -errno : 0;
	close(fd);
	return err;
}

int vt_module_unload(const char *name)
{
	return syscall(SYS_delete_module, name, O_NONBLOCK) ? -errno : 0;
}

int vt_module_refcnt(const char *name)
{
	char path[128];
	FILE *f;
	int n = -1;

	snprintf(path, sizeof(path), "/sys/module/%s/refcnt", name);
	f = fopen(path, "re");
	if (!f)
		return -1;
	if (fscanf(f, "%d", &n) != 1)
		n = -1;
	fclose(f);
	return n;
}

int vt_wait_node(void)
{
	struct stat st;

	for (int i = 0; i < 2000; i++) {
		if (!stat(KMEM_RO_DEVICE, &st))
			return 0;
		usleep(1000);
	}
	return -ENOENT;
}

int vt_file_has(const char *path, const char *needle)
{
	FILE *f = fopen(path, "re");
	char line[512];
	int found = 0;

	if (!f)
		return -1;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, needle) != NULL;
	fclose(f);
	return found;
}

static void slurp(FILE *f, char *buf, size_t sz)
{
	size_t n;

	rewind(f);
	n = fread(buf, 1, sz - 1, f);
	buf[n] = '\0';
	fclose(f);
}

int vt_exec(uid_t uid, gid_t gid, char *const argv[], char *out, size_t outsz,
	    char *err, size_t errsz)
{
	return vt_exec_groups(uid, gid, NULL, 0, argv, out, outsz, err, errsz);
}

int vt_exec_groups(uid_t uid, gid_t gid, const gid_t *groups, int ngroups,
		   char *const argv[], char *out, size_t outsz, char *err,
		   size_t errsz)
{
	FILE *fout = tmpfile(), *ferr = tmpfile();
	int status;
	pid_t pid;

	ck_assert(fout && ferr);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		if (setgroups(ngroups, groups) || setgid(gid) || setuid(uid))
			_exit(100);
		dup2(fileno(fout), STDOUT_FILENO);
		dup2(fileno(ferr), STDERR_FILENO);
		execvp(argv[0], argv);
		_exit(127);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	slurp(fout, out, outsz);
	slurp(ferr, err, errsz);
	return WEXITSTATUS(status);
}

int vt_run_as_monitor(int (*fn)(void *), void *arg)
{
	int status;

	ck_assert_int_eq(chown(KMEM_RO_DEVICE, 0, MONITOR_GID), 0);
	status = vt_run_as(NOBODY, MONITOR_GID, -1, fn, arg);
	ck_assert_int_eq(chown(KMEM_RO_DEVICE, 0, 0), 0);
	return status;
}

char *vt_slurp(const char *path, size_t *len)
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
	if (len)
		*len = n;
	return buf;
}

long long vt_json_num(const char *json, const char *key)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = strstr(json, pat);
	return p ? strtoll(p + strlen(pat), NULL, 10) : -1;
}

uint32_t vt_after_fentry(uint64_t func)
{
	unsigned char code[5];

	ck_assert_int_eq(vt_kcore_read(func, code, sizeof(code)), 0);
	/*
	 * The fentry site (a NOP5; a call while traced, int3 while being
	 * patched) comes first, or after 4 bytes on IBT kernels: ENDBR64, or
	 * the NOP that sealing puts in its place at boot (its encoding
	 * changed across kernel versions).
	 */
	return !memcmp(code, "\x0f\x1f\x44\x00\x00", 5) || code[0] == 0xe8 || code[0] == 0xcc ?
	       5 : 9;
}

void vt_probe_spec(struct kmem_ro_probe_spec *s, const char *name, uint64_t addr,
		   uint32_t offset, uint32_t flags)
{
	memset(s, 0, sizeof(*s));
	s->addr = addr;
	s->offset = offset;
	s->flags = flags;
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->result = 0x7777;
}

unsigned int vt_text_probe_specs(struct kmem_ro_probe_spec *s, unsigned int max)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512], *name, *mod, type;
	uint64_t addr;
	unsigned int n = 0;

	ck_assert_ptr_nonnull(f);
	while (n < max && fgets(line, sizeof(line), f))
		if (vt_ksym_split(line, &addr, &type, &name, &mod) && !mod &&
		    (type == 't' || type == 'T') && strlen(name) < KMEM_RO_PROBE_NAME_LEN)
			vt_probe_spec(&s[n++], name, addr, 0, 0);
	fclose(f);
	return n;
}

int vt_probe_add(int fd, struct kmem_ro_probe_spec *s, unsigned int n, unsigned int *added)
{
	struct kmem_ro_probe_add a = { .size = sizeof(a), .specs_addr = (uintptr_t)s, .count = n };
	int err = vt_ioctl(fd, KMEM_RO_IOC_PROBE_ADD, &a);

	if (added)
		*added = a.added;
	return err;
}

uint64_t vt_probe_hits(int fd, uint64_t id)
{
	uint64_t count = ~0ULL;

	ck_assert_int_eq(vt_probe_ids(fd, KMEM_RO_IOC_PROBE_STATS, 0, &id, 1, &count, NULL), 0);
	return count;
}

void vt_call_getppid(long n)
{
	for (long i = 0; i < n; i++)
		syscall(SYS_getppid);
}

int vt_probe_ids(int fd, unsigned long cmd, uint64_t flags, uint64_t *ids, unsigned int n,
		 uint64_t *counts, unsigned int *done)
{
	struct kmem_ro_probe_ids a = {
		.size = sizeof(a), .flags = flags, .ids_addr = (uintptr_t)ids, .count = n,
		.counts_addr = (uintptr_t)counts,
	};
	int err;

	if (counts)	/* by ids: one count per id */
		a.counts_cap = flags & KMEM_RO_PROBE_ALL ? 1 << 16 : n;
	err = vt_ioctl(fd, cmd, &a);
	if (done)
		*done = a.done;
	return err;
}

int vt_count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

int vt_kernel_at_least(int major, int minor)
{
	struct utsname u;
	int ma, mi;

	ck_assert_int_eq(uname(&u), 0);
	ck_assert_int_eq(sscanf(u.release, "%d.%d", &ma, &mi), 2);
	return ma > major || (ma == major && mi >= minor);
}

pid_t vt_fork_as(uid_t uid, gid_t gid, const gid_t *groups, int ngroups)
{
	pid_t pid = fork();

	if (pid == 0 && (setgroups(ngroups, groups) || setgid(gid) || setuid(uid)))
		_exit(100);
	return pid;
}

int vt_wait_readable(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int n;

	do
		n = poll(&p, 1, ms);	/* a signal restarts the whole wait: only longer */
	while (n < 0 && errno == EINTR);
	return n == 1;
}

int vt_wait_child(pid_t pid, int ms, int *status)
{
	int pidfd = syscall(SYS_pidfd_open, pid, 0), ready;

	ck_assert_msg(pidfd >= 0, "pidfd_open(%d): %s", (int)pid, strerror(errno));
	ready = vt_wait_readable(pidfd, ms);
	close(pidfd);
	if (!ready)
		return -ETIMEDOUT;
	ck_assert_int_eq(waitpid(pid, status, 0), pid);
	return 0;
}

int vt_uffd_missing(void *addr, size_t len)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = {
		.range = { .start = (uintptr_t)addr, .len = len },
		.mode = UFFDIO_REGISTER_MODE_MISSING,
	};
	int uffd = syscall(SYS_userfaultfd, O_CLOEXEC), err;

	if (uffd < 0)
		return -errno;
	if (ioctl(uffd, UFFDIO_API, &api) || ioctl(uffd, UFFDIO_REGISTER, &reg)) {
		err = -errno;
		close(uffd);
		return err;
	}
	return uffd;
}

uint64_t vt_uffd_fault(int uffd, int ms)
{
	struct uffd_msg msg;

	if (!vt_wait_readable(uffd, ms) || read(uffd, &msg, sizeof(msg)) != sizeof(msg) ||
	    msg.event != UFFD_EVENT_PAGEFAULT)
		return 0;
	return msg.arg.pagefault.address;
}

int vt_uffd_copy(int uffd, void *dst, const void *src, size_t len)
{
	struct uffdio_copy copy = {
		.dst = (uintptr_t)dst, .src = (uintptr_t)src, .len = len,
	};

	return ioctl(uffd, UFFDIO_COPY, &copy) ? -errno : 0;
}

void vt_task_state(pid_t pid, char *out, size_t outsz)
{
	char path[64], stat[512] = "", wchan[128] = "", stack[512] = "", *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((f = fopen(path, "re"))) {
		n = fread(stat, 1, sizeof(stat) - 1, f);
		stat[n] = '\0';
		fclose(f);
	}
	snprintf(path, sizeof(path), "/proc/%d/wchan", (int)pid);
	if ((f = fopen(path, "re"))) {
		n = fread(wchan, 1, sizeof(wchan) - 1, f);
		wchan[n] = '\0';
		fclose(f);
	}
	snprintf(path, sizeof(path), "/proc/%d/stack", (int)pid);
	if ((f = fopen(path, "re"))) {
		n = fread(stack, 1, sizeof(stack) - 1, f);
		stack[n] = '\0';
		fclose(f);
	}
	for (p = stack; *p; p++)
		if (*p == '\n')
			*p = ' ';
	p = strrchr(stat, ')');		/* the comm may hold anything */
	snprintf(out, outsz, "state %c, wchan %s, stack: %s", p && p[1] && p[2] ? p[2] : '?',
		 wchan[0] ? wchan : "?", stack[0] ? stack : "?");
}

int vt_main(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
