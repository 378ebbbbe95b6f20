// SPDX-License-Identifier: GPL-2.0
/* kmemctl: command-line front end to /dev/kmem_ro. */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kmemctl.h"

#ifndef KMEMCTL_VERSION
#define KMEMCTL_VERSION "unknown"
#endif

static const struct verb {
	const char *name;
	kmemctl_verb_fn fn;
	const char *args;
	const char *help;
} verbs[] = {
	{ "info", kmemctl_info, "[--json]",
	  "ABI version, features and kernel memory layout" },
	{ "sym", kmemctl_sym, "NAME|ADDR... [--json]",
	  "symbol address by name, or the symbol an address is in" },
	{ "read", kmemctl_read, "ADDR LEN [--raw|--json]",
	  "kernel memory at 0xADDR or SYMBOL[+-OFF], as a hexdump" },
	{ "struct", kmemctl_struct, "TYPE[.MEMBER] ADDR",
	  "a kernel object printed by its BTF type (struct --help)" },
	{ "list", kmemctl_list, "TYPE.MEMBER HEAD",
	  "every node of a kernel list, chosen fields (list --help)" },
	{ "tree", kmemctl_tree, "TYPE.MEMBER ROOT",
	  "every node of a red-black tree, in order (tree --help)" },
	{ "modules", kmemctl_modules, "[--json]",
	  "loaded modules from the kernel's module list" },
	{ "dump", kmemctl_dump, "ADDR LEN -o FILE",
	  "kernel memory of any size straight to a file" },
	{ "dmesg", kmemctl_dmesg, "[--json]",
	  "the kernel log from the printk ring buffer in memory" },
	{ "whatis", kmemctl_whatis, "ADDR [--json]",
	  "symbol, task stack, slab object, page or vmalloc area at ADDR" },
	{ "ps", kmemctl_ps, "[OPTIONS]",
	  "processes from the kernel's task list (ps --help)" },
	{ "pagemap", kmemctl_pagemap, "PID [START-END]",
	  "page-table entries of a process (pagemap --help)" },
	{ "probe", kmemctl_probe, "top|count|list",
	  "count kernel function calls with bulk probes (probe --help)" },
	{ "watch", kmemctl_watch, "[--json]",
	  "module load/unload and probe snapshot events, live (watch --help)" },
};

static void usage(FILE *f)
{
	size_t i;

	fprintf(f,
		"Usage: kmemctl [OPTIONS] VERB [ARGS]\n"
		"Read-only access to live kernel memory through %s.\n"
		"\n"
		"Verbs:\n", KMEM_RO_DEVICE);
	for (i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		fprintf(f, "  %-7s %-23s %s\n", verbs[i].name, verbs[i].args,
			verbs[i].help);
	fprintf(f,
		"\n"
		"Options (-j and -h also after the verb):\n"
		"  -d, --device PATH  device node (default %s)\n"
		"  -j, --json         JSON output, for verbs that print data\n"
		"  -h, --help         show this help, or with a VERB its help, "
		"and exit\n"
		"  -V, --version      show the version and exit\n"
		"\n"
		"Numbers are decimal or 0x hex (010 is ten); addresses are 0xHEX, "
		"SYMBOL,\n"
		"SYMBOL+OFF or SYMBOL-OFF.  Ranges are printed half-open: "
		"START-END excludes END.\n"
		"read, struct, list, modules and dump use /proc/kcore when the "
		"device is absent\n"
		"(and no --device was given); sym reads only symbols, struct "
		"--type-only only\n"
		"the kernel's BTF.\n"
		"Exit status: 0 success, 1 error, 2 usage error.\n",
		KMEM_RO_DEVICE);
}

/* "kmemctl: " and @fmt on stderr; the caller ends the line. */
static void say(const char *fmt, va_list ap)
{
	fputs("kmemctl: ", stderr);
	vfprintf(stderr, fmt, ap);
}

void kmemctl_err(enum kmemdev_op op, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(fmt, ap);
	va_end(ap);
	fprintf(stderr, ": %s\n", kmemdev_strerror(op, err));
}

void kmemctl_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int kmemctl_usage_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(fmt, ap);
	va_end(ap);
	fputs(" (see kmemctl --help)\n", stderr);
	return KMEMCTL_EXIT_USAGE;
}

