import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { RawFacts } from "../../../src/machine/inventory/inventory-facts.ts";
import { pciAddressOf, toInventory } from "../../../src/machine/inventory/map.ts";
import { readFacts } from "../../../src/machine/inventory/read.ts";

const FIX = join(import.meta.dir, "../../fixtures/inventory");
const siMem = JSON.parse(readFileSync(join(FIX, "si-mem.json"), "utf8")) as { total: number };
const MEMTOTAL_NOTE = `memory: /sys/devices/system/memory cannot be listed and ${join(FIX, "proc/dmesg")}: cannot be read (ENOENT): MemTotal sent (usable memory, less than the physical memory metal-hammer sends)`;
const facts = () =>
  readFacts({ sysRoot: join(FIX, "sys"), procRoot: join(FIX, "proc"), memTotal: async () => siMem.total, pciIds: ["/nonexistent-mh/pci.ids", join(FIX, "pci.ids")] });

describe("inventory from the fixture sysfs tree", () => {
  test("the Register hardware and bios of the fixture server", async () => {
    const inv = toInventory(await facts());
    expect(inv.hardware).toEqual({
      memory: "25276026880",
      disks: [
        { name: "/dev/nvme0n1", size: String(3750748848n * 512n) },
        { name: "/dev/sda", size: String(937703088n * 512n) },
      ],
      nics: [
        {
          mac: "3c:ec:ef:10:20:30",
          name: "eno1",
          identifier: "0000:00:1f.6",
          vendor: "Intel Corporation",
          model: "Ethernet Connection (7) I219-LM",
          speed: "1000000000",
          neighbors: [],
        },
        {
          mac: "3c:fd:fe:a0:b0:c0",
          name: "enp24s0f0",
          identifier: "0000:18:00.0",
          vendor: "Intel Corporation",
          model: "Ethernet Controller XXV710 for 25GbE SFP28",
          speed: "25000000000",
          neighbors: [],
        },
        {
          mac: "3c:fd:fe:a0:b0:c1",
          name: "enp24s0f1",
          identifier: "0000:18:00.1",
          vendor: "Intel Corporation",
          model: "Ethernet Controller XXV710 for 25GbE SFP28",
          speed: "0",
          neighbors: [],
        },
        { mac: "02:42:ac:11:00:01", name: "br0", identifier: "", vendor: "", model: "", speed: "10000000000", neighbors: [] },
      ],
      cpus: [
        { vendor: "GenuineIntel", model: "Intel(R) Xeon(R) Silver 4210R CPU @ 2.40GHz", cores: 2, threads: 4 },
        { vendor: "GenuineIntel", model: "Intel(R) Xeon(R) Silver 4210R CPU @ 2.40GHz", cores: 2, threads: 4 },
      ],
      gpus: [
        // As metal-hammer names them and operators write size constraints (pci.ids vendor and device names).
        { vendor: "NVIDIA Corporation", model: "GA100 [A100 PCIe 80GB]" },
        { vendor: "NVIDIA Corporation", model: "TU104GL [Tesla T4]" },
      ],
    });
    expect(inv.bios).toEqual({ version: "3.4", vendor: "American Megatrends Inc.", date: "05/18/2021" });
    // The fixture has no memory blocks and no kernel log: MemTotal, and a note saying why.
    expect(inv.memorySource).toBe("meminfo");
    expect(inv.notes).toEqual([MEMTOTAL_NOTE]);
  });

  test("without pci.ids: the vendor from the short table and the device id (driver for NICs), with a note", async () => {
    const inv = toInventory({ ...(await facts()), pciIds: undefined });
    expect(inv.hardware.nics[1]).toMatchObject({ vendor: "Intel", model: "0x158b i40e" });
    expect(inv.hardware.gpus).toEqual([
      { vendor: "NVIDIA", model: "0x20b5" },
      { vendor: "NVIDIA", model: "0x1eb8" },
    ]);
    expect(inv.notes).toEqual(["pci names: no pci.ids: NIC and GPU vendor/model sent as PCI ids", MEMTOTAL_NOTE]);
    // A name longer than the apiserver takes (NIC model: 128, GPU model: 256) is not sent: the id form is.
    const long = toInventory({
      ...(await facts()),
      pciIds: {
        path: "/x/pci.ids",
        text: `8086  Intel Corporation\n\t158b  ${"X".repeat(129)}\n10de  NVIDIA Corporation\n\t20b5  ${"G".repeat(256)}\n\t1eb8  ${"T".repeat(257)}\n`,
      },
    });
    expect(long.hardware.nics[1]).toMatchObject({ vendor: "Intel Corporation", model: "0x158b i40e" });
    expect(long.hardware.gpus).toEqual([
      { vendor: "NVIDIA Corporation", model: "G".repeat(256) },
      { vendor: "NVIDIA Corporation", model: "0x1eb8" },
    ]);
    const bad = toInventory({ ...(await facts()), pciIds: { path: "/x/pci.ids", text: "10de  NVIDIA Corporation\n\t20b5 GA100\n" } });
    expect(bad.notes).toEqual([
      'pci names: /x/pci.ids:2: expected a vendor line "vvvv  Name" or a device line "<tab>dddd  Name", got "\\t20b5 GA100": NIC and GPU vendor/model sent as PCI ids',
      MEMTOTAL_NOTE,
    ]);
  });

  test("the network stage's interfaces come first, in its order", async () => {
    const network = {
      interfaces: [{ name: "enp24s0f1", mac: "3c:fd:fe:a0:b0:c1", addresses: [], defaultRouters: [], state: "ready" }],
      dns: { servers: [], search: [] },
      timingsMs: {},
    };
    expect(toInventory(await facts(), network).hardware.nics.map((n) => n.name)).toEqual(["enp24s0f1", "eno1", "enp24s0f0", "br0"]);
  });

  test("an interface the network stage used but sysfs lacks is kept with its name and MAC", async () => {
    const f = await facts();
    const network = {
      interfaces: [{ name: "eth9", mac: "52:54:00:AA:BB:CC", addresses: [], defaultRouters: [], state: "ready" }],
      dns: { servers: [], search: [] },
      timingsMs: {},
    };
    expect(toInventory(f, network).hardware.nics[0]).toEqual({ mac: "52:54:00:aa:bb:cc", name: "eth9", identifier: "", vendor: "", model: "", speed: "0", neighbors: [] });
  });
});

