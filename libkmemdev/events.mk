# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
#
# libkmemdev's events API (events.c, kmemdev_events_*()) needs libnl-genl
# (Debian: libnl-genl-3-dev).  Included by every Makefile that builds or
# links libkmemdev, so that all of them agree on whether it is there:
#   KMEMDEV_EVENTS             y when libnl-genl-3.0 is found, else empty
#   EVENTS_CFLAGS              -DKMEMDEV_HAVE_EVENTS and libnl's include path
#   EVENTS_LIBS, EVENTS_STATIC_LIBS   what to link
#   EVENTS_MISSING             the sentence to print when it is not there
PKG_CONFIG ?= pkg-config
KMEMDEV_EVENTS := $(shell $(PKG_CONFIG) --exists libnl-genl-3.0 && echo y)
ifeq ($(KMEMDEV_EVENTS),y)
EVENTS_CFLAGS      := -DKMEMDEV_HAVE_EVENTS $(shell $(PKG_CONFIG) --cflags libnl-genl-3.0)
EVENTS_LIBS        := $(shell $(PKG_CONFIG) --libs libnl-genl-3.0)
EVENTS_STATIC_LIBS := $(shell $(PKG_CONFIG) --static --libs libnl-genl-3.0)
else
EVENTS_MISSING := libnl-genl-3.0 not found (Debian: apt-get install libnl-genl-3-dev): building without kmemdev_events_*() and kmemctl watch
endif
