/**
 * Streams the OS image onto the mounted target root: one download, hashed inline
 * (the strongest sidecar, src/clients/image-cache/sidecar.ts), decompressed and unpacked inline (extract.ts).
 * Nothing is stored in RAM or /tmp: memory is flat whatever the image size
 * (metal-hammer downloads to /tmp first: metal-stack/metal-hammer@ec148e3 cmd/image/image.go:29 Pull).
 *
 * Faults, each bounded:
 * - the body breaks off (reset, short body, stall: no byte for `stallMs`): retried with
 *   exponential backoff and full jitter (src/clients/http/retry.ts backoffDelay) up to
 *   `retry.attempts` breaks in a row that got no further into the image than the furthest
 *   break before, and `retry.totalMs` without getting further (a break after new bytes starts the count and
 *   the backoff again: a cache that drops connections for a while costs time, not the
 *   install; the deadline bounds the whole); resumed with `Range: bytes=N-` when the
 *   server answers 206 with the matching Content-Range, else fetched from the start
 *   (the target is cleaned first).
 * - the checksum does not match: the target is cleaned and the image fetched once more
 *   from scratch; a second mismatch is fatal (image_checksum).
 * - tar reports ENOSPC: fatal at once (disk_full), never retried.
 * - tar takes no data for `unpackStallMs` (its pipe stays full: the target disk hangs),
 *   or does not exit that long after the last byte: fatal (image_unpack), tar killed.
 *   A slow disk is not a network stall (the stall detector pauses while tar's pipe is
 *   full); a disk that takes nothing for minutes is broken.
 * - tar exits 0 before the body's end (it read the archive's end marker; a large blocking
 *   factor or appended zeros leave data after it): the rest is decoded (lz4 checked) and
 *   dropped by the extractor; tar's exit and the checksum decide. Without a
 *   Content-Length that rest is bounded by `tailCapBytes` as below.
 * - tar fails otherwise: the download continues to its end so the checksum decides
 *   (corrupt download -> retry; right checksum -> the image itself is bad: image_unpack).
 *   That tail is bounded: by the Content-Length, or without one by `tailCapBytes`
 *   (default 16 MiB) after tar ended, then image_unpack (an endless body after a small
 *   broken image is not hashed forever).
 * - the whole install (every pass, break and pause) has a deadline (`deadlineMs`,
 *   default 60 min): then image_download, not retried.
 *
 * The bytes' path (docs/install.md "Throughput"): Bun's native fetch
 * (HttpClient.streamNative: same CAs, https-only rule, no redirects) -> the native hasher
 * (Bun.CryptoHasher) and liblz4's frame decoder (extract.ts, lz4-frame.ts) -> tar's stdin;
 * per chunk of the runtime's size (~64-700 KiB) a few counters, a decode call (one more
 * for each further 4 MiB it yields) and a write per run out, nothing copied in JavaScript.
 */
import { AgentError } from "../platform/errors.ts";
import { isRetryableStreamFailure, statusRetry } from "../clients/http/classify.ts";
import type { HttpClient, HttpStream } from "../clients/http/http-client.ts";
import { backoffDelay, realRetryEnv, type RetryEnv, type RetryPolicy } from "../clients/http/retry.ts";
import { every, realTimers, type Timers } from "../platform/io/timers.ts";
import type { Checksum } from "../clients/image-cache/checksum.ts";
import { logEvent, type Logger } from "../platform/log/logger.ts";
import { redactUrl } from "../platform/log/redact.ts";
import { cleanTarget } from "./clean.ts";
import { checkTools, exitWords, tarExtractor, type ExtractFailure, type Extractor, type ExtractorFactory } from "./extract.ts";
import { ProgressMeter, formatProgress } from "./progress.ts";
import { fetchSidecars } from "../clients/image-cache/sidecar.ts";

