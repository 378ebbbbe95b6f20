/* SPDX-License-Identifier: GPL-2.0 */
/* The kernel's module list, read through BTF and one WALK (modlist.c). */
#ifndef KMEMCTL_MODLIST_H
#define KMEMCTL_MODLIST_H

#include <stdbool.h>
#include <stdint.h>

#include "kmemctl.h"
#include "ktype.h"

#define REGIONS_MAX	16

/* One module as /proc/modules shows it, and its memory regions. */
struct mod {
	char name[64];
	const char *state;		/* enum module_state's name */
	int64_t refcnt;
	bool have_refcnt;
	uint64_t base, size, text_size;
	unsigned int nregions;
	struct {
		const char *type;
		uint64_t base, size;
	} r[REGIONS_MAX];
};

struct modlayout;

struct modlist {
	struct ktypes kt;
	struct modlayout *l;
	struct kmemdev *h;
	uint64_t head;			/* &modules */
	const char *verb;
};

/* BTF layout, the memory source and &modules; errors already printed. */
int modlist_open(struct modlist *ml, const struct kmemctl *ctx, const char *verb);
/* Every module, newest first; *mods is the caller's to free(). */
int modlist_read(struct modlist *ml, struct mod **mods, size_t *n);
void modlist_close(struct modlist *ml);
/* "MODULE_STATE_LIVE" -> "live" */
void modlist_lower_suffix(char *dst, size_t len, const char *name,
			  const char *prefix);

#endif
