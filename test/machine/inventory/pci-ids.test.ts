import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parsePciIds, pciNames, PciIdsError, renderPciIds } from "../../../src/machine/inventory/pci-ids.ts";
import { parseModulesAlias } from "../../../src/kernel/kmod/alias.ts";
import { displayAndNetworkDevices, keeps } from "../../../initramfs/lib/pci-subset.ts";

/** Lines of Debian's pci.ids as they are (test/fixtures/inventory/README.md). */
const FIXTURE = readFileSync(join(import.meta.dir, "../../fixtures/inventory/pci.ids"), "utf8");

describe("pci.ids", () => {
  test("vendors and their devices; subsystem lines, comments and the class section are not names", () => {
    const ids = parsePciIds(FIXTURE);
    expect([...ids].map(([v, x]) => [v, x.name, Object.fromEntries(x.devices)])).toEqual([
      ["10de", "NVIDIA Corporation", { "1eb8": "TU104GL [Tesla T4]", "1eb9": "TU104GL", "20b5": "GA100 [A100 PCIe 80GB]" }],
      ["8086", "Intel Corporation", { "158b": "Ethernet Controller XXV710 for 25GbE SFP28", "15bb": "Ethernet Connection (7) I219-LM" }],
    ]);
  });

  test("names by sysfs ids (0x-prefixed, any case); an unknown device has its vendor's name only; unknown or bad ids have none", () => {
    const ids = parsePciIds(FIXTURE);
    expect(pciNames(ids, "0x10DE", "0x20b5")).toEqual({ vendor: "NVIDIA Corporation", device: "GA100 [A100 PCIe 80GB]" });
    expect(pciNames(ids, "10de", "2330")).toEqual({ vendor: "NVIDIA Corporation" });
    expect(pciNames(ids, "0x1002", "0x740f")).toEqual({});
    expect(pciNames(ids, "0x10de0", "0x20b5")).toEqual({});
    expect(pciNames(undefined, "0x10de", "0x20b5")).toEqual({});
  });

  test("a line that is neither a vendor nor a device is refused with file and line", () => {
    expect(() => parsePciIds("10de  NVIDIA Corporation\n\t20b5 GA100\n", "x.ids")).toThrow(
      new PciIdsError('x.ids:2: expected a vendor line "vvvv  Name" or a device line "<tab>dddd  Name", got "\\t20b5 GA100"'),
    );
    // A device line before any vendor line.
    expect(() => parsePciIds("\t20b5  GA100\n")).toThrow("pci.ids:1:");
  });

  test("rendered back with only the kept devices, in pci.ids format, and parsed to the same names", () => {
    const ids = parsePciIds(FIXTURE);
    const text = renderPciIds(ids, (v, d) => v === "10de" && d !== "1eb9");
    expect(text).toBe("10de  NVIDIA Corporation\n\t1eb8  TU104GL [Tesla T4]\n\t20b5  GA100 [A100 PCIe 80GB]\n");
    expect(pciNames(parsePciIds(text), "0x10de", "0x1eb8")).toEqual({ vendor: "NVIDIA Corporation", device: "TU104GL [Tesla T4]" });
  });
});

describe("the initramfs's subset: devices display and network drivers bind", () => {
  // Lines as Debian's 6.1 kernel's modules.alias has them (i40e by device, nouveau by class with any NVIDIA device, ahci not a display/network driver).
  const aliases = parseModulesAlias(
    [
      "alias pci:v00008086d0000158Bsv*sd*bc*sc*i* i40e",
      "alias pci:v000010DEd*sv*sd*bc03sc*i* nouveau",
      "alias pci:v00008086d000015BBsv*sd*bc*sc*i* e1000e",
      "alias pci:v00008086d00002822sv*sd*bc*sc*i* ahci",
      "alias pci:v*d*sv*sd*bc02sc00i* 8139too",
      "alias usb:v0BDAp8153d*dc*dsc*dp*ic*isc*ip*in* r8152",
    ].join("\n"),
  );
  const paths = new Map([
    ["i40e", "kernel/drivers/net/ethernet/intel/i40e/i40e.ko"],
    ["e1000e", "kernel/drivers/net/ethernet/intel/e1000e/e1000e.ko"],
    ["nouveau", "kernel/drivers/gpu/drm/nouveau/nouveau.ko"],
    ["ahci", "kernel/drivers/ata/ahci.ko"],
    ["8139too", "kernel/drivers/net/ethernet/realtek/8139too.ko"],
    ["r8152", "kernel/drivers/net/usb/r8152.ko"],
  ]);

  test("by device id, or a whole vendor when the driver binds its devices by class; other drivers and buses are not kept", () => {
    const k = displayAndNetworkDevices(aliases, paths);
    expect([...k.devices].sort()).toEqual(["8086:158b", "8086:15bb"]);
    expect([...k.vendors]).toEqual(["10de"]);
    expect(renderPciIds(parsePciIds(FIXTURE), keeps(k))).toBe(
      "10de  NVIDIA Corporation\n\t1eb8  TU104GL [Tesla T4]\n\t1eb9  TU104GL\n\t20b5  GA100 [A100 PCIe 80GB]\n8086  Intel Corporation\n\t158b  Ethernet Controller XXV710 for 25GbE SFP28\n\t15bb  Ethernet Connection (7) I219-LM\n",
    );
  });
});
