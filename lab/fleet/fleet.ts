/**
 * A rack at once: N machines, each in its own network namespace with two NICs, one on
 * each of two leaf bridges (leaf01, leaf02); each leaf runs one lldpd announcing every
 * port as SONiC's lldpmgrd configures it (port id the alias `Eth1/<n>(Port<n>)`,
 * description `Ethernet<4(n-1)>`); leaf01 also runs radvd (one /64 for the rack, RDNSS)
 * and the stand-ins (metal-boot, apiserver with the switch table, image cache). Every
 * machine runs the agent's real CLI `run` (agent-driver.ts: disks and BMC replaced),
 * compiled as the initramfs' binary is (driver-binary.ts), kept from this host's disks by
 * construction (lab/base/diskless.ts). Every namespace is a lab rig (lab/rig/rig.ts: the leaves
 * route, the machines take RAs with `router: false`); names are unique per fleet
 * (`mhf-<id>-l1`, `mhf-<id>-m<i>`). A plan over the lab lifecycle (lab/lifecycle/), held
 * open for a run or a test to drive: setUp() runs the rig step (the leaves' and machines'
 * namespaces, bridges, veths, radvd) and the stand-ins step (lldpd, the stand-ins);
 * startAgents() the machines; tearDown() the one clean-up stack, last started first:
 * installs and agents killed by PID, the machines' namespaces, then the leaves' (their
 * daemons stopped by PID by their rigs), then the work dir.
 *
 * Deviation from a real partition, on purpose: one /64 for all machines on a leaf (a real
 * boot VRF gives each switch port its own), so the machines share one RA stream.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, chmodSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { disklessArgv } from "../base/diskless.ts";
import { compileAgentDriver } from "./driver-binary.ts";
import { standinControl } from "../standins/control-client.ts";
import type { UnavailableReport } from "../standins/unavailable.ts";
import { IMAGE_PATH } from "../standins/image-cache.ts";
import type { ImageDropReport, ImageDropSpec } from "../standins/image-drop.ts";
import { lldpdPortsConf, switchName, switchPort, withPrivateRun } from "../rig/plan.ts";
import { waitFor } from "../base/wait.ts";
import { eachLine } from "../base/serial-console.ts";
import { NetnsRig } from "../rig/rig.ts";
import { Lifecycle } from "../lifecycle/lifecycle.ts";
import { standinsArgv, standinsReady, standinsRequests, type StandinsRequest } from "../standins/standins-process.ts";

export const FLEET_PREFIX = "2001:db8:f1::";
export const SERVERS_ADDR = `${FLEET_PREFIX}1`;
export const SERVERS_PORT = 18443;
/** The image cache listens on the port after the apiserver's (main.ts: metal-boot, api, images). */
export const IMAGES_PORT = SERVERS_PORT + 2;

export interface FleetOptions {
  readonly machines: number;
  /** Extra cmdline words for every agent. */
  readonly cmdline?: string;
  /** LLDP hello interval of the leaves (s); metal-roles uses 10, the lab 1. */
  readonly lldpIntervalS?: number;
  /** An img.tar.lz4 (with its sidecars written by the stand-in) the image cache serves instead of random bytes. */
  readonly image?: string;
}

/** One machine's run of `metal-hammer image install` (the agent's real CLI, in its namespace, diskless). */
export interface ImageInstall {
  readonly target: string;
  readonly startedAt: number;
  endedAt?: number;
  exitCode?: number;
  /** What the command printed with --json (ImageInstallResult and root), when it finished. */
  result?: ImageInstallOutput;
  /** Its log lines (JSON) and the final error line, if any. */
  readonly logs: LogLine[];
  stderr: string;
  /** Peak RSS of the command's processes (the agent's Bun process the largest; tar and lz4 below it), bytes. */
  peakBytes?: number;
}

/** What `image install --json` prints (src/install/image.ts ImageInstallResult, with the target). */
export interface ImageInstallOutput {
  readonly bytes: number;
  readonly checksum: { readonly algo: string; readonly hex: string };
  readonly resumes: number;
  readonly restarts: number;
  readonly passes: number;
  readonly ms: number;
}

export interface LogLine extends Record<string, unknown> {
  readonly event?: string;
  readonly time?: string;
}

