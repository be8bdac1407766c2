# metal-boot, apiserver, image cache and hand-off (docs/metal-boot.md, docs/apiserver.md, docs/handoff.md).
.PHONY: test-api test-api-integration test-standins standins

API_UNIT_TESTS := test/clients/http test/clients/api test/clients/metal-boot test/clients/image-cache test/agent test/platform/fs test/cli

test-api: deps-npm
	$(BUN) test $(API_UNIT_TESTS)

# Root only: a veth into a netns, stand-ins on the host end. RUNS=3 repeats the suite.
RUNS ?= 1
test-api-integration: deps
	@for i in $$(seq $(RUNS)); do echo "api integration run $$i/$(RUNS)"; $(BUN) test --timeout 120000 test/integration/api || exit 1; done

# The strict stand-ins' rules, one test each, and the agent's handling (loopback, no root).
test-standins: deps-npm
	$(BUN) test test/integration/api/strict-standins.test.ts

# The stand-ins in the foreground, e.g. make standins LISTEN='[fd00::1]:8443' STATE=/tmp/standins
LISTEN ?= [::1]:8443
STATE ?= build/standins
standins: deps
	$(BUN) lab/standins/standins-main.ts --listen '$(LISTEN)' --state-dir $(STATE)
