// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * /proc/kallsyms as root reads it, for a process the real file shows only
 * zeros (no CAP_SYSLOG: kallsyms_show_value()).  crash takes the KASLR
 * offset of a live kernel from _stext there; a member of the device's
 * group can read all kernel memory, so the hidden addresses protect
 * nothing from it.  The text is libkmemdev's decode of the kernel's own
 * tables through the device (kmemdev__kallsyms_read(): core symbols in
 * table order, then each module's), printed as s_show() prints them
 * (kernel/kallsyms.c: "%px %c %s\n", module symbols "%px %c %s\t[%s]\n").
 * Not listed, as in the library: [bpf], [__builtin__kprobes],
 * [__builtin__ftrace] and ftrace's freed module init functions
 * (docs/symbols.md).
 *
 * Unlike the rest of the shim this path calls malloc() (libkmemdev, BTF):
 * an open of /proc/kallsyms inside a signal handler is not served safely.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"
#include "kallsyms_serve.h"

/* Lines read before the file counts as showing only zeros (symbols.c). */
#define PROBE_LINES	1024
#define PROBE_BUF	4096
#define OUT_BUF		(256 << 10)
/* address, type, name (KSYM_NAME_LEN), module name, separators */
#define LINE_MAX_LEN	1024

/*
 * Does the open file fd show real addresses?  kallsyms_show_value()
 * decides once per open; a few leading x86-64 percpu symbols are really
 * at 0, so read until one is not.  The position goes back to 0.
 */
static bool shows_addresses(int fd)
{
	char buf[PROBE_BUF];
	bool at_start = true, nonzero = false, real = false;
	int lines = 0;
	ssize_t n;

	while (!real && lines < PROBE_LINES && (n = read(fd, buf, sizeof(buf))) > 0) {
		for (ssize_t i = 0; i < n && lines < PROBE_LINES; i++) {
			char c = buf[i];

			if (c == '\n') {
				lines++;
				at_start = true;
				nonzero = false;
				continue;
			}
			if (!at_start)
				continue;
			if (c == ' ') {		/* the address ended */
				if (nonzero) {
					real = true;
					break;
				}
				at_start = false;
			} else if (c != '0') {
				nonzero = true;
			}
		}
	}
	lseek(fd, 0, SEEK_SET);
	return real;
}

struct out {
	int fd;
	char *buf;
	size_t len;
};

static int flush(struct out *o)
{
	size_t done = 0;

	while (done < o->len) {
		ssize_t n = write(o->fd, o->buf + done, o->len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		done += (size_t)n;
	}
	o->len = 0;
	return 0;
}

/* One line as s_show() prints it. */
static int emit(void *arg, uint64_t addr, char type, const char *name,
		const char *module)
{
	struct out *o = arg;
	size_t room;
	int n;

	if (OUT_BUF - o->len < LINE_MAX_LEN) {
		int err = flush(o);

		if (err)
			return err;
	}
	room = OUT_BUF - o->len;
	if (module)
		n = snprintf(o->buf + o->len, room, "%016" PRIx64 " %c %s\t[%s]\n",
			     addr, type, name, module);
	else
		n = snprintf(o->buf + o->len, room, "%016" PRIx64 " %c %s\n",
			     addr, type, name);
	if (n < 0 || (size_t)n >= room)
		return -EOVERFLOW;
	o->len += (size_t)n;
	return 0;
}

/* Root's text in a sealed memfd, at position 0; -1 if it cannot be had. */
static int device_text(bool cloexec)
{
	KMEMDEV_OPTS(kmemdev_open_opts, opts, .backend = KMEMDEV_BACKEND_DEVICE);
	struct out o = { .fd = -1 };
	struct kmemdev *h;
	int err;

	if (kmemdev_open(&h, &opts))
		return -1;
	o.buf = mmap(NULL, OUT_BUF, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (o.buf == MAP_FAILED)
		goto out_close;
	o.fd = memfd_create("kallsyms", (cloexec ? MFD_CLOEXEC : 0) | MFD_ALLOW_SEALING);
	if (o.fd >= 0) {
		/*
		 * The module walk hands out a consistent snapshot or fails
		 * (modsyms.c: it starts again by itself while the list
		 * changes); on failure the caller keeps the real file.
		 */
		err = kmemdev__kallsyms_read(h, emit, &o);
		if (!err)
			err = flush(&o);
		if (err || lseek(o.fd, 0, SEEK_SET) ||
		    fcntl(o.fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW |
						 F_SEAL_WRITE | F_SEAL_SEAL)) {
			close(o.fd);
			o.fd = -1;
		}
	}
	munmap(o.buf, OUT_BUF);
out_close:
	kmemdev_close(h);
	return o.fd;
}

int kmemdev__kallsyms_serve(int fd, bool cloexec)
{
	if (shows_addresses(fd))
		return -1;
	return device_text(cloexec);
}
