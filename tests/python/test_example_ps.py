# SPDX-License-Identifier: GPL-2.0
"""examples/ps.py: its rows against /proc/PID/{stat,statm,comm}."""
import importlib.util
import os
import subprocess
import sys

import pytest

from conftest import proc_comm, proc_pids

PS_PY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "ps.py")


@pytest.fixture(scope="module")
def ps():
    spec = importlib.util.spec_from_file_location("ps_example", PS_PY)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def proc_stat_letter(pid):
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()[0]


def proc_rss_kib(pid):
    with open(f"/proc/{pid}/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGESIZE") // 1024


def test_rows_are_proc(k, ps):
    before = proc_pids()
    rows = {r[0]: r for r in ps.Ps(k).snapshot()}
    assert before & proc_pids() <= set(rows)
    # init waits for the suite, kthreadd sleeps: states and sizes hold still
    for pid in (1, 2):
        _, state, rss, comm = rows[pid]
        assert (state, rss, comm) == (proc_stat_letter(pid), proc_rss_kib(pid), proc_comm(pid))
    assert rows[1][2] > 0 and rows[2][2] == 0
    # every kernel thread (no mm): RSS 0, as statm's
    for pid, (_, _, rss, _) in rows.items():
        if pid in before and rss == 0:
            try:
                assert proc_rss_kib(pid) == 0
            except FileNotFoundError:
                pass  # exited meanwhile


def test_state_letters(ps):
    assert ps.state_letter(0, 0) == "R"
    assert ps.state_letter(1, 0) == "S"
    assert ps.state_letter(0x2001, 0) == "S"   # TASK_FREEZABLE is not reported
    assert ps.state_letter(2, 0) == "D"
    assert ps.state_letter(0x402, 0) == "I"
    assert ps.state_letter(0, 0x20) == "Z"
    assert ps.state_letter(0x8001, 0) == "D"   # frozen


def test_runs_as_a_program():
    out = subprocess.run([sys.executable, PS_PY], capture_output=True, text=True, check=True).stdout
    lines = out.splitlines()
    assert lines[0].split() == ["PID", "S", "RSS", "COMM"]
    assert any(line.split()[0] == "1" for line in lines[1:])
    out = subprocess.run([sys.executable, PS_PY, "--loop", "3"], capture_output=True,
                         text=True, check=True).stdout
    assert "snapshots: 3" in out
