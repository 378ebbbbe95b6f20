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
	return nonseekable_open(inode, file);
}

static int kmem_ro_release(struct inode *inode, struct file *file)
{
	kmem_ro_events_release(file);	/* its snapshots read the probes */
	kmem_ro_probe_release(file);
	return 0;
}

#define KMEM_RO_IOC_SIZE_BITS	(_IOC_SIZEMASK << _IOC_SIZESHIFT)

/* Every ioctl, and the smallest struct size its command may encode. */
static const struct {
	unsigned int cmd;
	unsigned int ver0_size;
} kmem_ro_ioctls[] = {
	{ KMEM_RO_IOC_INFO, KMEM_RO_INFO_SIZE_VER0 },
	{ KMEM_RO_IOC_READV, KMEM_RO_READV_SIZE_VER0 },
	{ KMEM_RO_IOC_WALK, KMEM_RO_WALK_SIZE_VER0 },
	{ KMEM_RO_IOC_PAGEMAP, KMEM_RO_PAGEMAP_SIZE_VER0 },
	{ KMEM_RO_IOC_PROBE_ADD, KMEM_RO_PROBE_ADD_SIZE_VER0 },
	{ KMEM_RO_IOC_PROBE_ENABLE, KMEM_RO_PROBE_IDS_SIZE_VER0 },
	{ KMEM_RO_IOC_PROBE_DISABLE, KMEM_RO_PROBE_IDS_SIZE_VER0 },
	{ KMEM_RO_IOC_PROBE_DEL, KMEM_RO_PROBE_IDS_SIZE_VER0 },
	{ KMEM_RO_IOC_PROBE_STATS, KMEM_RO_PROBE_IDS_SIZE_VER0 },
	{ KMEM_RO_IOC_PROBE_LIST, KMEM_RO_PROBE_LIST_SIZE_VER0 },
	{ KMEM_RO_IOC_PROBE_FILTER, KMEM_RO_PROBE_FILTER_SIZE_VER0 },
	{ KMEM_RO_IOC_EVENTS_SNAPSHOT, KMEM_RO_EVENTS_SNAPSHOT_SIZE_VER0 },
};

/*
 * An ioctl is known by its type, number and direction, as drm_ioctl()
 * does: the size _IOWR() encodes is that of the caller's header, which
 * may be older or newer than ours.  The struct's own size field says what
 * the caller passed (kmem_ro_arg_in()).  Return: the command as this
 * driver's header spells it, or 0.
 */
static unsigned int kmem_ro_ioctl_cmd(unsigned int cmd)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(kmem_ro_ioctls); i++) {
		unsigned int known = kmem_ro_ioctls[i].cmd;

		if ((cmd & ~KMEM_RO_IOC_SIZE_BITS) == (known & ~KMEM_RO_IOC_SIZE_BITS) &&
		    _IOC_SIZE(cmd) >= kmem_ro_ioctls[i].ver0_size)
			return known;
	}
	return 0;
}

static long kmem_ro_ioctl(struct file *file, unsigned int cmd,
			  unsigned long arg)
{
	void __user *uarg = (void __user *)arg;

	cmd = kmem_ro_ioctl_cmd(cmd);
	switch (cmd) {
	case KMEM_RO_IOC_INFO:
		return kmem_ro_info_ioctl(uarg);
	case KMEM_RO_IOC_READV:
		return kmem_ro_readv_ioctl(uarg);
	case KMEM_RO_IOC_WALK:
		return kmem_ro_walk_ioctl(uarg);
	case KMEM_RO_IOC_PAGEMAP:
		return kmem_ro_pagemap_ioctl(file, uarg);
	case KMEM_RO_IOC_EVENTS_SNAPSHOT:
		return kmem_ro_events_snapshot_ioctl(file, uarg);
	case 0:
		return -ENOTTY;
	}
	return kmem_ro_probe_ioctl(file, cmd, uarg);
}

static const struct file_operations kmem_ro_fops = {
	.owner = THIS_MODULE,
	.open = kmem_ro_open,
	.release = kmem_ro_release,
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

	err = kmem_ro_info_init();
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
	err = kmem_ro_hotplug_init();
	if (err)
		goto out_probes;
	err = misc_register(&kmem_ro_miscdev);
	if (err)
		goto out_hotplug;
	return 0;

out_hotplug:
	kmem_ro_hotplug_exit();
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
	kmem_ro_probe_exit();
	kmem_ro_events_exit();
	kmem_ro_ram_exit();
}

module_init(kmem_ro_init);
module_exit(kmem_ro_exit);

MODULE_DESCRIPTION("Read-only access to live kernel memory for monitoring tools");
MODULE_AUTHOR("kmem_ro developers");
MODULE_LICENSE("GPL");
