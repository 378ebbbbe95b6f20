// SPDX-License-Identifier: GPL-2.0
/*
 * kmemctl probe top on a terminal, driven through tmux (send-keys,
 * capture-pane, resize-window): one table redrawn in place that changes
 * between two captures, rows sorted by rate, the interval at the top, a
 * resize respected, 'q' quits, and the terminal is given back as it was
 * (primary screen, cursor shown, the same stty settings).
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tooltest.h"

#define SOCK	"/tmp/probe_top_tmux"
#define HOT	"__x64_sys_getppid"

static char pane[65536], terr[4096];
static char top_rc[] = "/tmp/top.rc", stty_after[] = "/tmp/stty.after";

/* tmux -S SOCK ARGS...: its stdout in @buf (NUL-terminated); exit status. */
static int tmux(char *buf, size_t len, ...)
{
	char *argv[32] = { "tmux", "-S", SOCK, "-f", "/dev/null" };
	int n = 5;
	va_list ap;

	va_start(ap, len);
	while (n < 31 && (argv[n] = va_arg(ap, char *)))
		n++;
	va_end(ap);
	argv[n] = NULL;
	return vt_exec(0, 0, argv, buf, len, terr, sizeof(terr));
}

static void capture(void)
{
	ck_assert_int_eq(tmux(pane, sizeof(pane), "capture-pane", "-p", "-t", "t", NULL), 0);
}

