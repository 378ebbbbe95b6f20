# SPDX-License-Identifier: GPL-2.0
"""kmemdev.open(): backends, the context manager, and every refusal."""
import errno
import os

import pytest

import kmemdev
from conftest import MEMBER, ROOT


def test_default_is_the_device():
    with kmemdev.open() as k:
        assert k.backend == "kmem_ro"
        assert not k.closed
        assert k.fileno() >= 0
    assert k.closed
    assert "closed" in repr(k)


def test_closed_handle_refuses_every_call(kallsyms):
    k = kmemdev.open()
    k.close()
    k.close()  # idempotent
    for call in (lambda: k.read(kallsyms["init_task"][0], 8), lambda: k.symbol("init_task"),
                 lambda: k.info, lambda: k.offsetof("list_head", "next"),
                 lambda: k.readv([]), lambda: k.backend):
        with pytest.raises(ValueError, match="closed"):
            call()


def test_device_path_given():
    with kmemdev.open("/dev/kmem_ro", backend="device") as k:
        assert k.backend == "kmem_ro"


def test_kcore_backend():
    if MEMBER:
        # /proc/kcore is root's 0400: the member is refused, never let in
        with pytest.raises(PermissionError) as e:
            kmemdev.open(backend="kcore")
        assert e.value.errno == errno.EACCES
        return
    with kmemdev.open(backend="kcore") as k:
        assert k.backend == "kcore"
        with pytest.raises(OSError) as e:
            k.fileno()
        assert e.value.errno == errno.EINVAL


def test_no_such_device():
    with pytest.raises(FileNotFoundError) as e:
        kmemdev.open("/nonexistent/kmem_ro", backend="device")
    assert e.value.errno == errno.ENOENT
    assert "kmem_ro module" in e.value.strerror
    assert e.value.filename == "/nonexistent/kmem_ro"


def test_not_a_kmem_ro_device():
    with pytest.raises(OSError) as e:
        kmemdev.open("/dev/null", backend="device")
    assert e.value.errno == errno.ENOTTY
    assert "not a kmem_ro device" in e.value.strerror


def test_a_directory():
    with pytest.raises(IsADirectoryError) as e:
        kmemdev.open("/tmp", backend="device")
    assert e.value.errno == errno.EISDIR


@pytest.mark.skipif(MEMBER, reason="root: a readable file that is no core file")
def test_kcore_path_not_a_core_file():
    with pytest.raises(OSError) as e:
        kmemdev.open("/proc/version", backend="kcore")
    assert e.value.errno == errno.ENOEXEC


def test_unknown_backend():
    with pytest.raises(ValueError, match="unknown backend"):
        kmemdev.open(backend="mmap")


def test_path_type():
    with pytest.raises(TypeError):
        kmemdev.open(42, backend="device")


def test_non_member_is_refused():
    """Outside the device's group: EACCES, and no fallback to /proc/kcore."""
    if MEMBER:
        pytest.skip("root's run drops to a user outside the group")
    pid = os.fork()
    if pid == 0:
        code = 4
        try:
            os.setgroups([])
            os.setgid(65534)
            os.setuid(65534)
            kmemdev.open()
            code = 3
        except PermissionError as e:
            code = 0 if e.errno == errno.EACCES else 2
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


def test_member_is_in_the_group():
    if ROOT:
        pytest.skip("the member's run")
    assert int(os.environ["KMEMDEV_TEST_MONITOR_GID"]) in os.getgroups()
    assert os.getuid() == 1000


def test_library_version():
    assert kmemdev.library_version().count(".") == 2
