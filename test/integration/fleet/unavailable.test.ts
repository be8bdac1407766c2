/**
 * A rack of 8 at once behind a balancer with a third of the apiserver's backends down
 * (lab/fleet/ scenario `unavailable`): for 10 s from the first apiserver request (armed at
 * power-on: a slow start does not leave the window empty) every third apiserver
 * request is answered 503 by the balancer (a counter, so the count is exact: floor(n / 3)
 * of the n requests in the window). Every machine must end registered and waiting, none
 * may exit, and each machine must have logged one retry naming the 503 for every 503 it
 * was answered (the HTTP client's http.retry "status 503", Wait's reconnect
 * "unavailable: HTTP 503"). That only the
 * servers' own host opens the window: control.test.ts. Root only; agents diskless.
 */
import { describe, expect, test } from "bun:test";
import { runFleet, UNAVAILABLE_EVERY } from "../../../lab/fleet/run.ts";
import { fleetPrerequisites } from "./prerequisites.ts";

const ok = fleetPrerequisites("the fleet's 503 suite");
const N = 8;
const WINDOW_MS = 10_000;

describe.if(ok)("a rack of 8 while the apiserver answers 503 to a third of the requests", () => {
  test("every machine ends registered and waiting, none exits, a third of the window's requests were 503 and each was retried with its reason", async () => {
    const r = await runFleet({ machines: N, scenario: "unavailable", unavailableMs: WINDOW_MS, timeoutMs: 90_000 });
    expect(r.ended).toEqual([]);
    expect([r.registered, r.waiting]).toEqual([N, N]);
    const u = r.unavailable;
    expect(u).toBeDefined();
    if (!u) return;
    // The balancer's own counts: every third request of the window, exactly.
    expect([u.every, u.ms]).toEqual([UNAVAILABLE_EVERY, WINDOW_MS]);
    expect(u.sent).toBe(Math.floor(u.requests / UNAVAILABLE_EVERY));
    // The window saw the boot storm's apiserver calls (Version/Get, Register, Wait per machine at least).
    expect(u.requests).toBeGreaterThanOrEqual(3 * N);
    // What the machines were answered: the request log holds the same 503s, each from one of the machines.
    expect(u.inLog).toBe(u.sent);
    expect(u.perMachine.reduce((a, m) => a + m.answered, 0)).toBe(u.sent);
    // Every 503 was retried, and the retry's log line says why.
    expect(u.perMachine.filter((m) => m.retried !== m.answered)).toEqual([]);
    expect(u.perMachine.filter((m) => m.answered > 0).length).toBeGreaterThanOrEqual(1);
    expect(r.toRegister.n).toBe(N);
  }, 120_000);
});
