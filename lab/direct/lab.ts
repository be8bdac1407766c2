#!/usr/bin/env bun
/**
 * The QEMU lab: a network namespace standing in for the boot VRF (taps, radvd with a
 * /64 and RDNSS per NIC, an lldpd "leaf" switch per NIC, the lab servers on IPv6 only), QEMU (TCG) booting the
 * Debian kernel with our initramfs, the serial console streamed with timestamps and
 * saved. Ends when the guest powers off / reboots (-no-reboot) or the bound passes;
 * everything it created is removed on any exit, processes killed by PID.
 *
 *   bun lab/direct/lab.ts --kernel build/lab/vmlinux-<kver> --initrd build/initramfs/... [--nics 2] [--nic e1000] [--no-ra] [--no-lldp] [--switch-os sonic|cumulus] ...
 * Exit code: 0 when the run ended as --expect says (default poweroff), else
 * 10 poweroff, 11 reboot, 12 halt, 13 panic, 14 timeout, 15 crashed; 2 usage, 1 lab error.
 */
import { appendFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { classifyEnd, labExitCode, listeningPorts, records, eachLine, stamp, type AgentRecord, type ConsoleLine, type Outcome } from "../base/serial-console.ts";
import {
  labNames,
  labRadvdPorts,
  qemuArgv,
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
} from "../rig/plan.ts";
import { startLabNtp } from "../standins/ntp.ts";
import { switchesDir } from "../standins/lldpd.ts";
import { startLeaves } from "../lifecycle/leaves.ts";
import { machineSummary } from "../lifecycle/machine-summary.ts";
import { overlayCpio } from "../standins/overlay.ts";
import { SERVER_SETS, standinServersWith, type GuestFile, type LabServer, type LabServerEnv, type ServerSet } from "../standins/servers.ts";
import { waitFor } from "../base/wait.ts";
import { NetnsRig, stopPid } from "../rig/rig.ts";
import { interruptExit, LabInterrupted, Lifecycle, runPlan } from "../lifecycle/lifecycle.ts";
import { LAB_INITRD, LAB_KERNEL } from "../base/kernel.ts";
import { installMedia } from "../standins/install-media.ts";
import { buildOciTestImage } from "../images/oci-image.ts";

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

/** The run as the steps below read it (fixed before the first step; what a step makes it returns). */
interface DirectRun {
  readonly run: LabRun;
  readonly names: LabNames;
  /** Absolute: servers run with other working directories (the stand-ins' openssl runs in its PKI folder). */
  readonly dir: string;
  readonly consolePath: string;
  readonly say: (s: string) => void;
  /** When the run started (performance.now()). */
  readonly t0: number;
}

/** What startServers gives the boot: the servers (for their logs) and what they hand the guest. */
interface Served {
  readonly servers: readonly LabServer[];
  readonly guestFiles: readonly GuestFile[];
  readonly serverCmdline: readonly string[];
  /** The apiserver stand-in's switch table (a leaf pair only). */
  readonly switchTable?: string;
}

/** How QEMU ended. */
interface Booted {
  readonly lines: readonly ConsoleLine[];
  readonly qemuExit: number | null;
  readonly qemuEndMs: number;
  readonly timedOut: boolean;
  readonly stderr: string;
}

/** The rig: the namespace (the boot VRF), its service addresses, a tap and a /64 per NIC, radvd unless --no-ra. */
async function createRig(s: DirectRun, life: Lifecycle): Promise<NetnsRig> {
  const { names, run, dir, say } = s;
  const rig = NetnsRig.create(names.netns, dir);
  // Everything started in the namespace (QEMU, servers, chronyd, lldpd, radvd) by PID, last started first, then the namespace.
  life.push(`netns ${names.netns}`, () => rig.cleanup());
  for (const a of [SERVICE_ADDR, DNS_ADDR, NTP_ADDR]) rig.addLoopback(a);
  names.taps.forEach((tap, i) => rig.addTap(tap, `${segmentPrefix(i)}1`));
  say(`netns ${names.netns}, taps ${names.taps.join(" ")}, services on [${SERVICE_ADDR}], dir ${dir}`);
  if (run.ra) await rig.startRadvd(labRadvdPorts(names.taps), say);
  else say("no radvd: no router advertisements on the segment");
  return rig;
}

/** Stand-ins, first: the switches (lldpd on each tap) and, for a leaf pair, the apiserver stand-in's switch table. */
async function leavesOnTaps(s: DirectRun, life: Lifecycle, rig: NetnsRig): Promise<string | undefined> {
  const { names, run, dir, say } = s;
  if (!run.lldp) {
    say("no switches: no LLDP on the segments");
    return undefined;
  }
  // Configs and control sockets in a temp dir lldpd's own user can reach.
  const swDir = switchesDir();
  life.push("switches dir", () => rmSync(swDir, { recursive: true, force: true }));
  const switches = names.taps.map((tap, i) => ({ tap, hostname: switchName(i), os: run.switchOs }));
  say(`waiting up to 10 s for the switches (lldpd): ${switches.map((w) => `${w.hostname} on ${w.tap}`).join(", ")}`);
  const tSwitches = performance.now();
  // As metal-core would register these leaves (a leaf pair: with another count the stand-in drops the two-switch rule and connects nothing).
  const switchTable = await startLeaves({
    switches,
    dir: swDir,
    spawn: (argv, name) => rig.spawn(name, argv, { stdout: Bun.file(`${dir}/${name}.log`), stderr: Bun.file(`${dir}/${name}.log`) }),
    nsExec: (argv) => rig.exec(argv),
    ...(switches.length === 2 ? { table: `${dir}/switches.json` } : {}),
  });
  say(`switches (${run.switchOs}) configured in ${Math.round(performance.now() - tSwitches)} ms`);
  return switchTable;
}

/** Stand-ins, then: chronyd (the NTP server metal-boot names), then each lab server, each waited for until it listens. */
async function startServers(s: DirectRun, rig: NetnsRig, switchTable: string | undefined): Promise<Served> {
  const { names, run, dir, say } = s;
  say(`waiting up to 10 s for chronyd to serve NTP on [${NTP_ADDR}]:123`);
  const ntp = await startLabNtp(NTP_ADDR, dir, (argv) => rig.spawn("chronyd", argv, { stdout: Bun.file(`${dir}/chronyd.log`), stderr: Bun.file(`${dir}/chronyd.log`) }));
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
    const p = rig.spawn(srv.name, srv.argv, { stdout: Bun.file(`${dir}/servers/${srv.name}.log`), stderr: "inherit" });
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
  return { servers, guestFiles, serverCmdline, ...(switchTable ? { switchTable } : {}) };
}

/** The initramfs QEMU boots: the run's own, or with the servers' files (the lab CA) in a small archive in front. */
function guestInitrd(s: DirectRun, life: Lifecycle, guestFiles: readonly GuestFile[]): string {
  if (guestFiles.length === 0) return s.run.initrd;
  const combined = `${s.dir}/initrd`;
  // A copy of the whole initramfs: removed after the run (the logs stay).
  life.push("combined initrd", () => rmSync(combined, { force: true }));
  writeFileSync(combined, overlayCpio([...guestFiles]));
  appendFileSync(combined, readFileSync(s.run.initrd));
  return combined;
}

/** The machine: QEMU in the namespace, its console stamped into console.log (and live), until it exits, the bound passes or an interrupt stops it. */
async function boot(s: DirectRun, life: Lifecycle, rig: NetnsRig, served: Served): Promise<Booted> {
  const { run, names, dir, say, consolePath } = s;
  const argv = qemuArgv({ ...run, initrd: guestInitrd(s, life, served.guestFiles), serverCmdline: served.serverCmdline }, names);
  writeFileSync(`${dir}/qemu.argv`, JSON.stringify(argv, null, 1) + "\n");
  const qStart = performance.now();
  // With the debug shell the console is interactive: the terminal's input (or a script) goes to the guest.
  const qemu = rig.spawn("qemu", argv, { stdin: run.consoleInput ? "pipe" : run.debug ? "inherit" : "ignore", stdout: "pipe", stderr: "pipe" });
  let typed = false;
  // A person at the debug shell needs the prompt as it comes, not at the next newline:
  // the terminal gets QEMU's output raw; the file still gets stamped lines.
  const interactive = run.live && run.debug && !run.consoleInput;
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
  const pump = eachLine(qemu.stdout as ReadableStream<Uint8Array>, addLine, interactive ? (chunk) => process.stdout.write(chunk) : undefined);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    void stopPid(qemu.pid, 1000);
  }, run.timeoutMs);
  // An interrupt stops QEMU by its PID; the run then unwinds through the clean-up.
  const qemuExit = await life.stoppable(
    () => void stopPid(qemu.pid, 1000),
    () => qemu.exited,
  );
  const qemuEndMs = Math.round(performance.now() - qStart);
  clearTimeout(timer);
  await pump;
  life.checkInterrupt();
  const stderr = await new Response(qemu.stderr as ReadableStream<Uint8Array>).text();
  if (stderr.trim() !== "") writeFileSync(`${dir}/qemu.stderr`, stderr);
  return { lines, qemuExit, qemuEndMs, timedOut, stderr };
}

