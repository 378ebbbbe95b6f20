#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the Debian root that modules for a 7.x test kernel are compiled in.
# Those headers need the compiler and pahole their kernel was built with
# (trixie-backports' 7.x: gcc-14, pahole 1.30; sid's: gcc-16), which this
# bookworm host lacks.  The root is a minimal debootstrap of SUITE
# (--variant=minbase) with make, sparse and PACKAGES: the headers' own
# build dependencies, which vmtest/fetch-kernels.sh reads from the archive.
# vmtest/build-module.sh builds in it with chroot.  Cached outside the
# repository, like the kernels:
#
#   $KMEM_RO_CACHE/kbuild-root/SUITE/root    the tree
#   $KMEM_RO_CACHE/kbuild-root/SUITE/stamp   the recipe it was built from
#
#   vmtest/build-root.sh trixie gcc-14-for-host pahole  # warm: does nothing
#   REFRESH=1 vmtest/build-root.sh trixie ...           # rebuild from the mirror
#
# A package the root lacks rebuilds it with what it held plus the new ones,
# so two kernels of one suite never drop each other's compiler.
# Needs root (debootstrap); the only network it uses is the Debian mirror.
set -euo pipefail

[ $# -ge 1 ] || { echo "usage: $0 SUITE [PACKAGE...]" >&2; exit 2; }
suite=$1
shift
CACHE=${KMEM_RO_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kmem_ro}
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
BASE=(make sparse)
dest=$CACHE/kbuild-root/$suite

log() { printf 'build-kbuild-root: %s\n' "$*" >&2; }

# Concurrent runs wait for the first one; build-module.sh holds this lock
# shared while it compiles, so a rebuild never pulls a root from under it.
mkdir -p "$CACHE/kbuild-root"
exec 9>"$CACHE/kbuild-root/$suite.lock"
flock 9
held=()
[ -s "$dest/stamp" ] && read -r -a held < <(sed -n 2p "$dest/stamp")
mapfile -t want < <(printf '%s\n' "${BASE[@]}" "${held[@]}" "$@" | sort -u)
stamp="$suite minbase $MIRROR
${want[*]}"
if [ -z "${REFRESH:-}" ] && [ -d "$dest/root/usr" ] &&
   [ "$(cat "$dest/stamp" 2>/dev/null)" = "$stamp" ]; then
	exit 0
fi
[ "$(id -u)" -eq 0 ] || { log "debootstrap needs root"; exit 1; }
if ! command -v debootstrap >/dev/null; then
	log "installing debootstrap"
	apt-get update -qq >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
		-o DPkg::Lock::Timeout=600 debootstrap </dev/null >&2
fi

# debootstrap mounts /proc and /sys inside the target; never rm -rf
# through a mount it left behind after a failure.
unmount_under() {
	local m
	awk -v d="$1/" 'index($2 "/", d) == 1 { print $2 }' /proc/self/mounts | sort -r |
	while read -r m; do umount -l "$m"; done
}
work=$dest.new
trap 'unmount_under "$work"; rm -rf "$work"' EXIT
unmount_under "$work"
rm -rf "$work"
mkdir -p "$work"
start=$(date +%s)
include=$(IFS=,; echo "${want[*]}")
log "debootstrap $suite ($include) from $MIRROR"
DEBIAN_FRONTEND=noninteractive debootstrap --variant=minbase --include="$include" \
	"$suite" "$work/root" "$MIRROR" </dev/null >"$work/debootstrap.log" 2>&1 ||
	{ tail -20 "$work/debootstrap.log" >&2; exit 1; }
unmount_under "$work/root"
# debootstrap resolves --include's dependencies itself: check it got them.
for p in "${want[@]}"; do
	dpkg-query --admindir="$work/root/var/lib/dpkg" -W -f='${Status}\n' "$p" 2>/dev/null |
		grep -q ' installed$' || { log "$p did not get installed"; exit 1; }
done
echo "$stamp" >"$work/stamp"
unmount_under "$dest"
rm -rf "$dest"
mv "$work" "$dest"
trap - EXIT
log "$suite ready in $dest ($(du -sh "$dest/root" | cut -f1), $(( $(date +%s) - start ))s)"
