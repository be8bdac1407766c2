/**
 * A rack of 8 installs its image while the image cache drops every connection
 * (lab/fleet/ scenario `image-drop`): once every machine is registered and waiting, each
 * runs the agent's image install (`metal-hammer image install`, in its namespace, kept
 * from the host's disks) of the lab's test image from the cache over the rack's IPv6
 * network, into a directory of its run dir; from the first machine's image GET for 3 s the
 * cache closes every image connection after 256 KiB of its body (a TCP close mid-body).
 * Every install must finish with the sha256 verified and the image's entries in its
 * directory; every machine must have been dropped at least once and have resumed by
 * Range (the cache honours Range, so none from byte 0); the agents keep waiting. That only the
 * servers' own host opens the window: control.test.ts. Root only; agents diskless.
 */
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { runFleet } from "../../../lab/fleet/run.ts";
import { prerequisites } from "../../helpers/prerequisites.ts";
import { fleetPrerequisites } from "./prerequisites.ts";

// The test image is built here (busybox-static, setfattr, packed with the lz4 tool) and unpacked by the agent (liblz4 into GNU tar).
const tools = ["tar", "lz4", "setfattr"].filter((t) => !Bun.which(t, { PATH: "/usr/sbin:/usr/bin:/sbin:/bin" }));
const ok = fleetPrerequisites("the fleet's image-drop suite") && prerequisites("the fleet's image-drop image", [...tools, !existsSync("/bin/busybox") && "busybox-static"]);
const N = 8;

describe.if(ok)("a rack of 8 installing its image while the image cache drops every connection", () => {
  test("every install finishes verified, each machine was dropped and resumed by Range, none from byte 0", async () => {
    const r = await runFleet({ machines: N, scenario: "image-drop", timeoutMs: 150_000 });
    expect(r.ended).toEqual([]);
    expect([r.registered, r.waiting]).toEqual([N, N]);
    const d = r.imageDrop;
    expect(d).toBeDefined();
    if (!d) return;
    // Every install ended 0 with the image's sha256 verified and every entry of the image in its directory.
    expect(d.perMachine.filter((m) => m.exitCode !== 0).map((m) => `${m.uuid} exit ${m.exitCode}: ${m.error}`)).toEqual([]);
    expect(d.perMachine.map((m) => m.verified)).toEqual(Array(N).fill(`sha256:${d.sha256}`));
    expect(d.perMachine.map((m) => m.missing)).toEqual(Array(N).fill(0));
    expect(d.entries).toBeGreaterThan(10);
    // The cache dropped every machine at least once, and saw it come back with a Range each time, never from byte 0 again.
    for (const m of d.perMachine) {
      expect({ uuid: m.uuid, dropped: m.dropped >= 1, ranges: m.ranges >= 1, fromZero: m.fromZero, restarts: m.restarts }).toEqual({
        uuid: m.uuid,
        dropped: true,
        ranges: true,
        fromZero: 1,
        restarts: 0,
      });
      // The agent's own count agrees with what the cache served: one resume per Range request.
      expect(m.resumes).toBe(m.ranges);
    }
    // Every drop and Range request the cache counted came from one of the machines.
    expect(d.perMachine.reduce((a, m) => a + m.dropped, 0)).toBe(d.dropped);
    expect(d.perMachine.reduce((a, m) => a + m.ranges, 0)).toBe(d.ranges);
    expect(d.finished).toBe(N);
  }, 180_000);
});
