/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the in-VM tests.  They read the kernel's own sources of
 * truth (/proc/kallsyms, /proc/iomem, /proc/kcore, ...) so that what the
 * driver reports is checked against something it did not compute.
 */
#ifndef KMEM_RO_VMTEST_H
#define KMEM_RO_VMTEST_H

#include <check.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "kmem_ro.h"

#define VMTEST_MODULE_PATH	"/lib/kmem_ro.ko"
#define VMTEST_TESTOBJ_PATH	"/lib/kmem_ro_testobj.ko"

/* An unprivileged user, and the group the tests give the device to. */
#define NOBODY		65534
#define MONITOR_GID	4242
/* kmem_ro's probe_group parameter: 1 lets any holder of the fd probe */
#define PROBE_GROUP_PARAM	"/sys/module/kmem_ro/parameters/probe_group"

/* Open /dev/kmem_ro read-only; fails the test if it cannot. */
int vt_open_dev(void);

/* KMEM_RO_IOC_INFO with a default-sized struct; returns ioctl()'s -errno. */
int vt_info(int fd, struct kmem_ro_info *info, struct kmem_ro_range *ram,
	    unsigned int cap);

/* ioctl() returning -errno on failure, 0 on success. */
int vt_ioctl(int fd, unsigned long cmd, void *arg);

/* Address of a symbol in /proc/kallsyms, 0 if absent. */
uint64_t vt_kallsyms(const char *name);
/*
 * vt_kallsyms() of @n names in one pass over /proc/kallsyms: addrs[i] for
 * names[i], 0 if none.
 */
void vt_kallsyms_many(const char *const *names, uint64_t *addrs, int n);
/*
 * One line of /proc/kallsyms, "ADDR T NAME\n" or "ADDR T NAME\t[MODULE]\n",
 * split in place: *name and *mod NUL-terminated (*mod NULL for vmlinux's).
 * 0 if it is not such a line.  What sscanf("%x %c %s") gets, at a fraction
 * of its time: under TCG sscanf is more than half of a pass over the
 * file's 200,000 lines.
 */
int vt_ksym_split(char *line, uint64_t *addr, char *type, char **name, char **mod);

/* System RAM ranges at the top level of /proc/iomem, end exclusive. */
int vt_iomem_ram(struct kmem_ro_range *out, int cap);

/* Read @len bytes at kernel virtual @addr through /proc/kcore. */
int vt_kcore_read(uint64_t addr, void *buf, size_t len);

/* Program header of /proc/kcore covering @vaddr: p_paddr, -1 if none. */
int vt_kcore_segment(uint64_t vaddr, uint64_t *seg_vaddr, uint64_t *seg_paddr);

/* File offset of kernel virtual @vaddr in /proc/kcore (its program headers), -1 if none. */
int64_t vt_kcore_offset(uint64_t vaddr);

/* Write @val to a sysctl or sysfs file; fails the test if it cannot. */
void vt_write_file(const char *path, const char *val);

/* A value from /proc/meminfo (kB), -1 if absent. */
long long vt_meminfo(const char *key);

/* Count lines of the kernel log containing @needle. */
int vt_dmesg_count(const char *needle);

/*
 * Run @fn in a child that first drops to @uid/@gid (and, if @drop_cap >= 0,
 * drops that capability); returns the child's exit status.
 */
int vt_run_as(uid_t uid, gid_t gid, int drop_cap, int (*fn)(void *), void *arg);

/* vt_run_as() with the supplementary groups @groups, as after login. */
int vt_run_as_groups(uid_t uid, gid_t gid, const gid_t *groups, int ngroups,
		     int drop_cap, int (*fn)(void *), void *arg);

/* open(@path, @flags) and close: 0, or open()'s errno. */
int vt_open_errno(const char *path, int flags);

/*
 * Run @argv (argv[0] searched in PATH) as @uid/@gid with stdout and stderr
 * captured (NUL-terminated, truncated to the buffer); returns the exit
 * status.
 */
int vt_exec(uid_t uid, gid_t gid, char *const argv[], char *out, size_t outsz,
	    char *err, size_t errsz);

/* vt_exec() with the supplementary groups @groups, as after login. */
int vt_exec_groups(uid_t uid, gid_t gid, const gid_t *groups, int ngroups,
		   char *const argv[], char *out, size_t outsz, char *err,
		   size_t errsz);

/*
 * Run @fn as NOBODY in group MONITOR_GID, with /dev/kmem_ro handed to that
 * group for the duration (as the udev rule would); returns @fn's status.
 */
int vt_run_as_monitor(int (*fn)(void *), void *arg);

/* A whole file, NUL-terminated (free()); *len its size if len. */
char *vt_slurp(const char *path, size_t *len);

/* The number after "KEY": in a JSON text; -1 if absent. */
long long vt_json_num(const char *json, const char *key);

/* Offset of the first instruction after a function's fentry NOP (and
 * ENDBR64 on IBT kernels): a place a kprobe can go. */
uint32_t vt_after_fentry(uint64_t func);

