/**
 * Every decision of bring-up (and of `net watch`), as one reducer over all selected
 * interfaces: fed one input at a time (rtnetlink events, dump results, ticks, the
 * outcome of a resolv.conf write) with its time, it returns the log records, the
 * effects for the shell to apply (dump, link up, prepare a re-created interface,
 * solicit, write resolv.conf), the verdict and when it wants to be woken next. No
 * I/O, no clock, no randomness: tests replay recorded event sequences
 * (test/network/net/reducer.test.ts); loop.ts is the one shell that applies the effects.
 *
 * Decisions made here:
 *   - link up: after the first full dump, every selected link that is down (mode up);
 *   - solicit: our own RS from :: when a link reaches operstate UP before any RA,
 *     once more RS_RETRY_MS later if still no RA (docs/network.md);
 *   - dump addresses: when an RA shows up (the kernel does not announce a tentative
 *     SLAAC address), and everything again after an overrun (ENOBUFS);
 *   - follow a selected name to its new ifindex when it is deleted and re-created;
 *   - resolv.conf: written when RA DNS changes, at most once per DNS_MIN_INTERVAL_MS;
 *     a failed write is a warning, or the end (dns_write) when DNS is required;
 *   - repeated lines (net.dns, net.overrun, net.dns.write) at most once per
 *     LOG_REPEAT_MS per interface, the last one flushed with a count of those held back;
 *   - the verdict (readiness.ts), the carrier grace, the deadline.
 */
import type { ErrorCode } from "../../errors.ts";
import type { EventName } from "../../platform/log/events.ts";
import type { Body } from "../netlink/message.ts";
import { InterfaceMachine, type Emit } from "./machine.ts";
import { deadReason, evaluate, type Policy } from "./readiness.ts";
import { collectDns, renderResolvConf } from "./resolv.ts";
import type { WriteOutcome } from "./resolv-file.ts";
import type { LinkFacts } from "./select.ts";

export const TICK_MS = 200;
/** When no RA answered our first RS: once more after this long (the shell adds jitter: rsRetryMs). */
export const RS_RETRY_MS = 300;
export const DNS_MIN_INTERVAL_MS = 1000;
export const LOG_REPEAT_MS = 1000;

export interface CoreOptions {
  /** up: prepare links and decide readiness; watch: only follow (no link change, no verdict). */
  readonly mode: "up" | "watch";
  readonly policy: Policy;
  readonly dnsNeeded: boolean;
  readonly solicit: boolean;
  /** Where RA DNS goes; undefined = nowhere. */
  readonly resolvConf: string | undefined;
  /** Mode up: the readiness bound; mode watch: the end of --duration (Infinity without). */
  readonly deadline: number;
  readonly carrierGraceMs: number;
  /** The RS retry delay (default RS_RETRY_MS; the shell passes it with jitter). */
  readonly rsRetryMs?: number;
}

export type Input =
  | { readonly kind: "events"; readonly t: number; readonly bodies: readonly Body[] }
  | { readonly kind: "dump"; readonly t: number; readonly what: "addrs" | "all"; readonly bodies: readonly Body[] }
  | { readonly kind: "overrun"; readonly t: number }
  | { readonly kind: "tick"; readonly t: number }
  | { readonly kind: "dns-written"; readonly t: number; readonly path: string; readonly outcome: WriteOutcome };

export type Effect =
  | { readonly kind: "dump"; readonly what: "addrs" | "all" }
  | { readonly kind: "link-up"; readonly ifindex: number; readonly name: string }
  /** A re-created interface: its sysctls again, then link up. */
  | { readonly kind: "prepare"; readonly ifindex: number; readonly name: string }
  | { readonly kind: "solicit"; readonly ifindex: number; readonly name: string; readonly attempt: number }
  | { readonly kind: "write-dns"; readonly path: string; readonly text: string };

export interface LogRecord {
  readonly event: EventName;
  readonly level: "debug" | "info" | "warn" | "error";
  readonly fields: Readonly<Record<string, unknown>>;
  readonly msg?: string;
}

export type Verdict =
  | { readonly kind: "wait" }
  | { readonly kind: "ready"; readonly t: number; readonly ready: readonly string[] }
  | { readonly kind: "fail"; readonly code: ErrorCode; readonly message: string; readonly reasons: readonly string[] }
  /** Mode watch: the duration is over. */
  | { readonly kind: "end" };

export interface Output {
  readonly logs: readonly LogRecord[];
  readonly effects: readonly Effect[];
  /** Bodies that concern a selected interface (what `net watch` prints). */
  readonly relevant: readonly Body[];
  readonly verdict: Verdict;
  /** Feed a tick no later than this (ms). */
  readonly wakeAt: number;
}

interface Held {
  lastAt: number;
  held: LogRecord | undefined;
  count: number;
}

