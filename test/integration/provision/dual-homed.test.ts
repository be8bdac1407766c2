/**
 * Dual-homed (issue 35), in namespaces against the strict stand-ins (root, radvd,
 * lldpd; the lab: dual-homed-lab.ts): two NICs, each to its own leaf with its own /64;
 * the stand-ins behind both leaves. The leaf whose RA says router preference high
 * blackholes traffic to the servers (its boot VRF missing on the uplinks, as an
 * operator meets it in a rollout). The machine still gets metal-boot's config, checks
 * the apiserver and registers through the other leaf, then waits (the stand-in never
 * allocates: exit 26 at METAL_WAIT_TIMEOUT): one `http.uplink` line names both NICs,
 * status.json shows both uplinks. Both orientations. Before the uplinks, every request
 * followed the main table's preferred default router into the blackhole until the
 * retry window ended (exit 23). Also: the working leaf dies while Wait is held; the
 * preferred leaf's RA says router lifetime 0 (its NIC is no uplink); the preferred leaf
 * never answers (no route to the servers: one connect-attempt delay, no retry); and,
 * with a second lab whose stand-ins allocate the test image, the preferred leaf's port
 * goes down mid download (resumed by Range through the other leaf, sha256 verified), or
 * dies silently mid download with its link up (the stall bound ends the attempt, the
 * resume connects through the other leaf after one connect-attempt delay).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildTestImage, type TestImage } from "../../../lab/images/build.ts";
import { waitFor } from "../../../lab/base/wait.ts";
import { hasRadvd, isRoot, nsx } from "../../helpers/netns.ts";
import { SKIP as LLDP_SKIP } from "../lldp/switches.ts";
import { prerequisites } from "../../helpers/prerequisites.ts";
import { DualHomedLab, SERVER, UUID, type FlowRun, type Log } from "./dual-homed-lab.ts";

// The cut-download test builds the test image (busybox-static, packed with the lz4 tool; the agent unpacks it with GNU tar).
const hasImageTools = ["tar", "lz4", "setfattr"].every((t) => Bun.which(t, { PATH: "/usr/sbin:/usr/bin:/sbin:/bin" })) && existsSync("/bin/busybox");
const skip = !isRoot ? "needs root (network namespaces)" : !hasRadvd ? "needs radvd" : LLDP_SKIP;
prerequisites("the dual-homed namespace suite", [skip, !hasImageTools && "tar, lz4, setfattr and busybox-static (the test image)"]);

let lab: DualHomedLab;
/** The first image GET gets this much at once, then a trickle: the leaf is cut while its bytes flow. */
const TRICKLE_AT = 256 << 10;

beforeAll(async () => {
  if (skip) return;
  lab = await DualHomedLab.create();
}, 60_000);

afterAll(async () => {
  if (skip) return;
  await lab?.cleanup();
});

