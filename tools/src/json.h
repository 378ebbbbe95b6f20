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

#define JSON_MAX_DEPTH 16

struct json {
	FILE *f;
	int depth;
	bool first[JSON_MAX_DEPTH];	/* nothing written yet at this level */
	bool array[JSON_MAX_DEPTH];	/* level is an array: no keys */
};

void json_init(struct json *j, FILE *f);
/* Print s as a quoted JSON string, escaping quotes, backslash, controls. */
void json_string(FILE *f, const char *s);

void json_object_begin(struct json *j, const char *key);
void json_object_end(struct json *j);
void json_array_begin(struct json *j, const char *key);
void json_array_end(struct json *j);

void json_str(struct json *j, const char *key, const char *val);
void json_u64(struct json *j, const char *key, uint64_t val);
/* 64-bit addresses and masks as "0x%016llx" strings: JSON numbers are
 * doubles to many readers and would lose the low bits. */
void json_hex(struct json *j, const char *key, uint64_t val);

#endif /* KMEMCTL_JSON_H */
