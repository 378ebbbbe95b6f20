#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make install` / `make uninstall` as a distribution packager runs them,
# into a staging directory (DESTDIR): the file list and modes, the shared
# library's exports, an outside program built with nothing but pkg-config
# (shared and static), man pages that are clean and match `kmemctl --help`
# and the exported symbols, a DKMS source tree that builds a module against
# the cached 6.12 test kernel, and an uninstall that leaves nothing behind.
# Part of `make check-unit`; ends with a Check-style summary line.
#
#   tests/install/install_test.sh
set -uo pipefail
umask 022
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kmem_ro-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
stage=$tmp/stage
CACHE=${KMEM_RO_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kmem_ro}
VERSION=$(cat "$top/VERSION")
MAJOR=${VERSION%%.*}
# Where the Makefile puts them: what pkg-config says, else the usual path.
udevdir=$(pkg-config --variable=udevdir udev 2>/dev/null) || udevdir=
udevdir=${udevdir:-/usr/lib/udev}
sysusersdir=$(pkg-config --variable=sysusersdir systemd 2>/dev/null) || sysusersdir=
sysusersdir=${sysusersdir:-/usr/lib/sysusers.d}
src=usr/src/kmem_ro-$VERSION
man=$stage/usr/share/man
pass=0 fail=0

# check NAME FUNCTION: a function prints why it failed and returns non-zero.
check() {
	local out
	if out=$("$2" 2>&1); then
		pass=$((pass + 1))
		echo "install: ok: $1"
	else
		fail=$((fail + 1))
		echo "install: FAILED: $1"
		# shellcheck disable=SC2001	# indent every line
		sed 's/^/    /' <<<"$out"
		return 1
	fi
}

summary() {
	echo "install: $(( 100 * pass / (pass + fail) ))%: Checks: $((pass + fail)), Failures: $fail, Errors: 0"
	[ $fail -eq 0 ]
}

# Sorted list of files and symlinks under a directory, relative to it.
tree() {
	(cd "$1" && find . \( -type f -o -type l \) -printf '%P\n' | LC_ALL=C sort)
}

# Exported function names of the installed shared library.
exports() {
	nm -D --defined-only "$stage/usr/lib/libkmemdev.so.$VERSION" |
		awk '$2 != "A" { sub(/@.*/, "", $3); print $3 }' | LC_ALL=C sort
}

pc() {
	PKG_CONFIG_SYSROOT_DIR=$stage PKG_CONFIG_PATH=$stage/usr/lib/pkgconfig \
		pkg-config "$@" kmemdev
}

t_install() {
	make -s -C "$top" install DESTDIR="$stage" PREFIX=/usr
}

t_file_list() {
	local obj
	{
		echo usr/bin/kmemctl
		echo usr/share/bash-completion/completions/kmemctl
		echo usr/include/kmemdev/kmemdev.h
		for p in "$top"/uapi/*.h; do
			echo "usr/include/kmemdev/${p##*/}"
		done
		echo usr/lib/kmemdev/libkmemdev-kcore.so
		echo usr/lib/libkmemdev.a
		echo usr/lib/libkmemdev.so
		echo "usr/lib/libkmemdev.so.$MAJOR"
		echo "usr/lib/libkmemdev.so.$VERSION"
		echo usr/lib/pkgconfig/kmemdev.pc
		echo "${udevdir#/}/rules.d/60-kmem_ro.rules"
		echo "${sysusersdir#/}/kmem_ro.conf"
		for p in "$top"/man/*.[1-8]; do
			echo "usr/share/man/man${p##*.}/${p##*/}"
		done
		echo "$src/Makefile"
		echo "$src/dkms.conf"
		for p in "$top"/uapi/*.h; do
			echo "$src/uapi/${p##*/}"
		done
		echo "$src/driver/Kbuild"
		# The module's objects, as Kbuild names them, and its headers.
		# shellcheck disable=SC2013	# one line of words
		for obj in $(sed -n 's/^kmem_ro-y *:= *//p' "$top/driver/Kbuild"); do
			echo "$src/driver/${obj%.o}.c"
		done
		for p in "$top"/driver/*.h; do
			echo "$src/driver/${p##*/}"
		done
	} | LC_ALL=C sort > "$tmp/expected"
	tree "$stage" > "$tmp/installed"
	diff -u "$tmp/expected" "$tmp/installed"
}

