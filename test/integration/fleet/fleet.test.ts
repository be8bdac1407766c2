/**
 * A rack of 8 at once (lab/fleet/): the servers go away for 10 s just as the machines ask
 * metal-boot and again while they Wait, with their state kept (a restart of the real
 * servers); every machine must end registered with both leaves and waiting, none may
 * exit, and the machines' comeback after each outage must be spread by the retries'
 * full jitter: at most 5 of the 8 in any 100 ms (synchronised retries put all 8 in one;
 * jitter over the 5 s backoff cap gives 1-2, docs/bench.md). Root only; agents diskless.
 */
import { describe, expect, test } from "bun:test";
import { runFleet } from "../../../lab/fleet/run.ts";
import { fleetPrerequisites } from "./prerequisites.ts";

const ok = fleetPrerequisites("the fleet suite");
const N = 8;
/** The most machines whose comeback may fall in one 100 ms. */
const MAX_COMEBACK_IN_100MS = 5;

describe.if(ok)("a rack of 8 through two server outages", () => {
  test("every machine ends registered and waiting, none exits, and the comebacks are spread", async () => {
    const r = await runFleet({ machines: N, scenario: "outage", timeoutMs: 150_000 });
    expect(r.ended).toEqual([]);
    expect([r.registered, r.waiting]).toEqual([N, N]);
    expect(r.outages).toHaveLength(2);
    for (const b of r.comebackBursts) expect(b.requests).toBeLessThanOrEqual(MAX_COMEBACK_IN_100MS);
    // Everyone came back at all after each outage (their first request or their new Wait).
    expect(r.comebackBursts.every((b) => b.requests >= 1)).toBe(true);
    expect(r.toRegister.n).toBe(N);
    // The report's memory figure is the compiled agent's, read for every machine.
    expect(r.peakRssMiB.n).toBe(N);
    expect(r.peakRssMiB.p50).toBeGreaterThan(10);
    expect(r.privateMiB.n).toBe(N);
    expect(r.privateMiB.max).toBeLessThan(r.peakRssMiB.max);
  }, 180_000);
});
