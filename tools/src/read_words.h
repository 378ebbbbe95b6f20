/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemctl read --words N: memory as N-bit words, as crash's rd -8/-16/
 * -32/-64 shows it, 64-bit words that point into the kernel image or a
 * module followed by <symbol+0xoff>.
 */
#ifndef KMEMCTL_READ_WORDS_H
#define KMEMCTL_READ_WORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kmemdev.h"

/* Is @bits a word size read --words takes (8, 16, 32, 64)? */
bool read_words_valid(uint64_t bits);

/*
 * Print @len bytes at @addr (a multiple of @bits / 8) as words: text,
 * "ADDR:  w w w ...  |ascii|" 16 bytes a line, or JSON {addr, size,
 * word_bits, words: [{addr, value, [symbol]}]}.
 */
void read_words_print(struct kmemdev *h, uint64_t addr,
		      const unsigned char *buf, size_t len, unsigned int bits,
		      bool json);

#endif /* KMEMCTL_READ_WORDS_H */
