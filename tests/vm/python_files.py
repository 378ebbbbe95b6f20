#!/usr/bin/python3 -S
# SPDX-License-Identifier: GPL-2.0
"""The host files python_test needs in the guest, one absolute path a line.

The interpreter, its standard library (less what no test imports: tests,
GUI, 2to3, ensurepip), its extension modules, pytest and what it imports,
and the kmemdev package and its tests (paths given on the command line:
files, or folders taken whole).  vmtest/run.sh copies each to the same
path in the guest and brings the shared libraries of every ELF file.
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


def main(extra):
    out = ["/usr/bin/python3", os.path.realpath("/usr/bin/python3")]
    out += tree(sysconfig.get_paths()["stdlib"])
    out += tree(sysconfig.get_paths()["platstdlib"])
    for name in PYTEST:
        path = os.path.join(DIST, name)
        if os.path.isdir(path):
            out += tree(path)
        elif os.path.isfile(path + ".py"):
            out.append(path + ".py")
    for p in extra:
        p = os.path.abspath(p)
        out += tree(p, (".py", ".so", ".pyi", ".typed")) if os.path.isdir(p) else [p]
    seen = set()
    for p in out:
        if p not in seen and os.path.isfile(p):
            seen.add(p)
            print(p)


if __name__ == "__main__":
    main(sys.argv[1:])
