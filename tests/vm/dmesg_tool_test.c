// SPDX-License-Identifier: GPL-2.0
/*
 * kmemctl dmesg: the printk ring buffer read from memory against the
 * kernel's own syslog(2) view (busybox dmesg) in the same guest, and a
 * record we write to /dev/kmsg with a known level and facility.
 */
#define _GNU_SOURCE
#include <fcntl.h>

#include "tooltest.h"

static char syslog_out[1 << 20], untimed_out[sizeof(out)];

/* Is @line (no newline) a whole line of @text? */
static bool has_line(const char *text, const char *line, size_t len)
{
	const char *p = text;

	while ((p = memmem(p, strlen(p), line, len))) {
		if ((p == text || p[-1] == '\n') && (p[len] == '\n' || !p[len]))
			return true;
		p++;
	}
	return false;
}

/*
 * kmemctl prints each record's time, as util-linux dmesg does; syslog(2)
 * prints it only with printk.time (CONFIG_PRINTK_TIME, which the debug
 * kernel lacks).  Without it, compare @text with kmemctl's "[...] " cut.
 */
static const char *untimed(const char *text)
{
	char *o = untimed_out;
	const char *p, *nl;

	for (p = text; *p; p = nl + 1) {
		const char *t = p[0] == '[' ? strstr(p, "] ") : NULL;

		nl = strchrnul(p, '\n');
		if (t && t < nl)
			p = t + 2;
		memcpy(o, p, (size_t)(nl - p));
		o += nl - p;
		*o++ = '\n';
		if (!*nl)
			break;
	}
	*o = '\0';
	return untimed_out;
}

/* One record into the log through /dev/kmsg, at @level (facility LOG_USER). */
static void kmsg(int level, const char *text)
{
	char rec[160];
	int fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC), n;

	ck_assert_msg(fd >= 0, "/dev/kmsg: %s", strerror(errno));
	n = snprintf(rec, sizeof(rec), "<%d>%s\n", level, text);
	ck_assert_msg(write(fd, rec, (size_t)n) == n, "/dev/kmsg: %s", strerror(errno));
	close(fd);
}

START_TEST(same_as_syslog)
{
	char *argv[] = { "dmesg", NULL }, marker[96], e[256];
	const char *p, *nl, *ours;
	int shared = 0;

	snprintf(marker, sizeof(marker), "kmemctl-dmesg-test %d", getpid());
	kmsg(5, marker);

	syslog_out[0] = '\0';
	ck_assert_int_eq(vt_exec(0, 0, argv, syslog_out, sizeof(syslog_out), e, sizeof(e)), 0);
	ck_assert_msg(kmemctl("dmesg") == 0, "%s", err);
	ours = syslog_out[0] == '[' ? out : untimed(out);
	/* every record syslog showed is there, byte for byte */
	for (p = syslog_out; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		if (!nl)
			break;
		ck_assert_msg(has_line(ours, p, (size_t)(nl - p)), "missing: %.*s", (int)(nl - p),
			      p);
		shared++;
	}
	ck_assert_int_gt(shared, 50);
	ck_assert_msg(strstr(out, "] Linux version "), "%.300s", out);
	ck_assert_msg(strstr(out, marker), "no %s", marker);
}
END_TEST

START_TEST(json_record_of_ours)
{
	char marker[96], text[128];
	const char *p;

	snprintf(marker, sizeof(marker), "kmemctl-dmesg-json %d", getpid());
	kmsg(3, marker);
	ck_assert_msg(kmemctl("dmesg --json") == 0, "%s", err);
	ck_assert_msg(json_valid(out, false), "invalid JSON");
	p = strstr(out, marker);
	ck_assert_ptr_nonnull(p);
	while (p > out && strncmp(p, "{\"seq\":", 7))
		p--;
	/* /dev/kmsg: the level given, facility LOG_USER (devkmsg_write) */
	ck_assert_int_eq(vt_json_num(p, "level"), 3);
	ck_assert_int_eq(vt_json_num(p, "facility"), 1);
	ck_assert_int_eq(json_str_of(p, "text", text, sizeof(text)), 0);
	ck_assert_str_eq(text, marker);
	/* sequence numbers rise by one: no record left out */
	{
		long long prev = -1, seq;
		int n = 0;

		for (p = strstr(out, "{\"seq\":"); p; p = strstr(p + 1, "{\"seq\":")) {
			seq = strtoll(p + 7, NULL, 10);
			ck_assert_msg(prev < 0 || seq == prev + 1, "seq %lld after %lld", seq, prev);
			prev = seq;
			n++;
		}
		ck_assert_int_gt(n, 50);
	}
}
END_TEST

START_TEST(errors)
{
	ck_assert_int_eq(kmemctl("dmesg extra"), 2);
	ck_assert_msg(one_short_line(err), "%s", err);
	ck_assert_int_eq(kmemctl("dmesg --nope"), 2);
	ck_assert_msg(one_short_line(err), "%s", err);
}
END_TEST

/* prb is found through the device's symbols; no syslog(2) right needed. */
START_TEST(member_dmesg)
{
	char marker[96];

	snprintf(marker, sizeof(marker), "kmemctl-dmesg-member %d", getpid());
	kmsg(6, marker);
	ck_assert_msg(kmemctl_member("dmesg") == 0, "%s", err);
	ck_assert_msg(strstr(out, marker), "no %s", marker);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("dmesg_tool");
	TCase *tc = tcase_create("device");

	tcase_add_test(tc, same_as_syslog);
	tcase_add_test(tc, json_record_of_ours);
	tcase_add_test(tc, errors);
	tcase_add_test(tc, member_dmesg);
	suite_add_tcase(s, tc);
	return vt_main(s);
}
