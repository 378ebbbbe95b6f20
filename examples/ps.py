#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
"""ps.py: PID, state, RSS and name of every process, from the kernel's task list.

    ps.py                 the table
    ps.py --loop N        N snapshots, then the time per snapshot

One WALK ioctl gathers pid, state, flags, mm and comm of every task on
init_task.tasks (thread-group leaders and kernel threads, as ps lists
them); one READV then reads the resident-page counters behind every mm.
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
import sys
import time

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
        rss_size = k.sizeof("mm_struct", "rss_stat")
        self.counter = rss_size // 4
        try:
            # 6.1: struct mm_rss_stat { atomic_long_t count[NR_MM_COUNTERS]; }
            self.count_off = k.offsetof("mm_rss_stat", "count")
            self.cpus = None
        except FileNotFoundError:
            self.count_off = k.offsetof("percpu_counter", "count")
            self.pcp_off = k.offsetof("percpu_counter", "counters")
            self.cpus = self._cpu_offsets()

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
        user = [t for t in tasks if t[5] and not t[4] & PF_KTHREAD]
        # the counters behind every mm, one READV
        segs = [(t[5] + self.rss_off + r * self.counter + self.count_off, 8)
                for t in user for r in RESIDENT]
        counts = [int.from_bytes(b, "little", signed=True) for b in self._readv(segs)]
        if self.cpus is not None:
            # 6.2+: each counter's per-CPU shares, one more READV
            ptrs = k.readv([(t[5] + self.rss_off + r * self.counter + self.pcp_off, 8)
                            for t in user for r in RESIDENT])
            # per_cpu_ptr(): the percpu pointer plus the CPU's offset, mod 2**64
            shares = self._readv([((int.from_bytes(self._ok(p), "little") + c) & MASK, 4)
                                  for p in ptrs for c in self.cpus])
            n = len(self.cpus)
            for i in range(len(counts)):
                counts[i] += sum(int.from_bytes(s, "little", signed=True)
                                 for s in shares[i * n:(i + 1) * n])
        page_kib = os.sysconf("SC_PAGESIZE") // 1024
        rss = {}
        for i, t in enumerate(user):
            rss[t.addr] = sum(max(c, 0) for c in counts[3 * i:3 * i + 3]) * page_kib
        return [(t[1], state_letter(t[2], t[3]), rss.get(t.addr, 0), t[6]) for t in tasks]

    @staticmethod
    def _ok(r):
        if isinstance(r, OSError):
            raise r
        return r

    def _readv(self, segs):
        return [self._ok(r) for r in self.k.readv(segs)]


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
