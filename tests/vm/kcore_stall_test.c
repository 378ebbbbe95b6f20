// SPDX-License-Identifier: GPL-2.0
/*
 * A root /proc/kcore reader stalled in its own buffer must not stall the
 * device's users.  read_kcore_iter() (6.1, 6.12, 7.3) holds the read side
 * of page_offline_rwsem from its page checks through its copy to the
 * user's buffer, and a userfaultfd page nobody answers keeps it there.  A
 * device read that took the write side (page_offline_begin()) would wait
 * behind it, uninterruptibly, for as long as the buffer stalls.  Boot RAM
 * takes no global lock: while such a reader is stalled, a member's READV,
 * WALK and pread of boot RAM complete with the right bytes, and a member
 * process looping on them dies on SIGKILL.
 *
 * Waits are hang guards (GUARD_MS), not timing assertions: when one runs
 * out, the test says where the member sleeps, kills the kcore reader
 * (which releases the lock) and fails, instead of hanging the guest.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "vmtest.h"

#define PAGE		4096UL
#define LEN		64
#define GUARD_MS	60000
#define LOOPS_SEEN	3	/* iterations of the looping member before SIGKILL */

/* ---- the stalled kcore reader (root) ---- */

struct kcore_stall {
	pid_t pid;
	int returned;		/* readable once its pread() returned */
};

struct kcore_read {
	int kfd, done;
	void *buf;
	int64_t off;
};

static void *kcore_read_main(void *arg)
{
	struct kcore_read *r = arg;

	if (pread(r->kfd, r->buf, LEN, r->off) < 0)
		perror("kcore_stall: the stalled kcore pread");
	if (write(r->done, "r", 1) != 1)
		abort();
	return NULL;
}

/* The child: a thread pread()s kcore into a page nobody will ever fill. */
static void __attribute__((noreturn)) kcore_stall_child(int64_t off, int ready, int done)
{
	struct kcore_read r = { .done = done, .off = off };
	pthread_t t;
	int uffd;

	r.buf = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	r.kfd = open("/proc/kcore", O_RDONLY | O_CLOEXEC);
	if (r.buf == MAP_FAILED || r.kfd < 0)
		_exit(1);
	uffd = vt_uffd_missing(r.buf, PAGE);
	if (uffd < 0 || pthread_create(&t, NULL, kcore_read_main, &r))
		_exit(2);
	if (!vt_uffd_fault(uffd, GUARD_MS) || write(ready, "s", 1) != 1)
		_exit(3);
	for (;;)
		pause();
}

/* Start a root kcore pread() of @addr and wait until it is stalled in its copy out. */
static void kcore_stall_start(struct kcore_stall *k, uint64_t addr)
{
	int64_t off = vt_kcore_offset(addr);
	int ready[2], done[2];
	char c;

	ck_assert_msg(off >= 0, "%#llx is in no /proc/kcore segment", (unsigned long long)addr);
	ck_assert_int_eq(pipe2(ready, O_CLOEXEC), 0);
	ck_assert_int_eq(pipe2(done, O_CLOEXEC), 0);
	k->pid = fork();
	ck_assert_int_ge(k->pid, 0);
	if (k->pid == 0)
		kcore_stall_child(off, ready[1], done[1]);
	close(ready[1]);
	close(done[1]);
	ck_assert_msg(vt_wait_readable(ready[0], GUARD_MS) && read(ready[0], &c, 1) == 1,
		      "the kcore reader never faulted on its userfaultfd buffer");
	close(ready[0]);
	k->returned = done[0];
}

static bool kcore_still_stalled(const struct kcore_stall *k)
{
	return !vt_wait_readable(k->returned, 0);
}

/* Kill the kcore reader (its fault is never answered): the lock is free again. */
static void kcore_stall_end(struct kcore_stall *k)
{
	char state[512];
	int status;

	if (!k->pid)
		return;
	kill(k->pid, SIGKILL);
	if (vt_wait_child(k->pid, GUARD_MS, &status)) {
		vt_task_state(k->pid, state, sizeof(state));
		ck_abort_msg("the stalled kcore reader survives SIGKILL: %s", state);
	}
	ck_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	close(k->returned);
	k->pid = 0;
}

/* ---- what the member reads: boot RAM, with known bytes ---- */

struct targets {
	uint64_t ram;			/* direct map of a page of ours */
	char ram_bytes[LEN];
	uint64_t text;			/* the kernel image: arithmetic, no page tables */
	char text_bytes[LEN];
	uint64_t head, link_off, id_off;	/* testobj's kmalloc()ed list */
	unsigned int nodes;
	char *page;
};

