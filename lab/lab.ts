#!/usr/bin/env bun
/**
 * The QEMU lab: a network namespace standing in for the boot VRF (taps, radvd with a
 * /64 and RDNSS per NIC, an lldpd "leaf" switch per NIC, the lab servers on IPv6 only), QEMU (TCG) booting the
 * Debian kernel with our initramfs, the serial console streamed with timestamps and
 * saved. Ends when the guest powers off / reboots (-no-reboot) or the bound passes;
 * everything it created is removed on any exit, processes killed by PID.
 *
 *   bun lab/lab.ts --kernel build/lab/vmlinux-<kver> --initrd build/initramfs/... [--nics 2] [--nic e1000] [--no-ra] [--no-lldp] [--switch-os sonic|cumulus] ...
 * Exit code: 0 when the run ended as --expect says (default poweroff), else
 * 10 poweroff, 11 reboot, 12 halt, 13 panic, 14 timeout, 15 crashed; 2 usage, 1 lab error.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { classifyEnd, clockSummary, labExitCode, listeningPorts, records, splitLines, stamp, type AgentRecord, type ConsoleLine, type Outcome } from "./console.ts";
import {
  labNames,
  qemuArgv,
  radvdConf,
  segmentPrefix,
  switchName,
  SERVICE_ADDR,
  DNS_ADDR,
  NTP_ADDR,
  LAB_UUID,
  SWITCH_OSES,
  type LabNames,
  type LabOptions,
  type LabSwitchOs,
} from "./plan.ts";
import { startLabNtp } from "./ntp.ts";
import { connectionsLine, startSwitches, switchesDir, switchSpecs } from "./lldpd.ts";
import { overlayCpio } from "./overlay.ts";
import { SERVER_SETS, type GuestFile, type LabServer, type LabServerEnv, type ServerSet } from "./servers.ts";
import { waitFor } from "./wait.ts";
import { LAB_INITRD, LAB_KERNEL } from "./kernel.ts";
import { installMedia } from "./install-media.ts";
import { standinServers } from "./servers.ts";

export interface LabRun extends LabOptions {
  readonly timeoutMs: number;
  readonly expect: Outcome;
  /** Stream the console to stdout as it comes. */
  readonly live: boolean;
  readonly dir: string;
  readonly servers: (env: LabServerEnv) => LabServer[];
  /** The stand-in apiserver allocates the lab machine 300 ms after it registers (false: the wait stage waits). */
  readonly allocate: boolean;
  /** How the leaves configure lldpd (plan.ts lldpdConf): SONiC's lldpmgrd (default) or Cumulus (lldpd defaults). */
  readonly switchOs: LabSwitchOs;
  /** Typed into the console once a line matches `after` (scripted debug-shell sessions); else, with debug, the terminal's input. */
  readonly consoleInput?: { readonly after: RegExp; readonly text: string };
}

export class LabInterrupted extends Error {
  override readonly name = "LabInterrupted";
  constructor(readonly signal: NodeJS.Signals) {
    super(`interrupted by ${signal}; everything the lab started is stopped and removed`);
  }
}

export interface LabResult {
  readonly outcome: Outcome;
  readonly exitCode: number;
  readonly names: LabNames;
  readonly dir: string;
  readonly lines: readonly ConsoleLine[];
  readonly records: readonly (AgentRecord & { ms: number })[];
  readonly serverLogs: Readonly<Record<string, string>>;
  readonly qemuExit: number | null;
  /** When QEMU exited, in ms since it started (the clock of `lines[].ms`). */
  readonly qemuEndMs: number;
  readonly durationMs: number;
  /** The lab summary's switch connections line ("connected: leaf01 Ethernet0, leaf02 Ethernet0"), when the machine registered against a switch table. */
  readonly connections?: string;
}

export function defaultRun(over: Partial<LabRun> = {}): LabRun {
  const id =
    over.id ??
    Math.floor(Math.random() * 0xffffff)
      .toString(16)
      .padStart(6, "0");
  return {
    id,
    nics: 2,
    nicModel: "virtio",
    ra: true,
    lldp: true,
    fast: false,
    debug: false,
    kernel: LAB_KERNEL,
    initrd: LAB_INITRD,
    memoryMiB: 1024,
    firmware: "seabios",
    done: "poweroff",
    netTimeout: "30s",
    rebootDelay: "1s",
    extraCmdline: [],
    timeoutMs: 120_000,
    expect: "poweroff",
    live: true,
    dir: `.lab/mhl-${id}`,
    servers: SERVER_SETS.standins,
    allocate: true,
    switchOs: "sonic",
    ...over,
  };
}