t_modes() {
	local f want got bad=0
	while read -r f; do
		case $f in
		usr/bin/*|*.so.$VERSION|*/libkmemdev-kcore.so) want=755 ;;
		*) want=644 ;;
		esac
		[ -L "$stage/$f" ] && continue
		got=$(stat -c %a "$stage/$f")
		[ "$got" = "$want" ] || { echo "$f: mode $got, want $want"; bad=1; }
	done < <(tree "$stage")
	# Relative links, so the tree works wherever it is unpacked.
	got=$(readlink "$stage/usr/lib/libkmemdev.so.$MAJOR")
	[ "$got" = "libkmemdev.so.$VERSION" ] || { echo "libkmemdev.so.$MAJOR -> $got"; bad=1; }
	got=$(readlink "$stage/usr/lib/libkmemdev.so")
	[ "$got" = "libkmemdev.so.$MAJOR" ] || { echo "libkmemdev.so -> $got"; bad=1; }
	got=$(readelf -d "$stage/usr/lib/libkmemdev.so.$VERSION" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
	[ "$got" = "libkmemdev.so.$MAJOR" ] || { echo "SONAME $got"; bad=1; }
	return $bad
}

t_contents() {
	local rule=$stage$udevdir/rules.d/60-kmem_ro.rules bad=0 k
	for k in 'SUBSYSTEM=="misc"' 'KERNEL=="kmem_ro"' 'OWNER="root"' \
		 'GROUP="kmem_ro"' 'MODE="0440"'; do
		grep -v '^#' "$rule" | grep -qF "$k" || { echo "udev rule lacks $k"; bad=1; }
	done
	grep -qx 'g kmem_ro -' "$stage$sysusersdir/kmem_ro.conf" ||
		{ echo "sysusers.d: no 'g kmem_ro -' line"; bad=1; }
	grep -qx "PACKAGE_VERSION=\"$VERSION\"" "$stage/$src/dkms.conf" ||
		{ echo "dkms.conf: PACKAGE_VERSION is not $VERSION"; bad=1; }
	grep -qx 'PACKAGE_NAME="kmem_ro"' "$stage/$src/dkms.conf" ||
		{ echo "dkms.conf: PACKAGE_NAME is not kmem_ro"; bad=1; }
	[ "$(pc --modversion)" = "$VERSION" ] ||
		{ echo "kmemdev.pc: version $(pc --modversion), want $VERSION"; bad=1; }
	return $bad
}

# Only kmemdev_* leaves the .so, and exactly what kmemdev.h declares.
t_exports() {
	local bad=0
	exports > "$tmp/exports"
	[ -s "$tmp/exports" ] || { echo "no exports"; return 1; }
	if grep -v '^kmemdev_' "$tmp/exports"; then
		echo "^ exported, not kmemdev_*"
		bad=1
	fi
	nm -D --defined-only "$stage/usr/lib/libkmemdev.so.$VERSION" |
		awk '$2 != "A" && $3 !~ /@@KMEMDEV_/ { print "unversioned: " $3; bad = 1 }
		     END { exit bad }' || bad=1
	declared > "$tmp/declared"
	diff -u --label declared --label exported "$tmp/declared" "$tmp/exports" || bad=1
	return $bad
}

# Every function a program built with the .pc's flags sees: all of
# kmemdev.h's, whatever the build options (there are no conditional ones).
declared() {
	# shellcheck disable=SC2046
	echo '#include <kmemdev.h>' | cc -E -P $(pc --cflags) -x c - | tr '\n' ' ' |
		grep -oE 'visibility *\( *"default" *\) *\) *\) [^(;]*\(' |
		grep -oE 'kmemdev_[a-z0-9_]+ *\($' | tr -d ' (' | LC_ALL=C sort
}

