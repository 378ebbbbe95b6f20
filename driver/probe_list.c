// SPDX-License-Identifier: GPL-2.0
/*
 * kmem_ro - KMEM_RO_IOC_PROBE_LIST, and the probe counts the events'
 * snapshots read.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "probe.h"

/*
 * Where a LIST goes on after unlocking to copy a step out: the first set
 * whose serial is at most @serial (sets are newest first), from its probe
 * @id on when it is that very set.  A set or probe made meanwhile behind
 * it is not listed; one closed or deleted is not either.
 */
struct kmem_ro_probe_cursor {
	u64 serial;
	unsigned long id;
};

static void kmem_ro_probe_fill_info(struct kmem_ro_probe_info *info,
				    const struct kmem_ro_probe_set *set, struct kmem_ro_probe *p)
{
	memset(info, 0, sizeof(*info));
	info->id = p->id;
	info->addr = p->addr;
	info->offset = p->offset;
	info->flags = p->flags & PROBE_UAPI_FLAGS;
	info->owner = set->owner;
	info->hits = kmem_ro_probe_hits(p);
	strscpy(info->name, p->name, sizeof(info->name));
}

/*
 * @set's probes from @cur on into @buf (*@k of @room used so far), each
 * counted in *@count.  A @last step fills the buffer up to the caller's
 * cap and then only counts; another stops where @buf is full: false, and
 * @cur says where to go on.
 */
static bool kmem_ro_probe_list_set(struct kmem_ro_probe_set *set, struct kmem_ro_probe_cursor *cur,
				   struct kmem_ro_probe_info *buf, unsigned int room, bool last,
				   unsigned int *k, u32 *count)
{
	unsigned long id = cur->serial == set->serial ? cur->id : 0;
	struct kmem_ro_probe *p;
	bool ended = true;

	mutex_lock(&set->lock);
	xa_for_each_start(&set->probes, id, p, id) {
		if (*k < room) {
			kmem_ro_probe_fill_info(&buf[(*k)++], set, p);
		} else if (!last) {
			cur->serial = set->serial;
			cur->id = id;
			ended = false;
			break;
		}
		(*count)++;
	}
	mutex_unlock(&set->lock);
	return ended;
}

/* One LIST step (see kmem_ro_probe_list_set()) over @own or, if NULL, every set. */
static bool kmem_ro_probe_list_step(struct kmem_ro_probe_set *own, struct kmem_ro_probe_cursor *cur,
				    struct kmem_ro_probe_info *buf, unsigned int room, bool last,
				    unsigned int *k, u32 *count)
{
	struct kmem_ro_probe_set *set;
	bool ended = true;

	if (own)
		return kmem_ro_probe_list_set(own, cur, buf, room, last, k, count);
	mutex_lock(&kmem_ro_sets_lock);
	list_for_each_entry(set, &kmem_ro_sets, sets) {
		if (set->serial > cur->serial)
			continue;
		ended = kmem_ro_probe_list_set(set, cur, buf, room, last, k, count);
		if (!ended)
			break;
	}
	mutex_unlock(&kmem_ro_sets_lock);
	return ended;
}

/**
 * kmem_ro_probe_list_ioctl() - KMEM_RO_IOC_PROBE_LIST
 * @file: the open device, whose probes are listed first
 * @uarg: user pointer to struct kmem_ro_probe_list
 *
 * Return: 0 or a negative errno as documented in uapi/kmem_ro.h.
 */
long kmem_ro_probe_list_ioctl(struct file *file, void __user *uarg)
{
	struct kmem_ro_probe_cursor cur = { .serial = U64_MAX };
	struct kmem_ro_probe_info __user *ubuf;
	struct kmem_ro_probe_info *buf = NULL;
	struct kmem_ro_probe_set *own = NULL;
	struct kmem_ro_probe_list a;
	unsigned int room, k;
	u32 written = 0;
	bool ended;
	u64 usize;
	int err;

	err = kmem_ro_arg_in(&a, sizeof(a), KMEM_RO_PROBE_LIST_SIZE_VER0, uarg, &usize);
	if (err)
		return err;
	if ((a.flags & ~KMEM_RO_PROBE_LIST_ALL_FILES) || a.reserved[0] || a.reserved[1] ||
	    !a.buf_addr != !a.cap)
		return -EINVAL;
	a.count = 0;
	if (!(a.flags & KMEM_RO_PROBE_LIST_ALL_FILES)) {
		own = kmem_ro_probe_set(file, false);
		if (!own)
			goto out;
	}
	if (a.cap) {
		buf = kvmalloc_array(min_t(u32, a.cap, PROBE_CHUNK), sizeof(*buf),
				     GFP_KERNEL_ACCOUNT);
		if (!buf)
			return -ENOMEM;
	}
	ubuf = u64_to_user_ptr(a.buf_addr);
	do {
		/* up to max_probes entries: killed, stop between two steps */
		if (fatal_signal_pending(current)) {
			err = -EINTR;
			break;
		}
		room = min_t(u32, a.cap - written, PROBE_CHUNK);
		k = 0;
		ended = kmem_ro_probe_list_step(own, &cur, buf, room, room == a.cap - written, &k,
						&a.count);
		if (k && copy_to_user(ubuf + written, buf, k * sizeof(*buf))) {
			err = -EFAULT;
			break;
		}
		written += k;
		cond_resched();
	} while (!ended);
	kvfree(buf);
	if (err)
		return err;
out:
	return kmem_ro_arg_out(uarg, &a, sizeof(a), usize);
}

/**
 * kmem_ro_probe_count() - how many probes a file has
 * @file: the open device
 *
 * Return: the number of probes, 0 when the file never added one.
 */
unsigned int kmem_ro_probe_count(struct file *file)
{
	struct kmem_ro_probe_set *set = kmem_ro_probe_set(file, false);
	unsigned int nr;

	if (!set)
		return 0;
	mutex_lock(&set->lock);
	nr = set->nr;
	mutex_unlock(&set->lock);
	return nr;
}

/**
 * kmem_ro_probe_for_each_hits() - a file's probes and hit counts, in id order
 * @file: the open device
 * @fn: called for each probe with @arg, its index, the number of probes, its
 *	id and its hit count (summed as STATS sums it); a non-zero return
 *	ends the walk
 * @arg: passed to @fn
 *
 * The probe set is locked for the whole walk: @fn sees one consistent set
 * and may sleep, but must not call back into the file's probes.
 *
 * Return: 0, or what @fn returned to end the walk.
 */
int kmem_ro_probe_for_each_hits(struct file *file,
				int (*fn)(void *arg, unsigned int idx, unsigned int nr,
					  u64 id, u64 hits),
				void *arg)
{
	struct kmem_ro_probe_set *set = kmem_ro_probe_set(file, false);
	struct kmem_ro_probe *p;
	unsigned int idx = 0;
	unsigned long id;
	int err = 0;

	if (!set)
		return 0;
	mutex_lock(&set->lock);
	xa_for_each(&set->probes, id, p) {
		err = fn(arg, idx++, set->nr, p->id, kmem_ro_probe_hits(p));
		if (err)
			break;
	}
	mutex_unlock(&set->lock);
	return err;
}
