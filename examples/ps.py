#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
"""ps.py: PID, state, RSS and name of every process, from the kernel's task list.

    ps.py                 the table
    ps.py --loop N        N snapshots, then the time per snapshot

One WALK ioctl gathers pid, state, flags, mm and comm of every task on
init_task.tasks (thread-group leaders and kernel threads, as ps lists
them); one READV then reads the counters behind every mm and, since 6.2, one
READV per CPU their per-CPU shares.
RSS is /proc/PID/statm's resident size (task_statm(), fs/proc/task_mmu.c):
the MM_FILEPAGES, MM_ANONPAGES and MM_SHMEMPAGES counters, each clamped
at 0.  In 6.1 a counter is an atomic_long_t (mm->rss_stat.count[]); since
6.2 a struct percpu_counter, which 6.12's and 7.3's statm sum: ->count
plus each possible CPU's s32 at ->counters (percpu_counter_sum_positive()).
Kernel threads have no mm: RSS 0.  The list is read without a lock, as
kcore readers read it.

Runs as root or as a member of the device's group (the kmem_ro module
loaded); offsets come from the kernel's BTF.
"""
import argparse
import os
import struct
import sys
import time
from functools import lru_cache
from itertools import chain, repeat
from operator import add, and_, itemgetter, sub

import kmemdev

RESIDENT = (0, 1, 3)     # MM_FILEPAGES, MM_ANONPAGES, MM_SHMEMPAGES
PF_KTHREAD = 0x00200000  # include/linux/sched.h
MAX_CPUS = 8192
MASK = (1 << 64) - 1


def state_letter(state, exit_state):
    """The letter of /proc/PID/stat (fs/proc/array.c: task_state_array)."""
    st = (state | exit_state) & 0x7F      # TASK_REPORT
    if state & 0x0402 == 0x0402:          # TASK_IDLE: uninterruptible, no load
        st = 0x80
    if state & (0x1000 | 0x8000):         # RT-lock waits, frozen: 'D'
        st = 0x0002
    return "RSDTtXZPI"[st.bit_length()]


