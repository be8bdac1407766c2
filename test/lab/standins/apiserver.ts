/**
 * apiserver stand-in speaking the Connect protocol (JSON): checks Content-Type,
 * Connect-Protocol-Version and the Bearer token, records every call, and can be told
 * to answer 401, 503 or slowly. Implements the BootService and EventService methods
 * the machine uses (docs/apiserver.md): Register records the hardware (machines.ts);
 * Wait streams nothing until the machine is allocated (POST /_standin/allocate),
 * then the allocation and the end of the stream.
 */
import type { FaultBox } from "./faults.ts";
import type { MachineBook, OpenWait } from "./machines.ts";
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
  readonly machines: MachineBook;
}

/** A Wait answer: the allocation at once when there is one, else an open stream fed by MachineBook. */
function waitStream(o: ApiserverOptions, uuid: string, f: { streamError?: string; streamTruncate?: boolean }): ReadableStream<Uint8Array> {
  const end = () => (f.streamError ? envelope(2, { error: { code: f.streamError, message: "stand-in fault" } }) : envelope(2, {}));
  let wait: OpenWait | undefined;
  let ticker: ReturnType<typeof setInterval> | undefined;
  const done = () => {
    if (ticker) clearInterval(ticker);
    if (wait) o.machines.open.delete(wait);
  };
  return new ReadableStream<Uint8Array>({
    start(c) {
      const allocation = o.machines.allocations.get(uuid);
      if (f.streamTruncate) {
        const first = envelope(0, allocation ? { allocation } : {});
        c.enqueue(first.slice(0, first.byteLength - 3));
        c.close();
        return;
      }
      if (allocation || f.streamError) {
        if (allocation) c.enqueue(envelope(0, { allocation }));
        c.enqueue(end());
        c.close();
        return;
      }
      let sent = 0;
      const send = (v: unknown) => {
        sent += 1;
        c.enqueue(envelope(0, v));
      };
      wait = {
        uuid,
        get sent() {
          return sent;
        },
        send,
        end: () => {
          done();
          c.enqueue(end());
          c.close();
        },
        cut: () => {
          done();
          c.error(new Error("stand-in: Wait stream cut"));
        },
      };
      o.machines.open.add(wait);
      if (o.machines.keepaliveMs > 0) ticker = setInterval(() => send({}), o.machines.keepaliveMs);
    },
    cancel: done,
  });
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
        if (!own(r.uuid)) return connectError("permission_denied", "token is for another machine");
        o.machines.register(uuid, r);
        return Response.json({ uuid, size: o.machines.size, partition: r.partition });
      case "InstallationSucceeded":
        return Response.json({});
      case "SuperUserPassword":
        return Response.json({ featureDisabled: true });
      case "Wait":
        if (!own(r.uuid)) return connectError("permission_denied", "token is for another machine");
        return new Response(waitStream(o, uuid, f), { headers: { "content-type": "application/connect+json" } });
      default:
        return connectError("unimplemented", `${procedure} is not implemented by the stand-in`);
    }
  };
}