static int count_of(const char *s, const char *needle)
{
	int n = 0;

	for (const char *p = s; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

/* The interval number of the title line, -1 if none is shown yet. */
static long interval_of(const char *s)
{
	const char *p = strstr(s, " - interval ");

	return p ? strtol(p + 12, NULL, 10) : -1;
}

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Capture until @pred holds, calling getppid() meanwhile; fails after 120 s. */
static void wait_pane(bool (*pred)(void *), void *arg, const char *what)
{
	double end = mono() + 120;

	for (;;) {
		capture();
		if (pred(arg))
			return;
		ck_assert_msg(mono() < end, "waited 120 s for %s; pane:\n%s", what, pane);
		for (int i = 0; i < 2000; i++)
			getppid();
		usleep(100000);
	}
}

static bool past_interval(void *arg)
{
	return interval_of(pane) > *(long *)arg;
}

/* Lines of the pane, and the longest one (trailing blanks dropped). */
static int pane_lines(int *widest)
{
	int n = 0, w;
	const char *p = pane;

	*widest = 0;
	while (*p) {
		size_t len = strcspn(p, "\n");

		w = (int)len;
		while (w && p[w - 1] == ' ')
			w--;
		if (w > *widest)
			*widest = w;
		if (w)
			n++;
		p += len;
		if (*p)
			p++;
	}
	return n;
}

/* The HITS/S column of the table's rows is sorted, highest first. */
static void check_sorted(void)
{
	const char *p = strstr(pane, "HITS/S");
	double prev = 1e300, rate;
	int rows = 0;

	ck_assert_ptr_nonnull(p);
	for (p = strchr(p, '\n'); p && *++p && strncmp(p, "...", 3); p = strchr(p, '\n')) {
		char name[256];
		unsigned long long hits, total;

		if (sscanf(p, "%255s %lf %llu %llu", name, &rate, &hits, &total) != 4)
			break;
		ck_assert_msg(rate <= prev, "not sorted by rate:\n%s", pane);
		ck_assert_uint_le(hits, total);
		prev = rate;
		rows++;
	}
	ck_assert_msg(rows >= 1, "no rows:\n%s", pane);
}

static bool file_exists(void *path)
{
	return !access(path, F_OK);
}

static bool no_table(void *arg)
{
	(void)arg;
	return !strstr(pane, "HITS/S");
}

static void slurp_file(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	size_t n;

	ck_assert_msg(f, "%s", path);
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
}

START_TEST(top_live_in_tmux)
{
	static char a[65536], before[4096], after[4096], fmt[256];
	long first, seen = 0;
	int lines, widest;

	ensure_devpts();
	unlink("/tmp/top.rc");
	unlink("/tmp/stty.after");
	/* the shell records the terminal before and after, and waits */
	ck_assert_msg(tmux(a, sizeof(a), "new-session", "-d", "-s", "t", "-x", "100", "-y", "30",
			      "stty -a > /tmp/stty.before; kmemctl probe top -i 0.5 '" HOT "*' "
			      "'vfs_*'; echo $? > /tmp/top.rc; stty -a > /tmp/stty.after; "
			      "echo SHELL-AFTER; sleep 600", NULL) == 0, "%s", terr);

	wait_pane(past_interval, &seen, "the first interval");
	ck_assert_int_eq(tmux(fmt, sizeof(fmt), "display-message", "-p", "-t", "t",
			      "#{alternate_on} #{cursor_flag}", NULL), 0);
	ck_assert_str_eq(fmt, "1 0\n");	/* alternate screen, no cursor */

	/* one table, redrawn in place: one title, one header */
	strcpy(a, pane);
	first = interval_of(a);
	ck_assert_int_eq(count_of(a, "kmemctl probe top - every 0.5 s - "), 1);
	ck_assert_int_eq(count_of(a, "HITS/S"), 1);
	ck_assert_msg(strstr(a, HOT), "%s", a);
	check_sorted();
	wait_pane(past_interval, &first, "a later interval");
	ck_assert_int_eq(count_of(pane, "HITS/S"), 1);
	ck_assert_int_eq(count_of(pane, "kmemctl probe top - every 0.5 s - "), 1);
	ck_assert_str_ne(pane, a);
	check_sorted();

	/* a smaller window: the screen fits it */
	ck_assert_int_eq(tmux(a, sizeof(a), "resize-window", "-t", "t", "-x", "60", "-y", "9",
			      NULL), 0);
	seen = interval_of(pane) + 1;
	wait_pane(past_interval, &seen, "an interval after the resize");
	lines = pane_lines(&widest);
	ck_assert_msg(lines <= 9 && widest <= 60, "%d lines, %d wide:\n%s", lines, widest, pane);
	ck_assert_int_eq(count_of(pane, "HITS/S"), 1);

	/* q quits; the shell's screen and settings are back */
	ck_assert_int_eq(tmux(a, sizeof(a), "send-keys", "-t", "t", "q", NULL), 0);
	wait_pane(file_exists, stty_after, "kmemctl to exit");
	wait_pane(no_table, NULL, "the table to go");
	slurp_file("/tmp/top.rc", a, sizeof(a));
	ck_assert_str_eq(a, "0\n");
	ck_assert_int_eq(tmux(fmt, sizeof(fmt), "display-message", "-p", "-t", "t",
			      "#{alternate_on} #{cursor_flag}", NULL), 0);
	ck_assert_str_eq(fmt, "0 1\n");
	slurp_file("/tmp/stty.before", before, sizeof(before));
	slurp_file("/tmp/stty.after", after, sizeof(after));
	ck_assert_msg(strstr(before, " icanon") && strstr(before, " echo"), "%s", before);
	/* the window was resized in between: compare all but the size */
	ck_assert_str_eq(strchr(after, '\n'), strchr(before, '\n'));
	ck_assert_ptr_nonnull(strstr(pane, "SHELL-AFTER"));
	tmux(a, sizeof(a), "kill-server", NULL);
}
END_TEST

/* SIGINT ends the live view as q does, the terminal restored too. */
START_TEST(top_live_sigint)
{
	static char a[4096], fmt[256];
	long seen = 0;

	ensure_devpts();
	unlink("/tmp/top.rc");
	ck_assert_msg(tmux(a, sizeof(a), "new-session", "-d", "-s", "t", "-x", "80", "-y", "24",
			      "trap '' INT; kmemctl probe top -i 0.5 " HOT "; echo $? > /tmp/top.rc; "
			      "sleep 600",
			      NULL) == 0, "%s", terr);
	wait_pane(past_interval, &seen, "the first interval");
	ck_assert_int_eq(tmux(a, sizeof(a), "send-keys", "-t", "t", "C-c", NULL), 0);
	wait_pane(file_exists, top_rc, "kmemctl to exit");
	slurp_file("/tmp/top.rc", a, sizeof(a));
	ck_assert_str_eq(a, "0\n");
	ck_assert_int_eq(tmux(fmt, sizeof(fmt), "display-message", "-p", "-t", "t",
			      "#{alternate_on} #{cursor_flag}", NULL), 0);
	ck_assert_str_eq(fmt, "0 1\n");
	tmux(a, sizeof(a), "kill-server", NULL);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("probe_top");

	/* the tmux client's terminal: the terminfo entry the test brings */
	setenv("TERM", "screen", 1);
	TCase *tc = tcase_create("tmux");

	tcase_add_test(tc, top_live_in_tmux);
	tcase_add_test(tc, top_live_sigint);
	suite_add_tcase(s, tc);
	return vt_main(s);
}
