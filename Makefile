# SPDX-License-Identifier: GPL-2.0
#
# kmem_ro: one entry point.  See README.md.
#
#   make            module (running kernel's headers, else the cached 6.12
#                   test kernel), libkmemdev, kmemctl
#   make check      host unit tests + the VM suite on Debian 6.1 and 6.12
#   make demo       boot a throwaway VM, load kmem_ro, run kmemctl info
#   make sparse     sparse + W=1 on both test kernels, fails on any warning
#   make bench      benchmarks in the VM, appended to bench/results.txt

KERNELS       ?= 6.1 6.12
BUILD         ?= $(CURDIR)/build
KMEM_RO_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/kmem_ro
export KMEM_RO_CACHE BUILD

RUNNING_KDIR  := /lib/modules/$(shell uname -r)/build
KDIR          ?= $(if $(wildcard $(RUNNING_KDIR)/Makefile),$(RUNNING_KDIR))
DEFAULT_KERNEL := 6.12
KBUILD_FLAGS  := W=1 KCFLAGS=-Werror

all: module lib tools

deps:
	KERNELS="$(KERNELS)" scripts/fetch-kernels.sh

ifneq ($(KDIR),)
module:
	$(MAKE) -C $(KDIR) M=$(CURDIR)/driver $(KBUILD_FLAGS) modules
else
module:
	KERNELS=$(DEFAULT_KERNEL) scripts/fetch-kernels.sh
	scripts/build-module.sh $(DEFAULT_KERNEL) driver $(BUILD)/$(DEFAULT_KERNEL) $(KBUILD_FLAGS) modules
	@echo "module: built for the cached test kernel: $(BUILD)/$(DEFAULT_KERNEL)/driver/kmem_ro.ko"
endif

lib:
	$(MAKE) -C libkmemdev

tools: lib
	$(MAKE) -C tools

# kmem_ro.ko and the test-only kmem_ro_testobj.ko per test kernel,
# warnings are errors.
test-modules: deps
	@set -e; for k in $(KERNELS); do \
		echo "  MODULE  $$k"; \
		scripts/build-module.sh $$k driver $(BUILD)/$$k $(KBUILD_FLAGS) modules; \
		scripts/build-module.sh $$k tests/vm/testobj $(BUILD)/$$k $(KBUILD_FLAGS) modules; \
	done

sparse: deps
	@set -e; for k in $(KERNELS); do \
		echo "  SPARSE  $$k"; \
		scripts/build-module.sh $$k driver $(BUILD)/sparse-$$k C=2 W=1 modules \
			2>&1 | grep -v 'Skipping BTF' | tee $(BUILD)/sparse-$$k.log; \
		! grep -qE 'warning|error' $(BUILD)/sparse-$$k.log; \
	done

vm-binaries: lib
	$(MAKE) -C tests/vm
	$(MAKE) -C tools static
	cp tools/kmemctl.static $(BUILD)/vm/kmemctl

check-unit: lib
	$(MAKE) -C tests/unit check

check-vm: test-modules vm-binaries
	KERNELS="$(KERNELS)" tests/vm/run.sh

check:
	@scripts/check.sh

bench: deps vm-binaries test-modules
	$(MAKE) -C bench
	bench/run.sh

demo: deps vm-binaries test-modules
	@KERNELS="$(firstword $(KERNELS))" VM_GROUPS_FILE=tests/vm/demo.groups VM_SHOW=1 tests/vm/run.sh

clean:
	$(MAKE) -C libkmemdev clean
	$(MAKE) -C tools clean
	$(MAKE) -C tests/unit clean
	$(MAKE) -C tests/vm clean
	$(MAKE) -C bench clean
	rm -rf $(BUILD)
	rm -f driver/*.o driver/*.ko driver/*.mod* driver/.*.cmd driver/modules.order driver/Module.symvers

.PHONY: all deps module lib tools test-modules sparse vm-binaries check-unit check-vm check bench demo clean
