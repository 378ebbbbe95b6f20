// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Struct layouts from the kernel's own BTF (/sys/kernel/btf/vmlinux), so
 * that no caller ever hard-codes an offset that changes with the kernel
 * version or its configuration.
 *
 * The BTF is parsed by libbpf once per handle, on first use, under
 * btf_lock; afterwards it is only read (libbpf's lookups do not modify the
 * object), so lookups take no lock.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "internal.h"

/* Anonymous members nest this deep at most (the kernel: a handful). */
#define BTF_MAX_DEPTH	32

static bool btf_loaded(const struct kmemdev *h)
{
	return atomic_load_explicit(&h->btf, memory_order_relaxed) || h->btf_err;
}

int kmemdev__set_btf_path(struct kmemdev *h, const char *path)
{
	if (!h)
		return -EINVAL;
	return kmemdev__set_path(h, &h->btf_lock, btf_loaded, &h->btf_path, path);
}

static int btf_open(const char *path, struct btf **out)
{
	struct btf *btf;
	long err;

	btf = path ? btf__parse(path, NULL) : btf__load_vmlinux_btf();
	err = libbpf_get_error(btf);
	if (!err && !btf)
		err = -ENOENT;
	if (err) {
		/* libbpf: -ESRCH when no kernel BTF is found anywhere. */
		if (!path && (err == -ESRCH || err == -ENOENT))
			return -ENODATA;
		return err < 0 && err > -4096 ? (int)err : -EIO;
	}
	*out = btf;
	return 0;
}

/* The handle's BTF, loaded on first use; a load error is sticky. */
static int btf_get(struct kmemdev *h, const struct btf **out)
{
	struct btf *btf;
	int err = 0;

	btf = atomic_load_explicit(&h->btf, memory_order_acquire);
	if (btf) {
		*out = btf;
		return 0;
	}
	pthread_mutex_lock(&h->btf_lock);
	btf = atomic_load_explicit(&h->btf, memory_order_relaxed);
	if (!btf && !h->btf_err) {
		err = btf_open(h->btf_path, &btf);
		if (err)
			h->btf_err = err;
		else
			atomic_store_explicit(&h->btf, btf, memory_order_release);
	}
	if (!btf)
		err = h->btf_err;
	pthread_mutex_unlock(&h->btf_lock);
	*out = btf;
	return err;
}

void kmemdev__btf_release(struct kmemdev *h)
{
	btf__free(atomic_load_explicit(&h->btf, memory_order_relaxed));
	atomic_store_explicit(&h->btf, NULL, memory_order_relaxed);
	free(h->btf_path);
	h->btf_path = NULL;
}

/* A struct or union by name, directly or through a typedef. */
static int find_composite(const struct btf *btf, const char *name,
			  const struct btf_type **type)
{
	static const unsigned int kinds[] = {
		BTF_KIND_STRUCT, BTF_KIND_UNION, BTF_KIND_TYPEDEF,
	};
	const struct btf_type *t;
	unsigned int i;
	int id;

	if (!strncmp(name, "struct ", 7))
		name += 7;
	else if (!strncmp(name, "union ", 6))
		name += 6;
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		id = btf__find_by_name_kind(btf, name, kinds[i]);
		if (id <= 0)
			continue;
		id = btf__resolve_type(btf, id);	/* typedef -> target */
		if (id <= 0)
			continue;
		t = btf__type_by_id(btf, id);
		if (t && btf_is_composite(t)) {
			*type = t;
			return 0;
		}
	}
	return -ENOENT;
}

/*
 * Search t's members for name, descending into anonymous struct/union
 * members; base is t's bit offset from the outermost type.
 */
static int find_member(const struct btf *btf, const struct btf_type *t,
		       const char *name, uint64_t base, int depth,
		       uint64_t *bit_off, const struct btf_member **found,
		       uint32_t *bitfield)
{
	const struct btf_member *m = btf_members(t);
	uint16_t i, n = btf_vlen(t);

	if (depth > BTF_MAX_DEPTH)
		return -ENOENT;
	for (i = 0; i < n; i++, m++) {
		const char *mname = btf__name_by_offset(btf, m->name_off);
		uint64_t off = base + btf_member_bit_offset(t, i);
		const struct btf_type *mt;
		int id;

		if (mname && *mname) {
			if (strcmp(mname, name))
				continue;
			*bit_off = off;
			*found = m;
			*bitfield = btf_member_bitfield_size(t, i);
			return 0;
		}
		id = btf__resolve_type(btf, m->type);
		mt = id > 0 ? btf__type_by_id(btf, id) : NULL;
		if (mt && btf_is_composite(mt) &&
		    !find_member(btf, mt, name, off, depth + 1, bit_off, found,
				 bitfield))
			return 0;
	}
	return -ENOENT;
}

int kmemdev_btf_member(struct kmemdev *h, const char *type,
		       const char *member, uint32_t *offset, uint32_t *size)
{
	const struct btf_member *m;
	const struct btf_type *t;
	const struct btf *btf;
	uint32_t bitfield;
	uint64_t bit_off;
	long sz;
	int err;

	if (!h || !type || !member || !*type || !*member)
		return -EINVAL;
	err = btf_get(h, &btf);
	if (err)
		return err;
	err = find_composite(btf, type, &t);
	if (err)
		return err;
	err = find_member(btf, t, member, 0, 0, &bit_off, &m, &bitfield);
	if (err)
		return err;
	if (bitfield || bit_off % 8)
		return -EINVAL;
	sz = btf__resolve_size(btf, m->type);
	if (sz < 0)
		return sz < -4095 ? -EIO : (int)sz;
	if (bit_off / 8 > UINT32_MAX || (unsigned long)sz > UINT32_MAX)
		return -EOVERFLOW;
	if (offset)
		*offset = (uint32_t)(bit_off / 8);
	if (size)
		*size = (uint32_t)sz;
	return 0;
}
