#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build an out-of-tree module directory against a cached Debian test kernel
# (see fetch-kernels.sh), in a per-kernel copy so two kernels never share
# objects.
#
#   scripts/build-module.sh SERIES SRC_DIR OUT_DIR [make args...]
#
# SRC_DIR is copied to OUT_DIR/<basename SRC_DIR> together with uapi/ so
# that Kbuild's "-I$(src)/../uapi" keeps working.
set -euo pipefail

series=$1 src=$2 out=$3
shift 3
top=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${KMEM_RO_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kmem_ro}
name=$(basename "$src")
mkdir -p "$out/$name" "$out/uapi"
cp -u "$top/uapi/"*.h "$out/uapi/"
cp -u "$src"/* "$out/$name/"
# A kernel built here (build-debug-kernel.sh) has a full object tree.
if [ -s "$CACHE/kernels/$series/kdir" ]; then
	exec make -s -C "$(cat "$CACHE/kernels/$series/kdir")" M="$(cd "$out/$name" && pwd)" "$@"
fi
kroot=$CACHE/kernels/$series/root
release=$(cat "$CACHE/kernels/$series/release")
abi=${release%-amd64}
hdr=$kroot/usr/src/linux-headers-$release
common=$kroot/usr/src/linux-headers-$abi-common

# The arch header dir's Makefile includes an absolute /usr/src path; name
# the common Makefile explicitly instead.
exec make -s -C "$hdr" -f "$common/Makefile" M="$(cd "$out/$name" && pwd)" "$@"
