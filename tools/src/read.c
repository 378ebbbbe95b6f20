// SPDX-License-Identifier: GPL-2.0
/* kmemctl read: kernel memory as a hexdump with symbols, or raw bytes. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "kmemctl.h"
#include "mem.h"
#include "parse.h"
#include "read_words.h"

#define READ_MAX	(64ULL << 20)	/* 64 MiB */
#define LINE_BYTES	16

static char *put_hex(char *p, uint64_t v, int digits)
{
	static const char xd[] = "0123456789abcdef";
	int i;

	for (i = digits - 1; i >= 0; i--) {
		p[i] = xd[v & 0xf];
		v >>= 4;
	}
	return p + digits;
}

/*
 * "ffffffff81000000  48 8d 25 51 3f 60 01 48  8d 3d ...  |H.%Q?`.H.=......|"
 * as hexdump -C lays it out; a short last line keeps the columns.
 */
static void hex_line(FILE *f, uint64_t addr, const unsigned char *b, size_t n)
{
	char line[16 + 2 + LINE_BYTES * 3 + 1 + 1 + LINE_BYTES + 2 + 1];
	char *p = put_hex(line, addr, 16);
	size_t i;

	*p++ = ' ';
	for (i = 0; i < LINE_BYTES; i++) {
		if (i == LINE_BYTES / 2)
			*p++ = ' ';
		*p++ = ' ';
		if (i < n) {
			p = put_hex(p, b[i], 2);
		} else {
			*p++ = ' ';
			*p++ = ' ';
		}
	}
	*p++ = ' ';
	*p++ = ' ';
	*p++ = '|';
	for (i = 0; i < n; i++)
		*p++ = b[i] >= 0x20 && b[i] < 0x7f ? (char)b[i] : '.';
	*p++ = '|';
	*p++ = '\n';
	fwrite(line, 1, p - line, f);
}

/*
 * Symbols are shown only inside the kernel image: kallsyms has no sizes,
 * so a direct-map address would "resolve" to the last per-CPU offset.
 */
struct annot {
	struct kmemdev *h;
	uint64_t start, end;	/* image window, [text_start, modules_start) */
	bool on;
	const char *last_name;	/* symbol announced last, NULL for none */
	uint64_t last_addr;
};

static void annotate(struct annot *a, uint64_t addr)
{
	const struct kmemdev_sym *sym;
	const char *name;
	uint64_t off;
	int err;

	if (!a->on || addr < a->start || addr >= a->end) {
		a->last_name = NULL;
		return;
	}
	err = kmemdev_symbolize(a->h, addr, &sym, &off);
	if (err) {
		/* Below every symbol: none here.  Anything else: none at all. */
		if (err != -ENOENT)
			a->on = false;
		a->last_name = NULL;
		return;
	}
	name = sym->name;
	if (name == a->last_name && addr - off == a->last_addr)
		return;
	a->last_name = name;
	a->last_addr = addr - off;
	printf("<%s+0x%" PRIx64 ">:\n", name, off);
}

static void hexdump(struct kmemdev *h, uint64_t addr,
		    const unsigned char *buf, size_t len)
{
	KMEMDEV_ARG(kmem_ro_info, info);
	struct annot a = { .h = h };
	size_t i, n;

	if (kmemdev_info(h, &info, NULL, 0) >= 0) {
		a.start = info.text_start;
		a.end = info.modules_start;
		a.on = a.start < a.end;
	}
	for (i = 0; i < len; i += n) {
		n = len - i < LINE_BYTES ? len - i : LINE_BYTES;
		annotate(&a, addr + i);
		hex_line(stdout, addr + i, buf + i, n);
	}
}

