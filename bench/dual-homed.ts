/**
 * Dual-homed, side by side in one run (root, radvd, lldpd; issue 35):
 *   bun bench/dual-homed.ts [--runs 5]
 * The lab of test/integration/provision/dual-homed-lab.ts: two leaves with their own /64,
 * the stand-ins behind both. Two variants, interleaved run by run: both leaves healthy
 * (leaf A preferred), and the preferred leaf A blackholing the servers. Each run is the
 * whole agent flow (NICs up before it starts); from its log: first ready NIC (net.ready)
 * -> metal-boot's config (boot.config) -> Register accepted (provision.register), and how
 * many uplink switches and HTTP retries it took. Log times have millisecond resolution.
 */
import { DualHomedLab, type FlowRun } from "../test/integration/provision/dual-homed-lab.ts";

const argv = process.argv.slice(2);
const i = argv.indexOf("--runs");
const RUNS = i >= 0 ? Number(argv[i + 1]) : 5;
if (!Number.isInteger(RUNS) || RUNS < 1) throw new Error(`--runs: expected a whole number >= 1, got ${argv[i + 1]}`);

interface Sample {
  readonly bootMs: number;
  readonly registerMs: number;
  readonly switches: number;
  readonly retries: number;
}

/** Milliseconds from the first `from` line to the first `to` line of a run. */
function between(r: FlowRun, from: string, to: string): number {
  const t = (e: string) => {
    const l = r.ev(e)[0];
    if (!l) throw new Error(`run ${r.run}: no ${e} line (exit ${r.code}): ${r.err.split("\n").at(-2) ?? ""}`);
    return Date.parse(String(l.time));
  };
  return t(to) - t(from);
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};
const fmt = (xs: number[]) => `${median(xs).toFixed(0)} [${Math.min(...xs)}-${Math.max(...xs)}]`;

const lab = await DualHomedLab.create();
const variants = { "both healthy": false, "preferred leaf blackholed": true } as const;
const samples = new Map<string, Sample[]>(Object.keys(variants).map((k) => [k, []]));
try {
  for (let run = 1; run <= RUNS; run++) {
    for (const [name, broken] of Object.entries(variants)) {
      await lab.prefer(lab.leafA, broken);
      const r = await lab.runFlow();
      if (r.code !== 26) throw new Error(`${name}, run ${run}: exit ${r.code}, expected 26 (wait timeout): ${r.err.split("\n").at(-2) ?? ""}`);
      const s = {
        bootMs: between(r, "net.ready", "boot.config"),
        registerMs: between(r, "net.ready", "provision.register"),
        switches: r.ev("http.uplink").length,
        retries: r.ev("http.retry").length,
      };
      samples.get(name)?.push(s);
      console.error(`${name}, run ${run}/${RUNS}: ready -> config ${s.bootMs} ms, -> Register ${s.registerMs} ms, ${s.switches} uplink switch(es), ${s.retries} retries`);
    }
  }
} finally {
  await lab.cleanup();
}
console.log(`| variant (median [min-max] of ${RUNS}) | first ready NIC -> metal-boot config ms | first ready NIC -> Register ms | uplink switches | HTTP retries |`);
console.log("|---|---|---|---|---|");
for (const [name, xs] of samples)
  console.log(
    `| ${name} | ${fmt(xs.map((s) => s.bootMs))} | ${fmt(xs.map((s) => s.registerMs))} | ${[...new Set(xs.map((s) => s.switches))].join(", ")} | ${[...new Set(xs.map((s) => s.retries))].join(", ")} |`,
  );
