#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Fetch the Debian test kernels (image, headers, kbuild) into a cache outside
# the repository, and install the Debian packages the build and the VM
# harness need.  Nothing is installed as a kernel and the machine's apt
# sources are left alone.
#
#   vmtest/fetch-kernels.sh            # warm cache: downloads nothing
#   REFRESH=1 vmtest/fetch-kernels.sh  # re-resolve the metapackages
#
# Each kernel ends up in $KMEM_RO_CACHE/kernels/<series>/ with:
#   root/      the dpkg -x tree (boot/vmlinuz-*, usr/src/linux-headers-*, ...)
#   release    the kernel release string, e.g. 6.1.0-57-amd64
#   vmlinuz    symlink to the image
#   kbuild-root, kbuild-deps  (Debian 13 and later) the suite whose root its
#              modules are built in, and that root's packages: see
#              vmtest/build-root.sh and vmtest/build-module.sh
#   check-root the suite whose root its sparse passes (C=1, C=2) run in
#
# Series: 6.1 and 6.12 from bookworm (the machine's own apt sources), 7.3
# (trixie-backports' newest kernel, the one its linux-image-amd64 names)
# and sid (sid's linux-image-amd64, for a build-only check) through a
# private apt configuration in $KMEM_RO_CACHE/apt.
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
	[/usr/lib32/libc.a]=gcc-multilib
	[abidiff]=abigail-tools
	[tmux]=tmux
)

# Only the VM suite and the man-page checks use these.
TEST_ONLY=(qemu-system-x86 busybox-static cpio sparse check libsubunit-dev strace
	   python3-drgn groff-base man-db debootstrap gcc-multilib tmux abigail-tools)
