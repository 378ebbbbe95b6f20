// SPDX-License-Identifier: GPL-2.0
/*
 * kmem_ro - read-only access to live kernel memory for monitoring tools.
 *
 * /dev/kmem_ro is a misc device.  Holding an fd on it carries the same power
 * as reading /proc/kcore, but the gate differs on purpose: kcore demands
 * CAP_SYS_RAWIO, while the node (root:<monitoring group> 0440) lets its
 * group in; require_rawio=1 demands CAP_SYS_RAWIO too.  Kernel lockdown
 * refuses opens exactly as it refuses kcore's (LOCKDOWN_KCORE, i.e.
 * confidentiality mode).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/nospec.h>
#include <linux/security.h>

#include <kmem_ro.h>

#include "internal.h"

static bool require_rawio;
module_param(require_rawio, bool, 0644);
MODULE_PARM_DESC(require_rawio,
		 "Also demand CAP_SYS_RAWIO on open, as /dev/mem does (default: no, the node's group decides)");

static int kmem_ro_open(struct inode *inode, struct file *file)
{
	int err;

	/*
	 * First, as open_kcore() asks it, so the lockdown LSM logs every
	 * refused open whatever else is wrong with it.
	 */
	err = security_locked_down(LOCKDOWN_KCORE);
	if (err)
		return err;
	/* Read-only by construction: no write path exists to reach. */
	if (file->f_mode & FMODE_WRITE)
		return -EPERM;
	if (require_rawio && !capable(CAP_SYS_RAWIO))
		return -EPERM;
	kmem_ro_hotplug_open(file);	/* its mappings revocable with all others */
	file->private_data = NULL;	/* probes of this file, made on first use */
	return 0;
}

static int kmem_ro_release(struct inode *inode, struct file *file)
{
	kmem_ro_events_release(file);	/* its snapshots read the probes */
	kmem_ro_probe_release(file);
	return 0;
}

/**
 * struct kmem_ro_ioctl - one ioctl: its command, size rule and handler
 * @cmd: the command as this driver's uapi/kmem_ro.h spells it
 * @ver0_size: the smallest struct size the command may encode: its
 *	_SIZE_VER0, the first published layout
 * @func: the handler; it takes its argument with kmem_ro_arg_in() and
 *	returns 0 or a negative errno documented in uapi/kmem_ro.h
 */
struct kmem_ro_ioctl {
	unsigned int cmd;
	unsigned int ver0_size;
	long (*func)(struct file *file, void __user *uarg);
};

#define KMEM_RO_IOCTL(ioctl, size, handler)					\
	[_IOC_NR(ioctl)] = { .cmd = ioctl, .ver0_size = size, .func = handler }

static long kmem_ro_info(struct file *file, void __user *uarg);

/*
 * Every ioctl, indexed by _IOC_NR() as drm_ioctls[] is.  This table alone
 * says which ioctls exist: kmem_ro_ioctl() dispatches through it, checks
 * each command's size rule against it, and INFO's ioctls mask is read
 * from it (kmem_ro_ioctl_mask()).
 *
 * Adding an ioctl:
 * 1. uapi/kmem_ro.h: its struct (__u64 size first, flags, reserved fields
 *    that must be zero, user pointers as __u64, same layout on i386), its
 *    _SIZE_VER0, its errnos, and its command: _IOWR(KMEM_RO_IOC_MAGIC, nr,
 *    struct) with an nr below 64 (INFO's mask is a __u64) that no line
 *    below uses (a taken nr fails the W=1 build: -Woverride-init).
 * 2. Its handler, long fn(struct file *, void __user *), in the file of
 *    its capability, declared in internal.h, with kernel-doc; it reads its
 *    argument with kmem_ro_arg_in(..., its _SIZE_VER0, ...) and writes it
 *    back with kmem_ro_arg_out().
 * 3. One KMEM_RO_IOCTL() line below, in nr order.  That line is its
 *    dispatch, its size rule and its bit in INFO's ioctls mask: nothing
 *    else in the driver lists ioctls.
 * 4. A new capability also gets a KMEM_RO_FEAT_* bit (uapi, info.c).
 * 5. Outside the driver: its libkmemdev call; the name in kmemctl info
 *    (tools/src/info.c); the tests' own lists, kept apart on purpose so
 *    that they check this table (tests/vm/info_test.c iocs[],
 *    tests/vm/ioctl_abi_test.c ioctls[], tests/vm/fuzz_test.c); in-VM
 *    tests of its happy path and of each errno; docs/abi.md's errno
 *    table and man/kmem_ro.4.
 */
