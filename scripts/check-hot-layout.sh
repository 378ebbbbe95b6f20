#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check-hot-layout.sh MODULE.ko FUNCTION...: fail unless each FUNCTION
# lies within one 4 KiB page wherever the module loader puts its section
# (it aligns each section to its sh_addralign in page-aligned memory).
# Under QEMU's TCG a loop that crosses a page runs up to 1.6x slower, so
# the benchmarks would measure the linker (see above pm_room() in
# driver/pagemap.c).
set -euo pipefail
ko=$1
shift
declare -A align
while read -r idx al; do
	align[$idx]=$al
done < <(readelf -SW "$ko" | sed -n 's/^ *\[ *\([0-9]*\)\] .* \([0-9]*\)$/\1 \2/p')
for fn in "$@"; do
	read -r value size ndx < <(readelf -sW "$ko" |
		awk -v f="$fn" '$4 == "FUNC" && $8 == f { print $2, $3, $7 }') ||
		{ echo "$ko: no function $fn" >&2; exit 1; }
	a=${align[$ndx]}
	((a > 4096)) && a=4096
	if (((16#$value % a) + size > a)); then
		echo "$ko: $fn ($size bytes at +0x$value, section aligned $a) may cross a 4 KiB page" >&2
		exit 1
	fi
done
