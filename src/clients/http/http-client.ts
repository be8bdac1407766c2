/**
 * The agent's one HTTP client: a single undici Agent (connection pool) for every
 * server the agent talks to. IPv6 literals and host names (resolved by `resolver`, the
 * agent's own AAAA client to the RAs' DNS servers, network/dns/resolver.ts; without
 * one, by the runtime through /etc/resolv.conf; see docs/boot-chain.md "Names"),
 * TLS verified against the CA bundle plus CAs added at run time (the one metal-boot
 * hands out), plain http only when allowed explicitly.
 *
 * Bounds (docs/bounds.md): connect 5 s, headers 15 s, no 30 s without a byte of body,
 * and for answers read whole (`request`) a deadline per attempt over headers and the
 * whole body (60 s) and a size cap (4 MiB; error bodies are cut at 64 KiB). Streams
 * (`stream`) have the connect/headers bounds and an idle bound; their error bodies
 * are read with `errorBody()` under the same cut and deadline.
 *
 * undici is imported as "undici/index.js": a bare "undici" resolves to Bun's built-in
 * stand-in, which ignores `dispatcher` (and so the CA, timeouts and lookup).
 *
 * Uplinks (docs/network.md "Uplinks"): with `uplinks` given, every new connection is
 * bound to an uplink's address (its own routing table takes it out of its own NIC);
 * uplinks are tried Happy-Eyeballs style (uplink-race.ts: the next one starts after
 * CONNECT_ATTEMPT_DELAY_MS or at the first one's failure), the one that connects stays
 * preferred until it fails, and each move to another is one `http.uplink` line naming
 * both NICs and why (uplink-connect.ts). The clients `trusting` derives share it.
 *
 * One bulk path goes around undici: `streamNative` (the OS image, src/install/image.ts)
 * uses Bun's native fetch, whose body arrives as native chunks with no JavaScript HTTP
 * parser in the byte path (docs/install.md "Throughput"). Same rules: the same trusted
 * CAs and only those (`tls.ca`, verification on), https only unless plain http is
 * allowed, no redirects (a 3xx is the answer), no decompression, the headers bound.
 */
import { isIP } from "node:net";
import { Agent, buildConnector, type Dispatcher } from "undici/index.js";
import { AgentError } from "../../platform/errors.ts";
import { readBoundedTextSync } from "../../platform/fs/read-bounded.ts";
import { logEvent, type Logger } from "../../platform/log/logger.ts";
import { redactUrl } from "../../platform/log/redact.ts";
import { BadAnswerError } from "./bad-answer.ts";
import { isRetryableFailure, statusRetry, transportError } from "./classify.ts";
import { DEFAULT_RETRY, realRetryEnv, withRetry, type RetryEnv, type RetryPolicy } from "./retry.ts";
import { UplinkConnector } from "./uplink-connect.ts";
import type { UplinkSource } from "./uplink-order.ts";

/** A CA trusted beyond the bundle file: its PEM and where it came from, in words (TLS error messages name it). */
export interface TrustedCa {
  readonly pem: string;
  readonly name: string;
}

export interface HttpOptions {
  /** PEM bundle file (Config.caBundle, METAL_CA). */
  readonly caBundle: string;
  /** CAs trusted in addition to the bundle, from the first connection on. */
  readonly cas?: readonly TrustedCa[];
  readonly allowHttp: boolean;
  readonly log: Logger;
  readonly connectTimeoutMs?: number;
  readonly headersTimeoutMs?: number;
  readonly bodyTimeoutMs?: number;
  readonly retry?: RetryPolicy;
  readonly retryEnv?: RetryEnv;
  /** Resolves host names to IPv6 addresses (its DnsError is retried within the window, then is the failure); TLS still checks the certificate against the name. */
  readonly resolver?: { aaaa(host: string): Promise<readonly string[]> };
  /** The uplinks to bind connections to (none, or an empty list: connections are not bound). */
  readonly uplinks?: UplinkSource;
  /** Happy Eyeballs' connection attempt delay between uplinks (default CONNECT_ATTEMPT_DELAY_MS). */
  readonly connectAttemptDelayMs?: number;
  /** Called after each connection raced over uplinks (status.json). */
  readonly onUplinkOutcome?: () => void;
  /** The bound connections, shared with the clients `trusting` derives (built by the client itself). */
  readonly uplinkConnector?: UplinkConnector;
}

