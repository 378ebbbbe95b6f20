// SPDX-License-Identifier: GPL-2.0
/*
 * Memory going offline: every mapping of the block is revoked (the refused
 * page, never the old bytes, never a signal), whichever node, fd, process
 * or page size it came from; READV of its direct-map address gets EPERM;
 * once the block is back online it reads again.  The group boots with movablecore= so that blocks of
 * ZONE_MOVABLE can be offlined through sysfs.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vmtest.h"

#define PAGE		4096UL
#define PMD		(2UL << 20)
#define MEMORY_SYSFS	"/sys/devices/system/memory/"
#define ALT_NODE	"/tmp/kmem_ro_alt"
#define MAX_BLOCKS	64
#define RACERS		2
#define RACE_PAGES	16

struct block {
	int idx;
	uint64_t start;		/* physical */
	uint64_t size;
};

static char *read_attr(int idx, const char *attr, char *buf, size_t len)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), MEMORY_SYSFS "memory%d/%s", idx, attr);
	f = fopen(path, "re");
	if (!f)
		return NULL;
	if (!fgets(buf, (int)len, f))
		buf = NULL;
	fclose(f);
	if (buf)
		buf[strcspn(buf, "\n")] = 0;
	return buf;
}

/* echo @val > memoryN/state: 0 or the write's errno */
static int write_state(int idx, const char *val)
{
	char path[128];
	ssize_t n;
	int fd, err = 0;

	snprintf(path, sizeof(path), MEMORY_SYSFS "memory%d/state", idx);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	n = write(fd, val, strlen(val));
	if (n < 0)
		err = errno;
	close(fd);
	return err;
}

static uint64_t block_size(void)
{
	FILE *f = fopen(MEMORY_SYSFS "block_size_bytes", "re");
	unsigned long long size = 0;

	ck_assert_msg(f, MEMORY_SYSFS "block_size_bytes: %s (no CONFIG_MEMORY_HOTPLUG?)",
		      strerror(errno));
	ck_assert_int_eq(fscanf(f, "%llx", &size), 1);
	fclose(f);
	ck_assert_uint_ge(size, PMD);
	return size;
}

/*
 * Online blocks of ZONE_MOVABLE, lying wholly inside one System RAM range
 * as the driver reports it (a block with a hole cannot go offline).
 */
static int movable_blocks(int fd, struct block *out, int cap)
{
	struct kmem_ro_range ram[64];
	struct kmem_ro_info info;
	uint64_t size = block_size();
	struct dirent *d;
	char buf[64];
	int n = 0, idx;
	DIR *dir;

	ck_assert_int_eq(vt_info(fd, &info, ram, 64), 0);
	dir = opendir(MEMORY_SYSFS);
	ck_assert_ptr_nonnull(dir);
	while ((d = readdir(dir)) && n < cap) {
		bool inside = false;
		uint64_t start;

		if (sscanf(d->d_name, "memory%d", &idx) != 1)
			continue;
		if (!read_attr(idx, "state", buf, sizeof(buf)) || strcmp(buf, "online"))
			continue;
		if (!read_attr(idx, "valid_zones", buf, sizeof(buf)) || strcmp(buf, "Movable"))
			continue;
		start = (uint64_t)idx * size;
		for (unsigned int i = 0; i < info.ram_count && i < 64; i++)
			inside |= ram[i].start <= start && start + size <= ram[i].end;
		if (inside)
			out[n++] = (struct block){ idx, start, size };
	}
	closedir(dir);
	return n;
}

/*
 * Offline a block; busy pages are migrated away, which may take a few
 * tries.  Returns 0 or the last errno.
 */
static int offline_block(const struct block *b)
{
	char buf[32];
	int err = 0;

	for (int tries = 0; tries < 10; tries++) {
		err = write_state(b->idx, "offline");
		if (!err)
			break;
		usleep(100 * 1000);
	}
	if (!err)
		ck_assert_str_eq(read_attr(b->idx, "state", buf, sizeof(buf)), "offline");
	return err;
}

static void online_block(const struct block *b)
{
	char buf[32];
	int err = write_state(b->idx, "online_movable");

	if (err == EINVAL)
		err = write_state(b->idx, "online");
	ck_assert_msg(!err, "memory%d: online: %s", b->idx, strerror(err));
	ck_assert_str_eq(read_attr(b->idx, "state", buf, sizeof(buf)), "online");
}