export interface FleetMachine {
  readonly index: number;
  readonly uuid: string;
  readonly ns: string;
  readonly runDir: string;
  proc?: ReturnType<typeof Bun.spawn>;
  readonly logs: LogLine[];
  stderr: string;
  startedAt: number;
  exitCode?: number;
  /** Peak RSS (VmHWM) of the agent process, kB, read before it ended: with the binary's own pages, shared by all. */
  peakKb?: number;
  /** Its private memory (RssAnon), kB, read at the same time. */
  anonKb?: number;
  install?: ImageInstall;
}

/** A request the stand-ins answered (their log's line). */
export type ServerRequest = StandinsRequest;

const hex2 = (n: number) => (n & 0xff).toString(16).padStart(2, "0");

/** The uuid of machine i (unique per machine, the same in every run). */
export const fleetUuid = (i: number) => `00000000-f1ee-7000-8000-${i.toString(16).padStart(12, "0")}`;

/** What the rig step made: the leaves' namespaces (leaf01 first: radvd, lldpd, the stand-ins), then one per machine, by index. */
interface FleetRig {
  readonly leaves: readonly NetnsRig[];
  readonly machines: readonly NetnsRig[];
}

export class Fleet {
  readonly id = Math.random().toString(36).slice(2, 7);
  readonly dir = mkdtempSync(join(tmpdir(), "mhf-"));
  readonly leaves = [`mhf-${this.id}-l1`, `mhf-${this.id}-l2`] as const;
  readonly machines: FleetMachine[] = [];
  /** The one clean-up stack: the work dir, each namespace, each agent and install; tearDown runs it. */
  private readonly life = new Lifecycle();
  /** tearDown(true): the work dir stays. */
  private keep = false;
  readonly state = join(this.dir, "standins");
  /** What setUp made: the agent every machine runs (compiled) and the rig step's namespaces. */
  private made: { readonly agent: string; readonly rig: FleetRig } | undefined;

  constructor(readonly opts: FleetOptions) {
    chmodSync(this.dir, 0o755);
    this.life.push(`work dir ${this.dir}`, () => {
      if (!this.keep) rmSync(this.dir, { recursive: true, force: true });
    });
  }

  private get up(): { readonly agent: string; readonly rig: FleetRig } {
    if (!this.made) throw new Error(`fleet ${this.id}: not set up (call setUp() first)`);
    return this.made;
  }

  /** `argv` in leaf01 (the stand-ins' control client runs there). */
  private inLeaf01 = (argv: readonly string[]): string[] => (this.up.rig.leaves[0] as NetnsRig).exec(argv);

  private machineRig(m: FleetMachine): NetnsRig {
    const r = this.up.rig.machines[m.index];
    if (!r) throw new Error(`fleet ${this.id}: machine ${m.index} has no namespace`);
    return r;
  }

  /** The rig step (namespaces, bridges, veths, radvd) and the stand-ins step (lldpd, the stand-ins); no agent yet. */
  async setUp(): Promise<void> {
    const agent = compileAgentDriver(join(this.dir, "agent-driver"));
    const rig = await this.life.step("rig", () => this.createRigs());
    await this.life.step("standins", async () => {
      await this.startLldpd(rig.leaves);
      await this.startStandins(rig.leaves[0] as NetnsRig);
    });
    this.made = { agent, rig };
  }

  /** The leaves (leaf01's bridge with the servers' address and radvd: the rack's /64, a default router, RDNSS, as readiness includes DNS) and the machines. */
  private async createRigs(): Promise<FleetRig> {
    const leaves = this.leaves.map((leaf) => {
      const rig = this.createRig(leaf);
      rig.addBridge("br0");
      return rig;
    });
    const leaf01 = leaves[0] as NetnsRig;
    leaf01.addAddr("br0", `${SERVERS_ADDR}/64`);
    const machines = Array.from({ length: this.opts.machines }, (_, i) => this.addMachine(i, leaves));
    await leaf01.startRadvd([{ ifname: "br0", prefix: `${FLEET_PREFIX}/64`, rdnss: [`${FLEET_PREFIX}53`] }]);
    return { leaves, machines };
  }

  /** What clean-up must also undo (a file of the run), on the fleet's one stack. */
  onCleanUp(what: string, undo: () => Promise<void> | void): void {
    this.life.push(what, undo);
  }

  /** SIGINT/SIGTERM clean up (agents, namespaces, the dir unless kept) and exit 130/143; the handlers go with the clean-up. */
  catchSignals(say: (line: string) => void): void {
    this.life.catchSignals((line) => say(`fleet: ${line}`));
  }

