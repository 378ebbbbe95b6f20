#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Fetch the Debian test kernels (image, headers, kbuild) into a cache outside
# the repository.  Nothing is installed as a kernel and the machine's apt
# sources are left alone.  The packages the build and the VM harness need
# are scripts/install-deps.sh's job (make deps runs both).
#
#   vmtest/fetch-kernels.sh                      # 6.1 6.12; warm cache: downloads nothing
#   KERNELS="6.1 6.12 7.3" vmtest/fetch-kernels.sh
#   REFRESH=1 vmtest/fetch-kernels.sh            # re-resolve the metapackages
#
# Each kernel ends up in $KMEM_RO_CACHE/kernels/<series>/ with:
#   root/      the dpkg -x tree (boot/vmlinuz-*, usr/src/linux-headers-*, ...)
#   release    the kernel release string, e.g. 6.1.0-57-amd64
#   vmlinuz    symlink to the image
#   kbuild-root, kbuild-deps  (Debian 13 and later) the suite whose root its
#              modules are built in, and that root's packages: see
#              vmtest/build-root.sh and vmtest/build-module.sh
#   check-root the suite whose root its sparse passes (C=1, C=2) run in
#   root/.../modules/<release>/kernel/drivers/virtio/  the modules a VM group
#              loads from Debian's own build (virtio_mem: +virtio-mem in
#              vmtest/run.sh); 7.x: from linux-modules-<release>, this
#              folder alone
#
# Series: 6.1 and 6.12 from bookworm (the machine's own apt sources), 7.3
# (trixie-backports' newest kernel, the one its linux-image-amd64 names)
# and sid (sid's linux-image-amd64, for a build-only check) through a
# private apt configuration in $KMEM_RO_CACHE/apt.
set -euo pipefail

CACHE=${KMEM_RO_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kmem_ro}
SERIES=${KERNELS:-"6.1 6.12"}

log() { printf 'fetch-kernels: %s\n' "$*" >&2; }

# Newer suites through apt options alone: the machine's sources, lists and
# preferences stay untouched, and nothing here is ever installed.
APTDIR=$CACHE/apt
APT13=(-o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts="$APTDIR/sources.list.d"
       -o Dir::Etc::Preferences=/dev/null -o Dir::Etc::PreferencesParts="$APTDIR/preferences.d"
       -o Dir::State::Lists="$APTDIR/lists" -o Dir::Cache="$APTDIR/cache"
       -o Dir::State::status=/dev/null -o APT::Architecture=amd64
       -o APT::Sandbox::User=root)
# apt-get update for a series, once per run and configuration: the
# machine's for bookworm's kernels, the private one for the rest.
declare -A apt_updated=()
apt_update_once() {
	local series=$1 conf=private
	case $series in
	6.1|6.12) conf=machine ;;
	esac
	[ -n "${apt_updated[$conf]:-}" ] && return
	if [ "$conf" = machine ]; then
		log "apt-get update"
		apt-get update -qq >&2
		apt_updated[$conf]=1
		return
	fi
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
	apt_updated[$conf]=1
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
		apt_update_once "$series"
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
		apt_update_once "$series"
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

# The kernel's own modules a VM group loads (virtio_mem and what it needs,
# vmtest/run.sh's +virtio-mem).  Bookworm's image packages carry every
# module; 7.x's carry none, and linux-modules-<release> (100 MB) carries
# them all: only drivers/virtio/ is kept.  sid is only built against.
fetch_modules() {
	local series=$1 dir=$CACHE/kernels/$1 release tmp d
	[[ $series == [0-9]* ]] || return 0
	release=$(cat "$dir/release")
	for d in "$dir"/root/{usr/,}lib/modules/"$release"/kernel/drivers/virtio; do
		[ -d "$d" ] && return
	done
	log "$series: downloading linux-modules-$release (drivers/virtio/ is kept)"
	tmp=$(mktemp -d "$CACHE/tmp.XXXXXX")
	(cd "$tmp" && apt_for apt-get "$series" download -qq "linux-modules-$release" >&2) || {
		apt_update_once "$series"
		(cd "$tmp" && apt_for apt-get "$series" download -qq "linux-modules-$release" >&2)
	}
	dpkg-deb --fsys-tarfile "$tmp"/linux-modules-*.deb |
		tar -C "$dir/root" -x --wildcards "./usr/lib/modules/$release/kernel/drivers/virtio/*"
	rm -rf "$tmp"
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
	*) apt_update_once "$series"; pkg=$pkg/trixie-backports ;;
	esac
	(cd "$work" && apt_for apt-get "$series" download -qq "$pkg" >&2) || {
		apt_update_once "$series"
		(cd "$work" && apt_for apt-get "$series" download -qq "$pkg" >&2)
	}
}

[ -n "$SERIES" ] || exit 0
mkdir -p "$CACHE/kernels"
for s in $SERIES; do
	case $s in
	*-debug) fetch_source "${s%-debug}"
		 "$(dirname "$0")/build-debug-kernel.sh" "${s%-debug}" ;;
	*) fetch_one "$s"; checker_valid "$s"; fetch_modules "$s" ;;
	esac
done
# shellcheck disable=SC2086 # one series a word
kbuild_roots $SERIES
