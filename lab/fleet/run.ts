/**
 * One fleet run: power on N machines at once, optionally with a fault, and wait (bounded)
 * until every machine is registered and waiting. Faults: `outage` takes the servers away
 * as the machines ask metal-boot and again while they Wait (state kept, as a restart of
 * the real servers); `unavailable` puts a balancer with a third of its backends down in
 * front of the apiserver from power-on for `unavailableMs` (every third apiserver request
 * answered 503, by a counter), and the run lasts at least until that window closed.
 * Returns the figures; the caller prints or asserts them.
 */
import { Fleet, type FleetMachine } from "./fleet.ts";
import { answersPerMachine, comebacks, firstTimes, largestBurst, retriesAfter, spread, timeTo, unavailableRetries, type Spread } from "./report.ts";
import { waitFor } from "../wait.ts";

export const FLEET_SCENARIOS = ["none", "outage", "unavailable"] as const;
export type FleetScenario = (typeof FLEET_SCENARIOS)[number];
/** The `unavailable` scenario: every this many-th apiserver request is answered 503. */
export const UNAVAILABLE_EVERY = 3;

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
  readonly burst: { readonly requests: number; readonly atMs: number };
  /** The retries the request log shows after a 503 (the same machine's next request to the same path): how long after, and the most in one 100 ms. */
  readonly retryDelayMs: Spread;
  readonly retryBurst: { readonly requests: number; readonly atMs: number };
}

export interface FleetResult {
  readonly machines: number;
  readonly scenario: FleetScenario;
  readonly registered: number;
  /** Machines with an open Wait stream at the end (registered and waiting). */
  readonly waiting: number;
  /** Agents that ended before the run did (they should all still be waiting), with their exit codes. */
  readonly ended: readonly { readonly uuid: string; readonly exitCode: number; readonly lastLine: string }[];
  readonly toNetworkReady: Spread;
  readonly toRegister: Spread;
  readonly toWait: Spread;
  /** Requests that began in the fullest 100 ms, over the run and after each outage ended. */
  readonly burst: { readonly requests: number; readonly atMs: number };
  readonly burstsAfterOutage: readonly { readonly requests: number; readonly atMs: number }[];
  /** After each outage: the most machines that came back (their first request, or their Wait) in any 100 ms. */
  readonly comebackBursts: readonly { readonly requests: number; readonly atMs: number }[];
  readonly outages: readonly { readonly downAt: number; readonly upAt: number }[];
  readonly peakRssMiB: Spread;
  /** Private memory (RssAnon) per agent at the end of the run. */
  readonly privateMiB: Spread;
  readonly unavailable?: UnavailableFigures;
  readonly requests: number;
  readonly wallMs: number;
}

export interface FleetRunOptions {
  readonly machines: number;
  readonly scenario: FleetScenario;
  /** Bound of the whole run, ms. */
  readonly timeoutMs: number;
  readonly outageMs?: number;
  /** The `unavailable` window, ms (default 60 s). */
  readonly unavailableMs?: number;
  readonly keep?: boolean;
  /** Called with progress lines. */
  readonly progress?: (line: string) => void;
}

const lastLine = (m: FleetMachine) => m.stderr.trim().split("\n").at(-1) ?? "";

