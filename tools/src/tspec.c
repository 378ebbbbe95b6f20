// SPDX-License-Identifier: GPL-2.0
/* TYPE.member paths from the command line: see tspec.h. */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "kmemctl.h"
#include "mem.h"
#include "parse.h"
#include "tspec.h"

static int path_error(const char *verb, const char *spec, const char *tname,
		      int err, const char *bad)
{
	switch (err) {
	case -ENOENT:
		kmemctl_fail("%s %.60s: %s has no member '%.40s'", verb, spec,
			     tname, bad);
		return KMEMCTL_EXIT_ERROR;
	case -ERANGE:
		kmemctl_fail("%s %.60s: index %.20s is past the array", verb,
			     spec, bad);
		return KMEMCTL_EXIT_ERROR;
	case -ENOTDIR:
		kmemctl_fail("%s %.60s: '%.40s' is a pointer: a field cannot "
			     "follow it", verb, spec, bad);
		return KMEMCTL_EXIT_ERROR;
	default:
		return kmemctl_usage_err("%s %.60s: bad member path at '%.40s'",
					 verb, spec, bad);
	}
}

/*
 * The type the pointer @ptr points to, as a type with members and a size:
 * a forward declaration ("struct sock;" in this BTF) is looked up by name.
 */
static int pointee(struct ktypes *kt, const char *verb, const char *spec,
		   const char *via, const struct btf **btf, uint32_t ptr,
		   uint32_t *id)
{
	const struct btf_type *t = btf__type_by_id(*btf, ktype_skip(*btf, ptr));
	uint32_t target = ktype_skip_quals(*btf, t->type);
	const struct btf_type *tt = btf__type_by_id(*btf, ktype_skip(*btf, target));
	char name[160];

	if (!target || !tt || !ktype_skip(*btf, target)) {
		kmemctl_fail("%s %.60s: '%.40s' is a void pointer: name the "
			     "type it points to", verb, spec, via);
		return KMEMCTL_EXIT_ERROR;
	}
	if (btf_is_fwd(tt)) {
		snprintf(name, sizeof(name), "%s %s",
			 btf_kflag(tt) ? "union" : "struct",
			 btf__name_by_offset(*btf, tt->name_off));
		if (ktypes_find(kt, name, btf, &target)) {
			kmemctl_fail("%s %.60s: '%.40s' points to %s, which no "
				     "BTF defines", verb, spec, via, name);
			return KMEMCTL_EXIT_ERROR;
		}
	}
	*id = target;
	return KMEMCTL_EXIT_OK;
}

/* "[N]" at @s after a pointer: N times the target's size; *@s past it. */
static int pointer_index(const char *verb, const char *spec, const char **s,
			 const struct btf *btf, uint32_t id, uint64_t *off)
{
	const char *close = strchr(*s, ']');
	uint64_t idx, size = ktype_size(btf, id);
	char num[32];

	if (!close || (size_t)(close - *s - 1) >= sizeof(num))
		return kmemctl_usage_err("%s %.60s: bad index at '%.20s'", verb,
					 spec, *s);
	memcpy(num, *s + 1, (size_t)(close - *s - 1));
	num[close - *s - 1] = '\0';
	if (parse_u64(num, 0, UINT32_MAX, &idx) || !size)
		return kmemctl_usage_err("%s %.60s: bad index '[%s]'", verb,
					 spec, num);
	*off = idx * size;
	*s = close + 1;
	if (**s == '.')
		(*s)++;
	else if (!strncmp(*s, "->", 2))
		*s += 2;
	else if (**s && **s != '[')
		return kmemctl_usage_err("%s %.60s: bad member path at '%.20s'",
					 verb, spec, *s);
	return KMEMCTL_EXIT_OK;
}

int tspec_resolve(struct ktypes *kt, const char *verb, const char *spec,
		  struct tspec *ts)
{
	const struct btf *btf;
	char bad[64], tname[160];
	const char *path, *rest;
	uint32_t id;
	int err;

