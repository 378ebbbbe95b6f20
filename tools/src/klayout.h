/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The layout of a kernel type from BTF, with no object: each member's
 * offset (in bytes, "[BYTE:BIT]" for bitfields) from the start of the
 * outermost type named, its C declaration, and its members down to
 * @max_depth levels (< 0: all).  Members of anonymous structs and unions
 * are always shown, without a level of their own.
 */
#ifndef KMEMCTL_KLAYOUT_H
#define KMEMCTL_KLAYOUT_H

#include <stdio.h>

#include "json.h"
#include "ktype.h"

/*
 * Text, crash's "struct -o" style.  @title: the path printed for a member
 * (NULL for a whole type).
 */
void klayout_text(FILE *f, const struct kplace *p, const char *title,
		  int max_depth);

/*
 * JSON: {"type", "size", "offset", ["bit_offset", "bit_size"],
 * "members": [{"name", "type", "offset", "size", ...}]}.
 */
void klayout_json(struct json *j, const struct kplace *p, const char *title,
		  int max_depth);

#endif /* KMEMCTL_KLAYOUT_H */
