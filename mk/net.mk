# IPv6 bring-up (src/network/netlink, src/network/net): unit tests, namespace tests (root), bench, fixtures.
.PHONY: test-net test-net-integration bench-bringup record-netlink-fixtures

test-net: deps-npm
	$(BUN) test test/network/netlink test/network/net test/platform/sys

test-net-integration: deps
	$(BUN) test test/integration/net

# dhcpcd-base only for the side-by-side figures.
bench-bringup: deps build
	@dpkg-query -W -f='$${Status}\n' dhcpcd-base 2>/dev/null | grep -q 'install ok installed' || \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends dhcpcd-base
	$(BUN) bench/bringup.ts --runs 7

# Re-records test/fixtures/netlink/*.hex from the running kernel (root).
record-netlink-fixtures: deps
	$(BUN) test/fixtures/netlink/record.ts
