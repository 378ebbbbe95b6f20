#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The Debian packages of `make deb` as a Debian user installs them, on
# bookworm and on trixie: apt-get install of kmem-ro-dkms, libkmemdev0,
# libkmemdev-dev, kmemctl and python3-kmemdev pulls dkms and the libraries
# from the mirror, DKMS builds kmem_ro.ko for the root's kernel, the group
# and the udev rule are there, the example of libkmemdev-dev builds with
# pkg-config, the Python module imports in the root's python3; then
# apt-get purge leaves nothing: no package in dpkg -l, no /usr/src tree,
# no module under /lib/modules, nothing in dkms status.
#
# Roots, never changed (an overlay over each, in a mount namespace of its
# own, thrown away at the end):
#   bookworm  the host's own / when the host is bookworm (this machine and
#             CI), else a minbase debootstrap kept in $BUILD/deb-roots
#   trixie    vmtest/build-root.sh's kbuild trixie root (gcc-14)
# Kernel: the cached test kernel of that suite, its headers bind-mounted
# read-only at their Debian paths and `uname -r` reporting it (a chroot
# shares the host's kernel): 6.12 (bookworm's) and 7.3 (trixie-backports',
# built with trixie's gcc-14).  Downloaded packages and apt lists are kept
# in $KMEM_RO_DEB_APT (default $KMEM_RO_CACHE/deb-apt), one per suite.
# Ends with a Check-style summary line.
#
#   tests/install/deb_roots.sh [SUITE...]    (make check-deb; default both)
#
# Needs root (mounts, chroot), the Debian mirror and the packages in
# $BUILD/deb (make deb).
set -uo pipefail
umask 022
top=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$top/build}
CACHE=${KMEM_RO_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kmem_ro}
APTCACHE=${KMEM_RO_DEB_APT:-$CACHE/deb-apt}
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
SECURITY=${DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
VERSION=$(cat "$top/VERSION")
PACKAGES=(kmem-ro-dkms libkmemdev0 libkmemdev-dev kmemctl python3-kmemdev)
declare -A KERNEL=([bookworm]=6.12 [trixie]=7.3)
pass=0 fail=0

say() { printf 'deb-roots: %s\n' "$*"; }

if [ -z "${KMEM_RO_DEB_ROOTS_NS:-}" ]; then
	[ "$(id -u)" -eq 0 ] || { say "needs root (mounts, chroot)" >&2; exit 1; }
	for p in "${PACKAGES[@]}"; do
		ls "$BUILD/deb/${p}_${VERSION}_"*.deb >/dev/null 2>&1 ||
			{ say "no $p package in $BUILD/deb: make deb" >&2; exit 1; }
	done
	"$top/vmtest/build-root.sh" kbuild trixie || exit 1
	KMEM_RO_DEB_ROOTS_NS=1 exec unshare --mount --propagation private -- "$0" "$@"
fi

check() {	# name command...: counts, prints the output of a failure
	local name=$1 out t0=$SECONDS
	shift
	if out=$("$@" 2>&1); then
		pass=$((pass + 1))
		say "ok: $suite: $name ($((SECONDS - t0)) s)"
		# shellcheck disable=SC2001	# indent every line
		[ -z "${VERBOSE:-}" ] || sed 's/^/    /' <<<"$out"
	else
		fail=$((fail + 1))
		say "FAILED: $suite: $name"
		tail -n 40 <<<"$out" | sed 's/^/    /'
		return 1
	fi
}

in_root() {
	env -i PATH=/usr/local/bin:/usr/bin:/usr/sbin:/bin:/sbin HOME=/root LC_ALL=C.UTF-8 \
		DEBIAN_FRONTEND=noninteractive chroot "$r" "$@" </dev/null
}

# The lower tree of SUITE's root.
base_root() {
	local suite=$1 b
	case $suite in
	trixie)	(cd "$CACHE/kbuild-root/trixie/root" && pwd -P) ;;
	bookworm)
		if grep -qx 'VERSION_CODENAME=bookworm' /etc/os-release; then
			echo /
			return
		fi
		b=$BUILD/deb-roots/bookworm-base
		if [ ! -e "$b/stamp" ]; then
			rm -rf "$b"
			debootstrap --variant=minbase bookworm "$b" "$MIRROR" >&2 || return 1
			touch "$b/stamp"
		fi
		echo "$b" ;;
	esac
}

