// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * KMEM_RO_IOC_PROBE_*: hit-counting probes on kernel functions, owned by
 * the handle's open file, plus the two symbol helpers that build their
 * specs from /proc/kallsyms (one name, or every text symbol matching a
 * glob).
 *
 * The wrappers hide the driver's per-call limit (KMEM_RO_PROBE_MAX_BATCH
 * specs or ids) and its partial answers (a signal: -EINTR, or done < count
 * after some progress) by resubmitting the rest, so each returns only once
 * everything was acted on or a call failed.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "internal.h"
#include "probes_internal.h"

/* List retries while other files keep adding probes between two calls. */
#define PROBE_LIST_TRIES	8
/* Other names tried for a spec refused with ENOENT (see retry_aliases()). */
#define PROBE_ALIAS_TRIES	8

static int probes_feature(struct kmemdev *h)
{
	return kmemdev__feature(h, KMEM_RO_FEAT_PROBES);
}

/*
 * One ADD call for count (<= KMEM_RO_PROBE_MAX_BATCH) specs, resubmitted
 * until every spec has a result.  Results are cleared first: a result of 0
 * (never an id, never an errno) marks a spec the driver did not reach, so
 * a call cut short by a signal resumes at the first such spec.
 */
static int add_batch(int fd, struct kmem_ro_probe_spec *specs,
		     unsigned int count, unsigned int *added)
{
	unsigned int off = 0, i;

	for (i = 0; i < count; i++)
		specs[i].result = 0;
	while (off < count) {
		struct kmem_ro_probe_add arg = {
			.size = sizeof(arg),
			.specs_addr = (uintptr_t)(specs + off),
			.count = count - off,
		};
		unsigned int next;
		bool intr = false;

		if (ioctl(fd, KMEM_RO_IOC_PROBE_ADD, &arg) < 0) {
			if (errno != EINTR)
				return -errno;
			intr = true;
		}
		/* Count ids, not arg.added: an EINTR call reports none. */
		for (next = off; next < count && specs[next].result; next++)
			*added += specs[next].result > 0;
		if (next == off && !intr)
			return -EPROTO;	/* success without progress: never loop */
		off = next;
	}
	return 0;
}

/* add_batch() over any number of specs. */
static int add_all(int fd, struct kmem_ro_probe_spec *specs, unsigned int n,
		   unsigned int *added)
{
	unsigned int off = 0, count;
	int err;

	for (; off < n; off += count) {
		count = kmemdev__probe_chunk(n, off);
		err = add_batch(fd, specs + off, count, added);
		if (err)
			return err;
	}
	return 0;
}

static int retry_aliases(struct kmemdev *h, struct kmem_ro_probe_spec *specs,
			 unsigned int n, unsigned int *added);

int kmemdev_probes_add(struct kmemdev *h, struct kmem_ro_probe_spec *specs,
		       unsigned int n, unsigned int *added)
{
	unsigned int got = 0;
	int err;

	if (added)
		*added = 0;
	if (!h || (!specs && n))
		return -EINVAL;
	err = probes_feature(h);
	if (err)
		return err;
	err = add_all(h->fd, specs, n, &got);
	if (!err)
		err = retry_aliases(h, specs, n, &got);
	if (added)
		*added = got;
	return err;
}

/*
 * ENABLE, DISABLE, DEL or STATS over ids[0..n), batched and resumed, or
 * with KMEM_RO_PROBE_ALL in @flags over every probe (no ids; counts_cap =
 * n).  Returns the number of probes acted on (with ALL: the number the
 * driver reports) or -errno.
 */
