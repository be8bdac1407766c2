/**
 * IPv6 bring-up for `net up` and the network stage: subscribes to the events
 * first, selects the interfaces, writes their sysctls, then runs the one loop
 * (loop.ts) over the reducer (reducer.ts), which sets the links up and decides
 * until ready or fail.
 */
import { appendFileSync, writeFileSync } from "node:fs";
import type { NicSelector } from "../../config/params.ts";
import { AgentError } from "../../platform/errors.ts";
import type { NetworkSummary } from "./summary.ts";
import { logEvent, type Logger } from "../../platform/log/logger.ts";
import { EventSource } from "../netlink/event-source.ts";
import { NetlinkSocket } from "../netlink/socket.ts";
import { clock, runLoop } from "./loop.ts";
import type { InterfaceMachine } from "./machine.ts";
import type { Policy } from "./readiness.ts";
import { initialState, RS_RETRY_MS, type CoreOptions, type Input } from "./reducer.ts";
import { encodeLine } from "./record.ts";
import { collectDns } from "./resolv.ts";
import { selectLinks } from "./select-links.ts";
import { applyInterfaceSysctls, type SysctlProfile } from "./sysctl.ts";

export interface BringupOptions {
  readonly selectors: readonly NicSelector[];
  readonly policy: Policy;
  readonly timeoutMs: number;
  readonly fast: boolean;
  /** Send our own RS from :: at operstate UP (docs/network.md); default: on unless rsDelay. */
  readonly solicit?: boolean;
  /**
   * Keep the kernel's random router_solicitation_delay (RFC 4861/4862, for segments
   * shared by many hosts; METAL_NET_RS_DELAY=1). Default false: the delay is set to 0
   * on the selected interfaces and our own RS goes out at link-up.
   */
  readonly rsDelay?: boolean;
  /** Where RA DNS goes; undefined = nowhere. */
  readonly resolvConf: string | undefined;
  readonly dnsNeeded: boolean;
  readonly carrierGraceMs?: number;
  /** Append every reducer input to this file as JSON lines (record.ts), for replay in tests. */
  readonly record?: string;
  /** The sysfs root NIC selection reads (select-links.ts; default /sys). */
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
  /** Epoch ms of the steps before link-up: bring-up entered, events subscribed, links selected, sysctls written. */
  readonly startup: { readonly entered: number; readonly subscribed: number; readonly selected: number; readonly sysctls: number };
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

/** The sysctls of one interface (or "default"), logged at debug. */
function writeSysctls(opts: BringupOptions, profile: SysctlProfile, name: string): void {
  const writes = applyInterfaceSysctls(opts.procSysRoot ?? "/proc/sys", name, profile);
  logEvent(opts.log, "net.sysctl", { ifname: name, ...profile, writes }, undefined, "debug");
}

export async function bringUp(opts: BringupOptions): Promise<BringupResult> {
  const { log } = opts;
  const rsDelay = opts.rsDelay === true;
  const solicit = opts.solicit ?? !rsDelay;
  const profile: SysctlProfile = { fast: opts.fast, noRsDelay: !rsDelay };
  const entered = clock();
  // Subscribe first: from here on the kernel queues every event for us.
  const src = EventSource.subscribe();
  const subscribed = clock();
  let rq: NetlinkSocket | undefined;
  try {
    rq = NetlinkSocket.open();
    const selected = selectLinks(rq, opts);
    const selectedAt = clock();
    for (const name of ["default", ...selected.map((l) => l.name)]) writeSysctls(opts, profile, name);
    const t0 = clock();
    const state = initialState(selected, t0);
    const options: CoreOptions = {
      mode: "up",
      policy: opts.policy,
      dnsNeeded: opts.dnsNeeded,
      solicit,
      resolvConf: opts.resolvConf,
      deadline: t0 + opts.timeoutMs,
      carrierGraceMs: Math.min(opts.carrierGraceMs ?? 10_000, opts.timeoutMs),
      // 250-350 ms: jittered around RS_RETRY_MS (docs/network.md: retry once at ~300 ms).
      rsRetryMs: RS_RETRY_MS - 50 + Math.random() * 100,
    };
    const rec = opts.record;
    if (rec) writeFileSync(rec, encodeLine({ options, selected, t0 }));
    const { verdict, linkUpAt } = await runLoop(src, state, options, {
      rq,
      log,
      prepareLink: (name) => writeSysctls(opts, profile, name),
      ...(rec ? { record: (input: Input) => appendFileSync(rec, encodeLine(input)) } : {}),
    });
    if (verdict.kind === "fail") throw new AgentError(verdict.code, verdict.message, { reasons: verdict.reasons });
    if (verdict.kind !== "ready") throw new AgentError("internal", `bring-up ended without a verdict (${verdict.kind})`);
    return {
      summary: summarize(state.machines, opts.dnsNeeded, t0),
      linkUpAt: linkUpAt ?? t0,
      readyAt: verdict.t,
      ready: verdict.ready,
      startup: { entered, subscribed, selected: selectedAt, sysctls: t0 },
    };
  } finally {
    rq?.close();
    await src.stop();
  }
}
