/**
 * PID 1: mounts the API filesystems, makes sure a console is attached, checks the
 * running kernel against the image (src/kernel/kconfig/running.ts), loads the
 * kernel modules for the devices present (coldplug.ts), handles signals, reaps orphans, runs
 * the boot flow, and then acts on the outcome per policy.ts. It never returns
 * normally while PID 1 (main.ts parks the process if a power action fails).
 */
import { AgentError, toAgentError } from "../platform/errors.ts";
import { logEvent, type Logger } from "../platform/log/logger.ts";
import { errnoName } from "../platform/sys/errno.ts";
import { aliasMatcher, parseModulesAlias, type AliasMatcher } from "../kernel/kmod/alias.ts";
import { parseModulesDep } from "../kernel/kmod/dep.ts";
import { parseModulesFirmware, type FirmwareMap } from "../kernel/kmod/firmware.ts";
import { parseModuleList } from "../kernel/kmod/names.ts";
import { parseModulesSoftdep, type Softdeps } from "../kernel/kmod/softdep.ts";
import { loadSteps, missingFirmware, wantedByDevices, type LoadReason, type LoadStep } from "./coldplug.ts";
import { parseMounts } from "../platform/fs/mount-table.ts";
import { BUILTIN_FRAGMENT_SOURCE, BUILTIN_FRAGMENT_TEXT } from "../kernel/kconfig/builtin-fragment.ts";
import { parseFragment } from "../kernel/kconfig/fragment.ts";
import { checkRunningKernel, runningKernelLines } from "../kernel/kconfig/running.ts";
import { MOUNT_PLAN, pendingMounts } from "./mounts.ts";
import { MODULE_ALIAS_NAME, MODULE_FIRMWARE_NAME, MODULE_LIST_NAME, MODULE_SOFTDEP_NAME, MODULES_ROOT } from "./paths.ts";
import { afterShell, decideAction, SIGNAL_ACTIONS, type FlowOutcome, type InitAction, type InitOptions } from "./policy.ts";
import type { InitSystem } from "./system.ts";

const EEXIST = 17;
const ENODEV = 19;
const EBUSY = 16;

export async function mountAll(sys: InitSystem, log: Logger): Promise<void> {
  const current = parseMounts((await sys.readText("/proc/self/mounts")) ?? "");
  for (const m of MOUNT_PLAN) {
    if (!pendingMounts([m], current).length) {
      logEvent(log, "init.mount", { target: m.target, fstype: m.fstype, result: "already mounted" }, undefined, "debug");
      continue;
    }
    sys.mkdir(m.target, m.dirMode);
    const e = sys.mount(m);
    if (e === 0) logEvent(log, "init.mount", { target: m.target, fstype: m.fstype }, undefined, "debug");
    else logEvent(log, "init.mount", { target: m.target, fstype: m.fstype, error: errnoName(e) }, `cannot mount ${m.fstype} on ${m.target}`, e === EBUSY ? "debug" : "warn");
  }
}

/**
 * The running kernel against the image, once, before any module loads: an error line
 * when the image has no modules for this release, and one init.kconfig line with the
 * config check (the same evaluator as `kconfig check`). Never fatal (docs/kconfig.md
 * "At boot"): a fragment stricter than a working kernel would otherwise stop a fleet.
 */
export function checkKernel(sys: InitSystem, log: Logger): void {
  const t0 = sys.now();
  let lines;
  try {
    lines = runningKernelLines(checkRunningKernel(sys.kernelFacts(), parseFragment(BUILTIN_FRAGMENT_TEXT, BUILTIN_FRAGMENT_SOURCE)));
  } catch (e) {
    // Only a bug gets here (the reads report their own errors): the boot goes on.
    logEvent(log, "init.kconfig", { outcome: "error", error: (e as Error).message }, "the running kernel check failed: not checked", "warn");
    return;
  }
  const ms = Math.round(sys.now() - t0);
  for (const l of lines) logEvent(log, l.event, { ...l.fields, ms }, l.message, l.level);
}

