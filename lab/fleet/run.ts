/**
 * One fleet run: power on N machines at once, optionally with a fault, and wait (bounded)
 * until every machine is registered and waiting. Faults: `outage` takes the servers away
 * as the machines ask metal-boot and again while they Wait (state kept, as a restart of
 * the real servers); `unavailable` puts a balancer with a third of its backends down in
 * front of the apiserver for `unavailableMs` from its first request (every third apiserver request
 * answered 503, by a counter), and the run lasts at least until that window closed;
 * `image-drop` waits until every machine waits, then has each run the agent's image
 * install (`metal-hammer image install`, in its namespace, diskless, into a directory of its
 * run dir) of the lab's test image from the image cache while the cache closes every
 * connection after `dropAfterBytes` of its body for `dropMs` from the moment every
 * machine's download started (the cache holds the first GETs until the last one came;
 * the installs resume by Range and finish).
 * Returns the figures; the caller prints or asserts them.
 */
import { spawnSync } from "node:child_process";
import { lstatSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildTestImage, type TestImage } from "../images/build.ts";
import { IMAGE_PATH } from "../standins/image-cache.ts";
import { Fleet, type FleetMachine, type ServerRequest } from "./fleet.ts";
import type { UnavailableReport } from "../standins/unavailable.ts";
import {
  answersPerMachine,
  comebacks,
  countsPerMachine,
  getsPerMachine,
  firstTimes,
  largestBurst,
  retriesAfter,
  spread,
  timeTo,
  unavailableRetries,
  type Burst,
  type ImageDropFigures,
  type ImageDropMachine,
  type Spread,
  type UnavailableFigures,
} from "./report.ts";
import { waitFor } from "../base/wait.ts";

export const FLEET_SCENARIOS = ["none", "outage", "unavailable", "image-drop"] as const;
export type FleetScenario = (typeof FLEET_SCENARIOS)[number];
/** The `unavailable` scenario: every this many-th apiserver request is answered 503. */
export const UNAVAILABLE_EVERY = 3;

/** The `image-drop` scenario's defaults: the test image padded to this size, each connection cut after this many bytes, for this long. */
export const IMAGE_DROP_PAD_MIB = 8;
export const IMAGE_DROP_AFTER_BYTES = 256 << 10;
export const IMAGE_DROP_MS = 3_000;

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
  readonly burst: Burst;
  readonly burstsAfterOutage: readonly Burst[];
  /** After each outage: the most machines that came back (their first request, or their Wait) in any 100 ms. */
  readonly comebackBursts: readonly Burst[];
  readonly outages: readonly { readonly downAt: number; readonly upAt: number }[];
  readonly peakRssMiB: Spread;
  /** Private memory (RssAnon) per agent at the end of the run. */
  readonly privateMiB: Spread;
  readonly unavailable?: UnavailableFigures;
  readonly imageDrop?: ImageDropFigures;
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
  /** The `image-drop` window (default IMAGE_DROP_MS) and cut (default IMAGE_DROP_AFTER_BYTES). */
  readonly dropMs?: number;
  readonly dropAfterBytes?: number;
  readonly keep?: boolean;
  /** Called with progress lines. */
  readonly progress?: (line: string) => void;
}

const lastLine = (m: FleetMachine) => m.stderr.trim().split("\n").at(-1) ?? "";

/** One run's state: its options, the fleet, the test image (image-drop), the deadline, the outages and 503 window so far. */
interface FleetRun {
  readonly o: FleetRunOptions;
  readonly say: (line: string) => void;
  readonly fleet: Fleet;
  readonly image?: TestImage;
  readonly imageDir?: string;
  /** What is left of the run's time (at least 1 s): every wait's bound. */
  readonly left: () => number;
  readonly outages: { downAt: number; upAt: number }[];
  /** The balancer's 503 window (unavailable) once it closed, as the stand-in reports it (opened by the first apiserver request). */
  window?: { readonly startedAt: number; readonly endsAt: number };
}

/** An answered request of the log with its time as a number (the figures' input). */
type TimedRequest = Omit<ServerRequest, "time"> & { readonly time: number };

