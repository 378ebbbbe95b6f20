// SPDX-License-Identifier: GPL-2.0
/*
 * A caller killed in a long PROBE_ADD, ENABLE or DEL: each kprobe patches
 * kernel text (text_poke and a sync on every CPU), so a few thousand take
 * seconds in the VM (an enabled ADD tens of milliseconds each: the
 * optimizer's work).  DEL unpatches an optimized kprobe later, in the
 * optimizer; with optimization off (debug.kprobes-optimization=0, as on a
 * kernel without OPTPROBES or for places it cannot optimize) each kprobe
 * DEL removes is unpatched there and then.  ENABLE and DEL run with it
 * off: the optimizer holds kprobe_mutex across an RCU-tasks grace period,
 * which a killed caller waiting for that mutex would wait out too.  The child works on a file it shares with the parent
 * (so its exit does not release the probes); the parent kills it part way
 * and waits for it with a hang guard of half the time the same call took
 * uninterrupted (DEL: 3/4 of a DISABLE), measured just before and printed.  Then the state: ADD
 * undone (no probe left), ENABLE switched a prefix in id order and no
 * more, DEL deleted a prefix and no more; the counts of LIST and STATS
 * agree, and the group's rmmod shows nothing leaked.
 *
 * ENABLE and DEL work on one file of kprobes, sized once (shared_kprobes():
 * adding them is most of the suite's time, a kprobe's instruction slot
 * found by a walk of all the others').
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "vmtest.h"

/* Functions tried as kprobes just past their fentry site. */
#define TRY		6000
/* A call shorter than this cannot be told from its kill: take more. */
#define MIN_FULL_MS	2000.0
#define MAX_PROBES	16000
#define KPROBES_OPT	"/proc/sys/debug/kprobes-optimization"

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static struct kmem_ro_probe_spec *specs;
static unsigned int nspecs;
/*
 * specs[0, nready) have their offset past the fentry site: a /proc/kcore
 * read each, made for the specs a test adds (a few thousand) rather than
 * for all of vmlinux's text (seconds per 10,000 under TCG).
 */
static unsigned int nready;

static void ready(unsigned int n)
{
	for (; nready < n && nready < nspecs; nready++)
		specs[nready].offset = vt_after_fentry(specs[nready].addr);
}

/* Kprobe specs just past the fentry site of vmlinux text functions. */
static void kprobe_specs(uint32_t flags)
{
	enum { MAX = 65536 };
	struct kmem_ro_probe_spec *all = calloc(MAX, sizeof(*all));
	unsigned int n;

	ck_assert_ptr_nonnull(all);
	n = vt_text_probe_specs(all, MAX);
	free(specs);
	specs = calloc(n, sizeof(*specs));
	ck_assert_ptr_nonnull(specs);
	nspecs = 0;
	nready = 0;
	for (unsigned int i = 0; i < n; i++) {
		/* skip the few hundred at the start: entry code, rarely kprobe-able */
		if (i < 512)
			continue;
		/* the offset: ready() */
		vt_probe_spec(&specs[nspecs++], all[i].name, all[i].addr, 0, flags);
	}
	free(all);
}

static void set_flags(uint32_t flags)
{
	for (unsigned int i = 0; i < nspecs; i++) {
		specs[i].flags = flags;
		specs[i].result = 0x7777;
	}
}

/* How many probes @fd has, by LIST and by STATS ALL: they agree. */
static unsigned int probes_of(int fd)
{
	struct kmem_ro_probe_list l = { .size = sizeof(l) };
	unsigned int done = ~0U;

	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_PROBE_LIST, &l), 0);
	ck_assert_int_eq(vt_probe_ids(fd, KMEM_RO_IOC_PROBE_STATS, KMEM_RO_PROBE_ALL, NULL, 0,
				      NULL, &done), 0);
	ck_assert_uint_eq(done, l.count);
	return l.count;
}

/* @fd's probes in id order. */
static struct kmem_ro_probe_info *list_of(int fd, unsigned int *n)
{
	struct kmem_ro_probe_list l = { .size = sizeof(l) };
	struct kmem_ro_probe_info *info;