	memset(ts, 0, sizeof(*ts));
	if (ktype_split(spec, ts->type, sizeof(ts->type), &ts->path) ||
	    !ts->type[0])
		return kmemctl_usage_err("%s: bad type '%.60s': TYPE[.member...]",
					 verb, spec);
	if (!kt->vmlinux) {
		err = ktypes_load(kt);
		if (err) {
			kmemctl_err(KMEMDEV_OP_BTF, err, "%s %.60s: load BTF",
				    verb, spec);
			return KMEMCTL_EXIT_ERROR;
		}
	}
	if (ktypes_find(kt, ts->type, &btf, &ts->outer)) {
		kmemctl_fail("%s %.60s: no type '%s' in the kernel's BTF", verb,
			     spec, ts->type);
		return KMEMCTL_EXIT_ERROR;
	}
	ts->btf = btf;
	id = ts->outer;
	path = ts->path;
	for (;;) {
		struct tspec_deref *d;
		size_t vlen;

		err = ktype_path_step(btf, id, path, &ts->place, &rest, bad,
				      sizeof(bad));
		if (err)
			return path_error(verb, spec,
					  ktype_name(btf, id, tname, sizeof(tname)),
					  err, bad);
		if (!rest)
			return KMEMCTL_EXIT_OK;
		if (ts->nderef == TSPEC_DEREF_MAX) {
			kmemctl_fail("%s %.60s: more than %d pointers to follow",
				     verb, spec, TSPEC_DEREF_MAX);
			return KMEMCTL_EXIT_ERROR;
		}
		d = &ts->deref[ts->nderef++];
		d->off = ts->place.bit_off / 8;
		/* the path up to the pointer, without the separator after it */
		vlen = ts->path ? (size_t)(rest - ts->path) : 0;
		if (vlen >= 2 && !strncmp(rest - 2, "->", 2))
			vlen -= 2;
		else if (vlen && rest[-1] == '.')
			vlen--;
		{
			/* "TYPE[0]" when TYPE itself is the pointer */
			const char *v = vlen ? ts->path : ts->type;
			size_t n = vlen ? vlen : strlen(ts->type);

			if (n >= sizeof(d->via))
				n = sizeof(d->via) - 1;
			memcpy(d->via, v, n);
			d->via[n] = '\0';
		}
		err = pointee(kt, verb, spec, d->via, &btf, ts->place.type, &id);
		if (err)
			return err;
		if (*rest == '[') {
			err = pointer_index(verb, spec, &rest, btf, id,
					    &d->index_off);
			if (err)
				return err;
		}
		path = rest;
	}
}

int tspec_follow(struct kmemdev *h, const struct tspec *ts, const char *what,
		 uint64_t addr, uint64_t *obj)
{
	unsigned int i;

	for (i = 0; i < ts->nderef; i++) {
		const struct tspec_deref *d = &ts->deref[i];
		uint64_t loc = addr + d->off, v;
		int err = kmemdev_read(h, loc, &v, sizeof(v));

		if (err) {
			kmemctl_fail("%s: %s at 0x%" PRIx64 ": %s", what, d->via,
				     loc, mem_reason(h, err));
			return err;
		}
		if (!v) {
			kmemctl_fail("%s: %s is NULL", what, d->via);
			return -EFAULT;
		}
		addr = v + d->index_off;
	}
	*obj = addr;
	return 0;
}

int tspec_member(const struct tspec *ts, const char *verb, const char *path,
		 struct kplace *out)
{
	const struct btf *btf = ts->btf;
	char bad[64], tname[160];
	struct kplace p;
	int err;

	err = ktype_path(btf, ts->outer, path, &p, bad, sizeof(bad));
	if (err)
		return path_error(verb, path,
				  ktype_name(btf, ts->outer, tname, sizeof(tname)),
				  err, bad);
	*out = p;
	return KMEMCTL_EXIT_OK;
}
