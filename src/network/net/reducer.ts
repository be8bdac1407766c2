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
import type { ErrorCode } from "../../platform/errors.ts";
import type { EventName } from "../../platform/log/events.ts";
import type { Body } from "../netlink/message.ts";
import { InterfaceMachine, type Emit } from "./machine.ts";
import { deadReason, evaluate, type Policy, type ReadinessInput } from "./readiness.ts";
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

/** One call of reduce: its input's time and what it returns, filled by the steps below. */
interface Round {
  readonly s: CoreState;
  readonly o: CoreOptions;
  readonly t: number;
  readonly logs: LogRecord[];
  readonly effects: Effect[];
  readonly relevant: Body[];
  /** The earliest time a step wants a tick. */
  wakeAt: number;
}

export function reduce(s: CoreState, o: CoreOptions, input: Input): Output {
  const r: Round = { s, o, t: input.t, logs: [], effects: [], relevant: [], wakeAt: Math.min(input.t + TICK_MS, o.deadline) };
  // Settled, except for the outcome of the resolv.conf write that the deciding input caused.
  if (s.settled && !(input.kind === "dns-written" && s.settled.kind === "ready")) return settledOutput(r, s.settled);
  switch (input.kind) {
    case "events":
      applyAll(r, input.bodies);
      break;
    case "dump":
      if (input.what === "all") resync(r, input.bodies);
      else applyAll(r, input.bodies);
      break;
    case "overrun":
      onOverrun(r);
      break;
    case "tick":
      onTick(r);
      break;
    case "dns-written":
      onDnsWritten(r, input.path, input.outcome);
      if (s.settled) return settledOutput(r, s.settled);
      break;
  }
  requestAddrDump(r);
  publishDns(r);
  flushHeld(r);
  wakeForSolicits(r);
  const verdict = s.settled ?? decide(r);
  if (verdict.kind !== "wait") s.settled = verdict;
  // Never in the past: the loop would spin instead of reading events.
  return { logs: r.logs, effects: r.effects, relevant: r.relevant, verdict, wakeAt: verdict.kind === "wait" ? Math.max(r.wakeAt, r.t + 1) : Infinity };
}

function settledOutput(r: Round, verdict: Verdict): Output {
  return { logs: r.logs, effects: r.effects, relevant: r.relevant, verdict, wakeAt: Infinity };
}

/** Rate-limits repeated lines per event and interface; the rest pass through. */
function log(r: Round, rec: LogRecord): void {
  if (!REPEATED.has(rec.event)) return void r.logs.push(rec);
  const key = `${rec.event}/${String(rec.fields.ifname ?? "")}`;
  const h = r.s.repeats.get(key) ?? { lastAt: -Infinity, held: undefined, count: 0 };
  r.s.repeats.set(key, h);
  if (r.t - h.lastAt >= LOG_REPEAT_MS) {
    h.lastAt = r.t;
    h.held = undefined;
    h.count = 0;
    r.logs.push(rec);
  } else {
    h.held = rec;
    h.count++;
  }
}

function emit(r: Round, es: readonly Emit[]): void {
  for (const e of es) log(r, { event: e.event, level: e.level, fields: { ...e.fields, ms: ms(r.s, e.t) } });
}

function applyAll(r: Round, bodies: readonly Body[]): void {
  for (const b of bodies) apply(r, b);
}

/** One rtnetlink body: follow a re-created interface, note it when it concerns us, feed every machine. */
function apply(r: Round, b: Body): void {
  followRecreated(r, b);
  const idx = b.kind === "route" ? b.oif : "ifindex" in b ? b.ifindex : undefined;
  if (idx !== undefined && r.s.machines.some((m) => m.ifindex === idx)) r.relevant.push(b);
  for (const m of r.s.machines) {
    const wasOper = m.operUp;
    emit(r, m.apply(b, r.t));
    if (!wasOper) solicitFirst(r, m);
  }
}