export interface HttpRequest {
  readonly method: "GET" | "HEAD" | "POST";
  readonly url: URL;
  /** What this request is for, in words ("metal-boot config"): starts every error message and log line. */
  readonly what: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string | Uint8Array;
  /** Largest body accepted (default 4 MiB); a larger 2xx answer is bad_answer naming the cap. Non-2xx bodies are cut at 64 KiB instead. */
  readonly maxBytes?: number;
  /** Deadline for one attempt of `request`: headers and the whole body (default 60 s). */
  readonly deadlineMs?: number;
  /** How many HTTP 500 answers are retried (default: 3 for GET/HEAD, 0 for POST); 502/503/504 are retried within the retry window. */
  readonly serverErrorRetries?: number;
  readonly headersTimeoutMs?: number;
  readonly bodyTimeoutMs?: number;
  /** false: one attempt only. */
  readonly retry?: RetryPolicy | false;
  /** Aborts the request, also while its body streams (a bounded wait on an idle stream). */
  readonly signal?: AbortSignal;
}

export interface HttpResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Uint8Array;
  /** From the start of the first attempt to the end of the body. */
  readonly latencyMs: number;
  readonly attempts: number;
  /** The server address the connection went to (undefined when reused before we saw it). */
  readonly address: string | undefined;
}

export interface HttpStream {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: AsyncIterable<Uint8Array>;
  /** The body of a non-2xx answer: at most ERROR_BODY_CAP bytes, within ERROR_BODY_DEADLINE_MS; the rest is discarded. */
  errorBody(): Promise<Uint8Array>;
  readonly address: string | undefined;
  /** Time to the answer's headers. */
  readonly latencyMs: number;
}

export const DEFAULT_MAX_BYTES = 4 << 20;
/** Error bodies are kept only this far: a connect error is a few hundred bytes. */
export const ERROR_BODY_CAP = 64 << 10;
export const ERROR_BODY_DEADLINE_MS = 10_000;
export const DEFAULT_DEADLINE_MS = 60_000;
export const CONNECT_TIMEOUT_MS = 5_000;
export const HEADERS_TIMEOUT_MS = 15_000;
/** Longest silence inside a body (undici's bodyTimeout). */
export const BODY_IDLE_MS = 30_000;
/** HTTP 500 answers retried for idempotent requests (GET, HEAD). */
export const SERVER_ERROR_RETRIES = 3;

/** The per-attempt deadline fired (what undici rejects with, via the abort reason). */
export class DeadlineError extends Error {
  override readonly name = "DeadlineError";
  readonly code = "DEADLINE";
  constructor(readonly ms: number) {
    super(`no complete answer within the deadline of ${ms} ms`);
  }
}

/** The request's own signal plus a deadline; `done()` clears the timer. */
function withDeadline(ms: number, signal: AbortSignal | undefined): { signal: AbortSignal; done: () => void } {
  const ac = new AbortController();
  const t = setTimeout(() => ac.abort(new DeadlineError(ms)), ms);
  return { signal: signal ? AbortSignal.any([signal, ac.signal]) : ac.signal, done: () => clearTimeout(t) };
}

/** Marks an error met after the headers arrived (the body phase): reported as such and not retried (the server did answer). */
class BodyPhase extends Error {
  constructor(readonly inner: unknown) {
    super("body", { cause: inner });
  }
}

interface Destroyable {
  destroy?(err?: Error): unknown;
}

/** Reads a body up to `max` bytes. `cut`: keep the first `max` bytes and drop the rest; otherwise more is an error. */
export async function readCapped(body: AsyncIterable<Uint8Array> & Destroyable, max: number, cut: boolean, tooLarge: () => Error): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let n = 0;
  for await (const c of body) {
    if (n + c.byteLength > max) {
      body.destroy?.();
      if (!cut) throw tooLarge();
      chunks.push(c.subarray(0, max - n));
      n = max;
      break;
    }
    n += c.byteLength;
    chunks.push(c);
  }
  return Buffer.concat(chunks, n);
}

/** host:port with IPv6 brackets removed (URL.hostname keeps them, undici's connector does not). */
const originKey = (host: string, port: string) => `${host.replace(/^\[(.*)\]$/, "$1").toLowerCase()}|${port}`;

function flatHeaders(h: Dispatcher.ResponseData["headers"]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(", ") : v;
  return out;
}

