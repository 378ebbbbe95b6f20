// SPDX-License-Identifier: GPL-2.0
#include <assert.h>
#include <inttypes.h>
#include <string.h>

#include "json.h"

void json_init(struct json *j, FILE *f)
{
	j->f = f;
	j->depth = 0;
	j->first[0] = true;
	j->array[0] = false;
}

size_t utf8_seq_len(const unsigned char *p, size_t n)
{
	size_t len, i;
	uint32_t cp;

	if (!n)
		return 0;
	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf) {
		len = 2;
		cp = p[0] & 0x1f;
	} else if (p[0] >= 0xe0 && p[0] <= 0xef) {
		len = 3;
		cp = p[0] & 0x0f;
	} else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		len = 4;
		cp = p[0] & 0x07;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	/* overlong forms, UTF-16 surrogates, past U+10FFFF */
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return len;
}

void json_string_n(FILE *f, const void *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = s, *end = p + n;

	fputc('"', f);
	while (p < end) {
		size_t len;

		switch (*p) {
		case '"':  fputs("\\\"", f); p++; continue;
		case '\\': fputs("\\\\", f); p++; continue;
		case '\b': fputs("\\b", f); p++; continue;
		case '\f': fputs("\\f", f); p++; continue;
		case '\n': fputs("\\n", f); p++; continue;
		case '\r': fputs("\\r", f); p++; continue;
		case '\t': fputs("\\t", f); p++; continue;
		}
		len = utf8_seq_len(p, (size_t)(end - p));
		if (*p < 0x20 || !len) {
			fputs("\\u00", f);
			fputc(hex[*p >> 4], f);
			fputc(hex[*p & 0xf], f);
			p++;
			continue;
		}
		fwrite(p, 1, len, f);
		p += len;
	}
	fputc('"', f);
}

void json_string(FILE *f, const char *s)
{
	json_string_n(f, s, strlen(s));
}

void text_quoted(FILE *f, const void *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = s, *end = p + n;

	fputc('"', f);
	while (p < end) {
		size_t len = utf8_seq_len(p, (size_t)(end - p));

		if (*p == '"' || *p == '\\') {
			fputc('\\', f);
			fputc(*p++, f);
		} else if (*p < 0x20 || *p == 0x7f || !len ||
			   (len == 2 && p[0] == 0xc2 && p[1] < 0xa0)) {
			/* C0 and C1 controls, DEL, malformed UTF-8 */
			fputs("\\x", f);
			fputc(hex[*p >> 4], f);
			fputc(hex[*p & 0xf], f);
			p++;
		} else {
			fwrite(p, 1, len, f);
			p += len;
		}
	}
	fputc('"', f);
}

/* Separator and key for the next member of the current level. */
static void member(struct json *j, const char *key)
{
	if (!j->first[j->depth])
		fputc(',', j->f);
	j->first[j->depth] = false;
	if (j->depth > 0 && !j->array[j->depth] && key) {
		json_string(j->f, key);
		fputc(':', j->f);
	}
}

static void open_level(struct json *j, const char *key, char c, bool array)
{
	member(j, key);
	fputc(c, j->f);
	assert(j->depth + 1 < JSON_MAX_DEPTH);
	j->depth++;
	j->first[j->depth] = true;
	j->array[j->depth] = array;
}

static void close_level(struct json *j, char c)
{
	fputc(c, j->f);
	if (j->depth > 0)
		j->depth--;
	if (j->depth == 0)
		fputc('\n', j->f);
}

void json_object_begin(struct json *j, const char *key)
{
	open_level(j, key, '{', false);
}

void json_object_end(struct json *j)
{
	close_level(j, '}');
}

void json_array_begin(struct json *j, const char *key)
{
	open_level(j, key, '[', true);
}

void json_array_end(struct json *j)
{
	close_level(j, ']');
}

void json_str(struct json *j, const char *key, const char *val)
{
	member(j, key);
	if (val)
		json_string(j->f, val);
	else
		fputs("null", j->f);
}

void json_u64(struct json *j, const char *key, uint64_t val)
{
	member(j, key);
	fprintf(j->f, "%" PRIu64, val);
}

void json_hex(struct json *j, const char *key, uint64_t val)
{
	member(j, key);
	fprintf(j->f, "\"0x%016" PRIx64 "\"", val);
}

void json_i64(struct json *j, const char *key, int64_t val)
{
	member(j, key);
	fprintf(j->f, "%" PRId64, val);
}

void json_bool(struct json *j, const char *key, bool val)
{
	member(j, key);
	fputs(val ? "true" : "false", j->f);
}

void json_null(struct json *j, const char *key)
{
	member(j, key);
	fputs("null", j->f);
}

void json_str_n(struct json *j, const char *key, const void *val, size_t n)
{
	member(j, key);
	json_string_n(j->f, val, n);
}

void json_fixed(struct json *j, const char *key, double val, int decimals)
{
	member(j, key);
	/* JSON has no NaN or infinity */
	if (val != val || val > 1e300 || val < -1e300)
		val = 0;
	fprintf(j->f, "%.*f", decimals, val);
}
