/**
 * Is one SNTP answer usable, and what does it say? Pure: the decoded answer plus the
 * client's own send/receive times in, a sample or a rejection out. The checks are
 * RFC 4330 section 5 ("the client SHOULD ...") plus a round-trip bound:
 * mode 4 (server), version 1..4, stratum 1..15 (0 is a kiss-o'-death, 16+ is
 * unsynchronized), leap indicator not 3 (alarm: the server is not synchronized),
 * originate timestamp equal to the request's transmit timestamp (a stale, spoofed or
 * misdirected answer fails here), transmit timestamp not zero, the server's own root
 * distance below NTPv4's MAXDIST (1.5 s), and a round trip below `maxRoundTripMs` (the
 * offset error is at most half the round trip).
 */
import { kissCode, MODE_SERVER, LEAP_ALARM, ntpToUnixMs, type NtpPacket } from "./ntp-packet.ts";

export interface SntpSample {
  readonly kind: "sample";
  /** Server time minus local time, ms: add it to the local clock to be right. */
  readonly offsetMs: number;
  /** Round trip minus the server's processing time, ms. */
  readonly delayMs: number;
  readonly stratum: number;
  /** The server's transmit time as Unix ms. */
  readonly serverTimeMs: number;
}

/** Kiss codes that tell the client to stop asking this server (RFC 4330 section 8). */
export type KissAction = "stop" | "slow_down";

export interface SntpRejection {
  readonly kind: "rejected";
  /** Short machine-readable reason. */
  readonly reason: "mode" | "version" | "kiss" | "stratum" | "leap" | "origin" | "transmit" | "root_distance" | "round_trip";
  /** The same in words, naming the value. */
  readonly message: string;
  /** Only for reason "kiss": the kiss code and what it asks of the client. */
  readonly kiss?: { readonly code: string; readonly action: KissAction };
}

export type SntpVerdict = SntpSample | SntpRejection;

export interface CheckInput {
  readonly packet: NtpPacket;
  /** The transmit timestamp the request carried (raw 64-bit NTP). */
  readonly requestTransmit: bigint;
  /** Local Unix ms when the request left (T1) and the answer arrived (T4). */
  readonly sentMs: number;
  readonly receivedMs: number;
  readonly maxRoundTripMs: number;
}

/** NTPv4 MAXDIST: a server whose own distance to the reference exceeds this is unfit. */
export const MAX_ROOT_DISTANCE_MS = 1500;
/** Local timestamps have 1 ms resolution: a sub-ms round trip can compute slightly negative. */
const DELAY_SLACK_MS = 1;

const reject = (reason: SntpRejection["reason"], message: string, kiss?: SntpRejection["kiss"]): SntpRejection =>
  kiss ? { kind: "rejected", reason, message, kiss } : { kind: "rejected", reason, message };

export function checkAnswer(input: CheckInput): SntpVerdict {
  const p = input.packet;
  if (p.mode !== MODE_SERVER) return reject("mode", `answer mode ${p.mode}, expected 4 (server)`);
  if (p.version < 1 || p.version > 4) return reject("version", `answer version ${p.version}, expected 1..4`);
  if (p.stratum === 0) {
    const code = kissCode(p);
    const action: KissAction = code === "RATE" ? "slow_down" : "stop";
    return reject("kiss", `kiss-o'-death ${JSON.stringify(code)} (${action === "stop" ? "the server refuses this client" : "the server asks to slow down"})`, { code, action });
  }
  if (p.stratum > 15) return reject("stratum", `stratum ${p.stratum}, expected 1..15 (16 means unsynchronized)`);
  if (p.leap === LEAP_ALARM) return reject("leap", "leap indicator 3 (alarm: the server's clock is not synchronized)");
  if (p.origin !== input.requestTransmit) return reject("origin", "originate timestamp does not match the request (stale, spoofed or misdirected answer)");
  if (p.transmit === 0n) return reject("transmit", "transmit timestamp is zero");
  const rootDistance = p.rootDelayMs / 2 + p.rootDispersionMs;
  if (rootDistance > MAX_ROOT_DISTANCE_MS) return reject("root_distance", `server's root distance ${Math.round(rootDistance)} ms, expected at most ${MAX_ROOT_DISTANCE_MS} ms`);

  const t1 = input.sentMs;
  const t2 = ntpToUnixMs(p.receive);
  const t3 = ntpToUnixMs(p.transmit);
  const t4 = input.receivedMs;
  const delay = t4 - t1 - (t3 - t2);
  if (delay < -DELAY_SLACK_MS || delay > input.maxRoundTripMs) {
    return reject("round_trip", `round trip ${Math.round(delay)} ms, expected 0..${input.maxRoundTripMs} ms`);
  }
  return { kind: "sample", offsetMs: (t2 - t1 + (t3 - t4)) / 2, delayMs: Math.max(0, delay), stratum: p.stratum, serverTimeMs: t3 };
}
