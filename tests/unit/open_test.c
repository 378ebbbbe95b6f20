// SPDX-License-Identifier: GPL-2.0
/*
 * kmemdev_open() argument and environment checks that need no driver, the
 * options ABI, and kmemdev_strerror().
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

static bool device_present(void)
{
	return access(KMEM_RO_DEVICE, F_OK) == 0;
}

/* AUTO's fallback would succeed here (root on a kernel with kcore). */
static bool kcore_readable(void)
{
	return access(KMEMDEV_KCORE, R_OK) == 0;
}

/* Opens path with a backend; checks the error and that *out was cleared. */
static int open_backend(const char *path, int backend)
{
	KMEMDEV_OPTS(kmemdev_open_opts, opts, .path = path, .backend = backend);
	struct kmemdev *h = (struct kmemdev *)&opts;	/* poison */
	int err;

	err = kmemdev_open(&h, &opts);
	if (err)
		ck_assert_ptr_null(h);
	else
		kmemdev_close(h);
	return err;
}

/* The device at path, no fallback. */
static int open_path(const char *path)
{
	return open_backend(path, KMEMDEV_BACKEND_DEVICE);
}

START_TEST(test_null_out)
{
	ck_assert_int_eq(kmemdev_open(NULL, NULL), -EINVAL);
}
END_TEST

START_TEST(test_missing_path)
{
	ck_assert_int_eq(open_path("/nonexistent/kmem_ro"), -ENOENT);
}
END_TEST

START_TEST(test_default_path)
{
	struct kmemdev *h;
	int err;

	if (device_present())
		return;	/* covered by the VM suite */
	/* AUTO: no device, so /proc/kcore if it can be read */
	err = kmemdev_open(&h, NULL);
	if (kcore_readable() && !err) {
		ck_assert_str_eq(kmemdev_backend_name(h), "kcore");
		kmemdev_close(h);
		return;
	}
	ck_assert_int_eq(err, -ENOENT);	/* the device's error, not kcore's */
	ck_assert_ptr_null(h);
}
END_TEST

START_TEST(test_auto_missing_device)
{
	int err = open_backend("/nonexistent/kmem_ro", KMEMDEV_BACKEND_AUTO);

	if (!kcore_readable())
		ck_assert_int_eq(err, -ENOENT);
	ck_assert_int_eq(open_backend("/nonexistent/kmem_ro",
				      KMEMDEV_BACKEND_DEVICE), -ENOENT);
	ck_assert_int_eq(open_backend("/nonexistent/kcore",
				      KMEMDEV_BACKEND_KCORE), -ENOENT);
}
END_TEST

START_TEST(test_auto_wrong_device_no_fallback)
{
	/* there but not kmem_ro: an error, not "absent" */
	ck_assert_int_eq(open_backend("/dev/null", KMEMDEV_BACKEND_AUTO),
			 -ENOTTY);
	ck_assert_int_eq(open_backend("/tmp", KMEMDEV_BACKEND_AUTO), -EISDIR);
}
END_TEST

START_TEST(test_bad_backend)
{
	ck_assert_int_eq(open_backend("/dev/null", 3), -EINVAL);
	ck_assert_int_eq(open_backend("/dev/null", -1), -EINVAL);
}
END_TEST

START_TEST(test_regular_file)
{
	char path[] = "/tmp/kmemdev_open_XXXXXX";
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_eq(open_path(path), -ENOTTY);
	unlink(path);
}
END_TEST

START_TEST(test_other_char_device)
{
	/* A character device whose driver rejects our ioctl. */
	ck_assert_int_eq(open_path("/dev/null"), -ENOTTY);
}
END_TEST

START_TEST(test_directory)
{
	ck_assert_int_eq(open_path("/tmp"), -EISDIR);
}
END_TEST

START_TEST(test_permission_denied)
{
	char path[] = "/tmp/kmemdev_open_XXXXXX";
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fchmod(fd, 0600), 0);
	close(fd);
	/* Check forks each test, so root can drop privileges for this one. */
	if (geteuid() == 0) {
		const char *fork_mode = getenv("CK_FORK");

		if (fork_mode && !strcmp(fork_mode, "no")) {
			unlink(path);
			return;
		}
		ck_assert_int_eq(setgroups(0, NULL), 0);
		ck_assert_int_eq(setgid(65534), 0);
		ck_assert_int_eq(setuid(65534), 0);
	}
	ck_assert_int_eq(open_path(path), -EACCES);
	/* Refused is not absent: AUTO does not fall back to kcore. */
	ck_assert_int_eq(open_backend(path, KMEMDEV_BACKEND_AUTO), -EACCES);
	/* Unlinking needs no rights on the file itself, only on /tmp. */
	unlink(path);
}
END_TEST

