/** Flow state -> hand-off document. Pure (the clock comes in as `now`). */
import type { BootSummary, FlowState } from "../flow/state.ts";
import { redactUrl } from "../log/redact.ts";
import { HANDOFF_VERSION, type HandoffDocument } from "./document.ts";

export function buildHandoff(state: FlowState, boot: BootSummary, now: Date): HandoffDocument {
  const net = state.network;
  return {
    version: HANDOFF_VERSION,
    writtenAt: now.toISOString(),
    uuid: boot.uuid,
    uuidSource: boot.uuidSource,
    partition: boot.partition,
    network: net
      ? {
          interfaces: net.interfaces.map((i) => ({ name: i.name, mac: i.mac, state: i.state, addresses: [...i.addresses], defaultRouters: [...i.defaultRouters] })),
          dns: { servers: [...net.dns.servers], search: [...net.dns.search] },
          timingsMs: { ...net.timingsMs },
        }
      : null,
    metalBootUrl: boot.metalBootUrl,
    apiserverUrl: redactUrl(boot.apiserverUrl),
    imageCacheUrl: redactUrl(boot.imageCacheUrl),
    imageUrl: state.image?.url ?? null,
    ntpServers: [...boot.ntpServers],
    tokenFile: boot.tokenFile,
    tokenExpiresAt: boot.token.info.expiresAt ?? null,
    timings: { stagesMs: { ...state.stageTimesMs } },
  };
}