export interface ImageInstallOptions {
  readonly http: HttpClient;
  /** The image URL, already mapped through the image cache by the caller. */
  readonly url: URL;
  /** The mounted target root (empty, freshly made filesystems). */
  readonly root: string;
  readonly log: Logger;
  /** No byte for this long = a stall (default 60 s). */
  readonly stallMs?: number;
  /** Fewer bytes than this in a window of `stallMs` = too slow, a stall too (default 64 KiB: ~1 KiB/s at 60 s). */
  readonly minBytesPerStall?: number;
  /** Bound for body breaks within one pass (default DEFAULT_IMAGE_RETRY). */
  readonly retry?: RetryPolicy;
  /** tar taking no data (or not exiting after the last byte) for this long is fatal (default 10 min). */
  readonly unpackStallMs?: number;
  /** After tar ended, at most this many more body bytes when the server sent no Content-Length (default 16 MiB). */
  readonly tailCapBytes?: number;
  /** The whole install, every pass and retry included, ends within this (default 60 min). */
  readonly deadlineMs?: number;
  /** Progress line interval (default 5 s). */
  readonly progressMs?: number;
  /** Default: liblz4 in the agent and GNU tar from PATH, checked before the download (checkTools). */
  readonly extractor?: ExtractorFactory;
  readonly clean?: (root: string) => Promise<void>;
  /** Clock, timers (stall guard, unpack bound, deadline), backoff jitter and sleep (default: real). */
  readonly env?: ImageEnv;
  /** Headers of every GET to `url` (an OCI registry's Authorization), asked for at each attempt; never sent after a redirect. */
  readonly headers?: () => Readonly<Record<string, string>>;
  /** A 401 answer: true when the caller got new credentials (the attempt is then a break, retried), false to fail as auth. */
  readonly onUnauthorized?: () => Promise<boolean>;
  /** Follow up to this many redirects per attempt (an OCI registry sends blobs to its storage; default 0: a 3xx is fatal). */
  readonly maxRedirects?: number;
  /** What the download is, in words (default "image download"). */
  readonly what?: string;
}

export type ImageEnv = RetryEnv & Timers;

export const realImageEnv: ImageEnv = { ...realRetryEnv, after: realTimers.after };

export interface ImageInstallResult {
  readonly url: string;
  readonly bytes: number;
  readonly checksum: Checksum;
  /** 1, or 2 after a checksum mismatch. */
  readonly passes: number;
  /** Breaks resumed with Range. */
  readonly resumes: number;
  /** Restarts from byte 0 (server without Range). */
  readonly restarts: number;
  readonly ms: number;
}

export const DEFAULT_IMAGE_RETRY: RetryPolicy = { attempts: 8, baseMs: 500, capMs: 15_000, totalMs: 600_000 };
export const DEFAULT_STALL_MS = 60_000;
/** A body slower than this per stall window is broken off and resumed (a trickle never trips the no-byte detector). */
export const DEFAULT_MIN_BYTES_PER_STALL = 64 * 1024;
export const DEFAULT_UNPACK_STALL_MS = 10 * 60_000;
/** Body bytes read after tar ended when there is no Content-Length to bound them. */
export const DEFAULT_TAIL_CAP_BYTES = 16 << 20;
/** 3 GiB (the largest images) at ~1 MiB/s plus the retry bound fits; a trickle that never trips the stall guard does not. */
export const DEFAULT_IMAGE_DEADLINE_MS = 60 * 60_000;

/**
 * A full collection every this many body bytes: the runtime frees each read chunk of the
 * body only when the collector runs, which on its own lets ~40 MiB of read chunks pile
 * up; one collection (~7 ms here) per 64 MiB keeps the peak ~25 MiB lower for ~3% of the
 * time (docs/install.md, "Memory").
 */
const COLLECT_EVERY_BYTES = 64 << 20;

/** A break worth another attempt (connection reset, short body, stall, retryable status). */
class Break extends Error {
  override readonly name = "Break";
}

export interface Pass {
  readonly bytes: number;
  readonly digest: string;
  readonly unpack: ExtractFailure | undefined;
  readonly resumes: number;
  readonly restarts: number;
}

