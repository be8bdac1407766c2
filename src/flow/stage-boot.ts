/**
 * Stage "boot": the machine's uuid, then config and token from metal-boot. The token
 * is registered as a secret when parsed, kept in memory and written 0600 for the
 * hand-off; the log shows only its kind, subject and expiry.
 */
import { fetchBootConfig } from "../boot/client.ts";
import { MachineToken } from "../boot/machine-token.ts";
import { machineId } from "../boot/uuid.ts";
import { writePrivateFile } from "../fs/private-file.ts";
import { logEvent } from "../log/logger.ts";
import { services } from "./services.ts";
import type { Stage } from "./stage.ts";

export const bootStage: Stage = {
  name: "boot",
  describe: "config and machine token from metal-boot",
  async run(config, deps, state) {
    const s = services(config, deps);
    const id = await machineId(config.uuid, s.readFile, s.sysRoot);
    const got = await fetchBootConfig(s.http, config.metalBootUrl, id.uuid, deps.secrets);
    const c = got.config;
    const token = new MachineToken(c.token);
    if (c.ca) s.http.addCa(c.ca, "the CA from metal-boot");
    await writePrivateFile(s.tokenFile, token.reveal(), "token file");
    state.boot = {
      uuid: id.uuid,
      uuidSource: id.source,
      partition: c.partition,
      metalBootUrl: config.metalBootUrl.href,
      apiserverUrl: c.apiserverUrl,
      imageCacheUrl: c.imageCacheUrl,
      imagePath: c.imagePath,
      ntpServers: c.ntpServers,
      token,
      tokenFile: s.tokenFile,
      latencyMs: got.latencyMs,
      address: got.address,
    };
    logEvent(deps.log, "boot.config", {
      uuid: id.uuid,
      uuidSource: id.source,
      partition: c.partition,
      apiserverUrl: c.apiserverUrl.href,
      imageCacheUrl: c.imageCacheUrl.href,
      caFromMetalBoot: c.ca !== undefined,
      tokenFile: s.tokenFile,
      tokenExpiresAt: token.info.expiresAt ?? null,
      tokenSubject: token.info.subject ?? null,
      address: got.address ?? null,
      latencyMs: got.latencyMs,
      attempts: got.attempts,
    });
  },
};
