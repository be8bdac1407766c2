/**
 * PCI vendor and device names from a pci.ids file (the PCI ID Repository's format, as
 * Debian's package pci.ids ships it at /usr/share/misc/pci.ids): a vendor line
 * `vvvv  Name`, its device lines `\tdddd  Name`, subsystem lines `\t\tssss ssss  Name`
 * (not needed for names: skipped), comments `#`, and from the first `C cc  Class` line
 * on the device classes (not needed: the agent reads a device's class from sysfs).
 * The initramfs carries a subset (initramfs/lib/pci-subset.ts: the devices display and
 * network drivers bind) in the same format at PCI_IDS_PATH. Pure.
 *
 * GPU names as operators write them in size constraints ("AD102GL [RTX 6000 Ada
 * Generation]", "H100*": metal-stack/metal-apiserver@3f09705a pkg/db/metal/size.go:230-271
 * matches gpu.Model globs) are these device names; metal-hammer reports Vendor = vendor
 * name, Model = device name from pci.ids (metal-stack/metal-hammer@ec148e3
 * cmd/register/register.go:105-112,232-260).
 */

/** Where the initramfs has the names (initramfs/build.ts writes it). */
export const PCI_IDS_PATH = "/usr/share/metal-hammer/pci.ids";

export interface PciVendor {
  readonly name: string;
  /** device id (4 lower-case hex digits) -> name */
  readonly devices: ReadonlyMap<string, string>;
}

/** vendor id (4 lower-case hex digits) -> vendor */
export type PciIds = ReadonlyMap<string, PciVendor>;

export class PciIdsError extends Error {
  override readonly name = "PciIdsError";
}

const VENDOR = /^([0-9a-fA-F]{4}) {2}(\S.*)$/;
const DEVICE = /^\t([0-9a-fA-F]{4}) {2}(\S.*)$/;

export function parsePciIds(text: string, source = "pci.ids"): PciIds {
  const out = new Map<string, { name: string; devices: Map<string, string> }>();
  let vendor: { name: string; devices: Map<string, string> } | undefined;
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] as string).replace(/\r$/, "");
    if (line.trim() === "" || line.startsWith("#")) continue;
    if (line.startsWith("C ")) break;
    if (line.startsWith("\t\t")) continue;
    const v = VENDOR.exec(line);
    if (v) {
      vendor = { name: (v[2] as string).trim(), devices: new Map() };
      out.set((v[1] as string).toLowerCase(), vendor);
      continue;
    }
    const d = DEVICE.exec(line);
    if (d && vendor) {
      vendor.devices.set((d[1] as string).toLowerCase(), (d[2] as string).trim());
      continue;
    }
    throw new PciIdsError(`${source}:${i + 1}: expected a vendor line "vvvv  Name" or a device line "<tab>dddd  Name", got ${JSON.stringify(line.slice(0, 60))}`);
  }
  return out;
}

/** "0x10DE", "10de" -> "10de"; undefined for anything else. */
function hex4(id: string | undefined): string | undefined {
  const m = /^(?:0x)?([0-9a-fA-F]{4})$/.exec((id ?? "").trim());
  return m ? (m[1] as string).toLowerCase() : undefined;
}

/** The names of a device by its sysfs vendor and device ids ("0x10de", "0x2230"); either may be missing. */
export function pciNames(ids: PciIds | undefined, vendorId: string | undefined, deviceId: string | undefined): { readonly vendor?: string; readonly device?: string } {
  const v = ids?.get(hex4(vendorId) ?? "");
  if (!v) return {};
  const d = v.devices.get(hex4(deviceId) ?? "");
  return d === undefined ? { vendor: v.name } : { vendor: v.name, device: d };
}

/** The ids as pci.ids text with only the devices `keep` says, and only vendors with a kept device. */
export function renderPciIds(ids: PciIds, keep: (vendor: string, device: string) => boolean): string {
  let out = "";
  for (const [vid, v] of ids) {
    const kept = [...v.devices].filter(([did]) => keep(vid, did));
    if (kept.length === 0) continue;
    out += `${vid}  ${v.name}\n` + kept.map(([did, name]) => `\t${did}  ${name}\n`).join("");
  }
  return out;
}
