/**
 * Reads the inventory's raw facts (inventory-facts.ts) from /proc and /sys: the imperative
 * shell around map.ts. Nothing here runs a program: the initramfs has none of the
 * tools systeminformation shells out to for CPUs (lscpu, dmidecode), disks (lsblk),
 * BIOS (dmidecode, or `cat` through /bin/sh), GPUs (lspci) and NIC details (`cat`
 * through /bin/sh per sysfs file), so those are read from sysfs here. Only MemTotal
 * comes from systeminformation: mem() reads /proc/meminfo with fs.readFile. Memory is
 * read as metal-hammer gets it (memory.ts): the memory blocks in sysfs, the kernel log's
 * boot line, MemTotal.
 */
import { readdir, realpath } from "node:fs/promises";
import { readBoundedText } from "../../platform/fs/read-bounded.ts";
import { join } from "node:path";
import type { BlockFacts, NetFacts, PciFacts, RawFacts } from "./inventory-facts.ts";
import { readMemoryFacts } from "./memory.ts";

export interface FactSources {
  /** sysfs root (default /sys). */
  readonly sysRoot: string;
  /** procfs root (default /proc). */
  readonly procRoot: string;
  /** pci.ids files to take the PCI names from, the first readable one wins (default: none, ids only). */
  readonly pciIds?: readonly string[];
  /** MemTotal in bytes, the last way to the memory figure (default: systeminformation mem().total, or <procRoot>/meminfo). */
  readonly memTotal?: (procRoot: string) => Promise<number | undefined>;
}

const text = (p: string) =>
  readBoundedText(p, "sysfs").then(
    (s) => s.trim(),
    () => undefined,
  );
const list = (p: string) =>
  readdir(p).then(
    (l) => l.sort(),
    () => [] as string[],
  );
const real = (p: string) =>
  realpath(p).then(
    (r) => r,
    () => undefined,
  );
const base = (p: string | undefined) => (p ? p.split("/").at(-1) : undefined);

async function netFacts(sys: string): Promise<NetFacts[]> {
  const dir = join(sys, "class/net");
  return Promise.all(
    (await list(dir)).map(async (name) => {
      const d = join(dir, name);
      const devicePath = await real(join(d, "device"));
      return {
        name,
        address: await text(join(d, "address")),
        type: await text(join(d, "type")),
        // Reading speed fails with EINVAL when the link is down: that is "no speed".
        speed: await text(join(d, "speed")),
        devicePath,
        vendorId: devicePath ? await text(join(d, "device/vendor")) : undefined,
        deviceId: devicePath ? await text(join(d, "device/device")) : undefined,
        driver: devicePath ? base(await real(join(d, "device/driver"))) : undefined,
      };
    }),
  );
}

async function blockFacts(sys: string): Promise<BlockFacts[]> {
  const dir = join(sys, "block");
  return Promise.all((await list(dir)).map(async (name) => ({ name, sectors: await text(join(dir, name, "size")) })));
}

async function pciFacts(sys: string): Promise<PciFacts[]> {
  const dir = join(sys, "bus/pci/devices");
  return Promise.all(
    (await list(dir)).map(async (address) => ({
      address,
      class: await text(join(dir, address, "class")),
      vendorId: await text(join(dir, address, "vendor")),
      deviceId: await text(join(dir, address, "device")),
    })),
  );
}

async function pciIdsText(paths: readonly string[]): Promise<RawFacts["pciIds"]> {
  for (const path of paths) {
    const t = await readBoundedText(path, "pciIds").then(
      (x) => x,
      () => undefined,
    );
    if (t !== undefined) return { path, text: t };
  }
  return undefined;
}

export async function readFacts(src: FactSources): Promise<RawFacts> {
  const dmi = join(src.sysRoot, "class/dmi/id");
  const [memory, cpuinfo, nets, blocks, pci, biosVendor, biosVersion, biosDate, pciIds] = await Promise.all([
    readMemoryFacts(src.procRoot, src.sysRoot, src.memTotal),
    text(join(src.procRoot, "cpuinfo")),
    netFacts(src.sysRoot),
    blockFacts(src.sysRoot),
    pciFacts(src.sysRoot),
    text(join(dmi, "bios_vendor")),
    text(join(dmi, "bios_version")),
    text(join(dmi, "bios_date")),
    pciIdsText(src.pciIds ?? []),
  ]);
  return { ...memory, cpuinfo: cpuinfo ?? "", nets, blocks, pci, dmi: { biosVendor, biosVersion, biosDate }, pciIds };
}