# The kernel's headers, kbuild and module lists, as linux-headers-RELEASE
# lays them out, from the cached kernel (read-only).
add_kernel() {
	local kroot=$1 rel=$2 d m
	for d in "$kroot"/usr/src/* "$kroot"/usr/lib/linux-kbuild-*; do
		[ -d "$d" ] || continue
		m=$r${d#"$kroot"}
		mkdir -p "$m" && mount --bind -o ro "$d" "$m" || return 1
	done
	for m in "$kroot"/lib/modules/"$rel" "$kroot"/usr/lib/modules/"$rel"; do
		[ -d "$m" ] && break
	done
	mkdir -p "$r/lib/modules/$rel"
	cp "$m"/modules.builtin "$m"/modules.builtin.modinfo "$m"/modules.order "$r/lib/modules/$rel/"
	ln -sfn "/usr/src/linux-headers-$rel" "$r/lib/modules/$rel/build"
	# linux-image's postinst runs depmod; DKMS 3.2 installs into a kernel
	# only when it finds that index ("Skipping depmod because
	# .../modules.dep is missing").  The whole index is made again by
	# the DKMS install's depmod.
	: >"$r/lib/modules/$rel/modules.dep"
	# A host running that kernel.
	mkdir -p "$r/usr/local/bin"
	# shellcheck disable=SC2016	# the wrapper's own variables
	printf '#!/bin/sh\n[ "$*" = -r ] && exec echo %s\nexec /usr/bin/uname "$@"\n' "$rel" \
		>"$r/usr/local/bin/uname"
	chmod 755 "$r/usr/local/bin/uname"
}

# Every kmem_ro module in the root, relative to it.
modules() { (cd "$r" && find lib/modules -name 'kmem_ro.ko*' 2>/dev/null); }

t_install() {
	local debs=() p
	in_root apt-get update -q || return 1
	for p in "${PACKAGES[@]}"; do
		debs+=("/debs/$(basename "$(ls "$BUILD/deb/${p}_${VERSION}_"*.deb)")")
	done
	in_root apt-get install -y --no-install-recommends "${debs[@]}" || return 1
}

# dpkg's status of a package in the root ("ii ", "un ", nothing).
pkg_status() {
	# shellcheck disable=SC2016	# dpkg-query's own format
	in_root dpkg-query -W -f '${db:Status-Abbrev}' "$1"
}

t_dpkg() {
	local p bad=0
	for p in "${PACKAGES[@]}"; do
		[ "$(pkg_status "$p")" = "ii " ] || { echo "$p: $(pkg_status "$p" 2>&1)"; bad=1; }
	done
	return $bad
}

t_status() {
	local s
	s=$(in_root dkms status -k "$rel" "kmem_ro/$VERSION") || return 1
	echo "$s"
	grep -q "^kmem_ro/$VERSION, $rel, x86_64: installed" <<<"$s"
}

t_module() {
	local ko v
	modules
	ko=/$(modules | grep "^lib/modules/$rel/")
	# One, for this kernel alone, found by depmod's index.
	[ "$(modules | wc -l)" = 1 ] && [ "$ko" != / ] || return 1
	[ "$(in_root modinfo -k "$rel" -F filename kmem_ro)" = "$ko" ] ||
		{ echo "modinfo -k $rel kmem_ro: $(in_root modinfo -k "$rel" -F filename kmem_ro 2>&1)"; return 1; }
	v=$(in_root modinfo -F vermagic "$ko") || return 1
	echo "vermagic $v"
	[ "${v%% *}" = "$rel" ]
}

t_group_udev() {
	in_root getent group kmem_ro || { echo "no kmem_ro group"; return 1; }
	grep -q 'GROUP="kmem_ro"' "$r/usr/lib/udev/rules.d/60-kmem_ro.rules"
}

# Shared only: trixie's libelf.a wants libeu's eu_search_tree_init, which
# neither libelf.pc nor libbpf.pc names (elfutils 0.192), so no static
# libbpf program links there; install_test.sh links the static one on the
# host.
t_dev() {
	# What a developer has, besides libkmemdev-dev's own dependencies.
	in_root apt-get install -y --no-install-recommends gcc libc6-dev make pkg-config ||
		return 1
	# shellcheck disable=SC2016	# the root's shell expands it
	in_root sh -ec 'cp -r /usr/share/doc/libkmemdev-dev/examples /tmp/ex
		make -s -C /tmp/ex all
		/tmp/ex/banner kcore || [ $? = 1 ]
		ls /usr/lib/x86_64-linux-gnu/kmemdev/libkmemdev-kcore.so
		kmemctl --version
		bash -n /usr/share/bash-completion/completions/kmemctl'
}

# python3-kmemdev's extension (the stable ABI of 3.11) loads in the root's
# own python3 (bookworm's 3.11, trixie's 3.13) against libkmemdev0.
t_python() {
	in_root python3 -c 'import sys, kmemdev
print(sys.version.split()[0], kmemdev.library_version())
assert kmemdev.library_version() == sys.argv[1]' "$VERSION"
}

# The library and kmemctl from source with -Werror against the root's own
# glibc and headers (trixie's glibc 2.41 once broke the kcore preload's
# build), with the build packages libkmemdev-dev and t_dev pulled in.
t_source() {
	mkdir -p "$r/src/kmem_ro"
	(cd "$top" && git ls-files -z -co --exclude-standard |
		xargs -0 tar -c --no-recursion --ignore-failed-read) |
		tar -C "$r/src/kmem_ro" -x || return 1
	in_root make -s -C /src/kmem_ro -j"$(nproc)" lib tools KMEMDEV_EVENTS=y
}

t_purge() {
	local p left
	in_root apt-get purge -y "${PACKAGES[@]}" || return 1
	for p in "${PACKAGES[@]}"; do
		left=$(pkg_status "$p" 2>/dev/null)
		[ -z "$left" ] || [ "$left" = "un " ] || { echo "dpkg -l: $p $left"; return 1; }
	done
	[ -z "$(modules)" ] || { echo "left: $(modules)"; return 1; }
	! ls -d "$r"/usr/src/kmem_ro* "$r"/var/lib/dkms/kmem_ro 2>/dev/null || return 1
	! in_root dkms status | grep kmem_ro || return 1
}

run_suite() {
	local suite=$1 lower kroot tmp
	kroot=$CACHE/kernels/${KERNEL[$suite]}/root
	rel=$(cat "$CACHE/kernels/${KERNEL[$suite]}/release") || return 1
	say "$suite: kernel $rel"
	lower=$(base_root "$suite") || { fail=$((fail + 1)); say "FAILED: $suite: root"; return 1; }
	mkdir -p "$BUILD/deb-roots" "$APTCACHE/$suite/archives/partial" "$APTCACHE/$suite/lists/partial"
	tmp=$(mktemp -d "$BUILD/deb-roots/$suite.XXXXXX")
	r=$tmp/merged
	# The writable layer on a tmpfs: an overlay's upper directory may not
	# lie inside its lower one (the host's /).
	# shellcheck disable=SC2015	# any failure: the same message
	mount -t tmpfs -o size=4g tmpfs "$tmp" &&
		mkdir -p "$tmp/upper" "$tmp/work" "$r" &&
		mount -t overlay overlay -o "lowerdir=$lower,upperdir=$tmp/upper,workdir=$tmp/work" "$r" &&
		mount -t proc proc "$r/proc" && mount --bind /dev "$r/dev" &&
		mount -t tmpfs tmpfs "$r/tmp" && mount -t tmpfs tmpfs "$r/run" &&
		mkdir -p "$r/debs" && mount --bind -o ro "$BUILD/deb" "$r/debs" &&
		mount --bind "$APTCACHE/$suite/archives" "$r/var/cache/apt/archives" &&
		mount --bind "$APTCACHE/$suite/lists" "$r/var/lib/apt/lists" &&
		add_kernel "$kroot" "$rel" || { fail=$((fail + 1)); say "FAILED: $suite: mounts"; return 1; }
	cp /etc/resolv.conf "$r/etc/resolv.conf"
	# No man-db index rebuild on every dpkg run (it took most of a purge).
	rm -f "$r/var/lib/man-db/auto-update"
	rm -f "$r"/etc/apt/sources.list.d/*
	cat >"$r/etc/apt/sources.list" <<-EOF
	deb $MIRROR $suite main
	deb $MIRROR $suite-updates main
	deb $SECURITY $suite-security main
	EOF
	if check "apt-get install ${PACKAGES[*]}" t_install; then
		check "dpkg -l: every package installed" t_dpkg
		check "dkms status: kmem_ro/$VERSION installed for $rel" t_status
		check "one kmem_ro.ko for $rel, in depmod's index, vermagic $rel" t_module
		check "group kmem_ro and the udev rule" t_group_udev
		check "libkmemdev-dev's example builds with pkg-config and runs; kmemctl runs" t_dev
		check "python3-kmemdev imports in the root's python3" t_python
		[ "$suite" = bookworm ] || check "make lib tools from source, -Werror" t_source
		check "apt-get purge: nothing left (dpkg -l, /usr/src, /lib/modules, dkms)" t_purge
	fi
	umount -R "$r"
	umount "$tmp" && rmdir "$tmp"
}

start=$(date +%s)
for suite in "${@:-bookworm trixie}"; do
	# shellcheck disable=SC2086	# the default list splits
	for s in $suite; do
		run_suite "$s"
	done
done
say "$(( $(date +%s) - start ))s"
echo "deb-roots: $(( 100 * pass / (pass + fail) ))%: Checks: $((pass + fail)), Failures: $fail, Errors: 0"
[ $fail -eq 0 ]