/** Collect: the outcome, the servers' logs, the switch connections, the machine's events and liveliness before its allocation; result.json and the summary lines. */
function collect(s: DirectRun, served: Served, b: Booted): LabResult {
  const { run, names, dir, say } = s;
  const outcome = classifyEnd(b.lines, b.timedOut);
  const durationMs = Math.round(performance.now() - s.t0);
  const serverLogs: Record<string, string> = {};
  for (const srv of served.servers) {
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
  const recs = records(b.lines);
  const summary = machineSummary(`${dir}/standins`, LAB_UUID, served.switchTable !== undefined, recs);
  const result: LabResult = {
    outcome,
    exitCode: labExitCode(outcome, run.expect),
    names,
    dir,
    lines: b.lines,
    records: recs,
    serverLogs,
    qemuExit: b.qemuExit,
    qemuEndMs: b.qemuEndMs,
    durationMs,
    ...(summary.connections ? { connections: summary.connections } : {}),
  };
  writeFileSync(
    `${dir}/result.json`,
    JSON.stringify({ outcome, expected: run.expect, exitCode: result.exitCode, qemuExit: b.qemuExit, durationMs, netns: names.netns, taps: names.taps }, null, 1) + "\n",
  );
  for (const l of summary.lines) say(l);
  const stderr = b.stderr.trim();
  say(
    `ended: ${outcome} (expected ${run.expect}) after ${(durationMs / 1000).toFixed(1)} s; console in ${s.consolePath}${stderr ? `; QEMU stderr: ${stderr.split("\n")[0]}` : ""}`,
  );
  return result;
}

/**
 * One lab run, a plan over the lab lifecycle (lab/lifecycle/): the rig, the stand-ins
 * (leaves, chronyd, servers), the machine (QEMU), collect. On any way out (the result, a
 * step's error, an interrupt) the clean-up stack runs in reverse: the initrd copy, the
 * switches dir, then the rig (QEMU, servers, chronyd, lldpd, radvd by PID; the namespace).
 * Ctrl-C/SIGTERM with QEMU running stops QEMU and the run unwinds (LabInterrupted);
 * before that, clean-up runs at once and the process exits 130/143.
 */
export async function runLab(run: LabRun): Promise<LabResult> {
  const dir = resolve(run.dir);
  mkdirSync(`${dir}/servers`, { recursive: true });
  const consolePath = `${dir}/console.log`;
  writeFileSync(consolePath, "");
  const s: DirectRun = {
    run,
    names: labNames(run),
    dir,
    consolePath,
    say: (line) => {
      if (run.live) process.stdout.write(`lab: ${line}\n`);
    },
    t0: performance.now(),
  };
  const life = new Lifecycle();
  life.catchSignals(s.say);
  return await runPlan(
    {
      rig: (l) => createRig(s, l),
      standins: async (l, rig) => await startServers(s, rig, await leavesOnTaps(s, l, rig)),
      machines: (l, rig, served) => boot(s, l, rig, served),
      collect: (_rig, served, booted) => collect(s, served, booted),
    },
    life,
  );
}

const OUTCOMES: readonly Outcome[] = ["poweroff", "reboot", "halt", "panic", "timeout", "crashed"];

/** `bun lab/direct/lab.ts` options (Makefile's `make lab-direct` passes them). */
function parseLabArgs() {
  return parseArgs({
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
      // With --install: the image from an OCI registry in the router's namespace (make lab IMAGE=oci).
      oci: { type: "boolean", default: false },
      "switch-os": { type: "string", default: "sonic" },
    },
    strict: true,
  }).values;
}
type LabArgs = ReturnType<typeof parseLabArgs>;