static void targets_init(struct targets *t)
{
	int fd = vt_open_dev();
	struct kmem_ro_info info;

	ck_assert_int_eq(vt_info(fd, &info, NULL, 0), 0);
	close(fd);
	t->page = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE | MAP_LOCKED, -1, 0);
	ck_assert_ptr_ne(t->page, MAP_FAILED);
	for (size_t i = 0; i < PAGE; i++)
		t->page[i] = (char)(i * 11 + 3);
	memcpy(t->ram_bytes, t->page, LEN);
	t->ram = info.page_offset + vt_pagemap_pfn(t->page) * PAGE;
	t->text = info.text_start + 3 * PAGE;
	ck_assert_int_eq(vt_kcore_read(t->text, t->text_bytes, LEN), 0);
	t->head = vt_testobj("good_head");
	t->link_off = vt_testobj("link_offset");
	t->id_off = vt_testobj("id_offset");
	t->nodes = vt_testobj("nodes");
	/* as the udev rule would hand the node to the group */
	ck_assert_int_eq(chown(KMEM_RO_DEVICE, 0, MONITOR_GID), 0);
	ck_assert_int_eq(chmod(KMEM_RO_DEVICE, 0440), 0);
}

static void targets_fini(struct targets *t)
{
	ck_assert_int_eq(chown(KMEM_RO_DEVICE, 0, 0), 0);
	munmap(t->page, PAGE);
}

enum op { OP_READV_RAM, OP_READV_TEXT, OP_WALK, OP_PREAD_RAM, OP_PREAD_TEXT, NOPS };

static const char *const op_names[NOPS] = {
	"READV of boot RAM", "READV of the kernel image", "WALK of a kmalloc()ed list",
	"pread of boot RAM", "pread of the kernel image",
};

/* One read as the member: 0 if it gave the right answer, else what it gave. */
static long member_op(int fd, const struct targets *t, enum op op, unsigned int max_nodes)
{
	static uint32_t ids[1024];
	char buf[LEN];
	struct kmem_ro_iov iov = { .len = LEN, .buf = (uintptr_t)buf, .result = 0x7777 };
	struct kmem_ro_readv rv = {
		.size = sizeof(rv), .iov_addr = (uintptr_t)&iov, .iov_count = 1,
	};
	struct kmem_ro_field field = { (uint32_t)t->id_off, 4 };
	struct kmem_ro_walk w = {
		.size = sizeof(w), .head = t->head, .link_offset = t->link_off,
		.fields_addr = (uintptr_t)&field, .fields_count = 1, .max_nodes = max_nodes,
		.buf_addr = (uintptr_t)ids, .buf_size = sizeof(ids),
	};
	const char *want = op == OP_READV_TEXT || op == OP_PREAD_TEXT ? t->text_bytes :
			   t->ram_bytes;
	uint64_t addr = want == t->text_bytes ? t->text : t->ram;
	ssize_t r;

	memset(buf, 0, sizeof(buf));
	switch (op) {
	case OP_READV_RAM:
	case OP_READV_TEXT:
		iov.addr = addr;
		if (ioctl(fd, KMEM_RO_IOC_READV, &rv))
			return -errno;
		if (iov.result != LEN)
			return iov.result;
		break;
	case OP_WALK: {
		unsigned int want_nodes = max_nodes ? max_nodes : t->nodes;

		if (ioctl(fd, KMEM_RO_IOC_WALK, &w))
			return -errno;
		if (w.nodes != want_nodes)
			return 1000000 + w.nodes;
		for (unsigned int i = 0; i < w.nodes; i++)
			if (ids[i] != i)
				return 2000000 + i;
		return 0;
	}
	case OP_PREAD_RAM:
	case OP_PREAD_TEXT:
		r = pread(fd, buf, LEN, KMEM_RO_READ_OFFSET(addr));
		if (r < 0)
			return -errno;
		if (r != LEN)
			return r;
		break;
	default:
		return -EINVAL;
	}
	return memcmp(buf, want, LEN) ? 3000000 : 0;
}

struct report {
	int op;
	long err;
};

