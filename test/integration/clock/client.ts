/**
 * The agent's clock stage, run inside the test's network namespace
 * (`ip netns exec <ns> bun client.ts <METAL_NTP_SERVERS value>`): the real SNTP client
 * over real UDP, with a recording setter instead of clock_settime (the host's clock is
 * never touched). Prints one JSON line: the stage's result, what would have been set,
 * the elapsed time and the log lines.
 */
import { parseNtpServerList } from "../../../src/config/ntp-servers.ts";
import { syncClock } from "../../../src/ops/clock/sync.ts";
import { capturingLogger } from "../../helpers/log-capture.ts";

const servers = parseNtpServerList(process.argv[2] ?? "");
if (!servers) throw new Error(`bad server list ${process.argv[2]}`);
const cap = capturingLogger();
const set: { targetMs: number; atMs: number }[] = [];
const t0 = performance.now();
const state = await syncClock(servers, { log: cap.log, setClock: (targetMs) => (set.push({ targetMs, atMs: Date.now() }), 0), setRtc: () => 0, rtcPresent: () => false });
console.log(JSON.stringify({ state, set, elapsedMs: Math.round(performance.now() - t0), logs: cap.lines.map((l) => JSON.parse(l)) }));
