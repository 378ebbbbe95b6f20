#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build a Debian root the VM groups "udev" (bookworm) and "udev-trixie"
# boot on: a minimal SUITE (debootstrap --variant=minbase) with the real
# systemd-sysusers, systemd-udevd and shadow's groupadd/useradd, trimmed of
# what no test reads (docs, man pages, locales, apt lists) and packed once
# as an uncompressed cpio archive that vmtest/run.sh puts in front of
# each run's initramfs (group column "+udev-root=SUITE").  Cached outside
# the repository, like the kernels, one directory per suite:
#
#   $KMEM_RO_CACHE/udev-root/SUITE/root/       the trimmed tree
#   $KMEM_RO_CACHE/udev-root/SUITE/root.cpio   the same, packed
#   $KMEM_RO_CACHE/udev-root/SUITE/stamp       the recipe it was built from
#
#   vmtest/build-udev-root.sh [SUITE]          # default bookworm; warm: does nothing
#   REFRESH=1 vmtest/build-udev-root.sh trixie # rebuild from the mirror
#
# Needs root (debootstrap); the only network it uses is the Debian mirror.
set -euo pipefail

CACHE=${KMEM_RO_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kmem_ro}
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
SUITE=${1:-bookworm}
[[ $SUITE =~ ^[a-z]+$ ]] || { echo "usage: $0 [SUITE]" >&2; exit 2; }
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
dest=$CACHE/udev-root/$SUITE
stamp="$SUITE minbase $PACKAGES trim:${TRIM[*]}"

log() { printf 'build-udev-root: %s\n' "$*" >&2; }

# Concurrent runs (helpers, parallel make) wait for the first one.
mkdir -p "$CACHE/udev-root"
exec 9>"$CACHE/udev-root/$SUITE.lock"
flock 9
if [ -z "${REFRESH:-}" ] && [ -s "$dest/root.cpio" ] &&
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
log "debootstrap $SUITE ($PACKAGES) from $MIRROR"
DEBIAN_FRONTEND=noninteractive debootstrap --variant=minbase --include="$PACKAGES" \
	"$SUITE" "$work/root" "$MIRROR" </dev/null >"$work/debootstrap.log" 2>&1 ||
	{ tail -20 "$work/debootstrap.log" >&2; exit 1; }
unmount_under "$work/root"
# In the root: bookworm's systemd-udevd is an absolute link to udevadm.
for f in "${NEEDED[@]}"; do
	# shellcheck disable=SC2016	# the inner shell's $1
	chroot "$work/root" /bin/sh -c 'test -x "$1"' - "/$f" ||
		{ log "$SUITE: no /$f (packages $PACKAGES)"; exit 1; }
done
for t in "${TRIM[@]}"; do
	rm -rf "${work:?}/root/"$t	# may be a glob
done
# Ownership is kept as debootstrap made it (a few files are not root's).
(cd "$work/root" && find . | cpio -o -H newc --quiet) >"$work/root.cpio"
echo "$stamp" >"$work/stamp"
unmount_under "$dest"
rm -rf "$dest"
mv "$work" "$dest"
trap - EXIT
# The single root's layout before roots per suite: nothing reads it now.
if [ -e "$CACHE/udev-root/root.cpio" ]; then
	unmount_under "$CACHE/udev-root/root"
	rm -rf "$CACHE/udev-root/root" "$CACHE/udev-root/root.cpio" \
		"$CACHE/udev-root/stamp" "$CACHE/udev-root/debootstrap.log" "$CACHE/udev-root.lock"
fi
log "$SUITE ready in $dest ($(du -sh "$dest/root.cpio" | cut -f1) packed, $(( $(date +%s) - start ))s)"