export async function runFleet(o: FleetRunOptions): Promise<FleetResult> {
  const r = prepare(o);
  const t0 = Date.now();
  // The image is the run's: removed with the fleet (on an interrupt too), unless kept.
  const imageDir = r.imageDir;
  if (imageDir && !o.keep) r.fleet.onCleanUp(`image dir ${imageDir}`, () => rmSync(imageDir, { recursive: true, force: true }));
  r.fleet.catchSignals(r.say);
  try {
    r.say(`fleet: ${o.machines} machines, scenario ${o.scenario}: setting up namespaces, leaves, lldpd, radvd, stand-ins`);
    await r.fleet.setUp();
    r.say(`fleet: set up in ${((Date.now() - t0) / 1000).toFixed(1)} s; powering on`);
    if (o.scenario === "unavailable") await openBalancer(r);
    const on = Date.now();
    r.fleet.startAgents();
    if (o.scenario === "outage") await twoOutages(r);
    await allWaiting(r, "every machine registered and waiting");
    const balancer = o.scenario === "unavailable" ? await balancerClosed(r) : undefined;
    const imageDrop = r.image ? await installUnderDrops(r.fleet, r.image, o, r.left, r.say) : undefined;
    r.fleet.readPeaks();
    const addresses = r.window || r.image ? await r.fleet.addresses() : [];
    return await figures(r, on, addresses, balancer, imageDrop);
  } finally {
    await r.fleet.tearDown(o.keep);
  }
}

/** The fleet (not set up yet) and, for image-drop, the test image it serves. */
function prepare(o: FleetRunOptions): FleetRun {
  let image: TestImage | undefined;
  let imageDir: string | undefined;
  if (o.scenario === "image-drop") {
    imageDir = mkdtempSync(join(tmpdir(), "mhf-image-"));
    image = buildTestImage(join(imageDir, "debian/12"), { padMib: IMAGE_DROP_PAD_MIB });
  }
  const deadline = Date.now() + o.timeoutMs;
  return {
    o,
    say: o.progress ?? (() => {}),
    fleet: new Fleet({ machines: o.machines, ...(image ? { image: image.image } : {}) }),
    ...(image ? { image } : {}),
    ...(imageDir ? { imageDir } : {}),
    left: () => Math.max(1_000, deadline - Date.now()),
    outages: [],
  };
}

/** Waits (bounded by the run's time) until every machine has an open Wait stream, or one ended (reported in the figures). */
async function allWaiting(r: FleetRun, what: string): Promise<void> {
  await waitFor(
    async () => {
      const dead = r.fleet.machines.filter((m) => m.exitCode !== undefined);
      if (dead.length > 0) return true; // reported below
      // A stand-in busy with a rack's requests may answer its control endpoint late: ask again.
      const st = await r.fleet.standinMachines().catch(() => undefined);
      return (st?.openWaits.length ?? 0) >= r.o.machines;
    },
    r.left(),
    what,
    250,
  );
}

/** unavailable: the balancer's window armed before the rack powers on; the first apiserver request opens it. */
async function openBalancer(r: FleetRun): Promise<void> {
  const ms = r.o.unavailableMs ?? 60_000;
  await r.fleet.unavailable(UNAVAILABLE_EVERY, ms);
  r.say(`fleet: 1 in ${UNAVAILABLE_EVERY} apiserver requests answered 503 (by a counter) for ${(ms / 1000).toFixed(0)} s from the first`);
}

/** outage: the servers down just as the machines ask metal-boot for their config, and again once every machine waits. */
async function twoOutages(r: FleetRun): Promise<void> {
  const outageMs = r.o.outageMs ?? 10_000;
  await waitFor(() => r.fleet.requests().some((q) => q.path.startsWith("/config/")), r.left(), "the first machine asking metal-boot", 20);
  r.say("fleet: servers down (metal-boot asked)");
  r.outages.push(await r.fleet.outage(outageMs));
  await allWaiting(r, "every machine registered and waiting after the first outage");
  r.say("fleet: servers down (every machine waiting)");
  r.outages.push(await r.fleet.outage(outageMs));
}

