/**
 * What metal-boot sends when it serves a machine's config: the boot event, over HTTPS to the
 * apiserver's EventService/Send as an infra client (its own INFRA_ROLE_EDITOR token; Send is
 * INFRA_ROLE only, metal-stack/api@e6201fcb proto/metalstack/infra/v2/event.proto:11-12). On the
 * PXE path pixie's BootService/Dhcp makes the apiserver send PXE Booting
 * (metal-stack/metal-apiserver@3f09705a pkg/repository/machine.go:40-47); MEP-20's ISO boot
 * has no DHCP and pixie's handleConfig sends nothing (metal-stack/pixie@8b0f1da5
 * pixiecore/http.go:232-271), so without this event the machine never gets the provisioning-event
 * container findWaitingMachine needs (liveliness.ts). Upstream has no ISO-boot type
 * (api/v2/machine.proto:660-683): PXE Booting, its message saying ISO boot.
 */
import { create, toJson } from "@bufbuild/protobuf";
import { timestampNow } from "@bufbuild/protobuf/wkt";
import { MachineProvisioningEventType } from "../../src/gen/metalstack/api/v2/machine_pb.ts";
import { EventServiceSendRequestSchema } from "../../src/gen/metalstack/infra/v2/event_pb.ts";

/** The infra service name in metal-boot's own token (tokens.ts issueInfra). */
export const METAL_BOOT_SERVICE = "metal-boot";

export const BOOT_EVENT_MESSAGE = "ISO boot: metal-boot served the machine's config and token (no PXE, no DHCP)";

/** Send's request for `uuid`'s boot event, as protojson. Pure. */
export function bootEventRequest(uuid: string): unknown {
  return toJson(
    EventServiceSendRequestSchema,
    create(EventServiceSendRequestSchema, {
      events: { [uuid]: { time: timestampNow(), event: MachineProvisioningEventType.PXE_BOOTING, message: BOOT_EVENT_MESSAGE } },
    }),
  );
}

/** One boot event sent: whether the apiserver stored it, else why not. */
export interface BootEventResult {
  readonly uuid: string;
  readonly ok: boolean;
  readonly error?: string;
}

/** metal-boot's User-Agent on its apiserver calls (the request log tells them from the machines'). */
export const METAL_BOOT_USER_AGENT = "metal-boot-standin";

const RETRY_MS = 200;

/** One POST of the boot event (Connect unary, JSON): stored, refused for good, or worth another try (503, no connection). */
async function postOnce(url: string, ca: string | undefined, infraToken: string, uuid: string, signal: AbortSignal): Promise<BootEventResult & { again?: boolean }> {
  try {
    const r = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", "connect-protocol-version": "1", authorization: `Bearer ${infraToken}`, "user-agent": METAL_BOOT_USER_AGENT },
      body: JSON.stringify(bootEventRequest(uuid)),
      ...(ca ? { tls: { ca } } : {}),
      signal,
    });
    const body = (await r.json().catch(() => ({}))) as { failed?: string[]; code?: string; message?: string };
    if (r.status !== 200) return { uuid, ok: false, error: `EventService/Send answered ${r.status} ${body.code ?? ""} ${body.message ?? ""}`.trim(), again: r.status === 503 };
    if (body.failed?.includes(uuid)) return { uuid, ok: false, error: "EventService/Send: the event failed" };
    return { uuid, ok: true };
  } catch (e) {
    return { uuid, ok: false, error: `EventService/Send: ${(e as Error).message}`, again: !signal.aborted };
  }
}

/** POSTs the boot event, again after a 503 or a failed connection (a balancer, a restarting apiserver), within `timeoutMs`; never throws. */
export async function sendBootEvent(apiserverUrl: string, ca: string | undefined, infraToken: string, uuid: string, timeoutMs = 5_000): Promise<BootEventResult> {
  const url = `${apiserverUrl.replace(/\/$/, "")}/metalstack.infra.v2.EventService/Send`;
  const signal = AbortSignal.timeout(timeoutMs);
  for (;;) {
    const { again, ...r } = await postOnce(url, ca, infraToken, uuid, signal);
    if (r.ok || !again || signal.aborted) return r;
    await Bun.sleep(RETRY_MS);
  }
}
