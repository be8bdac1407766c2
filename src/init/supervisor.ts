/**
 * PID 1: mounts the API filesystems, makes sure a console is attached, loads the
 * listed kernel modules in dependency order, handles signals, reaps orphans, runs
 * the boot flow, and then acts on the outcome per policy.ts. It never returns
 * normally while PID 1 (main.ts parks the process if a power action fails).
 */
import { AgentError, toAgentError } from "../errors.ts";
import { logEvent, type Logger } from "../log/logger.ts";
import { errnoName } from "../sys/errno.ts";
import { parseModuleList, parseModulesDep, planModuleLoad } from "./modules-dep.ts";
import { MOUNT_PLAN, parseMounts, pendingMounts } from "./mounts.ts";
import { MODULE_LIST_NAME, MODULES_ROOT } from "./paths.ts";
import { afterShell, decideAction, SIGNAL_ACTIONS, type FlowOutcome, type InitAction, type InitOptions } from "./policy.ts";
import type { InitSystem } from "./system.ts";

const EEXIST = 17;
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

/** Loads /lib/modules/<running kernel>/modules.load in dependency order; failures are logged, not fatal. */
export async function loadModules(sys: InitSystem, log: Logger): Promise<{ loaded: string[]; failed: string[] }> {
  const kver = (await sys.readText("/proc/sys/kernel/osrelease"))?.trim();
  const loaded: string[] = [];
  const failed: string[] = [];
  const dir = `${MODULES_ROOT}/${kver}`;
  const [depText, listText] = [await sys.readText(`${dir}/modules.dep`), await sys.readText(`${dir}/${MODULE_LIST_NAME}`)];
  if (!kver || depText === undefined || listText === undefined) {
    logEvent(log, "init.module", { kernel: kver ?? null, dir }, `no module list for kernel ${kver ?? "?"} in the image: loading none (built-in drivers only)`, "warn");
    return { loaded, failed };
  }
  let plan;
  try {
    plan = planModuleLoad(parseModulesDep(depText), parseModuleList(listText));
  } catch (e) {
    logEvent(log, "init.module", { dir, error: (e as Error).message }, "module list unusable: loading none", "error");
    return { loaded, failed };
  }
  for (const m of plan.load) {
    const path = `${dir}/${m.path}`;
    const t0 = sys.now();
    const e = sys.finitModule(path);
    if (e === 0 || e === EEXIST) {
      loaded.push(m.name);
      logEvent(log, "init.module", { module: m.name, via: "finit_module", ms: Math.round(sys.now() - t0), ...(e === EEXIST ? { already: true } : {}) });
      continue;
    }
    const rc = await sys.insmod(path);
    if (rc === 0) {
      loaded.push(m.name);
      logEvent(log, "init.module", { module: m.name, via: "insmod", finitError: errnoName(e), ms: Math.round(sys.now() - t0) });
    } else {
      failed.push(m.name);
      logEvent(log, "init.module", { module: m.name, finitError: errnoName(e), insmodExit: rc }, `cannot load module ${m.name}`, "error");
    }
  }
  return { loaded, failed };
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
  await loadModules(sys, log);

  let outcome: FlowOutcome;
  try {
    await flow();
    outcome = { kind: "done" };
  } catch (e) {
    outcome = outcomeOf(e);
    const err = e instanceof AgentError ? e : toAgentError(e);
    if (err.code === "not_built") logEvent(log, "agent.not_built", { code: err.code, exitCode: err.exitCode, ...err.details }, err.message);
    else logEvent(log, "agent.fatal", { code: err.code, exitCode: err.exitCode, ...err.details }, err.message, "fatal");
  }
  const action = decideAction(outcome, options);
  await perform(sys, log, action);
  return { outcome, action };
}
