/**
 * The status file's sections, from what each part reports (clock stage, watchdog,
 * shipper), and their one-line texts for `metal-hammer status`. Pure.
 */
import { describeOffset } from "../clock/decide.ts";
import type { ClockState } from "../clock/sync.ts";
import type { ShipperStats } from "../remote-log/shipper.ts";
import type { WatchdogStatus } from "../watchdog/watchdog.ts";
import type { WipeReport } from "../../machine/disk/wipe-run.ts";
import { iso, type StatusDoc } from "./status-file.ts";

const defined = <T extends Record<string, unknown>>(o: T): T => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;

export function clockSection(c: ClockState): NonNullable<StatusDoc["clock"]> {
  return defined({ decision: c.decision, servers: [...c.servers], offsetMs: c.offsetMs, server: c.server, syncedAt: iso(c.syncedAt), rtc: c.rtc, problem: c.problem });
}

export function watchdogSection(w: WatchdogStatus): NonNullable<StatusDoc["watchdog"]> {
  return defined({ state: w.state, device: w.device, timeoutS: w.timeoutS, pets: w.pets, lastPetAt: iso(w.lastPetAt), reason: w.reason });
}

export function remoteLogSection(s: ShipperStats): NonNullable<StatusDoc["remoteLog"]> {
  return defined({
    state: s.state,
    sent: s.sent,
    dropped: s.dropped,
    failedPushes: s.failedPushes,
    queued: s.queued,
    lastError: s.lastError,
    lastSentAt: iso(s.lastSentAt),
    reason: s.reason,
  });
}

/** Each disk's record from the wipe: method, duration, zeroes read back, locked. */
export function wipeSection(r: WipeReport): NonNullable<StatusDoc["wipe"]> {
  return {
    mode: r.mode,
    durationMs: r.durationMs,
    disks: r.disks.map((d) =>
      defined({ disk: d.disk, outcome: d.outcome, method: d.method, durationMs: d.durationMs, zeroesChecked: d.zeroesChecked, locked: d.locked, reason: d.reason }),
    ),
  };
}

const wipeText = (w: NonNullable<StatusDoc["wipe"]>): string =>
  `${w.mode}, ${(w.durationMs / 1000).toFixed(1)} s: ${w.disks
    .map((d) =>
      d.outcome === "wiped"
        ? `${d.disk} ${d.method} ${(d.durationMs / 1000).toFixed(1)} s${d.zeroesChecked ? " zeroes verified" : ""}`
        : `${d.disk} ${d.outcome}${d.locked ? " (ATA-locked)" : ""}${d.method ? ` at ${d.method}` : ""}`,
    )
    .join("; ")}`;
/** An uplink as the uplink table knows it (network/net/uplinks.ts Uplink), and whether it is one now. */
export interface UplinkFacts {
  readonly name: string;
  readonly address: string;
  readonly router: string;
  readonly preference: string;
  /** false: dropped (carrier, address or router gone); kept to show its last error. */
  readonly up: boolean;
}

/** What connections through an uplink last came to (clients/http/uplink-connect.ts UplinkOutcome). */
export interface UplinkOutcomeFacts {
  readonly ok: boolean;
  readonly at: number;
  readonly error?: string;
}

/**
 * Each uplink's state: dropped (no uplink now), preferred (connections go through it),
 * failing (its last attempt failed), or up (an uplink, not used since it last worked or
 * never tried); with its last success and last error.
 */
export function uplinksSection(
  uplinks: readonly UplinkFacts[],
  outcomes: ReadonlyMap<string, UplinkOutcomeFacts>,
  lastErrors: ReadonlyMap<string, UplinkOutcomeFacts>,
  preferred: string | undefined,
): NonNullable<StatusDoc["uplinks"]> {
  return uplinks.map((u) => {
    const last = outcomes.get(u.name);
    const err = lastErrors.get(u.name);
    const state = !u.up ? "dropped" : u.name === preferred && last?.ok !== false ? "preferred" : last?.ok === false ? "failing" : "up";
    return defined({
      name: u.name,
      state,
      address: u.address,
      router: u.router,
      preference: u.preference,
      lastOkAt: iso(last?.ok ? last.at : undefined),
      lastError: err?.error,
      lastErrorAt: iso(err?.at),
    });
  });
}

/** The human view: one `label  text` pair per part. */
export function statusLines(d: StatusDoc): [string, string][] {
  const c = d.clock;
  const clock = !c
    ? "not checked yet"
    : c.decision === "no_servers"
      ? "not checked: no NTP server (METAL_NTP_SERVERS)"
      : c.decision === "unsynced"
        ? `NOT synchronized (${c.servers.join(", ")})${c.problem ? `: ${c.problem}` : ""}`
        : `${c.decision === "step" ? "stepped" : "right"}: was ${describeOffset(c.offsetMs ?? 0)} of ${c.server}, last sync ${c.syncedAt}; RTC ${c.rtc.replace("_", " ")}`;
  const w = d.watchdog;
  const watchdog = !w
    ? "not started yet"
    : w.state === "armed"
      ? `armed: ${w.device}, timeout ${w.timeoutS === undefined ? "driver default" : `${w.timeoutS} s`}, ${w.pets} ping(s), last ${w.lastPetAt ?? "never"}`
      : `${w.state}${w.reason ? `: ${w.reason}` : ""}`;
  const r = d.remoteLog;
  const remote = !r
    ? "not started yet"
    : `${r.state}${r.reason ? ` (${r.reason})` : ""}: ${r.sent} sent, ${r.dropped} dropped, ${r.queued} queued, ${r.failedPushes} failed push(es)${r.lastError ? `, last error: ${r.lastError}` : ""}`;
  const t = d.token;
  const token = !t
    ? "not fetched yet"
    : `${t.kind}, expires ${t.expiresAt ?? "(unknown: not a JWT with exp)"}${t.renewals > 0 ? `; renewed ${t.renewals} time(s), last ${t.renewedAt ?? "?"}` : ""}`;
  return [
    ["stage", d.stage ?? "(none yet)"],
    ["clock", clock],
    ["watchdog", watchdog],
    ["remote log", remote],
    ...(d.wipe ? [["wipe", wipeText(d.wipe)] as [string, string]] : []),
    ...uplinkLines(d),
    ["planned reboot", d.plannedReboot?.at ?? "none"],
    ["machine token", token],
    ["updated", `${d.updatedAt} (agent pid ${d.pid})`],
  ];
}

/** One `uplink <name>` line per uplink: state, address via router (preference), the last error. */
function uplinkLines(d: StatusDoc): [string, string][] {
  if (!d.uplinks || d.uplinks.length === 0) return [["uplinks", d.uplinks ? "none" : "not known yet"]];
  return d.uplinks.map((u) => [
    `uplink ${u.name}`,
    `${u.state}: ${u.address} via ${u.router} (${u.preference})${u.lastError ? `, last error ${u.lastErrorAt}: ${u.lastError}` : ""}`,
  ]);
}