/** A selected name that shows up under a new ifindex (its old one gone, or not taken): a new machine under that name. */
function followRecreated(r: Round, b: Body): void {
  if (b.kind !== "link" || b.op !== "new" || !b.name) return;
  const { s } = r;
  const i = s.machines.findIndex((m) => m.name === b.name && m.ifindex !== b.ifindex);
  const old = i >= 0 ? s.machines[i] : undefined;
  if (!old || !(old.gone || !s.machines.some((m) => m.ifindex === b.ifindex))) return;
  if (!old.gone) emit(r, old.onGone(r.t));
  const m = new InterfaceMachine(b.ifindex, old.name, b.mac ?? old.mac, old.startedAt);
  s.machines[i] = m;
  s.givenUp.delete(old.ifindex);
  log(r, { event: "net.link.recreated", level: "warn", fields: { ifname: m.name, ifindex: m.ifindex, was: old.ifindex, ms: ms(s, r.t) } });
  if (r.o.mode === "up") r.effects.push({ kind: "prepare", ifindex: m.ifindex, name: m.name });
}

/** Our own RS when a link has just reached operstate UP before any RA; the retry is due rsRetryMs later. */
function solicitFirst(r: Round, m: InterfaceMachine): void {
  const { s, o } = r;
  if (o.mode !== "up" || !o.solicit || !m.operUp || m.raSeen || s.solicited.has(m.ifindex)) return;
  s.solicited.set(m.ifindex, r.t + (o.rsRetryMs ?? RS_RETRY_MS));
  r.effects.push({ kind: "solicit", ifindex: m.ifindex, name: m.name, attempt: 1 });
}

/** A full dump: every machine resynced from it, those it lacks gone; the first one starts bring-up. */
function resync(r: Round, bodies: readonly Body[]): void {
  for (const m of r.s.machines) m.resetForResync();
  const present = new Set(bodies.flatMap((b) => (b.kind === "link" ? [b.ifindex] : [])));
  applyAll(r, bodies);
  for (const m of r.s.machines) if (!present.has(m.ifindex)) emit(r, m.onGone(r.t));
  if (!r.s.started) start(r);
}

/** After the first full dump (mode up): every selected link that is down set up, and the wait announced. */
function start(r: Round): void {
  const { s, o } = r;
  s.started = true;
  if (o.mode !== "up") return;
  for (const m of s.machines) if (!m.adminUp && !m.gone) r.effects.push({ kind: "link-up", ifindex: m.ifindex, name: m.name });
  log(r, {
    event: "net.wait",
    level: "info",
    fields: { interfaces: s.machines.map((m) => m.name), policy: o.policy, deadlineMs: ms(s, o.deadline), solicit: o.solicit, dnsNeeded: o.dnsNeeded },
    msg: "waiting for a usable global address, a default route and DNS (router advertisement)",
  });
}

function onOverrun(r: Round): void {
  log(r, { event: "net.overrun", level: "warn", fields: {}, msg: "netlink event buffer overrun (ENOBUFS): re-dumping links, addresses and routes" });
  r.effects.push({ kind: "dump", what: "all" });
}

/** Time passes for every machine; the RS retries that are due and still wanted go out. */
function onTick(r: Round): void {
  const { s, t } = r;
  for (const m of s.machines) emit(r, m.tick(t));
  for (const [ifindex, due] of s.solicited) {
    if (due === undefined || due > t) continue;
    s.solicited.set(ifindex, undefined);
    const m = s.machines.find((x) => x.ifindex === ifindex);
    if (m && !m.raSeen && !m.gone) r.effects.push({ kind: "solicit", ifindex, name: m.name, attempt: 2 });
  }
}

/** A failed write is a warning, or the end (dns_write) when DNS is required in mode up. */
function onDnsWritten(r: Round, path: string, outcome: WriteOutcome): void {
  const { o } = r;
  if (outcome.ok) {
    if (outcome.how !== "unchanged") r.logs.push({ event: "net.dns.write", level: "debug", fields: { path, how: outcome.how } });
    return;
  }
  log(r, { event: "net.dns.write", level: o.dnsNeeded ? "error" : "warn", fields: { path, error: outcome.reason }, msg: `RA DNS not written: ${outcome.reason}` });
  if (o.mode === "up" && o.dnsNeeded) {
    const message = `DNS is required (--need-dns) but resolv.conf was not written: ${outcome.reason}`;
    r.s.settled = { kind: "fail", code: "dns_write", message, reasons: [message] };
  }
}