class Ps:
    """The task list's layout, resolved once per handle; snapshot() reads it."""

    def __init__(self, k):
        self.k = k
        self.head = k.symbol("init_task") + k.offsetof("task_struct", "tasks")
        try:
            state = k.member("task_struct", "__state")    # 5.14 and later
        except FileNotFoundError:
            state = k.member("task_struct", "state")
        self.fields = [k.member("task_struct", "pid"), state,
                       k.member("task_struct", "exit_state"),
                       k.member("task_struct", "flags"),
                       k.member("task_struct", "mm"),
                       k.member("task_struct", "comm")]
        self.rss_off = k.offsetof("mm_struct", "rss_stat")
        self.rss_size = k.sizeof("mm_struct", "rss_stat")
        stride = self.rss_size // 4              # NR_MM_COUNTERS
        try:
            # 6.1: struct mm_rss_stat { atomic_long_t count[NR_MM_COUNTERS]; }
            count = k.offsetof("mm_rss_stat", "count")
            self.cpus = None
            places = [(r * stride + count, "q") for r in RESIDENT]
        except FileNotFoundError:
            # 6.2+: struct percpu_counter rss_stat[NR_MM_COUNTERS]
            count = k.offsetof("percpu_counter", "count")
            pcp = k.offsetof("percpu_counter", "counters")
            self.cpus = self._cpu_offsets()
            places = sorted([(r * stride + count, "q") for r in RESIDENT] +
                            [(r * stride + pcp, "Q") for r in RESIDENT])
        # the counters (and per-CPU pointers) of one mm's rss_stat, in one unpack
        fmt, at = "<", 0
        for off, code in places:
            fmt += f"{off - at}x{code}"
            at = off + 8
        self.rss = struct.Struct(fmt)
        self.page_kib = os.sysconf("SC_PAGESIZE") // 1024
        self.letter = lru_cache(maxsize=None)(state_letter)

    def _shares(self, ptrs):
        """Each counter's per-CPU share, CPU by CPU, in the order of ptrs.

        Since 6.7 an mm's counters share one per-CPU allocation
        (percpu_counter_init_many(), lib/percpu_counter.c), a share every
        ALIGN(sizeof(s32), sizeof(long)) bytes: when every mm's three
        pointers say so, one 32-byte read per mm and CPU gets them all;
        else one read per share.
        """
        k, cpus = self.k, self.cpus
        p0, p1, p3 = ptrs[0::3], ptrs[1::3], ptrs[2::3]
        step = p1[0] - p0[0] if p0 else 0
        if 4 <= step <= 8 and set(map(sub, p1, p0)) == {step} and \
                set(map(sub, p3, p0)) == {3 * step}:
            unpack = struct.Struct(f"<i{step - 4}xi{2 * step - 4}xi").unpack
            size = 3 * step + 4
            out = []
            for off in cpus:
                blocks = k.readv(zip(map(and_, map(add, p0, repeat(off)), repeat(MASK)),
                                     repeat(size)))
                try:
                    out += chain.from_iterable(map(unpack, blocks))
                except TypeError:
                    raise next(b for b in blocks if isinstance(b, OSError)) from None
            return out
        addrs = []
        for off in cpus:
            addrs += map(and_, map(add, ptrs, repeat(off)), repeat(MASK))
        return k.readv_ints(addrs, 4, True)

    def _cpu_offsets(self):
        """__per_cpu_offset of each possible CPU (setup_per_cpu_areas() set
        them all different; the others keep one boot value)."""
        k = self.k
        nr = min(k.sizeof("cpumask", "bits") * 8, MAX_CPUS)
        ids = k.read_u32("nr_cpu_ids")
        if 0 < ids < nr:
            nr = ids
        raw = k.read("__per_cpu_offset", 8 * nr)
        off = [int.from_bytes(raw[i:i + 8], "little") for i in range(0, 8 * nr, 8)]
        if off.count(off[-1]) == 1:
            return off
        return [o for o in off if o != off[-1]]

    def snapshot(self):
        """[(pid, state letter, RSS in KiB, comm)], in list order."""
        k = self.k
        tasks = k.walk(self.head, "task_struct.tasks", self.fields)
        # fields: 1 pid, 2 state, 3 exit_state, 4 flags, 5 mm, 6 comm
        user = [t for t in tasks if t[5] and not t[4] & PF_KTHREAD]
        # every mm's rss_stat, one READV; a task that exited meanwhile fails it
        blocks = k.readv([(t[5] + self.rss_off, self.rss_size) for t in user])
        try:
            vals = list(map(self.rss.unpack, blocks))
        except TypeError:
            raise next(b for b in blocks if isinstance(b, OSError)) from None
        flat = list(chain.from_iterable(vals))
        if self.cpus is None:
            counts = flat
        else:
            # each counter's per-CPU shares, one more READV, CPU by CPU
            # (per_cpu_ptr(): the percpu pointer plus the CPU's offset, mod 2**64)
            ptrs, counts = flat[1::2], flat[0::2]
            shares = self._shares(ptrs)
            m = len(ptrs)
            try:
                for j in range(len(self.cpus)):
                    counts = list(map(add, counts, shares[j * m:(j + 1) * m]))
            except TypeError:
                raise next(s for s in shares if isinstance(s, OSError)) from None
        # each counter clamped at 0, three per mm
        counts = list(map(max, counts, repeat(0)))
        pages = map(add, map(add, counts[0::3], counts[1::3]), counts[2::3])
        page_kib = self.page_kib
        rss = dict(zip([t[0] for t in user], [p * page_kib for p in pages]))
        # the rows, column by column (loops in C: maps and zip)
        letters = map(self.letter, map(itemgetter(2), tasks), map(itemgetter(3), tasks))
        sizes = map(rss.get, map(itemgetter(0), tasks), repeat(0))
        return list(zip(map(itemgetter(1), tasks), letters, sizes, map(itemgetter(6), tasks)))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--loop", type=int, default=0, metavar="N",
                    help="take N snapshots, print the time per snapshot")
    args = ap.parse_args(argv)
    try:
        with kmemdev.open(backend="device") as k:
            ps = Ps(k)
            if args.loop > 0:
                t0 = time.perf_counter_ns()
                for _ in range(args.loop):
                    rows = ps.snapshot()
                ns = (time.perf_counter_ns() - t0) / args.loop
                print(f"tasks: {len(rows)}  snapshots: {args.loop}  "
                      f"time per snapshot: {ns / 1000:.1f} us")
                return 0
            rows = ps.snapshot()
    except OSError as e:
        print(f"ps.py: {e}", file=sys.stderr)
        return 1
    print(f"{'PID':>7} S {'RSS':>8} COMM")
    for pid, state, rss, comm in sorted(rows):
        print(f"{pid:7d} {state} {rss:8d} {comm}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
