/**
 * The whole flow in namespaces against the strict stand-ins and two real switches
 * (root, radvd, lldpd): the machine has two NICs, each on a veth to its own "leaf"
 * namespace running Debian's lldpd (leaf01, leaf02); leaf01 also runs radvd and the
 * stand-ins. The agent (agent-driver.ts: the real CLI and LLDP receiver, disks never
 * touched) collects LLDP while it brings up IPv6 by SLAAC, fetches pixie's config and
 * token from metal-boot, checks the apiserver (VersionService/Get) and the image
 * cache, writes handoff.json, and registers with both switches as neighbours (the
 * stand-in keeps switch.go's two-switch rule); the stand-in never allocates, so it ends
 * with wait_timeout (26) at METAL_WAIT_TIMEOUT. With leaf02's lldpd stopped (from the boot stage), the wait
 * for LLDP ends at METAL_LLDP_TIMEOUT and the refused Register is exit 25 in operator words.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { hasRadvd, isRoot, nsx } from "../../helpers/netns.ts";
import { REPO } from "../api/agent.ts";
import { runFlowIn, type Log } from "./flow-run.ts";
import { standinControl } from "../../../lab/standins/control-client.ts";
import { SKIP as LLDP_SKIP, SwitchLab, type Switch } from "../lldp/switches.ts";
import { waitFor } from "../../../lab/base/wait.ts";
import { prerequisites } from "../../helpers/prerequisites.ts";

const UUID = "4c4c4544-0042-3510-8051-b5c04f4a3150";
const ADDR = "2001:db8:1::1";
const PORT = 18443;
const skip = !isRoot ? "needs root (network namespaces)" : !hasRadvd ? "needs radvd" : LLDP_SKIP;
// Named in the run; fails under CI=true when something is missing.
prerequisites("the whole-flow namespace suite", [skip]);

let s: SwitchLab;
let leaf01: Switch;
let leaf02: Switch;
let standins: ReturnType<typeof Bun.spawn> | undefined;
let state: string;

beforeAll(async () => {
  if (skip) return;
  s = new SwitchLab();
  // The agent brings its NICs up itself: LLDP starts while they are still down.
  [leaf01, leaf02] = [s.addSwitch({ up: false }), s.addSwitch({ up: false })];
  state = join(s.lab.dir, "standins");
  // leaf01's end carries the servers' address in the SLAAC prefix (on-link for the agent).
  nsx(leaf01.link.routerNs, "ip", "-6", "addr", "add", `${ADDR}/64`, "dev", leaf01.link.routerIf, "nodad");
  standins = Bun.spawn(
    [
      "ip",
      "netns",
      "exec",
      leaf01.link.routerNs,
      process.execPath,
      join(REPO, "lab/standins/standins-main.ts"),
      "--listen",
      `[${ADDR}]:${PORT}`,
      "--state-dir",
      state,
      "--machine",
      `${UUID},fra-equ01`,
    ],
    { stdout: "pipe", stderr: "pipe" },
  );
  await waitFor(
    () => {
      try {
        return JSON.parse(readFileSync(join(state, "standins.json"), "utf8")).ready === true;
      } catch {
        return false;
      }
    },
    30_000,
    "the stand-ins' standins.json in leaf01's netns",
  );
  await s.lab.radvd(leaf01.link, "slaac.conf");
  await s.startLldpd(leaf01, "leaf01");
  await s.startLldpd(leaf02, "leaf02");
}, 60_000);

afterAll(async () => {
  if (skip) return;
  if (standins) process.kill(standins.pid, "SIGTERM");
  await s?.cleanup();
});

/** The agent's flow (`run`, from the network stage unless `from`) in the agent netns on both NICs, bounded. */
async function runFlow(extra: string, from: readonly string[] = []) {
  const run = join(s.lab.dir, `run-${Date.now()}`);
  const cmdline = `METAL_BOOT_URL=https://[${ADDR}]:${PORT}/ METAL_CA=${join(state, "pki/boot-ca.pem")} METAL_UUID=${UUID} METAL_NICS=${leaf01.link.agentIf},${leaf02.link.agentIf} METAL_NET_TIMEOUT=60s METAL_WAIT_TIMEOUT=1s ${extra}`;
  return await runFlowIn(s.agentNs, { run, cmdline, resolvConf: join(s.lab.dir, "resolv.conf"), extra: from });
}

