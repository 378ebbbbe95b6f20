/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * /proc/kallsyms from the device for a process the real file shows only
 * zeros: see kallsyms_serve.c.
 */
#ifndef KMEMDEV_KALLSYMS_SERVE_H
#define KMEMDEV_KALLSYMS_SERVE_H

#include <stdbool.h>

#include "internal.h"

/*
 * @fd is an open of procfs's kallsyms, at position 0.  If it shows this
 * process real addresses: -1, @fd left at position 0.  Else a new memfd
 * (MFD_CLOEXEC if @cloexec), sealed, at position 0, holding the text root
 * would read, built through the device; -1 if the device cannot give it.
 */
KMEMDEV_INTERNAL int kmemdev__kallsyms_serve(int fd, bool cloexec);

#endif
