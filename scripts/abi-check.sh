#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make abi-check`: the ABI libkmemdev.so exports - its symbols with their
# versions, and every type they reach, as libabigail reads them from the
# DWARF of a -g build filtered by the public headers (kmemdev.h, kmem_ro.h,
# kmem_ro_events.h) - against the baseline committed in
# libkmemdev/abi/libkmemdev.abi.  Any difference fails, compatible or not:
# an added function must come with a new version node and a baseline
# regenerated on purpose (`make abi-update`), so that the change shows in
# review.  Also: the library built without libnl-genl (KMEMDEV_EVENTS=n)
# exports exactly the same ABI.  libabigail: Debian abigail-tools.
#
#   scripts/abi-check.sh           check (make abi-check)
#   scripts/abi-check.sh --update  rewrite the baseline (make abi-update)
#
# The builds happen in copies under $BUILD/abi, never in the tree.  Ends
# with a Check-style summary line.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
top=$PWD
BUILD=${BUILD:-$top/build}
out=$BUILD/abi
baseline=libkmemdev/abi/libkmemdev.abi
VERSION=$(cat VERSION)
so=libkmemdev.so.$VERSION
update=
[ "${1:-}" = --update ] && update=1
pass=0 fail=0

for t in abidw abidiff; do
	command -v $t >/dev/null ||
		{ echo "abi-check: $t missing (Debian: apt-get install abigail-tools)" >&2; exit 1; }
done

# build VARIANT EVENTS: the shared library from a copy of the sources.
build() {
	local dir=$out/$1
	rm -rf "$dir"
	mkdir -p "$dir"
	cp -r VERSION uapi libkmemdev "$dir/"
	make -s -C "$dir/libkmemdev" clean >/dev/null
	# -g: abidw reads the types from DWARF
	make -s -C "$dir/libkmemdev" KMEMDEV_EVENTS="$2" CFLAGS="-O2 -g" "$so" \
		>"$dir/build.log" 2>&1 || { cat "$dir/build.log"; return 1; }
}

# dump VARIANT: its ABI as abixml.  Types defined outside the public
# headers (struct kmemdev, struct kmemdev_events: opaque to callers) are
# private: declarations only.  No paths, source lines or DT_NEEDED (libnl
# or not is a build choice, not ABI): the baseline changes only with the ABI.
dump() {
	local dir=$out/$1
	abidw --headers-dir "$dir/libkmemdev/include" --headers-dir "$dir/uapi" \
		--drop-private-types --no-corpus-path --no-comp-dir-path \
		--no-show-locs --no-elf-needed \
		--out-file "$dir/libkmemdev.abi" "$dir/libkmemdev/$so"
}

# Exported functions and their versions, as the dynamic linker sees them.
exports() {
	nm -D --defined-only "$out/$1/libkmemdev/$so" | awk '{ print $2, $3 }' | LC_ALL=C sort
}

check() {	# NAME COMMAND...: like install_test.sh's
	local name=$1 outp
	shift
	if outp=$("$@" 2>&1); then
		pass=$((pass + 1))
		echo "abi-check: ok: $name"
	else
		fail=$((fail + 1))
		echo "abi-check: FAILED: $name"
		# shellcheck disable=SC2001	# indent every line
		sed 's/^/    /' <<<"$outp"
	fi
}

summary() {
	echo "abi-check: $(( 100 * pass / (pass + fail) ))%: Checks: $((pass + fail)), Failures: $fail, Errors: 0"
	[ $fail -eq 0 ]
}

# abidiff's exit status is a bit mask: 1 error, 2 usage, 4 ABI change,
# 8 incompatible ABI change.  Every non-zero status fails here; harmless
# changes (an enumerator added, a typedef renamed) are shown and count too.
diff_abi() {	# OLD NEW
	local rc report
	report=$(abidiff --no-default-suppression --harmless "$1" "$2")
	rc=$?
	[ $rc -eq 0 ] && return 0
	echo "$report"
	if [ $((rc & 8)) -ne 0 ]; then
		echo "=> INCOMPATIBLE ABI change (abidiff status $rc): symbols that programs"
		echo "   built against the old ABI need are gone"
	elif [ $((rc & 4)) -ne 0 ] &&
	     ! grep 'changes summary:' <<<"$report" | grep -qv ': 0 Removed, 0 Changed,'; then
		echo "=> ABI additions only (abidiff status $rc)"
	elif [ $((rc & 4)) -ne 0 ]; then
		echo "=> ABI change (abidiff status $rc): a changed function or type breaks"
		echo "   programs built against the old ABI"
	else
		echo "=> abidiff failed (status $rc)"
	fi
	return 1
}

t_build() { build events y && build no-events n; }
t_dump() { dump events && dump no-events; }
t_variants_exports() {
	diff -u --label "with libnl" --label "without libnl" \
		<(exports events) <(exports no-events)
}
t_variants_abi() { diff_abi "$out/events/libkmemdev.abi" "$out/no-events/libkmemdev.abi"; }
t_baseline() {
	[ -s "$baseline" ] || { echo "no baseline $baseline: make abi-update"; return 1; }
	diff_abi "$baseline" "$out/events/libkmemdev.abi" && return 0
	echo "   Within libkmemdev.so.${VERSION%%.*} only added functions are allowed: each"
	echo "   release's in a new version node of libkmemdev/libkmemdev.map; then"
	echo "   make abi-update and commit $baseline with the change."
	return 1
}

mkdir -p "$out"
check "build libkmemdev with and without libnl-genl (-g)" t_build || { summary; exit; }
check "abidw: the exported ABI of both builds" t_dump || { summary; exit; }
check "same exported symbols and versions with and without libnl-genl" t_variants_exports
check "same ABI with and without libnl-genl (abidiff)" t_variants_abi
if [ -n "$update" ]; then
	mkdir -p "$(dirname "$baseline")"
	cp "$out/events/libkmemdev.abi" "$baseline"
	echo "abi-check: wrote $baseline: review and commit it"
else
	check "the ABI equals the baseline $baseline (abidiff)" t_baseline
fi
summary
