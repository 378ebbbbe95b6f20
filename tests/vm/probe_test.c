// SPDX-License-Identifier: GPL-2.0
/*
 * Probes: exact hit counts through both backends, a per-entry errno for
 * each bad spec without failing the batch, bulk add of every function,
 * every function enabled at once (the callback's own callees among them),
 * no kprobe where the optimizer would read unmapped memory,
 * nothing left behind when the owner closes or dies, storms from several
 * threads, probes of an unloaded module marked gone (and out of ftrace),
 * and the argument and privilege rules.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "vmtest.h"

#define HOT	"__x64_sys_getppid"
#define FTRACE_LIST	"/sys/kernel/tracing/enabled_functions"
#define KPROBE_LIST	"/sys/kernel/debug/kprobes/list"
#define OUR_CALLBACK	"kmem_ro_probe_ftrace"
#define CALLS	1000

static uint64_t hits(int fd, uint64_t id)
{
	uint64_t count = ~0ULL;

	ck_assert_int_eq(vt_probe_ids(fd, KMEM_RO_IOC_PROBE_STATS, 0, &id, 1, &count, NULL), 0);
	return count;
}

static void call_getppid(int n)
{
	for (int i = 0; i < n; i++)
		syscall(SYS_getppid);
}

START_TEST(exact_counts_both_backends)
{
	uint64_t addr = vt_kallsyms(HOT), ids[2];
	struct kmem_ro_probe_spec s[2];
	int fd = vt_open_dev();

	ck_assert_uint_ne(addr, 0);
	vt_probe_spec(&s[0], HOT, addr, 0, 0);				/* ftrace, disabled */
	vt_probe_spec(&s[1], HOT, addr, vt_after_fentry(addr), 0);		/* kprobe, disabled */
	ck_assert_int_eq(vt_probe_add(fd, s, 2, NULL), 0);
	ck_assert_int_gt(s[0].result, 0);
	ck_assert_int_gt(s[1].result, 0);
	ids[0] = s[0].result;
	ids[1] = s[1].result;
	call_getppid(CALLS);
	ck_assert_uint_eq(hits(fd, ids[0]), 0);			/* added disabled */
	ck_assert_uint_eq(hits(fd, ids[1]), 0);
	ck_assert_int_eq(vt_probe_ids(fd, KMEM_RO_IOC_PROBE_ENABLE, 0, ids, 2, NULL, NULL), 0);
	call_getppid(CALLS);
	ck_assert_uint_eq(hits(fd, ids[0]), CALLS);
	ck_assert_uint_eq(hits(fd, ids[1]), CALLS);
	ck_assert_int_eq(vt_probe_ids(fd, KMEM_RO_IOC_PROBE_DISABLE, KMEM_RO_PROBE_ALL, NULL, 0, NULL, NULL), 0);
	call_getppid(CALLS);
	ck_assert_uint_eq(hits(fd, ids[0]), CALLS);
	ck_assert_uint_eq(hits(fd, ids[1]), CALLS);
	/* reset */
	{
		uint64_t counts[2];

		ck_assert_int_eq(vt_probe_ids(fd, KMEM_RO_IOC_PROBE_STATS, KMEM_RO_PROBE_RESET, ids, 2,
					  counts, NULL), 0);
		ck_assert_uint_eq(counts[0], CALLS);
		ck_assert_uint_eq(hits(fd, ids[0]), 0);
	}
	/* an id named twice is acted on once */
	{
		uint64_t twice[3] = { ids[0], ids[1], ids[0] };
		unsigned int done;

		ck_assert_int_eq(vt_probe_ids(fd, KMEM_RO_IOC_PROBE_ENABLE, 0, twice, 3, NULL, &done), 0);
		ck_assert_uint_eq(done, 2);
		ck_assert_int_eq(vt_probe_ids(fd, KMEM_RO_IOC_PROBE_DEL, 0, twice, 3, NULL, &done), 0);
		ck_assert_uint_eq(done, 2);
		ck_assert_int_eq(vt_probe_ids(fd, KMEM_RO_IOC_PROBE_DEL, 0, twice, 1, NULL, NULL), -ENOENT);
	}
	close(fd);
}
END_TEST

