/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the kmemctl verb tests (struct, list, modules, dump, probe
 * top): run kmemctl, check its JSON strictly, and find kernel objects by
 * the kernel's own sources (/proc/kallsyms, /proc/modules, the library's
 * walk), never by kmemctl's output.
 */
#ifndef KMEM_RO_TOOLTEST_H
#define KMEM_RO_TOOLTEST_H

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kmemdev.h"
#include "vmtest.h"

static char out[4 << 20], err[16384];

/* argv of kmemctl with @cmd's words (split on blanks in place, no quoting). */
static void __attribute__((unused)) kmemctl_argv(char *cmd, char *argv[64])
{
	char *save = NULL, *w;
	int n = 0;

	argv[n++] = "kmemctl";
	for (w = strtok_r(cmd, " ", &save); w && n < 63; w = strtok_r(NULL, " ", &save))
		argv[n++] = w;
	argv[n] = NULL;
}

/* kmemctl with @fmt's words as @uid/@gid. */
static int __attribute__((format(printf, 3, 0), unused)) vkmemctl(uid_t uid, gid_t gid,
								   const char *fmt, va_list ap)
{
	char cmd[1024], *argv[64];

	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	kmemctl_argv(cmd, argv);
	out[0] = err[0] = '\0';
	return vt_exec(uid, gid, argv, out, sizeof(out), err, sizeof(err));
}

/* kmemctl as root. */
static int __attribute__((format(printf, 1, 2), unused)) kmemctl(const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vkmemctl(0, 0, fmt, ap);
	va_end(ap);
	return rc;
}

/*
 * kmemctl as a member of the device's group (NOBODY in MONITOR_GID, no
 * capabilities), the device handed to the group for the run.
 */
static int __attribute__((format(printf, 1, 2), unused)) kmemctl_member(const char *fmt, ...)
{
	va_list ap;
	int rc;

	ck_assert_int_eq(chown(KMEM_RO_DEVICE, 0, MONITOR_GID), 0);
	va_start(ap, fmt);
	rc = vkmemctl(NOBODY, MONITOR_GID, fmt, ap);
	va_end(ap);
	ck_assert_int_eq(chown(KMEM_RO_DEVICE, 0, 0), 0);
	return rc;
}

/* One error line of at most about 100 characters, as kmemctl promises. */
static bool __attribute__((unused)) one_short_line(const char *s)
{
	size_t n = strlen(s);

	return vt_count_lines(s) == 1 && n <= 104 && n > 9 &&
	       !strncmp(s, "kmemctl: ", 9);
}

/* ---- a strict JSON checker (RFC 8259, UTF-8 checked in strings) ---- */

static const char *jc_value(const char *p, int depth);

static const char *jc_ws(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	return p;
}

static const char *jc_string(const char *p)
{
	const unsigned char *s = (const unsigned char *)p + 1;

	if (*p != '"')
		return NULL;
	for (;;) {
		unsigned char c = *s;
		int n, i;

		if (c == '"')
			return (const char *)s + 1;
		if (c < 0x20)
			return NULL;
		if (c == '\\') {
			s++;
			if (*s == 'u') {
				for (i = 1; i <= 4; i++)
					if (!isxdigit(s[i]))
						return NULL;
				s += 5;
			} else if (*s && strchr("\"\\/bfnrt", *s)) {
				s++;
			} else {
				return NULL;
			}
			continue;
		}
		if (c < 0x80) {
			s++;
			continue;
		}
		n = c >= 0xf0 && c <= 0xf4 ? 3 : c >= 0xe0 ? 2 : c >= 0xc2 && c <= 0xdf ? 1 : -1;
		if (n < 0 || c > 0xf4)
			return NULL;
		for (i = 1; i <= n; i++)
			if ((s[i] & 0xc0) != 0x80)
				return NULL;
		s += n + 1;
	}
}

