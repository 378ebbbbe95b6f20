#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Where a VM run's time went: vmtest/times.sh [LOGDIR [N]] prints the run's
# wall time, its N longest runs (a group on a kernel, from run.sh's
# LOGDIR/times: initramfs, QEMU and the guest) and its N longest suites (the
# guests' "@@TEST S rc=R secs=T" lines); then what the runs spent outside
# their suites: building initramfs, and booting and shutting down (host time
# less the guest's suites).  run.sh prints it at the end of every run; N=0
# prints every run and suite.  LOGDIR: $VM_LOGS, else build/vm-logs.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
logs=${1:-${VM_LOGS:-${BUILD:-$here/../build}/vm-logs}}
n=${2:-10}
[ -s "$logs/times" ] || { echo "times: no $logs/times (vmtest/run.sh writes it)"; exit 1; }

top() { if [ "$n" -eq 0 ]; then cat; else head -n "$n"; fi; }

# $logs/times: kernel group secs start end initramfs-secs, one line per run;
# the suites of each: "secs kernel/group suite rc=R"
suites() {
	local kernel group
	while read -r kernel group _; do
		tr -d '\r' < "$logs/$kernel-$group.log" |
			sed -nE "s|^@@TEST ([^ ]+) rc=([0-9]+) secs=([0-9]+).*|\3 $kernel/$group \1 rc=\2|p"
	done < "$logs/times"
}

read -r runs wall busy staging < <(awk '{ r++; b += $3; s += $6; if ($5 > w) w = $5 }
	END { print r, w, b, s }' "$logs/times")
in_suites=$(suites | awk '{ s += $1 } END { print s + 0 }')
echo "times: $runs runs in ${wall}s; they took ${busy}s in all: ${in_suites}s in suites," \
     "${staging}s building initramfs, $((busy - in_suites - staging))s booting, loading and shutting down"
echo "times: longest runs (seconds from the run's start):"
sort -k3,3nr "$logs/times" | top |
	awk '{ printf "times:   %4ds  %s/%s  (%d..%d)\n", $3, $1, $2, $4, $5 }'
echo "times: longest suites:"
suites | sort -k1,1nr | top |
	awk '{ printf "times:   %4ds  %s %s%s\n", $1, $2, $3, $4 == "rc=0" ? "" : " (" $4 ")" }'
