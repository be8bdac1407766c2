# Image install, installer contract, kexec (docs/install.md).
.PHONY: test-install test-install-integration bench-install test-image

test-install: deps-npm
	$(BUN) test test/install test/sys

# Root only: loopback image cache stand-in, tar + lz4 onto temp dirs / a small tmpfs,
# the installer in a private mount namespace. RUNS=3 repeats the suite.
RUNS ?= 1
test-install-integration: deps
	@for i in $$(seq $(RUNS)); do echo "install integration run $$i/$(RUNS)"; $(BUN) test --timeout 120000 test/integration/install || exit 1; done

# The test OS image (busybox + /install.sh) into build/test-image (PAD_MIB adds padding).
PAD_MIB ?= 0
test-image: deps
	$(BUN) test/lab/images/build.ts --out build/test-image --pad-mib $(PAD_MIB)

bench-install: deps
	$(BUN) bench/install.ts
