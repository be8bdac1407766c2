/**
 * BootService/Wait until an allocation arrives: the imperative shell around
 * WaitTracker (wait-policy.ts). Upstream (metal-apiserver machine.go Wait) sends no
 * headers before the first message, no keepalives, and never ends the stream by
 * itself; a message without an allocation is still tolerated (logged at debug); a
 * stream that ends or breaks is reopened after a jittered delay (one warn line
 * each); a stream older than its lifetime is closed and reopened (one info line);
 * the whole wait is bounded (METAL_WAIT_TIMEOUT) and an idle stream is aborted at
 * the deadline.
 */
import type { ConnectClient } from "../clients/api/connect-client.ts";
import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import { callStreamKeepingJson, procedureOf } from "../clients/api/rpc.ts";
import { BootService } from "../gen/metalstack/infra/v2/boot_pb.ts";
import type { MachineAllocation } from "../gen/metalstack/api/v2/machine_pb.ts";
import { formatDuration } from "../config/duration.ts";
import { AgentError, toAgentError } from "../platform/errors.ts";
import { logEvent, type Logger } from "../platform/log/logger.ts";
import { isWaitRetryable, WaitTracker, type WaitPolicy } from "./wait-policy.ts";

export const WAIT = procedureOf(BootService.method.wait);

export interface WaitEnv {
  now(): number;
  random(): number;
  /** Resolves after `ms`, or early when `signal` aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

export const realWaitEnv: WaitEnv = {
  now: () => performance.now(),
  random: Math.random,
  sleep: (ms, signal) =>
    new Promise((resolve) => {
      const t = setTimeout(done, ms);
      function done() {
        clearTimeout(t);
        signal.removeEventListener("abort", done);
        resolve();
      }
      signal.addEventListener("abort", done, { once: true });
    }),
};

export interface WaitResult {
  readonly allocation: MachineAllocation;
  /**
   * The allocation exactly as the apiserver sent it (the `allocation` member of the Wait
   * message's JSON): fields newer than our proto/ are kept, so machine-allocation.yaml
   * hands the installer all of it (metal-stack/api PR #114's vpn.flavor, say).
   */
  readonly allocationJson: JsonObject;
  readonly waitedMs: number;
  readonly reconnects: number;
}

/** One wait: what its streams share, and why the last one broke. */
interface WaitRun {
  readonly api: Pick<ConnectClient, "serverStream">;
  readonly uuid: string;
  readonly policy: WaitPolicy;
  readonly log: Logger;
  readonly env: WaitEnv;
  readonly tracker: WaitTracker;
  /** Aborted at METAL_WAIT_TIMEOUT: ends an idle stream and the pause before a reopen. */
  readonly deadline: AbortController;
  readonly bound: string;
  /** Why the last stream broke, unless it only reached its lifetime (the wait then ends saying so: 500s to the end are not "not allocated"). */
  lastBreak: string | undefined;
}

/** How one stream ended: with the allocation, broken (to be reopened), or with the wait over. */
type StreamEnd =
  | { readonly kind: "allocated"; readonly result: WaitResult }
  | { readonly kind: "broke"; readonly reason: string; readonly lifetimeEnded: boolean }
  | { readonly kind: "over" };

export async function waitForAllocation(api: Pick<ConnectClient, "serverStream">, uuid: string, policy: WaitPolicy, log: Logger, env: WaitEnv = realWaitEnv): Promise<WaitResult> {
  const w: WaitRun = {
    api,
    uuid,
    policy,
    log,
    env,
    tracker: new WaitTracker(policy, env.now()),
    deadline: new AbortController(),
    bound: formatDuration(policy.timeoutMs),
    lastBreak: undefined,
  };
  const timer = setTimeout(() => w.deadline.abort(), policy.timeoutMs);
  logEvent(log, "provision.wait", { uuid, timeoutMs: policy.timeoutMs }, `waiting for an allocation of ${uuid} (${WAIT}, up to ${w.bound})`);
  try {
    for (;;) {
      const end = await oneStream(w);
      if (end.kind === "allocated") return end.result;
      if (end.kind === "over" || !(await pauseBeforeReopen(w, end.reason, end.lifetimeEnded))) break;
    }
  } finally {
    clearTimeout(timer);
  }
  throw waitTimedOut(w);
}

