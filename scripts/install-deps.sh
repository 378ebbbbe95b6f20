#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install the Debian packages one job of this tree needs, each only if the
# command or file that proves it is missing (a warm machine: nothing runs).
#
#   scripts/install-deps.sh build   what compiling the module, libkmemdev
#                                   and kmemctl needs (make build-deps,
#                                   before every compile)
#   scripts/install-deps.sh demo    that and what boots the demo VM (make
#                                   demo, make vm-shell)
#   scripts/install-deps.sh all     everything the checks and the VM suite
#                                   use (make deps)
#   scripts/install-deps.sh host    a real host: the build packages, the
#                                   running kernel's headers and DKMS (make
#                                   host-deps); no emulator, test root or
#                                   test tools
#
# The test kernels are vmtest/fetch-kernels.sh's job.
set -euo pipefail

DEPS=${1:-all}
case $DEPS in
build|demo|all|host) ;;
*) echo "usage: $0 [build|demo|all|host]" >&2; exit 2 ;;
esac

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
	# vmtest/run.sh's +virtio-mem: .ko.xz modules, the QMP helper
	[xz]=xz-utils
	[/usr/bin/python3]=python3
	# the Python binding (make python): headers, setuptools, wheel; its
	# tests run under pytest in the VM
	[/usr/bin/python3-config]=python3-dev
	[/usr/lib/python3/dist-packages/setuptools/__init__.py]=python3-setuptools
	[/usr/lib/python3/dist-packages/wheel/__init__.py]=python3-wheel
	[/usr/lib/python3/dist-packages/pytest/__init__.py]=python3-pytest
)

# Only the VM suite and the man-page checks use these.
TEST_ONLY=(qemu-system-x86 busybox-static cpio sparse check libsubunit-dev strace
	   python3-drgn groff-base man-db debootstrap gcc-multilib tmux abigail-tools
	   xz-utils python3 python3-pytest)
DEMO_ONLY=(qemu-system-x86 busybox-static cpio)

log() { printf 'install-deps: %s\n' "$*" >&2; }

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
		# only "all" wants the emulator (demo: the VM's), test roots, test tools
		if [ "$DEPS" != all ]; then
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

install_deps
# A real host builds and installs kmem_ro for its running kernel: its
# headers and DKMS.
if [ "$DEPS" = host ]; then
	pkgs=()
	[ -e "/lib/modules/$(uname -r)/build/Makefile" ] || pkgs+=("linux-headers-$(uname -r)")
	command -v dkms >/dev/null || pkgs+=(dkms)
	if [ ${#pkgs[@]} -gt 0 ]; then
		apt_update_once
		log "installing ${pkgs[*]}"
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			--no-install-recommends "${pkgs[@]}" >&2
	fi
fi
