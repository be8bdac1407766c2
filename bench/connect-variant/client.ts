/**
 * The measured alternative (bench/connect-variant.ts builds the agent with this file as
 * src/clients/api/connect-client.ts): the same ConnectClient API, but calls go through connect-es
 * (@connectrpc/connect's Connect-protocol transport, `createTransport` from
 * @connectrpc/connect/protocol-connect) over the agent's own HttpClient as the transport's
 * `httpClient` (so connect timeouts, caps, retries and TLS stay the agent's). Requests and
 * answers are the generated descriptors' messages; errors are mapped as today's client does.
 */
import { fromJson, toJson, type DescMethod, type JsonValue } from "@bufbuild/protobuf";
import { ConnectError, type Transport } from "@connectrpc/connect";
import { codeToString, createTransport } from "@connectrpc/connect/protocol-connect";
import type { UniversalClientRequest, UniversalClientResponse } from "@connectrpc/connect/protocol";
import { AgentError } from "../../errors.ts";
import { HealthService } from "../../gen/metalstack/api/v2/health_pb.ts";
import { VersionService } from "../../gen/metalstack/api/v2/version_pb.ts";
import { BootService } from "../../gen/metalstack/infra/v2/boot_pb.ts";
import { EventService } from "../../gen/metalstack/infra/v2/event_pb.ts";
import type { HttpClient } from "../http/client.ts";
import { connectError, type ConnectCode } from "./connect-error.ts";

// The call types are today's (bench/connect-variant.ts copies today's client beside this file).
import type { CallOptions, Decode, UnaryResult } from "./client-today.ts";
export type { CallOptions, Decode, UnaryResult };

const METHODS = new Map<string, DescMethod>(
  [BootService, EventService, VersionService, HealthService].flatMap((s) => s.methods.map((m) => [`${s.typeName}/${m.name}`, m] as const)),
);

async function bytesOf(body: AsyncIterable<Uint8Array> | undefined): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  for await (const c of body ?? []) parts.push(c);
  return new Uint8Array(Buffer.concat(parts));
}

export class ConnectClient {
  readonly #http: HttpClient;
  readonly #base: URL;
  readonly #token: string | undefined;
  #last: { latencyMs: number; address: string | undefined; attempts: number } = { latencyMs: 0, address: undefined, attempts: 1 };
  readonly #opts: CallOptions[] = [];
  readonly #transport: Transport;

  constructor(http: HttpClient, base: URL, token: string | undefined) {
    this.#http = http;
    this.#base = new URL(base.href.endsWith("/") ? base.href : `${base.href}/`);
    this.#token = token;
    this.#transport = createTransport({
      baseUrl: this.#base.href.replace(/\/$/, ""),
      httpClient: (req) => this.#send(req),
      useBinaryFormat: false,
      interceptors: [],
      acceptCompression: [],
      compressMinBytes: 0,
      readMaxBytes: 4 * 1024 * 1024,
      writeMaxBytes: 0xffffffff,
      sendCompression: null,
      useHttpGet: false,
    });
  }

  procedureUrl(procedure: string): URL {
    return new URL(procedure, this.#base);
  }

  async #send(req: UniversalClientRequest): Promise<UniversalClientResponse> {
    const opts = this.#opts.at(-1) ?? {};
    const url = new URL(req.url);
    const what = `apiserver ${url.pathname.slice(1)}`;
    const headers: Record<string, string> = {};
    req.header.forEach((v, k) => void (headers[k] = v));
    if (this.#token !== undefined) headers.authorization = `Bearer ${this.#token}`;
    const body = await bytesOf(req.body);
    if (headers["content-type"] === "application/connect+json") {
      const s = await this.#http.stream({
        method: "POST",
        url,
        what,
        headers,
        body,
        bodyTimeoutMs: 0,
        ...(opts.signal ? { signal: opts.signal } : {}),
        ...(opts.retry === false ? { retry: false as const } : {}),
        ...(opts.headersTimeoutMs !== undefined ? { headersTimeoutMs: opts.headersTimeoutMs } : {}),
      });
      this.#last = { latencyMs: s.latencyMs, address: s.address, attempts: 1 };
      return { status: s.status, header: new Headers(s.headers), body: s.body, trailer: new Headers() };
    }
    const r = await this.#http.request({ method: "POST", url, what, headers, body, ...(opts.timeoutMs !== undefined ? { headersTimeoutMs: opts.timeoutMs } : {}) });
    this.#last = { latencyMs: r.latencyMs, address: r.address, attempts: r.attempts };
    return {
      status: r.status,
      header: new Headers(r.headers),
      body: (async function* () {
        yield r.body;
      })(),
      trailer: new Headers(),
    };
  }

  #method(procedure: string): DescMethod {
    const m = METHODS.get(procedure);
    if (!m) throw new AgentError("internal", `no method ${procedure}`, {});
    return m;
  }

  #mapped(what: string, e: unknown): unknown {
    if (e instanceof AgentError) return e;
    if (e instanceof ConnectError) return connectError(what, codeToString(e.code) as ConnectCode, e.rawMessage);
    return e;
  }

  async unary<T>(procedure: string, request: unknown, decode: Decode<T>, opts: CallOptions = {}): Promise<UnaryResult<T>> {
    const m = this.#method(procedure);
    const what = `apiserver ${procedure}`;
    this.#opts.push(opts);
    try {
      const r = await this.#transport.unary(m as never, opts.signal, opts.timeoutMs, undefined, fromJson(m.input, request as JsonValue) as never, undefined);
      return { message: decode(toJson(m.output, r.message as never), `${what} answer`), ...this.#last };
    } catch (e) {
      throw this.#mapped(what, e);
    } finally {
      this.#opts.pop();
    }
  }

  async *serverStream<T>(procedure: string, request: unknown, decode: Decode<T>, opts: CallOptions = {}): AsyncGenerator<T, void, undefined> {
    const m = this.#method(procedure);
    const what = `apiserver ${procedure} (stream)`;
    this.#opts.push(opts);
    try {
      const input = fromJson(m.input, request as JsonValue);
      const r = await this.#transport.stream(
        m as never,
        opts.signal,
        opts.timeoutMs,
        undefined,
        (async function* () {
          yield input;
        })() as never,
        undefined,
      );
      for await (const msg of r.message) yield decode(toJson(m.output, msg as never), `${what} message`);
    } catch (e) {
      throw this.#mapped(what, e);
    } finally {
      this.#opts.pop();
    }
  }
}
