# Installation boot media (MEP-20) and the boot-chain lab. See docs/boot-chain.md.
#   make iso BOOT_URL=http://[2001:db8::b007]/boot.ipxe   -> build/iso/metal-boot.iso
#   make iso BOOT_URL=https://metal-boot.example.com/boot.ipxe ISO_CA=ca.pem
#                          -> the ISO, and build/iso/metal-boot.iso.https-ca.esl: the CA to set as
#                             the servers' UEFI HTTPS boot CA (docs/boot-chain.md "iPXE over TLS")
#   make lab-chain [FIRMWARE=uefi] [CHAIN=name|literal]  boot one QEMU machine through ISO -> iPXE -> boot.ipxe -> kernel+initrd
#   make test-chain        the chain's e2e suite (root)
#   make bench-chain       phase timings of the chain
ISO_OUT ?= build/iso/metal-boot.iso
# ldlinux.c32 is only a Recommends of isolinux. mtools writes the ISO's UEFI boot image
# (FAT, made by dosfstools); ovmf is the lab's UEFI firmware (FIRMWARE=uefi);
# grub-efi-amd64-bin: GRUB's EFI build for the test OS image of make test-install-uefi.
APT_PACKAGES += syslinux-common mtools ovmf grub-efi-amd64-bin
# efibootmgr: copied with its libraries into that image, its installer writes the boot entry.
APT_PACKAGES += efibootmgr
# The ISO's UEFI iPXE: Debian trixie's ipxe.efi, pinned (ipxe/fetch-ipxe-efi.sh: bookworm's
# ignores autoexec.ipxe). Fetched once; a new pin (IPXE_EFI_VERSION/SHA256 there) refetches.
IPXE_EFI_DIR := build/ipxe-efi
IPXE_EFI := $(IPXE_EFI_DIR)/ipxe.efi
# The kernel the initramfs is built for (KVER, mk/initramfs.mk), else the newest in /boot.
CHAIN_KERNEL ?= $(if $(KVER),$(BOOT_DIR)/vmlinuz-$(KVER),$(lastword $(sort $(wildcard $(BOOT_DIR)/vmlinuz-*))))
CHAIN_BUILD := build/chain
# The chain the lab runs: CHAIN=name (default: every service by name through the lab's DNS
# server; on FIRMWARE=uefi boot.ipxe, kernel and initrd over https with the lab's CA in the
# firmware) or CHAIN=literal (IP literals, plain http). One ISO per kind, short retry bound.
CHAIN ?= name
ifeq ($(filter $(CHAIN),name literal),)
$(error CHAIN=$(CHAIN): expected name or literal)
endif
LAB_CHAIN_KIND = $(if $(filter literal,$(CHAIN)),literal,$(if $(filter uefi,$(FIRMWARE)),name-tls,name))
LAB_BOOT_URL_literal := http://[fd00:b007::1]:8080/boot.ipxe
LAB_BOOT_URL_name := http://metal-boot.chain.lab:8080/boot.ipxe
LAB_BOOT_URL_name-tls := https://metal-boot.chain.lab/boot.ipxe
LAB_ISO = $(CHAIN_BUILD)/lab-$(LAB_CHAIN_KIND).iso
# What the lab chain-loads; the lab's initramfs once it exists, else the marker initrd.
CHAIN_INITRD ?= $(CHAIN_BUILD)/marker-initrd-v1.img

# make lab's boot path (mk/lab.mk): chain (default) or direct.
BOOT ?= chain
ifeq ($(filter $(BOOT),chain direct),)
$(error BOOT=$(BOOT): expected chain or direct)
endif

