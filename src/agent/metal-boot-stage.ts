/**
 * Stage "boot": pixie's MetalConfig and the token from metal-boot for the machine's
 * uuid (read once at the start of the flow). The token is registered as a secret when
 * parsed, kept in memory and written 0600 for the hand-off and `run --from`; the log
 * shows only its kind, subject and expiry (also in status.json), with a warning when it expires
 * before the wait's longest bound (it is renewed then: token-renewal.ts). The partition Register sends is metal-boot's; a different
 * METAL_PARTITION on the cmdline is a warning. Then the config's `logging` starts the
 * log shipper (Loki; never fails the flow), and when the clock stage gave no time, its
 * `ntp_servers` are tried. Returns the boot facts (src/agent/boot-facts.ts): the clock
 * as it now stands and metal-boot's CA for the later connections.
 */
import { fetchBootConfig } from "../clients/metal-boot/metal-boot-client.ts";
import { MachineToken } from "../clients/metal-boot/machine-token.ts";
import type { MachineId } from "../clients/metal-boot/machine-uuid.ts";
import type { ClockState } from "../ops/clock/sync.ts";
import type { Config } from "../config/config.ts";
import { writePrivateFile } from "../platform/fs/private-file.ts";
import { logEvent } from "../platform/log/logger.ts";
import type { NetworkSummary } from "../network/net/summary.ts";
import { LoggingSchema, type Logging } from "../ops/remote-log/remote-log-config.ts";
import type { BootFacts } from "./boot-facts.ts";
import { tokenOutlived } from "./token-lifetime.ts";
import { clockUnset } from "./clock-stage.ts";
import type { Services } from "./services.ts";

/** pixie's `logging` section as the shipper reads it; a malformed one is one warn line and no shipping. */
function remoteLogging(raw: unknown, s: Pick<Services, "log">): Logging | undefined {
  if (raw === undefined || raw === null) return undefined;
  // pixie's Go structs serialise absent sections as null or with empty fields: those are "not set".
  const set = (v: unknown): boolean => (typeof v === "string" ? v !== "" : typeof v === "object" && v !== null ? Object.values(v).some(set) : v === true);
  const r = LoggingSchema.safeParse(
    Object.fromEntries(
      Object.entries(raw)
        .filter(([, v]) => set(v))
        .map(([k, v]) => [k, typeof v === "object" ? Object.fromEntries(Object.entries(v as object).filter(([, x]) => x !== undefined && x !== null)) : v]),
    ),
  );
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  logEvent(
    s.log,
    "agent.config.warning",
    { logging: "invalid", path: issue?.path.join(".") ?? "", problem: issue?.message ?? "invalid" },
    `metal-boot's logging section is not usable (${issue?.path.join(".") ?? ""}: ${issue?.message ?? "invalid"}): logs are not shipped`,
    "warn",
  );
  return undefined;
}

/** What the boot stage starts from: the machine id, and the network and clock stages' results. */
export interface BootInput {
  readonly id: MachineId;
  readonly network: NetworkSummary | undefined;
  readonly clock: ClockState;
}

/** What the `metalBoot` stage uses of the services (a test fakes only this). */
export type MetalBootServices = Pick<Services, "http" | "log" | "ops" | "secrets" | "tokenFile" | "now">;

/** Before boot: the base client (METAL_CA alone); the boot's CAs are trusted from the facts this returns. */
export async function metalBoot(
  config: Pick<Config, "metalBootUrl" | "partition" | "imageCacheUrl" | "waitTimeoutMs" | "plannedReboot">,
  input: BootInput,
  s: MetalBootServices,
): Promise<BootFacts> {
  const { id, network: net } = input;
  const got = await fetchBootConfig(s.http, config.metalBootUrl, id.uuid, s.secrets);
  const c = got.config;
  const token = new MachineToken(c.metal_apiserver_token_for_hammer);
  await writePrivateFile(s.tokenFile, token.reveal(), "token file");
  const partition = c.partition !== "" ? c.partition : (config.partition ?? "");
  if (config.partition !== undefined && c.partition !== "" && config.partition !== c.partition) {
    logEvent(
      s.log,
      "agent.config.warning",
      { metalPartition: config.partition, metalBootPartition: c.partition },
      `METAL_PARTITION=${config.partition} on the cmdline differs from metal-boot's partition ${c.partition}: registering with ${c.partition}`,
      "warn",
    );
  }
  const imageCacheUrl = config.imageCacheUrl ?? c.image_cache_url;
  logEvent(s.log, "boot.config", {
    uuid: id.uuid,
    uuidSource: id.source,
    partition,
    apiserverUrl: c.metal_apiserver_url.href,
    imageCacheUrl: imageCacheUrl?.href ?? null,
    caFromMetalBoot: c.ca !== undefined,
    ntpServers: c.ntp_servers,
    ociRegistries: Object.keys(c.oci_configs),
    tokenFile: s.tokenFile,
    tokenExpiresAt: token.info.expiresAt ?? null,
    tokenSubject: token.info.subject ?? null,
    address: got.address ?? null,
    latencyMs: got.latencyMs,
    attempts: got.attempts,
    interfaces: net?.interfaces.length ?? null,
  });
  s.ops.tokenKnown(token.info, 0);
  const short = tokenOutlived(s.now().getTime(), token.info.expiresAt, config.waitTimeoutMs, config.plannedReboot);
  if (short) logEvent(s.log, "boot.token.lifetime", { tokenExpiresAt: short.expiresAt, waitEndsBy: short.waitEndsBy, endsBy: short.endsBy }, short.message, "warn");
  s.ops.startRemoteLog(remoteLogging(c.logging, s), { uuid: id.uuid, ...(c.ca ? { ca: [c.ca] } : {}), log: s.log, secrets: s.secrets, uplinks: s.http.uplinks });
  const clock = clockUnset(input.clock) && c.ntp_servers.length > 0 ? await s.ops.resyncFromConfig(c.ntp_servers, s.log) : input.clock;
  return {
    boot: {
      uuid: id.uuid,
      uuidSource: id.source,
      partition,
      metalBootUrl: config.metalBootUrl.href,
      apiserverUrl: c.metal_apiserver_url,
      apiserverCa: c.ca,
      imageCacheUrl,
      ntpServers: c.ntp_servers,
      ociConfigs: c.oci_configs,
      token,
      tokenFile: s.tokenFile,
    },
    network: net,
    clock,
    trust: c.ca ? [{ pem: c.ca, name: "the CA from metal-boot" }] : [],
  };
}
