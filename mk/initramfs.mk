# The metal-hammer initramfs (docs/initramfs.md).
#   make initramfs [COMPRESS=lz4|zstd|gzip|none] [COMPRESS_LEVEL=n] [KVER=<version>]
# The kernel: the one Debian's linux-image-amd64 depends on, else the newest installed,
# else the newest module list in the repo (a fresh machine before `make deps`).
KVER ?= $(or $(shell dpkg-query -W -f='$${Depends}' linux-image-amd64 2>/dev/null | sed -n 's/^linux-image-\([^ ,]*\).*/\1/p'),$(patsubst /boot/vmlinuz-%,%,$(lastword $(sort $(wildcard /boot/vmlinuz-*)))),$(patsubst initramfs/modules/%.list,%,$(lastword $(sort $(wildcard initramfs/modules/*.list)))))
KVER := $(KVER)
export KVER
# The module list for that kernel; after a Debian ABI bump the newest list stands in
# (module names rarely change) and the build says so.
MODULE_LIST := $(or $(wildcard initramfs/modules/$(KVER).list),$(lastword $(sort $(wildcard initramfs/modules/*.list))))
ifneq ($(MODULE_LIST),initramfs/modules/$(KVER).list)
$(warning no initramfs/modules/$(KVER).list: using $(MODULE_LIST); copy it to that name once checked)
endif
COMPRESS ?= lz4
INITRAMFS_EXT_lz4 := .lz4
INITRAMFS_EXT_zstd := .zst
INITRAMFS_EXT_gzip := .gz
INITRAMFS_EXT_none :=
INITRAMFS := build/initramfs/initramfs-$(KVER).cpio$(INITRAMFS_EXT_$(COMPRESS))
INITRAMFS_SRC := initramfs/build.ts initramfs/tools.ts initramfs/tools.list $(wildcard src/initramfs/*.ts) src/init/modules-dep.ts src/init/paths.ts $(MODULE_LIST)

.PHONY: initramfs

initramfs: $(INITRAMFS)

$(INITRAMFS): dist/metal-hammer $(INITRAMFS_SRC) | deps-apt
	$(BUN) initramfs/build.ts --agent dist/metal-hammer --kver $(KVER) --list $(MODULE_LIST) --tools initramfs/tools.list --compress $(COMPRESS) $(if $(COMPRESS_LEVEL),--level $(COMPRESS_LEVEL)) --out $@