/* Same layout as a future struct kmemdev_open_opts with one more field. */
struct open_opts_next {
	size_t sz;
	const char *path;
	int backend;
	uint64_t future;
};

START_TEST(test_opts_nonzero_tail)
{
	struct open_opts_next o = {
		.sz = sizeof(o), .path = "/nonexistent/kmem_ro", .future = 1,
	};
	struct kmemdev *h;

	ck_assert_int_eq(kmemdev_open(&h, (struct kmemdev_open_opts *)&o),
			 -E2BIG);
	ck_assert_ptr_null(h);
}
END_TEST

START_TEST(test_opts_zero_tail)
{
	struct open_opts_next o = {
		.sz = sizeof(o), .path = "/nonexistent/kmem_ro",
		.backend = KMEMDEV_BACKEND_DEVICE,
	};
	struct kmemdev *h;

	/* Accepted: got as far as open(), which fails on the path. */
	ck_assert_int_eq(kmemdev_open(&h, (struct kmemdev_open_opts *)&o),
			 -ENOENT);
}
END_TEST

START_TEST(test_opts_too_small)
{
	struct kmemdev_open_opts o = { .sz = 4, .path = "/dev/null" };
	struct kmemdev *h;

	ck_assert_int_eq(kmemdev_open(&h, &o), -EINVAL);
	o.sz = 0;
	ck_assert_int_eq(kmemdev_open(&h, &o), -EINVAL);
}
END_TEST

START_TEST(test_opts_older_caller)
{
	/* A caller from before .path existed: the field must be ignored. */
	struct kmemdev_open_opts o = { .sz = sizeof(size_t),
				       .path = "/dev/null" };
	struct kmemdev *h;
	int err;

	err = kmemdev_open(&h, &o);
	if (!device_present() && !kcore_readable())
		ck_assert_int_eq(err, -ENOENT);
	ck_assert_int_ne(err, -ENOTTY);
	kmemdev_close(h);
}
END_TEST

START_TEST(test_opts_caller_without_backend)
{
	/* Knows .path, not .backend: AUTO, whatever follows path. */
	KMEMDEV_OPTS(kmemdev_open_opts, o, .path = "/dev/null", .backend = 77);
	struct kmemdev *h;

	o.sz = offsetofend(struct kmemdev_open_opts, path);
	ck_assert_int_eq(kmemdev_open(&h, &o), -ENOTTY);
	o.sz = sizeof(o);
	ck_assert_int_eq(kmemdev_open(&h, &o), -EINVAL);	/* bad backend */
}
END_TEST

START_TEST(test_opts_validate)
{
	unsigned char buf[32] = { 0 };
	size_t sz;

	ck_assert_int_eq(kmemdev__opts_validate(NULL, 16), 0);
	sz = 32;
	memcpy(buf, &sz, sizeof(sz));
	ck_assert_int_eq(kmemdev__opts_validate(buf, 16), 0);
	buf[31] = 1;
	ck_assert_int_eq(kmemdev__opts_validate(buf, 16), -E2BIG);
	buf[31] = 0;
	buf[16] = 1;
	ck_assert_int_eq(kmemdev__opts_validate(buf, 16), -E2BIG);
	/* Bytes inside the known part are the library's business. */
	buf[16] = 0;
	buf[15] = 0xff;
	ck_assert_int_eq(kmemdev__opts_validate(buf, 16), 0);
	/* Bytes past sz are not the caller's struct: never read them. */
	sz = 16;
	memcpy(buf, &sz, sizeof(sz));
	buf[20] = 1;
	ck_assert_int_eq(kmemdev__opts_validate(buf, 16), 0);
	sz = sizeof(size_t) - 1;
	memcpy(buf, &sz, sizeof(sz));
	ck_assert_int_eq(kmemdev__opts_validate(buf, 16), -EINVAL);
}
END_TEST

