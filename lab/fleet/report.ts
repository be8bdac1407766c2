/**
 * The fleet's figures from what the machines logged and the servers answered: how many
 * got where, when (p50/p95/max after power-on), how the servers' load bunched up
 * (requests per 100 ms), peak memory. Pure.
 */

export interface MachineTrace {
  readonly startedAt: number;
  /** event -> time (ms since epoch) of its first log line. */
  readonly firsts: Readonly<Record<string, number>>;
  readonly exitCode?: number;
  readonly peakKb?: number;
  /** Private memory (RssAnon) at the end: what the machine's RAM holds for this agent beyond the binary. */
  readonly anonKb?: number;
}

/** The fullest 100 ms: how many requests, and when (ms). */
export interface Burst {
  readonly requests: number;
  readonly atMs: number;
}

export interface Spread {
  readonly n: number;
  readonly p50: number;
  readonly p95: number;
  readonly max: number;
}

/** Nearest-rank percentile of sorted values. */
function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number;
}

export function spread(values: readonly number[]): Spread {
  const s = [...values].sort((a, b) => a - b);
  return { n: s.length, p50: percentile(s, 50), p95: percentile(s, 95), max: s.at(-1) ?? NaN };
}

/** Milliseconds from power-on to `event` for every machine that logged it. */
export function timeTo(traces: readonly MachineTrace[], event: string): Spread {
  return spread(traces.flatMap((t) => (t.firsts[event] === undefined ? [] : [t.firsts[event] - t.startedAt])));
}

/** The most requests that began in any 100 ms bucket (aligned to `from`), among times >= from. */
export function largestBurst(times: readonly number[], from = -Infinity, bucketMs = 100): Burst {
  const inRange = times.filter((t) => t >= from);
  if (inRange.length === 0) return { requests: 0, atMs: NaN };
  const origin = Number.isFinite(from) ? from : Math.min(...inRange);
  const buckets = new Map<number, number>();
  for (const t of inRange) {
    const b = Math.floor((t - origin) / bucketMs);
    buckets.set(b, (buckets.get(b) ?? 0) + 1);
  }
  let best = { requests: 0, atMs: NaN };
  for (const [b, n] of buckets) if (n > best.requests) best = { requests: n, atMs: origin + b * bucketMs };
  return best;
}

/** The first time of each event in a machine's log lines (`time` is ISO 8601). */
export function firstTimes(logs: readonly { readonly event?: string; readonly time?: string }[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const l of logs) {
    if (!l.event || !l.time || l.event in out) continue;
    const t = Date.parse(l.time);
    if (!Number.isNaN(t)) out[l.event] = t;
  }
  return out;
}

export const fmtSpread = (s: Spread): string =>
  s.n === 0 ? "none" : `p50 ${(s.p50 / 1000).toFixed(2)} s, p95 ${(s.p95 / 1000).toFixed(2)} s, max ${(s.max / 1000).toFixed(2)} s (n=${s.n})`;

/**
 * When each machine came back after `upAt`: its first answered request (by source
 * address) at or after it, plus the Wait streams opened then (an open Wait is not in the
 * request log; each machine opens one per break).
 */
export function comebacks(
  requests: readonly { readonly time: number; readonly source: string | null; readonly path: string }[],
  waitOpenedAt: readonly number[],
  upAt: number,
): number[] {
  const first = new Map<string, number>();
  for (const r of [...requests].sort((a, b) => a.time - b.time)) {
    if (r.time < upAt || r.path.endsWith("/Wait") || r.source === null || first.has(r.source)) continue;
    first.set(r.source, r.time);
  }
  return [...first.values(), ...waitOpenedAt.filter((t) => t >= upAt)];
}

/** An IPv6 (or IPv4) address in one spelling (RFC 5952 for IPv6, as WHATWG URL writes it), so the servers' and `ip`'s spellings compare. */
export function canonicalAddress(a: string): string {
  const bare = a.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i, "$1");
  try {
    return bare.includes(":") ? new URL(`http://[${bare}]/`).hostname.slice(1, -1) : bare;
  } catch {
    return bare.toLowerCase();
  }
}

/** Address (canonical) -> the index of the machine holding it. */
function ownerOf(addresses: readonly (readonly string[])[]): Map<string, number> {
  const owner = new Map<string, number>();
  for (const [i, list] of addresses.entries()) for (const a of list) owner.set(canonicalAddress(a), i);
  return owner;
}

/**
 * How many answers with `status` from `server` each machine got, the machine known by its
 * addresses (one list per machine, in order); requests from no machine's address are left out.
 */
export function answersPerMachine(
  requests: readonly { readonly source: string | null; readonly status: number; readonly server: string }[],
  addresses: readonly (readonly string[])[],
  status: number,
  server = "api",
): number[] {
  const owner = ownerOf(addresses);
  const out = addresses.map(() => 0);
  for (const r of requests) {
    if (r.server !== server || r.status !== status || r.source === null) continue;
    const i = owner.get(canonicalAddress(r.source));
    if (i !== undefined) out[i] = (out[i] ?? 0) + 1;
  }
  return out;
}

/**
 * A machine's log lines that retry after an apiserver 503 and say so: the HTTP client's
 * `http.retry` of an apiserver call with reason "status 503", and Wait's
 * `provision.wait.reconnect` whose reason is the mapped Connect code ("unavailable: HTTP 503").
 */