static const char *jc_number(const char *p)
{
	if (*p == '-')
		p++;
	if (*p == '0')
		p++;
	else if (isdigit((unsigned char)*p))
		while (isdigit((unsigned char)*p))
			p++;
	else
		return NULL;
	if (*p == '.') {
		p++;
		if (!isdigit((unsigned char)*p))
			return NULL;
		while (isdigit((unsigned char)*p))
			p++;
	}
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!isdigit((unsigned char)*p))
			return NULL;
		while (isdigit((unsigned char)*p))
			p++;
	}
	return p;
}

static const char *jc_value(const char *p, int depth)
{
	char close;

	p = jc_ws(p);
	if (depth > 200)
		return NULL;
	switch (*p) {
	case '"':
		return jc_string(p);
	case 't':
		return strncmp(p, "true", 4) ? NULL : p + 4;
	case 'f':
		return strncmp(p, "false", 5) ? NULL : p + 5;
	case 'n':
		return strncmp(p, "null", 4) ? NULL : p + 4;
	case '{':
	case '[':
		close = *p == '{' ? '}' : ']';
		p = jc_ws(p + 1);
		if (*p == close)
			return p + 1;
		for (;;) {
			if (close == '}') {
				p = jc_string(jc_ws(p));
				if (!p)
					return NULL;
				p = jc_ws(p);
				if (*p++ != ':')
					return NULL;
			}
			p = jc_value(p, depth + 1);
			if (!p)
				return NULL;
			p = jc_ws(p);
			if (*p == close)
				return p + 1;
			if (*p++ != ',')
				return NULL;
		}
	default:
		return jc_number(p);
	}
}

/* Is @s one JSON document per line (@lines: each line one), nothing else? */
static bool __attribute__((unused)) json_valid(const char *s, bool lines)
{
	const char *p = s;

	do {
		p = jc_value(p, 0);
		if (!p)
			return false;
		p = lines ? p : jc_ws(p);
		if (lines && *p == '\n')
			p++;
	} while (lines && *p);
	return *p == '\0';
}

/* The string value of the first "@key": in @json, unescaped; -1 if none. */
static int __attribute__((unused)) json_str_of(const char *json, const char *key, char *buf,
					       size_t len)
{
	char pat[128];
	const char *p;
	size_t n = 0;

	snprintf(pat, sizeof(pat), "\"%s\":\"", key);
	p = strstr(json, pat);
	if (!p || !len)
		return -1;
	for (p += strlen(pat); *p && *p != '"' && n + 1 < len; p++) {
		if (*p == '\\') {
			p++;
			if (*p == 'u') {
				unsigned int v;

				if (sscanf(p + 1, "%4x", &v) != 1)
					return -1;
				buf[n++] = (char)v;	/* the tool escapes bytes only */
				p += 4;
				continue;
			}
			buf[n++] = *p == 'n' ? '\n' : *p == 't' ? '\t' : *p;
			continue;
		}
		buf[n++] = *p;
	}
	buf[n] = '\0';
	return 0;
}

/* The "0x..." value of the first "@key": in @json; 0 if none. */
static uint64_t __attribute__((unused)) json_hex_of(const char *json, const char *key)
{
	char buf[64];

	if (json_str_of(json, key, buf, sizeof(buf)))
		return 0;
	return strtoull(buf, NULL, 16);
}

/* ---- the kernel's own sources ---- */

/* The address of @name [@module] in /proc/kallsyms (vmlinux: NULL); 0 if none. */
static uint64_t __attribute__((unused)) kallsyms_in(const char *name, const char *module)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512], n[256], m[256];
	unsigned long long a;
	uint64_t found = 0;
	char t;

	ck_assert_ptr_nonnull(f);
	while (!found && fgets(line, sizeof(line), f)) {
		int k = sscanf(line, "%llx %c %255s [%255[^]]]", &a, &t, n, m);

		if (k < 3 || strcmp(n, name))
			continue;
		if ((module && k == 4 && !strcmp(m, module)) || (!module && k == 3))
			found = a;
	}
	fclose(f);
	return found;
}