START_TEST(per_entry_errors)
{
	uint64_t hot = vt_kallsyms(HOT), noinstr = vt_kallsyms("do_syscall_64");
	struct kmem_ro_probe_spec s[7];
	unsigned int added;
	int fd = vt_open_dev();

	vt_probe_spec(&s[0], HOT, hot, 0, KMEM_RO_PROBE_ENABLED);	/* good */
	vt_probe_spec(&s[1], HOT, hot + 2, 0, 0);			/* not a function start */
	vt_probe_spec(&s[2], "do_syscall_64", noinstr, 0, 0);		/* noinstr: not traceable */
	vt_probe_spec(&s[3], HOT, hot, 0, 0);				/* duplicate */
	vt_probe_spec(&s[4], HOT, hot, 1 << 20, 0);			/* past the function */
	vt_probe_spec(&s[5], HOT, hot, 1, 0);				/* inside an instruction */
	vt_probe_spec(&s[6], "do_syscall_64", noinstr, 1, 0);		/* kprobe blacklist */
	ck_assert_int_eq(vt_probe_add(fd, s, 7, &added), 0);
	ck_assert_uint_eq(added, 1);
	ck_assert_int_gt(s[0].result, 0);
	ck_assert_int_eq(s[1].result, -ENOENT);
	ck_assert_int_eq(s[2].result, -EOPNOTSUPP);
	ck_assert_int_eq(s[3].result, -EEXIST);
	ck_assert_int_eq(s[4].result, -EINVAL);
	ck_assert_int_eq(s[5].result, -EINVAL);
	ck_assert_int_eq(s[6].result, -EOPNOTSUPP);
	call_getppid(10);
	ck_assert_uint_eq(hits(fd, s[0].result), 10);		/* the batch still works */
	close(fd);
}
END_TEST

/* READV of one byte at @addr: its result, 1 or -errno. */
static int64_t read_byte(int fd, uint64_t addr)
{
	unsigned char b;
	struct kmem_ro_iov iov = { .addr = addr, .len = 1, .buf = (uintptr_t)&b };
	struct kmem_ro_readv rv = { .size = sizeof(rv), .iov_addr = (uintptr_t)&iov,
				    .iov_count = 1 };

	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_READV, &rv), 0);
	return iov.result;
}

/*
 * The kprobe optimizer decodes a whole function as kallsyms sizes it.  The
 * last text function of a module runs, on 6.12, up to unmapped memory: a
 * kprobe inside it oopsed register_kprobe() (found by fuzz_test).  On 6.1
 * the module's rodata follows its text: nothing to refuse there.
 */
START_TEST(kprobe_in_function_running_into_unmapped)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	unsigned long long addr, last = 0, next = ~0ULL, page;
	char line[512], name[256], lastname[256] = "", type;
	struct kmem_ro_probe_spec s;
	int fd = vt_open_dev();

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) == 3 &&
		    strstr(line, "[kmem_ro_testobj]") && (type == 't' || type == 'T') &&
		    addr > last) {
			last = addr;
			snprintf(lastname, sizeof(lastname), "%s", name);
		}
	rewind(f);
	while (fgets(line, sizeof(line), f))	/* any symbol after it bounds it */
		if (sscanf(line, "%llx", &addr) == 1 && addr > last && addr < next)
			next = addr;
	fclose(f);
	ck_assert_uint_ne(last, 0);
	for (page = (last | 4095) + 1; page < next && read_byte(fd, page) == 1; page += 4096)
		;
	vt_probe_spec(&s, lastname, last, vt_after_fentry(last), 0);
	ck_assert_int_eq(vt_probe_add(fd, &s, 1, NULL), 0);
	if (page < next)
		ck_assert_int_eq(s.result, -EOPNOTSUPP);
	else
		ck_assert(s.result > 0 || s.result == -EINVAL || s.result == -EOPNOTSUPP);
	close(fd);
}
END_TEST