static void help(void)
{
	printf("Usage: kmemctl [--device PATH] read ADDR LEN [--raw|--json] "
	       "[--words N]\n"
	       "Read LEN bytes of kernel memory at ADDR: the direct map and "
	       "the kernel image\n"
	       "through the device's read-only mmap, vmalloc, module and "
	       "per-CPU memory with\n"
	       "its READV ioctl; /proc/kcore when the device is absent.\n"
	       "  ADDR        0xHEX, SYMBOL, SYMBOL+OFF or SYMBOL-OFF (OFF: 0x "
	       "hex or decimal;\n"
	       "              010 is ten); a bare number is refused: write hex "
	       "as 0x...\n"
	       "  LEN         decimal or 0x hex, K/M suffix allowed, at most "
	       "64 MiB\n"
	       "  -r, --raw   write the bytes as they are to stdout\n"
	       "  -j, --json  {addr, size, hex}: the bytes as one hex string\n"
	       "  -w, --words N  N-bit words (8, 16, 32 or 64), as crash's "
	       "rd -N: 64-bit ones\n"
	       "              that point into the kernel image or a module "
	       "with <symbol+0xoff>;\n"
	       "              LEN a multiple of the word; JSON {addr, size, "
	       "word_bits,\n"
	       "              words: [{addr, value, symbol}]}\n"
	       "Default output is a hexdump, 16 bytes a line, with a "
	       "<symbol+0xoff>: line\n"
	       "wherever the nearest kernel symbol changes.  Errors say what "
	       "the address is:\n"
	       "not mapped (a hole), not System RAM (ioremap, MMIO), RAM the "
	       "kernel hides.\n");
}

static void print_json(uint64_t addr, const unsigned char *buf, size_t len)
{
	static const char xd[] = "0123456789abcdef";
	struct json j;
	size_t i;

	json_init(&j, stdout);
	json_object_begin(&j, NULL);
	json_hex(&j, "addr", addr);
	json_u64(&j, "size", len);
	/* a hex string is valid JSON for any bytes, and short */
	fputs(",\"hex\":\"", stdout);
	for (i = 0; i < len; i++) {
		putchar(xd[buf[i] >> 4]);
		putchar(xd[buf[i] & 0xf]);
	}
	putchar('"');
	json_object_end(&j);
}

struct read_opts {
	bool raw;
	uint64_t words;		/* --words: 8 to 64, 0 for a hexdump */
};

int kmemctl_read(const struct kmemctl *ctx, int argc, char **argv)
{
	static const struct kmemctl_opt opts[] = {
		KMEMCTL_FLAG("raw", 'r', struct read_opts, raw),
		KMEMCTL_U64("words", 'w', struct read_opts, words, 8, 64,
			    read_words_valid, "8, 16, 32 or 64"),
		{ NULL }
	};
	/* No in_order: options may follow the operands ("read ADDR LEN --raw"). */
	static const struct kmemctl_cli cli = {
		.verb = "read", .help = help, .opts = opts, .max = -1,
	};
	struct read_opts o = { 0 };
	unsigned char *buf = NULL;
	bool raw, json;
	int status;
	struct kmemdev *h;
	const char *expr;
	char what[160], label[128];
	uint64_t addr, len, words;

	status = kmemctl_parse(ctx, &cli, argc, argv, &o, &json);
	if (status != KMEMCTL_PARSED)
		return status;
	raw = o.raw;
	words = o.words;
	if (kmemctl_addr_len("read", argc, argv, READ_MAX, "must be 1 to 64 MiB", &len))
		return KMEMCTL_EXIT_USAGE;
	if (raw && json)
		return kmemctl_usage_err("read: --raw or --json, not both");
	if (raw && words)
		return kmemctl_usage_err("read: --raw or --words, not both");
	expr = argv[optind];
	if (words && len % (words / 8))
		return kmemctl_usage_err("read: LEN %" PRIu64 " is not a "
					 "multiple of %" PRIu64 "-bit words",
					 len, words);

	status = mem_open_at(ctx, "read", expr, &h, &addr);
	if (status)
		goto out;
	/* Say which address SYMBOL or an offset came to. */
	snprintf(what, sizeof(what), "read %s",
		 addr_label(label, sizeof(label), expr, addr));
	if (len - 1 > UINT64_MAX - addr) {
		status = kmemctl_usage_err("%s: + LEN wraps past the end of the "
					   "address space", what);
		goto out;
	}

	buf = malloc(len);
	if (!buf) {
		kmemctl_err(KMEMDEV_OP_ANY, -ENOMEM, "%s", what);
		status = KMEMCTL_EXIT_ERROR;
		goto out;
	}
	if (mem_read(h, what, addr, buf, len)) {
		status = KMEMCTL_EXIT_ERROR;
		goto out;
	}
	if (raw)
		fwrite(buf, 1, len, stdout);
	else if (words)
		read_words_print(h, addr, buf, len, (unsigned int)words, json);
	else if (json)
		print_json(addr, buf, len);
	else
		hexdump(h, addr, buf, len);
	status = KMEMCTL_EXIT_OK;
out:
	free(buf);
	kmemdev_close(h);
	return status;
}
