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
# The tests find the image the run built (lab/kernel.ts).
export INITRAMFS
# Host binaries to add with their libraries, one absolute path per line (initramfs/tools.list when present).
TOOLS ?= $(wildcard initramfs/tools.list)
INITRAMFS_SRC := initramfs/build.ts $(wildcard initramfs/lib/*.ts src/kernel/kmod/*.ts) src/kernel/kconfig/fragment.ts src/init/paths.ts src/machine/inventory/pci-ids.ts $(wildcard /usr/share/misc/pci.ids) \
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

# $(call BUILD_INITRAMFS,<compression>,<level or empty>): the image at $@.
BUILD_INITRAMFS = $(BUN) initramfs/build.ts --agent dist/metal-hammer --kver $(KVER) --firmware-dir $(FIRMWARE_DIR)/root/lib/firmware \
	$(if $(TOOLS),--tools $(TOOLS)) --compress $(1) $(if $(2),--level $(2)) --out $@

$(INITRAMFS): dist/metal-hammer $(INITRAMFS_SRC) $(FIRMWARE_STAMP) | deps-apt
	$(call BUILD_INITRAMFS,$(COMPRESS),$(COMPRESS_LEVEL))

# make test's QEMU suites boot the same cpio compressed with lz4: under TCG it unpacks
# ~3 s faster per boot than the zstd default (kernel unpack under TCG, docs/initramfs.md), ~19 boots in the suite.
# The default image itself is size-checked (test/initramfs/size.test.ts) and booted by
# test/e2e/drivers.test.ts (lab/kernel.ts DEFAULT_INITRD).
TEST_INITRAMFS := build/initramfs/initramfs-$(KVER).cpio.lz4
ifneq ($(TEST_INITRAMFS),$(INITRAMFS))
$(TEST_INITRAMFS): dist/metal-hammer $(INITRAMFS_SRC) $(FIRMWARE_STAMP) | deps-apt
	$(call BUILD_INITRAMFS,lz4,)
endif

# Size and unpack time of every compression side by side (docs/initramfs.md, docs/bench.md).
.PHONY: bench-initramfs
bench-initramfs: deps dist/metal-hammer build/bench/metal-hammer-bytecode $(FIRMWARE_STAMP) lab-kernel
	$(BUN) bench/initramfs-size.ts --runs $(or $(RUNS),1) --tools initramfs/tools.list --bytecode-agent build/bench/metal-hammer-bytecode

# The agent as it was built before: with --bytecode (the bench's comparison).
build/bench/metal-hammer-bytecode: $(SRC) node_modules/.package-lock.json
	@mkdir -p $(dir $@)
	$(call COMPILE,--bytecode)