/** The balancer's counts once its window closed (complete then); the machines must still be waiting then. */
async function balancerClosed(r: FleetRun): Promise<UnavailableReport> {
  const { balancer, window } = await waitFor(
    async () => {
      const rep = await r.fleet.unavailableReport().catch(() => undefined);
      // Opened (startedAt and endsAt set together) and closed.
      return rep && !rep.active && rep.startedAt !== null && rep.endsAt !== null ? { balancer: rep, window: { startedAt: rep.startedAt, endsAt: rep.endsAt } } : false;
    },
    r.left(),
    "the balancer's 503 window to close",
    250,
  );
  r.window = window;
  await allWaiting(r, "every machine still registered and waiting after the 503 window");
  return balancer;
}

/** The run's figures from the machines' logs, the stand-ins' request log and Wait streams, the balancer's and the drop window's counts. */
async function figures(
  r: FleetRun,
  on: number,
  addresses: readonly (readonly string[])[],
  balancer: UnavailableReport | undefined,
  imageDrop: ((addresses: readonly (readonly string[])[], log: readonly TimedRequest[]) => ImageDropFigures) | undefined,
): Promise<FleetResult> {
  const { o, fleet, outages } = r;
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
  const log: TimedRequest[] = fleet
    .requests()
    .filter((q) => !q.path.startsWith("/_standin/"))
    .map((q) => ({ ...q, time: Date.parse(q.time) }));
  const times = [...log.filter((q) => !q.path.endsWith("/Wait") || q.status === 503).map((q) => q.time), ...st.waitOpenedAt];
  const unavailable = r.window && balancer ? unavailableFigures(fleet, r.window, balancer, log, times, addresses) : undefined;
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
    ...(imageDrop ? { imageDrop: imageDrop(addresses, log) } : {}),
    requests: times.length,
    wallMs: Date.now() - on,
  };
}

/** The 503 window's figures: what the balancer sent, what each machine was answered and retried, the bursts in it. */
function unavailableFigures(
  fleet: Fleet,
  window: { readonly startedAt: number; readonly endsAt: number },
  balancer: UnavailableReport,
  log: readonly TimedRequest[],
  times: readonly number[],
  addresses: readonly (readonly string[])[],
): UnavailableFigures {
  const answered = answersPerMachine(log, addresses, 503);
  // A Wait answered 503 comes back as a Wait stream (not in the log when it stays open): only unary retries are paired here.
  const retries = retriesAfter(log.filter((q) => q.server === "api" && !q.path.endsWith("/Wait")));
  const { startedAt, endsAt } = window;
  return {
    every: balancer.every,
    ms: balancer.ms,
    requests: balancer.requests,
    sent: balancer.unavailable,
    inLog: log.filter((q) => q.server === "api" && q.status === 503).length,
    perMachine: fleet.machines.map((m, i) => ({ uuid: m.uuid, answered: answered[i] ?? 0, retried: unavailableRetries(m.logs) })),
    burst: largestBurst(times.filter((t) => t >= startedAt && t < endsAt)),
    retryDelayMs: spread(retries.map((x) => x.delayMs)),
    retryBurst: largestBurst(retries.map((x) => x.at)),
  };
}