export interface CoreState {
  readonly t0: number;
  machines: InterfaceMachine[];
  /** Set links up once, after the first full dump. */
  started: boolean;
  /** ifindex -> time of the retry still due (undefined once sent or not needed). */
  readonly solicited: Map<number, number | undefined>;
  readonly givenUp: Set<number>;
  dnsText: string | undefined;
  dnsPublishedAt: number;
  readonly repeats: Map<string, Held>;
  settled: Verdict | undefined;
}

export function initialState(links: readonly LinkFacts[], t0: number): CoreState {
  return {
    t0,
    machines: links.map((l) => new InterfaceMachine(l.ifindex, l.name, l.mac, t0)),
    started: false,
    solicited: new Map(),
    givenUp: new Set(),
    dnsText: undefined,
    dnsPublishedAt: -Infinity,
    repeats: new Map(),
    settled: undefined,
  };
}

const ms = (s: CoreState, t: number) => Math.round((t - s.t0) * 10) / 10;
const REPEATED: ReadonlySet<EventName> = new Set<EventName>(["net.dns", "net.overrun", "net.dns.write"]);

export function reduce(s: CoreState, o: CoreOptions, input: Input): Output {
  const logs: LogRecord[] = [];
  const effects: Effect[] = [];
  const relevant: Body[] = [];
  const t = input.t;
  // Settled, except for the outcome of the resolv.conf write that the deciding input caused.
  if (s.settled && !(input.kind === "dns-written" && s.settled.kind === "ready")) return { logs, effects, relevant, verdict: s.settled, wakeAt: Infinity };

  /** Rate-limits repeated lines per event and interface; the rest pass through. */
  const log = (r: LogRecord) => {
    if (!REPEATED.has(r.event)) return void logs.push(r);
    const key = `${r.event}/${String(r.fields.ifname ?? "")}`;
    const h = s.repeats.get(key) ?? { lastAt: -Infinity, held: undefined, count: 0 };
    s.repeats.set(key, h);
    if (t - h.lastAt >= LOG_REPEAT_MS) {
      h.lastAt = t;
      h.held = undefined;
      h.count = 0;
      logs.push(r);
    } else {
      h.held = r;
      h.count++;
    }
  };
  const emit = (es: readonly Emit[]) => {
    for (const e of es) log({ event: e.event, level: e.level, fields: { ...e.fields, ms: ms(s, e.t) } });
  };

  const apply = (b: Body, tb: number) => {
    if (b.kind === "link" && b.op === "new" && b.name) {
      const i = s.machines.findIndex((m) => m.name === b.name && m.ifindex !== b.ifindex);
      const old = i >= 0 ? s.machines[i] : undefined;
      if (old && (old.gone || !s.machines.some((m) => m.ifindex === b.ifindex))) {
        if (!old.gone) emit(old.onGone(tb));
        const m = new InterfaceMachine(b.ifindex, old.name, b.mac ?? old.mac, old.startedAt);
        s.machines[i] = m;
        s.givenUp.delete(old.ifindex);
        log({ event: "net.link.recreated", level: "warn", fields: { ifname: m.name, ifindex: m.ifindex, was: old.ifindex, ms: ms(s, tb) } });
        if (o.mode === "up") effects.push({ kind: "prepare", ifindex: m.ifindex, name: m.name });
      }
    }
    const idx = b.kind === "route" ? b.oif : "ifindex" in b ? b.ifindex : undefined;
    if (idx !== undefined && s.machines.some((m) => m.ifindex === idx)) relevant.push(b);
    for (const m of s.machines) {
      const wasOper = m.operUp;
      emit(m.apply(b, tb));
      if (o.mode === "up" && o.solicit && m.operUp && !wasOper && !m.raSeen && !s.solicited.has(m.ifindex)) {
        s.solicited.set(m.ifindex, tb + (o.rsRetryMs ?? RS_RETRY_MS));
        effects.push({ kind: "solicit", ifindex: m.ifindex, name: m.name, attempt: 1 });
      }
    }
  };

  switch (input.kind) {
    case "events":
      for (const b of input.bodies) apply(b, t);
      break;
    case "dump":
      if (input.what === "all") {
        for (const m of s.machines) m.resetForResync();
        const present = new Set(input.bodies.flatMap((b) => (b.kind === "link" ? [b.ifindex] : [])));
        for (const b of input.bodies) apply(b, t);
        for (const m of s.machines) if (!present.has(m.ifindex)) emit(m.onGone(t));
        if (!s.started) {
          s.started = true;
          if (o.mode === "up") {
            for (const m of s.machines) if (!m.adminUp && !m.gone) effects.push({ kind: "link-up", ifindex: m.ifindex, name: m.name });
            log({
              event: "net.wait",
              level: "info",
              fields: { interfaces: s.machines.map((m) => m.name), policy: o.policy, deadlineMs: ms(s, o.deadline), solicit: o.solicit, dnsNeeded: o.dnsNeeded },
              msg: "waiting for a usable global address, a default route and DNS (router advertisement)",
            });
          }
        }
      } else for (const b of input.bodies) apply(b, t);
      break;
    case "overrun":
      log({ event: "net.overrun", level: "warn", fields: {}, msg: "netlink event buffer overrun (ENOBUFS): re-dumping links, addresses and routes" });
      effects.push({ kind: "dump", what: "all" });
      break;
    case "tick":
      for (const m of s.machines) emit(m.tick(t));
      for (const [ifindex, due] of s.solicited) {
        if (due === undefined || due > t) continue;
        s.solicited.set(ifindex, undefined);
        const m = s.machines.find((x) => x.ifindex === ifindex);
        if (m && !m.raSeen && !m.gone) effects.push({ kind: "solicit", ifindex, name: m.name, attempt: 2 });
      }
      break;
    case "dns-written": {
      const r = input.outcome;
      if (r.ok) {
        if (r.how !== "unchanged") logs.push({ event: "net.dns.write", level: "debug", fields: { path: input.path, how: r.how } });
      } else {
        log({ event: "net.dns.write", level: o.dnsNeeded ? "error" : "warn", fields: { path: input.path, error: r.reason }, msg: `RA DNS not written: ${r.reason}` });
        if (o.mode === "up" && o.dnsNeeded) {
          const message = `DNS is required (--need-dns) but resolv.conf was not written: ${r.reason}`;
          s.settled = { kind: "fail", code: "dns_write", message, reasons: [message] };
        }
      }
      if (s.settled) return { logs, effects, relevant, verdict: s.settled, wakeAt: Infinity };
      {
      }
      break;
    }
  }

  // Addresses: the kernel does not announce a tentative SLAAC address; ask once per RA that needs it.
  if (s.machines.some((m) => m.wantAddrDump)) {
    for (const m of s.machines) m.wantAddrDump = false;
    effects.push({ kind: "dump", what: "addrs" });
  }

  // resolv.conf: only RA DNS, only once some RA carried it (never an empty file at start).
  let wakeAt = Math.min(t + TICK_MS, o.deadline);
  if (o.resolvConf && s.machines.some((m) => m.milestones.has("net.dns"))) {
    const text = renderResolvConf(collectDns(s.machines));
    if (text !== s.dnsText) {
      if (t - s.dnsPublishedAt >= DNS_MIN_INTERVAL_MS) {
        s.dnsText = text;
        s.dnsPublishedAt = t;
        effects.push({ kind: "write-dns", path: o.resolvConf, text });
      } else wakeAt = Math.min(wakeAt, s.dnsPublishedAt + DNS_MIN_INTERVAL_MS);
    }
  }
  // Lines held back by the rate limit: the last one goes out when its window ends.
  for (const h of s.repeats.values()) {
    if (!h.held) continue;
    if (t - h.lastAt >= LOG_REPEAT_MS) {
      logs.push({ ...h.held, fields: { ...h.held.fields, repeated: h.count } });
      h.lastAt = t;
      h.held = undefined;
      h.count = 0;
    } else wakeAt = Math.min(wakeAt, h.lastAt + LOG_REPEAT_MS);
  }
  for (const due of s.solicited.values()) if (due !== undefined) wakeAt = Math.min(wakeAt, due);

  const verdict = s.settled ?? decide(s, o, t, log);
  if (verdict.kind !== "wait") s.settled = verdict;
  // Never in the past: the loop would spin instead of reading events.
  return { logs, effects, relevant, verdict, wakeAt: verdict.kind === "wait" ? Math.max(wakeAt, t + 1) : Infinity };
}

