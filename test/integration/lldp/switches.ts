/**
 * Namespace set-up for the LLDP tests: the agent namespace joined by one veth per
 * "switch" namespace (test/helpers/netns.ts), Debian's real lldpd in a switch namespace
 * announcing its own system name (configured through lldpcli commands in a temp dir,
 * with its own control socket there, never the host's /run/lldpd.socket), the agent's
 * LLDP session run by driver.ts inside the agent namespace, and raw frames injected
 * from a switch namespace by inject.ts. Everything is removed after each test;
 * processes are stopped by PID.
 */
import { test } from "bun:test";
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isRoot, Lab, nsx, type Link } from "../../helpers/netns.ts";
import { waitFor } from "../../../lab/base/wait.ts";
import { withPrivateRun } from "../../../lab/rig/plan.ts";
import { readJsonLines } from "../../helpers/json-lines.ts";

const hasLldpd = Bun.which("lldpd", { PATH: "/usr/sbin:/usr/bin:/sbin:/bin" }) !== null;
export const SKIP = !isRoot ? "needs root (network namespaces)" : !hasLldpd ? "needs lldpd (apt-get install lldpd)" : undefined;
if (SKIP) {
  console.warn(`test/integration/lldp skipped: ${SKIP}`);
  // Under CI a skip is a failure, with its reason.
  if (process.env.CI === "true")
    test("LLDP namespace tests can run", () => {
      throw new Error(`cannot run: ${SKIP}`);
    });
}

const DRIVER = join(import.meta.dir, "driver.ts");
const INJECT = join(import.meta.dir, "inject.ts");

export interface Switch {
  readonly link: Link;
  /** The switch side's MAC (lldpd's chassis id and, by default, port id). */
  readonly mac: string;
  lldpd?: { readonly pid: number; readonly sock: string; readonly proc: ReturnType<typeof Bun.spawn> } | undefined;
}

export interface LogRecord extends Record<string, unknown> {
  readonly event?: string;
}

export interface DriverRun {
  readonly logs: LogRecord[];
  readonly stderr: () => string;
  readonly done: Promise<{ code: number; result: { ms: number; neighbours: Record<string, Record<string, unknown>[]> } | undefined; stderr: string }>;
  waitLog(what: string, pred: (r: LogRecord) => boolean, ms: number): Promise<LogRecord>;
  /** Ends the hold (`holdMs`): the session closes now instead of at the hold's bound. */
  release(): void;
}

export class SwitchLab {
  readonly lab = new Lab();
  readonly switches: Switch[] = [];
  private readonly procs: { pid: number; exited: Promise<number> }[] = [];

  get agentNs(): string {
    return this.lab.agentNs;
  }

  /** A link to a new switch namespace; the agent side stays down unless `up`. */
  addSwitch(opts: { up?: boolean } = {}): Switch {
    const link = this.lab.addLink({ mac: `02:00:00:00:aa:0${this.switches.length + 1}` });
    const info = JSON.parse(nsx(link.routerNs, "ip", "-j", "link", "show", "dev", link.routerIf)) as { address: string }[];
    if (opts.up !== false) nsx(this.lab.agentNs, "ip", "link", "set", link.agentIf, "up");
    const sw = { link, mac: info[0]?.address ?? "" };
    this.switches.push(sw);
    return sw;
  }

  /** lldpd on the switch side, announcing `hostname` every second (TTL 4 s); resolves once it answers lldpcli. */
  async startLldpd(sw: Switch, hostname: string, extra: readonly string[] = []): Promise<void> {
    const dir = join(this.lab.dir, sw.link.routerIf);
    nsx(sw.link.routerNs, "mkdir", "-p", dir);
    // lldpd runs lldpcli (-O) as its unprivileged user: it must reach the control socket.
    chmodSync(this.lab.dir, 0o755);
    chmodSync(dir, 0o755);
    const conf = join(dir, "lldpd.conf");
    writeFileSync(conf, [`configure system hostname ${hostname}`, "configure lldp tx-interval 1", ...extra].join("\n") + "\n");
    const sock = join(dir, "ctl.sock");
    const proc = Bun.spawn(["ip", "netns", "exec", sw.link.routerNs, ...withPrivateRun(["lldpd", "-d", "-u", sock, "-O", conf, "-I", sw.link.routerIf])], {
      stdout: "ignore",
      stderr: Bun.file(join(dir, "lldpd.log")),
    });
    this.procs.push({ pid: proc.pid, exited: proc.exited });
    sw.lldpd = { pid: proc.pid, sock, proc };
    await waitFor(
      () => {
        if (proc.exitCode !== null) throw new Error(`lldpd for ${hostname} exited ${proc.exitCode}`);
        return Bun.spawnSync(["ip", "netns", "exec", sw.link.routerNs, "lldpcli", "-u", sock, "show", "configuration"], { stdout: "pipe", stderr: "pipe" })
          .stdout.toString()
          .includes(hostname);
      },
      10_000,
      `lldpd ${hostname} configured`,
    );
  }