struct kmemdev *kmemctl_open(const struct kmemctl *ctx)
{
	/* These verbs speak to the device: no silent /proc/kcore fallback. */
	KMEMDEV_OPTS(kmemdev_open_opts, opts, .path = ctx->device,
		     .backend = KMEMDEV_BACKEND_DEVICE);
	struct kmemdev *h;
	int err;

	err = kmemdev_open(&h, &opts);
	if (err) {
		kmemctl_err(KMEMDEV_OP_OPEN, err, "open %s", ctx->device);
		return NULL;
	}
	return h;
}

struct kmemdev *kmemctl_open_dev(const struct kmemctl *ctx, const char *verb,
				 const char *why)
{
	KMEMDEV_OPTS(kmemdev_open_opts, opts, .path = ctx->device,
		     .backend = KMEMDEV_BACKEND_DEVICE);
	struct kmemdev *h;
	int err;

	err = kmemdev_open(&h, &opts);
	if (!err)
		return h;
	if (err == -ENOENT || err == -ENXIO || err == -ENODEV)
		kmemctl_fail("%s: no %s (modprobe kmem_ro): %s", verb,
			     ctx->device, why);
	else
		kmemctl_err(KMEMDEV_OP_OPEN, err, "%s: open %s", verb,
			    ctx->device);
	return NULL;
}

int kmemctl_finish(int status)
{
	/* A full disk or closed pipe must not look like success. */
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "kmemctl: write error: %s\n", strerror(errno));
		return KMEMCTL_EXIT_ERROR;
	}
	return status;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "device",  required_argument, NULL, 'd' },
		{ "json",    no_argument,       NULL, 'j' },
		{ "help",    no_argument,       NULL, 'h' },
		{ "version", no_argument,       NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct kmemctl ctx = { .device = KMEM_RO_DEVICE };
	char *verb_help[3] = { NULL, "--help", NULL };
	bool help = false;
	const char *name;
	size_t i;
	int c;

	opterr = 0;
	/* '+': stop at the verb, whose options are its own. */
	while ((c = getopt_long(argc, argv, "+:d:jhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			if (!*optarg)
				return kmemctl_usage_err("empty --device path");
			ctx.device = optarg;
			ctx.device_given = true;
			break;
		case 'j':
			ctx.json = true;
			break;
		case 'h':
			help = true;
			break;
		case 'V':
			printf("kmemctl %s (kmem_ro ABI %d)\n", KMEMCTL_VERSION,
			       KMEM_RO_ABI_VERSION);
			return kmemctl_finish(KMEMCTL_EXIT_OK);
		default:
			return kmemctl_bad_option(c, argv);
		}
	}
	if (help && optind >= argc) {
		usage(stdout);
		return kmemctl_finish(KMEMCTL_EXIT_OK);
	}
	if (optind >= argc)
		return kmemctl_usage_err("missing verb");

	name = argv[optind];
	if (!strcmp(name, "help")) {
		usage(stdout);
		return kmemctl_finish(KMEMCTL_EXIT_OK);
	}
	for (i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++) {
		if (!strcmp(name, verbs[i].name)) {
			argc -= optind;
			argv += optind;
			if (help) {	/* "kmemctl --help VERB" is "VERB --help" */
				verb_help[0] = argv[0];
				argc = 2;
				argv = verb_help;
			}
			optind = 0;	/* glibc: full rescan for the verb */
			return kmemctl_finish(verbs[i].fn(&ctx, argc, argv));
		}
	}
	return kmemctl_usage_err("unknown verb '%s'", name);
}
