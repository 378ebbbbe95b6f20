// SPDX-License-Identifier: GPL-2.0
/* kmemctl sym: kernel symbols by name, or the symbol an address falls in. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "kmemctl.h"

/* "0x..." only: a bare hex string could also be a symbol name ("add"). */
static int parse_addr(const char *s, uint64_t *addr)
{
	char *end;

	if (strncmp(s, "0x", 2) && strncmp(s, "0X", 2))
		return -EINVAL;
	if (!s[2] || s[2] == '-' || s[2] == '+' || s[2] == ' ')
		return -EINVAL;
	errno = 0;
	*addr = strtoull(s + 2, &end, 16);
	if (errno || *end)
		return -EINVAL;
	return 0;
}

static int lookup_addr(struct kmemdev *h, const char *arg, uint64_t addr)
{
	const char *name;
	uint64_t off;
	int err;

	err = kmemdev_symbolize(h, addr, &name, &off);
	if (err == -ENOENT) {
		fprintf(stderr, "kmemctl: %s: no symbol at or below\n", arg);
		return KMEMCTL_EXIT_ERROR;
	}
	if (err) {
		kmemctl_err("/proc/kallsyms", err);
		return -1;
	}
	printf("0x%016" PRIx64 " %s+0x%" PRIx64 "\n", addr, name, off);
	return KMEMCTL_EXIT_OK;
}

static int lookup_name(struct kmemdev *h, const char *name)
{
	const struct kmemdev_sym *sym;
	int err;

	err = kmemdev_symbol_find(h, name, &sym);
	if (err == -ENOENT) {
		fprintf(stderr, "kmemctl: %s: symbol not found\n", name);
		return KMEMCTL_EXIT_ERROR;
	}
	if (err) {
		kmemctl_err("/proc/kallsyms", err);
		return -1;
	}
	printf("0x%016" PRIx64 " %c %s", sym->addr, sym->type, sym->name);
	if (sym->module)
		printf(" [%s]", sym->module);
	putchar('\n');
	return KMEMCTL_EXIT_OK;
}

int kmemctl_sym(const struct kmemctl *ctx, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int c, i, ret, status = KMEMCTL_EXIT_OK;
	struct kmemdev *h;
	uint64_t addr;

	while ((c = getopt_long(argc, argv, "+:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			printf("Usage: kmemctl [--device PATH] sym NAME|0xADDR...\n"
			       "  NAME    print ADDRESS TYPE NAME [module] from "
			       "/proc/kallsyms\n"
			       "          (vmlinux wins over modules on duplicate "
			       "names)\n"
			       "  0xADDR  print the nearest symbol at or below it "
			       "as NAME+0xOFFSET\n"
			       "Exit status 1 if any lookup fails.\n");
			return KMEMCTL_EXIT_OK;
		default:
			return kmemctl_bad_option(c, argv);
		}
	}
	if (optind >= argc)
		return kmemctl_usage_err("sym: missing symbol name or address");

	h = kmemctl_open(ctx);
	if (!h)
		return KMEMCTL_EXIT_ERROR;
	for (i = optind; i < argc; i++) {
		if (!parse_addr(argv[i], &addr))
			ret = lookup_addr(h, argv[i], addr);
		else
			ret = lookup_name(h, argv[i]);
		if (ret < 0) {
			/* The symbol table itself failed: no name can work. */
			status = KMEMCTL_EXIT_ERROR;
			break;
		}
		if (ret)
			status = ret;
	}
	kmemdev_close(h);
	return status;
}
