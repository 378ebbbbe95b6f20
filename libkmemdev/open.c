// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Handle lifetime: open (device + ABI handshake, or /proc/kcore), close, fd,
 * backend name; options validation.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

int kmemdev__opts_validate(const void *opts, size_t known_sz)
{
	const unsigned char *p = opts;
	size_t sz, i;

	if (!opts)
		return 0;
	sz = *(const size_t *)opts;
	if (sz < sizeof(size_t))
		return -EINVAL;
	/* A newer caller's fields we cannot honour must be left at zero. */
	for (i = known_sz; i < sz; i++)
		if (p[i])
			return -E2BIG;
	return 0;
}

int kmemdev__handle_new(struct kmemdev **out, int fd)
{
	struct kmemdev *h;
	int err;

	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	err = pthread_mutex_init(&h->sym_lock, NULL);
	if (err) {
		free(h);
		return -err;
	}
	err = pthread_mutex_init(&h->map_lock, NULL);
	if (err)
		goto out_sym_lock;
	err = pthread_mutex_init(&h->btf_lock, NULL);
	if (err)
		goto out_map_lock;
	atomic_init(&h->maps, NULL);
	atomic_init(&h->btf, NULL);
	h->fd = fd;
	h->backend = KMEMDEV_BACKEND_DEVICE;
	h->kcore.fd = -1;
	*out = h;
	return 0;

out_map_lock:
	pthread_mutex_destroy(&h->map_lock);
out_sym_lock:
	pthread_mutex_destroy(&h->sym_lock);
	free(h);
	return -err;
}

/* Retry on EINTR: a handshake must not fail because a signal arrived. */
static int info_ioctl(int fd, struct kmem_ro_info *info)
{
	int ret;

	do
		ret = ioctl(fd, KMEM_RO_IOC_INFO, info);
	while (ret < 0 && errno == EINTR);
	return ret < 0 ? -errno : ret;
}

static int handshake(int fd, struct kmem_ro_info *info)
{
	struct stat st;
	int err;

	if (fstat(fd, &st))
		return -errno;
	/* O_RDONLY opens a directory fine; say what is wrong instead of ENOTTY. */
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	if (!S_ISCHR(st.st_mode))
		return -ENOTTY;

	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	err = info_ioctl(fd, info);
	if (err)
		return err;
	if (!(info->ioctls & (1ULL << _IOC_NR(KMEM_RO_IOC_INFO))) ||
	    info->abi_version < 1)
		return -EPROTO;
	return 0;
}

static int open_device(const char *path, struct kmemdev **out)
{
	struct kmem_ro_info info;
	struct kmemdev *h;
	int fd, err;

	fd = open(path ? path : KMEM_RO_DEVICE, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = handshake(fd, &info);
	if (err)
		goto out_close;
	err = kmemdev__handle_new(&h, fd);
	if (err)
		goto out_close;
	h->info = info;
	*out = h;
	return 0;

out_close:
	close(fd);
	return err;
}

static int open_kcore(const char *path, struct kmemdev **out)
{
	struct kmemdev_kcore kc = { .fd = -1 };
	struct kmemdev *h;
	int fd, err;

	fd = open(path ? path : KMEMDEV_KCORE, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = kmemdev__kcore_parse(fd, &kc);
	if (err)
		goto out_close;
	err = kmemdev__handle_new(&h, -1);
	if (err)
		goto out_release;
	kc.fd = fd;
	h->kcore = kc;
	h->backend = KMEMDEV_BACKEND_KCORE;
	*out = h;
	return 0;

out_release:
	kmemdev__kcore_release(&kc);
out_close:
	close(fd);
	return err;
}

/* The device is not there (module not loaded), as opposed to refused. */
static bool device_absent(int err)
{
	return err == -ENOENT || err == -ENXIO || err == -ENODEV;
}

int kmemdev_open(struct kmemdev **out, const struct kmemdev_open_opts *opts)
{
	const char *path;
	int backend, err;

	if (!out)
		return -EINVAL;
	*out = NULL;
	err = OPTS_VALID(opts, kmemdev_open_opts);
	if (err)
		return err;
	path = OPTS_GET(opts, path, NULL);
	backend = OPTS_GET(opts, backend, KMEMDEV_BACKEND_AUTO);

	switch (backend) {
	case KMEMDEV_BACKEND_DEVICE:
		return open_device(path, out);
	case KMEMDEV_BACKEND_KCORE:
		return open_kcore(path, out);
	case KMEMDEV_BACKEND_AUTO:
		err = open_device(path, out);
		/* Not loaded: kcore.  If kcore fails too, say "not loaded". */
		if (device_absent(err) && !open_kcore(NULL, out))
			return 0;
		return err;
	default:
		return -EINVAL;
	}
}

void kmemdev_close(struct kmemdev *h)
{
	if (!h)
		return;
	kmemdev__maps_release(h);
	pthread_mutex_destroy(&h->map_lock);
	kmemdev__symbols_release(h);
	pthread_mutex_destroy(&h->sym_lock);
	kmemdev__btf_release(h);
	pthread_mutex_destroy(&h->btf_lock);
	kmemdev__kcore_release(&h->kcore);
	if (h->fd >= 0)
		close(h->fd);
	free(h);
}

int kmemdev_fd(const struct kmemdev *h)
{
	if (!h || h->fd < 0)
		return -EINVAL;
	return h->fd;
}

const char *kmemdev_backend_name(const struct kmemdev *h)
{
	if (!h)
		return "none";
	return h->backend == KMEMDEV_BACKEND_KCORE ? "kcore" : "kmem_ro";
}

/*
 * Test hook shared by the lazily loaded tables (kallsyms, BTF): point one
 * at another file, unless it is already loaded (-EBUSY).
 */
int kmemdev__set_path(struct kmemdev *h, pthread_mutex_t *lock,
		      bool (*loaded)(const struct kmemdev *), char **slot,
		      const char *path)
{
	char *copy = NULL;
	int err = 0;

	if (path) {
		copy = strdup(path);
		if (!copy)
			return -ENOMEM;
	}
	pthread_mutex_lock(lock);
	if (loaded(h)) {
		err = -EBUSY;
		free(copy);
	} else {
		free(*slot);
		*slot = copy;
	}
	pthread_mutex_unlock(lock);
	return err;
}
