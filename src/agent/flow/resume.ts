/**
 * `run --from register|wait`: what the earlier stages left behind, read back: the
 * hand-off file (handoff.json) and the 0600 token file it names. Missing or not
 * matching: a usage error saying which stage to run first. The same boot facts as the
 * boot stage gives (src/agent/flow/boot-facts.ts), without a clock check of this run.
 */
import type { Boot } from "../../clients/metal-boot/boot.ts";
import { MachineToken } from "../../clients/metal-boot/machine-token.ts";
import { AgentError } from "../../errors.ts";
import { decodeHandoff } from "../handoff/document.ts";
import type { BootFacts } from "./boot-facts.ts";
import type { Services } from "./services.ts";

export async function resume(stage: "register" | "wait", s: Services): Promise<BootFacts> {
  const where = `run --from ${stage} resumes from ${s.handoffFile}`;
  let text: string;
  try {
    text = new TextDecoder().decode(await s.readFile(s.handoffFile));
  } catch (e) {
    throw new AgentError("usage", `${where}, which cannot be read (${(e as Error).message}); run the flow up to the hand-off first (run, or run --from boot)`, {
      path: s.handoffFile,
    });
  }
  const doc = decodeHandoff(text, s.handoffFile);
  if (!doc.ok) throw new AgentError("usage", `${where}: not a hand-off file of this version (${doc.message}); run --from boot first`, { path: s.handoffFile, field: doc.field });
  const d = doc.doc;
  let token: string;
  try {
    token = new TextDecoder().decode(await s.readFile(d.tokenFile)).trim();
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