	*n = probes_of(fd);
	info = calloc(*n + 1, sizeof(*info));
	ck_assert_ptr_nonnull(info);
	l.buf_addr = (uintptr_t)info;
	l.cap = *n;
	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_PROBE_LIST, &l), 0);
	ck_assert_uint_eq(l.count, *n);
	return info;
}

/* ADD specs[first, first + n) to @fd: the number added. */
static unsigned int add_specs(int fd, unsigned int first, unsigned int n)
{
	unsigned int added = 0;

	ready(first + n);
	ck_assert_int_eq(vt_probe_add(fd, specs + first, n, &added), 0);
	return added;
}

enum op { OP_ADD, OP_ENABLE, OP_DEL };

static int run_op(int fd, enum op op, unsigned int n)
{
	switch (op) {
	case OP_ADD:	/* specs[0, n) ready: the caller added them before */
		return vt_probe_add(fd, specs, n, NULL);
	case OP_ENABLE:
		return vt_probe_ids(fd, KMEM_RO_IOC_PROBE_ENABLE, KMEM_RO_PROBE_ALL, NULL, 0,
				    NULL, NULL);
	case OP_DEL:
		return vt_probe_ids(fd, KMEM_RO_IOC_PROBE_DEL, KMEM_RO_PROBE_ALL, NULL, 0,
				    NULL, NULL);
	}
	return -EINVAL;
}

/*
 * @op in a child sharing @fd, SIGKILLed @full_ms / 8 after it starts;
 * returns how long the kill took to reap it.
 */
/*
 * Kill the child @full_ms / 8 into @op and give it @guard_ms to go.  What
 * it did by then it may still finish or undo after the kill: DEL
 * unregisters the prefix it disabled, about 3 ms a kprobe on 6.1.
 */
static double kill_during(int fd, enum op op, unsigned int n, double full_ms, double guard_ms)
{
	int go[2], status;
	double t;
	pid_t pid;
	char c;

	ck_assert_int_eq(pipe(go), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(go[0]);
		if (write(go[1], "g", 1) != 1)
			_exit(2);
		run_op(fd, op, n);
		_exit(0);	/* the kill should come first */
	}
	close(go[1]);
	ck_assert_int_eq(read(go[0], &c, 1), 1);
	close(go[0]);
	usleep((useconds_t)(full_ms / 8 * 1000));
	t = now_ms();
	ck_assert_int_eq(kill(pid, SIGKILL), 0);
	ck_assert_msg(vt_wait_child(pid, (int)guard_ms, &status) == 0,
		      "child still in the ioctl %.0f ms after SIGKILL (whole call %.0f ms)",
		      guard_ms, full_ms);
	t = now_ms() - t;
	ck_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	return t;
}

/*
 * Disabled kprobes in @fd, enough that ENABLE takes MIN_FULL_MS: returns
 * how many, *@enable_ms what ENABLE of them took (they are left enabled).
 * After TRY specs, the next step is what the pace so far asks for, a fifth
 * more, in specs at the share of them added so far, but never more than
 * TRY: each kprobe added costs more than the one before it (on 7.3 under
 * TCG, 2,250 took 5 s with none there, 14 s with 4,500 there), and ENABLE
 * is slower per kprobe the more there are, so a pace taken from few
 * overshoots (on 6.12 and 7.3 it asked for several minutes of adding).
 */
