# SPDX-License-Identifier: GPL-2.0
"""Reads: read, readinto, typed reads and readv, against /proc/version,
/proc/kcore (root) and each other; every bad argument's errno."""
import array
import errno
import os

import pytest

from conftest import NOT_KERNEL, ROOT, UNMAPPED


def proc_version():
    with open("/proc/version", "rb") as f:
        return f.read()


def test_banner_is_proc_version(k):
    """linux_banner and /proc/version print the same words (init/version.c)."""
    want = proc_version()
    assert k.read("linux_banner", len(want)) == want


def test_text_as_kcore_reads_it(k, kcore, kallsyms):
    text = kallsyms["_stext"][0]
    assert k.read(text, 8192) == kcore.read(text, 8192)
    banner = kallsyms["linux_banner"][0]
    assert k.read(banner, 64) == kcore.read(banner, 64)


def test_init_task_as_kcore_reads_it(k, kcore):
    off = k.offsetof("task_struct", "comm")
    assert k.read(k.symbol("init_task") + off, 16) == kcore.read(k.symbol("init_task") + off, 16)


def test_readinto(k):
    want = proc_version()
    buf = bytearray(len(want))
    assert k.readinto("linux_banner", buf) == len(want)
    assert bytes(buf) == want
    arr = array.array("B", bytes(16))
    assert k.readinto("linux_banner", memoryview(arr)) == 16
    assert arr.tobytes() == want[:16]


def test_typed_reads(k):
    raw = k.read("_stext", 4096)
    base = k.symbol("_stext")
    # an offset where the high bit of every width is set, if the text has one
    for off in range(0, 4096 - 8):
        if raw[off + 7] & 0x80 and raw[off + 3] & 0x80 and raw[off + 1] & 0x80 and raw[off] & 0x80:
            break
    else:
        pytest.fail("no byte with its high bit set in the first text page")
    a = base + off
    for size in (1, 2, 4, 8):
        b = raw[off:off + size]
        u = int.from_bytes(b, "little")
        s = int.from_bytes(b, "little", signed=True)
        assert getattr(k, f"read_u{size * 8}")(a) == u
        assert getattr(k, f"read_s{size * 8}")(a) == s
        assert s < 0
        assert k.read_int(a, size) == u and k.read_int(a, size, True) == s
    assert k.read_ptr(a) == int.from_bytes(raw[off:off + 8], "little")


def test_pid_of_init_task_is_zero(k):
    assert k.read_s32(k.symbol("init_task") + k.offsetof("task_struct", "pid")) == 0


@pytest.mark.parametrize("addr,size,err", [
    (0, 8, errno.EINVAL),                 # user space
    (NOT_KERNEL, 8, errno.EINVAL),        # below the direct map
    (UNMAPPED, 8, errno.EFAULT),          # mapped by nothing
    ("linux_banner", 0, errno.EINVAL),    # zero length
])
def test_read_errors(k, addr, size, err):
    with pytest.raises(OSError) as e:
        k.read(addr, size)
    assert e.value.errno == err
    assert e.value.strerror  # the library's words
    if size:
        assert e.value.filename == hex(addr)


def test_read_error_words(k):
    with pytest.raises(OSError) as e:
        k.read(UNMAPPED, 8)
    assert "not mapped in the kernel" in e.value.strerror
    assert str(e.value).startswith(f"[Errno {errno.EFAULT}]")


def test_read_bad_arguments(k):
    with pytest.raises(OverflowError):
        k.read(-1, 8)
    with pytest.raises(OverflowError):
        k.read(1 << 64, 8)
    with pytest.raises(OverflowError):
        k.read("linux_banner", -1)
    with pytest.raises(TypeError):
        k.read("linux_banner", 1.0)
    with pytest.raises(FileNotFoundError):
        k.read("no_such_symbol_kmemdev", 8)
    with pytest.raises(ValueError):
        k.read_int("linux_banner", 3)
    with pytest.raises(BufferError):
        k.readinto("linux_banner", b"read-only bytes")
    with pytest.raises(TypeError):
        k.readinto("linux_banner", "not a buffer")
    with pytest.raises(OSError) as e:
        k.readinto("linux_banner", bytearray())
    assert e.value.errno == errno.EINVAL


def test_readv_results_per_segment(k, kallsyms):
    banner = kallsyms["linux_banner"][0]
    init = kallsyms["init_task"][0]
    res = k.readv([(banner, 32), (0, 8), (init, 64), (UNMAPPED, 8), ("linux_banner", 5)])
    assert len(res) == 5
    assert res[0] == k.read(banner, 32)
    assert isinstance(res[1], OSError) and res[1].errno == errno.EINVAL
    assert res[1].filename == "0x0"
    assert res[2] == k.read(init, 64)
    assert isinstance(res[3], OSError) and res[3].errno == errno.EFAULT
    assert res[4] == proc_version()[:5]


def test_readv_many_segments_one_call(k):
    """More segments than one READV takes: the library batches, one result each."""
    base = k.symbol("_stext")
    segs = [(base + 8 * i, 8) for i in range(3000)]
    res = k.readv(segs)
    flat = k.read(base, 8 * 3000)
    assert res == [flat[8 * i:8 * i + 8] for i in range(3000)]


def test_readv_bad_arguments(k):
    assert k.readv([]) == []
    with pytest.raises(TypeError):
        k.readv([(1,)])
    with pytest.raises(TypeError):
        k.readv([[k.symbol("_stext"), 8]])
    with pytest.raises(TypeError):
        k.readv(5)
    with pytest.raises(OverflowError):
        k.readv([(-1, 8)])


def test_readv_on_kcore(kcore):
    with pytest.raises(OSError) as e:
        kcore.readv([(kcore.symbol("linux_banner"), 8)])
    assert e.value.errno == errno.EOPNOTSUPP


def test_info(k):
    i = k.info
    assert i.abi_version >= 1
    assert i.page_size == os.sysconf("SC_PAGESIZE")
    assert i.text_start == k.symbol("_stext")
    assert i.ram and all(s < e for s, e in i.ram)
    with open("/proc/iomem") as f:
        iomem = f.read()
    if ROOT:  # root sees /proc/iomem's addresses
        for s, e in i.ram:
            assert f"{s:08x}-{e - 1:08x} : System RAM" in iomem


def test_info_kcore_agrees(k, kcore):
    a, b = k.info, kcore.info
    assert (a.page_offset, a.kernel_map, a.phys_base) == (b.page_offset, b.kernel_map, b.phys_base)
    assert b.abi_version == 0 and b.features == 0


def test_readv_ints(k, kallsyms):
    base = kallsyms["_stext"][0]
    raw = k.read(base, 64)
    assert k.readv_ints([base + 8 * i for i in range(8)]) == \
        [int.from_bytes(raw[8 * i:8 * i + 8], "little") for i in range(8)]
    assert k.readv_ints([base, base + 4], 4, True) == \
        [int.from_bytes(raw[0:4], "little", signed=True),
         int.from_bytes(raw[4:8], "little", signed=True)]
    res = k.readv_ints(["linux_banner", 0, UNMAPPED], 1)
    assert res[0] == ord("L")
    assert isinstance(res[1], OSError) and res[1].errno == errno.EINVAL
    assert isinstance(res[2], OSError) and res[2].errno == errno.EFAULT
    assert k.readv_ints([]) == []
    with pytest.raises(ValueError):
        k.readv_ints([base], 3)
    with pytest.raises(OverflowError):
        k.readv_ints([-1])
    with pytest.raises(TypeError):
        k.readv_ints(5)
