/**
 * `run --from register|wait`: what the earlier stages left behind, read back: the
 * hand-off file (handoff.json) and the 0600 token file it names. Missing, not a regular
 * file, or not matching: a usage error saying which stage to run first. Both are opened
 * without blocking (a FIFO at either path is refused at once, never waited on) and read
 * with a cap. The same boot facts as the boot stage gives (src/agent/boot-facts.ts),
 * without a clock check of this run.
 */
import type { Boot } from "../clients/metal-boot/boot.ts";
import { MachineToken } from "../clients/metal-boot/machine-token.ts";
import { AgentError } from "../platform/errors.ts";
import { readRegularFile } from "../platform/fs/read-regular.ts";
import { decodeHandoff, type HandoffDocument } from "./handoff/document.ts";
import type { BootFacts } from "./boot-facts.ts";
import type { Services } from "./services.ts";

/** handoff.json is a few KiB (the network summary is its largest part); the token a JWT of about 1 KiB. */
export const RESUME_READ_CAP = 1 << 20;

/** The document's URL fields, each an http(s) URL as the boot stage wrote it. */
const URL_FIELDS = ["metalBootUrl", "apiserverUrl", "imageCacheUrl"] as const;

/** The first URL field that is not an http(s) URL, with what it holds; undefined when all are. Pure. */
export function badUrlField(d: HandoffDocument): { readonly field: string; readonly value: string } | undefined {
  for (const field of URL_FIELDS) {
    const value = d[field];
    if (value === null) continue;
    if (!URL.canParse(value) || !/^https?:$/.test(new URL(value).protocol)) return { field, value };
  }
  return undefined;
}

export async function resume(stage: "register" | "wait", s: Pick<Services, "handoffFile" | "secrets">): Promise<BootFacts> {
  const where = `run --from ${stage} resumes from ${s.handoffFile}`;
  let text: string;
  try {
    text = new TextDecoder().decode(await readRegularFile(s.handoffFile, RESUME_READ_CAP));
  } catch (e) {
    throw new AgentError("usage", `${where}, which cannot be read (${(e as Error).message}); run the flow up to the hand-off first (run, or run --from boot)`, {
      path: s.handoffFile,
    });
  }
  const doc = decodeHandoff(text, s.handoffFile);
  if (!doc.ok) throw new AgentError("usage", `${where}: not a hand-off file of this version (${doc.message}); run --from boot first`, { path: s.handoffFile, field: doc.field });
  const d = doc.doc;
  const bad = badUrlField(d);
  if (bad) {
    throw new AgentError("usage", `${where}: field ${bad.field}: expected an http(s) URL, got ${JSON.stringify(bad.value.slice(0, 200))}; run --from boot first`, {
      path: s.handoffFile,
      field: bad.field,
    });
  }
  let token: string;
  try {
    token = new TextDecoder().decode(await readRegularFile(d.tokenFile, RESUME_READ_CAP)).trim();
  } catch (e) {
    throw new AgentError("usage", `${where}: its token file ${d.tokenFile} cannot be read (${(e as Error).message}); run --from boot first`, { path: d.tokenFile });
  }
  s.secrets.add(token);
  const boot: Boot = {
    uuid: d.uuid,
    uuidSource: d.uuidSource,
    partition: d.partition,
    metalBootUrl: d.metalBootUrl,
    apiserverUrl: new URL(d.apiserverUrl),
    apiserverCa: d.apiserverCa ?? undefined,
    imageCacheUrl: d.imageCacheUrl ? new URL(d.imageCacheUrl) : undefined,
    ntpServers: d.ntpServers,
    token: new MachineToken(token),
    tokenFile: d.tokenFile,
  };
  return { boot, network: d.network ?? undefined, clock: undefined, trust: d.apiserverCa ? [{ pem: d.apiserverCa, name: "the CA from metal-boot (handoff.json)" }] : [] };
}
