/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel objects printed by their BTF type, from bytes already read:
 * as text (crash and gdb's layout) or as JSON.
 *
 * Text: structs and unions as "{ member = value, ... }" blocks, integers
 * in decimal, bool as true/false, enums by name (the number when no name
 * matches), pointers as 0x... with <symbol+0xoff> when they point into
 * the kernel image, or less than 4 KiB past a module's symbol (kallsyms
 * has no sizes, and a module's regions lie apart), char arrays as strings (up to the
 * first NUL), other arrays as {a, b, ...} ("<repeats N times>" for runs
 * of ten or more), anonymous members as nameless blocks.
 *
 * JSON: structs and unions as objects (members of anonymous members
 * merged in, as C names them), integers as numbers, bool as true/false,
 * enums as the enumerator's name (a number if none), pointers as
 * "0x%016x" strings, char arrays as strings, other arrays as arrays,
 * floats and 128-bit integers as "0x..." strings of their bytes; what
 * --depth cuts off is null.
 */
#ifndef KMEMCTL_KVALUE_H
#define KMEMCTL_KVALUE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "json.h"
#include "kmemdev.h"
#include "ktype.h"

struct kvalue {
	const struct btf *btf;
	struct kmemdev *h;		/* pointer symbols; NULL for none */
	uint64_t sym_lo, sym_hi;	/* pointers in [lo, hi) get one */
	int max_depth;			/* struct levels shown; < 0: all */
	FILE *f;
};

/*
 * Set kv->sym_lo/hi from the handle's layout: the kernel image (from
 * _stext) and the module area.
 */
void kvalue_sym_range(struct kvalue *kv);

/*
 * "NAME = VALUE" (or VALUE alone for a NULL name), composites over
 * several lines indented by @indent spaces; no newline after the last.
 * @data holds the bytes @p->bit_off counts from.
 */
void kvalue_text(const struct kvalue *kv, const char *name,
		 const struct kplace *p, const unsigned char *data, int indent);

/* VALUE on one line: "{a = 1, b = {c = 2}}". */
void kvalue_text_inline(const struct kvalue *kv, const struct kplace *p,
			const unsigned char *data);

/* VALUE as a JSON member @key of the current object (or array). */
void kvalue_json(const struct kvalue *kv, struct json *j, const char *key,
		 const struct kplace *p, const unsigned char *data);

/* " <symbol+0xoff [module]>" of @addr into @buf, "" if none. */
const char *kvalue_symbol(const struct kvalue *kv, uint64_t addr, char *buf,
			  size_t len);

#endif /* KMEMCTL_KVALUE_H */
