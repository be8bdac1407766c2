# The metal-hammer initramfs (docs/initramfs.md).
#   make initramfs [COMPRESS=xz|zstd|lz4|gzip|none] [COMPRESS_LEVEL=n] [KVER=<version>] [TOOLS=<list file>]
# The kernel: the one Debian's linux-image-amd64 depends on, else the newest installed.
# BOOT_DIR: where the kernels are (/boot; test/lab/unit/makefile-kver.test.ts points it elsewhere).
BOOT_DIR ?= /boot
KVER ?= $(or $(shell dpkg-query -W -f='$${Depends}' linux-image-amd64 2>/dev/null | sed -n 's/^linux-image-\([^ ,]*\).*/\1/p'),$(patsubst $(BOOT_DIR)/vmlinuz-%,%,$(lastword $(sort $(wildcard $(BOOT_DIR)/vmlinuz-*)))))
KVER := $(KVER)
# A fresh machine has no kernel yet: KVER is read when make starts, and linux-image-amd64
# arrives only with deps. Then make installs the Debian packages first (the rule of the
# makefile included below), restarts (GNU make re-reads its makefiles once an included one
# was remade) and reads KVER again. Goals that need no kernel do not install anything.
NO_KERNEL_GOALS := deps deps-npm deps-apt all build typecheck test-unit clean docs
KVER_DEPS_STAMP ?= build/.kver-deps.mk
ifeq ($(KVER)$(MAKE_RESTARTS),)
ifneq ($(filter-out $(NO_KERNEL_GOALS),$(or $(MAKECMDGOALS),all)),)
include $(KVER_DEPS_STAMP)
endif
endif
$(KVER_DEPS_STAMP): deps-apt
	@mkdir -p $(@D)
	@echo '# made by mk/initramfs.mk after deps-apt: make restarts and reads KVER again' > $@
