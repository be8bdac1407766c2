# The metal-hammer initramfs (docs/initramfs.md).
#   make initramfs [COMPRESS=lz4|zstd|gzip|none] [COMPRESS_LEVEL=n] [KVER=6.1.0-57-amd64]
KVER ?= 6.1.0-57-amd64
COMPRESS ?= lz4
INITRAMFS_EXT_lz4 := .lz4
INITRAMFS_EXT_zstd := .zst
INITRAMFS_EXT_gzip := .gz
INITRAMFS_EXT_none :=
INITRAMFS := build/initramfs/initramfs-$(KVER).cpio$(INITRAMFS_EXT_$(COMPRESS))
INITRAMFS_SRC := initramfs/build.ts $(wildcard src/initramfs/*.ts) src/init/modules-dep.ts src/init/paths.ts initramfs/modules/$(KVER).list

.PHONY: initramfs

initramfs: $(INITRAMFS)

$(INITRAMFS): dist/metal-hammer $(INITRAMFS_SRC) | deps-apt
	$(BUN) initramfs/build.ts --agent dist/metal-hammer --kver $(KVER) --compress $(COMPRESS) $(if $(COMPRESS_LEVEL),--level $(COMPRESS_LEVEL)) --out $@
