// SPDX-License-Identifier: GPL-2.0
/*
 * kmemctl dump (and read's errors): regions larger than its 1 MiB chunk
 * against /proc/kcore's bytes, module memory (READV), the progress line on
 * a terminal only, and errors that name what an address is - a vmalloc
 * guard page (a hole), an ioremap range and a physical hole (not RAM) from
 * /proc/vmallocinfo and /proc/iomem - on the device and on /proc/kcore.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pty.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tooltest.h"

#define FILE_OUT	"/tmp/dump_tool.bin"

/* FILE_OUT holds exactly the @len bytes /proc/kcore has at @addr. */
static void same_as_kcore(uint64_t addr, size_t len)
{
	static unsigned char a[65536], b[65536];
	int fd = open(FILE_OUT, O_RDONLY | O_CLOEXEC);
	struct stat st;
	size_t done = 0;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fstat(fd, &st), 0);
	ck_assert_int_eq(st.st_size, (off_t)len);
	ck_assert_int_eq(st.st_mode & 0777, 0600);
	while (done < len) {
		size_t n = len - done < sizeof(a) ? len - done : sizeof(a);

		ck_assert_int_eq(read(fd, a, n), (ssize_t)n);
		ck_assert_int_eq(vt_kcore_read(addr + done, b, n), 0);
		ck_assert_msg(!memcmp(a, b, n), "differs from kcore in %#" PRIx64 "+%zu",
			      addr + done, n);
		done += n;
	}
	close(fd);
}

static void check_rodata(void)
{
	uint64_t ro = vt_kallsyms("__start_rodata");
	size_t len = 3 * 1048576 + 123;	/* several chunks and a piece */

	ck_assert_uint_ne(ro, 0);
	unlink(FILE_OUT);
	ck_assert_msg(kmemctl("dump __start_rodata %zu -o " FILE_OUT, len) == 0, "%s", err);
	/* not a terminal: no progress line */
	ck_assert_str_eq(err, "");
	ck_assert_msg(strstr(out, "wrote 3145851 bytes of 0x"), "%s", out);
	same_as_kcore(ro, len);

	ck_assert_msg(kmemctl("dump __start_rodata+0x10 2M -o " FILE_OUT " --json") == 0, "%s", err);
	ck_assert(json_valid(out, false));
	ck_assert_int_eq(vt_json_num(out, "size"), 2 << 20);
	ck_assert_uint_eq(json_hex_of(out, "addr"), ro + 16);
	ck_assert_int_ge(vt_json_num(out, "elapsed_ms"), 0);
	ck_assert_ptr_nonnull(strstr(out, "\"file\":\"" FILE_OUT "\""));
	same_as_kcore(ro + 16, 2 << 20);

	ck_assert_msg(kmemctl("dump linux_banner 13 -o -") == 0, "%s", err);
	ck_assert_str_eq(out, "Linux version");
}

START_TEST(rodata_matches_kcore)
{
	check_rodata();
}
END_TEST

/* Module text lives in vmalloc'ed module memory: READV reads it. */
START_TEST(module_text_matches_kcore)
{
	struct proc_module pm[64];
	int n = proc_modules(pm, 64), i;

	for (i = 0; i < n && strcmp(pm[i].name, "kmem_ro"); i++)
		;
	ck_assert_int_lt(i, n);
	ck_assert_msg(kmemctl("dump %#llx 4096 -o " FILE_OUT, pm[i].addr) == 0, "%s", err);
	same_as_kcore(pm[i].addr, 4096);
}
END_TEST

