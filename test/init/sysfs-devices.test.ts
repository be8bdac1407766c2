import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { readModaliases, readPciDevices } from "../../src/init/linux-system.ts";

// A sysfs tree as Linux lays it out: bus/<bus>/devices/<dev> are links into devices/, drivers are links too.
const root = mkdtempSync(`${tmpdir()}/mhl-sysfs-`);
afterAll(() => rmSync(root, { recursive: true, force: true }));

function device(bus: string, name: string, files: Record<string, string>, driver?: string): void {
  const real = `${root}/devices/pci0000:00/${name}`;
  mkdirSync(real, { recursive: true });
  for (const [f, text] of Object.entries(files)) writeFileSync(`${real}/${f}`, text);
  if (driver) {
    mkdirSync(`${root}/bus/${bus}/drivers/${driver}`, { recursive: true });
    symlinkSync(`../../../bus/${bus}/drivers/${driver}`, `${real}/driver`);
  }
  mkdirSync(`${root}/bus/${bus}/devices`, { recursive: true });
  symlinkSync(`../../../devices/pci0000:00/${name}`, `${root}/bus/${bus}/devices/${name}`);
}

device("pci", "0000:00:02.0", { vendor: "0x8086\n", device: "0x10d3\n", class: "0x020000\n", modalias: "pci:v00008086d000010D3sv00008086sd00000000bc02sc00i00\n" }, "e1000e");
device("pci", "0000:00:04.0", { vendor: "0x1b36\n", device: "0x0010\n", class: "0x010802\n", modalias: "pci:v00001B36d00000010sv00001AF4sd00001100bc01sc08i02\n" });
device("virtio", "virtio0", { modalias: "virtio:d00000001v00001AF4\n" });
device("cpu", "cpu0", {});

describe("devices from sysfs", () => {
  test("every bus device with a modalias, in sorted order; devices without one are left out", () => {
    expect(readModaliases(root)).toEqual([
      { device: `${root}/bus/pci/devices/0000:00:02.0`, modalias: "pci:v00008086d000010D3sv00008086sd00000000bc02sc00i00" },
      { device: `${root}/bus/pci/devices/0000:00:04.0`, modalias: "pci:v00001B36d00000010sv00001AF4sd00001100bc01sc08i02" },
      { device: `${root}/bus/virtio/devices/virtio0`, modalias: "virtio:d00000001v00001AF4" },
    ]);
  });

  test("PCI devices with vendor:device, class and the driver bound (null without one)", () => {
    expect(readPciDevices(root)).toEqual([
      { slot: "0000:00:02.0", id: "8086:10d3", class: "020000", driver: "e1000e" },
      { slot: "0000:00:04.0", id: "1b36:0010", class: "010802", driver: null },
    ]);
  });

  test("a tree without sysfs gives no devices, not an error", () => {
    expect(readModaliases(`${root}/nothing`)).toEqual([]);
    expect(readPciDevices(`${root}/nothing`)).toEqual([]);
  });
});
