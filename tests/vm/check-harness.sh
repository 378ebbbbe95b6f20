#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The harness must be able to fail: boot guests that log a WARNING, leak an
# fd past rmmod, fail a suite, or hang, and check each is judged FAILED for
# the right reason.  So must the build's page-layout gate.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
pass=0 fail=0

expect() {	# case timeout message
	local out
	out=$(KERNELS=6.12 VM_GROUPS=$1 VM_TIMEOUT=$2 VM_GROUPS_FILE=$here/selftest.groups \
	      "$here/run.sh" 2>&1)
	if [ $? -ne 0 ] && grep -q -- "$3" <<<"$out"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "harness: $1: expected a failure saying '$3', got:"
		sed 's/^/    /' <<<"$out"
	fi
}

layout() {	# case want-rc attributes: check-hot-layout.sh on a one-function object
	local dir rc
	dir=$(mktemp -d)
	echo "$3 void loop(int *p) { for (int i = 0; i < 100; i++) p[i] = i * i; }" > "$dir/f.c"
	gcc -O2 -c -o "$dir/f.o" "$dir/f.c"
	"$here/../../scripts/check-hot-layout.sh" "$dir/f.o" loop 2>"$dir/err"
	rc=$?
	if [ $rc -eq "$2" ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "harness: layout $1: check-hot-layout.sh gave $rc, wanted $2: $(cat "$dir/err")"
	fi
	rm -rf "$dir"
}

layout in-plain-text 1 ''
layout own-section 0 '__attribute__((section(".text.loop"), aligned(512)))'
expect st_warn 300 'kernel log reports a problem'
expect st_leak 300 'rmmod failed'
expect st_fail 300 'harness_selftest.sh failed'
expect st_hang 25 'did not finish'
echo "harness: $(( 100 * pass / (pass + fail) ))%: Checks: $((pass + fail)), Failures: $fail, Errors: 0"
[ $fail -eq 0 ]
