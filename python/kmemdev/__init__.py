# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
"""Read live kernel memory through /dev/kmem_ro (or /proc/kcore).

kmemdev is libkmemdev for Python: each call is a thin wrapper of the C
library's, with its semantics, its errors and its fast paths (one WALK
ioctl for a whole kernel list, one READV for many ranges).

    import kmemdev

    with kmemdev.open() as k:                       # the device, else /proc/kcore
        head = k.symbol("init_task") + k.offsetof("task_struct", "tasks")
        for t in k.walk(head, "task_struct.tasks", ["pid", "comm"]):
            print(t.pid, t.comm)

Opening: open() reads through /dev/kmem_ro, or /proc/kcore when the module
is not loaded (backend="auto"); backend="device" or "kcore" insists on
one.  A member of the device's group needs no capability; /proc/kcore
needs root.  On /proc/kcore only read(), info, the symbol and the BTF
calls work; the others fail with EOPNOTSUPP.

Addresses: an int, or a str the library parses: "0xHEX", "SYMBOL",
"SYMBOL+OFF", "SYMBOL-OFF" (kmemdev_parse_addr()).

Errors: every failure of the library is an OSError whose errno is the
library's and whose text is kmemdev_strerror()'s for that call; Python
makes it the subclass of its errno (FileNotFoundError for ENOENT,
PermissionError for EACCES and EPERM, ...).  e.filename names the object
(a symbol, an address, a member path).  Arguments Python cannot pass to
C are TypeError, OverflowError (a negative or too large int) or
ValueError (a closed handle, an integer size other than 1, 2, 4 or 8).

Threads: the GIL is released around every library call, and a handle may
be used from several threads at once (libkmemdev's handle is
thread-safe); close() waits for the calls in flight.  There is no global
state: each handle is independent.

Calls, by concern (see each one's help):
    open(path=None, backend="auto") -> Kmem
    Kmem.info, .backend, .symbol(), .symbol_entry(), .symbolize(), .address()
    Kmem.read(), .readinto(), .read_u8() ... .read_u64(), .read_s8() ...,
        .read_ptr(), .readv()
    Kmem.member(), .offsetof(), .sizeof()       kernel BTF, member paths
    Kmem.walk()                                 WALK: a kernel list at once
    Kmem.pagemap()                              a process's page tables
    Kmem.probes() -> Probes                     hit counters on functions
    Kmem.events() -> Events                     module loads and unloads
"""
from __future__ import annotations

import keyword
import os
import re
import threading
from typing import Iterable, Iterator, NamedTuple, Optional, Sequence, Union

from . import _kmemdev

__all__ = [
    "open", "Kmem", "Info", "Symbol", "Field", "Run", "ProbeInfo",
    "ModuleEvent", "SnapshotEvent", "Probes", "Events", "library_version",
    "PM_PRESENT", "PM_SWAP", "PM_FILE", "PM_EXCLUSIVE", "PM_SOFT_DIRTY",
    "PROBE_ENABLED", "PROBE_KPROBE", "PROBE_GONE",
]

Address = Union[int, str]

PM_PRESENT = _kmemdev.PM_PRESENT
PM_SWAP = _kmemdev.PM_SWAP
PM_FILE = _kmemdev.PM_FILE
PM_EXCLUSIVE = _kmemdev.PM_EXCLUSIVE
PM_SOFT_DIRTY = _kmemdev.PM_SOFT_DIRTY
PM_FRAME_MASK = (1 << 55) - 1
_PAGE = os.sysconf("SC_PAGESIZE")
PROBE_ENABLED = _kmemdev.PROBE_ENABLED
PROBE_KPROBE = _kmemdev.PROBE_KPROBE
PROBE_GONE = _kmemdev.PROBE_GONE

_BACKENDS = {
    "auto": _kmemdev.BACKEND_AUTO,
    "device": _kmemdev.BACKEND_DEVICE,
    "kcore": _kmemdev.BACKEND_KCORE,
}
# member()'s kinds, as the extension numbers them
_KINDS = ("bytes", "uint", "int", "ptr", "str")


