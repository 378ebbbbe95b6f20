/* SPDX-License-Identifier: GPL-2.0 */
/*
 * "TYPE[.member.sub[N]...]" as the verbs take it, resolved against BTF,
 * with one-line errors in kmemctl's format.
 */
#ifndef KMEMCTL_TSPEC_H
#define KMEMCTL_TSPEC_H

#include "ktype.h"

struct tspec {
	char type[128];		/* the TYPE part, as given */
	const char *path;	/* the member path, NULL if none */
	uint32_t outer;		/* id of TYPE */
	struct kplace place;	/* what the whole spec names */
};

/*
 * Load BTF into @kt (if not loaded yet) and resolve @spec.  On failure
 * print "kmemctl: <verb> <spec>: <reason>" and return the exit status
 * (KMEMCTL_EXIT_ERROR: no BTF or no such type/member; KMEMCTL_EXIT_USAGE:
 * a malformed path).
 */
int tspec_resolve(struct ktypes *kt, const char *verb, const char *spec,
		  struct tspec *ts);

/* Resolve @path inside TYPE of @ts (for --fields): same errors. */
int tspec_member(const struct tspec *ts, const char *verb, const char *path,
		 struct kplace *out);

#endif /* KMEMCTL_TSPEC_H */
