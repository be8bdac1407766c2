/**
 * An SNTP server stand-in for tests and the lab: answers UDP requests in one of these
 * modes: `correct` (this host's time), `year` (a year ahead: the machine's clock looks
 * a year behind), `kod` (kiss-o'-death DENY), `silent` (reads and never answers).
 * Run as a script inside a network namespace, one or more `address=mode` pairs:
 *   bun sntp-standin.ts --port 123 --serve fd00:123::1=correct --serve fd00:123::2=kod
 * prints `ready` once every socket is bound.
 */
import dgram from "node:dgram";
import { decodePacket, encodePacket, MODE_SERVER, unixMsToNtp } from "../../../src/ops/clock/ntp-packet.ts";

export type StandinMode = "correct" | "year" | "kod" | "silent";
export const YEAR_MS = 365 * 86_400_000;

/** The answer for one request (undefined: say nothing). Pure but for `nowMs`. */
export function standinAnswer(request: Uint8Array, mode: StandinMode, nowMs: number): Uint8Array | undefined {
  if (mode === "silent") return undefined;
  const req = decodePacket(request);
  const t = mode === "year" ? nowMs + YEAR_MS : nowMs;
  return encodePacket({
    leap: mode === "kod" ? 3 : 0,
    version: req.version,
    mode: MODE_SERVER,
    stratum: mode === "kod" ? 0 : 1,
    poll: 4,
    precision: -20,
    rootDelayMs: 0,
    rootDispersionMs: 1,
    refId: new TextEncoder().encode(mode === "kod" ? "DENY" : "GPS\0"),
    reference: unixMsToNtp(t - 16_000),
    origin: req.transmit,
    receive: unixMsToNtp(t),
    transmit: unixMsToNtp(t),
  });
}

export function startStandin(address: string, port: number, mode: StandinMode): Promise<{ port: number; requests: () => number; close: () => void }> {
  let n = 0;
  const sock = dgram.createSocket({ type: address.includes(":") ? "udp6" : "udp4" });
  sock.on("message", (msg, from) => {
    n++;
    const a = standinAnswer(new Uint8Array(msg), mode, Date.now());
    if (a) sock.send(a, from.port, from.address);
  });
  return new Promise((resolve, reject) => {
    sock.once("error", reject);
    sock.bind(port, address, () => resolve({ port: sock.address().port, requests: () => n, close: () => sock.close() }));
  });
}

if (import.meta.main) {
  const argv = process.argv;
  const port = Number(argv[argv.indexOf("--port") + 1] ?? "123");
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] !== "--serve") continue;
    const [address, mode] = argv[i + 1]!.split("=") as [string, StandinMode];
    await startStandin(address, port, mode);
  }
  console.log("ready");
}
