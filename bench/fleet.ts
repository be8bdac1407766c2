#!/usr/bin/env bun
/**
 * A rack at once (lab/fleet/): N machines in namespaces on two SONiC-shaped leaves, the
 * agent's real `run` in each (diskless by construction), the lab's stand-ins behind them.
 *   bun bench/fleet.ts [--machines 8] [--scenario none|outage|unavailable|image-drop] [--unavailable-ms 60000] [--drop-ms 3000] [--timeout 300] [--keep]
 * Prints how many registered and wait, time to network ready / Register / Wait
 * (p50/p95/max after power-on), the largest burst of requests in any 100 ms at the
 * servers (and right after each outage), peak RSS per agent; with `unavailable`, how many
 * apiserver requests the balancer saw in its window and answered 503, and how many
 * machines were answered 503 and logged a retry for each; with `image-drop`, how many image
 * installs finished or failed (exit codes), per machine the resumes by Range and whether
 * any restarted from byte 0, the time to finished, the reconnects per 100 ms and each
 * install's peak RSS. Root only.
 */
import { parseArgs } from "node:util";
import { fmtSpread } from "../lab/fleet/report.ts";
import { FLEET_SCENARIOS, IMAGE_DROP_MS, runFleet, type FleetScenario } from "../lab/fleet/run.ts";

const { values } = parseArgs({
  options: {
    machines: { type: "string", default: "8" },
    scenario: { type: "string", default: "none" },
    "unavailable-ms": { type: "string", default: "60000" },
    "drop-ms": { type: "string", default: String(IMAGE_DROP_MS) },
    timeout: { type: "string", default: "300" },
    keep: { type: "boolean" },
  },
});
const machines = Number(values.machines);
if (!Number.isInteger(machines) || machines < 1 || machines > 250) {
  console.error(`--machines ${JSON.stringify(values.machines)}: expected 1..250`);
  process.exit(2);
}
if (!(FLEET_SCENARIOS as readonly string[]).includes(values.scenario ?? "")) {
  console.error(`--scenario ${JSON.stringify(values.scenario)}: expected one of ${FLEET_SCENARIOS.join(", ")}`);
  process.exit(2);
}
const unavailableMs = Number(values["unavailable-ms"]);
if (!Number.isInteger(unavailableMs) || unavailableMs < 0 || unavailableMs > 600_000) {
  console.error(`--unavailable-ms ${JSON.stringify(values["unavailable-ms"])}: expected milliseconds 0..600000`);
  process.exit(2);
}
const dropMs = Number(values["drop-ms"]);
if (!Number.isInteger(dropMs) || dropMs < 0 || dropMs > 600_000) {
  console.error(`--drop-ms ${JSON.stringify(values["drop-ms"])}: expected milliseconds 0..600000`);
  process.exit(2);
}
if (process.getuid?.() !== 0) {
  console.error("bench/fleet.ts needs root (network namespaces)");
  process.exit(2);
}
const r = await runFleet({
  machines,
  scenario: values.scenario as FleetScenario,
  timeoutMs: Number(values.timeout) * 1000,
  unavailableMs,
  dropMs,
  keep: values.keep === true,
  progress: (l) => console.error(l),
});
console.log(
  `fleet ${r.machines} machines, scenario ${r.scenario}: ${r.registered} registered, ${r.waiting} waiting, ${r.ended.length} ended early; ${r.requests} requests in ${(r.wallMs / 1000).toFixed(1)} s`,
);
console.log(`  to network ready  ${fmtSpread(r.toNetworkReady)}`);
console.log(`  to Register       ${fmtSpread(r.toRegister)}`);
console.log(`  to Wait           ${fmtSpread(r.toWait)}`);
console.log(`  largest burst     ${r.burst.requests} requests in 100 ms`);
for (const [i, b] of r.burstsAfterOutage.entries())
  console.log(
    `  after outage ${i + 1}    ${b.requests} requests in the fullest 100 ms; ${r.comebackBursts[i]?.requests} of ${r.machines} machines came back in the fullest 100 ms (down ${((r.outages[i]!.upAt - r.outages[i]!.downAt) / 1000).toFixed(1)} s)`,
  );
