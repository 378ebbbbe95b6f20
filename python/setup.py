# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
"""Build of kmemdev._kmemdev, on the stable ABI of Python 3.11 (abi3).

The extension links libkmemdev: by default the static archive of this
tree (../libkmemdev/libkmemdev.a, made here with make when missing or
stale), so that a wheel or a venv needs no installed library;
KMEMDEV_LINK=shared links the installed libkmemdev.so instead (the Debian
package python3-kmemdev, beside libkmemdev0).
"""
import os
import subprocess

from setuptools import Extension, setup

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
LIBDIR = os.path.join(TOP, "libkmemdev")
LIMITED_API = "0x030B0000"


def pkg_config(*args):
    out = subprocess.run(["pkg-config", *args], check=True, capture_output=True, text=True)
    return out.stdout.split()


def has_pkg(name):
    return subprocess.run(["pkg-config", "--exists", name]).returncode == 0


def version():
    with open(os.path.join(TOP, "VERSION"), encoding="ascii") as f:
        return f.read().strip()


def link_args():
    """What to link: the static archive and its deps, or the shared library."""
    if os.environ.get("KMEMDEV_LINK") == "shared":
        # libkmemdev.so brings libbpf and libnl itself
        return [], ["-L" + LIBDIR, "-lkmemdev"]
    libs = pkg_config("--libs", "libbpf")
    # libkmemdev's events.mk decides the same way whether events.c is built
    events = os.environ.get("KMEMDEV_EVENTS") or ("y" if has_pkg("libnl-genl-3.0") else "n")
    if events == "y":
        libs += pkg_config("--libs", "libnl-genl-3.0")
    subprocess.run(["make", "-s", "-C", LIBDIR, "libkmemdev.a"], check=True)
    # the archive's symbols stay inside the extension
    return [os.path.join(LIBDIR, "libkmemdev.a")], libs + ["-pthread", "-Wl,--exclude-libs,ALL"]


def cflags():
    flags = ["-std=gnu11", "-Wall", "-Wextra", "-Werror", "-D_GNU_SOURCE",
             "-fvisibility=hidden", "-pthread"]
    return flags + pkg_config("--cflags", "libbpf")


objects, libs = link_args()
setup(
    version=version(),
    ext_modules=[
        Extension(
            "kmemdev._kmemdev",
            sources=["src/" + s for s in ("kmem.c", "read.c", "btf.c", "walk.c",
                                          "pagemap.c", "probes.c", "events.c")],
            include_dirs=[os.path.join(LIBDIR, "include"), os.path.join(TOP, "uapi")],
            define_macros=[("Py_LIMITED_API", LIMITED_API)],
            extra_compile_args=cflags(),
            extra_objects=objects,
            extra_link_args=libs,
            py_limited_api=True,
            depends=["src/ext.h", os.path.join(LIBDIR, "include", "kmemdev.h")],
        )
    ],
    packages=["kmemdev"],
    package_data={"kmemdev": ["py.typed", "*.pyi"]},
    options={"bdist_wheel": {"py_limited_api": "cp311"}},
)
