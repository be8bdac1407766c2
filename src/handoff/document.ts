/**
 * The hand-off contract, /run/metal/handoff.json (docs/handoff.md): everything the
 * next stage needs to go on where the agent stopped, and what `run --from register`
 * or `--from wait` resumes from. Never holds the token itself, only the path of the
 * 0600 token file.
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