export KVER
# zstd -19: the fastest to the unpacked image at 1 Gbit/s (make bench-initramfs; initramfs/lib/compress.ts DEFAULT_COMPRESSION).
COMPRESS ?= zstd
INITRAMFS_EXT_lz4 := .lz4
INITRAMFS_EXT_zstd := .zst
INITRAMFS_EXT_xz := .xz
INITRAMFS_EXT_gzip := .gz
INITRAMFS_EXT_none :=
INITRAMFS := build/initramfs/initramfs-$(KVER).cpio$(INITRAMFS_EXT_$(COMPRESS))
# The tests find the image the run built (lab/base/kernel.ts).
export INITRAMFS
# Host binaries to add with their libraries, one absolute path per line (initramfs/tools.list when present).
TOOLS ?= $(wildcard initramfs/tools.list)
INITRAMFS_SRC := initramfs/build.ts $(wildcard initramfs/lib/*.ts src/kernel/kmod/*.ts) src/kernel/kconfig/fragment.ts src/init/paths.ts src/install/carried-installer.ts src/machine/inventory/pci-ids.ts $(wildcard /usr/share/misc/pci.ids) \
	kernel-config/metal-hammer.config initramfs/modules/boot.list $(TOOLS) $(wildcard /boot/config-$(KVER))
# Debian's firmware packages (initramfs/firmware.list), unpacked; the build takes the files its modules name.
FIRMWARE_DIR := build/firmware
FIRMWARE_STAMP := $(FIRMWARE_DIR)/.stamp

.PHONY: initramfs firmware

initramfs: $(INITRAMFS)
firmware: $(FIRMWARE_STAMP)

$(FIRMWARE_STAMP): initramfs/firmware.list initramfs/firmware.sh | deps-apt
	sh initramfs/firmware.sh $(FIRMWARE_DIR)
	@touch $@

# The os-installer the agent carries (docs/install.md "The carried os-installer"): metal-images
# carry no installer since 2026-08. A static os-installer binary built elsewhere (the Go module
# proxy refuses metal-stack's modules here; nothing in this repository fetches or builds it):
#   make initramfs OS_INSTALLER=PATH [OS_INSTALLER_VERSION=v0.3.1]
OS_INSTALLER ?=
OS_INSTALLER_VERSION ?= v0.3.1
ifneq ($(OS_INSTALLER),)
ifeq ($(wildcard $(OS_INSTALLER)),)
$(error OS_INSTALLER=$(OS_INSTALLER): no such file (expected a static os-installer $(OS_INSTALLER_VERSION) binary))
endif
endif
# The two values in a file rewritten only when they change: the image is rebuilt then, and only then.
CARRIED_VARS := build/initramfs/.os-installer.vars
.PHONY: FORCE
$(CARRIED_VARS): FORCE
	@mkdir -p $(@D); v='$(abspath $(OS_INSTALLER)) $(OS_INSTALLER_VERSION)'; [ "$$(cat $@ 2>/dev/null)" = "$$v" ] || echo "$$v" > $@
CARRIED_FLAGS := $(if $(OS_INSTALLER),--os-installer $(OS_INSTALLER) --os-installer-version $(OS_INSTALLER_VERSION))

# $(call BUILD_INITRAMFS,<compression>,<level or empty>,<carried installer flags>): the image at $@.
BUILD_INITRAMFS = $(BUN) initramfs/build.ts --agent dist/metal-hammer --kver $(KVER) --firmware-dir $(FIRMWARE_DIR)/root/lib/firmware \
	$(if $(TOOLS),--tools $(TOOLS)) --compress $(1) $(if $(2),--level $(2)) $(3) --out $@

$(INITRAMFS): dist/metal-hammer $(INITRAMFS_SRC) $(FIRMWARE_STAMP) $(CARRIED_VARS) $(OS_INSTALLER) | deps-apt
	$(call BUILD_INITRAMFS,$(COMPRESS),$(COMPRESS_LEVEL),$(CARRIED_FLAGS))

# make test's QEMU suites boot the same cpio compressed with lz4: under TCG it unpacks
# ~3 s faster per boot than the zstd default (kernel unpack under TCG, docs/initramfs.md), ~19 boots in the suite.
# It carries the lab's test installer (lab/images/test-installer.ts, os-installer's shape on the
# contract) in place of os-installer: the suites install images without an installer with it.
# The default image itself is size-checked (test/initramfs/size.test.ts) and booted by
# test/e2e/drivers.test.ts (lab/base/kernel.ts DEFAULT_INITRD).
TEST_INITRAMFS := build/initramfs/initramfs-$(KVER)-test.cpio.lz4
TEST_INSTALLER := build/test-installer/os-installer
$(TEST_INSTALLER): lab/images/test-installer.ts | deps-npm
	@mkdir -p $(@D)
	$(BUN) lab/images/test-installer.ts --shape os-installer --out $@
$(TEST_INITRAMFS): dist/metal-hammer $(INITRAMFS_SRC) $(FIRMWARE_STAMP) $(TEST_INSTALLER) | deps-apt
	$(call BUILD_INITRAMFS,lz4,,--os-installer $(TEST_INSTALLER) --os-installer-version os-installer-shape --os-installer-name test-installer)

# Size and unpack time of every compression side by side (docs/initramfs.md, docs/bench.md).
.PHONY: bench-initramfs
bench-initramfs: deps dist/metal-hammer build/bench/metal-hammer-bytecode $(FIRMWARE_STAMP) lab-kernel
	$(BUN) bench/initramfs-size.ts --runs $(or $(RUNS),1) --tools initramfs/tools.list --bytecode-agent build/bench/metal-hammer-bytecode

# The agent as it was built before: with --bytecode (the bench's comparison).
build/bench/metal-hammer-bytecode: $(SRC) node_modules/.package-lock.json
	@mkdir -p $(dir $@)
	$(call COMPILE,--bytecode)