export function unavailableRetries(logs: readonly Readonly<Record<string, unknown>>[]): number {
  return logs.filter(
    (l) =>
      (l.event === "http.retry" && l.reason === "status 503" && String(l.what ?? "").startsWith("apiserver ")) ||
      (l.event === "provision.wait.reconnect" && /\bunavailable: HTTP 503\b/.test(String(l.reason ?? ""))),
  ).length;
}

/**
 * Each answer with `status` followed by the same source's next request to the same path:
 * when the retry came and how long after (ms). A 503 not (yet) retried is left out.
 */
export function retriesAfter(
  requests: readonly { readonly time: number; readonly source: string | null; readonly path: string; readonly status: number }[],
  status = 503,
): { readonly at: number; readonly delayMs: number }[] {
  const sorted = [...requests].sort((a, b) => a.time - b.time);
  const out: { at: number; delayMs: number }[] = [];
  for (const [i, r] of sorted.entries()) {
    if (r.status !== status || r.source === null) continue;
    const next = sorted.slice(i + 1).find((x) => x.source === r.source && x.path === r.path);
    if (next) out.push({ at: next.time, delayMs: next.time - r.time });
  }
  return out;
}

/** Per-address counts (as a server saw its clients) summed per machine, the machine known by its addresses; other addresses left out. */
export function countsPerMachine<K extends string>(
  bySource: Readonly<Record<string, Readonly<Record<K, number>>>>,
  addresses: readonly (readonly string[])[],
  keys: readonly K[],
): Record<K, number>[] {
  const owner = ownerOf(addresses);
  const out = addresses.map(() => Object.fromEntries(keys.map((k) => [k, 0])) as Record<K, number>);
  for (const [source, c] of Object.entries(bySource)) {
    const i = owner.get(canonicalAddress(source));
    const row = i === undefined ? undefined : out[i];
    if (row) for (const k of keys) row[k] = (row[k] ?? 0) + (c[k] ?? 0);
  }
  return out;
}

/**
 * Each machine's GETs of `path` on `server`, their times in order (the machine known by its
 * addresses, as in answersPerMachine): the first is its download's start, the rest its
 * reconnects. Requests from no machine's address are left out.
 */
export function getsPerMachine(
  requests: readonly { readonly time: number; readonly source: string | null; readonly server: string; readonly method?: string; readonly path: string }[],
  addresses: readonly (readonly string[])[],
  path: string,
  server = "images",
): number[][] {
  const owner = ownerOf(addresses);
  const out: number[][] = addresses.map(() => []);
  for (const r of requests) {
    if (r.server !== server || r.path !== path || (r.method !== undefined && r.method !== "GET") || r.source === null) continue;
    const i = owner.get(canonicalAddress(r.source));
    if (i !== undefined) out[i]?.push(r.time);
  }
  for (const times of out) times.sort((x, y) => x - y);
  return out;
}

/** What the `unavailable` scenario's balancer did, and what the machines made of it. */
export interface UnavailableFigures {
  readonly every: number;
  readonly ms: number;
  /** Apiserver requests inside the window, and how many the balancer answered 503 (its own counts). */
  readonly requests: number;
  readonly sent: number;
  /** 503 answers of the apiserver in the request log (what the machines were answered). */
  readonly inLog: number;
  /** Per machine (in order): 503s answered to its address, and its retry lines naming the 503. */
  readonly perMachine: readonly { readonly uuid: string; readonly answered: number; readonly retried: number }[];
  /** The fullest 100 ms inside the window (every request, 503s included). */
  readonly burst: Burst;
  /** The retries the request log shows after a 503 (the same machine's next request to the same path): how long after, and the most in one 100 ms. */
  readonly retryDelayMs: Spread;
  readonly retryBurst: Burst;
}

/** One machine's image install under the drop window. */
export interface ImageDropMachine {
  readonly uuid: string;
  /** The command's exit code (0: installed, the checksum verified); null when it did not end within the run. */
  readonly exitCode: number | null;
  /** The final error line, when it failed. */
  readonly error: string | null;
  /** The checksum the install verified (algo:hex), from its result. */
  readonly verified: string | null;
  /** The install's own count of resumes by Range and restarts from byte 0. */
  readonly resumes: number;
  readonly restarts: number;
  /** What the image cache saw from this machine: image GETs with a Range, without one (from byte 0), connections it dropped. */
  readonly ranges: number;
  readonly fromZero: number;
  readonly dropped: number;
  /** Entries of the image (tar -t) missing from the machine's target directory. */
  readonly missing: number;
  readonly ms: number | null;
  readonly peakMiB: number | null;
}

export interface ImageDropFigures {
  readonly imageBytes: number;
  readonly sha256: string;
  readonly entries: number;
  readonly afterBytes: number;
  readonly ms: number;
  readonly finished: number;
  readonly failed: number;
  /** Exit code -> how many machines ended with it. */
  readonly exitCodes: Readonly<Record<string, number>>;
  readonly perMachine: readonly ImageDropMachine[];
  /** From the install's start (its process spawned) to its end, the finished ones. */
  readonly toFinished: Spread;
  /** From the window's opening (every machine's download started) to each finished install's end. */
  readonly afterWindowMs: Spread;
  /** The image cache's own counts over the run. */
  readonly gets: number;
  readonly ranges: number;
  readonly dropped: number;
  /** Each machine's first image GET after the first machine's (the cache held them until the last came, then opened the window). */
  readonly firstGetMs: Spread;
  /** The machines' GETs after their first (reconnects): the fullest 100 ms. */
  readonly reconnectBurst: Burst;
  readonly reconnects: number;
  readonly peakRssMiB: Spread;
}