/* Does /proc/kallsyms name @name at @addr? */
static bool __attribute__((unused)) kallsyms_has(uint64_t addr, const char *name)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512], n[256];
	unsigned long long a;
	bool found = false;
	char t;

	ck_assert_ptr_nonnull(f);
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "%llx %c %255s", &a, &t, n) == 3 && a == addr &&
			!strcmp(n, name);
	fclose(f);
	return found;
}

struct proc_module {
	char name[64];
	unsigned long long size, addr;
	int refcnt;
	char state[16];
};

/* The /proc/modules lines, at most @cap; returns how many. */
static int __attribute__((unused)) proc_modules(struct proc_module *m, int cap)
{
	FILE *f = fopen("/proc/modules", "re");
	char line[1024];
	int n = 0;

	ck_assert_ptr_nonnull(f);
	while (n < cap && fgets(line, sizeof(line), f)) {
		char users[512];

		if (sscanf(line, "%63s %llu %d %511s %15s %llx", m[n].name, &m[n].size,
			   &m[n].refcnt, users, m[n].state, &m[n].addr) == 6)
			n++;
	}
	fclose(f);
	return n;
}

/*
 * The task_struct of @pid, found with the library's WALK over init_task's
 * task list and its own BTF offsets; 0 if no such task.
 */
static uint64_t __attribute__((unused)) task_of(pid_t pid)
{
	KMEMDEV_ARG(kmem_ro_walk, w, .flags = KMEM_RO_WALK_NODE_ADDR);
	struct kmem_ro_field f;
	uint32_t tasks, pidoff, nodes, i;
	struct kmemdev *h;
	void *buf = NULL;
	size_t cap = 0;
	uint64_t found = 0, init;

	ck_assert_int_eq(kmemdev_open(&h, NULL), 0);
	ck_assert_int_eq(kmemdev_btf_member(h, "task_struct", "tasks", &tasks, NULL), 0);
	ck_assert_int_eq(kmemdev_btf_member(h, "task_struct", "pid", &pidoff, NULL), 0);
	ck_assert_int_eq(kmemdev_symbol(h, "init_task", &init), 0);
	w.head = init + tasks;
	w.link_offset = tasks;
	f.offset = pidoff;
	f.len = 4;
	w.fields_addr = (uintptr_t)&f;
	w.fields_count = 1;
	ck_assert_int_eq(kmemdev_walk_all(h, &w, &buf, &cap, &nodes), 0);
	for (i = 0; i < nodes && !found; i++) {
		unsigned char *rec = (unsigned char *)buf + i * 12;
		int32_t p;

		memcpy(&p, rec + 8, 4);
		if (p == pid)
			memcpy(&found, rec, 8);
	}
	free(buf);
	kmemdev_close(h);
	return found;
}

/* devpts on /dev/pts (the guest's /init mounts none): ptys for forkpty, tmux. */
static void __attribute__((unused)) ensure_devpts(void)
{
	if (!access("/dev/pts/ptmx", F_OK))
		return;
	mkdir("/dev/pts", 0755);
	ck_assert_msg(!mount("devpts", "/dev/pts", "devpts", 0, "ptmxmode=0666,mode=0620"),
		      "mount devpts: %s", strerror(errno));
}

/* Unload kmem_ro (no fd may be open) and make sure the node is gone. */
static void __attribute__((unused)) unload_kmem_ro(void)
{
	ck_assert_int_eq(vt_module_unload("kmem_ro"), 0);
	ck_assert_int_eq(vt_open_errno(KMEM_RO_DEVICE, 0), ENOENT);
}

static void __attribute__((unused)) reload_kmem_ro(void)
{
	if (vt_module_refcnt("kmem_ro") < 0)
		ck_assert_int_eq(vt_module_load(VMTEST_MODULE_PATH, ""), 0);
	ck_assert_int_eq(vt_wait_node(), 0);
}

#endif /* KMEM_RO_TOOLTEST_H */