static int ids_call(struct kmemdev *h, unsigned long cmd, const uint64_t *ids,
		    unsigned int n, uint64_t *counts, uint64_t flags)
{
	unsigned int off = 0;
	int err;

	if (!h || (!ids && n && !(flags & KMEM_RO_PROBE_ALL)))
		return -EINVAL;
	err = probes_feature(h);
	if (err)
		return err;

	if (flags & KMEM_RO_PROBE_ALL) {
		struct kmem_ro_probe_ids arg = {
			.size = sizeof(arg),
			.flags = flags,
		};

		/* No counts: STATS only counts the probes (and resets none). */
		if (cmd == KMEM_RO_IOC_PROBE_STATS && counts && n) {
			arg.counts_addr = (uintptr_t)counts;
			arg.counts_cap = n;
		}

		/* Nothing is done before the driver checks for a signal. */
		do
			err = ioctl(h->fd, cmd, &arg);
		while (err < 0 && errno == EINTR);
		if (err < 0)
			return -errno;
		return arg.done > (uint32_t)INT32_MAX ? -EOVERFLOW : (int)arg.done;
	}

	while (off < n) {
		unsigned int left = kmemdev__probe_chunk(n, off);
		struct kmem_ro_probe_ids arg = {
			.size = sizeof(arg),
			.flags = flags,
			.ids_addr = (uintptr_t)(ids + off),
			.count = left,
			.counts_addr = counts ? (uintptr_t)(counts + off) : 0,
			.counts_cap = counts ? left : 0,
		};

		if (ioctl(h->fd, cmd, &arg) < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (arg.done > left)
			return -EPROTO;	/* a driver bug; never loop */
		if (!arg.done && left)
			return -EPROTO;
		off += arg.done;
	}
	return n > (unsigned int)INT32_MAX ? INT32_MAX : (int)n;
}

/*
 * ENABLE, DISABLE or DEL by ids.  An empty vector acts on nothing, whatever
 * the pointer: never on every probe (that is what *_all() is for).
 */
static int ids_act(struct kmemdev *h, unsigned long cmd, const uint64_t *ids,
		   unsigned int n)
{
	int err;

	if (!h || (!ids && n))
		return -EINVAL;
	if (!n)
		return 0;
	err = ids_call(h, cmd, ids, n, NULL, 0);
	return err < 0 ? err : 0;
}

static int all_act(struct kmemdev *h, unsigned long cmd)
{
	int err = ids_call(h, cmd, NULL, 0, NULL, KMEM_RO_PROBE_ALL);

	return err < 0 ? err : 0;
}

int kmemdev_probes_enable(struct kmemdev *h, const uint64_t *ids,
			  unsigned int n)
{
	return ids_act(h, KMEM_RO_IOC_PROBE_ENABLE, ids, n);
}

int kmemdev_probes_enable_all(struct kmemdev *h)
{
	return all_act(h, KMEM_RO_IOC_PROBE_ENABLE);
}

int kmemdev_probes_disable(struct kmemdev *h, const uint64_t *ids,
			   unsigned int n)
{
	return ids_act(h, KMEM_RO_IOC_PROBE_DISABLE, ids, n);
}

int kmemdev_probes_disable_all(struct kmemdev *h)
{
	return all_act(h, KMEM_RO_IOC_PROBE_DISABLE);
}

int kmemdev_probes_del(struct kmemdev *h, const uint64_t *ids, unsigned int n)
{
	return ids_act(h, KMEM_RO_IOC_PROBE_DEL, ids, n);
}

int kmemdev_probes_del_all(struct kmemdev *h)
{
	return all_act(h, KMEM_RO_IOC_PROBE_DEL);
}

int kmemdev_probes_stats(struct kmemdev *h, const uint64_t *ids,
			 unsigned int n, uint64_t *counts, uint64_t flags)
{
	if (!h || (n && (!ids || !counts)) || (flags & ~KMEM_RO_PROBE_RESET))
		return -EINVAL;
	if (!n)
		return 0;
	return ids_call(h, KMEM_RO_IOC_PROBE_STATS, ids, n, counts, flags);
}

int kmemdev_probes_stats_all(struct kmemdev *h, uint64_t *counts,
			     unsigned int cap, uint64_t flags)
{
	if (!h || (cap && !counts) || (flags & ~KMEM_RO_PROBE_RESET))
		return -EINVAL;
	return ids_call(h, KMEM_RO_IOC_PROBE_STATS, NULL, cap, counts,
			flags | KMEM_RO_PROBE_ALL);
}

int kmemdev_probe_filter(struct kmemdev *h, uint64_t flags, pid_t pid,
			 const char *comm)
{
	struct kmem_ro_probe_filter arg = { .size = sizeof(arg), .flags = flags };
	int err;

	if (!h || (flags & ~(KMEM_RO_PROBE_FILTER_PID | KMEM_RO_PROBE_FILTER_COMM)))
		return -EINVAL;
	if (flags & KMEM_RO_PROBE_FILTER_PID) {
		if (pid <= 0)
			return -EINVAL;
		arg.pid = (uint32_t)pid;
	}
	if (flags & KMEM_RO_PROBE_FILTER_COMM) {
		if (!comm)
			return -EINVAL;
		if (strlen(comm) >= sizeof(arg.comm))
			return -ENAMETOOLONG;
		memcpy(arg.comm, comm, strlen(comm));
	}
	err = kmemdev__feature(h, KMEM_RO_FEAT_PROBE_FILTER);
	if (err)
		return err;
	return ioctl(h->fd, KMEM_RO_IOC_PROBE_FILTER, &arg) < 0 ? -errno : 0;
}

int kmemdev_probes_list(struct kmemdev *h, uint64_t flags,
			struct kmem_ro_probe_info **out, unsigned int *count)
{
	struct kmem_ro_probe_info *buf = NULL;
	unsigned int cap = 0;
	int err, tries;

	if (out)
		*out = NULL;
	if (count)
		*count = 0;
	if (!h || !out || !count || (flags & ~KMEM_RO_PROBE_LIST_ALL_FILES))
		return -EINVAL;
	err = probes_feature(h);
	if (err)
		return err;

	for (tries = 0; tries < PROBE_LIST_TRIES; tries++) {
		struct kmem_ro_probe_list arg = {
			.size = sizeof(arg),
			.flags = flags,
			.buf_addr = (uintptr_t)buf,
			.cap = cap,
		};
		void *p;

		do
			err = ioctl(h->fd, KMEM_RO_IOC_PROBE_LIST, &arg);
		while (err < 0 && errno == EINTR);
		if (err < 0) {
			err = -errno;
			goto fail;
		}
		if (arg.count <= cap && (buf || !arg.count)) {
			*out = buf;
			*count = arg.count;
			return 0;
		}
		/* Room for what exists now, and some that may come meanwhile. */
		if (arg.count > UINT32_MAX - arg.count / 8 - 16) {
			err = -EOVERFLOW;
			goto fail;
		}
		cap = arg.count + arg.count / 8 + 16;
		p = realloc(buf, (size_t)cap * sizeof(*buf));
		if (!p) {
			err = -ENOMEM;
			goto fail;
		}
		buf = p;
	}
	err = -EAGAIN;
fail:
	free(buf);
	return err;
}

/* Symbols the probe helpers treat as functions: text, see kmemdev.h. */
bool kmemdev__probe_sym_ok(const struct kmemdev_sym *s)
{
	if (s->type != 't' && s->type != 'T')
		return false;
	/* 6.12's padding and CFI preambles sit before functions. */
	if (!strncmp(s->name, "__pfx_", 6) || !strncmp(s->name, "__cfi_", 6))
		return false;
	/* Cold parts split off a function are never its entry. */
	return !strstr(s->name, ".cold");
}

unsigned int kmemdev__probe_chunk(unsigned int n, unsigned int off)
{
	unsigned int left = off < n ? n - off : 0;

	return left < KMEM_RO_PROBE_MAX_BATCH ? left : KMEM_RO_PROBE_MAX_BATCH;
}

/*
 * The handle's symbol table, loaded on first use.  symbols.c keeps its
 * loader to itself; any lookup loads the table, and once loaded it never
 * changes, so reading it after the lookup returned needs no lock.
 */
static int symtab(struct kmemdev *h, const struct kmemdev_symtab **tab)
{
	const struct kmemdev_sym *unused;
	int err;

	err = kmemdev_symbol_find(h, "", &unused);
	if (err && err != -ENOENT)
		return err;
	*tab = &h->syms;
	return 0;
}

/* First by_name index whose name is >= s, or starts with s when prefix. */
static size_t name_bound(const struct kmemdev_symtab *tab, const char *s,
			 size_t len)
{
	size_t lo = 0, hi = tab->count;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strncmp(tab->by_addr[tab->by_name[mid]].name, s, len) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int kmemdev__probe_glob_tab(const struct kmemdev_symtab *tab,
			    const char *pattern, kmemdev_sym_fn fn, void *arg)
{
	size_t plen = strcspn(pattern, "*?[\\"), i;
	int matched = 0, ret;

	/* Names sort by strcmp: a literal prefix bounds the search. */
	for (i = name_bound(tab, pattern, plen); i < tab->count; i++) {
		const struct kmemdev_sym *s = &tab->by_addr[tab->by_name[i]];

		if (strncmp(s->name, pattern, plen))
			break;
		if (!kmemdev__probe_sym_ok(s) || fnmatch(pattern, s->name, 0))
			continue;
		if (matched == INT32_MAX)
			return -EOVERFLOW;
		matched++;
		if (fn) {
			ret = fn(s, arg);
			if (ret)
				return ret;
		}
	}
	return matched;
}

int kmemdev_probe_glob(struct kmemdev *h, const char *pattern,
		       kmemdev_sym_fn fn, void *arg)
{
	const struct kmemdev_symtab *tab;
	int err;

	if (!h || !pattern || !*pattern)
		return -EINVAL;
	err = symtab(h, &tab);
	if (err)
		return err;
	return kmemdev__probe_glob_tab(tab, pattern, fn, arg);
}

/* First by_addr index whose address is >= addr. */
static size_t addr_lower(const struct kmemdev_symtab *tab, uint64_t addr)
{
	size_t lo = 0, hi = tab->count;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (tab->by_addr[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const char *kmemdev__probe_alias(const struct kmemdev_symtab *tab,
				 uint64_t addr, const char *name, unsigned int k)
{
	size_t first = addr_lower(tab, addr), i;
	bool named = false;

	/* Only when kallsyms agrees that @name is a function at @addr. */
	for (i = first; i < tab->count && tab->by_addr[i].addr == addr; i++)
		if (kmemdev__probe_sym_ok(&tab->by_addr[i]) &&
		    !strcmp(tab->by_addr[i].name, name))
			named = true;
	if (!named)
		return NULL;
	for (i = first; i < tab->count && tab->by_addr[i].addr == addr; i++) {
		const struct kmemdev_sym *s = &tab->by_addr[i];

		if (!kmemdev__probe_sym_ok(s) || !strcmp(s->name, name) ||
		    strlen(s->name) >= KMEM_RO_PROBE_NAME_LEN)
			continue;
		if (!k--)
			return s->name;
	}
	return NULL;
}

/*
 * The driver checks a spec's name against the one the kernel's own lookup
 * gives for its address, and of several aliases (the compiler merges
 * identical functions: __x64_sys_getppid, __ia32_sys_getppid and
 * __do_sys_getppid share one address) that is only one.  Specs refused
 * with ENOENT whose name kallsyms does show at that address are tried
 * again under each other name there; the caller's name is kept.  Without
 * kallsyms, or memory for the retry, they stay ENOENT.
 */
static int retry_aliases(struct kmemdev *h, struct kmem_ro_probe_spec *specs,
			 unsigned int n, unsigned int *added)
{
	struct kmem_ro_probe_spec *tmp = NULL;
	const struct kmemdev_symtab *tab;
	unsigned int *idx = NULL, nr = 0, i, j, k, m;
	int err = 0;

	for (i = 0; i < n; i++)
		nr += specs[i].result == -ENOENT;
	if (!nr || symtab(h, &tab))
		return 0;
	tmp = malloc((size_t)nr * sizeof(*tmp));
	idx = malloc((size_t)nr * sizeof(*idx));
	if (!tmp || !idx)
		goto out;
	for (k = 0; k < PROBE_ALIAS_TRIES; k++) {
		for (i = 0, m = 0; i < n; i++) {
			const char *alias;

			if (specs[i].result != -ENOENT)
				continue;
			alias = kmemdev__probe_alias(tab, specs[i].addr,
						     specs[i].name, k);
			if (!alias)
				continue;
			tmp[m] = specs[i];
			memset(tmp[m].name, 0, sizeof(tmp[m].name));
			strcpy(tmp[m].name, alias);
			idx[m++] = i;
		}
		if (!m)
			break;
		err = add_all(h->fd, tmp, m, added);
		if (err)
			break;
		for (j = 0; j < m; j++)
			if (tmp[j].result != -ENOENT)
				specs[idx[j]].result = tmp[j].result;
	}
out:
	free(tmp);
	free(idx);
	return err;
}

int kmemdev__probe_spec_set(struct kmem_ro_probe_spec *spec,
			    const struct kmemdev_sym *sym, uint32_t offset,
			    uint32_t flags)
{
	size_t len;

	if (!spec || !sym || (flags & ~KMEM_RO_PROBE_ENABLED))
		return -EINVAL;
	len = strlen(sym->name);
	if (len >= KMEM_RO_PROBE_NAME_LEN)
		return -ENAMETOOLONG;
	memset(spec, 0, sizeof(*spec));
	spec->addr = sym->addr;
	spec->offset = offset;
	spec->flags = flags;
	memcpy(spec->name, sym->name, len + 1);
	return 0;
}

int kmemdev_probe_spec_fill(struct kmemdev *h, struct kmem_ro_probe_spec *spec,
			    const char *name, uint32_t offset, uint32_t flags)
{
	const struct kmemdev_symtab *tab;
	size_t i, len;
	int err;

	if (!h || !spec || !name || !*name ||
	    (flags & ~KMEM_RO_PROBE_ENABLED))
		return -EINVAL;
	len = strlen(name);
	if (len >= KMEM_RO_PROBE_NAME_LEN)
		return -ENAMETOOLONG;
	err = symtab(h, &tab);
	if (err)
		return err;
	/* Duplicates come vmlinux first, then by address: take the first text. */
	for (i = name_bound(tab, name, len + 1); i < tab->count; i++) {
		const struct kmemdev_sym *s = &tab->by_addr[tab->by_name[i]];

		if (strcmp(s->name, name))
			break;
		if (kmemdev__probe_sym_ok(s))
			return kmemdev__probe_spec_set(spec, s, offset, flags);
	}
	return -ENOENT;
}
