# SPDX-License-Identifier: GPL-2.0
#
# kmem_ro: one entry point.  See README.md.
#
#   make            module (running kernel's headers, else the cached 6.12
#                   test kernel), libkmemdev, the kcore preload, kmemctl
#   make check      host unit tests + the VM suite on Debian 6.1, 6.12 and
#                   7.3; the module also built and sparse-checked for sid
#   make abi-check  libkmemdev.so's ABI against libkmemdev/abi/libkmemdev.abi
#                   (libabigail; make abi-update rewrites it, on purpose)
#   make check-debug the VM suite on a KASAN/lockdep build of Debian's 7.3
#   make demo       one kernel (6.12), one throwaway VM: load kmem_ro, run
#                   kmemctl info, sym, ps, struct, list, modules
#   make vm-shell KERNEL=6.12   a shell in that VM, kmem_ro and kmemctl in it
#   make check VM_SUITES=a,b    the VM suites a and b alone, nothing else
#   make check-harness  the VM harness's own test (vmtest/README.md)
#   make sparse     sparse + W=1 on every test kernel and sid's, fails on
#                   any warning
#   make bench      benchmarks in the VM, appended to bench/results.txt
#   make fuzz       the in-VM fuzzer for DURATION s (default 600) per kernel,
#                   appended to tests/fuzz/results.txt
#   make stress     the stress group (also part of check), its figures
#                   appended to tests/vm/stress-results.txt
#   make check-crash KERNEL=6.12  Debian's crash as a group member under the
#                   kcore preload vs root's on kcore (fetches the -dbg
#                   vmlinux); appended to tests/vm/crash-results.txt
#   make host-deps  a real host: build packages, its kernel headers, DKMS
#                   (scripts/install-deps.sh host)
#   make install    library, kmemctl, man pages, udev rule and group, the
#                   driver through DKMS; DESTDIR, PREFIX (see "install" below)
#   make uninstall  removes what install installed
#   make check-deb  make deb, then install, DKMS build and purge in a
#                   bookworm and a trixie root (part of check)
#   make deb        Debian packages (kmem-ro-dkms, libkmemdev0, libkmemdev-dev,
#                   kmemctl) in build/deb, checked by lintian
#   make python     the Python binding (python/: import kmemdev), its
#                   extension built in place against libkmemdev.a

# Kernel series (vmtest/fetch-kernels.sh): 6.1, 6.12 (bookworm and its
# backports), 7.3 (trixie-backports' newest 7.x), sid (sid's).  KERNELS
# boot in the VM; sid is only built and sparse-checked (no VM group names
# it), on top of the default list.  KERNELS given to make is the whole list.
KERNELS       ?= 6.1 6.12 7.3
DEBUG_KERNEL  ?= 7.3
BUILD_ONLY_KERNELS ?= $(if $(filter file,$(origin KERNELS)),sid)
MODULE_KERNELS := $(strip $(KERNELS) $(filter-out $(KERNELS),$(BUILD_ONLY_KERNELS)))
BUILD         ?= $(CURDIR)/build
KMEM_RO_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/kmem_ro
export KMEM_RO_CACHE BUILD

RUNNING_KDIR  := /lib/modules/$(shell uname -r)/build
KDIR          ?= $(if $(wildcard $(RUNNING_KDIR)/Makefile),$(RUNNING_KDIR))
DEFAULT_KERNEL := 6.12
KBUILD_FLAGS  := W=1 KCFLAGS=-Werror

all: module lib preload tools

# The build packages (compiler, libbpf, libnl, ...), installed before any
# compile starts: every compiling target waits for this, so `make -j` on a
# fresh machine never compiles beside apt, and libkmemdev's libnl check
# (libkmemdev/events.mk, read when its make starts) sees the result.
# A package build (debian/rules) has its Build-Depends: NO_BUILD_DEPS=1.
build-deps:
	@$(if $(NO_BUILD_DEPS),:,scripts/install-deps.sh build)

deps: build-deps
	scripts/install-deps.sh all
	KERNELS="$(MODULE_KERNELS)" vmtest/fetch-kernels.sh

# A real host: build packages, the running kernel's headers and DKMS.
host-deps:
	scripts/install-deps.sh host

ifneq ($(KDIR),)
module: build-deps
	$(MAKE) -C $(KDIR) M=$(CURDIR)/driver $(KBUILD_FLAGS) modules
