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
import type { ConnectClient } from "../../clients/api/client.ts";
import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import { callStreamKeepingJson, procedureOf } from "../../clients/api/rpc.ts";
import { BootService } from "../../gen/metalstack/infra/v2/boot_pb.ts";
import type { MachineAllocation } from "../../gen/metalstack/api/v2/machine_pb.ts";
import { formatDuration } from "../../config/duration.ts";
import { AgentError, toAgentError } from "../../errors.ts";
import { logEvent, type Logger } from "../../platform/log/logger.ts";
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

export async function waitForAllocation(api: Pick<ConnectClient, "serverStream">, uuid: string, policy: WaitPolicy, log: Logger, env: WaitEnv = realWaitEnv): Promise<WaitResult> {
  const tracker = new WaitTracker(policy, env.now());
  const bound = formatDuration(policy.timeoutMs);
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), policy.timeoutMs);
  logEvent(log, "provision.wait", { uuid, timeoutMs: policy.timeoutMs }, `waiting for an allocation of ${uuid} (${WAIT}, up to ${bound})`);
  /** Why the last stream broke, unless it only reached its lifetime (the wait then ends saying so: 500s to the end are not "not allocated"). */
  let lastBreak: string | undefined;
  try {
    for (;;) {
      const lifetime = new AbortController();
      const lifeTimer = setTimeout(() => lifetime.abort(), tracker.opened(env.now()));
      const signal = AbortSignal.any([deadline.signal, lifetime.signal]);
      let reason: string;
      try {
        // No headers timeout: the server may send headers only with its first message; the stream's lifetime bounds it.
        for await (const { message: m, json } of callStreamKeepingJson(api, BootService.method.wait, { uuid }, { signal, retry: false, headersTimeoutMs: 0 })) {
          if (m.allocation) {
            return { allocation: m.allocation, allocationJson: allocationMember(json), waitedMs: Math.round(tracker.waitedMs(env.now())), reconnects: tracker.reconnects };
          }
          logEvent(log, "provision.wait.keepalive", { uuid }, "Wait: keepalive (no allocation yet)", "debug");
        }
        reason = "the stream ended without an allocation";
      } catch (e) {
        if (deadline.signal.aborted || tracker.expired(env.now())) {
          // A stream still open at the deadline was a healthy one: the machine simply was not allocated.
          if (deadline.signal.aborted) lastBreak = undefined;
          break;
        }
        if (lifetime.signal.aborted) {
          reason = `no allocation within the stream's lifetime of ${formatDuration(policy.streamMs)}; reopening it`;
          lastBreak = undefined;
        } else {
          const err = toAgentError(e);
          if (!isWaitRetryable(err)) throw err;
          reason = err.message;
          lastBreak = reason;
        }
      } finally {
        clearTimeout(lifeTimer);
      }
      if (deadline.signal.aborted) break;
      const d = tracker.broke(env.now(), env.random());
      if (d.kind === "timeout") break;
      logEvent(
        log,
        "provision.wait.reconnect",
        { uuid, reconnect: d.reconnect, delayMs: d.delayMs, reason },
        `${WAIT}: ${reason}; reconnect ${d.reconnect} in ${d.delayMs} ms`,
        lifetime.signal.aborted ? "info" : "warn",
      );
      await env.sleep(d.delayMs, deadline.signal);
      if (deadline.signal.aborted) break;
    }
  } finally {
    clearTimeout(timer);
  }
  const waitedMs = Math.round(tracker.waitedMs(env.now()));
  logEvent(log, "provision.wait.timeout", { uuid, timeoutMs: policy.timeoutMs, waitedMs, reconnects: tracker.reconnects, lastBreak: lastBreak ?? null }, undefined, "error");
  const state = lastBreak === undefined ? "the machine is registered but not allocated" : `the last stream broke: ${lastBreak}`;
  throw new AgentError("wait_timeout", `no allocation for ${uuid} within METAL_WAIT_TIMEOUT=${bound} (${WAIT}, ${tracker.reconnects} reconnect(s)); ${state}`, {
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
