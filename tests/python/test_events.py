# SPDX-License-Identifier: GPL-2.0
"""Module events: kmem_ro_testobj unloaded and loaded again, as root;
the member's refusal to subscribe."""
import errno
import subprocess
import sys

import pytest

import kmemdev
from conftest import MEMBER

TESTOBJ = "kmem_ro_testobj"


def module_line(name):
    with open("/proc/modules") as f:
        return next((x.split() for x in f if x.startswith(name + " ")), None)


def test_member_may_not_subscribe(k):
    if not MEMBER:
        pytest.skip("the member's run")
    with pytest.raises(PermissionError) as e:
        k.events()
    assert e.value.errno == errno.EPERM


def test_no_group(k):
    with pytest.raises(OSError) as e:
        k.events(modules=False, snapshots=False)
    assert e.value.errno == errno.EINVAL


@pytest.mark.skipif(MEMBER, reason="joining needs CAP_SYS_ADMIN")
def test_unload_and_load(k):
    assert module_line(TESTOBJ)
    with kmemdev.open() as h, h.events() as ev:
        assert ev.next(timeout=0) is None
        subprocess.run(["rmmod", TESTOBJ], check=True)
        e = ev.next(timeout=30)
        assert isinstance(e, kmemdev.ModuleEvent)
        assert (e.type, e.name) == ("unloaded", TESTOBJ)
        # the bound handle's symbols follow: the module's are gone
        with pytest.raises(FileNotFoundError):
            h.symbol("testobj_show")
        subprocess.run(["insmod", f"/lib/{TESTOBJ}.ko"], check=True)
        e = ev.next(timeout=30)
        assert (e.type, e.name) == ("loaded", TESTOBJ)
        line = module_line(TESTOBJ)
        assert e.base == int(line[5], 16) and e.size == int(line[1])
        assert e.seq >= 1
        assert h.symbolize(h.symbol("testobj_show")).module == TESTOBJ
        dropped, _ = ev.info()
        assert dropped == 0
    with pytest.raises(ValueError):
        ev.next(timeout=0)


@pytest.mark.skipif(MEMBER, reason="snapshots need CAP_PERFMON")
def test_snapshots(k):
    with kmemdev.open() as h, h.probes() as p, h.events(modules=False, snapshots=True) as ev:
        pid = p.add("__x64_sys_getppid", enabled=True)
        sid = h.snapshots(100)
        e = ev.next(timeout=30)
        assert isinstance(e, kmemdev.SnapshotEvent)
        assert e.id == sid and pid in e.counts and e.total == 1
        h.snapshots(0)
    with pytest.raises(OSError) as e:
        k.snapshots(0)  # none running
    assert e.value.errno == errno.ENOENT
    with pytest.raises(OSError) as e:
        k.snapshots(5)  # below KMEM_RO_EVENTS_SNAPSHOT_MIN_MS
    assert e.value.errno == errno.EINVAL


@pytest.mark.skipif(MEMBER, reason="joining needs CAP_SYS_ADMIN")
def test_fileno_while_next_waits():
    """fileno() while another thread waits in next(): neither waits for the
    stream's lock holding the GIL (that hung the whole interpreter), so it
    runs in a child process, its hang bound by the timeout."""
    code = (
        "import threading, time, kmemdev\n"
        "k = kmemdev.open()\n"
        "ev = k.events()\n"
        "t = threading.Thread(target=lambda: ev.next(timeout=3))\n"
        "t.start()\n"
        "time.sleep(0.5)\n"
        "fds = {ev.fileno() for _ in range(20)}\n"
        "t.join()\n"
        "print('ok', len(fds))\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=120)
    assert r.stdout.split() == ["ok", "1"], r.stderr
