# SPDX-License-Identifier: GPL-2.0
"""pagemap(): this process's page tables, against /proc/self/pagemap."""
import ctypes
import errno
import mmap
import os
import struct

import pytest

import kmemdev
from conftest import MEMBER

PAGE = os.sysconf("SC_PAGESIZE")


def proc_pagemap(start, end):
    with open("/proc/self/pagemap", "rb") as f:
        f.seek(start // PAGE * 8)
        data = f.read((end - start) // PAGE * 8)
    return list(struct.unpack(f"{len(data) // 8}Q", data))


@pytest.fixture
def region():
    """8 anonymous pages, 0, 1 and 5 touched."""
    m = mmap.mmap(-1, 8 * PAGE)
    for i in (0, 1, 5):
        m[i * PAGE] = 1
    c = ctypes.c_char.from_buffer(m)
    addr = ctypes.addressof(c)
    yield addr, addr + 8 * PAGE
    del c
    m.close()


def test_entries_are_proc_pagemap(k, region):
    start, end = region
    assert k.pagemap(os.getpid(), start, end, runs=False) == proc_pagemap(start, end)
    assert k.pagemap(0, start, end, runs=False) == proc_pagemap(start, end)


def test_runs_expand_to_proc_pagemap(k, region):
    start, end = region
    runs = k.pagemap(os.getpid(), start, end)
    assert runs[0].start == start
    assert sum(r.pages for r in runs) == 8
    flat = [r.entry(r.start + i * PAGE) for r in runs for i in range(r.pages)]
    want = proc_pagemap(start, end)
    assert flat == want
    assert [bool(e & kmemdev.PM_PRESENT) for e in want] == \
        [True, True, False, False, False, True, False, False]
    if MEMBER:  # no CAP_SYS_ADMIN: PFNs hidden, as /proc hides them
        assert all(r.frame == 0 for r in runs)


@pytest.mark.parametrize("pid,start,end,err", [
    (0, 1, 2 * PAGE, errno.EINVAL),            # not page aligned
    (0, 2 * PAGE, PAGE, errno.EINVAL),         # reversed
    (0, PAGE, PAGE, errno.EINVAL),             # empty
    (0, PAGE, 1 << 63, errno.EINVAL),          # beyond user space
    (-1, PAGE, 2 * PAGE, errno.EINVAL),        # a negative pid
    (4194303, PAGE, 2 * PAGE, errno.ESRCH),    # no such process
    (2, PAGE, 2 * PAGE, errno.ESRCH),          # kthreadd: a kernel thread
])
@pytest.mark.parametrize("runs", [True, False])
def test_bad_arguments(k, pid, start, end, err, runs):
    with pytest.raises(OSError) as e:
        k.pagemap(pid, start, end, runs=runs)
    assert e.value.errno == err
    assert e.value.filename == f"pid {pid}"


def test_other_process(k):
    """pid 1 is root's: the member lacks CAP_SYS_PTRACE (EPERM), root reads it."""
    if MEMBER:
        with pytest.raises(PermissionError) as e:
            k.pagemap(1, PAGE, 1 << 30)
        assert e.value.errno == errno.EPERM
    else:
        runs = k.pagemap(1, PAGE, 1 << 30)
        assert sum(r.pages for r in runs) == (1 << 30) // PAGE - 1


def test_argument_types(k):
    with pytest.raises(OverflowError):
        k.pagemap(0, -PAGE, PAGE)
    with pytest.raises(TypeError):
        k.pagemap(0, "0x1000", 2 * PAGE)


def test_pagemap_on_kcore(kcore):
    with pytest.raises(OSError) as e:
        kcore.pagemap(0, PAGE, 2 * PAGE)
    assert e.value.errno == errno.EOPNOTSUPP