/* A probe spec; result preset to 0x7777 to show what the driver wrote. */
void vt_probe_spec(struct kmem_ro_probe_spec *s, const char *name, uint64_t addr,
		   uint32_t offset, uint32_t flags);

/* Entry probe specs, disabled, on the first @max vmlinux text symbols. */
unsigned int vt_text_probe_specs(struct kmem_ro_probe_spec *s, unsigned int max);

/* KMEM_RO_IOC_PROBE_ADD of @n specs: -errno; *@added if not NULL. */
int vt_probe_add(int fd, struct kmem_ro_probe_spec *s, unsigned int n, unsigned int *added);

/*
 * ENABLE, DISABLE, DEL or STATS (@cmd) of @n ids, or of all with
 * KMEM_RO_PROBE_ALL in @flags; STATS writes @counts (up to 65536 with
 * ALL).  Returns -errno; *@done if not NULL.
 */
int vt_probe_ids(int fd, unsigned long cmd, uint64_t flags, uint64_t *ids, unsigned int n,
		 uint64_t *counts, unsigned int *done);

/* Hits of probe @id of @fd (STATS; the test fails if STATS does). */
uint64_t vt_probe_hits(int fd, uint64_t id);

/* @n getppid() system calls: hits for a probe on the syscall's path. */
void vt_call_getppid(long n);

/* Lines in a NUL-terminated string. */
int vt_count_lines(const char *s);

/* PFN backing a user address of this process (page must be present). */
uint64_t vt_pagemap_pfn(const void *addr);

/* Read one byte at @p; returns 0, or SIGBUS/SIGSEGV if the load faulted. */
int vt_probe_read(const volatile void *p, unsigned char *val);

/*
 * A page of RAM that holds 0x5a bytes, poisoned with MADV_HWPOISON by a
 * child that then exits or is killed (the kernel may kill the owner of a
 * poisoned page); fails the test unless /proc/kpageflags shows the poison.
 * Returns the PFN.
 */
uint64_t vt_hwpoison_page(void);

/* A "Key:  N kB" value of /proc/self/status, -1 if absent. */
long long vt_status_kb(const char *key);

/* mmap /dev/kmem_ro read-only at physical @phys; MAP_FAILED on error. */
void *vt_map_phys(int fd, uint64_t phys, size_t len);

/*
 * The RAM mmap opt-in (module parameter mmap_ram, default 0), as a checked
 * fixture of the TCases that map RAM: on in setup, back to the default in
 * teardown.  Mappings keep the mode they were made in.
 */
void vt_mmap_ram_on(void);
void vt_mmap_ram_off(void);

/* finit_module() of the module file @path with @params; 0 or -errno. */
int vt_module_load(const char *path, const char *params);

/* delete_module(@name, O_NONBLOCK): 0, or -errno (-EWOULDBLOCK in use). */
int vt_module_unload(const char *name);

/* /sys/module/@name/refcnt; -1 if the module is not loaded. */
int vt_module_refcnt(const char *name);

/* Wait up to 2 s for devtmpfs to create KMEM_RO_DEVICE: 0 or -ENOENT. */
int vt_wait_node(void);

/* Does a line of @path contain @needle?  1 or 0; -1 if unreadable. */
int vt_file_has(const char *path, const char *needle);

/* A value published by kmem_ro_testobj.ko in debugfs; fails if absent. */
uint64_t vt_testobj(const char *name);

/*
 * Is the running kernel at least @major.@minor?  For the few behaviours
 * that differ by kernel version: a test asserts the version that explains
 * what it sees, so a missing feature never passes as a skip.
 */
int vt_kernel_at_least(int major, int minor);

/* A member of the device's group, as after `usermod -aG`: uid 1000, no capability. */
#define MEMBER_UID	1000

/*
 * fork(); the child runs as @uid/@gid with the supplementary groups @groups
 * (it _exit()s 100 if it cannot).  Returns as fork() does.
 */
pid_t vt_fork_as(uid_t uid, gid_t gid, const gid_t *groups, int ngroups);

/*
 * Hang guards (never timing assertions): wait up to @ms for @fd to become
 * readable (1, else 0), or for child @pid to end (0 with its status, else
 * -ETIMEDOUT; the child is not reaped then).
 */
int vt_wait_readable(int fd, int ms);
int vt_wait_child(pid_t pid, int ms, int *status);

/*
 * A userfaultfd (blocking, kernel faults too: root) with [@addr, @addr +
 * @len) registered for missing pages: the fd, or -errno.
 */
int vt_uffd_missing(void *addr, size_t len);

/* Wait up to @ms for a page fault on @uffd: its address, or 0 if none came. */
uint64_t vt_uffd_fault(int uffd, int ms);

/* UFFDIO_COPY of @len bytes from @src to the missing pages at @dst: 0 or -errno. */
int vt_uffd_copy(int uffd, void *dst, const void *src, size_t len);

/* The state letter of /proc/@pid/stat (R, S, D, ...), and its wchan, for messages. */
void vt_task_state(pid_t pid, char *out, size_t outsz);

/* main() of every in-VM test binary: run @s, print the Check summary. */
int vt_main(Suite *s);

#endif /* KMEM_RO_VMTEST_H */
