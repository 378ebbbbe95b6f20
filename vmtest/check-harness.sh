#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The harness must be able to fail: boot guests that log a WARNING, leak an
# fd past rmmod, fail a suite, or hang, and check each is judged FAILED for
# the right reason.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# Logs of their own: make check runs this beside the VM suite, whose
# run.sh clears its logs folder's summaries when it starts.
export VM_LOGS=${BUILD:-$here/../build}/vm-logs/harness
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

expect st_warn 300 'kernel log reports a problem'
expect st_leak 300 'rmmod failed'
expect st_fail 300 'harness_selftest.sh failed'
expect st_hang 25 'did not finish'
echo "harness: $(( 100 * pass / (pass + fail) ))%: Checks: $((pass + fail)), Failures: $fail, Errors: 0"
[ $fail -eq 0 ]