/** `bytes START-END/TOTAL` -> start and total (total undefined for `*`). Pure. */
export function parseContentRange(v: string | undefined): { start: number; total: number | undefined } | undefined {
  const m = v === undefined ? null : /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(v.trim());
  if (!m) return undefined;
  return { start: Number(m[1]), total: m[3] === "*" ? undefined : Number(m[3]) };
}

/**
 * Whether a failure (thrown by the HTTP client or while reading a body) may be retried:
 * our own breaks (stall, short body, retryable status) and what classify.ts
 * isRetryableStreamFailure calls retryable (connect failures and timeouts, by error
 * code, never by message text). Pure.
 */
export function isBreak(e: unknown): boolean {
  return e instanceof Break || isRetryableStreamFailure(e);
}

/**
 * No byte from the network for `ms`, or fewer than `minBytes` in a window of `ms` (a
 * body trickling in keeps a no-byte detector quiet forever), aborts the request. Time
 * spent waiting for the disk (tar's pipe full) does not count: `hold()` before such a
 * wait, `touch()` after (the window is moved on by the time held).
 */
class StallGuard {
  readonly controller = new AbortController();
  readonly #t: Timers;
  #last: number;
  #windowStart: number;
  #windowBytes = 0;
  #fired: string | undefined;
  #held = false;
  #heldSince = 0;
  readonly #stop: () => void;

  constructor(
    t: Timers,
    readonly ms: number,
    readonly minBytes: number,
  ) {
    this.#t = t;
    this.#last = t.now();
    this.#windowStart = this.#last;
    this.#stop = every(t, Math.max(50, Math.min(1_000, ms / 4)), () => {
      if (this.#held) return;
      const now = t.now();
      if (now - this.#last >= ms) this.#fire(`no byte for ${Math.round(ms / 1000)} s (stall)`);
      else if (now - this.#windowStart >= ms) {
        if (this.#windowBytes < minBytes)
          this.#fire(`${this.#windowBytes} bytes in ${Math.round((now - this.#windowStart) / 1000)} s, under ${minBytes} per ${Math.round(ms / 1000)} s (too slow)`);
        this.#windowStart = now;
        this.#windowBytes = 0;
      }
    });
  }

  #fire(why: string): void {
    this.#fired = why;
    this.controller.abort(new Break(why));
  }

