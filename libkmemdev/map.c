// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Read-only mmap of kernel memory through /dev/kmem_ro.
 *
 * The file offset of the device is a physical address.  A handle keeps one
 * region per System RAM range (rounded inward to whole pages: a page that
 * is not wholly RAM is never System RAM to the driver), mapped whole on
 * first use.  Mapping costs address space only: the driver fills page
 * tables on touch, in 2 MiB pieces where it can.  By default (mmap_ram=0,
 * RAM mmap is the driver's opt-in) a single region covers the kernel text,
 * and kmemdev_read() (read.c) reads RAM through the device's pread().
 *
 * A page the driver will not show (memfd_secret, poisoned, offline, RAM
 * revoked by mmap_ram=0 ...) reads as its refused page, the pattern
 * info.mmap_refused in every u64, where a driver without
 * KMEM_RO_FEAT_MMAP_REFUSED raised SIGBUS: with such a driver RAM beyond
 * the text is never copied from a mapping.  kmemdev_map_refused() tells a
 * copy that may hold the refused page.
 *
 * Lookups are the hot path (a caller may read 8 bytes at a time): they
 * translate with plain arithmetic and a binary search, then load the
 * region's base with acquire order.  Only the first use of a region, or of
 * the handle, takes map_lock.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>

#include "internal.h"

/* [a_first, a_last] (inclusive) meets [b_start, b_end) (exclusive). */
static bool overlaps(uint64_t a_first, uint64_t a_last, uint64_t b_start,
		     uint64_t b_end)
{
	return b_start < b_end && a_first < b_end && a_last >= b_start;
}

/* Image window: [text_start, modules_start), only if the driver set it. */
static bool in_image(const struct kmem_ro_info *in, uint64_t first,
		     uint64_t last)
{
	return in->text_start && in->text_start < in->modules_start &&
	       first >= in->text_start && last < in->modules_start;
}

/*
 * Direct map: above page_offset, and never in the windows the kernel uses
 * for other mappings.  Their addresses would translate to physical
 * addresses beyond RAM anyway; excluding them keeps that from depending on
 * the layout.
 */
static bool in_direct_map(const struct kmem_ro_info *in, uint64_t first,
			  uint64_t last)
{
	if (first < in->page_offset)
		return false;
	if (overlaps(first, last, in->vmalloc_start, in->vmalloc_end) ||
	    overlaps(first, last, in->modules_start, in->modules_end))
		return false;
	/* x86-64 puts the image (and fixmap, vsyscall) above the direct map. */
	return in->kernel_map <= in->page_offset || last < in->kernel_map;
}

int kmemdev__translate(const struct kmem_ro_info *info,
		       const struct kmem_ro_range *ram, unsigned int nr,
		       uint64_t kaddr, size_t len, uint64_t *phys)
{
	uint64_t mask, last, p, start, end;
	unsigned int lo = 0, hi = nr;

	if (!len || (uint64_t)len - 1 > UINT64_MAX - kaddr)
		return -EINVAL;
	if (!info->page_size || (info->page_size & (info->page_size - 1)))
		return -EPROTO;
	mask = (uint64_t)info->page_size - 1;
	last = kaddr + (len - 1);

	if (in_image(info, kaddr, last))
		p = kaddr - info->kernel_map + info->phys_base;
	else if (in_direct_map(info, kaddr, last))
		p = kaddr - info->page_offset;
	else
		return -ENXIO;

	/* Last range starting at or below p; ranges do not overlap. */
	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (ram[mid].start <= p)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return -ENXIO;
	lo--;
	if (ram[lo].start > UINT64_MAX - mask)
		return -ENXIO;
	start = (ram[lo].start + mask) & ~mask;
	end = ram[lo].end & ~mask;
	if (p < start || p >= end || len > end - p)
		return -ENXIO;
	*phys = p;
	return (int)lo;
}

int kmemdev__text_range(const struct kmem_ro_info *info,
			struct kmem_ro_range *text)
{
	uint64_t start, size;

	if (!info->text_start || info->text_end <= info->text_start ||
	    info->text_start < info->kernel_map)
		return -ENXIO;
	start = info->text_start - info->kernel_map + info->phys_base;
	size = info->text_end - info->text_start;
	if (start > UINT64_MAX - size)
		return -ENXIO;
	text->start = start;
	text->end = start + size;
	return 0;
}

static int cmp_range(const void *pa, const void *pb)
{
	const struct kmem_ro_range *a = pa, *b = pb;

	return a->start < b->start ? -1 : a->start > b->start;
}

static void region_init(struct kmemdev_region *r, const struct kmem_ro_range *rg,
			uint64_t mask)
{
	r->start = rg->start > UINT64_MAX - mask ? rg->end & ~mask :
		   (rg->start + mask) & ~mask;
	r->end = rg->end & ~mask;
	if (r->end < r->start)
		r->end = r->start;
	atomic_init(&r->base, NULL);
}

static void maps_free(struct kmemdev_maps *m)
{
	unsigned int i;

	if (!m)
		return;
	for (i = 0; i < m->nr; i++) {
		const unsigned char *b = atomic_load_explicit(
			&m->regions[i].base, memory_order_relaxed);

		if (b)
			munmap((void *)b, m->regions[i].end - m->regions[i].start);
	}
	if (m->have_text) {
		const unsigned char *b = atomic_load_explicit(
			&m->text_region.base, memory_order_relaxed);

		if (b)
			munmap((void *)b, m->text_region.end - m->text_region.start);
	}
	free(m->regions);
	free(m->ram);
	free(m);
}

/* Build (not yet publish) the mapping state from h->info and a RAM list. */
static int maps_build(const struct kmemdev *h, const struct kmem_ro_range *ram,
		      unsigned int nr, struct kmemdev_maps **out)
{
	const struct kmem_ro_info *in = &h->info;
	struct kmemdev_maps *m;
	uint64_t mask;
	unsigned int i;

	if (!in->page_size || (in->page_size & (in->page_size - 1)))
		return -EPROTO;
	mask = (uint64_t)in->page_size - 1;

	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	if (nr) {
		m->ram = malloc(nr * sizeof(*m->ram));
		m->regions = calloc(nr, sizeof(*m->regions));
		if (!m->ram || !m->regions) {
			maps_free(m);
			return -ENOMEM;
		}
		memcpy(m->ram, ram, nr * sizeof(*m->ram));
		qsort(m->ram, nr, sizeof(*m->ram), cmp_range);
		for (i = 0; i < nr; i++)
			region_init(&m->regions[i], &m->ram[i], mask);
		m->nr = nr;
	}
	m->have_text = (in->features & KMEM_RO_FEAT_MMAP_TEXT) &&
		       !kmemdev__text_range(in, &m->text);
	if (m->have_text)
		region_init(&m->text_region, &m->text, mask);
	/* an older driver's mapping raises SIGBUS on a page it refuses */
	atomic_init(&m->text_only, !(in->features & KMEM_RO_FEAT_MMAP_RAM) ||
				   !(in->features & KMEM_RO_FEAT_MMAP_REFUSED));
	*out = m;
	return 0;
}

int kmemdev__maps_init(struct kmemdev *h, const struct kmem_ro_range *ram,
		       unsigned int nr)
{
	struct kmemdev_maps *m;
	int err;

	if (!h || (!ram && nr))
		return -EINVAL;
	pthread_mutex_lock(&h->map_lock);
	if (atomic_load_explicit(&h->maps, memory_order_relaxed)) {
		err = -EBUSY;
	} else {
		err = maps_build(h, ram, nr, &m);
		if (!err)
			atomic_store_explicit(&h->maps, m, memory_order_release);
	}
	pthread_mutex_unlock(&h->map_lock);
	return err;
}

/* The handle's mapping state, built on first use (double-checked). */
static int maps_get(struct kmemdev *h, struct kmemdev_maps **out)
{
	struct kmem_ro_range *ram = NULL;
	KMEMDEV_ARG(kmem_ro_info, info);
	struct kmemdev_maps *m;
	unsigned int nr = 0;
	int err = 0;

	m = atomic_load_explicit(&h->maps, memory_order_acquire);
	if (m) {
		*out = m;
		return 0;
	}
	pthread_mutex_lock(&h->map_lock);
	m = atomic_load_explicit(&h->maps, memory_order_relaxed);
	if (!m) {
		err = kmemdev_info_alloc(h, &info, &ram, &nr);
		if (!err)
			err = maps_build(h, ram, nr, &m);
		if (!err)
			atomic_store_explicit(&h->maps, m, memory_order_release);
		free(ram);
	}
	pthread_mutex_unlock(&h->map_lock);
	*out = m;
	return err;
}

void kmemdev__maps_release(struct kmemdev *h)
{
	maps_free(atomic_load_explicit(&h->maps, memory_order_relaxed));
	atomic_store_explicit(&h->maps, NULL, memory_order_relaxed);
}

/*
 * mmap() a region whole on first use.  An EPERM for a RAM region means
 * mmap_ram=0: switch the handle to text-only for good and return 1, telling
 * the caller to translate again.  Other errors are not remembered: ENOMEM,
 * say, may pass.
 */
static int region_map(struct kmemdev *h, struct kmemdev_maps *m,
		      struct kmemdev_region *r, bool text,
		      const unsigned char **base)
{
	const unsigned char *b;
	off_t off = (off_t)r->start;
	uint64_t len = r->end - r->start;
	void *p;
	int err = 0;

	if (off < 0 || (uint64_t)off != r->start || len > SIZE_MAX)
		return -EOVERFLOW;
	pthread_mutex_lock(&h->map_lock);
	b = atomic_load_explicit(&r->base, memory_order_relaxed);
	if (!b) {
		p = mmap(NULL, len, PROT_READ, MAP_SHARED, h->fd, off);
		if (p == MAP_FAILED) {
			err = -errno;
			if (err == -EPERM && !text && m->have_text) {
				atomic_store_explicit(&m->text_only, true,
						      memory_order_release);
				err = 1;
			}
		} else {
			b = p;
			atomic_store_explicit(&r->base, b, memory_order_release);
		}
	}
	pthread_mutex_unlock(&h->map_lock);
	*base = b;
	return err;
}

int kmemdev_map(struct kmemdev *h, uint64_t kaddr, size_t len,
		const void **ptr)
{
	const struct kmem_ro_range *ranges;
	struct kmemdev_region *regions, *r;
	const unsigned char *base;
	struct kmemdev_maps *m;
	unsigned int nr;
	uint64_t phys;
	bool text;
	int idx, err;

	if (!h || !ptr)
		return -EINVAL;
	*ptr = NULL;
	if (h->backend == KMEMDEV_BACKEND_KCORE)
		return -EOPNOTSUPP;
	err = maps_get(h, &m);
	if (err)
		return err;
	do {
		text = atomic_load_explicit(&m->text_only, memory_order_acquire);
		if (text && !m->have_text)
			return -EOPNOTSUPP;
		ranges = text ? &m->text : m->ram;
		regions = text ? &m->text_region : m->regions;
		nr = text ? 1 : m->nr;

		idx = kmemdev__translate(&h->info, ranges, nr, kaddr, len, &phys);
		if (idx < 0)
			return idx;
		r = &regions[idx];
		base = atomic_load_explicit(&r->base, memory_order_acquire);
		err = base ? 0 : region_map(h, m, r, text, &base);
	} while (err > 0);
	if (err)
		return err;
	*ptr = base + (phys - r->start);
	return 0;
}

/* The refused page in a copy from a mapping: kmemdev__refused(). */
bool kmemdev_map_refused(struct kmemdev *h, const void *ptr, size_t len)
{
	return h && ptr && kmemdev__refused(&h->info, ptr, len);
}
