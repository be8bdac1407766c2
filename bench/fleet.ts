#!/usr/bin/env bun
/**
 * A rack at once (lab/fleet/): N machines in namespaces on two SONiC-shaped leaves, the
 * agent's real `run` in each (diskless by construction), the lab's stand-ins behind them.
 *   bun bench/fleet.ts [--machines 8] [--scenario none|outage] [--timeout 300] [--keep]
 * Prints how many registered and wait, time to network ready / Register / Wait
 * (p50/p95/max after power-on), the largest burst of requests in any 100 ms at the
 * servers (and right after each outage), peak RSS per agent. Root only.
 */
import { parseArgs } from "node:util";
import { fmtSpread } from "../lab/fleet/report.ts";
import { runFleet, type FleetScenario } from "../lab/fleet/run.ts";

const { values } = parseArgs({
  options: { machines: { type: "string", default: "8" }, scenario: { type: "string", default: "none" }, timeout: { type: "string", default: "300" }, keep: { type: "boolean" } },
});
const machines = Number(values.machines);
if (!Number.isInteger(machines) || machines < 1 || machines > 250) {
  console.error(`--machines ${JSON.stringify(values.machines)}: expected 1..250`);
  process.exit(2);
}
if (values.scenario !== "none" && values.scenario !== "outage") {
  console.error(`--scenario ${JSON.stringify(values.scenario)}: expected none or outage`);
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
console.log(`  peak RSS / agent  p50 ${r.peakRssMiB.p50.toFixed(0)} MiB, p95 ${r.peakRssMiB.p95.toFixed(0)} MiB, max ${r.peakRssMiB.max.toFixed(0)} MiB (n=${r.peakRssMiB.n})`);
for (const e of r.ended) console.log(`  ended early: ${e.uuid} exit ${e.exitCode}: ${e.lastLine.slice(0, 200)}`);
process.exit(r.ended.length === 0 && r.waiting === r.machines ? 0 : 1);