/** Bound on scan rounds: each round's modules can only reveal devices one bus level deeper. */
const MAX_ROUNDS = 6;

export interface ModuleLoadResult {
  readonly loaded: string[];
  readonly failed: string[];
  /** Refused with ENODEV: the module has nothing to drive here (efivarfs without UEFI, crc32c_intel without SSE4.2). */
  readonly absent: string[];
}

/**
 * Loads the boot list (modules.load), then the modules the present devices' modaliases
 * match in the image's modules.alias, each after its dependencies, rescanning until a
 * round loads nothing. Every load is logged with its reason; a module that fails is a
 * warning naming it (not fatal: the network stage then reports the missing interface).
 * Ends with one init.devices line: the storage and network controllers and every
 * driven PCI device, with the driver bound to each.
 */
export async function loadModules(sys: InitSystem, log: Logger): Promise<ModuleLoadResult> {
  const kver = (await sys.readText("/proc/sys/kernel/osrelease"))?.trim();
  const dir = `${MODULES_ROOT}/${kver}`;
  const tables = await readModuleTables(sys, log, kver, dir);
  if (!tables) return { loaded: [], failed: [], absent: [] };
  const m: ModuleLoad = { sys, log, dir, tables, handled: new Set(), loaded: [], failed: [], absent: [] };
  await runSteps(
    m,
    planWanted(
      m,
      tables.boot.map((module) => ({ module, reason: { kind: "boot" } })),
    ),
  );
  for (let round = 1; round <= MAX_ROUNDS; round++) {
    const wanted = wantedByDevices(tables.matcher, await sys.modaliases(), m.handled);
    if (wanted.length === 0) break;
    await runSteps(
      m,
      planWanted(
        m,
        wanted.map((w) => ({ module: w.module, reason: { kind: "device", device: w.device.device, modalias: w.device.modalias } })),
      ),
    );
  }
  await logDevices(m);
  return { loaded: m.loaded, failed: m.failed, absent: m.absent };
}

/** The image's module tables for this kernel. */
interface ModuleTables {
  readonly dep: ReturnType<typeof parseModulesDep>;
  readonly boot: readonly string[];
  readonly matcher: AliasMatcher;
  readonly firmware: FirmwareMap;
  readonly softdeps: Softdeps;
}

/** One loadModules run: its tables, the modules handled so far and their outcomes. */
interface ModuleLoad {
  readonly sys: InitSystem;
  readonly log: Logger;
  readonly dir: string;
  readonly tables: ModuleTables;
  /** Loaded, failed, absent or skipped: never planned again. */
  readonly handled: Set<string>;
  readonly loaded: string[];
  readonly failed: string[];
  readonly absent: string[];
}

/** The tables, or undefined (logged) when the image has none for this kernel or they do not parse. */
async function readModuleTables(sys: InitSystem, log: Logger, kver: string | undefined, dir: string): Promise<ModuleTables | undefined> {
  const [depText, listText, aliasText, fwText, softText] = [
    await sys.readText(`${dir}/modules.dep`),
    await sys.readText(`${dir}/${MODULE_LIST_NAME}`),
    await sys.readText(`${dir}/${MODULE_ALIAS_NAME}`),
    await sys.readText(`${dir}/${MODULE_FIRMWARE_NAME}`),
    await sys.readText(`${dir}/${MODULE_SOFTDEP_NAME}`),
  ];
  // modules.load marks a tree the initramfs build wrote: on a system that is not our image (a test host) PID 1 loads nothing.
  if (!kver || depText === undefined || listText === undefined) {
    logEvent(log, "init.module", { kernel: kver ?? null, dir }, `no modules for kernel ${kver ?? "?"} in the image: loading none (built-in drivers only)`, "warn");
    return undefined;
  }
  try {
    return {
      dep: parseModulesDep(depText),
      boot: parseModuleList(listText, `${dir}/${MODULE_LIST_NAME}`),
      matcher: aliasMatcher(parseModulesAlias(aliasText ?? "", `${dir}/${MODULE_ALIAS_NAME}`)),
      firmware: parseModulesFirmware(fwText ?? "", `${dir}/${MODULE_FIRMWARE_NAME}`),
      softdeps: parseModulesSoftdep(softText ?? "", `${dir}/${MODULE_SOFTDEP_NAME}`),
    };
  } catch (e) {
    logEvent(log, "init.module", { dir, error: (e as Error).message }, "module tables unusable: loading none", "error");
    return undefined;
  }
}