/** The kernel does not announce a tentative SLAAC address: one address dump per round that an RA needs it in. */
function requestAddrDump(r: Round): void {
  if (!r.s.machines.some((m) => m.wantAddrDump)) return;
  for (const m of r.s.machines) m.wantAddrDump = false;
  r.effects.push({ kind: "dump", what: "addrs" });
}

/** resolv.conf: only RA DNS, only once some RA carried it (never an empty file at start), at most once per DNS_MIN_INTERVAL_MS. */
function publishDns(r: Round): void {
  const { s, o, t } = r;
  if (!o.resolvConf || !s.machines.some((m) => m.milestones.has("net.dns"))) return;
  const text = renderResolvConf(collectDns(s.machines));
  if (text === s.dnsText) return;
  if (t - s.dnsPublishedAt >= DNS_MIN_INTERVAL_MS) {
    s.dnsText = text;
    s.dnsPublishedAt = t;
    r.effects.push({ kind: "write-dns", path: o.resolvConf, text });
  } else r.wakeAt = Math.min(r.wakeAt, s.dnsPublishedAt + DNS_MIN_INTERVAL_MS);
}

/** Lines held back by the rate limit: the last one goes out, with its count, when its window ends. */
function flushHeld(r: Round): void {
  for (const h of r.s.repeats.values()) {
    if (!h.held) continue;
    if (r.t - h.lastAt >= LOG_REPEAT_MS) {
      r.logs.push({ ...h.held, fields: { ...h.held.fields, repeated: h.count } });
      h.lastAt = r.t;
      h.held = undefined;
      h.count = 0;
    } else r.wakeAt = Math.min(r.wakeAt, h.lastAt + LOG_REPEAT_MS);
  }
}

function wakeForSolicits(r: Round): void {
  for (const due of r.s.solicited.values()) if (due !== undefined) r.wakeAt = Math.min(r.wakeAt, due);
}

/** The verdict from the machines' current facts (readiness.ts); mode watch only ends at its deadline. */
function decide(r: Round): Verdict {
  const { s, o, t } = r;
  if (o.mode === "watch") return t >= o.deadline ? { kind: "end" } : { kind: "wait" };
  if (!s.started) return { kind: "wait" };
  const input = { policy: o.policy, dnsNeeded: o.dnsNeeded, now: t, deadline: o.deadline, carrierGraceMs: o.carrierGraceMs };
  noteGivenUp(r, input);
  const v = evaluate(s.machines, input);
  if (v.kind === "wait") return v;
  if (v.kind === "ready") {
    const ready = v.ready.map((m) => m.name);
    log(r, { event: "net.ready", level: "info", fields: { interfaces: ready, policy: o.policy, ms: ms(s, t) } });
    return { kind: "ready", t, ready };
  }
  log(r, { event: "net.timeout", level: "error", fields: { code: v.code, reasons: v.reasons }, msg: v.message });
  return { kind: "fail", code: v.code, message: v.message, reasons: v.reasons };
}

/** Interfaces given up (no carrier past the grace, or gone): one line when one is, again only after it came back. */
function noteGivenUp(r: Round, input: ReadinessInput): void {
  const { s, o, t } = r;
  for (const m of s.machines) {
    const dead = deadReason(m, input);
    const givenUp = dead === "carrier" || dead === "gone";
    if (givenUp && !s.givenUp.has(m.ifindex))
      log(r, { event: "net.link.nocarrier", level: "warn", fields: { ifname: m.name, ms: ms(s, t), gone: dead === "gone" }, msg: m.explain(o.dnsNeeded, t) });
    if (givenUp) s.givenUp.add(m.ifindex);
    else s.givenUp.delete(m.ifindex);
  }
}
