/**
 * Asks NTP servers for the time (SNTP, RFC 4330) over UDP: the imperative shell around
 * ntp-packet.ts and sntp-check.ts. Every server is asked in parallel, each up to
 * `attempts` times with a jittered pause, each attempt bounded by `timeoutMs`; a
 * kiss-o'-death ends the attempts for that server at once (RFC 4330 section 8: DENY
 * and RSTR mean "never again", RATE means "slower": both mean "not now").
 *
 * The exchange uses node:dgram (measured: node:dgram and Bun.udpSocket both work over
 * IPv6 in the `bun build --compile` binary with Bun 1.4.5; dgram resolves host names
 * through the same resolver as the HTTP client and reports ICMP port-unreachable on
 * a connected socket as ECONNREFUSED).
 */
import dgram from "node:dgram";
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { decodePacket, encodeRequest, unixMsToNtp } from "./ntp-packet.ts";
import { checkAnswer } from "./sntp-check.ts";
import type { ServerOutcome } from "./decide.ts";
import type { NtpServer } from "../../config/ntp-servers.ts";

export interface SntpPolicy {
  readonly attempts: number;
  /** Bound for one request/answer exchange (including the name lookup). */
  readonly timeoutMs: number;
  /** Pause between attempts to one server, jittered by +-50 %. */
  readonly retryDelayMs: number;
  readonly maxRoundTripMs: number;
}

/** 3 attempts of at most 1 s each per server: the whole query ends within 4.5 s (sntpBoundMs). */
export const DEFAULT_SNTP_POLICY: SntpPolicy = { attempts: 3, timeoutMs: 1000, retryDelayMs: 500, maxRoundTripMs: 1000 };

/**
 * The most one server can cost (they are asked in parallel, so also the most the query
 * costs): every attempt times out and every pause is at its longest (+50 %).
 * 3 x 1000 + 2 x 750 = 4500 ms for the default policy (docs/operations.md).
 */
export function sntpBoundMs(p: SntpPolicy): number {
  return p.attempts * p.timeoutMs + (p.attempts - 1) * p.retryDelayMs * 1.5;
}

export type Exchange =
  | { readonly kind: "answer"; readonly bytes: Uint8Array; readonly sentMs: number; readonly receivedMs: number }
  | { readonly kind: "failed"; readonly message: string };

export interface SntpEnv {
  /** Wall clock, Unix ms: the clock being checked. */
  now(): number;
  random(): number;
  sleep(ms: number): Promise<void>;
  /** Sends `request` to the server and waits (bounded) for one datagram back. */
  exchange(server: NtpServer, request: (sentMs: number) => Uint8Array, timeoutMs: number, now: () => number): Promise<Exchange>;
}

/** The request's transmit timestamp: the local send time with random sub-millisecond bits (an unguessable origin). */
export function requestTimestamp(sentMs: number, random: () => number): bigint {
  return unixMsToNtp(sentMs) ^ BigInt(Math.floor(random() * 0x10_0000));
}

export async function queryServer(server: NtpServer, policy: SntpPolicy, env: SntpEnv): Promise<ServerOutcome> {
  let last: ServerOutcome = { server, kind: "no_answer", message: "not asked" };
  for (let attempt = 1; attempt <= policy.attempts; attempt++) {
    if (attempt > 1) await env.sleep(policy.retryDelayMs * (0.5 + env.random()));
    let transmit = 0n;
    const ex = await env.exchange(
      server,
      (sentMs) => {
        transmit = requestTimestamp(sentMs, env.random);
        return encodeRequest(transmit);
      },
      policy.timeoutMs,
      env.now,
    );
    if (ex.kind === "failed") {
      last = { server, kind: "no_answer", message: `${ex.message} (${attempt} attempt(s))` };
      continue;
    }
    let verdict;
    try {
      verdict = checkAnswer({ packet: decodePacket(ex.bytes), requestTransmit: transmit, sentMs: ex.sentMs, receivedMs: ex.receivedMs, maxRoundTripMs: policy.maxRoundTripMs });
    } catch (e) {
      last = { server, kind: "no_answer", message: (e as Error).message };
      continue;
    }
    if (verdict.kind === "sample") return { server, kind: "sample", sample: verdict };
    last = { server, kind: "rejected", rejection: verdict };
    if (verdict.reason === "kiss") break;
  }
  return last;
}

