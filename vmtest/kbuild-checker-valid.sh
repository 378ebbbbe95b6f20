#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Stand-in for the kernel's scripts/checker-valid.sh.  The 7.x Makefile
# runs that script before C=1/C=2, but Debian's linux-kbuild package does
# not ship it, and without it Kbuild skips sparse with nothing but a note
# ("... is not available or not up to date").  fetch-kernels.sh puts this
# copy where the Makefile looks.  Same contract: given the checker and its
# flags, print 1 if it exists and parses __typeof_unqual__ (which the 7.x
# headers use under __CHECKER__), else 0.
command -v "$1" >/dev/null 2>&1 || { echo 0; exit 0; }
src=$(mktemp) || exit 1
trap 'rm -f "$src"' EXIT
printf 'static int f(const int *p) { __typeof_unqual__(*p) x = *p; return x; }\n' >"$src"
# sparse exits 0 after an error: judge by what it says.
if "$@" "$src" 2>&1 | grep -q error; then echo 0; else echo 1; fi
