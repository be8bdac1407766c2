# metal-hammer: see README.md. Every target installs what it needs via `deps`.
SHELL := /bin/bash
BUN := node_modules/.bin/bun
TSC := node_modules/.bin/tsc
BIOME := node_modules/.bin/biome
# The baseline runtime runs on x86-64 CPUs without AVX2 (QEMU -cpu max, older servers).
BUN_RUNTIME := node_modules/@oven/bun-linux-x64-baseline/bin/bun
TARGET := bun-linux-x64-baseline
COMMIT := $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
# Debian packages the tests, the lab and the initramfs need.
APT_PACKAGES := iproute2 radvd qemu-system-x86 busybox-static linux-image-amd64 cpio lz4 zstd \
	ipxe tcpdump ndisc6 openssl kmod xorriso isolinux ca-certificates procps lldpd xz-utils debian-archive-keyring \
	tar attr gdisk mdadm lvm2 dmsetup e2fsprogs dosfstools util-linux nvme-cli hdparm sg3-utils pci.ids openipmi ipmitool curl chrony \
	dnsmasq-base
SRC := $(shell find src -name '*.ts') package.json

# `make` alone builds the agent; each area adds its targets in mk/<area>.mk.
.DEFAULT_GOAL := all
-include mk/*.mk

.PHONY: all deps deps-npm deps-apt build typecheck format format-check hooks check-commits test test-unit clean bench-startup bench-fleet docs

all: build

deps: deps-npm deps-apt

node_modules/.package-lock.json: package.json package-lock.json
	npm ci --no-audit --no-fund
	@touch $@

deps-npm: node_modules/.package-lock.json

# Installs only the Debian packages that are missing; apt-get update runs only then.
deps-apt:
	@missing=$$(for p in $(APT_PACKAGES); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "installing Debian packages: $$missing"; \
		apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $$missing; \
	fi

# No --bytecode: it adds 6.2 MB to the binary and 2.6 MB to the compressed initramfs for
# ~25 ms of start-up (docs/build.md, docs/initramfs.md); bench-initramfs builds both.
# --splitting: each command's modules (cli/commands.ts) are a chunk of their own, parsed
# only when that command runs: `version` 109 -> 54 ms (bench/startup.ts, docs/build.md).
COMPILE_FLAGS = --compile --splitting --minify --format=esm --compile-executable-path=$(BUN_RUNTIME) --target=$(TARGET) \
		--no-compile-autoload-dotenv --no-compile-autoload-bunfig
COMPILE = $(BUN) build $(COMPILE_FLAGS) $(1) \
		--define METAL_HAMMER_COMMIT='"$(COMMIT)"' --define METAL_HAMMER_TARGET='"$(TARGET)"' \
		src/main.ts src/network/netlink/event-worker.ts src/network/lldp/reader-worker.ts --outfile $@

dist/metal-hammer: $(SRC) node_modules/.package-lock.json
	@mkdir -p dist
	$(call COMPILE)

build: dist/metal-hammer

typecheck: deps-npm
	$(TSC) --noEmit -p tsconfig.json

# One formatter (Biome, biome.json): `make format` rewrites, `make test` refuses unformatted code.
format: deps-npm
	$(BIOME) format --write .

format-check: deps-npm
	$(BIOME) format .

# The tests that need no root (no namespaces, no QEMU).
test-unit: deps-npm
	$(BUN) test $(filter-out test/integration/ test/e2e/ test/lab/,$(sort $(wildcard test/*/)))

# The commit message rule (tools/commit-message.ts): `make hooks` checks each commit as it is
# made; check-commits checks every commit since the rule began (history before it is left).
COMMIT_RULE_SINCE := 36aa18767d8d207ca945741ad264777c01406fb8
hooks:
	git config core.hooksPath .githooks

check-commits: deps-npm
	$(BUN) tools/commit-message.ts --since $(COMMIT_RULE_SINCE)

# The README's test command: types, formatting, commit messages, unit tests, then the root-only suites.
test: deps typecheck format-check check-commits build
	INITRAMFS=$(TEST_INITRAMFS) $(BUN) test --timeout 120000

# The agent beside an empty program compiled with the same runtime and flags (the floor).
bench-startup: build build/bench/empty-program build/bench/cli-floor
	$(BUN) bench/startup.ts dist/metal-hammer build/bench/cli-floor build/bench/empty-program

build/bench/empty-program build/bench/cli-floor: build/bench/%: bench/%.ts node_modules/.package-lock.json
	@mkdir -p $(dir $@)
	$(BUN) build $(COMPILE_FLAGS) $< --outfile $@

# A rack at once (bench/fleet.ts, docs/bench.md): make bench-fleet [N=8] [SCENARIO=none|outage|unavailable|image-drop]
N ?= 8
SCENARIO ?= outage
bench-fleet: deps
	$(BUN) bench/fleet.ts --machines $(N) --scenario $(SCENARIO)

clean:
	rm -rf dist build

# Regenerates README.md's parameter and exit-code tables and docs/events.md from the code.
docs: deps-npm
	$(BUN) tools/readme-tables.ts --write