export async function runFleet(o: FleetRunOptions): Promise<FleetResult> {
  const say = o.progress ?? (() => {});
  const fleet = new Fleet({ machines: o.machines });
  const t0 = Date.now();
  const deadline = t0 + o.timeoutMs;
  const left = () => Math.max(1_000, deadline - Date.now());
  const outages: { downAt: number; upAt: number }[] = [];
  const outageMs = o.outageMs ?? 10_000;
  const allWaiting = async (what: string) => {
    await waitFor(
      async () => {
        const dead = fleet.machines.filter((m) => m.exitCode !== undefined);
        if (dead.length > 0) return true; // reported below
        // A stand-in busy with a rack's requests may answer its control endpoint late: ask again.
        const st = await fleet.standinMachines().catch(() => undefined);
        return (st?.openWaits.length ?? 0) >= o.machines;
      },
      left(),
      what,
      250,
    );
  };
  try {
    say(`fleet: ${o.machines} machines, scenario ${o.scenario}: setting up namespaces, leaves, lldpd, radvd, stand-ins`);
    await fleet.setUp();
    say(`fleet: set up in ${((Date.now() - t0) / 1000).toFixed(1)} s; powering on`);
    let window: { readonly startedAt: number; readonly endsAt: number } | undefined;
    if (o.scenario === "unavailable") {
      // Open from the power-on: the balancer is set, then the rack powered on.
      const w = await fleet.unavailable(UNAVAILABLE_EVERY, o.unavailableMs ?? 60_000);
      window = { startedAt: w.startedAt ?? Date.now(), endsAt: w.endsAt ?? Date.now() };
      say(`fleet: 1 in ${UNAVAILABLE_EVERY} apiserver requests answered 503 (by a counter) for ${((o.unavailableMs ?? 60_000) / 1000).toFixed(0)} s`);
    }
    const on = Date.now();
    fleet.startAgents();
    if (o.scenario === "outage") {
      // Down just as the machines ask metal-boot for their config.
      await waitFor(() => fleet.requests().some((r) => r.path.startsWith("/config/")), left(), "the first machine asking metal-boot", 20);
      say("fleet: servers down (metal-boot asked)");
      outages.push(await fleet.outage(outageMs));
      await allWaiting("every machine registered and waiting after the first outage");
      say("fleet: servers down (every machine waiting)");
      outages.push(await fleet.outage(outageMs));
    }
    await allWaiting("every machine registered and waiting");
    let balancer: Awaited<ReturnType<typeof fleet.unavailableReport>> | undefined;
    if (window) {
      // The window's counts are complete once it closed; the machines must still be waiting then.
      const endsAt = window.endsAt;
      balancer = await waitFor(
        async () => {
          if (Date.now() < endsAt) return false;
          const r = await fleet.unavailableReport().catch(() => undefined);
          return r && !r.active ? r : false;
        },
        left(),
        "the balancer's 503 window to close",
        250,
      );
      await allWaiting("every machine still registered and waiting after the 503 window");
    }
    fleet.readPeaks();
    const addresses = window ? await fleet.addresses() : [];
    const st = await fleet.standinMachines();
    const traces = fleet.machines.map((m) => ({
      startedAt: m.startedAt,
      firsts: firstTimes(m.logs),
      ...(m.exitCode !== undefined ? { exitCode: m.exitCode } : {}),
      ...(m.peakKb ? { peakKb: m.peakKb } : {}),
      ...(m.anonKb ? { anonKb: m.anonKb } : {}),
    }));
    // Answered requests from the log, plus every Wait stream's opening (an open Wait is never answered, so never logged);
    // a Wait the balancer answered 503 never opened a stream, so it counts from the log.
    // The run's own control requests (/_standin/...) are in the log too: not the machines' load.
    const log = fleet
      .requests()
      .filter((r) => !r.path.startsWith("/_standin/"))
      .map((r) => ({ ...r, time: Date.parse(r.time) }));
    const times = [...log.filter((r) => !r.path.endsWith("/Wait") || r.status === 503).map((r) => r.time), ...st.waitOpenedAt];
    const unavailable: UnavailableFigures | undefined =
      window && balancer
        ? (() => {
            const answered = answersPerMachine(log, addresses, 503);
            // A Wait answered 503 comes back as a Wait stream (not in the log when it stays open): only unary retries are paired here.
            const retries = retriesAfter(log.filter((r) => r.server === "api" && !r.path.endsWith("/Wait")));
            const { startedAt, endsAt } = window;
            return {
              every: balancer.every,
              ms: balancer.ms,
              requests: balancer.requests,
              sent: balancer.unavailable,
              inLog: log.filter((r) => r.server === "api" && r.status === 503).length,
              perMachine: fleet.machines.map((m, i) => ({ uuid: m.uuid, answered: answered[i] ?? 0, retried: unavailableRetries(m.logs) })),
              burst: largestBurst(times.filter((t) => t >= startedAt && t < endsAt)),
              retryDelayMs: spread(retries.map((x) => x.delayMs)),
              retryBurst: largestBurst(retries.map((x) => x.at)),
            };
          })()
        : undefined;
    return {
      machines: o.machines,
      scenario: o.scenario,
      registered: Object.keys(st.registered).length,
      waiting: st.openWaits.length,
      ended: fleet.machines.filter((m) => m.exitCode !== undefined).map((m) => ({ uuid: m.uuid, exitCode: m.exitCode as number, lastLine: lastLine(m) })),
      toNetworkReady: timeTo(traces, "net.ready"),
      toRegister: timeTo(traces, "provision.register"),
      toWait: timeTo(traces, "provision.wait"),
      burst: largestBurst(times.filter((t) => t >= on)),
      burstsAfterOutage: outages.map((x) => largestBurst(times, x.upAt)),
      comebackBursts: outages.map((x) => largestBurst(comebacks(log, st.waitOpenedAt, x.upAt), x.upAt)),
      outages,
      peakRssMiB: spread(traces.flatMap((t) => (t.peakKb ? [t.peakKb / 1024] : []))),
      privateMiB: spread(traces.flatMap((t) => (t.anonKb ? [t.anonKb / 1024] : []))),
      ...(unavailable ? { unavailable } : {}),
      requests: times.length,
      wallMs: Date.now() - on,
    };
  } finally {
    await fleet.tearDown(o.keep);
  }
}
