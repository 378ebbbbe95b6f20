/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal streaming JSON writer: enough for kmemctl's flat output.
 * Commas are inserted automatically; keys are ignored inside arrays.
 */
#ifndef KMEMCTL_JSON_H
#define KMEMCTL_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 64

struct json {
	FILE *f;
	int depth;
	bool first[JSON_MAX_DEPTH];	/* nothing written yet at this level */
	bool array[JSON_MAX_DEPTH];	/* level is an array: no keys */
};

void json_init(struct json *j, FILE *f);
/*
 * Print s as a quoted JSON string, escaping quotes, backslash, controls.
 * Any bytes give valid JSON: a byte that is not part of well-formed UTF-8
 * is written as \u00XX (the byte's value as a code point).
 */
void json_string(FILE *f, const char *s);
/* The same for @n bytes that may hold NULs (written as \u0000). */
void json_string_n(FILE *f, const void *s, size_t n);

/*
 * Length of the well-formed UTF-8 sequence at @p (at most @n bytes): 1 to
 * 4, or 0 if the bytes there are not one (overlong, surrogate, truncated).
 */
size_t utf8_seq_len(const unsigned char *p, size_t n);

/*
 * @n bytes as a double-quoted string for humans: printable ASCII and
 * well-formed UTF-8 as they are, '"' and '\\' escaped, anything else as
 * \xNN, so no byte can reach the terminal as a control.
 */
void text_quoted(FILE *f, const void *s, size_t n);

void json_object_begin(struct json *j, const char *key);
void json_object_end(struct json *j);
void json_array_begin(struct json *j, const char *key);
void json_array_end(struct json *j);

void json_str(struct json *j, const char *key, const char *val);
void json_u64(struct json *j, const char *key, uint64_t val);
void json_i64(struct json *j, const char *key, int64_t val);
void json_bool(struct json *j, const char *key, bool val);
void json_null(struct json *j, const char *key);
/* A string of @n bytes (see json_string_n()). */
void json_str_n(struct json *j, const char *key, const void *val, size_t n);
/* A number with @decimals digits after the point (rates, seconds). */
void json_fixed(struct json *j, const char *key, double val, int decimals);
/* 64-bit addresses and masks as "0x%016llx" strings: JSON numbers are
 * doubles to many readers and would lose the low bits. */
void json_hex(struct json *j, const char *key, uint64_t val);

#endif /* KMEMCTL_JSON_H */
