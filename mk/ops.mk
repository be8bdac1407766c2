# Operations: clock (SNTP), hardware watchdog, remote logs (Loki), planned reboot, status (docs/operations.md).
.PHONY: test-ops test-ops-integration

OPS_UNIT_TESTS := test/ops/clock test/ops/watchdog test/ops/remote-log test/ops/reboot test/ops/status test/agent/operations test/config/operations-params.test.ts test/cli/clock-status.test.ts

test-ops: deps-npm
	$(BUN) test $(OPS_UNIT_TESTS)

# Root only: the SNTP namespace suite (with the compiled binary) and the QEMU proofs
# (debug shell: clock step + RTC from 2001, i6300esb magic close; through the flow,
# test/e2e/clock.test.ts: the clock stage from 2001, the i6300esb reset of a hung agent).
# RUNS=3 repeats them.
RUNS ?= 1
test-ops-integration: deps build initramfs lab-kernel
	@for i in $$(seq $(RUNS)); do echo "ops integration run $$i/$(RUNS)"; $(BUN) test --timeout 300000 test/integration/clock test/e2e/clock.test.ts || exit 1; done
