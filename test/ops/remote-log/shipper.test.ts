/**
 * The log shipper with the real logger (redaction included) and the real HTTP
 * transport against the Loki stand-in on loopback: lines arrive in order with the
 * machine's labels and no secret; with the endpoint down or gone the logger is not
 * slowed down, the drop counter says what was lost, and a flush before reboot is
 * bounded.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { logEvent } from "../../../src/platform/log/logger.ts";
import { SecretSet } from "../../../src/platform/log/redact.ts";
import { LoggingSchema } from "../../../src/ops/remote-log/remote-log-config.ts";
import { LogShipper, type ShipperChange } from "../../../src/ops/remote-log/shipper.ts";
import { logShipperChanges, startRemoteLog } from "../../../src/ops/remote-log/start-remote-log.ts";
import { prepareForReboot } from "../../../src/ops/reboot/prepare.ts";
import { startLoki, type LokiStandin } from "../../../lab/standins/loki.ts";
import { waitFor } from "../../../lab/base/wait.ts";
import { capturingLogger } from "../../helpers/log-capture.ts";

const UUID = "4c4c4544-0042-3510-8051-b5c04f4a3133";
const TOKEN = "eyJhbGciOiJIUzI1NiJ9.machine-token-secret.sig";
const PASSWORD = "loki-basic-pw-9f2c";
const stands: LokiStandin[] = [];
afterEach(() => stands.splice(0).forEach((s) => s.stop()));

function loki(opts: Parameters<typeof startLoki>[2] = {}): LokiStandin {
  const s = startLoki("::1", 0, opts);
  stands.push(s);
  return s;
}

/** A logger whose write path feeds the shipper, as the agent's logger will. */
function agentLogger(shipper: LogShipper) {
  const secrets = new SecretSet();
  const cap = capturingLogger(secrets, shipper.sink);
  return cap;
}

