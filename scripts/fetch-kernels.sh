#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Fetch the Debian test kernels (image, headers, kbuild) into a cache outside
# the repository, and install the Debian packages the build and the VM
# harness need.  Nothing is installed as a kernel and the machine's apt
# sources are left alone.
#
#   scripts/fetch-kernels.sh            # warm cache: downloads nothing
#   REFRESH=1 scripts/fetch-kernels.sh  # re-resolve the metapackages
#
# Each kernel ends up in $KMEM_RO_CACHE/kernels/<series>/ with:
#   root/      the dpkg -x tree (boot/vmlinuz-*, usr/src/linux-headers-*, ...)
#   release    the kernel release string, e.g. 6.1.0-57-amd64
#   vmlinuz    symlink to the image
set -euo pipefail

CACHE=${KMEM_RO_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kmem_ro}
SERIES=${KERNELS:-"6.1 6.12"}

# Build/test dependencies, by the command or file that proves they are there.
declare -A NEED=(
	[qemu-system-x86_64]=qemu-system-x86
	[/bin/busybox]=busybox-static
	[cpio]=cpio
	[pahole]=dwarves
	[sparse]=sparse
	[pkg-config]=pkg-config
	[/usr/include/check.h]=check
	[/usr/lib/x86_64-linux-gnu/libsubunit.a]=libsubunit-dev
	[/usr/include/bpf/btf.h]=libbpf-dev
	[/usr/include/libnl3/netlink/genl/genl.h]=libnl-genl-3-dev
	[/usr/include/gelf.h]=libelf-dev
	[/usr/lib/x86_64-linux-gnu/libz.a]=zlib1g-dev
	[gcc]=gcc
	[make]=make
	[bc]=bc
	[flex]=flex
	[bison]=bison
	[strace]=strace
	[/usr/lib/python3/dist-packages/drgn/__init__.py]=python3-drgn
	[groff]=groff-base
	[man]=man-db
	[modinfo]=kmod
	[debootstrap]=debootstrap
)

# Only the VM suite and the man-page checks use these.
TEST_ONLY=(qemu-system-x86 busybox-static cpio sparse check libsubunit-dev strace
	   python3-drgn groff-base man-db debootstrap)

log() { printf 'fetch-kernels: %s\n' "$*" >&2; }

apt_updated=
apt_update_once() {
	[ -n "$apt_updated" ] && return
	log "apt-get update"
	apt-get update -qq >&2
	apt_updated=1
}

install_deps() {
	local missing=() what
	for what in "${!NEED[@]}"; do
		# a real host needs no emulator, test root or test tools
		[ -n "${HOST:-}" ] && [[ " ${TEST_ONLY[*]} " == *" ${NEED[$what]} "* ]] && continue
		if [[ $what == /* ]]; then
			[ -e "$what" ] && continue
		else
			command -v "$what" >/dev/null 2>&1 && continue
		fi
		missing+=("${NEED[$what]}")
	done
	[ ${#missing[@]} -eq 0 ] && return
	[ "$(id -u)" -eq 0 ] || { log "missing packages (run as root): ${missing[*]}"; exit 1; }
	apt_update_once
	log "installing ${missing[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends "${missing[@]}" >&2
}

# The image package a metapackage currently points to, e.g.
# linux-image-amd64 -> linux-image-6.1.0-57-amd64.
resolve() {
	local meta=$1 dep
	dep=$(apt-cache depends "$meta" 2>/dev/null |
	      awk '/Depends: linux-image-[0-9]/ { print $2; exit }')
	if [ -z "$dep" ]; then
		apt_update_once
		dep=$(apt-cache depends "$meta" 2>/dev/null |
		      awk '/Depends: linux-image-[0-9]/ { print $2; exit }')
	fi
	[ -n "$dep" ] || { log "cannot resolve $meta"; exit 1; }
	echo "${dep#linux-image-}"
}

# 6.1 LTS is bookworm's default kernel; 6.12 LTS is bookworm's linux-6.12
# (the one linux-source-6.12 matches), reached through its own metapackage.
metapackage() {
	case $1 in
	6.1) echo linux-image-amd64 ;;
	6.12) echo linux-image-6.12-amd64 ;;
	*) log "unknown kernel series $1"; exit 1 ;;
	esac
}

fetch_one() {
	local series=$1 dir=$CACHE/kernels/$1 release abi kbuild pkgs tmp
	if [ -z "${REFRESH:-}" ] && [ -s "$dir/release" ] && [ -e "$dir/vmlinuz" ]; then
		log "$series: cached $(cat "$dir/release")"
		return
	fi
	release=$(resolve "$(metapackage "$series")")   # 6.1.0-57-amd64
	abi=${release%-amd64}                            # 6.1.0-57
	if [ -s "$dir/release" ] && [ "$(cat "$dir/release")" = "$release" ] &&
	   [ -e "$dir/vmlinuz" ]; then
		log "$series: $release is current"
		return
	fi
	kbuild=$(apt-cache depends "linux-headers-$release" |
		 awk '/Depends: linux-kbuild-/ { print $2; exit }')
	pkgs=("linux-image-$release-unsigned" "linux-headers-$release"
	      "linux-headers-$abi-common" "$kbuild")
	log "$series: downloading ${pkgs[*]}"
	tmp=$(mktemp -d "$CACHE/tmp.XXXXXX")
	(cd "$tmp" && apt-get download -qq "${pkgs[@]}" >&2)
	rm -rf "$dir.new"
	mkdir -p "$dir.new/root"
	for deb in "$tmp"/*.deb; do
		dpkg -x "$deb" "$dir.new/root"
	done
	rm -rf "$tmp"
	ln -s "root/boot/vmlinuz-$release" "$dir.new/vmlinuz"
	echo "$release" > "$dir.new/release"
	rm -rf "$dir"
	mv "$dir.new" "$dir"
	log "$series: $release ready in $dir"
}

install_deps
# HOST=1: a real host builds and installs kmem_ro for its running kernel
# (make host-deps): its headers and DKMS, and no test kernels.
if [ -n "${HOST:-}" ]; then
	pkgs=()
	[ -e "/lib/modules/$(uname -r)/build/Makefile" ] || pkgs+=("linux-headers-$(uname -r)")
	command -v dkms >/dev/null || pkgs+=(dkms)
	if [ ${#pkgs[@]} -gt 0 ]; then
		apt_update_once
		log "installing ${pkgs[*]}"
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			--no-install-recommends "${pkgs[@]}" >&2
	fi
	exit 0
fi
mkdir -p "$CACHE/kernels"
for s in $SERIES; do
	case $s in
	*-debug) "$(dirname "$0")/build-debug-kernel.sh" ;;	# built, not fetched
	*) fetch_one "$s" ;;
	esac
done