# DEPS=build: only what compiling the module, libkmemdev and kmemctl needs
# (make build-deps, before every compile), no kernel unless KERNELS names
# one; DEPS=demo: that and what boots the demo VM (make demo, vm-shell).
DEPS=${DEPS:-all}
DEMO_ONLY=(qemu-system-x86 busybox-static cpio)
[ "$DEPS" = all ] || SERIES=${KERNELS:-}

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
		if [ -n "${HOST:-}" ] || [ "$DEPS" != all ]; then
			if [[ " ${TEST_ONLY[*]} " == *" ${NEED[$what]} "* ]] &&
			   ! { [ "$DEPS" = demo ] && [[ " ${DEMO_ONLY[*]} " == *" ${NEED[$what]} "* ]]; }; then
				continue
			fi
		fi
		if [[ $what == /* ]]; then
			[ -e "$what" ] && continue
		else
			command -v "$what" >/dev/null 2>&1 && continue
		fi
		missing+=("${NEED[$what]}")
	done
	[ ${#missing[@]} -eq 0 ] && return
	if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null; then
		log "missing packages (run as root on Debian): ${missing[*]}"
		# A build as a user, or on another distribution, goes on: the
		# compiler names what is really missing.
		[ "$DEPS" = build ] && return
		exit 1
	fi
	apt_update_once
	log "installing ${missing[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends "${missing[@]}" >&2
}

# Newer suites through apt options alone: the machine's sources, lists and
# preferences stay untouched, and nothing here is ever installed.
APTDIR=$CACHE/apt
APT13=(-o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts="$APTDIR/sources.list.d"
       -o Dir::Etc::Preferences=/dev/null -o Dir::Etc::PreferencesParts="$APTDIR/preferences.d"
       -o Dir::State::Lists="$APTDIR/lists" -o Dir::Cache="$APTDIR/cache"
       -o Dir::State::status=/dev/null -o APT::Architecture=amd64
       -o APT::Sandbox::User=root)
apt13_updated=
apt13_update_once() {
	[ -n "$apt13_updated" ] && return
	mkdir -p "$APTDIR/sources.list.d" "$APTDIR/preferences.d" \
		 "$APTDIR/lists/partial" "$APTDIR/cache/archives/partial"
	cat >"$APTDIR/sources.list.d/debian.sources" <<-EOF
	Types: deb
	URIs: ${DEBIAN_MIRROR:-http://deb.debian.org/debian}
	Suites: trixie trixie-backports sid
	Components: main
	Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
	EOF
	log "apt-get update (trixie, trixie-backports, sid)"
	apt-get "${APT13[@]}" update -qq >&2
	apt13_updated=1
}

# apt-get/apt-cache for a series: the machine's for bookworm's kernels.
apt_for() {
	local tool=$1 series=$2
	shift 2
	case $series in
	6.1|6.12) "$tool" "$@" ;;
	*) "$tool" "${APT13[@]}" "$@" ;;
	esac
}

# The image package a metapackage currently points to, e.g.
# linux-image-amd64 -> linux-image-6.1.0-57-amd64.
resolve() {
	local series=$1 meta=$2 dep
	dep=$(apt_for apt-cache "$series" depends "$meta" 2>/dev/null |
	      awk '/Depends: linux-image-[0-9]/ { print $2; exit }')
	if [ -z "$dep" ]; then
		case $series in
		6.1|6.12) apt_update_once ;;
		*) apt13_update_once ;;
		esac
		dep=$(apt_for apt-cache "$series" depends "$meta" 2>/dev/null |
		      awk '/Depends: linux-image-[0-9]/ { print $2; exit }')
	fi
	[ -n "$dep" ] || { log "cannot resolve $meta"; exit 1; }
	echo "${dep#linux-image-}"
}

# 6.1 LTS is bookworm's default kernel; 6.12 LTS is bookworm's linux-6.12
# (the one linux-source-6.12 matches), reached through its own metapackage.
# 7.3 and sid: the amd64 metapackage of trixie-backports and of sid.
metapackage() {
	case $1 in
	6.1) echo linux-image-amd64 ;;
	6.12) echo linux-image-6.12-amd64 ;;
	7.3) echo linux-image-amd64/trixie-backports ;;
	sid) echo linux-image-amd64/sid ;;
	*) log "unknown kernel series $1"; exit 1 ;;
	esac
}

# The Debian suite whose toolchain builds modules for a series (its
# headers name gcc-N-for-host and pahole of that suite); none: the host's.
kbuild_suite() {
	case $1 in
	7.3) echo trixie ;;
	sid) echo sid ;;
	esac
}

# The suite whose sparse its headers accept: 7.x's Makefile wants one that
# parses __typeof_unqual__, which trixie's 0.6.4 does not and sid's
# 0.6.5~rc1 does.  That root gets the kernel's own compiler too (Kbuild
# compiles each file before checking it).
check_suite() {
	case $1 in
	7.3|sid) echo sid ;;
	esac
}

# The build and sparse roots of the given series, each made or completed
# once with what all their headers need.
kbuild_roots() {
	local s dir suite
	local -A need=()
	for s in "$@"; do
		dir=$CACHE/kernels/$s
		[ -s "$dir/kbuild-root" ] || continue
		while read -r suite; do
			need[$suite]+=" $(cat "$dir/kbuild-deps")"
		done < <(cat "$dir/kbuild-root" "$dir/check-root" 2>/dev/null)
	done
	for suite in "${!need[@]}"; do
		# shellcheck disable=SC2086 # one package a word
		"$(dirname "$0")/build-root.sh" kbuild "$suite" ${need[$suite]}
	done
}

# Debian's linux-kbuild-7.x lacks scripts/checker-valid.sh, which the
# Makefile runs before sparse: put the stand-in where it looks.
checker_valid() {
	local mk f src
	src=$(dirname "$0")/kbuild-checker-valid.sh
	mk=$(ls "$CACHE/kernels/$1"/root/usr/src/linux-headers-*-common/Makefile 2>/dev/null) ||
		return 0
	grep -q 'scripts/checker-valid\.sh' "$mk" || return 0
	f=$(dirname "$mk")/scripts/checker-valid.sh
	# Debian's own, once the package ships one, wins.
	[ -e "$f" ] && ! grep -q 'Stand-in for the kernel' "$f" && return 0
	cmp -s "$src" "$f" || install -m 0755 "$src" "$f"
}

fetch_one() {
	local series=$1 dir=$CACHE/kernels/$1 release abi kbuild pkgs tmp
	if [ -z "${REFRESH:-}" ] && [ -s "$dir/release" ] && [ -e "$dir/vmlinuz" ]; then
		log "$series: cached $(cat "$dir/release")"
		return
	fi
	[ -n "${REFRESH:-}" ] && [ "$series" != 6.1 ] && [ "$series" != 6.12 ] &&
		apt13_update_once
	release=$(resolve "$series" "$(metapackage "$series")")   # 6.1.0-57-amd64
	abi=${release%-amd64}                            # 6.1.0-57
	# The series keeps its name when its suite moves on to a newer kernel.
	[[ $series != [0-9]* || $release == "$series".* ]] ||
		log "$series: note: the archive now offers $release"
	if [ -s "$dir/release" ] && [ "$(cat "$dir/release")" = "$release" ] &&
	   [ -e "$dir/vmlinuz" ]; then
		log "$series: $release is current"
		return
	fi
	kbuild=$(apt_for apt-cache "$series" depends "linux-headers-$release" |
		 awk '/Depends: linux-kbuild-/ { print $2; exit }')
	# 7.x splits the image: linux-image-<release> is a metapackage, the
	# kernel is linux-binary-<release> (usr/lib/modules/<release>/vmlinuz,
	# System.map and config in linux-base-<release>), and no -unsigned
	# package exists.  Debian's modules (linux-modules-*) are not needed.
	if grep -q "Depends: linux-binary-$release\$" \
	   <<<"$(apt_for apt-cache "$series" depends "linux-image-$release")"; then
		pkgs=("linux-binary-$release" "linux-base-$release")
	else
		pkgs=("linux-image-$release-unsigned")
	fi
	pkgs+=("linux-headers-$release" "linux-headers-$abi-common" "$kbuild")
	log "$series: downloading ${pkgs[*]}"
	tmp=$(mktemp -d "$CACHE/tmp.XXXXXX")
	(cd "$tmp" && apt_for apt-get "$series" download -qq "${pkgs[@]}" >&2)
	rm -rf "$dir.new"
	mkdir -p "$dir.new/root"
	for deb in "$tmp"/*.deb; do
		dpkg -x "$deb" "$dir.new/root"
	done
	rm -rf "$tmp"
	for image in "boot/vmlinuz-$release" "usr/lib/modules/$release/vmlinuz" ""; do
		[ -n "$image" ] || { log "$series: no kernel image in ${pkgs[0]}"; exit 1; }
		[ -f "$dir.new/root/$image" ] && break
	done
	ln -s "root/$image" "$dir.new/vmlinuz"
	echo "$release" > "$dir.new/release"
	# Built in a root of the kernel's own suite: what its headers and
	# kbuild depend on, less the kernel's own packages.
	if [ -n "$(kbuild_suite "$series")" ]; then
		kbuild_suite "$series" > "$dir.new/kbuild-root"
		check_suite "$series" > "$dir.new/check-root"
		apt_for apt-cache "$series" depends "linux-headers-$release" "$kbuild" |
			awk '/^ *Depends: [^<]/ && $2 !~ /^linux-/ { print $2 }' | sort -u |
			tr '\n' ' ' > "$dir.new/kbuild-deps"
	fi
	rm -rf "$dir"
	mv "$dir.new" "$dir"
	log "$series: $release ready in $dir"
}

# The debug kernels are built from linux-source-<series> of the series'
# own suite (vmtest/build-debug-kernel.sh).
fetch_source() {
	local series=$1 work=$CACHE/debug-build pkg
	pkg=linux-source-$series
	ls "$work/$pkg"_*.deb >/dev/null 2>&1 && return
	mkdir -p "$work"
	log "$series: downloading $pkg"
	case $series in
	6.1|6.12) ;;
	*) apt13_update_once; pkg=$pkg/trixie-backports ;;
	esac
	(cd "$work" && apt_for apt-get "$series" download -qq "$pkg" >&2) || {
		[ "$series" = 6.1 ] || [ "$series" = 6.12 ] && apt_update_once
		(cd "$work" && apt_for apt-get "$series" download -qq "$pkg" >&2)
	}
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
[ -n "$SERIES" ] || exit 0
mkdir -p "$CACHE/kernels"
for s in $SERIES; do
	case $s in
	*-debug) fetch_source "${s%-debug}"
		 "$(dirname "$0")/build-debug-kernel.sh" "${s%-debug}" ;;
	*) fetch_one "$s"; checker_valid "$s" ;;
	esac
done
# shellcheck disable=SC2086 # one series a word
kbuild_roots $SERIES
