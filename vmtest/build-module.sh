#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build an out-of-tree module directory against a cached Debian test kernel
# (see fetch-kernels.sh), in a per-kernel copy so two kernels never share
# objects.
#
#   vmtest/build-module.sh SERIES SRC_DIR OUT_DIR [make args...]
#
# SRC_DIR is copied to OUT_DIR/<basename SRC_DIR> together with uapi/ so
# that Kbuild's "-I$(src)/../uapi" keeps working.  A kernel that fetch-kernels.sh
# marked with a kbuild-root (7.x) is built in that Debian root with chroot.
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
kroot=$(cd "$CACHE/kernels/$series/root" && pwd -P)
release=$(cat "$CACHE/kernels/$series/release")
abi=${release%-amd64}
hdr=$kroot/usr/src/linux-headers-$release
common=$kroot/usr/src/linux-headers-$abi-common

# The arch header dir's Makefile includes an absolute /usr/src path; name
# the common Makefile explicitly instead, and the output tree with it (7.x's
# common Makefile takes the kernel tree from KBUILD_OUTPUT, else its own).
make=(make -s -C "$hdr" -f "$common/Makefile" KBUILD_OUTPUT="$hdr"
      M="$(cd "$out/$name" && pwd -P)" "$@")
if [ ! -s "$CACHE/kernels/$series/kbuild-root" ]; then
	exec "${make[@]}"
fi

# Debian 13 and later: in the root of the kernel's suite (its compiler and
# pahole; vmtest/build-root.sh), or for a sparse pass (C=...) in
# the root whose sparse its headers accept, with the kernel and the output
# bind-mounted at their own paths, in a mount namespace of this build's
# own so that nothing stays mounted.  Sharing the root's lock keeps a
# rebuild of the root waiting.
suite=$(cat "$CACHE/kernels/$series/kbuild-root")
for a in "$@"; do
	if [[ $a == C=* && -s $CACHE/kernels/$series/check-root ]]; then
		suite=$(cat "$CACHE/kernels/$series/check-root")
	fi
done
broot=$CACHE/kbuild-root/$suite
exec 9<>"$CACHE/kbuild-root/$suite.lock"
flock -s 9
[ -d "$broot/root/usr" ] || { echo "build-module: no $suite build root: run make deps" >&2; exit 1; }
# shellcheck disable=SC2016 # expanded by the inner shell
exec unshare --mount --propagation private -- bash -euc '
	root=$1 kernel=$2 outdir=$3
	shift 3
	mount -t tmpfs tmpfs "$root/tmp"	# the compiler'"'"'s, and no leftovers
	for d in "$kernel" "$outdir"; do
		mkdir -p "$root$d"
		mount --bind "$d" "$root$d"
	done
	mount -t proc proc "$root/proc"
	unset TMPDIR
	exec chroot "$root" "$@"
' - "$(cd "$broot/root" && pwd -P)" "$kroot" \
	"$(cd "$out" && pwd -P)" "${make[@]}"
