/**
 * The apiserver stand-in on connect-es (@connectrpc/connect + connect-node: the Connect
 * protocol as connect-go speaks it), as strict as the real one: the services are connect-es
 * implementations over the generated descriptors (src/gen); requests are decoded as protojson
 * with unknown fields and unknown enum names dropped (connect-es' default, as connect-go's
 * protojson DiscardUnknown); an interceptor runs what the real server's interceptors do, in
 * their order (metal-stack/metal-apiserver@3f09705a pkg/service/services.go:140
 * allInfraInterceptors: authz, then validation): a token past its exp is unauthenticated; permissions by the method's role options and
 * the token's subject (rules.ts), then protovalidate with the upstream rules (validation.ts);
 * the handlers add the rules that live in Go code (rules.ts: Register's nil checks and the
 * two-switch rule, not_found for unknown machines). Wait (metal-apiserver
 * pkg/repository/machine.go:1322-1378) sends no headers before its first message, no
 * keepalives, and never ends by itself: the allocation at once when there is one, else when
 * POST /_standin/allocate (or --allocate-after) gives one. Faults (faults.ts) and
 * `keepaliveMs` are test-only deviations, off by default.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { create, fromJson, toJson, type DescMethod, type JsonValue, type Message } from "@bufbuild/protobuf";
import { Code, ConnectError, createConnectRouter, createContextKey, createContextValues, type Interceptor } from "@connectrpc/connect";
import { codeFromString, codeToString } from "@connectrpc/connect/protocol-connect";
import { universalRequestFromNodeRequest, universalResponseToNodeResponse } from "@connectrpc/connect-node";
import { HealthService } from "../../src/gen/metalstack/api/v2/health_pb.ts";
import { MachineProvisioningEventType } from "../../src/gen/metalstack/api/v2/machine_pb.ts";
import { VersionService } from "../../src/gen/metalstack/api/v2/version_pb.ts";
import { BootService, BootServiceWaitResponseSchema } from "../../src/gen/metalstack/infra/v2/boot_pb.ts";
import { EventService, EventServiceSendResponseSchema } from "../../src/gen/metalstack/infra/v2/event_pb.ts";
import { METAL_BOOT_SERVICE } from "./boot-event.ts";
import type { Fault, FaultBox } from "./faults.ts";
import { waitMessage, type MachineBook, type OpenWait } from "./machines.ts";
import { authorize, installationRefusal, registerRefusal, waitRefusal, type Refusal, type Subject } from "./rules.ts";
import type { TokenIssuer } from "./tokens.ts";
import type { RequestValidator } from "./validation.ts";

/** A call of a machine, a test or an anonymous client; metal-boot's own boot events are not recorded here. */
export interface ApiCall {
  readonly procedure: string;
  readonly uuid: string | undefined;
  /** The request as protojson after decoding (unknown fields and enum names dropped). */
  readonly request: unknown;
  /** The connect code it was refused with, undefined when answered. */
  readonly refused?: string;
}

/** The stand-in apiserver's version (VersionService/Get). */
export const STANDIN_VERSION = { version: "v0.5.0-standin", revision: "standin", gitSha1: "0000000", buildDate: "2026-01-01" };

export interface ApiserverOptions {
  readonly tokens: TokenIssuer;
  readonly faults: FaultBox;
  readonly calls: ApiCall[];
  readonly machines: MachineBook;
  readonly validator: RequestValidator;
}

/** One call as the handlers see it: its fault, the bookkeeping, and how to reset its connection. */
interface Call {
  readonly fault: Fault;
  /** Records the call once (answered, or refused with a connect code). */
  record(message: Message | undefined, refused?: string): void;
  /** Resets the connection (no end-of-stream): a proxy or a restarting apiserver. */
  cut(): void;
}
const CALL = createContextKey<Call | undefined>(undefined, { description: "stand-in call" });

const refused = (r: Refusal) => new ConnectError(r.message, codeFromString(r.code) ?? Code.Unknown);
const connectCode = (e: unknown) => codeToString(ConnectError.from(e).code);

/** A Connect envelope (flags, 4-byte length, data) of JSON: only for the truncation fault. */
function encodeFrame(flags: number, value: unknown): Uint8Array {
  const data = new TextEncoder().encode(JSON.stringify(value));
  const out = new Uint8Array(5 + data.byteLength);
  new DataView(out.buffer).setUint8(0, flags);
  new DataView(out.buffer).setUint32(1, data.byteLength);
  out.set(data, 5);
  return out;
}

/** A request's uuid field (machine-role methods compare it with the token's subject). */
const uuidOf = (m: Message): string | undefined => ("uuid" in m && typeof m.uuid === "string" ? m.uuid : undefined);

/**
 * What the real interceptors do before a handler runs: the fault's 401/503, authz by role and
 * subject, then protovalidate (metal-apiserver pkg/service/services.go:140); every refusal is
 * recorded with its code.
 */
