// SPDX-License-Identifier: GPL-2.0
/* kmemctl sym: kernel symbols by name, or the symbol an address falls in. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "kmemctl.h"
#include "mem.h"
#include "parse.h"

/* An address expression rather than a bare name: 0x..., NAME+OFF, NAME-OFF. */
static bool is_expr(const char *s)
{
	return parse_is_hex(s) || (s[0] && strpbrk(s + 1, "+-"));
}

static void json_sym(struct json *j, const char *query, uint64_t addr,
		     const struct kmemdev_sym *sym, uint64_t off, bool by_addr)
{
	char t[2] = { sym->type, 0 };

	json_object_begin(j, NULL);
	json_str(j, "query", query);
	json_hex(j, "addr", addr);
	json_str(j, "name", sym->name);
	json_str(j, "module", sym->module);
	json_str(j, "type", t);
	if (by_addr) {
		json_hex(j, "symbol_addr", sym->addr);
		json_u64(j, "offset", off);
	}
	json_object_end(j);
}

static int lookup_addr(struct kmemdev *h, struct json *j, const char *arg)
{
	const struct kmemdev_sym *sym;
	uint64_t addr, off;
	int err;

	err = parse_addr_or_fail(h, "sym", arg, &addr);
	if (err)
		return err == KMEMCTL_EXIT_USAGE ? KMEMCTL_EXIT_ERROR : err;
	err = kmemdev_symbolize(h, addr, &sym, &off);
	if (err) {
		kmemctl_err(KMEMDEV_OP_SYMBOLIZE, err, "sym %.60s", arg);
		/* ENOENT: this address; anything else: every lookup */
		return err == -ENOENT ? KMEMCTL_EXIT_ERROR : -1;
	}
	if (j) {
		json_sym(j, arg, addr, sym, off, true);
		return KMEMCTL_EXIT_OK;
	}
	printf("0x%016" PRIx64 " %s+0x%" PRIx64, addr, sym->name, off);
	if (sym->module)
		printf(" [%s]", sym->module);
	putchar('\n');
	return KMEMCTL_EXIT_OK;
}

static int lookup_name(struct kmemdev *h, struct json *j, const char *name)
{
	const struct kmemdev_sym *sym;
	int err;

	err = kmemdev_symbol_find(h, name, &sym);
	if (err) {
		kmemctl_err(KMEMDEV_OP_SYMBOL, err, "sym %.60s", name);
		return err == -ENOENT ? KMEMCTL_EXIT_ERROR : -1;
	}
	if (j) {
		json_sym(j, name, sym->addr, sym, 0, false);
		return KMEMCTL_EXIT_OK;
	}
	printf("0x%016" PRIx64 " %c %s", sym->addr, sym->type, sym->name);
	if (sym->module)
		printf(" [%s]", sym->module);
	putchar('\n');
	return KMEMCTL_EXIT_OK;
}

static void help(void)
{
	printf("Usage: kmemctl [--device PATH] sym NAME|ADDR... [--json]\n"
	       "  NAME    print ADDRESS TYPE NAME [module] as /proc/kallsyms has it\n"
	       "          (vmlinux wins over modules on duplicate names)\n"
	       "  ADDR    0xHEX, NAME+OFF or NAME-OFF (OFF: 0x hex or decimal; "
	       "010 is ten):\n"
	       "          print the address and the nearest symbol at or below "
	       "it as\n"
	       "          ADDRESS NAME+0xOFFSET [module]\n"
	       "  -j, --json  a JSON array of {query, addr, name, module, type"
	       "[, symbol_addr,\n"
	       "              offset]}; failed lookups are left out\n"
	       "Symbols come from the kernel's kallsyms tables through the "
	       "device (for the\n"
	       "device's group), or /proc/kallsyms where it shows real "
	       "addresses.  Exit status 1\n"
	       "if any lookup fails.\n");
}

int kmemctl_sym(const struct kmemctl *ctx, int argc, char **argv)
{
	static const struct kmemctl_cli cli = {
		.verb = "sym", .help = help, .min = 1, .max = INT_MAX,
		.missing = "symbol name or address",
	};
	int i, ret, status = KMEMCTL_EXIT_OK;
	struct json j, *jp;
	struct kmemdev *h;
	bool json;

	ret = kmemctl_parse(ctx, &cli, argc, argv, NULL, &json);
	if (ret != KMEMCTL_PARSED)
		return ret;
	jp = json ? &j : NULL;

	h = mem_open(ctx, "sym");
	if (!h)
		return KMEMCTL_EXIT_ERROR;
	if (jp) {
		json_init(jp, stdout);
		json_array_begin(jp, NULL);
	}
	for (i = optind; i < argc; i++) {
		if (is_expr(argv[i]))
			ret = lookup_addr(h, jp, argv[i]);
		else
			ret = lookup_name(h, jp, argv[i]);
		if (ret < 0) {
			/* The symbol table itself failed: no name can work. */
			status = KMEMCTL_EXIT_ERROR;
			break;
		}
		if (ret)
			status = ret;
	}
	if (jp)
		json_array_end(jp);
	kmemdev_close(h);
	return status;
}
