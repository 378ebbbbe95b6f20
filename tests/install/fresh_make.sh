#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make -j2` on a fresh Debian machine, as README tells a new user: a
# minbase debootstrap of SUITE (default bookworm) in $BUILD/fresh-SUITE-base
# with git and make alone, the repository cloned into it (HEAD of this
# tree), then `make -j2` as root: the build packages must be installed
# before anything compiles, libkmemdev must be built with libnl (events),
# and the module for the cached-kernel default (6.12, downloaded there).
# Not part of make check (minutes, the mirror); run by hand:
#
#   tests/install/fresh_make.sh [SUITE]
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$top/build}
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
suite=${1:-bookworm}
root=$BUILD/fresh-$suite
[ "$(id -u)" -eq 0 ] || { echo "fresh-make: needs root" >&2; exit 1; }

base=$BUILD/fresh-$suite-base
if [ -z "${KMEM_RO_FRESH_NS:-}" ]; then
	# The debootstrapped root is kept (a stamp marks it complete); each run
	# works in a throwaway overlay over it.
	if [ ! -e "$base.stamp" ]; then
		rm -rf "$base"
		mkdir -p "$BUILD"
		t0=$SECONDS
		debootstrap --variant=minbase --include=git,make,ca-certificates \
			"$suite" "$base" "$MIRROR" > "$base.log"
		touch "$base.stamp"
		echo "fresh-make: debootstrap $suite: $((SECONDS - t0)) s"
	fi
	KMEM_RO_FRESH_NS=1 exec unshare --mount --propagation private -- "$0" "$@"
fi
mkdir -p "$root"
mount -t tmpfs -o size=6g tmpfs "$root"
mkdir -p "$root/upper" "$root/work" "$root/merged"
mount -t overlay overlay -o "lowerdir=$base,upperdir=$root/upper,workdir=$root/work" "$root/merged"
root=$root/merged
mount -t proc proc "$root/proc"
mount --bind /dev "$root/dev"
cp /etc/resolv.conf "$root/etc/resolv.conf"
# The sources a Debian installer writes (linux-6.12 reaches bookworm
# through -security).
printf 'deb %s %s main\n' "$MIRROR" "$suite" "$MIRROR" "$suite-updates" \
	"${DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}" "$suite-security" \
	>"$root/etc/apt/sources.list"
in_root() {
	env -i PATH=/usr/bin:/usr/sbin HOME=/root LC_ALL=C.UTF-8 TERM=dumb \
		chroot "$root" "$@" </dev/null
}
# This tree's HEAD, as a clone.
git clone -q "$top" "$root/root/kmem_ro"
# The build packages must not be there yet.
! in_root dpkg -s libbpf-dev gcc >/dev/null 2>&1 ||
	{ echo "fresh-make: build packages already installed" >&2; exit 1; }
t0=$SECONDS
in_root make -C /root/kmem_ro -j2 > "$BUILD/fresh-$suite.make.log" 2>&1 ||
	{ tail -n 30 "$BUILD/fresh-$suite.make.log"; echo "fresh-make: make -j2 FAILED"; exit 1; }
echo "fresh-make: make -j2: $((SECONDS - t0)) s"
ls -l "$root/root/kmem_ro/libkmemdev/libkmemdev.so."* "$root/root/kmem_ro/tools/kmemctl" \
	"$root/root/kmem_ro/build/6.12/driver/kmem_ro.ko"
log=$BUILD/fresh-$suite.make.log
# apt ran before the first compile.
first_cc=$(grep -n -m 1 '^cc ' "$log" | cut -d: -f1)
installed=$(grep -n -m 1 '^install-deps: installing ' "$log" | cut -d: -f1)
[ -n "$installed" ] && [ -n "$first_cc" ] && [ "$installed" -lt "$first_cc" ] ||
	{ echo "fresh-make: a compile started before the packages were installed"; exit 1; }
# Events built in: libnl was there when libkmemdev decided.
! grep -q 'building without libnl' "$log" ||
	{ echo "fresh-make: libkmemdev built without libnl"; exit 1; }
readelf -d "$root/root/kmem_ro/libkmemdev/libkmemdev.so" | grep -q 'NEEDED.*libnl-genl-3' ||
	{ echo "fresh-make: libkmemdev.so does not link libnl-genl"; exit 1; }
echo "fresh-make: ok"
