/**
 * The readiness policy over all selected interfaces. Pure: looks at the machines
 * and the time and says wait, ready, or fail (with the exit-code family and one
 * line per interface saying where it is stuck).
 *   any: ready as soon as one interface is ready; fails early only when none can
 *        become ready any more (all DAD-failed, or without carrier or deleted for
 *        longer than the grace: a deleted interface may be re-created meanwhile).
 *   all: ready when every interface is; fails early as soon as one cannot be.
 */
import type { ErrorCode } from "../../platform/errors.ts";
import type { InterfaceMachine } from "./machine.ts";

export type Policy = "any" | "all";

export interface ReadinessInput {
  readonly policy: Policy;
  readonly dnsNeeded: boolean;
  readonly now: number;
  readonly deadline: number;
  /** No carrier for this long (since start or since it was lost) = given up. */
  readonly carrierGraceMs: number;
}

export type Verdict =
  | { readonly kind: "wait" }
  | { readonly kind: "ready"; readonly ready: readonly InterfaceMachine[] }
  | { readonly kind: "fail"; readonly code: ErrorCode; readonly message: string; readonly reasons: readonly string[] };

export function deadReason(m: InterfaceMachine, i: ReadinessInput): "dad" | "gone" | "carrier" | undefined {
  if (m.failed) return "dad";
  if (m.gone && m.carrierLostAt !== undefined && i.now - m.carrierLostAt >= i.carrierGraceMs) return "gone";
  if (!m.carrier && m.carrierLostAt !== undefined && i.now - m.carrierLostAt >= i.carrierGraceMs) return "carrier";
  return undefined;
}

export function evaluate(machines: readonly InterfaceMachine[], i: ReadinessInput): Verdict {
  const ready = machines.filter((m) => m.step(i.dnsNeeded) === "ready");
  const dead = machines.filter((m) => deadReason(m, i) !== undefined);
  if (i.policy === "any" ? ready.length > 0 : ready.length === machines.length) return { kind: "ready", ready };
  const hopeless = i.policy === "any" ? dead.length === machines.length : dead.length > 0;
  const timedOut = i.now >= i.deadline;
  if (!hopeless && !timedOut) return { kind: "wait" };
  const reasons = machines.filter((m) => m.step(i.dnsNeeded) !== "ready").map((m) => m.explain(i.dnsNeeded, i.now));
  const considered = i.policy === "all" && !timedOut ? dead : machines;
  const code: ErrorCode = considered.some((m) => m.failed)
    ? "dad_failed"
    : hopeless && considered.every((m) => deadReason(m, i) === "gone")
      ? "no_interface"
      : hopeless && considered.every((m) => deadReason(m, i) !== undefined)
        ? "no_carrier"
        : "net_timeout";
  const head = timedOut
    ? `network not ready after ${Math.round((i.now - (machines[0]?.startedAt ?? i.now)) / 1000)}s (policy ${i.policy})`
    : `network cannot become ready (policy ${i.policy})`;
  return { kind: "fail", code, message: `${head}: ${reasons.join("; ")}`, reasons };
}
