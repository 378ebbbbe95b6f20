#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make host-deps && make install` as the README tells a Debian 13 (trixie)
# host to run them, with DKMS building the module for trixie's own kernel.
# There is no trixie host here: a throwaway trixie root stands in for one,
# an overlay over scripts/build-kbuild-root.sh's (which stays untouched),
# in a mount namespace of its own.  Its apt sources are trixie's, -updates
# and -security; host-deps installs the build packages, dkms and the
# headers of the release trixie's linux-headers-amd64 names, which the
# root's `uname -r` reports (a wrapper in /usr/local/bin: a chroot shares
# the host's kernel).  Then: dkms status says installed for that release,
# the module lies under /lib/modules/RELEASE, depmod's index finds it, its
# vermagic is RELEASE, and `make uninstall` takes it away again.
# Downloaded packages and apt lists are kept in $KMEM_RO_CACHE/dkms-trixie.
# Ends with a Check-style summary line.
#
#   tests/install/dkms_trixie.sh        (make check-install-trixie)
#
# Needs root (mounts, chroot) and the Debian mirror.
set -uo pipefail
umask 022
top=$(cd "$(dirname "$0")/../.." && pwd)
CACHE=${KMEM_RO_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kmem_ro}
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
SECURITY=${DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
VERSION=$(cat "$top/VERSION")
apt=$CACHE/dkms-trixie
pass=0 fail=0

# In a mount namespace of its own: the overlay and its mounts go with it.
if [ -z "${KMEM_RO_DKMS_TRIXIE_NS:-}" ]; then
	[ "$(id -u)" -eq 0 ] || { echo "dkms-trixie: needs root (mounts, chroot)" >&2; exit 1; }
	# The root the 7.x modules are built in; made by make deps, else here.
	"$top/scripts/build-kbuild-root.sh" trixie || exit 1
	KMEM_RO_DKMS_TRIXIE_NS=1 exec unshare --mount --propagation private -- "$0" "$@"
fi
mkdir -p "$apt/archives/partial" "$apt/lists/partial"
# One run at a time: the apt cache is shared.
exec 8>"$apt.lock"
flock 8
# Held shared, as build-module.sh does: no rebuild of the root under us.
exec 9<>"$CACHE/kbuild-root/trixie.lock"
flock -s 9
lower=$(cd "$CACHE/kbuild-root/trixie/root" && pwd -P)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kmem_ro-dkms-trixie.XXXXXX")
r=$tmp/merged
# Never rm -rf through the overlay or the apt cache bound into it.
trap 'umount -R "$r" 2>/dev/null; mountpoint -q "$r" || rm -rf "$tmp"' EXIT

check() {	# name command...: counts, prints the output of a failure
	local name=$1 out
	shift
	if out=$("$@" 2>&1); then
		pass=$((pass + 1))
		echo "dkms-trixie: ok: $name"
		# shellcheck disable=SC2001	# indent every line
		[ -z "${VERBOSE:-}" ] || sed 's/^/    /' <<<"$out"
	else
		fail=$((fail + 1))
		echo "dkms-trixie: FAILED: $name"
		tail -n 40 <<<"$out" | sed 's/^/    /'
		return 1
	fi
}

summary() {
	echo "dkms-trixie: $(( 100 * pass / (pass + fail) ))%: Checks: $((pass + fail)), Failures: $fail, Errors: 0"
	[ $fail -eq 0 ]
}

in_root() {
	env -i PATH=/usr/local/bin:/usr/bin:/usr/sbin HOME=/root LC_ALL=C.UTF-8 \
		DEBIAN_FRONTEND=noninteractive chroot "$r" "$@" </dev/null
}

mkdir -p "$tmp/upper" "$tmp/work" "$r"
mount -t overlay overlay -o "lowerdir=$lower,upperdir=$tmp/upper,workdir=$tmp/work" "$r" &&
	mount -t proc proc "$r/proc" && mount --bind /dev "$r/dev" &&
	mount -t tmpfs tmpfs "$r/tmp" &&
	mount --bind "$apt/archives" "$r/var/cache/apt/archives" &&
	mount --bind "$apt/lists" "$r/var/lib/apt/lists" || exit 1
cp /etc/resolv.conf "$r/etc/resolv.conf"
cat >"$r/etc/apt/sources.list" <<EOF
deb $MIRROR trixie main
deb $MIRROR trixie-updates main
deb $SECURITY trixie-security main
EOF
# The tree as it is checked out, nothing built on this host.
mkdir -p "$r/src/kmem_ro"
(cd "$top" && git ls-files -z -co --exclude-standard |
	xargs -0 tar -c --no-recursion --ignore-failed-read) |
	tar -C "$r/src/kmem_ro" -x || exit 1

t_release() {
	local rel
	in_root apt-get update -q || return 1
	rel=$(in_root apt-cache depends linux-headers-amd64 |
	      sed -n 's/^ *Depends: linux-headers-\(.*-amd64\)$/\1/p' | head -n 1)
	[ -n "$rel" ] || { echo "linux-headers-amd64 names no headers"; return 1; }
	echo "linux-headers-amd64 -> $rel"
	# A trixie host running its own kernel.
	mkdir -p "$r/usr/local/bin"
	# shellcheck disable=SC2016	# the wrapper's own variables
	printf '#!/bin/sh\n[ "$*" = -r ] && exec echo %s\nexec /usr/bin/uname "$@"\n' "$rel" \
		>"$r/usr/local/bin/uname"
	chmod 755 "$r/usr/local/bin/uname"
	[ "$(in_root uname -r)" = "$rel" ]
}
check "apt-get update; the release linux-headers-amd64 names" t_release || { summary; exit; }
rel=$(in_root uname -r)
echo "dkms-trixie: kernel $rel"

check "make host-deps (build packages, dkms, linux-headers-$rel)" \
	in_root make -C /src/kmem_ro host-deps || { summary; exit; }
check "make install" in_root make -C /src/kmem_ro install || { summary; exit; }

t_status() {
	local s
	s=$(in_root dkms status -k "$rel" "kmem_ro/$VERSION") || return 1
	echo "$s"
	grep -q "^kmem_ro/$VERSION, $rel, x86_64: installed" <<<"$s"
}
check "dkms status: kmem_ro/$VERSION installed for $rel" t_status

# Every kmem_ro module in the root, relative to it.
modules() { (cd "$r" && find lib/modules -name 'kmem_ro.ko*'); }

t_module() {
	local ko
	modules
	ko=/$(modules | grep "^lib/modules/$rel/")
	# One, for this kernel alone (not the host's, not the root's own).
	[ "$(modules | wc -l)" = 1 ] && [ "$ko" != / ] || return 1
	# depmod ran: its index resolves the name to the same file.
	[ "$(in_root modinfo -k "$rel" -F filename kmem_ro)" = "$ko" ] ||
		{ echo "modinfo -k $rel kmem_ro: $(in_root modinfo -k "$rel" -F filename kmem_ro 2>&1)"; return 1; }
}
check "one kmem_ro.ko, under /lib/modules/$rel, in depmod's index" t_module
echo "dkms-trixie: module /$(modules)"

t_vermagic() {
	local v
	v=$(in_root modinfo -F vermagic "/$(modules | head -n 1)") || return 1
	echo "$v"
	[ "${v%% *}" = "$rel" ]
}
check "vermagic $rel" t_vermagic

t_uninstall() {
	in_root make -C /src/kmem_ro uninstall || return 1
	! in_root dkms status "kmem_ro/$VERSION" | grep . || return 1
	[ -z "$(modules)" ] || { echo "left: $(modules)"; return 1; }
}
check "make uninstall: dkms and the module gone" t_uninstall
summary
