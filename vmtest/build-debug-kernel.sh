#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the debug kernel `make check-debug` runs on, from Debian's own
# sources of a series (the linux-source-<series> package, the tree that
# series' Debian kernel is built from; vmtest/fetch-kernels.sh downloads
# it): tinyconfig plus vmtest/configs/debug-kernel.config (KASAN, KFENCE, UBSAN,
# lockdep, DEBUG_VM, DEBUG_LIST, ... and what kmem_ro needs), then
# vmtest/configs/debug-kernel-<series>.config where a release differs.  Built with
# the host's compiler, which also builds kmem_ro against it: a kernel
# configured here needs no flag of the compiler Debian used.
#
#   vmtest/build-debug-kernel.sh 7.3   # -> $KMEM_RO_CACHE/kernels/7.3-debug/
#
# leaves {vmlinuz,release,kdir,stamp} there.  A warm cache (same
# fragments) does nothing.  Cold: about an hour on this 2-core machine.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
CACHE=${KMEM_RO_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kmem_ro}
base=${1:?usage: build-debug-kernel.sh <series, e.g. 7.3>}
base=${base%-debug}
dest=$CACHE/kernels/$base-debug
work=$CACHE/debug-build
fragments=("$here/configs/debug-kernel.config")
[ -e "$here/configs/debug-kernel-$base.config" ] &&
	fragments+=("$here/configs/debug-kernel-$base.config")
stamp=$(cat "${fragments[@]}" | sha256sum | cut -c1-16)

log() { printf 'build-debug-kernel: %s\n' "$*" >&2; }

if [ -e "$dest/vmlinuz" ] && [ "$(cat "$dest/stamp" 2>/dev/null)" = "$stamp" ]; then
	exit 0
fi

src=$work/linux-source-$base
if [ ! -d "$src" ]; then
	deb=$(ls "$work"/linux-source-"$base"_*.deb 2>/dev/null | tail -1 || true)
	[ -n "$deb" ] || { log "no linux-source-$base in $work: run vmtest/fetch-kernels.sh"; exit 1; }
	log "unpacking $(basename "$deb")"
	rm -rf "$work/pkg"
	dpkg -x "$deb" "$work/pkg"
	tar -C "$work" -xaf "$work"/pkg/usr/src/linux-source-"$base".tar.*
	rm -rf "$work/pkg"
fi

obj=$work/obj-$base
mkdir -p "$obj"
make -s -C "$src" O="$obj" tinyconfig >&2
"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "${fragments[@]}" >/dev/null
make -s -C "$src" O="$obj" olddefconfig >&2
# Fail early if olddefconfig dropped something the fragments ask for (the
# last fragment to name an option wins, as in merge_config.sh).
declare -A want=()
while IFS='=' read -r opt val; do
	[[ -z $opt || $opt == \#* ]] && continue
	want[$opt]=$val
done < <(cat "${fragments[@]}")
missing=0
for opt in "${!want[@]}"; do
	# A release may drop an option and build its code always (7.x:
	# X86_5LEVEL, PROC_SYSCTL): say so rather than fail.
	if ! grep -rqE --include='Kconfig*' "^[[:space:]]*(menu)?config ${opt#CONFIG_}[[:space:]]*\$" "$src"; then
		log "$opt: no such option in linux-source-$base, skipped"
		continue
	fi
	case ${want[$opt]} in
	n) grep -q "^$opt=" "$obj/.config" && { log "wanted off: $opt"; missing=1; } ;;
	*) grep -q "^$opt=${want[$opt]}\$" "$obj/.config" || { log "not set: $opt=${want[$opt]}"; missing=1; } ;;
	esac
done
[ $missing -eq 0 ] || { log "config fragments not satisfied"; exit 1; }

log "building $base in $obj ($(nproc) jobs)"
nice make -s -C "$src" O="$obj" -j"$(nproc)" LOCALVERSION=-kmemro-debug bzImage modules >&2
make -s -C "$src" O="$obj" -j"$(nproc)" LOCALVERSION=-kmemro-debug modules_prepare >&2

mkdir -p "$dest"
cp "$obj/arch/x86/boot/bzImage" "$dest/vmlinuz"
make -s -C "$src" O="$obj" LOCALVERSION=-kmemro-debug kernelrelease > "$dest/release"
echo "$obj" > "$dest/kdir"
echo "$stamp" > "$dest/stamp"
log "ready: $dest ($(cat "$dest/release"))"
