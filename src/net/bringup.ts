/**
 * The imperative shell of IPv6 bring-up: joins the event groups, selects the
 * interfaces, writes sysctls, sets links up, then feeds every event to the pure
 * per-interface machines until the readiness policy says ready or fail. Used by
 * `net up` and the network stage alike.
 */
import type { NicSelector } from "../config/params.ts";
import { AgentError } from "../errors.ts";
import type { NetworkSummary } from "../flow/state.ts";
import { logEvent, type Logger } from "../log/logger.ts";
import * as K from "../netlink/constants.ts";
import { EventSource } from "../netlink/event-source.ts";
import type { Body, Message } from "../netlink/message.ts";
import { NetlinkSocket } from "../netlink/socket.ts";
import { InterfaceMachine, type Emit } from "./machine.ts";
import { deadReason, evaluate, type Policy } from "./readiness.ts";
import { collectDns, renderResolvConf } from "./resolv.ts";
import { writeResolvConf } from "./resolv-file.ts";
import { sendRouterSolicitation } from "./rs-send.ts";
import { selectInterfaces, unmatchedSelectors, type LinkFacts } from "./select.ts";
import { applyInterfaceSysctls } from "./sysctl.ts";
import { sysfsHasDevice } from "./sysfs.ts";

export interface BringupOptions {
  readonly selectors: readonly NicSelector[];
  readonly policy: Policy;
  readonly timeoutMs: number;
  readonly fast: boolean;
  /** Send our own RS from :: at operstate UP (FIELD-NOTES §8); default: on in the fast profile. */
  readonly solicit?: boolean;
  /** Where RA DNS goes; undefined = nowhere. */
  readonly resolvConf: string | undefined;
  readonly dnsNeeded: boolean;
  readonly carrierGraceMs?: number;
  readonly sysfsRoot?: string;
  readonly procSysRoot?: string;
  readonly log: Logger;
}

export interface BringupResult {
  readonly summary: NetworkSummary;
  /** Epoch ms (fractional) of link-up and of readiness. */
  readonly linkUpAt: number;
  readonly readyAt: number;
  readonly ready: readonly string[];
}

const clock = () => performance.timeOrigin + performance.now();
const TICK_MS = 200;

export function linkFacts(bodies: readonly Body[]): LinkFacts[] {
  return bodies.flatMap((b) => (b.kind === "link" && b.name ? [{ ifindex: b.ifindex, name: b.name, mac: b.mac ?? "", flags: b.flags, kind: b.linkKind }] : []));
}

export function summarize(machines: readonly InterfaceMachine[], dnsNeeded: boolean, t0: number): NetworkSummary {
  const timingsMs: Record<string, number> = {};
  for (const m of machines) for (const [e, t] of m.milestones) timingsMs[`${m.name}.${e.slice(4)}`] = Math.round((t - t0) * 10) / 10;
  const dns = collectDns(machines);
  return {
    interfaces: machines.map((m) => ({
      name: m.name,
      mac: m.mac,
      addresses: m.globalUsable().map((a) => `${a.address}/${a.prefixlen}`),
      defaultRouters: [...m.routers],
      state: m.step(dnsNeeded),
    })),
    dns: { servers: [...dns.servers], search: [...dns.search] },
    timingsMs,
  };
}

/** Selects and prepares the interfaces (sysctls); shared by `net up`, `net watch` and the stage. */
export function prepare(rq: NetlinkSocket, opts: Pick<BringupOptions, "selectors" | "fast" | "sysfsRoot" | "procSysRoot" | "log">, writeSysctls: boolean): readonly LinkFacts[] {
  const links = linkFacts(rq.dumpLinks());
  const { selected, skipped } = selectInterfaces(links, opts.selectors, sysfsHasDevice(opts.sysfsRoot));
  const missing = unmatchedSelectors(links, opts.selectors).map((s) => (s.kind === "name" ? s.name : s.mac));
  logEvent(opts.log, "net.select", { selected: selected.map((l) => l.name), skipped, missing });
  if (selected.length === 0) {
    const seen = links.map((l) => l.name).join(", ");
    const want = opts.selectors.length > 0 ? `METAL_NICS ${opts.selectors.map((s) => (s.kind === "name" ? s.name : s.mac)).join(",")}` : "a physical NIC (device link in sysfs)";
    throw new AgentError("no_interface", `no network interface matches ${want}; present: ${seen || "none"}`, { present: links.map((l) => l.name) });
  }
  if (writeSysctls) {
    const root = opts.procSysRoot ?? "/proc/sys";
    for (const name of ["default", ...selected.map((l) => l.name)]) {
      const writes = applyInterfaceSysctls(root, name, opts.fast);
      logEvent(opts.log, "net.sysctl", { ifname: name, fast: opts.fast, writes }, undefined, "debug");
    }
  }
  return selected;
}