  /** A namespace of the fleet, deleted (its daemons stopped by PID first) at clean-up. */
  private createRig(ns: string, opts: { readonly router?: boolean } = {}): NetnsRig {
    const rig = NetnsRig.create(ns, this.dir, opts);
    this.life.push(`netns ${ns}`, () => rig.cleanup());
    return rig;
  }

  /** A process of the fleet (an agent, an install), killed by PID at clean-up. */
  private own(what: string, proc: ReturnType<typeof Bun.spawn>): void {
    this.life.push(`${what} (PID ${proc.pid})`, async () => {
      try {
        proc.kill("SIGKILL");
      } catch {}
      await proc.exited;
    });
  }

  /** Machine i: its namespace (taking RAs) and NIC eth<k> on leaf k's bridge as port p<i>, MAC 02:f1:<i>:00:0<k+1>. */
  private addMachine(i: number, leaves: readonly NetnsRig[]): NetnsRig {
    const m: FleetMachine = { index: i, uuid: fleetUuid(i), ns: `mhf-${this.id}-m${i}`, runDir: join(this.dir, `run-${i}`), logs: [], stderr: "", startedAt: 0 };
    const rig = this.createRig(m.ns, { router: false });
    for (const [k, leaf] of leaves.entries()) leaf.addVeth(`p${i}`, rig, `eth${k}`, { master: "br0", peerMac: `02:f1:${hex2(i >> 8)}:${hex2(i)}:00:0${k + 1}` });
    this.machines.push(m);
    return rig;
  }

  /** One lldpd per leaf, every port configured as SONiC's lldpmgrd does (sonic-net/sonic-buildimage@086b03bd dockers/docker-lldp/lldpmgrd:147-160). */
  private async startLldpd(leaves: readonly NetnsRig[]): Promise<void> {
    for (const [k, rig] of leaves.entries()) {
      const host = switchName(k);
      const conf = join(this.dir, `lldpd-${host}.conf`);
      const ports = this.machines.map((m) => ({ tap: `p${m.index}`, port: m.index }));
      writeFileSync(conf, lldpdPortsConf(host, "sonic", ports, this.opts.lldpIntervalS ?? 1), { mode: 0o644 });
      const sock = join(this.dir, `lldpd-${host}.sock`);
      const p = rig.spawn(`lldpd ${host}`, withPrivateRun(["lldpd", "-d", "-I", "p*", "-C", "p0", "-u", sock, "-O", conf]), {
        stdin: "ignore",
        stdout: "ignore",
        stderr: "ignore",
      });
      const last = switchPort("sonic", this.opts.machines - 1).alias as string;
      await waitFor(
        () => {
          if (p.exitCode !== null) throw new Error(`lldpd ${host} exited ${p.exitCode}`);
          const r = Bun.spawnSync(rig.exec(["lldpcli", "-u", sock, "show", "interfaces"]), { stdout: "pipe", stderr: "pipe" });
          return r.stdout.toString().includes(last);
        },
        30_000,
        `lldpd ${host} to configure its ${this.opts.machines} ports`,
        100,
      );
    }
  }

  /** The stand-ins in leaf01 with every machine known and the switch table as metal-core registers SONiC ports. */
  private async startStandins(leaf01: NetnsRig): Promise<void> {
    const switches = this.leaves.map((_, k) => ({ id: switchName(k), os: "sonic", ports: this.machines.map((m) => switchPort("sonic", m.index)) }));
    const table = join(this.dir, "switches.json");
    writeFileSync(table, JSON.stringify(switches));
    const argv = standinsArgv({ listen: `[${SERVERS_ADDR}]:${SERVERS_PORT}`, stateDir: this.state, machines: this.machines.map((m) => ({ uuid: m.uuid, partition: "rack1" })) }, [
      "--switches",
      table,
      ...(this.opts.image ? ["--image", this.opts.image] : []),
    ]);
    const p = leaf01.spawn("the stand-ins", argv, { stdin: "ignore", stdout: "pipe", stderr: "ignore" });
    await standinsReady(p, this.state, 60_000);
  }