# `make lab` (BOOT=chain) boots the agent initramfs through the chain: the lab's knobs
# become the agent's cmdline, and the https stand-ins run unless SERVERS is not standins.
CHAIN_AGENT_ENV = LAB_NIC='$(NIC)' LAB_NICS='$(NICS)' LAB_LLDP='$(LLDP)' LAB_SWITCH_OS='$(SWITCH_OS)' LAB_TIMEOUT='$(TIMEOUT)' LAB_MEM='$(MEM)' \
	LAB_STANDINS=$(if $(filter standins,$(SERVERS)),1,0) LAB_ALLOCATE='$(ALLOCATE)' LAB_INSTALL='$(INSTALL)' \
	LAB_CMDLINE='METAL_LOG_FORMAT=json METAL_DONE=$(if $(filter 1,$(DEBUG)),shell,$(EXPECT)) METAL_NET_TIMEOUT=$(NET_TIMEOUT) $(if $(filter 1,$(FAST)),METAL_NET_FAST=1) $(if $(filter 1,$(DEBUG)),DEBUG=1) $(CMDLINE)'

.PHONY: iso ipxe-efi lab-chain test-chain bench-chain chain-marker

ipxe-efi: $(IPXE_EFI)

$(IPXE_EFI): ipxe/fetch-ipxe-efi.sh
	ipxe/fetch-ipxe-efi.sh $(IPXE_EFI_DIR)
	@touch $@

# The ISO tests (test/ipxe, test/e2e/chain*) build ISOs, which carry the UEFI iPXE.
test: $(IPXE_EFI)

# Rebuilt every time (BOOT_URL and ISO_* may change; it takes under a second).
iso: deps-npm $(IPXE_EFI)
	@test -n "$(BOOT_URL)" || { echo "BOOT_URL: missing; expected e.g. make iso BOOT_URL=http://[2001:db8::b007]/boot.ipxe" >&2; exit 2; }
	@mkdir -p $(dir $(ISO_OUT))
	BOOT_URL='$(BOOT_URL)' ISO_NIC='$(ISO_NIC)' ISO_ATTEMPTS='$(ISO_ATTEMPTS)' ISO_RETRY_DELAY='$(ISO_RETRY_DELAY)' ISO_GIVE_UP='$(ISO_GIVE_UP)' ISO_CA='$(ISO_CA)' \
		$(BUN) ipxe/render-chain.ts $(ISO_OUT).ipxe
	ipxe/mkiso.sh $(ISO_OUT).ipxe $(ISO_OUT)
	@sha256sum $(ISO_OUT)

# The lab's CA is made per run and reaches the firmware, not the ISO: no ISO_CA here (its warning is expected).
$(CHAIN_BUILD)/lab-%.iso: ipxe/chain-script.ts ipxe/render-chain.ts ipxe/mkiso.sh ipxe/isolinux.cfg $(IPXE_EFI) | deps-npm
	@mkdir -p $(@D)
	BOOT_URL='$(LAB_BOOT_URL_$*)' ISO_ATTEMPTS=3 ISO_RETRY_DELAY=1 $(BUN) ipxe/render-chain.ts $@.ipxe
	ipxe/mkiso.sh $@.ipxe $@

$(CHAIN_BUILD)/marker-initrd-%.img: lab/ipxe/mk-marker-initrd.sh lab/ipxe/marker/init
	@mkdir -p $(@D)
	lab/ipxe/mk-marker-initrd.sh $* $@

chain-marker: $(CHAIN_BUILD)/marker-initrd-v1.img $(CHAIN_BUILD)/marker-initrd-v2.img

lab-chain: deps $(LAB_ISO) $(CHAIN_INITRD)
	LAB_FIRMWARE=$(if $(filter seabios,$(FIRMWARE)),bios,$(FIRMWARE)) LAB_CHAIN=$(LAB_CHAIN_KIND) $(if $(filter 1,$(CHAIN_AGENT)),$(CHAIN_AGENT_ENV)) \
	$(BUN) lab/chain/run-chain.ts $(LAB_ISO) $(CHAIN_KERNEL) $(CHAIN_INITRD) $(if $(filter 1,$(CHAIN_AGENT)),agent,$(notdir $(basename $(CHAIN_INITRD))))

test-chain: deps
	$(BUN) test --timeout 300000 test/e2e/chain.test.ts

bench-chain: deps $(CHAIN_BUILD)/lab-literal.iso chain-marker
	$(BUN) bench/chain.ts
