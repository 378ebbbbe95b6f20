# SPDX-License-Identifier: GPL-2.0
"""Fixtures of the kmemdev tests: run in the VM (tests/vm/python_test.c),
as root and as a member of the device's group.

The kernel's own view each answer is checked against: /proc/kallsyms (as
root; the member gets root's copy in KMEMDEV_TEST_KALLSYMS, since the
kernel shows it zeros), /proc/PID/{stat,comm,pagemap}, /proc/version,
/proc/modules and, as root, /proc/kcore read through the kcore backend.
"""
import os

import pytest

import kmemdev

ROOT = os.geteuid() == 0
MEMBER = not ROOT
UNMAPPED = 0xFFFFFFFFFFFFF000  # the top page: a kernel address nothing maps (EFAULT)
NOT_KERNEL = 0x8000000000000000  # below the direct map, non-canonical (EINVAL)


def load_kallsyms():
    """name -> (address, type letter) of vmlinux symbols, lowest address first."""
    path = "/proc/kallsyms" if ROOT else os.environ["KMEMDEV_TEST_KALLSYMS"]
    table = {}
    with open(path, encoding="ascii", errors="replace") as f:
        for line in f:
            parts = line.split()
            if len(parts) != 3:
                continue  # a module's symbol: "addr type name [module]"
            addr, kind, name = int(parts[0], 16), parts[1], parts[2]
            if name not in table or addr < table[name][0]:
                table[name] = (addr, kind)
    assert table["init_task"][0], f"{path} shows no real addresses"
    return table


@pytest.fixture(scope="session")
def kallsyms():
    return load_kallsyms()


@pytest.fixture(scope="session")
def k():
    h = kmemdev.open()
    assert h.backend == "kmem_ro"
    yield h
    h.close()


@pytest.fixture(scope="session")
def kcore():
    """Root's /proc/kcore: the kernel's own reader, the reference for reads."""
    if not ROOT:
        pytest.skip("/proc/kcore is root's (the member's refusal: test_open.py)")
    h = kmemdev.open(backend="kcore")
    yield h
    h.close()


def task_list(k, fields):
    head = k.symbol("init_task") + k.offsetof("task_struct", "tasks")
    return k.walk(head, "task_struct.tasks", fields)


def proc_pids():
    return {int(d) for d in os.listdir("/proc") if d.isdigit()}


def proc_comm(pid):
    with open(f"/proc/{pid}/comm", encoding="utf-8", errors="surrogateescape") as f:
        return f.read().rstrip("\n")