/* The member: each op once, a report after each. */
static void __attribute__((noreturn)) member_once(const struct targets *t, int out)
{
	int fd = open(KMEM_RO_DEVICE, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		_exit(1);
	for (int op = 0; op < NOPS; op++) {
		struct report r = { op, member_op(fd, t, op, 0) };

		if (write(out, &r, sizeof(r)) != sizeof(r))
			_exit(2);
	}
	_exit(0);
}

static pid_t fork_member(void)
{
	static const gid_t groups[] = { MONITOR_GID };
	pid_t pid = vt_fork_as(MEMBER_UID, MEMBER_UID, groups, 1);

	ck_assert_int_ge(pid, 0);
	return pid;
}

/*
 * The member's process did not go on: say where it sleeps, let the kcore
 * reader go (which frees the lock), reap the member, and fail.
 */
static void __attribute__((noreturn)) stuck(struct kcore_stall *k, pid_t member,
					    const char *what)
{
	char state[512];
	bool stalled = kcore_still_stalled(k);
	int status, gone;

	vt_task_state(member, state, sizeof(state));
	kcore_stall_end(k);
	kill(member, SIGKILL);
	gone = !vt_wait_child(member, GUARD_MS, &status);
	ck_abort_msg("%s within %d s while a root /proc/kcore reader was stalled in a "
		     "userfaultfd buffer (%s); member: %s; it %s once the kcore reader was killed",
		     what, GUARD_MS / 1000, stalled ? "still stalled" : "it had returned", state,
		     gone ? "ended" : "still did not end");
}

START_TEST(member_reads_complete_while_kcore_is_stalled)
{
	struct kcore_stall k;
	struct targets t;
	struct report r;
	char what[128];
	int pipefd[2], status;
	pid_t member;

	targets_init(&t);
	kcore_stall_start(&k, t.ram);
	ck_assert_int_eq(pipe2(pipefd, O_CLOEXEC), 0);
	member = fork_member();
	if (member == 0)
		member_once(&t, pipefd[1]);
	close(pipefd[1]);
	for (int op = 0; op < NOPS; op++) {
		if (!vt_wait_readable(pipefd[0], GUARD_MS)) {
			snprintf(what, sizeof(what), "the member's %s did not complete",
				 op_names[op]);
			stuck(&k, member, what);
		}
		ck_assert_int_eq(read(pipefd[0], &r, sizeof(r)), sizeof(r));
		ck_assert_int_eq(r.op, op);
		ck_assert_msg(!r.err, "the member's %s while kcore was stalled: %ld", op_names[op],
			      r.err);
		printf("kcore_stall: the member's %s completed\n", op_names[op]);
	}
	ck_assert_int_eq(vt_wait_child(member, GUARD_MS, &status), 0);
	ck_assert_msg(WIFEXITED(status) && !WEXITSTATUS(status), "member: status %#x", status);
	/* the reads really ran beside a stalled kcore reader */
	ck_assert_msg(kcore_still_stalled(&k), "the kcore reader was not stalled throughout");
	kcore_stall_end(&k);
	close(pipefd[0]);
	targets_fini(&t);
}
END_TEST

/* The member loops on every kind of read until killed; *loops counts rounds. */
static void __attribute__((noreturn)) member_loop(const struct targets *t,
						  _Atomic unsigned long *loops,
						  _Atomic long *err)
{
	int fd = open(KMEM_RO_DEVICE, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		_exit(1);
	for (;;) {
		for (int op = 0; op < NOPS; op++) {
			long e = member_op(fd, t, op, op == OP_WALK ? 16 : 0);

			if (e)
				atomic_store(err, e);
		}
		atomic_fetch_add(loops, 1);
	}
}

START_TEST(looping_member_dies_on_sigkill_while_kcore_is_stalled)
{
	struct { _Atomic unsigned long loops; _Atomic long err; } *sh;
	struct kcore_stall k;
	struct targets t;
	struct timespec ms = { 0, 1000000 };
	char state[512] = "";
	unsigned long seen;
	int status;
	pid_t member;

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(sh, MAP_FAILED);
	targets_init(&t);
	kcore_stall_start(&k, t.ram);
	member = fork_member();
	if (member == 0)
		member_loop(&t, &sh->loops, &sh->err);
	/* hang guard: GUARD_MS of 1 ms naps */
	for (int i = 0; i < GUARD_MS && atomic_load(&sh->loops) < LOOPS_SEEN; i++)
		nanosleep(&ms, NULL);
	seen = atomic_load(&sh->loops);
	if (seen < LOOPS_SEEN)
		vt_task_state(member, state, sizeof(state));
	ck_assert_int_eq(kill(member, SIGKILL), 0);
	if (vt_wait_child(member, GUARD_MS, &status))
		stuck(&k, member, "the looping member did not die on SIGKILL");
	ck_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	ck_assert_msg(seen >= LOOPS_SEEN, "the looping member made %lu rounds in %d s while kcore "
		      "was stalled (%s)", seen, GUARD_MS / 1000, state);
	ck_assert_msg(!atomic_load(&sh->err), "the looping member read wrong: %ld",
		      (long)atomic_load(&sh->err));
	printf("kcore_stall: the looping member made %lu rounds, then died on SIGKILL\n", seen);
	ck_assert_msg(kcore_still_stalled(&k), "the kcore reader was not stalled throughout");
	kcore_stall_end(&k);
	targets_fini(&t);
	munmap(sh, sizeof(*sh));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("kcore_stall");
	TCase *tc = tcase_create("member_beside_stalled_kcore");

	tcase_add_test(tc, member_reads_complete_while_kcore_is_stalled);
	tcase_add_test(tc, looping_member_dies_on_sigkill_while_kcore_is_stalled);
	suite_add_tcase(s, tc);
	return vt_main(s);
}
