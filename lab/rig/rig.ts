/**
 * The lab rig: one network namespace standing in for a boot VRF, with a tap per switch
 * port (`<prefix>::1/64`, nodad), radvd advertising one /64 per port (radvd-conf.ts),
 * service addresses on its loopback, and everything started in it undone on cleanup
 * (processes ended by PID, last started first, then the namespace with its taps).
 * The direct lab (lab/direct/lab.ts), the chain lab (lab/chain/) and the root tests' veth
 * labs (test/helpers/netns.ts: an agent namespace with `router: false`, one router
 * namespace per link, radvd from a fixture config) and the fleet (lab/fleet/: two leaf
 * namespaces with a bridge of N ports, veths to N machine namespaces with `router: false`,
 * radvd on a leaf's bridge) build on it.
 *
 *   const rig = NetnsRig.create("mhl-d69e44", dir);
 *   rig.addTap("mhld69e44t0", "fd6d:686c:0:1::1");
 *   await rig.startRadvd([{ ifname: "mhld69e44t0", prefix: "fd6d:686c:0:1::/64" }]);
 *   ...
 *   await rig.cleanup(); // processes by PID (last started first), then the namespace and its taps
 */
import { writeFileSync } from "node:fs";
import type { Subprocess } from "bun";
import { join } from "node:path";
import { waitFor } from "../base/wait.ts";
import { radvdConf, type RadvdPort } from "./radvd-conf.ts";
import { startRadvd } from "./radvd.ts";

/** Network namespace names the rigs may create: a lab prefix and a random suffix, at most 32 characters. */
const NS_NAME = /^mh[a-z]{1,2}-[0-9a-z-]{1,24}$/;

