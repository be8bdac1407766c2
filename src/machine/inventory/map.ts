/**
 * Raw facts -> the Register request's `hardware` and `bios` (metalstack.infra.v2,
 * docs/provisioning.md). Pure: facts and the network stage's summary in, message
 * parts out, plus notes on what was left out and why.
 *
 * - memory: bytes, as metal-hammer counts them (registered-memory.ts): the online memory
 *   blocks, else the kernel's boot line, else MemTotal; `memorySource` says which.
 * - disks: /sys/block entries that are real disks (no loop, ram, zram, optical,
 *   floppy, nbd, device-mapper, md), `/dev/<name>`, size in bytes.
 * - nics: Ethernet interfaces (type 1) with a unicast, non-zero MAC; the network
 *   stage's interfaces first, then physical ones, then virtual ones, each by name.
 *   identifier = PCI address (empty for virtual ones), vendor and model = the PCI
 *   vendor and device names from pci.ids (pci-ids.ts; without a name: the vendor from
 *   a short table, the device id and driver), speed in bit/s (0 without link); the
 *   neighbours come from LLDP and are added by the register step
 *   (agent/neighbours.ts).
 * - cpus: one per package from /proc/cpuinfo.
 * - gpus: PCI 3D controllers (class 0x0302) and VGA controllers (0x0300) of GPU
 *   vendors (NVIDIA, AMD): a BMC's on-board VGA (ASPEED, Matrox) is not a GPU. Vendor
 *   = the pci.ids vendor name, model = the device name ("NVIDIA Corporation",
 *   "GA100 [A100 PCIe 40GB]"), as metal-hammer reports them and sizes match them
 *   (pci-ids.ts); without a name, the vendor from the table and the device id.
 * - bios: /sys/class/dmi/id/bios_*; always present (the apiserver refuses a Register
 *   without bios: metal-apiserver pkg/repository/machine.go Register "bios is nil"),
 *   empty strings where DMI has nothing, with a note.
 */
import { isMac } from "../../platform/ids/mac.ts";
import type { NetworkSummary } from "../../network/net/summary.ts";
import { parseCpuinfo } from "./cpuinfo.ts";
import type { BlockFacts, NetFacts, PciFacts, RawFacts } from "./inventory-facts.ts";
import { NOT_DISKS } from "../disk/disk-sysfs.ts";
import { parsePciIds, pciNames, type PciIds } from "./pci-ids.ts";
import { pciVendorName } from "./pci-vendors.ts";
import { registeredMemory, type MemorySource } from "./registered-memory.ts";

export interface Nic {
  readonly mac: string;
  readonly name: string;
  readonly identifier: string;
  readonly vendor: string;
  readonly model: string;
  /** bit/s as a decimal string (protobuf JSON uint64). */
  readonly speed: string;
  readonly neighbors: readonly { mac: string; name?: string; identifier?: string; hostname?: string }[];
}

export interface Hardware {
  readonly memory: string;
  readonly disks: readonly { name: string; size: string }[];
  readonly nics: readonly Nic[];
  readonly cpus: readonly { vendor: string; model: string; cores: number; threads: number }[];
  readonly gpus: readonly { vendor: string; model: string }[];
}

export interface Bios {
  readonly version: string;
  readonly vendor: string;
  readonly date: string;
}

export interface Inventory {
  readonly hardware: Hardware;
  readonly bios: Bios;
  /** What was left out or could not be read, in words (logged, shown by `inventory`). */
  readonly notes: readonly string[];
  /** Where `hardware.memory` came from (undefined: nowhere, memory "0"). */
  readonly memorySource: MemorySource | undefined;
}

const PCI_ADDR = /^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$/;
const GPU_VENDORS = new Set(["0x10de", "0x1002"]);

const trim = (v: string | undefined) => (v ?? "").trim();

/** The apiserver's length limits for these names (metal-stack/api@e6201fcb proto/metalstack/api/v2/machine.proto:490-494 MachineNic, :478-480 MetalGPU). */
const NIC_NAME_MAX = 128;
const GPU_NAME_MAX = 256;

/** A name longer than the apiserver takes is not used (the id form is sent instead): one long pci.ids entry must not fail Register. */
function within(n: { readonly vendor?: string; readonly device?: string }, max: number): { readonly vendor?: string; readonly device?: string } {
  return { ...(n.vendor !== undefined && n.vendor.length <= max ? { vendor: n.vendor } : {}), ...(n.device !== undefined && n.device.length <= max ? { device: n.device } : {}) };
}

/** The PCI address in a resolved device path (the nearest one to the device). */
export function pciAddressOf(devicePath: string | undefined): string {
  if (!devicePath) return "";
  return (
    devicePath
      .split("/")
      .filter((p) => PCI_ADDR.test(p))
      .at(-1) ?? ""
  );
}

