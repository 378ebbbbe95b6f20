#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Debian's crash, unmodified, as a member of the device's group under the
# kcore preload against root's crash on /proc/kcore, in the test VM of one
# kernel (tests/vm/crash_test.c, group file tests/vm/crash.groups):
#
#   tests/vm/crash.sh 6.12          (make check-crash KERNEL=6.12)
#
# Not part of make check: it needs the kernel's DWARF vmlinux, from the
# linux-image-RELEASE-dbg package (about 1 GB), and four crash sessions
# take minutes under TCG.  Everything comes from Debian packages, fetched
# once into $BUILD/crash/ with apt-get download (the machine's apt for
# bookworm's kernels, the private configuration vmtest/fetch-kernels.sh
# keeps in $KMEM_RO_CACHE/apt for trixie's):
#  - the -dbg package's vmlinux, given a .gdb_index (gdb-add-index) so
#    that crash's gdb does not scan all of its DWARF at start-up;
#  - crash of CRASH_SUITE and the libraries it and the preload need, of
#    that suite, in an extra initramfs archive (run.sh's VM_EXTRA_CPIO).
#    Default trixie (8.0.6; bookworm's 8.0.2 cannot start on Debian's
#    6.1), or sid (9.0.2).  On 7.3 neither starts, even as root on plain
#    kcore (docs/crash.md).  trixie's tree lies over the guest's own
#    (bookworm's) libraries and crash is /usr/bin/crash; sid's needs
#    glibc 2.42, newer than anything else in the guest was built for, so
#    it stays a private tree, /crash/root, and crash_test.c starts crash
#    through that tree's ld.so (ld-linux-x86-64.so.2 --library-path).
# The run is recorded in tests/vm/crash-results.txt (tests/vm/record.sh:
# date, commit, driver, kernel, result, tasks, seconds).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-$top/build}
CACHE=${KMEM_RO_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kmem_ro}
KERNEL=${1:?usage: tests/vm/crash.sh KERNEL (6.1, 6.12, 7.3)}
SUITE=${CRASH_SUITE:-trixie}
# crash's NEEDED libraries and the preload's (libbpf, libelf, zlib)
LIBS="libc6 libgcc-s1 libstdc++6 libncursesw6 libtinfo6 liblzo2-2 libsnappy1v5
      libzstd1 libbpf1 libelf1t64 zlib1g"
# where SUITE's tree goes in the guest (see above); 9.0's gdb 16 also
# needs gmp and mpfr
case $SUITE in
sid) root=/crash/root LIBS="$LIBS libgmp10 libmpfr6" ;;
*) root=/ ;;
esac
work=$BUILD/crash
log() { printf 'crash: %s\n' "$*" >&2; }

release=$(cat "$CACHE/kernels/$KERNEL/release") ||
	{ log "no cached kernel $KERNEL: make vm-kernel KERNEL=$KERNEL"; exit 1; }
mkdir -p "$work/debs"

# apt-get for bookworm (the machine's) or, with the private configuration
# of vmtest/fetch-kernels.sh, for trixie and its backports.
apt_get() {
	local suite=$1
	shift
	if [ "$suite" = bookworm ]; then
		apt-get "$@"
	else
		apt-get -o Dir::Etc::SourceList=/dev/null \
			-o Dir::Etc::SourceParts="$CACHE/apt/sources.list.d" \
			-o Dir::Etc::Preferences=/dev/null \
			-o Dir::Etc::PreferencesParts="$CACHE/apt/preferences.d" \
			-o Dir::State::Lists="$CACHE/apt/lists" -o Dir::Cache="$CACHE/apt/cache" \
			-o Dir::State::status=/dev/null -o APT::Architecture=amd64 \
			-o APT::Sandbox::User=root "$@"
	fi
}

