#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# What `make demo` shows from inside the throwaway VM: the commands README
# shows, in its order.
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
echo "# kmemctl struct task_struct.comm init_task"
kmemctl struct task_struct.comm init_task
echo
echo "# kmemctl struct task_struct init_task --depth 1 | head -6"
kmemctl struct task_struct init_task --depth 1 | head -6
echo
echo "# kmemctl list task_struct.tasks --node init_task --fields pid,comm,real_parent | head -4"
kmemctl list task_struct.tasks --node init_task --fields pid,comm,real_parent | head -4
echo
echo "# kmemctl modules"
kmemctl modules
