# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
#
# libkmemdev's event stream functions (events.c, kmemdev_events_*()) need
# libnl-genl (Debian: libnl-genl-3-dev).  Without it events_none.c takes
# their place: the same functions, declared and exported all the same,
# failing with -EOPNOTSUPP (kmemdev_events_snapshot(), a plain ioctl,
# works either way).  Included by every Makefile that builds or links
# libkmemdev, so that all of them agree on which one is built:
#   KMEMDEV_EVENTS             y when libnl-genl-3.0 is found, else n;
#                              KMEMDEV_EVENTS=n (make's command line or the
#                              environment) builds without it regardless
#   EVENTS_CFLAGS              libnl's include path
#   EVENTS_LIBS, EVENTS_STATIC_LIBS   what to link
#   EVENTS_MISSING             the sentence to print when it is not there
PKG_CONFIG ?= pkg-config
ifeq ($(KMEMDEV_EVENTS),)
KMEMDEV_EVENTS := $(shell $(PKG_CONFIG) --exists libnl-genl-3.0 && echo y || echo n)
endif
ifeq ($(KMEMDEV_EVENTS),y)
EVENTS_CFLAGS      := $(shell $(PKG_CONFIG) --cflags libnl-genl-3.0)
EVENTS_LIBS        := $(shell $(PKG_CONFIG) --libs libnl-genl-3.0)
EVENTS_STATIC_LIBS := $(shell $(PKG_CONFIG) --static --libs libnl-genl-3.0)
else
EVENTS_MISSING := building without libnl-genl-3.0 (Debian: apt-get install libnl-genl-3-dev): the event stream functions and kmemctl watch fail with EOPNOTSUPP
endif
