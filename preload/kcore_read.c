// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Serving a read of a followed kcore fd, as kcore reads:
 *  - the header from the shim's memfd (kf->hdr_fd), holes as zeros (the
 *    memfd's hole);
 *  - direct-map RAM (with mmap_ram=1) and kernel text [text_start,
 *    text_end) from a read-only mapping of the device: no system call;
 *    where a page of it shows the driver's refused page, before or after
 *    the copy (KMEM_RO_FEAT_MMAP_REFUSED, kmemdev__refused()), from the
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

/* A step of the common read: no call (try_pread() is flattened too). */
#define HOT	static inline __attribute__((always_inline))

/* What the file holds at off, and how far that lasts: the segment, or
 * NULL with *len cut at the next segment (the header, or a hole). */
HOT const struct kseg *piece(const struct kshared *sh, uint64_t off, size_t *len)
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
 * drgn's and crash's reads are a few words: copied here, not by a call
 * into libc (whose memcpy() picks a method by size first).  Overlapping
 * word moves, as libc's own small copies.
 */
HOT void copy_small(unsigned char *dst, const unsigned char *src, size_t n)
{
	uint64_t a, b;
	uint32_t c, d;

	if (n > 16) {
		memcpy(dst, src, n);
	} else if (n >= 8) {
		__builtin_memcpy(&a, src, 8);
		__builtin_memcpy(&b, src + n - 8, 8);
		__builtin_memcpy(dst, &a, 8);
		__builtin_memcpy(dst + n - 8, &b, 8);
	} else if (n >= 4) {
		__builtin_memcpy(&c, src, 4);
		__builtin_memcpy(&d, src + n - 4, 4);
		__builtin_memcpy(dst, &c, 4);
		__builtin_memcpy(dst + n - 4, &d, 4);
	} else {
		for (size_t i = 0; i < n; i++)
			dst[i] = src[i];
	}
}

/*
 * Segment bytes [vaddr, vaddr + n) of s, n > 0, from the device's mapping
 * into buf, if the mapping holds them all, buf is known writable and no
 * page shows the refused page: n.  Else 0, nothing copied that counts
 * (the device reads it), or -1 with errno EFAULT if buf wraps.  *lo, *hi
 * and *gen: what a device read into buf teaches the writable cache
 * (*lo == *hi: nothing).
 */
HOT ssize_t mapped_read(const struct kfile *kf, const struct kseg *s,
			unsigned char *buf, size_t n, uint64_t vaddr,
			uintptr_t *lo, uintptr_t *hi, unsigned long *gen)
{
	const struct kwin *w = &kf->win[s - kf->sh->seg];
	const struct kdev *d = kf->dev;
	const unsigned char *src;

	*lo = *hi = 0;
	if (vaddr < w->lo || vaddr >= w->hi || n > w->hi - vaddr)
		return 0;
	if (!span(buf, n, lo, hi)) {
		errno = EFAULT;
		return -1;
	}
	*gen = atomic_load_explicit(&as_gen, memory_order_acquire);
	if (!known_writable(*lo, *hi, *gen))
		return 0;
	*lo = *hi = 0;	/* known already */
	src = w->base + (vaddr - w->lo);
	if (d->refused_mask && kmemdev__refused_in(d->info.mmap_refused, d->refused_mask, src, n))
		return 0;
	copy_small(buf, src, n);
	if (d->refused_mask && kmemdev__refused_in(d->info.mmap_refused, d->refused_mask, src, n))
		return 0;
	return (ssize_t)n;
}

/* seg_read_device() past a first device read that was not all of it (first). */
static __attribute__((noinline)) ssize_t
seg_read_rest(int fd, const struct kfile *kf, int dfd, uint64_t vaddr, unsigned char *buf,
	      size_t n, uint64_t off, int64_t first)
{
	const struct kdev *d = kf->dev;
	size_t done = 0;

	for (int64_t r = first; done < n;
	     r = dfd < 0 ? -EBADF : device_read(d, dfd, vaddr + done, buf + done, n - done)) {
		int saved, err;
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
		saved = errno;
		got = CALL_REAL(pread64, -1, fd, buf + done, z, (off_t)(off + done));
		err = got < 0 ? errno : EFAULT;
		errno = saved;
		if (got <= 0)	/* the buffer faulted: all of it, as kcore */
			return -err;
		done += (size_t)got;
	}
	return (ssize_t)done;
}

/*
 * Segment bytes [off, off + n) at vaddr into buf from the device, once
 * the mapping did not serve them (a read that comes back short, at a
 * page the device refuses or for a signal, goes on from there); a page
 * the device will not read is zeros (kcore: read_kcore_iter() zeroes what
 * it cannot copy), taken from the memfd's hole at the same offset so that
 * an unwritable buffer fails with EFAULT as kcore's copy does.  lo, hi and
 * gen: what mapped_read() said the read teaches the writable cache.  n, or
 * -errno (EFAULT: the whole read fails, as kcore's); errno untouched.
 */
