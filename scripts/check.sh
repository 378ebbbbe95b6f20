#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check`: dependencies and test kernels, warning-free builds (W=1,
# sparse), host unit tests, libkmemdev's ABI against its baseline, the
# Debian packages built, lintian-clean, installed, built by DKMS and purged on bookworm and
# trixie roots (make check-deb: tests/install/deb_roots.sh), the VM
# suite on every test kernel, and the harness's own self-test (it must be
# able to fail).  VM_SUITES=a,b runs those VM suites and nothing else.
# Ends with one line "check: N passed, M failed" summing every Check suite.
# The host steps' subshells log to a file of their own (log=, below).
# shellcheck disable=SC2030,SC2031
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-$PWD/build}
mkdir -p "$BUILD"
log=$BUILD/check.log
: > "$log"
failed=0
start=$(date +%s)

# Each step's wall time, and the load beside it (the machine may be shared),
# goes to the output and to $log: docs/testing.md keeps the longest parts.
step() {
	local t0=$SECONDS
	echo "== $*"
	if ! "$@" 2>&1 | tee -a "$log"; then
		echo "== FAILED: $*"
		failed=1
	fi
	echo "== $(( SECONDS - t0 ))s: $* (load average $(cut -d' ' -f1-3 /proc/loadavg))" | tee -a "$log"
}

step make -s deps
[ $failed -eq 0 ] || { echo "check: 0 passed, 1 failed"; exit 1; }
if [ -n "${VM_SUITES:-}" ]; then
	# make check VM_SUITES=a,b: those VM suites alone (vmtest/run.sh).
	step make -s check-vm
else
	# Two things at once, as each keeps about one core busy: the host
	# steps (single-threaded builds, sparse, lintian, apt) and the VM suite
	# (a TCG guest is one host thread).  The modules are built with sparse
	# (make test-modules, where it can run in the same build); beside that
	# build run sparse's own pass for the kernels where it cannot (7.x),
	# the modules of the kernels only built, never booted (sid), and
	# check-deb, which builds from a copy of the tree.  The VM suite then
	# starts, one guest fewer while the other host steps run (VM_BESIDE,
	# vmtest/run.sh): they build in the tree and $BUILD too, so they wait
	# for both.  Their output mixes on the terminal; the host steps' log,
	# $BUILD/check-host.log, is appended to $log at the end.
	hostlog=$BUILD/check-host.log
	: > "$hostlog"
	(log=$hostlog failed=0; step make -s sparse-apart; step make -s build-only-modules
	 step make -s check-deb
	 exit $failed) &
	beside=$!
	step make -s test-modules vm-binaries vm-root BUILD_ONLY_KERNELS=
	(
		log=$hostlog failed=0
		while kill -0 $beside 2>/dev/null; do sleep 1; done
		step make -s check-unit
		step make -s abi-check
		step make -s check-harness
		exit $failed
	) &
	host=$!
	export VM_BESIDE=$host
	step make -s vm-run
	unset VM_BESIDE
	wait $beside || failed=1
	wait $host || failed=1
	cat "$hostlog" >> "$log"
fi

read -r pass fail < <(grep -aE '^([a-z0-9/._-]+: )*[0-9]+%: Checks: [0-9]+, Failures: [0-9]+, Errors: [0-9]+' "$log" |
	sed -E 's/.*Checks: ([0-9]+), Failures: ([0-9]+), Errors: ([0-9]+).*/\1 \2 \3/' |
	awk '{ p += $1 - $2 - $3; f += $2 + $3 } END { print p + 0, f + 0 }')
[ $failed -ne 0 ] && [ "$fail" -eq 0 ] && fail=1	# a build or harness failure counts
echo "== $(( $(date +%s) - start ))s"
echo "check: $pass passed, $fail failed"
[ $failed -eq 0 ] && [ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
