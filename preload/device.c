// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * /dev/kmem_ro as the shim reads it: opened with the first kcore fd,
 * closed after the last; its handshake, and a read-only mapping of what
 * may be mapped (all System RAM with mmap_ram=1 and a driver that maps
 * the refused page where it used to raise SIGBUS, else the kernel text).
 */
#include <sys/syscall.h>
#if __has_include(<sys/single_threaded.h>)
#include <sys/single_threaded.h>
#define ONE_THREAD()	__libc_single_threaded
#else
#define ONE_THREAD()	false
#endif

#include "preload.h"

#define RAM_TRIES	8
/* A signal before any byte: the read is made again, this many times. */
#define READ_TRIES	64

_Atomic(struct kdev *) cur_dev;
/* cur_dev's fd, -1 if none: lets close() of other fds skip the shim. */
atomic_int dev_fd = -1;

static void dev_unmap(struct kdev *d);

/*
 * pread64() of the device as a bare system call: bytes or -errno, errno
 * untouched.  Not libc's pread(), which in a threaded program (drgn's
 * OpenMP workers) turns asynchronous cancellation on and off around the
 * call: in glibc 2.36 (bookworm's) two calls, each a locked
 * compare-exchange, per read.  device_read() is a cancellation point on
 * entry instead.
 */
static inline int64_t device_pread(int fd, void *buf, size_t n, uint64_t off)
{
#if defined(__x86_64__)
	register uint64_t r10 __asm__("r10") = off;
	int64_t ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"((int64_t)SYS_pread64), "D"((int64_t)fd), "S"(buf), "d"(n), "r"(r10)
			 : "rcx", "r11", "memory");
	return ret;
#else
	int saved = errno;
	int64_t ret = syscall(SYS_pread64, fd, buf, n, off);

	if (ret < 0)
		ret = -errno;
	errno = saved;
	return ret;
#endif
}

/* One READV segment straight into buf (a driver without pread()). */
static int64_t readv_one(int fd, uint64_t vaddr, void *buf, size_t n)
{
	struct kmem_ro_iov iov = {
		.addr = vaddr,
		.len = n < KMEM_RO_READV_MAX_BYTES ? n : KMEM_RO_READV_MAX_BYTES,
		.buf = (uintptr_t)buf,
	};

	for (int tries = 0; tries < READ_TRIES; tries++) {
		struct kmem_ro_readv arg = {
			.size = sizeof(arg),
			.iov_addr = (uintptr_t)&iov,
			.iov_count = 1,
		};

		int saved = errno, err = ioctl(fd, KMEM_RO_IOC_READV, &arg) < 0 ? errno : 0;

		errno = saved;
		if (err == EINTR)
			continue;
		if (err)
			return -err;
		if (arg.done == 1)	/* else a signal came first: again */
			return iov.result;
	}
	return -EINTR;
}

int64_t device_read(const struct kdev *d, int fd, uint64_t vaddr, void *buf, size_t n)
{
	if (!(d->info.features & KMEM_RO_FEAT_PREAD))
		return readv_one(fd, vaddr, buf, n);
	/*
	 * A kcore pread() is a cancellation point.  The device's never waits
	 * but for the buffer's own page faults, so a request is acted on
	 * here, as libc's pread() acts on one pending when it is called; the
	 * cleanup enter() pushed leaves the shim.
	 */
	if (!ONE_THREAD())
		pthread_testcancel();
	for (int tries = 0; tries < READ_TRIES; tries++) {
		int64_t r = device_pread(fd, buf, n, KMEM_RO_READ_OFFSET(vaddr));

		if (r != -EINTR)
			return r;
	}
	return -EINTR;
}

void dev_free(struct retired *r)
{
	struct kdev *d = (struct kdev *)r;
	int fd = atomic_load(&d->fd);

	dev_unmap(d);
	if (fd >= 0)
		CALL_REAL(close, -1, fd);
	page_free(d, d->len);
}

