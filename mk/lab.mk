# The QEMU lab (docs/lab.md): the agent as PID 1 against radvd in a network namespace.
#   make lab [NIC=virtio|e1000] [NICS=2] [LLDP=0] [FAST=1] [COMPRESS=lz4] [NO_RA=1] [DEBUG=1]
#            [EXPECT=reboot|poweroff] [TIMEOUT=240] [NET_TIMEOUT=30s] [CMDLINE='KEY=VALUE ...']
#            [MEM=1024] [FIRMWARE=seabios|qboot|uefi] [SERVERS=standins|placeholder|none] [ALLOCATE=0]
#            [BOOT=chain|direct] [INSTALL=0|1] [SWITCH_OS=sonic|cumulus] [IMAGE=testos|debian|oci]
# BOOT=chain (default): the MEP-20 chain, installation ISO -> iPXE (SLAAC) -> boot.ipxe ->
# bzImage + initramfs over IPv6 (mk/iso.mk, docs/boot-chain.md); BOOT=direct: QEMU
# -kernel with the uncompressed vmlinux, ~10 s faster, for working on the agent.
# INSTALL=1 (the default with the stand-ins, an allocation, RAs and no DEBUG): a VM with a
# 1 GiB disk and the test OS image: the whole flow to the kexec into the installed kernel
# (register, wipe, wait, layout, image, installer, InstallationSucceeded); INSTALL=0: no
# disk, the flow ends at the layout (layout_refused) and reboots.
# FIRMWARE=uefi (BOOT=chain): OVMF, the same ISO through its EFI image (ipxe.efi).
NIC ?= virtio
# How the lab's leaves announce themselves over LLDP (docs/lab.md): SONiC's lldpmgrd
# (Port ID = the port's alias) or Cumulus (lldpd's defaults: Port ID = the port's MAC).
SWITCH_OS ?= sonic
ifeq ($(filter $(SWITCH_OS),sonic cumulus),)
$(error SWITCH_OS=$(SWITCH_OS): expected sonic or cumulus)
endif
NICS ?= 2
TIMEOUT ?= 240
NET_TIMEOUT ?= 30s
# How a run without the install ends (INSTALL=0: no disk, the flow ends at the layout and reboots).
EXPECT ?= reboot
MEM ?= 1024
FIRMWARE ?= seabios
ifeq ($(filter $(FIRMWARE),seabios qboot uefi),)
$(error FIRMWARE=$(FIRMWARE): expected seabios, qboot or uefi)
endif
SERVERS ?= standins
# The install needs the stand-ins (they serve the image and allocate), RAs, and no debug shell.
INSTALL ?= $(if $(and $(filter standins,$(SERVERS)),$(if $(filter 0,$(ALLOCATE)),,y),$(if $(filter 1,$(NO_RA)),,y),$(if $(filter 1,$(DEBUG)),,y)),1,0)
ifeq ($(filter $(INSTALL),0 1),)
$(error INSTALL=$(INSTALL): expected 0 or 1)
endif
# The direct boot runs on SeaBIOS or qboot; qboot cannot boot the ISO (run-chain.ts refuses it).
LAB_IS_DIRECT := $(filter direct,$(BOOT))
ifneq ($(and $(LAB_IS_DIRECT),$(filter uefi,$(FIRMWARE))),)
$(error FIRMWARE=uefi: boots the chain only (BOOT=chain); expected seabios or qboot with BOOT=direct)
endif
VMLINUX := build/lab/vmlinux-$(KVER)

LAB_FLAGS := --kernel $(VMLINUX) --initrd $(INITRAMFS) --nic $(NIC) --nics $(NICS) --timeout $(TIMEOUT) \
	--net-timeout $(NET_TIMEOUT) --expect $(EXPECT) --memory $(MEM) --firmware $(FIRMWARE) --servers $(SERVERS) --switch-os $(SWITCH_OS) \
	$(if $(filter 1,$(FAST)),--fast) $(if $(filter 1,$(NO_RA)),--no-ra) $(if $(filter 0,$(LLDP)),--no-lldp) $(if $(filter 0,$(ALLOCATE)),--no-allocate) $(if $(filter 1,$(INSTALL)),--install) \
	$(if $(filter 1,$(DEBUG)),--debug --done shell) $(if $(CMDLINE),--cmdline "$(CMDLINE)")

.PHONY: lab lab-kernel bench-boot test-install-uefi

lab-kernel: $(VMLINUX)

# The uncompressed kernel boots through its PVH entry: ~4 s less than the bzImage under TCG.
$(VMLINUX): $(BOOT_DIR)/vmlinuz-$(KVER) lab/base/vmlinux.ts | deps-npm
	@mkdir -p $(dir $@)
	$(BUN) lab/base/vmlinux.ts $< $@

$(BOOT_DIR)/vmlinuz-$(KVER):
	$(MAKE) deps-apt
	@test -f $@ || { echo "$@ is missing: install linux-image-$(KVER)"; exit 1; }

# IMAGE=debian: the real OS instead of the busybox test OS (mk/realos.mk test-realos-e2e, the
# console live): OVMF, the lab's Debian image (no installer in it, as metal-images), the
# os-installer the initramfs carries, kexec, then a power cycle through the boot entry the
# agent wrote and GRUB, each boot to the image's marker. IMAGE=testos (default): the test OS.
#   make lab IMAGE=debian OS_INSTALLER=PATH [LAYOUT=raid1|single]
# IMAGE=oci: the test OS from an OCI registry (Debian's docker-registry beside the stand-ins in the
# router's namespace, TLS by the boot CA, htpasswd; credentials as metal-boot's oci_configs; three
# layers with whiteouts, lab/images/oci-image.ts), booted directly (-kernel), the install through kexec.
IMAGE ?= testos
ifeq ($(filter $(IMAGE),testos debian oci),)
$(error IMAGE=$(IMAGE): expected testos, debian or oci)
endif

# IMAGE=debian asks for OS_INSTALLER before anything is built: the initramfs must carry it.
lab: $(if $(filter debian,$(IMAGE)),need-os-installer) deps $(VMLINUX) $(INITRAMFS)
ifeq ($(IMAGE),debian)
	$(MAKE) --no-print-directory test-realos-e2e REALOS_LIVE=1
else ifeq ($(IMAGE),oci)
	$(BUN) lab/direct/lab.ts $(LAB_FLAGS) --oci
else ifneq ($(LAB_IS_DIRECT),)
	$(BUN) lab/direct/lab.ts $(LAB_FLAGS)
else
	$(MAKE) --no-print-directory lab-chain CHAIN_INITRD=$(INITRAMFS) CHAIN_AGENT=1
endif

# The UEFI install and the installed OS's disk boot after a power cycle (OVMF; the test OS
# image with GRUB's EFI build; the test initramfs, which carries the test installer), alone;
# make test runs it too.
test-install-uefi: deps $(VMLINUX) $(TEST_INITRAMFS)
	INITRAMFS=$(TEST_INITRAMFS) $(BUN) test --timeout 900000 ./test/e2e/install-uefi.test.ts

# The e2e suite (test/e2e/) boots the lab: make test builds what it needs first.
test: $(VMLINUX) $(INITRAMFS) $(TEST_INITRAMFS)

bench-boot: deps $(VMLINUX) dist/metal-hammer
	$(BUN) bench/boot.ts --memory $(MEM) --firmware $(FIRMWARE)