function sh(argv: readonly string[]): string {
  const r = Bun.spawnSync([...argv], { stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`lab: ${argv.join(" ")} exited ${r.exitCode}: ${r.stderr.toString().trim()}`);
  return r.stdout.toString();
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** SIGTERM, then SIGKILL if it is still there after `graceMs`. Only our own PIDs come here. */
async function stop(pid: number, graceMs = 2000): Promise<void> {
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

export async function runLab(run: LabRun): Promise<LabResult> {
  const names = labNames(run);
  const { netns } = names;
  // Absolute: servers run with other working directories (the stand-ins' openssl runs in its PKI folder).
  const dir = resolve(run.dir);
  mkdirSync(`${dir}/servers`, { recursive: true });
  const consolePath = `${dir}/console.log`;
  writeFileSync(consolePath, "");
  const cleanups: (() => Promise<void> | void)[] = [];
  const say = (s: string): void => {
    if (run.live) process.stdout.write(`lab: ${s}\n`);
  };
  const t0 = performance.now();
  let removeSignalHandlers = (): void => {};
  let interrupted: NodeJS.Signals | undefined;
  let qemuPid: number | undefined;
  try {
    // Interrupted (Ctrl-C, CI timeout): with QEMU running, stop it and let the run unwind
    // (the finally below cleans up); before that, clean up here. Either way exit 130/143.
    const onSignal = (sig: NodeJS.Signals): void => {
      if (interrupted) return;
      interrupted = sig;
      say(`${sig}: stopping`);
      if (qemuPid !== undefined) return void stop(qemuPid, 1000);
      void (async () => {
        for (const c of cleanups.reverse()) await Promise.resolve(c()).catch(() => {});
        process.exit(sig === "SIGINT" ? 130 : 143);
      })();
    };
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
    removeSignalHandlers = () => {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    };

    sh(["ip", "netns", "add", netns]);
    cleanups.push(() => void Bun.spawnSync(["ip", "netns", "del", netns]));
    const inNs = (argv: readonly string[]): string[] => ["ip", "netns", "exec", netns, ...argv];
    sh(["ip", "-n", netns, "link", "set", "lo", "up"]);
    sh(inNs(["sysctl", "-q", "-w", "net.ipv6.conf.all.forwarding=1"]));
    for (const a of [SERVICE_ADDR, DNS_ADDR, NTP_ADDR]) sh(["ip", "-n", netns, "-6", "addr", "add", `${a}/128`, "dev", "lo"]);
    names.taps.forEach((tap, i) => {
      sh(["ip", "-n", netns, "tuntap", "add", "dev", tap, "mode", "tap"]);
      sh(["ip", "-n", netns, "-6", "addr", "add", `${segmentPrefix(i)}1/64`, "dev", tap, "nodad"]);
      sh(["ip", "-n", netns, "link", "set", tap, "up"]);
    });
    say(`netns ${netns}, taps ${names.taps.join(" ")}, services on [${SERVICE_ADDR}], dir ${dir}`);

    if (run.ra) {
      writeFileSync(`${dir}/radvd.conf`, radvdConf(names.taps), { mode: 0o644 });
      const radvd = Bun.spawn(inNs(["radvd", "-n", "-C", `${dir}/radvd.conf`, "-p", `${dir}/radvd.pid`, "-m", "stderr"]), {
        stdout: Bun.file(`${dir}/radvd.log`),
        stderr: Bun.file(`${dir}/radvd.log`),
      });
      cleanups.push(() => stop(radvd.pid));
      say(`waiting up to 5 s for radvd (PID ${radvd.pid}) to write its pid file`);
      await waitFor(
        () => {
          if (radvd.exitCode !== null) throw new Error(`radvd exited ${radvd.exitCode}: ${readFileSync(`${dir}/radvd.log`, "utf8").trim()}`);
          try {
            return readFileSync(`${dir}/radvd.pid`, "utf8").trim() !== "";
          } catch {
            return false;
          }
        },
        5000,
        "radvd's pid file",
      );
    } else say("no radvd: no router advertisements on the segment");

    let switchTable: string | undefined;
    if (run.lldp) {
      // The switches: lldpd on each tap, configs and control sockets in a temp dir lldpd's own user can reach.
      const swDir = switchesDir();
      cleanups.push(() => rmSync(swDir, { recursive: true, force: true }));
      const switches = names.taps.map((tap, i) => ({ tap, hostname: switchName(i), os: run.switchOs }));
      say(`waiting up to 10 s for the switches (lldpd): ${switches.map((s) => `${s.hostname} on ${s.tap}`).join(", ")}`);
      const tSwitches = performance.now();
      await startSwitches(
        switches,
        swDir,
        (argv, name) => {
          const p = Bun.spawn(inNs(argv), { stdout: Bun.file(`${dir}/${name}.log`), stderr: Bun.file(`${dir}/${name}.log`) });
          cleanups.push(() => stop(p.pid));
          return p;
        },
        inNs,
      );
      say(`switches (${run.switchOs}) configured in ${Math.round(performance.now() - tSwitches)} ms`);
      // The apiserver stand-in's switch table, as metal-core would register these leaves (a leaf pair:
      // with another count the stand-in drops the two-switch rule and connects nothing).
      if (switches.length === 2) {
        switchTable = `${dir}/switches.json`;
        writeFileSync(switchTable, JSON.stringify(switchSpecs(switches, inNs), null, 1) + "\n");
      }
    } else say("no switches: no LLDP on the segments");

    // The NTP server metal-boot names (ntp_servers): chronyd, ended by its PID like the others.
    say(`waiting up to 10 s for chronyd to serve NTP on [${NTP_ADDR}]:123`);
    const ntp = await startLabNtp(NTP_ADDR, dir, (argv) => {
      const p = Bun.spawn(inNs(argv), { stdout: Bun.file(`${dir}/chronyd.log`), stderr: Bun.file(`${dir}/chronyd.log`) });
      cleanups.push(() => stop(p.pid));
      return p;
    });
    say(`chronyd (PID ${ntp.pid}) serves NTP on [${NTP_ADDR}]:123`);
    const servers = run.servers({
      addr: SERVICE_ADDR,
      dir,
      allocate: run.allocate,
      switches: run.lldp ? names.taps.length : 0,
      ntp: NTP_ADDR,
      ...(switchTable ? { switchTable } : {}),
    });
    const guestFiles: GuestFile[] = [];
    const serverCmdline: string[] = [];
    for (const srv of servers) {
      const log = `${dir}/servers/${srv.name}.log`;
      const p = Bun.spawn(inNs(srv.argv), { stdout: Bun.file(log), stderr: "inherit" });
      cleanups.push(() => stop(p.pid));
      say(`waiting up to 20 s for ${srv.name} (PID ${p.pid}) to listen on port ${srv.port}`);
      await waitFor(
        () => {
          if (p.exitCode !== null) throw new Error(`${srv.name} exited ${p.exitCode} before listening`);
          try {
            return listeningPorts(readFileSync(`/proc/${p.pid}/net/tcp6`, "utf8")).has(srv.port);
          } catch {
            return false;
          }
        },
        20_000,
        `${srv.name} listening on ${srv.port}`,
      );
      const g = srv.guest?.();
      if (g) {
        guestFiles.push(...g.files);
        serverCmdline.push(...g.cmdline);
      }
    }

    // Files the servers give the guest (the lab CA) go in a small archive in front of the initramfs.
    let initrd = run.initrd;
    if (guestFiles.length > 0) {
      const combined = `${dir}/initrd`;
      initrd = combined;
      // A copy of the whole initramfs: removed after the run (the logs stay).
      cleanups.push(() => rmSync(combined, { force: true }));
      writeFileSync(combined, overlayCpio(guestFiles));
      appendFileSync(combined, readFileSync(run.initrd));
    }
    const argv = qemuArgv({ ...run, initrd, serverCmdline }, names);
    writeFileSync(`${dir}/qemu.argv`, JSON.stringify(argv, null, 1) + "\n");
    const qStart = performance.now();
    // With the debug shell the console is interactive: the terminal's input (or a script) goes to the guest.
    const qemu = Bun.spawn(inNs(argv), { stdin: run.consoleInput ? "pipe" : run.debug ? "inherit" : "ignore", stdout: "pipe", stderr: "pipe" });
    let typed = false;
    // A person at the debug shell needs the prompt as it comes, not at the next newline:
    // the terminal gets QEMU's output raw; the file still gets stamped lines.
    const interactive = run.live && run.debug && !run.consoleInput;
    qemuPid = qemu.pid;
    cleanups.push(() => stop(qemu.pid));
    say(`QEMU PID ${qemu.pid} (${run.nicModel} x${run.nics}); bound ${run.timeoutMs / 1000} s`);
    const lines: ConsoleLine[] = [];
    const addLine = (text: string): void => {
      const ms = Math.round(performance.now() - qStart);
      lines.push({ ms, text });
      const out = `${stamp(ms)} ${text}\n`;
      appendFileSync(consolePath, out);
      if (run.live && !interactive) process.stdout.write(out);
      if (run.consoleInput && !typed && run.consoleInput.after.test(text) && qemu.stdin && typeof qemu.stdin !== "number") {
        typed = true;
        qemu.stdin.write(run.consoleInput.text);
        void qemu.stdin.flush();
      }
    };
    const pump = (async () => {
      const dec = new TextDecoder();
      let rest = "";
      for await (const chunk of qemu.stdout as ReadableStream<Uint8Array>) {
        if (interactive) process.stdout.write(chunk);
        const r = splitLines(rest, dec.decode(chunk, { stream: true }));
        rest = r.rest;
        r.lines.forEach(addLine);
      }
      if (rest !== "") addLine(rest);
    })();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      void stop(qemu.pid, 1000);
    }, run.timeoutMs);
    const qemuExit = await qemu.exited;
    const qemuEndMs = Math.round(performance.now() - qStart);
    clearTimeout(timer);
    await pump;
    if (interrupted) throw new LabInterrupted(interrupted);
    const stderr = await new Response(qemu.stderr).text();
    if (stderr.trim() !== "") writeFileSync(`${dir}/qemu.stderr`, stderr);
    const outcome = classifyEnd(lines, timedOut);
    const durationMs = Math.round(performance.now() - t0);
    const serverLogs: Record<string, string> = {};
    for (const srv of servers) {
      serverLogs[srv.name] = srv.logs
        .map((f) => {
          try {
            return readFileSync(f, "utf8");
          } catch {
            return "";
          }
        })
        .join("");
    }
    const connections = switchTable
      ? connectionsLine(existsSync(`${dir}/standins/connections.json`) ? readFileSync(`${dir}/standins/connections.json`, "utf8") : undefined, LAB_UUID)
      : undefined;
    if (switchTable) say(connections ?? "connected: nothing yet (the machine did not register)");
    const result: LabResult = {
      outcome,
      exitCode: labExitCode(outcome, run.expect),
      names,
      dir,
      lines,
      records: records(lines),
      serverLogs,
      qemuExit,
      qemuEndMs,
      durationMs,
      ...(connections ? { connections } : {}),
    };
    writeFileSync(
      `${dir}/result.json`,
      JSON.stringify({ outcome, expected: run.expect, exitCode: result.exitCode, qemuExit, durationMs, netns, taps: names.taps }, null, 1) + "\n",
    );
    for (const l of clockSummary(result.records)) say(l);
    say(
      `ended: ${outcome} (expected ${run.expect}) after ${(durationMs / 1000).toFixed(1)} s; console in ${consolePath}${stderr.trim() ? `; QEMU stderr: ${stderr.trim().split("\n")[0]}` : ""}`,
    );
    return result;
  } finally {
    for (const c of cleanups.reverse()) await Promise.resolve(c()).catch(() => {});
    removeSignalHandlers();
  }
}

const OUTCOMES: readonly Outcome[] = ["poweroff", "reboot", "halt", "panic", "timeout", "crashed"];

async function main(): Promise<number> {
  const { values: v } = parseArgs({
    options: {
      kernel: { type: "string" },
      initrd: { type: "string" },
      nics: { type: "string", default: "2" },
      nic: { type: "string", default: "virtio" },
      "no-ra": { type: "boolean", default: false },
      "no-lldp": { type: "boolean", default: false },
      fast: { type: "boolean", default: false },
      debug: { type: "boolean", default: false },
      done: { type: "string", default: "poweroff" },
      "net-timeout": { type: "string", default: "30s" },
      timeout: { type: "string", default: "120" },
      expect: { type: "string", default: "poweroff" },
      memory: { type: "string", default: "1024" },
      firmware: { type: "string", default: "seabios" },
      cmdline: { type: "string", multiple: true, default: [] },
      servers: { type: "string", default: "standins" },
      "no-allocate": { type: "boolean", default: false },
      install: { type: "boolean", default: false },
      "switch-os": { type: "string", default: "sonic" },
    },
    strict: true,
  });
  const usage = (m: string): number => {
    process.stderr.write(`lab: ${m}\n`);
    return 2;
  };
  const nics = Number(v.nics);
  if (!Number.isInteger(nics) || nics < 1 || nics > 8) return usage(`--nics ${v.nics}: expected 1..8`);
  if (v.nic !== "virtio" && v.nic !== "e1000") return usage(`--nic ${v.nic}: expected virtio or e1000`);
  if (!(OUTCOMES as readonly string[]).includes(v.expect as string)) return usage(`--expect ${v.expect}: expected one of ${OUTCOMES.join(", ")}`);
  if (!["poweroff", "reboot", "halt", "shell"].includes(v.done as string)) return usage(`--done ${v.done}: expected poweroff, reboot, halt or shell`);
  if (v.firmware !== "seabios" && v.firmware !== "qboot") return usage(`--firmware ${v.firmware}: expected seabios or qboot`);
  if (!((v.servers as string) in SERVER_SETS)) return usage(`--servers ${v.servers}: expected one of ${Object.keys(SERVER_SETS).join(", ")}`);
  if (!(SWITCH_OSES as readonly string[]).includes(v["switch-os"] as string)) return usage(`--switch-os ${v["switch-os"]}: expected ${SWITCH_OSES.join(" or ")}`);
  const mem = Number(v.memory);
  if (!Number.isInteger(mem) || mem < 256 || mem > 16384) return usage(`--memory ${v.memory}: expected MiB in 256..16384`);
  const timeout = Number(v.timeout);
  if (!(timeout > 0)) return usage(`--timeout ${v.timeout}: expected seconds > 0`);
  const run = defaultRun({
    nics,
    nicModel: v.nic,
    ra: !v["no-ra"],
    lldp: !v["no-lldp"],
    fast: Boolean(v.fast),
    debug: Boolean(v.debug),
    done: v.done as LabRun["done"],
    netTimeout: v["net-timeout"] as string,
    timeoutMs: timeout * 1000,
    expect: v.expect as Outcome,
    memoryMiB: mem,
    servers: SERVER_SETS[v.servers as ServerSet],
    allocate: !v["no-allocate"],
    switchOs: v["switch-os"] as LabSwitchOs,
    firmware: v.firmware,
    extraCmdline: (v.cmdline as string[]).flatMap((c) => c.split(/\s+/).filter((w) => w !== "")),
    ...(v.kernel ? { kernel: v.kernel } : {}),
    ...(v.initrd ? { initrd: v.initrd } : {}),
  });
  for (const f of [run.kernel, run.initrd]) if (!(await Bun.file(f).exists())) return usage(`${f} is missing (make lab builds it)`);
  if (!v.install) return (await runLab(run)).exitCode;
  // --install: the whole flow on a disk. A sparse 1 GiB virtio disk and the test OS image
  // (lab/images/build.ts, the installed kernel is the lab's own) served by the image-cache
  // stand-in, which then allocates with a one-partition ext4 layout; the run ends when the
  // installed OS, kexec'd with its initrd, says `testos: up` and powers off.
  if (v.servers !== "standins") return usage("--install needs --servers standins");
  if (v["no-allocate"]) return usage("--install needs the allocation (drop --no-allocate)");
  const kver = run.kernel.replace(/^.*vmlinux-/, "");
  const { disk, image: img } = installMedia(resolve(run.dir), { kernel: `/boot/vmlinuz-${kver}` });
  process.stderr.write(`lab: --install: disk ${disk} (1 GiB, sparse), test OS image ${img.image}\n`);
  return (
    await runLab({
      ...run,
      expect: "poweroff",
      extraQemu: [...(run.extraQemu ?? []), "-drive", `file=${disk},if=virtio,format=raw`],
      servers: (env) => standinServers(env).map((srv) => (srv.name === "standins" ? { ...srv, argv: [...srv.argv, "--image", img.image] } : srv)),
    })
  ).exitCode;
}

if (import.meta.main) {
  try {
    process.exit(await main());
  } catch (e) {
    process.stderr.write(`lab: ${(e as Error).message}\n`);
    process.exit(e instanceof LabInterrupted ? (e.signal === "SIGINT" ? 130 : 143) : 1);
  }
}
