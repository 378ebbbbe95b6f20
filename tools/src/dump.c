// SPDX-License-Identifier: GPL-2.0
/*
 * kmemctl dump: a region of kernel memory of any size to a file, read and
 * written a chunk at a time so that nothing larger than a chunk is ever
 * held in memory, with a progress line when stderr is a terminal.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "json.h"
#include "kmemctl.h"
#include "mem.h"
#include "parse.h"

#define CHUNK		(1U << 20)
#define PAGE		4096U

static void help(void)
{
	printf("Usage: kmemctl [--device PATH] dump ADDR LEN -o FILE [--json]\n"
	       "Copy LEN bytes of kernel memory at ADDR to FILE, 1 MiB at a "
	       "time (any size:\n"
	       "nothing larger is held in memory), with a progress line on "
	       "stderr when it is\n"
	       "a terminal.\n"
	       "  ADDR             0xHEX, SYMBOL, SYMBOL+OFF or SYMBOL-OFF\n"
	       "  LEN              decimal or 0x hex, with an optional K, M, G "
	       "or T suffix\n"
	       "                   (KiB ... TiB): 64M\n"
	       "  -o, --output F   the file, created mode 0600 or truncated; "
	       "- for stdout\n"
	       "  -j, --json       print {addr, size, file, elapsed_ms} when "
	       "done\n"
	       "A byte that cannot be read stops the dump: the error names its "
	       "address, and\n"
	       "the partial file is removed.  Memory comes from %s, or "
	       "/proc/kcore\n"
	       "when the device is absent.\n", KMEM_RO_DEVICE);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static int write_all(int fd, const unsigned char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* The first address of [addr, addr + len) that does not read, and why. */
static int first_bad(struct kmemdev *h, uint64_t addr, size_t len,
		     unsigned char *buf, uint64_t *bad)
{
	uint64_t a = addr, end = addr + len;
	int err;

	while (a < end) {
		uint64_t next = (a | (PAGE - 1)) + 1;
		size_t n = (size_t)((next < end ? next : end) - a);

		err = kmemdev_read(h, a, buf, n);
		if (err) {
			*bad = a;
			return err;
		}
		a += n;
	}
	*bad = addr;
	return -EIO;
}

static void progress(uint64_t done, uint64_t total, bool last)
{
	double d = (double)done / 1048576.0, t = (double)total / 1048576.0;

	fprintf(stderr, "\rdump: %.1f of %.1f MiB (%u%%)%s", d, t,
		(unsigned int)(total ? done * 100 / total : 100),
		last ? "\n" : "");
	fflush(stderr);
}

int kmemctl_dump(const struct kmemctl *ctx, int argc, char **argv)
{
	struct dump_opts {
		const char *file;
	} o = { NULL };
	static const struct kmemctl_opt opts[] = {
		KMEMCTL_STR("output", 'o', struct dump_opts, file),
		{ NULL }
	};
	static const struct kmemctl_cli cli = {
		.verb = "dump", .help = help, .opts = opts, .max = -1,
	};
	const char *file, *expr;
	unsigned char *buf = NULL;
	struct kmemdev *h = NULL;
	uint64_t addr, len, done = 0, t0, shown = 0;
	bool json, tty, to_stdout;
	int err, fd = -1, rc;
	char what[128];

	rc = kmemctl_parse(ctx, &cli, argc, argv, &o, &json);
	if (rc != KMEMCTL_PARSED)
		return rc;
	file = o.file;
	rc = KMEMCTL_EXIT_ERROR;
	if (kmemctl_addr_len("dump", argc, argv, INT64_MAX, "from 1 byte", &len))
		return KMEMCTL_EXIT_USAGE;
	if (!file || !*file)
		return kmemctl_usage_err("dump: missing -o FILE");
	expr = argv[optind];
	to_stdout = !strcmp(file, "-");
	if (to_stdout && json)
		return kmemctl_usage_err("dump: --json reports on stdout: not "
					 "with -o -");

	rc = mem_open_at(ctx, "dump", expr, &h, &addr);
	if (rc)
		goto out;
	rc = KMEMCTL_EXIT_ERROR;
	if (len - 1 > UINT64_MAX - addr) {
		rc = kmemctl_usage_err("dump: 0x%" PRIx64 " + LEN wraps past the "
				       "end of the address space", addr);
		goto out;
	}
	buf = malloc(CHUNK);
	if (!buf) {
		kmemctl_err(KMEMDEV_OP_ANY, -ENOMEM, "dump");
		goto out;
	}
	fd = to_stdout ? STDOUT_FILENO :
	     open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		kmemctl_err(KMEMDEV_OP_ANY, -errno, "dump: open %.60s", file);
		goto out;
	}
	tty = !to_stdout && isatty(STDERR_FILENO);
	t0 = now_ms();
	while (done < len) {
		size_t n = len - done < CHUNK ? (size_t)(len - done) : CHUNK;
		uint64_t bad;

		err = kmemdev_read(h, addr + done, buf, n);
		if (err) {
			err = first_bad(h, addr + done, n, buf, &bad);
			if (tty)
				fputc('\n', stderr);
			snprintf(what, sizeof(what), "dump 0x%" PRIx64 ": at 0x%"
				 PRIx64, addr, bad);
			kmemctl_fail("%s: %s", what, mem_reason(h, err));
			goto fail;
		}
		err = write_all(fd, buf, n);
		if (err) {
			if (tty)
				fputc('\n', stderr);
			kmemctl_err(KMEMDEV_OP_ANY, err, "dump: write %.60s", file);
			goto fail;
		}
		done += n;
		if (tty && (now_ms() - shown >= 100 || done == len)) {
			progress(done, len, done == len);
			shown = now_ms();
		}
	}
	if (!to_stdout && fsync(fd) && errno != EINVAL && errno != EROFS) {
		kmemctl_err(KMEMDEV_OP_ANY, -errno, "dump: write %.60s", file);
		goto fail;
	}
	if (!to_stdout && close(fd)) {
		fd = -1;
		kmemctl_err(KMEMDEV_OP_ANY, -errno, "dump: write %.60s", file);
		goto out;
	}
	fd = -1;
	if (json) {
		struct json j;

		json_init(&j, stdout);
		json_object_begin(&j, NULL);
		json_hex(&j, "addr", addr);
		json_u64(&j, "size", len);
		json_str(&j, "file", file);
		json_u64(&j, "elapsed_ms", now_ms() - t0);
		json_object_end(&j);
	} else if (!to_stdout) {
		printf("wrote %" PRIu64 " bytes of 0x%" PRIx64 " to %s\n", len,
		       addr, file);
	}
	rc = KMEMCTL_EXIT_OK;
	goto out;
fail:
	/* half a dump looks like a whole one: do not leave it behind */
	if (!to_stdout && fd >= 0) {
		struct stat st;

		if (!fstat(fd, &st) && S_ISREG(st.st_mode))
			unlink(file);
		close(fd);
		fd = -1;
	}
out:
	if (fd >= 0 && !to_stdout)
		close(fd);
	free(buf);
	kmemdev_close(h);
	return rc;
}
