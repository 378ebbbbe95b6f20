/* SPDX-License-Identifier: GPL-2.0 */
/* kmemctl: verbs and what they share. */
#ifndef KMEMCTL_H
#define KMEMCTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
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
	bool json;		/* --json before the verb (kmemctl_parse()) */
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

/* What a verb's own option sets in its options struct (kmemctl_opt). */
enum kmemctl_opt_kind {
	KMEMCTL_OPT_FLAG,	/* bool: true */
	KMEMCTL_OPT_STR,	/* const char *: the argument (max: bytes) */
	KMEMCTL_OPT_U64,	/* uint64_t: the argument, a number (parse.h) */
};

/* One option of a verb's own. */
struct kmemctl_opt {
	const char *name;		/* long name: "depth" for --depth */
	char letter;			/* short name: 'd' for -d; 0: none */
	enum kmemctl_opt_kind kind;
	size_t off;			/* offsetof() what it sets */
	uint64_t min, max;		/* U64: its range; STR: max length */
	bool (*valid)(uint64_t v);	/* and any further rule (or NULL), */
	const char *range;		/* as errors say them: "0 to 1000" */
};

#define KMEMCTL_FLAG(name, letter, type, field) \
	{ name, letter, KMEMCTL_OPT_FLAG, offsetof(type, field), 0, 0, NULL, NULL }
#define KMEMCTL_STR(name, letter, type, field) \
	{ name, letter, KMEMCTL_OPT_STR, offsetof(type, field), 0, 0, NULL, NULL }
#define KMEMCTL_STR_MAX(name, letter, type, field, max, range) \
	{ name, letter, KMEMCTL_OPT_STR, offsetof(type, field), 0, max, NULL, range }
#define KMEMCTL_U64(name, letter, type, field, min, max, valid, range) \
	{ name, letter, KMEMCTL_OPT_U64, offsetof(type, field), min, max, valid, range }

/*
 * A verb's command line, for kmemctl_parse(): its own options beside the
 * -j/--json and -h/--help every verb takes, and its operands.
 */
struct kmemctl_cli {
	const char *verb;		/* names it in errors: "read" */
	void (*help)(void);		/* what -h/--help prints */
	const struct kmemctl_opt *opts;	/* its own, ended by { NULL }, or NULL */
	bool in_order;			/* options end at the first operand */
	int min, max;			/* operands; max < 0: the verb checks them */
	const char *missing;		/* "VERB: missing @missing" below @min */
};

/* kmemctl_parse(): the options are parsed, optind is at the operands. */
#define KMEMCTL_PARSED (-1)

/*
 * Parse a verb's options (@argv[0] is the verb) into @opts, the struct its
 * kmemctl_opt offsets point into; *@json is set by --json before the verb
 * (@ctx) or after it.  A bad number is "kmemctl: VERB: bad --OPTION 'ARG':
 * RANGE".  Returns KMEMCTL_PARSED, or the exit status to return at once:
 * 0 after --help, KMEMCTL_EXIT_USAGE having said why.
 */
int kmemctl_parse(const struct kmemctl *ctx, const struct kmemctl_cli *cli,
		  int argc, char **argv, void *opts, bool *json);

/*
 * An option's argument the verb refuses: "kmemctl: VERB: bad --@name
 * '@arg': @range" (kmemctl_parse()'s wording for every number).
 * Returns KMEMCTL_EXIT_USAGE.
 */
int kmemctl_bad_value(const char *verb, const char *name, const char *arg,
		      const char *range);

/*
 * The operands after the options: at least @min (else "VERB: missing
 * @missing"), at most @max (else "VERB: unexpected argument 'X'").
 * Returns 0, or KMEMCTL_EXIT_USAGE having said why.
 */
int kmemctl_operands(const char *verb, int argc, char **argv, int min, int max,
		     const char *missing);

/*
 * The operands ADDR LEN (read, dump): exactly two, LEN a size from 1 to
 * @max (parse_size()).  Returns 0 with *@len set, or KMEMCTL_EXIT_USAGE
 * having said why ("VERB: bad LEN 'X': @range" past @max).
 */
int kmemctl_addr_len(const char *verb, int argc, char **argv, uint64_t max,
		     const char *range, uint64_t *len);

/* Report getopt_long()'s '?' or ':' result c in kmemctl's format; exit 2. */
int kmemctl_bad_option(int c, char **argv);

/* Flush stdout and report a write error (e.g. full disk) as exit 1. */
int kmemctl_finish(int status);

#endif /* KMEMCTL_H */
