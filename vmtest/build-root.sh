#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build a minimal Debian root of SUITE (debootstrap --variant=minbase),
# cached outside the repository like the kernels, for one of two jobs:
#
#   kbuild  the root that modules for a 7.x test kernel are compiled in.
#           Those headers need the compiler and pahole their kernel was
#           built with (trixie-backports' 7.x: gcc-14, pahole 1.30; sid's:
#           gcc-16), which this bookworm host lacks: make, sparse and
#           PACKAGES, the headers' own build dependencies, which
#           vmtest/fetch-kernels.sh reads from the archive.
#           vmtest/build-module.sh builds in it with chroot.  A package the
#           root lacks rebuilds it with what it held plus the new ones, so
#           two kernels of one suite never drop each other's compiler.
#             $KMEM_RO_CACHE/kbuild-root/SUITE/root    the tree
#             $KMEM_RO_CACHE/kbuild-root/SUITE/stamp   the recipe it was built from
#   udev    the root the VM groups "udev" (bookworm) and "udev-trixie" boot
#           on: the real systemd-sysusers, systemd-udevd and shadow's
#           groupadd/useradd, trimmed of what no test reads (docs, man
#           pages, locales, apt lists) and packed once as an uncompressed
#           cpio archive that vmtest/run.sh puts in front of each run's
#           initramfs (group column "+udev-root=SUITE").
#             $KMEM_RO_CACHE/udev-root/SUITE/root/       the trimmed tree
#             $KMEM_RO_CACHE/udev-root/SUITE/root.cpio   the same, packed
#             $KMEM_RO_CACHE/udev-root/SUITE/stamp       the recipe it was built from
#
#   vmtest/build-root.sh kbuild trixie gcc-14-for-host pahole  # warm: does nothing
#   vmtest/build-root.sh udev [SUITE]                          # default bookworm
#   REFRESH=1 vmtest/build-root.sh udev trixie                 # rebuild from the mirror
#
# Needs root (debootstrap); the only network it uses is the Debian mirror.
set -euo pipefail

usage() { echo "usage: $0 kbuild SUITE [PACKAGE...] | udev [SUITE]" >&2; exit 2; }
[ $# -ge 1 ] || usage
kind=$1
shift
CACHE=${KMEM_RO_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kmem_ro}
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}

log() { printf 'build-root %s: %s\n' "$kind" "$*" >&2; }

# Each kind: what to --include, the stamp that says a cached root is
# current, the file it is ready with, and a check of the fresh root.
case $kind in
kbuild)
	[ $# -ge 1 ] || usage
	suite=$1
	shift
	BASE=(make sparse)
	# debootstrap resolves --include's dependencies itself: check it got them.
	finish() {
		local p
		for p in "${want[@]}"; do
			dpkg-query --admindir="$work/root/var/lib/dpkg" -W -f='${Status}\n' "$p" 2>/dev/null |
				grep -q ' installed$' || { log "$p did not get installed"; exit 1; }
		done
	}
	;;
udev)
	suite=${1:-bookworm}
	[[ $suite =~ ^[a-z]+$ ]] || usage
	# The same packages on bookworm and trixie: trixie's systemd (257) still
	# ships /usr/bin/systemd-sysusers, both roots are merged-/usr.
	PACKAGES=systemd,udev,passwd
	# What udev_test runs, checked after debootstrap: a package that moves a
	# binary must fail here, not in the guest.
	NEEDED=(usr/bin/systemd-sysusers usr/lib/systemd/systemd-udevd
		usr/sbin/groupadd usr/sbin/useradd usr/bin/udevadm)
	# Nothing in the guest reads these; they are most of the root's size.
	TRIM=(usr/share/doc usr/share/man usr/share/info usr/share/locale
	      usr/share/i18n usr/share/zoneinfo usr/share/lintian usr/share/common-licenses
	      usr/share/bash-completion usr/share/zsh usr/share/perl5 'usr/bin/perl*'
	      usr/lib/x86_64-linux-gnu/perl-base usr/lib/x86_64-linux-gnu/gconv
	      usr/lib/udev/hwdb.d
	      var/cache/apt var/cache/debconf var/lib/apt/lists var/log)
	finish() {
		local f t
		# In the root: bookworm's systemd-udevd is an absolute link to udevadm.
		for f in "${NEEDED[@]}"; do
			# shellcheck disable=SC2016	# the inner shell's $1
			chroot "$work/root" /bin/sh -c 'test -x "$1"' - "/$f" ||
				{ log "$suite: no /$f (packages $PACKAGES)"; exit 1; }
		done
		for t in "${TRIM[@]}"; do
			# shellcheck disable=SC2086	# may be a glob
			rm -rf "${work:?}/root/"$t
		done
		# Ownership is kept as debootstrap made it (a few files are not root's).
		(cd "$work/root" && find . | cpio -o -H newc --quiet) >"$work/root.cpio"
	}
	;;
*)	usage ;;
esac
dest=$CACHE/$kind-root/$suite

# Concurrent runs (helpers, parallel make) wait for the first one;
# build-module.sh holds a kbuild root's lock shared while it compiles, so a
# rebuild never pulls a root from under it.
mkdir -p "$CACHE/$kind-root"
exec 9>"$CACHE/$kind-root/$suite.lock"
flock 9
if [ "$kind" = kbuild ]; then
	held=()
	[ -s "$dest/stamp" ] && read -r -a held < <(sed -n 2p "$dest/stamp")
	mapfile -t want < <(printf '%s\n' "${BASE[@]}" "${held[@]}" "$@" | sort -u)
	include=$(IFS=,; echo "${want[*]}")
	stamp="$suite minbase $MIRROR
${want[*]}"
	ready=$dest/root/usr size=$dest/root
else
	include=$PACKAGES
	stamp="$suite minbase $PACKAGES trim:${TRIM[*]}"
	ready=$dest/root.cpio size=$dest/root.cpio
fi
if [ -z "${REFRESH:-}" ] && [ -s "$ready" ] &&
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
log "debootstrap $suite ($include) from $MIRROR"
DEBIAN_FRONTEND=noninteractive debootstrap --variant=minbase --include="$include" \
	"$suite" "$work/root" "$MIRROR" </dev/null >"$work/debootstrap.log" 2>&1 ||
	{ tail -20 "$work/debootstrap.log" >&2; exit 1; }
unmount_under "$work/root"
finish
echo "$stamp" >"$work/stamp"
unmount_under "$dest"
rm -rf "$dest"
mv "$work" "$dest"
trap - EXIT
# The single udev root's layout before roots per suite: nothing reads it now.
if [ "$kind" = udev ] && [ -e "$CACHE/udev-root/root.cpio" ]; then
	unmount_under "$CACHE/udev-root/root"
	rm -rf "$CACHE/udev-root/root" "$CACHE/udev-root/root.cpio" \
		"$CACHE/udev-root/stamp" "$CACHE/udev-root/debootstrap.log" "$CACHE/udev-root.lock"
fi
log "$suite ready in $dest ($(du -sh "$size" | cut -f1) $(basename "$size"), $(( $(date +%s) - start ))s)"