describe.skipIf(skip !== undefined)(`dual-homed: the preferred leaf blackholes the servers, the other carries the machine${skip ? ` (skipped: ${skip})` : ""}`, () => {
  for (const orientation of ["A", "B"] as const) {
    test(`leaf ${orientation} preferred and broken: metal-boot, apiserver and Register through the other leaf, one http.uplink line naming both NICs, then the wait (exit 26)`, async () => {
      const [broken, working] = orientation === "A" ? [lab.leafA, lab.leafB] : [lab.leafB, lab.leafA];
      await lab.prefer(broken, true);
      const before = lab.requests().length;
      const t0 = performance.now();
      const r = await lab.runFlow();
      const ms = performance.now() - t0;
      expect(r.err).toContain(`metal-hammer: no allocation for ${UUID} within METAL_WAIT_TIMEOUT=1s`);
      expect(r.code).toBe(26);
      expect(r.logs.filter((l) => l.event === "agent.stage").map((l) => l.stage)).toEqual(["network", "clock", "boot", "api", "image", "handoff", "register", "wipe", "wait"]);
      const switches = r.ev("http.uplink");
      expect(switches).toHaveLength(1);
      expect(switches[0]).toMatchObject({ from: broken.link.agentIf, to: working.link.agentIf, level: 40 });
      expect(String(switches[0]?.msg)).toStartWith(`connections now go through ${working.link.agentIf} instead of ${broken.link.agentIf}: `);
      // Every request of this run reached the servers from the working leaf's address.
      const mine = lab.requests().slice(before);
      const workingAddr = lab.addressOn(working);
      expect(new Set(mine.map((q) => q.source))).toEqual(new Set([workingAddr ?? "-"]));
      expect(mine.filter((q) => q.path.endsWith("/Register")).map((q) => q.status)).toEqual([200]);
      // The status file shows both uplinks: the working one preferred, the broken one failing with why.
      const status = JSON.parse(readFileSync(join(r.run, "status.json"), "utf8")) as { uplinks: Log[] };
      expect(status.uplinks).toEqual([
        expect.objectContaining({ name: broken.link.agentIf, state: "failing", preference: "high", lastError: "no connection within the connect-attempt delay of 300 ms" }),
        expect.objectContaining({ name: working.link.agentIf, state: "preferred", preference: "low", address: workingAddr }),
      ]);
      // No retry window was spent on the broken leaf: one connect-attempt delay, not 15 s of retries.
      expect(r.ev("http.retry")).toEqual([]);
      console.log(`dual-homed, leaf ${orientation} broken: the whole run ${Math.round(ms)} ms`);
    }, 120_000);
  }

  test("the working leaf dies while Wait is held: the reopened stream goes through the other leaf (one http.uplink line), the wait runs to its bound (exit 26)", async () => {
    const [dying, other] = [lab.leafA, lab.leafB];
    await lab.prefer(dying, false);
    const waitsBefore = await lab.waitCalls();
    let cut: Promise<unknown> | undefined;
    const r = await lab.runFlow({
      waitTimeout: "8s",
      onLog: (l) => {
        // Wait is open through the preferred leaf: the leaf dies, then the stand-in cuts the stream (as a dead path ends it).
        if (l.event === "provision.wait" && !cut) {
          lab.blackhole(dying);
          cut = lab.breakWaits();
        }
      },
    });
    await cut;
    expect(r.ev("http.uplink")).toHaveLength(1);
    expect(r.ev("http.uplink")[0]).toMatchObject({ from: dying.link.agentIf, to: other.link.agentIf });
    expect(r.ev("provision.wait.reconnect").length).toBeGreaterThanOrEqual(1);
    // The first stream and the reopened one both reached the apiserver (before the uplinks the reopen never got past the dead leaf).
    expect((await lab.waitCalls()) - waitsBefore).toBe(2);
    expect(r.err).toContain(`metal-hammer: no allocation for ${UUID} within METAL_WAIT_TIMEOUT=8s`);
    expect(r.code).toBe(26);
  }, 120_000);

  test("the working leaf's link dies while Wait is held: the uplink is dropped in the background, the held stream closed and reopened through the other leaf (exit 26)", async () => {
    const [dying, other] = [lab.leafA, lab.leafB];
    await lab.prefer(dying, false);
    const waitsBefore = await lab.waitCalls();
    let cutAt: number | undefined;
    try {
      const r = await lab.runFlow({
        waitTimeout: "8s",
        onLog: (l) => {
          // Wait is open through the preferred leaf: its port goes down (the machine's NIC loses carrier); nothing else is done.
          if (l.event === "provision.wait" && cutAt === undefined) {
            cutAt = performance.now();
            nsx(dying.link.routerNs, "ip", "link", "set", dying.link.routerIf, "down");
          }
        },
      });
      expect(r.ev("net.uplink").filter((l) => l.change === "dropped")).toMatchObject([{ ifname: dying.link.agentIf }]);
      expect(r.ev("provision.wait.reconnect")).toHaveLength(1);
      // The first stream and the reopened one both reached the apiserver: the reopen through the other leaf.
      expect((await lab.waitCalls()) - waitsBefore).toBe(2);
      expect(r.err).toContain(`metal-hammer: no allocation for ${UUID} within METAL_WAIT_TIMEOUT=8s`);
      expect(r.code).toBe(26);
      const status = JSON.parse(readFileSync(join(r.run, "status.json"), "utf8")) as { uplinks: Log[] };
      expect(status.uplinks.map((u) => [u.name, u.state])).toEqual([
        [other.link.agentIf, "preferred"],
        [dying.link.agentIf, "dropped"],
      ]);
    } finally {
      nsx(dying.link.routerNs, "ip", "link", "set", dying.link.routerIf, "up");
    }
  }, 120_000);
});

