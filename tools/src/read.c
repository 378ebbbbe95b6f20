// SPDX-License-Identifier: GPL-2.0
/* kmemctl read: kernel memory as a hexdump with symbols, or raw bytes. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "kmemctl.h"

#define READ_MAX	(64ULL << 20)	/* 64 MiB */
#define LINE_BYTES	16

/* LEN: decimal or 0x hex, 1 .. READ_MAX; nothing else (no signs, blanks). */
static int parse_len(const char *s, size_t *len)
{
	bool hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	const char *p = hex ? s + 2 : s;
	uint64_t v = 0;

	if (!*p)
		return -EINVAL;
	for (; *p; p++) {
		unsigned int d;

		if (*p >= '0' && *p <= '9')
			d = *p - '0';
		else if (hex && *p >= 'a' && *p <= 'f')
			d = *p - 'a' + 10;
		else if (hex && *p >= 'A' && *p <= 'F')
			d = *p - 'A' + 10;
		else
			return -EINVAL;
		v = v * (hex ? 16 : 10) + d;
		if (v > READ_MAX)
			return -ERANGE;
	}
	if (!v)
		return -ERANGE;
	*len = (size_t)v;
	return 0;
}

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
	const char *name;
	uint64_t off;
	int err;

	if (!a->on || addr < a->start || addr >= a->end) {
		a->last_name = NULL;
		return;
	}
	err = kmemdev_symbolize(a->h, addr, &name, &off);
	if (err) {
		/* Below every symbol: none here.  Anything else: none at all. */
		if (err != -ENOENT)
			a->on = false;
		a->last_name = NULL;
		return;
	}
	if (name == a->last_name && addr - off == a->last_addr)
		return;
	a->last_name = name;
	a->last_addr = addr - off;
	printf("<%s+0x%" PRIx64 ">:\n", name, off);
}

static void hexdump(struct kmemdev *h, uint64_t addr,
		    const unsigned char *buf, size_t len)
{
	struct kmem_ro_info info;
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

static int read_error(struct kmemdev *h, const char *what, int err)
{
	struct kmem_ro_info info;

	if (err == -EOPNOTSUPP) {
		fprintf(stderr, "kmemctl: %s: not mappable (this kmem_ro driver "
			"offers no mmap)\n", what);
		return KMEMCTL_EXIT_ERROR;
	}
	if (err != -ENXIO) {
		kmemctl_err(what, err);
		return KMEMCTL_EXIT_ERROR;
	}
	if (kmemdev_info(h, &info, NULL, 0) >= 0 &&
	    !(info.features & KMEM_RO_FEAT_MMAP_RAM))
		fprintf(stderr, "kmemctl: %s: not mappable (mmap_ram=0: only "
			"kernel text is; other memory needs the READV ioctl)\n",
			what);
	else
		fprintf(stderr, "kmemctl: %s: not mappable (vmalloc/module "
			"memory needs the READV ioctl)\n", what);
	return KMEMCTL_EXIT_ERROR;
}

static void help(void)
{
	printf("Usage: kmemctl [--device PATH] read ADDR LEN [--raw]\n"
	       "Read LEN bytes of kernel memory at ADDR through the device's "
	       "read-only mmap.\n"
	       "  ADDR       0xHEX, SYMBOL, SYMBOL+OFF or SYMBOL-OFF (OFF: 0x "
	       "hex or decimal);\n"
	       "             a bare number is refused: write hex as 0x...\n"
	       "  LEN        decimal or 0x hex, at most 64 MiB\n"
	       "  -r, --raw  write the bytes as they are to stdout\n"
	       "Default output is a hexdump, 16 bytes a line, with a "
	       "<symbol+0xoff>: line\n"
	       "wherever the nearest kernel symbol changes.  Only the direct "
	       "map of System RAM\n"
	       "and the kernel image are readable; vmalloc and module memory "
	       "are not.\n");
}

int kmemctl_read(const struct kmemctl *ctx, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "raw",  no_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *expr, *what;
	unsigned char *buf = NULL;
	int c, err, status;
	struct kmemdev *h;
	char label[256];
	bool raw = false;
	uint64_t addr;
	size_t len;

	/* No '+': options may follow the operands ("read ADDR LEN --raw"). */
	while ((c = getopt_long(argc, argv, ":rh", longopts, NULL)) != -1) {
		switch (c) {
		case 'r':
			raw = true;
			break;
		case 'h':
			help();
			return KMEMCTL_EXIT_OK;
		default:
			return kmemctl_bad_option(c, argv);
		}
	}
	if (argc - optind < 2)
		return kmemctl_usage_err("read: missing %s",
					 argc == optind ? "ADDR and LEN" : "LEN");
	if (argc - optind > 2)
		return kmemctl_usage_err("read: unexpected argument '%s'",
					 argv[optind + 2]);
	expr = argv[optind];
	err = parse_len(argv[optind + 1], &len);
	if (err)
		return kmemctl_usage_err("read: bad LEN '%s': %s",
					 argv[optind + 1], err == -ERANGE ?
					 "must be 1 to 64 MiB" :
					 "use decimal or 0x hex");

	h = kmemctl_open(ctx);
	if (!h)
		return KMEMCTL_EXIT_ERROR;

	err = kmemdev_parse_addr(h, expr, &addr);
	if (err == -EINVAL || err == -ERANGE) {
		status = kmemctl_usage_err("read: bad ADDR '%s': %s", expr,
					   err == -ERANGE ? "out of range" :
					   "use 0xHEX or SYMBOL[+-OFF]");
		goto out;
	}
	if (err == -ENOENT) {
		fprintf(stderr, "kmemctl: %s: symbol not found\n", expr);
		status = KMEMCTL_EXIT_ERROR;
		goto out;
	}
	if (err) {
		kmemctl_err("/proc/kallsyms", err);
		status = KMEMCTL_EXIT_ERROR;
		goto out;
	}
	/* Say which address SYMBOL or an offset came to. */
	what = expr;
	if ((strncmp(expr, "0x", 2) && strncmp(expr, "0X", 2)) ||
	    strpbrk(expr, "+-")) {
		snprintf(label, sizeof(label), "%.200s (0x%" PRIx64 ")", expr,
			 addr);
		what = label;
	}
	if (len - 1 > UINT64_MAX - addr) {
		status = kmemctl_usage_err("read: %s + LEN wraps past the end "
					   "of the address space", what);
		goto out;
	}

	buf = malloc(len);
	if (!buf) {
		kmemctl_err("read", -ENOMEM);
		status = KMEMCTL_EXIT_ERROR;
		goto out;
	}
	err = kmemdev_read(h, addr, buf, len);
	if (err) {
		status = read_error(h, what, err);
		goto out;
	}
	if (raw)
		fwrite(buf, 1, len, stdout);
	else
		hexdump(h, addr, buf, len);
	status = KMEMCTL_EXIT_OK;
out:
	free(buf);
	kmemdev_close(h);
	return status;
}
