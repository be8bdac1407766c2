/**
 * The machine's identity: /sys/class/dmi/id/product_uuid, else product_serial, unless
 * METAL_UUID (Config.uuid) overrides. The sysfs root is an argument (tests pass a
 * directory of their own).
 */
import { AgentError } from "../errors.ts";

export const SYSFS_ROOT = "/sys";
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const USELESS = new Set(["", "none", "not specified", "not settable", "default string", "to be filled by o.e.m.", "0", "00000000-0000-0000-0000-000000000000", "ffffffff-ffff-ffff-ffff-ffffffffffff"]);

export type UuidSource = "cmdline" | "product_uuid" | "product_serial";

export interface MachineId {
  readonly uuid: string;
  readonly source: UuidSource;
}

/** Normalises a DMI value; undefined when it is a placeholder. Pure. */
export function normaliseDmi(text: string, kind: "uuid" | "serial"): string | undefined {
  const v = text.trim().toLowerCase();
  if (USELESS.has(v)) return undefined;
  if (kind === "uuid") return UUID_RE.test(v) ? v : undefined;
  return /^[0-9a-z._:-]{1,64}$/.test(v) ? v : undefined;
}

export async function machineId(override: string | undefined, readFile: (p: string) => Promise<Uint8Array>, sysRoot = SYSFS_ROOT): Promise<MachineId> {
  if (override) return { uuid: override.toLowerCase(), source: "cmdline" };
  const tried: string[] = [];
  for (const [file, kind] of [["product_uuid", "uuid"], ["product_serial", "serial"]] as const) {
    const path = `${sysRoot}/class/dmi/id/${file}`;
    let text: string;
    try {
      text = new TextDecoder().decode(await readFile(path));
    } catch (e) {
      tried.push(`${path}: ${(e as Error).message}`);
      continue;
    }
    const v = normaliseDmi(text, kind);
    if (v) return { uuid: v, source: file };
    tried.push(`${path}: placeholder or malformed value ${JSON.stringify(text.trim().slice(0, 40))}`);
  }
  throw new AgentError("metal_boot", `cannot determine the machine UUID (${tried.join("; ")}); set METAL_UUID= on the cmdline or pass --uuid`, { tried });
}