def library_version() -> str:
    """The version of libkmemdev linked in, "MAJOR.MINOR.PATCH"."""
    return _kmemdev.library_version()


class Symbol(NamedTuple):
    """A /proc/kallsyms entry; offset: how far the asked address is past it."""
    addr: int
    name: str
    module: Optional[str]
    type: str
    offset: int = 0


class Info(NamedTuple):
    """KMEM_RO_IOC_INFO's answer (kmemdev_info()): layout and features.

    On /proc/kcore only what kcore tells is set, the rest is 0: see
    kmemdev_info() in kmemdev.h.  ram: the System RAM ranges, (start, end)
    physical addresses, end exclusive.
    """
    abi_version: int
    page_size: int
    features: int
    ioctls: int
    pmd_size: int
    page_offset: int
    phys_base: int
    kernel_map: int
    text_start: int
    text_end: int
    vmalloc_start: int
    vmalloc_end: int
    modules_start: int
    modules_end: int
    vmcoreinfo_addr: int
    vmcoreinfo_size: int
    ram: list


class Field(NamedTuple):
    """A member of a kernel type: where it is and how walk() decodes it.

    kind: "uint", "int", "ptr" (an int), "str" (a char array, up to its
    NUL, decoded as UTF-8 with surrogateescape) or "bytes".
    """
    path: str
    offset: int
    size: int
    kind: str


class Run(NamedTuple):
    """Pages of a process with equal flags and contiguous frames.

    flags: /proc/PID/pagemap bits 55-63 (PM_PRESENT, PM_SWAP, ...); frame:
    bits 0-54 of the first page (0 when PFNs are hidden: no CAP_SYS_ADMIN).
    """
    start: int
    pages: int
    flags: int
    frame: int

    def entry(self, addr: int) -> int:
        """The /proc/PID/pagemap entry of the page at addr (kmemdev_pagemap_entry())."""
        page = (addr - self.start) // _PAGE
        if not 0 <= page < self.pages:
            return 0
        if not self.frame:
            return self.flags
        step = 1 << 5 if self.flags & PM_SWAP else 1
        return self.flags | ((self.frame + page * step) & PM_FRAME_MASK)


class ProbeInfo(NamedTuple):
    """A probe as the driver lists it (struct kmem_ro_probe_info)."""
    id: int
    addr: int
    offset: int
    flags: int
    owner: int
    hits: int
    name: str


class ModuleEvent(NamedTuple):
    """A module loaded or unloaded (type "loaded" or "unloaded")."""
    type: str
    seq: int
    dropped: int
    name: str
    base: int
    size: int
    text_size: int


class SnapshotEvent(NamedTuple):
    """One part of a probe hit-count snapshot: counts maps probe id to hits."""
    type: str
    seq: int
    dropped: int
    id: int
    tick: int
    time_ns: int
    owner: int
    interval_ms: int
    total: int
    first: int
    counts: dict


def open(path: Optional[str] = None, backend: str = "auto") -> "Kmem":  # noqa: A001
    """Open the kmem_ro device, or /proc/kcore (kmemdev_open()).

    backend: "auto" (the device; /proc/kcore when it is absent: ENOENT,
    ENXIO, ENODEV; a device that refuses the caller is an error, never a
    reason to fall back), "device" or "kcore".  path: the device node
    (auto, device; default /dev/kmem_ro) or the core file (kcore; default
    /proc/kcore).  The handle is a context manager: `with` closes it.

    Errors: FileNotFoundError (module not loaded and, auto, no readable
    kcore), PermissionError (EACCES: not in the device's group; EPERM:
    lockdown), OSError ENOTTY (not a kmem_ro device), ENOEXEC (not an ELF
    core file); ValueError for an unknown backend name.
    """
    try:
        b = _BACKENDS[backend]
    except (KeyError, TypeError):
        raise ValueError(f"unknown backend {backend!r}: auto, device or kcore") from None
    return Kmem(_kmemdev.open(path, b))


