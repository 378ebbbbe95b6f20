# SPDX-License-Identifier: GPL-2.0
"""walk(): the task list in one WALK call, against /proc."""
import errno
import os

import pytest

from conftest import NOT_KERNEL, proc_comm, proc_pids, task_list


def test_tasks_are_procs(k):
    before = proc_pids()
    tasks = task_list(k, ["pid", "tgid", "comm"])
    after = proc_pids()
    pids = {t.pid for t in tasks}
    # the list holds thread-group leaders, as /proc lists processes
    assert all(t.pid == t.tgid for t in tasks)
    assert before & after <= pids, sorted((before & after) - pids)
    assert pids <= before | after
    by_pid = {t.pid: t for t in tasks}
    for pid in (1, 2, os.getpid()):
        assert by_pid[pid].comm == proc_comm(pid)


def test_node_addresses_read_back(k):
    tasks = task_list(k, ["pid", "comm"])
    off = k.offsetof("task_struct", "pid")
    for t in tasks[:20]:
        assert k.read_s32(t.addr + off) == t.pid
        assert t[1] == t.pid and t[0] == t.addr


def test_state_is_proc_stat(k):
    """A sleeping process: TASK_INTERRUPTIBLE among the reported bits, 'S' in /proc/1/stat."""
    try:
        state = k.member("task_struct", "__state")
    except FileNotFoundError:
        state = k.member("task_struct", "state")
    t = next(t for t in task_list(k, ["pid", state]) if t.pid == 1)
    with open("/proc/1/stat") as f:
        letter = f.read().rsplit(")", 1)[1].split()[0]
    # fs/proc/array.c: the letter of the highest bit of state & TASK_REPORT
    assert letter == "S" and t[2] & 0x7F == 1


def test_field_objects_and_names(k):
    f = k.member("task_struct", "se.group_node")
    tasks = task_list(k, [f, "comm"])
    assert type(tasks[0]).__match_args__ == ("addr", "se_group_node", "comm")
    assert tasks[0][2] == tasks[0].comm and len(tasks[0]) == 3
    assert isinstance(tasks[0].se_group_node, bytes) and len(tasks[0].se_group_node) == 16


def test_walk_errors(k):
    head = k.symbol("init_task") + k.offsetof("task_struct", "tasks")
    with pytest.raises(OSError) as e:
        k.walk(head, "task_struct.tasks", [])
    assert e.value.errno == errno.EINVAL             # no fields
    with pytest.raises(OSError) as e:
        k.walk(head, "task_struct.tasks", ["pid"] * 65)
    assert e.value.errno == errno.E2BIG              # KMEM_RO_WALK_MAX_FIELDS
    with pytest.raises(OSError) as e:
        k.walk(head, "task_struct.tasks", [k.member("task_struct", "")])
    assert e.value.errno == errno.E2BIG              # a record over 4096 bytes
    with pytest.raises(OSError) as e:
        k.walk(NOT_KERNEL, "task_struct.tasks", ["pid"])
    assert e.value.errno == errno.EINVAL             # head outside the kernel
    with pytest.raises(FileNotFoundError):
        k.walk(head, "task_struct.tasks", ["no_such_member"])
    with pytest.raises(FileNotFoundError):
        k.walk(head, "task_struct.no_such_link", ["pid"])
    with pytest.raises(ValueError):
        k.walk(head, "task_struct", ["pid"])
    with pytest.raises(ValueError):
        k.walk(head, "task_struct.tasks", ["pid"], max_nodes=-1)


def test_max_nodes_keeps_what_was_read(k):
    head = k.symbol("init_task") + k.offsetof("task_struct", "tasks")
    with pytest.raises(OSError) as e:
        k.walk(head, "task_struct.tasks", ["pid"], max_nodes=2)
    assert e.value.errno == errno.E2BIG
    assert len(e.value.nodes) == 2
    assert e.value.nodes[0][1] == 1  # init, the first task after init_task


def test_walk_fault(k):
    """A head whose ->next points nowhere: the fault and where it was."""
    # list_head.next of a zeroed word in the kernel: NULL is not a kernel address
    zero = next(a for a in range(k.symbol("init_task"), k.symbol("init_task") + 4096, 8)
                if k.read_u64(a) == 0 and k.read_u64(a + 8) == 0)
    with pytest.raises(OSError) as e:
        k.walk(zero, "list_head.next", ["next"])
    assert e.value.errno in (errno.EINVAL, errno.EFAULT)
    assert e.value.nodes == []


def test_walk_on_kcore(kcore):
    head = kcore.symbol("init_task") + kcore.offsetof("task_struct", "tasks")
    with pytest.raises(OSError) as e:
        kcore.walk(head, "task_struct.tasks", ["pid"])
    assert e.value.errno == errno.EOPNOTSUPP