/** A refused option: what main prints (`lab: ...`) before exiting 2. */
class Usage {
  constructor(readonly message: string) {}
}

/** The run the options ask for, or the first option refused (in the order they are listed). */
function labRunFrom(v: LabArgs): LabRun | Usage {
  const nics = Number(v.nics);
  if (!Number.isInteger(nics) || nics < 1 || nics > 8) return new Usage(`--nics ${v.nics}: expected 1..8`);
  if (v.nic !== "virtio" && v.nic !== "e1000") return new Usage(`--nic ${v.nic}: expected virtio or e1000`);
  if (!(OUTCOMES as readonly string[]).includes(v.expect as string)) return new Usage(`--expect ${v.expect}: expected one of ${OUTCOMES.join(", ")}`);
  if (!["poweroff", "reboot", "halt", "shell"].includes(v.done as string)) return new Usage(`--done ${v.done}: expected poweroff, reboot, halt or shell`);
  if (v.firmware !== "seabios" && v.firmware !== "qboot") return new Usage(`--firmware ${v.firmware}: expected seabios or qboot`);
  if (!((v.servers as string) in SERVER_SETS)) return new Usage(`--servers ${v.servers}: expected one of ${Object.keys(SERVER_SETS).join(", ")}`);
  if (!(SWITCH_OSES as readonly string[]).includes(v["switch-os"] as string)) return new Usage(`--switch-os ${v["switch-os"]}: expected ${SWITCH_OSES.join(" or ")}`);
  const mem = Number(v.memory);
  if (!Number.isInteger(mem) || mem < 256 || mem > 16384) return new Usage(`--memory ${v.memory}: expected MiB in 256..16384`);
  const timeout = Number(v.timeout);
  if (!(timeout > 0)) return new Usage(`--timeout ${v.timeout}: expected seconds > 0`);
  return defaultRun({
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
}

/**
 * --install: the whole flow on a disk. A sparse 1 GiB virtio disk and the test OS image
 * (lab/images/build.ts, the installed kernel is the lab's own) served by the image-cache
 * stand-in, which then allocates with a one-partition ext4 layout; the run ends when the
 * installed OS, kexec'd with its initrd, says `testos: up` and powers off.
 */
function installRun(run: LabRun, v: LabArgs): LabRun | Usage {
  if (v.servers !== "standins") return new Usage("--install needs --servers standins");
  if (v["no-allocate"]) return new Usage("--install needs the allocation (drop --no-allocate)");
  const kver = run.kernel.replace(/^.*vmlinux-/, "");
  const { disk, image: img } = installMedia(resolve(run.dir), { kernel: `/boot/vmlinuz-${kver}` });
  process.stderr.write(`lab: --install: disk ${disk} (1 GiB, sparse), test OS image ${img.image}\n`);
  // --oci: the same test OS (three layers with whiteouts) pushed into docker-registry by the stand-ins.
  const oci = v.oci ? buildOciTestImage(join(resolve(run.dir), "oci"), { base: { kernel: `/boot/vmlinuz-${kver}`, installer: "/install.sh" } }) : undefined;
  if (oci) process.stderr.write(`lab: --oci: the test OS as an OCI layout ${oci.layout}, served by docker-registry beside the stand-ins\n`);
  return {
    ...run,
    expect: "poweroff",
    extraQemu: [...(run.extraQemu ?? []), "-drive", `file=${disk},if=virtio,format=raw`],
    servers: standinServersWith(["--image", img.image, ...(oci ? ["--oci-layout", oci.layout] : [])]),
  };
}

async function main(): Promise<number> {
  const v = parseLabArgs();
  const usage = (u: Usage): number => {
    process.stderr.write(`lab: ${u.message}\n`);
    return 2;
  };
  const run = labRunFrom(v);
  if (run instanceof Usage) return usage(run);
  for (const f of [run.kernel, run.initrd]) if (!(await Bun.file(f).exists())) return usage(new Usage(`${f} is missing (make lab builds it)`));
  const chosen = v.install ? installRun(run, v) : run;
  if (chosen instanceof Usage) return usage(chosen);
  return (await runLab(chosen)).exitCode;
}

if (import.meta.main) {
  try {
    process.exit(await main());
  } catch (e) {
    process.stderr.write(`lab: ${(e as Error).message}\n`);
    process.exit(e instanceof LabInterrupted ? interruptExit(e.signal) : 1);
  }
}
