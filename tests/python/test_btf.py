# SPDX-License-Identifier: GPL-2.0
"""BTF: offsetof, sizeof and member paths; each offset proved by a read
that the kernel's /proc shows the same way."""
import errno
import os

import pytest

from conftest import proc_comm, task_list


def test_list_head(k):
    assert k.member("list_head", "next") == ("next", 0, 8, "ptr")
    assert k.offsetof("list_head", "prev") == 8
    assert k.sizeof("list_head") == 16
    assert k.sizeof("struct list_head") == 16
    assert k.sizeof("list_head", "prev") == 8


def test_comm_is_proc_comm(k):
    """task_struct.comm at the offset BTF gives holds what /proc/self/comm shows."""
    f = k.member("task_struct", "comm")
    assert (f.size, f.kind) == (16, "str")
    me = [t for t in task_list(k, ["pid"]) if t.pid == os.getpid()]
    assert len(me) == 1
    raw = k.read(me[0].addr + f.offset, f.size)
    assert raw.split(b"\0")[0].decode() == proc_comm(os.getpid())


def test_nested_path(k):
    se = k.offsetof("task_struct", "se")
    assert k.offsetof("task_struct", "se.group_node") == se + k.offsetof("sched_entity", "group_node")
    assert k.offsetof("task_struct", "se->group_node") == k.offsetof("task_struct", "se.group_node")
    assert k.member("task_struct", "se.group_node.next").kind == "ptr"


def test_array_index(k):
    rlim = k.offsetof("signal_struct", "rlim")
    size = k.sizeof("rlimit")
    assert k.offsetof("signal_struct", "rlim[7]") == rlim + 7 * size
    assert k.offsetof("signal_struct", "rlim[7].rlim_max") == \
        rlim + 7 * size + k.offsetof("rlimit", "rlim_max")


def test_kinds(k):
    assert k.member("task_struct", "pid").kind == "int"         # pid_t
    assert k.member("task_struct", "mm").kind == "ptr"
    assert k.member("task_struct", "tasks").kind == "bytes"     # a struct
    assert k.member("list_head", "").kind == "bytes"
    assert k.member("list_head", "").size == 16


@pytest.mark.parametrize("type,path,err", [
    ("no_such_type_kmemdev", "x", errno.ENOENT),
    ("task_struct", "no_such_member", errno.ENOENT),
    ("task_struct", "se.no_such_member", errno.ENOENT),
    ("task_struct", "signal.rlim", errno.EINVAL),        # through a pointer
    ("task_struct", "comm.", errno.EINVAL),
    ("task_struct", "se..group_node", errno.EINVAL),
    ("task_struct", "comm[", errno.EINVAL),
    ("task_struct", "pid[0]", errno.EINVAL),             # not an array
    ("task_struct", "comm[x]", errno.EINVAL),
    ("task_struct", "comm[-1]", errno.EINVAL),
    ("task_struct", "comm[16]", errno.ERANGE),           # past the array
    ("signal_struct", "rlim[99]", errno.ERANGE),
    ("task_struct", "sched_reset_on_fork", errno.EINVAL),  # a bitfield
])
def test_bad_paths(k, type, path, err):
    with pytest.raises(OSError) as e:
        k.member(type, path)
    assert e.value.errno == err
    assert e.value.strerror
    assert e.value.filename.startswith(type)


def test_sizeof_no_such_type(k):
    with pytest.raises(FileNotFoundError) as e:
        k.sizeof("no_such_type_kmemdev")
    assert "no such type" in e.value.strerror


def test_argument_types(k):
    with pytest.raises(TypeError):
        k.offsetof("task_struct", 5)
    with pytest.raises(TypeError):
        k.sizeof(None)


def test_kcore_has_btf_too(kcore, k):
    assert kcore.offsetof("task_struct", "comm") == k.offsetof("task_struct", "comm")


def test_answers_kept_but_not_past_close():
    import kmemdev
    h = kmemdev.open()
    f = h.member("task_struct", "comm")
    assert h.member("task_struct", "comm") is f  # kept: BTF is the handle's
    h.close()
    with pytest.raises(ValueError, match="closed"):
        h.member("task_struct", "comm")
