/**
 * The one network-namespace harness of the root tests and benches, on the lab rig
 * (lab/rig/rig.ts `NetnsRig`: the namespace, radvd started and ended by PID, cleanup
 * in order):
 *   - Lab: unique names under the `mhn` prefix, an agent namespace (no forwarding: the
 *     agent takes RAs there), veth pairs with fixed MACs to one router namespace each,
 *     radvd in a router namespace with a config from test/fixtures/radvd/ (bring-up
 *     tests);
 *   - createHostLink: one veth between the test's own namespace (stand-ins) and a
 *     fresh namespace for the agent, static addresses (api and provision suites).
 * Both clean up everything even after a failure (`await cleanup()`: processes by PID,
 * then the namespaces, which takes their veths).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
export { eui64 } from "../../lab/ipxe/eui64.ts";
import { waitFor } from "../../lab/base/wait.ts";
import { NetnsRig } from "../../lab/rig/rig.ts";

export const isRoot = process.getuid?.() === 0;
export const hasRadvd = Bun.which("radvd") !== null || Bun.which("radvd", { PATH: "/usr/sbin:/sbin" }) !== null;

export function sh(...argv: string[]): string {
  const r = Bun.spawnSync(argv, { stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`${argv.join(" ")} -> exit ${r.exitCode}: ${r.stderr.toString().trim()}`);
  return r.stdout.toString();
}
export const nsx = (ns: string, ...argv: string[]): string => sh("ip", "netns", "exec", ns, ...argv);

export const suffix = (): string => Math.random().toString(16).slice(2, 6);

export interface Link {
  /** Agent-side interface name (in the agent namespace). */
  readonly agentIf: string;
  /** Router-side name (in the router namespace). */
  readonly routerIf: string;
  readonly mac: string;
  readonly routerNs: string;
}

export class Lab {
  readonly id = suffix();
  readonly dir = mkdtempSync(join(tmpdir(), `mhn-${this.id}-`));
  private readonly agent = NetnsRig.create(`mhn-${this.id}-a`, this.dir, { router: false });
  readonly agentNs = this.agent.ns;
  readonly links: Link[] = [];
  /** The router namespace of each link, by its router-side interface. */
  private readonly routers = new Map<string, NetnsRig>();
  /** The radvd serving each link now, by its router-side interface. */
  private readonly radvdPids = new Map<string, number>();
  private starts = 0;

  /** A veth pair: agent side `mhn<id>a<n>` (fixed MAC) in the agent netns, router side in its own netns (forwarding on). */
  addLink(opts: { mac?: string } = {}): Link {
    const n = this.links.length;
    const router = NetnsRig.create(`mhn-${this.id}-r${n}`, this.dir);
    const agentIf = `mhn${this.id}a${n}`;
    const routerIf = `mhn${this.id}r${n}`;
    const mac = opts.mac ?? `02:00:00:00:aa:0${n + 1}`;
    const link = { agentIf, routerIf, mac, routerNs: router.ns };
    this.routers.set(routerIf, router);
    this.links.push(link);
    this.vethPair(link);
    return link;
  }

  private router(link: Link): NetnsRig {
    const r = this.routers.get(link.routerIf);
    if (!r) throw new Error(`no router namespace for ${link.routerIf} in this lab`);
    return r;
  }

  private vethPair(link: Link): void {
    sh("ip", "link", "add", link.agentIf, "netns", this.agentNs, "address", link.mac, "type", "veth", "peer", "name", link.routerIf, "netns", link.routerNs);
    nsx(link.routerNs, "sysctl", "-qw", `net.ipv6.conf.${link.routerIf}.accept_dad=0`);
    nsx(link.routerNs, "ip", "link", "set", link.routerIf, "up");
  }

  /** Deletes the link's veth pair (both ends go); radvd on it is stopped first (by PID). */
  async deleteLink(link: Link): Promise<void> {
    const pid = this.radvdPids.get(link.routerIf);
    if (pid !== undefined) {
      this.radvdPids.delete(link.routerIf);
      await this.router(link).stop(pid);
    }
    nsx(this.agentNs, "ip", "link", "del", link.agentIf);
  }

  /** The same pair again (same names and MAC, a new ifindex), with radvd restarted on it from `fixture`. */
  async recreateLink(link: Link, fixture: string): Promise<number> {
    this.vethPair(link);
    return await this.radvd(link, fixture);
  }

  /** The agent-side ifindex of a link (changes when the link is re-created). */
  ifindex(link: Link): number {
    const j = JSON.parse(nsx(this.agentNs, "ip", "-j", "link", "show", "dev", link.agentIf)) as { ifindex: number }[];
    const i = j[0]?.ifindex;
    if (i === undefined) throw new Error(`no ${link.agentIf} in ${this.agentNs}`);
    return i;
  }

  /** Writes the link's radvd config from a fixture of test/fixtures/radvd/ (@IF@ replaced by the router side); its path. */
  private radvdConf(link: Link, fixture: string): string {
    const text = readFileSync(join(import.meta.dir, "../fixtures/radvd", fixture), "utf8").replaceAll("@IF@", link.routerIf);
    const conf = join(this.dir, `${link.routerIf}.conf`);
    writeFileSync(conf, text);
    return conf;
  }

  /** Rewrites the link's radvd config from another fixture and reloads it (SIGHUP). */
  reloadRadvd(link: Link, fixture: string): void {
    const pid = this.radvdPids.get(link.routerIf);
    if (pid === undefined) throw new Error(`no radvd on ${link.routerIf}`);
    this.radvdConf(link, fixture);
    process.kill(pid, "SIGHUP");
  }