describe("shipping log lines to Loki", () => {
  test("the whole run's lines arrive in order, with the machine's labels, basic auth, and no secret", async () => {
    const l = loki({ basicAuth: { user: "hammer", password: PASSWORD } });
    const shipper = new LogShipper({ intervalMs: 20 });
    const cap = agentLogger(shipper);
    cap.secrets.add(TOKEN);
    // Lines before the endpoint is known (network, metal-boot) are buffered.
    for (let i = 0; i < 50; i++) logEvent(cap.log, "agent.stage", { i }, `early ${i}`);
    logEvent(cap.log, "boot.config", { token: TOKEN, note: `Bearer ${TOKEN}` }, `got token ${TOKEN}`);
    const logging = LoggingSchema.parse({ endpoint: l.pushUrl.href, basic_auth: { user: "hammer", password: PASSWORD }, log_type: "loki" });
    startRemoteLog(shipper, logging, { log: cap.log, secrets: cap.secrets, uuid: UUID });
    for (let i = 0; i < 50; i++) logEvent(cap.log, "agent.stage", { i }, `late ${i}`);
    await waitFor(() => l.state.lines.length >= cap.lines.length, 10_000, "all lines at the Loki stand-in");

    expect(l.state.lines.map((x) => x.line + "\n")).toEqual(cap.lines);
    expect(l.state.lines.every((x) => x.labels.component === "metal-hammer" && x.labels.machineID === UUID)).toBe(true);
    const ns = l.state.lines.map((x) => x.ns);
    expect(ns.every((v, i) => i === 0 || v > ns[i - 1]!)).toBe(true);
    expect(l.state.pushes.every((p) => p.status === 204)).toBe(true);
    const everything = JSON.stringify(l.state.lines.map((x) => x.line)) + cap.lines.join("") + JSON.stringify(shipper.stats);
    expect(everything).not.toContain(TOKEN);
    expect(everything).not.toContain(PASSWORD);
    expect(everything).not.toContain(Buffer.from(`hammer:${PASSWORD}`).toString("base64"));
    expect(cap.events("remotelog.start")[0]!.msg).toContain("basic auth; 51 buffered line(s) first");
    expect(shipper.stats).toMatchObject({ state: "shipping", dropped: 0, queued: 0, failedPushes: 0 });
  });

  test("a wrong password: pushes fail with 401, counted, never the password in a line", async () => {
    const l = loki({ basicAuth: { user: "hammer", password: PASSWORD } });
    const changes: ShipperChange[] = [];
    const shipper = new LogShipper({ intervalMs: 10, onChange: (c) => changes.push(c) });
    const cap = agentLogger(shipper);
    startRemoteLog(shipper, LoggingSchema.parse({ endpoint: l.pushUrl.href, basic_auth: { user: "hammer", password: "wrong-password-1" } }), {
      log: cap.log,
      secrets: cap.secrets,
      uuid: UUID,
    });
    logEvent(cap.log, "agent.stage", {}, "hello");
    await waitFor(() => shipper.stats.failedPushes > 0, 5000, "a failed push");
    expect(shipper.stats.state).toBe("failing");
    expect(shipper.stats.lastError).toContain("HTTP 401");
    expect(changes[0]).toMatchObject({ kind: "failing" });
    expect(JSON.stringify(shipper.stats) + cap.lines.join("")).not.toContain("wrong-password-1");
  });

  test("endpoint down: logging is not slowed, the oldest lines are dropped and counted, and lines flow again when it is back", async () => {
    const l = loki();
    l.state.faults.down = true;
    const changes: ShipperChange[] = [];
    // State changes are logged through a logger of their own here, to count them.
    const side = capturingLogger();
    const logChange = logShipperChanges(() => side.log);
    const shipper2 = new LogShipper({ intervalMs: 10, maxLines: 100, batchLines: 50, onChange: (c) => (changes.push(c), logChange(c)) });
    const cap2 = agentLogger(shipper2);
    startRemoteLog(shipper2, LoggingSchema.parse({ endpoint: l.pushUrl.href }), { log: cap2.log, secrets: cap2.secrets, uuid: UUID });
    const t0 = performance.now();
    for (let i = 0; i < 1000; i++) logEvent(cap2.log, "agent.stage", { i }, `line ${i}`);
    const elapsed = performance.now() - t0;
    // 1000 log calls with Loki down take as long as without it: nothing waits for the network.
    expect(elapsed).toBeLessThan(1000);
    await waitFor(() => shipper2.stats.failedPushes > 0, 5000, "a failed push");
    expect(shipper2.stats.state).toBe("failing");
    expect(shipper2.stats.queued).toBeLessThanOrEqual(100);
    expect(shipper2.stats.dropped).toBeGreaterThanOrEqual(900);
    expect(changes.filter((c) => c.kind === "failing")).toHaveLength(1);
    expect(side.events("remotelog.failing")).toHaveLength(1);

    l.state.faults.down = false;
    logEvent(cap2.log, "agent.stage", {}, "after the outage");
    await shipper2.flush(5000);
    await waitFor(() => shipper2.stats.state === "shipping", 40_000, "the recovery");
    await waitFor(() => l.state.lines.some((x) => x.line.includes("after the outage")), 5000, "the last line");
    const got = l.state.lines.map((x) => x.line);
    // The newest lines survived, in order; the oldest were dropped.
    expect(got.at(-1)).toContain("after the outage");
    expect(got[0]).not.toContain('"line 0"');
    expect(changes.at(-1)).toMatchObject({ kind: "recovered" });
    expect(side.events("remotelog.recovered")[0]!.msg).toMatch(/^shipping logs works again \(\d+ line\(s\) dropped so far\)$/);
  }, 60_000);

  test("no Loki at all (connection refused): the flush before reboot returns within its bound", async () => {
    const l = loki();
    const gone = l.pushUrl.href;
    l.stop();
    const shipper = new LogShipper({ intervalMs: 10 });
    const cap = agentLogger(shipper);
    startRemoteLog(shipper, LoggingSchema.parse({ endpoint: gone }), { log: cap.log, secrets: cap.secrets, uuid: UUID });
    logEvent(cap.log, "agent.stage", {}, "x");
    const t0 = performance.now();
    await prepareForReboot("reboot", { log: cap.log, shipper, flushMs: 1500 });
    expect(performance.now() - t0).toBeLessThan(2500);
    expect(shipper.stats.queued).toBeGreaterThan(0);
    expect(cap.events("remotelog.flush")[0]!.msg).toMatch(/^flushing \d+ log line\(s\) before reboot$/);
  });

  test("a hanging Loki: the flush is bounded too", async () => {
    const l = loki();
    l.state.faults.slowMs = 10_000;
    const shipper = new LogShipper({ intervalMs: 10 });
    const cap = agentLogger(shipper);
    startRemoteLog(shipper, LoggingSchema.parse({ endpoint: l.pushUrl.href }), { log: cap.log, secrets: cap.secrets, uuid: UUID });
    logEvent(cap.log, "agent.stage", {}, "x");
    const t0 = performance.now();
    await shipper.flush(800);
    expect(performance.now() - t0).toBeLessThan(1500);
  });

  test("the last lines before a reboot are flushed, then the watchdog is closed", async () => {
    const l = loki();
    const shipper = new LogShipper({ intervalMs: 60_000 });
    const cap = agentLogger(shipper);
    startRemoteLog(shipper, LoggingSchema.parse({ endpoint: l.pushUrl.href }), { log: cap.log, secrets: cap.secrets, uuid: UUID });
    await shipper.flush(2000);
    logEvent(cap.log, "agent.fatal", {}, "last words");
    const order: string[] = [];
    const watchdog = { close: (why: string) => order.push(`watchdog closed (${why}), lines at Loki: ${l.state.lines.length}`) };
    await prepareForReboot("kexec", { log: cap.log, shipper, watchdog: watchdog as never });
    expect(l.state.lines.some((x) => x.line.includes("last words"))).toBe(true);
    expect(order).toEqual([`watchdog closed (kexec), lines at Loki: ${l.state.lines.length}`]);
  });

  test("no endpoint in the config: buffered lines are dropped and nothing is collected", () => {
    const shipper = new LogShipper();
    const cap = agentLogger(shipper);
    logEvent(cap.log, "agent.stage", {}, "x");
    startRemoteLog(shipper, LoggingSchema.parse({}), { log: cap.log, secrets: cap.secrets, uuid: UUID });
    logEvent(cap.log, "agent.stage", {}, "y");
    expect(shipper.stats).toMatchObject({ state: "off", queued: 0, reason: "no logging.endpoint in the config" });
  });

  test("a clock step moves the stamps of the lines still queued", () => {
    let now = Date.parse("2001-01-01T00:00:00Z");
    const shipper = new LogShipper({ now: () => now });
    shipper.sink("before the step\n");
    const year = 365 * 86_400_000;
    shipper.clockStepped(year);
    now += year;
    shipper.sink("after the step\n");
    const pushed: string[] = [];
    shipper.start(async (b) => void pushed.push(b), { component: "metal-hammer" });
    return shipper.flush(1000).then(() => {
      const values = JSON.parse(pushed[0]!).streams[0].values as [string, string][];
      expect(values.map(([, l]) => l)).toEqual(["before the step", "after the step"]);
      expect(new Date(Number(BigInt(values[0]![0]) / 1_000_000n)).toISOString()).toBe("2002-01-01T00:00:00.000Z");
      expect(BigInt(values[1]![0]) > BigInt(values[0]![0])).toBe(true);
    });
  });
});

