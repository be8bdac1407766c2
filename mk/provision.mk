# Built-in provisioning flow: inventory, register, wait (docs/provisioning.md).
.PHONY: test-provision test-provision-integration bench-inventory bench-dual-homed

PROVISION_UNIT_TESTS := test/machine/inventory test/agent/allocation.test.ts test/agent/neighbours.test.ts test/agent/register.test.ts test/agent/token-lifetime.test.ts test/agent/wait-policy.test.ts test/agent/wait-stream.test.ts

test-provision: deps-npm
	$(BUN) test $(PROVISION_UNIT_TESTS)

# Root only: the agent in a netns against the stand-ins. RUNS=3 repeats the suite.
RUNS ?= 1
test-provision-integration: deps
	@for i in $$(seq $(RUNS)); do echo "provision integration run $$i/$(RUNS)"; $(BUN) test --timeout 120000 test/integration/provision || exit 1; done

bench-inventory: deps-npm
	$(BUN) bench/inventory.ts 5

# Root only (radvd, lldpd): first ready NIC -> Register with both leaves healthy and with the preferred one blackholed (docs/network.md "Uplinks").
bench-dual-homed: deps
	$(BUN) bench/dual-homed.ts --runs $(or $(BENCH_RUNS),5)