function diskOf(b: BlockFacts): { name: string; size: string } | undefined {
  if (NOT_DISKS.test(b.name)) return undefined;
  const sectors = /^\d+$/.test(trim(b.sectors)) ? BigInt(trim(b.sectors)) : 0n;
  if (sectors === 0n) return undefined;
  return { name: `/dev/${b.name}`, size: String(sectors * 512n) };
}

function isUsableMac(mac: string): boolean {
  if (!isMac(mac) || mac === "00:00:00:00:00:00") return false;
  // The multicast bit of the first octet: never a NIC's own address.
  return (Number.parseInt(mac.slice(0, 2), 16) & 1) === 0;
}

function nicOf(n: NetFacts, ids: PciIds | undefined): Nic | undefined {
  const mac = trim(n.address).toLowerCase();
  if (trim(n.type) !== "1" || !isUsableMac(mac)) return undefined;
  const mbit = Number(trim(n.speed));
  const names = within(pciNames(ids, n.vendorId, n.deviceId), NIC_NAME_MAX);
  const model = names.device ?? [trim(n.deviceId).toLowerCase(), trim(n.driver)].filter((s) => s !== "").join(" ");
  return {
    mac,
    name: n.name,
    identifier: pciAddressOf(n.devicePath),
    vendor: names.vendor ?? pciVendorName(n.vendorId),
    model,
    speed: Number.isInteger(mbit) && mbit > 0 ? String(BigInt(mbit) * 1_000_000n) : "0",
    neighbors: [],
  };
}

function isGpu(p: PciFacts): boolean {
  const cls = trim(p.class).toLowerCase();
  if (cls.startsWith("0x0302")) return true;
  return cls.startsWith("0x0300") && GPU_VENDORS.has(trim(p.vendorId).toLowerCase());
}

export function toInventory(facts: RawFacts, network?: NetworkSummary | null): Inventory {
  const notes: string[] = [];
  let ids: PciIds | undefined;
  try {
    ids = facts.pciIds ? parsePciIds(facts.pciIds.text, facts.pciIds.path) : undefined;
    if (!ids) notes.push("pci names: no pci.ids: NIC and GPU vendor/model sent as PCI ids");
  } catch (e) {
    notes.push(`pci names: ${(e as Error).message}: NIC and GPU vendor/model sent as PCI ids`);
  }
  const mem = registeredMemory(facts);
  const memory = mem.bytes !== undefined ? String(mem.bytes) : "0";
  if (mem.note) notes.push(mem.note);

  const disks = facts.blocks.flatMap((b) => diskOf(b) ?? []).sort((a, b) => a.name.localeCompare(b.name));

  const up = new Map((network?.interfaces ?? []).map((i, idx) => [i.name, idx]));
  const physical = new Set(facts.nets.filter((n) => n.devicePath !== undefined).map((n) => n.name));
  const rank = (name: string) => (up.has(name) ? 0 : physical.has(name) ? 1 : 2);
  const nics = facts.nets
    .flatMap((n) => nicOf(n, ids) ?? [])
    .sort((a, b) => rank(a.name) - rank(b.name) || (up.get(a.name) ?? 0) - (up.get(b.name) ?? 0) || a.name.localeCompare(b.name));
  // An interface the network stage used but sysfs did not list (should not happen): keep what the stage knew.
  for (const i of network?.interfaces ?? []) {
    if (!nics.some((n) => n.name === i.name) && isUsableMac(i.mac.toLowerCase())) {
      nics.unshift({ mac: i.mac.toLowerCase(), name: i.name, identifier: "", vendor: "", model: "", speed: "0", neighbors: [] });
    }
  }
  if (nics.length === 0) notes.push("nics: no Ethernet interface with a MAC address in /sys/class/net");

  const cpus = parseCpuinfo(facts.cpuinfo);
  if (cpus.length === 0) notes.push("cpus: /proc/cpuinfo lists no processor");

  const gpus = facts.pci.filter(isGpu).map((p) => {
    const names = within(pciNames(ids, p.vendorId, p.deviceId), GPU_NAME_MAX);
    return { vendor: names.vendor ?? pciVendorName(p.vendorId), model: names.device ?? trim(p.deviceId).toLowerCase() };
  });

  const d = facts.dmi;
  const bios = { version: trim(d.biosVersion), vendor: trim(d.biosVendor), date: trim(d.biosDate) };
  const missing = (["vendor", "version", "date"] as const).filter((k) => bios[k] === "");
  if (missing.length > 0) notes.push(`bios: /sys/class/dmi/id has no bios_${missing.join("/bios_")}: sent as empty string(s)`);

  return { hardware: { memory, disks, nics, cpus, gpus }, bios, notes, memorySource: mem.source };
}