  /** `bytes` arrived from the network (0: only the end of a hold). */
  touch(bytes = 0): void {
    const now = this.#t.now();
    if (this.#held) this.#windowStart += now - this.#heldSince;
    this.#last = now;
    this.#windowBytes += bytes;
    this.#held = false;
  }

  hold(): void {
    if (!this.#held) this.#heldSince = this.#t.now();
    this.#held = true;
  }

  /** Why it aborted the request, if it did. */
  get fired(): string | undefined {
    return this.#fired;
  }

  stop(): void {
    this.#stop();
  }
}

function diskFullError(url: URL, root: string, f: ExtractFailure | undefined): AgentError {
  const lines = f?.stderr ?? [];
  return new AgentError("disk_full", `image ${redactUrl(url)}: the target ${root} is full (ENOSPC from tar); not retried. tar said: ${lines.slice(-5).join(" | ")}`, {
    url: redactUrl(url),
    root,
    tar: lines.slice(-5),
  });
}

/** `p`, or `onTimeout()` thrown when it has not settled within `ms` (p's late rejection is swallowed). */
async function within<T>(t: Timers, p: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  p.catch(() => {});
  let cancel: (() => void) | undefined;
  try {
    return await Promise.race([p, new Promise<never>((_, reject) => (cancel = t.after(ms, () => reject(onTimeout()))))]);
  } finally {
    cancel?.();
  }
}

function unpackHung(url: URL, root: string, what: string, ms: number, bytes: number): AgentError {
  return new AgentError(
    "image_unpack",
    `image ${redactUrl(url)}: tar/lz4 ${what} for ${Math.round(ms / 1000)} s (after ${bytes} bytes of the image): the target ${root} does not take data; tar killed, not retried`,
    { url: redactUrl(url), root, bytes, boundMs: ms },
  );
}

/** The install's deadline fired (checked at every chunk, break and pause). */
export class DeadlineHit extends Error {
  override readonly name = "DeadlineHit";
}

function deadlineError(o: ImageInstallOptions, ms: number, offset: number, total: number | undefined, cause?: unknown): AgentError {
  return new AgentError(
    "image_download",
    `image: ${redactUrl(o.url)} not installed within the deadline of ${ms >= 120_000 ? `${Math.round(ms / 60_000)} min` : `${(ms / 1000).toFixed(1)} s`} (at byte ${offset}${total !== undefined ? ` of ${total}` : ""}); giving up`,
    { url: redactUrl(o.url), offset, deadlineMs: ms },
    cause === undefined ? undefined : { cause },
  );
}

function newHasher(checksum: Checksum): Bun.CryptoHasher {
  return new Bun.CryptoHasher(checksum.algo);
}

/** What every attempt of a pass reads: the options with their defaults, and the pass's parts. */
interface PassConfig {
  readonly o: ImageInstallOptions;
  readonly env: ImageEnv;
  readonly policy: RetryPolicy;
  readonly stallMs: number;
  readonly minBytesPerStall: number;
  readonly unpackMs: number;
  readonly deadlineMs: number;
  readonly tailCap: number;
  readonly checksum: Checksum;
  readonly extractor: ExtractorFactory;
  readonly clean: (root: string) => Promise<void>;
  readonly deadline: AbortSignal;
}

/** One pass over the image: the one state its attempts (resumes, restarts) carry on. */
interface PassState {
  readonly c: PassConfig;
  hash: Bun.CryptoHasher;
  ext: Extractor;
  /** tar's failure, once it ended before the body did (the body is still hashed to its end). */
  unpack: ExtractFailure | undefined;
  offset: number;
  total: number | undefined;
  resumes: number;
  restarts: number;
  /** Body bytes since the last forced garbage collection. */
  sinceCollect: number;
  breaks: number;
  /** The furthest byte any break reached; a break past it is progress. */
  furthest: number;
  /** Breaks in a row that got no further than `furthest`, and since when. */
  stuck: number;
  stuckSince: number;
  readonly started: number;
  readonly meter: ProgressMeter;
  /** Where this attempt's GET goes: the URL, or where it redirected to (each attempt starts at the URL again). */
  url: URL;
  redirects: number;
}

/**
 * One pass over one blob (the image, or an OCI layer: oci/pull.ts): streamed into a new
 * extractor, hashed, resumed and bounded as above; the digest compared by the caller.
 */
export async function streamPass(
  o: ImageInstallOptions,
  checksum: Checksum,
  extractor: ExtractorFactory,
  clean: (root: string) => Promise<void>,
  deadline: AbortSignal,
): Promise<Pass> {
  return await onePass(o, checksum, extractor, clean, deadline);
}

async function onePass(o: ImageInstallOptions, checksum: Checksum, extractor: ExtractorFactory, clean: (root: string) => Promise<void>, deadline: AbortSignal): Promise<Pass> {
  const s = newPass(passConfig(o, checksum, extractor, clean, deadline));
  try {
    while (!(await attempt(s))) {
      // the next attempt: resumed, restarted or after a backoff
    }
    return await finishPass(s);
  } catch (e) {
    await s.ext.abort();
    throw e;
  }
}

function passConfig(o: ImageInstallOptions, checksum: Checksum, extractor: ExtractorFactory, clean: (root: string) => Promise<void>, deadline: AbortSignal): PassConfig {
  return {
    o,
    env: o.env ?? realImageEnv,
    policy: o.retry ?? DEFAULT_IMAGE_RETRY,
    stallMs: o.stallMs ?? DEFAULT_STALL_MS,
    minBytesPerStall: o.minBytesPerStall ?? DEFAULT_MIN_BYTES_PER_STALL,
    unpackMs: o.unpackStallMs ?? DEFAULT_UNPACK_STALL_MS,
    deadlineMs: o.deadlineMs ?? DEFAULT_IMAGE_DEADLINE_MS,
    tailCap: o.tailCapBytes ?? DEFAULT_TAIL_CAP_BYTES,
    checksum,
    extractor,
    clean,
    deadline,
  };
}

function newPass(c: PassConfig): PassState {
  const hash = newHasher(c.checksum);
  const ext = c.extractor(c.o.root);
  const started = c.env.now();
  const meter = new ProgressMeter(c.env.now(), c.o.progressMs ?? 5_000);
  return {
    c,
    hash,
    ext,
    unpack: undefined,
    offset: 0,
    total: undefined,
    resumes: 0,
    restarts: 0,
    sinceCollect: 0,
    breaks: 0,
    furthest: 0,
    stuck: 0,
    stuckSince: started,
    started,
    meter,
    url: c.o.url,
    redirects: 0,
  };
}

/** One GET (resumed from the offset when there is one): true when the body was read to its end, false to go again. */
async function attempt(s: PassState): Promise<boolean> {
  const { o, env, stallMs, deadline } = s.c;
  if (deadline.aborted) throw deadlineError(o, s.c.deadlineMs, s.offset, s.total);
  const stall = new StallGuard(env, stallMs, s.c.minBytesPerStall);
  try {
    const range: Record<string, string> = s.offset > 0 ? { range: `bytes=${s.offset}-` } : {};
    const headers = s.redirects === 0 ? { ...o.headers?.(), ...range } : range;
    const res = await o.http.streamNative({
      method: "GET",
      url: s.url,
      what: o.what ?? "image download",
      headers,
      signal: AbortSignal.any([stall.controller.signal, deadline]),
      headersTimeoutMs: stallMs,
    });
    if (isRedirect(res.status) && s.redirects < (o.maxRedirects ?? 0)) {
      await drop(res);
      return followRedirect(s, res);
    }
    s.url = o.url;
    s.redirects = 0;
    if (!(await takeAnswer(s, res))) return false;
    await readBody(s, res, stall);
    checkLength(s);
    return true;
  } catch (e) {
    s.url = o.url;
    s.redirects = 0;
    await onBreak(s, stall, e);
    return false;
  } finally {
    stall.stop();
  }
}

const isRedirect = (status: number): boolean => status === 301 || status === 302 || status === 303 || status === 307 || status === 308;

/** The next GET of this attempt goes to the Location (a registry's storage, often presigned): without our headers. */
function followRedirect(s: PassState, res: HttpStream): false {
  const loc = res.headers.location;
  const to = loc !== undefined && URL.canParse(loc, s.url.href) ? new URL(loc, s.url) : undefined;
  if (to === undefined)
    throw new AgentError("image_download", `image: GET ${redactUrl(s.url)} answered ${res.status} without a usable Location`, { url: redactUrl(s.url), status: res.status });
  s.url = to;
  s.redirects++;
  return false;
}

/**
 * The answer's status: 206 with the matching Content-Range resumes, 200 starts (its
 * Content-Length the total); a server that does not resume restarts from byte 0 (false);
 * a retryable status is a break, any other fatal.
 */
async function takeAnswer(s: PassState, res: HttpStream): Promise<boolean> {
  const { o } = s.c;
  if (s.offset > 0 && res.status === 206) {
    const cr = parseContentRange(res.headers["content-range"]);
    if (!cr || cr.start !== s.offset) {
      await drop(res);
      await restart(s, `the server answered Range bytes=${s.offset}- with Content-Range ${JSON.stringify(res.headers["content-range"] ?? null)}`);
      return false;
    }
    s.total = cr.total ?? s.total;
    s.resumes++;
    return true;
  }
  if (res.status === 200) {
    if (s.offset > 0) {
      await drop(res);
      await restart(s, "the server does not resume (answered 200 to a Range request)");
      return false;
    }
    const len = res.headers["content-length"];
    s.total = len !== undefined && /^\d+$/.test(len) ? Number(len) : undefined;
    return true;
  }
  await drop(res);
  if (res.status === 401 && o.onUnauthorized && (await o.onUnauthorized())) throw new Break("status 401: authenticated again");
  if ((res.status === 401 || res.status === 403) && o.headers) {
    throw new AgentError("auth", `${o.what ?? "image"}: GET ${redactUrl(s.url)} answered ${res.status}: the credentials were refused`, {
      url: redactUrl(s.url),
      status: res.status,
    });
  }
  // 500 too: the image download's own attempt bound (retry.attempts) is the budget.
  if (statusRetry(res.status) !== "final") throw new Break(`status ${res.status}`);
  throw new AgentError("image_download", `${o.what ?? "image"}: GET ${redactUrl(s.url)} answered ${res.status}`, { url: redactUrl(s.url), status: res.status });
}

/** From byte 0 again: the target cleaned, a new hasher and tar, the progress meter reset. */
async function restart(s: PassState, why: string): Promise<void> {
  const { o, env } = s.c;
  logEvent(
    o.log,
    "install.image.resume",
    { url: redactUrl(o.url), offset: s.offset, mode: "restart", reason: why },
    `image: ${why}: starting again from byte 0 (target cleaned)`,
    "warn",
  );
  await s.ext.abort();
  await s.c.clean(o.root);
  s.hash = newHasher(s.c.checksum);
  s.ext = s.c.extractor(o.root);
  s.unpack = undefined;
  s.offset = 0;
  s.restarts++;
  s.meter.reset(env.now());
}

/**
 * Every chunk to the extractor (while tar runs, and after tar's exit 0 to be decoded and
 * dropped) and hashed; after tar ended, a body without a Content-Length only up to tailCap.
 */
async function readBody(s: PassState, res: HttpStream, stall: StallGuard): Promise<void> {
  const { tailCap } = s.c;
  /** Body bytes since tar ended (bounded by tailCap without a Content-Length). */
  let tail = 0;
  for await (const chunk of res.body) {
    stall.touch(chunk.byteLength);
    s.offset += chunk.byteLength;
    if (s.unpack === undefined) {
      // The chunk into tar's pipe first, hashed while tar and lz4 work on it: the hash no
      // longer stands in line before the pipe (docs/install.md, "Throughput").
      const fed = feedTar(s, chunk, stall);
      s.hash.update(chunk);
      await fed;
    } else s.hash.update(chunk);
    // tar failed, or finished (exit 0 at its end marker) with the stream going on: what
    // follows only decides the hash, and without a Content-Length it is bounded.
    if (s.total === undefined && (s.unpack !== undefined || s.ext.tarFinished()) && (tail += chunk.byteLength) > tailCap) throw tailCapped(s, s.unpack);
    logProgress(s, false);
    if ((s.sinceCollect += chunk.byteLength) >= COLLECT_EVERY_BYTES) {
      s.sinceCollect = 0;
      Bun.gc(true);
    }
  }
}

/** A body without a Content-Length that went on for more than tailCap after tar ended (failed, or `undefined`: finished at its end marker). */
function tailCapped(s: PassState, unpack: ExtractFailure | undefined): AgentError {
  const { o, tailCap } = s.c;
  const ended = unpack === undefined ? "tar finished (exit 0 at the archive's end marker)" : `tar/lz4 ended (${exitWords(unpack)}: ${unpack.stderr.slice(-3).join(" | ")})`;
  return new AgentError(
    "image_unpack",
    `image ${redactUrl(o.url)}: ${ended} and the body, without a Content-Length, went on for more than ${tailCap} bytes after it (at byte ${s.offset}); not read further, not retried`,
    { url: redactUrl(o.url), offset: s.offset, tailCapBytes: tailCap, tar: unpack?.stderr.slice(-5) ?? [] },
  );
}

/**
 * One chunk to tar, the stall guard held while tar's pipe is full (a slow disk is not a
 * network stall); tar that stops reading has ended (its failure kept), tar that takes
 * nothing for unpackMs or hits ENOSPC is fatal.
 */
async function feedTar(s: PassState, chunk: Uint8Array, stall: StallGuard): Promise<void> {
  const { o, env, unpackMs } = s.c;
  stall.hold();
  try {
    await within(env, s.ext.write(chunk), unpackMs, () => unpackHung(o.url, o.root, "took no data", unpackMs, s.offset));
  } catch (e) {
    if (e instanceof AgentError) throw e;
    s.unpack = (await s.ext.end()) ?? { exitCode: null, stderr: ["tar stopped reading"], diskFull: false };
  }
  stall.touch();
  if (s.ext.diskFull() || s.unpack?.diskFull) {
    await s.ext.abort();
    throw diskFullError(o.url, o.root, s.ext.failure());
  }
}

function logProgress(s: PassState, force: boolean): void {
  const line = s.meter.update(s.offset, s.total, s.c.env.now(), force);
  if (line) logEvent(s.c.o.log, "install.image.progress", { ...line }, formatProgress(line));
}

/** A body shorter than its total is a break; a longer one is fatal. */
function checkLength(s: PassState): void {
  const { o } = s.c;
  if (s.total !== undefined && s.offset < s.total) throw new Break(`the body ended after ${s.offset} of ${s.total} bytes`);
  if (s.total !== undefined && s.offset > s.total)
    throw new AgentError("image_download", `image: ${redactUrl(o.url)} sent ${s.offset} bytes, more than its announced ${s.total}`, { url: redactUrl(o.url) });
}

/**
 * What an attempt threw: past the deadline, the deadline's error; a break (the stall
 * guard's own, or a retryable failure) waits its backoff within the attempt, time and
 * deadline bounds; anything else is thrown on.
 */
async function onBreak(s: PassState, stall: StallGuard, e: unknown): Promise<void> {
  const { o, env, policy, deadlineMs, deadline } = s.c;
  if (deadline.aborted && !(e instanceof AgentError && e.code !== "image_download")) throw deadlineError(o, deadlineMs, s.offset, s.total, e);
  const err = stall.fired !== undefined ? new Break(stall.fired) : e;
  if (!isBreak(err)) throw err;
  // The connection broke (a stall, a reset), not a status: its uplink's pooled connections are not reused for the resume.
  if (stall.fired !== undefined || !(err instanceof Break)) await o.http.bodyBroke();
  s.breaks++;
  if (s.offset > s.furthest) {
    s.furthest = s.offset;
    s.stuck = 0;
    s.stuckSince = env.now();
  }
  s.stuck++;
  const why = err instanceof Error ? err.message : String(err);
  const delayMs = backoffDelay(policy, s.stuck - 1, env.random());
  if (env.now() + delayMs - s.started > deadlineMs) throw deadlineError(o, deadlineMs, s.offset, s.total, err);
  if (s.stuck >= policy.attempts || env.now() + delayMs - s.stuckSince > policy.totalMs) {
    throw new AgentError(
      "image_download",
      `image: GET ${redactUrl(o.url)} broke off ${s.stuck} time(s) in a row without getting past byte ${s.furthest}${s.total !== undefined ? ` of ${s.total}` : ""} (${s.breaks} breaks in all), last at byte ${s.offset}: ${why}; giving up (bound: ${policy.attempts} attempts or ${Math.round(policy.totalMs / 1000)} s without getting further)`,
      { url: redactUrl(o.url), offset: s.offset, furthest: s.furthest, breaks: s.breaks, stuck: s.stuck },
      { cause: err },
    );
  }
  logEvent(
    o.log,
    "install.image.resume",
    { url: redactUrl(o.url), offset: s.offset, total: s.total ?? null, attempt: s.stuck, attempts: policy.attempts, breaks: s.breaks, delayMs, reason: why },
    `image: download broke at byte ${s.offset} (${why}); attempt ${s.stuck + 1}/${policy.attempts} in ${delayMs} ms`,
    "warn",
  );
  await env.sleep(delayMs);
}

/** The last progress line, tar's exit (bounded by unpackMs), the digest. */
async function finishPass(s: PassState): Promise<Pass> {
  const { o, env, unpackMs } = s.c;
  logProgress(s, true);
  if (s.unpack === undefined) s.unpack = await within(env, s.ext.end(), unpackMs, () => unpackHung(o.url, o.root, "did not finish", unpackMs, s.offset));
  if (s.unpack?.diskFull) throw diskFullError(o.url, o.root, s.unpack);
  return { bytes: s.offset, digest: s.hash.digest("hex"), unpack: s.unpack, resumes: s.resumes, restarts: s.restarts };
}

async function drop(res: HttpStream): Promise<void> {
  try {
    for await (const _ of res.body) break;
  } catch {
    // the answer was not wanted
  }
}

export async function installImage(o: ImageInstallOptions): Promise<ImageInstallResult> {
  if (!o.extractor) {
    const problem = checkTools();
    if (problem) throw new AgentError("image_unpack", `image: cannot unpack here: ${problem}`, {});
  }
  const extractor = o.extractor ?? tarExtractor();
  const clean = o.clean ?? cleanTarget;
  const deadlineMs = o.deadlineMs ?? DEFAULT_IMAGE_DEADLINE_MS;
  const deadline = new AbortController();
  const env = o.env ?? realImageEnv;
  const cancelDeadline = env.after(deadlineMs, () => deadline.abort(new DeadlineHit(`the image install's deadline of ${deadlineMs} ms`)));
  try {
    return await installWithin(o, extractor, clean, deadline.signal);
  } finally {
    cancelDeadline();
  }
}

async function installWithin(o: ImageInstallOptions, extractor: ExtractorFactory, clean: (root: string) => Promise<void>, deadline: AbortSignal): Promise<ImageInstallResult> {
  const env = o.env ?? realImageEnv;
  const t0 = env.now();
  const { use, found } = await fetchSidecars(o.http, o.url);
  logEvent(
    o.log,
    "install.image.checksum",
    { url: redactUrl(o.url), use: use.algo, expected: use.hex, found: found.map((c) => c.algo) },
    `image: verifying ${use.algo} (sidecars: ${found.map((c) => c.algo).join(", ")})`,
  );
  logEvent(o.log, "install.image.start", { url: redactUrl(o.url), root: o.root, checksum: use.algo }, `image: streaming ${redactUrl(o.url)} onto ${o.root}`);
  for (let passNo = 1; ; passNo++) {
    const p = await onePass(o, use, extractor, clean, deadline);
    if (p.digest !== use.hex) {
      if (passNo === 1) {
        logEvent(
          o.log,
          "install.image.retry",
          { url: redactUrl(o.url), algo: use.algo, got: p.digest, expected: use.hex, bytes: p.bytes },
          `image: ${use.algo} mismatch (got ${p.digest}, expected ${use.hex}); cleaning the target and fetching once more`,
          "warn",
        );
        await clean(o.root);
        continue;
      }
      throw new AgentError(
        "image_checksum",
        `image ${redactUrl(o.url)}: ${use.algo} mismatch twice (got ${p.digest}, expected ${use.hex} from the .${use.algo} sidecar) after ${p.bytes} bytes`,
        { url: redactUrl(o.url), algo: use.algo, got: p.digest, expected: use.hex },
      );
    }
    if (p.unpack) {
      throw new AgentError(
        "image_unpack",
        `image ${redactUrl(o.url)}: ${use.algo} is right but tar/lz4 failed (${exitWords(p.unpack)}): ${p.unpack.stderr.slice(-5).join(" | ")}`,
        { url: redactUrl(o.url), tar: p.unpack.stderr.slice(-5) },
      );
    }
    const result: ImageInstallResult = {
      url: redactUrl(o.url),
      bytes: p.bytes,
      checksum: use,
      passes: passNo,
      resumes: p.resumes,
      restarts: p.restarts,
      ms: Math.round(env.now() - t0),
    };
    logEvent(o.log, "install.image.done", { ...result, checksum: use.algo }, `image: ${p.bytes} bytes on ${o.root} in ${result.ms} ms, ${use.algo} verified`);
    return result;
  }
}