# examples/banner, run as it would be from the installed tree: on this
# host the device (or /proc/kcore) may be missing, which must be a clean
# exit 1 with a reason, never a crash or a missing library.
run_example() {	# binary
	local rc
	LD_LIBRARY_PATH=$stage/usr/lib "$1" > "$tmp/out" 2> "$tmp/err"
	rc=$?
	# kmemdev.h's version macros and the library's kmemdev_version()
	grep -qx "libkmemdev: $VERSION, running $VERSION" "$tmp/out" ||
		{ echo "no version line 'libkmemdev: $VERSION, running $VERSION':"; cat "$tmp/out"; return 1; }
	case $rc in
	0)	if ! grep -q '^backend: ' "$tmp/out" ||
		   ! grep -q '^kernel: Linux version ' "$tmp/out"; then
			echo "exit 0 but:"; cat "$tmp/out"; return 1
		fi ;;
	1)	grep -q '^banner: [a-z_]*: ' "$tmp/err" ||
			{ echo "exit 1 without a reason:"; cat "$tmp/err"; return 1; } ;;
	*)	echo "exit $rc"; cat "$tmp/out" "$tmp/err"; return 1 ;;
	esac
	echo "exit $rc: $(cat "$tmp/out" "$tmp/err" | tail -n 1)"
}

# examples/ as a user builds it: its own Makefile, pkg-config alone.
make_example() {	# target
	rm -rf "$tmp/examples"
	cp -r "$top/examples" "$tmp/examples"
	PKG_CONFIG_SYSROOT_DIR=$stage PKG_CONFIG_PATH=$stage/usr/lib/pkgconfig \
		make -s -C "$tmp/examples" CFLAGS="-O2 -Werror" "$1"
}

t_example_shared() {
	local lib
	make_example all || return 1
	lib=$(LD_LIBRARY_PATH=$stage/usr/lib ldd "$tmp/examples/banner" | awk '/libkmemdev/ { print $3 }')
	[ "$lib" = "$stage/usr/lib/libkmemdev.so.$MAJOR" ] ||
		{ echo "libkmemdev resolved to '$lib'"; return 1; }
	run_example "$tmp/examples/banner"
}

t_example_static() {
	make_example static || return 1
	if readelf -d "$tmp/examples/banner.static" | grep -q NEEDED; then
		echo "not static:"
		readelf -d "$tmp/examples/banner.static" | grep NEEDED
		return 1
	fi
	run_example "$tmp/examples/banner.static"
}

# Zero warnings from groff and man, and every .so link resolves.
t_man_lint() {
	local p out bad=0
	for p in "$man"/man*/*; do
		if head -n 1 "$p" | grep -q '^\.so '; then
			[ -f "$man/$(sed -n '1s/^\.so //p' "$p")" ] ||
				{ echo "${p#"$man"/}: dangling $(head -n 1 "$p")"; bad=1; }
			continue
		fi
		out=$(groff -man -ww -z "$p" 2>&1;
		      LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l "$p" 2>&1 >/dev/null)
		[ -z "$out" ] || { echo "${p#"$man"/}:"; echo "$out"; bad=1; }
	done
	return $bad
}

# Every exported function has a page or a .so link to one whose NAME line
# names it, and every kmemdev_* page is a function of kmemdev.h.
t_man_functions() {
	local f page target bad=0
	exports > "$tmp/exports"
	while read -r f; do
		page=$man/man3/$f.3
		[ -f "$page" ] || { echo "$f: no man page"; bad=1; continue; }
		target=$page
		head -n 1 "$page" | grep -q '^\.so ' && target=$man/$(sed -n '1s/^\.so //p' "$page")
		sed -n '/^\.SH NAME/{n;p}' "$target" | grep -qE "(^|[ ,])$f([ ,]|$)" ||
			{ echo "$f: not in the NAME line of ${target##*/}"; bad=1; }
	done < "$tmp/exports"
	declared > "$tmp/declared"
	for page in "$man"/man3/kmemdev_*.3; do
		f=${page##*/}
		grep -qx "${f%.3}" "$tmp/declared" || { echo "$f: kmemdev.h has no such function"; bad=1; }
	done
	return $bad
}

