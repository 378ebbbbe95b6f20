// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Serving a read of a followed kcore fd, as kcore reads:
 *  - the header from the shim's memfd (kf->hdr_fd), holes as zeros (the
 *    memfd's hole);
 *  - direct-map RAM (with mmap_ram=1) and kernel text [text_start,
 *    text_end) from a read-only mapping of the device: no system call;
 *    where a page of it shows the driver's refused page, before or after
 *    the copy (KMEM_RO_FEAT_MMAP_REFUSED, refused() below), from the
 *    device as the next item;
 *  - every other segment byte (vmalloc, modules, vmemmap, the rest of the
 *    image, RAM with mmap_ram=0) with one pread() of the device by address
 *    (device_read(); one READV segment with an older driver); a page the
 *    device refuses (EFAULT, ENXIO, EPERM, EINVAL) reads as zeros, as
 *    kcore zeroes a page it cannot copy.
 * So a kcore pread() of readable bytes in one segment is one device
 * pread(), or none.
 */
#include "preload.h"

/* What the file holds at off, and how far that lasts: the segment, or
 * NULL with *len cut at the next segment (the header, or a hole). */
static const struct kseg *piece(const struct kshared *sh, uint64_t off,
				size_t *len)
{
	unsigned int lo = 0, hi = sh->nr;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (sh->seg[mid].end <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* seg[lo] is the first segment that ends after off */
	if (lo < sh->nr && sh->seg[lo].off <= off) {
		if (*len > sh->seg[lo].end - off)
			*len = sh->seg[lo].end - off;
		return &sh->seg[lo];
	}
	if (lo < sh->nr && *len > sh->seg[lo].off - off)
		*len = sh->seg[lo].off - off;
	return NULL;
}

/*
 * Does a page of the mapping [p, p + n) show the refused page?  One
 * aligned u64 per page, between fences so that the check orders against
 * the copy before or after it (uapi/kmem_ro.h: an entry becomes the
 * refused page, or stops being it, only after a zap).
 */
static bool refused(const struct kdev *d, const unsigned char *p, size_t n)
{
	uintptr_t mask = (uintptr_t)d->info.page_size - 1;
	uintptr_t a = (uintptr_t)p & ~mask, last = ((uintptr_t)p + n - 1) & ~mask;
	bool seen = false;

	if (!(d->info.features & KMEM_RO_FEAT_MMAP_REFUSED) || !n)
		return false;
	atomic_thread_fence(memory_order_acquire);
	for (;; a += mask + 1) {
		if (*(const volatile uint64_t *)a == d->info.mmap_refused)
			seen = true;
		if (a == last)
			break;
	}
	atomic_thread_fence(memory_order_acquire);
	return seen;
}

/*
 * Segment bytes [off, off + n) into buf, as kcore reads them: from the
 * mapping into pages known writable, else from the device (a read that
 * comes back short, at a page the device refuses or for a signal, goes on
 * from there); a page the device will not read is zeros (kcore: read_kcore_iter() zeroes what it cannot
 * copy), taken from the memfd's hole at the same offset so that an
 * unwritable buffer fails with EFAULT as kcore's copy does.  n, or -1
 * with errno (EFAULT: the whole read fails, as kcore's).
 */
static ssize_t seg_read(int fd, const struct kfile *kf, const struct kseg *s,
			unsigned char *buf, size_t n, uint64_t off)
{
	const struct kdev *d = kf->dev;
	const struct kwin *w = &kf->win[s - kf->sh->seg];
	uint64_t vaddr = s->vaddr + (off - s->off);
	unsigned long gen = 0;
	uintptr_t lo = 0, hi = 0;
	size_t done = 0;
	bool known = true;	/* device reads only: nothing to learn */
	int dfd;

	if (vaddr >= w->lo && vaddr < w->hi && n <= w->hi - vaddr) {
		if (!span(buf, n, &lo, &hi)) {
			errno = EFAULT;
			return -1;
		}
		gen = atomic_load_explicit(&as_gen, memory_order_acquire);
		known = known_writable(lo, hi, gen);
		if (known) {
			const unsigned char *src = w->base + (vaddr - w->lo);

			if (!refused(d, src, n)) {
				memcpy(buf, src, n);
				if (!refused(d, src, n))
					return (ssize_t)n;
			}
			/* the device reads it: data, or kcore's zeros */
		}
	}
	dfd = atomic_load(&d->fd);
	while (done < n) {
		int64_t r = dfd < 0 ? -EBADF : device_read(d, dfd, vaddr + done, buf + done,
							   n - done);
		size_t z;
		ssize_t got;

		if (r > 0) {
			done += (size_t)r;
			continue;
		}
		/* the page at vaddr + done failed: zeros up to its end */
		z = d->info.page_size - ((vaddr + done) & (d->info.page_size - 1));
		if (z > n - done)
			z = n - done;
		got = CALL_REAL(pread64, -1, fd, buf + done, z, (off_t)(off + done));
		if (got <= 0)	/* the buffer faulted: all of it, as kcore */
			return -1;
		done += (size_t)got;
	}
	if (!known && done == n)
		wc_add(lo, hi, gen);
	return (ssize_t)done;
}

/*
 * pread(buf, n, off) of the kcore file kf: header and holes from its
 * memfd (zeros past the header; EBADF once that is gone), segments from
 * the device.  Bytes read (0 at the end), or -1 with errno, as kcore's
 * read; inside the shim.
 */
ssize_t synth_pread(const struct kfile *kf, void *buf, size_t n, uint64_t off)
{
	const struct kshared *sh = kf->sh;
	int fd = atomic_load(&kf->hdr_fd);
	unsigned char *p = buf;
	size_t done = 0;

	if (off >= sh->size)
		return 0;
	if (n > sh->size - off)
		n = (size_t)(sh->size - off);
	while (done < n) {
		uint64_t o = off + done;
		size_t len = n - done;
		const struct kseg *s;
		ssize_t got;

		if (o < sh->data_offset) {
			s = NULL;
			if (len > sh->data_offset - o)
				len = (size_t)(sh->data_offset - o);
		} else {
			s = piece(sh, o, &len);
		}
		if (s)
			got = seg_read(fd, kf, s, p + done, len, o);
		else
			got = CALL_REAL(pread64, -1, fd, p + done, len, (off_t)o);
		if (got < 0 && errno == EINTR)
			continue;
		/* kcore fails the whole read when a copy faults (EFAULT) */
		if (got < 0)
			return -1;
		if (!got)
			break;
		done += (size_t)got;
	}
	return (ssize_t)done;
}

/* pread() of a followed fd: *served false for any other fd. */
ssize_t try_pread(int fd, void *buf, size_t n, off_t off, bool *served)
{
	struct in_shim c;
	struct kfile *kf;
	ssize_t ret = -1;
	int saved, err = 0;

	*served = false;
	if (!maybe_tracked(fd))
		return -1;
	saved = errno;
	enter(&c);
	kf = file_of(fd);
	if (kf) {
		*served = true;
		if (off < 0) {
			err = EINVAL;
		} else {
			ret = synth_pread(kf, buf, n, (uint64_t)off);
			err = ret < 0 ? errno : 0;
		}
	}
	leave(&c);
	errno = err ? err : saved;
	return ret;
}