/* Whatever a failed test left offline comes back online first. */
static void online_all(void)
{
	struct dirent *d;
	char buf[32];
	DIR *dir = opendir(MEMORY_SYSFS);
	int idx;

	if (!dir)
		return;
	while ((d = readdir(dir)))
		if (sscanf(d->d_name, "memory%d", &idx) == 1 &&
		    read_attr(idx, "state", buf, sizeof(buf)) && !strcmp(buf, "offline") &&
		    write_state(idx, "online_movable") == EINVAL)
			write_state(idx, "online");
	closedir(dir);
}

/* where KASLR put the kernel image: its blocks cannot go offline */
static const char *kernel_image(void)
{
	static char where[128] = "kernel image: ?";
	FILE *f = fopen("/proc/iomem", "re");
	unsigned long long s, e;
	char line[256];

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, " %llx-%llx : Kernel code", &s, &e) == 2 && strstr(line, "Kernel code"))
			snprintf(where, sizeof(where), "kernel code at 0x%llx", s);
	if (f)
		fclose(f);
	return where;
}

/* READV of one page: the segment's result */
static int64_t readv_page(int fd, uint64_t kaddr, void *buf)
{
	struct kmem_ro_iov iov = { .addr = kaddr, .len = PAGE, .buf = (uintptr_t)buf,
				   .result = 0x7777 };
	struct kmem_ro_readv rv = { .size = sizeof(rv), .iov_addr = (uintptr_t)&iov,
				    .iov_count = 1 };

	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_READV, &rv), 0);
	ck_assert_uint_eq(rv.done, 1);
	return iov.result;
}

/* a second device node, made by hand outside /dev: its own inode */
static int open_alt_node(void)
{
	struct stat st;
	int fd;

	ck_assert_int_eq(stat(KMEM_RO_DEVICE, &st), 0);
	unlink(ALT_NODE);
	ck_assert_int_eq(mknod(ALT_NODE, S_IFCHR | 0400, st.st_rdev), 0);
	fd = open(ALT_NODE, O_RDONLY | O_CLOEXEC);
	ck_assert_msg(fd >= 0, ALT_NODE ": %s", strerror(errno));
	ck_assert_int_eq(unlink(ALT_NODE), 0);
	return fd;
}

/* What probe() says of a page that reads as the driver's refused page. */
#define REFUSED		200

/* kmem_ro_info.mmap_refused, set by each test before it maps */
static uint64_t refused_pattern;

static void learn_pattern(int fd)
{
	struct kmem_ro_info info;

	ck_assert_int_eq(vt_info(fd, &info, NULL, 0), 0);
	ck_assert(info.features & KMEM_RO_FEAT_MMAP_REFUSED);
	refused_pattern = info.mmap_refused;
}

/* 0: the page reads; REFUSED: it is the refused page; else the signal. */
static int probe(const volatile char *p)
{
	const volatile uint64_t *w = (const volatile uint64_t *)((uintptr_t)p & ~(PAGE - 1));
	unsigned char v;
	int sig = vt_probe_read(p, &v);

	if (sig)
		return sig;
	return *w == refused_pattern ? REFUSED : 0;
}

/* A forked child holds a copy of the parent's mapping: touch on command. */
struct child {
	pid_t pid;
	int go[2];
};

static void child_start(struct child *c, const volatile char *p)
{
	ck_assert_int_eq(pipe(c->go), 0);
	c->pid = fork();
	ck_assert_int_ge(c->pid, 0);
	if (!c->pid) {
		char cmd;

		close(c->go[1]);
		if (read(c->go[0], &cmd, 1) != 1)
			_exit(90);
		_exit(probe(p));
	}
	close(c->go[0]);
}

/* the signal the child's touch raised (0: it read) */
static int child_touch(struct child *c)
{
	int status;

	ck_assert_int_eq(write(c->go[1], "t", 1), 1);
	close(c->go[1]);
	ck_assert_int_eq(waitpid(c->pid, &status, 0), c->pid);
	ck_assert(WIFEXITED(status));
	return WEXITSTATUS(status);
}

