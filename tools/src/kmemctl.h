/* SPDX-License-Identifier: GPL-2.0 */
/* kmemctl: verbs and what they share. */
#ifndef KMEMCTL_H
#define KMEMCTL_H

#include <stdbool.h>
#include <stdio.h>

#include "kmemdev.h"

/* Exit statuses: 0 success, 1 runtime error, 2 usage error. */
enum {
	KMEMCTL_EXIT_OK = 0,
	KMEMCTL_EXIT_ERROR = 1,
	KMEMCTL_EXIT_USAGE = 2,
};

/* Global options, parsed before the verb. */
struct kmemctl {
	const char *device;	/* --device, default KMEM_RO_DEVICE */
	bool device_given;	/* --device was given: no /proc/kcore fallback */
};

/*
 * A verb gets argv with argv[0] = the verb name and returns an exit status.
 * It prints its own errors with kmemctl_err*().
 */
typedef int (*kmemctl_verb_fn)(const struct kmemctl *ctx, int argc,
			       char **argv);

int kmemctl_info(const struct kmemctl *ctx, int argc, char **argv);
int kmemctl_sym(const struct kmemctl *ctx, int argc, char **argv);
int kmemctl_read(const struct kmemctl *ctx, int argc, char **argv);
int kmemctl_ps(const struct kmemctl *ctx, int argc, char **argv);
int kmemctl_pagemap(const struct kmemctl *ctx, int argc, char **argv);
int kmemctl_probe(const struct kmemctl *ctx, int argc, char **argv);
int kmemctl_watch(const struct kmemctl *ctx, int argc, char **argv);
int kmemctl_struct(const struct kmemctl *ctx, int argc, char **argv);
int kmemctl_list(const struct kmemctl *ctx, int argc, char **argv);
int kmemctl_tree(const struct kmemctl *ctx, int argc, char **argv);
int kmemctl_modules(const struct kmemctl *ctx, int argc, char **argv);
int kmemctl_dump(const struct kmemctl *ctx, int argc, char **argv);
int kmemctl_whatis(const struct kmemctl *ctx, int argc, char **argv);
int kmemctl_dmesg(const struct kmemctl *ctx, int argc, char **argv);

/*
 * Open ctx->device (the device only, never /proc/kcore); on failure print
 * the one-line error and return NULL.
 */
struct kmemdev *kmemctl_open(const struct kmemctl *ctx);

/*
 * The same for a verb that needs the device itself (probes, pagemap):
 * when it is absent, one line says so, what to do, and @why /proc/kcore
 * cannot stand in ("kmemctl: <verb>: no /dev/kmem_ro (modprobe kmem_ro):
 * <why>").
 */
struct kmemdev *kmemctl_open_dev(const struct kmemctl *ctx, const char *verb,
				 const char *why);

/*
 * One line on stderr, "kmemctl: <operation> <object>: <reason>": @fmt
 * names the operation and its object ("look up symbol foo"), and
 * kmemdev_strerror(@op, @err) gives the reason.
 */
void kmemctl_err(enum kmemdev_op op, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The same with a reason of kmemctl's own: "kmemctl: <fmt>\n". */
void kmemctl_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* "kmemctl: <formatted>" plus a usage hint; returns KMEMCTL_EXIT_USAGE. */
int kmemctl_usage_err(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

/*
 * The operands after the options: at least @min (else "VERB: missing
 * @missing"), at most @max (else "VERB: unexpected argument 'X'").
 * Returns 0, or KMEMCTL_EXIT_USAGE having said why.
 */
int kmemctl_operands(const char *verb, int argc, char **argv, int min, int max,
		     const char *missing);

/* Report getopt_long()'s '?' or ':' result c in kmemctl's format; exit 2. */
int kmemctl_bad_option(int c, char **argv);

/* Flush stdout and report a write error (e.g. full disk) as exit 1. */
int kmemctl_finish(int status);

#endif /* KMEMCTL_H */
