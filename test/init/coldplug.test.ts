import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { loadSteps, missingFirmware, wantedByDevices } from "../../src/init/coldplug.ts";
import { aliasMatcher, parseModulesAlias } from "../../src/kernel/kmod/alias.ts";
import { parseModulesDep } from "../../src/kernel/kmod/dep.ts";

const DEP = parseModulesDep(readFileSync(`${import.meta.dir}/../fixtures/modules/modules.dep`, "utf8"));
const MATCH = aliasMatcher(
  parseModulesAlias("alias pci:v00008086d000010D3sv*sd*bc*sc*i* e1000e\nalias pci:v00001AF4d*sv*sd*bc*sc*i* virtio_pci\nalias virtio:d00000001v* virtio_net\n"),
);
const E1000E = { device: "/sys/bus/pci/devices/0000:00:03.0", modalias: "pci:v00008086d000010D3sv00008086sd00000000bc02sc00i00" };
const VIRTIO = { device: "/sys/bus/pci/devices/0000:00:02.0", modalias: "pci:v00001AF4d00001000sv00001AF4sd00000001bc02sc00i00" };
const VIRTIO2 = { device: "/sys/bus/pci/devices/0000:00:04.0", modalias: "pci:v00001AF4d00001041sv00001AF4sd00001100bc02sc00i00" };
const OTHER = { device: "/sys/bus/pci/devices/0000:00:1f.0", modalias: "pci:v00008086d00002918sv00001AF4sd00001100bc06sc01i00" };

describe("coldplug decisions", () => {
  test("each module is wanted once, for the first device that asks; devices nothing matches ask for nothing", () => {
    expect(wantedByDevices(MATCH, [OTHER, VIRTIO, E1000E, VIRTIO2], new Set())).toEqual([
      { module: "virtio_pci", device: VIRTIO },
      { module: "e1000e", device: E1000E },
    ]);
    expect(wantedByDevices(MATCH, [VIRTIO, E1000E], new Set(["virtio_pci", "e1000e"]))).toEqual([]);
  });

  test("steps load dependencies first, name why, and skip what is already handled", () => {
    const steps = loadSteps(
      DEP,
      [
        { module: "e1000e", reason: { kind: "device", device: E1000E.device, modalias: E1000E.modalias } },
        { module: "virtio_net", reason: { kind: "boot" } },
      ],
      new Set(["virtio_ring"]),
    );
    expect(steps.map((s) => [s.module.name, s.reason.kind === "dependency" ? `dep of ${s.reason.of}` : s.reason.kind])).toEqual([
      ["pps_core", "dep of e1000e"],
      ["ptp", "dep of e1000e"],
      ["e1000e", "device"],
      ["virtio", "dep of virtio_net"],
      ["failover", "dep of virtio_net"],
      ["net_failover", "dep of virtio_net"],
      ["virtio_net", "boot"],
    ]);
  });

  test("a module's pre-softdeps load before it, each after its own dependencies", () => {
    const soft = new Map([["virtio_net", ["e1000e"]]]);
    const steps = loadSteps(DEP, [{ module: "virtio_net", reason: { kind: "boot" } }], new Set(), soft).map((s) => s.module.name);
    expect(steps).toEqual(["virtio_ring", "virtio", "failover", "net_failover", "pps_core", "ptp", "e1000e", "virtio_net"]);
  });

  test("firmware counts as present plain or xz-compressed (the kernel's loader takes both)", () => {
    const have = new Set(["/lib/firmware/intel/ice/ddp/ice.pkg", "/lib/firmware/tigon/tg3.bin.xz"]);
    expect(missingFirmware(["intel/ice/ddp/ice.pkg", "tigon/tg3.bin", "tigon/tg3_tso.bin"], (p) => have.has(p))).toEqual(["tigon/tg3_tso.bin"]);
  });
});
