/**
 * The SIOCETHTOOL private-flag reads on interfaces every machine has, read-only: the
 * loopback has no ethtool operations, so no private flags; a missing interface is
 * ENODEV, named. (Writing flags needs an Intel NIC: tested through the decision, see
 * test/network/lldp/fw-agent.test.ts; the veth case runs in test/integration/lldp.)
 */
import { expect, test } from "bun:test";
import { EthtoolError, readPrivFlags } from "../../../src/platform/sys/ethtool.ts";

test("a device without private flags (lo) reads as none", () => {
  expect(readPrivFlags("lo")).toEqual({ names: [], value: 0 });
});

test("a missing interface is an EthtoolError naming it and ENODEV", () => {
  let err: unknown;
  try {
    readPrivFlags("mhnope0");
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(EthtoolError);
  expect((err as EthtoolError).message).toBe("read the private flag count of mhnope0 (ETHTOOL_GSSET_INFO): ENODEV");
});

test("an interface name too long for struct ifreq is refused before the ioctl", () => {
  expect(() => readPrivFlags("a-name-of-16-chr")).toThrow(/longer than 15 bytes/);
});