describe.skipIf(skip !== undefined)(`dual-homed: one leaf is no default router, or has no route to the servers${skip ? ` (skipped: ${skip})` : ""}`, () => {
  test("leaf A's RA says router lifetime 0: its NIC is no uplink, everything goes through leaf B, no switch, no retry (exit 26 at the wait)", async () => {
    const [zero, working] = [lab.leafA, lab.leafB];
    await lab.configure(zero, { lifetimeZero: true });
    const before = lab.requests().length;
    const t0 = performance.now();
    const r = await lab.runFlow();
    const ms = performance.now() - t0;
    expect(r.err).toContain(`metal-hammer: no allocation for ${UUID} within METAL_WAIT_TIMEOUT=1s`);
    expect(r.code).toBe(26);
    // Only leaf B's NIC became an uplink; leaf A's has an address on its /64 but no default router.
    expect(lab.addressOn(zero)).toBeDefined();
    expect(r.ev("net.uplink").map((l) => [l.ifname, l.change])).toEqual([[working.link.agentIf, "added"]]);
    expect(r.ev("http.uplink")).toEqual([]);
    expect(r.ev("http.retry")).toEqual([]);
    const mine = lab.requests().slice(before);
    expect(new Set(mine.map((q) => q.source))).toEqual(new Set([lab.addressOn(working) ?? "-"]));
    expect(mine.filter((q) => q.path.endsWith("/Register")).map((q) => q.status)).toEqual([200]);
    const status = JSON.parse(readFileSync(join(r.run, "status.json"), "utf8")) as { uplinks: Log[] };
    expect(status.uplinks.map((u) => [u.name, u.state])).toEqual([[working.link.agentIf, "preferred"]]);
    console.log(`dual-homed, leaf A router lifetime 0: the whole run ${Math.round(ms)} ms`);
  }, 120_000);

  test("the preferred leaf A never answers (radvd on it, no route to the servers: TCP waits out its ICMPv6 no-route): Register through leaf B, one http.uplink line within 5 s of the first request, no retry (exit 26)", async () => {
    const [broken, working] = [lab.leafA, lab.leafB];
    await lab.configure(broken, { broken: "no route" });
    const before = lab.requests().length;
    const r = await lab.runFlow();
    expect(r.err).toContain(`metal-hammer: no allocation for ${UUID} within METAL_WAIT_TIMEOUT=1s`);
    expect(r.code).toBe(26);
    const switches = r.ev("http.uplink");
    expect(switches).toHaveLength(1);
    expect(switches[0]).toMatchObject({ from: broken.link.agentIf, to: working.link.agentIf });
    // The broken leaf cost at most one connect-attempt delay: from the boot stage (its first request, metal-boot's config) to the switch, and to the config.
    const at = (l: Log | undefined) => Date.parse(String(l?.time));
    const boot = r.logs.find((l) => l.event === "agent.stage" && l.stage === "boot");
    const toSwitch = at(switches[0]) - at(boot);
    const toConfig = at(r.ev("boot.config")[0]) - at(boot);
    expect(toSwitch).toBeLessThan(5000);
    expect(toConfig).toBeLessThan(5000);
    expect(r.ev("http.retry")).toEqual([]);
    const mine = lab.requests().slice(before);
    expect(new Set(mine.map((q) => q.source))).toEqual(new Set([lab.addressOn(working) ?? "-"]));
    expect(mine.filter((q) => q.path.endsWith("/Register")).map((q) => q.status)).toEqual([200]);
    const status = JSON.parse(readFileSync(join(r.run, "status.json"), "utf8")) as { uplinks: Log[] };
    expect(status.uplinks.map((u) => [u.name, u.state])).toEqual([
      [broken.link.agentIf, "failing"],
      [working.link.agentIf, "preferred"],
    ]);
    console.log(`dual-homed, leaf A without a route: boot stage -> http.uplink ${toSwitch} ms, -> metal-boot's config ${toConfig} ms; ${String(switches[0]?.msg)}`);
  }, 120_000);
});