  /** The router side's link-local address (the default gateway the agent should learn). */
  routerLinkLocal(link: Link): string {
    const j = JSON.parse(nsx(link.routerNs, "ip", "-6", "-j", "addr", "show", "dev", link.routerIf, "scope", "link")) as { addr_info: { local: string }[] }[];
    const a = j[0]?.addr_info[0]?.local;
    if (!a) throw new Error(`no link-local on ${link.routerIf}`);
    return a;
  }

  /** radvd in the link's router namespace from a fixture (the rig's start: ready when its pid file is written, 5 s bound); its PID. */
  async radvd(link: Link, fixture: string): Promise<number> {
    const conf = this.radvdConf(link, fixture);
    const pid = await this.router(link).startRadvdWith(conf, `${link.routerIf}.${this.starts++}`, { timeoutMs: 5000 });
    this.radvdPids.set(link.routerIf, pid);
    return pid;
  }

  /** SIGTERM to a process the test started (a stand-in, chrony); gone already is fine. */
  kill(pid: number): void {
    try {
      process.kill(pid, "SIGTERM");
    } catch {
      /* already gone */
    }
  }

  /** Every radvd stopped by PID and every namespace deleted (routers first, then the agent's), then the temp dir. Never throws. */
  async cleanup(): Promise<void> {
    for (const r of [...this.routers.values()].reverse()) await r.cleanup();
    await this.agent.cleanup();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

export function writeFile(path: string, text: string): void {
  writeFileSync(path, text);
}

/** Why the host-link suites cannot run here, or undefined. */
export const canRunNetns = (): string | undefined => {
  if (!isRoot) return "needs root (network namespaces)";
  if (Bun.spawnSync(["ip", "-V"], { stdout: "pipe", stderr: "pipe" }).exitCode !== 0) return "needs iproute2";
  if (Bun.spawnSync(["openssl", "version"], { stdout: "pipe", stderr: "pipe" }).exitCode !== 0) return "needs openssl";
  return undefined;
};

/** A two-ended IPv6 link: the host end carries the stand-ins, the other end sits in a fresh netns where the agent runs. */
export interface HostLink {
  readonly ns: string;
  readonly hostIf: string;
  /** The veth end inside the netns (the machine's NIC). */
  readonly machineIf: string;
  readonly hostAddr: string;
  readonly machineAddr: string;
  /** Host name of the stand-ins inside the netns (via /etc/netns/<ns>/hosts). */
  readonly name: string;
  /** The host veth, the netns (the lab rig's cleanup) and its /etc/netns files removed. Never throws. */
  cleanup(): Promise<void>;
}

/**
 * `prefix`: the suite's namespace prefix (names stay unique across suites run side by
 * side). The netns is a lab rig's (no forwarding: it is the machine's). Addresses with
 * nodad; a hosts file and an empty resolv.conf for the netns (`ip netns exec`
 * bind-mounts /etc/netns/<ns>/*), removed in cleanup().
 */
export async function createHostLink(prefix = "mha"): Promise<HostLink> {
  // 4 hex digits without a leading zero, so the addresses below are already in canonical form.
  const sfx = (0x1000 + Math.floor(Math.random() * 0xefff)).toString(16);
  const hostIf = `${prefix}-h${sfx}`;
  const nsIf = `${prefix}-m${sfx}`;
  const hostAddr = `fd00:6d68:${sfx}::1`;
  const machineAddr = `fd00:6d68:${sfx}::2`;
  const name = `standins.${prefix}.test`;
  const dir = mkdtempSync(join(tmpdir(), `${prefix}-link-`));
  let rig: NetnsRig;
  try {
    rig = NetnsRig.create(`${prefix}-api-${sfx}`, dir, { router: false });
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  const ns = rig.ns;
  const etc = `/etc/netns/${ns}`;
  // Undone last added first, before the namespace goes.
  rig.onCleanup("temp dir", () => rmSync(dir, { recursive: true, force: true }));
  rig.onCleanup(etc, () => rmSync(etc, { recursive: true, force: true }));
  rig.onCleanup(`host veth ${hostIf}`, () => void Bun.spawnSync(["ip", "link", "del", hostIf], { stdout: "ignore", stderr: "ignore" }));
  const cleanup = () => rig.cleanup();
  try {
    sh("ip", "link", "add", hostIf, "type", "veth", "peer", "name", nsIf, "netns", ns);
    sh("ip", "addr", "add", `${hostAddr}/64`, "dev", hostIf, "nodad");
    sh("ip", "link", "set", hostIf, "up");
    rig.ip("addr", "add", `${machineAddr}/64`, "dev", nsIf, "nodad");
    rig.ip("link", "set", nsIf, "up");
    mkdirSync(etc, { recursive: true });
    writeFileSync(`${etc}/hosts`, `127.0.0.1 localhost\n::1 localhost\n${hostAddr} ${name}\n`);
    // An empty resolv.conf: nothing in the netns may ask the machine's real DNS servers.
    writeFileSync(`${etc}/resolv.conf`, "");
    // nodad: the addresses are usable at once; wait for carrier on both ends.
    const up = (...args: string[]) => /state UP/.test(Bun.spawnSync(["ip", ...args], { stdout: "pipe" }).stdout.toString());
    await waitFor(() => up("link", "show", hostIf) && up("-n", ns, "link", "show", nsIf), 10_000, `carrier on ${hostIf} and ${ns}/${nsIf}`);
  } catch (e) {
    await cleanup();
    throw e;
  }
  return { ns, hostIf, machineIf: nsIf, hostAddr, machineAddr, name, cleanup };
}