/** The stand-ins' request log (answered requests; an open Wait never answers). */
const requests = () =>
  readFileSync(join(state, "requests.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { path: string; status: number; source: string });

/** What the apiserver stand-in holds (its control endpoint, asked from leaf01's netns over its TLS). */
async function machines(): Promise<{ registered: Record<string, unknown> }> {
  return (await standinControl((argv) => ["ip", "netns", "exec", leaf01.link.routerNs, ...argv], state, "/_standin/machines")) as { registered: Record<string, unknown> };
}

describe.skipIf(skip !== undefined)(`the whole flow in namespaces with two lldpd switches${skip ? ` (skipped: ${skip})` : ""}`, () => {
  test("SLAAC, metal-boot, apiserver, image cache, handoff, Register accepted with both LLDP neighbours, then no allocation: exit 26 at METAL_WAIT_TIMEOUT", async () => {
    const r = await runFlow("METAL_LLDP_TIMEOUT=30s");
    expect(r.err).toContain(`metal-hammer: no allocation for ${UUID} within METAL_WAIT_TIMEOUT=1s`);
    expect(r.code).toBe(26);
    expect(r.logs.filter((l) => l.event === "agent.stage").map((l) => l.stage)).toEqual(["network", "clock", "boot", "api", "image", "handoff", "register", "wipe", "wait"]);
    // LLDP ran from before the network stage, as the machine's uuid.
    expect(r.logs.findIndex((l) => l.event === "lldp.start")).toBeLessThan(r.logs.findIndex((l) => l.event === "agent.stage"));
    expect(r.ev("lldp.start").at(-1)).toMatchObject({ systemName: UUID });
    expect(r.ev("lldp.wait.done")[0]).toMatchObject({ complete: true, switches: ["leaf01", "leaf02"], wanted: 2 });
    expect(r.ev("net.ready")).toHaveLength(1);
    expect(r.ev("provision.register")[0]).toMatchObject({ uuid: UUID, partition: "fra-equ01" });
    const reqs = requests();
    expect(reqs.filter((q) => q.path.endsWith("/Register")).map((q) => q.status)).toEqual([200]);
    // What Register carried: each NIC with its switch, mapped as metal-hammer does (Mac = Identifier = port id, Name = port description, Hostname = system name).
    const registered = (await machines()).registered[UUID] as { hardware: { nics: { name: string; neighbors?: Log[] }[] } };
    const neighbours = (nic: string) => registered.hardware.nics.find((n) => n.name === nic)?.neighbors;
    expect(neighbours(leaf01.link.agentIf)).toEqual([{ mac: leaf01.mac, identifier: leaf01.mac, name: leaf01.link.routerIf, hostname: "leaf01" }]);
    expect(neighbours(leaf02.link.agentIf)).toEqual([{ mac: leaf02.mac, identifier: leaf02.mac, name: leaf02.link.routerIf, hostname: "leaf02" }]);
    expect(r.ev("provision.wait")).toHaveLength(1);
    expect(r.ev("provision.wait.timeout")[0]).toMatchObject({ timeoutMs: 1000 });
    // Everything came from the machine's SLAAC address (EUI-64 in 2001:db8:1::/64).
    expect(new Set(reqs.map((q) => q.source))).toEqual(new Set([String(r.ev("net.dad.done")[0]?.address).split("/")[0] ?? ""]));
    expect(readFileSync(join(s.lab.dir, "resolv.conf"), "utf8")).toContain("nameserver 2001:db8:1::53");
    expect(JSON.parse(readFileSync(join(r.run, "handoff.json"), "utf8"))).toMatchObject({ version: 2, uuid: UUID, partition: "fra-equ01" });
  }, 120_000);

  test("one switch only (leaf02's lldpd stopped): the LLDP wait ends at METAL_LLDP_TIMEOUT, Register is refused, exit 25 naming the switch LLDP saw", async () => {
    await s.stopLldpd(leaf02);
    // SLAAC was proven above: this run starts at the boot stage (~2 s less), the NICs up with an address of its own.
    for (const sw of [leaf01, leaf02]) nsx(s.agentNs, "ip", "link", "set", sw.link.agentIf, "up");
    nsx(s.agentNs, "ip", "-6", "addr", "replace", "2001:db8:1::99/64", "dev", leaf01.link.agentIf, "nodad");
    const r = await runFlow("METAL_LLDP_TIMEOUT=2s", ["--from", "boot"]);
    expect(r.code).toBe(25);
    expect(r.err).toContain("metal-hammer: apiserver refused Register: machine is not connected to exactly two switches (LLDP saw: leaf01)");
    const done = r.ev("lldp.wait.done")[0];
    expect(done).toMatchObject({ complete: false, switches: ["leaf01"], wanted: 2 });
    expect(Number(done?.ms)).toBeGreaterThanOrEqual(2000);
    expect(Number(done?.ms)).toBeLessThan(10_000);
    expect(r.ev("lldp.neighbours")[0]).toMatchObject({ switches: ["leaf01"], level: 40 });
    // This run's Register (the last one the stand-in answered): refused, 400 (failed_precondition).
    expect(
      requests()
        .filter((q) => q.path.endsWith("/Register"))
        .at(-1)?.status,
    ).toBe(400);
  }, 120_000);
});