export class HttpClient {
  readonly #opts: HttpOptions;
  /** The CAs trusted beyond the bundle (opts.cas): fixed for the client's life; `trusting` derives a new client. */
  readonly #extraCas: readonly TrustedCa[];
  #connector: buildConnector.connector | undefined;
  #plain: buildConnector.connector | undefined;
  readonly #addresses = new Map<string, string>();
  readonly #agent: Agent;
  /** The clients `trusting` derived: closed with this one. */
  readonly #derived: HttpClient[] = [];
  /** Every connection goes through here: bound to an uplink when there are uplinks (uplink-connect.ts). */
  readonly uplinks: UplinkConnector;

  constructor(opts: HttpOptions) {
    this.uplinks =
      opts.uplinkConnector ??
      new UplinkConnector({
        log: opts.log,
        ...(opts.uplinks ? { uplinks: opts.uplinks } : {}),
        ...(opts.connectAttemptDelayMs !== undefined ? { delayMs: opts.connectAttemptDelayMs } : {}),
        ...(opts.onUplinkOutcome ? { onOutcome: opts.onUplinkOutcome } : {}),
      });
    this.#opts = { ...opts, uplinkConnector: this.uplinks };
    this.#extraCas = opts.cas ?? [];
    this.#agent = new Agent({
      connect: (o, cb) => this.#connect(o, cb),
      headersTimeout: opts.headersTimeoutMs ?? HEADERS_TIMEOUT_MS,
      bodyTimeout: opts.bodyTimeoutMs ?? BODY_IDLE_MS,
      keepAliveTimeout: 10_000,
    });
  }

  /**
   * A client that trusts `cas` too (this one stays as it is): same options, its own
   * connection pool, closed when this one is closed. No CAs: this client itself.
   */
  trusting(cas: readonly TrustedCa[]): HttpClient {
    if (cas.length === 0) return this;
    const c = new HttpClient({ ...this.#opts, cas: [...this.#extraCas, ...cas] });
    this.#derived.push(c);
    return c;
  }

  /** Which CAs are trusted, in words (for TLS error messages). */
  get trust(): string {
    return [`${this.#opts.caBundle} (METAL_CA)`, ...this.#extraCas.map((c) => c.name)].join(" + ");
  }

  /** The trusted CAs (PEM): the bundle file, then the CAs added at run time. */
  #caPems(): string[] {
    let bundle: string;
    try {
      bundle = readBoundedTextSync(this.#opts.caBundle, "caBundle");
    } catch (e) {
      throw new AgentError("tls", `cannot read the CA bundle ${this.#opts.caBundle} (METAL_CA): ${(e as Error).message}`, { path: this.#opts.caBundle });
    }
    return [bundle, ...this.#extraCas.map((c) => c.pem)];
  }

  #buildConnector(): buildConnector.connector {
    if (this.#connector) return this.#connector;
    this.#connector = buildConnector({ ca: this.#caPems(), timeout: this.#opts.connectTimeoutMs ?? CONNECT_TIMEOUT_MS, rejectUnauthorized: true });
    return this.#connector;
  }

  #connect(o: buildConnector.Options, cb: buildConnector.Callback): void {
    let base: buildConnector.connector;
    try {
      // Plain http (allowed explicitly) needs no CA bundle.
      base = o.protocol === "http:" ? (this.#plain ??= buildConnector({ timeout: this.#opts.connectTimeoutMs ?? CONNECT_TIMEOUT_MS })) : this.#buildConnector();
    } catch (e) {
      cb(e as Error, null);
      return;
    }
    const resolver = this.#opts.resolver;
    const bare = o.hostname.replace(/^\[(.*)\]$/, "$1");
    if (resolver && isIP(bare) === 0) {
      // Connect to the address, verify TLS against the name (undici takes the SNI/servername from o.host).
      resolver.aaaa(bare).then(
        (addrs) => this.#connectTo(base, { ...o, hostname: addrs[0] as string, servername: bare }, o, cb),
        (e: unknown) => cb(e as Error, null),
      );
      return;
    }
    this.#connectTo(base, o, o, cb);
  }

  /** Connects to `to` (the address), through the uplinks (bound and raced, uplink-connect.ts); the address noted under `o`'s name. */
  #connectTo(base: buildConnector.connector, to: buildConnector.Options, o: buildConnector.Options, cb: buildConnector.Callback): void {
    this.uplinks.connect(base, to, (err, socket) => {
      this.#noteAddress(o, socket);
      if (err) cb(err, null);
      else cb(null, socket!);
    });
  }

  /**
   * A connection broke or could not be made (a connect-level failure, classify.ts): the
   * other open connections through the preferred uplink share its path and are not
   * trusted either, so the next attempt makes a new connection (raced over the uplinks)
   * instead of taking a pooled one into a path that may be dead.
   */
  #afterBreak(e: unknown): void {
    if (isRetryableFailure(e)) void this.uplinks.closePreferred();
  }

  /**
   * A streamed body broke off on the caller's side (the image's stall guard aborted it, or
   * reading it failed): as after a connect-level failure (#afterBreak), the connections
   * through the preferred uplink are not trusted, so the resume makes a new connection,
   * raced over the uplinks. Else it may take a pooled one (a checksum sidecar's) into a
   * leaf that died silently, which the race then closes under it: a second break.
   * Resolves once they are closed (a request sent before would still be handed to one).
   */
  async bodyBroke(): Promise<void> {
    await this.uplinks.closePreferred();
  }

  #noteAddress(o: buildConnector.Options, socket: { remoteAddress?: string | undefined } | null | undefined): void {
    if (socket?.remoteAddress) this.#addresses.set(originKey(o.hostname, String(o.port || (o.protocol === "https:" ? 443 : 80))), socket.remoteAddress);
  }

  #address(url: URL): string | undefined {
    return this.#addresses.get(originKey(url.hostname, url.port || (url.protocol === "https:" ? "443" : "80")));
  }

  #checkScheme(req: HttpRequest): void {
    const p = req.url.protocol;
    if (p === "https:") return;
    if (p === "http:" && this.#opts.allowHttp) return;
    const why = p === "http:" ? "plain http is refused unless METAL_ALLOW_HTTP=1 is on the kernel cmdline" : "only https:// (and http:// with METAL_ALLOW_HTTP=1) is supported";
    throw new AgentError("usage", `${req.what}: ${redactUrl(req.url)}: ${why}`, { url: redactUrl(req.url) });
  }

  #undiciOptions(req: HttpRequest, signal?: AbortSignal): Dispatcher.RequestOptions {
    return {
      origin: req.url.origin,
      path: req.url.pathname + req.url.search,
      method: req.method,
      headers: { "user-agent": "metal-hammer", ...req.headers },
      ...(req.body !== undefined ? { body: req.body } : {}),
      ...(req.headersTimeoutMs !== undefined ? { headersTimeout: req.headersTimeoutMs } : {}),
      ...(req.bodyTimeoutMs !== undefined ? { bodyTimeout: req.bodyTimeoutMs } : {}),
      ...((signal ?? req.signal) !== undefined ? { signal: signal ?? req.signal } : {}),
    };
  }

  /** The whole body of an answer: 2xx up to maxBytes (more is bad_answer), others cut at ERROR_BODY_CAP. */
  async #readBody(body: AsyncIterable<Uint8Array> & Destroyable, status: number, req: HttpRequest): Promise<Uint8Array> {
    const ok = status >= 200 && status < 300;
    const max = ok ? (req.maxBytes ?? DEFAULT_MAX_BYTES) : Math.min(req.maxBytes ?? ERROR_BODY_CAP, ERROR_BODY_CAP);
    try {
      return await readCapped(
        body,
        max,
        !ok,
        () =>
          new BadAnswerError(`${req.what}: answer larger than the cap of ${max} bytes from ${redactUrl(req.url)} (see docs/bounds.md)`, true, {
            url: redactUrl(req.url),
            cap: max,
          }),
      );
    } catch (e) {
      if (e instanceof AgentError) throw e;
      throw new BodyPhase(e);
    }
  }

  #retryLogger(req: HttpRequest) {
    return (info: { attempt: number; attempts: number; delayMs: number; error: unknown }) => {
      const e = info.error;
      const why = e instanceof RetryableStatus ? `status ${e.status}` : e instanceof Error ? ((e as { code?: string }).code ?? e.message) : String(e);
      logEvent(
        this.#opts.log,
        "http.retry",
        { what: req.what, url: redactUrl(req.url), attempt: info.attempt, attempts: info.attempts, delayMs: info.delayMs, reason: why },
        `${req.what}: attempt ${info.attempt}/${info.attempts} failed (${why}); next attempt in ${info.delayMs} ms`,
        "warn",
      );
    };
  }

  /** One request with retries for connect failures and 502/503/504; the body is read whole (bounded). */
  async request(req: HttpRequest): Promise<HttpResponse> {
    this.#checkScheme(req);
    const policy = req.retry === false ? { ...DEFAULT_RETRY, attempts: 1 } : (req.retry ?? this.#opts.retry ?? DEFAULT_RETRY);
    const serverErrorRetries = req.serverErrorRetries ?? (req.method === "POST" ? 0 : SERVER_ERROR_RETRIES);
    const deadlineMs = req.deadlineMs ?? DEFAULT_DEADLINE_MS;
    const t0 = performance.now();
    let attempts = 0;
    let serverErrors = 0;
    let last: HttpResponse | undefined;
    try {
      return await withRetry(
        async (attempt) => {
          attempts = attempt;
          // Not into a pooled connection through an uplink that is gone.
          this.uplinks.closeGone();
          const deadline = withDeadline(deadlineMs, req.signal);
          let r: Dispatcher.ResponseData;
          let body: Uint8Array;
          try {
            r = await this.#agent.request(this.#undiciOptions(req, deadline.signal));
            body = req.method === "HEAD" ? new Uint8Array() : await this.#readBody(r.body, r.statusCode, req);
            if (req.method === "HEAD") await r.body.dump();
          } catch (e) {
            this.#afterBreak(e instanceof BodyPhase ? e.inner : e);
            throw e;
          } finally {
            deadline.done();
          }
          const res: HttpResponse = {
            status: r.statusCode,
            headers: flatHeaders(r.headers),
            body,
            latencyMs: Math.round(performance.now() - t0),
            attempts: attempt,
            address: this.#address(req.url),
          };
          const retry = statusRetry(r.statusCode);
          if (retry === "retry" || (retry === "server_error" && serverErrors++ < serverErrorRetries)) {
            last = res;
            throw new RetryableStatus(r.statusCode);
          }
          return res;
        },
        policy,
        { isRetryable: (e) => e instanceof RetryableStatus || (!(e instanceof BodyPhase) && isRetryableFailure(e)), onRetry: this.#retryLogger(req) },
        this.#opts.retryEnv ?? realRetryEnv,
      );
    } catch (e) {
      // Out of retries on a retryable status (classify.ts statusRetry): the caller reads the last answer (it may carry a connect error body).
      if (e instanceof RetryableStatus && last) return last;
      if (e instanceof BodyPhase) throw transportError(e.inner, req.what, req.url, { attempts, trust: this.trust, phase: "body" });
      throw transportError(e, req.what, req.url, { attempts, trust: this.trust });
    }
  }

  /** Opens a request and hands back the body as a stream (no retries once headers arrived). */
  async stream(req: HttpRequest): Promise<HttpStream> {
    this.#checkScheme(req);
    const t0 = performance.now();
    let attempts = 0;
    const policy = req.retry === false ? { ...DEFAULT_RETRY, attempts: 1 } : (req.retry ?? this.#opts.retry ?? DEFAULT_RETRY);
    try {
      const r = await withRetry(
        async (attempt) => {
          attempts = attempt;
          this.uplinks.closeGone();
          try {
            return await this.#agent.request(this.#undiciOptions(req));
          } catch (e) {
            this.#afterBreak(e);
            throw e;
          }
        },
        policy,
        { isRetryable: isRetryableFailure, onRetry: this.#retryLogger(req) },
        this.#opts.retryEnv ?? realRetryEnv,
      );
      const errorBody = async (): Promise<Uint8Array> => {
        const deadline = setTimeout(() => r.body.destroy(new DeadlineError(ERROR_BODY_DEADLINE_MS)), ERROR_BODY_DEADLINE_MS);
        try {
          return await readCapped(r.body, ERROR_BODY_CAP, true, () => new Error("unreachable"));
        } catch {
          // A broken or slow error body: the status alone says what happened.
          return new Uint8Array();
        } finally {
          clearTimeout(deadline);
        }
      };
      return { status: r.statusCode, headers: flatHeaders(r.headers), body: r.body, errorBody, address: this.#address(req.url), latencyMs: Math.round(performance.now() - t0) };
    } catch (e) {
      throw transportError(e, req.what, req.url, { attempts, trust: this.trust });
    }
  }

  /**
   * Like `stream` with `retry: false`, through Bun's native fetch (see the top of this
   * file): one attempt, the headers within `headersTimeoutMs` (default 15 s), the body
   * as the runtime's native chunks. No idle bound on the body of its own: the caller
   * bounds it through `signal` (the image's stall guard). `address` is not known here.
   * With two uplinks or more (or one left of two), `stream` instead (undici, bound to an uplink).
   */
  async streamNative(req: HttpRequest): Promise<HttpStream> {
    this.#checkScheme(req);
    // Bun's fetch cannot bind a local address (Bun 1.4.5: neither `localAddress` nor
    // `tcp.localAddress` is honoured, measured): with two uplinks or more the bulk goes
    // through undici like every other request, bound and raced (docs/network.md "Uplinks").
    // Once two were seen, also with one left: the main table may still route through the one that went (a cut download's resume).
    const bound = this.uplinks.uplinksFor(req.url.hostname).length;
    if (bound >= 2 || (bound === 1 && this.uplinks.multiHomed)) return await this.stream({ ...req, retry: false, headers: { "accept-encoding": "identity", ...req.headers } });
    const t0 = performance.now();
    // The name through the agent's resolver, once: its failures are named (DnsError), and fetch
    // goes to the address it gave, with the name as Host and as the TLS server name (SNI and
    // the certificate check), so the OS resolver is never asked (docs/boot-chain.md "Names").
    const host = req.url.hostname.replace(/^\[(.*)\]$/, "$1");
    let target = req.url;
    let byName: { readonly host: string; readonly serverName: string } | undefined;
    if (this.#opts.resolver && isIP(host) === 0) {
      const [addr] = await this.#opts.resolver.aaaa(host);
      target = new URL(req.url);
      target.hostname = `[${addr}]`;
      byName = { host: req.url.host, serverName: host };
    }
    const tls = req.url.protocol === "https:" ? { ca: this.#caPems(), rejectUnauthorized: true, ...(byName ? { serverName: byName.serverName } : {}) } : undefined;
    const headersMs = req.headersTimeoutMs ?? this.#opts.headersTimeoutMs ?? HEADERS_TIMEOUT_MS;
    const headersDeadline = new AbortController();
    const timer = setTimeout(() => headersDeadline.abort(new DeadlineError(headersMs)), headersMs);
    const signal = req.signal ? AbortSignal.any([req.signal, headersDeadline.signal]) : headersDeadline.signal;
    let r: Response;
    try {
      r = await fetch(target, {
        method: req.method,
        headers: { "user-agent": "metal-hammer", "accept-encoding": "identity", ...(byName ? { host: byName.host } : {}), ...req.headers },
        ...(req.body !== undefined ? { body: req.body } : {}),
        redirect: "manual",
        decompress: false,
        signal,
        ...(tls ? { tls } : {}),
      });
    } catch (e) {
      throw transportError(headersDeadline.signal.aborted ? headersDeadline.signal.reason : e, req.what, req.url, { attempts: 1, trust: this.trust });
    } finally {
      clearTimeout(timer);
    }
    const headers: Record<string, string> = {};
    r.headers.forEach((v, k) => (headers[k.toLowerCase()] = v));
    const body: AsyncIterable<Uint8Array> = r.body ?? (async function* () {})();
    const errorBody = async (): Promise<Uint8Array> => {
      const ac = setTimeout(() => void r.body?.cancel(new DeadlineError(ERROR_BODY_DEADLINE_MS)).catch(() => {}), ERROR_BODY_DEADLINE_MS);
      try {
        return await readCapped(body, ERROR_BODY_CAP, true, () => new Error("unreachable"));
      } catch {
        return new Uint8Array();
      } finally {
        clearTimeout(ac);
      }
    };
    return { status: r.status, headers, body, errorBody, address: undefined, latencyMs: Math.round(performance.now() - t0) };
  }

  /** Wraps an error met while reading a streamed body. */
  bodyError(e: unknown, req: HttpRequest): AgentError {
    return transportError(e, req.what, req.url, { attempts: 1, trust: this.trust, phase: "body" });
  }

  async close(): Promise<void> {
    await Promise.all([this.#agent.close(), ...this.#derived.map((c) => c.close())]);
  }
}

class RetryableStatus extends Error {
  constructor(readonly status: number) {
    super(`status ${status}`);
  }
}