def _node_name(path: str) -> str:
    name = re.sub(r"\W", "_", path.replace("->", ".")).strip("_")
    return name or "field"


class Kmem:
    """A libkmemdev handle: see open() and the module's help."""

    __slots__ = ("_h", "_nodes", "_members", "_lock", "__weakref__")

    def __init__(self, handle: "_kmemdev.Handle"):
        self._h = handle
        self._nodes: dict = {}
        self._members: dict = {}
        self._lock = threading.Lock()

    def __enter__(self) -> "Kmem":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        if self.closed:
            return "<kmemdev.Kmem closed>"
        return f"<kmemdev.Kmem backend={self.backend}>"

    def close(self) -> None:
        """Close the handle (kmemdev_close()); waits for calls in flight.  Idempotent."""
        self._h.close()

    @property
    def closed(self) -> bool:
        """True once close() was called."""
        return self._h.closed

    @property
    def backend(self) -> str:
        """What the handle reads: "kmem_ro" (the device) or "kcore"."""
        return self._h.backend

    def fileno(self) -> int:
        """The device's file descriptor (owned by the handle); OSError EINVAL on kcore."""
        return self._h.fileno()

    @property
    def info(self) -> Info:
        """Layout, features and System RAM ranges (kmemdev_info_alloc())."""
        d = self._h.info()
        return Info(**d)

    # ---- symbols ----

    def symbol(self, name: str) -> int:
        """Address of a kernel or module symbol (kmemdev_symbol()).

        Duplicate names: vmlinux wins over modules, then the lowest address.
        FileNotFoundError (ENOENT) when there is none; PermissionError
        (EACCES) when /proc/kallsyms hides addresses and no device gives them.
        """
        return self._h.symbol_entry(name)[0]

    def symbol_entry(self, name: str) -> Symbol:
        """The whole /proc/kallsyms entry of a symbol (kmemdev_symbol_find())."""
        return Symbol(*self._h.symbol_entry(name))

    def symbolize(self, addr: Address) -> Symbol:
        """The nearest symbol at or below addr, and the offset past it (kmemdev_symbolize())."""
        return Symbol(*self._h.symbolize(addr))

    def address(self, expr: Address) -> int:
        """An address expression: "0xHEX", "SYMBOL", "SYMBOL+OFF" (kmemdev_parse_addr())."""
        return self._h.address(expr)

    # ---- reads ----

    def read(self, addr: Address, size: int) -> bytes:
        """size bytes of kernel memory at addr (kmemdev_read()): all or nothing.

        OSError EINVAL (not a kernel address, size 0), EFAULT (not mapped),
        ENXIO (not RAM), EPERM (RAM the kernel hides from itself).
        """
        return self._h.read(addr, size)

    def readinto(self, addr: Address, buffer) -> int:
        """Fill a writable buffer (bytearray, memoryview, array) from addr; its length."""
        return self._h.readinto(addr, buffer)

    def read_u8(self, addr: Address) -> int:
        """An unsigned 8-bit integer at addr."""
        return self._h.read_int(addr, 1)

    def read_u16(self, addr: Address) -> int:
        """An unsigned 16-bit integer at addr (little endian, as x86-64)."""
        return self._h.read_int(addr, 2)

    def read_u32(self, addr: Address) -> int:
        """An unsigned 32-bit integer at addr."""
        return self._h.read_int(addr, 4)

    def read_u64(self, addr: Address) -> int:
        """An unsigned 64-bit integer at addr."""
        return self._h.read_int(addr, 8)

    def read_s8(self, addr: Address) -> int:
        """A signed 8-bit integer at addr."""
        return self._h.read_int(addr, 1, True)

    def read_s16(self, addr: Address) -> int:
        """A signed 16-bit integer at addr."""
        return self._h.read_int(addr, 2, True)

    def read_s32(self, addr: Address) -> int:
        """A signed 32-bit integer at addr."""
        return self._h.read_int(addr, 4, True)

    def read_s64(self, addr: Address) -> int:
        """A signed 64-bit integer at addr."""
        return self._h.read_int(addr, 8, True)

    def read_ptr(self, addr: Address) -> int:
        """A kernel pointer at addr (64 bits)."""
        return self._h.read_int(addr, 8)

    def read_int(self, addr: Address, size: int, signed: bool = False) -> int:
        """An integer of size 1, 2, 4 or 8 bytes at addr (ValueError for others)."""
        return self._h.read_int(addr, size, signed)

    def readv(self, segments: Iterable[tuple]) -> list:
        """Read many (addr, size) ranges in one library call (kmemdev_readv()).

        One READV ioctl per KMEM_RO_READV_MAX_SEGS segments.  The result has
        one entry per segment: its bytes (shorter than asked when a later
        page failed), or the OSError of that segment (EINVAL, EFAULT, ENXIO,
        EPERM).  Failures of the call itself raise: EOPNOTSUPP on /proc/kcore.
        """
        return self._h.readv(segments)

    def readv_ints(self, addrs: Iterable[Address], size: int = 8,
                   signed: bool = False) -> list:
        """One integer of size bytes at each address, all in one kmemdev_readv().

        The batch form of read_int(): per address its int, or the OSError of
        that segment (a read that stops short counts as EFAULT).
        """
        return self._h.readv_ints(addrs, size, signed)

    # ---- BTF ----

    def member(self, type: str, path: str = "") -> Field:  # noqa: A002
        """Where a member path lies in a kernel type, from the kernel's BTF.

        type: a struct, union or typedef name ("task_struct", "struct
        list_head").  path: members as kmemctl takes them: "comm",
        "se.group_node", "signal->rlim" ("->" reads as "."), with array
        indexes "rlim[7]"; anonymous members are searched as C does.  A path
        cannot go on through a pointer (an offset is within one object).
        Errors: FileNotFoundError (no such type or member), OSError EINVAL
        (malformed path, through a pointer, a bitfield), ERANGE (index past
        the array), ENODATA (the kernel has no BTF).
        """
        # BTF is the handle's for its life, and libbpf finds a type by
        # name with a scan of every type: each answer is kept
        key = (type, path)
        f = self._members.get(key)
        if f is None or self._h.closed:
            off, size, kind = self._h.member(type, path)
            f = self._members[key] = Field(path, off, size, _KINDS[kind])
        return f

    def offsetof(self, type: str, path: str) -> int:  # noqa: A002
        """Byte offset of a member path in a type: see member()."""
        return self.member(type, path).offset

    def sizeof(self, type: str, path: Optional[str] = None) -> int:  # noqa: A002
        """Size of a type, or of a member path in it: see member()."""
        if path is None:
            return self._h.type_size(type)
        return self.member(type, path).size

    # ---- lists ----

    def walk(self, head: Address, member: str, fields: Sequence[Union[str, Field]],
             max_nodes: int = 0) -> list:
        """Every node of a kernel list with the chosen fields, by the driver's WALK.

        head: the address of the list's own struct list_head (e.g.
        k.symbol("init_task") + k.offsetof("task_struct", "tasks")).
        member: "TYPE.PATH", the struct list_head that links the nodes
        ("task_struct.tasks", "module.list").  fields: member paths in TYPE
        (see member()), or Field objects.  The walk starts at head->next and
        ends when it is back at head; it takes no lock, so a list that
        changes while walked is seen as the driver finds it.

        Returns a list of kmemdev.Node, tuples with named fields made in C
        (addr, then one value per field, named after its path with non-word
        characters as "_", a bad or repeated name as _N; t[1] is the first
        field too).  Values: ints for integers and pointers, str for char
        arrays, bytes otherwise.  One WALK ioctl gathers every node (more
        only if its buffer fills).  max_nodes: 0 for no cap; with a cap a
        longer list is OSError E2BIG.

        Errors (OSError): ELOOP (a loop that misses the head), EFAULT/ENXIO
        (a node could not be read; e.fault_addr says where), E2BIG (too many
        fields, a record over 4096 bytes), EINVAL (head outside the kernel,
        no fields), EOPNOTSUPP (kcore).  e.nodes holds the nodes gathered
        before the failure.
        """
        if not isinstance(max_nodes, int) or max_nodes < 0 or max_nodes > 0xFFFFFFFF:
            raise ValueError("max_nodes is an int from 0 (no cap) to 2**32 - 1")
        tname, sep, link = member.replace("->", ".").partition(".")
        if not sep or not link:
            raise ValueError(f"member {member!r} is not TYPE.PATH (e.g. task_struct.tasks)")
        link_off = self.offsetof(tname, link)
        resolved = [f if isinstance(f, Field) else self.member(tname, f) for f in fields]
        spec = [(f.offset, f.size, _KINDS.index(f.kind)) for f in resolved]
        node = self._node_type(tuple(f.path for f in resolved))
        return self._h.walk(head, link_off, spec, max_nodes, node)

    def _node_type(self, paths: tuple):
        """The record type of these fields: made once per handle, in C (a struct sequence)."""
        with self._lock:
            cls = self._nodes.get(paths)
            if cls is None:
                # as namedtuple(rename=True): a bad or repeated name becomes _N
                names, seen = [], {"addr"}
                for i, p in enumerate(paths, 1):
                    name = _node_name(p)
                    if not name.isidentifier() or keyword.iskeyword(name) or name in seen:
                        name = f"_{i}"
                    seen.add(name)
                    names.append(name)
                cls = _kmemdev.node_type(names)
                self._nodes[paths] = cls
            return cls

    # ---- page tables ----

    def pagemap(self, pid: int, start: int, end: int, runs: bool = True) -> list:
        """Page-table entries of process pid (0: the caller) for [start, end).

        runs=True: a list of Run, back to back from start to end (holes too)
        (kmemdev_pagemap_runs()); runs=False: one /proc/PID/pagemap entry
        (an int) per page.  Entries are bit-identical to /proc/PID/pagemap;
        PFNs read as 0 unless the handle was opened with CAP_SYS_ADMIN.
        Errors (OSError): EINVAL (range not page aligned, empty, beyond user
        space; a negative pid), ESRCH (no such process, a kernel thread),
        EPERM (another process without CAP_SYS_PTRACE), EOPNOTSUPP (kcore).
        """
        out = self._h.pagemap(pid, start, end, runs)
        return [Run(*r) for r in out] if runs else out

    # ---- probes and events ----

    def probes(self) -> "Probes":
        """Hit counters on kernel functions, owned by this handle: see Probes."""
        return Probes(self)

    def events(self, modules: bool = True, snapshots: bool = False) -> "Events":
        """An event stream of module loads/unloads and/or probe snapshots: see Events.

        Subscribing needs CAP_SYS_ADMIN (PermissionError otherwise);
        FileNotFoundError when the module is not loaded; OSError EINVAL with
        no group.  The stream keeps this handle's symbols current.
        """
        return Events(self._h.events(modules, snapshots))

    def snapshots(self, interval_ms: int) -> int:
        """Start (or retime) periodic hit-count snapshots of this handle's probes; 0 stops.

        Returns the stream id the SnapshotEvents carry (kmemdev_events_snapshot()).
        """
        return self._h.snapshots(interval_ms)


