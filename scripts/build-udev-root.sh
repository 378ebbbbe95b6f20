#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the Debian root the VM group "udev" boots on: a minimal bookworm
# (debootstrap --variant=minbase) with the real systemd-sysusers,
# systemd-udevd and shadow's groupadd/useradd, trimmed of what no test reads
# (docs, man pages, locales, apt lists) and packed once as an uncompressed
# cpio archive that tests/vm/run.sh puts in front of each run's initramfs.
# Cached outside the repository, like the kernels:
#
#   $KMEM_RO_CACHE/udev-root/root/       the trimmed tree
#   $KMEM_RO_CACHE/udev-root/root.cpio   the same, packed
#   $KMEM_RO_CACHE/udev-root/stamp       the recipe it was built from
#
#   scripts/build-udev-root.sh            # warm cache: does nothing
#   REFRESH=1 scripts/build-udev-root.sh  # rebuild from the mirror
#
# Needs root (debootstrap); the only network it uses is the Debian mirror.
set -euo pipefail

CACHE=${KMEM_RO_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kmem_ro}
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
SUITE=bookworm
PACKAGES=systemd,udev,passwd
# Nothing in the guest reads these; they are most of the root's size.
TRIM=(usr/share/doc usr/share/man usr/share/info usr/share/locale
      usr/share/i18n usr/share/zoneinfo usr/share/lintian usr/share/common-licenses
      usr/share/bash-completion usr/share/zsh usr/share/perl5 'usr/bin/perl*'
      usr/lib/x86_64-linux-gnu/perl-base usr/lib/x86_64-linux-gnu/gconv
      usr/lib/udev/hwdb.d
      var/cache/apt var/cache/debconf var/lib/apt/lists var/log)
dest=$CACHE/udev-root
stamp="$SUITE minbase $PACKAGES trim:${TRIM[*]}"

log() { printf 'build-udev-root: %s\n' "$*" >&2; }

# Concurrent runs (helpers, parallel make) wait for the first one.
mkdir -p "$CACHE"
exec 9>"$CACHE/udev-root.lock"
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
log "ready in $dest ($(du -sh "$dest/root.cpio" | cut -f1) packed, $(( $(date +%s) - start ))s)"
