// SPDX-License-Identifier: GPL-2.0
/*
 * kmem_ro - probes in the text of a module that goes, or of a live
 * module's init: taken out of the filters while ftrace still knows them
 * (see probes.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "probe.h"

/*
 * Module text that takes no new probe: all of a going module's, a live
 * module's init text.  Between the notifier and ftrace forgetting the
 * functions, ftrace would still accept them.  By module name: a module of
 * that name cannot load again before the going one is freed, and its
 * COMING notification ends the entry.
 */
struct kmem_ro_dead_text {
	struct list_head list;
	char name[MODULE_NAME_LEN];
	unsigned long start, end;	/* the dead range; 0, 0: all of it */
};

static LIST_HEAD(kmem_ro_dead);
static DEFINE_MUTEX(kmem_ro_dead_lock);	/* innermost: taken under set->lock */

/**
 * kmem_ro_text_dead() - is an address in dead text of a module?
 * @mod: the module's name as sprint_symbol() gives it ("name]")
 * @addr: the address
 *
 * Return: true if no new probe may go there.
 */
bool kmem_ro_text_dead(const char *mod, unsigned long addr)
{
	size_t len = strcspn(mod, "] ");
	struct kmem_ro_dead_text *d;
	bool dead = false;

	mutex_lock(&kmem_ro_dead_lock);
	list_for_each_entry(d, &kmem_ro_dead, list) {
		if (strlen(d->name) != len || strncmp(d->name, mod, len))
			continue;
		dead = !d->end || (addr >= d->start && addr < d->end);
		break;
	}
	mutex_unlock(&kmem_ro_dead_lock);
	return dead;
}

/*
 * Record @mod's dead text (all of it, or its init text) in place of what
 * an earlier state left; with @dead false, only forget it (a new instance).
 */
static void kmem_ro_text_died(const struct module *mod, bool dead, bool all)
{
	struct kmem_ro_dead_text *d, *tmp, *new = NULL;

	if (dead) {
		/* without memory, only the short window before ftrace forgets stays open */
		new = kzalloc(sizeof(*new), GFP_KERNEL);
		if (new) {
			strscpy(new->name, mod->name, sizeof(new->name));
			if (!all)
				kmem_ro_module_init_text(mod, &new->start, &new->end);
		}
		if (new && !all && new->start == new->end) {	/* no init text */
			kfree(new);
			return;
		}
	}
	mutex_lock(&kmem_ro_dead_lock);
	list_for_each_entry_safe(d, tmp, &kmem_ro_dead, list)
		if (!strcmp(d->name, mod->name)) {
			list_del(&d->list);
			kfree(d);
		}
	if (new)
		list_add(&new->list, &kmem_ro_dead);
	mutex_unlock(&kmem_ro_dead_lock);
}

static bool kmem_ro_probe_dies(const struct kmem_ro_probe *p, const struct module *mod,
			       bool all)
{
	if (p->flags & KMEM_RO_PROBE_GONE)
		return false;
	return all ? within_module(p->addr, mod) : within_module_init(p->addr, mod);
}

/* Take @set's probes in @mod's text (@all) or init text out of service. */
static void kmem_ro_probe_set_gone(struct kmem_ro_probe_set *set, const struct module *mod,
				   bool all)
{
	struct kmem_ro_probe **entry = NULL, *p;
	unsigned int n = 0, k = 0;
	unsigned long id;

	mutex_lock(&set->lock);
	xa_for_each(&set->probes, id, p)
		n += kmem_ro_probe_dies(p, mod, all);
	if (!n)
		goto out;
	/* one filter update for them all; without memory, one each */
	entry = kvmalloc_array(n, sizeof(*entry), GFP_KERNEL);
	xa_for_each(&set->probes, id, p) {
		if (!kmem_ro_probe_dies(p, mod, all) || p->offset ||
		    !(p->flags & KMEM_RO_PROBE_ENABLED))
			continue;
		if (entry)
			entry[k++] = p;
		else
			kmem_ro_ftrace_disable(set, &p, 1);
	}
	kmem_ro_ftrace_disable(set, entry, k);
	/* kprobes kill their own; lookups may still find these until DEL */
	xa_for_each(&set->probes, id, p) {
		if (!kmem_ro_probe_dies(p, mod, all))
			continue;
		rhashtable_remove_fast(&set->ht, &p->node, kmem_ro_probe_params);
		WRITE_ONCE(p->flags, (p->flags & ~KMEM_RO_PROBE_ENABLED) | KMEM_RO_PROBE_GONE);
	}
	kvfree(entry);
out:
	mutex_unlock(&set->lock);
}

/*
 * GOING runs before ftrace forgets the module's functions, LIVE before it
 * forgets the init functions: both while our filters can still drop them.
 */
static int kmem_ro_probe_module_cb(struct notifier_block *nb, unsigned long state,
				   void *data)
{
	struct kmem_ro_probe_set *set;
	struct module *mod = data;
	bool all = state == MODULE_STATE_GOING;

	if (state == MODULE_STATE_COMING) {
		kmem_ro_text_died(mod, false, false);
		return NOTIFY_DONE;
	}
	if (state != MODULE_STATE_LIVE && state != MODULE_STATE_GOING)
		return NOTIFY_DONE;
	/* first: an ADD from now on refuses this text; one before, we clean */
	kmem_ro_text_died(mod, true, all);
	mutex_lock(&kmem_ro_sets_lock);
	list_for_each_entry(set, &kmem_ro_sets, sets)
		kmem_ro_probe_set_gone(set, mod, all);
	mutex_unlock(&kmem_ro_sets_lock);
	return NOTIFY_DONE;
}

static struct notifier_block kmem_ro_probe_module_nb = {
	.notifier_call = kmem_ro_probe_module_cb,
};

/**
 * kmem_ro_probe_init() - follow module loads and unloads for the probes
 *
 * Return: 0 or a negative errno.
 */
int kmem_ro_probe_init(void)
{
	/* ids are xarray indices: 64 bits */
	BUILD_BUG_ON(sizeof(unsigned long) < sizeof(u64));
	return register_module_notifier(&kmem_ro_probe_module_nb);
}

/**
 * kmem_ro_probe_exit() - stop following modules; no file is open any more
 */
void kmem_ro_probe_exit(void)
{
	struct kmem_ro_dead_text *d, *tmp;

	unregister_module_notifier(&kmem_ro_probe_module_nb);
	list_for_each_entry_safe(d, tmp, &kmem_ro_dead, list)
		kfree(d);
	kmem_ro_probe_user_exit();
}