static unsigned int enough_kprobes(int fd, double *enable_ms)
{
	unsigned int n = 0, tried = 0, step = TRY, rounds = 0;

	set_flags(0);
	for (;;) {
		double t, want;

		if (step > nspecs - tried)
			step = nspecs - tried;
		ck_assert_uint_gt(step, 0);
		n += add_specs(fd, tried, step);
		tried += step;
		rounds++;
		t = now_ms();
		ck_assert_int_eq(run_op(fd, OP_ENABLE, 0), 0);
		*enable_ms = now_ms() - t;
		if (*enable_ms >= MIN_FULL_MS || n >= MAX_PROBES || tried >= nspecs)
			break;
		ck_assert_int_eq(vt_probe_ids(fd, KMEM_RO_IOC_PROBE_DISABLE, KMEM_RO_PROBE_ALL,
					      NULL, 0, NULL, NULL), 0);
		want = n * MIN_FULL_MS * 1.2 / (*enable_ms > 1 ? *enable_ms : 1);
		if (want > MAX_PROBES)
			want = MAX_PROBES;
		step = n ? (unsigned int)((want - n) * tried / n) : TRY;
		if (step < TRY / 4)
			step = TRY / 4;
		if (step > TRY)
			step = TRY;
	}
	ck_assert_msg(*enable_ms >= MIN_FULL_MS, "%u kprobes enabled in %.0f ms", n, *enable_ms);
	printf("@@PROBE_KILL sized: %u kprobes of %u specs in %u rounds\n", n, tried, rounds);
	return n;
}

/*
 * The file ENABLE and DEL are killed in, made once before Check forks
 * their tests (an unchecked fixture): each test's process inherits it, and
 * what it holds stays between them.  Its kprobes come disabled, with the
 * optimizer off until the teardown has closed the file.
 */
static int shared_fd = -1;
static unsigned int shared_n;
static double shared_enable_ms;

static void shared_kprobes(void)
{
	/* no optimizer holding kprobe_mutex across an RCU-tasks grace period */
	vt_write_file(KPROBES_OPT, "0");
	kprobe_specs(0);
	shared_fd = vt_open_dev();
	shared_n = enough_kprobes(shared_fd, &shared_enable_ms);
	ck_assert_int_eq(vt_probe_ids(shared_fd, KMEM_RO_IOC_PROBE_DISABLE, KMEM_RO_PROBE_ALL,
				      NULL, 0, NULL, NULL), 0);
}

static void shared_kprobes_close(void)
{
	if (shared_fd >= 0)
		close(shared_fd);
	shared_fd = -1;
	vt_write_file(KPROBES_OPT, "1");
}

START_TEST(killed_in_enable)
{
	int fd = shared_fd;
	struct kmem_ro_probe_info *info;
	unsigned int n = shared_n, k, m, on;
	double enable_ms = shared_enable_ms, t;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(vt_probe_ids(fd, KMEM_RO_IOC_PROBE_DISABLE, KMEM_RO_PROBE_ALL, NULL, 0,
				      NULL, NULL), 0);

	/* killed: a prefix of the probes in id order is on, no more */
	t = kill_during(fd, OP_ENABLE, 0, enable_ms, enable_ms / 2);
	info = list_of(fd, &m);
	ck_assert_uint_eq(m, n);
	for (k = 0; k < n && (info[k].flags & KMEM_RO_PROBE_ENABLED); k++)
		;
	for (on = k; on < n; on++)
		ck_assert_msg(!(info[on].flags & KMEM_RO_PROBE_ENABLED),
			      "probe %u of %u enabled past the first disabled (%u)", on, n, k);
	ck_assert_msg(k < n, "the kill came after the whole ENABLE");
	printf("@@PROBE_KILL ENABLE of %u kprobes, not optimized: %.0f ms whole; killed at 1/8, "
	       "reaped in %.0f ms, %u enabled\n", n, enable_ms, t, k);
	free(info);
}
END_TEST

