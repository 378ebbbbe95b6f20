#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make deb`: the Debian source and binary packages of the checked-out tree
# (git's files, committed or not), built in $BUILD/deb with
# dpkg-buildpackage, then lintian on the result.  Installs the build
# dependencies first when run as root (debian/control's Build-Depends,
# lintian); fails on any lintian error or warning.
#
#   scripts/build-deb.sh        -> $BUILD/deb/*.deb, *.dsc, *.changes
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$top/build}
out=$BUILD/deb
version=$(cat "$top/VERSION")
src=$out/kmem-ro-$version

log() { printf 'deb: %s\n' "$*" >&2; }

# Build-Depends and the tools to check the result.  dh-dkms is its own
# package on bookworm and trixie (bookworm's is dkms 3.0.10's).
deps=(dpkg-dev debhelper dh-dkms dh-python fakeroot lintian libbpf-dev libelf-dev
      libnl-genl-3-dev pkg-config python3-all-dev python3-setuptools zlib1g-dev)
missing=()
for p in "${deps[@]}"; do
	dpkg-query -W -f '${db:Status-Status}\n' "$p" 2>/dev/null | grep -qx installed ||
		missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	[ "$(id -u)" -eq 0 ] || { log "missing packages (run as root): ${missing[*]}"; exit 1; }
	log "installing ${missing[*]}"
	apt-get update -qq >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
		"${missing[@]}" >&2
fi

rm -rf "$out"
mkdir -p "$src"
(cd "$top" && git ls-files -z -co --exclude-standard |
	xargs -0 tar -c --no-recursion --ignore-failed-read) | tar -C "$src" -x
log "dpkg-buildpackage in $src"
(cd "$src" && dpkg-buildpackage -us -uc -j"$(nproc)") > "$out/build.log" 2>&1 ||
	{ tail -n 40 "$out/build.log" >&2; log "failed: $out/build.log"; exit 1; }
ls "$out"/*.deb
# No error and no warning passes: each one is fixed or, where Debian's
# own practice differs, overridden with its reason in debian/*lintian-overrides.
log "lintian"
lintian --fail-on error,warning --info --display-info --pedantic \
	--tag-display-limit 0 "$out"/*.changes > "$out/lintian.log" 2>&1 && rc=0 || rc=$?
grep -v '^running with root privileges' "$out/lintian.log" >&2 || true
[ "$rc" -eq 0 ] || log "lintian failed: $out/lintian.log"
exit "$rc"
