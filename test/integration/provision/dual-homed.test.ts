/**
 * Dual-homed (issue 35), in namespaces against the strict stand-ins (root, radvd,
 * lldpd): the machine has two NICs, each on a veth to its own leaf (radvd with its own
 * /64, lldpd); the stand-ins sit in a servers namespace behind both leaves. The leaf
 * whose RA says router preference high blackholes traffic to the servers (its boot VRF
 * missing on the uplinks, as an operator meets it in a rollout). The machine still
 * gets metal-boot's config, checks the apiserver and registers through the other leaf,
 * then waits (the stand-in never allocates: exit 26 at METAL_WAIT_TIMEOUT): one
 * `http.uplink` line names both NICs. Both orientations: leaf A preferred and broken,
 * then leaf B. Before the uplinks, every request followed the main table's preferred
 * default router into the blackhole until the retry window ended (exit 23).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { hasRadvd, isRoot, nsx, sh, type Link } from "../../helpers/netns.ts";
import { REPO } from "../api/agent.ts";
import { disklessArgv } from "../../../lab/diskless.ts";
import { NetnsRig } from "../../../lab/rig/rig.ts";
import { SKIP as LLDP_SKIP, SwitchLab, type Switch } from "../lldp/switches.ts";
import { waitFor } from "../../../lab/wait.ts";
import { prerequisites } from "../../helpers/prerequisites.ts";

const UUID = "4c4c4544-0042-3510-8051-b5c04f4a3150";
/** The stand-ins' address, on the servers namespace's loopback, routed by both leaves. */
const SERVER = "2001:db8:ff::1";
const PORT = 18444;
const skip = !isRoot ? "needs root (network namespaces)" : !hasRadvd ? "needs radvd" : LLDP_SKIP;
prerequisites("the dual-homed namespace suite", [skip]);

let s: SwitchLab;
let leafA: Switch;
let leafB: Switch;
let servers: NetnsRig;
let state: string;

/** The leaf's /64 for the machine (leaf A 2001:db8:1::/64, leaf B 2001:db8:2::/64) and its transfer net to the servers. */
const leaves = () => [
  { sw: leafA, n: 1, transfer: "fd00:ff:1::" },
  { sw: leafB, n: 2, transfer: "fd00:ff:2::" },
];

beforeAll(async () => {
  if (skip) return;
  s = new SwitchLab();
  [leafA, leafB] = [s.addSwitch({ up: false }), s.addSwitch({ up: false })];
  servers = NetnsRig.create(`mhd-${s.lab.id}-srv`, s.lab.dir, { router: false });
  servers.addLoopback(SERVER);
  for (const { sw, n, transfer } of leaves()) {
    const leafSide = `mhd${s.lab.id}l${n}`;
    const srvSide = `mhd${s.lab.id}s${n}`;
    sh("ip", "link", "add", leafSide, "netns", sw.link.routerNs, "type", "veth", "peer", "name", srvSide, "netns", servers.ns);
    nsx(sw.link.routerNs, "ip", "link", "set", leafSide, "up");
    servers.ip("link", "set", srvSide, "up");
    nsx(sw.link.routerNs, "ip", "-6", "addr", "add", `${transfer}1/64`, "dev", leafSide, "nodad");
    servers.addAddr(srvSide, `${transfer}2/64`);
    // The leaf routes its machine-facing /64 (on-link) and the servers; the servers route each /64 back through its leaf.
    nsx(sw.link.routerNs, "ip", "-6", "addr", "add", `2001:db8:${n}::1/64`, "dev", sw.link.routerIf, "nodad");
    nsx(sw.link.routerNs, "ip", "-6", "route", "add", `${SERVER}/128`, "via", `${transfer}2`);
    servers.ip("-6", "route", "add", `2001:db8:${n}::/64`, "via", `${transfer}1`);
  }
  state = join(s.lab.dir, "standins");
  servers.spawn("stand-ins", [process.execPath, join(REPO, "lab/standins/main.ts"), "--listen", `[${SERVER}]:${PORT}`, "--state-dir", state, "--machine", `${UUID},fra-equ01`], {
    stdout: "pipe",
    stderr: "pipe",
  });
  await waitFor(
    () => {
      try {
        return JSON.parse(readFileSync(join(state, "standins.json"), "utf8")).ready === true;
      } catch {
        return false;
      }
    },
    30_000,
    "the stand-ins' standins.json in the servers' netns",
  );
  await s.startLldpd(leafA, "leaf01");
  await s.startLldpd(leafB, "leaf02");
}, 60_000);

afterAll(async () => {
  if (skip) return;
  await servers?.cleanup();
  await s?.cleanup();
});

type Log = Record<string, unknown>;

