/* SPDX-License-Identifier: GPL-2.0 */
/*
 * "TYPE[.member.sub[N]...]" as the verbs take it, resolved against BTF,
 * with one-line errors in kmemctl's format.
 */
#ifndef KMEMCTL_TSPEC_H
#define KMEMCTL_TSPEC_H

#include "ktype.h"

#define TSPEC_DEREF_MAX	16	/* pointers one path may follow */

/* One pointer a path goes through, in the object before it. */
struct tspec_deref {
	uint64_t off;		/* byte offset of the pointer */
	uint64_t index_off;	/* ptr[N]: N * size of the target, else 0 */
	char via[64];		/* the path up to the pointer, for errors */
};

struct tspec {
	char type[128];		/* the TYPE part, as given */
	const char *path;	/* the member path, NULL if none */
	const struct btf *btf;	/* TYPE's BTF */
	uint32_t outer;		/* id of TYPE */
	/*
	 * What the whole spec names, in the object the last pointer points
	 * to (TYPE's object itself when nderef is 0).
	 */
	struct kplace place;
	unsigned int nderef;
	struct tspec_deref deref[TSPEC_DEREF_MAX];
};

/*
 * Load BTF into @kt (if not loaded yet) and resolve @spec, through the
 * pointers it names ("task_struct.signal.rlim[7]", "a->b", "p[2].x").
 * On failure print "kmemctl: <verb> <spec>: <reason>" and return the exit
 * status (KMEMCTL_EXIT_ERROR: no BTF or no such type/member, a pointer to
 * void or to a type BTF does not define; KMEMCTL_EXIT_USAGE: a malformed
 * path).
 */
int tspec_resolve(struct ktypes *kt, const char *verb, const char *spec,
		  struct tspec *ts);

/*
 * The address of the object ts->place is in, for TYPE's object at @addr:
 * each pointer read in turn.  On a NULL or unreadable pointer print
 * "kmemctl: <what>: <reason>" and return -EFAULT or the read's -errno.
 */
int tspec_follow(struct kmemdev *h, const struct tspec *ts, const char *what,
		 uint64_t addr, uint64_t *obj);

/*
 * Resolve @path inside TYPE of @ts (for --fields): same errors, and
 * a path through a pointer is refused (the fields of a node are gathered
 * by offset).
 */
int tspec_member(const struct tspec *ts, const char *verb, const char *path,
		 struct kplace *out);

#endif /* KMEMCTL_TSPEC_H */
