/**
 * The boot entries and the boot order metal-stack needs after an install (metal-hammer
 * cmd/bios.go EnsureBootOrder: "first boot from OS image and then PXE boot"). Pure.
 *
 * First go the entries that boot the installed OS: named after the installer's
 * bootloader_id (grub-install names its entry after `--bootloader-id`), active, on an
 * ESP partition of this install (their HD() node is that partition's) and naming a
 * loader file that is on the ESP. An entry that fails one of these is left where it is:
 * a firmware that went down BootOrder past it would reach the network entries, boot the
 * agent and reinstall the machine. Each ESP partition (one, or one per disk of a mirrored
 * ESP) without such an entry gets one, as efibootmgr writes it: LOAD_OPTION_ACTIVE, the
 * bootloader_id, HD() of the partition + File() of a loader the installer did write, no
 * optional data; at the lowest free Boot#### number, or at the number of an entry with
 * the same description and device path (reinstalls do not pile up entries). The entries
 * named after the bootloader_id that do not boot the installed OS (an earlier install's
 * ESP, a loader that is not there) are deleted, as grub-install deletes the entries of its
 * label before it registers its own (GRUB 2.02 grub-core/osdep/unix/platform.c
 * grub_install_remove_efi_entries_by_distributor; later releases do it in
 * grub-core/osdep/efivar.c): they would pile up over reinstalls (each layout gives the ESP
 * a new partition GUID), and a firmware that reaches one boots nothing.
 * metal-stack's os-installer needs this: it runs `grub-install --removable`, which writes
 * \EFI\BOOT\BOOTX64.EFI and no NVRAM entry, and on RAID adds efibootmgr entries for
 * \EFI\<id>\grubx64.efi, a file that then does not exist
 * (metal-stack/os-installer@7ea1c98 pkg/installer/os/common/install_bootloader.go:38-44).
 * Then the network entries (PXE, HTTP boot) in their old order, then every other entry.
 */
import { filePathNode, formatDevicePath, hardDriveNode, hardDriveOf, loaderPathOf, sameHardDrive, type HardDrive } from "./device-path.ts";
import { loaderComponents, loaderKey } from "./esp-loader.ts";
import type { EspPartition } from "./esp.ts";
import { bootName, encodeDevicePath, encodeLoadOption, isNetworkOption, LOAD_OPTION_ACTIVE, LoadOptionError, type LoadOption } from "./load-option.ts";

export class BootOrderError extends Error {
  override readonly name = "BootOrderError";
}

/** The loader `grub-install --removable` writes, by the agent's architecture (UEFI 2.10 §3.5.1.1). */
export const REMOVABLE_LOADERS: Readonly<Record<string, string>> = { x64: "\\EFI\\BOOT\\BOOTX64.EFI", arm64: "\\EFI\\BOOT\\BOOTAA64.EFI" };

export interface BootOrderFacts {
  readonly old: readonly number[];
  readonly entries: ReadonlyMap<number, LoadOption>;
  /** From the installer's boot-info.yaml. */
  readonly bootloaderId: string;
  readonly espPartitions: readonly EspPartition[];
  /** The loader paths (loaderKey) that are on the ESP, of those loaderCandidates named. */
  readonly loadersOnEsp: ReadonlySet<string>;
  /** REMOVABLE_LOADERS' path for this machine. */
  readonly removableLoader: string;
}

/** A Boot#### the agent writes. */
export interface EntryWrite {
  readonly number: number;
  readonly option: LoadOption;
  /** The variable's data (without efivarfs' attribute bytes). */
  readonly data: Uint8Array;
  /** The ESP partition it boots from. */
  readonly partition: string;
  /** Whether an entry with this description and device path was there already (then it is rewritten: it was inactive or had other optional data). */
  readonly reused: boolean;
}

export interface BootOrderPlan {
  readonly old: readonly number[];
  readonly order: readonly number[];
  /** The entries that boot the installed OS, first in the order. */
  readonly os: readonly number[];
  readonly network: readonly number[];
  readonly changed: boolean;
  readonly writes: readonly EntryWrite[];
  /** The entries named after the bootloader_id that do not boot it, and why. */
  readonly rejected: readonly { readonly number: number; readonly why: string }[];
  /** The rejected entries that are deleted (all but those rewritten at their number), out of the order too. */
  readonly deletes: readonly number[];
}

/** `Boot0003 "debian"` for log lines and errors. */
export function describeEntry(n: number, entries: ReadonlyMap<number, LoadOption>): string {
  const o = entries.get(n);
  return o ? `${bootName(n)} ${JSON.stringify(o.description)}` : `${bootName(n)} (no such variable)`;
}

const named = (entries: ReadonlyMap<number, LoadOption>, id: string) => [...entries.entries()].filter(([, o]) => o.description === id);

/** The loader paths whose presence on the ESP the plan asks about: those the entries named after the id name, and the removable one. Pure. */
export function loaderCandidates(entries: ReadonlyMap<number, LoadOption>, bootloaderId: string, removableLoader: string): string[] {
  const paths = named(entries, bootloaderId)
    .sort(([a], [b]) => a - b)
    .flatMap(([, o]) => {
      try {
        return [loaderPathOf(o.filePath)].filter((p): p is string => p !== undefined && loaderComponents(p) !== undefined);
      } catch {
        return [];
      }
    });
  return [...new Set([...paths, removableLoader])];
}

