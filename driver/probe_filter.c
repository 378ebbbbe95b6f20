// SPDX-License-Identifier: GPL-2.0
/*
 * kmem_ro - KMEM_RO_IOC_PROBE_FILTER: which hits of a file's probes count.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "probe.h"

/**
 * kmem_ro_probe_filter_free() - free a filter no handler reads any more
 * @f: the filter, or NULL
 */
void kmem_ro_probe_filter_free(struct kmem_ro_probe_filter_state *f)
{
	if (!f)
		return;
	put_pid(f->pid);
	kfree(f);
}

/* Are @a's flags, reserved fields, pid and comm well formed? */
static bool kmem_ro_probe_filter_valid(const struct kmem_ro_probe_filter *a)
{
	bool by_pid = a->flags & KMEM_RO_PROBE_FILTER_PID;
	bool by_comm = a->flags & KMEM_RO_PROBE_FILTER_COMM;

	if (a->flags & ~(KMEM_RO_PROBE_FILTER_PID | KMEM_RO_PROBE_FILTER_COMM) ||
	    a->reserved0 || a->reserved[0] || a->reserved[1])
		return false;
	if (by_pid != !!a->pid)
		return false;
	if (by_comm)
		return strnlen(a->comm, sizeof(a->comm)) < sizeof(a->comm);
	return !memchr_inv(a->comm, 0, sizeof(a->comm));
}

/*
 * The filter @a asks for, or NULL (flags 0: none).  The pid is looked up
 * in the caller's namespace (find_get_pid(): task_active_pid_ns(current))
 * and must lead a thread group; the reference keeps that very process.
 */
static struct kmem_ro_probe_filter_state *
kmem_ro_probe_filter_new(const struct kmem_ro_probe_filter *a)
{
	struct kmem_ro_probe_filter_state *f;

	if (!a->flags)
		return NULL;
	f = kzalloc(sizeof(*f), GFP_KERNEL_ACCOUNT);
	if (!f)
		return ERR_PTR(-ENOMEM);
	f->flags = a->flags;
	if (a->flags & KMEM_RO_PROBE_FILTER_PID) {
		f->pid = a->pid <= INT_MAX ? find_get_pid(a->pid) : NULL;
		if (!f->pid || !pid_has_task(f->pid, PIDTYPE_TGID)) {
			kmem_ro_probe_filter_free(f);
			return ERR_PTR(-ESRCH);
		}
		f->tgid = pid_nr(f->pid);
	}
	/* zero-padded as the kernel pads task names: the bytes past the NUL go */
	BUILD_BUG_ON(sizeof(f->comm) != TASK_COMM_LEN || sizeof(a->comm) != TASK_COMM_LEN);
	if (a->flags & KMEM_RO_PROBE_FILTER_COMM)
		strscpy_pad((char *)f->comm, a->comm, sizeof(f->comm));
	return f;
}

/**
 * kmem_ro_probe_filter_ioctl() - KMEM_RO_IOC_PROBE_FILTER
 * @file: the open device, whose probes the filter applies to
 * @uarg: user pointer to struct kmem_ro_probe_filter
 *
 * Return: 0 or a negative errno as documented in uapi/kmem_ro.h.
 */
long kmem_ro_probe_filter_ioctl(struct file *file, void __user *uarg)
{
	struct kmem_ro_probe_filter_state *f, *old;
	struct kmem_ro_probe_set *set;
	struct kmem_ro_probe_filter a;
	u64 usize;
	int err;

	err = kmem_ro_arg_in(&a, sizeof(a), KMEM_RO_PROBE_FILTER_SIZE_VER0, uarg, &usize);
	if (err)
		return err;
	if (!kmem_ro_probe_filter_valid(&a))
		return -EINVAL;
	if (!kmem_ro_probe_allowed())
		return -EPERM;
	f = kmem_ro_probe_filter_new(&a);
	if (IS_ERR(f))
		return PTR_ERR(f);
	/* written back as every argument is, before acting: EFAULT does nothing */
	err = kmem_ro_arg_out(uarg, &a, sizeof(a), usize);
	if (err) {
		kmem_ro_probe_filter_free(f);
		return err;
	}
	/* a call that fails leaves no probe set behind */
	set = kmem_ro_probe_set(file, f != NULL);
	if (!set) {		/* or clears where no filter was ever set */
		kmem_ro_probe_filter_free(f);
		return f ? -ENOMEM : 0;
	}
	mutex_lock(&set->lock);
	old = rcu_replace_pointer(set->filter, f, lockdep_is_held(&set->lock));
	mutex_unlock(&set->lock);
	/* no hit counts by the old filter once the call returns */
	synchronize_rcu();
	kmem_ro_probe_filter_free(old);
	return 0;
}