  /** Starts every agent at once (a rack powered on); `extra` adds cmdline words. */
  startAgents(extra = ""): void {
    for (const m of this.machines) {
      const cmdline = this.cmdline(m, extra);
      m.startedAt = Date.now();
      const proc = Bun.spawn(this.machineRig(m).exec(disklessArgv([this.up.agent, "run", "--run-dir", m.runDir, "--cmdline", cmdline])), {
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin", METAL_LOG_FORMAT: "json", RESOLV_CONF: join(this.dir, `resolv-${m.index}.conf`) },
        stdin: "ignore",
        stdout: "ignore",
        stderr: "pipe",
      });
      m.proc = proc;
      this.own(`agent ${m.index}`, proc);
      void eachLine(proc.stderr, (l) => {
        m.stderr += l + "\n";
        m.logs.push(...logLines(l));
      });
      void proc.exited.then((c) => (m.exitCode = c));
    }
  }

  /** Machine m's kernel cmdline (the same for `run` and `image install`). */
  private cmdline(m: FleetMachine, extra = ""): string {
    return `METAL_BOOT_URL=https://[${SERVERS_ADDR}]:${SERVERS_PORT}/ METAL_CA=${join(this.state, "pki/boot-ca.pem")} METAL_UUID=${m.uuid} METAL_NICS=eth0,eth1 METAL_LOG_FORMAT=json ${this.opts.cmdline ?? ""} ${extra}`.trim();
  }

  /** The image's URL at the fleet's image cache (over the rack's IPv6 network). */
  get imageUrl(): string {
    return `https://[${SERVERS_ADDR}]:${IMAGES_PORT}/${IMAGE_PATH}`;
  }

  /**
   * Every machine runs `metal-hammer image install <the cache's image> --target <run dir>/image-root --json`
   * at once, in its namespace and kept from the host's disks (diskless.ts), beside its waiting agent: the
   * agent's real install (HttpClient with METAL_CA, liblz4 into GNU tar) into a directory, as the machines have no disks.
   */
  startImageInstalls(): void {
    for (const m of this.machines) {
      const target = join(m.runDir, "image-root");
      mkdirSync(target, { recursive: true });
      const install: ImageInstall = { target, startedAt: Date.now(), logs: [], stderr: "" };
      m.install = install;
      const argv = [this.up.agent, "image", "install", this.imageUrl, "--target", target, "--cmdline", this.cmdline(m), "--json"];
      const proc = Bun.spawn(this.machineRig(m).exec(disklessArgv(argv)), {
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin", METAL_LOG_FORMAT: "json" },
        stdin: "ignore",
        stdout: "pipe",
        stderr: "pipe",
      });
      this.own(`image install ${m.index}`, proc);
      void (async () => {
        const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
        install.stderr = err;
        install.logs.push(...logLines(err));
        try {
          install.result = JSON.parse(out.trim().split("\n").at(-1) ?? "") as ImageInstallOutput;
        } catch {}
        const peak = proc.resourceUsage()?.maxRSS;
        if (peak) install.peakBytes = peak;
        install.endedAt = Date.now();
        install.exitCode = code;
      })();
    }
  }

  /** Opens the image cache's drop window (POST /_standin/image-drop); resolves with it as the stand-in set it. */
  async imageDrop(spec: ImageDropSpec): Promise<ImageDropReport> {
    return dropAnswer(await this.control("/_standin/image-drop", spec));
  }

  /** The drop window and its counts (by client address). */
  async imageDropReport(): Promise<ImageDropReport> {
    return dropAnswer(await standinControl(this.inLeaf01, this.state, "/_standin/image-drop", { timeoutMs: 30_000 }));
  }

  /** Machines with a log line of `event` (e.g. "provision.wait": waiting for an allocation). */
  count(event: string): number {
    return this.machines.filter((m) => m.logs.some((l) => l.event === event)).length;
  }

  /** The servers' answered requests (the stand-ins' request log). */
  requests(): ServerRequest[] {
    return standinsRequests(this.state);
  }

  /** What the apiserver stand-in holds: registrations and open Wait streams. */
  async standinMachines(): Promise<{ registered: Record<string, unknown>; openWaits: string[]; waitOpenedAt: number[] }> {
    return (await standinControl(this.inLeaf01, this.state, "/_standin/machines", { timeoutMs: 30_000 })) as {
      registered: Record<string, unknown>;
      openWaits: string[];
      waitOpenedAt: number[];
    };
  }

  /** POST to an apiserver control endpoint. */
  async control(path: string, body: unknown = {}): Promise<unknown> {
    return await standinControl(this.inLeaf01, this.state, path, { body });
  }

