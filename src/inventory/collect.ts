/** Facts from the machine (read.ts) -> Inventory (map.ts): what `inventory` and the register step call. */
import type { NetworkSummary } from "../net/summary.ts";
import { toInventory, type Inventory } from "./map.ts";
import { readFacts, type FactSources } from "./read.ts";

export const PROC_ROOT = "/proc";

export async function collectInventory(src: FactSources, network?: NetworkSummary | null): Promise<Inventory> {
  return toInventory(await readFacts(src), network);
}
