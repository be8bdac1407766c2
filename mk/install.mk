# Image install, installer contract, kexec (docs/install.md).
.PHONY: test-install test-install-integration test-install-e2e bench-install test-image

test-install: deps-npm
	$(BUN) test test/install test/platform/sys

# Root only: loopback image cache stand-in, tar + lz4 onto temp dirs / a small tmpfs,
# the installer in a private mount namespace. RUNS=3 repeats the suite.
RUNS ?= 1
test-install-integration: deps
	@for i in $$(seq $(RUNS)); do echo "install integration run $$i/$(RUNS)"; $(BUN) test --timeout 120000 test/integration/install || exit 1; done

# The test OS image (busybox + /install.sh) into build/test-image (PAD_MIB adds padding).
PAD_MIB ?= 0
test-image: deps
	$(BUN) lab/images/build.ts --out build/test-image --pad-mib $(PAD_MIB)

bench-install: deps
	$(BUN) bench/install.ts

# QEMU: a compiled PID 1 kexecs (kexec_file_load through bun:ffi) into a second kernel
# whose initrd prints a marker from its cmdline (~30 s under TCG).
test-install-e2e: deps
	$(BUN) test --timeout 300000 test/e2e/kexec.test.ts
