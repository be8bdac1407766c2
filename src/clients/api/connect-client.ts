/**
 * A small Connect-protocol client (JSON codec) over the agent's HttpClient: unary
 * calls and server streaming. Calls carry the machine token as a Bearer credential
 * when the client has one (public methods such as VersionService/Get need none);
 * answers go through the caller's `decode` (rpc.ts: protojson of the method's output).
 * An `unauthenticated` answer (a stream's: before its first message) is retried once
 * when the bearer renews the token (bearer.ts: only a token that had worked, i.e. expired).
 */
import { AgentError } from "../../platform/errors.ts";
import { BadAnswerError } from "../http/bad-answer.ts";
import type { HttpClient, HttpRequest } from "../http/http-client.ts";
import { fixedBearer, type Bearer } from "./bearer.ts";
import { ConnectError, connectError, parseConnectError } from "./connect-error.ts";
import { EnvelopeError, EnvelopeReader, FLAG_END_STREAM, encodeEnvelope } from "./envelope.ts";

export interface UnaryResult<T> {
  readonly message: T;
  readonly latencyMs: number;
  readonly address: string | undefined;
  readonly attempts: number;
}

/** Turns a parsed JSON answer into the method's message; throws a BadAnswerError naming `what`. */
export type Decode<T> = (raw: unknown, what: string) => T;

export interface CallOptions {
  /** Sent as Connect-Timeout-Ms and used as the header timeout. */
  readonly timeoutMs?: number;
  /** Aborts the call (streams: also while waiting for the next message). */
  readonly signal?: AbortSignal;
  /** Bound for the answer's headers without sending Connect-Timeout-Ms (0 = none); `timeoutMs` wins. */
  readonly headersTimeoutMs?: number;
  /** false: open the stream once, no transport retries (the caller reconnects itself). */
  readonly retry?: false;
}

export class ConnectClient {
  readonly #http: HttpClient;
  readonly #base: URL;
  readonly #bearer: Bearer | undefined;

  constructor(http: HttpClient, base: URL, token: string | Bearer | undefined) {
    this.#http = http;
    this.#base = new URL(base.href.endsWith("/") ? base.href : `${base.href}/`);
    this.#bearer = typeof token === "string" ? fixedBearer(token) : token;
  }

  /** <base>/<package.Service>/<Method> */
  procedureUrl(procedure: string): URL {
    return new URL(procedure, this.#base);
  }

  #headers(contentType: string, opts: CallOptions, token: string | undefined): Record<string, string> {
    return {
      "content-type": contentType,
      "connect-protocol-version": "1",
      ...(token !== undefined ? { authorization: `Bearer ${token}` } : {}),
      ...(opts.timeoutMs !== undefined ? { "connect-timeout-ms": String(opts.timeoutMs) } : {}),
    };
  }