  /** Waits (bounded) until lldpd shows `text` for its port (`lldpcli show interfaces`): the -O lines are applied one by one, the port's last. */
  async waitAnnouncing(sw: Switch, text: string): Promise<void> {
    const sock = sw.lldpd?.sock;
    if (!sock) throw new Error("no lldpd on this switch");
    await waitFor(() => nsx(sw.link.routerNs, "lldpcli", "-u", sock, "show", "interfaces").includes(text), 10_000, `lldpd on ${sw.link.routerIf} announcing ${text}`);
  }

  async stopLldpd(sw: Switch): Promise<void> {
    if (!sw.lldpd) return;
    process.kill(sw.lldpd.pid, "SIGTERM");
    await sw.lldpd.proc.exited;
    sw.lldpd = undefined;
  }

  /** What lldpd on this switch knows about its neighbours (lldpcli -f json0 show neighbors). */
  lldpdNeighbours(sw: Switch): { chassisId: string; chassisIdType: string; systemName: string; portId: string; portIdType: string; portDescription: string }[] {
    if (!sw.lldpd) throw new Error("no lldpd on this switch");
    const out = Bun.spawnSync(["ip", "netns", "exec", sw.link.routerNs, "lldpcli", "-u", sw.lldpd.sock, "-f", "json0", "show", "neighbors"], {
      stdout: "pipe",
      stderr: "pipe",
    }).stdout.toString();
    type V = { value: string; type?: string }[];
    const j = JSON.parse(out || "{}") as { lldp?: { interface?: { chassis: { id: V; name?: V }[]; port: { id: V; descr?: V }[] }[] }[] };
    return (j.lldp?.[0]?.interface ?? []).map((i) => ({
      chassisId: i.chassis[0]?.id[0]?.value ?? "",
      chassisIdType: i.chassis[0]?.id[0]?.type ?? "",
      systemName: i.chassis[0]?.name?.[0]?.value ?? "",
      portId: i.port[0]?.id[0]?.value ?? "",
      portIdType: i.port[0]?.id[0]?.type ?? "",
      portDescription: i.port[0]?.descr?.[0]?.value ?? "",
    }));
  }

  /** Sends raw frames from the switch side. */
  inject(sw: Switch, ...frames: Uint8Array[]): void {
    const p = Bun.spawnSync(["ip", "netns", "exec", sw.link.routerNs, process.execPath, INJECT, sw.link.routerIf, ...frames.map((f) => Buffer.from(f).toString("hex"))], {
      stdout: "pipe",
      stderr: "pipe",
    });
    if (p.exitCode !== 0) throw new Error(`inject: ${p.stderr.toString()}`);
  }

  /** The agent's LLDP session in the agent namespace (driver.ts), logs parsed as they come. */
  driver(opts: { interfaces: readonly string[]; systemName: string; switches: number; timeoutMs: number; holdMs?: number; logFormat?: "json" | "text" }): DriverRun {
    const p = Bun.spawn(["ip", "netns", "exec", this.lab.agentNs, process.execPath, DRIVER, JSON.stringify(opts)], { stdin: "pipe", stdout: "pipe", stderr: "pipe" });
    this.procs.push({ pid: p.pid, exited: p.exited });
    const logs: LogRecord[] = [];
    const errReader = readJsonLines(p.stderr, logs);
    const readErr = errReader.done;
    const done = (async () => {
      const out = await new Response(p.stdout).text();
      const code = await p.exited;
      await readErr;
      const line = out.trim().split("\n")[0];
      return { code, result: line ? (JSON.parse(line) as { ms: number; neighbours: Record<string, Record<string, unknown>[]> }) : undefined, stderr: errReader.text() };
    })();
    return {
      logs,
      stderr: errReader.text,
      done,
      release: () => void p.stdin.end(),
      async waitLog(what, pred, ms) {
        let found: LogRecord | undefined;
        await waitFor(
          () => {
            found = logs.find(pred);
            if (!found && p.exitCode !== null) throw new Error(`driver exited ${p.exitCode} before ${what}: ${errReader.text().slice(-2000)}`);
            return found !== undefined;
          },
          ms,
          what,
        );
        return found as LogRecord;
      },
    };
  }

  async cleanup(): Promise<void> {
    for (const p of this.procs) {
      try {
        process.kill(p.pid, "SIGTERM");
      } catch {
        /* already gone */
      }
    }
    await Promise.all(this.procs.map((p) => Promise.race([p.exited, Bun.sleep(3000)])));
    await this.lab.cleanup();
  }
}

export async function withSwitches<T>(fn: (s: SwitchLab) => Promise<T>): Promise<T> {
  const s = new SwitchLab();
  try {
    return await fn(s);
  } finally {
    await s.cleanup();
  }
}
