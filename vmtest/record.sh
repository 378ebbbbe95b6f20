#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# One dated line for a results file, from the guest log of a suite that
# prints "@@TAG summary k=v ..." once and "@@TAG op NAME k=v ..." per
# operation (tests/vm/stress_test.c, tests/vm/fuzz_test.c):
#   record.sh TAG LOG GROUP pass|fail
# gives
#   date=D commit=C driver=V kernel=K group=G result=R <the summary's k=v> ops=NAME:k=v,...;...
# (C: the commit the tree was at, +dirty with uncommitted changes to
# anything but run records, vmtest/commit.sh; V: the last commit that
# changed driver/ or uapi/)
# A log without a summary (the guest died first) still gives a line.
set -uo pipefail
tag=$1 log=$2 group=$3 verdict=$4

lines=$(tr -d '\r' < "$log" 2>/dev/null | grep -a "^@@$tag ")
kernel=$(tr -d '\r' < "$log" 2>/dev/null | sed -n 's/^@@BOOTED //p' | head -1)
# the kernel comes first, from the boot line; the guest's verdict is not the harness's
summary=$(sed -n "s/^@@$tag summary //p" <<<"$lines" | head -1 |
	  sed -E 's/(^| )(kernel|result)=[^ ]*//g; s/^ //')
ops=$(sed -n "s/^@@$tag op //p" <<<"$lines" | sed 's/ /,/g; s/,/:/' | paste -sd ';')
if [ -z "$summary" ]; then
	# the guest died or hung first: keep its seed and first kernel report
	seed=$(sed -n "s/^@@$tag seed=\([^ ]*\).*/\1/p" <<<"$lines" | head -1)
	report=$(tr -d '\r' < "$log" 2>/dev/null |
		 grep -a -m1 -E 'BUG:|WARNING:|Oops|general protection|Kernel panic' |
		 sed 's/^\[[ 0-9.]*\] //')
	summary="summary=missing${seed:+ seed=$seed} log=$(basename "$log") report=\"${report:-none}\""
fi
# run.sh reads it once, before the first record makes the tree dirty
commit=${VM_COMMIT:-$("$(dirname "$0")/commit.sh")}
driver=${VM_DRIVER_COMMIT:-$(git -C "$(dirname "$0")" log -1 --format=%h -- ../driver ../uapi 2>/dev/null || echo unknown)}
echo "date=$(date -u +%Y-%m-%d) commit=$commit driver=$driver kernel=${kernel:-unknown} group=$group result=$verdict" \
     "$summary${ops:+ ops=$ops}"