  /**
   * The servers restart, their state kept (tokens and registrations survive, as the real
   * ones keep theirs): every listener and connection closes (clients are refused), and
   * `ms` later they listen again (POST /_standin/outage). Resolves once they answer.
   */
  async outage(ms: number): Promise<{ downAt: number; upAt: number }> {
    await this.control("/_standin/outage", { ms });
    const downAt = Date.now();
    await waitFor(
      async () =>
        Date.now() - downAt >= ms &&
        (await this.standinMachines()
          .then(() => true)
          .catch(() => false)),
      ms + 30_000,
      "the servers back after the outage",
      100,
    );
    return { downAt, upAt: Date.now() };
  }

  /**
   * The balancer in front of the apiserver answers every `every`-th request 503 for `ms`
   * from now (POST /_standin/unavailable); resolves with the window as the stand-in opened it.
   */
  async unavailable(every: number, ms: number): Promise<UnavailableReport> {
    return balancerAnswer(await this.control("/_standin/unavailable", { every, ms }));
  }

  /** The balancer's window and its counts: requests seen in it, 503s sent. */
  async unavailableReport(): Promise<UnavailableReport> {
    return balancerAnswer(await standinControl(this.inLeaf01, this.state, "/_standin/unavailable", { timeoutMs: 30_000 }));
  }

  /** Each machine's global IPv6 addresses now (what the servers see as its source), in machine order. */
  async addresses(): Promise<string[][]> {
    const out: string[][] = [];
    for (const m of this.machines) {
      const info = JSON.parse(this.machineRig(m).ip("-j", "-6", "addr", "show", "scope", "global")) as { addr_info?: { local?: string }[] }[];
      out.push(info.flatMap((l) => (l.addr_info ?? []).flatMap((a) => (a.local ? [a.local] : []))));
    }
    return out;
  }

  /** Peak RSS of each agent's process (the compiled agent under the diskless wrapper), read now. */
  readPeaks(): void {
    for (const m of this.machines) {
      const pid = m.proc?.pid;
      if (!pid) continue;
      for (const p of descendants(pid)) {
        try {
          if (readFileSync(`/proc/${p}/cmdline`, "utf8").split("\0")[0] !== this.up.agent) continue;
          const st = readFileSync(`/proc/${p}/status`, "utf8");
          const peak = Number(/VmHWM:\s+(\d+)/.exec(st)?.[1] ?? 0);
          const anon = Number(/RssAnon:\s+(\d+)/.exec(st)?.[1] ?? 0);
          if (peak > 0) m.peakKb = peak;
          if (anon > 0) m.anonKb = anon;
        } catch {
          // exited meanwhile
        }
      }
    }
  }

  /**
   * The clean-up, last started first: every install and agent (SIGKILL, by PID), the
   * machines' namespaces (their veths go with them), leaf02, leaf01 (the stand-ins, lldpd,
   * radvd by PID), then the dir unless kept. Never throws; once.
   */
  async tearDown(keep = false): Promise<void> {
    if (!this.life.cleanedUp) this.keep = keep;
    await this.life.cleanUp();
  }
}

/** The balancer control endpoint's answer, or its refusal as an error (a 403 or 400 answers {error}). */
function balancerAnswer(v: unknown): UnavailableReport {
  const o = v as Partial<UnavailableReport> & { error?: unknown };
  if (typeof o?.requests !== "number" || typeof o.unavailable !== "number") throw new Error(`/_standin/unavailable answered ${JSON.stringify(v)}`);
  return o as UnavailableReport;
}

/** The drop control endpoint's answer, or its refusal as an error. */
function dropAnswer(v: unknown): ImageDropReport {
  const o = v as Partial<ImageDropReport> & { error?: unknown };
  if (typeof o?.gets !== "number" || typeof o.dropped !== "number") throw new Error(`/_standin/image-drop answered ${JSON.stringify(v)}`);
  return o as ImageDropReport;
}

/** The agent's JSON log lines in `text` (any other line skipped). */
function logLines(text: string): LogLine[] {
  return text.split("\n").flatMap((l) => {
    if (!l.startsWith("{")) return [];
    try {
      return [JSON.parse(l) as LogLine];
    } catch {
      return [];
    }
  });
}

/** `pid` and every process below it (from /proc/<pid>/task/<pid>/children). */
function descendants(pid: number): number[] {
  const out = [pid];
  for (let i = 0; i < out.length; i++) {
    try {
      const kids = readFileSync(`/proc/${out[i]}/task/${out[i]}/children`, "utf8").trim();
      if (kids) out.push(...kids.split(/\s+/).map(Number));
    } catch {}
  }
  return out;
}