/** One Wait stream, bounded by its lifetime and the deadline: its first message with an allocation ends the wait. */
async function oneStream(w: WaitRun): Promise<StreamEnd> {
  const { uuid, env, tracker, deadline } = w;
  const lifetime = new AbortController();
  const lifeTimer = setTimeout(() => lifetime.abort(), tracker.opened(env.now()));
  const signal = AbortSignal.any([deadline.signal, lifetime.signal]);
  try {
    // No headers timeout: the server may send headers only with its first message; the stream's lifetime bounds it.
    for await (const { message: m, json } of callStreamKeepingJson(w.api, BootService.method.wait, { uuid }, { signal, retry: false, headersTimeoutMs: 0 })) {
      if (m.allocation) {
        return {
          kind: "allocated",
          result: { allocation: m.allocation, allocationJson: allocationMember(json), waitedMs: Math.round(tracker.waitedMs(env.now())), reconnects: tracker.reconnects },
        };
      }
      logEvent(w.log, "provision.wait.keepalive", { uuid }, "Wait: keepalive (no allocation yet)", "debug");
    }
    return { kind: "broke", reason: "the stream ended without an allocation", lifetimeEnded: lifetime.signal.aborted };
  } catch (e) {
    if (deadline.signal.aborted || tracker.expired(env.now())) {
      // A stream still open at the deadline was a healthy one: the machine simply was not allocated.
      if (deadline.signal.aborted) w.lastBreak = undefined;
      return { kind: "over" };
    }
    if (lifetime.signal.aborted) {
      w.lastBreak = undefined;
      return { kind: "broke", reason: `no allocation within the stream's lifetime of ${formatDuration(w.policy.streamMs)}; reopening it`, lifetimeEnded: true };
    }
    const err = toAgentError(e);
    if (!isWaitRetryable(err)) throw err;
    w.lastBreak = err.message;
    return { kind: "broke", reason: err.message, lifetimeEnded: false };
  } finally {
    clearTimeout(lifeTimer);
  }
}

/** The jittered pause before the next stream (one line saying why); false when the wait is over instead. */
async function pauseBeforeReopen(w: WaitRun, reason: string, lifetimeEnded: boolean): Promise<boolean> {
  if (w.deadline.signal.aborted) return false;
  const d = w.tracker.broke(w.env.now(), w.env.random());
  if (d.kind === "timeout") return false;
  logEvent(
    w.log,
    "provision.wait.reconnect",
    { uuid: w.uuid, reconnect: d.reconnect, delayMs: d.delayMs, reason },
    `${WAIT}: ${reason}; reconnect ${d.reconnect} in ${d.delayMs} ms`,
    lifetimeEnded ? "info" : "warn",
  );
  await w.env.sleep(d.delayMs, w.deadline.signal);
  return !w.deadline.signal.aborted;
}

/** wait_timeout, saying whether the machine was simply not allocated or why the last stream broke. */
function waitTimedOut(w: WaitRun): AgentError {
  const { uuid, policy, tracker, lastBreak } = w;
  const waitedMs = Math.round(tracker.waitedMs(w.env.now()));
  logEvent(w.log, "provision.wait.timeout", { uuid, timeoutMs: policy.timeoutMs, waitedMs, reconnects: tracker.reconnects, lastBreak: lastBreak ?? null }, undefined, "error");
  const state = lastBreak === undefined ? "the machine is registered but not allocated" : `the last stream broke: ${lastBreak}`;
  return new AgentError("wait_timeout", `no allocation for ${uuid} within METAL_WAIT_TIMEOUT=${w.bound} (${WAIT}, ${tracker.reconnects} reconnect(s)); ${state}`, {
    uuid,
    timeoutMs: policy.timeoutMs,
    reconnects: tracker.reconnects,
    lastBreak: lastBreak ?? null,
  });
}

/** The `allocation` member of a Wait message's JSON (protojson also accepts the proto name, which is the same here). */
export function allocationMember(json: JsonValue): JsonObject {
  const a = json !== null && typeof json === "object" && !Array.isArray(json) ? json.allocation : undefined;
  // decoder() already accepted the message, so a present allocation is an object.
  return a !== null && typeof a === "object" && !Array.isArray(a) ? a : {};
}
