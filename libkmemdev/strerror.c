// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* Error texts that tell a kmem_ro user what to do about an error. */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "internal.h"

/* Codes the library itself produces, phrased for its users. */
static const char *kmemdev_text(int err)
{
	switch (err) {
	case ENOENT:
		return "kmem_ro device not found: is the kmem_ro module loaded? "
		       "(modprobe kmem_ro)";
	case EACCES:
		return "permission denied: the device is root:<group> 0440, "
		       "join its group; or /proc/kallsyms addresses are hidden "
		       "(kernel.kptr_restrict, CAP_SYSLOG)";
	case EPERM:
		return "not permitted: kernel lockdown (confidentiality) "
		       "forbids reading kernel memory, or the module requires "
		       "CAP_SYS_RAWIO (require_rawio); probes and snapshots "
		       "need CAP_PERFMON or CAP_SYS_ADMIN, watching events "
		       "CAP_SYS_ADMIN";
	case EPROTO:
		return "driver/library ABI mismatch: the kmem_ro driver does "
		       "not offer the INFO handshake of ABI version 1 or later";
	case ENOTTY:
		return "not a kmem_ro device (it does not answer "
		       "KMEM_RO_IOC_INFO)";
	case EISDIR:
		return "is a directory, not the kmem_ro device";
	case E2BIG:
		return "options or argument struct has unknown non-zero "
		       "fields (built against a newer libkmemdev or driver?)";
	case EINVAL:
		return "invalid argument: NULL handle or output pointer, "
		       "options sz too small, or buffer/count mismatch";
	case ENODATA:
		return "no kernel symbols or type information: /proc/kallsyms "
		       "or /sys/kernel/btf/vmlinux is missing (procfs or sysfs "
		       "not mounted, or a kernel without CONFIG_KALLSYMS or "
		       "CONFIG_DEBUG_INFO_BTF)";
	case EOPNOTSUPP:
		return "not supported here: the /proc/kcore backend only "
		       "reads, or this kmem_ro driver lacks the feature";
	case ENOEXEC:
		return "not an ELF64 core file of this machine (kcore backend)";
	case ELOOP:
		return "kernel list loops without coming back to its head "
		       "(changed while walked, or corrupt)";
	case EOVERFLOW:
		return "value too large: the driver reported more entries "
		       "than the library can return";
	default:
		return NULL;
	}
}

const char *kmemdev_strerror(int err)
{
	const char *s;

	if (err == INT_MIN)
		return "unknown error";
	if (err < 0)
		err = -err;
	if (err == 0)
		return "success";
	s = kmemdev_text(err);
	if (s)
		return s;
	/*
	 * strerror() may write a shared buffer for unknown codes; glibc's
	 * strerrordesc_np() only returns static text, NULL when unknown.
	 */
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 32)
	s = strerrordesc_np(err);
#else
	s = strerror(err);
#endif
	return s && *s ? s : "unknown error";
}