/*
 * One block offline and online, seen through: a page mapping from
 * /dev/kmem_ro, a whole-block mapping (4 KiB entries: RAM never goes
 * under a PMD, driver/mmap.c), a mapping through a second node, a fork's
 * copy, one made while offline, and READV of the direct map.
 */
START_TEST(offline_revokes_every_mapping)
{
	struct block blocks[MAX_BLOCKS], *b = NULL;
	volatile const char *page = NULL, *whole = NULL, *alt = NULL, *late;
	int fd = vt_open_dev(), alt_fd = open_alt_node(), n, err = 0;
	struct kmem_ro_info info;
	long long pte_before = 0, pte_after = 0;
	static char buf[PAGE];
	struct child child;
	uint64_t phys = 0, off;

	ck_assert_int_eq(vt_info(fd, &info, NULL, 0), 0);
	learn_pattern(fd);
	n = movable_blocks(fd, blocks, MAX_BLOCKS);
	ck_assert_msg(n > 0, "no online ZONE_MOVABLE block (movablecore= on the command line?)");
	/* the first block that goes offline; each is mapped and read first */

	for (int i = 0; i < n; i++) {
		b = &blocks[i];
		off = (b->size / 2 + 5 * PAGE) & ~(PAGE - 1);
		phys = b->start + off;
		page = vt_map_phys(fd, phys, PAGE);
		ck_assert_ptr_ne((void *)page, MAP_FAILED);
		alt = vt_map_phys(alt_fd, phys, PAGE);
		ck_assert_ptr_ne((void *)alt, MAP_FAILED);
		pte_before = vt_status_kb("VmPTE");
		whole = vt_map_phys(fd, b->start, b->size);
		ck_assert_ptr_ne((void *)whole, MAP_FAILED);
		ck_assert_int_eq(probe(page), 0);
		ck_assert_int_eq(probe(alt), 0);
		if (info.features & KMEM_RO_FEAT_MMAP_HUGE)
			ck_assert_uint_eq(((uintptr_t)whole - b->start) % PMD, 0);
		for (uint64_t o = 0; o < b->size; o += PMD)
			ck_assert_int_eq(probe(whole + o), 0);
		ck_assert_int_eq(probe(whole + off), 0);
		pte_after = vt_status_kb("VmPTE");
		ck_assert_int_eq(readv_page(fd, info.page_offset + phys, buf), PAGE);
		child_start(&child, whole + off);
		err = offline_block(b);
		if (!err)
			break;
		printf("hotplug: memory%d would not go offline: %s (%s)\n", b->idx,
		       strerror(err), kernel_image());
		ck_assert_int_eq(child_touch(&child), 0);
		munmap((void *)page, PAGE);
		munmap((void *)alt, PAGE);
		munmap((void *)whole, b->size);
	}
	ck_assert_msg(!err, "no movable block went offline (CONFIG_MEMORY_HOTREMOVE?)");
	printf("hotplug: memory%d [0x%" PRIx64 "+0x%" PRIx64 ") offline; whole-block map: VmPTE %+lld kB\n",
	       b->idx, b->start, b->size, pte_after - pte_before);
	/* one 4 KiB page-table page per 2 MiB touched: RAM is never a PMD */
	ck_assert_int_ge(pte_after - pte_before, (long long)(b->size / PMD) * 4);

	ck_assert_int_eq(probe(page), REFUSED);
	ck_assert_int_eq(probe(alt), REFUSED);
	for (uint64_t o = 0; o < b->size; o += PMD)
		ck_assert_int_eq(probe(whole + o), REFUSED);
	ck_assert_int_eq(probe(whole + off), REFUSED);
	ck_assert_int_eq(probe(whole + b->size - PAGE), REFUSED);
	ck_assert_int_eq(child_touch(&child), REFUSED);
	ck_assert_int_eq(readv_page(fd, info.page_offset + phys, buf), -EPERM);
	/* still System RAM in /proc/iomem, so mappable, but not readable */
	late = vt_map_phys(fd, b->start, b->size);
	ck_assert_ptr_ne((void *)late, MAP_FAILED);
	ck_assert_int_eq(probe(late + off), REFUSED);
	ck_assert_int_eq(probe(late), REFUSED);

	online_block(b);
	ck_assert_int_eq(probe(page), 0);
	ck_assert_int_eq(probe(alt), 0);
	for (uint64_t o = 0; o < b->size; o += PMD)
		ck_assert_int_eq(probe(whole + o), 0);
	ck_assert_int_eq(probe(whole + b->size - PAGE), 0);
	ck_assert_int_eq(probe(late + off), 0);
	ck_assert_int_eq(readv_page(fd, info.page_offset + phys, buf), PAGE);

	munmap((void *)late, b->size);
	munmap((void *)whole, b->size);
	munmap((void *)alt, PAGE);
	munmap((void *)page, PAGE);
	close(alt_fd);
	close(fd);
}
END_TEST