/* Entry probes on the first 64k vmlinux text symbols, in kallsyms order. */
static unsigned int every_function(struct kmem_ro_probe_spec *s, uint32_t flags)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	unsigned long long addr;
	char line[512], name[256], type, mod[64];
	unsigned int n = 0;

	ck_assert_ptr_nonnull(f);
	while (n < (1 << 16) && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s %63s", &addr, &type, name, mod) == 3 &&
		    (type == 't' || type == 'T') && strlen(name) < KMEM_RO_PROBE_NAME_LEN)
			vt_probe_spec(&s[n++], name, addr, 0, flags);
	fclose(f);
	ck_assert_uint_gt(n, 10000);
	return n;
}

START_TEST(bulk_add_every_function)
{
	struct kmem_ro_probe_spec *s = calloc(1 << 16, sizeof(*s));
	unsigned int n, added, other = 0;
	struct kmem_ro_probe_list l = { .size = sizeof(l) };
	time_t t0;
	int fd = vt_open_dev();

	n = every_function(s, 0);
	t0 = time(NULL);
	ck_assert_int_eq(vt_probe_add(fd, s, n, &added), 0);
	printf("probe: %u of %u vmlinux text symbols probe-able, added in %lds\n",
	       added, n, (long)(time(NULL) - t0));
	ck_assert_uint_gt(added, n / 4);
	for (unsigned int i = 0; i < n; i++)
		if (s[i].result <= 0 && s[i].result != -EOPNOTSUPP && s[i].result != -EEXIST &&
		    s[i].result != -ENOENT && other++ < 5)
			fprintf(stderr, "probe: %s: %lld\n", s[i].name, (long long)s[i].result);
	ck_assert_uint_eq(other, 0);
	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_PROBE_LIST, &l), 0);
	ck_assert_uint_eq(l.count, added);
	ck_assert_int_eq(vt_probe_ids(fd, KMEM_RO_IOC_PROBE_DEL, KMEM_RO_PROBE_ALL, NULL, 0, NULL, NULL), 0);
	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_PROBE_LIST, &l), 0);
	ck_assert_uint_eq(l.count, 0);
	free(s);
	close(fd);
}
END_TEST

START_TEST(owner_death_removes_everything)
{
	uint64_t addr = vt_kallsyms(HOT);
	int pipefd[2], status;
	pid_t pid;
	char c;

	ck_assert_int_eq(pipe(pipefd), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		struct kmem_ro_probe_spec s[2];
		int fd = open(KMEM_RO_DEVICE, O_RDONLY);

		vt_probe_spec(&s[0], HOT, addr, 0, KMEM_RO_PROBE_ENABLED);
		vt_probe_spec(&s[1], HOT, addr, vt_after_fentry(addr), KMEM_RO_PROBE_ENABLED);
		close(pipefd[0]);
		if (fd < 0 || vt_probe_add(fd, s, 2, NULL) || s[0].result <= 0 || s[1].result <= 0) {
			fprintf(stderr, "probe: child: fd %d results %lld %lld\n", fd,
				(long long)s[0].result, (long long)s[1].result);
			_exit(1);
		}
		write(pipefd[1], "x", 1);
		pause();
		_exit(0);
	}
	close(pipefd[1]);	/* a child that dies early ends the read */
	ck_assert_int_eq(read(pipefd[0], &c, 1), 1);
	/* kallsyms may name an alias (__do_sys_getppid): look for what is ours */
	ck_assert_int_eq(vt_file_has(FTRACE_LIST, OUR_CALLBACK), 1);
	ck_assert_int_eq(vt_file_has(KPROBE_LIST, "getppid+0x"), 1);
	kill(pid, SIGKILL);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_int_eq(vt_file_has(FTRACE_LIST, OUR_CALLBACK), 0);
	ck_assert_int_eq(vt_file_has(KPROBE_LIST, "getppid+0x"), 0);
}
END_TEST

