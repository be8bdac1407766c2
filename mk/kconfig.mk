# Kernel configuration check (kernel-config/README.md, docs/kconfig.md).
#   make kconfig-check KCONFIG=/boot/config-<version> [MODULES=<list file>|<modules dir>|a,b,c]
# KCONFIG defaults to the newest /boot/config-*. Exit 40: a requirement fails; 41: bad input.
KCONFIG ?= $(shell ls -v /boot/config-* 2>/dev/null | tail -n 1)
MODULES ?=

.PHONY: kconfig-check kconfig-check-initramfs test-kconfig

# The binary embeds the fragment, so it is rebuilt when the fragment changes.
dist/metal-hammer: kernel-config/metal-hammer.config

kconfig-check: dist/metal-hammer
	@if [ -z "$(KCONFIG)" ]; then echo "kconfig-check: no KCONFIG given and no /boot/config-* found (make deps installs linux-image-amd64)" >&2; exit 2; fi
	dist/metal-hammer kconfig check --config "$(KCONFIG)" $(if $(MODULES),--modules "$(MODULES)")

# The module set the default initramfs ships (its manifest's "# modules:" line) against the kernel it is built for.
kconfig-check-initramfs: dist/metal-hammer $(INITRAMFS)
	dist/metal-hammer kconfig check --config /boot/config-$(KVER) --modules "$$(sed -n 's/^# modules: //p' $(INITRAMFS).manifest | tr ' ' ',')"

test-kconfig: deps-npm
	$(BUN) test test/kernel/kconfig test/kernel/kmod test/cli/kconfig.test.ts

# Merge the fragment into a base config inside a kernel source tree and check the result
# (kernel-config/README.md, "Merging"). Writes $(KMERGE_OUT)/.config; the tree stays clean.
#   make kconfig-merge KSRC=/path/to/linux [BASE=/boot/config-X] [MODULES=...]
# Needs gcc, make, flex and bison; merge_config.sh takes minutes on a distribution config.
KSRC ?=
BASE ?= $(KCONFIG)
KMERGE_OUT ?= $(CURDIR)/build/kconfig-merge

.PHONY: kconfig-merge
kconfig-merge: dist/metal-hammer
	@if [ -z "$(KSRC)" ] || [ ! -x "$(KSRC)/scripts/kconfig/merge_config.sh" ]; then echo "kconfig-merge: KSRC=<kernel source tree> with scripts/kconfig/merge_config.sh needed" >&2; exit 2; fi
	@mkdir -p "$(KMERGE_OUT)"
	cp "$(BASE)" "$(KMERGE_OUT)/base.config"
	cd "$(KSRC)" && scripts/kconfig/merge_config.sh -O "$(KMERGE_OUT)" "$(KMERGE_OUT)/base.config" "$(CURDIR)/kernel-config/metal-hammer.config" \
		| tee "$(KMERGE_OUT)/merge.log" | grep -A2 -E "^Value requested for CONFIG_($$(grep -oE '^(# )?CONFIG_[A-Za-z0-9_]+' $(CURDIR)/kernel-config/metal-hammer.config | sed 's/^# //; s/^CONFIG_//' | paste -sd'|'))( |$$)" || true
	dist/metal-hammer kconfig check --config "$(KMERGE_OUT)/.config" $(if $(MODULES),--modules "$(MODULES)")
