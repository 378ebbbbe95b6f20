#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The driver built with sparse (C=2) against a cached test kernel; sparse's
# warnings fail it as the compiler's do under KCFLAGS=-Werror.
#
#   vmtest/sparse-module.sh SERIES OUT_DIR [make args...]
#
# Its output also goes to $BUILD/sparse-SERIES.log.  Kbuild turns C=2 off
# with a bare note when the checker is missing or too old: that fails too.
# 7.x: sparse runs in the sid root (vmtest/fetch-kernels.sh, check_suite),
# whose pahole is not the kernel's: BTF is no part of this pass.
set -euo pipefail

series=$1 out=$2
shift 2
top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$top/build}
log=$BUILD/sparse-$series.log
noise='Skipping BTF|pahole version differs|The kernel was built with: |You are using: +[0-9]'

mkdir -p "$BUILD"
echo "  SPARSE  $series"
"$top/vmtest/build-module.sh" "$series" "$top/driver" "$out" C=2 "$@" modules 2>&1 |
	{ grep -vE "$noise" || true; } | tee "$log"
! grep -qE 'warning|error|not available or not up to date' "$log"
