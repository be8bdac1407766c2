/**
 * apiserver stand-in speaking the Connect protocol (JSON): checks Content-Type,
 * Connect-Protocol-Version and the Bearer token, records every call, and can be told
 * to answer 401, 503 or slowly. Implements the BootService and EventService methods
 * the machine uses (docs/apiserver.md).
 */
import type { FaultBox } from "./faults.ts";
import type { TokenIssuer } from "./tokens.ts";

export interface ApiCall {
  readonly procedure: string;
  readonly uuid: string | undefined;
  readonly request: unknown;
}

const CODE_STATUS: Record<string, number> = { unauthenticated: 401, permission_denied: 403, unavailable: 503, not_found: 404, invalid_argument: 400, unimplemented: 404 };

const connectError = (code: string, message: string) => Response.json({ code, message }, { status: CODE_STATUS[code] ?? 500 });

function envelope(flags: number, value: unknown): Uint8Array {
  const data = new TextEncoder().encode(JSON.stringify(value));
  const out = new Uint8Array(5 + data.byteLength);
  new DataView(out.buffer).setUint8(0, flags);
  new DataView(out.buffer).setUint32(1, data.byteLength);
  out.set(data, 5);
  return out;
}

export interface ApiserverOptions {
  readonly tokens: TokenIssuer;
  readonly faults: FaultBox;
  readonly calls: ApiCall[];
}

export function apiserverHandler(o: ApiserverOptions) {
  return async (req: Request): Promise<Response> => {
    const url = new URL(req.url);
    const m = /^\/(metalstack\.infra\.v2\.(?:BootService|EventService))\/([A-Za-z]+)$/.exec(url.pathname);
    if (!m || req.method !== "POST") return connectError("unimplemented", `no procedure ${url.pathname}`);
    const procedure = `${m[1]}/${m[2]}`;
    const streaming = procedure.endsWith("/Wait");
    const raw = new Uint8Array(await req.arrayBuffer());
    const bodyText = new TextDecoder().decode(streaming ? raw.slice(5) : raw);
    let request: unknown;
    try {
      request = JSON.parse(bodyText);
    } catch {
      return connectError("invalid_argument", "body is not JSON");
    }
    const f = o.faults.take();
    if (f.slowMs) await Bun.sleep(f.slowMs);
    if (f.status === 401) return connectError("unauthenticated", "stand-in fault: token refused");
    if (f.status === 503) return connectError("unavailable", "stand-in fault: try again");
    if (f.status) return new Response("stand-in fault", { status: f.status });
    const ct = req.headers.get("content-type");
    if (ct !== (streaming ? "application/connect+json" : "application/json")) return connectError("invalid_argument", `unexpected content-type ${ct}`);
    if (!streaming && req.headers.get("connect-protocol-version") !== "1") return connectError("invalid_argument", "missing Connect-Protocol-Version: 1");
    const auth = /^Bearer (\S+)$/.exec(req.headers.get("authorization") ?? "");
    const uuid = auth?.[1] ? o.tokens.verify(auth[1]) : undefined;
    if (!uuid) return connectError("unauthenticated", "missing or unknown bearer token");
    o.calls.push({ procedure, uuid, request });
    const r = request as Record<string, unknown>;
    const own = (u: unknown) => u === uuid;
    switch (m[2]) {
      case "Send": {
        const events = (r.events ?? {}) as Record<string, unknown>;
        const failed = Object.keys(events).filter((k) => !own(k));
        return Response.json({ events: String(Object.keys(events).length - failed.length), ...(failed.length ? { failed } : {}) });
      }
      case "Booting":
        return own(r.uuid) ? Response.json({}) : connectError("permission_denied", "token is for another machine");
      case "Register":
        return own(r.uuid) ? Response.json({ uuid, size: "v1-small-x86", partition: r.partition }) : connectError("permission_denied", "token is for another machine");
      case "InstallationSucceeded":
        return Response.json({});
      case "SuperUserPassword":
        return Response.json({ featureDisabled: true });
      case "Wait": {
        const first = envelope(0, { allocation: { uuid, hostname: "standin" } });
        const end = f.streamError ? envelope(2, { error: { code: f.streamError, message: "stand-in fault" } }) : envelope(2, {});
        const body = f.streamTruncate ? first.slice(0, first.byteLength - 3) : new Uint8Array([...first, ...end]);
        return new Response(body, { headers: { "content-type": "application/connect+json" } });
      }
      default:
        return connectError("unimplemented", `${procedure} is not implemented by the stand-in`);
    }
  };
}
