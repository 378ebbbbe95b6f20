// SPDX-License-Identifier: GPL-2.0
/* kmemctl's numbers and addresses: see parse.h for the grammar. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "kmemctl.h"
#include "parse.h"

bool parse_is_hex(const char *s)
{
	return s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
}

/* The number at the start of @s; *@end is the first character after it. */
static int digits(const char *s, uint64_t *v, const char **end)
{
	bool hex = parse_is_hex(s);
	const char *p = hex ? s + 2 : s;
	unsigned int base = hex ? 16 : 10;
	uint64_t n = 0;
	bool any = false;

	for (;; p++) {
		unsigned int d;

		if (*p >= '0' && *p <= '9')
			d = (unsigned int)(*p - '0');
		else if (hex && *p >= 'a' && *p <= 'f')
			d = (unsigned int)(*p - 'a' + 10);
		else if (hex && *p >= 'A' && *p <= 'F')
			d = (unsigned int)(*p - 'A' + 10);
		else
			break;
		if (n > (UINT64_MAX - d) / base)
			return -ERANGE;
		n = n * base + d;
		any = true;
	}
	if (!any)
		return -EINVAL;
	*v = n;
	*end = p;
	return 0;
}

/* A number, with a K/M/G/T suffix if @units says so (decimal only). */
static int number(const char *s, uint64_t min, uint64_t max, const char *units,
		  uint64_t *v)
{
	const char *end, *u;
	unsigned int shift;
	uint64_t n;
	int err;

	if (!s)
		return -EINVAL;
	err = digits(s, &n, &end);
	if (err)
		return err;
	/* "0x10K" would read as hex digits up to K: suffixes are decimal's */
	if (*end && units && !parse_is_hex(s)) {
		u = strchr(units, *end);
		if (!u || !*u || end[1])
			return -EINVAL;
		shift = 10 * (unsigned int)(u - units + 1);
		if (n > UINT64_MAX >> shift)
			return -ERANGE;
		n <<= shift;
	} else if (*end) {
		return -EINVAL;
	}
	if (n < min || n > max)
		return -ERANGE;
	*v = n;
	return 0;
}

int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *v)
{
	return number(s, min, max, NULL, v);
}

int parse_size(const char *s, uint64_t min, uint64_t max, uint64_t *v)
{
	return number(s, min, max, "KMGT", v);
}

int parse_addr_or_fail(struct kmemdev *h, const char *verb, const char *expr,
		       uint64_t *addr)
{
	int err = kmemdev_parse_addr(h, expr, addr);

	if (!err)
		return KMEMCTL_EXIT_OK;
	if (err == -EINVAL)
		return kmemctl_usage_err("%s: bad address '%.60s': use 0xHEX or "
					 "SYMBOL[+-OFF]", verb, expr);
	if (err == -ERANGE)
		return kmemctl_usage_err("%s: bad address '%.60s': past 64 bits",
					 verb, expr);
	kmemctl_err(KMEMDEV_OP_SYMBOL, err, "%s %.60s", verb, expr);
	return KMEMCTL_EXIT_ERROR;
}

const char *addr_label(char *buf, size_t len, const char *expr, uint64_t addr)
{
	if (parse_is_hex(expr) && !strpbrk(expr, "+-"))
		snprintf(buf, len, "0x%" PRIx64, addr);
	else
		snprintf(buf, len, "%.48s (0x%" PRIx64 ")", expr, addr);
	return buf;
}