/* The progress line goes to a terminal, and only there. */
START_TEST(progress_on_a_tty)
{
	char buf[8192];
	size_t len = 0;
	int master, status;
	ssize_t got;
	pid_t pid;

	ensure_devpts();
	pid = forkpty(&master, NULL, NULL, NULL);
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		execlp("kmemctl", "kmemctl", "dump", "__start_rodata", "3M", "-o", FILE_OUT,
		       (char *)NULL);
		_exit(127);
	}
	while (len < sizeof(buf) - 1 && (got = read(master, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += (size_t)got;
	buf[len] = '\0';
	close(master);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && !WEXITSTATUS(status), "%s", buf);
	ck_assert_msg(strstr(buf, "\rdump: 3.0 of 3.0 MiB (100%)\r\n"), "%s", buf);
}
END_TEST

/* A vmalloc area's guard page (the last page /proc/vmallocinfo counts). */
static uint64_t guard_page(void)
{
	char line[512];
	unsigned long long s, e;
	uint64_t found = 0;
	FILE *f;

	vt_write_file("/proc/sys/kernel/kptr_restrict", "1");
	f = fopen("/proc/vmallocinfo", "re");
	ck_assert_ptr_nonnull(f);
	while (!found && fgets(line, sizeof(line), f))
		if (strstr(line, " vmalloc") && !strstr(line, "vmap") &&
		    sscanf(line, "0x%llx-0x%llx", &s, &e) == 2 && e - s >= 3 * 4096)
			found = e - 4096;
	fclose(f);
	return found;
}

static uint64_t ioremap_area(void)
{
	char line[512];
	unsigned long long s, e;
	uint64_t found = 0;
	FILE *f;

	vt_write_file("/proc/sys/kernel/kptr_restrict", "1");
	f = fopen("/proc/vmallocinfo", "re");
	ck_assert_ptr_nonnull(f);
	while (!found && fgets(line, sizeof(line), f))
		if (strstr(line, " ioremap") && sscanf(line, "0x%llx-0x%llx", &s, &e) == 2)
			found = s;
	fclose(f);
	return found;
}

START_TEST(errors_name_what_is_there)
{
	KMEMDEV_ARG(kmem_ro_info, info);
	uint64_t guard = guard_page(), io = ioremap_area();
	struct kmemdev *h;
	char want[128];

	ck_assert_msg(guard, "no vmalloc area in /proc/vmallocinfo");
	ck_assert_msg(io, "no ioremap area in /proc/vmallocinfo");

	ck_assert_int_eq(kmemctl("read %#" PRIx64 " 16", guard), 1);
	ck_assert_msg(one_short_line(err), "%s", err);
	snprintf(want, sizeof(want), "kmemctl: read 0x%" PRIx64 ": not mapped in the kernel (a hole)\n",
		 guard);
	ck_assert_str_eq(err, want);

	/* the partial file is removed */
	ck_assert_int_eq(kmemctl("dump %#" PRIx64 " 16K -o " FILE_OUT, guard - 8192), 1);
	ck_assert_msg(one_short_line(err), "%s", err);
	snprintf(want, sizeof(want), "kmemctl: dump 0x%" PRIx64 ": at 0x%" PRIx64
		 ": not mapped in the kernel (a hole)\n", guard - 8192, guard);
	ck_assert_str_eq(err, want);
	ck_assert_int_eq(access(FILE_OUT, F_OK), -1);

	ck_assert_int_eq(kmemctl("read %#" PRIx64 " 16", io), 1);
	ck_assert_msg(one_short_line(err), "%s", err);
	ck_assert_msg(strstr(err, ": not System RAM (ioremap, MMIO or a physical hole)"), "%s", err);

	/* the direct map of the legacy VGA hole, 640 KiB, is not RAM either */
	ck_assert_int_eq(kmemdev_open(&h, NULL), 0);
	ck_assert_int_ge(kmemdev_info(h, &info, NULL, 0), 0);
	kmemdev_close(h);
	ck_assert_int_eq(vt_file_has("/proc/iomem", "000a0000-000bffff : PCI Bus"), 1);
	ck_assert_int_eq(kmemctl("read %#" PRIx64 " 16", (uint64_t)info.page_offset + 0xa0000), 1);
	ck_assert_msg(strstr(err, ": not System RAM (ioremap, MMIO or a physical hole)"), "%s", err);

	ck_assert_int_eq(kmemctl("read 0x1000 16"), 1);
	ck_assert_str_eq(err, "kmemctl: read 0x1000: not a kernel address\n");
	ck_assert_int_eq(kmemctl("dump linux_banner 0 -o " FILE_OUT), 2);
	ck_assert_msg(one_short_line(err), "%s", err);
	ck_assert_int_eq(kmemctl("dump linux_banner 16"), 2);
	ck_assert_msg(one_short_line(err), "%s", err);
	ck_assert_int_eq(kmemctl("dump linux_banner 16 -o /nonexistent/dir/f"), 1);
	ck_assert_msg(one_short_line(err), "%s", err);
}
END_TEST

/* read: the same numbers everywhere, and JSON for any bytes. */
START_TEST(read_json_and_numbers)
{
	ck_assert_msg(kmemctl("read linux_banner 5 --json") == 0, "%s", err);
	ck_assert(json_valid(out, false));
	ck_assert_ptr_nonnull(strstr(out, "\"size\":5,\"hex\":\"4c696e7578\""));
	/* 010 is ten, as an offset and as a length */
	ck_assert_msg(kmemctl("read linux_banner+010 010 --raw") == 0, "%s", err);
	ck_assert_int_eq(strlen(out), 10);
	ck_assert_msg(!strncmp(out, "ion ", 4), "%s", out);
	ck_assert_msg(kmemctl("sym linux_banner+010 --json") == 0, "%s", err);
	ck_assert(json_valid(out, false));
	ck_assert_int_eq(vt_json_num(out, "offset"), 10);
	ck_assert_uint_eq(json_hex_of(out, "addr"), vt_kallsyms("linux_banner") + 10);
	ck_assert_msg(kmemctl("sym linux_banner+0x10") == 0, "%s", err);
	ck_assert_msg(strstr(out, " linux_banner+0x10\n"), "%s", out);
}
END_TEST

static void no_device(void)
{
	unload_kmem_ro();
}

static void device_back(void)
{
	reload_kmem_ro();
}

START_TEST(kcore_dump_and_read)
{
	ck_assert_int_eq(vt_open_errno(KMEM_RO_DEVICE, 0), ENOENT);
	check_rodata();
	ck_assert_int_eq(kmemctl("read 0x1000 16"), 1);
	ck_assert_str_eq(err, "kmemctl: read 0x1000: not in /proc/kcore (a hole: no segment covers it)\n");
	ck_assert_msg(kmemctl("sym linux_banner+8") == 0, "%s", err);
	ck_assert_msg(kmemctl("read linux_banner 5 --raw") == 0, "%s", err);
	ck_assert_str_eq(out, "Linux");
}
END_TEST

/* The verbs that need the device say why, in one line, and what to do. */
START_TEST(kcore_device_only_verbs)
{
	ck_assert_int_eq(kmemctl("probe top vfs_read --count 1"), 1);
	ck_assert_msg(one_short_line(err), "%s", err);
	ck_assert_msg(strstr(err, "modprobe kmem_ro") && strstr(err, "kcore"), "%s", err);
	ck_assert_int_eq(kmemctl("pagemap self"), 1);
	ck_assert_msg(one_short_line(err), "%s", err);
	ck_assert_msg(strstr(err, "modprobe kmem_ro") && strstr(err, "kcore"), "%s", err);
	ck_assert_int_eq(kmemctl("watch --count 1"), 1);
	ck_assert_msg(one_short_line(err), "%s", err);
	ck_assert_msg(strstr(err, "modprobe kmem_ro"), "%s", err);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("dump_tool");
	TCase *tc = tcase_create("device");

	tcase_add_test(tc, rodata_matches_kcore);
	tcase_add_test(tc, module_text_matches_kcore);
	tcase_add_test(tc, progress_on_a_tty);
	tcase_add_test(tc, errors_name_what_is_there);
	tcase_add_test(tc, read_json_and_numbers);
	suite_add_tcase(s, tc);

	tc = tcase_create("kcore");
	tcase_add_unchecked_fixture(tc, no_device, device_back);
	tcase_add_test(tc, kcore_dump_and_read);
	tcase_add_test(tc, kcore_device_only_verbs);
	suite_add_tcase(s, tc);
	return vt_main(s);
}
