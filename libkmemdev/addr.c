// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Address expressions as users type them: 0xHEX, SYMBOL, SYMBOL+OFF,
 * SYMBOL-OFF.  The whole expression is checked before any symbol lookup,
 * so a typo never costs a /proc/kallsyms load.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool has_hex_prefix(const char *s, size_t n)
{
	return n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
}

/*
 * s[0..n): "0x" followed by hex digits or, if decimal is allowed, decimal
 * digits.  -EINVAL for anything else (signs, blanks, an empty number),
 * -ERANGE for a well-formed number above UINT64_MAX.
 */
static int parse_num(const char *s, size_t n, bool decimal, uint64_t *out)
{
	bool hex = has_hex_prefix(s, n);
	unsigned int base = hex ? 16 : 10;
	uint64_t v = 0;
	size_t i, first = hex ? 2 : 0;

	if (!hex && !decimal)
		return -EINVAL;
	if (n <= first)
		return -EINVAL;
	for (i = first; i < n; i++)
		if (hex ? hex_digit(s[i]) < 0 : !is_digit(s[i]))
			return -EINVAL;
	for (i = first; i < n; i++) {
		unsigned int d = (unsigned int)hex_digit(s[i]);

		if (v > (UINT64_MAX - d) / base)
			return -ERANGE;
		v = v * base + d;
	}
	*out = v;
	return 0;
}

/*
 * Symbol names as kallsyms prints them: no blanks, no control characters.
 * (A leading digit never gets here: that is a number.)
 */
static bool valid_name(const char *s, size_t n)
{
	size_t i;

	if (!n)
		return false;
	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] <= ' ' || s[i] == 0x7f)
			return false;
	return true;
}

int kmemdev_parse_addr(struct kmemdev *h, const char *expr, uint64_t *addr)
{
	uint64_t base, off = 0;
	const char *op;
	size_t base_len;
	char *name;
	int err;

	if (!h || !expr || !addr)
		return -EINVAL;
	/* Neither '+' nor '-' can appear in a symbol name or a number. */
	op = expr + strcspn(expr, "+-");
	base_len = op - expr;
	if (*op) {
		err = parse_num(op + 1, strlen(op + 1), true, &off);
		if (err)
			return err;
	}

	if (base_len && is_digit(expr[0])) {
		/* A number: hex with 0x only, see kmemdev.h. */
		err = parse_num(expr, base_len, false, &base);
		if (err)
			return err;
	} else {
		if (!valid_name(expr, base_len))
			return -EINVAL;
		name = strndup(expr, base_len);
		if (!name)
			return -ENOMEM;
		err = kmemdev_symbol(h, name, &base);
		free(name);
		if (err)
			return err;
	}

	if (*op == '-' ? off > base : off > UINT64_MAX - base)
		return -ERANGE;
	*addr = *op == '-' ? base - off : base + off;
	return 0;
}
