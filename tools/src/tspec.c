// SPDX-License-Identifier: GPL-2.0
/* TYPE.member paths from the command line: see tspec.h. */
#include <errno.h>
#include <string.h>

#include "kmemctl.h"
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
	default:
		return kmemctl_usage_err("%s %.60s: bad member path at '%.40s'",
					 verb, spec, bad);
	}
}

int tspec_resolve(struct ktypes *kt, const char *verb, const char *spec,
		  struct tspec *ts)
{
	const struct btf *btf;
	char bad[64], tname[160];
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
	err = ktype_path(btf, ts->outer, ts->path, &ts->place, bad, sizeof(bad));
	if (err)
		return path_error(verb, spec,
				  ktype_name(btf, ts->outer, tname, sizeof(tname)),
				  err, bad);
	return KMEMCTL_EXIT_OK;
}

int tspec_member(const struct tspec *ts, const char *verb, const char *path,
		 struct kplace *out)
{
	const struct btf *btf = ts->place.btf;
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