const hdText = (hd: HardDrive) => formatDevicePath([hardDriveNode(hd)]);

/** The ESP partition an entry boots the installed OS from, or why it does not. */
function verdict(o: LoadOption, f: BootOrderFacts): { partition: EspPartition } | { why: string } {
  if ((o.attributes & LOAD_OPTION_ACTIVE) === 0) return { why: "inactive (LOAD_OPTION_ACTIVE clear)" };
  let hd: HardDrive | undefined;
  try {
    hd = hardDriveOf(o.filePath);
  } catch (e) {
    if (e instanceof LoadOptionError) return { why: e.message };
    throw e;
  }
  if (!hd) return { why: `no HD() node (${formatDevicePath(o.filePath) || "empty path"})` };
  const partition = f.espPartitions.find((p) => sameHardDrive(p.hd, hd));
  if (!partition) return { why: `${hdText(hd)} is not an ESP partition of this install (${f.espPartitions.map((p) => `${p.name}: ${hdText(p.hd)}`).join(", ")})` };
  const path = loaderPathOf(o.filePath);
  if (path === undefined) return { why: "no file path after HD()" };
  if (!loaderComponents(path)) return { why: `file path ${JSON.stringify(path)} is not a \\-separated path from the ESP's root` };
  if (!f.loadersOnEsp.has(loaderKey(path))) return { why: `${path} is not on the ESP` };
  return { partition };
}

export function planBootOrder(f: BootOrderFacts): BootOrderPlan {
  const { old, entries, bootloaderId: id } = f;
  const found = () =>
    [...entries.keys()]
      .sort((a, b) => a - b)
      .map((n) => describeEntry(n, entries))
      .join(", ") || "none";
  if (id === "") throw new BootOrderError(`the installer's boot-info.yaml names no bootloader_id, so no boot entry can be put first (entries found: ${found()})`);
  if (f.espPartitions.length === 0) throw new BootOrderError("no ESP partition to boot from");
  // The old order decides among entries; one missing from it comes after those in it.
  const rank = (n: number) => (old.includes(n) ? old.indexOf(n) : old.length);
  const byRank = (a: number, b: number) => rank(a) - rank(b) || a - b;
  const good: number[] = [];
  const covered = new Set<string>();
  const rejected: { number: number; why: string }[] = [];
  for (const [n, o] of named(entries, id).sort(([a], [b]) => byRank(a, b))) {
    const v = verdict(o, f);
    if ("why" in v) rejected.push({ number: n, why: v.why });
    else good.push(n), covered.add(v.partition.name);
  }
  const writes: EntryWrite[] = [];
  const missing = f.espPartitions.filter((p) => !covered.has(p.name));
  if (missing.length > 0) {
    const loader = chooseLoader(f);
    const taken = new Set(entries.keys());
    for (const p of missing) {
      const option: LoadOption = { attributes: LOAD_OPTION_ACTIVE, description: id, filePath: [hardDriveNode(p.hd), filePathNode(loader)], optionalData: new Uint8Array(0) };
      const data = encodeLoadOption(option);
      const path = Buffer.from(encodeDevicePath(option.filePath));
      const same = named(entries, id)
        .filter(([, o]) => path.equals(Buffer.from(encodeDevicePath(o.filePath))))
        .map(([n]) => n)
        .sort(byRank)[0];
      if (same !== undefined && Buffer.from(encodeLoadOption(entries.get(same)!)).equals(Buffer.from(data))) {
        good.push(same);
        continue;
      }
      const number = same ?? lowestFree(taken);
      taken.add(number);
      writes.push({ number, option, data, partition: p.name, reused: same !== undefined });
    }
  }
  const os = [...new Set([...good, ...writes.map((w) => w.number)])];
  const rewritten = new Set(writes.map((w) => w.number));
  const deletes = rejected.map((r) => r.number).filter((n) => !rewritten.has(n));
  const seen = new Set<number>(deletes);
  const dedup = old.filter((n) => (seen.has(n) ? false : (seen.add(n), true)));
  const network = dedup.filter((n) => !os.includes(n) && entries.get(n) !== undefined && isNetworkOption(entries.get(n)!));
  const rest = dedup.filter((n) => !os.includes(n) && !network.includes(n));
  const order = [...os, ...network, ...rest];
  return { old, order, os, network, changed: order.length !== old.length || order.some((n, i) => n !== old[i]), writes, rejected, deletes };
}

/** The loader for a new entry: one an entry named after the id names, when it is on the ESP; else the removable one. */
function chooseLoader(f: BootOrderFacts): string {
  const candidates = loaderCandidates(f.entries, f.bootloaderId, f.removableLoader);
  const onEsp = candidates.find((p) => f.loadersOnEsp.has(loaderKey(p)));
  if (onEsp === undefined)
    throw new BootOrderError(
      `no loader file on the ESP: looked for ${candidates.join(", ")} (what the installer's entries name, and the removable path grub-install --removable writes)`,
    );
  return onEsp;
}

function lowestFree(taken: ReadonlySet<number>): number {
  for (let n = 0; n <= 0xffff; n++) if (!taken.has(n)) return n;
  throw new BootOrderError("no free Boot#### number (all 65536 are taken)");
}
