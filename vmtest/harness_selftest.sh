#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of check-harness.sh: misbehave in the way $selftest (from the
# kernel command line) names, so the host can prove the harness notices.
case "$selftest" in
warn)	echo "WARNING: CPU: 0 PID: 1 at harness_selftest.sh:1 injected" > /dev/kmsg ;;
leak)	sleep 100000 < /dev/kmem_ro &	# still open at rmmod time
	sleep 1 ;;
fail)	exit 1 ;;
hang)	sleep 100000 ;;
*)	echo "unknown selftest '$selftest'"; exit 1 ;;
esac
exit 0
