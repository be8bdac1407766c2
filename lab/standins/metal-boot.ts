/**
 * metal-boot stand-in in pixie's shape: GET /config/{id} mints a machine token for ANY
 * uuid (pixiecore/http.go:232-271 handleConfig) and answers pixie's MetalConfig
 * (api/api.go: snake_case, omitempty), plus our two optional extensions `ca` and
 * `image_cache_url` (docs/metal-boot.md) when set. Each answer is a fresh object: pixie
 * writes the token into its one shared MetalConfig before marshalling it
 * (metal-stack/pixie@8b0f1da5 pixiecore/http.go:253), so two machines asking at once can get
 * each other's token (test/lab/standins/metal-boot.test.ts asks for 64 uuids at once).
 * Before answering, it sends the machine's boot event to the apiserver as an infra client
 * (boot-event.ts: what makes the machine allocatable upstream; pixie sends none), when it
 * knows the apiserver and `bootEvents` is on; the answer goes out also when the event failed
 * (`sentEvents` records each).
 */
import { METAL_BOOT_SERVICE, sendBootEvent, type BootEventResult } from "./boot-event.ts";
import type { FaultBox } from "./faults.ts";
import type { TokenIssuer } from "./tokens.ts";

export interface Machine {
  readonly uuid: string;
  readonly partition: string;
}

export interface MetalBootOptions {
  /** Partition per known uuid; any other uuid gets `defaultPartition` (pixie serves one partition). */
  readonly machines: Map<string, Machine>;
  defaultPartition: string;
  readonly tokens: TokenIssuer;
  apiserverUrl: string;
  /** The image_cache_url extension; omitted when undefined. */
  imageCacheUrl: string | undefined;
  /** The partition's NTP servers (pixie's ntp_servers): the lab's chronyd (lab/standins/ntp.ts); omitted when empty. */
  ntpServers: readonly string[];
  /** The CA handed out for the apiserver (PEM); omitted when undefined. */
  ca: string | undefined;
  readonly faults: FaultBox;
  /** pixie PR #40's oci_configs (registry -> username/password); omitted when undefined. */
  ociConfigs?: Record<string, { username: string; password: string }> | undefined;
  /** metal-boot's own apiserver client URL for its boot events (pixie's ApiClient is configured apart from the URL it hands out); "" until the servers listen. */
  eventApiUrl: string;
  /** The CA metal-boot's own client trusts for the apiserver (not `ca`, which tests change for the machines). */
  eventApiCa: string | undefined;
  /** Send the boot event when serving a config (default on; off: a metal-boot as pixie is today). */
  bootEvents: boolean;
  /** Every boot event sent, and whether the apiserver stored it. */
  readonly sentEvents: BootEventResult[];
  /** Lifetime of the machine tokens handed out (s); pixie's 3 days when undefined (tests shorten it). */
  tokenTtlS?: number | undefined;
  /** Replace the answer wholesale (bad-answer tests). */
  override?: ((uuid: string) => unknown) | undefined;
}

export function metalBootHandler(o: MetalBootOptions) {
  return async (req: Request): Promise<Response> => {
    const url = new URL(req.url);
    const m = /^\/config\/([^/]+)$/.exec(url.pathname);
    if (req.method !== "GET" || !m) return new Response("404 page not found\n", { status: 404 });
    const f = o.faults.take();
    if (f.slowMs) await Bun.sleep(f.slowMs);
    if (f.status) return new Response("stand-in fault\n", { status: f.status });
    const uuid = decodeURIComponent(m[1] ?? "");
    if (o.override) return Response.json(o.override(uuid));
    if (o.bootEvents && o.eventApiUrl !== "") o.sentEvents.push(await sendBootEvent(o.eventApiUrl, o.eventApiCa, o.tokens.issueInfra(3600, METAL_BOOT_SERVICE), uuid));
    return Response.json({
      debug: false,
      metal_apiserver_url: o.apiserverUrl,
      metal_apiserver_token_for_hammer: o.tokens.issue(uuid, o.tokenTtlS),
      pixie_api_url: "",
      ...(o.ntpServers.length > 0 ? { ntp_servers: o.ntpServers } : {}),
      partition: o.machines.get(uuid)?.partition ?? o.defaultPartition,
      ...(o.ca ? { ca: o.ca } : {}),
      ...(o.imageCacheUrl ? { image_cache_url: o.imageCacheUrl } : {}),
      ...(o.ociConfigs ? { oci_configs: o.ociConfigs } : {}),
    });
  };
}
