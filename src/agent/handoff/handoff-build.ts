/** The flow's results -> hand-off document. Pure (the clock comes in as `now`). */
import type { Boot } from "../../clients/metal-boot/boot.ts";
import { redactUrl } from "../../platform/log/redact.ts";
import type { NetworkSummary } from "../../network/net/summary.ts";
import { HANDOFF_VERSION, type HandoffDocument } from "./document.ts";

export interface HandoffInput {
  readonly network: NetworkSummary | undefined;
  readonly boot: Boot;
  readonly apiserverVersion: string | undefined;
  readonly stagesMs: Readonly<Record<string, number>>;
}

export function buildHandoff(i: HandoffInput, now: Date): HandoffDocument {
  const { network: net, boot } = i;
  return {
    version: HANDOFF_VERSION,
    writtenAt: now.toISOString(),
    uuid: boot.uuid,
    uuidSource: boot.uuidSource,
    partition: boot.partition,
    network: net
      ? {
          interfaces: net.interfaces.map((x) => ({ name: x.name, mac: x.mac, state: x.state, addresses: [...x.addresses], defaultRouters: [...x.defaultRouters] })),
          dns: { servers: [...net.dns.servers], search: [...net.dns.search] },
          timingsMs: { ...net.timingsMs },
        }
      : null,
    metalBootUrl: boot.metalBootUrl,
    apiserverUrl: redactUrl(boot.apiserverUrl),
    apiserverCa: boot.apiserverCa ?? null,
    apiserverVersion: i.apiserverVersion ?? null,
    imageCacheUrl: boot.imageCacheUrl ? redactUrl(boot.imageCacheUrl) : null,
    ntpServers: [...boot.ntpServers],
    tokenFile: boot.tokenFile,
    tokenExpiresAt: boot.token.info.expiresAt ?? null,
    timings: { stagesMs: { ...i.stagesMs } },
  };
}