/* One probe of this file, as LIST shows it. */
static void probe_info(int fd, uint64_t id, struct kmem_ro_probe_info *out)
{
	struct kmem_ro_probe_info info[8];
	struct kmem_ro_probe_list l = { .size = sizeof(l), .buf_addr = (uintptr_t)info, .cap = 8 };

	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_PROBE_LIST, &l), 0);
	for (unsigned int i = 0; i < l.count && i < 8; i++)
		if (info[i].id == id) {
			*out = info[i];
			return;
		}
	ck_abort_msg("probe %llu not listed", (unsigned long long)id);
}

/* Each read of testobj's debugfs file runs testobj_show() once. */
static void read_testobj(int times)
{
	for (int i = 0; i < times; i++)
		vt_testobj("nodes");
}

#define GONE_OR_ON	(KMEM_RO_PROBE_GONE | KMEM_RO_PROBE_ENABLED)

START_TEST(module_unload_leaves_probes_gone)
{
	uint64_t show = vt_kallsyms("testobj_show"), hot = vt_kallsyms(HOT), ids[3], before;
	struct kmem_ro_probe_spec s[3];
	struct kmem_ro_probe_info info;
	int fd = vt_open_dev();

	ck_assert_uint_ne(show, 0);
	vt_probe_spec(&s[0], "testobj_show", show, 0, KMEM_RO_PROBE_ENABLED);
	vt_probe_spec(&s[1], "testobj_show", show, vt_after_fentry(show), KMEM_RO_PROBE_ENABLED);
	vt_probe_spec(&s[2], HOT, hot, 0, KMEM_RO_PROBE_ENABLED);
	ck_assert_int_eq(vt_probe_add(fd, s, 3, NULL), 0);
	for (int i = 0; i < 3; i++) {
		ck_assert_int_gt(s[i].result, 0);
		ids[i] = s[i].result;
	}
	read_testobj(3);
	ck_assert_uint_eq(hits(fd, ids[0]), 3);
	ck_assert_uint_eq(hits(fd, ids[1]), 3);
	ck_assert_int_eq(vt_file_has(FTRACE_LIST, "testobj_show"), 1);

	/* probes do not pin the module; they go with it, counts kept */
	ck_assert_int_eq(vt_module_unload("kmem_ro_testobj"), 0);
	ck_assert_int_eq(vt_file_has(FTRACE_LIST, "testobj_show"), 0);
	for (int i = 0; i < 2; i++) {
		probe_info(fd, ids[i], &info);
		ck_assert_uint_eq(info.flags & GONE_OR_ON, KMEM_RO_PROBE_GONE);
		ck_assert_uint_eq(info.hits, 3);
	}
	probe_info(fd, ids[2], &info);
	ck_assert_uint_eq(info.flags & GONE_OR_ON, KMEM_RO_PROBE_ENABLED);

	/* bulk calls over gone probes work; ENABLE passes them by */
	ck_assert_int_eq(vt_probe_ids(fd, KMEM_RO_IOC_PROBE_ENABLE, KMEM_RO_PROBE_ALL, NULL, 0,
				      NULL, NULL), 0);
	ck_assert_int_eq(vt_probe_ids(fd, KMEM_RO_IOC_PROBE_DISABLE, 0, ids, 3, NULL, NULL), 0);
	ck_assert_int_eq(vt_probe_ids(fd, KMEM_RO_IOC_PROBE_ENABLE, 0, ids, 3, NULL, NULL), 0);
	probe_info(fd, ids[0], &info);
	ck_assert_uint_eq(info.flags & GONE_OR_ON, KMEM_RO_PROBE_GONE);
	before = hits(fd, ids[2]);
	call_getppid(10);
	ck_assert_uint_eq(hits(fd, ids[2]) - before, 10);
	vt_probe_spec(&s[0], "testobj_show", show, 0, 0);	/* nothing there now */
	ck_assert_int_eq(vt_probe_add(fd, s, 1, NULL), 0);
	ck_assert_int_eq(s[0].result, -ENOENT);

	/* the module back, maybe at the same address: gone stays gone */
	ck_assert_int_eq(vt_module_load(VMTEST_TESTOBJ_PATH, ""), 0);
	show = vt_kallsyms("testobj_show");
	read_testobj(2);
	ck_assert_uint_eq(hits(fd, ids[0]), 3);
	ck_assert_uint_eq(hits(fd, ids[1]), 3);
	ck_assert_int_eq(vt_file_has(FTRACE_LIST, "testobj_show"), 0);
	/* and a new probe may go where a gone one was */
	vt_probe_spec(&s[0], "testobj_show", show, 0, KMEM_RO_PROBE_ENABLED);
	ck_assert_int_eq(vt_probe_add(fd, s, 1, NULL), 0);
	ck_assert_int_gt(s[0].result, 0);
	read_testobj(1);
	ck_assert_uint_eq(hits(fd, s[0].result), 1);
	ck_assert_int_eq(vt_probe_ids(fd, KMEM_RO_IOC_PROBE_DEL, KMEM_RO_PROBE_ALL, NULL, 0,
				      NULL, NULL), 0);
	ck_assert_int_eq(vt_file_has(FTRACE_LIST, "testobj_show"), 0);
	ck_assert_int_eq(vt_file_has(KPROBE_LIST, "testobj_show"), 0);
	close(fd);
}
END_TEST