/** Once one server gave a sample, the others get this much longer before they count as not answering. */
export const GRACE_AFTER_SAMPLE_MS = 300;

/**
 * Asks every server in parallel; resolves when all are done, or GRACE_AFTER_SAMPLE_MS
 * after the first usable sample (a silent server does not hold up the boot for its
 * whole retry bound when another one answered).
 */
export async function queryServers(servers: readonly NtpServer[], policy: SntpPolicy, env: SntpEnv): Promise<ServerOutcome[]> {
  const results: (ServerOutcome | undefined)[] = servers.map(() => undefined);
  let graceTimer: Timer | undefined;
  let wake: () => void = () => {};
  const grace = new Promise<void>((r) => (wake = r));
  const all = Promise.all(
    servers.map(async (s, i) => {
      const o = await queryServer(s, policy, env);
      results[i] = o;
      if (o.kind === "sample" && graceTimer === undefined) graceTimer = setTimeout(wake, GRACE_AFTER_SAMPLE_MS);
    }),
  );
  try {
    await Promise.race([all, grace]);
  } finally {
    clearTimeout(graceTimer);
  }
  return servers.map((server, i) => results[i] ?? { server, kind: "no_answer", message: `no answer within ${GRACE_AFTER_SAMPLE_MS} ms after another server's` });
}

/** Resolves `host` (IP literals as they are), bounded. */
async function resolve(host: string, timeoutMs: number): Promise<{ address: string; family: 4 | 6 }> {
  const fam = isIP(host);
  if (fam === 4 || fam === 6) return { address: host, family: fam };
  let timer: Timer | undefined;
  try {
    const r = await Promise.race([
      lookup(host, { verbatim: true }),
      new Promise<never>((_, rej) => {
        timer = setTimeout(() => rej(new Error(`no DNS answer for ${host} within ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
    return { address: r.address, family: r.family === 4 ? 4 : 6 };
  } finally {
    clearTimeout(timer);
  }
}

/** The real exchange: one connected UDP socket per attempt, closed on every path. */
export async function udpExchange(server: NtpServer, request: (sentMs: number) => Uint8Array, timeoutMs: number, now: () => number): Promise<Exchange> {
  const started = performance.now();
  let peer: { address: string; family: 4 | 6 };
  try {
    peer = await resolve(server.host, timeoutMs);
  } catch (e) {
    return { kind: "failed", message: `cannot resolve ${server.host}: ${(e as Error).message}` };
  }
  const left = Math.max(1, timeoutMs - (performance.now() - started));
  const sock = dgram.createSocket({ type: peer.family === 6 ? "udp6" : "udp4" });
  return await new Promise<Exchange>((resolveEx) => {
    let settled = false;
    const finish = (ex: Exchange) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      try {
        sock.close();
      } catch {
        // already closed
      }
      resolveEx(ex);
    };
    const timer = setTimeout(() => finish({ kind: "failed", message: `no answer within ${timeoutMs} ms` }), left);
    let sentMs = 0;
    sock.on("error", (e) => finish({ kind: "failed", message: `${(e as NodeJS.ErrnoException).code ?? e.message}` }));
    sock.on("message", (msg) => finish({ kind: "answer", bytes: new Uint8Array(msg), sentMs, receivedMs: now() }));
    // Bun 1.4.5 hands a failed connect (e.g. no route) to this callback as an argument, without an errno code.
    sock.connect(server.port, peer.address, (err?: unknown) => {
      if (err) return finish({ kind: "failed", message: `cannot connect (${(err as NodeJS.ErrnoException).code ?? (err as Error).message ?? String(err)})` });
      sentMs = now();
      // No callback: Bun 1.4.5's dgram takes send(msg, callback) on a connected socket for send(msg, port); failures arrive as "error" events.
      try {
        sock.send(request(sentMs));
      } catch (e) {
        finish({ kind: "failed", message: `${(e as NodeJS.ErrnoException).code ?? (e as Error).message}` });
      }
    });
  });
}

export const realSntpEnv: SntpEnv = {
  now: () => Date.now(),
  random: Math.random,
  sleep: (ms) => Bun.sleep(ms),
  exchange: udpExchange,
};
