#!/usr/bin/python3 -S
# SPDX-License-Identifier: GPL-2.0
"""drgn (Debian's python3-drgn) reading kernel memory through /proc/kcore.

kcore_preload_test runs it with and without LD_PRELOAD=libkmemdev-kcore.so
and compares what it wrote.

    kcore_drgn_reader.py SPEC OUT   the "v", "u" and "r" lines of a kcore_reader
                                    spec, read with Program.read()
    kcore_drgn_reader.py --walk INIT_TASK TASKS PID COMM OUT
                                    "pid comm" of every task, following
                                    init_task.tasks (addresses and member
                                    offsets given: no debug info needed)
    kcore_drgn_reader.py --files    the files the guest needs to run it
"""
import sys

sys.path.append("/usr/lib/python3/dist-packages")
import os  # noqa: E402
import zlib  # noqa: E402

import drgn  # noqa: E402

MASK = (1 << 64) - 1


def xorshift():
    """kcore_reader's generator: the same addresses as its "r" lines."""
    x = 0x9E3779B97F4A7C15
    while True:
        x ^= x >> 12
        x ^= (x << 25) & MASK
        x ^= x >> 27
        yield (x * 0x2545F4914F6CDD1D) & MASK


def read(prog, out, op, addr, n):
    try:
        data = prog.read(addr, n)
    except drgn.FaultError:
        out.write(f"{op} {addr:#x} {n} fault\n")
        return
    # "u": freed memory others reuse, its bytes differ from run to run
    crc = "live" if op == "u" else f"{zlib.crc32(data):08x}"
    out.write(f"{op} {addr:#x} {n} {len(data)} {crc}\n")


def files():
    """This interpreter and every module file it loaded (with its .pyc)."""
    import importlib.util

    found = {sys.executable}
    for mod in list(sys.modules.values()):
        path = getattr(mod, "__file__", None)
        if not path:
            continue
        found.add(path)
        if path.endswith(".py"):
            try:
                pyc = importlib.util.cache_from_source(path)
            except NotImplementedError:
                continue
            try:
                open(pyc, "rb").close()
                found.add(pyc)
            except OSError:
                pass
    return sorted(found)


def walk_once(prog, init_task, tasks, pid, comm):
    """The task list as ps would list it, less this process."""
    head = init_task + tasks
    lines = []
    task, node = init_task, prog.read_u64(head)
    while True:
        p = prog.read_u32(task + pid)
        name = prog.read(task + comm, 16).split(b"\0")[0].decode("ascii", "replace")
        if p != os.getpid():
            lines.append(f"{p} {name}\n")
        if node == head:
            break
        task, node = node - tasks, prog.read_u64(node)
        if len(lines) > 100000:
            raise RuntimeError("task list does not end")
    return lines


def walk(init_task, tasks, pid, comm, out_path):
    """Walk; KCORE_WALK_REPEAT=N walks N times and writes OUT.time:
    "set_kernel_ns S walk_ns W tasks T first_walk F0 F1" (W: the fastest
    walk; F0, F1: when the first began and ended, CLOCK_MONOTONIC ns, to
    pick its reads from a pread trace) for the bench."""
    import time

    repeat = int(os.environ.get("KCORE_WALK_REPEAT", "1"))
    t0 = time.perf_counter_ns()
    prog = drgn.Program()
    prog.set_kernel()
    setup = time.perf_counter_ns() - t0
    best = first = None
    for _ in range(repeat):
        t0 = time.perf_counter_ns()
        lines = walk_once(prog, init_task, tasks, pid, comm)
        t1 = time.perf_counter_ns()
        first = first or (t0, t1)
        best = t1 - t0 if best is None or t1 - t0 < best else best
    with open(out_path, "w") as out:
        out.writelines(lines)
    if "KCORE_WALK_REPEAT" in os.environ:
        with open(out_path + ".time", "w") as out:
            out.write(f"set_kernel_ns {setup} walk_ns {best} tasks {len(lines)}"
                      f" first_walk {first[0]} {first[1]}\n")
    return 0


def main():
    if sys.argv[1:] == ["--files"]:
        print("\n".join(files()))
        return 0
    if sys.argv[1:2] == ["--walk"]:
        args = [int(x, 0) for x in sys.argv[2:6]]
        return walk(*args, sys.argv[6])
    spec, out_path = sys.argv[1:]
    prog = drgn.Program()
    prog.set_kernel()
    rnd = xorshift()
    with open(spec) as f, open(out_path, "w", buffering=1 << 20) as out:
        for line in f:
            w = line.split()
            if w and w[0] in ("v", "u"):
                read(prog, out, w[0], int(w[1], 0), int(w[2], 0))
            elif w and w[0] == "r":
                start, end, count, most = (int(x, 0) for x in w[1:5])
                for _ in range(count):
                    addr = start + next(rnd) % (end - start)
                    n = min(1 + next(rnd) % most, end - addr)
                    read(prog, out, "r", addr, n)
    return 0


if __name__ == "__main__":
    sys.exit(main())