/** The image's entries (tar -t), as paths relative to the target. */
function imageEntries(image: string): string[] {
  const r = spawnSync("sh", ["-c", 'lz4 -dc "$1" | tar -tf -', "entries", image], { encoding: "utf8", maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`tar -t ${image}: ${r.stderr}`);
  return r.stdout
    .split("\n")
    .map((l) => l.replace(/^\.\/?/, "").replace(/\/$/, ""))
    .filter((l) => l !== "");
}

const exists = (p: string) => {
  try {
    lstatSync(p);
    return true;
  } catch {
    return false;
  }
};

/**
 * The `image-drop` run: the window opened, then every machine's install started at once;
 * waits (bounded) until every install ended and the window closed. Returns a function of
 * the machines' addresses and the request log (read after) that makes the figures.
 */
async function installUnderDrops(
  fleet: Fleet,
  image: TestImage,
  o: FleetRunOptions,
  left: () => number,
  say: (l: string) => void,
): Promise<(addresses: readonly (readonly string[])[], log: readonly TimedRequest[]) => ImageDropFigures> {
  const afterBytes = o.dropAfterBytes ?? IMAGE_DROP_AFTER_BYTES;
  const ms = o.dropMs ?? IMAGE_DROP_MS;
  // Opens when every machine's first image GET arrived (held till then): processes started at once on a loaded
  // host reach the network seconds apart, and each download is to meet the window from its start.
  await fleet.imageDrop({ afterBytes, ms, delayMs: 0, holdFor: fleet.machines.length });
  fleet.startImageInstalls();
  say(`fleet: every machine installs the ${image.bytes}-byte test image; the cache closes each connection after ${afterBytes} bytes for ${(ms / 1000).toFixed(1)} s`);
  await waitFor(() => fleet.machines.every((m) => m.install?.exitCode !== undefined), left(), "every machine's image install to end", 250);
  const report = await waitFor(
    async () => {
      const r = await fleet.imageDropReport().catch(() => undefined);
      return r && !r.active && (r.endsAt === null || Date.now() >= r.endsAt) ? r : false;
    },
    left(),
    "the image cache's drop window to close",
    250,
  );
  const entries = imageEntries(image.image);
  return (addresses, log) => {
    const seen = countsPerMachine(report.bySource, addresses, ["ranges", "fromZero", "dropped"]);
    const perMachine: ImageDropMachine[] = fleet.machines.map((m, i) => {
      const x = m.install;
      const r = x?.result;
      const ok = x?.exitCode === 0;
      return {
        uuid: m.uuid,
        exitCode: x?.exitCode ?? null,
        error: ok || !x ? null : (x.stderr.trim().split("\n").at(-1) ?? ""),
        verified: r ? `${r.checksum.algo}:${r.checksum.hex}` : null,
        resumes: r?.resumes ?? 0,
        restarts: r?.restarts ?? 0,
        ranges: seen[i]?.ranges ?? 0,
        fromZero: seen[i]?.fromZero ?? 0,
        dropped: seen[i]?.dropped ?? 0,
        missing: x ? entries.filter((e) => !exists(join(x.target, e))).length : entries.length,
        ms: x?.endedAt !== undefined ? x.endedAt - x.startedAt : null,
        peakMiB: x?.peakBytes ? x.peakBytes / (1 << 20) : null,
      };
    });
    const exitCodes: Record<string, number> = {};
    for (const p of perMachine) exitCodes[String(p.exitCode)] = (exitCodes[String(p.exitCode)] ?? 0) + 1;
    const gets = getsPerMachine(log, addresses, `/${IMAGE_PATH}`);
    const reconnects = gets.flatMap((times) => times.slice(1)).sort((x, y) => x - y);
    const firstGets = gets.flatMap((times) => times.slice(0, 1));
    const firsts = firstGets.map((t) => t - Math.min(...firstGets));
    return {
      imageBytes: image.bytes,
      sha256: image.sha256,
      entries: entries.length,
      afterBytes,
      ms,
      finished: perMachine.filter((p) => p.exitCode === 0).length,
      failed: perMachine.filter((p) => p.exitCode !== 0).length,
      exitCodes,
      perMachine,
      toFinished: spread(perMachine.flatMap((p) => (p.exitCode === 0 && p.ms !== null ? [p.ms] : []))),
      afterWindowMs: spread(
        fleet.machines.flatMap((m) => (m.install?.exitCode === 0 && m.install.endedAt !== undefined && report.startsAt !== null ? [m.install.endedAt - report.startsAt] : [])),
      ),
      gets: report.gets,
      ranges: report.ranges,
      dropped: report.dropped,
      firstGetMs: spread(firsts),
      reconnectBurst: largestBurst(reconnects),
      reconnects: reconnects.length,
      peakRssMiB: spread(perMachine.flatMap((p) => (p.peakMiB !== null ? [p.peakMiB] : []))),
    };
  };
}
