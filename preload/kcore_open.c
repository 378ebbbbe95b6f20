// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * An open of procfs's kcore, with the device there, never reaches kcore's
 * open (kcore wants CAP_SYS_RAWIO, a member of the device's group has
 * none; root gets the same file, so both read through one code path):
 * the shim serves the kcore the device describes (kcore_synth.c), its
 * header in a sealed memfd of the file's size that only the shim reads,
 * and follows the fd the program gets (fd_table.c): an O_PATH fd of
 * procfs's kcore.  That fd reads nothing: a read the shim does not see -
 * a raw system call, splice(), io_uring, stdio, a dup made where the shim
 * is not (posix_spawn()'s child), the program it execs - fails with
 * EBADF instead of reading the memfd's zeros.  fstat() of it is kcore's.
 */
#include <sys/syscall.h>

#include "kcore_synth.h"
#include "preload.h"

#define NO_PADDR	UINT64_MAX
#define RAM_FEW		32	/* RAM ranges asked for on the stack */

static void kfile_free(struct retired *r)
{
	struct kfile *kf = (struct kfile *)r;

	page_free(kf->sh, kf->sh_len);
	page_free(kf, kf->len);
}

static enum seg_kind seg_kind(const struct kmem_ro_info *in,
			      const struct kseg *s)
{
	if (s->paddr == NO_PADDR)
		return SEG_OTHER;
	if (in->kernel_map > in->page_offset && s->vaddr >= in->kernel_map)
		return SEG_IMAGE;
	if (s->vaddr >= in->page_offset && s->vaddr - in->page_offset == s->paddr)
		return SEG_RAM;
	return SEG_OTHER;
}

/* qsort() may malloc(): a heapsort by file offset. */
static void sift(struct kseg *a, size_t i, size_t n)
{
	for (;;) {
		size_t c = 2 * i + 1;
		struct kseg t;

		if (c >= n)
			return;
		if (c + 1 < n && a[c + 1].off > a[c].off)
			c++;
		if (a[i].off >= a[c].off)
			return;
		t = a[i];
		a[i] = a[c];
		a[c] = t;
		i = c;
	}
}

static void sort_segs(struct kseg *a, size_t n)
{
	size_t i;

	for (i = n / 2; i-- > 0;)
		sift(a, i, n);
	for (i = n; i-- > 1;) {
		struct kseg t = a[0];

		a[0] = a[i];
		a[i] = t;
		sift(a, 0, i);
	}
}

/* Named @name, opened for reading (O_PATH opens are left alone). */
bool named(const char *path, int flags, const char *name)
{
	const char *base;

	if ((flags & O_ACCMODE) != O_RDONLY || (flags & O_PATH) || !path)
		return false;
	base = strrchr(path, '/');
	return !strcmp(base ? base + 1 : path, name);
}

/* dirfd/path is procfs's kcore: the only file procfs names kcore. */
static bool is_proc_kcore(int dirfd, const char *path)
{
	struct statfs sfs;
	bool yes;
	int fd;

	if (path[0] == '/' || dirfd == AT_FDCWD)
		return !statfs(path, &sfs) && sfs.f_type == PROC_SUPER_MAGIC;
	fd = CALL_REAL(openat, -1, dirfd, path, O_PATH | O_CLOEXEC, 0);
	if (fd < 0)
		return false;
	yes = !CALL_REAL(fstatfs, -1, fd, &sfs) && sfs.f_type == PROC_SUPER_MAGIC;
	CALL_REAL(close, -1, fd);
	return yes;
}

/* A small file's first line (cut at its newline) into buf; false if none. */
static bool read_line(const char *path, char *buf, size_t cap)
{
	int fd = CALL_REAL(open, -1, path, O_RDONLY | O_CLOEXEC, 0);
	ssize_t n;

	if (fd < 0)
		return false;
	n = CALL_REAL(read, -1, fd, buf, cap - 1);
	CALL_REAL(close, -1, fd);
	if (n <= 0)
		return false;
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return true;
}

/* kmemdev__read_fn through the device: all of it, or -errno. */
static int synth_read_fn(void *arg, uint64_t kaddr, void *buf, size_t len)
{
	const struct kdev *d = arg;
	int fd = atomic_load(&d->fd);
	size_t done = 0;

	while (done < len) {
		int64_t r = fd < 0 ? -EBADF : device_read(d, fd, kaddr + done,
							  (char *)buf + done, len - done);

		if (r <= 0)
			return done ? -EFAULT : r < 0 ? (int)r : -EFAULT;
		done += (size_t)r;
	}
	return 0;
}

/*
 * The header in a sealed memfd of the file's size (reads past the header
 * are zeros: a hole), the shim's own: close-on-exec.
 */
static int synth_file(const unsigned char *hdr, size_t len, uint64_t size)
{
	size_t done = 0;
	int fd = (int)syscall(SYS_memfd_create, "kcore", MFD_CLOEXEC | MFD_ALLOW_SEALING);

	if (fd < 0)
		return -1;
	while (done < len) {
		ssize_t n = pwrite(fd, hdr + done, len - done, (off_t)done);

		if (n <= 0 && errno != EINTR)
			goto fail;
		if (n > 0)
			done += (size_t)n;
	}
	if (size <= INT64_MAX && !ftruncate(fd, (off_t)size) &&
	    !CALL_REAL(fcntl, -1, fd, F_ADD_SEALS,
		       F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL))
		return fd;
fail:
	CALL_REAL(close, -1, fd);
	return -1;
}

/* Layout inputs fixed for the boot: found once per device (racing
 * threads find the same). */
static void *synth_alloc(size_t len)
{
	return page_alloc(len, false);
}

static int synth_bounds(struct kdev *d, struct kcore_synth *k)
{
	static const struct kcore_synth_mem mem = { synth_alloc, page_free };
	int err;

	char line[128];
	uint64_t task = 0;

	if (atomic_load(&d->bounds))
		goto out;
	/*
	 * arch_task_struct_size: the task_struct cache's object size (never
	 * merged).  Root's only (SLAB_ATTR_RO is 0400, mm/slub.c): for a
	 * member the note is empty and the file, laid out consistently,
	 * starts its data a page or more before kcore's.
	 */
	if (read_line("/sys/kernel/slab/task_struct/object_size", line, sizeof(line)))
		for (const char *c = line; *c >= '0' && *c <= '9' && task < UINT32_MAX; c++)
			task = task * 10 + (uint64_t)(*c - '0');
	d->task_size = task < UINT32_MAX ? (uint32_t)task : 0;
	/* strscpy() of saved_command_line, which /proc/cmdline shows */
	if (read_line("/proc/cmdline", line, sizeof(line)))
		memcpy(d->psargs, line, strnlen(line, sizeof(d->psargs) - 1));
	err = kmemdev__kcore_synth_bounds(k, d->info.page_size, synth_read_fn, d, &mem);
	if (err)
		return err;
	d->image_end = k->image_end;
	d->vmemmap = k->vmemmap;
	atomic_store(&d->bounds, true);
out:
	k->image_end = d->image_end;
	k->vmemmap = d->vmemmap;
	k->task_size = d->task_size;
	memcpy(k->psargs, d->psargs, sizeof(k->psargs));
	return 0;
}

/* The kfile for sh read through d, its windows found; NULL if out of memory. */
static struct kfile *kfile_new(struct kdev *d, struct kshared *sh, size_t sh_len)
{
	size_t len = sizeof(struct kfile) + sh->nr * sizeof(struct kwin);
	struct kfile *kf = page_alloc(len, false);

	if (!kf)
		return NULL;
	kf->len = len;
	kf->win = (struct kwin *)(kf + 1);
	for (unsigned int i = 0; i < sh->nr; i++)
		kf->win[i] = seg_window(d, &sh->seg[i], sh->seg[i].end - sh->seg[i].off);
	atomic_init(&kf->refs, 1);
	atomic_init(&kf->hdr_fd, -1);
	kf->sh = sh;
	kf->sh_len = sh_len;
	kf->dev = d;
	kf->node.free = kfile_free;
	return kf;
}

/*
 * The kcore this device serves (kcore_synth.c): its segments in a
 * MAP_SHARED page (*shp, *lenp), its header in the file returned; -1 with
 * errno (EPERM: the device refuses reads, as kcore under lockdown).
 */
static int synth_new(struct kdev *d, struct kshared **shp, size_t *lenp)
{
	const struct kmem_ro_info *in = &d->info;
	struct kcore_synth k = { 0 };
	struct kmem_ro_range few[RAM_FEW], *ram = few;
	struct kmem_ro_info now = {
		.size = sizeof(now),
		.ram_addr = (uintptr_t)few,
		.ram_cap = RAM_FEW,
	};
	struct kshared *sh = NULL;
	unsigned char *note = NULL, *hdr = NULL;
	size_t ram_len = 0, work_len = 0, len = 0, hdr_len = 0;
	unsigned int nr = 0;
	int r;
	int dfd = atomic_load(&d->fd), fd = -1, err = ENOMEM;

	if (dfd < 0 || !(in->features & KMEM_RO_FEAT_VMCOREINFO) || !in->vmcoreinfo_size) {
		errno = ENODEV;
		return -1;
	}
	/* the System RAM list now (hotplug): on the stack if it fits */
	if (!ioctl(dfd, KMEM_RO_IOC_INFO, &now) && now.ram_count <= RAM_FEW) {
		nr = now.ram_count;
		for (unsigned int i = 1; i < nr; i++)	/* sorted, as ram_list() */
			for (unsigned int j = i; j && few[j].start < few[j - 1].start; j--) {
				struct kmem_ro_range t = few[j];

				few[j] = few[j - 1];
				few[j - 1] = t;
			}
	} else {
		ram = ram_list(dfd, &now, &nr, &ram_len);
		if (!ram)
			return -1;
	}
	/* the note, then the segments: one allocation */
	work_len = in->vmcoreinfo_size + KCORE_SYNTH_SEGS(nr) * sizeof(*k.seg);
	note = page_alloc(work_len, false);
	if (!note)
		goto out;
	k.seg = (struct kcore_synth_seg *)(note + ((in->vmcoreinfo_size + 7) & ~7U));
	work_len += 8;
	r = synth_read_fn(d, in->page_offset + in->vmcoreinfo_addr, note, in->vmcoreinfo_size);
	if (r) {
		err = -r;
		goto out;
	}
	err = EPROTO;
	if (kmemdev__vmcoreinfo_parse(note, in->vmcoreinfo_size, &k.note, &k.note_len))
		goto out;
	if (synth_bounds(d, &k) || kmemdev__kcore_synth_layout(&k, &now, ram, nr))
		goto out;
	err = ENOMEM;
	hdr_len = k.header_len;
	hdr = page_alloc(hdr_len, false);
	len = sizeof(*sh) + k.nseg * sizeof(sh->seg[0]);
	sh = page_alloc(len, true);
	if (!hdr || !sh)
		goto out;
	kmemdev__kcore_synth_header(&k, hdr);
	for (unsigned int i = 0; i < k.nseg; i++) {
		uint64_t off = kmemdev__kcore_synth_offset(&k, k.seg[i].vaddr);

		sh->seg[i] = (struct kseg){
			.off = off,
			.end = off + k.seg[i].size,
			.vaddr = k.seg[i].vaddr,
			.paddr = k.seg[i].paddr,
		};
		sh->seg[i].kind = seg_kind(in, &sh->seg[i]);
	}
	sort_segs(sh->seg, k.nseg);
	sh->nr = k.nseg;
	sh->size = k.size;
	sh->data_offset = k.data_offset;
	fd = synth_file(hdr, hdr_len, k.size);
	err = errno;
out:
	if (ram != few)
		page_free(ram, ram_len);
	if (note)
		page_free(note, work_len);
	if (hdr)
		page_free(hdr, hdr_len);
	if (fd >= 0) {
		*shp = sh;
		*lenp = len;
		return fd;
	}
	if (sh)
		page_free(sh, len);
	errno = err;
	return -1;
}

/* The program's fd: procfs's kcore, O_PATH (it reads nothing), as named. */
static int path_fd(int dirfd, const char *path, int flags)
{
	return CALL_REAL(openat, -1, dirfd, path, O_PATH | (flags & O_CLOEXEC), 0);
}

/*
 * An open of procfs's kcore: the file this device serves, followed, or
 * NOT_KCORE to let the real call do it (not kcore, no usable device, out
 * of memory).  EPERM when the device refuses reads (lockdown): so would
 * kcore.
 */
int kcore_open(int dirfd, const char *path, int flags)
{
	struct kshared *sh = NULL;
	struct kfile *kf = NULL;
	fd_slot *ps = NULL, *hs = NULL;
	struct in_shim c;
	struct kdev *d;
	sigset_t old;
	size_t len = 0;
	int fd = NOT_KCORE, hfd = -1, saved = errno, err = 0;

	if (!named(path, flags, "kcore") || !owner_calls() || !is_proc_kcore(dirfd, path)) {
		errno = saved;
		return NOT_KCORE;
	}
	block_signals(&old);
	enter(&c);
	d = dev_get();
	if (d)
		fd = path_fd(dirfd, path, flags);
	if (fd >= 0) {
		hfd = synth_new(d, &sh, &len);
		err = errno;
		kf = hfd >= 0 ? kfile_new(d, sh, len) : NULL;
		ps = slot_make(fd);
		hs = hfd >= 0 ? slot_make(hfd) : NULL;
		if (!kf || !ps || !hs) {
			CALL_REAL(close, -1, fd);
			fd = hfd < 0 && err == EPERM ? -1 : NOT_KCORE;
		}
	} else {
		fd = NOT_KCORE;
	}
	if (fd >= 0) {
		/* closed behind our back (a raw syscall) */
		drop(fd);
		drop(hfd);
		atomic_store(&sh->pos, 0);
		atomic_store(&kf->hdr_fd, hfd);
		atomic_store(hs, (struct kfile *)((uintptr_t)kf | SLOT_HEADER));
		atomic_store(ps, kf);
	} else {
		if (hfd >= 0)
			CALL_REAL(close, -1, hfd);
		if (sh)
			page_free(sh, len);
		if (kf)
			page_free(kf, kf->len);
		if (d && atomic_fetch_sub(&d->files, 1) == 1)
			dev_retire(d);
	}
	leave(&c);
	restore_signals(&old);
	errno = err && fd == -1 ? err : saved;
	return fd;
}
