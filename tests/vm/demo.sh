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
echo
echo "# kmemctl ps --backend walk   (one ioctl for the whole task list)"
kmemctl ps --backend walk | head -12
echo
echo "# kmemctl read linux_banner 48"
kmemctl read linux_banner 48
