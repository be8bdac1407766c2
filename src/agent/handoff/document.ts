/**
 * The hand-off contract, /run/metal/handoff.json (docs/handoff.md): everything the
 * next stage needs to go on where the agent stopped, and what `run --from register`
 * or `--from wait` resumes from. Never holds the token itself, only the path of the
 * 0600 token file. This file is its one codec: the schema, `encodeHandoff` (what the
 * handoff stage writes) and `decodeHandoff` (what `run --from` reads back: a failure
 * names the file and the field). Pure.
 */
import { z } from "zod";

export const HANDOFF_FILE = "/run/metal/handoff.json";
export const HANDOFF_VERSION = 2;

export const HandoffInterface = z.object({
  name: z.string(),
  mac: z.string(),
  state: z.string(),
  addresses: z.array(z.string()),
  defaultRouters: z.array(z.string()),
});

export const HandoffDocument = z.object({
  version: z.literal(HANDOFF_VERSION),
  writtenAt: z.string(),
  uuid: z.string(),
  uuidSource: z.enum(["cmdline", "product_uuid", "product_serial"]),
  partition: z.string(),
  network: z
    .object({
      interfaces: z.array(HandoffInterface),
      dns: z.object({ servers: z.array(z.string()), search: z.array(z.string()) }),
      timingsMs: z.record(z.string(), z.number()),
    })
    .nullable(),
  metalBootUrl: z.string(),
  apiserverUrl: z.string(),
  /** The apiserver CA metal-boot handed out (PEM, public), null when none. */
  apiserverCa: z.string().nullable(),
  /** VersionService/Get's version, null when the api stage did not run. */
  apiserverVersion: z.string().nullable(),
  imageCacheUrl: z.string().nullable(),
  ntpServers: z.array(z.string()),
  tokenFile: z.string(),
  tokenExpiresAt: z.string().nullable(),
  timings: z.object({ stagesMs: z.record(z.string(), z.number()) }),
});

export type HandoffDocument = z.output<typeof HandoffDocument>;

/** handoff.json's text: JSON indented by two spaces, one newline at the end. */
export function encodeHandoff(doc: HandoffDocument): string {
  return JSON.stringify(doc, null, 2) + "\n";
}

export type HandoffDecode =
  | { readonly ok: true; readonly doc: HandoffDocument }
  /** `field`: the JSON path of the first fault ("network.interfaces[0].mac"), "(document)" for the whole. */
  | { readonly ok: false; readonly field: string; readonly message: string };

/** A zod issue path as a JSON path: a.b[0].c. */
function fieldPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const p of path) out += typeof p === "number" ? `[${p}]` : out === "" ? String(p) : `.${String(p)}`;
  return out === "" ? "(document)" : out;
}

/** handoff.json's text (read from `file`, named in the message) -> the document, or the first fault. */
export function decodeHandoff(text: string, file: string): HandoffDecode {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    return { ok: false, field: "(document)", message: `${file}: not JSON (${(e as Error).message})` };
  }
  const version = raw !== null && typeof raw === "object" ? (raw as { version?: unknown }).version : undefined;
  if (version !== HANDOFF_VERSION) {
    return { ok: false, field: "version", message: `${file}: field version: expected ${HANDOFF_VERSION} (this agent's hand-off version), got ${JSON.stringify(version ?? null)}` };
  }
  const doc = HandoffDocument.safeParse(raw);
  if (doc.success) return { ok: true, doc: doc.data };
  const issue = doc.error.issues[0];
  const field = fieldPath(issue?.path ?? []);
  return { ok: false, field, message: `${file}: field ${field}: ${issue?.message ?? "invalid"}` };
}