struct storm {
	int fd;
	uint64_t addr;
	int rounds, failures;
};

static void *storm_thread(void *arg)
{
	struct storm *st = arg;

	for (int i = 0; i < st->rounds; i++) {
		struct kmem_ro_probe_spec s[2];
		uint64_t ids[2];
		int n = 0;

		vt_probe_spec(&s[0], HOT, st->addr, 0, KMEM_RO_PROBE_ENABLED);
		vt_probe_spec(&s[1], HOT, st->addr, vt_after_fentry(st->addr), KMEM_RO_PROBE_ENABLED);
		if (vt_probe_add(st->fd, s, 2, NULL))
			st->failures++;
		for (int j = 0; j < 2; j++)
			if (s[j].result > 0)
				ids[n++] = s[j].result;
		call_getppid(5);
		if (n && vt_probe_ids(st->fd, KMEM_RO_IOC_PROBE_DEL, 0, ids, n, NULL, NULL))
			st->failures++;
	}
	return NULL;
}

START_TEST(add_del_storm)
{
	struct storm st[4];
	pthread_t t[4];
	int shared = vt_open_dev();

	for (int i = 0; i < 4; i++) {
		/* two threads share an fd (EEXIST races), two have their own */
		st[i] = (struct storm){ i < 2 ? shared : vt_open_dev(), vt_kallsyms(HOT), 20, 0 };
		ck_assert_int_eq(pthread_create(&t[i], NULL, storm_thread, &st[i]), 0);
	}
	for (int i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		ck_assert_int_eq(st[i].failures, 0);
		if (i >= 2)
			close(st[i].fd);
	}
	close(shared);
	ck_assert_int_eq(vt_file_has(FTRACE_LIST, OUR_CALLBACK), 0);
	ck_assert_int_eq(vt_file_has(KPROBE_LIST, "getppid+0x"), 0);
}
END_TEST

/* ---- privileges and bad input ---- */

