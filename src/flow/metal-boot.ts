/**
 * Stage "boot": the machine's uuid, then pixie's MetalConfig and the token from
 * metal-boot. The token is registered as a secret when parsed, kept in memory and
 * written 0600 for the hand-off and `run --from`; the log shows only its kind,
 * subject and expiry. The partition Register sends is metal-boot's; a different
 * METAL_PARTITION on the cmdline is a warning.
 */
import type { Boot } from "../boot/boot.ts";
import { fetchBootConfig } from "../boot/client.ts";
import { MachineToken } from "../boot/machine-token.ts";
import { machineId } from "../boot/uuid.ts";
import type { Config } from "../config/config.ts";
import { writePrivateFile } from "../fs/private-file.ts";
import { logEvent } from "../log/logger.ts";
import type { NetworkSummary } from "../net/summary.ts";
import type { Services } from "./services.ts";

export async function metalBoot(config: Config, net: NetworkSummary | undefined, s: Services): Promise<Boot> {
  const id = await machineId(config.uuid, s.readFile, s.sysRoot);
  const got = await fetchBootConfig(s.http, config.metalBootUrl, id.uuid, s.secrets);
  const c = got.config;
  const token = new MachineToken(c.metal_apiserver_token_for_hammer);
  if (c.ca) s.http.addCa(c.ca, "the CA from metal-boot");
  await writePrivateFile(s.tokenFile, token.reveal(), "token file");
  const partition = c.partition !== "" ? c.partition : (config.partition ?? "");
  if (config.partition !== undefined && c.partition !== "" && config.partition !== c.partition) {
    logEvent(s.log, "agent.config.warning", { metalPartition: config.partition, metalBootPartition: c.partition }, `METAL_PARTITION=${config.partition} on the cmdline differs from metal-boot's partition ${c.partition}: registering with ${c.partition}`, "warn");
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
    tokenFile: s.tokenFile,
    tokenExpiresAt: token.info.expiresAt ?? null,
    tokenSubject: token.info.subject ?? null,
    address: got.address ?? null,
    latencyMs: got.latencyMs,
    attempts: got.attempts,
    interfaces: net?.interfaces.length ?? null,
  });
  return { uuid: id.uuid, uuidSource: id.source, partition, metalBootUrl: config.metalBootUrl.href, apiserverUrl: c.metal_apiserver_url, apiserverCa: c.ca, imageCacheUrl, ntpServers: c.ntp_servers, token, tokenFile: s.tokenFile };
}