  /** The call with the bearer's token; after `unauthenticated` once more with a renewed one. */
  async unary<T>(procedure: string, request: unknown, decode: Decode<T>, opts: CallOptions = {}): Promise<UnaryResult<T>> {
    const used = this.#bearer?.value();
    try {
      const r = await this.#unaryOnce(procedure, request, decode, opts, used);
      if (used !== undefined) this.#bearer?.worked(used);
      return r;
    } catch (e) {
      if (!(await this.#renewed(e, used))) throw e;
    }
    const again = this.#bearer?.value();
    const r = await this.#unaryOnce(procedure, request, decode, opts, again);
    if (again !== undefined) this.#bearer?.worked(again);
    return r;
  }

  /** Whether `e` is the apiserver refusing the token `used` and the bearer has a new one. */
  async #renewed(e: unknown, used: string | undefined): Promise<boolean> {
    if (used === undefined || !this.#bearer || !(e instanceof ConnectError) || e.connectCode !== "unauthenticated") return false;
    return this.#bearer.renew(used);
  }

  async #unaryOnce<T>(procedure: string, request: unknown, decode: Decode<T>, opts: CallOptions, token: string | undefined): Promise<UnaryResult<T>> {
    const what = `apiserver ${procedure}`;
    const res = await this.#http.request({
      method: "POST",
      url: this.procedureUrl(procedure),
      what,
      headers: this.#headers("application/json", opts, token),
      body: JSON.stringify(request),
      ...(opts.timeoutMs !== undefined ? { headersTimeoutMs: opts.timeoutMs } : {}),
    });
    if (res.status !== 200) {
      const { code, message } = parseConnectError(res.status, res.body);
      throw connectError(what, code, message, { status: res.status, attempts: res.attempts });
    }
    const message = decode(decodeJson(res.body, what), `${what} answer`);
    return { message, latencyMs: res.latencyMs, address: res.address, attempts: res.attempts };
  }

  /**
   * Server streaming: yields each validated message; the end-of-stream error (if any) is
   * thrown. Refused as `unauthenticated` before its first message (the apiserver checks the
   * token when the stream opens): opened once more with a renewed token.
   */
  async *serverStream<T>(procedure: string, request: unknown, decode: Decode<T>, opts: CallOptions = {}): AsyncGenerator<T, void, undefined> {
    const used = this.#bearer?.value();
    let answered = false;
    try {
      for await (const m of this.#streamOnce(procedure, request, decode, opts, used)) {
        answered = true;
        if (used !== undefined) this.#bearer?.worked(used);
        yield m;
      }
      return;
    } catch (e) {
      if (answered || !(await this.#renewed(e, used))) throw e;
    }
    const again = this.#bearer?.value();
    for await (const m of this.#streamOnce(procedure, request, decode, opts, again)) {
      if (again !== undefined) this.#bearer?.worked(again);
      yield m;
    }
  }

  async *#streamOnce<T>(procedure: string, request: unknown, decode: Decode<T>, opts: CallOptions, token: string | undefined): AsyncGenerator<T, void, undefined> {
    const what = `apiserver ${procedure} (stream)`;
    const req: HttpRequest = {
      method: "POST",
      url: this.procedureUrl(procedure),
      what,
      headers: this.#headers("application/connect+json", opts, token),
      body: encodeEnvelope(0, new TextEncoder().encode(JSON.stringify(request))),
      // A Wait stream may be idle for hours: no body timeout.
      bodyTimeoutMs: 0,
      ...(opts.signal !== undefined ? { signal: opts.signal } : {}),
      ...(opts.retry === false ? { retry: false as const } : {}),
      ...(opts.headersTimeoutMs !== undefined ? { headersTimeoutMs: opts.headersTimeoutMs } : {}),
      ...(opts.timeoutMs !== undefined ? { headersTimeoutMs: opts.timeoutMs } : {}),
    };
    const res = await this.#http.stream(req);
    if (res.status !== 200) {
      // Bounded: an error body is cut at 64 KiB and read within 10 s (docs/bounds.md).
      const { code, message } = parseConnectError(res.status, await res.errorBody());
      throw connectError(what, code, message, { status: res.status });
    }
    const reader = new EnvelopeReader();
    try {
      for await (const chunk of res.body) {
        for (const env of reader.push(chunk)) {
          const raw = decodeJson(env.data, what, "an envelope does not hold");
          if (env.flags & FLAG_END_STREAM) {
            const end = raw as { error?: unknown } | null;
            if (end && typeof end === "object" && end.error !== undefined) {
              const { code, message } = parseConnectError(200, end.error);
              throw connectError(what, code, message);
            }
          } else {
            yield decode(raw, `${what} message`);
          }
        }
      }
      reader.finish();
    } catch (e) {
      if (e instanceof AgentError) throw e;
      if (e instanceof EnvelopeError) throw new BadAnswerError(`${what}: ${e.message}`, e.violation);
      throw this.#http.bodyError(e, req);
    }
  }
}

function decodeJson(data: Uint8Array, what: string, holder = "the answer is not"): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(data));
  } catch {
    throw new BadAnswerError(`${what}: ${holder} valid JSON (${data.byteLength} bytes)`, true);
  }
}
