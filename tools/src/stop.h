/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SIGINT, SIGTERM and SIGHUP as a request to stop, for the verbs that run
 * until told to (probe top, watch).
 */
#ifndef STOP_H
#define STOP_H

#include <signal.h>

/* The last of those signals received; 0 while none came. */
extern volatile sig_atomic_t stop_sig;

/* Catch them into stop_sig, without SA_RESTART: they wake a sleep or wait. */
void catch_stop(void);

#endif /* STOP_H */
