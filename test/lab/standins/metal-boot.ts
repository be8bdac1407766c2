/**
 * metal-boot stand-in: GET /config/<uuid> answers the documented config (docs/metal-boot.md)
 * with a fresh token for known machines, 404 for unknown ones.
 */
import type { FaultBox } from "./faults.ts";
import type { TokenIssuer } from "./tokens.ts";

export interface Machine {
  readonly uuid: string;
  readonly partition: string;
}

export interface MetalBootOptions {
  readonly machines: Map<string, Machine>;
  readonly tokens: TokenIssuer;
  apiserverUrl: string;
  imageCacheUrl: string;
  imagePath: string;
  /** The CA handed out for the apiserver (PEM); omitted when undefined. */
  ca: string | undefined;
  readonly faults: FaultBox;
  /** Replace the answer wholesale (bad-answer tests). */
  override?: ((uuid: string) => unknown) | undefined;
}

export function metalBootHandler(o: MetalBootOptions) {
  return async (req: Request): Promise<Response> => {
    const url = new URL(req.url);
    const m = /^\/config\/([^/]+)$/.exec(url.pathname);
    if (req.method !== "GET" || !m) return Response.json({ error: "not found" }, { status: 404 });
    const f = o.faults.take();
    if (f.slowMs) await Bun.sleep(f.slowMs);
    if (f.status) return Response.json({ error: "stand-in fault" }, { status: f.status });
    const uuid = decodeURIComponent(m[1] ?? "");
    if (o.override) return Response.json(o.override(uuid));
    const machine = o.machines.get(uuid);
    if (!machine) return Response.json({ error: `unknown machine ${uuid}` }, { status: 404 });
    return Response.json({
      partition: machine.partition,
      apiserverUrl: o.apiserverUrl,
      token: o.tokens.issue(uuid),
      ...(o.ca ? { ca: o.ca } : {}),
      ntpServers: ["fd00:123::1", "ntp.example"],
      imageCacheUrl: o.imageCacheUrl,
      imagePath: o.imagePath,
      logging: { level: "info" },
    });
  };
}
