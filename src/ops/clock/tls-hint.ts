/**
 * A TLS "certificate not yet valid / expired" error is very often the machine's clock,
 * not the certificate (an RTC that says 2001 or 2038). This turns such an error into
 * one that names the machine's current time and what to do: set METAL_NTP_SERVERS, or
 * (when servers were given) why they did not help. Pure: the error, the clock reading
 * and the clock stage's result in, an error out. Other errors pass unchanged.
 */
import { TransportError } from "../../clients/http/transport-error.ts";
import { AgentError } from "../../platform/errors.ts";
import type { ClockState } from "./sync.ts";

const NOT_YET_VALID = /CERT_NOT_YET_VALID|not yet valid/i;
const EXPIRED = /CERT_HAS_EXPIRED|certificate has expired|CERT_EXPIRED/i;

/** The error codes and messages along the cause chain (depth-bounded), a TransportError's typed code too. */
function texts(e: unknown): string[] {
  const out: string[] = [];
  let cur: unknown = e;
  for (let i = 0; i < 8 && cur && typeof cur === "object"; i++) {
    const o = cur as { code?: unknown; message?: unknown; cause?: unknown };
    for (const v of [o.code, o.message, cur instanceof TransportError ? cur.errorCode : undefined]) if (typeof v === "string") out.push(v);
    cur = o.cause;
  }
  return out;
}

/** "not_yet_valid", "expired", or undefined for any other error. */
export function clockTlsKind(e: unknown): "not_yet_valid" | "expired" | undefined {
  const t = texts(e);
  if (t.some((s) => NOT_YET_VALID.test(s))) return "not_yet_valid";
  if (t.some((s) => EXPIRED.test(s))) return "expired";
  return undefined;
}

/** The sentence about the clock that goes after the TLS error's own message. */
export function clockHint(kind: "not_yet_valid" | "expired", nowMs: number, clock: ClockState | undefined): string {
  const now = new Date(nowMs).toISOString();
  const what = kind === "not_yet_valid" ? "not yet valid" : "expired";
  const head = `the machine's clock says ${now}; a certificate that is "${what}" usually means this clock is wrong`;
  if (!clock || clock.decision === "no_servers") {
    return `${head}. No NTP server is configured: set METAL_NTP_SERVERS=<address or name>[,...] on the kernel cmdline (metal-boot's partition cmdline) so the agent sets the clock before it talks TLS`;
  }
  if (clock.decision === "unsynced") {
    const why = clock.problem ?? (clock.reasons ?? []).join("; ");
    return `${head}. The NTP servers in METAL_NTP_SERVERS (${clock.servers.join(", ")}) gave no usable time: ${why}`;
  }
  const at = clock.syncedAt === undefined ? "" : ` at ${new Date(clock.syncedAt).toISOString()}`;
  return `the machine's clock says ${now} and was checked against ${clock.server ?? "NTP"}${at} (it was off by ${Math.round(clock.offsetMs ?? 0)} ms): the certificate itself is ${what}`;
}

/** The same AgentError with the clock named, when it is a validity-period failure; other errors unchanged. */
export function explainClockTls(e: AgentError, nowMs: number, clock: ClockState | undefined): AgentError {
  if (e.code !== "tls") return e;
  const kind = clockTlsKind(e);
  if (!kind) return e;
  return new AgentError("tls", `${e.message}; ${clockHint(kind, nowMs, clock)}`, { ...e.details, clock: new Date(nowMs).toISOString(), clockTls: kind }, { cause: e.cause ?? e });
}