static ssize_t seg_read_device(int fd, const struct kfile *kf, uint64_t vaddr,
			       unsigned char *buf, size_t n, uint64_t off,
			       uintptr_t lo, uintptr_t hi, unsigned long gen)
{
	int dfd = atomic_load(&kf->dev->fd);
	/* n > 0: the common read is all of it at once, the rest a call */
	int64_t r = dfd < 0 ? -EBADF : device_read(kf->dev, dfd, vaddr, buf, n);

	if (r != (int64_t)n)
		r = seg_read_rest(fd, kf, dfd, vaddr, buf, n, off, r);
	if (lo != hi && r == (int64_t)n)
		wc_add(lo, hi, gen);
	return (ssize_t)r;
}

/*
 * Segment bytes [off, off + n) into buf, as kcore reads them: from the
 * mapping into pages known writable, else from the device.  n, or -1
 * with errno.
 */
static ssize_t seg_read(int fd, const struct kfile *kf, const struct kseg *s,
			unsigned char *buf, size_t n, uint64_t off)
{
	uint64_t vaddr = s->vaddr + (off - s->off);
	unsigned long gen = 0;
	uintptr_t lo, hi;
	ssize_t got = mapped_read(kf, s, buf, n, vaddr, &lo, &hi, &gen);

	if (got)
		return got;
	got = seg_read_device(fd, kf, vaddr, buf, n, off, lo, hi, gen);
	if (got >= 0)
		return got;
	errno = (int)-got;
	return -1;
}

/*
 * The segment a thread's last read of one segment was in: most reads
 * follow one another there (drgn's walk of the direct map), so most skip
 * the search, and its data-dependent branches.  An index, checked against
 * the file it is used on: a read of another file, or a handler's read in
 * between, costs a search, never a wrong segment.
 */
static TLS unsigned int last_seg;

/* The segment that holds all of [off, off + n), n > 0; else NULL. */
HOT const struct kseg *one_segment(const struct kshared *sh, size_t n, uint64_t off)
{
	unsigned int i = last_seg;
	const struct kseg *s;
	size_t len = n;

	if (i < sh->nr && n) {
		s = &sh->seg[i];
		if (s->off <= off && off < s->end && n <= s->end - off)
			return s;
	}
	if (!n || off < sh->data_offset || off >= sh->size || n > sh->size - off)
		return NULL;
	s = piece(sh, off, &len);
	if (!s || len != n)
		return NULL;
	last_seg = (unsigned int)(s - sh->seg);
	return s;
}

/* Any other read: synth_pread()'s contract, errno changed on failure. */
static __attribute__((noinline)) ssize_t pread_pieces(const struct kfile *kf, void *buf,
						      size_t n, uint64_t off)
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

/*
 * pread(buf, n, off) of the kcore file kf: header and holes from its
 * memfd (zeros past the header; EBADF once that is gone), segments from
 * the device.  Bytes read (0 at the end), or -1 with errno, as kcore's
 * read; errno as it was on success; inside the shim.
 */
ssize_t synth_pread(const struct kfile *kf, void *buf, size_t n, uint64_t off)
{
	const struct kseg *s = one_segment(kf->sh, n, off);
	unsigned long gen = 0;
	uint64_t vaddr = 0;
	uintptr_t lo = 0, hi = 0;
	ssize_t ret = 0;
	int saved;

	/*
	 * The read most readers make, a few bytes of one segment: copied from
	 * the mapping, else read from the device without looking the segment
	 * up again; neither calls into libc (errno's address is a call).
	 */
	if (s) {
		vaddr = s->vaddr + (off - s->off);
		ret = mapped_read(kf, s, buf, n, vaddr, &lo, &hi, &gen);
		if (ret)
			return ret;
		ret = seg_read_device(atomic_load(&kf->hdr_fd), kf, vaddr, buf, n, off,
				      lo, hi, gen);
		if (ret >= 0)
			return ret;
		if (ret != -EINTR) {
			errno = (int)-ret;
			return -1;
		}
	}
	saved = errno;
	ret = pread_pieces(kf, buf, n, off);
	if (ret >= 0)
		errno = saved;
	return ret;
}

/*
 * pread() of a followed fd: *served false for any other fd.  Every step
 * of the common read (enter, look up, copy, leave: loads and compares)
 * inline; flatten stops at pread_pieces(), the rest.
 */
HOT ssize_t pread_served(int fd, void *buf, size_t n, off_t off, bool *served)
{
	fd_slot *slot = slot_of(fd);
	struct in_shim c;
	struct kfile *kf;
	ssize_t ret = -1;

	*served = false;
	if (!slot_maybe_tracked(slot))
		return -1;
	enter(&c);
	kf = slot_file(slot);
	if (kf) {
		*served = true;
		if (off >= 0)
			ret = synth_pread(kf, buf, n, (uint64_t)off);
		else
			errno = EINVAL;
	}
	leave(&c);
	return ret;
}

__attribute__((flatten))
ssize_t try_pread(int fd, void *buf, size_t n, off_t off, bool *served)
{
	return pread_served(fd, buf, n, off, served);
}

/*
 * pread() and pread64(): the wrappers jump here, so a read makes one call
 * into the shim, with no flag to pass back.
 */
__attribute__((flatten))
ssize_t pread_or_real(int fd, void *buf, size_t n, off_t off, bool wide)
{
	bool served;
	ssize_t r = pread_served(fd, buf, n, off, &served);

	if (served)
		return r;
	if (wide)
		return CALL_REAL(pread64, -1, fd, buf, n, off);
	return CALL_REAL(pread, -1, fd, buf, n, off);
}