function sh(argv: readonly string[]): string {
  const r = Bun.spawnSync([...argv], { stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`lab: ${argv.join(" ")} exited ${r.exitCode}: ${r.stderr.toString().trim()}`);
  return r.stdout.toString();
}

/** Whether a process with this PID exists (signal 0). */
export const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** SIGTERM, then SIGKILL if it is still there after `graceMs`. Only PIDs the caller started come here. */
export async function stopPid(pid: number, graceMs = 2000): Promise<void> {
  if (!alive(pid)) return;
  try {
    process.kill(pid, "SIGTERM");
  } catch {
    return;
  }
  try {
    await waitFor(() => !alive(pid), graceMs, `PID ${pid} to exit`);
  } catch {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
}

interface Undo {
  readonly what: string;
  readonly undo: () => Promise<void> | void;
  /** The process this undo stops (stop() ends it early and drops the undo). */
  readonly pid?: number;
}

export interface RigOptions {
  /** IPv6 forwarding on (default): the namespace routes. Off for a machine's namespace (the agent there takes RAs: with forwarding on, Linux ignores them). */
  readonly router?: boolean;
}

export class NetnsRig {
  private readonly undos: Undo[] = [];
  private removed = false;

  private constructor(
    readonly ns: string,
    /** Where the rig writes radvd's config, pid file and log. */
    readonly dir: string,
  ) {}

  /** Creates the namespace (loopback up; unless `router: false`, IPv6 forwarding on: it routes between its ports and its services). */
  static create(ns: string, dir: string, opts: RigOptions = {}): NetnsRig {
    if (!NS_NAME.test(ns)) throw new Error(`lab rig: namespace ${JSON.stringify(ns)}: expected mh<x>-<suffix> (a lab prefix and a unique suffix, at most 32 characters)`);
    sh(["ip", "netns", "add", ns]);
    const rig = new NetnsRig(ns, dir);
    try {
      sh(["ip", "-n", ns, "link", "set", "lo", "up"]);
      if (opts.router !== false) sh(rig.exec(["sysctl", "-q", "-w", "net.ipv6.conf.all.forwarding=1"]));
    } catch (e) {
      Bun.spawnSync(["ip", "netns", "del", ns]);
      throw e;
    }
    return rig;
  }

  /** `argv` run inside the namespace. */
  exec(argv: readonly string[]): string[] {
    return ["ip", "netns", "exec", this.ns, ...argv];
  }

  /** `ip -n <ns> args...`, throwing with its stderr. */
  ip(...args: string[]): string {
    return sh(["ip", "-n", this.ns, ...args]);
  }

  /** A service address on the namespace's loopback (`addr/128` unless a prefix length is given). */
  addLoopback(addr: string): void {
    this.ip("addr", "add", addr.includes("/") ? addr : `${addr}/128`, "dev", "lo");
  }

  /** A tap (one switch port): up, with the router's address `routerAddr/64` (nodad: usable at once). */
  addTap(tap: string, routerAddr: string): void {
    this.ip("tuntap", "add", "dev", tap, "mode", "tap");
    this.ip("-6", "addr", "add", `${routerAddr}/64`, "dev", tap, "nodad");
    this.ip("link", "set", tap, "up");
  }

  /** A bridge in the namespace, up (the fleet's leaf: every machine's veth a port of it). */
  addBridge(bridge: string): void {
    this.ip("link", "add", bridge, "type", "bridge");
    this.ip("link", "set", bridge, "up");
  }

  /** An address on a device of the namespace (`cidr` with its prefix length), nodad: usable at once. */
  addAddr(dev: string, cidr: string): void {
    this.ip("addr", "add", cidr, "dev", dev, "nodad");
  }

  /**
   * A veth from this namespace (`port`, up, enslaved to `o.master` if given) to `peer`'s
   * namespace (`peerName`, with MAC `o.peerMac` if given; left down, as a machine's NIC at
   * power-on). Two `ip` runs (one with `master`: the create, then set master and up at once):
   * the fleet adds hundreds. Deleted with either namespace.
   */
  addVeth(port: string, peer: NetnsRig, peerName: string, o: { readonly master?: string; readonly peerMac?: string } = {}): void {
    sh(["ip", "link", "add", port, "netns", this.ns, "type", "veth", "peer", "name", peerName, "netns", peer.ns, ...(o.peerMac ? ["address", o.peerMac] : [])]);
    this.ip("link", "set", port, ...(o.master ? ["master", o.master] : []), "up");
  }

  /** What cleanup() must undo besides the namespace (a process to stop by its PID, a file to remove), last added first. */
  onCleanup(what: string, undo: () => Promise<void> | void): void {
    this.undos.push({ what, undo });
  }

  /** A process the rig started, stopped by PID in cleanup() unless stop() ended it first. */
  private own(what: string, pid: number): void {
    this.undos.push({ what, undo: () => stopPid(pid), pid });
  }

  /** Ends a process the rig started (SIGTERM, then SIGKILL; stopPid) now rather than at cleanup(). */
  async stop(pid: number): Promise<void> {
    const i = this.undos.findIndex((u) => u.pid === pid);
    if (i < 0) throw new Error(`lab rig ${this.ns}: PID ${pid} was not started by this rig`);
    this.undos.splice(i, 1);
    await stopPid(pid);
  }

  /** Bun.spawn of `argv` inside the namespace, stopped by PID in cleanup(). */
  spawn<const In extends Bun.SpawnOptions.Writable = "ignore", const Out extends Bun.SpawnOptions.Readable = "pipe", const Err extends Bun.SpawnOptions.Readable = "inherit">(
    name: string,
    argv: readonly string[],
    options: Bun.SpawnOptions.SpawnOptions<In, Out, Err>,
  ): Subprocess<In, Out, Err> {
    const p = Bun.spawn(this.exec(argv), options);
    this.own(name, p.pid);
    return p;
  }

  /**
   * radvd serving `ports` (one /64 each): config `<dir>/radvd.conf`, log `<dir>/radvd.log`;
   * resolves once it wrote its pid file (bounded), with its PID.
   */
  async startRadvd(ports: readonly RadvdPort[], say?: (line: string) => void): Promise<number> {
    const conf = join(this.dir, "radvd.conf");
    writeFileSync(conf, radvdConf(ports), { mode: 0o644 });
    return await this.startRadvdWith(conf, "radvd", say === undefined ? {} : { say });
  }

  /**
   * radvd from a config file the caller wrote (the bring-up tests' fixtures): pid file
   * `<dir>/<run>.pid`, log `<dir>/<run>.log` (`run` fresh per start: a radvd being
   * stopped may still hold, and then remove, an old pid file); its PID, stopped in
   * cleanup() or by stop().
   */
  async startRadvdWith(conf: string, run: string, o: { readonly timeoutMs?: number; readonly say?: (line: string) => void } = {}): Promise<number> {
    const p = await startRadvd({ exec: (argv) => this.exec(argv), conf, pidFile: join(this.dir, `${run}.pid`), log: join(this.dir, `${run}.log`), ...o });
    this.own("radvd", p.pid);
    return p.pid;
  }

  /** Undoes everything added with onCleanup (last first: processes by PID), then deletes the namespace (and its taps). Never throws; a second call does nothing. */
  async cleanup(): Promise<void> {
    for (const u of this.undos.splice(0).reverse())
      await Promise.resolve()
        .then(u.undo)
        .catch(() => undefined);
    if (this.removed) return;
    this.removed = true;
    Bun.spawnSync(["ip", "netns", "del", this.ns], { stdout: "ignore", stderr: "ignore" });
  }
}
