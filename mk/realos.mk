# The real OS (issues 22 and 34, docs/install.md "The real os-installer and the Debian image"):
# metal-stack's os-installer as a static binary built elsewhere, OS_INSTALLER=PATH (defined in
# mk/initramfs.mk: the initramfs carries it, the lab's Debian image has none, as metal-images
# build theirs). The Go module proxy refuses metal-stack's modules (403, final): nothing in
# this repository fetches or builds os-installer.
# Debian packages only the real-OS targets need: mmdebstrap builds the image, fusefat mounts
# the test's ESP (this machine's kernel has no vfat), file checks the binary is static.
REALOS_APT_PACKAGES := mmdebstrap fusefat fuse3 file
.PHONY: deps-realos need-os-installer

deps-realos:
	@$(MAKE) --no-print-directory deps-apt APT_PACKAGES="$(REALOS_APT_PACKAGES)"

need-os-installer:
	@[ -n "$(OS_INSTALLER)" ] || { echo "OS_INSTALLER=PATH is required: a static os-installer $(OS_INSTALLER_VERSION) binary built elsewhere, which the initramfs carries (docs/install.md \"Which installer runs\")"; exit 2; }

# The lab's Debian image (lab/images/debian.ts): mmdebstrap trixie, no installer in it, packed
# as metal-images pack theirs; rebuilt only when its inputs change (inputs.sha256 beside it).
#   make debian-image
DEBIAN_IMAGE_DIR := build/debian
.PHONY: debian-image

debian-image: | deps-npm deps-realos
	$(BUN) lab/images/debian.ts --out $(DEBIAN_IMAGE_DIR)

# Root: the real os-installer, as the initramfs carries it, against the agent's contract files
# (test/realos/, not in `make test`: the Go module proxy answers 403 for metal-stack's modules
# on this project's machines, so CI cannot get the installer; OS_INSTALLER=PATH supplies one).
.PHONY: test-realos
test-realos: need-os-installer deps debian-image
	@for i in $$(seq $(RUNS)); do echo "realos run $$i/$(RUNS)"; OS_INSTALLER=$(abspath $(OS_INSTALLER)) OS_INSTALLER_VERSION=$(OS_INSTALLER_VERSION) $(BUN) test --timeout 600000 ./test/realos/os-installer.realos.ts || exit 1; done

# Root, QEMU: the real Debian through the carried os-installer on UEFI (OVMF), kexec to the
# marker, then a power cycle through the boot entry the agent wrote, GRUB, to the marker
# (test/realos/debian-uefi.realos.ts; REALOS_LIVE=1 shows the console). The initramfs it boots
# is the default one, built with OS_INSTALLER (mk/initramfs.mk).
#   make test-realos-e2e OS_INSTALLER=PATH [LAYOUT=raid1|single]
# LAYOUT=raid1 (default): two disks, lab/standins/debian-raid1.json (ESP mirrored, root on md
# RAID 1, /var/lib on LVM over RAID 1); single: one disk, lab/standins/debian-single.json.
LAYOUT ?= raid1
ifeq ($(filter $(LAYOUT),raid1 single),)
$(error LAYOUT=$(LAYOUT): expected raid1 or single)
endif
.PHONY: test-realos-e2e
test-realos-e2e: need-os-installer deps debian-image $(VMLINUX) $(INITRAMFS)
	@for i in $$(seq $(RUNS)); do echo "realos e2e run $$i/$(RUNS) (LAYOUT=$(LAYOUT))"; REALOS_LAYOUT=$(LAYOUT) REALOS_LIVE=$(REALOS_LIVE) $(BUN) test --timeout 2400000 ./test/realos/debian-uefi.realos.ts || exit 1; done