describe.skipIf(skip !== undefined || !hasImageTools)(`dual-homed: a leaf dies in the middle of the image download${skip ? ` (skipped: ${skip})` : ""}`, () => {
  let imageLab: DualHomedLab;
  let image: TestImage;

  beforeAll(async () => {
    if (skip || !hasImageTools) return;
    image = buildTestImage(mkdtempSync(join(tmpdir(), "mhd-img-")));
    // The allocation names the test image; the first image GET gets 256 KiB, then a trickle that never ends (later GETs: the whole image).
    imageLab = await DualHomedLab.create({ standinArgs: ["--image", image.image, "--allocate-after", "0", "--image-trickle", String(TRICKLE_AT)] });
  }, 60_000);

  afterAll(async () => {
    if (skip || !hasImageTools) return;
    await imageLab?.cleanup();
    if (image) rmSync(image.dir, { recursive: true, force: true });
  });

  /** The image is on the target, its sha256 verified over every byte, one resume; then the driver stops before the installer (exit 54). Its done line. */
  function expectImageDone(r: FlowRun, target: string): Log[] {
    const done = r.ev("install.image.done");
    expect(done).toHaveLength(1);
    expect(done[0]).toMatchObject({ checksum: "sha256", bytes: image.bytes, resumes: 1 });
    expect(String(done[0]?.msg)).toEndWith("sha256 verified");
    expect(r.ev("install.image.checksum")[0]).toMatchObject({ use: "sha256", expected: image.sha256 });
    expect(existsSync(join(target, "bin/busybox"))).toBe(true);
    expect(r.err).toContain("agent-driver (test): the image is on");
    expect(r.code).toBe(54);
    return done;
  }

  /** Leaf A preferred (both route the servers), the trickle re-armed, a fresh target; the image GETs the stand-in recorded from now on. */
  async function imageCase() {
    const [dying, other] = [imageLab.leafA, imageLab.leafB];
    await imageLab.rearmTrickle();
    await imageLab.prefer(dying, false);
    const target = mkdtempSync(join(imageLab.s.lab.dir, "target-"));
    const allGets = () => imageLab.requests().filter((q) => q.path.endsWith("/img.tar.lz4"));
    const earlier = allGets().length;
    const imageGets = () => allGets().slice(earlier);
    return { dying, other, target, dyingAddr: imageLab.addressOn(dying), otherAddr: imageLab.addressOn(other), imageGets };
  }

  // The silent cut first: it leaves leaf A's link as it found it (the link-down test flaps it, after which one run's image went through leaf B).
  test("the preferred leaf dies silently while the image flows through it (link, carrier and RAs fine, packets vanish): the stall bound ends the attempt, the resume connects through the other leaf, sha256 verified", async () => {
    const { dying, other, target, dyingAddr, otherAddr, imageGets } = await imageCase();
    let cut: Promise<{ requests: number; at: number }> | undefined;
    try {
      const r = await imageLab.runFlow({
        waitTimeout: "30s",
        // The parser's minimum (5 s): the silent leaf costs one stall bound, not the default minute.
        imageStallTimeout: "5s",
        env: { FAKE_TARGET: target },
        onLog: (l) => {
          // As above, once the agent has read the fast part; then the leaf drops what goes to the servers (the agent's
          // ACKs and SYNs), silently: its port, carrier and RAs stay as they were, so nothing tells the agent but silence.
          if (l.event === "install.image.progress" && Number(l.bytes) >= TRICKLE_AT && !cut)
            cut = waitFor(() => imageGets().length >= 1, 20_000, "the image's first GET at the stand-in").then(() => {
              imageLab.blackhole(dying);
              return { requests: imageLab.requests().length, at: Date.now() };
            });
        },
      });
      const cutAt = await cut;
      expect(cutAt).toBeDefined();
      const done = expectImageDone(r, target);
      // The stall bound (no byte, or under 64 KiB, in 5 s) ended the attempt; resumed by Range where the cut left it.
      const resumes = r.ev("install.image.resume");
      expect(resumes.map((l) => l.reason)).toHaveLength(1);
      expect(String(resumes[0]?.reason)).toMatch(/^no byte for 5 s \(stall\)$|under 65536 per 5 s \(too slow\)$/);
      expect(Number(resumes[0]?.offset)).toBeGreaterThanOrEqual(TRICKLE_AT);
      // The first image GET came through the dying leaf; every request after the cut through the other leaf's address.
      const gets = imageGets();
      expect(gets[0]?.source).toBe(dyingAddr ?? "-");
      const after = imageLab.requests().slice(cutAt?.requests);
      expect(after.length).toBeGreaterThanOrEqual(1);
      expect(new Set(after.map((q) => q.source))).toEqual(new Set([otherAddr ?? "-"]));
      expect(gets.map((q) => q.status)).toEqual([200, 206]);
      // One switch of uplink, naming both NICs: the preferred uplink's connect never completed within the 300 ms connect-attempt delay.
      const switches = r.ev("http.uplink");
      expect(switches.map((l) => `${String(l.time)} ${String(l.msg)}`)).toEqual([
        expect.stringContaining(`connections now go through ${other.link.agentIf} instead of ${dying.link.agentIf}: `),
      ]);
      expect(switches[0]).toMatchObject({ from: dying.link.agentIf, to: other.link.agentIf });
      // The silent leaf cost one stall bound (5 s) plus the backoff and one connect-attempt delay, not the retry window.
      const at = (l: Log | undefined) => Date.parse(String(l?.time));
      const toResume = at(resumes[0]) - (cutAt?.at ?? 0);
      const toSwitch = at(switches[0]) - (cutAt?.at ?? 0);
      expect(toResume).toBeLessThan(12_000);
      expect(toSwitch - toResume).toBeLessThan(5_000);
      console.log(
        `dual-homed, leaf A silent mid download: cut -> resume ${toResume} ms (${String(resumes[0]?.reason)}, backoff ${String(resumes[0]?.delayMs)} ms), -> http.uplink ${toSwitch} ms, -> sha256 verified ${at(done[0]) - (cutAt?.at ?? 0)} ms; ${String(switches[0]?.msg)}`,
      );
    } finally {
      // The leaf routes the servers again (the route `prefer` sets) for the tests after this one.
      nsx(dying.link.routerNs, "ip", "-6", "route", "replace", `${SERVER}/128`, "via", `fd00:ff:${imageLab.n(dying)}::2`);
    }
  }, 120_000);

  test("the preferred leaf's link dies while the image flows through it: the download resumes by Range through the other leaf, sha256 verified", async () => {
    const { dying, other, target, dyingAddr, otherAddr, imageGets } = await imageCase();
    let cut: Promise<number> | undefined;
    try {
      const r = await imageLab.runFlow({
        waitTimeout: "30s",
        env: { FAKE_TARGET: target },
        onLog: (l) => {
          // The image streams through the preferred leaf (its first GET recorded, its trickle flowing) and the agent has
          // read the fast part (its progress line says so: bytes in a socket buffer are lost with the dropped uplink's
          // connection, so the stand-in's writes alone do not say where the resume starts): then that leaf's port goes down.
          if (l.event === "install.image.progress" && Number(l.bytes) >= TRICKLE_AT && !cut)
            cut = waitFor(() => imageGets().length >= 1, 20_000, "the image's first GET at the stand-in").then(() => {
              nsx(dying.link.routerNs, "ip", "link", "set", dying.link.routerIf, "down");
              return imageLab.requests().length;
            });
        },
      });
      const cutAt = await cut;
      expect(cutAt).toBeDefined();
      expectImageDone(r, target);
      // Resumed by Range where the cut left it, not from byte 0.
      const resumes = r.ev("install.image.resume");
      expect(resumes).toHaveLength(1);
      expect(Number(resumes[0]?.offset)).toBeGreaterThanOrEqual(TRICKLE_AT);
      // The first image GET came through the dying leaf; every request after the cut through the other leaf's address.
      expect(imageGets()[0]?.source).toBe(dyingAddr ?? "-");
      const after = imageLab.requests().slice(cutAt);
      expect(after.length).toBeGreaterThanOrEqual(1);
      expect(new Set(after.map((q) => q.source))).toEqual(new Set([otherAddr ?? "-"]));
      expect(imageGets().map((q) => q.status)).toEqual([200, 206]);
      // One switch of uplink, naming both NICs.
      const switches = r.ev("http.uplink");
      expect(switches).toHaveLength(1);
      expect(switches[0]).toMatchObject({ from: dying.link.agentIf, to: other.link.agentIf });
    } finally {
      nsx(dying.link.routerNs, "ip", "link", "set", dying.link.routerIf, "up");
    }
  }, 120_000);
});
