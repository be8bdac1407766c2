# Kernel configuration check (kernel-config/README.md, docs/kconfig.md).
#   make kconfig-check KCONFIG=/boot/config-<version> [MODULES=<list file>|<modules dir>|a,b,c]
# KCONFIG defaults to the newest /boot/config-*. Exit 40: a requirement fails; 41: bad input.
KCONFIG ?= $(shell ls -v /boot/config-* 2>/dev/null | tail -n 1)
MODULES ?=

.PHONY: kconfig-check test-kconfig

# The binary embeds the fragment, so it is rebuilt when the fragment changes.
dist/metal-hammer: kernel-config/metal-hammer.config

kconfig-check: dist/metal-hammer
	@if [ -z "$(KCONFIG)" ]; then echo "kconfig-check: no KCONFIG given and no /boot/config-* found (make deps installs linux-image-amd64)" >&2; exit 2; fi
	dist/metal-hammer kconfig check --config "$(KCONFIG)" $(if $(MODULES),--modules "$(MODULES)")

test-kconfig: deps-npm
	$(BUN) test test/kconfig test/cli/kconfig.test.ts