/*
 * Faults racing the offlining: children map the block afresh and touch
 * pages of it over and over while it goes offline.  Once the sysfs write
 * has returned, every page they touched last must be gone: an entry
 * inserted after the notifier's zap would still read.
 */
struct race {
	atomic_int stop;
	atomic_int ready;
};

static int racer(struct race *r, int fd, const struct block *b, unsigned int seed)
{
	uint64_t offs[RACE_PAGES];
	const volatile char *p = NULL;
	int bad = 0;

	atomic_fetch_add(&r->ready, 1);
	/* a failed test must not leave racers holding the module */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() == 1)
		return 92;
	do {
		if (p)
			munmap((void *)p, b->size);
		p = vt_map_phys(fd, b->start, b->size);
		if (p == MAP_FAILED)
			return 91;
		for (int i = 0; i < RACE_PAGES; i++) {
			offs[i] = (uint64_t)(rand_r(&seed) % (b->size / PAGE)) * PAGE;
			probe(p + offs[i]);	/* the refused page once offline */
		}
	} while (!atomic_load(&r->stop));
	for (int i = 0; i < RACE_PAGES; i++)
		if (probe(p + offs[i]) != REFUSED)
			bad++;
	return bad;
}

START_TEST(faults_racing_offline_are_revoked)
{
	struct block blocks[MAX_BLOCKS];
	int fd = vt_open_dev(), n, err = EBUSY, status, bad = 0;
	struct race *r;
	pid_t pids[RACERS];

	learn_pattern(fd);
	n = movable_blocks(fd, blocks, MAX_BLOCKS);
	ck_assert_msg(n > 0, "no online ZONE_MOVABLE block (movablecore= on the command line?)");
	r = mmap(NULL, sizeof(*r), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(r, MAP_FAILED);
	for (int i = 0; i < n && err; i++) {
		atomic_store(&r->stop, 0);
		atomic_store(&r->ready, 0);
		for (int k = 0; k < RACERS; k++) {
			pids[k] = fork();
			ck_assert_int_ge(pids[k], 0);
			if (!pids[k])
				_exit(racer(r, fd, &blocks[i], 1234 + k));
		}
		while (atomic_load(&r->ready) < RACERS)
			usleep(1000);
		err = offline_block(&blocks[i]);
		atomic_store(&r->stop, 1);
		for (int k = 0; k < RACERS; k++) {
			ck_assert_int_eq(waitpid(pids[k], &status, 0), pids[k]);
			ck_assert(WIFEXITED(status));
			if (!err)
				bad += WEXITSTATUS(status);
		}
		if (!err)
			online_block(&blocks[i]);
	}
	ck_assert_msg(!err, "no movable block went offline (CONFIG_MEMORY_HOTREMOVE?)");
	ck_assert_msg(!bad, "%d touched pages not the refused page after the block went offline",
		      bad);
	munmap(r, sizeof(*r));
	close(fd);
}
END_TEST

static Suite *hotplug_suite(void)
{
	Suite *s = suite_create("hotplug");
	TCase *tc = tcase_create("offline");

	/* RAM mappings: the opt-in */
	tcase_add_checked_fixture(tc, vt_mmap_ram_on, vt_mmap_ram_off);

	tcase_add_unchecked_fixture(tc, online_all, online_all);
	tcase_add_checked_fixture(tc, online_all, NULL);
	tcase_add_test(tc, offline_revokes_every_mapping);
	tcase_add_test(tc, faults_racing_offline_are_revoked);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return vt_main(hotplug_suite());
}
