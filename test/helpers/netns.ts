/**
 * The one network-namespace harness of the root tests and benches:
 *   - Lab: unique names under the `mhn` prefix, veth pairs with fixed MACs, radvd in
 *     the router namespace with a config from test/fixtures/radvd/, started as every lab
 *     rig starts it (lab/rig/radvd.ts) (bring-up tests);
 *   - createHostLink: one veth between the test's own namespace (stand-ins) and a
 *     fresh namespace for the agent, static addresses (api and provision suites).
 * Both clean up everything even after a failure (deleting a namespace deletes its
 * veths; processes are killed by PID).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import ipaddr from "ipaddr.js";
export { eui64 } from "../../lab/ipxe/eui64.ts";
import { waitFor } from "../../lab/wait.ts";
import { startRadvd } from "../../lab/rig/radvd.ts";

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
  readonly agentNs = `mhn-${this.id}-a`;
  readonly dir = mkdtempSync(join(tmpdir(), `mhn-${this.id}-`));
  readonly links: Link[] = [];
  private readonly namespaces: string[] = [];
  private readonly pids: number[] = [];
  private readonly radvdPids = new Map<string, { pid: number; conf: string }>();

  constructor() {
    this.addNs(this.agentNs);
  }

  private addNs(ns: string): void {
    sh("ip", "netns", "add", ns);
    this.namespaces.push(ns);
    nsx(ns, "ip", "link", "set", "lo", "up");
  }

  /** A veth pair: agent side `mhn<id>a<n>` (fixed MAC) in the agent netns, router side in its own netns. */
  addLink(opts: { mac?: string } = {}): Link {
    const n = this.links.length;
    const routerNs = `mhn-${this.id}-r${n}`;
    this.addNs(routerNs);
    const agentIf = `mhn${this.id}a${n}`;
    const routerIf = `mhn${this.id}r${n}`;
    const mac = opts.mac ?? `02:00:00:00:aa:0${n + 1}`;
    const link = { agentIf, routerIf, mac, routerNs };
    this.vethPair(link);
    nsx(routerNs, "sysctl", "-qw", "net.ipv6.conf.all.forwarding=1");
    this.links.push(link);
    return link;
  }

  private vethPair(link: Link): void {
    sh("ip", "link", "add", link.agentIf, "netns", this.agentNs, "address", link.mac, "type", "veth", "peer", "name", link.routerIf, "netns", link.routerNs);
    nsx(link.routerNs, "sysctl", "-qw", `net.ipv6.conf.${link.routerIf}.accept_dad=0`);
    nsx(link.routerNs, "ip", "link", "set", link.routerIf, "up");
  }

  /** Deletes the link's veth pair (both ends go); radvd on it is stopped. */
  deleteLink(link: Link): void {
    const r = this.radvdPids.get(link.routerIf);
    if (r) this.kill(r.pid);
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

  /** Starts radvd in the link's router netns with a fixture config (@IF@ replaced); returns its PID. */
  private radvdConf(link: Link, fixture: string): string {
    const text = readFileSync(join(import.meta.dir, "../fixtures/radvd", fixture), "utf8").replaceAll("@IF@", link.routerIf);
    const conf = join(this.dir, `${link.routerIf}.conf`);
    writeFileSync(conf, text);
    return conf;
  }

  /** Rewrites the link's radvd config from another fixture and reloads it (SIGHUP). */
  reloadRadvd(link: Link, fixture: string): void {
    const r = this.radvdPids.get(link.routerIf);
    if (!r) throw new Error(`no radvd on ${link.routerIf}`);
    this.radvdConf(link, fixture);
    process.kill(r.pid, "SIGHUP");
  }

  /** The router side's link-local address (the default gateway the agent should learn). */
  routerLinkLocal(link: Link): string {
    const j = JSON.parse(nsx(link.routerNs, "ip", "-6", "-j", "addr", "show", "dev", link.routerIf, "scope", "link")) as { addr_info: { local: string }[] }[];
    const a = j[0]?.addr_info[0]?.local;
    if (!a) throw new Error(`no link-local on ${link.routerIf}`);
    return a;
  }

  async radvd(link: Link, fixture: string): Promise<number> {
    const conf = this.radvdConf(link, fixture);
    // A fresh pid file per start: a radvd being stopped may still hold (and then remove) the old one.
    const run = `${link.routerIf}.${this.pids.length}`;
    const p = await startRadvd({
      exec: (argv) => ["ip", "netns", "exec", link.routerNs, ...argv],
      conf,
      pidFile: join(this.dir, `${run}.pid`),
      log: join(this.dir, `${run}.log`),
      timeoutMs: 5000,
    });
    this.pids.push(p.pid);
    this.radvdPids.set(link.routerIf, { pid: p.pid, conf });
    return p.pid;
  }

  kill(pid: number): void {
    try {
      process.kill(pid, "SIGTERM");
    } catch {
      /* already gone */
    }
  }

  cleanup(): void {
    for (const pid of this.pids) this.kill(pid);
    for (const ns of this.namespaces.reverse()) Bun.spawnSync(["ip", "netns", "del", ns]);
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
  cleanup(): void;
}

/**
 * `prefix`: the suite's namespace prefix (names stay unique across suites run side by
 * side). Addresses with nodad; a hosts file and an empty resolv.conf for the netns
 * (`ip netns exec` bind-mounts /etc/netns/<ns>/*), removed in cleanup().
 */
export async function createHostLink(prefix = "mha"): Promise<HostLink> {
  // 4 hex digits without a leading zero, so the addresses below are already in canonical form.
  const sfx = (0x1000 + Math.floor(Math.random() * 0xefff)).toString(16);
  const ns = `${prefix}-api-${sfx}`;
  const hostIf = `${prefix}-h${sfx}`;
  const nsIf = `${prefix}-m${sfx}`;
  const hostAddr = `fd00:6d68:${sfx}::1`;
  const machineAddr = `fd00:6d68:${sfx}::2`;
  const name = `standins.${prefix}.test`;
  const etc = `/etc/netns/${ns}`;
  const cleanup = () => {
    Bun.spawnSync(["ip", "link", "del", hostIf], { stdout: "ignore", stderr: "ignore" });
    Bun.spawnSync(["ip", "netns", "del", ns], { stdout: "ignore", stderr: "ignore" });
    rmSync(etc, { recursive: true, force: true });
  };
  try {
    sh("ip", "netns", "add", ns);
    sh("ip", "link", "add", hostIf, "type", "veth", "peer", "name", nsIf, "netns", ns);
    sh("ip", "addr", "add", `${hostAddr}/64`, "dev", hostIf, "nodad");
    sh("ip", "link", "set", hostIf, "up");
    sh("ip", "-n", ns, "link", "set", "lo", "up");
    sh("ip", "-n", ns, "addr", "add", `${machineAddr}/64`, "dev", nsIf, "nodad");
    sh("ip", "-n", ns, "link", "set", nsIf, "up");
    mkdirSync(etc, { recursive: true });
    writeFileSync(`${etc}/hosts`, `127.0.0.1 localhost\n::1 localhost\n${hostAddr} ${name}\n`);
    // An empty resolv.conf: nothing in the netns may ask the machine's real DNS servers.
    writeFileSync(`${etc}/resolv.conf`, "");
    // nodad: the addresses are usable at once; wait for carrier on both ends.
    const up = (...args: string[]) => /state UP/.test(Bun.spawnSync(["ip", ...args], { stdout: "pipe" }).stdout.toString());
    await waitFor(() => up("link", "show", hostIf) && up("-n", ns, "link", "show", nsIf), 10_000, `carrier on ${hostIf} and ${ns}/${nsIf}`);
  } catch (e) {
    cleanup();
    throw e;
  }
  return { ns, hostIf, machineIf: nsIf, hostAddr, machineAddr, name, cleanup };
}