# The kernel's vmlinux with DWARF, indexed for gdb.
vmlinux=$work/vmlinux-$release
if [ ! -s "$vmlinux" ]; then
	pkg=linux-image-$release-dbg
	case $KERNEL in 6.1|6.12) ksuite=bookworm ;; *) ksuite=trixie ;; esac
	if ! ls "$work/debs/${pkg}_"*.deb >/dev/null 2>&1; then
		log "downloading $pkg"
		start=$(date +%s)
		(cd "$work/debs" && apt_get "$ksuite" download -qq "$pkg")
		log "$pkg: $(du -m "$work/debs/${pkg}_"*.deb | cut -f1) MB in $(( $(date +%s) - start )) s"
	fi
	log "extracting vmlinux-$release"
	# 6.x: the file, first in the archive (stop reading there); 7.x:
	# boot/ holds a link to it, last
	case $KERNEL in
	6.*) member=./usr/lib/debug/boot/vmlinux-$release ;;
	*) member=./usr/lib/debug/lib/modules/$release/vmlinux ;;
	esac
	dpkg-deb --fsys-tarfile "$work/debs/${pkg}_"*.deb 2>/dev/null |
		tar -x -O --occurrence=1 "$member" > "$vmlinux.tmp" || true
	[ -s "$vmlinux.tmp" ] || { log "no vmlinux-$release in $pkg"; exit 1; }
	gdb-add-index "$vmlinux.tmp" >&2
	mv "$vmlinux.tmp" "$vmlinux"
fi

# crash and the libraries, of SUITE, unpacked as the guest will see them.
guest=$work/guest-$SUITE
if [ ! -x "$guest/usr/bin/crash" ]; then
	rm -rf "$guest.tmp"
	mkdir -p "$guest.tmp" "$work/debs/$SUITE"
	pkgs=(crash)
	for p in $LIBS; do pkgs+=("$p"); done
	log "downloading crash and its libraries from $SUITE"
	(cd "$work/debs/$SUITE" && apt_get "$SUITE" download -qq "${pkgs[@]/%//$SUITE}")
	for d in "$work/debs/$SUITE"/*.deb; do dpkg -x "$d" "$guest.tmp"; done
	rm -rf "$guest"
	mv "$guest.tmp" "$guest"
fi
log "$("$guest/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2" \
	--library-path "$guest/usr/lib/x86_64-linux-gnu" "$guest/usr/bin/crash" --version |
	sed -n '/^crash /{p;q}')"

# The extra archive: SUITE's tree, the preload, the vmlinux.
make -s -C "$top" preload vm-binaries test-modules KERNELS="$KERNEL" >&2
stage=$work/extra-$KERNEL
rm -rf "$stage"
mkdir -p "$stage$root"
cp -a "$guest/." "$stage$root/"
if [ "$root" = / ]; then
	# the ELF interpreter where crash's PT_INTERP names it
	mkdir -p "$stage/lib64"
	ln -sf /usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 "$stage/lib64/"
fi
install -D -m 0755 "$top/preload/libkmemdev-kcore.so" \
	"$stage/usr/lib/x86_64-linux-gnu/kmemdev/libkmemdev-kcore.so"
mkdir -p "$stage/crash"
ln "$vmlinux" "$stage/crash/vmlinux" 2>/dev/null || cp "$vmlinux" "$stage/crash/vmlinux"
(cd "$stage" && find . | cpio -o -H newc -R 0:0 --quiet) > "$stage.cpio"
rm -rf "$stage"
[ -z "${CRASH_ARCHIVE_ONLY:-}" ] || { log "archive: $stage.cpio"; exit 0; }

# 3 GiB: the initramfs holds the vmlinux (~400 MB) while crash's gdb reads it.
VM_EXTRA_CPIO=$stage.cpio VM_MEM=${VM_MEM:-3072} VM_TIMEOUT=${VM_TIMEOUT:-3600} \
	VM_GROUPS_FILE=$here/crash.groups KERNELS=$KERNEL \
	VM_RESULTS="crash=$here/crash-results.txt" "$top/vmtest/run.sh"