static int add_as_user(void *unused)
{
	struct kmem_ro_probe_spec s;
	struct kmem_ro_probe_list l = { .size = sizeof(l) };
	int fd = open(KMEM_RO_DEVICE, O_RDONLY);

	(void)unused;
	if (fd < 0)
		return 100;
	vt_probe_spec(&s, HOT, vt_kallsyms(HOT), 0, 0);
	if (vt_probe_add(fd, &s, 1, NULL) != -EPERM)
		return 101;
	return vt_ioctl(fd, KMEM_RO_IOC_PROBE_LIST, &l) ? 102 : 0;	/* reading is fine */
}

START_TEST(unprivileged_add_is_eperm)
{
	ck_assert_int_eq(vt_run_as_monitor(add_as_user, NULL), 0);
}
END_TEST

START_TEST(bad_input)
{
	struct kmem_ro_probe_spec s;
	struct kmem_ro_probe_add a;
	uint64_t ids[1] = { 12345 }, counts[1];
	unsigned int done;
	int fd = vt_open_dev();

	vt_probe_spec(&s, HOT, vt_kallsyms(HOT), 0, 0);
#define ADD(errno_, stmt) do {							\
		a = (struct kmem_ro_probe_add){ .size = sizeof(a),		\
			.specs_addr = (uintptr_t)&s, .count = 1 };		\
		stmt;								\
		ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_PROBE_ADD, &a), errno_); \
	} while (0)
	ADD(-EINVAL, a.flags = 1);
	ADD(-EINVAL, a.reserved[0] = 1);
	ADD(-EINVAL, a.count = 0);
	ADD(-EINVAL, a.specs_addr = 0);
	ADD(-E2BIG, a.count = KMEM_RO_PROBE_MAX_BATCH + 1);
	ADD(-EFAULT, a.specs_addr = 0x10);
	ADD(-EINVAL, a.size = KMEM_RO_PROBE_ADD_SIZE_VER0 - 8);
#undef ADD
	vt_probe_spec(&s, HOT, vt_kallsyms(HOT), 0, 4);			/* unknown spec flag */
	ck_assert_int_eq(vt_probe_add(fd, &s, 1, NULL), 0);
	ck_assert_int_eq(s.result, -EINVAL);
	memset(s.name, 'x', sizeof(s.name));			/* no NUL */
	ck_assert_int_eq(vt_probe_add(fd, &s, 1, NULL), 0);
	ck_assert_int_eq(s.result, -EINVAL);

	ck_assert_int_eq(vt_probe_ids(fd, KMEM_RO_IOC_PROBE_ENABLE, 0, ids, 1, NULL, &done), -ENOENT);
	ck_assert_int_eq(vt_probe_ids(fd, KMEM_RO_IOC_PROBE_ENABLE, KMEM_RO_PROBE_ALL, ids, 1, NULL, NULL), -EINVAL);
	ck_assert_int_eq(vt_probe_ids(fd, KMEM_RO_IOC_PROBE_ENABLE, 0, NULL, 0, NULL, NULL), -EINVAL);
	ck_assert_int_eq(vt_probe_ids(fd, KMEM_RO_IOC_PROBE_ENABLE, KMEM_RO_PROBE_RESET, ids, 1, NULL, NULL), -EINVAL);
	ck_assert_int_eq(vt_probe_ids(fd, KMEM_RO_IOC_PROBE_STATS, 0, ids, 1, NULL, NULL), -EINVAL);
	ck_assert_int_eq(vt_probe_ids(fd, KMEM_RO_IOC_PROBE_DEL, 0, ids, 1, counts, NULL), -EINVAL);
	ck_assert_int_eq(vt_probe_ids(fd, KMEM_RO_IOC_PROBE_DEL, 0, ids, KMEM_RO_PROBE_MAX_BATCH + 1, NULL, NULL), -E2BIG);

	/* LIST, with one probe to show */
	{
		struct kmem_ro_probe_info info[2];
		struct kmem_ro_probe_list l;

		vt_probe_spec(&s, HOT, vt_kallsyms(HOT), 0, 0);
		ck_assert_int_eq(vt_probe_add(fd, &s, 1, NULL), 0);
		ck_assert_int_gt(s.result, 0);
#define LIST(errno_, stmt) do {							\
		l = (struct kmem_ro_probe_list){ .size = sizeof(l),		\
			.buf_addr = (uintptr_t)info, .cap = 2 };		\
		stmt;								\
		ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_PROBE_LIST, &l), errno_); \
	} while (0)
		LIST(0, (void)0);
		ck_assert_uint_eq(l.count, 1);
		ck_assert_uint_eq(info[0].id, s.result);
		ck_assert_uint_eq(info[0].owner, getpid());
		LIST(-EINVAL, l.flags = 2);
		LIST(-EINVAL, l.reserved[1] = 1);
		LIST(-EINVAL, l.cap = 0);
		LIST(-EINVAL, l.buf_addr = 0);
		LIST(-EFAULT, l.buf_addr = 0x10);
		LIST(-EINVAL, l.size = KMEM_RO_PROBE_LIST_SIZE_VER0 - 8);
