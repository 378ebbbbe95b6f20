#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""python_ps_bench: examples/ps.py's snapshot against drgn's task walk, one boot.

Both produce the same rows for every task on init_task.tasks: PID, state
letter, RSS (statm's, the per-CPU shares summed since 6.2) and comm.
  - ps.py: kmemdev (the Python binding) on /dev/kmem_ro, one WALK ioctl for
    the list and two READVs for the counters behind each mm (Ps.snapshot());
  - drgn (Debian's python3-drgn) on /proc/kcore, as a drgn script walks:
    list_for_each_entry("struct task_struct", &init_task.tasks, "tasks"),
    each field a drgn Object (task.pid, task.comm, task.mm.rss_stat...,
    each per-CPU share an Object at counters + __per_cpu_offset[cpu]).
    The VM's kernels come without debug info, and this drgn (0.0.22) reads
    no BTF: the types are made from the kernel's BTF (through kmemdev)
    with the members the walk uses, at their offsets, by a type finder;
    drgn's for_each_task() needs the PID hash's types too, which BTF-made
    types would only imitate, so the walk is its list_for_each_entry().
Also the walk alone (pid, state, comm: kmemdev's walk() against drgn's
list_for_each_entry() reading three Objects per task).
Timed inside this process, as root, start-up apart: the fastest of WALKS
snapshots in each of ROUNDS rounds, the two in turn, with SLEEPERS extra
tasks so that a walk lasts milliseconds.  Prints one line:
  bench python_ps kernel=... tasks=N ps_py_ms=... drgn_ms=... ratio=...
        walk_ms=... drgn_walk_ms=... walk_ratio=...
"""
import os
import subprocess
import sys
import time

sys.path[:0] = ["@TOP@/python", "@TOP@/examples"]

import drgn  # noqa: E402
from drgn import Object, TypeKind, TypeMember  # noqa: E402
from drgn.helpers.linux.list import list_for_each_entry  # noqa: E402

import kmemdev  # noqa: E402
import ps as ps_example  # noqa: E402

WALKS = 20
ROUNDS = 3
SLEEPERS = 400
TARGET = 20


def drgn_types(prog, k, ps):
    """The structs the walk reads, from BTF, for drgn's type finder."""
    types = {}
    s64 = prog.int_type("long", 8, True)
    u64 = prog.int_type("unsigned long", 8, False)
    s32 = prog.int_type("int", 4, True)
    u32 = prog.int_type("unsigned int", 4, False)
    char = prog.int_type("char", 1, True)

    def ptr(name):
        return lambda: prog.pointer_type(prog.type("struct " + name))

    def struct(name, members):
        types[name] = prog.struct_type(name, k.sizeof(name), [
            TypeMember(t, m, 8 * k.offsetof(name, m)) for t, m in members])

    struct("list_head", [(ptr("list_head"), "next"), (ptr("list_head"), "prev")])
    state = ps.fields[1].path
    struct("task_struct", [
        (types["list_head"], "tasks"), (s32, "pid"),
        (u32 if k.sizeof("task_struct", state) == 4 else s64, state),
        (s32, "exit_state"), (u32, "flags"), (ptr("mm_struct"), "mm"),
        (prog.array_type(char, 16), "comm")])
    if ps.cpus is None:  # 6.1: atomic_long_t count[NR_MM_COUNTERS]
        struct("mm_rss_stat", [(prog.array_type(s64, 4), "count")])
        rss = types["mm_rss_stat"]
    else:
        struct("percpu_counter", [(s64, "count"),
                                  (prog.pointer_type(s32), "counters")])
        rss = prog.array_type(types["percpu_counter"], 4)
    struct("mm_struct", [(rss, "rss_stat")])
    prog.add_type_finder(lambda kind, name, filename:
                         types.get(name) if kind == TypeKind.STRUCT else None)
    return u64


def drgn_snapshot(prog, init_task, state_name, cpus):
    """The same rows as Ps.snapshot(), each field a drgn Object."""
    page_kib = os.sysconf("SC_PAGESIZE") // 1024
    rows = []
    for task in list_for_each_entry("struct task_struct", init_task.tasks.address_of_(), "tasks"):
        flags = task.flags.value_()
        mm = task.mm
        rss = 0
        if mm.value_() and not flags & ps_example.PF_KTHREAD:
            for r in ps_example.RESIDENT:
                if cpus is None:
                    c = mm.rss_stat.count[r].value_()
                else:
                    fbc = mm.rss_stat[r]
                    c = fbc.count.value_()
                    base = fbc.counters.value_()
                    for off in cpus:
                        share = Object(prog, "int", address=(base + off) & ps_example.MASK)
                        c += share.value_()
                rss += max(c, 0)
        state = task.member_(state_name).value_()
        rows.append((task.pid.value_(),
                     ps_example.state_letter(state, task.exit_state.value_()),
                     rss * page_kib, task.comm.string_().decode(errors="surrogateescape")))
    return rows


def drgn_walk(init_task, state_name):
    """The walk alone: pid, state and comm of every task, as Objects."""
    return [(t.pid.value_(), t.member_(state_name).value_(), t.comm.string_())
            for t in list_for_each_entry("struct task_struct",
                                         init_task.tasks.address_of_(), "tasks")]


def best_ms(fn):
    best = None
    for _ in range(WALKS):
        t0 = time.perf_counter_ns()
        rows = fn()
        t = time.perf_counter_ns() - t0
        best = t if best is None or t < best else best
    return best / 1e6, rows


def main():
    sleepers = [subprocess.Popen(["sleep", "3600"]) for _ in range(SLEEPERS)]
    try:
        k = kmemdev.open(backend="device")
        ps = ps_example.Ps(k)
        prog = drgn.Program()
        prog.set_kernel()
        drgn_types(prog, k, ps)
        init_task = Object(prog, "struct task_struct", address=k.symbol("init_task"))
        state = ps.fields[1].path
        walk_fields = [ps.fields[0], ps.fields[1], ps.fields[5]]
        ours, theirs, our_walk, their_walk = [], [], [], []
        for _ in range(ROUNDS):
            ms, rows_k = best_ms(ps.snapshot)
            ours.append(ms)
            ms, rows_d = best_ms(lambda: drgn_snapshot(prog, init_task, state, ps.cpus))
            theirs.append(ms)
            our_walk.append(best_ms(lambda: k.walk(ps.head, "task_struct.tasks",
                                                   walk_fields))[0])
            their_walk.append(best_ms(lambda: drgn_walk(init_task, state))[0])
        # the same tasks, named alike (states and sizes may move between walks)
        same = {(r[0], r[3]) for r in rows_k} == {(r[0], r[3]) for r in rows_d}
        k.close()
    finally:
        for p in sleepers:
            p.kill()
            p.wait()
    ps_ms, drgn_ms = min(ours), min(theirs)
    walk_ms, drgn_walk_ms = min(our_walk), min(their_walk)
    accel = os.environ.get("VM_ACCEL", "?")
    print(f"bench python_ps kernel={os.uname().release} accel={accel} tasks={len(rows_k)}"
          f" walks={WALKS} rounds={ROUNDS} cpus={len(ps.cpus) if ps.cpus else 0}"
          f" ps_py_ms={ps_ms:.3f} drgn_ms={drgn_ms:.2f} ratio={drgn_ms / ps_ms:.1f}"
          f" walk_ms={walk_ms:.3f} drgn_walk_ms={drgn_walk_ms:.2f}"
          f" walk_ratio={drgn_walk_ms / walk_ms:.1f} target={TARGET} same_rows={int(same)}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