void dev_retire(struct kdev *d)
{
	struct kdev *cur = d;
	int fd = atomic_load(&d->fd);

	atomic_compare_exchange_strong(&cur_dev, &cur, NULL);
	if (fd >= 0)
		atomic_compare_exchange_strong(&dev_fd, &fd, -1);
	retire(&d->node);
}

/* The driver's System RAM list, sorted, in pages of ours; NULL on failure. */
struct kmem_ro_range *ram_list(int fd, struct kmem_ro_info *in,
			       unsigned int *nr, size_t *len)
{
	struct kmem_ro_range *ram = NULL;
	unsigned int cap = 0;

	for (int tries = 0; tries < RAM_TRIES; tries++) {
		struct kmem_ro_info arg = {
			.size = sizeof(arg),
			.ram_addr = (uintptr_t)ram,
			.ram_cap = cap,
		};

		if (ioctl(fd, KMEM_RO_IOC_INFO, &arg) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (arg.ram_count <= cap) {
			*in = arg;
			*nr = arg.ram_count;
			/* Insertion sort: a few ranges, and no malloc(). */
			for (unsigned int i = 1; i < *nr; i++)
				for (unsigned int j = i;
				     j && ram[j].start < ram[j - 1].start; j--) {
					struct kmem_ro_range t = ram[j];

					ram[j] = ram[j - 1];
					ram[j - 1] = t;
				}
			for (unsigned int i = 0; i < *nr; i++)
				if (ram[i].end <= ram[i].start)	/* counted, not written */
					goto fail;
			if (!ram)
				return (*len = 1, page_alloc(1, false));
			*len = cap * sizeof(*ram);
			return ram;
		}
		if (ram)
			page_free(ram, cap * sizeof(*ram));
		cap = arg.ram_count;
		ram = page_alloc(cap * sizeof(*ram), false);
		if (!ram)
			return NULL;
	}
fail:
	if (ram)
		page_free(ram, cap * sizeof(*ram));
	return NULL;
}

/* Map range i of d rounded inward to pages; -errno of mmap(), 0 if done. */
static int dev_map_range(struct kdev *d, unsigned int i, int fd)
{
	uint64_t mask = (uint64_t)d->info.page_size - 1;
	const struct kmem_ro_range *r = &d->range[i];
	uint64_t start = r->start > UINT64_MAX - mask ? UINT64_MAX : (r->start + mask) & ~mask;
	uint64_t end = r->end & ~mask;
	void *p;

	if (end <= start || start > (uint64_t)INT64_MAX || end - start > SIZE_MAX)
		return 0;
	p = CALL_REAL(mmap, MAP_FAILED, NULL, end - start, PROT_READ, MAP_SHARED, fd,
		      (off_t)start);
	if (p == MAP_FAILED)
		return -errno;
	as_changed(p, end - start);	/* read-only where a buffer may have been */
	d->map[i] = (struct kmap){ .start = start, .len = end - start, .base = p };
	return 0;
}

static struct kdev *dev_alloc(const struct kmem_ro_info *in, unsigned int n)
{
	size_t len = sizeof(struct kdev) +
		     n * (sizeof(struct kmem_ro_range) + sizeof(struct kmap));
	struct kdev *d = page_alloc(len, false);

	if (!d)
		return NULL;
	d->len = len;
	d->info = *in;
	d->refused_mask = kmemdev__refused_mask(in);
	d->range = (struct kmem_ro_range *)(d + 1);
	d->map = (struct kmap *)(d->range + n);
	return d;
}

static void dev_unmap(struct kdev *d)
{
	for (unsigned int i = 0; i < d->nr; i++)
		if (d->map[i].base)
			page_free(d->map[i].base, d->map[i].len);
}

/*
 * Open the device, shake hands and map what may be mapped: all System RAM,
 * or (mmap_ram=0) the text only.  Signals are blocked.
 */
static struct kdev *dev_new(void)
{
	struct kmem_ro_range *ram;
	struct kmem_ro_info in;
	struct kdev *d = NULL;
	unsigned int nr = 0, i;
	size_t ram_len = 0;
	struct stat st;
	int fd;

	fd = CALL_REAL(open, -1, KMEM_RO_DEVICE, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || !S_ISCHR(st.st_mode))
		goto out_close;
	ram = ram_list(fd, &in, &nr, &ram_len);
	if (!ram)
		goto out_close;
	if (in.abi_version < 1 || !(in.ioctls & (1ULL << _IOC_NR(KMEM_RO_IOC_INFO))) ||
	    !(in.features & (KMEM_RO_FEAT_PREAD | KMEM_RO_FEAT_READV)))
		goto out_ram;
	/* an older driver raises SIGBUS on a page it refuses: text only */
	if ((in.features & KMEM_RO_FEAT_MMAP_RAM) && (in.features & KMEM_RO_FEAT_MMAP_REFUSED)) {
		d = dev_alloc(&in, nr);
		if (!d)
			goto out_ram;
		memcpy(d->range, ram, nr * sizeof(*ram));
		d->nr = nr;
		for (i = 0; i < nr && dev_map_range(d, i, fd) != -EPERM; i++)
			;
		if (i < nr) {	/* mmap_ram=0 since the handshake */
			dev_unmap(d);
			page_free(d, d->len);
			d = NULL;
		}
	}
	if (!d) {
		d = dev_alloc(&in, 1);
		if (!d)
			goto out_ram;
		if ((in.features & KMEM_RO_FEAT_MMAP_TEXT) &&
		    !kmemdev__text_range(&in, &d->range[0])) {
			d->nr = 1;
			dev_map_range(d, 0, fd);
		}
	}
	page_free(ram, ram_len);
	atomic_init(&d->fd, fd);
	atomic_init(&d->files, 1);
	d->node.free = dev_free;
	return d;

out_ram:
	page_free(ram, ram_len);
out_close:
	CALL_REAL(close, -1, fd);
	return NULL;
}

/* The device for one more file (a reference); inside the shim. */
struct kdev *dev_get(void)
{
	for (;;) {
		struct kdev *d = atomic_load(&cur_dev), *none = NULL;

		if (d) {
			if (get_ref(&d->files))
				return d;
			/* Its last file went: whoever retires it clears this too. */
			atomic_compare_exchange_strong(&cur_dev, &d, NULL);
			continue;
		}
		d = dev_new();
		if (!d)
			return NULL;
		if (atomic_compare_exchange_strong(&cur_dev, &none, d)) {
			atomic_store(&dev_fd, atomic_load(&d->fd));
			return d;
		}
		dev_free(&d->node);	/* another thread was first */
	}
}

/*
 * Where the device's mapping holds segment s: the part of [a, b) (its
 * addresses that may come from the mapping) that one mapped range holds,
 * phys = vaddr - delta.  RAM: the whole segment.  The image: its text
 * only; past the text the image has holes the kernel freed (init, the
 * gaps around rodata): kcore reads them as zeros through the unmapped
 * image address, a mapping of their physical pages would show whatever
 * reuses them.  The device reads the image address too.
 */
struct kwin seg_window(const struct kdev *d, const struct kseg *s, uint64_t size)
{
	const struct kmem_ro_info *in = &d->info;
	uint64_t a = s->vaddr, b = s->vaddr + size, delta;

	if (s->kind == SEG_RAM) {
		delta = in->page_offset;
	} else if (s->kind == SEG_IMAGE && in->text_start < in->text_end) {
		delta = in->kernel_map - in->phys_base;
		a = a > in->text_start ? a : in->text_start;
		b = b < in->text_end ? b : in->text_end;
	} else {
		return (struct kwin){ 0 };
	}
	for (unsigned int i = 0; a < b && i < d->nr; i++) {
		const struct kmap *m = &d->map[i];
		uint64_t lo = a - delta, hi = b - delta;

		if (!m->base)
			continue;
		lo = lo > m->start ? lo : m->start;
		hi = hi < m->start + m->len ? hi : m->start + m->len;
		if (lo < hi)
			return (struct kwin){ lo + delta, hi + delta, m->base + (lo - m->start) };
	}
	return (struct kwin){ 0 };
}
