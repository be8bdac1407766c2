/**
 * The stand-ins' control doors (`/_standin/...`) answer only the servers' own host: from a
 * machine's namespace every one is refused (the 503 and drop windows, allocating, an
 * outage, a fault, the machine book), so no agent can fault, take down or allocate, and
 * nothing it asked for happened; from the host both windows open. One fleet of one
 * machine for all of them: the check is one door in front of every endpoint
 * (lab/standins/standins.ts control()). Root only; agents diskless.
 */
import { describe, expect, test } from "bun:test";
import { Fleet } from "../../../lab/fleet/fleet.ts";
import { standinControl } from "../../../lab/standins/control-client.ts";
import { fleetPrerequisites } from "./prerequisites.ts";
import { machineWithAddress } from "./slaac.ts";

const ok = fleetPrerequisites("the fleet's control-door suite");

describe.if(ok)("the stand-ins' control endpoints", () => {
  test("a machine can use none of them, nothing it asked for happened; the servers' own host opens both windows", async () => {
    const fleet = new Fleet({ machines: 1 });
    try {
      await fleet.setUp();
      const m = await machineWithAddress(fleet);
      for (const [path, body] of [
        ["/_standin/unavailable", { every: 3, ms: 1_000 }],
        ["/_standin/image-drop", { afterBytes: 1, ms: 1_000 }],
        ["/_standin/allocate", { uuid: m.uuid, allocation: {} }],
        ["/_standin/outage", { ms: 1_000 }],
        ["/_standin/fault", { status: 500 }],
        ["/_standin/machines", undefined],
      ] as const) {
        const answer = await standinControl((argv) => ["ip", "netns", "exec", m.ns, ...argv], fleet.state, path, body === undefined ? {} : { body });
        expect(answer).toEqual({ error: `${path}: only from this host itself (loopback or the server's own address)` });
      }
      expect(Object.keys((await fleet.standinMachines()).registered)).toEqual([]);
      expect(await fleet.unavailableReport()).toMatchObject({ startedAt: null, requests: 0 });
      expect(await fleet.imageDropReport()).toMatchObject({ startsAt: null, gets: 0 });
      expect(await fleet.unavailable(3, 1_000)).toMatchObject({ every: 3, ms: 1_000, active: true });
      expect(await fleet.imageDrop({ afterBytes: 1, ms: 1_000, delayMs: 0, holdFor: 0 })).toMatchObject({ afterBytes: 1, ms: 1_000, active: true });
    } finally {
      await fleet.tearDown();
    }
  }, 60_000);
});
