// SPDX-License-Identifier: GPL-2.0
/* Reading kernel memory from the device or /proc/kcore: see mem.h. */
#include <errno.h>
#include <string.h>

#include "ktype.h"
#include "mem.h"
#include "parse.h"

struct kmemdev *mem_open(const struct kmemctl *ctx, const char *verb)
{
	KMEMDEV_OPTS(kmemdev_open_opts, opts, .path = ctx->device,
		     .backend = ctx->device_given ? KMEMDEV_BACKEND_DEVICE :
			     KMEMDEV_BACKEND_AUTO);
	struct kmemdev *h;
	int err;

	err = kmemdev_open(&h, &opts);
	if (!err)
		return h;
	if (ctx->device_given && (err == -ENOENT || err == -ENXIO ||
				  err == -ENODEV)) {
		kmemctl_fail("%s: no %s: is kmem_ro loaded? (modprobe kmem_ro)",
			     verb, ctx->device);
		return NULL;
	}
	if (ctx->device_given || (err != -ENOENT && err != -ENXIO &&
				  err != -ENODEV)) {
		kmemctl_err(KMEMDEV_OP_OPEN, err, "%s: open %s", verb, ctx->device);
		return NULL;
	}
	/* AUTO reports the device's error: ask kcore for its own */
	opts.backend = KMEMDEV_BACKEND_KCORE;
	opts.path = NULL;
	err = kmemdev_open(&h, &opts);
	if (!err)
		return h;
	kmemctl_fail("%s: no kmem_ro device (modprobe kmem_ro), and %s: %s", verb,
		     KMEMDEV_KCORE, err == -ENOEXEC ?
		     kmemdev_strerror(KMEMDEV_OP_OPEN, err) : strerror(-err));
	return NULL;
}

struct kmemdev *mem_open_typed(const struct kmemctl *ctx, const char *verb,
			       const char *expr, struct ktypes *kt)
{
	struct kmemdev *h = mem_open(ctx, verb);
	uint64_t addr;

	if (!h)
		return NULL;
	/*
	 * The symbol first: its by-name pass over the kernel's names (6.1
	 * has no kallsyms_seqs_of_names to search) also finds where the BTF
	 * is, so the BTF load below makes no pass of its own.  Its errors
	 * are the caller's to report, after the type's.
	 */
	if (expr)
		kmemdev_parse_addr(h, expr, &addr);
	if (ktypes_load_with(kt, h))
		memset(kt, 0, sizeof(*kt));	/* tspec_resolve() says why */
	return h;
}

int mem_open_at(const struct kmemctl *ctx, const char *verb, const char *expr,
		struct kmemdev **h, uint64_t *addr)
{
	*h = mem_open(ctx, verb);
	if (!*h)
		return KMEMCTL_EXIT_ERROR;
	return parse_addr_or_fail(*h, verb, expr, addr);
}

const char *mem_reason(struct kmemdev *h, int err)
{
	KMEMDEV_ARG(kmem_ro_info, info);
	bool kcore = !strcmp(kmemdev_backend_name(h), "kcore");

	if (kcore) {
		switch (err) {
		case -ENXIO:
			return "not in /proc/kcore (a hole: no segment covers it)";
		case -EIO:
		case -EFAULT:
			return "/proc/kcore could not read it";
		default:
			return kmemdev_strerror(KMEMDEV_OP_READ, err);
		}
	}
	switch (err) {
	case -EINVAL:
		return "not a kernel address";
	case -EFAULT:
		return "not mapped in the kernel (a hole)";
	case -EPERM:
		return "RAM the kernel hides (secret, offline or poisoned)";
	case -ENXIO:
		if (kmemdev_info(h, &info, NULL, 0) >= 0 &&
		    !(info.features & KMEM_RO_FEAT_READV))
			return "not mappable, and this driver has no READV";
		return "not System RAM (ioremap, MMIO or a physical hole)";
	case -EOPNOTSUPP:
		return "this kmem_ro driver can neither map nor READV it";
	default:
		return kmemdev_strerror(KMEMDEV_OP_READ, err);
	}
}

int mem_read(struct kmemdev *h, const char *what, uint64_t addr, void *buf,
	     size_t len)
{
	int err = kmemdev_read(h, addr, buf, len);

	if (err)
		kmemctl_fail("%s: %s", what, mem_reason(h, err));
	return err;
}
