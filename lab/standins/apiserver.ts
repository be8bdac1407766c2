/**
 * apiserver stand-in speaking the Connect protocol (JSON), as strict as the real one
 * (rules.ts names each upstream source): requests decoded as protojson with unknown
 * fields and unknown enum names dropped (protojson DiscardUnknown), permissions by
 * the method's role options and the token's subject, Register's validation and the
 * two-switch rule. Wait (metal-apiserver machine.go:1322-1378) sends no headers before
 * its first message, no keepalives, and never ends by itself: the allocation at once
 * when there is one, else when POST /_standin/allocate (or --allocate-after) gives
 * one. Faults (faults.ts) and `keepaliveMs` are test-only deviations, off by default.
 */
import { create, fromJson, toJson, type DescMethod, type JsonValue } from "@bufbuild/protobuf";
import { HealthService } from "../../src/gen/metalstack/api/v2/health_pb.ts";
import { MachineProvisioningEventType } from "../../src/gen/metalstack/api/v2/machine_pb.ts";
import { VersionService } from "../../src/gen/metalstack/api/v2/version_pb.ts";
import { BootService, BootServiceInstallationSucceededResponseSchema, BootServiceRegisterResponseSchema, BootServiceSuperUserPasswordResponseSchema, type BootServiceInstallationSucceededRequest, type BootServiceRegisterRequest } from "../../src/gen/metalstack/infra/v2/boot_pb.ts";
import { EventService, EventServiceSendResponseSchema, type EventServiceSendRequest } from "../../src/gen/metalstack/infra/v2/event_pb.ts";
import type { FaultBox } from "./faults.ts";
import { waitMessage, type MachineBook, type OpenWait } from "./machines.ts";
import { authorize, installationRefusal, registerRefusal, waitRefusal, type Subject } from "./rules.ts";
import type { TokenIssuer } from "./tokens.ts";

export interface ApiCall {
  readonly procedure: string;
  readonly uuid: string | undefined;
  /** The request as protojson after decoding (unknown fields and enum names dropped). */
  readonly request: unknown;
  /** The connect code it was refused with, undefined when answered. */
  readonly refused?: string;
}

/** connect-go's HTTP status per code (connectrpc.com/docs/protocol). */
const CODE_STATUS: Record<string, number> = { unauthenticated: 401, permission_denied: 403, unavailable: 503, not_found: 404, invalid_argument: 400, failed_precondition: 400, unimplemented: 501, internal: 500 };

const connectError = (code: string, message: string) => Response.json({ code, message }, { status: CODE_STATUS[code] ?? 500 });

const METHODS = new Map<string, DescMethod>(
  [BootService, EventService, VersionService, HealthService].flatMap((s) => s.methods.map((m) => [`/${s.typeName}/${m.name}`, m] as const)),
);

/** The stand-in apiserver's version (VersionService/Get). */
export const STANDIN_VERSION = { version: "v0.5.0-standin", revision: "standin", gitSha1: "0000000", buildDate: "2026-01-01" };

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


/**
 * A Wait answer. Headers only with the first message (the Response is returned when
 * there is something to send); the stream stays open after the allocation (upstream
 * loops until the client goes away).
 */
function waitAnswer(o: ApiserverOptions, uuid: string, f: { streamError?: string; streamTruncate?: boolean }): Promise<Response> {
  const headers = { "content-type": "application/connect+json" };
  const allocation = o.machines.allocations.get(uuid);
  if (f.streamTruncate) {
    const first = envelope(0, allocation ? waitMessage(allocation) : {});
    return Promise.resolve(new Response(first.slice(0, first.byteLength - 3), { headers }));
  }
  if (f.streamError) return Promise.resolve(new Response(envelope(2, { error: { code: f.streamError, message: "stand-in fault" } }), { headers }));
  return new Promise((resolve) => {
    let ctl: ReadableStreamDefaultController<Uint8Array> | undefined;
    const queued: Uint8Array[] = [];
    let answered = false;
    let ticker: ReturnType<typeof setInterval> | undefined;
    let sent = 0;
    const answer = () => {
      if (answered) return;
      answered = true;
      resolve(
        new Response(
          new ReadableStream<Uint8Array>({
            start(c) {
              ctl = c;
              for (const q of queued.splice(0)) c.enqueue(q);
            },
            cancel: () => done(),
          }),
          { headers },
        ),
      );
    };
    const push = (b: Uint8Array) => {
      if (ctl) ctl.enqueue(b);
      else queued.push(b);
      answer();
    };
    const wait: OpenWait = {
      uuid,
      get sent() {
        return sent;
      },
      send: (v) => {
        sent += 1;
        push(envelope(0, v));
      },
      end: () => {
        done();
        push(envelope(2, {}));
        ctl?.close();
      },
      // The connection is reset mid-body (the client sees ECONNRESET, no end-of-stream). Errored without a reason:
      // with an Error, Bun.serve also prints it as an unhandled error in the stand-ins' process (the test run).
      cut: () => {
        done();
        if (ctl) {
          try {
            ctl.error();
          } catch {
            // the client went away already
          }
        } else {
          answered = true;
          resolve(new Response(new ReadableStream({ start: (c) => c.error() }), { headers }));
        }
      },
    };
    const done = () => {
      if (ticker) clearInterval(ticker);
      o.machines.open.delete(wait);
    };
    o.machines.open.add(wait);
    if (allocation) wait.send(waitMessage(allocation));
    // Test-only deviation (upstream sends none): empty messages at an interval.
    if (o.machines.keepaliveMs > 0) ticker = setInterval(() => wait.send({}), o.machines.keepaliveMs);
  });
}

