// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * A small libkmemdev program, built with nothing but
 * `pkg-config --cflags --libs kmemdev` (see Makefile here).  Prints the
 * library's version (built with, running), the kernel release, which
 * source it reads, the layout it learned and the first line of the
 * running kernel's linux_banner, found with kmemdev_symbol() and read
 * with kmemdev_read().  Under the library's license: copy it freely.
 *
 *	banner [auto|device|kcore]
 *
 * Exit status: 0 success, 1 the kernel could not be read (a one-line
 * reason on stderr), 2 usage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include <kmemdev.h>

/* "banner: <operation>: <reason for that operation>" */
static int fail(const char *what, enum kmemdev_op op, int err)
{
	fprintf(stderr, "banner: %s: %s\n", what, kmemdev_strerror(op, err));
	return 1;
}

int main(int argc, char **argv)
{
	KMEMDEV_OPTS(kmemdev_open_opts, opts, .backend = KMEMDEV_BACKEND_AUTO);
	struct kmem_ro_range *ram = NULL;
	KMEMDEV_ARG(kmem_ro_info, info);
	char banner[256] = "";
	struct utsname uts;
	struct kmemdev *h;
	unsigned int nr;
	uint64_t addr;
	int err;

	if (argc > 2)
		goto usage;
	if (argc == 2 && !strcmp(argv[1], "device"))
		opts.backend = KMEMDEV_BACKEND_DEVICE;
	else if (argc == 2 && !strcmp(argv[1], "kcore"))
		opts.backend = KMEMDEV_BACKEND_KCORE;
	else if (argc == 2 && strcmp(argv[1], "auto"))
		goto usage;

	/* The header this was built with, the library it runs with. */
	printf("libkmemdev: %d.%d.%d, running %s\n", KMEMDEV_VERSION_MAJOR,
	       KMEMDEV_VERSION_MINOR, KMEMDEV_VERSION_PATCH, kmemdev_version());
	if (!uname(&uts))
		printf("release: %s\n", uts.release);
	fflush(stdout);
	err = kmemdev_open(&h, &opts);
	if (err)
		return fail("open", KMEMDEV_OP_OPEN, err);
	printf("backend: %s\n", kmemdev_backend_name(h));

	err = kmemdev_info_alloc(h, &info, &ram, &nr);
	if (err) {
		kmemdev_close(h);
		return fail("info", KMEMDEV_OP_INFO, err);
	}
	/* kcore cannot tell an ABI version: 0 there. */
	printf("abi: %u\nram ranges: %u\ntext: 0x%llx-0x%llx\n",
	       info.abi_version, nr, (unsigned long long)info.text_start,
	       (unsigned long long)info.text_end);
	free(ram);

	err = kmemdev_symbol(h, "linux_banner", &addr);
	if (err) {
		kmemdev_close(h);
		return fail("linux_banner", KMEMDEV_OP_SYMBOL, err);
	}
	err = kmemdev_read(h, addr, banner, sizeof(banner) - 1);
	kmemdev_close(h);
	if (err)
		return fail("linux_banner", KMEMDEV_OP_READ, err);
	banner[strcspn(banner, "\n")] = '\0';
	printf("kernel: %s\n", banner);
	return 0;

usage:
	fprintf(stderr, "usage: banner [auto|device|kcore]\n");
	return 2;
}