console.log(
  `  peak RSS / agent  p50 ${r.peakRssMiB.p50.toFixed(0)} MiB, p95 ${r.peakRssMiB.p95.toFixed(0)} MiB, max ${r.peakRssMiB.max.toFixed(0)} MiB (n=${r.peakRssMiB.n}; VmHWM, the binary's pages included)`,
);
console.log(
  `  private / agent   p50 ${r.privateMiB.p50.toFixed(0)} MiB, p95 ${r.privateMiB.p95.toFixed(0)} MiB, max ${r.privateMiB.max.toFixed(0)} MiB (n=${r.privateMiB.n}; RssAnon at the end)`,
);
const u = r.unavailable;
if (u) {
  const hit = u.perMachine.filter((m) => m.answered > 0);
  const mismatched = u.perMachine.filter((m) => m.retried !== m.answered);
  console.log(
    `  503 window        ${(u.ms / 1000).toFixed(0)} s from power-on: ${u.sent} of ${u.requests} apiserver requests answered 503 (1 in ${u.every} by a counter; ${u.inLog} in the request log)`,
  );
  console.log(
    `  503 retries       ${hit.length} of ${r.machines} machines were answered 503 (at most ${Math.max(0, ...u.perMachine.map((m) => m.answered))} each); ${mismatched.length === 0 ? "each logged one retry naming it per 503" : `${mismatched.length} logged a different number of retries than 503s: ${mismatched.map((m) => `${m.uuid} ${m.retried}/${m.answered}`).join(", ")}`}`,
  );
  console.log(`  burst in window   ${u.burst.requests} requests in the fullest 100 ms`);
  console.log(
    `  retry after 503   ${fmtSpread(u.retryDelayMs)} later; at most ${u.retryBurst.requests} of ${u.retryDelayMs.n} retries in one 100 ms (unary calls; Wait reconnects as streams)`,
  );
}
const d = r.imageDrop;
if (d) {
  const mib = (b: number) => (b / (1 << 20)).toFixed(1);
  const fmtMs = (s: { n: number; p50: number; p95: number; max: number }) =>
    s.n === 0 ? "none" : `p50 ${(s.p50 / 1000).toFixed(2)} s, p95 ${(s.p95 / 1000).toFixed(2)} s, max ${(s.max / 1000).toFixed(2)} s (n=${s.n})`;
  const per = d.perMachine;
  const resumes = per.map((p) => p.ranges);
  console.log(
    `  image installs    ${d.finished} finished, ${d.failed} failed (exit codes ${Object.entries(d.exitCodes)
      .map(([c, n]) => `${c}: ${n}`)
      .join(", ")}); ${mib(d.imageBytes)} MiB image, ${d.entries} entries`,
  );
  console.log(
    `  drop window       ${(d.ms / 1000).toFixed(1)} s from the last machine's first image GET, each connection closed after ${d.afterBytes} bytes: ${d.dropped} dropped, ${d.ranges} Range requests of ${d.gets} image GETs`,
  );
  console.log(
    `  resumes / machine min ${Math.min(...resumes)}, max ${Math.max(...resumes)} Range requests (the agent counted ${per.reduce((a, p) => a + p.resumes, 0)} resumes); ${per.filter((p) => p.restarts > 0 || p.fromZero > 1).length} machines restarted from byte 0`,
  );
  console.log(`  per machine       Range requests ${per.map((p) => p.ranges).join(" ")}; drops ${per.map((p) => p.dropped).join(" ")} (in machine order)`);
  console.log(
    `  dropped / machine min ${Math.min(...per.map((p) => p.dropped))}, max ${Math.max(...per.map((p) => p.dropped))}; ${per.filter((p) => p.missing > 0).length} targets miss image entries`,
  );
  console.log(`  first image GETs  ${fmtMs(d.firstGetMs)} after the first machine's (held until the last came; the window opened then)`);
  console.log(`  to finished       ${fmtMs(d.toFinished)} after the install started (its Bun process spawned)`);
  console.log(`                    ${fmtMs(d.afterWindowMs)} after the window opened (every download started)`);
  console.log(`  reconnects        ${d.reconnects} in all, at most ${d.reconnectBurst.requests} in one 100 ms`);
  console.log(`  peak RSS/install  p50 ${d.peakRssMiB.p50.toFixed(0)} MiB, p95 ${d.peakRssMiB.p95.toFixed(0)} MiB, max ${d.peakRssMiB.max.toFixed(0)} MiB (n=${d.peakRssMiB.n})`);
  for (const p of per) if (p.exitCode !== 0) console.log(`  install failed: ${p.uuid} exit ${p.exitCode}: ${(p.error ?? "").slice(0, 200)}`);
}
for (const e of r.ended) console.log(`  ended early: ${e.uuid} exit ${e.exitCode}: ${e.lastLine.slice(0, 200)}`);
const retriesOk = !u || (u.sent === u.inLog && u.perMachine.every((m) => m.retried === m.answered));
const installsOk = !d || d.finished === r.machines;
process.exit(r.ended.length === 0 && r.waiting === r.machines && retriesOk && installsOk ? 0 : 1);
