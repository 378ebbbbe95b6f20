# SPDX-License-Identifier: GPL-2.0
"""Probes: add, enable, count, remove, as root; the member's refusals."""
import errno
import os

import pytest

import kmemdev
from conftest import MEMBER, ROOT

FN = "__x64_sys_getppid"


@pytest.fixture
def probes():
    with kmemdev.open() as k:
        yield k, k.probes()


@pytest.mark.skipif(MEMBER, reason="adding needs CAP_PERFMON (the member's EPERM: below)")
def test_counts_are_this_process_calls(probes):
    k, p = probes
    with p:
        pid = p.add(FN, enabled=True)
        assert pid > 0
        p.filter(pid=os.getpid())
        p.counts(reset=True)
        for _ in range(25):
            os.getppid()
        assert p.counts([pid]) == [25]
        assert p.counts() == {pid: 25}
        (info,) = p.list()
        assert (info.id, info.hits) == (pid, 25)
        assert info.flags & kmemdev.PROBE_ENABLED
        assert info.addr == k.symbol(FN) and info.owner == os.getpid()
        # the kernel's name for the address: FN or an alias of it
        assert k.symbol(info.name) == info.addr
        p.disable()
        os.getppid()
        assert p.counts([pid], reset=True) == [25]
        p.enable([pid])
        os.getppid()
        assert p.counts([pid]) == [1]
    assert p.list() == []  # leaving the block removed it


@pytest.mark.skipif(MEMBER, reason="adding needs CAP_PERFMON")
def test_per_spec_results(probes):
    k, p = probes
    with p:
        res = p.add([FN, "no_such_function_kmemdev", FN, ("schedule", 1)])
        assert isinstance(res[0], int) and res[0] > 0
        assert isinstance(res[1], FileNotFoundError) and res[1].filename == "no_such_function_kmemdev"
        assert isinstance(res[2], FileExistsError) and res[2].errno == errno.EEXIST
        # one byte into schedule: inside an instruction, or a kprobe there
        assert isinstance(res[3], (int, OSError))
        if isinstance(res[3], OSError):
            assert res[3].errno == errno.EINVAL
        with pytest.raises(FileNotFoundError):
            p.add("no_such_function_kmemdev")
        with pytest.raises(OSError) as e:
            p.add("linux_banner")  # a data symbol: no text symbol of that name
        assert e.value.errno == errno.ENOENT


@pytest.mark.skipif(MEMBER, reason="adding needs CAP_PERFMON")
def test_unknown_ids(probes):
    k, p = probes
    with p:
        p.add(FN)
        for call in (lambda: p.enable([999999]), lambda: p.disable([999999]),
                     lambda: p.remove([999999]), lambda: p.counts([999999])):
            with pytest.raises(FileNotFoundError) as e:
                call()
            assert e.value.errno == errno.ENOENT
            assert "no such probe id" in e.value.strerror
        with pytest.raises(OverflowError):
            p.enable([-1])
        with pytest.raises(TypeError):
            p.enable(["1"])


def test_member_may_not_add(probes):
    k, p = probes
    if ROOT:
        pytest.skip("the member's run")
    with pytest.raises(PermissionError) as e:
        p.add(FN)
    assert e.value.errno == errno.EPERM
    assert "CAP_PERFMON" in e.value.strerror
    # counts and lists need only the handle
    assert p.list() == [] and p.counts() == {}
    with pytest.raises(PermissionError):
        p.filter(pid=os.getpid())


def test_filter_errors(probes):
    k, p = probes
    if MEMBER:
        pytest.skip("the filter needs CAP_PERFMON: the member's EPERM above")
    with pytest.raises(OSError) as e:
        p.filter(pid=4194303)
    assert e.value.errno == errno.ESRCH
    with pytest.raises(OSError) as e:
        p.filter(comm="x" * 16)
    assert e.value.errno == errno.ENAMETOOLONG
    with pytest.raises(OSError) as e:
        p.filter(pid=0)
    assert e.value.errno == errno.EINVAL
    p.filter()  # clears


def test_glob(probes):
    k, p = probes
    syms = p.glob("__x64_sys_getpp*")
    assert FN in [s.name for s in syms]
    assert all(s.type in "tT" for s in syms)
    assert p.glob("no_such_function_kmemdev*") == []
    with pytest.raises(OSError) as e:
        p.glob("")
    assert e.value.errno == errno.EINVAL


def test_probes_on_kcore(kcore):
    with pytest.raises(OSError) as e:
        kcore.probes().add(FN)
    assert e.value.errno == errno.EOPNOTSUPP
