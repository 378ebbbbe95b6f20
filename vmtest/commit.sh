#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The commit a run record names: the tree's short commit, +dirty if any
# tracked file other than a run record (*results.txt) differs from it.
# Records appended by an earlier run in the same tree (make check-debug,
# then make stress, then make fuzz) do not change the code that ran.
top=$(cd "$(dirname "$0")/.." && pwd)
commit=$(git -C "$top" rev-parse --short HEAD 2>/dev/null) || { echo unknown; exit 0; }
if [ -n "$(git -C "$top" status --porcelain --untracked-files=no -- . ':(exclude)*results.txt')" ]; then
	commit+=+dirty
fi
echo "$commit"
