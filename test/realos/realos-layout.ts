/**
 * What the real-OS lab run (debian-uefi.realos.ts) expects per layout, and the facts it
 * reads: what the initramfs carries (its manifest's header) and the first boot option
 * OVMF tries (its console). Pure.
 */

/** One of the lab's layouts for the real OS: the allocation file and what the run must show. */
export interface RealosLayout {
  readonly name: "raid1" | "single";
  /** The stand-in's `--allocation` file (repository-relative). */
  readonly allocation: string;
  /** The VM's virtio disks, in order. */
  readonly disks: readonly string[];
  /** The root device the installed system mounts (findmnt, the marker's `root=`). */
  readonly root: string;
  /** os-installer runs with raidenabled: mdadm.conf, update-initramfs, efibootmgr per disk. */
  readonly raid: boolean;
  /** The ESP's partitions: one boot entry for each. */
  readonly espPartitions: readonly string[];
}

export const REALOS_LAYOUTS: Readonly<Record<RealosLayout["name"], RealosLayout>> = {
  raid1: { name: "raid1", allocation: "lab/standins/debian-raid1.json", disks: ["vda", "vdb"], root: "/dev/md2", raid: true, espPartitions: ["vda1", "vdb1"] },
  single: { name: "single", allocation: "lab/standins/debian-single.json", disks: ["vda"], root: "/dev/vda2", raid: false, espPartitions: ["vda1"] },
};

/** The layout named by REALOS_LAYOUT (make: LAYOUT=), raid1 when unset; throws naming the value and the choices. */
export function realosLayout(value: string | undefined): RealosLayout {
  const name = value === undefined || value === "" ? "raid1" : value;
  const layout = (REALOS_LAYOUTS as Record<string, RealosLayout | undefined>)[name];
  if (!layout) throw new Error(`REALOS_LAYOUT=${name}: expected ${Object.keys(REALOS_LAYOUTS).join(" or ")} (make test-realos-e2e LAYOUT=...)`);
  return layout;
}

/** The installer an initramfs carries, as its build wrote it into `<initrd>.manifest` (initramfs/build.ts). */
export interface ManifestCarried {
  /** `os-installer v0.3.1 (sha256 0123456789ab)`: describeCarried's text, which the agent's install.installer.choice line names. */
  readonly describe: string;
  readonly name: string;
  readonly version: string;
  readonly kind: string;
  readonly sha256: string;
}

const CARRIED_LINE = /^# os-installer: (([a-z0-9][a-z0-9._-]*) (\S+) \(sha256 [0-9a-f]{12}\)) (elf-static|script), sha256 ([0-9a-f]{64})$/m;

/** The header line `# os-installer: <name> <version> (sha256 <12>) <kind>, sha256 <64>`; undefined for `none` or no such line. */
export function carriedInManifest(manifest: string): ManifestCarried | undefined {
  const m = CARRIED_LINE.exec(manifest);
  return m ? { describe: m[1]!, name: m[2]!, version: m[3]!, kind: m[4]!, sha256: m[5]! } : undefined;
}

/** OVMF's first boot attempt on the console: `BdsDxe: loading Boot0004 "metal-debian" from HD(...)/\EFI\BOOT\BOOTX64.EFI`. */
export interface BootAttempt {
  readonly line: string;
  readonly entry: string;
  readonly description: string;
  readonly path: string;
}

export function firstBootOption(console: string): BootAttempt | undefined {
  const m = /BdsDxe: (?:loading|starting) (Boot[0-9A-F]{4}) "([^"]*)" from (\S+)/.exec(console);
  return m ? { line: m[0], entry: m[1]!, description: m[2]!, path: m[3]! } : undefined;
}

/** The GPT unique partition GUID of a device path's HD() node, lower case (OVMF prints it upper case, efivar lower). */
export function hdPartitionGuid(path: string): string | undefined {
  return /^HD\(\d+,GPT,([0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}),/.exec(path)?.[1]?.toLowerCase();
}