export async function bringUp(opts: BringupOptions): Promise<BringupResult> {
  const { log } = opts;
  const solicit = opts.solicit ?? opts.fast;
  const grace = Math.min(opts.carrierGraceMs ?? 10_000, opts.timeoutMs);
  let machines: InterfaceMachine[] = [];
  const pending: { msgs: readonly Message[]; t: number }[] = [];
  let onMessages = (msgs: readonly Message[], t: number) => void pending.push({ msgs, t });
  let onOverrun = (_t: number) => {};
  let early: AgentError | undefined;
  let onFailed: (e: AgentError) => void = (e) => {
    early ??= e;
  };
  const src = await EventSource.start({ messages: (m, t) => onMessages(m, t), overrun: (t) => onOverrun(t), failed: (e) => onFailed(e) });
  let rq: NetlinkSocket | undefined;
  let tick: ReturnType<typeof setInterval> | undefined;
  const rsTimers: ReturnType<typeof setTimeout>[] = [];
  try {
    rq = NetlinkSocket.open();
    const r = rq;
    const selected = prepare(r, opts, true);
    const t0 = clock();
    machines = selected.map((l) => new InterfaceMachine(l.ifindex, l.name, l.mac, t0));
    const emit = (es: readonly Emit[]) => {
      for (const e of es) logEvent(log, e.event, { ...e.fields, ms: Math.round((e.t - t0) * 10) / 10 }, undefined, e.level);
    };
    let lastDns = "";
    const afterEvents = () => {
      for (const m of machines) {
        if (!m.wantAddrDump) continue;
        m.wantAddrDump = false;
        const t = clock();
        for (const b of r.dumpAddrs()) emit(m.apply(b, t));
      }
      // Only RA DNS is written, and only once some RA carried it (never an empty file at start).
      if (opts.resolvConf && machines.some((m) => m.milestones.has("net.dns"))) {
        const text = renderResolvConf(collectDns(machines));
        if (text !== lastDns) {
          lastDns = text;
          if (writeResolvConf(opts.resolvConf, text)) log.debug({ event: "net.dns", path: opts.resolvConf }, "resolv.conf written");
        }
      }
    };
    const solicited = new Set<number>();
    const feed = (msgs: readonly Message[], t: number) => {
      for (const { body } of msgs) {
        for (const m of machines) {
          const wasOper = m.operUp;
          emit(m.apply(body, t));
          if (solicit && m.operUp && !wasOper && !m.raSeen && !solicited.has(m.ifindex)) {
            solicited.add(m.ifindex);
            const send = (attempt: number) => {
              const err = sendRouterSolicitation(m.ifindex);
              log.debug({ event: "net.rs.sent", ifname: m.name, attempt, err }, "router solicitation from :: sent");
            };
            send(1);
            rsTimers.push(setTimeout(() => !m.raSeen && send(2), 250 + Math.random() * 100));
          }
        }
      }
    };
    const resync = () => {
      const t = clock();
      for (const m of machines) m.resetForResync();
      feed([...r.dumpLinks(), ...r.dumpAddrs(), ...r.dumpRoutes()].map((body) => ({ header: { len: 0, type: 0, flags: 0, seq: 0, pid: 0 }, body })), t);
      afterEvents();
    };
    // Initial state (links may already be up), then anything that arrived meanwhile.
    resync();
    for (const p of pending.splice(0)) feed(p.msgs, p.t);

    for (const m of machines) {
      if (m.adminUp) continue;
      r.setLinkUp(m.ifindex, m.name);
    }
    log.info({ event: "net.wait", interfaces: machines.map((m) => m.name), policy: opts.policy, timeoutMs: opts.timeoutMs, fast: opts.fast, dnsNeeded: opts.dnsNeeded }, "waiting for a usable global address, a default route and DNS (router advertisement)");

    const deadline = t0 + opts.timeoutMs;
    const readyAt = await new Promise<number>((resolve, reject) => {
      let settled = false;
      const givenUp = new Set<number>();
      const check = () => {
        if (settled) return;
        const input = { policy: opts.policy, dnsNeeded: opts.dnsNeeded, now: clock(), deadline, carrierGraceMs: grace };
        for (const m of machines) {
          const dead = deadReason(m, input) === "carrier";
          if (dead && !givenUp.has(m.ifindex)) logEvent(log, "net.link.nocarrier", { ifname: m.name, ms: Math.round(input.now - t0) }, m.explain(opts.dnsNeeded, input.now), "warn");
          if (dead) givenUp.add(m.ifindex);
          else givenUp.delete(m.ifindex);
        }
        const v = evaluate(machines, input);
        if (v.kind !== "wait") settled = true;
        if (v.kind === "ready") {
          const t = clock();
          logEvent(log, "net.ready", { interfaces: v.ready.map((m) => m.name), policy: opts.policy, ms: Math.round((t - t0) * 10) / 10 });
          resolve(t);
        } else if (v.kind === "fail") {
          logEvent(log, "net.timeout", { code: v.code, reasons: v.reasons }, v.message, "error");
          reject(new AgentError(v.code, v.message, { reasons: v.reasons }));
        }
      };
      onMessages = (msgs, t) => {
        try {
          feed(msgs, t);
          afterEvents();
          check();
        } catch (e) {
          reject(e);
        }
      };
      onOverrun = () => {
        log.warn({ event: "net.overrun" }, "netlink event buffer overrun (ENOBUFS): re-dumping links, addresses and routes");
        try {
          resync();
          check();
        } catch (e) {
          reject(e);
        }
      };
      onFailed = reject;
      if (early) return reject(early);
      tick = setInterval(() => {
        const t = clock();
        for (const m of machines) emit(m.tick(t));
        afterEvents();
        check();
      }, TICK_MS);
      check();
    });
    return { summary: summarize(machines, opts.dnsNeeded, t0), linkUpAt: t0, readyAt, ready: machines.filter((m) => m.step(opts.dnsNeeded) === "ready").map((m) => m.name) };
  } finally {
    if (tick) clearInterval(tick);
    for (const t of rsTimers) clearTimeout(t);
    rq?.close();
    await src.stop();
  }
}
