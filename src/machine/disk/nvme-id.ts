/**
 * What an NVMe controller and namespace say they can do for erasing, from
 * `nvme id-ctrl -o json` and `nvme id-ns -o json` (nvme-cli prints the Identify
 * fields under their spec names, numbers as JSON numbers). Bits per the NVMe Base
 * Specification 2.0, Identify Controller: OACS bit 1 = Format NVM supported; FNA bit 0 =
 * format applies to all namespaces, bit 1 = secure erase applies to all namespaces,
 * bit 2 = cryptographic erase supported; SANICAP bit 0 = crypto erase, bit 1 = block
 * erase, bit 2 = overwrite. Identify Namespace DLFEAT bits 2:0 = 001b: deallocated
 * blocks read as zeroes. Pure.
 */
import { z } from "zod";

export interface NvmeCaps {
  readonly format: boolean;
  readonly formatCrypto: boolean;
  /** A format or secure erase of one namespace erases every namespace of the controller. */
  readonly formatAllNamespaces: boolean;
  readonly sanitizeCrypto: boolean;
  readonly sanitizeBlock: boolean;
  readonly sanitizeOverwrite: boolean;
  /** Deallocated (formatted, sanitized, discarded) blocks read back as zeroes. */
  readonly deallocatedReadsZero: boolean;
  readonly model: string;
}

const num = z.union([
  z.number().int().nonnegative(),
  z
    .string()
    .regex(/^(0x[0-9a-f]+|\d+)$/i)
    .transform(Number),
]);
const IdCtrl = z.object({ oacs: num, fna: num.optional(), sanicap: num.optional(), mn: z.string().optional() }).passthrough();
const IdNs = z.object({ dlfeat: num.optional() }).passthrough();

export class NvmeIdError extends Error {
  override readonly name = "NvmeIdError";
}

function parseJson<T>(what: string, text: string, schema: z.ZodType<T>): T {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new NvmeIdError(`${what}: not JSON (expected the output of nvme ${what} -o json)`);
  }
  const r = schema.safeParse(raw);
  if (!r.success) throw new NvmeIdError(`${what}: ${r.error.issues.map((i) => `${i.path.join(".") || "(root)"} ${i.message}`).join("; ")}`);
  return r.data;
}

/** Capabilities from the id-ctrl answer and (optional) the id-ns answer of the namespace. */
export function parseNvmeCaps(idCtrlJson: string, idNsJson?: string): NvmeCaps {
  const c = parseJson("id-ctrl", idCtrlJson, IdCtrl);
  const ns = idNsJson === undefined ? undefined : parseJson("id-ns", idNsJson, IdNs);
  const fna = c.fna ?? 0;
  const sanicap = c.sanicap ?? 0;
  return {
    format: (c.oacs & 0b10) !== 0,
    formatCrypto: (c.oacs & 0b10) !== 0 && (fna & 0b100) !== 0,
    formatAllNamespaces: (fna & 0b11) !== 0,
    sanitizeCrypto: (sanicap & 0b001) !== 0,
    sanitizeBlock: (sanicap & 0b010) !== 0,
    sanitizeOverwrite: (sanicap & 0b100) !== 0,
    deallocatedReadsZero: ((ns?.dlfeat ?? 0) & 0b111) === 0b001,
    model: (c.mn ?? "").trim(),
  };
}

/**
 * Sanitize Status (SSTAT) from `nvme sanitize-log -o json`: bits 2:0 = 0 never
 * sanitized, 1 completed, 2 in progress, 3 failed, 4 completed with no-deallocate.
 * nvme-cli nests the log under the device name; the first `sstat` found wins.
 */
export type SanitizeState = { readonly state: "idle" | "done" | "running" | "failed"; readonly progress: number | undefined };

export function parseSanitizeLog(text: string): SanitizeState {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new NvmeIdError("sanitize-log: not JSON (expected the output of nvme sanitize-log -o json)");
  }
  const find = (o: unknown): Record<string, unknown> | undefined => {
    if (o === null || typeof o !== "object") return undefined;
    const rec = o as Record<string, unknown>;
    if ("sstat" in rec) return rec;
    for (const v of Object.values(rec)) {
      const f = find(v);
      if (f) return f;
    }
    return undefined;
  };
  const log = find(raw);
  const sstat = log ? num.safeParse(log.sstat) : undefined;
  if (!sstat?.success) throw new NvmeIdError("sanitize-log: no sstat field");
  const sprog = num.safeParse(log?.sprog);
  const progress = sprog.success ? sprog.data / 65536 : undefined;
  const s = sstat.data & 0b111;
  const state = s === 1 || s === 4 ? "done" : s === 2 ? "running" : s === 3 ? "failed" : "idle";
  return { state, progress };
}
