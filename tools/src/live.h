/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A full-screen live view on a terminal, as top draws one: the alternate
 * screen, the cursor hidden, keys read one at a time without echo; each
 * frame redrawn in place, cut to the window, which may change size.
 * Everything is put back on exit, on a signal that ends the program, and
 * around a suspend (^Z).
 */
#ifndef KMEMCTL_LIVE_H
#define KMEMCTL_LIVE_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

enum live_event {
	LIVE_TICK,	/* the deadline came */
	LIVE_QUIT,	/* 'q' was pressed, or *stop was set by a signal */
	LIVE_RESIZE,	/* the window changed size (or came back from ^Z) */
};

/* Is stdout a terminal that can show a live view? */
bool live_possible(void);

/*
 * Take over the terminal.  @stop: a flag the caller's signal handlers
 * set; a wait ends when it is set.  0, or -errno (nothing changed).
 */
int live_start(volatile sig_atomic_t *stop);

/* The window: rows and columns (24x80 if unknown). */
void live_size(int *rows, int *cols);

/* Wait until CLOCK_MONOTONIC @deadline_ns, a key or a resize. */
enum live_event live_wait(uint64_t deadline_ns);

/*
 * Draw @text (lines separated by '\n') from the top left, each line cut
 * to the window's width, at most its height lines, the rest cleared.
 */
void live_draw(const char *text);

/* Give the terminal back as it was. */
void live_stop(void);

#endif /* KMEMCTL_LIVE_H */
