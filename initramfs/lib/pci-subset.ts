/**
 * Which PCI devices' names go into the initramfs: the ones a display or network
 * driver of the kernel binds, by the kernel's own modules.alias (a `pci:` alias of a
 * module under kernel/drivers/gpu/ or kernel/drivers/net/, per modules.dep). A NIC only
 * shows up in the inventory with a driver (it is read from /sys/class/net), and the
 * GPUs the inventory reports are display-class devices of GPU vendors. An alias with a
 * wildcard device id (nouveau binds every NVIDIA device of class 0x03, amdgpu every
 * AMD one) keeps all of that vendor's devices: pci.ids does not say a device's class.
 * Pure.
 */
import type { ModuleAlias } from "../../src/kernel/kmod/alias.ts";

export interface PciKeep {
  /** "vvvv:dddd" (lower-case hex) */
  readonly devices: ReadonlySet<string>;
  /** "vvvv": every device of these vendors */
  readonly vendors: ReadonlySet<string>;
}

const KINDS = [/(^|\/)kernel\/drivers\/gpu\//, /(^|\/)kernel\/drivers\/net\//];
const PCI_ALIAS = /^pci:v([0-9A-Fa-f]{8}|\*)d([0-9A-Fa-f]{8}|\*)/;

/** `modulePaths`: module name -> its path in modules.dep. */
export function displayAndNetworkDevices(aliases: readonly ModuleAlias[], modulePaths: ReadonlyMap<string, string>): PciKeep {
  const devices = new Set<string>();
  const vendors = new Set<string>();
  for (const a of aliases) {
    const path = modulePaths.get(a.module);
    if (!path || !KINDS.some((k) => k.test(path))) continue;
    const m = PCI_ALIAS.exec(a.pattern);
    if (!m || m[1] === "*") continue;
    const v = (m[1] as string).slice(4).toLowerCase();
    if (m[2] === "*") vendors.add(v);
    else devices.add(`${v}:${(m[2] as string).slice(4).toLowerCase()}`);
  }
  return { devices, vendors };
}

export const keeps =
  (k: PciKeep) =>
  (vendor: string, device: string): boolean =>
    k.vendors.has(vendor) || k.devices.has(`${vendor}:${device}`);
