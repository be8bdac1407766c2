/**
 * One fleet run: power on N machines at once, optionally take the servers away as they
 * ask metal-boot and again while they Wait (state kept, as a restart of the real
 * servers), and wait (bounded) until every machine is registered and waiting. Returns
 * the figures; the caller prints or asserts them.
 */
import { Fleet, type FleetMachine } from "./fleet.ts";
import { comebacks, firstTimes, largestBurst, spread, timeTo, type Spread } from "./report.ts";
import { waitFor } from "../wait.ts";

export type FleetScenario = "none" | "outage";

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
  readonly requests: number;
  readonly wallMs: number;
}

export interface FleetRunOptions {
  readonly machines: number;
  readonly scenario: FleetScenario;
  /** Bound of the whole run, ms. */
  readonly timeoutMs: number;
  readonly outageMs?: number;
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
    fleet.readPeaks();
    const st = await fleet.standinMachines();
    const traces = fleet.machines.map((m) => ({
      startedAt: m.startedAt,
      firsts: firstTimes(m.logs),
      ...(m.exitCode !== undefined ? { exitCode: m.exitCode } : {}),
      ...(m.peakKb ? { peakKb: m.peakKb } : {}),
    }));
    // Answered requests from the log, plus every Wait stream's opening (an open Wait is never answered, so never logged).
    const log = fleet.requests().map((r) => ({ ...r, time: Date.parse(r.time) }));
    const times = [...log.filter((r) => !r.path.endsWith("/Wait")).map((r) => r.time), ...st.waitOpenedAt];
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
      requests: times.length,
      wallMs: Date.now() - on,
    };
  } finally {
    await fleet.tearDown(o.keep);
  }
}
