/**
 * The boot order metal-stack needs after an install (metal-hammer cmd/bios.go
 * EnsureBootOrder: "first boot from OS image and then PXE boot"): the entry the image's
 * installer wrote (its Description is the installer's bootloader_id, as grub-install
 * names the entry after `--bootloader-id`) first, then the network entries (PXE, HTTP
 * boot), then every other entry in its old order. Pure.
 */
import { bootName, isNetworkOption, type LoadOption } from "./load-option.ts";

export class BootOrderError extends Error {
  override readonly name = "BootOrderError";
}

export interface BootEntry {
  readonly number: number;
  readonly option: LoadOption;
}

export interface BootOrderPlan {
  readonly old: readonly number[];
  readonly order: readonly number[];
  /** The entries named by the bootloader id. */
  readonly os: readonly number[];
  readonly network: readonly number[];
  readonly changed: boolean;
}

/** `Boot0003 "debian"` for log lines and errors. */
export function describeEntry(n: number, entries: ReadonlyMap<number, LoadOption>): string {
  const o = entries.get(n);
  return o ? `${bootName(n)} ${JSON.stringify(o.description)}` : `${bootName(n)} (no such variable)`;
}

export function planBootOrder(old: readonly number[], entries: ReadonlyMap<number, LoadOption>, bootloaderId: string): BootOrderPlan {
  const found = () =>
    [...entries.keys()]
      .sort((a, b) => a - b)
      .map((n) => describeEntry(n, entries))
      .join(", ") || "none";
  if (bootloaderId === "") throw new BootOrderError(`the installer's boot-info.yaml names no bootloader_id, so no boot entry can be put first (entries found: ${found()})`);
  const os = [...entries.entries()].filter(([, o]) => o.description === bootloaderId).map(([n]) => n);
  if (os.length === 0)
    throw new BootOrderError(
      `no boot entry is named "${bootloaderId}" (the installer's bootloader_id; grub-install --bootloader-id names its entry so): entries found: ${found()}`,
    );
  // An OS entry missing from the old order still goes first; the old order decides among several.
  const rank = (n: number) => (old.includes(n) ? old.indexOf(n) : -1);
  os.sort((a, b) => rank(a) - rank(b) || a - b);
  const seen = new Set<number>();
  const dedup = old.filter((n) => (seen.has(n) ? false : (seen.add(n), true)));
  const network = dedup.filter((n) => !os.includes(n) && entries.get(n) !== undefined && isNetworkOption(entries.get(n)!));
  const rest = dedup.filter((n) => !os.includes(n) && !network.includes(n));
  const order = [...os, ...network, ...rest];
  return { old, order, os, network, changed: order.length !== old.length || order.some((n, i) => n !== old[i]) };
}