static const struct kmem_ro_ioctl kmem_ro_ioctls[] = {
	KMEM_RO_IOCTL(KMEM_RO_IOC_INFO, KMEM_RO_INFO_SIZE_VER0, kmem_ro_info),
	KMEM_RO_IOCTL(KMEM_RO_IOC_READV, KMEM_RO_READV_SIZE_VER0, kmem_ro_readv_ioctl),
	KMEM_RO_IOCTL(KMEM_RO_IOC_WALK, KMEM_RO_WALK_SIZE_VER0, kmem_ro_walk_ioctl),
	KMEM_RO_IOCTL(KMEM_RO_IOC_PAGEMAP, KMEM_RO_PAGEMAP_SIZE_VER0, kmem_ro_pagemap_ioctl),
	KMEM_RO_IOCTL(KMEM_RO_IOC_PROBE_ADD, KMEM_RO_PROBE_ADD_SIZE_VER0,
		      kmem_ro_probe_add_ioctl),
	KMEM_RO_IOCTL(KMEM_RO_IOC_PROBE_ENABLE, KMEM_RO_PROBE_IDS_SIZE_VER0,
		      kmem_ro_probe_enable_ioctl),
	KMEM_RO_IOCTL(KMEM_RO_IOC_PROBE_DISABLE, KMEM_RO_PROBE_IDS_SIZE_VER0,
		      kmem_ro_probe_disable_ioctl),
	KMEM_RO_IOCTL(KMEM_RO_IOC_PROBE_DEL, KMEM_RO_PROBE_IDS_SIZE_VER0,
		      kmem_ro_probe_del_ioctl),
	KMEM_RO_IOCTL(KMEM_RO_IOC_PROBE_STATS, KMEM_RO_PROBE_IDS_SIZE_VER0,
		      kmem_ro_probe_stats_ioctl),
	KMEM_RO_IOCTL(KMEM_RO_IOC_PROBE_LIST, KMEM_RO_PROBE_LIST_SIZE_VER0,
		      kmem_ro_probe_list_ioctl),
	KMEM_RO_IOCTL(KMEM_RO_IOC_PROBE_FILTER, KMEM_RO_PROBE_FILTER_SIZE_VER0,
		      kmem_ro_probe_filter_ioctl),
	KMEM_RO_IOCTL(KMEM_RO_IOC_EVENTS_SNAPSHOT, KMEM_RO_EVENTS_SNAPSHOT_SIZE_VER0,
		      kmem_ro_events_snapshot_ioctl),
};

/* Bit (1 << _IOC_NR(cmd)) of every ioctl in the table. */
static u64 kmem_ro_ioctl_mask(void)
{
	u64 mask = 0;
	unsigned int nr;

	BUILD_BUG_ON(ARRAY_SIZE(kmem_ro_ioctls) > BITS_PER_TYPE(mask));
	for (nr = 0; nr < ARRAY_SIZE(kmem_ro_ioctls); nr++)
		if (kmem_ro_ioctls[nr].func)
			mask |= BIT_ULL(nr);
	return mask;
}

