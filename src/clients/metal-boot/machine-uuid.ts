/**
 * The machine's identity: /sys/class/dmi/id/product_uuid, else product_serial when
 * that is a UUID (the API requires one: boot.proto `uuid` has the rule
 * string.uuid), unless METAL_UUID (Config.uuid) overrides. Neither usable: exit 20
 * naming both sources. The sysfs root is an argument (tests pass a
 * directory of their own).
 */
import { AgentError } from "../../platform/errors.ts";
import { normaliseUuid } from "../../platform/ids/uuid.ts";

export const SYSFS_ROOT = "/sys";
const USELESS = new Set([
  "",
  "none",
  "not specified",
  "not settable",
  "default string",
  "to be filled by o.e.m.",
  "0",
  "00000000-0000-0000-0000-000000000000",
  "ffffffff-ffff-ffff-ffff-ffffffffffff",
]);

export type UuidSource = "cmdline" | "product_uuid" | "product_serial";

export interface MachineId {
  readonly uuid: string;
  readonly source: UuidSource;
}

/** A DMI value as a lower-case UUID; undefined when it is a placeholder or not a UUID. Pure. */
export function normaliseDmi(text: string): string | undefined {
  const v = text.trim().toLowerCase();
  if (USELESS.has(v)) return undefined;
  return normaliseUuid(v);
}

export async function machineId(override: string | undefined, readFile: (p: string) => Promise<Uint8Array>, sysRoot = SYSFS_ROOT): Promise<MachineId> {
  if (override) return { uuid: override.toLowerCase(), source: "cmdline" };
  const tried: string[] = [];
  for (const [file, kind] of [
    ["product_uuid", "uuid"],
    ["product_serial", "serial"],
  ] as const) {
    const path = `${sysRoot}/class/dmi/id/${file}`;
    let text: string;
    try {
      text = new TextDecoder().decode(await readFile(path));
    } catch (e) {
      tried.push(`${path}: ${(e as Error).message}`);
      continue;
    }
    const v = normaliseDmi(text);
    if (v) return { uuid: v, source: file };
    tried.push(`${path}: ${JSON.stringify(text.trim().slice(0, 40))} is ${kind === "serial" ? "not a UUID" : "a placeholder or not a UUID"}`);
  }
  throw new AgentError(
    "metal_boot",
    `cannot determine the machine UUID: neither product_uuid nor product_serial holds one (${tried.join("; ")}); set METAL_UUID= on the cmdline or pass --uuid`,
    { tried },
  );
}
