// SPDX-License-Identifier: GPL-2.0
#include <assert.h>
#include <inttypes.h>

#include "json.h"

void json_init(struct json *j, FILE *f)
{
	j->f = f;
	j->depth = 0;
	j->first[0] = true;
	j->array[0] = false;
}

void json_string(FILE *f, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', f);
	for (; *p; p++) {
		switch (*p) {
		case '"':  fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\b': fputs("\\b", f); break;
		case '\f': fputs("\\f", f); break;
		case '\n': fputs("\\n", f); break;
		case '\r': fputs("\\r", f); break;
		case '\t': fputs("\\t", f); break;
		default:
			if (*p < 0x20) {
				fputs("\\u00", f);
				fputc(hex[*p >> 4], f);
				fputc(hex[*p & 0xf], f);
			} else {
				fputc(*p, f);
			}
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