else
module: build-deps
	KERNELS=$(DEFAULT_KERNEL) vmtest/fetch-kernels.sh
	vmtest/build-module.sh $(DEFAULT_KERNEL) driver $(BUILD)/$(DEFAULT_KERNEL) $(KBUILD_FLAGS) modules
	@echo "module: built for the cached test kernel: $(BUILD)/$(DEFAULT_KERNEL)/driver/kmem_ro.ko"
endif

lib: build-deps
	$(MAKE) -C libkmemdev

# libkmemdev-kcore.so (preload/), the LD_PRELOAD shim for kcore readers.
preload: lib
	$(MAKE) -C preload

tools: lib
	$(MAKE) -C tools

# python/kmemdev/_kmemdev.abi3.so: one build for every Python from 3.11
# (the stable ABI), with Debian's python3 and setuptools (setup.py builds
# libkmemdev.a too).  pip install --no-build-isolation ./python installs it.
PYTHON ?= /usr/bin/python3
python: lib
	cd python && $(PYTHON) setup.py -q build_ext --inplace

# Where kernel $$k's sparse pass runs: "build", in its module build (the
# same root); "apart", in a build of its own (7.x: sid's sparse, trixie's
# compiler; vmtest/fetch-kernels.sh); "none" for a kernel built here
# (vmtest/build-debug-kernel.sh: the released kernel's pass covers it).
sparse_where = $$(c=$(KMEM_RO_CACHE)/kernels/$$k; \
	if [ -s $$c/kdir ]; then echo none; \
	elif [ "$$(cat $$c/check-root 2>/dev/null)" = "$$(cat $$c/kbuild-root 2>/dev/null)" ]; \
	then echo build; else echo apart; fi)

# kmem_ro.ko and the test-only kmem_ro_testobj.ko per test kernel,
# warnings are errors, sparse's too where it can run in the same build (one
# compile, not two).
define build_modules
	@set -e; for k in $(1); do \
		echo "  MODULE  $$k"; \
		if [ $(sparse_where) = build ]; then \
			vmtest/sparse-module.sh $$k $(BUILD)/$$k $(KBUILD_FLAGS); \
		else \
			vmtest/build-module.sh $$k driver $(BUILD)/$$k $(KBUILD_FLAGS) modules; \
		fi; \
		vmtest/build-module.sh $$k tests/vm/testobj $(BUILD)/$$k $(KBUILD_FLAGS) modules; \
	done
endef
test-modules: deps
	$(call build_modules,$(MODULE_KERNELS))

# Only the kernels no VM group boots (sid): make check builds them beside
# the booted ones' (BUILD_ONLY_KERNELS=, scripts/check.sh).
build-only-modules: deps
	$(call build_modules,$(filter-out $(KERNELS),$(BUILD_ONLY_KERNELS)))

# sparse and W=1 on every test kernel, in a build of its own.
sparse: deps
	@set -e; for k in $(MODULE_KERNELS); do \
		vmtest/sparse-module.sh $$k $(BUILD)/sparse-$$k $(KBUILD_FLAGS); \
	done

# make check: sparse on the kernels whose module build cannot run it.
sparse-apart: deps
	@set -e; for k in $(MODULE_KERNELS); do \
		[ $(sparse_where) != apart ] || \
			vmtest/sparse-module.sh $$k $(BUILD)/sparse-$$k $(KBUILD_FLAGS); \
	done

vm-binaries: lib preload python
	$(MAKE) -C tests/vm
	$(MAKE) -C tools static
	cp tools/kmemctl.static $(BUILD)/vm/kmemctl

# libkmemdev.so's exported symbols and types against the committed
# baseline; any difference fails (scripts/abi-check.sh).  abi-update
# rewrites the baseline: commit it with the change that needs it.
abi-check:
	scripts/abi-check.sh

abi-update:
	scripts/abi-check.sh --update

# Both suites run even if one fails.
check-unit: lib
	@fail=0; $(MAKE) -C tests/unit check || fail=1; \
	tests/install/install_test.sh || fail=1; exit $$fail

# The Debian roots the VM groups name (+udev-root=SUITE in tests/vm/groups)
# and `make install` to lay over them.
UDEV_SUITES := $(sort $(shell sed -n 's/.* +udev-root=\([a-z]*\) .*/\1/p' tests/vm/groups))
vm-root:
	set -e; for s in $(UDEV_SUITES); do vmtest/build-root.sh udev $$s; done
	rm -rf $(BUILD)/vm/install
	$(MAKE) -s install DESTDIR=$(BUILD)/vm/install PREFIX=/usr >/dev/null

