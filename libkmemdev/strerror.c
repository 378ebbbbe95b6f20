// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Error texts that say, for the operation that failed, what was missing or
 * refused and what to do about it.  The same errno means different things
 * to different calls (-ENOENT: no device, no symbol, no probe id), so a
 * text is chosen by the pair; an errno an operation never produces gets
 * the C library's text, never another operation's sentence.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "internal.h"

struct op_text {
	enum kmemdev_op op;
	int err;
	const char *text;
};

/* The first row of the operation wins; KMEMDEV_OP_ANY has none. */
static const struct op_text texts[] = {
	/* kmemdev_open() */
	{ KMEMDEV_OP_OPEN, ENOENT, "no kmem_ro device: is the kmem_ro module loaded? (modprobe kmem_ro)" },
	{ KMEMDEV_OP_OPEN, ENXIO, "no kmem_ro device: is the kmem_ro module loaded? (modprobe kmem_ro)" },
	{ KMEMDEV_OP_OPEN, ENODEV, "no kmem_ro device: is the kmem_ro module loaded? (modprobe kmem_ro)" },
	{ KMEMDEV_OP_OPEN, EACCES, "permission denied: add yourself to group kmem_ro (usermod -aG kmem_ro USER) and log in again" },
	{ KMEMDEV_OP_OPEN, EPERM, "not permitted: kernel lockdown (confidentiality) forbids reading kernel memory, or the module requires CAP_SYS_RAWIO (require_rawio)" },
	{ KMEMDEV_OP_OPEN, EPROTO, "driver/library ABI mismatch: the kmem_ro driver does not offer the INFO handshake of ABI version 1 or later" },
	{ KMEMDEV_OP_OPEN, ENOTTY, "not a kmem_ro device (it does not answer KMEM_RO_IOC_INFO)" },
	{ KMEMDEV_OP_OPEN, EISDIR, "is a directory, not the kmem_ro device" },
	{ KMEMDEV_OP_OPEN, E2BIG, "the options struct has unknown non-zero fields (built against a newer libkmemdev?)" },
	{ KMEMDEV_OP_OPEN, EINVAL, "invalid argument: NULL output pointer, options sz too small, or unknown backend" },
	{ KMEMDEV_OP_OPEN, ENOEXEC, "not an ELF64 core file of this machine" },

	/* kmemdev_info(), kmemdev_info_alloc() */
	{ KMEMDEV_OP_INFO, EINVAL, "invalid argument: NULL handle or info, .size below KMEM_RO_INFO_SIZE_VER0, or RAM buffer/count mismatch" },
	{ KMEMDEV_OP_INFO, E2BIG, "the info struct is larger than the driver takes, or has unknown non-zero fields" },
	{ KMEMDEV_OP_INFO, EAGAIN, "the System RAM list kept changing (memory hotplug): try again" },
	{ KMEMDEV_OP_INFO, EPROTO, "the driver counted more System RAM ranges than it wrote (driver/library mismatch?)" },
	{ KMEMDEV_OP_INFO, EOVERFLOW, "the driver reported more System RAM ranges than the library can return" },

	/* by name: kmemdev_symbol(), _symbol_find(), _parse_addr(), _probe_*() */
	{ KMEMDEV_OP_SYMBOL, ENOENT, "no such symbol in the kernel or its modules" },
	{ KMEMDEV_OP_SYMBOL, EACCES, "permission denied: /proc/kallsyms hides addresses (kptr_restrict, no CAP_SYSLOG) and no kmem_ro device gives them" },
	{ KMEMDEV_OP_SYMBOL, ENODATA, "no kernel symbols: /proc/kallsyms is missing or empty (procfs not mounted, or no CONFIG_KALLSYMS)" },
	{ KMEMDEV_OP_SYMBOL, EINVAL, "malformed address expression or name, or a NULL argument" },
	{ KMEMDEV_OP_SYMBOL, ERANGE, "a number or the resulting address does not fit in 64 bits" },
	{ KMEMDEV_OP_SYMBOL, ENAMETOOLONG, "the name is too long for a probe (KMEM_RO_PROBE_NAME_LEN)" },
	{ KMEMDEV_OP_SYMBOL, EOVERFLOW, "more matches than the library can count" },
	{ KMEMDEV_OP_SYMBOL, EAGAIN, "modules kept loading or unloading while listed: try again" },
	{ KMEMDEV_OP_SYMBOL, E2BIG, "module symbol tables larger than one walk may read" },

	/* by address: kmemdev_symbolize() */
	{ KMEMDEV_OP_SYMBOLIZE, ENOENT, "no kernel or module symbol at or below the address" },
	{ KMEMDEV_OP_SYMBOLIZE, EACCES, "permission denied: /proc/kallsyms hides addresses (kptr_restrict, no CAP_SYSLOG) and no kmem_ro device gives them" },
	{ KMEMDEV_OP_SYMBOLIZE, ENODATA, "no kernel symbols: /proc/kallsyms is missing or empty (procfs not mounted, or no CONFIG_KALLSYMS)" },
	{ KMEMDEV_OP_SYMBOLIZE, EAGAIN, "modules kept loading or unloading while listed: try again" },
	{ KMEMDEV_OP_SYMBOLIZE, E2BIG, "module symbol tables larger than one walk may read" },

	/* kmemdev_read(), kmemdev_map(), kmemdev_readv() */
	{ KMEMDEV_OP_READ, ENXIO, "no readable memory there: not System RAM, outside every core segment, or (mapping) vmalloc, module or other unmappable memory" },
	{ KMEMDEV_OP_READ, EFAULT, "not mapped in the kernel, or the read faulted" },
	{ KMEMDEV_OP_READ, EPERM, "not permitted: RAM the kernel hides from itself (memfd_secret, offline or poisoned pages), or mmap refused" },
	{ KMEMDEV_OP_READ, EINVAL, "not a kernel address, zero length, or a NULL argument" },
	{ KMEMDEV_OP_READ, EOPNOTSUPP, "not supported: mapping and READV need the kmem_ro device and a driver with the feature" },
	{ KMEMDEV_OP_READ, E2BIG, "more segments or bytes than one READV takes" },

	/* kmemdev_walk(), kmemdev_walk_all() */
	{ KMEMDEV_OP_WALK, ELOOP, "the kernel list loops without coming back to its head (changed while walked, or corrupt)" },
	{ KMEMDEV_OP_WALK, EFAULT, "a node of the list could not be read (unmapped, or the list changed)" },
	{ KMEMDEV_OP_WALK, ENXIO, "a node of the list is not in System RAM" },
	{ KMEMDEV_OP_WALK, E2BIG, "too many nodes, fields or record bytes for one walk, or .size above KMEMDEV_ARG_MAX" },
	{ KMEMDEV_OP_WALK, EINVAL, "invalid walk: .size below KMEM_RO_WALK_SIZE_VER0, head outside the kernel, no fields, or buffer/size mismatch" },
	{ KMEMDEV_OP_WALK, EOPNOTSUPP, "not supported: the walk needs the kmem_ro device and a driver with KMEM_RO_FEAT_WALK" },
	{ KMEMDEV_OP_WALK, EPROTO, "the driver reported more records than the buffer holds, or an unknown status (driver/library mismatch?)" },

	/* kmemdev_pagemap(), kmemdev_pagemap_runs() */
	{ KMEMDEV_OP_PAGEMAP, ESRCH, "no such process (or a kernel thread, or one that exited)" },
	{ KMEMDEV_OP_PAGEMAP, EPERM, "not permitted: another process's page tables need CAP_SYS_PTRACE" },
	{ KMEMDEV_OP_PAGEMAP, EINVAL, "invalid range (not page aligned, empty, or beyond user space), or .size below KMEM_RO_PAGEMAP_SIZE_VER0" },
	{ KMEMDEV_OP_PAGEMAP, EOPNOTSUPP, "not supported: pagemap needs the kmem_ro device and a driver with KMEM_RO_FEAT_PAGEMAP" },
	{ KMEMDEV_OP_PAGEMAP, E2BIG, ".size above KMEMDEV_ARG_MAX, or unknown non-zero fields" },
	{ KMEMDEV_OP_PAGEMAP, EPROTO, "the driver's runs do not describe the range back to back (driver/library mismatch?)" },

	/* kmemdev_btf_member() */
	{ KMEMDEV_OP_BTF, ENOENT, "no such type or member in the kernel's BTF" },
	{ KMEMDEV_OP_BTF, ENODATA, "no kernel type information: /sys/kernel/btf/vmlinux is missing (sysfs not mounted, or no CONFIG_DEBUG_INFO_BTF)" },
	{ KMEMDEV_OP_BTF, EINVAL, "a bitfield or a member not on a byte boundary, or a NULL argument" },

	/* kmemdev_probes_*() */
	{ KMEMDEV_OP_PROBES, ENOENT, "no such probe id in this handle" },
	{ KMEMDEV_OP_PROBES, ESRCH, "no such process (a process id of this pid namespace, not a thread's)" },
	{ KMEMDEV_OP_PROBES, EPERM, "not permitted: probes need CAP_PERFMON, CAP_SYS_ADMIN or kmem_ro's probe_group=1 (and no lockdown)" },
	{ KMEMDEV_OP_PROBES, EOPNOTSUPP, "not supported: probes need the kmem_ro device and a driver with KMEM_RO_FEAT_PROBES" },
	{ KMEMDEV_OP_PROBES, EBUSY, "kprobes or ftrace refused to switch a probe" },
	{ KMEMDEV_OP_PROBES, ENOSPC, "too many probes: the driver's max_probes_per_file or max_probes is reached" },
	{ KMEMDEV_OP_PROBES, EAGAIN, "probes kept being added while listed: try again" },
	{ KMEMDEV_OP_PROBES, EINVAL, "invalid argument: NULL handle, NULL ids or counts with a count, or unknown flags" },
	{ KMEMDEV_OP_PROBES, E2BIG, "more specs or ids than one call takes" },
	{ KMEMDEV_OP_PROBES, EPROTO, "the driver answered without progress (driver/library mismatch?)" },

	/* kmemdev_events_*() but _snapshot() */
	{ KMEMDEV_OP_EVENTS, ENOENT, "no kmem_ro event family: the module is not loaded, or runs in another network namespace" },
	{ KMEMDEV_OP_EVENTS, EPERM, "not permitted: joining event groups needs CAP_SYS_ADMIN" },
	{ KMEMDEV_OP_EVENTS, EOPNOTSUPP, "not supported: libkmemdev was built without libnl-genl-3.0, or the driver lacks the event group" },
	{ KMEMDEV_OP_EVENTS, ENOBUFS, "events were lost: the socket's receive buffer overflowed" },
	{ KMEMDEV_OP_EVENTS, EPROTO, "a malformed event message (skipped)" },

	/* kmemdev_events_snapshot() */
	{ KMEMDEV_OP_SNAPSHOT, ENOENT, "nothing to snapshot: the handle has no probes (start), or no snapshots running (stop)" },
	{ KMEMDEV_OP_SNAPSHOT, EPERM, "not permitted: starting snapshots needs CAP_PERFMON, CAP_SYS_ADMIN or kmem_ro's probe_group=1" },
	{ KMEMDEV_OP_SNAPSHOT, EINVAL, "interval out of range (KMEM_RO_EVENTS_SNAPSHOT_MIN_MS to _MAX_MS), or a NULL handle" },
	{ KMEMDEV_OP_SNAPSHOT, EOPNOTSUPP, "not supported: snapshots need the kmem_ro device and a driver with KMEM_RO_FEAT_EVENTS" },
};

const char *kmemdev_strerror(enum kmemdev_op op, int err)
{
	const char *s;
	size_t i;

	if (err == INT_MIN)
		return "unknown error";
	if (err < 0)
		err = -err;
	if (err == 0)
		return "success";
	for (i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)
		if (texts[i].op == op && texts[i].err == err)
			return texts[i].text;
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