#undef LIST
	}
	close(fd);
}
END_TEST

/*
 * Every function traced at once, the callback's own callees too
 * (__rcu_read_lock() on PREEMPT_RCU kernels): counts stay exact, nothing
 * recurses, closing takes it all away.
 */
START_TEST(enable_every_function)
{
	struct kmem_ro_probe_spec *s = calloc(1 << 16, sizeof(*s));
	uint64_t hot = vt_kallsyms(HOT), hot_id = 0, rcu_id = 0;
	unsigned int n, added;
	time_t t0;
	int fd = vt_open_dev();

	n = every_function(s, KMEM_RO_PROBE_ENABLED);
	t0 = time(NULL);
	ck_assert_int_eq(vt_probe_add(fd, s, n, &added), 0);
	printf("probe: %u of %u vmlinux text symbols enabled in %lds\n", added, n,
	       (long)(time(NULL) - t0));
	ck_assert_uint_gt(added, n / 4);
	for (unsigned int i = 0; i < n; i++) {
		if (s[i].addr == hot && s[i].result > 0)
			hot_id = s[i].result;
		if (!strcmp(s[i].name, "__rcu_read_lock") && s[i].result > 0)
			rcu_id = s[i].result;
	}
	ck_assert_uint_ne(hot_id, 0);
	call_getppid(CALLS);
	ck_assert_uint_eq(hits(fd, hot_id), CALLS);
	if (rcu_id)	/* getppid() reads the pid under rcu_read_lock() */
		ck_assert_uint_ge(hits(fd, rcu_id), CALLS);
	ck_assert_int_eq(vt_file_has(FTRACE_LIST, OUR_CALLBACK), 1);
	t0 = time(NULL);
	close(fd);
	printf("probe: closed in %lds\n", (long)(time(NULL) - t0));
	ck_assert_int_eq(vt_file_has(FTRACE_LIST, OUR_CALLBACK), 0);
	free(s);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("probe");
	TCase *tc = tcase_create("probes");

	tcase_set_timeout(tc, 900);
	tcase_add_test(tc, exact_counts_both_backends);
	tcase_add_test(tc, per_entry_errors);
	tcase_add_test(tc, kprobe_in_function_running_into_unmapped);
	tcase_add_test(tc, owner_death_removes_everything);
	tcase_add_test(tc, add_del_storm);
	tcase_add_test(tc, module_unload_leaves_probes_gone);
	tcase_add_test(tc, bulk_add_every_function);
	tcase_add_test(tc, enable_every_function);
	suite_add_tcase(s, tc);

	tc = tcase_create("rules");
	tcase_add_test(tc, unprivileged_add_is_eperm);
	tcase_add_test(tc, bad_input);
	suite_add_tcase(s, tc);
	return vt_main(s);
}