check-vm: test-modules vm-binaries vm-root
	KERNELS="$(KERNELS)" vmtest/run.sh

# check-vm without building what it boots (make check builds that first and
# runs this beside its host steps: scripts/check.sh).
vm-run:
	KERNELS="$(KERNELS)" vmtest/run.sh

check:
	@scripts/check.sh

# The harness must be able to fail: guests that log a WARNING, leak an fd,
# fail a suite or hang, each judged FAILED (vmtest/check-harness.sh, 6.12).
check-harness:
	@$(MAKE) -s vm-module KERNEL=6.12
	vmtest/check-harness.sh

# The packages of `make deb` installed with apt in a bookworm and a trixie
# root, DKMS building the module for that root's kernel (6.12, 7.3), then
# purged (tests/install/deb_roots.sh; needs root and the mirror).
check-deb: deb
	tests/install/deb_roots.sh

# Debian packages of this tree in $(BUILD)/deb (scripts/build-deb.sh).
deb:
	scripts/build-deb.sh

# The VM suite on a KASAN/KFENCE/UBSAN/lockdep build of the newest sources
# Debian ships, linux-source-7.3 (vmtest/build-debug-kernel.sh; about an hour
# cold on 2 cores).  DEBUG_KERNEL=6.12 builds and runs 6.12's instead.
# Sanitizers slow TCG down: more time and memory per group.
check-debug:
	VM_TIMEOUT=$${VM_TIMEOUT:-3600} VM_MEM=$${VM_MEM:-2048} \
		VM_RUN_RECORD=$${VM_RUN_RECORD:-$(CURDIR)/tests/vm/debug-results.txt} \
		$(MAKE) check-vm KERNELS=$(DEBUG_KERNEL)-debug

bench: deps vm-binaries test-modules
	$(MAKE) -C bench
	KERNELS="$(KERNELS)" bench/run.sh

# Debian's crash as a member of the device's group under the kcore preload,
# against root's on /proc/kcore, in KERNEL's VM (tests/vm/crash.sh: fetches
# the kernel's -dbg package, ~1 GB, and crash; not part of check).
check-crash: deps
	tests/vm/crash.sh $(KERNEL)

# FUZZ_SEED=... replays a run; the guest gets DURATION plus room to boot.
DURATION ?= 600
fuzz: deps vm-binaries test-modules
	FUZZ_DURATION=$(DURATION) VM_TIMEOUT=$${VM_TIMEOUT:-$$(($(DURATION) + 900))} \
		VM_GROUPS=fuzz VM_RESULTS=fuzz=$(CURDIR)/tests/fuzz/results.txt \
		KERNELS="$(KERNELS)" vmtest/run.sh

stress: deps vm-binaries test-modules
	VM_GROUPS=stress VM_RESULTS=stress=$(CURDIR)/tests/vm/stress-results.txt \
		KERNELS="$(KERNELS)" vmtest/run.sh

# One kernel (KERNEL, default 6.12) and only what the VM runs: kmem_ro.ko
# and the test objects for it, the static kmemctl.
KERNEL ?= $(DEFAULT_KERNEL)
vm-kernel:
	scripts/install-deps.sh demo
	KERNELS=$(KERNEL) vmtest/fetch-kernels.sh

vm-module: vm-kernel
	+vmtest/build-module.sh $(KERNEL) driver $(BUILD)/$(KERNEL) $(KBUILD_FLAGS) modules
	+vmtest/build-module.sh $(KERNEL) tests/vm/testobj $(BUILD)/$(KERNEL) $(KBUILD_FLAGS) modules

# After vm-kernel: its apt run installs the build packages first.
vm-kmemctl: vm-kernel
	$(MAKE) -C tools static
	mkdir -p $(BUILD)/vm
	cp tools/kmemctl.static $(BUILD)/vm/kmemctl

# Boots KERNEL once and shows what README shows (vmtest/demo.sh); both
# builds run at once.
demo:
	@$(MAKE) -s -j$(shell nproc) vm-module vm-kmemctl
	@KERNELS=$(KERNEL) VM_GROUPS_FILE=vmtest/demo.groups VM_SHOW=1 vmtest/run.sh

# A shell in the test VM (KERNEL, default 6.12) with kmem_ro loaded and
# kmemctl; leaving the shell powers the VM off.
vm-shell:
	@$(MAKE) -s -j$(shell nproc) vm-module vm-kmemctl
	@KERNELS=$(KERNEL) VM_GROUPS_FILE=vmtest/shell.groups VM_INTERACTIVE=1 vmtest/run.sh

