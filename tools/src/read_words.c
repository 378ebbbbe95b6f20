// SPDX-License-Identifier: GPL-2.0
/* kmemctl read --words: see read_words.h. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "json.h"
#include "kvalue.h"
#include "read_words.h"

#define LINE_BYTES	16

bool read_words_valid(uint64_t bits)
{
	return bits == 8 || bits == 16 || bits == 32 || bits == 64;
}

/* The little-endian word of @bytes bytes at @p. */
static uint64_t word(const unsigned char *p, unsigned int bytes)
{
	uint64_t v = 0;
	unsigned int i;

	for (i = 0; i < bytes; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static void print_text(const struct kvalue *kv, uint64_t addr,
		       const unsigned char *buf, size_t len, unsigned int bytes)
{
	char sym[256];
	size_t i, k, n;

	for (i = 0; i < len; i += n) {
		n = len - i < LINE_BYTES ? len - i : LINE_BYTES;
		printf("%016" PRIx64 ": ", addr + i);
		for (k = 0; k < n; k += bytes) {
			uint64_t v = word(buf + i + k, bytes);

			printf(" %0*" PRIx64, (int)bytes * 2, v);
			/* only a whole pointer can point somewhere */
			if (bytes == 8 && v)
				fputs(kvalue_symbol(kv, v, sym, sizeof(sym)),
				      stdout);
		}
		fputs("  |", stdout);
		for (k = 0; k < n; k++)
			putchar(buf[i + k] >= 0x20 && buf[i + k] < 0x7f ?
				buf[i + k] : '.');
		puts("|");
	}
}

static void print_json(const struct kvalue *kv, uint64_t addr,
		       const unsigned char *buf, size_t len, unsigned int bytes)
{
	char sym[256], hex[24];
	struct json j;
	size_t k;

	json_init(&j, stdout);
	json_object_begin(&j, NULL);
	json_hex(&j, "addr", addr);
	json_u64(&j, "size", len);
	json_u64(&j, "word_bits", bytes * 8);
	json_array_begin(&j, "words");
	for (k = 0; k < len; k += bytes) {
		uint64_t v = word(buf + k, bytes);

		json_object_begin(&j, NULL);
		json_hex(&j, "addr", addr + k);
		snprintf(hex, sizeof(hex), "0x%0*" PRIx64, (int)bytes * 2, v);
		json_str(&j, "value", hex);
		/* " <name+0xoff [mod]>" without its blank and brackets */
		if (bytes == 8 && v && *kvalue_symbol(kv, v, sym, sizeof(sym))) {
			sym[strlen(sym) - 1] = '\0';
			json_str(&j, "symbol", sym + 2);
		}
		json_object_end(&j);
	}
	json_array_end(&j);
	json_object_end(&j);
}

void read_words_print(struct kmemdev *h, uint64_t addr,
		      const unsigned char *buf, size_t len, unsigned int bits,
		      bool json)
{
	struct kvalue kv = { .h = h };

	kvalue_sym_range(&kv);
	if (json)
		print_json(&kv, addr, buf, len, bits / 8);
	else
		print_text(&kv, addr, buf, len, bits / 8);
}