function guard(o: ApiserverOptions): Interceptor {
  return (next) => async (req) => {
    const call = req.contextValues.get(CALL);
    const check = (message: Message) => {
      if (call?.fault.status === 401) throw new ConnectError("stand-in fault: token refused", Code.Unauthenticated);
      if (call?.fault.status === 503) throw new ConnectError("stand-in fault: try again", Code.Unavailable);
      const auth = /^Bearer (\S+)$/.exec(req.header.get("authorization") ?? "");
      if (auth?.[1] && o.tokens.expired(auth[1])) throw new ConnectError("token has expired", Code.Unauthenticated);
      const subject: Subject = auth?.[1] ? o.tokens.subject(auth[1]) : undefined;
      const denied = authorize(req.method, subject, uuidOf(message));
      if (denied) throw refused(denied);
      o.validator.check(req.method.input, message);
    };
    if (!req.stream) {
      try {
        check(req.message);
        const res = await next(req);
        call?.record(req.message);
        return res;
      } catch (e) {
        call?.record(req.message, connectCode(e));
        throw e;
      }
    }
    // Server streaming: the one request message is read, checked, and handed on; errors the
    // handler raises while streaming (Wait's not_found) are recorded too.
    const input: Message[] = [];
    for await (const m of req.message) input.push(m);
    try {
      for (const m of input) check(m);
    } catch (e) {
      call?.record(input[0], connectCode(e));
      throw e;
    }
    const res = await next({
      ...req,
      message: (async function* () {
        yield* input;
      })(),
    });
    if (!res.stream) return res;
    const output = res.message;
    return {
      ...res,
      message: (async function* () {
        try {
          yield* output;
        } catch (e) {
          call?.record(input[0], connectCode(e));
          throw e;
        }
      })(),
    };
  };
}