/* INFO reports the table: handed its mask, info.c need not know it. */
static long kmem_ro_info(struct file *file, void __user *uarg)
{
	return kmem_ro_info_ioctl(uarg, kmem_ro_ioctl_mask());
}

#define KMEM_RO_IOC_SIZE_BITS	(_IOC_SIZEMASK << _IOC_SIZESHIFT)

/*
 * An ioctl is known by its type, number and direction, as drm_ioctl()
 * does: the size _IOWR() encodes is that of the caller's header, which
 * may be older or newer than ours, but not below the first published
 * layout.  The struct's own size field says what the caller passed
 * (kmem_ro_arg_in()).
 */
static long kmem_ro_ioctl(struct file *file, unsigned int cmd,
			  unsigned long arg)
{
	const struct kmem_ro_ioctl *ioctl;
	unsigned int nr = _IOC_NR(cmd);

	/*
	 * The commonest call, READV with this driver's own header, as a
	 * direct call: an indirect one is a retpoline or an IBRS-guarded
	 * branch on most x86 CPUs.  The table would pick the same handler.
	 */
	if (likely(cmd == KMEM_RO_IOC_READV))
		return kmem_ro_readv_ioctl(file, (void __user *)arg);
	if (nr >= ARRAY_SIZE(kmem_ro_ioctls))
		return -ENOTTY;
	ioctl = &kmem_ro_ioctls[array_index_nospec(nr, ARRAY_SIZE(kmem_ro_ioctls))];
	if (!ioctl->func ||
	    (cmd & ~KMEM_RO_IOC_SIZE_BITS) != (ioctl->cmd & ~KMEM_RO_IOC_SIZE_BITS) ||
	    _IOC_SIZE(cmd) < ioctl->ver0_size)
		return -ENOTTY;
	return ioctl->func(file, (void __user *)arg);
}

static const struct file_operations kmem_ro_fops = {
	.owner = THIS_MODULE,
	.open = kmem_ro_open,
	.release = kmem_ro_release,
	/* the file position is KMEM_RO_READ_OFFSET() of an address: no end */
	.llseek = no_seek_end_llseek,
	.read = kmem_ro_read,
	.unlocked_ioctl = kmem_ro_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = kmem_ro_mmap,
	.get_unmapped_area = kmem_ro_get_unmapped_area,
};

static struct miscdevice kmem_ro_miscdev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "kmem_ro",
	.fops = &kmem_ro_fops,
	.mode = 0440,
};

static int __init kmem_ro_init(void)
{
	int err;

	err = kmem_ro_text_init();
	if (err)
		return err;
	err = kmem_ro_ram_init();
	if (err)
		return err;
	err = kmem_ro_events_init();
	if (err)
		goto out_ram;
	err = kmem_ro_probe_init();
	if (err)
		goto out_events;
	err = kmem_ro_mmap_init();
	if (err)
		goto out_probes;
	err = kmem_ro_hotplug_init();
	if (err)
		goto out_mmap;
	err = misc_register(&kmem_ro_miscdev);
	if (err)
		goto out_hotplug;
	return 0;

out_hotplug:
	kmem_ro_hotplug_exit();
out_mmap:
	kmem_ro_mmap_exit();
out_probes:
	kmem_ro_probe_exit();
out_events:
	kmem_ro_events_exit();
out_ram:
	kmem_ro_ram_exit();
	return err;
}

static void __exit kmem_ro_exit(void)
{
	misc_deregister(&kmem_ro_miscdev);
	kmem_ro_hotplug_exit();
	kmem_ro_mmap_exit();
	kmem_ro_probe_exit();
	kmem_ro_events_exit();
	kmem_ro_read_exit();
	kmem_ro_ram_exit();
}

module_init(kmem_ro_init);
module_exit(kmem_ro_exit);

MODULE_DESCRIPTION("Read-only access to live kernel memory for monitoring tools");
MODULE_AUTHOR("kmem_ro developers");
MODULE_LICENSE("GPL");
