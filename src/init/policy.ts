/**
 * What PID 1 does when the flow ends. PID 1 must never exit (the kernel panics), so
 * every outcome maps to a power action or the debug shell. Pure.
 *
 * - The flow finished without an error: METAL_DONE (poweroff, reboot, halt, or shell).
 * - Any other error: with DEBUG the debug shell, else a reboot after
 *   METAL_REBOOT_DELAY (time to read the console).
 * - The debug shell exits: reboot at once.
 */
import type { ErrorCode } from "../platform/exit-codes.ts";

export type DoneAction = "poweroff" | "reboot" | "halt" | "shell";
export type PowerAction = "poweroff" | "reboot" | "halt";

export type FlowOutcome = { readonly kind: "done" } | { readonly kind: "error"; readonly code: ErrorCode; readonly message: string };

export interface InitOptions {
  readonly debug: boolean;
  readonly done: DoneAction;
  readonly rebootDelayMs: number;
}

export type InitAction =
  | { readonly kind: "power"; readonly action: PowerAction; readonly delayMs: number; readonly reason: string }
  | { readonly kind: "shell"; readonly reason: string };

export function decideAction(outcome: FlowOutcome, opts: InitOptions): InitAction {
  if (outcome.kind === "done") {
    const reason = "flow finished";
    return opts.done === "shell" ? { kind: "shell", reason } : { kind: "power", action: opts.done, delayMs: 0, reason };
  }
  const reason = `fatal error: ${outcome.code}`;
  return opts.debug ? { kind: "shell", reason } : { kind: "power", action: "reboot", delayMs: opts.rebootDelayMs, reason };
}

/** After the debug shell exits. */
export function afterShell(): InitAction {
  return { kind: "power", action: "reboot", delayMs: 0, reason: "debug shell exited" };
}

/**
 * Signals to PID 1, as busybox init reads them: SIGTERM and SIGINT (Ctrl-Alt-Del)
 * reboot, SIGUSR1 halts, SIGUSR2 powers off. SIGHUP is logged and ignored.
 */
export const SIGNAL_ACTIONS: Readonly<Record<string, PowerAction | "ignore">> = {
  SIGTERM: "reboot",
  SIGINT: "reboot",
  SIGUSR1: "halt",
  SIGUSR2: "poweroff",
  SIGHUP: "ignore",
};
