/**
 * The whole flow in namespaces against the strict stand-ins (root, radvd): the agent
 * in its own netns brings up IPv6 by SLAAC from radvd, fetches pixie's config and
 * token from metal-boot, checks the apiserver (VersionService/Get) and the image
 * cache, writes handoff.json, registers (accepted: two switches), and waits; the
 * stand-in never allocates, so it ends with wait_timeout (26) at METAL_WAIT_TIMEOUT.
 * The LLDP receiver is not on this branch: the agent runs through agent-driver.ts,
 * whose fake LldpSession reports two switches.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { hasRadvd, isRoot, Lab, nsx, type Link } from "../../helpers/netns.ts";
import { REPO, twoSwitches } from "../api/agent.ts";
import { waitFor } from "../../../lab/wait.ts";

const UUID = "4c4c4544-0042-3510-8051-b5c04f4a3150";
const ADDR = "2001:db8:1::1";
const PORT = 18443;
const skip = !isRoot ? "needs root (network namespaces)" : !hasRadvd ? "needs radvd" : undefined;

let lab: Lab;
let link: Link;
let standins: ReturnType<typeof Bun.spawn> | undefined;
let state: string;

beforeAll(async () => {
  if (skip) return;
  lab = new Lab();
  link = lab.addLink();
  state = join(lab.dir, "standins");
  // The router end carries the servers' address in the SLAAC prefix (on-link for the agent).
  nsx(link.routerNs, "ip", "-6", "addr", "add", `${ADDR}/64`, "dev", link.routerIf, "nodad");
  standins = Bun.spawn(["ip", "netns", "exec", link.routerNs, process.execPath, join(REPO, "lab/standins/main.ts"), "--listen", `[${ADDR}]:${PORT}`, "--state-dir", state, "--machine", `${UUID},fra-equ01`], { stdout: "pipe", stderr: "pipe" });
  await waitFor(() => {
    try {
      return JSON.parse(readFileSync(join(state, "standins.json"), "utf8")).ready === true;
    } catch {
      return false;
    }
  }, 30_000, "the stand-ins' standins.json in the router netns");
  await lab.radvd(link, "slaac.conf");
});

afterAll(() => {
  if (skip) return;
  if (standins) process.kill(standins.pid, "SIGTERM");
  lab?.cleanup();
});

describe.skipIf(skip !== undefined)(`the whole flow in namespaces${skip ? ` (skipped: ${skip})` : ""}`, () => {
  test("SLAAC, metal-boot, apiserver, image cache, handoff, Register accepted, then no allocation: exit 26 at METAL_WAIT_TIMEOUT", async () => {
    const run = join(lab.dir, "run");
    const cmdline = `METAL_BOOT_URL=https://[${ADDR}]:${PORT}/ METAL_CA=${join(state, "pki/boot-ca.pem")} METAL_UUID=${UUID} METAL_NICS=${link.agentIf} METAL_NET_TIMEOUT=60s METAL_WAIT_TIMEOUT=1s METAL_LLDP_TIMEOUT=2s`;
    const proc = Bun.spawn(["ip", "netns", "exec", lab.agentNs, process.execPath, join(REPO, "test/integration/api/agent-driver.ts"), "run", "--run-dir", run, "--cmdline", cmdline], {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", METAL_LOG_FORMAT: "json", FAKE_LLDP: twoSwitches(link.agentIf), RESOLV_CONF: join(lab.dir, "resolv.conf") },
      stdout: "pipe",
      stderr: "pipe",
      timeout: 100_000,
      killSignal: "SIGKILL",
    });
    const [err, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
    const logs = err.split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l) as Record<string, unknown>);
    const ev = (name: string) => logs.filter((l) => l.event === name);
    expect(err).toContain(`metal-hammer: no allocation for ${UUID} within METAL_WAIT_TIMEOUT=1s`);
    expect(code).toBe(26);
    expect(logs.filter((l) => l.event === "agent.stage").map((l) => l.stage)).toEqual(["network", "clock", "boot", "api", "image", "handoff", "register", "wipe", "wait"]);
    expect(ev("net.ready")).toHaveLength(1);
    expect(ev("provision.register")[0]).toMatchObject({ uuid: UUID, partition: "fra-equ01" });
    // The stand-in's request log (answered requests; the open Wait never answers): Register accepted (200).
    const reqs = readFileSync(join(state, "requests.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l) as { path: string; status: number; source: string });
    expect(reqs.filter((q) => q.path.endsWith("/Register")).map((q) => q.status)).toEqual([200]);
    expect(ev("provision.wait")).toHaveLength(1);
    expect(ev("provision.wait.timeout")[0]).toMatchObject({ timeoutMs: 1000 });
    // Everything came from the machine's SLAAC address (EUI-64 in 2001:db8:1::/64).
    expect(new Set(reqs.map((q) => q.source))).toEqual(new Set([String(ev("net.dad.done")[0]?.address).split("/")[0] ?? ""]));
    expect(readFileSync(join(lab.dir, "resolv.conf"), "utf8")).toContain("nameserver 2001:db8:1::53");
    expect(JSON.parse(readFileSync(join(run, "handoff.json"), "utf8"))).toMatchObject({ version: 2, uuid: UUID, partition: "fra-equ01", network: { interfaces: [{ name: link.agentIf }] } });
  }, 120_000);
});
