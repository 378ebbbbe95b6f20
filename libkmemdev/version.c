// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* kmemdev_version(): the version of the library running, from its header. */
#include "internal.h"

#define STR_(x)	#x
#define STR(x)	STR_(x)

const char *kmemdev_version(void)
{
	return STR(KMEMDEV_VERSION_MAJOR) "." STR(KMEMDEV_VERSION_MINOR) "."
	       STR(KMEMDEV_VERSION_PATCH);
}