/** A queue of Wait messages, read by the stream's generator; "end" once the client has gone. */
class WaitQueue {
  readonly #items: (JsonValue | "end")[] = [];
  readonly #signal: AbortSignal;
  #wake: (() => void) | undefined;
  constructor(signal: AbortSignal) {
    this.#signal = signal;
    signal.addEventListener("abort", () => this.#wake?.(), { once: true });
  }
  push(v: JsonValue | "end"): void {
    this.#items.push(v);
    this.#wake?.();
  }
  async next(): Promise<JsonValue | "end"> {
    while (this.#items.length === 0) {
      if (this.#signal.aborted) return "end";
      await new Promise<void>((r) => (this.#wake = r));
      this.#wake = undefined;
    }
    return this.#items.shift() ?? "end";
  }
}

function routes(o: ApiserverOptions) {
  return createConnectRouter({ interceptors: [guard(o)], jsonOptions: { ignoreUnknownFields: true } })
    .service(VersionService, { get: () => ({ version: STANDIN_VERSION }) })
    .service(HealthService, { get: () => ({ health: { services: [] } }) })
    .service(EventService, {
      // metal-apiserver machine.go:110 ToProvisioningEventType fails for a type it does not know (an
      // unknown name was dropped to UNSPECIFIED): that machine's events are not stored. The others
      // go into the machine's container as SendEvent keeps it (liveliness.ts), stamped with the
      // server's time as upstream does (machine.go:115-119: time.Now(), not the event's).
      send(r) {
        const failed: string[] = [];
        for (const [uuid, e] of Object.entries(r.events)) {
          if (e.event === MachineProvisioningEventType.UNSPECIFIED) failed.push(uuid);
          else
            o.machines.sendEvent(uuid, { time: new Date().toISOString(), event: `MACHINE_PROVISIONING_EVENT_TYPE_${MachineProvisioningEventType[e.event]}`, message: e.message });
        }
        return create(EventServiceSendResponseSchema, { events: BigInt(Object.keys(r.events).length - failed.length), failed });
      },
    })
    .service(BootService, {
      register(r) {
        const refusal = registerRefusal(r, o.machines.switchRule) ?? o.machines.connectSwitches(r);
        if (refusal) throw refused(refusal);
        o.machines.register(r.uuid, toJson(BootService.method.register.input, r) as Record<string, unknown>);
        return { uuid: r.uuid, size: o.machines.size, partition: r.partition };
      },
      installationSucceeded(r) {
        const refusal = installationRefusal(r, o.machines);
        if (refusal) throw refused(refusal);
        o.machines.installed.set(r.uuid, r.consolePassword);
        return {};
      },
      // metal-stack/metal-apiserver@3f09705a pkg/service/infra/boot/boot-service.go:74-81: the configured password, feature_disabled when there is none.
      superUserPassword: () => {
        const pw = o.machines.superUserPassword ?? "";
        return { featureDisabled: pw === "", superUserPassword: pw };
      },
      async *wait(r, ctx) {
        const call = ctx.values.get(CALL);
        // machine.go:1326-1329 Wait: the machine is looked up first; one that never registered is not_found.
        const refusal = waitRefusal(r.uuid, o.machines);
        if (refusal) throw refused(refusal);
        call?.record(r);
        if (call?.fault.streamError) throw new ConnectError("stand-in fault", codeFromString(call.fault.streamError) ?? Code.Unknown);
        yield* waitStream(o, r.uuid, ctx.signal, call);
      },
    });
}

/** Wait's messages: the allocation when there is one, then whatever `allocate` sends; no end by itself. */
async function* waitStream(o: ApiserverOptions, uuid: string, signal: AbortSignal, call: Call | undefined) {
  const queue = new WaitQueue(signal);
  let sent = 0;
  let ticker: ReturnType<typeof setInterval> | undefined;
  const done = () => {
    if (ticker) clearInterval(ticker);
    o.machines.open.delete(wait);
  };
  const wait: OpenWait = {
    uuid,
    get sent() {
      return sent;
    },
    send: (v) => {
      sent += 1;
      queue.push(v as JsonValue);
    },
    end: () => {
      done();
      queue.push("end");
    },
    cut: () => {
      done();
      call?.cut();
    },
  };
  o.machines.opened(wait);
  const allocation = o.machines.allocations.get(uuid);
  if (allocation) wait.send(waitMessage(allocation));
  // Test-only deviation (upstream sends none): empty messages at an interval.
  if (o.machines.keepaliveMs > 0) ticker = setInterval(() => wait.send({}), o.machines.keepaliveMs);
  try {
    for (;;) {
      const v = await queue.next();
      if (v === "end") return;
      yield fromJson(BootServiceWaitResponseSchema, v, { ignoreUnknownFields: true });
    }
  } finally {
    done();
  }
}

/** Whether a request carries metal-boot's own infra token (its boot events). */
function fromMetalBoot(o: ApiserverOptions, authorization: string | undefined): boolean {
  const auth = /^Bearer (\S+)$/.exec(authorization ?? "");
  const subject = auth?.[1] ? o.tokens.subject(auth[1]) : undefined;
  return subject?.kind === "infra" && subject.service === METAL_BOOT_SERVICE;
}

/**
 * The apiserver as a node:http(s) request listener (connect-node's universal request and
 * response over the already-read body, so the stand-ins' request log has it). An unknown
 * procedure is connect-go's plain 404; faults other than 401/503 and Wait's truncation are
 * answered here, below the protocol.
 */
export function apiserverListener(o: ApiserverOptions) {
  const router = routes(o);
  const handlers = new Map(router.handlers.map((h) => [h.requestPath, h] as const));
  return async (req: IncomingMessage, res: ServerResponse, body: Uint8Array): Promise<void> => {
    const path = (req.url ?? "").split("?")[0] ?? "";
    const h = handlers.get(path);
    if (!h || req.method !== "POST") {
      res.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("404 page not found\n");
      return;
    }
    const method: DescMethod = h.method;
    // Test faults are for the machines' calls: metal-boot's own boot events (boot-event.ts) pass untouched.
    const fault = fromMetalBoot(o, req.headers.authorization) ? {} : o.faults.take();
    if (fault.slowMs) await Bun.sleep(fault.slowMs);
    if (fault.status && fault.status !== 401 && fault.status !== 503) {
      res.writeHead(fault.status, { "content-type": "text/plain" }).end("stand-in fault");
      return;
    }
    if (fault.streamTruncate && method === BootService.method.wait) {
      // Test-only: the first message cut 3 bytes short of its end, then the body ends.
      const allocation = o.machines.allocations.get(JSON.parse(new TextDecoder().decode(body.slice(5)) || "{}").uuid ?? "");
      const first = encodeFrame(0, allocation ? waitMessage(allocation) : {});
      res.writeHead(200, { "content-type": "application/connect+json" }).end(first.slice(0, first.byteLength - 3));
      return;
    }
    let recorded = false;
    const call: Call = {
      fault,
      record(message, refusedWith) {
        if (recorded) return;
        recorded = true;
        // metal-boot's boot events (boot-event.ts) are not the machines' calls: they show in the machines' event containers.
        if (fromMetalBoot(o, req.headers.authorization)) return;
        const auth = /^Bearer (\S+)$/.exec(req.headers.authorization ?? "");
        const subject = auth?.[1] ? o.tokens.subject(auth[1]) : undefined;
        o.calls.push({
          procedure: `${method.parent.typeName}/${method.name}`,
          uuid: subject?.kind === "machine" ? subject.uuid : undefined,
          request: message ? toJson(method.input, message) : undefined,
          ...(refusedWith ? { refused: refusedWith } : {}),
        });
      },
      cut: () => req.socket.destroy(),
    };
    const uReq = {
      ...universalRequestFromNodeRequest(req, res, undefined, createContextValues().set(CALL, call)),
      body: (async function* () {
        yield body;
      })(),
    };
    try {
      await universalResponseToNodeResponse(await h(uReq), res);
    } catch {
      // the client went away, or the connection was cut on purpose
      res.destroy();
    }
  };
}