describe("inventory from sparse facts", () => {
  const empty: RawFacts = { memTotalBytes: undefined, cpuinfo: "", nets: [], blocks: [], pci: [], dmi: { biosVendor: undefined, biosVersion: undefined, biosDate: undefined } };

  test("nothing readable: memory 0, empty lists, bios present with empty strings (the apiserver requires it), and notes saying why", () => {
    const inv = toInventory(empty);
    expect(inv.hardware).toEqual({ memory: "0", disks: [], nics: [], cpus: [], gpus: [] });
    expect(inv.memorySource).toBeUndefined();
    expect(inv.bios).toEqual({ version: "", vendor: "", date: "" });
    expect(inv.notes).toEqual([
      "pci names: no pci.ids: NIC and GPU vendor/model sent as PCI ids",
      "memory: /sys/devices/system/memory cannot be listed and no kernel log was read, and MemTotal could not be read (/proc/meminfo): 0 sent",
      "nics: no Ethernet interface with a MAC address in /sys/class/net",
      "cpus: /proc/cpuinfo lists no processor",
      "bios: /sys/class/dmi/id has no bios_vendor/bios_version/bios_date: sent as empty string(s)",
    ]);
  });

  test("multicast, zero and malformed MACs and non-Ethernet types are not NICs", () => {
    const nic = (name: string, address: string, type = "1") => ({
      name,
      address,
      type,
      speed: undefined,
      devicePath: undefined,
      vendorId: undefined,
      deviceId: undefined,
      driver: undefined,
    });
    const inv = toInventory({
      ...empty,
      nets: [nic("a", "01:00:5e:00:00:01"), nic("b", "00:00:00:00:00:00"), nic("c", "zz"), nic("d", "52:54:00:12:34:56", "772"), nic("e", "52:54:00:12:34:57")],
    });
    expect(inv.hardware.nics.map((n) => n.name)).toEqual(["e"]);
  });

  test("a block device with an unreadable size is left out", () => {
    expect(
      toInventory({
        ...empty,
        blocks: [
          { name: "vda", sectors: undefined },
          { name: "vdb", sectors: "8" },
        ],
      }).hardware.disks,
    ).toEqual([{ name: "/dev/vdb", size: "4096" }]);
  });

  test("pciAddressOf takes the device's own PCI address from a resolved path (virtio sits below it)", () => {
    expect(pciAddressOf("/sys/devices/pci0000:00/0000:00:03.0/virtio2")).toBe("0000:00:03.0");
    expect(pciAddressOf("/sys/devices/pci0000:17/0000:17:00.0/0000:18:00.1")).toBe("0000:18:00.1");
    expect(pciAddressOf(undefined)).toBe("");
  });
});