class Probes:
    """Hit counters on kernel functions (kmemdev_probes_*()), of one handle.

    Adding, enabling and disabling need CAP_PERFMON or CAP_SYS_ADMIN, or
    the driver's probe_group=1 (PermissionError otherwise); counts and lists
    need only the handle.  As a context manager, leaving it removes the
    probes added through it.  ids=None acts on every probe of the handle.
    """

    def __init__(self, kmem: Kmem):
        self._k = kmem
        self._added: set = set()

    def __enter__(self) -> "Probes":
        return self

    def __exit__(self, *exc) -> None:
        if self._added and not self._k.closed:
            ids, self._added = sorted(self._added), set()
            live = {p.id for p in self.list()}
            self._k._h.probe_ids("remove", [i for i in ids if i in live])

    def add(self, names, offset: int = 0, enabled: bool = False):
        """Add probes, one library call for all (kmemdev_probes_add()).

        names: a function name (returns its probe id, or raises the spec's
        OSError), or a list of names or (name, offset) pairs (returns one
        entry per spec: its id, or its OSError: FileNotFoundError for no
        such function, EEXIST, EOPNOTSUPP for a function that cannot be
        probed, ENOSPC...).  enabled: arm them at once.
        """
        single = isinstance(names, str)
        specs = [(names, offset)] if single else [
            (n, offset) if isinstance(n, str) else tuple(n) for n in names]
        res = self._k._h.probe_add(specs, enabled)
        self._added.update(r for r in res if isinstance(r, int))
        if single:
            if isinstance(res[0], OSError):
                raise res[0]
            return res[0]
        return res

    def enable(self, ids: Optional[Iterable[int]] = None) -> None:
        """Enable probes (all of the handle's with ids=None)."""
        self._k._h.probe_ids("enable", None if ids is None else list(ids))

    def disable(self, ids: Optional[Iterable[int]] = None) -> None:
        """Disable probes; their counts stay."""
        self._k._h.probe_ids("disable", None if ids is None else list(ids))

    def remove(self, ids: Optional[Iterable[int]] = None) -> None:
        """Remove probes (FileNotFoundError for an unknown id: those before it are removed)."""
        lst = None if ids is None else list(ids)
        self._k._h.probe_ids("remove", lst)
        if lst is None:
            self._added.clear()
        else:
            self._added.difference_update(lst)

    def counts(self, ids: Optional[Iterable[int]] = None, reset: bool = False):
        """Hit counts: a list in the order of ids, or a dict id -> count for every probe.

        reset: restart each count read from 0 (no hit is lost).
        """
        return self._k._h.probe_counts(None if ids is None else list(ids), reset)

    def list(self, all_files: bool = False) -> list:
        """The handle's probes (all_files: every open file's) as ProbeInfo."""
        return [ProbeInfo(*p) for p in self._k._h.probe_list(all_files)]

    def filter(self, pid: Optional[int] = None, comm: Optional[str] = None) -> None:
        """Count only hits in process pid and/or in tasks named comm; no argument clears."""
        self._k._h.probe_filter(pid, comm)

    def glob(self, pattern: str) -> list:
        """Kernel functions whose name matches a glob (kmemdev_probe_glob()), as Symbols."""
        return [Symbol(*s) for s in self._k._h.probe_glob(pattern)]


def _event(t: tuple):
    return SnapshotEvent(*t) if t[0] == "snapshot" else ModuleEvent(*t)


class Events:
    """A stream of kernel events: iterate for ModuleEvent / SnapshotEvent.

    Iteration waits for ever; next(timeout) waits at most timeout seconds
    and returns None then.  OSError ENOBUFS means events were lost (the
    stream goes on).  A context manager: `with` closes the stream.
    """

    def __init__(self, stream):
        self._s = stream

    def __enter__(self) -> "Events":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __iter__(self) -> Iterator:
        return self

    def __next__(self):
        return _event(self._s.next(-1))

    def next(self, timeout: Optional[float] = None):
        """The next event, or None after timeout seconds (None: wait for ever)."""
        ms = -1 if timeout is None else max(0, int(timeout * 1000))
        t = self._s.next(ms)
        return None if t is None else _event(t)

    def info(self) -> tuple:
        """(messages the driver dropped, snapshot streams running)."""
        return self._s.info()

    def fileno(self) -> int:
        """The stream's socket, to poll for POLLIN."""
        return self._s.fileno()

    def close(self) -> None:
        """Close the stream.  Idempotent."""
        self._s.close()
