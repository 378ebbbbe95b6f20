// SPDX-License-Identifier: GPL-2.0
/* A top-like live view on a terminal: see live.h. */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "json.h"
#include "live.h"

/* xterm's: alternate screen, cursor, home, clear line/screen */
#define ENTER	"\033[?1049h\033[?25l\033[H\033[2J"
#define LEAVE	"\033[?25h\033[?1049l"

static struct termios saved;
static bool have_tty_in, active;
static volatile sig_atomic_t resized, *stopped;
static struct sigaction old_winch, old_tstp, old_cont;

static void put(const char *s)
{
	size_t n = strlen(s);

	while (n) {
		ssize_t w = write(STDOUT_FILENO, s, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

/* Async-signal-safe: tcsetattr() and write() only. */
static void enter(void)
{
	struct termios t = saved;

	if (have_tty_in) {
		t.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
		t.c_cc[VMIN] = 0;
		t.c_cc[VTIME] = 0;
		tcsetattr(STDIN_FILENO, TCSANOW, &t);
	}
	put(ENTER);
}

static void leave(void)
{
	put(LEAVE);
	if (have_tty_in)
		tcsetattr(STDIN_FILENO, TCSANOW, &saved);
}

static void on_winch(int sig)
{
	(void)sig;
	resized = 1;
}

static void on_tstp(int sig)
{
	int e = errno;

	(void)sig;
	leave();
	/* stop for real, with the default action; SIGCONT comes back here */
	signal(SIGTSTP, SIG_DFL);
	raise(SIGTSTP);
	errno = e;
}

static void on_cont(int sig)
{
	struct sigaction sa = { .sa_handler = on_tstp };
	int e = errno;

	(void)sig;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTSTP, &sa, NULL);
	enter();
	resized = 1;
	errno = e;
}

bool live_possible(void)
{
	return isatty(STDOUT_FILENO);
}

int live_start(volatile sig_atomic_t *stop)
{
	struct sigaction sa = { 0 };

	stopped = stop;
	have_tty_in = isatty(STDIN_FILENO) && !tcgetattr(STDIN_FILENO, &saved);
	sigemptyset(&sa.sa_mask);	/* no SA_RESTART: wake the wait */
	sa.sa_handler = on_winch;
	sigaction(SIGWINCH, &sa, &old_winch);
	sa.sa_handler = on_tstp;
	sigaction(SIGTSTP, &sa, &old_tstp);
	sa.sa_handler = on_cont;
	sigaction(SIGCONT, &sa, &old_cont);
	active = true;
	enter();
	return 0;
}

void live_size(int *rows, int *cols)
{
	struct winsize ws;

	*rows = 24;
	*cols = 80;
	if (!ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_row && ws.ws_col) {
		*rows = ws.ws_row;
		*cols = ws.ws_col;
	}
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

enum live_event live_wait(uint64_t deadline_ns)
{
	for (;;) {
		struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };
		uint64_t now = mono_ns();
		int ms, r;

		if (*stopped)
			return LIVE_QUIT;
		if (resized) {
			resized = 0;
			return LIVE_RESIZE;
		}
		if (now >= deadline_ns)
			return LIVE_TICK;
		ms = (int)((deadline_ns - now + 999999) / 1000000);
		r = poll(&p, have_tty_in ? 1 : 0, ms);
		if (r > 0 && (p.revents & POLLIN)) {
			char c[16];
			ssize_t n = read(STDIN_FILENO, c, sizeof(c));

			for (ssize_t i = 0; i < n; i++)
				if (c[i] == 'q' || c[i] == 'Q')
					return LIVE_QUIT;
		} else if (r > 0) {
			have_tty_in = false;	/* hangup: no more keys */
		}
	}
}

void live_draw(const char *text)
{
	int rows, cols, row = 0;
	const char *p = text;

	live_size(&rows, &cols);
	fflush(stdout);
	put("\033[H");
	while (*p && row < rows) {
		size_t len = strcspn(p, "\n"), n = 0, w = 0;

		/* cut to the width, counting a UTF-8 sequence as one column */
		while (n < len && (int)w < cols) {
			size_t s = utf8_seq_len((const unsigned char *)p + n, len - n);

			n += s ? s : 1;
			w++;
		}
		if (write(STDOUT_FILENO, p, n) < 0)
			return;
		/* the last row must not scroll the screen */
		put(row + 1 < rows ? "\033[K\r\n" : "\033[K");
		row++;
		p += len;
		if (*p == '\n')
			p++;
	}
	put("\033[J");
}

void live_stop(void)
{
	if (!active)
		return;
	leave();
	sigaction(SIGWINCH, &old_winch, NULL);
	sigaction(SIGTSTP, &old_tstp, NULL);
	sigaction(SIGCONT, &old_cont, NULL);
	active = false;
}
