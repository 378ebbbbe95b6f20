#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the debug kernel `make check-debug` runs on: Debian's own 6.12
# sources (the linux-source-6.12 package, the tree the Debian 6.12 test
# kernel is built from), tinyconfig plus scripts/debug-kernel.config
# (KASAN, KFENCE, UBSAN, lockdep, DEBUG_VM, DEBUG_LIST, ... and what
# kmem_ro needs).  The result is cached outside the repository like the
# Debian kernels, as series "6.12-debug":
#
#   $KMEM_RO_CACHE/kernels/6.12-debug/{vmlinuz,release,kdir}
#
# A warm cache (same fragment) does nothing.  Cold: 61 min on this 2-core
# machine while other builds and VMs were running.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${KMEM_RO_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kmem_ro}
series=6.12-debug
dest=$CACHE/kernels/$series
work=$CACHE/debug-build
fragment=$top/scripts/debug-kernel.config
stamp=$(sha256sum "$fragment" | cut -c1-16)

log() { printf 'build-debug-kernel: %s\n' "$*" >&2; }

if [ -e "$dest/vmlinuz" ] && [ "$(cat "$dest/stamp" 2>/dev/null)" = "$stamp" ]; then
	exit 0
fi

mkdir -p "$work"
src=$(ls -d "$work"/linux-source-6.12 2>/dev/null || true)
if [ -z "$src" ]; then
	deb=$(ls "$work"/linux-source-6.12_*.deb 2>/dev/null | tail -1 || true)
	if [ -z "$deb" ]; then
		log "apt-get download linux-source-6.12"
		(cd "$work" && apt-get download -q linux-source-6.12 >&2) || {
			[ "$(id -u)" -eq 0 ] && apt-get update -qq >&2
			(cd "$work" && apt-get download -q linux-source-6.12 >&2)
		}
		deb=$(ls "$work"/linux-source-6.12_*.deb | tail -1)
	fi
	log "unpacking $(basename "$deb")"
	rm -rf "$work/pkg"
	dpkg -x "$deb" "$work/pkg"
	tar -C "$work" -xaf "$work"/pkg/usr/src/linux-source-6.12.tar.*
	rm -rf "$work/pkg"
	src=$work/linux-source-6.12
fi

obj=$work/obj
mkdir -p "$obj"
make -s -C "$src" O="$obj" tinyconfig >&2
"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "$fragment" >/dev/null
make -s -C "$src" O="$obj" olddefconfig >&2
# Fail early if olddefconfig dropped something the fragment asks for.
missing=0
while IFS='=' read -r opt val; do
	[[ -z $opt || $opt == \#* ]] && continue
	case $val in
	n) grep -q "^$opt=" "$obj/.config" && { log "wanted off: $opt"; missing=1; } ;;
	*) grep -q "^$opt=$val\$" "$obj/.config" || { log "not set: $opt=$val"; missing=1; } ;;
	esac
done < "$fragment"
[ $missing -eq 0 ] || { log "config fragment not satisfied"; exit 1; }

log "building in $obj ($(nproc) jobs)"
nice make -s -C "$src" O="$obj" -j"$(nproc)" LOCALVERSION=-kmemro-debug bzImage modules >&2
make -s -C "$src" O="$obj" -j"$(nproc)" LOCALVERSION=-kmemro-debug modules_prepare >&2

mkdir -p "$dest"
cp "$obj/arch/x86/boot/bzImage" "$dest/vmlinuz"
make -s -C "$src" O="$obj" LOCALVERSION=-kmemro-debug kernelrelease > "$dest/release"
echo "$obj" > "$dest/kdir"
echo "$stamp" > "$dest/stamp"
log "ready: $dest ($(cat "$dest/release"))"
