# SPDX-License-Identifier: GPL-2.0
"""Symbols: by name and by address, against /proc/kallsyms (root's)."""
import errno

import pytest

NAMES = ("init_task", "schedule", "linux_banner", "jiffies_64", "init_mm", "_stext")


@pytest.mark.parametrize("name", NAMES)
def test_symbol_is_kallsyms(k, kallsyms, name):
    assert k.symbol(name) == kallsyms[name][0]
    e = k.symbol_entry(name)
    assert (e.addr, e.name, e.module, e.type) == (kallsyms[name][0], name, None, kallsyms[name][1])


def test_symbolize(k, kallsyms):
    addr = kallsyms["schedule"][0]
    s = k.symbolize(addr + 3)
    assert (s.name, s.addr, s.offset, s.module) == ("schedule", addr, 3, None)
    s = k.symbolize("schedule+0x10")
    assert (s.name, s.offset) == ("schedule", 16)


def test_module_symbol(k):
    """kmem_ro_testobj is loaded by the harness: its symbols carry the module name."""
    s = k.symbol_entry("testobj_show")
    assert s.module == "kmem_ro_testobj"
    with open("/proc/modules") as f:
        line = next(x for x in f if x.startswith("kmem_ro_testobj "))
    size = int(line.split()[1])
    base = int(line.split()[5], 16)  # name size refs deps state addr [taint]
    if base:  # root sees module addresses in /proc/modules
        assert base <= s.addr < base + size


def test_address_expressions(k, kallsyms):
    base = kallsyms["init_task"][0]
    assert k.address("init_task") == base
    assert k.address("init_task+0x10") == base + 16
    assert k.address("init_task-8") == base - 8
    assert k.address(f"{base:#x}") == base
    assert k.address(base) == base


def test_no_such_symbol(k):
    with pytest.raises(FileNotFoundError) as e:
        k.symbol("no_such_symbol_kmemdev")
    assert e.value.errno == errno.ENOENT
    assert "no such symbol" in e.value.strerror
    assert e.value.filename == "no_such_symbol_kmemdev"


def test_symbolize_errors(k):
    with pytest.raises(FileNotFoundError) as e:
        k.symbolize("no_such_symbol_kmemdev")
    assert e.value.errno == errno.ENOENT
    with pytest.raises(OSError) as e:
        k.symbolize("1000")
    assert e.value.errno == errno.EINVAL


@pytest.mark.parametrize("expr,err", [
    ("1000", errno.EINVAL),                  # a bare number is never an address
    ("init_task+", errno.EINVAL),
    ("", errno.EINVAL),
    ("0x1ffffffffffffffff", errno.ERANGE),   # more than 64 bits
    ("0xffffffffffffffff+1", errno.ERANGE),
    ("no_such_symbol_kmemdev+8", errno.ENOENT),
])
def test_bad_expressions(k, expr, err):
    with pytest.raises(OSError) as e:
        k.address(expr)
    assert e.value.errno == err
    assert e.value.filename == expr


def test_argument_types(k):
    with pytest.raises(TypeError):
        k.symbol(42)
    with pytest.raises(TypeError):
        k.symbolize(1.5)
    with pytest.raises(OverflowError):
        k.symbolize(-1)
    with pytest.raises(OverflowError):
        k.symbolize(1 << 64)