# kmemctl's help texts and kmemctl.1 name the same verbs and options.
t_man_kmemctl() {
	local kmemctl=$stage/usr/bin/kmemctl page=$man/man1/kmemctl.1 v bad=0
	"$kmemctl" --help > "$tmp/help" || return 1
	sed -n '/^Verbs:/,/^$/s/^  \([a-z]\+\) .*/\1/p' "$tmp/help" | LC_ALL=C sort > "$tmp/verbs.help"
	while read -r v; do
		"$kmemctl" "$v" --help >> "$tmp/help" || { echo "kmemctl $v --help failed"; bad=1; }
	done < "$tmp/verbs.help"
	# a mode with options of its own
	"$kmemctl" tree --xarray --help >> "$tmp/help" || { echo "kmemctl tree --xarray --help failed"; bad=1; }
	"$kmemctl" probe --help | sed -n 's/^  \([a-z]\+\)  .*/probe \1/p' >> "$tmp/verbs.help"
	LC_ALL=C sort -o "$tmp/verbs.help" "$tmp/verbs.help"
	# Verbs are the .SS headings of VERBS; "probe top" counts as both.
	sed -n '/^\.SH VERBS/,/^\.SH /s/^\.SS "\?\([^"]*\)"\?$/\1/p' "$page" |
		awk '{ print $1 } NF > 1 { print }' | LC_ALL=C sort -u > "$tmp/verbs.man"
	diff -u --label help --label kmemctl.1 "$tmp/verbs.help" "$tmp/verbs.man" || bad=1
	# Long options anywhere; short ones where they are defined.
	{ grep -oE -- '--[a-z][a-z-]+' "$tmp/help"
	  grep -oE '^ +-[a-zA-Z],' "$tmp/help" | tr -d ' ,'; } |
		LC_ALL=C sort -u > "$tmp/opts.help"
	{ grep -oE -- '\\-\\-[a-z][a-z-]+' "$page" | sed 's/\\//g'
	  grep -oE '^\.BR? \\-[a-zA-Z]( |$)' "$page" | grep -oE -- '-[a-zA-Z]'; } |
		LC_ALL=C sort -u > "$tmp/opts.man"
	diff -u --label help --label kmemctl.1 "$tmp/opts.help" "$tmp/opts.man" || bad=1
	return $bad
}

# The programs in the pages' EXAMPLES compile and link against the tree,
# every one: no function is missing from any build.
t_man_examples() {
	local p f n=0 bad=0
	declared > "$tmp/declared"
	for p in "$man"/man3/*.3; do
		awk '/^\.EX/ { on = 1; buf = ""; next }
		     /^\.EE/ { if (buf ~ /int main/) printf "%s", buf; on = 0; next }
		     on { buf = buf $0 "\n" }' "$p" |
			sed -e 's/\\e/\\/g' -e 's/\\-/-/g' -e "s/\\\\(aq/'/g" > "$tmp/ex.c"
		[ -s "$tmp/ex.c" ] || continue
		for f in $(grep -oE 'kmemdev_[a-z0-9_]+ *\(' "$tmp/ex.c" | tr -d ' (' | sort -u); do
			grep -qx "$f" "$tmp/declared" ||
				{ echo "${p##*/}: no function $f"; bad=1; continue 2; }
		done
		n=$((n + 1))
		# shellcheck disable=SC2046
		# an example that calls libbpf itself (kmemdev_btf(3)) links it
		cc -std=gnu11 -Wall -Wextra -Werror -o "$tmp/ex" -x c "$tmp/ex.c" \
			$(pc --cflags --libs) \
			$(grep -q '<bpf/' "$tmp/ex.c" && pkg-config --libs libbpf) ||
			{ echo "^ in ${p##*/}"; bad=1; }
	done
	echo "$n examples"
	[ "$n" -gt 0 ] && return $bad
}