describe("the Loki stand-in checks the push shape", () => {
  const post = (l: LokiStandin, body: string, type = "application/json") => fetch(l.pushUrl, { method: "POST", headers: { "content-type": type }, body });

  test("bad bodies get 400 naming what is wrong", async () => {
    const l = loki();
    const cases: [string, string][] = [
      ["{}", "streams: "],
      [JSON.stringify({ streams: [{ stream: { "bad-label": "x" }, values: [["1", "a"]] }] }), "streams.0.stream.bad-label"],
      [JSON.stringify({ streams: [{ stream: {}, values: [[1, "a"]] }] }), "streams.0.values.0.0"],
      [JSON.stringify({ streams: [{ stream: {}, values: [["2.5", "a"]] }] }), "unix nanoseconds"],
      ["not json", "body is not JSON"],
    ];
    for (const [body, msg] of cases) {
      const r = await post(l, body);
      expect(r.status).toBe(400);
      expect(await r.text()).toContain(msg);
    }
    expect((await post(l, "{}", "text/plain")).status).toBe(415);
  });

  test("an entry older than the stream's last one is out of order", async () => {
    const l = loki();
    const push = (ts: string) => post(l, JSON.stringify({ streams: [{ stream: { a: "b" }, values: [[ts, "x"]] }] }));
    expect((await push("200")).status).toBe(204);
    expect((await push("100")).status).toBe(400);
  });
});
