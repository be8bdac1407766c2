/** Facts from the machine (read.ts) -> Inventory (map.ts): what `inventory` and the register step call. */
import type { NetworkSummary } from "../../network/net/summary.ts";
import { toInventory, type Inventory } from "./map.ts";
import { PCI_IDS_PATH } from "./pci-ids.ts";
import { readFacts, type FactSources } from "./read.ts";

export const PROC_ROOT = "/proc";

/** The initramfs's PCI names, else (the agent run on a host) Debian's whole pci.ids. */
export const PCI_IDS_FILES = [PCI_IDS_PATH, "/usr/share/misc/pci.ids"] as const;

export async function collectInventory(src: FactSources, network?: NetworkSummary | null): Promise<Inventory> {
  return toInventory(await readFacts({ pciIds: PCI_IDS_FILES, ...src }), network);
}