START_TEST(test_close_null)
{
	kmemdev_close(NULL);
}
END_TEST

START_TEST(test_fd_and_info_args)
{
	struct kmem_ro_range ram[2];
	KMEMDEV_ARG(kmem_ro_info, info);
	struct kmemdev *h;
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

	ck_assert_int_eq(kmemdev_fd(NULL), -EINVAL);
	ck_assert_int_eq(kmemdev_info(NULL, &info, NULL, 0), -EINVAL);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(kmemdev__handle_new(&h, fd), 0);
	ck_assert_int_eq(kmemdev_fd(h), fd);
	ck_assert_int_eq(kmemdev_info(h, NULL, NULL, 0), -EINVAL);
	ck_assert_int_eq(kmemdev_info(h, &info, NULL, 1), -EINVAL);
	ck_assert_int_eq(kmemdev_info(h, &info, ram, 0), -EINVAL);
	/* Valid arguments reach the (wrong) driver. */
	ck_assert_int_eq(kmemdev_info(h, &info, ram, 2), -ENOTTY);
	ck_assert_int_eq(kmemdev_info(h, &info, NULL, 0), -ENOTTY);
	kmemdev_close(h);	/* closes fd */
	ck_assert_int_eq(fcntl(fd, F_GETFD), -1);
	ck_assert_int_eq(errno, EBADF);
}
END_TEST

/* Every operation, and one past the last (an unknown value). */
#define OPS_END	(KMEMDEV_OP_SNAPSHOT + 2)

START_TEST(test_strerror_all_codes)
{
	static const int codes[] = {
		ENOENT, EACCES, EPERM, EPROTO, ENOTTY, EISDIR, E2BIG, EINVAL,
		ENOMEM, EFAULT, EIO, ENODATA, EOVERFLOW, EBUSY, EAGAIN, EINTR,
		EOPNOTSUPP, ENOEXEC, ELOOP, ENXIO, ESRCH, ENOSPC, ENOBUFS,
		ERANGE, ENAMETOOLONG, ENODEV,
	};
	size_t i;
	int op;

	for (op = KMEMDEV_OP_ANY; op < OPS_END; op++) {
		for (i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
			const char *neg = kmemdev_strerror(op, -codes[i]);

			ck_assert_ptr_nonnull(neg);
			ck_assert_uint_gt(strlen(neg), 3);
			/* one line: kmemctl prints it after "op object: " */
			ck_assert_ptr_null(strchr(neg, '\n'));
			/* Either sign is accepted. */
			ck_assert_str_eq(neg, kmemdev_strerror(op, codes[i]));
		}
		ck_assert_str_eq(kmemdev_strerror(op, 0), "success");
		ck_assert_uint_gt(strlen(kmemdev_strerror(op, INT32_MIN)), 0);
		ck_assert_str_eq(kmemdev_strerror(op, -4095), "unknown error");
		/* Codes no operation words itself: the C library's text. */
		ck_assert_str_eq(kmemdev_strerror(op, -EIO), "Input/output error");
	}
	/* ANY, and an operation this library does not know: the errno alone. */
	ck_assert_str_eq(kmemdev_strerror(KMEMDEV_OP_ANY, -ENOENT),
			 "No such file or directory");
	ck_assert_str_eq(kmemdev_strerror(OPS_END, -ENOENT),
			 "No such file or directory");
	ck_assert_str_eq(kmemdev_strerror(-1, -EPROTO), "Protocol error");
}
END_TEST

START_TEST(test_strerror_specific)
{
	ck_assert_ptr_nonnull(strstr(kmemdev_strerror(KMEMDEV_OP_OPEN, -ENOENT),
				     "modprobe kmem_ro"));
	ck_assert_ptr_nonnull(strstr(kmemdev_strerror(KMEMDEV_OP_OPEN, -EACCES),
				     "group"));
	ck_assert_ptr_nonnull(strstr(kmemdev_strerror(KMEMDEV_OP_SYMBOL, -EACCES),
				     "kptr_restrict"));
	ck_assert_ptr_nonnull(strstr(kmemdev_strerror(KMEMDEV_OP_OPEN, -EPERM),
				     "lockdown"));
	ck_assert_ptr_nonnull(strstr(kmemdev_strerror(KMEMDEV_OP_OPEN, -EPERM),
				     "CAP_SYS_RAWIO"));
	ck_assert_ptr_nonnull(strstr(kmemdev_strerror(KMEMDEV_OP_OPEN, -EPROTO),
				     "ABI"));
	ck_assert_ptr_nonnull(strstr(kmemdev_strerror(KMEMDEV_OP_OPEN, -ENOTTY),
				     "not a kmem_ro device"));
	ck_assert_ptr_nonnull(strstr(kmemdev_strerror(KMEMDEV_OP_OPEN, -E2BIG),
				     "non-zero"));
}
END_TEST

