import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as K from "../../../src/network/netlink/constants.ts";
import { selectInterfaces, unmatchedSelectors, type LinkFacts } from "../../../src/network/net/select.ts";
import { sysfsHasDevice } from "../../../src/network/net/net-sysfs.ts";

const root = mkdtempSync(join(tmpdir(), "mhn-sysfs-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
function fakeSysfs(physical: string[], virtual: string[]): void {
  for (const n of [...physical, ...virtual]) mkdirSync(join(root, "class/net", n), { recursive: true });
  for (const n of physical) {
    mkdirSync(join(root, "devices/pci0000:00", n), { recursive: true });
    symlinkSync(join(root, "devices/pci0000:00", n), join(root, "class/net", n, "device"));
  }
}

const L = (ifindex: number, name: string, kind?: string, flags: number = K.IFF_UP): LinkFacts => ({ ifindex, name, mac: `02:00:00:00:00:0${ifindex}`, flags, kind });
const links = [
  L(1, "lo", undefined, K.IFF_LOOPBACK | K.IFF_UP),
  L(2, "eno1"),
  L(3, "enp2s0"),
  L(4, "br0", "bridge"),
  L(5, "bond0", "bond"),
  L(6, "veth0", "veth"),
  L(7, "tun0"),
  L(8, "eno1.100", "vlan"),
];
fakeSysfs(["eno1", "enp2s0"], ["lo", "br0", "bond0", "veth0", "tun0", "eno1.100"]);

describe("interface selection", () => {
  test("without an allow-list only physical NICs (device link in sysfs) are selected", () => {
    const s = selectInterfaces(links, [], sysfsHasDevice(root));
    expect(s.selected.map((l) => l.name)).toEqual(["eno1", "enp2s0"]);
    expect(Object.fromEntries(s.skipped.map((x) => [x.name, x.why]))).toEqual({
      lo: "loopback",
      br0: "virtual (bridge)",
      bond0: "virtual (bond)",
      veth0: "virtual (veth)",
      tun0: "no device link in sysfs (not a physical NIC)",
      "eno1.100": "virtual (vlan)",
    });
  });

  test("METAL_NICS selects exactly the listed names or MACs, virtual or not", () => {
    const s = selectInterfaces(
      links,
      [
        { kind: "name", name: "veth0" },
        { kind: "mac", mac: "02:00:00:00:00:03" },
      ],
      sysfsHasDevice(root),
    );
    expect(s.selected.map((l) => l.name)).toEqual(["enp2s0", "veth0"]);
    expect(s.skipped.every((x) => x.why === "not in METAL_NICS")).toBe(true);
  });

  test("selectors matching nothing are reported", () => {
    expect(
      unmatchedSelectors(links, [
        { kind: "name", name: "eth9" },
        { kind: "name", name: "eno1" },
      ]),
    ).toEqual([{ kind: "name", name: "eth9" }]);
  });

  test("no physical NIC: nothing selected", () => {
    expect(
      selectInterfaces(
        links.filter((l) => l.kind || l.name === "lo"),
        [],
        sysfsHasDevice(root),
      ).selected,
    ).toEqual([]);
  });
});