START_TEST(killed_in_del)
{
	int fd = shared_fd;
	struct kmem_ro_probe_info *info;
	double enable_ms = shared_enable_ms, disable_ms, full, t;
	unsigned int n = shared_n, k, m;

	/*
	 * Whatever the ENABLE test left on: all of them on, then off (timed),
	 * then on.  ENABLE's time is the sizing's (at least MIN_FULL_MS): a
	 * second ENABLE of the same kprobes took 0.6 of it on 6.1.
	 */
	ck_assert_int_ge(fd, 0);
	ck_assert_uint_eq(probes_of(fd), n);
	ck_assert_int_eq(run_op(fd, OP_ENABLE, 0), 0);
	t = now_ms();
	ck_assert_int_eq(vt_probe_ids(fd, KMEM_RO_IOC_PROBE_DISABLE, KMEM_RO_PROBE_ALL, NULL, 0,
				      NULL, NULL), 0);
	disable_ms = now_ms() - t;
	ck_assert_int_eq(run_op(fd, OP_ENABLE, 0), 0);

	/* killed: the first probes are gone, all the others still there */
	/*
	 * An uninterrupted DEL disables all (about DISABLE's time) and then
	 * unregisters all; killed, it still unregisters the prefix it
	 * disabled (on 6.1 that took 0.4 of DISABLE's time).  A DEL that
	 * went on after the kill at 1/8 would need 7/8 of it and more, so
	 * the guard is 3/4.
	 */
	full = disable_ms > enable_ms ? disable_ms : enable_ms;
	t = kill_during(fd, OP_DEL, 0, full, full * 3 / 4);
	info = list_of(fd, &m);
	ck_assert_msg(m > 0 && m < n, "%u of %u probes left", m, n);
	for (k = 1; k < m; k++)
		ck_assert_uint_gt(info[k].id, info[k - 1].id);
	ck_assert_uint_eq(info[m - 1].id, n);	/* ids 1..n: the last ones stay */
	printf("@@PROBE_KILL DEL of %u enabled kprobes, not optimized (ENABLE of them: %.0f ms, "
	       "DISABLE: %.0f ms): reaped in %.0f ms, %u left\n", n, enable_ms, disable_ms, t, m);
	free(info);
}
END_TEST

START_TEST(killed_in_add)
{
	int fd = vt_open_dev(), fd2;
	double add_ms, t;
	unsigned int n, added;

	/*
	 * How many kprobes an enabled ADD takes MIN_FULL_MS for, done whole:
	 * each try as many specs as the last one's pace asks for, a tenth
	 * more, and 2 to 8 times the last (later specs add more kprobes each:
	 * fewer of them fail).
	 */
	kprobe_specs(KMEM_RO_PROBE_ENABLED);
	for (n = 512;;) {
		double grow;

		if (n > nspecs)
			n = nspecs;
		set_flags(KMEM_RO_PROBE_ENABLED);
		fd2 = vt_open_dev();
		t = now_ms();
		added = add_specs(fd2, 0, n);
		add_ms = now_ms() - t;
		close(fd2);
		if (add_ms >= MIN_FULL_MS || n == nspecs || added >= MAX_PROBES)
			break;
		grow = MIN_FULL_MS * 1.1 / (add_ms > 1 ? add_ms : 1);
		n = (unsigned int)(n * (grow < 2 ? 2 : grow > 8 ? 8 : grow));
	}
	ck_assert_msg(add_ms >= MIN_FULL_MS, "%u kprobes added in %.0f ms", added, add_ms);

	/* killed: the call undoes what it made, nothing is left */
	set_flags(KMEM_RO_PROBE_ENABLED);
	t = kill_during(fd, OP_ADD, n, add_ms, add_ms / 2);
	ck_assert_uint_eq(probes_of(fd), 0);
	printf("@@PROBE_KILL ADD of %u enabled kprobes: %.0f ms whole; killed at 1/8, reaped "
	       "in %.0f ms, none left\n", added, add_ms, t);
	/* the file still works */
	set_flags(KMEM_RO_PROBE_ENABLED);
	ck_assert_uint_gt(add_specs(fd, 0, 16), 0);
	close(fd);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("probe_kill");
	TCase *tc = tcase_create("kill");

	tcase_set_timeout(tc, 900);
	tcase_add_unchecked_fixture(tc, shared_kprobes, shared_kprobes_close);
	tcase_add_test(tc, killed_in_enable);
	tcase_add_test(tc, killed_in_del);
	suite_add_tcase(s, tc);
	/* its own case: after the shared file's kprobes are gone */
	tc = tcase_create("kill_add");
	tcase_set_timeout(tc, 900);
	tcase_add_test(tc, killed_in_add);
	suite_add_tcase(s, tc);
	return vt_main(s);
}