/** Planned one wanted module at a time, so an inconsistent table entry costs only that module. */
function planWanted(m: ModuleLoad, wanted: readonly { module: string; reason: LoadReason }[]): LoadStep[] {
  const steps: LoadStep[] = [];
  for (const w of wanted) {
    try {
      steps.push(...loadSteps(m.tables.dep, [w], new Set([...m.handled, ...steps.map((s) => s.module.name)]), m.tables.softdeps));
    } catch (e) {
      logEvent(m.log, "init.module", { module: w.module, error: (e as Error).message }, `module tables inconsistent for ${w.module}: skipping it`, "warn");
      m.handled.add(w.module);
      m.failed.push(w.module);
    }
  }
  return steps;
}

/** Each step loaded in order; a loaded module's firmware that the image lacks is a warning. */
async function runSteps(m: ModuleLoad, steps: readonly LoadStep[]): Promise<void> {
  for (const s of steps) {
    m.handled.add(s.module.name);
    const r = await loadOne(m.sys, m.log, m.dir, s);
    if (r === "absent") m.absent.push(s.module.name);
    else if (r === "loaded") {
      m.loaded.push(s.module.name);
      for (const f of missingFirmware(m.tables.firmware.get(s.module.name) ?? [], (p) => m.sys.exists(p))) {
        logEvent(m.log, "init.firmware", { module: s.module.name, firmware: f }, `module ${s.module.name} names firmware ${f}, which the image does not carry`, "warn");
      }
    } else m.failed.push(s.module.name);
  }
}

/** The one init.devices line: the modules' outcomes, storage and network controllers and every driven PCI device. */
async function logDevices(m: ModuleLoad): Promise<void> {
  const { loaded, failed, absent } = m;
  const all = await m.sys.pciDevices();
  // Storage (class 01) and network (02) controllers, and whatever has a driver: a server has a hundred bridges and functions nobody drives.
  const pci = all.filter((d) => d.driver !== null || d.class.startsWith("01") || d.class.startsWith("02"));
  const undriven = pci.filter((d) => d.driver === null);
  logEvent(
    m.log,
    "init.devices",
    { loaded, failed, absent, pci, pciTotal: all.length },
    `${loaded.length} modules loaded${failed.length ? `, ${failed.length} failed (${failed.join(", ")})` : ""}${absent.length ? `, ${absent.length} without hardware (${absent.join(", ")})` : ""}; ${pci.length - undriven.length} of ${all.length} PCI devices have a driver${undriven.length ? `; storage/network without one: ${undriven.map((d) => `${d.slot} ${d.id}`).join(", ")}` : ""}`,
  );
}

function reasonFields(r: LoadReason): Record<string, string> {
  if (r.kind === "boot") return { for: "boot list" };
  if (r.kind === "dependency") return { for: `dependency of ${r.of}` };
  return { for: r.device, modalias: r.modalias };
}

async function loadOne(sys: InitSystem, log: Logger, dir: string, s: LoadStep): Promise<"loaded" | "failed" | "absent"> {
  const path = `${dir}/${s.module.path}`;
  const t0 = sys.now();
  const e = sys.finitModule(path);
  if (e === 0 || e === EEXIST) {
    logEvent(log, "init.module", {
      module: s.module.name,
      ...reasonFields(s.reason),
      via: "finit_module",
      ms: Math.round(sys.now() - t0),
      ...(e === EEXIST ? { already: true } : {}),
    });
    return "loaded";
  }
  // ENODEV from a module's init: nothing for it to drive on this machine. Not a failure, and insmod would say the same.
  if (e === ENODEV) {
    logEvent(
      log,
      "init.module",
      { module: s.module.name, ...reasonFields(s.reason), finitError: errnoName(e) },
      `module ${s.module.name}: no such device or firmware interface here (ENODEV), not loaded`,
    );
    return "absent";
  }
  const rc = await sys.insmod(path);
  if (rc === 0) {
    logEvent(log, "init.module", { module: s.module.name, ...reasonFields(s.reason), via: "insmod", finitError: errnoName(e), ms: Math.round(sys.now() - t0) });
    return "loaded";
  }
  logEvent(log, "init.module", { module: s.module.name, ...reasonFields(s.reason), finitError: errnoName(e), insmodExit: rc }, `cannot load module ${s.module.name}`, "warn");
  return "failed";
}

