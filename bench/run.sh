#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the benchmarks in the VM on every test kernel and append their result
# lines, dated, to bench/results.txt.  Compare ratios within one line (same
# VM, same kernel, same run): TCG inflates absolute times, and this machine
# is shared.  Syscall counts are exact.
# VM_GROUPS_FILE=FILE runs FILE's groups instead of bench/groups (some
# benchmarks alone, e.g. to repeat them).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# 2 GiB of guest memory: pagemap_bench's dense case is a touched 1 GiB.
# Each line names the commit it ran on (+dirty: with uncommitted changes
# other than run records, vmtest/commit.sh),
# read before the guest boots.
commit=$("$here/../vmtest/commit.sh")
out=$(VM_JOBS=1 VM_MEM=${VM_MEM:-2048} VM_GROUPS_FILE=${VM_GROUPS_FILE:-$here/groups} VM_SHOW=1 "$here/../vmtest/run.sh" 2>&1)
rc=$?
echo "$out"
grep '^bench ' <<<"$out" | sed "s/^bench /date=$(date -u +%Y-%m-%d) commit=$commit /" >> "$here/results.txt"
exit $rc
