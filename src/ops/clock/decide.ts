/**
 * From the answers of several servers to one decision about the system clock. Pure.
 *
 * - No usable sample: `unsynced` (the clock stays as it is; the reasons per server are
 *   kept for the log line and for the TLS error hint, tls-hint.ts).
 * - Otherwise the median offset (falsetickers: one wildly wrong server among three is
 *   outvoted; with two, the one with the shorter round trip of the middle pair wins).
 * - |offset| >= STEP_THRESHOLD_MS: `step` the clock by the offset. Below it: `keep`.
 *   The threshold is 1 s: certificate and token validity checks work in whole seconds
 *   with minutes of slack, so a smaller error changes nothing the agent does, while a
 *   step makes log timestamps jump. There is no slewing (no adjtime): the agent lives
 *   minutes to hours, and the installed OS runs its own NTP daemon.
 */
import type { SntpRejection, SntpSample } from "./sntp-check.ts";
import type { NtpServer } from "../../config/ntp-servers.ts";

export const STEP_THRESHOLD_MS = 1000;

export type ServerOutcome =
  | { readonly server: NtpServer; readonly kind: "sample"; readonly sample: SntpSample }
  | { readonly server: NtpServer; readonly kind: "rejected"; readonly rejection: SntpRejection }
  | { readonly server: NtpServer; readonly kind: "no_answer"; readonly message: string };

export type ClockDecision =
  | { readonly kind: "step"; readonly offsetMs: number; readonly server: NtpServer; readonly sample: SntpSample }
  | { readonly kind: "keep"; readonly offsetMs: number; readonly server: NtpServer; readonly sample: SntpSample }
  | { readonly kind: "unsynced"; readonly reasons: readonly string[] }
  | { readonly kind: "no_servers" };

export function decideClock(servers: readonly NtpServer[], outcomes: readonly ServerOutcome[], thresholdMs = STEP_THRESHOLD_MS): ClockDecision {
  if (servers.length === 0) return { kind: "no_servers" };
  const samples = outcomes.flatMap((o) => (o.kind === "sample" ? [{ server: o.server, sample: o.sample }] : []));
  if (samples.length === 0) {
    return { kind: "unsynced", reasons: outcomes.map((o) => `${o.server.host}: ${o.kind === "rejected" ? o.rejection.message : o.kind === "no_answer" ? o.message : "?"}`) };
  }
  const sorted = [...samples].sort((a, b) => a.sample.offsetMs - b.sample.offsetMs);
  const mid = sorted.length >> 1;
  const chosen = sorted.length % 2 === 1 ? sorted[mid]! : [sorted[mid - 1]!, sorted[mid]!].sort((a, b) => a.sample.delayMs - b.sample.delayMs)[0]!;
  const offsetMs = chosen.sample.offsetMs;
  const kind = Math.abs(offsetMs) >= thresholdMs ? "step" : "keep";
  return { kind, offsetMs, server: chosen.server, sample: chosen.sample };
}

/** "3 min 12.4 s behind", "1 y 2 d ahead" etc.: how the log line says by how much the clock was off. */
export function describeOffset(offsetMs: number): string {
  const dir = offsetMs > 0 ? "behind" : "ahead";
  let abs = Math.abs(offsetMs);
  if (abs < 1000) return `${Math.round(abs)} ms ${dir}`;
  if (abs < 60_000) return `${(abs / 1000).toFixed(1)} s ${dir}`;
  // Two units at most, the second one rounded (so 1 ms short of a year reads "365 d").
  const step = abs >= 86_400_000 ? 3_600_000 : abs >= 3_600_000 ? 60_000 : 100;
  abs = Math.round(abs / step) * step;
  const units: [string, number][] = [
    ["d", 86_400_000],
    ["h", 3_600_000],
    ["min", 60_000],
  ];
  const parts: string[] = [];
  for (const [name, ms] of units) {
    if (abs >= ms && parts.length < 2) {
      parts.push(`${Math.floor(abs / ms)} ${name}`);
      abs %= ms;
    } else if (parts.length === 1) break;
  }
  if (parts.length === 1 && step === 100 && abs > 0) parts.push(`${(abs / 1000).toFixed(1)} s`);
  return `${parts.join(" ")} ${dir}`;
}
