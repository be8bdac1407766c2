/**
 * The clock stage, as one function the flow calls as soon as the network is ready and
 * before the first TLS connection: ask the servers, decide (decide.ts), step the
 * system clock when it is off by the threshold or more, write the RTC when there is
 * one, and log one line saying by how much the clock moved. Never throws: a clock that
 * cannot be fixed is a warning here and a clear message at the TLS error that follows
 * (tls-hint.ts).
 */
import { existsSync } from "node:fs";
import { logEvent, type Logger } from "../../platform/log/logger.ts";
import { RTC_DEVICE, setRtc, setSystemClock } from "../../platform/sys/clock-syscall.ts";
import { errnoName as errnoText } from "../../platform/sys/errno.ts";
import { decideClock, describeOffset, type ClockDecision, type ServerOutcome } from "./decide.ts";
import { DEFAULT_SNTP_POLICY, queryServers, realSntpEnv, type SntpEnv, type SntpPolicy } from "./sntp-client.ts";
import { formatNtpServer, type NtpServer } from "../../config/ntp-servers.ts";

export interface ClockDeps {
  readonly log: Logger;
  readonly sntp?: SntpEnv;
  readonly policy?: SntpPolicy;
  /** Sets the system clock; 0 or an errno. Tests inject a recorder: the host's clock is never touched. */
  readonly setClock?: (unixMs: number) => number;
  /** Writes the RTC; 0 or an errno. */
  readonly setRtc?: (unixMs: number) => number;
  readonly rtcPresent?: () => boolean;
}

/** What the clock stage found and did: kept for the status file and the TLS hint. */
export interface ClockState {
  readonly servers: readonly string[];
  readonly decision: ClockDecision["kind"];
  /** Server minus local time before any step, ms (undefined when unsynced). */
  readonly offsetMs?: number;
  readonly server?: string;
  /** Unix ms (after the step) when the sync happened. */
  readonly syncedAt?: number;
  /** The step failed (errno name) or the RTC write failed. */
  readonly problem?: string;
  readonly rtc: "written" | "absent" | "failed" | "not_needed";
  readonly reasons?: readonly string[];
}

export async function syncClock(servers: readonly NtpServer[], deps: ClockDeps): Promise<ClockState> {
  const env = deps.sntp ?? realSntpEnv;
  const names = servers.map(formatNtpServer);
  if (servers.length === 0) {
    logEvent(deps.log, "clock.skip", { now: new Date(env.now()).toISOString() }, "no NTP server (METAL_NTP_SERVERS not set): the clock is not checked");
    return { servers: names, decision: "no_servers", rtc: "not_needed" };
  }
  const d = decideClock(servers, await askServers(servers, names, deps, env));
  if (d.kind === "unsynced") {
    const now = new Date(env.now()).toISOString();
    logEvent(deps.log, "clock.unsynced", { servers: names, reasons: d.reasons, now }, `no usable time from ${names.join(", ")}; the clock stays at ${now}`, "warn");
    return { servers: names, decision: "unsynced", reasons: d.reasons, rtc: "not_needed" };
  }
  if (d.kind === "no_servers") return { servers: names, decision: "no_servers", rtc: "not_needed" };
  if (d.kind === "keep") {
    const server = formatNtpServer(d.server);
    logEvent(deps.log, "clock.sync", { ...syncFields(d), stepped: false }, `clock is right: ${describeOffset(d.offsetMs)} of ${server}, not moved`);
    return { servers: names, decision: "keep", offsetMs: d.offsetMs, server, syncedAt: env.now(), rtc: "not_needed" };
  }
  return stepClock(d, names, deps, env);
}

type Synced = Extract<ClockDecision, { kind: "step" | "keep" }>;

/** Every server asked (SNTP, the policy's attempts each); a server's refusal (kiss code, bad packet) is a warning naming it. */
async function askServers(servers: readonly NtpServer[], names: readonly string[], deps: ClockDeps, env: SntpEnv): Promise<ServerOutcome[]> {
  const policy = deps.policy ?? DEFAULT_SNTP_POLICY;
  logEvent(
    deps.log,
    "clock.query",
    { servers: names, attempts: policy.attempts, timeoutMs: policy.timeoutMs },
    `asking ${names.join(", ")} for the time (SNTP, ${policy.attempts} x ${policy.timeoutMs} ms each)`,
  );
  const outcomes = await queryServers(servers, policy, env);
  for (const o of outcomes) {
    if (o.kind === "rejected")
      logEvent(
        deps.log,
        "clock.reject",
        { server: formatNtpServer(o.server), reason: o.rejection.reason, kiss: o.rejection.kiss?.code },
        `${formatNtpServer(o.server)}: ${o.rejection.message}`,
        "warn",
      );
  }
  return outcomes;
}

function syncFields(d: Synced): { server: string; offsetMs: number; delayMs: number; stratum: number } {
  return { server: formatNtpServer(d.server), offsetMs: Math.round(d.offsetMs), delayMs: Math.round(d.sample.delayMs), stratum: d.sample.stratum };
}

/** The system clock stepped by the offset (a failure leaves it unsynced), then the RTC written. */
function stepClock(d: Synced, names: readonly string[], deps: ClockDeps, env: SntpEnv): ClockState {
  const server = formatNtpServer(d.server);
  const fields = syncFields(d);
  const before = env.now();
  const target = before + d.offsetMs;
  const err = (deps.setClock ?? setSystemClock)(target);
  if (err !== 0) {
    const problem = `clock_settime failed: ${errnoText(err)}`;
    logEvent(deps.log, "clock.unsynced", { ...fields, problem }, `the clock is ${describeOffset(d.offsetMs)} of ${server} but cannot be set (${problem})`, "warn");
    return { servers: names, decision: "unsynced", offsetMs: d.offsetMs, server, problem, rtc: "not_needed" };
  }
  logEvent(
    deps.log,
    "clock.sync",
    { ...fields, stepped: true, from: new Date(before).toISOString(), to: new Date(target).toISOString() },
    `clock moved by ${(d.offsetMs / 1000).toFixed(3)} s (${describeOffset(d.offsetMs)} of ${server}): ${new Date(before).toISOString()} -> ${new Date(target).toISOString()}`,
  );
  const { rtc, problem } = writeRtc(deps, env);
  return { servers: names, decision: "step", offsetMs: d.offsetMs, server, syncedAt: env.now(), rtc, ...(problem ? { problem } : {}) };
}

/** The stepped time into the RTC when there is one; without one a line saying the next boot starts from the old time. */
function writeRtc(deps: ClockDeps, env: SntpEnv): { rtc: ClockState["rtc"]; problem?: string | undefined } {
  const rtcPresent = (deps.rtcPresent ?? (() => existsSync(RTC_DEVICE)))();
  if (!rtcPresent) {
    logEvent(
      deps.log,
      "clock.rtc",
      { device: RTC_DEVICE, ok: false, absent: true },
      `no ${RTC_DEVICE}: the hardware clock is not written (the next boot starts from the old time again)`,
    );
    return { rtc: "absent" };
  }
  const r = (deps.setRtc ?? setRtc)(env.now());
  const problem = r === 0 ? undefined : `RTC_SET_TIME on ${RTC_DEVICE} failed: ${errnoText(r)}`;
  logEvent(
    deps.log,
    "clock.rtc",
    { device: RTC_DEVICE, ok: r === 0, problem },
    r === 0 ? `hardware clock ${RTC_DEVICE} set (UTC)` : (problem as string),
    r === 0 ? "info" : "warn",
  );
  return { rtc: r === 0 ? "written" : "failed", problem };
}