function decide(s: CoreState, o: CoreOptions, t: number, log: (r: LogRecord) => void): Verdict {
  if (o.mode === "watch") return t >= o.deadline ? { kind: "end" } : { kind: "wait" };
  if (!s.started) return { kind: "wait" };
  const input = { policy: o.policy, dnsNeeded: o.dnsNeeded, now: t, deadline: o.deadline, carrierGraceMs: o.carrierGraceMs };
  for (const m of s.machines) {
    const dead = deadReason(m, input);
    const givenUp = dead === "carrier" || dead === "gone";
    if (givenUp && !s.givenUp.has(m.ifindex))
      log({ event: "net.link.nocarrier", level: "warn", fields: { ifname: m.name, ms: ms(s, t), gone: dead === "gone" }, msg: m.explain(o.dnsNeeded, t) });
    if (givenUp) s.givenUp.add(m.ifindex);
    else s.givenUp.delete(m.ifindex);
  }
  const v = evaluate(s.machines, input);
  if (v.kind === "wait") return v;
  if (v.kind === "ready") {
    const ready = v.ready.map((m) => m.name);
    log({ event: "net.ready", level: "info", fields: { interfaces: ready, policy: o.policy, ms: ms(s, t) } });
    return { kind: "ready", t, ready };
  }
  log({ event: "net.timeout", level: "error", fields: { code: v.code, reasons: v.reasons }, msg: v.message });
  return { kind: "fail", code: v.code, message: v.message, reasons: v.reasons };
}
