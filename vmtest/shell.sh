#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `make vm-shell`: an interactive shell in the test VM (kmem_ro loaded,
# kmemctl on PATH); exit (or Ctrl-D) unloads the module and powers off.
# Ctrl-A X quits QEMU at once.
echo "kmem_ro loaded ($(uname -r)); kmemctl info, kmemctl ps, ...; exit to power off"
setsid cttyhack sh -l
