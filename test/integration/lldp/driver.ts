#!/usr/bin/env bun
/**
 * Runs one LLDP session inside a namespace for the namespace tests
 * (`ip netns exec <ns> bun driver.ts <json options>`): starts it on the named
 * interfaces, waits for `switches` distinct switches or `timeoutMs`, prints the result
 * as one JSON line on stdout ({ms, neighbours}) and keeps the session (announcing) until
 * the test closes the driver's stdin (it has seen what it waits for), at most `holdMs`
 * more, before closing. Logs are JSON lines on stderr.
 */
import { readFileSync } from "node:fs";
import { createLogger } from "../../../src/platform/log/logger.ts";
import { SecretSet } from "../../../src/platform/log/redact.ts";
import { startLldp } from "../../../src/network/lldp/session.ts";

interface DriverOptions {
  readonly interfaces: readonly string[];
  readonly systemName: string;
  readonly switches: number;
  readonly timeoutMs: number;
  readonly holdMs?: number;
  readonly txIntervalMs?: number;
  /** json (default) or text: the format an operator sees on a terminal. */
  readonly logFormat?: "json" | "text";
}

const o = JSON.parse(process.argv[2] ?? "{}") as DriverOptions;
const log = createLogger({ level: "debug", format: o.logFormat ?? "json", write: (l) => void process.stderr.write(l), secrets: new SecretSet() });
const nic = (name: string) => ({
  name,
  ifindex: Number(readFileSync(`/sys/class/net/${name}/ifindex`, "utf8").trim()),
  mac: readFileSync(`/sys/class/net/${name}/address`, "utf8").trim(),
});
const t0 = performance.now();
const s = startLldp({ interfaces: o.interfaces.map(nic), systemName: o.systemName, log, ...(o.txIntervalMs ? { txIntervalMs: o.txIntervalMs } : {}) });
const seen = await s.waitForSwitches(o.switches, o.timeoutMs);
process.stdout.write(JSON.stringify({ ms: Math.round(performance.now() - t0), neighbours: Object.fromEntries(seen) }) + "\n");
if (o.holdMs) {
  let bound: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([new Promise((r) => (bound = setTimeout(r, o.holdMs))), Bun.stdin.stream().pipeTo(new WritableStream())]);
  clearTimeout(bound);
}
await s.close();