/** The whole flow in the agent netns on both NICs (bounded), with a retry window short enough to show the old failure. */
async function runFlow() {
  const run = join(s.lab.dir, `run-${Date.now()}`);
  const cmdline = `METAL_BOOT_URL=https://[${SERVER}]:${PORT}/ METAL_CA=${join(state, "pki/boot-ca.pem")} METAL_UUID=${UUID} METAL_NICS=${leafA.link.agentIf},${leafB.link.agentIf} METAL_NET_TIMEOUT=60s METAL_WAIT_TIMEOUT=1s METAL_LLDP_TIMEOUT=30s METAL_RETRY_WINDOW=15s`;
  const proc = Bun.spawn(
    ["ip", "netns", "exec", s.agentNs, ...disklessArgv([process.execPath, join(REPO, "test/integration/api/agent-driver.ts"), "run", "--run-dir", run, "--cmdline", cmdline])],
    {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", METAL_LOG_FORMAT: "json", RESOLV_CONF: join(s.lab.dir, "resolv.conf") },
      stdout: "pipe",
      stderr: "pipe",
      timeout: 100_000,
      killSignal: "SIGKILL",
    },
  );
  const [err, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
  const logs = err
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as Log);
  return { run, err, code, logs, ev: (name: string) => logs.filter((l) => l.event === name) };
}

/** The stand-ins' request log (none yet before the first request). */
const requests = () =>
  (existsSync(join(state, "requests.jsonl")) ? readFileSync(join(state, "requests.jsonl"), "utf8") : "")
    .trim()
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as { path: string; status: number; source: string });

/** Leaf `broken` is preferred (RA preference high) and blackholes the servers; the other is low and works. */
async function breakPreferred(broken: Switch, working: Switch): Promise<void> {
  const fixture = (sw: Switch, pref: string) => `dual-${sw === leafA ? 1 : 2}-${pref}.conf`;
  for (const [sw, pref] of [
    [broken, "high"],
    [working, "low"],
  ] as const) {
    if (radvdStarted.has(sw)) s.lab.reloadRadvd(sw.link, fixture(sw, pref));
    else await s.lab.radvd(sw.link, fixture(sw, pref));
    radvdStarted.add(sw);
  }
  nsx(broken.link.routerNs, "ip", "-6", "route", "replace", "blackhole", `${SERVER}/128`);
  nsx(working.link.routerNs, "ip", "-6", "route", "replace", `${SERVER}/128`, "via", `${working === leafA ? "fd00:ff:1::" : "fd00:ff:2::"}2`);
}
const radvdStarted = new Set<Switch>();

/** The machine's address on a leaf's /64 (EUI-64 of its NIC's MAC). */
const addressOn = (link: Link, n: number) => {
  const j = JSON.parse(nsx(s.agentNs, "ip", "-6", "-j", "addr", "show", "dev", link.agentIf, "scope", "global", "-tentative")) as { addr_info: { local: string }[] }[];
  return j[0]?.addr_info.map((a) => a.local).find((a) => a.startsWith(`2001:db8:${n}:`));
};

describe.skipIf(skip !== undefined)(`dual-homed: the preferred leaf blackholes the servers, the other carries the machine${skip ? ` (skipped: ${skip})` : ""}`, () => {
  for (const orientation of ["A", "B"] as const) {
    test(`leaf ${orientation} preferred and broken: metal-boot, apiserver and Register through the other leaf, one http.uplink line naming both NICs, then the wait (exit 26)`, async () => {
      const [broken, working] = orientation === "A" ? [leafA, leafB] : [leafB, leafA];
      await breakPreferred(broken, working);
      // Both NICs up and configured before the agent starts (bring-up from NICs down is the flow suite's): then both are
      // uplinks from the first request on, whichever NIC bring-up saw ready first. Bounded by the next RA (<= 4 s) and DAD.
      for (const sw of [leafA, leafB]) nsx(s.agentNs, "ip", "link", "set", sw.link.agentIf, "up");
      await waitFor(
        () => {
          const routes = nsx(s.agentNs, "ip", "-6", "route", "show", "default");
          const ready = (sw: Switch, n: number) => addressOn(sw.link, n) !== undefined;
          return (
            new RegExp(`dev ${broken.link.agentIf} .*pref high`).test(routes) &&
            new RegExp(`dev ${working.link.agentIf} .*pref low`).test(routes) &&
            ready(leafA, 1) &&
            ready(leafB, 2)
          );
        },
        15_000,
        `leaf ${orientation}'s default route with preference high, the other's low, both addresses usable in the agent netns`,
      );
      const before = requests().length;
      const t0 = performance.now();
      const r = await runFlow();
      const ms = performance.now() - t0;
      expect(r.err).toContain(`metal-hammer: no allocation for ${UUID} within METAL_WAIT_TIMEOUT=1s`);
      expect(r.code).toBe(26);
      expect(r.logs.filter((l) => l.event === "agent.stage").map((l) => l.stage)).toEqual(["network", "clock", "boot", "api", "image", "handoff", "register", "wipe", "wait"]);
      const switches = r.ev("http.uplink");
      expect(switches).toHaveLength(1);
      expect(switches[0]).toMatchObject({ from: broken.link.agentIf, to: working.link.agentIf, level: 40 });
      expect(String(switches[0]?.msg)).toStartWith(`connections now go through ${working.link.agentIf} instead of ${broken.link.agentIf}: `);
      // Every request of this run reached the servers from the working leaf's address.
      const mine = requests().slice(before);
      const workingAddr = addressOn(working.link, working === leafA ? 1 : 2);
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
});
