import { describe, expect, test } from "bun:test";
import { initOptionsFromCmdline } from "../../src/init/init-options.ts";
import { afterShell, decideAction, SIGNAL_ACTIONS, type InitOptions } from "../../src/init/policy.ts";

const opts = (o: Partial<InitOptions> = {}): InitOptions => ({ debug: false, done: "reboot", rebootDelayMs: 30_000, ...o });

describe("PID 1 policy", () => {
  test("a finished flow does what METAL_DONE says, at once", () => {
    expect(decideAction({ kind: "done" }, opts({ done: "poweroff" }))).toEqual({ kind: "power", action: "poweroff", delayMs: 0, reason: "flow finished" });
    expect(decideAction({ kind: "done" }, opts())).toMatchObject({ kind: "power", action: "reboot", delayMs: 0 });
    expect(decideAction({ kind: "done" }, opts({ done: "shell" }))).toMatchObject({ kind: "shell" });
  });

  test("a fatal error reboots after the delay, or opens the debug shell with DEBUG", () => {
    const timeout = { kind: "error", code: "net_timeout", message: "no RA" } as const;
    expect(decideAction(timeout, opts({ done: "poweroff", rebootDelayMs: 1000 }))).toEqual({ kind: "power", action: "reboot", delayMs: 1000, reason: "fatal error: net_timeout" });
    expect(decideAction(timeout, opts({ debug: true }))).toEqual({ kind: "shell", reason: "fatal error: net_timeout" });
  });

  test("leaving the debug shell reboots at once", () => {
    expect(afterShell()).toMatchObject({ kind: "power", action: "reboot", delayMs: 0 });
  });

  test("signals follow busybox init: TERM/INT reboot, USR1 halt, USR2 power off", () => {
    expect(SIGNAL_ACTIONS).toEqual({ SIGTERM: "reboot", SIGINT: "reboot", SIGUSR1: "halt", SIGUSR2: "poweroff", SIGHUP: "ignore" });
  });
});

describe("PID 1 options from the cmdline", () => {
  test("reads DEBUG, METAL_DONE, METAL_REBOOT_DELAY and METAL_LOG_FORMAT", () => {
    expect(initOptionsFromCmdline("console=ttyS0 DEBUG METAL_DONE=poweroff METAL_REBOOT_DELAY=5s METAL_LOG_FORMAT=json")).toEqual({
      options: { debug: true, done: "poweroff", rebootDelayMs: 5000 },
      logFormat: "json",
      problems: [],
    });
  });

  test("defaults: no debug, reboot when done, 30 s before a reboot after an error", () => {
    expect(initOptionsFromCmdline("").options).toEqual({ debug: false, done: "reboot", rebootDelayMs: 30_000 });
  });

  test("a bad value falls back to the default and says so, instead of leaving PID 1 without a policy", () => {
    const r = initOptionsFromCmdline("METAL_DONE=explode METAL_REBOOT_DELAY=soon DEBUG=1 METAL_BOOT_URL=ftp://x METAL_LOG_FORMAT=xml");
    expect(r.options).toEqual({ debug: true, done: "reboot", rebootDelayMs: 30_000 });
    expect(r.logFormat).toBe("auto");
    expect(r.problems).toEqual([
      "METAL_DONE: expected one of poweroff, reboot, halt, shell; using reboot",
      "METAL_REBOOT_DELAY: expected a duration like 90s or 2m; using 30s",
      "METAL_LOG_FORMAT: expected one of auto, json, text; using auto",
    ]);
  });
});
