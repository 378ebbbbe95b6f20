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
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

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

#define KERNEL_BTF	"/sys/kernel/btf/vmlinux"

/*
 * Where the device finds the kernel's BTF: [__start_BTF, __stop_BTF), as
 * a by-name pass saw it (symbols.c), else one pass of its own (no lock:
 * the table build may hold sym_lock and come here for module symbols).
 * 0 if not through the device.
 */
static uint64_t btf_device_addr(struct kmemdev *h, size_t size)
{
	static const char *const names[] = { KMEMDEV_BTF_START, KMEMDEV_BTF_STOP };
	struct kmemdev_sym s[2];
	bool found[2];
	uint64_t start = atomic_load(&h->btf_start), stop = atomic_load(&h->btf_stop);

	if (kmemdev__feature(h, KMEM_RO_FEAT_VMCOREINFO))
		return 0;
	if (!start && !kmemdev__kallsyms_find_core(h, names, 2, s, found) &&
	    found[0] && found[1]) {
		start = s[0].addr;
		stop = s[1].addr;
		atomic_store(&h->btf_start, start);
		atomic_store(&h->btf_stop, stop);
	}
	return start && stop - start == size ? start : 0;
}

/*
 * The kernel's BTF into @buf (@size bytes, the sysfs file's).  sysfs
 * serves a bin file one page per read() (kernfs_file_read_iter()): ~1200
 * calls for 5 MB.  The device reads the same bytes (sysfs_btf.c serves
 * __start_BTF) in one call; the first page, read from sysfs too, must
 * agree.  Else the page-at-a-time loop.
 */
static int btf_read_kernel(struct kmemdev *h, int fd, void *buf, size_t size)
{
	unsigned char first[4096];
	size_t got = 0, head = size < sizeof(first) ? size : sizeof(first);
	uint64_t at = btf_device_addr(h, size);

	if (at && pread(fd, first, head, 0) == (ssize_t)head &&
	    !kmemdev__read_scratch(h, at, buf, size) && !memcmp(buf, first, head))
		return 0;
	while (got < size) {
		ssize_t n = pread(fd, (char *)buf + got, size - got, (off_t)got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		got += (size_t)n;
	}
	return 0;
}

/*
 * The running kernel's BTF: since 6.16 the sysfs file can be mapped
 * (btf_sysfs_vmlinux_mmap(), 7.3), no read at all; before, through the
 * device or page by page.  -ENOENT without the sysfs file.
 */
static int btf_kernel(struct kmemdev *h, struct btf **out)
{
	struct stat st;
	struct btf *btf = NULL;
	void *data;
	long err;
	int fd = open(KERNEL_BTF, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -ENOENT;
	if (fstat(fd, &st) || st.st_size <= 0) {
		close(fd);
		return -ENOENT;
	}
	data = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (data != MAP_FAILED) {
		btf = btf__new(data, (uint32_t)st.st_size);
		munmap(data, (size_t)st.st_size);
	} else if ((data = malloc((size_t)st.st_size))) {
		err = btf_read_kernel(h, fd, data, (size_t)st.st_size);
		if (!err)
			btf = btf__new(data, (uint32_t)st.st_size);
		free(data);
		if (err) {
			close(fd);
			return (int)err;
		}
	} else {
		close(fd);
		return -ENOMEM;
	}
	close(fd);
	err = libbpf_get_error(btf);
	if (err)
		return err < 0 && err > -4096 ? (int)err : -EIO;
	*out = btf;
	return 0;
}

static int btf_open(struct kmemdev *h, const char *path, struct btf **out)
{
	struct btf *btf;
	long err;

	if (!path) {
		err = btf_kernel(h, out);
		if (err != -ENOENT)
			return (int)err;
	}
	/* a file, or no sysfs BTF: libbpf looks in /boot and elsewhere */
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
		err = btf_open(h, h->btf_path, &btf);
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

int kmemdev_btf(struct kmemdev *h, const struct btf **btf)
{
	if (!h || !btf)
		return -EINVAL;
	return btf_get(h, btf);
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