export function apiserverHandler(o: ApiserverOptions) {
  return async (req: Request): Promise<Response> => {
    const url = new URL(req.url);
    const method = METHODS.get(url.pathname);
    // connect-go: an unknown procedure is a plain 404.
    if (!method || req.method !== "POST") return new Response("404 page not found\n", { status: 404 });
    const procedure = `${method.parent.typeName}/${method.name}`;
    const streaming = method.methodKind === "server_streaming";
    const raw = new Uint8Array(await req.arrayBuffer());
    const f = o.faults.take();
    if (f.slowMs) await Bun.sleep(f.slowMs);
    if (f.status === 401) return connectError("unauthenticated", "stand-in fault: token refused");
    if (f.status === 503) return connectError("unavailable", "stand-in fault: try again");
    if (f.status) return new Response("stand-in fault", { status: f.status });
    const ct = req.headers.get("content-type");
    if (ct !== (streaming ? "application/connect+json" : "application/json")) return connectError("invalid_argument", `unexpected content-type ${ct}`);
    let message;
    try {
      // protojson with DiscardUnknown: unknown fields and unknown enum value names are dropped. The
      // apiserver's handlers are connect-go's, whose JSON codec unmarshals with
      // protojson.UnmarshalOptions{DiscardUnknown: true} (connectrpc.com/connect codec.go
      // protoJSONCodec; not in ../shared/reference, see ../shared/FIELD-NOTES.md section 6).
      message = fromJson(method.input, JSON.parse(new TextDecoder().decode(streaming ? raw.slice(5) : raw)) as JsonValue, { ignoreUnknownFields: true });
    } catch (e) {
      return connectError("invalid_argument", `unmarshal into ${method.input.typeName}: ${(e as Error).message}`);
    }
    const requestJson = toJson(method.input, message);
    const auth = /^Bearer (\S+)$/.exec(req.headers.get("authorization") ?? "");
    const subject: Subject = auth?.[1] ? o.tokens.subject(auth[1]) : undefined;
    const requestUuid = "uuid" in message && typeof message.uuid === "string" ? message.uuid : undefined;
    const record = (refused?: string) => o.calls.push({ procedure, uuid: subject?.kind === "machine" ? subject.uuid : undefined, request: requestJson, ...(refused ? { refused } : {}) });
    const denied = authorize(method, subject, requestUuid);
    if (denied) {
      record(denied.code);
      return connectError(denied.code, denied.message);
    }
    if (method === VersionService.method.get) {
      record();
      return Response.json({ version: STANDIN_VERSION });
    }
    if (method === HealthService.method.get) {
      record();
      return Response.json({ health: { services: [] } });
    }
    if (method === EventService.method.send) {
      // machine.go:110 ToProvisioningEventType fails for a type it does not know (an
      // unknown name was dropped to UNSPECIFIED): that machine's events are not stored.
      const events = (message as EventServiceSendRequest).events;
      const failed = Object.entries(events).filter(([, e]) => e.event === MachineProvisioningEventType.UNSPECIFIED).map(([k]) => k);
      record();
      return Response.json(toJson(EventServiceSendResponseSchema, create(EventServiceSendResponseSchema, { events: BigInt(Object.keys(events).length - failed.length), failed })));
    }
    if (method === BootService.method.register) {
      const r = message as BootServiceRegisterRequest;
      const refusal = registerRefusal(r, o.machines.switchRule) ?? o.machines.connectSwitches(r);
      if (refusal) {
        record(refusal.code);
        return connectError(refusal.code, refusal.message);
      }
      record();
      o.machines.register(r.uuid, requestJson as Record<string, unknown>);
      return Response.json(toJson(BootServiceRegisterResponseSchema, create(BootServiceRegisterResponseSchema, { uuid: r.uuid, size: o.machines.size, partition: r.partition })));
    }
    if (method === BootService.method.wait) {
      // machine.go:1326-1329 Wait: the machine is looked up first; one that never registered is not_found.
      const refusal = waitRefusal(requestUuid ?? "", o.machines);
      if (refusal) {
        record(refusal.code);
        return connectError(refusal.code, refusal.message);
      }
      record();
      return waitAnswer(o, requestUuid ?? "", f);
    }
    if (method === BootService.method.installationSucceeded) {
      const r = message as BootServiceInstallationSucceededRequest;
      const refusal = installationRefusal(r, o.machines);
      if (refusal) {
        record(refusal.code);
        return connectError(refusal.code, refusal.message);
      }
      record();
      o.machines.installed.set(r.uuid, r.consolePassword);
      return Response.json(toJson(BootServiceInstallationSucceededResponseSchema, create(BootServiceInstallationSucceededResponseSchema, {})));
    }
    if (method === BootService.method.superUserPassword) {
      // metal-stack/metal-apiserver@3f09705a pkg/service/infra/boot/boot-service.go:74-81: the configured password, feature_disabled when there is none.
      record();
      const pw = o.machines.superUserPassword ?? "";
      return Response.json(toJson(BootServiceSuperUserPasswordResponseSchema, create(BootServiceSuperUserPasswordResponseSchema, { featureDisabled: pw === "", superUserPassword: pw })));
    }
    record("unimplemented");
    return connectError("unimplemented", `${procedure} is not implemented by the stand-in`);
  };
}