/* The text says what the operation lacked: never another one's sentence. */
START_TEST(test_strerror_names_the_operation)
{
	static const struct {
		enum kmemdev_op op;
		const char *has;
	} enoent[] = {
		{ KMEMDEV_OP_OPEN, "kmem_ro device" },
		{ KMEMDEV_OP_SYMBOL, "no such symbol in the kernel" },
		{ KMEMDEV_OP_SYMBOLIZE, "kernel or module symbol" },
		{ KMEMDEV_OP_BTF, "BTF" },
		{ KMEMDEV_OP_PROBES, "probe id" },
		{ KMEMDEV_OP_EVENTS, "event family" },
		{ KMEMDEV_OP_SNAPSHOT, "probes" },
	};
	int op;

	for (size_t i = 0; i < sizeof(enoent) / sizeof(enoent[0]); i++)
		ck_assert_msg(strstr(kmemdev_strerror(enoent[i].op, -ENOENT),
				     enoent[i].has), "op %d: %s", enoent[i].op,
			      kmemdev_strerror(enoent[i].op, -ENOENT));
	/* Only opening the device may say the device is missing. */
	for (op = KMEMDEV_OP_ANY; op < OPS_END; op++) {
		const char *t = kmemdev_strerror(op, -ENOENT);

		if (op == KMEMDEV_OP_OPEN)
			continue;
		ck_assert_msg(!strstr(t, "device") && !strstr(t, "modprobe"),
			      "op %d: %s", op, t);
	}
	/* The same code, other operations: other texts. */
	ck_assert_str_ne(kmemdev_strerror(KMEMDEV_OP_OPEN, -EPERM),
			 kmemdev_strerror(KMEMDEV_OP_PAGEMAP, -EPERM));
	ck_assert_ptr_nonnull(strstr(kmemdev_strerror(KMEMDEV_OP_PAGEMAP, -EPERM),
				     "CAP_SYS_PTRACE"));
	ck_assert_ptr_nonnull(strstr(kmemdev_strerror(KMEMDEV_OP_WALK, -ELOOP),
				     "list"));
}
END_TEST

static Suite *open_suite(void)
{
	Suite *s = suite_create("open");
	TCase *open_tc = tcase_create("open");
	TCase *opts = tcase_create("opts");
	TCase *misc = tcase_create("misc");

	tcase_add_test(open_tc, test_null_out);
	tcase_add_test(open_tc, test_missing_path);
	tcase_add_test(open_tc, test_default_path);
	tcase_add_test(open_tc, test_auto_missing_device);
	tcase_add_test(open_tc, test_auto_wrong_device_no_fallback);
	tcase_add_test(open_tc, test_bad_backend);
	tcase_add_test(open_tc, test_regular_file);
	tcase_add_test(open_tc, test_other_char_device);
	tcase_add_test(open_tc, test_directory);
	tcase_add_test(open_tc, test_permission_denied);
	suite_add_tcase(s, open_tc);

	tcase_add_test(opts, test_opts_nonzero_tail);
	tcase_add_test(opts, test_opts_zero_tail);
	tcase_add_test(opts, test_opts_too_small);
	tcase_add_test(opts, test_opts_older_caller);
	tcase_add_test(opts, test_opts_caller_without_backend);
	tcase_add_test(opts, test_opts_validate);
	suite_add_tcase(s, opts);

	tcase_add_test(misc, test_close_null);
	tcase_add_test(misc, test_fd_and_info_args);
	tcase_add_test(misc, test_strerror_all_codes);
	tcase_add_test(misc, test_strerror_specific);
	tcase_add_test(misc, test_strerror_names_the_operation);
	suite_add_tcase(s, misc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(open_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
