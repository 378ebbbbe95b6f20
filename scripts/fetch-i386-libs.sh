#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The i386 static libraries the 32-bit in-VM ABI test links (Check and
# subunit), unpacked into a cache like the test kernels: apt-get download
# through a private apt configuration whose architecture list holds i386,
# then dpkg -x.  Nothing is installed, the machine's dpkg architectures and
# apt sources stay as they are.
#
#   scripts/fetch-i386-libs.sh     # prints the lib dir; warm: no download
set -euo pipefail

CACHE=${KMEM_RO_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kmem_ro}
dest=$CACHE/i386-libs
pkgs=(check libsubunit-dev libsubunit0)

log() { printf 'fetch-i386-libs: %s\n' "$*" >&2; }

if [ -s "$dest/stamp" ] && [ "$(cat "$dest/stamp")" = "${pkgs[*]}" ]; then
	echo "$dest/usr/lib/i386-linux-gnu"
	exit 0
fi
apt=$CACHE/apt-i386
mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/sources"
# the machine's own Debian sources, read for i386 as well
cp /etc/apt/sources.list.d/*.sources "$apt/sources/" 2>/dev/null || true
[ -f /etc/apt/sources.list ] && cp /etc/apt/sources.list "$apt/sources/machine.list"
opts=(-o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts="$apt/sources"
      -o Dir::State::Lists="$apt/lists" -o Dir::Cache="$apt/cache"
      -o Dir::State::status=/dev/null -o APT::Architectures::=amd64
      -o APT::Architectures::=i386)
# A mirror caught mid-sync fails one list ("File has unexpected size"):
# tried again, and if a list still fails, the packages are looked for in
# the lists that came (they are all in the release's main); only a
# download that still fails after that ends the build.
tries=3
for try in $(seq "$tries"); do
	log "apt-get update (i386 lists), try $try of $tries"
	apt-get -qq "${opts[@]}" update >&2 && break
	[ "$try" = "$tries" ] && log "some lists failed: looking in the ones that came" ||
		sleep $((try * 15))
done
tmp=$(mktemp -d "$CACHE/tmp.XXXXXX")
for try in $(seq "$tries"); do
	log "downloading ${pkgs[*]/%/:i386}, try $try of $tries"
	(cd "$tmp" && apt-get -qq "${opts[@]}" download "${pkgs[@]/%/:i386}" >&2) && break
	[ "$try" = "$tries" ] && { log "could not download ${pkgs[*]/%/:i386}"; exit 1; }
	sleep $((try * 15))
done
rm -rf "$dest.new"
mkdir -p "$dest.new"
for deb in "$tmp"/*.deb; do
	dpkg -x "$deb" "$dest.new"
done
rm -rf "$tmp" "$dest"
echo "${pkgs[*]}" > "$dest.new/stamp"
mv "$dest.new" "$dest"
echo "$dest/usr/lib/i386-linux-gnu"