# What DKMS does with the installed source tree, for the cached 6.12 test
# kernel: dkms.conf's MAKE[0] in a copy of it (as dkms runs it in its build
# directory), the module where BUILT_MODULE_* say, then CLEAN.  Not dkms
# itself: it writes /var/lib/dkms (and a signing key) on the host.
t_dkms_build() {
	local rel hdr b ko cmd
	rel=$(cat "$CACHE/kernels/6.12/release")
	hdr=$CACHE/kernels/6.12/root/usr/src/linux-headers-$rel
	# Debian's headers include their -common twin by absolute path.
	export KBUILD_MAKEFILE=$CACHE/kernels/6.12/root/usr/src/linux-headers-${rel%-amd64}-common/Makefile
	b=$tmp/dkms-build
	cp -a "$stage/$src" "$b"
	# A dkms.conf value, sourced as dkms sources it.
	conf() {
		# shellcheck disable=SC2034	# used by dkms.conf
		local kernelver=$rel kernel_source_dir=$hdr
		# shellcheck disable=SC1091
		(. "$b/dkms.conf" && eval "printf '%s\\n' \"\${$1}\"")
	}
	cmd=$(conf 'MAKE[0]')
	echo "$cmd"
	# shellcheck disable=SC2086	# a command line, as dkms splits it
	(cd "$b" && $cmd) > "$tmp/make.log" 2>&1 || { tail -n 30 "$tmp/make.log"; return 1; }
	ko=$b/$(conf 'BUILT_MODULE_LOCATION[0]')/$(conf 'BUILT_MODULE_NAME[0]').ko
	[ "$(modinfo -F vermagic "$ko" | cut -d' ' -f1)" = "$rel" ] ||
		{ echo "$ko: vermagic '$(modinfo -F vermagic "$ko" 2>&1)'"; return 1; }
	echo "$rel: ${ko#"$b"/}"
	cmd=$(conf CLEAN)
	# shellcheck disable=SC2086
	(cd "$b" && $cmd) > "$tmp/make.log" 2>&1 || { tail -n 30 "$tmp/make.log"; return 1; }
	[ ! -e "$ko" ] || { echo "CLEAN left $ko"; return 1; }
}

t_uninstall() {
	make -s -C "$top" uninstall DESTDIR="$stage" PREFIX=/usr || return 1
	tree "$stage" > "$tmp/left"
	[ ! -s "$tmp/left" ] || { echo "left behind:"; cat "$tmp/left"; return 1; }
}

# Nothing else can be judged without the staged tree.
check "make install DESTDIR PREFIX=/usr" t_install || { summary; exit; }
check "installed file list" t_file_list
check "modes, symlinks, SONAME" t_modes
check "udev rule, sysusers.d, dkms.conf, pkg-config version" t_contents
check "libkmemdev.so exports only kmemdev_*, as declared" t_exports
check "examples/ built with its Makefile (pkg-config), shared" t_example_shared
check "examples/ built with its Makefile (pkg-config --static)" t_example_static
check "man pages: groff/man warnings, .so links" t_man_lint
check "man pages: one for every exported function" t_man_functions
check "kmemctl.1 and kmemctl --help: same verbs and options" t_man_kmemctl
check "man page examples compile" t_man_examples
if [ -s "$CACHE/kernels/6.12/release" ]; then
	check "DKMS source tree builds kmem_ro.ko for 6.12" t_dkms_build
else
	echo "install: SKIPPED: DKMS build (no cached 6.12 kernel: make deps)"
fi
check "make uninstall leaves nothing" t_uninstall
summary
