#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# What `make demo` shows from inside the throwaway VM.
set -e
echo "# ls -l /dev/kmem_ro"
ls -l /dev/kmem_ro
echo
echo "# kmemctl info"
kmemctl info
echo
echo "# kmemctl sym init_task linux_banner"
kmemctl sym init_task linux_banner