/** Runs `action` (and the shell's follow-up). Resolves only if a power call failed. */
export async function perform(sys: InitSystem, log: Logger, action: InitAction): Promise<void> {
  let next: InitAction | undefined = action;
  while (next) {
    const a: InitAction = next;
    next = undefined;
    if (a.kind === "shell") {
      logEvent(log, "init.shell", { reason: a.reason }, "starting the debug shell on the console; exit it to reboot");
      const rc = await sys.shell();
      logEvent(log, "init.shell", { exitCode: rc }, "debug shell exited");
      next = afterShell();
      continue;
    }
    if (a.delayMs > 0) {
      logEvent(log, "init.reboot", { action: a.action, reason: a.reason, delayMs: a.delayMs }, `${a.action} in ${Math.round(a.delayMs / 1000)} s`);
      await sys.sleep(a.delayMs);
    }
    logEvent(log, "init.reboot", { action: a.action, reason: a.reason }, `${a.action} now`);
    // The line saying why the machine reboots must reach the console first (bounded wait).
    const flushing = log.flush();
    if (flushing) await flushing;
    const e = sys.power(a.action);
    // reboot(2) does not return when it works (it does in a PID namespace or a test).
    if (e !== 0) logEvent(log, "init.reboot", { action: a.action, error: errnoName(e) }, `${a.action} failed; PID 1 stays up`, "fatal");
  }
}

function outcomeOf(e: unknown): FlowOutcome {
  const err = toAgentError(e);
  return { kind: "error", code: err.code, message: err.message };
}

export interface InitRun {
  readonly outcome: FlowOutcome;
  readonly action: InitAction;
}

/**
 * The whole PID 1 sequence. `flow` is the boot flow (run with the validated config);
 * `options` the lenient policy parameters read from the same cmdline.
 */
export async function superviseInit(sys: InitSystem, log: Logger, options: InitOptions, flow: () => Promise<void>): Promise<InitRun> {
  await mountAll(sys, log);
  if (!sys.stdioOpen()) {
    const e = sys.attachConsole();
    if (e !== 0) logEvent(log, "init.mount", { target: "/dev/console", error: errnoName(e) }, "cannot attach the console", "warn");
  }
  sys.disableCad();
  // A signal acts at once, also while a reboot delay or the debug shell is pending.
  for (const [sig, what] of Object.entries(SIGNAL_ACTIONS)) {
    sys.onSignal(sig, () => {
      if (what === "ignore") return logEvent(log, "init.signal", { signal: sig }, `${sig} ignored`);
      logEvent(log, "init.signal", { signal: sig, action: what });
      void perform(sys, log, { kind: "power", action: what, delayMs: 0, reason: `signal ${sig}` });
    });
  }
  sys.startReaper((pid) => logEvent(log, "init.reap", { pid }, undefined, "debug"));
  checkKernel(sys, log);
  await loadModules(sys, log);

  let outcome: FlowOutcome;
  try {
    await flow();
    outcome = { kind: "done" };
  } catch (e) {
    outcome = outcomeOf(e);
    const err = e instanceof AgentError ? e : toAgentError(e);
    logEvent(log, "agent.fatal", { code: err.code, exitCode: err.exitCode, ...err.details }, err.message, "fatal");
  }
  const action = decideAction(outcome, options);
  await perform(sys, log, action);
  return { outcome, action };
}
