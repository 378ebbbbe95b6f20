/* SPDX-License-Identifier: GPL-2.0 */
/* kmemctl tree --xarray: the entries of an XArray (see xarray.c). */
#ifndef KMEMCTL_XARRAY_H
#define KMEMCTL_XARRAY_H

#include <stdbool.h>

#include "kmemctl.h"

/* Is this tree command line an XArray's (-x or --xarray before any "--")? */
bool xarray_wanted(int argc, char **argv);

/* The verb tree --xarray, argv[0] = "tree". */
int xarray_verb(const struct kmemctl *ctx, int argc, char **argv);

#endif /* KMEMCTL_XARRAY_H */