# install: PREFIX (default /usr/local), BINDIR, LIBDIR, INCLUDEDIR, MANDIR.
# The udev rule, the kmem_ro group (sysusers.d) and the driver's DKMS source
# tree (/usr/src/kmem_ro-VERSION) go where udev, systemd and DKMS look,
# whatever PREFIX.  The module itself, for kernel KVER (default: running):
#   MODULE_INSTALL=dkms    dkms add/build/install (default when dkms is on PATH)
#   MODULE_INSTALL=kbuild  build the DKMS tree against KVER's headers (in
#                          BUILD), install into /lib/modules/KVER/extra,
#                          depmod (default without dkms)
#   MODULE_INSTALL=none    the DKMS source tree only (default with DESTDIR:
#                          a package's postinst runs dkms)
# With DESTDIR set nothing outside it is touched: no group, dkms, depmod,
# ldconfig or udev reload.
VERSION     := $(shell cat $(CURDIR)/VERSION)
PREFIX      ?= /usr/local
BINDIR      ?= $(PREFIX)/bin
LIBDIR      ?= $(PREFIX)/lib
INCLUDEDIR  ?= $(PREFIX)/include
MANDIR      ?= $(PREFIX)/share/man
PKG_CONFIG  ?= pkg-config
INSTALL     ?= install
UDEVDIR     ?= $(or $(shell $(PKG_CONFIG) --variable=udevdir udev 2>/dev/null),/usr/lib/udev)
SYSUSERSDIR ?= $(or $(shell $(PKG_CONFIG) --variable=sysusersdir systemd 2>/dev/null),/usr/lib/sysusers.d)
KVER        ?= $(shell uname -r)
MODULE_INSTALL ?= $(if $(DESTDIR),none,$(if $(shell command -v dkms),dkms,kbuild))
DKMS_SRCDIR := /usr/src/kmem_ro-$(VERSION)
DKMS_DRIVER := driver/Kbuild $(wildcard driver/*.h) \
	       $(filter-out %.mod.c,$(wildcard driver/*.c))
MANPAGES    := $(wildcard man/*.[1-8])
MODDIR      := /lib/modules/$(KVER)/extra
DIRS        := PREFIX=$(PREFIX) BINDIR=$(BINDIR) LIBDIR=$(LIBDIR) INCLUDEDIR=$(INCLUDEDIR)

install: lib preload tools
	$(MAKE) -C libkmemdev install $(DIRS)
	$(MAKE) -C preload install $(DIRS)
	$(MAKE) -C tools install $(DIRS)
	@set -e; for p in $(MANPAGES); do \
		d=$(DESTDIR)$(MANDIR)/man$${p##*.}; \
		echo "$(INSTALL) -m 0644 $$p $$d"; \
		$(INSTALL) -d $$d; $(INSTALL) -m 0644 $$p $$d; \
	done
	$(INSTALL) -D -m 0644 udev/60-kmem_ro.rules $(DESTDIR)$(UDEVDIR)/rules.d/60-kmem_ro.rules
	$(INSTALL) -D -m 0644 udev/kmem_ro.sysusers $(DESTDIR)$(SYSUSERSDIR)/kmem_ro.conf
	rm -rf $(DESTDIR)$(DKMS_SRCDIR)
	$(INSTALL) -d $(DESTDIR)$(DKMS_SRCDIR)/driver $(DESTDIR)$(DKMS_SRCDIR)/uapi
	$(INSTALL) -m 0644 $(DKMS_DRIVER) $(DESTDIR)$(DKMS_SRCDIR)/driver
	$(INSTALL) -m 0644 $(wildcard uapi/*.h) $(DESTDIR)$(DKMS_SRCDIR)/uapi
	$(INSTALL) -m 0644 dkms/Makefile $(DESTDIR)$(DKMS_SRCDIR)/Makefile
	sed 's|@VERSION@|$(VERSION)|g' dkms/dkms.conf.in > $(DESTDIR)$(DKMS_SRCDIR)/dkms.conf
	chmod 0644 $(DESTDIR)$(DKMS_SRCDIR)/dkms.conf
	@# The group before udev applies the rule; sysusers.d makes it at boot.
	@set -e; if [ -z "$(DESTDIR)" ]; then \
		if command -v systemd-sysusers >/dev/null; then \
			echo "systemd-sysusers $(SYSUSERSDIR)/kmem_ro.conf"; \
			systemd-sysusers $(SYSUSERSDIR)/kmem_ro.conf; \
		elif ! getent group kmem_ro >/dev/null; then \
			echo "groupadd --system kmem_ro"; groupadd --system kmem_ro; \
		fi; \
		ldconfig; \
		if command -v udevadm >/dev/null && [ -d /run/udev ]; then \
			udevadm control --reload; \
			udevadm trigger --subsystem-match=misc --sysname-match=kmem_ro; \
		fi; \
	fi
	@set -e; case "$(MODULE_INSTALL)" in \
	dkms)	[ -z "$(DESTDIR)" ] || { echo "install: MODULE_INSTALL=dkms registers the module on this host: not with DESTDIR" >&2; exit 1; }; \
		if dkms status kmem_ro/$(VERSION) | grep -q .; then \
			echo "dkms remove kmem_ro/$(VERSION) --all"; dkms remove kmem_ro/$(VERSION) --all; \
		fi; \
		echo "dkms add/build/install kmem_ro/$(VERSION) -k $(KVER)"; \
		dkms add kmem_ro/$(VERSION); \
		dkms build kmem_ro/$(VERSION) -k $(KVER); \
		dkms install kmem_ro/$(VERSION) -k $(KVER) ;; \
	kbuild)	b=$(BUILD)/install-$(KVER); rm -rf $$b; mkdir -p $(BUILD); \
		cp -r $(DESTDIR)$(DKMS_SRCDIR) $$b; \
		$(MAKE) -C $$b KVER=$(KVER) modules; \
		echo "$(INSTALL) -D -m 0644 $$b/driver/kmem_ro.ko $(DESTDIR)$(MODDIR)/kmem_ro.ko"; \
		$(INSTALL) -D -m 0644 $$b/driver/kmem_ro.ko $(DESTDIR)$(MODDIR)/kmem_ro.ko; \
		if [ -z "$(DESTDIR)" ]; then echo "depmod -a $(KVER)"; depmod -a $(KVER); fi ;; \
	none)	;; \
	*)	echo "install: MODULE_INSTALL is dkms, kbuild or none" >&2; exit 1 ;; \
	esac

uninstall:
	$(MAKE) -C tools uninstall $(DIRS)
	$(MAKE) -C preload uninstall $(DIRS)
	$(MAKE) -C libkmemdev uninstall $(DIRS)
	rm -f $(foreach p,$(MANPAGES),$(DESTDIR)$(MANDIR)/man$(subst .,,$(suffix $(p)))/$(notdir $(p)))
	rm -f $(DESTDIR)$(UDEVDIR)/rules.d/60-kmem_ro.rules $(DESTDIR)$(SYSUSERSDIR)/kmem_ro.conf
	@# The group stays: files may still belong to it (groupdel kmem_ro).
	@set -e; if [ -z "$(DESTDIR)" ]; then \
		if command -v dkms >/dev/null && dkms status kmem_ro/$(VERSION) | grep -q .; then \
			echo "dkms remove kmem_ro/$(VERSION) --all"; dkms remove kmem_ro/$(VERSION) --all; \
		fi; \
		ldconfig; \
	fi
	rm -rf $(DESTDIR)$(DKMS_SRCDIR)
	@set -e; if [ -e $(DESTDIR)$(MODDIR)/kmem_ro.ko ]; then \
		echo "rm -f $(DESTDIR)$(MODDIR)/kmem_ro.ko"; rm -f $(DESTDIR)$(MODDIR)/kmem_ro.ko; \
		rmdir --ignore-fail-on-non-empty $(DESTDIR)$(MODDIR); \
		if [ -z "$(DESTDIR)" ]; then echo "depmod -a $(KVER)"; depmod -a $(KVER); fi; \
	fi

.PHONY: install uninstall

clean:
	$(MAKE) -C libkmemdev clean
	$(MAKE) -C preload clean
	$(MAKE) -C tools clean
	$(MAKE) -C tests/unit clean
	$(MAKE) -C tests/vm clean
	$(MAKE) -C bench clean
	rm -rf python/build python/*.egg-info python/kmemdev/*.so
	rm -rf $(BUILD)
	rm -f driver/*.o driver/*.ko driver/*.mod* driver/.*.cmd driver/modules.order driver/Module.symvers

.PHONY: all build-deps deps host-deps module lib preload tools python deb vm-kernel vm-module vm-kmemctl vm-shell test-modules build-only-modules sparse sparse-apart vm-binaries vm-root check-unit check-vm vm-run check check-harness check-deb check-debug check-crash bench fuzz stress demo clean abi-check abi-update
