/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one parser of numbers and addresses every kmemctl verb uses.
 *
 * Numbers are decimal, or hex after "0x"; a leading zero never means
 * octal ("010" is ten everywhere, as in kmemdev_parse_addr()'s offsets).
 * No sign, no blanks.  Sizes may end in K, M, G or T (KiB, MiB, GiB, TiB).
 *
 * Addresses are 0xHEX, SYMBOL, SYMBOL+OFF, SYMBOL-OFF, 0xHEX+OFF or
 * 0xHEX-OFF (OFF a number as above), as kmemdev_parse_addr() reads them.
 * A bare number is never an address: "1000" could be meant as hex.
 */
#ifndef KMEMCTL_PARSE_H
#define KMEMCTL_PARSE_H

#include <stdbool.h>
#include <stdint.h>

#include "kmemdev.h"

/* A number, @min to @max: 0, -EINVAL (malformed) or -ERANGE. */
int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *v);

/* parse_u64() with an optional K/M/G/T suffix (powers of 1024). */
int parse_size(const char *s, uint64_t min, uint64_t max, uint64_t *v);

/* Does @s look like "0x..." (an address without a symbol)? */
bool parse_is_hex(const char *s);

/*
 * An address expression, symbols looked up in @h.  On failure, prints
 * the one-line error "kmemctl: <verb>: bad address 'EXPR': <reason>" and
 * returns the exit status: KMEMCTL_EXIT_USAGE for a malformed
 * expression, KMEMCTL_EXIT_ERROR when the symbol lookup failed.
 */
int parse_addr_or_fail(struct kmemdev *h, const char *verb, const char *expr,
		       uint64_t *addr);

/*
 * "EXPR (0xADDR)" for an expression that names a symbol or an offset,
 * "0xADDR" otherwise: how errors name the object.  Returns @buf.
 */
const char *addr_label(char *buf, size_t len, const char *expr, uint64_t addr);

#endif /* KMEMCTL_PARSE_H */
