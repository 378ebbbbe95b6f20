#!/usr/bin/python3 -S
# SPDX-License-Identifier: GPL-2.0
"""The host files python_test needs in the guest, one absolute path a line.

The interpreter, its standard library (less what no test imports: tests,
GUI, 2to3, ensurepip), its extension modules, pytest and what it imports,
and the kmemdev package and its tests (paths given on the command line
after the tree's top and where the guest has it: files, or folders taken
whole).  vmtest/run.sh copies each to the same path in the
guest (the tree's files as HOST=GUEST, to the guest's top: the tree may
lie under /tmp, which the guest mounts a tmpfs over) and brings the
shared libraries of every ELF file.
"""
import os
import sys
import sysconfig

SKIP = {"test", "idlelib", "tkinter", "turtledemo", "ensurepip", "lib2to3",
        "pydoc_data", "site-packages", "dist-packages", "__pycache__",
        "unittest/test", "distutils/tests", "ctypes/test", "sqlite3/test"}
PYTEST = ("pytest", "_pytest", "pluggy", "iniconfig", "packaging", "py", "attr")
DIST = "/usr/lib/python3/dist-packages"


def tree(top, exts=(".py", ".so")):
    for root, dirs, files in os.walk(top):
        rel = os.path.relpath(root, top)
        dirs[:] = sorted(d for d in dirs
                         if d not in SKIP and os.path.join(rel, d).lstrip("./") not in SKIP
                         and not d.startswith("config-"))
        for f in sorted(files):
            if f.endswith(exts):
                yield os.path.join(root, f)


def main(top, guest, extra):
    out = ["/usr/bin/python3", os.path.realpath("/usr/bin/python3")]
    out += tree(sysconfig.get_paths()["stdlib"])
    out += tree(sysconfig.get_paths()["platstdlib"])
    for name in PYTEST:
        path = os.path.join(DIST, name)
        if os.path.isdir(path):
            out += tree(path)
        elif os.path.isfile(path + ".py"):
            out.append(path + ".py")
    ours = []
    for p in extra:
        p = os.path.abspath(p)
        ours += tree(p, (".py", ".so", ".pyi", ".typed")) if os.path.isdir(p) else [p]
    top = os.path.abspath(top)
    out += [p + "=" + os.path.join(guest, os.path.relpath(p, top))
            if p.startswith(top + "/") else p for p in ours]
    seen = set()
    for p in out:
        if p not in seen and os.path.isfile(p.split("=")[0]):
            seen.add(p)
            print(p)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3:])
