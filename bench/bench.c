// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

uint64_t bench_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* A child that asks to be traced, stops itself, then runs fn(arg, n); -1 if none. */
static pid_t traced_child(void (*fn)(void *arg, long n), void *arg, long n)
{
	pid_t pid = fork();

	if (pid == 0) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
			_exit(1);
		raise(SIGSTOP);
		fn(arg, n);
		_exit(0);
	}
	return pid;
}

/* Syscall-entry stops of a child running fn(arg, n), after it stops itself. */
long bench_syscalls(void (*fn)(void *arg, long n), void *arg, long n,
		    int *status)
{
	long calls = 0;
	int st, entering = 1;
	pid_t pid = traced_child(fn, arg, n);

	if (pid < 0)
		return -1;
	if (waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st))
		return -1;
	ptrace(PTRACE_SETOPTIONS, pid, NULL, (void *)PTRACE_O_TRACESYSGOOD);
	for (;;) {
		if (ptrace(PTRACE_SYSCALL, pid, NULL, NULL) ||
		    waitpid(pid, &st, 0) != pid)
			return -1;
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			if (status)
				*status = st;
			return calls;
		}
		if (WIFSTOPPED(st) && WSTOPSIG(st) == (SIGTRAP | 0x80)) {
			calls += entering;
			entering = !entering;
		}
	}
}

double bench_syscalls_per_op(void (*fn)(void *arg, long n), void *arg, long n)
{
	long with = bench_syscalls(fn, arg, n, NULL);
	long base = bench_syscalls(fn, arg, 0, NULL);

	if (with < 0 || base < 0 || n <= 0)
		return -1;
	return (double)(with - base) / n;
}

long bench_user_insns(void (*fn)(void *arg, long n), void *arg, long n)
{
	long steps = 0;
	int st, stops = 0;
	pid_t pid = traced_child(fn, arg, n);

	if (pid < 0)
		return -1;
	/* stop 1: its own, before fn; 2 and 3: the program's marks */
	for (int sig = 0;; sig = 0) {
		if (waitpid(pid, &st, 0) != pid)
			return -1;
		if (!WIFSTOPPED(st))
			return WIFEXITED(st) && !WEXITSTATUS(st) && stops == 3 ? steps : -1;
		if (WSTOPSIG(st) == SIGSTOP)
			stops++;
		else if (stops == 2 && WSTOPSIG(st) == SIGTRAP)
			steps++;	/* a single step */
		else if (WSTOPSIG(st) != SIGTRAP)
			sig = WSTOPSIG(st);	/* exec's SIGTRAP is not passed on */
		if (ptrace(stops == 2 ? PTRACE_SINGLESTEP : PTRACE_CONT, pid, NULL,
			   (void *)(long)sig))
			return -1;
	}
}

int bench_mmap_ram_on(void)
{
	FILE *f = fopen("/sys/module/kmem_ro/parameters/mmap_ram", "we");

	if (!f)
		return -1;
	fputs("1", f);
	return fclose(f) ? -1 : 0;
}

int bench_module_reload(const char *params)
{
	int fd = open("/lib/kmem_ro.ko", O_RDONLY | O_CLOEXEC), ok;

	if (fd < 0)
		return -1;
	ok = !syscall(SYS_delete_module, "kmem_ro", O_NONBLOCK) &&
	     !syscall(SYS_finit_module, fd, params, 0);
	close(fd);
	for (int i = 0; ok && i < 200 && access("/dev/kmem_ro", F_OK); i++)
		usleep(10000);
	return ok && !access("/dev/kmem_ro", F_OK) ? 0 : -1;
}
