# Disks: inventory, wipe, FilesystemLayout (docs/disks.md).
#   make test-disk             unit tests (no root)
#   make test-disk-e2e RUNS=2  QEMU: wipe, RAID 1 + LVM and single-disk layouts (root)
#   make test-disk-scsi-e2e       QEMU: the SCSI probe and wipe on the kernel's scsi_debug (root)
#   make bench-wipe SIZE_MIB=256  wipe time per method vs metal-hammer's dd (root, loop device)
.PHONY: test-disk test-disk-e2e bench-wipe

test-disk: deps-npm
	$(BUN) test test/machine/disk test/cli/disk.test.ts

RUNS ?= 1
# lab-kernel, not $(VMLINUX): mk/lab.mk, which defines it, is read after this file.
test-disk-e2e: deps initramfs lab-kernel
	@for i in $$(seq $(RUNS)); do echo "disk e2e run $$i/$(RUNS)"; $(BUN) test --timeout 600000 test/e2e/disks.test.ts || exit 1; done

SIZE_MIB ?= 256
bench-wipe: deps
	$(BUN) bench/wipe.ts --size-mib $(SIZE_MIB) --runs 3

# QEMU: the SCSI path of the wipe on the kernel's scsi_debug (root; ~30 s; also part of make test).
.PHONY: test-disk-scsi-e2e
test-disk-scsi-e2e: deps initramfs lab-kernel
	$(BUN) test --timeout 300000 test/e2e/disks-scsi.test.ts
